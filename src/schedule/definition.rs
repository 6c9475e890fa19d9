//! A schedule as orgql keeps it (in its database, as JSON: never a secret) and where its
//! deliveries go.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Local};
use serde::{Deserialize, Serialize};

use super::when::When;
use crate::table::Format;

/// A scheduled delivery: which query, on which connection, when, to where, in what form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Its name: letters, digits, `-` and `_` (the scheduler's entry is named after it).
    pub name: String,
    /// The connection profile it runs with.
    pub profile: String,
    /// The GraphQL document, as it was when the schedule was made.
    pub document: String,
    /// Its variables.
    #[serde(default)]
    pub variables: Option<serde_json::Value>,
    /// The operation to run when the document has several.
    #[serde(default)]
    pub operation: Option<String>,
    /// Where the document came from: "the saved operation Users/active", "users.graphql", "the
    /// command line".
    pub source: String,
    /// When it runs, in local time.
    pub when: When,
    /// Where each delivery goes, as given ([`Destination::parse`]).
    pub to: String,
    /// CSV or workbook.
    pub format: Kind,
    /// A UTF-8 byte order mark at the start (CSV only), as `orgql export --bom`.
    #[serde(default)]
    pub bom: bool,
    /// Cells as they are, without the formula guard, as `orgql export --raw`.
    #[serde(default)]
    pub raw: bool,
    /// Also deliver the rows added, changed and removed since the last delivered run.
    #[serde(default)]
    pub changes_since_last: bool,
    /// Keep the last N deliveries in the folder, removing older ones orgql delivered.
    #[serde(default)]
    pub keep: Option<u32>,
    /// The private key an SFTP delivery signs in with (`None`: the person's default key or agent).
    #[serde(default)]
    pub ssh_key: Option<PathBuf>,
    /// The SFTP server's host key accepted at `add` (`SHA256:…`).
    #[serde(default)]
    pub host_key: Option<String>,
    /// The owner-only file holding the profile's secret for runs with nobody signed in (Linux).
    #[serde(default)]
    pub secret_file: Option<PathBuf>,
    /// Runs whether or not the person is signed in (Windows: Task Scheduler keeps the password).
    #[serde(default)]
    pub signed_out: bool,
    /// The system scheduler it is registered with (`None`: written only, `--no-register`).
    #[serde(default)]
    pub registered: Option<String>,
}

/// CSV or workbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Comma-separated values.
    Csv,
    /// An Excel workbook.
    Xlsx,
}

impl Kind {
    /// The table's format.
    pub fn format(self) -> Format {
        match self {
            Kind::Csv => Format::Csv,
            Kind::Xlsx => Format::Xlsx,
        }
    }

    /// `csv` or `xlsx`.
    pub fn extension(self) -> &'static str {
        self.format().extension()
    }
}

impl Schedule {
    /// Its definition as kept in the database.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A definition read back from the database.
    pub fn from_json(text: &str) -> Result<Schedule, String> {
        serde_json::from_str(text).map_err(|e| format!("its definition cannot be read ({e})"))
    }

    /// Where its deliveries go.
    pub fn destination(&self) -> Result<Destination, String> {
        Destination::parse(&self.to)
    }

    /// The next run after `now`.
    pub fn next_run(&self, now: &DateTime<Local>) -> DateTime<Local> {
        self.when.next_after(now)
    }
}

/// Whether `name` can name a schedule (the scheduler's entry and the delivered files are named
/// after it); why not in one sentence.
pub fn check_name(name: &str) -> Result<(), String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || name.len() > 64 || !name.chars().all(fits) || name.starts_with('-') {
        return Err(format!(
            "'{name}' cannot name a schedule; use up to 64 letters, digits, - and _ (not first), e.g. weekly-users"
        ));
    }
    Ok(())
}

/// Where a schedule's deliveries go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A folder (or a Windows share, `\\server\hr\`): each delivery a new file named
    /// `NAME-YYYY-MM-DD[-HHMM].csv`.
    Folder(PathBuf),
    /// One file, replaced by each delivery.
    File(PathBuf),
    /// A folder on an SFTP server, as `sftp://user@host[:port]/dir/`.
    Sftp(String),
}

impl Destination {
    /// `text` as a destination: `sftp://…`, a path ending with a separator or naming an
    /// existing folder, else a file.
    pub fn parse(text: &str) -> Result<Destination, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("--to is empty; give a folder (ending with /), a file or sftp://user@host/dir/".to_owned());
        }
        if text.to_ascii_lowercase().starts_with("sftp://") {
            super::sftp::SftpTarget::parse(text)?;
            return Ok(Destination::Sftp(text.to_owned()));
        }
        let path = PathBuf::from(text);
        let share = text.starts_with(r"\\");
        if text.ends_with('/') || text.ends_with('\\') || path.is_dir() || share && !Path::new(text).exists() {
            return Ok(Destination::Folder(path));
        }
        Ok(Destination::File(path))
    }

    /// Whether each delivery is a new file (a folder or SFTP), so that `--keep` applies.
    pub fn holds_many(&self) -> bool {
        !matches!(self, Destination::File(_))
    }

    /// Where it is, as a person reads it.
    pub fn describe(&self) -> String {
        match self {
            Destination::Folder(path) | Destination::File(path) => {
                crate::platform::shown_path(path).display().to_string()
            }
            Destination::Sftp(url) => url.clone(),
        }
    }
}

/// The names of one delivery: the whole file's and the changes file's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// The whole file.
    pub whole: String,
    /// The changes file.
    pub changes: String,
}

/// The names of a delivery of `schedule` made at `at` into a folder: `NAME-YYYY-MM-DD.csv`,
/// with the time (`-HHMM`, then `-HHMMSS`) when it runs every hour or when `taken` says that
/// name is already there (a second delivery the same day).
pub fn delivery_names(schedule: &Schedule, at: &DateTime<Local>, taken: impl Fn(&str) -> bool) -> Names {
    let ext = schedule.format.extension();
    let day = format!("{}-{}", schedule.name, at.format("%Y-%m-%d"));
    // The date; with the time when it runs hourly or that name is there; with the seconds when
    // that is there too (Run now twice in a minute): never an earlier delivery replaced.
    let minute = format!("{day}-{}", at.format("%H%M"));
    let second = format!("{day}-{}", at.format("%H%M%S"));
    let candidates = if schedule.when == When::Hourly { vec![minute, second] } else { vec![day, minute, second] };
    let last = candidates.last().cloned().unwrap_or_default();
    let stem = candidates.into_iter().find(|stem| !taken(&format!("{stem}.{ext}"))).unwrap_or(last);
    Names { whole: format!("{stem}.{ext}"), changes: format!("{stem}-changes.{ext}") }
}

/// The changes file beside a destination file: `users.csv` → `users-changes.csv`.
pub fn changes_beside(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = file.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    file.with_file_name(format!("{stem}-changes{ext}"))
}

/// The temporary name a delivery is written under in its destination folder before it is
/// renamed: hidden, and recognisably orgql's (`.weekly-users-2026-11-30.csv.orgql-partial`).
pub fn temporary_name(final_name: &str) -> String {
    format!(".{final_name}{PARTIAL_SUFFIX}")
}

/// The end of a delivery's temporary name (the same on an SFTP server).
pub use super::sftp::PARTIAL_SUFFIX;

/// Whether `file_name` is a temporary file a delivery of `schedule` (into a folder) or to
/// `final_name` left behind (killed mid-way): the next run removes it.
pub fn is_left_behind(file_name: &str, schedule: &str, final_name: Option<&str>) -> bool {
    let Some(inner) = file_name.strip_prefix('.').and_then(|n| n.strip_suffix(PARTIAL_SUFFIX)) else {
        return false;
    };
    match final_name {
        Some(name) => inner == name,
        // `weekly-users-2026-11-30.csv`: the schedule's name, then a date (so that `weekly`'s
        // leftovers are never taken for `weekly-users`' or the other way round).
        None => inner
            .strip_prefix(schedule)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.get(..10))
            .is_some_and(|date| chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn schedule(when: &str, format: Kind) -> Schedule {
        Schedule {
            name: "weekly-users".into(),
            profile: "hr".into(),
            document: "{ paginatedUsers(first: 50) { edges { node { ref } } } }".into(),
            variables: None,
            operation: None,
            source: "the command line".into(),
            when: when.parse().expect("a schedule"),
            to: "/srv/hr/".into(),
            format,
            bom: false,
            raw: false,
            changes_since_last: false,
            keep: None,
            ssh_key: None,
            host_key: None,
            secret_file: None,
            signed_out: false,
            registered: None,
        }
    }

    #[test]
    fn a_definition_reads_back_as_it_was_kept() {
        let kept = schedule("mon,thu 06:30", Kind::Xlsx);
        assert_eq!(Schedule::from_json(&kept.to_json()), Ok(kept));
        assert!(Schedule::from_json("{").expect_err("not a definition").contains("cannot be read"));
    }

    #[test]
    fn names_carry_the_date_and_the_time_when_needed() {
        let at = Local.with_ymd_and_hms(2026, 11, 30, 7, 0, 5).single().expect("a time");
        let weekly = schedule("mon 07:00", Kind::Csv);
        let names = delivery_names(&weekly, &at, |_| false);
        assert_eq!(names.whole, "weekly-users-2026-11-30.csv");
        assert_eq!(names.changes, "weekly-users-2026-11-30-changes.csv");
        let again = delivery_names(&weekly, &at, |name| name == "weekly-users-2026-11-30.csv");
        assert_eq!(again.whole, "weekly-users-2026-11-30-0700.csv");
        let third = delivery_names(&weekly, &at, |name| name.starts_with("weekly-users-2026-11-30"));
        assert_eq!(third.whole, "weekly-users-2026-11-30-070005.csv");
        let hourly = delivery_names(&schedule("hourly", Kind::Xlsx), &at, |_| false);
        assert_eq!(hourly.whole, "weekly-users-2026-11-30-0700.xlsx");
        assert_eq!(changes_beside(Path::new("/srv/hr/users.csv")), Path::new("/srv/hr/users-changes.csv"));
    }

    #[test]
    fn destinations_are_told_apart() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let existing = dir.path().to_string_lossy().into_owned();
        assert_eq!(Destination::parse(&existing), Ok(Destination::Folder(dir.path().to_path_buf())));
        assert!(matches!(Destination::parse("/srv/new folder/"), Ok(Destination::Folder(_))));
        assert!(matches!(Destination::parse(r"\\server\hr\"), Ok(Destination::Folder(_))));
        assert!(matches!(Destination::parse("/srv/hr/users.csv"), Ok(Destination::File(_))));
        assert!(matches!(Destination::parse("sftp://hr@files.example.com/in/"), Ok(Destination::Sftp(_))));
        assert!(Destination::parse(" ").is_err());
        assert!(!Destination::File("/a.csv".into()).holds_many());
    }

    #[test]
    fn only_orgql_s_own_leftovers_are_recognised() {
        let name = temporary_name("weekly-users-2026-11-30.csv");
        assert_eq!(name, ".weekly-users-2026-11-30.csv.orgql-partial");
        assert!(is_left_behind(&name, "weekly-users", None));
        assert!(!is_left_behind(&name, "weekly", None), "another schedule's");
        assert!(!is_left_behind("weekly-users-2026-11-30.csv", "weekly-users", None), "a delivery");
        assert!(!is_left_behind(".weekly-users-notes.txt", "weekly-users", None), "someone's file");
        assert!(is_left_behind(".users.csv.orgql-partial", "weekly-users", Some("users.csv")));
        assert!(!is_left_behind(".other.csv.orgql-partial", "weekly-users", Some("users.csv")));
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("weekly-users_2").is_ok());
        for bad in ["", "-x", "a b", "a/b", "é", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
