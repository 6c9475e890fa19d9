//! The workspace kept in the store: read once at start, written as it changes (the latest text
//! wins; writes never overtake each other), a bad one set aside.

use std::sync::{Arc, PoisonError};

use super::{Event, Shared};

/// What the app asks of its workspace.
#[derive(Debug, Clone)]
pub enum WorkspaceCommand {
    /// Read the workspace kept last ([`WorkspaceEvent::Loaded`]).
    Load,
    /// Keep this workspace (JSON) for the next start, within a second and at most once a second
    /// (the newest of those sent meanwhile): the UI sends each change and draws no frame for it.
    Save(String),
    /// Keep this workspace now (the app is closing): done before the next command.
    SaveNow(String),
    /// Set the kept workspace aside, for this reason (it could not be read).
    SetAside(String),
}

/// What comes back of the workspace.
#[derive(Debug, Clone)]
pub enum WorkspaceEvent {
    /// The workspace kept last (JSON; none on a first start), or why it could not be read.
    Loaded(Result<Option<String>, String>),
}

/// Does `command`: a save on exit at once, the rest as tasks.
pub(super) async fn handle(shared: &Arc<Shared>, command: WorkspaceCommand) {
    match command {
        WorkspaceCommand::Load => {
            tokio::spawn(load(shared.clone()));
        }
        WorkspaceCommand::Save(json) => {
            tokio::spawn(save(shared.clone(), json, true));
        }
        WorkspaceCommand::SaveNow(json) => save(shared.clone(), json, false).await,
        WorkspaceCommand::SetAside(reason) => {
            tokio::spawn(set_aside(shared.clone(), reason));
        }
    }
}

/// Reads the workspace kept last and sends it (none without a store or a kept workspace).
async fn load(shared: Arc<Shared>) {
    let loaded = match shared.with_store(|s| s.workspace()).await {
        Some(Ok(json)) => Ok(json),
        Some(Err(e)) => Err(e),
        None => Ok(None),
    };
    shared.emit(WorkspaceEvent::Loaded(loaded)).await;
}

/// Keeps `json` as the workspace: the newest text asked for is written, one write at a time.
async fn save(shared: Arc<Shared>, json: String, paced: bool) {
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
async fn set_aside(shared: Arc<Shared>, reason: String) {
    let _writing = shared.workspace_writer.lock().await;
    if let Some(Err(e)) = shared.with_store(move |s| s.set_workspace_aside(&reason)).await {
        shared.emit(Event::Problem(format!("{e}; the unreadable workspace could not be set aside"))).await;
    }
}
