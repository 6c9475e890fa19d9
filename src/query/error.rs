//! Why a GraphQL document cannot be used the way the caller asked.

/// An error about a GraphQL document, as one sentence that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// The text is not valid GraphQL syntax.
    #[error("the query has a syntax error at line {line}, column {column}: {message}; correct it and try again")]
    Syntax {
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1, counted in characters.
        column: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// The document defines fragments only, or nothing at all.
    #[error(
        "the document has no operation; write one such as `query {{ paginatedUsers {{ edges {{ node {{ ref name }} }} }} }}`"
    )]
    NoOperation,
    /// An operation name was given that the document does not define.
    #[error("the document has no operation named '{name}'; choose one of its operations: {available}")]
    UnknownOperation {
        /// The name asked for.
        name: String,
        /// The document's operations, listed for the message.
        available: String,
    },
    /// The document has several operations and no name was given.
    #[error("the document has {count} operations; choose one by name ({available})")]
    SeveralOperations {
        /// How many operations the document has.
        count: usize,
        /// The document's operations, listed for the message.
        available: String,
    },
    /// A fragment spread names a fragment the document does not define.
    #[error(
        "the query spreads the fragment '{name}', which the document does not define; define it or remove the spread"
    )]
    UnknownFragment {
        /// The fragment's name.
        name: String,
    },
    /// A fragment spreads itself, directly or through other fragments.
    #[error("the fragment '{name}' spreads itself (directly or through other fragments); break the cycle")]
    FragmentCycle {
        /// A fragment on the cycle.
        name: String,
    },
    /// The operation selects no connection.
    #[error(
        "the query has no connection (a field with `edges {{ node {{ … }} }}`); select one, for example `paginatedUsers {{ edges {{ node {{ ref name }} }} }}`"
    )]
    NoConnection,
    /// The operation selects two or more connections side by side.
    #[error("the query has {} connections ({}); export one at a time", .paths.len(), .paths.join(", "))]
    SeveralConnections {
        /// Each connection's path of response keys, joined with `.`.
        paths: Vec<String>,
    },
    /// Only a query can be walked page by page (a mutation would run again on every page).
    #[error("the operation is a {kind}; only a query can be walked page by page, so write it as a query")]
    NotAQuery {
        /// `mutation` or `subscription`.
        kind: &'static str,
    },
    /// The paging rewrite produced a document that does not check out (a bug in orgql).
    #[error("orgql could not rewrite the query for paging ({detail}); run it without paging and report the query")]
    Rewrite {
        /// What went wrong.
        detail: String,
    },
}
