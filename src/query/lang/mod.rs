//! The editor's language services (no egui, as helix keeps them in its core): the document
//! checked against the connection's schema ([`validate`]), completion at the cursor
//! ([`complete`]), highlighting, Prettify ([`format`]), what typing a character, a new line or a
//! comment toggle does ([`typing`]), and the explorer's ticks and arguments as edits of the text
//! ([`select`]). Each takes text (and a schema) and returns what to show or the edits to make.

pub mod complete;
pub mod format;
pub mod highlight;
mod schema_info;
pub mod select;
#[cfg(test)]
mod test_schema;
mod text_edit;
mod tokens;
pub mod typing;
pub mod validate;

pub use complete::{Completion, CompletionKind, Completions, complete};
pub use format::prettify;
pub use select::{
    EditError, FieldUse, SelectedField, SelectionState, Target, argument_values, selected_paths, set_argument,
    toggle_field,
};
pub use text_edit::TextEdit;
pub use validate::{DeprecatedKind, DeprecatedUse, Problem, Severity, deprecated_uses, validate};
