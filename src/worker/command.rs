//! What the UI asks the worker to do, and what the worker tells the UI.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::{Activity, ApiError, Credentials, GraphQlError, TokenState};
use crate::profiles::Profile;
use crate::secret::Secret;
use crate::store::{Delivery, DeliverySummary, HistoryEntry, SavedOperation};
use crate::support::{SupportError, SupportReply, SupportRequest};
use crate::table::{CsvOptions, Row};
use crate::webhooks::replay::Replayed;
use crate::webhooks::{DeliveryFilter, Scheme};

/// Identifies one job, so that its events find their tab and it can be cancelled.
pub type JobId = u64;

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
    /// Run a query: the first page of its connection when it has one (starting a walk of its
    /// pages, numbered `job`), otherwise the document as it is.
    Run {
        /// The job (and the walk it starts).
        job: JobId,
        /// What to run.
        spec: QuerySpec,
    },
    /// Show another page of a walk started by a [`Command::Run`].
    Page {
        /// The job.
        job: JobId,
        /// The walk: the job of the run that started it.
        walk: JobId,
        /// Which page.
        step: super::Step,
    },
    /// Fetch every page of the query's connection, streaming rows as they come.
    FetchAll {
        /// The job.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
    },
    /// Find out whether an export can write `path` as it is ([`Event::ExportFileChecked`]).
    CheckExportFile {
        /// The file.
        path: PathBuf,
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
    /// Export every page of the query's connection to a CSV file or a workbook (by the file's
    /// name), or go on with its interrupted export.
    ExportAll {
        /// The job.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
        /// The file.
        path: PathBuf,
        /// BOM, raw.
        options: CsvOptions,
        /// Continue the interrupted export of the same query into `path` (see
        /// [`crate::export::resume`]).
        resume: bool,
        /// Write only the rows added, changed or removed since the last export of the query on
        /// its connection ([`crate::export::changes`]).
        changes_since_last: bool,
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
    /// Whether the history list is on screen: while it is not, a changed history reaches the UI
    /// without waking it (no frame is drawn for what nobody sees; idle CPU stays at 0).
    ShowingHistory(bool),
    /// Find the newest history entries containing this text ([`Event::HistoryFound`]).
    SearchHistory(String),
    /// Delete one history entry (then [`Event::History`]).
    DeleteHistory(i64),
    /// Delete every history entry (then [`Event::History`]).
    ClearHistory,
    /// Read the workspace kept last ([`Event::WorkspaceLoaded`]).
    LoadWorkspace,
    /// Keep this workspace (JSON) for the next start, within a second and at most once a second
    /// (the newest of those sent meanwhile): the UI sends each change and draws no frame for it.
    SaveWorkspace(String),
    /// Keep this workspace now (the app is closing).
    SaveWorkspaceNow(String),
    /// Set the kept workspace aside, for this reason (it could not be read).
    SetWorkspaceAside(String),
    /// Load the schema of a connection (from the cache unless `refresh`).
    LoadSchema {
        /// The job.
        job: JobId,
        /// Whose.
        connection: Connection,
        /// Fetch it from the service even when cached.
        refresh: bool,
    },
    /// Find the inspector's secret in the keyring (or make one and keep it there), report it, and
    /// start the listener on this port with it (a free port when taken), when there is one.
    PrepareWebhooks {
        /// The port to listen on.
        start_on: Option<u16>,
    },
    /// Start (or restart with new settings) the webhook listener; its secret is kept in the keyring.
    StartListener(ListenerSettings),
    /// Stop the webhook listener.
    StopListener,
    /// Load the summaries of every stored delivery.
    LoadDeliveries,
    /// Load one delivery whole, for its detail.
    LoadDelivery(i64),
    /// Delete every stored delivery.
    ClearDeliveries,
    /// Send a stored delivery to a URL again.
    ReplayDelivery {
        /// The job.
        job: JobId,
        /// The delivery.
        id: i64,
        /// Where to.
        url: String,
    },
    /// Write the deliveries that pass a filter to a JSONL file.
    ExportDeliveries {
        /// The job.
        job: JobId,
        /// Which.
        filter: DeliveryFilter,
        /// The file.
        path: PathBuf,
    },
    /// Find a user, list groups for the picker, or change a user (the quick find of support staff).
    Support {
        /// The job.
        job: JobId,
        /// Where.
        connection: Connection,
        /// What to ask.
        request: SupportRequest,
    },
    /// Send the saved operations ([`Event::Operations`]).
    LoadOperations,
    /// Change the saved operations ([`Event::OperationsChanged`], then [`Event::Operations`]).
    ChangeOperations(super::OperationChange),
    /// Stop a job (and forget the walk it started, if any).
    Cancel(JobId),
    /// Write a profile to the profiles file (in place of `original` when renamed) and its
    /// secret, when one was typed, to the keyring; answered by [`Event::ProfileSaved`].
    SaveProfile {
        /// The profile.
        profile: Profile,
        /// Its name before this edit, when it was saved before.
        original: Option<String>,
        /// The secret typed (none: the one kept stays).
        secret: Option<Secret>,
    },
    /// Remove a profile from the profiles file and its secret from the keyring; answered by
    /// [`Event::ProfileDeleted`].
    DeleteProfile(Profile),
}

/// How the webhook listener runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ListenerSettings {
    /// The port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// When the port is taken, take any free one instead of failing (the app's own start).
    pub any_port_if_taken: bool,
    /// The signature scheme.
    pub scheme: Scheme,
    /// The signing secret (none: deliveries are stored unchecked).
    pub secret: Option<Secret>,
    /// Answer 401 to deliveries that fail verification.
    pub reject_invalid: bool,
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
}

/// Where a page shown is in its walk: all the UI needs to number rows and offer the next and
/// previous pages (the cursors stay in the worker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePosition {
    /// The walk (the job of the run that started it).
    pub walk: JobId,
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
    /// The response as indented JSON text.
    pub raw: String,
    /// The connection's rows, when the query has one connection.
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
        /// What the rows should be read with (repeated rows, a `count` not reached), one
        /// sentence each (`Pager::walk_warnings`).
        warnings: Vec<String>,
    },
    /// Whether an export can write a file: `Ok(None)` it can, `Ok(Some(free))` it exists (and
    /// `free` is a free name beside it), or why it cannot (a folder, a missing folder).
    ExportFileChecked {
        /// The file asked about.
        path: PathBuf,
        /// The answer.
        answer: Result<Option<PathBuf>, String>,
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
        /// The export stopped and can be resumed ([`Command::ExportAll`] with `resume`).
        resumable: bool,
        /// What else to say of it: what changed since the last export, or that there was none.
        note: Option<String>,
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
    /// What a connection's requests are doing while they wait (throttled, backing off, renewing
    /// the token), as it happens; [`Activity::Settled`] when the request that reported it ended.
    Activity {
        /// The connection's name.
        connection: String,
        /// What is happening.
        activity: Activity,
    },
    /// The newest history entries.
    History(Vec<HistoryEntry>),
    /// The newest history entries containing a text.
    HistoryFound {
        /// The text searched for.
        search: String,
        /// What was found, the newest first.
        entries: Vec<HistoryEntry>,
    },
    /// The workspace kept last (JSON; none on a first start), or why it could not be read.
    WorkspaceLoaded(Result<Option<String>, String>),
    /// A schema loaded, or why it could not be (one sentence).
    SchemaLoaded {
        /// The job.
        job: JobId,
        /// The connection's name.
        connection: String,
        /// The schema.
        result: Result<super::LoadedSchema, String>,
    },
    /// The inspector's secret, and whether the keyring keeps it.
    WebhookSecret {
        /// The secret.
        secret: Secret,
        /// Whether it is in the keyring (otherwise: this session only).
        kept: bool,
    },
    /// The webhook listener listens (after a start or restart).
    ListenerStarted {
        /// Its address.
        addr: std::net::SocketAddr,
        /// Something the user should know (another port was taken, the secret was not kept).
        notice: Option<String>,
    },
    /// The webhook listener stopped, or could not start (the reason, one sentence).
    ListenerStopped(Option<String>),
    /// Delivery summaries, oldest first: the ones that just arrived (`through` none), or every
    /// stored one up to `through` — these replace the listed ones up to that id.
    Deliveries {
        /// Oldest first.
        rows: Vec<DeliverySummary>,
        /// The newest id the rows stand for, when they replace the list.
        through: Option<i64>,
    },
    /// One delivery whole, its body parsed (none: it was deleted).
    DeliveryLoaded(i64, Option<Box<LoadedDelivery>>),
    /// A replay ended.
    Replayed {
        /// The job.
        job: JobId,
        /// The receiver's answer, or why there was none.
        result: Result<Replayed, String>,
    },
    /// A JSONL export of deliveries ended.
    DeliveriesExported {
        /// The job.
        job: JobId,
        /// The file and how many deliveries, or why it failed.
        result: Result<(PathBuf, u64), String>,
    },
    /// A support request ended.
    Support {
        /// The job.
        job: JobId,
        /// The service's answer, or why there is none.
        result: Result<SupportReply, SupportError>,
    },
    /// The saved operations, by collection then name.
    Operations(Vec<SavedOperation>),
    /// What came of a change to the saved operations: a sentence (and the operation saved,
    /// renamed or copied), or why it failed.
    OperationsChanged(Result<(String, Option<SavedOperation>), String>),
    /// Something failed that belongs to no job (the sandbox, the store).
    Problem(String),
    /// The profiles of the profiles file, read at start-up, or why they could not be (one sentence).
    ProfilesLoaded(Result<Vec<Profile>, String>),
    /// A [`Command::SaveProfile`] ended: `Ok(None)` all done, `Ok(Some(notice))` saved with
    /// something the user should know, `Err` not written to the file.
    ProfileSaved {
        /// The profile's name.
        name: String,
        /// What came of it.
        result: Result<Option<String>, String>,
    },
    /// A [`Command::DeleteProfile`] ended: `Ok(None)` all done, `Ok(Some(notice))` deleted with
    /// something the user should know, `Err` not deleted from the file.
    ProfileDeleted {
        /// The profile (to be listed again when it was not deleted).
        profile: Profile,
        /// What came of it.
        result: Result<Option<String>, String>,
    },
}

/// A stored delivery whole, with its body parsed for display off the UI thread (bodies reach 1 MiB).
#[derive(Debug, Clone)]
pub struct LoadedDelivery {
    /// The delivery.
    pub delivery: Delivery,
    /// Its body, parsed.
    pub body: DeliveryBody,
}

impl LoadedDelivery {
    /// Parses the body of `delivery`.
    pub fn new(delivery: Delivery) -> Self {
        let body = DeliveryBody::of(&delivery.delivery.body);
        LoadedDelivery { delivery, body }
    }
}

/// A delivery's body as shown.
#[derive(Debug, Clone, PartialEq)]
pub enum DeliveryBody {
    /// JSON.
    Json(Value),
    /// Text that is not JSON.
    Text,
    /// Bytes that are not UTF-8 (a hex dump of the start).
    Binary(String),
}

impl DeliveryBody {
    /// Parses a body for display.
    pub fn of(bytes: &[u8]) -> DeliveryBody {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
            return DeliveryBody::Json(value);
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => DeliveryBody::Text,
            Err(_) => DeliveryBody::Binary(hex_dump(&bytes[..bytes.len().min(4096)])),
        }
    }
}

fn hex_dump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let text: String = chunk.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
            format!("{:06x}  {:<47}  {text}", i * 16, hex.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_shown_as_json_text_or_bytes() {
        assert!(matches!(DeliveryBody::of(br#"{"a":1}"#), DeliveryBody::Json(_)));
        assert!(matches!(DeliveryBody::of(b"plain words"), DeliveryBody::Text));
        match DeliveryBody::of(&[0xff, b'A', 0x00]) {
            DeliveryBody::Binary(dump) => assert_eq!(dump, format!("000000  {:<47}  .A.", "ff 41 00")),
            _ => panic!("not binary"),
        }
    }
}
