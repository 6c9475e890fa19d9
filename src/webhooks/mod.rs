//! Webhooks: the signature schemes, the local listener and the export of stored deliveries.

pub mod curl;
pub mod export;
pub mod filter;
pub mod listener;
pub mod pull;
pub mod replay;
pub mod scheme;
pub mod share;
pub mod sse;
pub mod standard;
pub mod testsend;
pub mod tunnel;
pub mod verify;
pub mod wire;

pub use filter::{DeliveryFilter, VerificationFilter};
pub use listener::{Listener, ListenerConfig, ListenerError, Retention, RunningListener};
pub use scheme::{Encoding, ParseSchemeError, Scheme};
pub use verify::{Reason, TOLERANCE_SECS, Verification, verify};

/// Headers that describe the connection a delivery came on, not the delivery: a replay (or a
/// cURL command) sets its own.
pub(crate) fn is_connection_header(name: &str) -> bool {
    const CONNECTION_HEADERS: [&str; 5] = ["host", "content-length", "connection", "transfer-encoding", "keep-alive"];
    CONNECTION_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// An HMAC-SHA256 keyed with `key`. HMAC takes keys of any length, so this cannot fail.
pub(crate) fn hmac_sha256(key: &[u8]) -> hmac::Hmac<sha2::Sha256> {
    <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(key).expect("HMAC takes keys of any length")
}
