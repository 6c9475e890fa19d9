//! Scheduled deliveries (issue 53) off the UI thread: every schedule with its next run and its
//! latest runs, a schedule saved (and registered with the system's scheduler) or removed (and
//! let go of by it) the way `orgql schedule` does ([`crate::schedule::manage`]), **Run now**
//! exactly as the scheduler runs it ([`crate::schedule::runs::run_recorded`]), and the failures
//! the app has not shown yet.

use std::sync::Arc;

use super::{Connection, Event, JobId, Shared};
use crate::api::Credentials;
use crate::schedule::definition::{Kind, Schedule};
use crate::schedule::deliver::RunFailure;
use crate::schedule::manage::{self, Overview};
use crate::schedule::runs;
use crate::schedule::when::When;
use crate::store::ScheduleRun;

/// How many of each schedule's latest runs the window lists.
const RUNS_SHOWN: usize = 10;

/// A schedule as the form made it: the worker checks where it goes and saves it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleDraft {
    /// Its name (checked by the form).
    pub name: String,
    /// The connection profile it runs with.
    pub profile: String,
    /// The GraphQL document.
    pub document: String,
    /// Its variables (a JSON object).
    pub variables: Option<serde_json::Value>,
    /// The operation to run when the document has several.
    pub operation: Option<String>,
    /// Where the document came from.
    pub source: String,
    /// When it runs.
    pub when: When,
    /// Where it goes, as typed.
    pub to: String,
    /// CSV or workbook.
    pub format: Kind,
    /// A byte order mark at the start (CSV).
    pub bom: bool,
    /// Also the changes since the last delivered run.
    pub changes_since_last: bool,
    /// Keep the last N deliveries in the folder.
    pub keep: Option<u32>,
    /// Register it with the system's scheduler.
    pub register: bool,
}

/// What the Schedules window asks.
#[derive(Debug, Clone)]
pub enum SchedulesCommand {
    /// Send every schedule ([`SchedulesEvent::Listed`]).
    Load,
    /// Send the failures the app has not shown yet ([`SchedulesEvent::Failures`]).
    Failures,
    /// A failure was shown (dismissed, or run again): it is not shown at the next start.
    Shown {
        /// The schedule.
        schedule: String,
        /// Its failed run (and every earlier one).
        run: i64,
    },
    /// Save a schedule ([`SchedulesEvent::Saved`], then the list).
    Save(Box<ScheduleDraft>),
    /// Remove a schedule and its entry in the system's scheduler ([`SchedulesEvent::Removed`]).
    Remove(String),
    /// Deliver now, as the scheduler would ([`SchedulesEvent::Ran`]).
    RunNow {
        /// The run (its event carries it).
        job: JobId,
        /// The schedule.
        name: String,
        /// Its profile's connection (the secret typed this session, if any; else the keyring's).
        connection: Connection,
    },
}

/// What comes back to the Schedules window.
#[derive(Debug, Clone)]
pub enum SchedulesEvent {
    /// Every schedule, by name, or why they could not be read.
    Listed(Result<Vec<Overview>, String>),
    /// The failed runs not shown yet, newest first (one a schedule).
    Failures(Vec<ScheduleRun>),
    /// A save ended: what was done (one line, then notes), or why not.
    Saved {
        /// The schedule.
        name: String,
        /// What came of it.
        result: Result<String, String>,
    },
    /// A removal ended.
    Removed {
        /// The schedule.
        name: String,
        /// What came of it.
        result: Result<String, String>,
    },
    /// A Run now ended: "delivered 120 rows to …", or the one-sentence failure.
    Ran {
        /// The run.
        job: JobId,
        /// The schedule.
        name: String,
        /// What came of it.
        result: Result<String, String>,
    },
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: SchedulesCommand) {
    let shared = shared.clone();
    match command {
        SchedulesCommand::Load => {
            tokio::spawn(load(shared));
        }
        SchedulesCommand::Failures => {
            tokio::spawn(failures(shared));
        }
        SchedulesCommand::Shown { schedule, run } => {
            tokio::spawn(async move {
                if let Some(Err(e)) = shared.with_store(move |s| s.mark_failures_shown(&schedule, run)).await {
                    shared.emit(Event::Problem(e)).await;
                }
            });
        }
        SchedulesCommand::Save(draft) => {
            tokio::spawn(save(shared, *draft));
        }
        SchedulesCommand::Remove(name) => {
            tokio::spawn(remove(shared, name));
        }
        SchedulesCommand::RunNow { job, name, connection } => {
            tokio::spawn(run_now(shared, job, name, connection));
        }
    }
}

/// Why nothing can be kept: the app has no database this session.
const NO_STORE: &str = "orgql's database is not open this session, so schedules cannot be kept";

/// Sends every schedule.
async fn load(shared: Arc<Shared>) {
    let now = chrono::Local::now();
    let listed = shared
        .with_store(move |s| Ok(manage::overview(s, RUNS_SHOWN, &now)))
        .await
        .unwrap_or_else(|| Err(NO_STORE.to_owned()))
        .and_then(|listed| listed);
    shared.emit(SchedulesEvent::Listed(listed)).await;
}

/// Sends the failures not shown yet (nothing when there are none).
async fn failures(shared: Arc<Shared>) {
    match shared.with_store(|s| s.unshown_failures()).await {
        Some(Ok(runs)) if !runs.is_empty() => shared.emit(SchedulesEvent::Failures(runs)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        _ => {}
    }
}

/// Runs blocking `work` with the database's path, on a blocking thread.
async fn with_path<T: Send + 'static>(
    shared: &Shared,
    work: impl FnOnce(&std::path::Path) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let path = shared.store_path.clone().ok_or_else(|| NO_STORE.to_owned())?;
    tokio::task::spawn_blocking(move || work(&path))
        .await
        .unwrap_or_else(|e| Err(format!("the schedule task failed ({e}); try again")))
}

/// Checks where `draft` goes, saves it (registered when asked), then lists again.
async fn save(shared: Arc<Shared>, draft: ScheduleDraft) {
    let name = draft.name.clone();
    // The secret only a scheduler that runs with nobody signed in needs (read before, off the
    // blocking thread: the keyring, else the environment).
    let secret = match draft.register {
        true => Some(shared.profile_secret(&draft.profile).await.map_err(|e| e.to_string())),
        false => None,
    };
    let result = with_path(&shared, move |path| {
        let to = manage::destination(&draft.to, draft.keep)?;
        if to.to_ascii_lowercase().starts_with("sftp://") {
            return Err(format!(
                "an SFTP server's host key is accepted on the command line: `orgql schedule add {} --to {to} …`",
                draft.name
            ));
        }
        let schedule = Schedule {
            name: draft.name,
            profile: draft.profile,
            document: draft.document,
            variables: draft.variables,
            operation: draft.operation,
            source: draft.source,
            when: draft.when,
            to,
            format: draft.format,
            bom: draft.bom && draft.format == Kind::Csv,
            raw: false,
            changes_since_last: draft.changes_since_last,
            keep: draft.keep,
            ssh_key: None,
            host_key: None,
            secret_file: None,
            signed_out: false,
            registered: None,
        };
        let secret = move || secret.unwrap_or_else(|| Err("no secret was read".to_owned()));
        let saved = manage::save(path, schedule, draft.register, secret).map_err(|r| r.message)?;
        let mut said = capitalised(&saved.summary);
        for note in saved.notes {
            said.push_str(&format!("\nNote: {note}"));
        }
        Ok(said)
    })
    .await;
    shared.emit(SchedulesEvent::Saved { name, result }).await;
    load(shared).await;
}

/// Removes `name` (and its scheduler entry), then lists again.
async fn remove(shared: Arc<Shared>, name: String) {
    let removing = name.clone();
    let result = with_path(&shared, move |path| {
        let removed = manage::remove(path, &removing).map_err(|r| r.message)?;
        let mut said = format!("{}; its deliveries stay where they are", capitalised(&removed.said));
        if let Some((folder, e)) = removed.left {
            said.push_str(&format!(" ({} stays: {e}; remove it by hand)", folder.display()));
        }
        Ok(said)
    })
    .await;
    shared.emit(SchedulesEvent::Removed { name, result }).await;
    load(shared).await;
}

/// Delivers `name` now, recorded as the scheduler's runs are, then lists again.
async fn run_now(shared: Arc<Shared>, job: JobId, name: String, connection: Connection) {
    let cancel = shared.start_job(job);
    let result = async {
        let path = shared.store_path.clone().ok_or_else(|| NO_STORE.to_owned())?;
        let reading = name.clone();
        let schedule = shared
            .with_store(move |s| Ok(manage::load(s, &reading)))
            .await
            .unwrap_or_else(|| Err(NO_STORE.to_owned()))?
            .map_err(|r| r.message)?;
        let client = client_of(&shared, &schedule, connection).await;
        let ended = runs::run_recorded(&schedule, &path, move || client, cancel).await;
        match ended.result {
            Ok(delivered) => {
                let rows = crate::import::plan::counted(delivered.rows, "row", "rows");
                let mut said = format!("Delivered {rows} to {}", delivered.to);
                if let (Some(changes), Some(counts)) = (&delivered.changes_to, delivered.counts) {
                    said.push_str(&format!("; changes ({}) to {changes}", counts.summary()));
                }
                if !delivered.removed.is_empty() {
                    said.push_str(&format!("; removed {} older", delivered.removed.len()));
                }
                Ok(said)
            }
            Err(failure) => Err(capitalised(&failure.message)),
        }
    }
    .await;
    shared.end_job(job);
    shared.emit(SchedulesEvent::Ran { job, name, result }).await;
    load(shared).await;
}

/// The client a run of `schedule` signs in with: its profile's connection, with the secret the
/// scheduler's runs use when the schedule keeps one (else the session's, the keyring's or the
/// environment's, as for a query).
async fn client_of(
    shared: &Shared,
    schedule: &Schedule,
    connection: Connection,
) -> Result<Arc<crate::api::Client>, RunFailure> {
    let sign_in =
        |e: String| RunFailure { code: 3, message: format!("the delivery '{}' cannot sign in: {e}", schedule.name) };
    let connection = match (runs::unattended_secret(schedule)?, connection) {
        (Some(secret), Connection::Remote { name, credentials, network }) => {
            Connection::Remote { name, credentials: Credentials { client_secret: secret, ..credentials }, network }
        }
        (_, connection) => connection,
    };
    shared.client(&connection).await.map_err(|e| sign_in(e.to_string()))
}

/// `text` with its first letter in capitals (the domain's sentences start in lower case).
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
