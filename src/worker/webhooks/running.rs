//! What the webhook inspector keeps running between commands: the listener and the tunnel to it,
//! each with the task that forwards its events to the UI (the listener's stop takes the tunnel
//! with it; the tunnel is started for the listener's port).

use tokio::task::JoinHandle;

use crate::webhooks::RunningListener;
use crate::webhooks::tunnel::RunningTunnel;

/// A running listener and the task that forwards its deliveries to the UI.
pub(crate) struct ListenerHandle {
    pub(super) running: RunningListener,
    pub(super) forward: JoinHandle<()>,
}

impl ListenerHandle {
    pub(super) async fn stop(self) {
        self.forward.abort();
        self.running.stop().await;
    }
}

/// A running tunnel and the task that forwards its events to the UI.
pub(crate) struct TunnelHandle {
    pub(super) running: RunningTunnel,
    pub(super) forward: JoinHandle<()>,
}
