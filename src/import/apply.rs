//! Applying a plan: the journal's rows in order, each re-read from the service just before it is
//! written (a value changed since the plan is a conflict, not overwritten unless asked), its
//! state committed to the journal before the next is sent (pending → sent → done/failed). A row
//! left `sent` by an interruption is re-read like any other: what the service already has is not
//! sent again, so no row is applied twice.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::plan::{Current, PlannedRow};
use super::service::{Outcome, Reading, look_up, look_up_many, send, send_batch, still_to_send};
use super::target::Target;
use crate::api::{ApiError, Client};
use crate::shape;
use crate::store::{JournalRow, RowState, Store};

/// How to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Rows in flight at once (1: strictly one after another).
    pub concurrency: usize,
    /// Write over values changed on the service since the plan.
    pub overwrite: bool,
    /// New users sent at once through the service's bulk creation, when it has one (1: one
    /// mutation a row).
    pub batch: usize,
}

/// New users a bulk creation takes at once, unless told otherwise (the spec's page size).
pub const BATCH: usize = 50;

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions { concurrency: 1, overwrite: false, batch: BATCH }
    }
}

/// What applying did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    /// Rows applied (or found applied already).
    pub done: u64,
    /// Rows the service refused.
    pub failed: u64,
    /// Rows changed on the service since the plan, left alone.
    pub conflicts: u64,
}

impl Applied {
    /// `applied 49 rows; 1 failed, 0 conflicts, 1 invalid` (`invalid`: the rows never sent).
    pub fn summary(&self, invalid: u64) -> String {
        format!("{}, {} invalid", self.sent_summary(), crate::table::thousands(invalid))
    }

    /// `applied 49 rows; 1 failed, 0 conflicts`: the rows a run sent.
    pub fn sent_summary(&self) -> String {
        format!(
            "applied {}; {} failed, {}",
            super::plan::counted(self.done, "row", "rows"),
            crate::table::thousands(self.failed),
            super::plan::counted(self.conflicts, "conflict", "conflicts")
        )
    }
}

/// Why applying stopped before the end.
#[derive(Debug)]
pub enum Stopped {
    /// The journal could not be written: nothing more is sent.
    Journal(String),
    /// A request failed so that the outcome of the row in flight is unknown (network, server,
    /// authentication, cancellation): the row stays `sent`, and `--resume` re-reads it.
    Service(ApiError),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Journal(e) => write!(f, "{e}"),
            Stopped::Service(e) => write!(f, "{e}"),
        }
    }
}

/// Applies the journal's rows of import `import` that have no outcome yet, `concurrency` at a
/// time; `on_row` is told after each row. The store is shared with the caller behind a mutex.
#[allow(clippy::too_many_arguments)]
pub async fn apply(
    client: &Arc<Client>,
    target: &Target,
    reading: &Reading,
    store: &Mutex<Store>,
    import: i64,
    rows: Vec<JournalRow>,
    options: ApplyOptions,
    cancel: &CancellationToken,
    on_row: impl Fn(&JournalRow, RowState) + Sync,
) -> Result<Applied, Stopped> {
    let todo: Vec<JournalRow> =
        rows.into_iter().filter(|r| matches!(r.state, RowState::Pending | RowState::Sent)).collect();
    if let Some(batch) = target.create_batch.as_ref().filter(|_| options.batch > 1) {
        return apply_in_batches(client, target, batch, reading, store, import, todo, options, cancel, on_row).await;
    }
    // A service that replaces whole records has each row read before it is sent: read a run of
    // rows in one request (aliased look-ups), then send them; one look-up each otherwise (just
    // before writing, the freshest reading for a conflict).
    if target.replace.is_none() {
        let rows = todo.into_iter().map(|row| (row, None)).collect();
        return apply_rows(client, target, reading, store, import, rows, options, cancel, &on_row).await;
    }
    let mut applied = Applied::default();
    let mut todo = todo.into_iter();
    loop {
        let run: Vec<JournalRow> = todo.by_ref().take(READ_RUN).collect();
        if run.is_empty() {
            return Ok(applied);
        }
        if cancel.is_cancelled() {
            return Err(Stopped::Service(ApiError::Cancelled));
        }
        let read: Vec<Option<Option<Current>>> = match read_run(client, reading, &run, cancel).await {
            Some(now) => now.into_iter().map(Some).collect(),
            None => vec![None; run.len()],
        };
        let rows = run.into_iter().zip(read).collect();
        let done = apply_rows(client, target, reading, store, import, rows, options, cancel, &on_row).await?;
        applied.done += done.done;
        applied.failed += done.failed;
        applied.conflicts += done.conflicts;
    }
}

/// Applies `rows` (each with the user as read already, if it was), `concurrency` at a time.
#[allow(clippy::too_many_arguments)]
async fn apply_rows(
    client: &Arc<Client>,
    target: &Target,
    reading: &Reading,
    store: &Mutex<Store>,
    import: i64,
    rows: Vec<(JournalRow, Option<Option<Current>>)>,
    options: ApplyOptions,
    cancel: &CancellationToken,
    on_row: &(impl Fn(&JournalRow, RowState) + Sync),
) -> Result<Applied, Stopped> {
    let results = futures_util::stream::iter(rows.into_iter().map(|(row, now)| async move {
        if cancel.is_cancelled() {
            return Err(Stopped::Service(ApiError::Cancelled));
        }
        let state = apply_row(client, target, reading, store, import, &row, now, options, cancel).await?;
        on_row(&row, state);
        Ok(state)
    }))
    .buffered(options.concurrency.max(1));
    futures_util::pin_mut!(results);
    let mut applied = Applied::default();
    let mut stopped = None;
    while let Some(result) = results.next().await {
        match result {
            Ok(RowState::Done) => applied.done += 1,
            Ok(RowState::Conflict) => applied.conflicts += 1,
            Ok(_) => applied.failed += 1,
            Err(e) => {
                // The rows already in flight finish (their outcome is recorded); no new one starts.
                cancel.cancel();
                stopped.get_or_insert(e);
            }
        }
    }
    match stopped {
        Some(e) => Err(e),
        None => Ok(applied),
    }
}

/// How many rows are read in one request before they are sent, where rows are read in runs.
const READ_RUN: usize = 50;

/// The users of `run`'s rows as the service has them now, read in one request; `None` when that
/// request failed (each row is then read on its own, and says why if that fails too).
async fn read_run(
    client: &Client,
    reading: &Reading,
    run: &[JournalRow],
    cancel: &CancellationToken,
) -> Option<Vec<Option<Current>>> {
    let keys: Vec<&str> = run.iter().map(|r| r.key.as_str()).collect();
    look_up_many(client, reading, &keys, cancel).await.ok()
}

/// Applies `todo` in order, each run of new users (without group changes) through the service's
/// bulk creation, `options.batch` at a time, and every other row on its own. A run's rows are
/// read again in one request, marked `sent` in the journal before the request leaves, and get
/// their outcomes from its answer, input by input: an interruption in between leaves them `sent`,
/// and a resume reads them again (a user created already is not created twice).
#[allow(clippy::too_many_arguments)]
async fn apply_in_batches(
    client: &Arc<Client>,
    target: &Target,
    batch: &shape::Batch,
    reading: &Reading,
    store: &Mutex<Store>,
    import: i64,
    todo: Vec<JournalRow>,
    options: ApplyOptions,
    cancel: &CancellationToken,
    on_row: impl Fn(&JournalRow, RowState) + Sync,
) -> Result<Applied, Stopped> {
    let plans: Vec<Option<PlannedRow>> = todo.iter().map(|r| serde_json::from_str(&r.plan).ok()).collect();
    let bulk = |i: usize| {
        plans[i].as_ref().is_some_and(|p| p.action == super::plan::Action::Create && p.add_groups.is_empty())
    };
    let mut applied = Applied::default();
    let mut tally = |state: RowState| match state {
        RowState::Done => applied.done += 1,
        RowState::Conflict => applied.conflicts += 1,
        _ => applied.failed += 1,
    };
    let mut i = 0;
    while i < todo.len() {
        if cancel.is_cancelled() {
            return Err(Stopped::Service(ApiError::Cancelled));
        }
        let run = (i..todo.len()).take_while(|&j| bulk(j)).take(options.batch).count();
        if run < 2 {
            let state = apply_row(client, target, reading, store, import, &todo[i], None, options, cancel).await?;
            on_row(&todo[i], state);
            tally(state);
            i += 1;
            continue;
        }
        let rows: Vec<(&JournalRow, &PlannedRow)> =
            (i..i + run).filter_map(|j| plans[j].as_ref().map(|p| (&todo[j], p))).collect();
        let states = apply_run(client, batch, target, reading, store, import, &rows, options, cancel).await?;
        for ((row, _), state) in rows.iter().zip(states) {
            on_row(row, state);
            tally(state);
        }
        i += run;
    }
    Ok(applied)
}

/// One run of new users through the bulk creation; their states in order.
#[allow(clippy::too_many_arguments)]
async fn apply_run(
    client: &Client,
    batch: &shape::Batch,
    target: &Target,
    reading: &Reading,
    store: &Mutex<Store>,
    import: i64,
    rows: &[(&JournalRow, &PlannedRow)],
    options: ApplyOptions,
    cancel: &CancellationToken,
) -> Result<Vec<RowState>, Stopped> {
    let keys: Vec<&str> = rows.iter().map(|(_, p)| p.key.as_str()).collect();
    let now = match look_up_many(client, reading, &keys, cancel).await {
        Ok(now) => now,
        // A service that refuses many look-ups in one document is asked for each on its own.
        Err(ApiError::GraphQl { .. }) => {
            let mut now = Vec::with_capacity(keys.len());
            for key in &keys {
                now.push(look_up(client, reading, key, cancel).await.map_err(Stopped::Service)?);
            }
            now
        }
        Err(e) => return Err(Stopped::Service(e)),
    };
    let mut states = vec![RowState::Pending; rows.len()];
    let mut to_send: Vec<(usize, PlannedRow)> = Vec::new();
    for (i, ((row, plan), now)) in rows.iter().zip(&now).enumerate() {
        match still_to_send(plan, now.as_ref(), options.overwrite) {
            Ok(None) => {
                let created = now.as_ref().map(|n| n.id.clone()).unwrap_or_default();
                let note = if row.state == RowState::Sent { "applied before the interruption" } else { "" };
                record(store, import, row.position, RowState::Done, note, "", &created)?;
                states[i] = RowState::Done;
            }
            Ok(Some(rest)) => to_send.push((i, rest)),
            Err(conflict) => {
                record(store, import, row.position, RowState::Conflict, &conflict, "", "")?;
                states[i] = RowState::Conflict;
            }
        }
    }
    if to_send.is_empty() {
        return Ok(states);
    }
    for (i, _) in &to_send {
        record(store, import, rows[*i].0.position, RowState::Sent, "", "", "")?;
    }
    let sending: Vec<PlannedRow> = to_send.iter().map(|(_, rest)| rest.clone()).collect();
    let outcomes = match send_batch(client, target, batch, &sending, cancel).await {
        Ok(outcomes) => outcomes,
        // A refusal that says the request was not run is each row's failure; anything else leaves
        // the rows `sent` (their outcome unknown) and stops.
        Err(e @ (ApiError::MissingScope { .. } | ApiError::Document(_))) => {
            for (i, _) in &to_send {
                record(store, import, rows[*i].0.position, RowState::Failed, &e.to_string(), "", "")?;
            }
            return Err(Stopped::Service(e));
        }
        Err(e) => return Err(Stopped::Service(e)),
    };
    let mut unknown = 0;
    for ((i, _), outcome) in to_send.iter().zip(outcomes) {
        let position = rows[*i].0.position;
        states[*i] = match outcome {
            Some(Outcome::Done { created_id, note }) => {
                record(store, import, position, RowState::Done, &note, "", created_id.as_deref().unwrap_or(""))?;
                RowState::Done
            }
            Some(Outcome::Failed { message, field }) => {
                record(store, import, position, RowState::Failed, &message, &field, "")?;
                RowState::Failed
            }
            Some(Outcome::Conflict { message }) => {
                record(store, import, position, RowState::Conflict, &message, "", "")?;
                RowState::Conflict
            }
            Some(Outcome::Moved { message, field, .. }) => {
                record(store, import, position, RowState::Failed, &message, &field, "")?;
                RowState::Failed
            }
            None => {
                unknown += 1;
                RowState::Sent
            }
        };
    }
    if unknown > 0 {
        return Err(Stopped::Service(ApiError::BadResponse(format!(
            "the service's bulk creation said nothing of {unknown} of its {} users; they are read again on resume",
            to_send.len()
        ))));
    }
    Ok(states)
}

fn record(
    store: &Mutex<Store>,
    import: i64,
    position: i64,
    state: RowState,
    message: &str,
    field: &str,
    created: &str,
) -> Result<(), Stopped> {
    let store = store.lock().unwrap_or_else(PoisonError::into_inner);
    store
        .set_import_row(import, position, state, message, field, created)
        .map_err(|e| Stopped::Journal(format!("{e}; the import stopped before sending another row")))
}

#[allow(clippy::too_many_arguments)]
async fn apply_row(
    client: &Client,
    target: &Target,
    reading: &Reading,
    store: &Mutex<Store>,
    import: i64,
    row: &JournalRow,
    read: Option<Option<Current>>,
    options: ApplyOptions,
    cancel: &CancellationToken,
) -> Result<RowState, Stopped> {
    let Ok(plan) = serde_json::from_str::<PlannedRow>(&row.plan) else {
        record(store, import, row.position, RowState::Failed, "the journal's row cannot be read", "", "")?;
        return Ok(RowState::Failed);
    };
    // Re-read just before writing: a conflict, or what is left to send (nothing, after an
    // interruption that left it `sent` but applied).
    let now = match read {
        Some(now) => now,
        None => look_up(client, reading, &plan.key, cancel).await.map_err(Stopped::Service)?,
    };
    let rest = match still_to_send(&plan, now.as_ref(), options.overwrite) {
        Ok(None) => {
            let created = match (plan.action, &now) {
                (super::plan::Action::Create, Some(now)) => now.id.clone(),
                _ => String::new(),
            };
            let note = if row.state == RowState::Sent { "applied before the interruption" } else { "" };
            let created = if row.created_id.is_empty() { created } else { row.created_id.clone() };
            record(store, import, row.position, RowState::Done, note, "", &created)?;
            return Ok(RowState::Done);
        }
        Ok(Some(rest)) => rest,
        Err(conflict) => {
            record(store, import, row.position, RowState::Conflict, &conflict, "", "")?;
            return Ok(RowState::Conflict);
        }
    };
    record(store, import, row.position, RowState::Sent, "", "", "")?;
    match send(client, target, Some(reading), &rest, now.as_ref(), cancel).await {
        Ok(Outcome::Done { created_id, note }) => {
            record(store, import, row.position, RowState::Done, &note, "", created_id.as_deref().unwrap_or(""))?;
            Ok(RowState::Done)
        }
        Ok(Outcome::Failed { message, field }) => {
            record(store, import, row.position, RowState::Failed, &message, &field, "")?;
            Ok(RowState::Failed)
        }
        Ok(Outcome::Conflict { message }) => {
            record(store, import, row.position, RowState::Conflict, &message, "", "")?;
            Ok(RowState::Conflict)
        }
        Ok(Outcome::Moved { message, field, changes }) => {
            // Journaled with what moved (old → found), so that the undo file gives it back.
            let mut applied = plan.clone();
            for change in changes {
                applied.changes.retain(|c| c.field != change.field);
                applied.changes.push(change);
            }
            applied.moved = true;
            let json = serde_json::to_string(&applied).unwrap_or_else(|_| row.plan.clone());
            store
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .set_import_row_plan(import, row.position, &json)
                .map_err(|e| Stopped::Journal(format!("{e}; the import stopped before sending another row")))?;
            record(store, import, row.position, RowState::Failed, &message, &field, "")?;
            Ok(RowState::Failed)
        }
        // A refusal that says the request was not run is the row's failure; anything else leaves
        // the row `sent` (its outcome unknown) and stops.
        Err(e @ (ApiError::MissingScope { .. } | ApiError::Document(_))) => {
            record(store, import, row.position, RowState::Failed, &e.to_string(), "", "")?;
            Err(Stopped::Service(e))
        }
        Err(e) => Err(Stopped::Service(e)),
    }
}
