//! What the UI asks the worker to do, and what the worker tells the UI.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::{ApiError, Credentials, GraphQlError, TokenState};
use crate::store::HistoryEntry;
use crate::table::{CsvOptions, Row};

/// Identifies one job, so that its events find their tab and it can be cancelled.
pub type JobId = u64;

/// Where a request goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    /// The sandbox the app runs in-process (started on first use).
    Sandbox,
    /// A service reached with these credentials; `name` is the profile's.
    Remote {
        /// The profile's name.
        name: String,
        /// How to reach it.
        credentials: Credentials,
    },
}

impl Connection {
    /// The name shown for it (and kept in the history).
    pub fn name(&self) -> &str {
        match self {
            Connection::Sandbox => "Sandbox",
            Connection::Remote { name, .. } => name,
        }
    }
}

/// A query to run.
#[derive(Debug, Clone, PartialEq)]
pub struct QuerySpec {
    /// Where.
    pub connection: Connection,
    /// The document.
    pub query: String,
    /// Variables (a JSON object), already validated by the UI.
    pub variables: Option<Value>,
    /// The operation, when the document has several.
    pub operation: Option<String>,
}

/// A request of the UI.
#[derive(Debug, Clone)]
pub enum Command {
    /// Run a query: its connection's page after `cursor` when it has one connection (the first
    /// page for `None`), otherwise the document as it is.
    Run {
        /// The job.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
        /// The page to fetch.
        cursor: Option<String>,
    },
    /// Fetch every page of the query's connection, streaming rows as they come.
    FetchAll {
        /// The job.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
    },
    /// Write rows the UI holds to a CSV file.
    ExportRows {
        /// The job.
        job: JobId,
        /// Column names.
        columns: Vec<String>,
        /// The rows, shared with the grid (not copied).
        rows: Arc<Vec<Row>>,
        /// The file.
        path: PathBuf,
        /// BOM, raw.
        options: CsvOptions,
    },
    /// Export every page of the query's connection to a CSV file.
    ExportAll {
        /// The job.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
        /// The file.
        path: PathBuf,
        /// BOM, raw.
        options: CsvOptions,
    },
    /// Request a fresh token and report what it grants.
    TestConnection {
        /// The job.
        job: JobId,
        /// Where.
        connection: Connection,
    },
    /// Load the newest history entries.
    LoadHistory,
    /// Stop a job.
    Cancel(JobId),
}

/// A table of the one connection in a result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rows {
    /// Column names (paths such as `groups.name`).
    pub columns: Vec<String>,
    /// One row of cells per node.
    pub rows: Vec<Row>,
    /// The connection's `count`.
    pub total: Option<u64>,
    /// `pageInfo.hasNextPage`.
    pub has_next_page: bool,
    /// `pageInfo.endCursor`.
    pub end_cursor: Option<String>,
}

/// A finished request, prepared for display off the UI thread.
#[derive(Debug, Clone)]
pub struct QueryResult {
    /// The response's `data`, parsed.
    pub data: Option<Value>,
    /// The response's `errors`.
    pub errors: Vec<GraphQlError>,
    /// The response as indented JSON text.
    pub raw: String,
    /// The connection's rows, when the query has one connection.
    pub rows: Option<Rows>,
    /// HTTP status.
    pub status: u16,
    /// Time taken.
    pub elapsed: Duration,
    /// Response size in bytes.
    pub bytes: usize,
    /// What was changed in the query that the user should know.
    pub warnings: Vec<String>,
}

/// Something the worker reports.
#[derive(Debug, Clone)]
pub enum Event {
    /// The in-process sandbox listens at this base URL.
    SandboxStarted {
        /// Its base URL.
        base_url: String,
    },
    /// A query finished.
    Ran {
        /// The job.
        job: JobId,
        /// Its outcome.
        result: Result<QueryResult, ApiError>,
    },
    /// A page of a "fetch all" arrived.
    RowsArrived {
        /// The job.
        job: JobId,
        /// The page's rows (and columns, on the first page).
        rows: Rows,
        /// Rows so far.
        so_far: u64,
    },
    /// A "fetch all" ended.
    FetchedAll {
        /// The job.
        job: JobId,
        /// Rows in all, or why it stopped.
        result: Result<u64, ApiError>,
    },
    /// Rows written so far by an export.
    ExportProgress {
        /// The job.
        job: JobId,
        /// Rows written.
        rows: u64,
        /// Rows expected, when known.
        total: Option<u64>,
    },
    /// An export ended.
    Exported {
        /// The job.
        job: JobId,
        /// The file and its rows, or why it failed (one sentence).
        result: Result<(PathBuf, u64), String>,
    },
    /// A connection test ended.
    ConnectionTested {
        /// The job.
        job: JobId,
        /// What the new token grants, or why there is none.
        result: Result<TokenState, ApiError>,
    },
    /// The token of a connection, after a request.
    Token {
        /// The connection's name.
        connection: String,
        /// Its state.
        state: TokenState,
    },
    /// The newest history entries.
    History(Vec<HistoryEntry>),
    /// Something failed that belongs to no job (the sandbox, the store).
    Problem(String),
}
