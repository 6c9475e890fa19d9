//! The background side of the app (no egui): a task per job on the runtime `main` owns, typed
//! [`Command`]s in and [`Event`]s out over bounded channels, and a repaint callback that wakes
//! the UI after an event it must show (`emit`; `emit_quietly` leaves the event for the next
//! frame, for what is not on screen). A feature is a module here with its own command and event enums
//! and a `handle` that starts its tasks; [`Command`] and [`Event`] only wrap them, and
//! `dispatch` routes by feature.

mod charts;
mod command;
mod exports;
mod find_user;
mod history;
mod import;
mod profiles;
mod queries;
mod saved;
mod schedules;
mod schema;
mod schema_changes;
mod schema_notice;
mod status;
mod webhooks;
mod workspace;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use charts::{ChartCommand, ChartEvent, ChartImage};
pub use command::*;
pub use exports::{ExportAsked, ExportCommand, ExportEvent};
pub use find_user::{SupportCommand, SupportEvent};
pub use history::{HistoryCommand, HistoryEvent};
pub use import::{ApplyOutcome, ApplyRequest, ImportCommand, ImportEvent, PlanRequest, PlanView};
pub use profiles::{NetworkPasswords, ProfilesCommand, ProfilesEvent};
pub use queries::{QueryCommand, QueryEvent, Step};
pub use saved::{OperationChange, OperationsCommand, OperationsEvent};
pub use schedules::{ScheduleDraft, SchedulesCommand, SchedulesEvent};
pub use schema::{LoadedSchema, SchemaCommand, SchemaEvent};
pub use schema_changes::{Affected, FixDone, Rewrite, SchemaChanges, Source, VersionInfo};
pub use schema_notice::SchemaNotice;
pub use status::StatusEvent;
pub use webhooks::{DeliveryBody, ListenerSettings, LoadedDelivery, TunnelProgram, WebhooksCommand, WebhooksEvent};
pub use workspace::{WorkspaceCommand, WorkspaceEvent};

use crate::api::{ApiError, Client, ClientOptions, Credentials};
use crate::profiles::{ProfileFile, SecretStore};
use crate::sandbox::{RunningServer, Server, WebhookTarget};
use crate::store::Store;
use crate::webhooks::standard::Secret as SigningSecret;

/// Wakes the UI (a closure around `egui::Context::request_repaint`).
pub type Repaint = Arc<dyn Fn() + Send + Sync>;

/// Commands waiting for the worker; the UI never blocks on a full queue.
const COMMAND_QUEUE: usize = 256;
/// Events waiting for the UI.
const EVENT_QUEUE: usize = 1024;

/// The UI's handle on the worker.
#[derive(Clone)]
pub struct Worker {
    commands: mpsc::Sender<Command>,
}

/// The worker did not take a command: its queue is full (it is far behind), or it has stopped.
#[derive(Debug, thiserror::Error)]
pub enum WorkerGone {
    /// 256 commands wait already; what was asked is dropped and can be asked again.
    #[error("orgql is still busy with earlier requests, so this one was not started; try again in a moment")]
    Busy,
    /// The worker ended (the runtime is stopping).
    #[error("the background worker has stopped, so nothing more can be sent; close orgql and open it again")]
    Stopped,
}

impl Worker {
    /// Starts the worker on `runtime` and returns at once. The worker opens the store at
    /// `store_path` (the history; none, or one that fails to open: history is off, the latter
    /// reported as an [`Event::Problem`]) and reads `profiles` ([`ProfilesEvent::Loaded`])
    /// before it takes commands, which wait in the queue meanwhile.
    pub fn spawn(
        runtime: &tokio::runtime::Handle,
        repaint: Repaint,
        store_path: Option<std::path::PathBuf>,
        profiles: Option<ProfileFile>,
        secrets: SecretStore,
        sandbox_users: usize,
        finished: Option<std::sync::mpsc::Sender<()>>,
    ) -> (Worker, mpsc::Receiver<Event>) {
        let (commands, command_rx) = mpsc::channel(COMMAND_QUEUE);
        let (events, event_rx) = mpsc::channel(EVENT_QUEUE);
        runtime.spawn(async move {
            let (store, problem) = match store_path {
                Some(path) => match tokio::task::spawn_blocking(move || Store::open(&path)).await {
                    Ok(Ok(store)) => (Some(store), None),
                    Ok(Err(e)) => (None, Some(format!("{e}; the history is off for this session"))),
                    Err(e) => (
                        None,
                        Some(format!("the database could not be opened ({e}); the history is off for this session")),
                    ),
                },
                None => (None, None),
            };
            crate::timing::mark("store_open");
            let shared = Arc::new(Shared {
                store_path: store.as_ref().map(|s| s.path().to_path_buf()),
                listener: tokio::sync::Mutex::new(None),
                tunnel: tokio::sync::Mutex::new(None),
                attachment: tokio::sync::Mutex::new(None),
                webhook_target: Mutex::new(None),
                session_secret: SigningSecret::from_key(rand::random::<[u8; 24]>().to_vec()),
                secrets,
                profile_secrets: Mutex::new(profiles::SecretCache::default()),
                network_passwords: Mutex::new(HashMap::new()),
                history_shown: std::sync::atomic::AtomicBool::new(false),
                events,
                repaint,
                store: store.map(Mutex::new),
                clients: tokio::sync::Mutex::new(HashMap::new()),
                sandbox: tokio::sync::Mutex::new(None),
                sandbox_users,
                jobs: Mutex::new(HashMap::new()),
                schemas: Mutex::new(HashMap::new()),
                schema_gates: Mutex::new(HashMap::new()),
                walks: Mutex::new(Default::default()),
                workspace_pending: Mutex::new(None),
                workspace_written: Mutex::new(None),
                workspace_writer: tokio::sync::Mutex::new(()),
            });
            if let Some(problem) = problem {
                shared.emit(Event::Problem(problem)).await;
            }
            let (changes, change_rx) = mpsc::channel(profiles::QUEUE);
            tokio::spawn(profiles::run(shared.clone(), profiles, change_rx));
            dispatch(shared, command_rx, changes).await;
            // Every command is done (the UI is gone): whoever waits for that may stop the runtime.
            drop(finished);
        });
        (Worker { commands }, event_rx)
    }

    /// Hands a command to the worker without waiting.
    pub fn send(&self, command: impl Into<Command>) -> Result<(), WorkerGone> {
        self.commands.try_send(command.into()).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => WorkerGone::Busy,
            mpsc::error::TrySendError::Closed(_) => WorkerGone::Stopped,
        })
    }
}

/// A connection's client, with the credentials and network settings it was made for.
type KnownClient = (Credentials, crate::net::NetworkSettings, Arc<Client>);

/// What the worker's tasks share.
pub(crate) struct Shared {
    events: mpsc::Sender<Event>,
    repaint: Repaint,
    store: Option<Mutex<Store>>,
    /// One client per connection name, so that tokens are shared by its requests.
    clients: tokio::sync::Mutex<HashMap<String, KnownClient>>,
    sandbox: tokio::sync::Mutex<Option<RunningServer>>,
    sandbox_users: usize,
    jobs: Mutex<HashMap<JobId, CancellationToken>>,
    /// The workspace text waiting to be written (the newest).
    workspace_pending: Mutex<Option<String>>,
    /// Held while the workspace is written, so that writes keep their order.
    workspace_writer: tokio::sync::Mutex<()>,
    /// When the workspace was written last (writes are at most a second apart).
    workspace_written: Mutex<Option<std::time::Instant>>,
    /// The schema of each connection once read (by cache key), for what is built from it.
    schemas: Mutex<HashMap<String, LoadedSchema>>,
    /// One lock per connection's schema, held while it is loaded.
    schema_gates: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// The pages tabs move through.
    walks: queries::Walks,
    /// The database file (for the webhook listener's own connection).
    store_path: Option<std::path::PathBuf>,
    /// The webhook listener, when it runs.
    listener: tokio::sync::Mutex<Option<webhooks::ListenerHandle>>,
    /// The tunnel that makes the listener reachable from the internet, when it runs.
    tunnel: tokio::sync::Mutex<Option<webhooks::TunnelHandle>>,
    /// The attachment to a remote listener, when there is one.
    attachment: tokio::sync::Mutex<Option<webhooks::AttachmentHandle>>,
    /// Where the in-process sandbox sends its webhooks (the listener), when it runs.
    webhook_target: Mutex<Option<WebhookTarget>>,
    /// What the sandbox signs with when the listener has no Standard Webhooks secret.
    session_secret: SigningSecret,
    /// Where the inspector's secret and the profiles' secrets are kept.
    secrets: SecretStore,
    /// The profiles' secrets read so far.
    profile_secrets: Mutex<profiles::SecretCache>,
    /// The network passwords typed in the profiles window this session, by connection name.
    network_passwords: Mutex<HashMap<String, profiles::NetworkPasswords>>,
    /// The history list is on screen ([`HistoryCommand::Showing`]).
    history_shown: std::sync::atomic::AtomicBool,
}

impl Shared {
    /// Sends an event and wakes the UI. An event for a UI that is gone is dropped on purpose.
    pub(crate) async fn emit(&self, event: impl Into<Event>) {
        if self.events.send(event.into()).await.is_err() {
            tracing::debug!("the UI is gone; event dropped");
        }
        (self.repaint)();
    }

    /// Sends an event without waking the UI: it is taken at the next frame that input or another
    /// event brings (for what is not on screen).
    pub(crate) async fn emit_quietly(&self, event: impl Into<Event>) {
        if self.events.send(event.into()).await.is_err() {
            tracing::debug!("the UI is gone; event dropped");
        }
    }

    /// Runs `work` with the store on this thread (blocking: never the UI's); why not, when there is
    /// no store or it fails.
    pub(crate) fn with_store_here(
        &self,
        work: &mut dyn FnMut(&Store) -> Result<(), crate::store::StoreError>,
    ) -> Result<(), String> {
        let store = self.store.as_ref().ok_or_else(|| "there is no database this session".to_owned())?;
        let store = store.lock().unwrap_or_else(PoisonError::into_inner);
        work(&store).map_err(|e| e.to_string())
    }

    /// Whether the history list is on screen.
    pub(crate) fn history_shown(&self) -> bool {
        self.history_shown.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The client of a connection, made on first use (starting the sandbox if it is the one).
    pub(crate) async fn client(&self, connection: &Connection) -> Result<Arc<Client>, ApiError> {
        let credentials = match connection {
            Connection::Sandbox => self.sandbox_credentials().await?,
            Connection::Remote { name, credentials, .. } if credentials.client_secret.is_empty() => {
                Credentials { client_secret: self.profile_secret(name).await?, ..credentials.clone() }
            }
            Connection::Remote { credentials, .. } => credentials.clone(),
        };
        let settings = match connection {
            Connection::Sandbox => crate::net::NetworkSettings::default(),
            Connection::Remote { network, .. } => (**network).clone(),
        };
        let mut clients = self.clients.lock().await;
        if let Some((known, known_settings, client)) = clients.get(connection.name())
            && *known == credentials
            && *known_settings == settings
        {
            return Ok(client.clone());
        }
        let client = Arc::new(self.new_client(connection, credentials.clone()).await?);
        status::forward_activity(&client, connection.name(), self.events.clone(), self.repaint.clone());
        let via = client.route().status_text();
        self.emit(StatusEvent::Route { connection: connection.name().to_owned(), via }).await;
        clients.insert(connection.name().to_owned(), (credentials, settings, client.clone()));
        Ok(client)
    }

    /// A new client of `connection` with its network settings (the settings files', the
    /// profile's, the keyring's passwords), made on a blocking thread: it may read the system's
    /// proxy settings and certificate store.
    pub(crate) async fn new_client(
        &self,
        connection: &Connection,
        credentials: Credentials,
    ) -> Result<Client, ApiError> {
        let network = self.network_of(connection).await?;
        tokio::task::spawn_blocking(move || {
            Client::new(credentials, ClientOptions { network, ..ClientOptions::default() }, None)
        })
        .await
        .map_err(|e| ApiError::Config(format!("the connection could not be set up ({e}); try again")))?
    }

    /// The network settings of `connection`: none for the sandbox (loopback); for a profile the
    /// settings files', then the profile's, with the passwords of the environment or the keyring.
    async fn network_of(&self, connection: &Connection) -> Result<crate::net::Network, ApiError> {
        let Connection::Remote { name, network, .. } = connection else {
            return Ok(crate::net::Network::default());
        };
        let (name, settings, secrets) = (name.clone(), (**network).clone(), self.secrets.clone());
        let typed = self.typed_network_passwords(&name);
        tokio::task::spawn_blocking(move || {
            use crate::profiles::NetworkPassword;
            let mut network = crate::net::Network::from_files()
                .map_err(|e| ApiError::Config(e.to_string()))?
                .with_layer(crate::net::Origin::Profile(name.clone()), settings);
            // A profile being tried out is named `test:NAME`; its passwords are NAME's.
            let profile = name.strip_prefix("test:").unwrap_or(&name);
            let kept = |kind| {
                if secrets.is_available() { secrets.network_password(kind, profile).ok().flatten() } else { None }
            };
            network.proxy_password =
                network.proxy_password.take().or(typed.proxy).or_else(|| kept(NetworkPassword::Proxy));
            network.client_cert_password =
                network.client_cert_password.take().or(typed.client_cert).or_else(|| kept(NetworkPassword::ClientCert));
            Ok(network)
        })
        .await
        .map_err(|e| ApiError::Config(format!("the network settings could not be read ({e}); try again")))?
    }

    pub(crate) async fn sandbox_credentials(&self) -> Result<Credentials, ApiError> {
        let mut sandbox = self.sandbox.lock().await;
        if sandbox.is_none() {
            let config = crate::sandbox::Config { users: self.sandbox_users, ..Default::default() };
            let server = Server::start(config).await.map_err(|e| ApiError::Config(e.to_string()))?;
            crate::timing::mark("sandbox_up");
            let target = self.webhook_target.lock().unwrap_or_else(PoisonError::into_inner).clone();
            server.set_webhooks(target.into_iter().collect());
            self.emit(StatusEvent::SandboxStarted { base_url: server.base_url().to_owned() }).await;
            *sandbox = Some(server);
        }
        let server = sandbox.as_ref().ok_or_else(|| ApiError::Config("the sandbox did not start".into()))?;
        Ok(Credentials {
            base_url: crate::api::BaseUrl::parse(server.base_url())?,
            client_id: crate::sandbox::ADMIN_CLIENT.to_owned(),
            client_secret: crate::secret::Secret::new(server.client_secret()),
            scopes: crate::scopes::ScopeSet::all(),
        })
    }

    /// Runs `work` with the store, off the async threads; `None` when there is no store.
    pub(crate) async fn with_store<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Store) -> Result<T, crate::store::StoreError> + Send + 'static,
    ) -> Option<Result<T, String>> {
        self.store.as_ref()?;
        let shared = self.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let store = shared.store.as_ref()?;
            let store = store.lock().unwrap_or_else(PoisonError::into_inner);
            Some(work(&store).map_err(|e| e.to_string()))
        })
        .await;
        match joined {
            Ok(result) => result,
            Err(e) => Some(Err(format!("the database task failed ({e})"))),
        }
    }

    /// Points the in-process sandbox's webhooks at `target` (none: it sends none), now and
    /// when it starts.
    pub(crate) async fn set_webhook_target(&self, target: Option<WebhookTarget>) {
        *self.webhook_target.lock().unwrap_or_else(PoisonError::into_inner) = target.clone();
        if let Some(server) = self.sandbox.lock().await.as_ref() {
            server.set_webhooks(target.into_iter().collect());
        }
    }

    pub(crate) fn start_job(&self, job: JobId) -> CancellationToken {
        let token = CancellationToken::new();
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).insert(job, token.clone());
        token
    }

    pub(crate) fn end_job(&self, job: JobId) {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).remove(&job);
    }

    /// Cancels `job`.
    fn cancel(&self, job: JobId) {
        if let Some(token) = self.jobs.lock().unwrap_or_else(PoisonError::into_inner).remove(&job) {
            token.cancel();
        }
    }
}

async fn dispatch(
    shared: Arc<Shared>,
    mut commands: mpsc::Receiver<Command>,
    profile_changes: mpsc::Sender<profiles::Change>,
) {
    while let Some(command) = commands.recv().await {
        match command {
            Command::Query(command) => queries::handle(&shared, command),
            Command::Export(command) => exports::handle(&shared, command),
            Command::Import(command) => import::handle(&shared, command),
            Command::Chart(command) => charts::handle(&shared, command),
            Command::History(command) => history::handle(&shared, command),
            Command::Workspace(command) => workspace::handle(&shared, command).await,
            Command::Schema(command) => schema::handle(&shared, command),
            Command::Webhooks(command) => webhooks::handle(&shared, command),
            Command::Support(command) => find_user::handle(&shared, command),
            Command::Operations(command) => saved::handle(&shared, command),
            Command::Profiles(command) => profiles::handle(&shared, command, &profile_changes).await,
            Command::Schedules(command) => schedules::handle(&shared, command),
            Command::Cancel(job) => shared.cancel(job),
        }
    }
}
