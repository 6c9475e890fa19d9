//! The real window, under a virtual X server: `orgql` with no arguments opens its window, runs the
//! sample query when asked (Ctrl+Enter, sent with xdotool), and draws something that is not blank
//! (a screenshot with ImageMagick's `import`, its colours counted with `convert`).
//!
//! It runs where `Xvfb` is on the PATH and otherwise says why it did not; `.ci/run` installs what
//! it needs and sets `ORGQL_SMOKE_REQUIRED` so that CI cannot skip it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// ImageMagick's own `convert` (another `convert` may come first on the PATH).
const CONVERT: &str = "/usr/bin/convert";
/// Fewer colours than this is a blank (or nearly blank) screen; the app's first frame has
/// about two thousand (anti-aliased text on several greys).
const MIN_COLOURS: u64 = 256;

/// The processes a test started; each is killed and reaped when the test ends, however it ends.
#[derive(Default)]
struct Processes(Vec<(&'static str, Child)>);

impl Processes {
    fn add(&mut self, name: &'static str, child: Child) -> &mut Child {
        self.0.push((name, child));
        &mut self.0.last_mut().expect("just added").1
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        // The app before the X server it draws on.
        for (name, child) in self.0.iter_mut().rev() {
            if let Err(e) = child.kill() {
                eprintln!("smoke: could not stop {name} ({e}); it may have ended already");
            }
            if let Err(e) = child.wait() {
                eprintln!("smoke: could not reap {name} ({e})");
            }
        }
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Runs a tool on `display`; its standard output when it succeeds.
fn tool(display: &str, program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).env("DISPLAY", display).stdin(Stdio::null()).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn log_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("(no log: {e})"))
}

/// Starts Xvfb on a display it picks itself (`-displayfd`), so that parallel runs never collide.
fn start_xvfb(processes: &mut Processes, log: &Path) -> String {
    let log_file = std::fs::File::create(log).expect("a log file");
    let child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
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

/// Waits (bounded) until `done` gives a value, checking that the app still runs.
fn wait_for<T>(what: &str, app: &mut Child, app_log: &Path, within: Duration, done: impl Fn() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = done() {
            return value;
        }
        if let Ok(Some(status)) = app.try_wait() {
            panic!("orgql ended ({status}) before {what}; its log:\n{}", log_of(app_log));
        }
        assert!(started.elapsed() < within, "waited {within:?} for {what}; the app's log:\n{}", log_of(app_log));
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_window_opens_runs_the_sample_query_and_is_not_blank() {
    let required = std::env::var_os("ORGQL_SMOKE_REQUIRED").is_some();
    let missing: Vec<&str> =
        [("Xvfb", on_path("Xvfb")), ("import", on_path("import")), (CONVERT, Path::new(CONVERT).is_file())]
            .into_iter()
            .filter_map(|(name, found)| (!found).then_some(name))
            .collect();
    if !missing.is_empty() {
        let note = format!("the window smoke test needs {} (apt-get install xvfb imagemagick)", missing.join(", "));
        assert!(!required, "{note}; ORGQL_SMOKE_REQUIRED is set");
        eprintln!("note: skipped: {note}");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = |name: &str| dir.path().join(name);
    for sub in ["home", "config", "data", "cache"] {
        std::fs::create_dir_all(path(sub)).expect("a directory");
    }
    let mut processes = Processes::default();
    let display = start_xvfb(&mut processes, &path("xvfb.log"));

    let app_log = path("orgql.log");
    let app = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DISPLAY", &display)
        .env("ORGQL_NO_KEYRING", "1")
        .env("HOME", path("home"))
        .env("XDG_CONFIG_HOME", path("config"))
        .env("XDG_DATA_HOME", path("data"))
        .env("XDG_CACHE_HOME", path("cache"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&app_log).expect("a log file"))
        .stderr(std::fs::File::create(path("orgql.err.log")).expect("a log file"))
        .spawn()
        .expect("orgql starts");
    let app = processes.add("orgql", app);
    let app_err = path("orgql.err.log");

    if on_path("xdotool") {
        let window = wait_for("its window", app, &app_err, Duration::from_secs(60), || {
            tool(&display, "xdotool", &["search", "--onlyvisible", "--name", "orgql"])
                .and_then(|ids| ids.lines().next().map(str::to_owned))
                .filter(|id| !id.is_empty())
        });
        let title = tool(&display, "xdotool", &["getwindowname", &window]).unwrap_or_default();
        // The title names the active tab and the connection (it starts as the app's name).
        assert!(title == "Users — Sandbox — orgql" || title == "orgql — GraphQL explorer", "{title}");
        // No window manager gives it the focus: take it, then press Run's shortcut.
        wait_for("the focus", app, &app_err, Duration::from_secs(10), || {
            tool(&display, "xdotool", &["windowfocus", &window])?;
            std::thread::sleep(Duration::from_millis(300));
            tool(&display, "xdotool", &["getwindowfocus"]).filter(|focused| *focused == window)
        });
        assert!(tool(&display, "xdotool", &["key", "ctrl+Return"]).is_some(), "xdotool key failed");
        // The run lands in the history database, which the test reads beside the app.
        let store = path("data").join("orgql").join("orgql.sqlite3");
        let entry = wait_for("the sample query's answer", app, &app_err, Duration::from_secs(60), || {
            let entries = orgql::store::Store::open(&store).ok()?.history(10).ok()?;
            entries.into_iter().next()
        });
        assert_eq!((entry.profile.as_str(), entry.outcome.as_str()), ("Sandbox", "200 · 50 rows"));
        // A few frames for the rows to be drawn.
        std::thread::sleep(Duration::from_secs(2));
    } else {
        eprintln!("note: no xdotool: the smoke test only looks at the window, without running the query");
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(status)) = app.try_wait() {
                panic!("orgql ended ({status}); its log:\n{}", log_of(&app_err));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    let shot = path("orgql-window.png");
    let shot_text = shot.display().to_string();
    assert!(
        tool(&display, "import", &["-display", &display, "-window", "root", &shot_text]).is_some(),
        "import could not take a screenshot"
    );
    let colours: u64 = tool(&display, CONVERT, &[&shot_text, "-format", "%k", "info:"])
        .and_then(|count| count.parse().ok())
        .expect("convert counts the colours");
    let kept = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("smoke-orgql-window.png");
    match std::fs::copy(&shot, &kept) {
        // Written past the test harness's capture, so that CI logs show where it is.
        Ok(_) => {
            let line = format!("smoke: the window's screenshot ({colours} colours) is at {}\n", kept.display());
            if let Err(e) = std::io::stderr().lock().write_all(line.as_bytes()) {
                eprintln!("{line}(stderr refused it: {e})");
            }
        }
        Err(e) => eprintln!("smoke: the screenshot could not be kept at {} ({e})", kept.display()),
    }
    assert!(colours >= MIN_COLOURS, "the window looks blank: {colours} colours; the app's log:\n{}", log_of(&app_err));
    if let Ok(Some(status)) = app.try_wait() {
        panic!("orgql ended ({status}) while on screen; its log:\n{}", log_of(&app_err));
    }
}
