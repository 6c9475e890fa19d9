//! The webhook listener: its start (with the inspector's secret, kept in the keyring) and stop,
//! the in-process sandbox's webhooks pointed at it, its deliveries forwarded to the UI in
//! batches, and a test delivery sent to it.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};

use super::WebhooksEvent;
use super::deliveries::{BATCH_MAX, BATCH_WINDOW, load_all};
use super::running::ListenerHandle;
use crate::sandbox::WebhookTarget;
use crate::secret::Secret;
use crate::store::{Delivery, DeliverySummary};
use crate::webhooks::listener::DEFAULT_BODY_LIMIT;
use crate::webhooks::standard::Secret as SigningSecret;
use crate::webhooks::{Listener, ListenerConfig, ListenerError, Scheme};
use crate::worker::{Event, JobId, Shared};

/// The path the in-process sandbox posts to on the app's listener.
pub const SANDBOX_PATH: &str = "/sandbox";

/// How the webhook listener runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ListenerSettings {
    /// The port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// When the port is taken, take any free one instead of failing (the app's own start).
    pub any_port_if_taken: bool,
    /// The signature scheme.
    pub scheme: Scheme,
    /// The signing secret (none: deliveries are stored unchecked).
    pub secret: Option<Secret>,
    /// Answer 401 to deliveries that fail verification.
    pub reject_invalid: bool,
}

/// Reports the inspector's secret (the keyring's, or a new one kept there) and starts the
/// listener with it on `start_on`, taking a free port when that one is taken.
pub(super) async fn prepare(shared: Arc<Shared>, start_on: Option<u16>) {
    let secrets = shared.secrets.clone();
    let found = tokio::task::spawn_blocking(move || match secrets.webhook_secret() {
        Ok(Some(secret)) => (secret, true),
        found => {
            let key = rand::random::<[u8; 24]>().to_vec();
            let secret = Secret::new(SigningSecret::from_key(key).to_text());
            let kept = found.is_ok() && secrets.set_webhook_secret(&secret).is_ok();
            (secret, kept)
        }
    })
    .await;
    let (secret, kept) = match found {
        Ok(found) => found,
        Err(e) => {
            shared.emit(Event::Problem(format!("the webhook secret could not be read ({e})"))).await;
            return;
        }
    };
    shared.emit(WebhooksEvent::Secret { secret: secret.clone(), kept }).await;
    if let Some(port) = start_on {
        let settings = ListenerSettings {
            port,
            any_port_if_taken: true,
            scheme: Scheme::Standard,
            secret: Some(secret),
            reject_invalid: false,
        };
        start_listener(shared, settings).await;
    }
}

/// Starts the listener with `settings`, stopping the one running first; a new secret is kept in
/// the keyring (said in the panel when it cannot be).
pub(super) async fn start_listener(shared: Arc<Shared>, settings: ListenerSettings) {
    let keyring_notice = keep_secret(&shared, settings.secret.clone()).await;
    let mut slot = shared.listener.lock().await;
    if let Some(old) = slot.take() {
        old.stop().await;
    }
    let Some(store_path) = shared.store_path.clone() else {
        drop(slot);
        let why = "webhook deliveries are kept in the local database, which is off for this session; \
                   restart orgql once the database can be opened";
        shared.emit(WebhooksEvent::ListenerStopped(Some(why.to_owned()))).await;
        return;
    };
    let mut config = ListenerConfig::new(store_path);
    config.listen = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), settings.port);
    config.scheme = settings.secret.as_ref().map(|_| settings.scheme.clone());
    config.secret = settings.secret.as_ref().map(|s| s.expose().to_owned());
    config.reject_invalid = settings.reject_invalid;
    config.body_limit = DEFAULT_BODY_LIMIT;
    let mut notice = None;
    let mut started = Listener::start(config.clone()).await;
    if matches!(started, Err(ListenerError::Bind { .. })) && settings.any_port_if_taken && settings.port != 0 {
        config.listen.set_port(0);
        started = Listener::start(config).await;
        notice = Some(format!("port {} is taken, so the listener took a free port", settings.port));
    }
    match started {
        Ok(running) => {
            let addr = running.addr();
            let arrivals = running.subscribe();
            let forward = tokio::spawn(forward(shared.clone(), arrivals));
            *slot = Some(ListenerHandle { running, forward });
            drop(slot);
            let secret = sandbox_secret(&shared, &settings);
            let target = WebhookTarget { url: format!("http://{addr}{SANDBOX_PATH}"), secret };
            shared.set_webhook_target(Some(target)).await;
            let notice = match (notice, keyring_notice) {
                (Some(a), Some(b)) => Some(format!("{a}; {b}")),
                (a, b) => a.or(b),
            };
            shared.emit(WebhooksEvent::ListenerStarted { addr, notice }).await;
        }
        Err(e) => {
            drop(slot);
            shared.set_webhook_target(None).await;
            shared.emit(WebhooksEvent::ListenerStopped(Some(e.to_string()))).await;
        }
    }
}

/// Keeps `secret` in the keyring when it is not the one there; says why when it cannot.
async fn keep_secret(shared: &Shared, secret: Option<Secret>) -> Option<String> {
    let secret = secret?;
    let secrets = shared.secrets.clone();
    // Without a keyring the panel already says the secret lasts this session only.
    if !secrets.is_available() {
        return None;
    }
    tokio::task::spawn_blocking(move || {
        if secrets.webhook_secret().ok().flatten().as_ref() == Some(&secret) {
            return None;
        }
        secrets.set_webhook_secret(&secret).err().map(|e| format!("{e}; the secret is kept for this session only"))
    })
    .await
    .unwrap_or(None)
}

/// The secret the in-process sandbox signs with: the listener's when it is a Standard Webhooks
/// secret (so its deliveries verify), otherwise the session's own (they arrive, and fail).
fn sandbox_secret(shared: &Shared, settings: &ListenerSettings) -> SigningSecret {
    settings
        .secret
        .as_ref()
        .filter(|_| settings.scheme == Scheme::Standard)
        .and_then(|s| SigningSecret::parse(s.expose()).ok())
        .unwrap_or_else(|| shared.session_secret.clone())
}

/// Stops the listener; the sandbox stops sending webhooks.
pub(super) async fn stop_listener(shared: Arc<Shared>) {
    // The tunnel goes with the listener it reached.
    if let Some(tunnel) = shared.tunnel.lock().await.take() {
        tunnel.forward.abort();
        tunnel.running.stop().await;
        shared.emit(WebhooksEvent::TunnelStopped(None)).await;
    }
    let old = shared.listener.lock().await.take();
    if let Some(old) = old {
        old.stop().await;
    }
    shared.set_webhook_target(None).await;
    shared.emit(WebhooksEvent::ListenerStopped(None)).await;
}

/// Sends every stored delivery's summary, then what arrives, in batches.
async fn forward(shared: Arc<Shared>, mut arrivals: broadcast::Receiver<Delivery>) {
    let mut last = load_all(&shared).await;
    loop {
        let first = match arrivals.recv().await {
            Ok(delivery) => Some(delivery),
            Err(RecvError::Lagged(_)) => None,
            Err(RecvError::Closed) => return,
        };
        tokio::time::sleep(BATCH_WINDOW).await;
        let mut batch: Vec<DeliverySummary> = first.iter().map(DeliverySummary::of).collect();
        let mut lagged = first.is_none();
        while batch.len() < BATCH_MAX {
            match arrivals.try_recv() {
                Ok(delivery) => batch.push(DeliverySummary::of(&delivery)),
                Err(TryRecvError::Lagged(_)) => lagged = true,
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        if lagged {
            // Some arrivals went by unseen: read what is stored since the last one sent.
            let after = last;
            match shared.with_store(move |s| s.summaries_after(after)).await {
                Some(Ok(rows)) => batch = rows,
                Some(Err(e)) => shared.emit(Event::Problem(e)).await,
                None => {}
            }
        }
        batch.retain(|d| d.id > last);
        if let Some(newest) = batch.last() {
            last = newest.id;
            shared.emit(WebhooksEvent::Deliveries { rows: batch, through: None }).await;
        }
    }
}

pub(super) async fn send_test(shared: Arc<Shared>, job: JobId, url: String, scheme: Scheme, secret: Secret) {
    let arrivals = shared.listener.lock().await.as_ref().map(|h| h.running.events_sender());
    let result = match arrivals {
        None => Err("the listener is stopped; start it first".to_owned()),
        Some(arrivals) => crate::webhooks::testsend::run(&url, &scheme, secret.expose(), &arrivals).await,
    };
    shared.emit(WebhooksEvent::TestSent { job, result }).await;
}
