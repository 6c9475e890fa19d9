//! The sandbox: the service of the spec, run locally (contract section 1). The desktop app starts
//! it in-process as its default connection; the tests and benchmarks run against it.

pub mod access;
pub mod auth;
mod bodies;
pub mod data;
pub mod deliveries;
mod documents;
pub mod http;
pub mod limits;
pub mod minimal;
pub mod nested;
mod response;
pub mod schema;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use auth::{ADMIN_CLIENT, READER_CLIENT};
pub use deliveries::{DeliveryStats, WebhookTarget};

/// Which server a sandbox is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Variant {
    /// The whole service of the contract: every resource, mutations, webhooks.
    #[default]
    Full,
    /// A deliberately different server of the spec, users only ([`minimal`]), to rehearse against.
    Minimal,
    /// A server of another shape ([`nested`]): learning data on the user, noun-first mutations
    /// answering with payloads that return refusals as data.
    Nested,
}

impl Variant {
    /// Its name on the command line and in messages: `full`, `minimal` or `nested`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Full => "full",
            Variant::Minimal => "minimal",
            Variant::Nested => "nested",
        }
    }
}

/// How to run a sandbox.
#[derive(Debug, Clone)]
pub struct Config {
    /// Which server to run.
    pub variant: Variant,
    /// Where to listen; port 0 picks a free port.
    pub listen: SocketAddr,
    /// How many users to generate.
    pub users: usize,
    /// The seed of the generated data.
    pub seed: u64,
    /// The secret of both built-in clients.
    pub secret: String,
    /// The lifetime of access tokens.
    pub token_ttl: Duration,
    /// Requests a second per client before 429; 0 for no limit.
    pub rate_limit: u32,
    /// A wait before every GraphQL response.
    pub latency: Duration,
    /// Where to send webhooks.
    pub webhooks: Vec<WebhookTarget>,
    /// The largest request body accepted.
    pub body_limit: usize,
    /// The wait before a webhook's second try; it doubles after.
    pub webhook_retry: Duration,
    /// Connections at once and the idle timeout (`crate::serve`).
    pub connections: crate::serve::ConnectionLimits,
    /// Which version of its schema the full variant serves ([`schema::next`]).
    pub schema: schema::Edition,
    /// The request bodies' shares, budget and pace (`crate::serve::inflight`).
    pub budget: crate::serve::inflight::BudgetLimits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            variant: Variant::Full,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            users: 500,
            seed: 1,
            secret: "sandbox-secret".to_owned(),
            token_ttl: Duration::from_secs(86_400),
            rate_limit: 0,
            latency: Duration::ZERO,
            webhooks: Vec::new(),
            body_limit: 1024 * 1024,
            webhook_retry: Duration::from_millis(500),
            connections: crate::serve::ConnectionLimits::default(),
            schema: schema::Edition::Current,
            budget: crate::serve::inflight::BudgetLimits::default(),
        }
    }
}

/// Why a sandbox could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The address is taken or not allowed.
    #[error("cannot listen on {addr} ({source}); choose another address with --listen, or 127.0.0.1:0 for a free port")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The minimal variant was given webhook receivers.
    #[error(
        "the minimal sandbox has no mutations and sends no webhooks; drop the webhook receivers or run the full variant"
    )]
    WebhooksUnsupported,
    /// The next schema was asked of a variant other than the full one.
    #[error("only the full sandbox has a next schema; drop --schema next or run --variant full")]
    NoNextSchema,
    /// The minimal variant's schema did not build (a bug).
    #[error("the minimal sandbox's schema could not be built ({0}); report this as a bug")]
    Schema(String),
}

/// Starts sandboxes.
pub struct Server;

impl Server {
    /// Generates the data and starts serving on the current tokio runtime.
    pub async fn start(config: Config) -> Result<RunningServer, StartError> {
        if config.variant == Variant::Minimal && !config.webhooks.is_empty() {
            return Err(StartError::WebhooksUnsupported);
        }
        if config.variant != Variant::Full && config.schema != schema::Edition::Current {
            return Err(StartError::NoNextSchema);
        }
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|source| StartError::Bind { addr: config.listen, source })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind { addr: config.listen, source })?;
        let shutdown = CancellationToken::new();
        let (users, seed) = (config.users, config.seed);
        let db = tokio::task::spawn_blocking(move || data::generate(users, seed)).await.unwrap_or_default();
        let db = Arc::new(data::SharedDb::new(db));
        let outbox = deliveries::Outbox::new(shutdown.clone(), config.webhook_retry);
        outbox.set_targets(config.webhooks.clone());
        let executor = match config.variant {
            Variant::Full => http::Executor::Full(schema::build_edition(db.clone(), outbox.clone(), config.schema)),
            Variant::Minimal => {
                http::Executor::Minimal(minimal::build(db.clone()).map_err(|e| StartError::Schema(e.0))?)
            }
            Variant::Nested => http::Executor::Nested(nested::build(db.clone(), outbox.clone())),
        };
        let state = Arc::new(http::AppState {
            executor,
            tokens: auth::Tokens::new(config.token_ttl),
            secret: config.secret.clone(),
            limiter: http::AppState::limiter(config.rate_limit),
            latency: config.latency,
            documents: documents::Documents::default(),
        });
        let app = http::router(state, config.body_limit, config.budget);
        let stop = shutdown.clone();
        let connections = config.connections;
        let task = tokio::spawn(async move {
            let listener = crate::serve::LimitedListener::new(listener, connections);
            // The sandbox believes no forwarder: it is not put behind a tunnel.
            crate::serve::serve(listener, app, crate::serve::forwarded::Forwarders::default(), stop).await;
        });
        tracing::info!(%addr, users, seed, variant = config.variant.name(), schema = config.schema.name(), "sandbox listening");
        Ok(RunningServer {
            base_url: format!("http://{addr}"),
            addr,
            shutdown,
            task,
            outbox,
            db,
            secret: config.secret,
        })
    }
}

/// A sandbox that serves until stopped (or dropped).
pub struct RunningServer {
    base_url: String,
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<()>,
    outbox: deliveries::Outbox,
    db: Arc<data::SharedDb>,
    secret: String,
}

impl RunningServer {
    /// The `{base_url}` of the spec, e.g. `http://127.0.0.1:8080` (no trailing slash).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The secret of the built-in clients.
    pub fn client_secret(&self) -> &str {
        &self.secret
    }

    /// Replaces the webhook receivers (the minimal variant has no mutations, so sends nothing).
    pub fn set_webhooks(&self, targets: Vec<WebhookTarget>) {
        self.outbox.set_targets(targets);
    }

    /// What became of the webhook deliveries so far.
    pub fn delivery_stats(&self) -> DeliveryStats {
        self.outbox.stats()
    }

    /// Webhook messages queued so far (each one ends delivered, failed or dropped).
    pub fn deliveries_queued(&self) -> u64 {
        self.outbox.queued()
    }

    /// The data, for tests and tools that compare the service's answers with it.
    pub fn data(&self) -> &data::SharedDb {
        &self.db
    }

    /// Stops serving, letting requests under way finish for at most 3 s (a client that trickles
    /// its request must not keep the sandbox from stopping).
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        match tokio::time::timeout(std::time::Duration::from_secs(3), &mut self.task).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::warn!("the sandbox's server task ended abnormally: {err}"),
            Err(_) => self.task.abort(),
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
