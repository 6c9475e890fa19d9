//! Logs: to stderr at the level in `ORGQL_LOG` (default `warn`), and with `--log-file` to a file
//! as well (default level `info` there), so that a person can find what happened and send it.
//!
//! Secrets never reach a log: client secrets and tokens are [`crate::secret::Secret`]s, whose
//! `Debug` is redacted, and no code logs a request's headers or a token response's body
//! (`tests/it/packaging.rs` runs a query at trace level and looks for them in the file).

use std::path::{Path, PathBuf};

use tracing_subscriber::filter::EnvFilter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{Layer as _, fmt};

use super::Failure;

/// The environment variable with the log filter (`info`, `orgql=debug`, …).
pub const LOG_ENV: &str = "ORGQL_LOG";

/// Quiet libraries that say nothing useful at the default levels.
const QUIET: &str = "egui_system_font_provider=error";

/// The desktop app's log grows to about this size, then starts over (the old one kept as `.1`).
const ROTATE_AT: u64 = 5 * 1024 * 1024;

/// The help of `--log-file`, with the desktop app's default path on this platform.
pub fn help() -> String {
    let default = super::places::Places::of_this_user()
        .map(|places| places.log_file().display().to_string())
        .unwrap_or_else(|| "nowhere: no home folder is known".to_owned());
    format!(
        "Also write logs to this file (appended; level from {LOG_ENV}, else info). The desktop app writes them to {default} unless given another. Never holds secrets or tokens"
    )
}

/// The desktop app's default log file, after moving a large one aside to `orgql.log.1`.
pub fn default_for_app() -> Option<PathBuf> {
    let path = super::places::Places::of_this_user()?.log_file();
    if std::fs::metadata(&path).is_ok_and(|meta| meta.len() > ROTATE_AT) {
        let mut old = path.clone().into_os_string();
        old.push(".1");
        // Keeping the old log is a courtesy: appending to the big one is no harm.
        drop(std::fs::rename(&path, old));
    }
    Some(path)
}

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new(format!("{default},{QUIET}")))
}

/// Opens the log file for appending, creating its folder.
fn open(path: &Path) -> Result<std::fs::File, Failure> {
    let cannot = |e: std::io::Error| {
        Failure::usage(format!("cannot write the log file {} ({e}); give --log-file another PATH", path.display()))
    };
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        crate::platform::private::create_dir_all(dir).map_err(cannot)?;
    }
    // Logs may name users and paths: the owner's only, like the database.
    crate::platform::private::open_append(path).map_err(cannot)
}

/// Starts logging to stderr and, when `file` is given, to that file as well.
pub fn init(file: Option<&Path>) -> Result<(), Failure> {
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_filter(filter("warn"));
    let file_layer = match file {
        Some(path) => {
            let file = open(path)?;
            Some(fmt::layer().with_writer(std::sync::Mutex::new(file)).with_ansi(false).with_filter(filter("info")))
        }
        None => None,
    };
    // A second init (a test calling `main` twice) keeps the first subscriber.
    if tracing_subscriber::registry().with(stderr).with(file_layer).try_init().is_ok() && file.is_some() {
        tracing::info!(version = env!("CARGO_PKG_VERSION"), "orgql started");
    }
    Ok(())
}
