//! The attachment to a remote listener: its share token (typed, or the keyring's), the copies it
//! brings into the app's store and the list, and the detach.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::WebhooksEvent;
use super::deliveries::{BATCH_MAX, BATCH_WINDOW};
use crate::secret::Secret;
use crate::store::DeliverySummary;
use crate::webhooks::Scheme;
use crate::webhooks::pull::{AttachEvent, LocalCheck, Remote};
use crate::worker::{Event, Shared};

/// An attachment to a remote listener and the task that forwards what it reports.
pub(crate) struct AttachmentHandle {
    cancel: tokio_util::sync::CancellationToken,
    task: JoinHandle<()>,
}

impl AttachmentHandle {
    async fn stop(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }
}

/// Attaches to `url` (its token typed, or the one the keyring keeps for it), stopping an
/// attachment under way; the copies go into the app's store and to the list.
pub(super) async fn attach(shared: Arc<Shared>, url: String, token: Option<Secret>, check: Option<(Scheme, Secret)>) {
    if let Some(old) = shared.attachment.lock().await.take() {
        old.stop().await;
    }
    let Some(store_path) = shared.store_path.clone() else {
        let why =
            "copies are kept in the local database, which is off for this session; restart orgql once it can be opened";
        shared.emit(WebhooksEvent::Detached(Some(why.to_owned()))).await;
        return;
    };
    let secrets = shared.secrets.clone();
    let key = url.clone();
    let typed = token.clone();
    let kept = tokio::task::spawn_blocking(move || match typed {
        Some(token) => secrets.set_share_token(&key, &token).map(|()| Some(token)).map_err(keyring_reason),
        None => secrets.share_token(&key).map_err(keyring_reason),
    })
    .await
    .unwrap_or_else(|e| Err(e.to_string()));
    let token = match (kept, token) {
        (Ok(Some(token)), _) => Some(token),
        // Not kept: used for this session, and said.
        (Err(why), Some(token)) => {
            shared.emit(Event::Problem(format!("the share token is used for this session only ({why})"))).await;
            Some(token)
        }
        (Ok(None), None) | (Err(_), None) => None,
        (Ok(None), Some(token)) => Some(token),
    };
    let remote = match Remote::new(&url, token) {
        Ok(remote) => remote,
        Err(e) => {
            shared.emit(WebhooksEvent::Detached(Some(e.to_string()))).await;
            return;
        }
    };
    let check = check.map(|(scheme, secret)| LocalCheck { scheme, secret });
    let cancel = tokio_util::sync::CancellationToken::new();
    let (task, mut events) = crate::webhooks::pull::attach(remote, store_path, check, cancel.clone());
    let to_ui = shared.clone();
    let forward = tokio::spawn(async move {
        // Stored deliveries are gathered for a moment and listed together; other events keep
        // their place in the order.
        let mut stored = Vec::new();
        let mut deadline = None;
        loop {
            let next = match deadline {
                Some(at) => match tokio::time::timeout_at(at, events.recv()).await {
                    Ok(next) => next,
                    Err(_) => {
                        list_copies(&to_ui, std::mem::take(&mut stored)).await;
                        deadline = None;
                        continue;
                    }
                },
                None => events.recv().await,
            };
            match next {
                Some(AttachEvent::Stored { id }) => {
                    stored.push(id);
                    deadline.get_or_insert_with(|| tokio::time::Instant::now() + BATCH_WINDOW);
                    if stored.len() >= BATCH_MAX {
                        list_copies(&to_ui, std::mem::take(&mut stored)).await;
                        deadline = None;
                    }
                }
                Some(other) => {
                    list_copies(&to_ui, std::mem::take(&mut stored)).await;
                    deadline = None;
                    to_ui.emit(WebhooksEvent::Attached(other)).await;
                }
                None => {
                    list_copies(&to_ui, std::mem::take(&mut stored)).await;
                    break;
                }
            }
        }
        let _ = task.await;
        to_ui.emit(WebhooksEvent::Detached(None)).await;
    });
    *shared.attachment.lock().await = Some(AttachmentHandle { cancel, task: forward });
}

/// Lists the deliveries an attachment copied (their summaries read from the store).
async fn list_copies(shared: &Arc<Shared>, stored: Vec<i64>) {
    if stored.is_empty() {
        return;
    }
    let rows = shared
        .with_store(move |store| {
            let mut rows = Vec::with_capacity(stored.len());
            for id in stored {
                if let Some(delivery) = store.delivery(id)? {
                    rows.push(DeliverySummary::of(&delivery));
                }
            }
            Ok(rows)
        })
        .await;
    match rows {
        Some(Ok(rows)) => {
            let n = rows.len();
            shared.emit(WebhooksEvent::Deliveries { rows, through: None }).await;
            shared.emit(WebhooksEvent::Copied(n)).await;
        }
        Some(Err(why)) => shared.emit(Event::Problem(why)).await,
        None => {}
    }
}

pub(super) async fn detach(shared: Arc<Shared>) {
    let old = shared.attachment.lock().await.take();
    match old {
        Some(old) => old.stop().await,
        None => shared.emit(WebhooksEvent::Detached(None)).await,
    }
}

/// Why the keyring could not keep a share token, in a few words: the keyring error's first
/// clause (the rest suggests an environment variable, which is the client secret's way, not this
/// token's).
fn keyring_reason(err: impl std::fmt::Display) -> String {
    err.to_string().split(';').next().unwrap_or_default().trim().to_owned()
}
