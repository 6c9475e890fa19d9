//! The local webhook receiver (`orgql webhooks listen`): accepts any method on any path, checks
//! the signature of the exact bytes received, and writes every delivery to the store before it
//! answers, so a sender that got an answer can count on the delivery being on disk.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::scheme::Scheme;
use super::share::Sharing;
use super::standard::Secret;
use super::verify::{Verification, verify};
use crate::serve::inflight::BodyError;
use crate::store::{Delivery, NewDelivery, Store, StoreError};

/// The address the listener binds by default.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 9000);
/// The largest body accepted by default (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
/// The reason recorded for a body over the limit.
pub const OVER_LIMIT: &str = "body over the limit";
/// How long [`RunningListener::stop`] waits for the deliveries under way (3 s) before it drops
/// them: a sender that trickles a body must not keep the listener from stopping.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// How to run a listener.
#[derive(Debug, Clone)]
pub struct ListenerConfig {
    /// Where to listen (default 127.0.0.1:9000; port 0 picks a free port).
    pub listen: SocketAddr,
    /// Whether a non-loopback address may be bound (off: such an address is refused).
    pub allow_remote: bool,
    /// The signature scheme; when a secret is given without one, Standard Webhooks.
    pub scheme: Option<Scheme>,
    /// The signing secret; without it deliveries are stored unchecked (`verified` null).
    pub secret: Option<String>,
    /// Whether a delivery that fails verification is answered 401 (it is stored either way).
    pub reject_invalid: bool,
    /// The largest body accepted, in bytes; a larger one is answered 413 and stored as rejected.
    pub body_limit: usize,
    /// The database the deliveries go to.
    pub store_path: PathBuf,
    /// Connections at once and the idle timeout (`crate::serve`).
    pub connections: crate::serve::ConnectionLimits,
    /// With a token, the stored deliveries are served to inspectors that give it
    /// ([`super::share`]); without one, the read API does not exist.
    pub share_token: Option<crate::secret::Secret>,
    /// How long deliveries are kept (default: for ever).
    pub retention: Retention,
    /// The body bytes held while deliveries arrive, in all and per sender, each body's share and
    /// its pace (`crate::serve::inflight`): a body that trickles is answered 408, and stored as
    /// unreadable.
    pub budget: crate::serve::inflight::BudgetLimits,
    /// Forwarders whose `X-Forwarded-For` / `Cf-Connecting-Ip` are believed (`--trust-proxy`);
    /// the tunnel orgql starts is added with [`RunningListener::forwarders`].
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

/// How long the listener keeps deliveries: the oldest go first, checked at the start and every
/// [`RETENTION_EVERY`], each removal said in the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retention {
    /// Deliveries older than this many days are removed.
    pub keep_days: Option<u32>,
    /// The oldest deliveries are removed while the stored ones take more than this many bytes.
    pub max_store_bytes: Option<u64>,
}

/// How often the retention policy runs (1 minute).
pub const RETENTION_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

impl ListenerConfig {
    /// The defaults, storing into `store_path`.
    pub fn new(store_path: PathBuf) -> Self {
        ListenerConfig {
            listen: DEFAULT_LISTEN,
            allow_remote: false,
            scheme: None,
            secret: None,
            reject_invalid: false,
            body_limit: DEFAULT_BODY_LIMIT,
            store_path,
            connections: crate::serve::ConnectionLimits::default(),
            share_token: None,
            retention: Retention::default(),
            budget: crate::serve::inflight::BudgetLimits::default(),
            trusted_proxies: Vec::new(),
        }
    }
}

/// Why a listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum ListenerError {
    /// A non-loopback address without `allow_remote`.
    #[error(
        "{0} is not a loopback address, so anyone on the network could send deliveries; listen on 127.0.0.1 \
         or allow remote senders explicitly"
    )]
    Remote(SocketAddr),
    /// The address could not be bound.
    #[error("cannot listen on {addr} ({source}); choose another address or port")]
    Bind {
        /// The address.
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// A scheme was given without a secret.
    #[error("the signature scheme '{0}' needs a secret to check deliveries against; give the webhook secret too")]
    SchemeWithoutSecret(Scheme),
    /// The secret cannot be used with the scheme.
    #[error("{0}")]
    BadSecret(String),
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The webhook listener.
pub struct Listener;

struct Shared {
    store: Mutex<Store>,
    newest: tokio::sync::watch::Sender<i64>,
    check: Option<(Scheme, String)>,
    reject_invalid: bool,
    body_limit: usize,
    events: broadcast::Sender<Delivery>,
    budget: crate::serve::inflight::BodyBudget,
}

impl Listener {
    /// Opens the store, binds the address and serves until [`RunningListener::stop`].
    pub async fn start(config: ListenerConfig) -> Result<RunningListener, ListenerError> {
        if !config.listen.ip().is_loopback() && !config.allow_remote {
            return Err(ListenerError::Remote(config.listen));
        }
        let check = match (config.scheme, config.secret) {
            (Some(scheme), None) => return Err(ListenerError::SchemeWithoutSecret(scheme)),
            (None, None) => None,
            (scheme, Some(secret)) => {
                let scheme = scheme.unwrap_or(Scheme::Standard);
                if scheme == Scheme::Standard {
                    Secret::parse(&secret).map_err(|e| ListenerError::BadSecret(e.to_string()))?;
                } else if secret.is_empty() {
                    return Err(ListenerError::BadSecret(
                        "the webhook secret is empty; give the sender's secret".into(),
                    ));
                }
                Some((scheme, secret))
            }
        };
        let store_path = config.store_path.clone();
        let (store, newest_id) = tokio::task::spawn_blocking(move || {
            let store = Store::open(&store_path)?;
            let newest = store.last_delivery_id()?;
            Ok::<_, StoreError>((store, newest))
        })
        .await
        .map_err(|e| StoreError { path: config.store_path.clone(), reason: e.to_string() })??;
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|source| ListenerError::Bind { addr: config.listen, source })?;
        let addr = listener.local_addr().map_err(|source| ListenerError::Bind { addr: config.listen, source })?;
        let (events, _) = broadcast::channel(1024);
        let (newest, _) = tokio::sync::watch::channel(newest_id);
        let shutdown = CancellationToken::new();
        let sharing = match &config.share_token {
            Some(token) => {
                let store_path = config.store_path.clone();
                let reader = tokio::task::spawn_blocking(move || Store::open(&store_path))
                    .await
                    .map_err(|e| StoreError { path: config.store_path.clone(), reason: e.to_string() })??;
                Some(Arc::new(Sharing::new(token, reader, newest.subscribe(), shutdown.clone())))
            }
            None => None,
        };
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            newest: newest.clone(),
            check,
            reject_invalid: config.reject_invalid,
            body_limit: config.body_limit,
            events: events.clone(),
            budget: crate::serve::inflight::BodyBudget::new(config.budget),
        });
        if config.retention != Retention::default() {
            tokio::spawn(retention(shared.clone(), config.retention, shutdown.clone()));
        }
        let mut app = Router::new()
            .fallback(receive)
            .with_state(shared)
            .route(super::share::HEALTH_PATH, axum::routing::get(super::share::health));
        if let Some(sharing) = sharing {
            app = app.merge(super::share::routes(sharing));
        }
        let stop = shutdown.clone();
        let listener = crate::serve::LimitedListener::new(listener, config.connections);
        let forwarders = crate::serve::forwarded::Forwarders::new(config.trusted_proxies.clone());
        let serving = forwarders.clone();
        let task = tokio::spawn(async move { crate::serve::serve(listener, app, serving, stop).await });
        Ok(RunningListener { addr, shutdown, task, events, forwarders })
    }
}

/// A listener that is serving.
pub struct RunningListener {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<()>,
    events: broadcast::Sender<Delivery>,
    forwarders: crate::serve::forwarded::Forwarders,
}

impl RunningListener {
    /// The forwarders it believes: give it the tunnel started for it
    /// ([`crate::serve::forwarded::Forwarders::trust_tunnel`]).
    pub fn forwarders(&self) -> &crate::serve::forwarded::Forwarders {
        &self.forwarders
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every delivery from now on, after it is stored.
    pub fn subscribe(&self) -> broadcast::Receiver<Delivery> {
        self.events.subscribe()
    }

    /// The sender of [`RunningListener::subscribe`], to subscribe later from another task.
    pub fn events_sender(&self) -> broadcast::Sender<Delivery> {
        self.events.clone()
    }

    /// Stops accepting connections and waits for the requests under way, each stored and answered,
    /// for at most [`STOP_GRACE`]; what is still arriving then is dropped.
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        match tokio::time::timeout(STOP_GRACE, &mut self.task).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::warn!("the webhook listener's task ended abnormally: {err}"),
            Err(_) => {
                tracing::warn!(
                    "a delivery was still arriving {} s after the stop; it was dropped (its sender will send it again)",
                    STOP_GRACE.as_secs()
                );
                self.task.abort();
            }
        }
    }
}

impl Drop for RunningListener {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn receive(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let received_at = Utc::now();
    let (parts, body) = request.into_parts();
    let headers: Vec<(String, Vec<u8>)> =
        parts.headers.iter().map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec())).collect();
    let announced = crate::serve::inflight::announced_length(&parts.headers);
    let mut delivery = NewDelivery {
        received_at,
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().unwrap_or_default().to_owned(),
        headers,
        body: Vec::new(),
        verified: None,
        reason: String::new(),
        size: 0,
        sender: None,
    };
    let sender = match parts.extensions.get::<crate::serve::forwarded::Connection>() {
        Some(connection) => connection.sender(&parts.headers).await,
        None => crate::serve::forwarded::Sender {
            address: std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
            via: None,
        },
    };
    delivery.sender =
        Some(crate::store::DeliverySender { address: sender.address.to_string(), via: sender.via.clone() });
    // Each body's share at once; the rest under the budget: a sender's further large deliveries
    // wait their turn with their bodies unread (another sender's do not wait for them), and past
    // the line 429. A body that falls behind its pace: 408, the connection closed.
    let body = shared.budget.read(sender.address, body, shared.body_limit, announced).await;
    let mut close = false;
    let body = match body {
        Err(BodyError::TooMany) => {
            return retry(
                StatusCode::TOO_MANY_REQUESTS,
                "too many deliveries from your address at once; send it again",
            );
        }
        Err(BodyError::Busy) => {
            return retry(StatusCode::SERVICE_UNAVAILABLE, "too many deliveries arriving at once; send it again");
        }
        Err(BodyError::Shed) => {
            return retry(
                StatusCode::SERVICE_UNAVAILABLE,
                "the delivery arrived too slowly while others waited; send it again",
            );
        }
        other => other,
    };
    let status = match body {
        Ok(bytes) => {
            delivery.size = bytes.len() as u64;
            delivery.body = bytes;
            match &shared.check {
                None => StatusCode::NO_CONTENT,
                Some((scheme, secret)) => {
                    match verify(scheme, secret, &delivery.headers, &delivery.body, Utc::now().timestamp()) {
                        Verification::Verified => {
                            delivery.verified = Some(true);
                            StatusCode::NO_CONTENT
                        }
                        Verification::Failed(reason) => {
                            delivery.verified = Some(false);
                            delivery.reason = reason.to_string();
                            if shared.reject_invalid { StatusCode::UNAUTHORIZED } else { StatusCode::NO_CONTENT }
                        }
                    }
                }
            }
        }
        Err(BodyError::OverLimit) => {
            delivery.size = announced.unwrap_or(shared.body_limit as u64 + 1);
            delivery.verified = Some(false);
            delivery.reason = OVER_LIMIT.to_owned();
            StatusCode::PAYLOAD_TOO_LARGE
        }
        Err(BodyError::Slow(message)) => {
            delivery.verified = Some(false);
            delivery.reason = format!("the body arrived too slowly ({message})");
            close = true;
            StatusCode::REQUEST_TIMEOUT
        }
        Err(err) => {
            let message = match err {
                BodyError::Read(message) => message,
                _ => "it was not read".to_owned(),
            };
            delivery.verified = Some(false);
            delivery.reason = format!("the body could not be read ({message})");
            StatusCode::BAD_REQUEST
        }
    };
    // The answer waits for the row to be committed.
    let writer = shared.clone();
    let stored = tokio::task::spawn_blocking(move || {
        let store = writer.store.lock().unwrap_or_else(PoisonError::into_inner);
        store.add_delivery(&delivery).map(|id| Delivery { id, delivery })
    })
    .await;
    match stored {
        Ok(Ok(stored)) => {
            shared.newest.send_replace(stored.id);
            // Nobody listening is fine.
            let _ = shared.events.send(stored);
            if close {
                (status, [(header::CONNECTION, "close")], "the delivery arrived too slowly; send it again")
                    .into_response()
            } else {
                status.into_response()
            }
        }
        Ok(Err(err)) => {
            tracing::error!("cannot store a webhook delivery: {err}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the delivery could not be stored; send it again").into_response()
        }
        Err(err) => {
            tracing::error!("the store task failed: {err}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the delivery could not be stored; send it again").into_response()
        }
    }
}

fn retry(status: StatusCode, message: &'static str) -> Response {
    let mut response = (status, message).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, axum::http::HeaderValue::from_static("1"));
    response
}

/// Runs the retention policy now and every [`RETENTION_EVERY`] until the stop.
async fn retention(shared: Arc<Shared>, policy: Retention, stop: CancellationToken) {
    loop {
        let writer = shared.clone();
        let older_than = policy.keep_days.map(|days| Utc::now() - chrono::Duration::days(i64::from(days)));
        let pruned = tokio::task::spawn_blocking(move || {
            let store = writer.store.lock().unwrap_or_else(PoisonError::into_inner);
            store.prune_deliveries(older_than, policy.max_store_bytes)
        })
        .await;
        match pruned {
            Ok(Ok(pruned)) => {
                if pruned.by_age > 0 {
                    tracing::info!(
                        "retention: removed {} deliveries older than {} days (oldest first)",
                        pruned.by_age,
                        policy.keep_days.unwrap_or_default()
                    );
                }
                if pruned.by_size > 0 {
                    tracing::info!(
                        "retention: removed the {} oldest deliveries to keep the store under {} MB",
                        pruned.by_size,
                        policy.max_store_bytes.unwrap_or_default() / 1_000_000
                    );
                }
            }
            Ok(Err(err)) => tracing::error!("retention could not remove old deliveries: {err}"),
            Err(err) => tracing::error!("the retention task failed: {err}"),
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(RETENTION_EVERY) => {}
        }
    }
}
