//! `orgql webhooks pull`: copies into a local store what it lacks of a remote and returns when
//! caught up, with what it did ([`PullReport`] is `local.rs`'s, shared with the attachment).

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::client::{PullError, Remote, RemoteKind};
use super::local::{LocalCheck, LocalStore, PullReport, count, handle};

/// Deliveries asked for a page.
const PAGE: usize = 200;

/// Copies into the store at `store_path` what it lacks of `remote`, and returns when caught up:
/// an orgql listener page by page until a page is empty; a gosmee relay from its stream until it
/// has sent nothing for `idle`.
pub async fn pull(
    remote: &Remote,
    store_path: &Path,
    check: Option<&LocalCheck>,
    idle: Duration,
) -> Result<PullReport, PullError> {
    let store = LocalStore::open(store_path.to_path_buf()).await?;
    let source = remote.source();
    let key = source.clone();
    let checkpoint = store.with(move |s| s.pull_checkpoint(&key)).await?;
    let mut report = PullReport::default();
    match remote.kind() {
        RemoteKind::Orgql => {
            let mut after = checkpoint.and_then(|c| c.parse::<i64>().ok()).unwrap_or(0);
            loop {
                let page = remote.page_after(after, PAGE).await?;
                let Some(last) = page.deliveries.last().map(|d| d.id) else { break };
                let mut batch = Vec::with_capacity(page.deliveries.len());
                for wire in page.deliveries {
                    let id = wire.id.to_string();
                    let mut delivery = wire.into_delivery().map_err(|reason| remote.bad_data(reason))?;
                    if let Some(check) = check {
                        check.apply(&mut delivery);
                    }
                    batch.push((id, delivery));
                }
                let key = source.clone();
                let outcomes = store.with(move |s| s.add_pulled_deliveries(&key, &batch, true)).await?;
                count(&mut report, &outcomes);
                after = last;
            }
        }
        RemoteKind::Gosmee => {
            let mut stream = remote.open_stream(checkpoint.as_deref()).await?;
            loop {
                let event = match tokio::time::timeout(idle, stream.next()).await {
                    Err(_) | Ok(None) => break,
                    Ok(Some(event)) => event?,
                };
                handle(&store, &source, check, event, &mut report).await?;
            }
        }
    }
    Ok(report)
}

/// When a delivery was received, for a report (RFC 3339, milliseconds).
pub fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}
