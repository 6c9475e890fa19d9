//! The steps of keeping schedules that `orgql schedule` and the app's Schedules window share:
//! the destination checked and made absolute, a schedule saved and registered with the system's
//! scheduler (the one it was registered with before let go of), removed with its entry, and
//! every schedule with its next run and its last runs, each outcome in the words both show.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Local};

use super::definition::{Destination, Schedule};
use super::entry::Job;
use super::register::{self, Scheduler};
use super::runs;
use crate::secret::Secret;
use crate::store::{RunState, ScheduleRun, Store};

/// Why a step did not happen: a mistake in what was given (the CLI's exit 2), or the
/// database, the files or the system's scheduler (exit 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Whether what was given is at fault (not the system).
    pub usage: bool,
    /// One sentence: what happened and what to do.
    pub message: String,
}

impl Refused {
    /// A mistake in what was given.
    pub fn usage(message: impl Into<String>) -> Refused {
        Refused { usage: true, message: message.into() }
    }

    /// The system's fault.
    pub fn system(message: impl Into<String>) -> Refused {
        Refused { usage: false, message: message.into() }
    }
}

/// `to` checked (a folder must exist, `keep` only for a folder) and made absolute, since the
/// scheduler runs from another folder: the text kept as the schedule's `to`.
pub fn destination(to: &str, keep: Option<u32>) -> Result<String, String> {
    let destination = Destination::parse(to)?;
    if keep.is_some() && !destination.holds_many() {
        return Err("--keep applies to a folder or an SFTP folder; give --to a folder ending with /".to_owned());
    }
    if keep == Some(0) {
        return Err("--keep 0 would remove every delivery; give 1 or more".to_owned());
    }
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match destination {
        Destination::Sftp(url) => Ok(url),
        Destination::Folder(dir) => {
            if !dir.is_dir() && !to.trim().starts_with(r"\\") {
                return Err(format!(
                    "the folder {} does not exist; create it first, or give another --to",
                    dir.display()
                ));
            }
            let separator = if to.trim().ends_with('\\') { '\\' } else { std::path::MAIN_SEPARATOR };
            let text = absolute(&dir).display().to_string();
            Ok(if text.ends_with(['/', '\\']) { text } else { format!("{text}{separator}") })
        }
        Destination::File(file) => {
            let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !parent.is_dir() {
                return Err(format!(
                    "the folder {} does not exist; create it first, or end --to with / to name a folder",
                    parent.display()
                ));
            }
            Ok(absolute(&file).display().to_string())
        }
    }
}

/// The account the scheduler runs a delivery as: `DOMAIN\name` on Windows, the user name elsewhere.
fn account() -> String {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match (var("USERDOMAIN"), var("USERNAME")) {
        (Some(domain), Some(user)) => format!("{domain}\\{user}"),
        _ => var("USER")
            .or_else(|| var("LOGNAME"))
            .or_else(|| var("USERNAME"))
            .or_else(|| {
                let home = std::env::var_os("HOME")?;
                std::path::Path::new(&home).file_name().map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default(),
    }
}

/// The scheduler's entry of `schedule`: this program, `schedule run NAME`.
pub fn job(schedule: &Schedule) -> Result<Job, String> {
    let program = std::env::current_exe()
        .map(|p| crate::platform::shown_path(&p))
        .map_err(|e| format!("orgql cannot tell where its own program is ({e})"))?;
    Ok(Job {
        name: schedule.name.clone(),
        when: schedule.when.clone(),
        program,
        arguments: vec!["schedule".into(), "run".into(), schedule.name.clone()],
        secret_file: schedule.secret_file.clone(),
        signed_out: schedule.signed_out,
        user: account(),
    })
}

/// `Mon 2026-11-30 07:00`.
pub fn when_shown(at: &DateTime<Local>) -> String {
    at.format("%a %Y-%m-%d %H:%M").to_string()
}

/// The schedule `name` kept in `store`; one sentence when there is none or it cannot be read.
pub fn load(store: &Store, name: &str) -> Result<Schedule, Refused> {
    let definition = store.schedule_definition(name).map_err(|e| Refused::system(e.to_string()))?;
    let definition = definition.ok_or_else(|| {
        Refused::usage(format!("there is no schedule named '{name}'; `orgql schedule list` shows them"))
    })?;
    Schedule::from_json(&definition).map_err(|e| Refused::usage(format!("the schedule '{name}': {e}")))
}

/// A schedule saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// Its name.
    pub name: String,
    /// Whether it replaced one of that name.
    pub replaced: bool,
    /// The scheduler it is registered with (`None`: written only).
    pub registered: Option<&'static str>,
    /// Its next run.
    pub next: String,
    /// The first line to say: "scheduled 'NAME': every Monday at 07:00 to /srv/hr/; next run …
    /// (registered with cron)".
    pub summary: String,
    /// What else the person should know (where the secret is kept, what the scheduler said).
    pub notes: Vec<String>,
}

/// Saves `schedule` in the database at `store_path` (replacing one of its name) and, when
/// `register`, registers it with this system's scheduler; a scheduler it was registered with
/// before and is not now lets go of it. With a scheduler that runs with nobody signed in (cron,
/// systemd), the profile's secret (`secret`) is kept in an owner-only file beside the database.
/// Blocking (files, the database, the scheduler's programs).
pub fn save(
    store_path: &Path,
    mut schedule: Schedule,
    register: bool,
    secret: impl FnOnce() -> Result<Secret, String>,
) -> Result<Saved, Refused> {
    let scheduler = register.then(Scheduler::native);
    let mut notes = Vec::new();
    // With nobody signed in, Linux's keyring is locked or absent: the secret goes in a file only
    // its owner can read (passed by systemd as a credential).
    schedule.secret_file = match scheduler {
        Some(Scheduler::Systemd | Scheduler::Cron) => {
            let file = runs::schedule_folder(store_path, &schedule.name).join("client-secret");
            keep_secret(&secret().map_err(Refused::usage)?, &file).map_err(Refused::system)?;
            notes.push(format!(
                "the profile's secret is kept for runs with nobody signed in in {} (readable by you only)",
                file.display()
            ));
            Some(file)
        }
        _ => None,
    };
    schedule.registered = scheduler.map(|s| s.name().to_owned());
    let store = Store::open(store_path).map_err(|e| Refused::system(e.to_string()))?;
    let replaced = store.schedule_definition(&schedule.name).map_err(|e| Refused::system(e.to_string()))?.is_some();
    if replaced
        && let Ok(old) = load(&store, &schedule.name)
        && let Some(old_scheduler) = old.registered.as_deref().and_then(Scheduler::parse)
        && Some(old_scheduler) != scheduler
    {
        drop(register::unregister(old_scheduler, &schedule.name));
    }
    store.put_schedule(&schedule.name, &schedule.to_json()).map_err(|e| Refused::system(e.to_string()))?;
    let next = when_shown(&schedule.next_run(&Local::now()));
    let verb = if replaced { "replaced" } else { "scheduled" };
    let head = format!("{verb} '{}': {} to {}; next run {next}", schedule.name, schedule.when.describe(), schedule.to);
    let summary = match scheduler {
        None => format!(
            "{head} (not registered: `orgql schedule show {} --as …` prints the entry to deploy)",
            schedule.name
        ),
        Some(scheduler) => {
            let job = job(&schedule).map_err(Refused::system)?;
            match register::register(scheduler, &job) {
                Ok(registered) => {
                    notes.extend(registered.notes);
                    format!("{head} (registered with {})", scheduler.name())
                }
                Err(e) => {
                    return Err(Refused::system(format!(
                        "the schedule '{}' is saved but {} did not register it ({e}); fix that and add it again, or use --no-register and deploy `orgql schedule show {} --as {}`",
                        schedule.name,
                        scheduler.name(),
                        schedule.name,
                        scheduler.name()
                    )));
                }
            }
        }
    };
    Ok(Saved { name: schedule.name.clone(), replaced, registered: scheduler.map(|s| s.name()), next, summary, notes })
}

/// Writes `secret` to `file`, owner-only.
fn keep_secret(secret: &Secret, file: &Path) -> Result<(), String> {
    let written = file
        .parent()
        .map_or(Ok(()), crate::platform::private::create_dir_all)
        .and_then(|()| crate::platform::private::create_truncated(file))
        .and_then(|mut out| out.write_all(secret.expose().as_bytes()).and_then(|()| out.sync_all()));
    written.map_err(|e| format!("the secret could not be kept for unattended runs in {} ({e})", file.display()))
}

/// A schedule removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// "removed the schedule 'NAME' and its cron entry".
    pub said: String,
    /// Its folder of lock and staging files, when it could not be removed (with why).
    pub left: Option<(PathBuf, String)>,
}

/// Removes the schedule `name` from the database at `store_path` and its entry from the
/// scheduler it was registered with (kept when the scheduler refuses), then its folder of lock
/// and staging files; its deliveries stay. Blocking.
pub fn remove(store_path: &Path, name: &str) -> Result<Removed, Refused> {
    let store = Store::open(store_path).map_err(|e| Refused::system(e.to_string()))?;
    let schedule = load(&store, name)?;
    let mut said = format!("removed the schedule '{name}'");
    if let Some(scheduler) = schedule.registered.as_deref().and_then(Scheduler::parse) {
        match register::unregister(scheduler, name) {
            Ok(true) => said.push_str(&format!(" and its {} entry", scheduler.name())),
            Ok(false) => said.push_str(&format!(" ({} had no entry for it)", scheduler.name())),
            Err(e) => {
                return Err(Refused::system(format!(
                    "{} did not remove the entry of '{name}' ({e}); the schedule is kept: try again",
                    scheduler.name()
                )));
            }
        }
    }
    store.remove_schedule(name).map_err(|e| Refused::system(e.to_string()))?;
    let folder = runs::schedule_folder(store_path, name);
    let left = match folder.exists().then(|| std::fs::remove_dir_all(&folder)) {
        Some(Err(e)) => Some((folder, e.to_string())),
        _ => None,
    };
    Ok(Removed { said, left })
}

/// A schedule as the list shows it: its definition (or why it cannot be read), its next run
/// and its latest runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    /// Its name.
    pub name: String,
    /// Its definition, or why it cannot be read.
    pub schedule: Result<Schedule, String>,
    /// Its next run (`None`: unreadable).
    pub next: Option<DateTime<Local>>,
    /// Its latest runs, newest first.
    pub runs: Vec<ScheduleRun>,
    /// How many of its latest runs failed one after the other.
    pub failed_in_a_row: u32,
}

impl Overview {
    /// The last run's outcome in a few words: "delivered 1,234 rows", "failed (2 in a row):
    /// <sentence>", "skipped: <sentence>", "running"; empty when it never ran.
    pub fn outcome(&self) -> String {
        self.runs.first().map(|run| outcome(run, self.failed_in_a_row)).unwrap_or_default()
    }

    /// Where the last delivery went, else where they go.
    pub fn whereto(&self) -> String {
        let last = self.runs.first().and_then(|run| run.delivered_to.clone());
        last.or_else(|| self.schedule.as_ref().ok().map(|s| s.to.clone())).unwrap_or_default()
    }
}

/// A run's outcome in a few words; `failed_in_a_row` counts the failures up to the latest run.
pub fn outcome(run: &ScheduleRun, failed_in_a_row: u32) -> String {
    let message = run.message.as_deref().unwrap_or_default();
    match run.state {
        RunState::Delivered => match run.rows {
            Some(rows) => format!("delivered {}", crate::import::plan::counted(rows, "row", "rows")),
            None => "delivered".to_owned(),
        },
        RunState::Failed if failed_in_a_row > 1 => format!("failed ({failed_in_a_row} in a row): {message}"),
        RunState::Failed | RunState::Skipped => format!("{}: {message}", run.state.word()),
        RunState::Running => run.state.word().to_owned(),
    }
}

/// Every schedule kept in `store`, by name, with its `runs` latest runs, its next run after `now`.
pub fn overview(store: &Store, runs: usize, now: &DateTime<Local>) -> Result<Vec<Overview>, String> {
    let schedules = store.schedule_definitions().map_err(|e| e.to_string())?;
    let mut list = Vec::with_capacity(schedules.len());
    for (name, definition) in schedules {
        let schedule = Schedule::from_json(&definition);
        let next = schedule.as_ref().ok().map(|s| s.next_run(now));
        list.push(Overview {
            runs: store.schedule_runs(&name, runs).map_err(|e| e.to_string())?,
            failed_in_a_row: store.failures_in_a_row(&name).unwrap_or(0),
            name,
            schedule,
            next,
        });
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_destination_is_made_absolute_and_checked() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let folder = format!("{}/", dir.path().display());
        assert!(destination(&folder, Some(3)).expect("a folder").ends_with('/'));
        let missing = format!("{}/missing/", dir.path().display());
        assert!(destination(&missing, None).expect_err("missing").contains("does not exist"));
        let file = dir.path().join("users.csv").display().to_string();
        assert!(destination(&file, Some(2)).expect_err("a file keeps one").contains("--keep"));
        assert!(destination(&folder, Some(0)).expect_err("nothing kept").contains("--keep 0"));
    }

    #[test]
    fn outcomes_read_as_the_list_shows_them() {
        let run = |state, rows, message: Option<&str>| ScheduleRun {
            id: 1,
            schedule: "weekly".into(),
            started: Local::now(),
            ended: None,
            state,
            rows,
            bytes: None,
            delivered_to: None,
            changes_to: None,
            message: message.map(str::to_owned),
            exit_code: None,
            shown: false,
        };
        assert_eq!(outcome(&run(RunState::Delivered, Some(1234), None), 0), "delivered 1,234 rows");
        assert_eq!(outcome(&run(RunState::Failed, None, Some("down")), 2), "failed (2 in a row): down");
        assert_eq!(outcome(&run(RunState::Failed, None, Some("down")), 1), "failed: down");
        assert_eq!(outcome(&run(RunState::Skipped, None, Some("busy")), 0), "skipped: busy");
    }
}
