//! Where orgql keeps its files on this platform: the same folders the profiles file and the
//! local database use, as `directories` names them (XDG on Linux, `~/Library` on macOS,
//! `%APPDATA%`/`%LOCALAPPDATA%` on Windows).

use std::path::{Path, PathBuf};

/// The folders of orgql on this machine, for this user.
#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    /// Settings: the profiles file (`$XDG_CONFIG_HOME/orgql`).
    pub config: PathBuf,
    /// Data: the local database with the history and webhook deliveries (`$XDG_DATA_HOME/orgql`).
    pub data: PathBuf,
    /// Caches (`$XDG_CACHE_HOME/orgql`).
    pub cache: PathBuf,
    /// Logs (`$XDG_STATE_HOME/orgql` on Linux; the cache folder elsewhere).
    pub logs: PathBuf,
}

impl Places {
    /// The platform's folders, or `None` when no home folder is known.
    pub fn of_this_user() -> Option<Self> {
        let dirs = directories::ProjectDirs::from("", "", "orgql")?;
        // Ask the modules that write there, so that a reset removes exactly what they use.
        let config = crate::profiles::ProfileFile::default_location()
            .ok()
            .and_then(|file| file.path().parent().map(Path::to_path_buf))
            .unwrap_or_else(|| dirs.config_dir().to_path_buf());
        let data = crate::store::Store::default_path()
            .and_then(|path| path.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| dirs.data_dir().to_path_buf());
        let cache = dirs.cache_dir().to_path_buf();
        let logs = dirs.state_dir().unwrap_or(dirs.cache_dir()).to_path_buf();
        Some(Places { config, data, cache, logs })
    }

    /// The desktop app's log file.
    pub fn log_file(&self) -> PathBuf {
        self.logs.join("orgql.log")
    }

    /// Each folder with what it holds, without repeats (on macOS settings and data share one).
    pub fn folders(&self) -> Vec<(&'static str, &Path)> {
        let mut folders: Vec<(&'static str, &Path)> = Vec::new();
        for (what, path) in [
            ("settings", self.config.as_path()),
            ("data", self.data.as_path()),
            ("cache", self.cache.as_path()),
            ("logs", self.logs.as_path()),
        ] {
            if !folders.iter().any(|(_, seen)| *seen == path) {
                folders.push((what, path));
            }
        }
        folders
    }
}

/// The paragraph `orgql --help` ends with: where files are kept.
pub fn help_text() -> String {
    match Places::of_this_user() {
        Some(places) => {
            let lines: Vec<String> =
                places.folders().iter().map(|(what, path)| format!("  {what:<9} {}", path.display())).collect();
            format!(
                "Files of orgql:\n{}\n  log file  {} (the desktop app's; --log-file PATH adds another)\nSecrets and cached tokens are kept in the OS keyring. 'orgql --reset' removes all of these.",
                lines.join("\n"),
                places.log_file().display()
            )
        }
        None => "No home folder is known: orgql cannot keep settings or data (set HOME).".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_listed_once_each() {
        let places = Places { config: "/a".into(), data: "/a".into(), cache: "/c".into(), logs: "/c".into() };
        assert_eq!(places.folders(), [("settings", Path::new("/a")), ("cache", Path::new("/c"))]);
        assert_eq!(places.log_file(), Path::new("/c/orgql.log"));
    }
}
