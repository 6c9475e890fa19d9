//! Runs and walks: a query runs page by page as its connection's schema says (or as one
//! request), and the pages a tab moves through belong to one [`Walk`] kept here — one pager
//! and the cursors of the pages shown — so that the UI holds no cursor and does no page
//! arithmetic: it asks for the next or the previous page of a walk and shows what comes back.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError};

use tokio_util::sync::CancellationToken;

use super::{JobId, PagePosition, QueryResult, QuerySpec, Rows, Shared, WalkId};
use crate::api::{ApiError, Client, GraphQlRequest, Page, Pager};
use crate::query::{ConnectionSite, Paging, PagingOptions, detect_paging, prepare_paging};
use crate::store::{NewRun, RunStatus, operation_name_of};
use crate::table::{Row, cells};

/// What the query tabs ask: a run, another page of its walk, every page.
#[derive(Debug, Clone)]
pub enum QueryCommand {
    /// Run a query: the first page of its connection when it has one (starting the walk
    /// [`WalkId::started_by`] the job), otherwise the document as it is.
    Run {
        /// Also names the walk it starts.
        job: JobId,
        /// What to run.
        spec: QuerySpec,
    },
    /// Show another page of a walk.
    Page {
        /// This page's request.
        job: JobId,
        /// Whose page.
        walk: WalkId,
        /// Which page.
        step: Step,
    },
    /// Fetch every page of the query's connection, streaming rows as they come.
    FetchAll {
        /// The fetch (its events carry it).
        job: JobId,
        /// What to run.
        spec: QuerySpec,
    },
    /// Forget a walk's cursors (its tab ran again, or closed).
    EndWalk(WalkId),
}

/// What comes back to the query tabs.
#[derive(Debug, Clone)]
pub enum QueryEvent {
    /// A run or a page ended.
    Ran {
        /// The run's or the page's job.
        job: JobId,
        /// Its outcome.
        result: Result<QueryResult, ApiError>,
    },
    /// A page of a "fetch all" arrived.
    RowsArrived {
        /// The fetch.
        job: JobId,
        /// The page's rows (and columns, on the first page).
        rows: Rows,
        /// Rows so far.
        so_far: u64,
    },
    /// A "fetch all" ended.
    FetchedAll {
        /// The fetch.
        job: JobId,
        /// Rows in all, or why it stopped.
        result: Result<u64, ApiError>,
        /// What the rows should be read with (repeated rows, a `count` not reached), one
        /// sentence each (`Pager::walk_warnings`).
        warnings: Vec<String>,
    },
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: QueryCommand) {
    match command {
        QueryCommand::Run { job, spec } => {
            let cancel = shared.start_job(job);
            tokio::spawn(run(shared.clone(), job, spec, cancel));
        }
        QueryCommand::Page { job, walk, step } => {
            let cancel = shared.start_job(job);
            tokio::spawn(page(shared.clone(), job, walk, step, cancel));
        }
        QueryCommand::FetchAll { job, spec } => {
            let cancel = shared.start_job(job);
            tokio::spawn(fetch_all(shared.clone(), job, spec, cancel));
        }
        QueryCommand::EndWalk(walk) => shared.end_walk(walk),
    }
}

/// How many walks are kept (the oldest is forgotten first; a tab whose walk is gone says so
/// when it asks for a page).
const WALKS_KEPT: usize = 64;

/// The pages a tab moves through: one pager, and where each page shown so far started.
pub(super) struct Walk {
    pager: Pager,
    /// The cursor each page up to the one shown started after (the first page's is `None`).
    starts: Vec<Option<String>>,
    /// The rows of a full page (every page but the last), to number the rows of later pages.
    page_size: u64,
}

/// The walks the tabs move through.
pub(super) type Walks = std::sync::Mutex<BTreeMap<WalkId, Arc<tokio::sync::Mutex<Walk>>>>;

/// How a query is run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Plan {
    /// Page by page, as the schema says; with a sentence when the schema could not be read.
    Pages {
        /// The connection's paging.
        paging: Paging,
        /// Why the paging is the query text's guess, when it is.
        warning: Option<String>,
    },
    /// As one request: not a query with one connection, or (with a reason) a connection the
    /// schema gives no way to page.
    Single {
        /// Why a connection is shown one page only.
        reason: Option<String>,
    },
}

/// How `spec` is run on its connection.
async fn plan(shared: &Arc<Shared>, spec: &QuerySpec, cancel: &CancellationToken) -> Result<Plan, ApiError> {
    // Not a query with one connection: run as written (the text alone says so).
    if prepare_paging(&spec.query, spec.operation.as_deref(), PagingOptions::default()).is_err() {
        return Ok(Plan::Single { reason: None });
    }
    match shared.schema(&spec.connection, false, cancel).await {
        Ok(loaded) => Ok(match detect_paging(loaded.model.schema(), &spec.query, spec.operation.as_deref()) {
            Ok(paging) => Plan::Pages { paging, warning: None },
            Err(reason) => Plan::Single { reason: Some(reason) },
        }),
        // What stops introspection (no connection, a refused client) stops the request too.
        Err(error) if !crate::api::pages::introspection_refused(&error) => Err(error),
        Err(error) => Ok(Plan::Pages {
            paging: Paging::from_text(&spec.query, spec.operation.as_deref()),
            warning: Some(format!(
                "the schema of {} could not be read ({error}); paging as the query's own text shows",
                spec.connection.name()
            )),
        }),
    }
}

/// A pager of `spec`'s connection from its first page, paged as its schema says; with the
/// warning of a paging that could only be guessed. For "Fetch all" and exports.
pub(super) async fn pager(
    shared: &Arc<Shared>,
    client: Arc<Client>,
    spec: &QuerySpec,
    cancel: &CancellationToken,
) -> Result<Pager, ApiError> {
    let (paging, warning) = match plan(shared, spec, cancel).await? {
        Plan::Pages { paging, warning } => (paging, warning),
        Plan::Single { reason: Some(reason) } => return Err(ApiError::Document(reason)),
        Plan::Single { reason: None } => {
            return Err(ApiError::Document(
                "this document has no connection to walk (a query with one edges { node { … } } selection)".into(),
            ));
        }
    };
    paged(client, spec, paging, warning)
}

fn paged(client: Arc<Client>, spec: &QuerySpec, paging: Paging, warning: Option<String>) -> Result<Pager, ApiError> {
    let options = PagingOptions { ensure_count: true, paging: Some(paging) };
    let mut pager = Pager::new(client, &spec.query, spec.variables.clone(), spec.operation.as_deref(), options)?;
    if let Some(warning) = warning {
        pager.add_warning(warning);
    }
    Ok(pager)
}

fn rows_of(site: &ConnectionSite, page: &Page, with_columns: bool) -> Rows {
    let mut rows = Vec::new();
    let mut lists = vec![false; site.columns.len()];
    for node in site.nodes(&page.data) {
        rows.push(Row::new(cells(node, &site.columns)));
        for (list, column) in lists.iter_mut().zip(&site.columns) {
            *list = *list || crate::table::holds_list(node, column);
        }
    }
    Rows {
        columns: if with_columns { site.columns.iter().map(|c| c.name.clone()).collect() } else { Vec::new() },
        rows,
        total: site.count(&page.data),
        lists,
    }
}

/// Runs a query: the first page of its connection (starting the walk of `job`), or the document
/// as it is; recorded in the history.
async fn run(shared: Arc<Shared>, job: JobId, spec: QuerySpec, cancel: CancellationToken) {
    let started = std::time::Instant::now();
    let result = first_page(&shared, job, &spec, &cancel).await;
    shared.end_job(job);
    // The rows first, the history after: its write (a committed SQLite transaction, tens of
    // milliseconds on a busy disk) must not delay the frame that shows them.
    let outcome = match &result {
        Ok(r) => match &r.rows {
            Some(rows) => format!("{} · {} rows", r.status, rows.rows.len()),
            None if r.errors.is_empty() => format!("{}", r.status),
            None => format!("{} · {} errors", r.status, r.errors.len()),
        },
        Err(e) => e.to_string(),
    };
    let (status, rows, duration) = match &result {
        Ok(r) if r.errors.is_empty() => (RunStatus::Ok, r.rows.as_ref().map(|rows| rows.rows.len() as u64), r.elapsed),
        Ok(r) => (RunStatus::Errors, r.rows.as_ref().map(|rows| rows.rows.len() as u64), r.elapsed),
        Err(_) => (RunStatus::Failed, None, started.elapsed()),
    };
    let operation = spec.operation.clone().or_else(|| operation_name_of(&spec.query)).unwrap_or_default();
    let variables = spec.variables.as_ref().map(|v| v.to_string()).unwrap_or_default();
    let (profile, query) = (spec.connection.name().to_owned(), spec.query.clone());
    // The rows go first: the history's write must not hold them back.
    shared.emit(QueryEvent::Ran { job, result }).await;
    let recorded = shared
        .with_store(move |s| {
            let run = NewRun {
                profile: &profile,
                query: &query,
                variables: &variables,
                outcome: &outcome,
                operation: &operation,
                status,
                rows,
                duration: Some(duration),
            };
            s.add_run(&run)
        })
        .await;
    if let Some(Err(e)) = recorded {
        shared.emit(super::Event::Problem(e)).await;
    }
    super::status::report_token(&shared, &spec.connection).await;
    super::history::load(shared).await;
}

async fn first_page(
    shared: &Arc<Shared>,
    job: JobId,
    spec: &QuerySpec,
    cancel: &CancellationToken,
) -> Result<QueryResult, ApiError> {
    let client = shared.client(&spec.connection).await?;
    let started = std::time::Instant::now();
    let single_page_reason = match plan(shared, spec, cancel).await? {
        Plan::Single { reason } => reason,
        Plan::Pages { paging, warning } => {
            let walk = Walk { pager: paged(client, spec, paging, warning)?, starts: Vec::new(), page_size: 0 };
            let walk = Arc::new(tokio::sync::Mutex::new(walk));
            let id = WalkId::started_by(job);
            let result = step(id, &mut *walk.lock().await, Step::Next, started, cancel).await;
            if matches!(&result, Ok(shown) if shown.position.is_some()) {
                shared.keep_walk(id, walk);
            }
            return result;
        }
    };
    let request = GraphQlRequest {
        query: spec.query.clone(),
        variables: spec.variables.clone(),
        operation_name: spec.operation.clone(),
    };
    let exchange = client.execute(&request, cancel).await?;
    // A connection that cannot be paged still shows its one page as rows.
    let rows = match (&single_page_reason, &exchange.response.data) {
        (Some(_), Some(data)) => crate::query::locate(&spec.query, spec.operation.as_deref()).ok().map(|site| {
            let page = Page { data: data.clone(), ..Page::default() };
            rows_of(&site, &page, true)
        }),
        _ => None,
    };
    Ok(QueryResult {
        raw: Default::default(),
        data: exchange.response.data,
        errors: exchange.response.errors,
        rows,
        position: None,
        status: exchange.status,
        elapsed: exchange.elapsed,
        bytes: exchange.bytes,
        warnings: single_page_reason.into_iter().collect(),
    })
}

/// Which page of a walk to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The one after the page shown.
    Next,
    /// The one before it.
    Previous,
}

/// Shows another page of walk `walk` (as job `job`).
async fn page(shared: Arc<Shared>, job: JobId, walk: WalkId, step_to: Step, cancel: CancellationToken) {
    let started = std::time::Instant::now();
    let known = shared.walks.lock().unwrap_or_else(PoisonError::into_inner).get(&walk).cloned();
    let result = match known {
        Some(known) => step(walk, &mut *known.lock().await, step_to, started, &cancel).await,
        None => Err(ApiError::Document("the pages of this result are no longer known; run the query again".into())),
    };
    shared.end_job(job);
    shared.emit(QueryEvent::Ran { job, result }).await;
}

/// Fetches the page `step_to` of `walk` (known as `id`) and moves the walk there; a failed
/// page leaves the walk where it was.
async fn step(
    id: WalkId,
    walk: &mut Walk,
    step_to: Step,
    started: std::time::Instant,
    cancel: &CancellationToken,
) -> Result<QueryResult, ApiError> {
    let mut starts = walk.starts.clone();
    match step_to {
        // The pager stands after the page shown.
        Step::Next => starts.push(walk.pager.cursor().map(str::to_owned)),
        Step::Previous => {
            if starts.len() < 2 {
                return Err(ApiError::Document("this is the first page".into()));
            }
            starts.pop();
        }
    }
    let start = starts.last().cloned().flatten();
    let before = walk.pager.cursor().map(str::to_owned);
    walk.pager.seek(start);
    let warnings = walk.pager.warnings().to_vec();
    let fetched = walk.pager.next_page(cancel).await;
    let page = match fetched {
        Ok(Some(page)) => page,
        other => {
            // The walk stays on the page shown.
            walk.pager.seek(before);
            return match other {
                Ok(_) => Err(ApiError::BadResponse("no page came back".into())),
                // A page with GraphQL errors is shown as a response with errors, not as a failure.
                Err(ApiError::GraphQl { errors, data }) => Ok(QueryResult {
                    raw: Default::default(),
                    rows: None,
                    position: None,
                    data,
                    errors,
                    // The page's HTTP details stay inside the pager when it reports errors: the
                    // status was 200 (GraphQL errors come with 200), the size is not known.
                    status: 200,
                    elapsed: started.elapsed(),
                    bytes: 0,
                    warnings,
                }),
                Err(e) => Err(e),
            };
        }
    };
    let rows = rows_of(walk.pager.site(), &page, true);
    if page.has_next && starts.len() == 1 {
        walk.page_size = rows.rows.len() as u64;
    }
    walk.starts = starts;
    let number = walk.starts.len() as u64;
    let position = PagePosition {
        walk: id,
        number,
        first_row: 1 + walk.page_size * (number - 1),
        has_previous: number > 1,
        has_next: page.has_next,
    };
    Ok(QueryResult {
        raw: Default::default(),
        rows: Some(rows),
        position: Some(position),
        status: page.status,
        elapsed: page.elapsed,
        bytes: page.bytes,
        data: Some(page.data),
        errors: Vec::new(),
        warnings,
    })
}

impl Shared {
    /// Keeps `walk` under `id`, forgetting the oldest beyond [`WALKS_KEPT`].
    fn keep_walk(&self, id: WalkId, walk: Arc<tokio::sync::Mutex<Walk>>) {
        let mut walks = self.walks.lock().unwrap_or_else(PoisonError::into_inner);
        walks.insert(id, walk);
        while walks.len() > WALKS_KEPT {
            walks.pop_first();
        }
    }

    /// Forgets walk `id` (its tab ran again, or closed).
    fn end_walk(&self, id: WalkId) {
        self.walks.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }
}

/// Fetches every page, sending each page's rows as it arrives; ends with the paging guard's
/// warnings (rows that repeat, a `count` not reached), however the walk ended.
async fn fetch_all(shared: Arc<Shared>, job: JobId, spec: QuerySpec, cancel: CancellationToken) {
    let mut warnings = Vec::new();
    let result = async {
        let client = shared.client(&spec.connection).await?;
        let mut pager = pager(&shared, client, &spec, &cancel).await?;
        let mut so_far = 0;
        let walked = async {
            while let Some(page) = pager.next_page(&cancel).await? {
                let rows = rows_of(pager.site(), &page, page.number == 1);
                so_far += rows.rows.len() as u64;
                shared.emit(QueryEvent::RowsArrived { job, rows, so_far }).await;
            }
            Ok::<_, ApiError>(())
        }
        .await;
        warnings = pager.walk_warnings();
        walked.map(|()| so_far)
    }
    .await;
    shared.end_job(job);
    shared.emit(QueryEvent::FetchedAll { job, result, warnings }).await;
    super::status::report_token(&shared, &spec.connection).await;
}
