//! The steps around a plan that the command line and the app share: the journal begun (rows
//! with nothing to send get their outcome at once), the interrupted import found again to
//! resume, the rows that failed last time, and the scopes a plan's writes need.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use apollo_compiler::Schema;

use super::plan::{Action, PlannedRow};
use super::service::Reading;
use super::target::Target;
use crate::api::{ApiError, Client};
use crate::scopes::Scope;
use crate::store::{JournalRow, RowState, Store, StoreError};

/// Why a step could not be taken: the person's to fix (`Usage`) or the database's (`Store`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// What was asked cannot be done; the sentence says what to do instead.
    Usage(String),
    /// The journal could not be read or written.
    Store(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Usage(s) | Refusal::Store(s) => f.write_str(s),
        }
    }
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Self {
        Refusal::Store(e.to_string())
    }
}

/// The store, locked (a poisoned lock still holds a usable connection).
pub fn lock(store: &Mutex<Store>) -> MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records a new import of `file` (its `digest`) on `connection` with `rows`, in plan order;
/// rows that send nothing (unchanged, invalid) get their outcome now. Returns the import's id
/// and its journal.
pub fn begin(
    store: &Mutex<Store>,
    file: &str,
    digest: &str,
    connection: &str,
    rows: &[PlannedRow],
) -> Result<(i64, Vec<JournalRow>), Refusal> {
    // Each row's JSON made as it is inserted, not all of them first; the rows that send nothing
    // get their outcome in the same transaction (not an UPDATE a row after it).
    let planned = rows.iter().map(|r| {
        let state = match r.action {
            Action::Invalid => RowState::Failed,
            action if !action.writes() => RowState::Done,
            _ => RowState::Pending,
        };
        let message = if state == RowState::Pending { String::new() } else { r.reason.clone() };
        (r.row, r.key.clone(), serde_json::to_string(r).unwrap_or_default(), state, message)
    });
    let store = lock(store);
    let id = store.begin_import_with_outcomes(file, digest, connection, planned)?;
    Ok((id, store.import_rows(id)?))
}

/// An interrupted import, found again.
#[derive(Debug)]
pub struct Interrupted {
    /// Its id in the journal.
    pub id: i64,
    /// Its journal.
    pub journal: Vec<JournalRow>,
    /// Its plan, in plan order.
    pub rows: Vec<PlannedRow>,
    /// What to read of each user before it is written.
    pub reading: Reading,
    /// Rows not applied yet (pending, or sent without a known outcome).
    pub left: usize,
}

/// The rows of an unfinished import of `file` on `connection` still to apply; `None` when its
/// last import finished (or there was none).
pub fn left_to_resume(store: &Store, file: &str, connection: &str) -> Result<Option<usize>, StoreError> {
    let Some(last) = store.last_import(file, connection)?.filter(|l| !l.finished) else { return Ok(None) };
    Ok(Some(store.import_rows(last.id)?.iter().filter(|j| still_to_apply(j.state)).count()))
}

/// Whether a row of the journal is still to be applied.
pub fn still_to_apply(state: RowState) -> bool {
    matches!(state, RowState::Pending | RowState::Sent)
}

/// A file's imports on a connection, as the journal names them.
#[derive(Debug, Clone, Copy)]
pub struct FileOn<'a> {
    /// The file as the journal keeps it (absolute).
    pub file: &'a str,
    /// The file as the person gave it, for sentences.
    pub shown: &'a str,
    /// The SHA-256 of its bytes now: an import of other bytes is not resumed nor retried.
    pub digest: &'a str,
    /// The connection's name.
    pub connection: &'a str,
}

/// The interrupted import of `on.file` on `on.connection` (whose bytes must still have
/// `on.digest`), to resume. Refused when its last import finished or the file changed since.
pub fn interrupted(
    store: &Mutex<Store>,
    schema: &Schema,
    target: &Target,
    on: FileOn<'_>,
) -> Result<Interrupted, Refusal> {
    let FileOn { file, shown, digest, connection } = on;
    let store = lock(store);
    let Some(last) = store.last_import(file, connection)?.filter(|l| !l.finished) else {
        return Err(Refusal::Usage(format!(
            "no interrupted import of {shown} on {connection} to resume; apply it again instead"
        )));
    };
    if last.digest != digest {
        return Err(Refusal::Usage(format!(
            "{shown} changed since the interrupted import; apply it again (what was applied already shows as unchanged)"
        )));
    }
    let journal = store.import_rows(last.id)?;
    let rows: Vec<PlannedRow> = journal.iter().filter_map(|j| serde_json::from_str(&j.plan).ok()).collect();
    let fields: Vec<&str> = rows.iter().flat_map(|p| p.changes.iter().map(|c| c.field.as_str())).collect();
    let groups = rows.iter().any(|p| !p.add_groups.is_empty() || !p.remove_groups.is_empty());
    let reading = Reading::new(schema, target, &fields, groups);
    let left = journal.iter().filter(|j| still_to_apply(j.state)).count();
    Ok(Interrupted { id: last.id, journal, rows, reading, left })
}

/// The last import of `on.file` on `on.connection` (whose bytes must still have `on.digest`)
/// with its rows of `keys` that failed or conflicted put back to pending, to apply again (a
/// failed row's own retry); refused when there is none to retry or the file changed since.
pub fn retry(
    store: &Mutex<Store>,
    schema: &Schema,
    target: &Target,
    on: FileOn<'_>,
    keys: &[String],
) -> Result<Interrupted, Refusal> {
    let FileOn { file, shown, digest, connection } = on;
    let guard = lock(store);
    let Some(last) = guard.last_import(file, connection)? else {
        return Err(Refusal::Usage(format!("{shown} was never applied on {connection}; apply it instead")));
    };
    if last.digest != digest {
        return Err(Refusal::Usage(format!(
            "{shown} changed since it was applied; plan it again with \"Only the rows that failed last time\""
        )));
    }
    let journal = guard.import_rows(last.id)?;
    let positions: Vec<i64> = journal
        .iter()
        .filter(|j| matches!(j.state, RowState::Failed | RowState::Conflict) && keys.contains(&j.key))
        .filter(|j| serde_json::from_str::<PlannedRow>(&j.plan).is_ok_and(|p| p.action.writes()))
        .map(|j| j.position)
        .collect();
    if positions.is_empty() {
        return Err(Refusal::Usage(format!("no failed row of {} to retry; plan the file again", keys.join(", "))));
    }
    guard.retry_import_rows(last.id, &positions)?;
    drop(guard);
    interrupted(store, schema, target, on)
}

/// The keys that failed or conflicted in the last import of `file` on `connection` (the rows to
/// plan again with `--failed-only` / **Re-run failed rows**).
pub fn failed_keys(store: &Store, file: &str, connection: &str) -> Result<HashSet<String>, Refusal> {
    let Some(last) = store.last_import(file, connection)? else {
        return Err(Refusal::Usage(
            "this file was never applied on this connection, so no row failed; apply all its rows".to_owned(),
        ));
    };
    Ok(store
        .import_rows(last.id)?
        .into_iter()
        .filter(|r| matches!(r.state, RowState::Failed | RowState::Conflict))
        .map(|r| r.key)
        .collect())
}

/// How a row of a plan came out of an apply, as the Import window's outcome column says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowOutcome {
    /// Applied (or found applied already).
    Applied,
    /// Refused by the service, or not read back as sent.
    Failed,
    /// Changed on the service since the plan: left alone.
    Conflict,
    /// Invalid: skipped, never sent.
    Invalid,
    /// Nothing to send.
    Unchanged,
    /// Not sent: the apply stopped before it (Resume goes on), or it was not part of it.
    NotSent,
}

impl RowOutcome {
    /// Every outcome, in the order the window lists them.
    pub const ALL: [RowOutcome; 6] = [
        RowOutcome::Applied,
        RowOutcome::Failed,
        RowOutcome::Conflict,
        RowOutcome::Invalid,
        RowOutcome::Unchanged,
        RowOutcome::NotSent,
    ];

    /// The outcome of a journal row in `state` whose plan says `action`.
    pub fn of(state: RowState, action: Action) -> RowOutcome {
        match (state, action) {
            (_, Action::Invalid) => RowOutcome::Invalid,
            (RowState::Done, Action::Unchanged) => RowOutcome::Unchanged,
            (RowState::Done, _) => RowOutcome::Applied,
            (RowState::Failed, _) => RowOutcome::Failed,
            (RowState::Conflict, _) => RowOutcome::Conflict,
            (RowState::Pending | RowState::Sent, _) => RowOutcome::NotSent,
        }
    }

    /// Its words in the outcome column: `applied`, `skipped as invalid`.
    pub fn word(self) -> &'static str {
        match self {
            RowOutcome::Applied => "applied",
            RowOutcome::Failed => "failed",
            RowOutcome::Conflict => "conflict",
            RowOutcome::Invalid => "skipped as invalid",
            RowOutcome::Unchanged => "unchanged",
            RowOutcome::NotSent => "not sent",
        }
    }
}

/// The outcome of each row of `plan` (the window's plan, in its order) as `journal` (whose rows
/// are `journal_plan`, in journal order) says it: matched by row number and key, so that the
/// journal of a resumed or retried apply finds its rows in a plan made again.
pub fn outcomes_of(plan: &[PlannedRow], journal: &[JournalRow], journal_plan: &[PlannedRow]) -> Vec<RowOutcome> {
    let outcome = |j: &JournalRow| {
        let action = journal_plan.get(j.position as usize).map_or(Action::Update, |p| p.action);
        RowOutcome::of(j.state, action)
    };
    let aligned =
        plan.len() == journal.len() && plan.iter().zip(journal).all(|(p, j)| p.row == j.row && p.key == j.key);
    if aligned {
        return journal.iter().map(outcome).collect();
    }
    let by_row: std::collections::HashMap<(u64, &str), &JournalRow> =
        journal.iter().map(|j| ((j.row, j.key.as_str()), j)).collect();
    plan.iter().map(|p| by_row.get(&(p.row, p.key.as_str())).map_or(RowOutcome::NotSent, |j| outcome(j))).collect()
}

/// What the whole journal says of the rows that write (`rows`: its plan, in journal order): a
/// resumed or retried apply's summary is the import's, not only the last run's.
pub fn tally(journal: &[JournalRow], rows: &[PlannedRow]) -> super::Applied {
    let mut applied = super::Applied::default();
    for row in journal {
        let action = rows.get(row.position as usize).map_or(Action::Update, |p| p.action);
        match RowOutcome::of(row.state, action) {
            RowOutcome::Applied => applied.done += 1,
            RowOutcome::Failed => applied.failed += 1,
            RowOutcome::Conflict => applied.conflicts += 1,
            RowOutcome::Invalid | RowOutcome::Unchanged | RowOutcome::NotSent => {}
        }
    }
    applied
}

/// The scopes the writes of `rows` need that the connection's token lacks: `users.write`, and
/// `groups.write` for group changes.
pub async fn lacking_scopes(client: &Client, rows: &[PlannedRow]) -> Result<Vec<&'static str>, ApiError> {
    let token = client.tokens().get().await?;
    let mut needed = Vec::new();
    if rows.iter().any(|r| r.action.writes()) {
        needed.push(Scope::UsersWrite);
    }
    if rows.iter().any(|r| !r.add_groups.is_empty() || !r.remove_groups.is_empty()) {
        needed.push(Scope::GroupsWrite);
    }
    Ok(needed.into_iter().filter(|s| !token.scopes.contains(*s)).map(Scope::as_str).collect())
}

/// The sentence for scopes a token lacks.
pub fn lacking_sentence(lacking: &[&str]) -> String {
    format!(
        "the token lacks {}; add it to the connection's scopes and try again (nothing was sent)",
        lacking.join(" and ")
    )
}
