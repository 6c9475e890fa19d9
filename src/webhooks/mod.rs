//! Webhooks: the signature schemes, the local listener and the export of stored deliveries.

pub mod export;
pub mod listener;
pub mod scheme;
pub mod standard;
pub mod verify;

pub use listener::{Listener, ListenerConfig, ListenerError, RunningListener};
pub use scheme::{Encoding, ParseSchemeError, Scheme};
pub use verify::{Reason, TOLERANCE_SECS, Verification, verify};
