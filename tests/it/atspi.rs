//! What a screen reader on Linux gets (issue 46), read through AT-SPI as Orca reads it: the real
//! window under Xvfb at 150 % of 1280×800 (`WINIT_X11_SCALE_FACTOR=1.5`), on a private session
//! bus with its own accessibility bus (at-spi-bus-launcher, the accessibility switched on as a
//! screen reader does), read by `tests/atspi/probe.py` with python3-pyatspi: the first user's row
//! is "1 of 50" (the header apart), the Connection combo says "second" once it is chosen, and with
//! two notices above the work (no keyring; the rows came from another connection) the grid keeps
//! at least five rows on screen.
//!
//! It runs where Xvfb, dbus-daemon, at-spi-bus-launcher and python3's pyatspi are installed and
//! otherwise says why it did not; `.ci/run` installs them and sets `ORGQL_ATSPI_REQUIRED` so
//! that CI cannot skip it.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::desktop::{Processes, log_of, on_path, start_xvfb};

/// Debian's place for the accessibility bus's launcher.
const BUS_LAUNCHER: &str = "/usr/libexec/at-spi-bus-launcher";

/// What is missing to run the test, in words.
fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    for tool in ["Xvfb", "dbus-daemon", "dbus-send", "import"] {
        if !on_path(tool) {
            missing.push(tool.to_owned());
        }
    }
    if !Path::new(BUS_LAUNCHER).is_file() {
        missing.push(format!("{BUS_LAUNCHER} (at-spi2-core)"));
    }
    if python().is_none() {
        missing.push("a python3 with pyatspi (python3-pyatspi)".to_owned());
    }
    missing
}

/// Debian's python3 (python3-pyatspi installs for it), or the one on the PATH, whichever imports
/// pyatspi (a python3 of pyenv's or a venv's may come first on the PATH).
fn python() -> Option<&'static str> {
    ["/usr/bin/python3", "python3"].into_iter().find(|python| {
        Command::new(python)
            .args(["-c", "import pyatspi"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    })
}

/// A private session bus: its address.
fn start_session_bus(processes: &mut Processes, dir: &Path) -> String {
    let mut child = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address=1"])
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.join("dbus.log")).expect("a log file"))
        .spawn()
        .expect("dbus-daemon starts");
    let stdout = child.stdout.take().expect("dbus-daemon's stdout");
    processes.add("dbus-daemon", child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("dbus-address".into())
        .spawn(move || {
            let mut line = String::new();
            let read = std::io::BufReader::new(stdout).read_line(&mut line).map(|_| line);
            // The test may have given up waiting; nothing to tell then.
            drop(tx.send(read));
        })
        .expect("a thread");
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(address)) if !address.trim().is_empty() => address.trim().to_owned(),
        other => panic!("dbus-daemon gave no address ({other:?}): {}", log_of(&dir.join("dbus.log"))),
    }
}

/// Runs `dbus-send` on the private bus until it succeeds (the launcher takes its name shortly).
fn switch_accessibility_on(bus: &str, within: Duration) {
    let started = Instant::now();
    loop {
        let output = Command::new("dbus-send")
            .args([
                "--session",
                "--dest=org.a11y.Bus",
                "--print-reply",
                "/org/a11y/bus",
                "org.freedesktop.DBus.Properties.Set",
                "string:org.a11y.Status",
                "string:IsEnabled",
                "variant:boolean:true",
            ])
            .env("DBUS_SESSION_BUS_ADDRESS", bus)
            .stdin(Stdio::null())
            .output()
            .expect("dbus-send runs");
        if output.status.success() {
            return;
        }
        assert!(
            started.elapsed() < within,
            "the accessibility bus never answered: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_screen_reader_reads_rows_from_1_the_connection_s_value_and_five_rows_at_150_percent() {
    let required = std::env::var_os("ORGQL_ATSPI_REQUIRED").is_some();
    let missing = missing();
    if !missing.is_empty() {
        let note = format!(
            "the AT-SPI test needs {} (apt-get install xvfb dbus at-spi2-core python3-pyatspi imagemagick)",
            missing.join(", ")
        );
        assert!(!required, "{note}; ORGQL_ATSPI_REQUIRED is set");
        eprintln!("note: skipped: {note}");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = |name: &str| dir.path().join(name);
    for sub in ["home", "config/orgql", "data", "cache", "runtime"] {
        std::fs::create_dir_all(path(sub)).expect("a directory");
    }
    // A second connection to choose (its service need not answer: what is read is the choice).
    std::fs::write(
        path("config/orgql/profiles.toml"),
        "[profiles.second]\nbase_url = \"http://127.0.0.1:9/\"\nclient_id = \"sandbox-admin\"\nscopes = \"users.read\"\n",
    )
    .expect("a profiles file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path("runtime"), std::fs::Permissions::from_mode(0o700)).expect("runtime dir");
    }

    let mut processes = Processes::default();
    let display = start_xvfb(&mut processes, &path("xvfb.log"), "1280x800x24", &[]);
    let bus = start_session_bus(&mut processes, dir.path());
    let mut launcher = Command::new(BUS_LAUNCHER);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut launcher, 0);
    let launcher = launcher
        .arg("--launch-immediately")
        .env("DBUS_SESSION_BUS_ADDRESS", &bus)
        .env("DISPLAY", &display)
        .env("XDG_RUNTIME_DIR", path("runtime"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(path("at-spi.log")).expect("a log file"))
        .spawn()
        .expect("at-spi-bus-launcher starts");
    processes.add_group("at-spi-bus-launcher", launcher);
    // As a screen reader does when it starts: AccessKit follows this switch.
    switch_accessibility_on(&bus, Duration::from_secs(20));

    let app_err = path("orgql.err.log");
    let app = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DISPLAY", &display)
        .env("DBUS_SESSION_BUS_ADDRESS", &bus)
        .env("WINIT_X11_SCALE_FACTOR", "1.5")
        .env("ORGQL_NO_KEYRING", "1")
        .env("HOME", path("home"))
        .env("XDG_CONFIG_HOME", path("config"))
        .env("XDG_DATA_HOME", path("data"))
        .env("XDG_CACHE_HOME", path("cache"))
        .env("XDG_RUNTIME_DIR", path("runtime"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(path("orgql.log")).expect("a log file"))
        .stderr(std::fs::File::create(&app_err).expect("a log file"))
        .spawn()
        .expect("orgql starts");
    processes.add("orgql", app);

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("atspi-150-percent.png");
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/atspi/probe.py");
    let output = Command::new(python().expect("checked above"))
        .arg(&probe)
        .arg(&shot)
        .env("DISPLAY", &display)
        .env("DBUS_SESSION_BUS_ADDRESS", &bus)
        .env("XDG_RUNTIME_DIR", path("runtime"))
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs the probe");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let read: Value = serde_json::from_str(last).unwrap_or_else(|e| {
        panic!(
            "the probe said no JSON ({e}): {stdout}\n{}\nthe app's log:\n{}",
            String::from_utf8_lossy(&output.stderr),
            log_of(&app_err)
        )
    });
    assert!(
        read.get("error").is_none(),
        "the probe failed: {read}\n{}\nthe app's log:\n{}\nAT-SPI's log:\n{}",
        String::from_utf8_lossy(&output.stderr),
        log_of(&app_err),
        log_of(&path("at-spi.log"))
    );
    eprintln!("atspi: {read}\natspi: the screenshot is at {}", shot.display());

    // The first user's row is the first of 50 (the header row is not counted).
    let first = &read["first_row"];
    assert_eq!(first["posinset"], "1", "{read}");
    assert_eq!(first["setsize"], "50", "{read}");
    // The combo's value reaches AT-SPI, where Orca reads it (the selected child).
    assert_eq!(read["combo_name"], "Connection", "{read}");
    assert_eq!(read["combo_value"], "second", "{read}");
    // Two notices above the work, and still five rows of the grid or more on screen.
    assert!(read["keyring_notice"].is_string(), "{read}");
    assert!(read["notice"].as_str().is_some_and(|n| n.contains("The chosen connection is second")), "{read}");
    let rows = read["rows_on_screen"].as_array().map_or(0, Vec::len);
    assert!(rows >= 5, "only {rows} grid rows on screen at 150 % with two notices: {read}");
}
