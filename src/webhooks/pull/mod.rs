//! Pulling a remote's webhook deliveries into a local store: from a remote listener's read API
//! (`super::share`) or a gosmee relay's event stream. The parts: `client.rs` (the remote and its
//! stream), `local.rs` (the store written to, the local signature check, storing one event),
//! `catch_up.rs` (`orgql webhooks pull`: until caught up) and `attach.rs` (the long-running
//! attachment a worker keeps; no egui here).

mod attach;
mod catch_up;
mod client;
mod local;

pub use attach::{AttachEvent, MAX_BACKOFF, attach};
pub use catch_up::{pull, when};
pub use client::{MAX_READ, PullError, Remote, RemoteEvent, RemoteKind, RemoteStream};
pub use local::{LocalCheck, PullReport};
