//! The history's searches and deletions (the store is read and written off the UI thread).

use std::sync::Arc;

use super::jobs::{HISTORY_SHOWN, load_history};
use super::{Event, Shared};

/// Sends the newest entries containing `search`.
pub(super) async fn search(shared: Arc<Shared>, search: String) {
    let text = search.clone();
    match shared.with_store(move |s| s.search_history(&text, HISTORY_SHOWN)).await {
        Some(Ok(entries)) => shared.emit(Event::HistoryFound { search, entries }).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Deletes entry `id` (every entry for `None`), then sends the newest entries.
pub(super) async fn delete(shared: Arc<Shared>, id: Option<i64>) {
    let deleted = shared
        .with_store(move |s| match id {
            Some(id) => s.delete_history(id).map(|_| ()),
            None => s.clear_history().map(|_| ()),
        })
        .await;
    if let Some(Err(e)) = deleted {
        shared.emit(Event::Problem(format!("{e}; the history was not changed"))).await;
    }
    load_history(shared).await;
}
