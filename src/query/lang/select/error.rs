//! Why the explorer could not make the edit it was asked for.

/// An error from [`toggle_field`](super::toggle_field) or [`set_argument`](super::set_argument),
/// as one sentence that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The document has a syntax error, so an edit could land in the wrong place.
    #[error(
        "the query has a syntax error at line {line}, column {column} ({message}); correct it before editing the query from the explorer"
    )]
    Syntax {
        /// The line of the first error, from 1.
        line: usize,
        /// The column of the first error, from 1, counted in characters.
        column: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// The path is empty or one of its parts is not a GraphQL name.
    #[error("'{path}' is not a path of field names (such as users.edges.node.email)")]
    InvalidPath {
        /// The path as given, joined with `.`.
        path: String,
    },
    /// The argument name is not a GraphQL name.
    #[error("'{name}' is not an argument name (a letter or '_', then letters, digits or '_')")]
    InvalidArgumentName {
        /// The name as given.
        name: String,
    },
    /// The argument value is not one GraphQL literal.
    #[error("'{value}' is not a GraphQL value; write one such as 10, \"text\", ACTIVE, true, [1, 2] or {{ key: 1 }}")]
    InvalidValue {
        /// The value as given.
        value: String,
    },
    /// The field whose argument was to be set is not selected.
    #[error("the field {path} is not in the query; tick it before setting its arguments")]
    NotSelected {
        /// The field's path, joined with `.`.
        path: String,
    },
    /// The edits computed overlap (a bug in orgql).
    #[error("orgql could not edit the query ({detail}); edit it by hand and report the query")]
    Internal {
        /// What went wrong.
        detail: String,
    },
}
