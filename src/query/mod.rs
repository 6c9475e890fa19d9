//! The GraphQL document, UI-free, in three parts:
//!
//! - the document itself (here): parse it, tell its operations apart, find the one connection a
//!   query pages through and name its columns ([`locate`]), build a sample query from a schema;
//! - [`paging`]: rewrite a query so that it can be walked page by page ([`prepare_paging`] adds
//!   `first`, `after`, `pageInfo` while keeping the user's text, comments and formatting) and
//!   tell from the schema how its connection pages ([`detect_paging`]);
//! - [`lang`]: the editor's language services — validation against the schema, completion,
//!   highlighting, formatting, typing aids and the explorer's ticks as text edits.
//!
//! A *connection* is a field whose selection set contains `edges { node { … } }` (the Relay
//! convention of the service).

mod columns;
pub mod connection;
mod document;
mod edit;
mod error;
mod fields;
pub mod lang;
pub mod operations;
pub mod paging;
mod sample;

pub use connection::{ArgumentValue, Column, ConnectionSite, locate, value_at};
pub(crate) use document::line_column;
pub use document::{OperationKind, kind_of, root_fields};
pub use error::DocumentError;
pub use operations::{OperationInfo, RunChoice, describe_operation_changes, operations, run_choice};
pub use paging::{PAGE_SIZE_LIMIT, PagedQuery, Paging, PagingOptions, PagingStyle, detect_paging, prepare_paging};
pub use sample::sample_query;
