//! The desktop a test opens the real window on: a virtual X server (Xvfb) on a display it picks
//! itself, and the processes a test starts, each stopped and reaped when the test ends
//! (tests/it/smoke.rs, tests/it/atspi.rs).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The processes a test started; each is killed and reaped when the test ends, however it ends.
#[derive(Default)]
pub struct Processes(Vec<(&'static str, Child, bool)>);

impl Processes {
    pub fn add(&mut self, name: &'static str, child: Child) -> &mut Child {
        self.0.push((name, child, false));
        &mut self.0.last_mut().expect("just added").1
    }

    /// A process started in a process group of its own (`process_group(0)`): the group is
    /// stopped with it (what it started itself: the accessibility bus and its registry).
    pub fn add_group(&mut self, name: &'static str, child: Child) -> &mut Child {
        self.0.push((name, child, true));
        &mut self.0.last_mut().expect("just added").1
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        // The app before the X server it draws on.
        for (name, child, group) in self.0.iter_mut().rev() {
            if *group {
                let group = format!("-{}", child.id());
                let stopped = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
                if !stopped.is_ok_and(|s| s.success()) {
                    eprintln!("could not stop the process group of {name}; it may have ended already");
                }
            }
            if let Err(e) = child.kill() {
                eprintln!("could not stop {name} ({e}); it may have ended already");
            }
            if let Err(e) = child.wait() {
                eprintln!("could not reap {name} ({e})");
            }
        }
    }
}

pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Runs a tool on `display`; its standard output when it succeeds.
pub fn tool(display: &str, program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).env("DISPLAY", display).stdin(Stdio::null()).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

pub fn log_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("(no log: {e})"))
}

/// Starts Xvfb on a display it picks itself (`-displayfd`), so that parallel runs never collide;
/// `extra` are more of its arguments (`+iglx`).
pub fn start_xvfb(processes: &mut Processes, log: &Path, screen: &str, extra: &[&str]) -> String {
    let log_file = std::fs::File::create(log).expect("a log file");
    let child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
        .expect("Xvfb starts");
    let child = processes.add("Xvfb", child);
    let stdout = child.stdout.take().expect("Xvfb's stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("xvfb-displayfd".into())
        .spawn(move || {
            let mut line = String::new();
            let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
            // The test may have given up waiting; nothing to tell then.
            drop(tx.send(read));
        })
        .expect("a thread");
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(number)) if !number.trim().is_empty() => format!(":{}", number.trim()),
        other => panic!("Xvfb gave no display number ({other:?}); its log:\n{}", log_of(log)),
    }
}
