//! What the UI asks the worker to do and what the worker tells the UI, as wrappers of each
//! feature's own enums; the ids of jobs and walks; where a request goes; what a run returns.

use std::time::Duration;

use serde_json::Value;

use super::{
    ChartCommand, ChartEvent, ExportCommand, ExportEvent, HistoryCommand, HistoryEvent, ImportCommand, ImportEvent,
    OperationsCommand, OperationsEvent, ProfilesCommand, ProfilesEvent, QueryCommand, QueryEvent, SchedulesCommand,
    SchedulesEvent, SchemaCommand, SchemaEvent, StatusEvent, SupportCommand, SupportEvent, WebhooksCommand,
    WebhooksEvent, WorkspaceCommand, WorkspaceEvent,
};
use crate::api::{Credentials, GraphQlError};
use crate::table::Row;

/// Identifies one job, so that its events find their owner and it can be cancelled. Made only
/// by [`JobIds`], so that no two jobs share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(u64);

/// Hands out job ids (the app holds one; each id once).
#[derive(Debug, Default)]
pub struct JobIds {
    last: u64,
}

impl JobIds {
    /// A new id, never handed out before by this allocator.
    pub fn allocate(&mut self) -> JobId {
        self.last += 1;
        JobId(self.last)
    }
}

/// Identifies a walk through the pages of a query: the worker keeps its cursors under this id
/// while its tab can move to another page. A run that starts a walk gives it its own job's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WalkId(JobId);

impl WalkId {
    /// The walk that the run `job` starts.
    pub fn started_by(job: JobId) -> Self {
        WalkId(job)
    }
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    /// The sandbox the app runs in-process (started on first use).
    Sandbox,
    /// A service reached with these credentials; `name` is the profile's. An empty client
    /// secret is read by the worker (the keyring's under `name`, then `ORGQL_CLIENT_SECRET`),
    /// so that the UI never reads the keyring.
    Remote {
        /// The profile's name.
        name: String,
        /// How to reach it.
        credentials: Credentials,
        /// Its network settings (proxy, extra roots, client certificate, pinned certificate);
        /// the worker adds the settings files' and the keyring's passwords.
        network: Box<crate::net::NetworkSettings>,
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
    pub connection: Connection,
    /// The document.
    pub query: String,
    /// Variables (a JSON object), already validated by the UI.
    pub variables: Option<Value>,
    /// The operation, when the document has several.
    pub operation: Option<String>,
}

/// A request of the UI: a feature's own command, or the cancellation of a job. Each feature
/// module of the worker defines its commands and handles them (`dispatch` routes by feature).
#[derive(Debug, Clone)]
pub enum Command {
    /// Runs, pages and "Fetch all" of the query tabs ([`super::queries`]).
    Query(QueryCommand),
    /// Exports of a tab's rows or of every page ([`super::exports`]).
    Export(ExportCommand),
    /// Bulk changes from a spreadsheet ([`super::import`]).
    Import(ImportCommand),
    /// Charts of a tab's rows ([`super::charts`]).
    Chart(ChartCommand),
    /// The history of runs.
    History(HistoryCommand),
    /// The workspace kept between sessions.
    Workspace(WorkspaceCommand),
    /// A connection's schema.
    Schema(SchemaCommand),
    /// The webhook listener and inspector.
    Webhooks(WebhooksCommand),
    /// The quick find of support staff.
    Support(SupportCommand),
    /// Saved operations.
    Operations(OperationsCommand),
    /// Profiles and their secrets.
    Profiles(ProfilesCommand),
    /// Scheduled deliveries ([`super::schedules`]).
    Schedules(SchedulesCommand),
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
    /// For each column, whether it crosses a list in a node of these rows: its cells are values
    /// joined with `; ` (`groups.name`), which a chart counts one by one. Empty: none known.
    pub lists: Vec<bool>,
}

/// Where a page shown is in its walk: all the UI needs to number rows and offer the next and
/// previous pages (the cursors stay in the worker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePosition {
    /// The walk (the job of the run that started it).
    pub walk: WalkId,
    /// The page's number, from 1.
    pub number: u64,
    /// The number of its first row, from 1.
    pub first_row: u64,
    /// Whether a page comes before it.
    pub has_previous: bool,
    /// Whether a page follows it.
    pub has_next: bool,
}

/// A finished request, prepared for display off the UI thread.
#[derive(Debug, Clone)]
pub struct QueryResult {
    /// The response's `data`, parsed.
    pub data: Option<Value>,
    /// The response's `errors`.
    pub errors: Vec<GraphQlError>,
    /// The response as indented JSON text, made from `data` and `errors` when first asked for
    /// (the Raw view, a copy, a search): [`QueryResult::raw`].
    pub(crate) raw: std::sync::OnceLock<String>,
    /// The connection's rows, when the query has one connection; the tab moves them into its
    /// grid ([`QueryResult::take_rows`]), so that they exist once.
    pub rows: Option<Rows>,
    /// Where the rows are in their walk, when the connection is paged.
    pub position: Option<PagePosition>,
    /// HTTP status.
    pub status: u16,
    /// Time taken.
    pub elapsed: Duration,
    /// Response size in bytes.
    pub bytes: usize,
    /// What was changed in the query that the user should know.
    pub warnings: Vec<String>,
}

impl QueryResult {
    /// The response as indented JSON text (in the service's key order), made on first use.
    pub fn raw(&self) -> &str {
        self.raw.get_or_init(|| {
            let mut response = serde_json::Map::new();
            response.insert("data".into(), self.data.clone().unwrap_or(Value::Null));
            if !self.errors.is_empty() {
                response.insert("errors".into(), serde_json::to_value(&self.errors).unwrap_or(Value::Null));
            }
            serde_json::to_string_pretty(&response)
                .unwrap_or_else(|e| format!("(the response could not be shown: {e})"))
        })
    }

    /// The rows, taken out (the grid keeps them from then on).
    pub fn take_rows(&mut self) -> Option<Rows> {
        self.rows.take()
    }
}

/// Something the worker reports: a feature's own event, or one for the window as a whole.
/// The app routes each to the feature that owns it.
#[derive(Debug, Clone)]
pub enum Event {
    /// Of the query tabs.
    Query(QueryEvent),
    /// Of exports.
    Export(ExportEvent),
    /// Of imports.
    Import(ImportEvent),
    /// Of charts.
    Chart(ChartEvent),
    /// Of the history.
    History(HistoryEvent),
    /// Of the workspace.
    Workspace(WorkspaceEvent),
    /// Of a schema.
    Schema(SchemaEvent),
    /// Of the webhook inspector.
    Webhooks(WebhooksEvent),
    /// Of the quick find.
    Support(SupportEvent),
    /// Of saved operations.
    Operations(OperationsEvent),
    /// Of profiles.
    Profiles(ProfilesEvent),
    /// Of scheduled deliveries.
    Schedules(SchedulesEvent),
    /// Of connections, for the status bar: the sandbox, tokens, throttling.
    Status(StatusEvent),
    /// Something failed that belongs to no job (the sandbox, the store): shown above the work.
    Problem(String),
}

/// `From` a feature's command or event into the wrapper, so that `send` and `emit` take either.
macro_rules! feature_messages {
    ($($command:ident => $cvariant:ident),* ; $($event:ident => $evariant:ident),*) => {
        $(impl From<$command> for Command {
            fn from(command: $command) -> Self {
                Command::$cvariant(command)
            }
        })*
        $(impl From<$event> for Event {
            fn from(event: $event) -> Self {
                Event::$evariant(event)
            }
        })*
    };
}

feature_messages!(
    QueryCommand => Query, ExportCommand => Export, ImportCommand => Import, ChartCommand => Chart, HistoryCommand => History, WorkspaceCommand => Workspace,
    SchemaCommand => Schema, WebhooksCommand => Webhooks, SupportCommand => Support,
    OperationsCommand => Operations, ProfilesCommand => Profiles, SchedulesCommand => Schedules;
    QueryEvent => Query, ExportEvent => Export, ImportEvent => Import, ChartEvent => Chart, HistoryEvent => History, WorkspaceEvent => Workspace,
    SchemaEvent => Schema, WebhooksEvent => Webhooks, SupportEvent => Support, OperationsEvent => Operations,
    ProfilesEvent => Profiles, SchedulesEvent => Schedules, StatusEvent => Status
);
