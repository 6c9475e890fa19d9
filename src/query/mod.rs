//! The GraphQL document: parse it, find the one connection a query pages through, and rewrite
//! the query so that it can be walked page by page.
//!
//! A *connection* is a field whose selection set contains `edges { node { … } }` (the Relay
//! convention of the service). [`locate`] finds it and names its columns; [`prepare_paging`]
//! adds what walking every page needs (`first`, `after`, `pageInfo`) while keeping the user's
//! text, comments and formatting.

mod columns;
pub mod complete;
pub mod connection;
mod document;
mod edit;
mod error;
mod fields;
pub mod format;
pub mod highlight;
pub mod operations;
mod paging;
mod rewrite;
mod sample;
mod schema_info;
pub mod select;
#[cfg(test)]
mod test_schema;
mod text_edit;
mod tokens;
pub mod typing;
pub mod validate;

pub use complete::{Completion, CompletionKind, Completions, complete};
pub use connection::{ArgumentValue, Column, ConnectionSite, locate, value_at};
pub use document::{OperationKind, kind_of};
pub use error::DocumentError;
pub use format::prettify;
pub use operations::{OperationInfo, RunChoice, describe_operation_changes, operations, run_choice};
pub use paging::{PAGE_SIZE_LIMIT, PagedQuery, Paging, PagingOptions, PagingStyle, detect_paging, prepare_paging};
pub use sample::sample_query;
pub use select::{
    EditError, FieldUse, SelectedField, SelectionState, Target, argument_values, selected_paths, set_argument,
    toggle_field,
};
pub use text_edit::TextEdit;
pub use validate::{Problem, Severity, validate};
