//! Webhook deliveries: each committed change becomes a Standard Webhooks message, sent to every
//! configured receiver in order, retried with backoff (5 tries in all) when a receiver answers
//! non-2xx or not at all.
//!
//! They are sent with a plain reqwest client, not `crate::net`'s, on purpose: the sandbox stands
//! in for the service, whose webhooks leave from its own servers rather than through the
//! person's proxy, trust store or proxy sign-in. The receivers it is given are the local listener
//! on loopback (the app's sandbox, an import's rehearsal), which `crate::net` would never proxy
//! either; a remote `orgql sandbox --webhook-url` is sent to directly, as the service would.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use chrono::Utc;
use rand::Rng;
use rand::distr::Alphanumeric;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::data::Change;
use crate::webhooks::standard::{self, Secret};

/// Tries per delivery, the first included.
pub const TRIES: usize = 5;
/// Deliveries waiting for one receiver; beyond this new ones are dropped with a warning.
const QUEUE: usize = 10_000;

/// Where the sandbox sends its webhooks.
#[derive(Clone, Debug)]
pub struct WebhookTarget {
    /// The receiver's URL.
    pub url: String,
    /// The signing secret.
    pub secret: Secret,
}

/// What became of the deliveries so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryStats {
    /// Messages answered 2xx.
    pub delivered: u64,
    /// Messages given up after every try.
    pub failed: u64,
    /// Messages dropped: a receiver's queue was full, or the receiver was removed (or the
    /// sandbox stopped) before they were delivered.
    pub dropped: u64,
}

#[derive(Default)]
struct Counters {
    queued: AtomicU64,
    delivered: AtomicU64,
    failed: AtomicU64,
    dropped: AtomicU64,
}

struct Message {
    id: String,
    kind: &'static str,
    body: Arc<Vec<u8>>,
}

struct Receiver {
    target: WebhookTarget,
    queue: mpsc::Sender<Message>,
    stop: CancellationToken,
}

/// The sending side of the webhooks: cheap to clone, shared by the mutations.
#[derive(Clone)]
pub struct Outbox {
    inner: Arc<Inner>,
}

struct Inner {
    receivers: RwLock<Vec<Receiver>>,
    http: reqwest::Client,
    counters: Counters,
    runtime: tokio::runtime::Handle,
    first_retry: Duration,
    shutdown: CancellationToken,
}

impl Outbox {
    /// An outbox with no receivers, spawning its senders on the current runtime. The senders stop
    /// with `shutdown`. `first_retry` is the wait before the second try; it doubles after.
    pub fn new(shutdown: CancellationToken, first_retry: Duration) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .user_agent(concat!("orgql-sandbox/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Outbox {
            inner: Arc::new(Inner {
                receivers: RwLock::new(Vec::new()),
                http,
                counters: Counters::default(),
                runtime: tokio::runtime::Handle::current(),
                first_retry,
                shutdown,
            }),
        }
    }

    /// Replaces the receivers. Messages already queued for a removed receiver are dropped.
    pub fn set_targets(&self, targets: Vec<WebhookTarget>) {
        let mut receivers = self.inner.receivers.write().unwrap_or_else(PoisonError::into_inner);
        for old in receivers.drain(..) {
            old.stop.cancel();
        }
        for target in targets {
            let (queue, rx) = mpsc::channel(QUEUE);
            let stop = self.inner.shutdown.child_token();
            self.inner.runtime.spawn(send_in_order(self.inner.clone(), target.clone(), rx, stop.clone()));
            receivers.push(Receiver { target, queue, stop });
        }
    }

    /// The current receivers.
    pub fn targets(&self) -> Vec<WebhookTarget> {
        let receivers = self.inner.receivers.read().unwrap_or_else(PoisonError::into_inner);
        receivers.iter().map(|r| r.target.clone()).collect()
    }

    /// Queues the events of a committed change for every receiver.
    pub fn send(&self, changes: Vec<Change>) {
        let receivers = self.inner.receivers.read().unwrap_or_else(PoisonError::into_inner);
        if receivers.is_empty() {
            return;
        }
        for change in changes {
            let body = serde_json::json!({
                "type": change.kind,
                "timestamp": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                "data": change.data,
            });
            let body = Arc::new(serde_json::to_vec(&body).unwrap_or_default());
            let id = message_id();
            for receiver in receivers.iter() {
                let message = Message { id: id.clone(), kind: change.kind, body: body.clone() };
                self.inner.counters.queued.fetch_add(1, Ordering::Relaxed);
                if receiver.queue.try_send(message).is_err() {
                    self.inner.counters.dropped.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(kind = change.kind, "webhook queue full or closed; delivery dropped");
                }
            }
        }
    }

    /// Messages queued so far, one a receiver and event (each ends delivered, failed or dropped).
    pub fn queued(&self) -> u64 {
        self.inner.counters.queued.load(Ordering::Relaxed)
    }

    /// What became of the deliveries so far.
    pub fn stats(&self) -> DeliveryStats {
        let c = &self.inner.counters;
        DeliveryStats {
            delivered: c.delivered.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
        }
    }
}

fn message_id() -> String {
    let tail: String = rand::rng().sample_iter(Alphanumeric).take(24).map(char::from).collect();
    format!("msg_{tail}")
}

/// Sends one receiver's messages one after another, so that they arrive in order.
async fn send_in_order(
    inner: Arc<Inner>,
    target: WebhookTarget,
    mut rx: mpsc::Receiver<Message>,
    stop: CancellationToken,
) {
    let backoff = ExponentialBuilder::default()
        .with_min_delay(inner.first_retry)
        .with_max_delay(inner.first_retry * 16)
        .with_max_times(TRIES - 1)
        .with_jitter();
    loop {
        let message = tokio::select! {
            _ = stop.cancelled() => return count_dropped(&inner, &mut rx),
            message = rx.recv() => match message { Some(m) => m, None => return },
        };
        let attempt = || deliver(&inner.http, &target, &message);
        let outcome = tokio::select! {
            _ = stop.cancelled() => {
                inner.counters.dropped.fetch_add(1, Ordering::Relaxed);
                return count_dropped(&inner, &mut rx);
            }
            outcome = attempt.retry(backoff).notify(|err, wait| {
                tracing::info!(kind = message.kind, id = %message.id, "webhook delivery failed ({err}); retrying in {wait:?}");
            }) => outcome,
        };
        match outcome {
            Ok(()) => inner.counters.delivered.fetch_add(1, Ordering::Relaxed),
            Err(err) => {
                tracing::warn!(kind = message.kind, id = %message.id, "webhook delivery given up after {TRIES} tries: {err}");
                inner.counters.failed.fetch_add(1, Ordering::Relaxed)
            }
        };
    }
}

/// Counts the messages still queued for a receiver that was removed or stopped as dropped.
fn count_dropped(inner: &Inner, rx: &mut mpsc::Receiver<Message>) {
    rx.close();
    let mut left = 0;
    while rx.try_recv().is_ok() {
        left += 1;
    }
    if left > 0 {
        inner.counters.dropped.fetch_add(left, Ordering::Relaxed);
        tracing::info!("{left} webhook deliveries dropped with their receiver");
    }
}

/// One try: signed afresh, so that the timestamp is that of the try.
async fn deliver(http: &reqwest::Client, target: &WebhookTarget, message: &Message) -> Result<(), String> {
    let timestamp = Utc::now().timestamp();
    let signature = target.secret.sign(&message.id, timestamp, &message.body);
    let response = http
        .post(&target.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(standard::HEADER_ID, &message.id)
        .header(standard::HEADER_TIMESTAMP, timestamp.to_string())
        .header(standard::HEADER_SIGNATURE, signature)
        .body(message.body.as_ref().clone())
        .send()
        .await
        .map_err(|e| format!("no answer: {e}"))?;
    if response.status().is_success() { Ok(()) } else { Err(format!("answered HTTP {}", response.status().as_u16())) }
}
