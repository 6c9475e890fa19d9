//! The real window, under a virtual X server: `orgql` with no arguments opens its window, runs the
//! sample query when asked (Ctrl+Enter, sent with xdotool), and draws something that is not blank
//! (a screenshot with ImageMagick's `import`, its colours counted with `convert`).
//!
//! It runs where `Xvfb` is on the PATH and otherwise says why it did not; `.ci/run` installs what
//! it needs and sets `ORGQL_SMOKE_REQUIRED` so that CI cannot skip it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::desktop::{Processes, log_of, on_path, start_xvfb, tool};

/// ImageMagick's own `convert` (another `convert` may come first on the PATH).
const CONVERT: &str = "/usr/bin/convert";
/// Fewer colours than this is a blank (or nearly blank) screen; the app's first frame has
/// about two thousand (anti-aliased text on several greys).
const MIN_COLOURS: u64 = 256;

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
    let display = start_xvfb(&mut processes, &path("xvfb.log"), "1280x800x24");

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
