//! The webhook inspector's jobs: the listener (with its deliveries forwarded to the UI in
//! batches), the in-process sandbox's webhooks pointed at it, replays and JSONL exports.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::task::JoinHandle;

use super::{Event, JobId, Shared};
use crate::sandbox::WebhookTarget;
use crate::secret::Secret;
use crate::store::{Delivery, DeliverySummary};
use crate::webhooks::listener::DEFAULT_BODY_LIMIT;
use crate::webhooks::pull::{AttachEvent, LocalCheck, Remote};
use crate::webhooks::replay::Replayed;
use crate::webhooks::standard::Secret as SigningSecret;
use crate::webhooks::testsend::TestOutcome;
use crate::webhooks::tunnel::{RunningTunnel, TunnelEvent, TunnelKind};
use crate::webhooks::{DeliveryFilter, Listener, ListenerConfig, ListenerError, RunningListener, Scheme};
use serde_json::Value;

/// How long arrivals are gathered into one batch for the UI.
const BATCH_WINDOW: Duration = Duration::from_millis(20);
/// The most summaries in one batch.
const BATCH_MAX: usize = 5000;
/// The path the in-process sandbox posts to on the app's listener.
pub const SANDBOX_PATH: &str = "/sandbox";

/// What the webhook inspector asks.
#[derive(Debug, Clone)]
pub enum WebhooksCommand {
    /// Find the inspector's secret in the keyring (or make one and keep it there), report it, and
    /// start the listener on this port with it (a free port when taken), when there is one.
    Prepare {
        /// The port to listen on.
        start_on: Option<u16>,
    },
    /// Start (or restart with new settings) the listener; its secret is kept in the keyring.
    StartListener(ListenerSettings),
    /// Stop the listener.
    StopListener,
    /// Load the summaries of every stored delivery.
    LoadDeliveries,
    /// Load one delivery whole, for its detail.
    LoadDelivery(i64),
    /// Delete every stored delivery.
    Clear,
    /// Send a stored delivery to a URL again.
    Replay {
        /// The replay (its event carries it).
        job: JobId,
        /// The delivery.
        id: i64,
        /// Where to.
        url: String,
    },
    /// Write the deliveries that pass a filter to a JSONL file.
    Export {
        /// The export (its event carries it).
        job: JobId,
        filter: DeliveryFilter,
        /// Where to.
        path: PathBuf,
    },
    /// Keep the local store in step with a remote sharing listener (or a gosmee relay), replacing
    /// an attachment under way; the token is kept in the OS keyring (none: the one kept there).
    Attach {
        /// The remote's URL.
        url: String,
        /// Its share token, when typed.
        token: Option<Secret>,
        /// The scheme and secret the copies are verified with here (none: the remote's verdict).
        check: Option<(Scheme, Secret)>,
    },
    /// Stop the attachment.
    Detach,
    /// Say which tunnel programs are on PATH.
    FindTunnels,
    /// Make the listener reachable from the internet through `kind` (replacing a tunnel running).
    StartTunnel(TunnelKind),
    /// Stop the tunnel.
    StopTunnel,
    /// Send a signed sample to the public `url` and compare what the listener stores.
    SendTest {
        /// The test (its event carries it).
        job: JobId,
        /// The public address.
        url: String,
        /// The scheme to sign with.
        scheme: Scheme,
        /// The secret to sign with.
        secret: Secret,
    },
}

/// A tunnel program and whether it is on PATH.
#[derive(Debug, Clone, PartialEq)]
pub struct TunnelProgram {
    /// The program.
    pub kind: TunnelKind,
    /// Whether it was found on PATH.
    pub found: bool,
}

/// What comes back to the webhook inspector.
#[derive(Debug, Clone)]
pub enum WebhooksEvent {
    /// The inspector's secret, and whether the keyring keeps it.
    Secret {
        /// The secret.
        secret: Secret,
        /// Whether it is in the keyring (otherwise: this session only).
        kept: bool,
    },
    /// The listener listens (after a start or restart).
    ListenerStarted {
        /// Its address.
        addr: SocketAddr,
        /// Something the user should know (another port was taken, the secret was not kept).
        notice: Option<String>,
    },
    /// The listener stopped, or could not start (the reason, one sentence).
    ListenerStopped(Option<String>),
    /// Delivery summaries, oldest first: the ones that just arrived (`through` none), or every
    /// stored one up to `through` — these replace the listed ones up to that id.
    Deliveries {
        /// Oldest first.
        rows: Vec<DeliverySummary>,
        /// The newest id the rows stand for, when they replace the list.
        through: Option<i64>,
    },
    /// One delivery whole, its body parsed (none: it was deleted).
    DeliveryLoaded(i64, Option<Box<LoadedDelivery>>),
    /// A replay ended.
    Replayed {
        /// The replay.
        job: JobId,
        /// The receiver's answer, or why there was none.
        result: Result<Replayed, String>,
    },
    /// A JSONL export of deliveries ended.
    Exported {
        /// The export.
        job: JobId,
        /// The file and how many deliveries, or why it failed.
        result: Result<(PathBuf, u64), String>,
    },
    /// What the attachment to a remote listener reports (its stored deliveries come as
    /// [`WebhooksEvent::Deliveries`]).
    Attached(AttachEvent),
    /// The attachment copied this many deliveries (listed by the [`WebhooksEvent::Deliveries`]
    /// just before).
    Copied(usize),
    /// The attachment ended (why, when it could not start).
    Detached(Option<String>),
    /// The known tunnel programs, found or not.
    Tunnels(Vec<TunnelProgram>),
    /// What the running tunnel reports.
    Tunnel(TunnelEvent),
    /// The tunnel stopped, or could not start (why).
    TunnelStopped(Option<String>),
    /// A test delivery ended: the comparison's sentence, or why it could not be made.
    TestSent {
        /// The test.
        job: JobId,
        /// What was found.
        result: Result<TestOutcome, String>,
    },
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: WebhooksCommand) {
    let shared = shared.clone();
    match command {
        WebhooksCommand::Prepare { start_on } => tokio::spawn(prepare(shared, start_on)),
        WebhooksCommand::StartListener(settings) => tokio::spawn(start_listener(shared, settings)),
        WebhooksCommand::StopListener => tokio::spawn(stop_listener(shared)),
        WebhooksCommand::LoadDeliveries => tokio::spawn(load_deliveries(shared)),
        WebhooksCommand::LoadDelivery(id) => tokio::spawn(load_delivery(shared, id)),
        WebhooksCommand::Clear => tokio::spawn(clear_deliveries(shared)),
        WebhooksCommand::Replay { job, id, url } => tokio::spawn(replay(shared, job, id, url)),
        WebhooksCommand::Export { job, filter, path } => tokio::spawn(export(shared, job, filter, path)),
        WebhooksCommand::Attach { url, token, check } => tokio::spawn(attach(shared, url, token, check)),
        WebhooksCommand::Detach => tokio::spawn(detach(shared)),
        WebhooksCommand::FindTunnels => tokio::spawn(find_tunnels(shared)),
        WebhooksCommand::StartTunnel(kind) => tokio::spawn(start_tunnel(shared, kind)),
        WebhooksCommand::StopTunnel => tokio::spawn(stop_tunnel(shared)),
        WebhooksCommand::SendTest { job, url, scheme, secret } => {
            tokio::spawn(send_test(shared, job, url, scheme, secret))
        }
    };
}

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

/// A running listener and the task that forwards its deliveries to the UI.
pub(crate) struct ListenerHandle {
    running: RunningListener,
    forward: JoinHandle<()>,
}

impl ListenerHandle {
    async fn stop(self) {
        self.forward.abort();
        self.running.stop().await;
    }
}

/// Reports the inspector's secret (the keyring's, or a new one kept there) and starts the
/// listener with it on `start_on`, taking a free port when that one is taken.
async fn prepare(shared: Arc<Shared>, start_on: Option<u16>) {
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
async fn start_listener(shared: Arc<Shared>, settings: ListenerSettings) {
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
async fn stop_listener(shared: Arc<Shared>) {
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

/// Sends every stored delivery's summary as the whole list; returns the newest id sent.
async fn load_all(shared: &Arc<Shared>) -> i64 {
    let loaded = shared
        .with_store(|s| {
            let through = s.last_delivery_id()?;
            Ok((s.summaries_after(0)?, through))
        })
        .await;
    match loaded {
        Some(Ok((rows, through))) => {
            let newest = rows.last().map_or(through, |d| d.id.max(through));
            shared.emit(WebhooksEvent::Deliveries { rows, through: Some(through) }).await;
            newest
        }
        Some(Err(e)) => {
            shared.emit(Event::Problem(e)).await;
            0
        }
        None => 0,
    }
}

/// Sends every stored delivery's summary as the whole list.
async fn load_deliveries(shared: Arc<Shared>) {
    load_all(&shared).await;
}

/// Sends one delivery whole.
async fn load_delivery(shared: Arc<Shared>, id: i64) {
    // The body is parsed here, on the blocking thread that read it, not on the UI thread.
    match shared.with_store(move |s| Ok(s.delivery(id)?.map(|d| Box::new(super::LoadedDelivery::new(d))))).await {
        Some(Ok(delivery)) => shared.emit(WebhooksEvent::DeliveryLoaded(id, delivery)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Deletes every stored delivery.
async fn clear_deliveries(shared: Arc<Shared>) {
    let cleared = shared
        .with_store(|s| {
            let through = s.last_delivery_id()?;
            s.delete_deliveries_through(through)?;
            Ok(through)
        })
        .await;
    match cleared {
        Some(Ok(through)) => shared.emit(WebhooksEvent::Deliveries { rows: Vec::new(), through: Some(through) }).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Sends a stored delivery to `url` again.
async fn replay(shared: Arc<Shared>, job: JobId, id: i64, url: String) {
    let result = async {
        let delivery = match shared.with_store(move |s| s.delivery(id)).await {
            Some(Ok(Some(delivery))) => delivery,
            Some(Ok(None)) => return Err("that delivery is no longer stored (the list was cleared)".to_owned()),
            Some(Err(e)) => return Err(e),
            None => return Err("there is no local database to replay from".to_owned()),
        };
        let http = crate::net::HttpClient::for_url(url.trim(), |b| b).await.map_err(|e| e.to_string())?;
        crate::webhooks::replay::replay(http.reqwest(), &delivery.delivery, &url).await
    }
    .await;
    shared.emit(WebhooksEvent::Replayed { job, result }).await;
}

/// Writes the deliveries that pass `filter` to a JSONL file, which appears only when complete.
async fn export(shared: Arc<Shared>, job: JobId, filter: DeliveryFilter, path: PathBuf) {
    let target = path.clone();
    let written = shared
        .with_store(move |s| Ok(write_jsonl(s, &filter, &target)))
        .await
        .unwrap_or_else(|| Err("there is no local database to export from".to_owned()))
        .and_then(|inner| inner);
    shared.emit(WebhooksEvent::Exported { job, result: written.map(|n| (path, n)) }).await;
}

fn write_jsonl(store: &crate::store::Store, filter: &DeliveryFilter, path: &std::path::Path) -> Result<u64, String> {
    let cannot = |e: &dyn std::fmt::Display| {
        format!("cannot write {} ({e}); choose another folder or free some space", path.display())
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| cannot(&e))?;
    let mut out = std::io::BufWriter::new(file.as_file_mut());
    let written = crate::webhooks::export::export_matching(store, &mut out, filter).map_err(|e| e.to_string())?;
    drop(out);
    file.persist(path).map_err(|e| cannot(&e.error))?;
    Ok(written)
}

/// A stored delivery whole, with its body parsed for display off the UI thread (bodies reach 1 MiB).
#[derive(Debug, Clone)]
pub struct LoadedDelivery {
    /// The delivery.
    pub delivery: Delivery,
    /// Its body, parsed.
    pub body: DeliveryBody,
}

impl LoadedDelivery {
    /// Parses the body of `delivery`.
    pub fn new(delivery: Delivery) -> Self {
        let body = DeliveryBody::of(&delivery.delivery.body);
        LoadedDelivery { delivery, body }
    }
}

/// A delivery's body as shown.
#[derive(Debug, Clone, PartialEq)]
pub enum DeliveryBody {
    /// JSON.
    Json(Value),
    /// Text that is not JSON.
    Text,
    /// Bytes that are not UTF-8 (a hex dump of the start).
    Binary(String),
}

impl DeliveryBody {
    /// Parses a body for display.
    pub fn of(bytes: &[u8]) -> DeliveryBody {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
            return DeliveryBody::Json(value);
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => DeliveryBody::Text,
            Err(_) => DeliveryBody::Binary(hex_dump(&bytes[..bytes.len().min(4096)])),
        }
    }
}

fn hex_dump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let text: String = chunk.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
            format!("{:06x}  {:<47}  {text}", i * 16, hex.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A running tunnel and the task that forwards its events to the UI.
pub(crate) struct TunnelHandle {
    running: RunningTunnel,
    forward: JoinHandle<()>,
}

async fn find_tunnels(shared: Arc<Shared>) {
    let found = tokio::task::spawn_blocking(crate::webhooks::tunnel::available).await.unwrap_or_default();
    let programs = found.into_iter().map(|(kind, path)| TunnelProgram { kind, found: path.is_some() }).collect();
    shared.emit(WebhooksEvent::Tunnels(programs)).await;
}

/// Starts `kind` for the listener's port, stopping a tunnel running first.
async fn start_tunnel(shared: Arc<Shared>, kind: TunnelKind) {
    let port = shared.listener.lock().await.as_ref().map(|h| h.running.addr().port());
    let mut slot = shared.tunnel.lock().await;
    if let Some(old) = slot.take() {
        old.forward.abort();
        old.running.stop().await;
    }
    let Some(port) = port else {
        drop(slot);
        let why = "the listener is stopped; start it, then make it reachable";
        shared.emit(WebhooksEvent::TunnelStopped(Some(why.to_owned()))).await;
        return;
    };
    let name = kind.name().to_owned();
    let (running, mut events) = crate::webhooks::tunnel::start(kind, port);
    if let Some(listener) = shared.listener.lock().await.as_ref() {
        listener.running.forwarders().trust_tunnel(&name, running.process());
    }
    let to_ui = shared.clone();
    let forward = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            to_ui.emit(WebhooksEvent::Tunnel(event)).await;
        }
    });
    *slot = Some(TunnelHandle { running, forward });
}

async fn stop_tunnel(shared: Arc<Shared>) {
    let old = shared.tunnel.lock().await.take();
    if let Some(old) = old {
        old.forward.abort();
        old.running.stop().await;
    }
    shared.emit(WebhooksEvent::TunnelStopped(None)).await;
}

async fn send_test(shared: Arc<Shared>, job: JobId, url: String, scheme: Scheme, secret: Secret) {
    let arrivals = shared.listener.lock().await.as_ref().map(|h| h.running.events_sender());
    let result = match arrivals {
        None => Err("the listener is stopped; start it first".to_owned()),
        Some(arrivals) => crate::webhooks::testsend::run(&url, &scheme, secret.expose(), &arrivals).await,
    };
    shared.emit(WebhooksEvent::TestSent { job, result }).await;
}

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
async fn attach(shared: Arc<Shared>, url: String, token: Option<Secret>, check: Option<(Scheme, Secret)>) {
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

async fn detach(shared: Arc<Shared>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_shown_as_json_text_or_bytes() {
        assert!(matches!(DeliveryBody::of(br#"{"a":1}"#), DeliveryBody::Json(_)));
        assert!(matches!(DeliveryBody::of(b"plain words"), DeliveryBody::Text));
        match DeliveryBody::of(&[0xff, b'A', 0x00]) {
            DeliveryBody::Binary(dump) => assert_eq!(dump, format!("000000  {:<47}  .A.", "ff 41 00")),
            _ => panic!("not binary"),
        }
    }
}
