//! A long-running attachment: keeps a local store in step with a remote's stream for a worker
//! (no egui here), reporting each delivery stored, each hole and each reconnection.

use std::path::PathBuf;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::client::{PullError, Remote, RemoteEvent};
use super::local::{LocalCheck, LocalStore, PullReport, handle};
use crate::store::PullGap;

/// The longest wait between reconnections of [`attach`].
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What an attachment reports to the worker that started it.
#[derive(Debug, Clone, PartialEq)]
pub enum AttachEvent {
    /// The stream is open (again); it resumes after this remote id.
    Connected {
        /// The checkpoint it resumed after.
        after: Option<String>,
    },
    /// A delivery was committed to the local store (its checkpoint with it).
    Stored {
        /// Its local id.
        id: i64,
    },
    /// The relay reported a hole, recorded in the store.
    Gap(PullGap),
    /// An event that was not a delivery orgql could read.
    Unreadable(String),
    /// The stream broke; it is opened again after `retry_in`.
    Disconnected {
        /// Why, in one sentence.
        reason: String,
        /// The wait before the next try.
        retry_in: Duration,
    },
    /// A failure that retrying will not mend (a refused token, a store that cannot be written);
    /// the attachment has stopped.
    Stopped(String),
}

/// Keeps the store at `store_path` in step with `remote` until `cancel`: opens its stream after
/// the store's checkpoint, commits each delivery, reports each on the channel (bounded: a slow
/// reader slows the stream, nothing piles up), and reconnects with backoff (1 s doubling up to
/// [`MAX_BACKOFF`]) when the stream breaks.
pub fn attach(
    remote: Remote,
    store_path: PathBuf,
    check: Option<LocalCheck>,
    cancel: CancellationToken,
) -> (tokio::task::JoinHandle<()>, mpsc::Receiver<AttachEvent>) {
    let (events, receiver) = mpsc::channel(256);
    let task = tokio::spawn(async move {
        tokio::select! {
            _ = cancel.cancelled() => {}
            _ = run_attachment(remote, store_path, check, events) => {}
        }
    });
    (task, receiver)
}

async fn run_attachment(
    remote: Remote,
    store_path: PathBuf,
    check: Option<LocalCheck>,
    events: mpsc::Sender<AttachEvent>,
) {
    let store = match LocalStore::open(store_path).await {
        Ok(store) => store,
        Err(err) => {
            let _ = events.send(AttachEvent::Stopped(err.to_string())).await;
            return;
        }
    };
    let source = remote.source();
    let mut backoff = Duration::from_secs(1);
    loop {
        let key = source.clone();
        let reason = match store.with(move |s| s.pull_checkpoint(&key)).await {
            Err(err) => {
                let _ = events.send(AttachEvent::Stopped(err.to_string())).await;
                return;
            }
            Ok(after) => match remote.open_stream(after.as_deref()).await {
                Err(err @ (PullError::Unauthorized(_) | PullError::NotSharing(_) | PullError::BadUrl(_))) => {
                    let _ = events.send(AttachEvent::Stopped(err.to_string())).await;
                    return;
                }
                Err(err) => err.to_string(),
                Ok(mut stream) => {
                    if events.send(AttachEvent::Connected { after }).await.is_err() {
                        return;
                    }
                    backoff = Duration::from_secs(1);
                    loop {
                        let mut report = PullReport::default();
                        let event = match stream.next().await {
                            None => break "the remote closed the stream".to_owned(),
                            Some(Err(err)) => break err.to_string(),
                            Some(Ok(event)) => event,
                        };
                        let gap = match &event {
                            RemoteEvent::Gap { after, oldest } => Some(PullGap {
                                source: source.clone(),
                                after_id: after.clone(),
                                oldest_id: oldest.clone(),
                                at: Utc::now(),
                            }),
                            _ => None,
                        };
                        let sent = match handle(&store, &source, check.as_ref(), event, &mut report).await {
                            Err(err @ PullError::Store(_)) => {
                                let _ = events.send(AttachEvent::Stopped(err.to_string())).await;
                                return;
                            }
                            Err(err) => break err.to_string(),
                            Ok(Some(id)) => events.send(AttachEvent::Stored { id }).await,
                            Ok(None) => match (gap, report.unreadable.pop()) {
                                (Some(gap), _) => events.send(AttachEvent::Gap(gap)).await,
                                (None, Some(reason)) => events.send(AttachEvent::Unreadable(reason)).await,
                                (None, None) => Ok(()),
                            },
                        };
                        if sent.is_err() {
                            return;
                        }
                    }
                }
            },
        };
        if events.send(AttachEvent::Disconnected { reason, retry_in: backoff }).await.is_err() {
            return;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}
