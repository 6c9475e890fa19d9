//! The webhook inspector's jobs, shaped as its window (`src/ui/webhooks/`): what it asks and
//! what comes back, and `handle`, which starts each job from its file — the listener (with the
//! in-process sandbox's webhooks pointed at it, and a test delivery) in [`listener`], the
//! deliveries as the list shows them and their JSONL export in [`deliveries`], replays in
//! [`replay`], the tunnel in [`tunnel`], the attachment to a remote listener in [`remote`], and
//! what keeps running between commands in [`running`].

mod deliveries;
mod listener;
mod remote;
mod replay;
mod running;
mod tunnel;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use super::{JobId, Shared};
use crate::secret::Secret;
use crate::store::DeliverySummary;
use crate::webhooks::pull::AttachEvent;
use crate::webhooks::replay::Replayed;
use crate::webhooks::testsend::TestOutcome;
use crate::webhooks::tunnel::{TunnelEvent, TunnelKind};
use crate::webhooks::{DeliveryFilter, Scheme};

pub use deliveries::{DeliveryBody, LoadedDelivery};

pub use listener::ListenerSettings;
pub(crate) use remote::AttachmentHandle;
pub(crate) use running::{ListenerHandle, TunnelHandle};

use deliveries::{clear_deliveries, export, load_deliveries, load_delivery};
use listener::{prepare, send_test, start_listener, stop_listener};
use remote::{attach, detach};
use replay::replay;
use tunnel::{find_tunnels, start_tunnel, stop_tunnel};

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
