//! Webhooks: the signature schemes (and, later, the local listener and delivery records).

pub mod scheme;
pub mod standard;
pub mod verify;

pub use scheme::{Encoding, ParseSchemeError, Scheme};
pub use verify::{Reason, TOLERANCE_SECS, Verification, verify};
