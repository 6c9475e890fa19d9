//! Saved operations: kept in the store, listed for the side panel, written to and read from
//! `.graphql` files; each change answers with a sentence and the new list.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Event, Shared};
use crate::store::SavedOperation;

/// A change to the saved operations.
#[derive(Debug, Clone, PartialEq)]
pub enum OperationChange {
    /// Save a document and its variables as `name` in `collection` (replacing one of that name).
    Save {
        /// The collection (`""`: the top level).
        collection: String,
        /// The name.
        name: String,
        /// The document.
        query: String,
        /// The variables as JSON text.
        variables: String,
    },
    /// Rename (and move) an operation.
    Rename {
        id: i64,
        /// Its new collection.
        collection: String,
        /// Its new name.
        name: String,
    },
    /// Copy an operation beside it.
    Duplicate(i64),
    /// Delete an operation.
    Delete(i64),
    /// Write every operation under a folder as `.graphql` files.
    Export(PathBuf),
    /// Read every `.graphql` file under a folder into the saved operations.
    Import(PathBuf),
}

/// What the saved operations' list asks.
#[derive(Debug, Clone)]
pub enum OperationsCommand {
    /// Send the saved operations ([`OperationsEvent::Listed`]).
    Load,
    /// Change them ([`OperationsEvent::Changed`], then [`OperationsEvent::Listed`]).
    Change(OperationChange),
}

/// What comes back to the saved operations' list.
#[derive(Debug, Clone)]
pub enum OperationsEvent {
    /// The saved operations, by collection then name.
    Listed(Vec<SavedOperation>),
    /// What came of a change: a sentence (and the operation saved, renamed or copied), or why
    /// it failed.
    Changed(Result<(String, Option<SavedOperation>), String>),
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: OperationsCommand) {
    match command {
        OperationsCommand::Load => {
            tokio::spawn(load(shared.clone()));
        }
        OperationsCommand::Change(change) => {
            tokio::spawn(self::change(shared.clone(), change));
        }
    }
}

/// Sends the saved operations.
pub(super) async fn load(shared: Arc<Shared>) {
    match shared.with_store(|s| s.operations()).await {
        Some(Ok(list)) => shared.emit(OperationsEvent::Listed(list)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Applies `change`, then sends what came of it and the list as it is now.
async fn change(shared: Arc<Shared>, change: OperationChange) {
    let outcome = apply(&shared, change).await;
    shared.emit(OperationsEvent::Changed(outcome)).await;
    load(shared).await;
}

async fn apply(shared: &Arc<Shared>, change: OperationChange) -> Result<(String, Option<SavedOperation>), String> {
    let no_store = || "the local database is not available, so operations cannot be saved this session".to_owned();
    match change {
        OperationChange::Save { collection, name, query, variables } => shared
            .with_store(move |s| s.save_operation(&collection, &name, &query, &variables))
            .await
            .ok_or_else(no_store)?
            .map(|saved| (format!("Saved '{}'", saved.path()), Some(saved))),
        OperationChange::Rename { id, collection, name } => shared
            .with_store(move |s| {
                s.rename_operation(id, &collection, &name)?;
                s.operation_in(&collection, name.trim())
            })
            .await
            .ok_or_else(no_store)?
            .map(|renamed| ("Renamed".to_owned(), renamed)),
        OperationChange::Duplicate(id) => shared
            .with_store(move |s| s.duplicate_operation(id))
            .await
            .ok_or_else(no_store)?
            .map(|copy| (format!("Copied as '{}'", copy.path()), Some(copy))),
        OperationChange::Delete(id) => shared
            .with_store(move |s| s.delete_operation(id))
            .await
            .ok_or_else(no_store)?
            .map(|()| ("Deleted".to_owned(), None)),
        OperationChange::Export(dir) => {
            let list = shared.with_store(|s| s.operations()).await.ok_or_else(no_store)??;
            let target = dir.clone();
            let written = tokio::task::spawn_blocking(move || crate::operations::write_all(&list, &target))
                .await
                .map_err(|e| format!("the export task failed ({e})"))??;
            Ok((format!("{written} operations written to {}", dir.display()), None))
        }
        OperationChange::Import(dir) => {
            let source = dir.clone();
            let (files, problems) = tokio::task::spawn_blocking(move || crate::operations::read_all(&source))
                .await
                .map_err(|e| format!("the import task failed ({e})"))??;
            let count = files.len();
            shared
                .with_store(move |s| {
                    for file in &files {
                        s.save_operation(&file.collection, &file.name, &file.query, &file.variables)?;
                    }
                    Ok(())
                })
                .await
                .ok_or_else(no_store)??;
            let mut said = format!("{count} operations read from {}", dir.display());
            if !problems.is_empty() {
                said.push_str(&format!("; {}", problems.join("; ")));
            }
            Ok((said, None))
        }
    }
}
