//! The tunnel that makes the listener reachable from the internet: the programs found on PATH,
//! its start for the listener's port and its stop.

use std::sync::Arc;

use super::running::TunnelHandle;
use super::{TunnelProgram, WebhooksEvent};
use crate::webhooks::tunnel::TunnelKind;
use crate::worker::Shared;

pub(super) async fn find_tunnels(shared: Arc<Shared>) {
    let found = tokio::task::spawn_blocking(crate::webhooks::tunnel::available).await.unwrap_or_default();
    let programs = found.into_iter().map(|(kind, path)| TunnelProgram { kind, found: path.is_some() }).collect();
    shared.emit(WebhooksEvent::Tunnels(programs)).await;
}

/// Starts `kind` for the listener's port, stopping a tunnel running first.
pub(super) async fn start_tunnel(shared: Arc<Shared>, kind: TunnelKind) {
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

pub(super) async fn stop_tunnel(shared: Arc<Shared>) {
    let old = shared.tunnel.lock().await.take();
    if let Some(old) = old {
        old.forward.abort();
        old.running.stop().await;
    }
    shared.emit(WebhooksEvent::TunnelStopped(None)).await;
}
