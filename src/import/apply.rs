//! Applying a plan: the journal's rows in order, each re-read from the service just before it is
//! written (a value changed since the plan is a conflict, not overwritten unless asked), its
//! state committed to the journal before the next is sent (pending → sent → done/failed). A row
//! left `sent` by an interruption is re-read like any other: what the service already has is not
//! sent again, so no row is applied twice.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::plan::PlannedRow;
use super::service::{Outcome, Reading, look_up, send, still_to_send};
use super::target::Target;
use crate::api::{ApiError, Client};
use crate::store::{JournalRow, RowState, Store};

/// How to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Rows in flight at once (1: strictly one after another).
    pub concurrency: usize,
    /// Write over values changed on the service since the plan.
    pub overwrite: bool,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions { concurrency: 1, overwrite: false }
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
    let results = futures_util::stream::iter(todo.into_iter().map(|row| {
        let on_row = &on_row;
        async move {
            if cancel.is_cancelled() {
                return Err(Stopped::Service(ApiError::Cancelled));
            }
            let state = apply_row(client, target, reading, store, import, &row, options, cancel).await?;
            on_row(&row, state);
            Ok(state)
        }
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
    options: ApplyOptions,
    cancel: &CancellationToken,
) -> Result<RowState, Stopped> {
    let Ok(plan) = serde_json::from_str::<PlannedRow>(&row.plan) else {
        record(store, import, row.position, RowState::Failed, "the journal's row cannot be read", "", "")?;
        return Ok(RowState::Failed);
    };
    // Re-read just before writing: a conflict, or what is left to send (nothing, after an
    // interruption that left it `sent` but applied).
    let now = look_up(client, reading, &plan.key, cancel).await.map_err(Stopped::Service)?;
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
    match send(client, target, &rest, now.as_ref(), cancel).await {
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
        // A refusal that says the request was not run is the row's failure; anything else leaves
        // the row `sent` (its outcome unknown) and stops.
        Err(e @ (ApiError::MissingScope { .. } | ApiError::Document(_))) => {
            record(store, import, row.position, RowState::Failed, &e.to_string(), "", "")?;
            Err(Stopped::Service(e))
        }
        Err(e) => Err(Stopped::Service(e)),
    }
}
