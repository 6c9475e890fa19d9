//! The workspace kept in the store: read once at start, written as it changes (the latest text
//! wins; writes never overtake each other), a bad one set aside.

use std::sync::{Arc, PoisonError};

use super::{Event, Shared};

/// Reads the workspace kept last and sends it (none without a store or a kept workspace).
pub(super) async fn load(shared: Arc<Shared>) {
    let loaded = match shared.with_store(|s| s.workspace()).await {
        Some(Ok(json)) => Ok(json),
        Some(Err(e)) => Err(e),
        None => Ok(None),
    };
    shared.emit(Event::WorkspaceLoaded(loaded)).await;
}

/// Keeps `json` as the workspace: the newest text asked for is written, one write at a time.
pub(super) async fn save(shared: Arc<Shared>, json: String, paced: bool) {
    *shared.workspace_pending.lock().unwrap_or_else(PoisonError::into_inner) = Some(json);
    if paced {
        // At most one write a second: what comes meanwhile replaces the pending text, and the
        // write after the wait takes the newest (the writer's lock is not held while waiting).
        let last = *shared.workspace_written.lock().unwrap_or_else(PoisonError::into_inner);
        let wait = last.map(|at| SAVE_EVERY.saturating_sub(at.elapsed())).unwrap_or_default();
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
    let _writing = shared.workspace_writer.lock().await;
    let Some(json) = shared.workspace_pending.lock().unwrap_or_else(PoisonError::into_inner).take() else {
        // A later save wrote it already.
        return;
    };
    *shared.workspace_written.lock().unwrap_or_else(PoisonError::into_inner) = Some(std::time::Instant::now());
    if let Some(Err(e)) = shared.with_store(move |s| s.save_workspace(&json)).await {
        shared.emit(Event::Problem(format!("{e}; the workspace was not saved"))).await;
    }
}

/// How often the workspace is written at most.
const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Sets the kept workspace aside with `reason` (it could not be read), so a fresh one starts.
pub(super) async fn set_aside(shared: Arc<Shared>, reason: String) {
    let _writing = shared.workspace_writer.lock().await;
    if let Some(Err(e)) = shared.with_store(move |s| s.set_workspace_aside(&reason)).await {
        shared.emit(Event::Problem(format!("{e}; the unreadable workspace could not be set aside"))).await;
    }
}
