//! A run of a schedule as the system's scheduler (or Run now) starts it: one at a time per
//! schedule (a run that finds the previous one still going is skipped), recorded from start to
//! end in orgql's database whatever happens, its secret found with nobody signed in.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::definition::Schedule;
use super::deliver::{self, Delivered, Run, RunFailure};
use crate::api::Client;
use crate::secret::Secret;
use crate::store::{RunEnd, RunState, Store};

/// The exit status of a run skipped because the previous one still runs (nothing delivered).
pub const SKIPPED: u8 = 10;

/// The name of the credential systemd passes a delivery (`LoadCredential=`).
pub const CREDENTIAL_NAME: &str = "orgql-client-secret";

/// The folder of a schedule's lock and staging files, beside orgql's database.
pub fn schedule_folder(store: &Path, name: &str) -> PathBuf {
    store.parent().unwrap_or(Path::new(".")).join("schedules").join(name)
}

/// The secret a run was given for nobody-signed-in runs: systemd's credential, else the
/// schedule's owner-only file. `Ok(None)`: neither (the keyring or the environment is asked).
pub fn unattended_secret(schedule: &Schedule) -> Result<Option<Secret>, RunFailure> {
    let read = |path: &Path| -> Result<Secret, RunFailure> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            RunFailure {
                code: 3,
                message: format!(
                    "the delivery '{}' cannot read its client secret from {} ({e}); store it again with `orgql schedule add {} …`",
                    schedule.name,
                    path.display(),
                    schedule.name
                ),
            }
        })?;
        Ok(Secret::new(text.trim_end_matches(['\r', '\n']).to_owned()))
    };
    if let Some(dir) = std::env::var_os("CREDENTIALS_DIRECTORY") {
        let file = Path::new(&dir).join(CREDENTIAL_NAME);
        if file.is_file() {
            return read(&file).map(Some);
        }
    }
    match &schedule.secret_file {
        Some(file) => read(file).map(Some),
        None => Ok(None),
    }
}

/// How a recorded run ended: the delivery, or why none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// The run's id in the database (`None` when it could not be recorded).
    pub id: Option<i64>,
    /// What was delivered, or why nothing.
    pub result: Result<Delivered, RunFailure>,
}

/// Runs `schedule` once, recorded in the database at `store`: skipped when its previous run
/// still holds the schedule's lock; `client` is made once the lock is held (a run that cannot
/// make one, e.g. cannot read its secret, is recorded as failed).
pub async fn run_recorded(
    schedule: &Schedule,
    store: &Path,
    client: impl FnOnce() -> Result<Arc<Client>, RunFailure>,
    cancel: CancellationToken,
) -> Ended {
    let folder = schedule_folder(store, &schedule.name);
    let db = match Store::open(store) {
        Ok(db) => db,
        Err(e) => {
            let message = format!("orgql's database cannot be opened ({e}); the delivery was not made");
            return Ended { id: None, result: Err(RunFailure { code: 6, message }) };
        }
    };
    let lock = match lock(&folder) {
        Ok(lock) => lock,
        Err(Busy) => {
            let message = format!(
                "the previous run of '{}' is still going; this one was skipped (nothing delivered)",
                schedule.name
            );
            let end = RunEnd {
                state: RunState::Skipped,
                rows: None,
                bytes: None,
                delivered_to: None,
                changes_to: None,
                message: Some(message.clone()),
                exit_code: SKIPPED,
            };
            let id = db.add_schedule_run(&schedule.name, &end).ok();
            return Ended { id, result: Err(RunFailure { code: SKIPPED, message }) };
        }
    };
    // Runs still "running" ended without a word: this one holds the lock, so none still runs.
    if let Err(e) = db.interrupted_runs(
        &schedule.name,
        "the run was stopped before it ended (the process was killed or the computer shut down); nothing was delivered",
    ) {
        tracing::warn!("{e}");
    }
    let id = db.start_schedule_run(&schedule.name).ok();
    let result = match client() {
        Ok(client) => {
            let run =
                Run { schedule, client, store, staging: folder.join("staging"), at: chrono::Local::now(), cancel };
            deliver::deliver(run).await
        }
        Err(failure) => Err(failure),
    };
    let end = match &result {
        Ok(delivered) => RunEnd {
            state: RunState::Delivered,
            rows: Some(delivered.rows),
            bytes: Some(delivered.bytes),
            delivered_to: Some(delivered.to.clone()),
            changes_to: delivered.changes_to.clone(),
            message: None,
            exit_code: 0,
        },
        Err(failure) => RunEnd {
            state: RunState::Failed,
            rows: None,
            bytes: None,
            delivered_to: None,
            changes_to: None,
            message: Some(failure.message.clone()),
            exit_code: failure.code,
        },
    };
    if let Some(id) = id
        && let Err(e) = db.end_schedule_run(id, &end)
    {
        tracing::warn!("the run was not recorded: {e}");
    }
    drop(lock);
    Ended { id, result }
}

/// The previous run of the schedule still holds its lock.
struct Busy;

/// Takes the schedule's lock (a file in its folder, locked by the system: released when the
/// process ends, however it ends).
fn lock(folder: &Path) -> Result<Option<std::fs::File>, Busy> {
    if let Err(e) = crate::platform::private::create_dir_all(folder) {
        tracing::warn!("runs of this schedule are not kept apart: {e}");
        return Ok(None);
    }
    let file = match std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(folder.join("lock")) {
        Ok(file) => file,
        Err(e) => {
            tracing::warn!("runs of this schedule are not kept apart: {e}");
            return Ok(None);
        }
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(Busy),
        Err(std::fs::TryLockError::Error(e)) => {
            tracing::warn!("runs of this schedule are not kept apart: {e}");
            Ok(None)
        }
    }
}
