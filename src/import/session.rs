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
use crate::store::{JournalRow, Origin, RowState, Store, StoreError};

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

/// Records a new import of `file` (its `digest`) on `connection` with `rows`, in plan order,
/// begun as `origin` says; rows that send nothing (unchanged, invalid) get their outcome now.
/// Returns the import's id and its journal.
pub fn begin(
    store: &Mutex<Store>,
    file: &str,
    digest: &str,
    connection: &str,
    origin: Origin,
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
    let id = store.begin_import_with_outcomes(file, digest, connection, origin, planned)?;
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

/// The rows of the last import of a file to apply again (`--failed-only` / **Only the rows that
/// failed last time**).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRows {
    /// The last import: the import that applies them again continues it ([`Origin::retry_of`]).
    pub import: i64,
    /// The keys of the rows that failed, conflicted or were invalid, as the whole import says
    /// ([`whole`]).
    pub keys: HashSet<String>,
}

/// The rows that did not land in the whole last import of `file` on `connection` (failed, in
/// conflict or invalid: the rows to plan again with `--failed-only`). Refused when the file was
/// never applied there, or when its last import was interrupted (resume it first: its rows not
/// sent yet are not failures).
pub fn failed_rows(store: &Store, file: &str, connection: &str) -> Result<FailedRows, Refusal> {
    let Some(last) = store.last_import(file, connection)? else {
        return Err(Refusal::Usage(
            "this file was never applied on this connection, so no row failed; apply all its rows".to_owned(),
        ));
    };
    if !last.finished {
        let left = store.import_rows(last.id)?.iter().filter(|j| still_to_apply(j.state)).count();
        return Err(Refusal::Usage(format!(
            "the last import of this file on {connection} was interrupted with {} left; resume it first \
             (--resume, or Resume in the Import window), then apply the rows that failed",
            super::plan::counted(left as u64, "row", "rows")
        )));
    }
    let keys = latest_outcomes(store, last.id)?
        .0
        .into_iter()
        .filter(|row| matches!(row.outcome, RowOutcome::Failed | RowOutcome::Conflict | RowOutcome::Invalid))
        .map(|row| row.key)
        .collect();
    Ok(FailedRows { import: last.id, keys })
}

/// What the whole import says (issue 46): an import and the imports that applied its failed
/// rows again (`--failed-only`, each [`Origin::retry_of`] the one before), every row counted
/// once, by its latest outcome. A resumed or retried import is the same import, its journal
/// already whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Whole {
    /// Rows applied (or found applied already).
    pub applied: u64,
    /// Rows the service refused, or not read back as sent.
    pub failed: u64,
    /// Rows changed on the service since the plan, left alone.
    pub conflicts: u64,
    /// Invalid rows (never sent).
    pub invalid: u64,
    /// Of them, those skipped by choice ([`Origin::skip_invalid`]).
    pub invalid_by_choice: u64,
    /// Rows with nothing to change.
    pub unchanged: u64,
    /// Rows not sent yet (the import was interrupted).
    pub not_sent: u64,
    /// The runs that make it: 1, and one more for each `--failed-only`.
    pub runs: u64,
}

impl Whole {
    /// Rows that did not land: failed, in conflict, invalid unless skipped by choice, not sent.
    pub fn not_landed(&self) -> u64 {
        self.failed + self.conflicts + (self.invalid - self.invalid_by_choice) + self.not_sent
    }

    /// Whether every row is applied, unchanged or skipped as invalid by choice.
    pub fn landed(&self) -> bool {
        self.not_landed() == 0
    }

    /// `applied 99 rows; 1 failed, 0 conflicts, 1 invalid (skipped by choice)` — the counts of
    /// [`super::Applied::summary`], with the invalid rows' choice and the rows not sent.
    pub fn summary(&self) -> String {
        let applied = super::Applied { done: self.applied, failed: self.failed, conflicts: self.conflicts };
        let mut line = applied.summary(self.invalid);
        match (self.invalid, self.invalid_by_choice) {
            (0, _) | (_, 0) => {}
            (all, chosen) if all == chosen => line.push_str(" (skipped by choice)"),
            (_, chosen) => line.push_str(&format!(" ({} skipped by choice)", crate::table::thousands(chosen))),
        }
        if self.not_sent > 0 {
            line.push_str(&format!(", {} not sent", crate::table::thousands(self.not_sent)));
        }
        line
    }
}

/// A row of the whole import, by its latest outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Latest {
    key: String,
    outcome: RowOutcome,
    /// An invalid row skipped by choice.
    chosen: bool,
}

/// The longest chain of `--failed-only` imports read (a guard against a corrupt database).
const MAX_CHAIN: usize = 10_000;

/// The rows of the whole import that `import` ends, each by its latest outcome: the first
/// import's rows, those of each later one replacing the rows of the same key.
/// Also gives how many imports make it.
fn latest_outcomes(store: &Store, import: i64) -> Result<(Vec<Latest>, u64), StoreError> {
    let mut chain = Vec::new();
    let mut next = Some(import);
    while let Some(id) = next.filter(|id| chain.len() < MAX_CHAIN && !chain.iter().any(|(c, _)| c == id)) {
        let Some(job) = store.import_job(id)? else { break };
        next = job.origin.retry_of;
        chain.push((id, job.origin.skip_invalid));
    }
    /// The action of a journal row's plan, read without the rest of it.
    #[derive(serde::Deserialize)]
    struct ActionOnly {
        action: Action,
    }
    let runs = chain.len() as u64;
    let mut rows: Vec<Latest> = Vec::new();
    for (id, skip_invalid) in chain.into_iter().rev() {
        let journal = store.import_rows(id)?;
        let keys: HashSet<&str> = journal.iter().map(|j| j.key.as_str()).collect();
        rows.retain(|row| !keys.contains(row.key.as_str()));
        rows.extend(journal.iter().map(|j| {
            let action = serde_json::from_str::<ActionOnly>(&j.plan).map_or(Action::Update, |a| a.action);
            let outcome = RowOutcome::of(j.state, action);
            Latest { key: j.key.clone(), outcome, chosen: skip_invalid && outcome == RowOutcome::Invalid }
        }));
    }
    Ok((rows, runs))
}

/// What the whole import that `import` ends says ([`Whole`]).
pub fn whole(store: &Store, import: i64) -> Result<Whole, StoreError> {
    let (rows, runs) = latest_outcomes(store, import)?;
    let mut whole = Whole { runs, ..Whole::default() };
    for row in rows {
        match row.outcome {
            RowOutcome::Applied => whole.applied += 1,
            RowOutcome::Failed => whole.failed += 1,
            RowOutcome::Conflict => whole.conflicts += 1,
            RowOutcome::Invalid => {
                whole.invalid += 1;
                whole.invalid_by_choice += u64::from(row.chosen);
            }
            RowOutcome::Unchanged => whole.unchanged += 1,
            RowOutcome::NotSent => whole.not_sent += 1,
        }
    }
    Ok(whole)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An import of `rows` (row number, key, action, state) begun as `origin`, finished.
    fn import(store: &Store, origin: Origin, rows: &[(u64, &str, Action, RowState)]) -> i64 {
        let journal = rows.iter().map(|&(row, key, action, state)| {
            let plan = serde_json::json!({ "row": row, "key": key, "action": action, "changes": [] }).to_string();
            (row, key.to_owned(), plan, state, String::new())
        });
        let id = store.begin_import_with_outcomes("hr.csv", "d", "acme", origin, journal).expect("begun");
        store.finish_import(id).expect("finished");
        id
    }

    #[test]
    fn the_whole_import_reads_each_row_by_its_latest_outcome_along_its_retries() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = Store::open(&dir.path().join("db.sqlite3")).expect("a store");
        use Action::{Invalid, Unchanged, Update};
        use RowState::{Conflict, Done, Failed};
        let first = import(
            &store,
            Origin::default(),
            &[
                (2, "u1", Update, Done),
                (3, "u2", Update, Failed),
                (4, "u3", Update, Conflict),
                (5, "u4", Invalid, Failed),
                (6, "u5", Unchanged, Done),
            ],
        );
        let whole = whole(&store, first).expect("read");
        assert_eq!((whole.applied, whole.failed, whole.conflicts, whole.invalid, whole.unchanged), (1, 1, 1, 1, 1));
        assert!(!whole.landed());
        assert_eq!(whole.not_landed(), 3);
        assert_eq!(whole.summary(), "applied 1 row; 1 failed, 1 conflict, 1 invalid");
        let failed = failed_rows(&store, "hr.csv", "acme").expect("failed rows");
        assert_eq!(failed.import, first);
        assert_eq!(failed.keys, ["u2", "u3", "u4"].map(str::to_owned).into_iter().collect::<HashSet<_>>());

        // The failed rows applied again, one of them failing again: the whole import still has it.
        let retry = Origin { retry_of: Some(first), skip_invalid: false };
        let second =
            import(&store, retry, &[(3, "u2", Update, Done), (4, "u3", Update, Failed), (5, "u4", Invalid, Failed)]);
        let whole = super::whole(&store, second).expect("read");
        assert_eq!((whole.applied, whole.failed, whole.conflicts, whole.invalid, whole.runs), (2, 1, 0, 1, 2));
        assert_eq!(failed_rows(&store, "hr.csv", "acme").expect("failed").keys.len(), 2, "u3 and u4 left");

        // Fixed, the invalid row skipped by choice: every row landed.
        let chosen = Origin { retry_of: Some(second), skip_invalid: true };
        let third = import(&store, chosen, &[(4, "u3", Update, Done), (5, "u4", Invalid, Failed)]);
        let whole = super::whole(&store, third).expect("read");
        assert!(whole.landed(), "{whole:?}");
        assert_eq!(whole.runs, 3);
        assert_eq!(whole.summary(), "applied 3 rows; 0 failed, 0 conflicts, 1 invalid (skipped by choice)");
    }

    #[test]
    fn rows_not_sent_keep_the_import_from_landing_and_an_interrupted_one_is_not_retried() {
        let dir = tempfile::tempdir().expect("a directory");
        let store = Store::open(&dir.path().join("db.sqlite3")).expect("a store");
        let plan =
            |key: &str| serde_json::json!({ "row": 2, "key": key, "action": "update", "changes": [] }).to_string();
        let rows = [("u1", RowState::Done), ("u2", RowState::Pending)]
            .map(|(key, state)| (2, key.to_owned(), plan(key), state, String::new()));
        let id = store.begin_import_with_outcomes("hr.csv", "d", "acme", Origin::default(), rows).expect("begun");
        let whole = whole(&store, id).expect("read");
        assert_eq!((whole.applied, whole.not_sent), (1, 1));
        assert!(!whole.landed());
        assert_eq!(whole.summary(), "applied 1 row; 0 failed, 0 conflicts, 0 invalid, 1 not sent");
        let refused = failed_rows(&store, "hr.csv", "acme").expect_err("interrupted");
        assert!(refused.to_string().contains("interrupted with 1 row left; resume it first"), "{refused}");
    }
}
