//! The history of runs: listed, searched and deleted in the store, off the UI thread.

use std::sync::Arc;

use super::{Event, Shared};
use crate::store::HistoryEntry;

/// How many history entries the UI lists.
const HISTORY_SHOWN: usize = 200;

/// What the history list asks.
#[derive(Debug, Clone)]
pub enum HistoryCommand {
    /// Send the newest entries ([`HistoryEvent::Listed`]).
    Load,
    /// Whether the list is on screen: while it is not, a changed history reaches the UI without
    /// waking it (no frame is drawn for what nobody sees; idle CPU stays at 0).
    Showing(bool),
    /// Find the newest entries containing this text ([`HistoryEvent::Found`]).
    Search(String),
    /// Delete one entry (then [`HistoryEvent::Listed`]).
    Delete(i64),
    /// Delete every entry (then [`HistoryEvent::Listed`]).
    Clear,
}

/// What comes back to the history list.
#[derive(Debug, Clone)]
pub enum HistoryEvent {
    /// The newest entries.
    Listed(Vec<HistoryEntry>),
    /// The newest entries containing a text.
    Found {
        /// The text searched for.
        search: String,
        /// What was found, the newest first.
        entries: Vec<HistoryEntry>,
    },
}

/// Starts the task of `command` (or notes what is on screen).
pub(super) fn handle(shared: &Arc<Shared>, command: HistoryCommand) {
    match command {
        HistoryCommand::Load => {
            tokio::spawn(load(shared.clone()));
        }
        HistoryCommand::Showing(shown) => shared.history_shown.store(shown, std::sync::atomic::Ordering::Relaxed),
        HistoryCommand::Search(text) => {
            tokio::spawn(search(shared.clone(), text));
        }
        HistoryCommand::Delete(id) => {
            tokio::spawn(delete(shared.clone(), Some(id)));
        }
        HistoryCommand::Clear => {
            tokio::spawn(delete(shared.clone(), None));
        }
    }
}

/// Sends the newest entries containing `search`.
async fn search(shared: Arc<Shared>, search: String) {
    let text = search.clone();
    match shared.with_store(move |s| s.search_history(&text, HISTORY_SHOWN)).await {
        Some(Ok(entries)) => shared.emit(HistoryEvent::Found { search, entries }).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Deletes entry `id` (every entry for `None`), then sends the newest entries.
async fn delete(shared: Arc<Shared>, id: Option<i64>) {
    let deleted = shared
        .with_store(move |s| match id {
            Some(id) => s.delete_history(id).map(|_| ()),
            None => s.clear_history().map(|_| ()),
        })
        .await;
    if let Some(Err(e)) = deleted {
        shared.emit(Event::Problem(format!("{e}; the history was not changed"))).await;
    }
    load(shared).await;
}

/// Sends the newest history entries.
pub(super) async fn load(shared: Arc<Shared>) {
    match shared.with_store(|s| s.history(HISTORY_SHOWN)).await {
        // A run adds to the history: a frame only when the list is on screen.
        Some(Ok(entries)) if shared.history_shown() => shared.emit(HistoryEvent::Listed(entries)).await,
        Some(Ok(entries)) => shared.emit_quietly(HistoryEvent::Listed(entries)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::worker::Event;

    /// The next event that is a history list, within 10 s (others skipped).
    async fn next_history(events: &mut tokio::sync::mpsc::Receiver<Event>) {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), events.recv()).await;
            match event.expect("an event in time").expect("the worker runs") {
                Event::History(HistoryEvent::Listed(_)) => return,
                _ => continue,
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_changed_history_wakes_the_ui_only_when_its_list_is_on_screen() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let repaints = Arc::new(AtomicUsize::new(0));
        let counted = repaints.clone();
        let repaint: crate::worker::Repaint = Arc::new(move || {
            counted.fetch_add(1, Ordering::Relaxed);
        });
        let secrets = crate::profiles::SecretStore::Unavailable("tests".into());
        let store = Some(dir.path().join("orgql.sqlite3"));
        let (worker, mut events) =
            crate::worker::Worker::spawn(&tokio::runtime::Handle::current(), repaint, store, None, secrets, 5, None);

        // The worker sends an event, then wakes the UI: give the wake-up time to come.
        let settled = || async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            repaints.load(Ordering::Relaxed)
        };
        worker.send(HistoryCommand::Showing(false)).expect("sent");
        worker.send(HistoryCommand::Load).expect("sent");
        next_history(&mut events).await;
        let before = settled().await;
        worker.send(HistoryCommand::Load).expect("sent");
        next_history(&mut events).await;
        assert_eq!(settled().await, before, "hidden: taken at the next frame, none drawn for it");

        worker.send(HistoryCommand::Showing(true)).expect("sent");
        worker.send(HistoryCommand::Load).expect("sent");
        next_history(&mut events).await;
        assert_eq!(settled().await, before + 1, "on screen: a frame shows it");
    }
}
