//! Webhooks: the signature schemes (and, later, the local listener and delivery records).

pub mod standard;
