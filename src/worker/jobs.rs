//! The jobs: each runs as its own task, ends by sending its result, and stops when cancelled.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::paging::{self, Plan};
use super::{Connection, Event, JobId, QueryResult, QuerySpec, Repaint, Rows, Shared};
use crate::api::{ApiError, Client, GraphQlRequest, Page, Pager, TokenState};
use crate::query::{ConnectionSite, Paging, PagingOptions};
use crate::store::{NewRun, RunStatus, operation_name_of};
use crate::table::{CsvFile, CsvOptions, Row, cells};

/// How many history entries the UI lists.
pub(super) const HISTORY_SHOWN: usize = 200;

fn rows_of(site: &ConnectionSite, page: &Page, with_columns: bool) -> Rows {
    Rows {
        columns: if with_columns { site.columns.iter().map(|c| c.name.clone()).collect() } else { Vec::new() },
        rows: site.nodes(&page.data).map(|node| Row::new(cells(node, &site.columns))).collect(),
        total: site.count(&page.data),
        has_next_page: page.has_next,
        end_cursor: page.next_cursor.clone(),
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("(the response could not be shown: {e})"))
}

/// A pager of `spec`'s connection, paged as its schema says; with the warning of a paging that
/// could only be guessed.
async fn pager(
    shared: &Arc<Shared>,
    client: Arc<Client>,
    spec: &QuerySpec,
    cancel: &CancellationToken,
) -> Result<Pager, ApiError> {
    let (paging, warning) = paging::plan(shared, spec, cancel).await?.into_paging()?;
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

/// Runs a query: one page of its connection, or the document as it is.
pub(super) async fn run(
    shared: Arc<Shared>,
    job: JobId,
    spec: QuerySpec,
    cursor: Option<String>,
    cancel: CancellationToken,
) {
    let started = std::time::Instant::now();
    let result = run_inner(&shared, &spec, cursor, &cancel).await;
    shared.end_job(job);
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
    let variables = spec.variables.as_ref().map(|v| v.to_string()).unwrap_or_default();
    let operation = spec.operation.clone().or_else(|| operation_name_of(&spec.query)).unwrap_or_default();
    let (profile, query) = (spec.connection.name().to_owned(), spec.query.clone());
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
        shared.emit(Event::Problem(e)).await;
    }
    shared.emit(Event::Ran { job, result }).await;
    report_token(&shared, &spec.connection).await;
    load_history(shared).await;
}

async fn run_inner(
    shared: &Arc<Shared>,
    spec: &QuerySpec,
    cursor: Option<String>,
    cancel: &CancellationToken,
) -> Result<QueryResult, ApiError> {
    let client = shared.client(&spec.connection).await?;
    let started = std::time::Instant::now();
    let single_page_reason = match paging::plan(shared, spec, cancel).await? {
        Plan::Single { reason } => reason,
        Plan::Pages { paging, warning } => {
            let mut pager = paged(client, spec, paging, warning)?;
            pager.seek(cursor);
            let warnings = pager.warnings().to_vec();
            return page_result(&mut pager, warnings, started, cancel).await;
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
        raw: pretty(&exchange.response),
        data: exchange.response.data,
        errors: exchange.response.errors,
        rows,
        status: exchange.status,
        elapsed: exchange.elapsed,
        bytes: exchange.bytes,
        warnings: single_page_reason.into_iter().collect(),
    })
}

/// One page of a paged query as the result of a run.
async fn page_result(
    pager: &mut Pager,
    warnings: Vec<String>,
    started: std::time::Instant,
    cancel: &CancellationToken,
) -> Result<QueryResult, ApiError> {
    match pager.next_page(cancel).await {
        Ok(Some(page)) => Ok(QueryResult {
            rows: Some(rows_of(pager.site(), &page, true)),
            raw: pretty(&serde_json::json!({ "data": page.data })),
            status: page.status,
            elapsed: page.elapsed,
            bytes: page.bytes,
            data: Some(page.data),
            errors: Vec::new(),
            warnings,
        }),
        Ok(None) => Err(ApiError::BadResponse("no page came back".into())),
        // A page with GraphQL errors is shown as a response with errors, not as a failure.
        Err(ApiError::GraphQl { errors, data }) => Ok(QueryResult {
            raw: pretty(&serde_json::json!({ "data": data, "errors": errors })),
            rows: None,
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
    }
}

pub(super) async fn report_token(shared: &Shared, connection: &Connection) {
    if let Ok(client) = shared.client(connection).await {
        let state = client.tokens().state().await;
        shared.emit(Event::Token { connection: connection.name().to_owned(), state }).await;
    }
}

/// Forwards what `client`'s requests are doing to the UI as [`Event::Activity`], until the client
/// is dropped (replaced by one with other credentials) or the UI is gone. The client never waits
/// for this: a UI that falls behind skips the oldest activities.
pub(super) fn forward_activity(
    client: &Client,
    connection: &str,
    events: tokio::sync::mpsc::Sender<Event>,
    repaint: Repaint,
) {
    use tokio::sync::broadcast::error::RecvError;
    let mut activity = client.activity();
    let connection = connection.to_owned();
    tokio::spawn(async move {
        loop {
            match activity.recv().await {
                Ok(activity) => {
                    if events.send(Event::Activity { connection: connection.clone(), activity }).await.is_err() {
                        tracing::debug!("the UI is gone; activity no longer forwarded");
                        break;
                    }
                    repaint();
                }
                Err(RecvError::Lagged(skipped)) => tracing::debug!("{skipped} activities not shown"),
                Err(RecvError::Closed) => break,
            }
        }
    });
}

/// Fetches every page, sending each page's rows as it arrives.
pub(super) async fn fetch_all(shared: Arc<Shared>, job: JobId, spec: QuerySpec, cancel: CancellationToken) {
    let result = async {
        let client = shared.client(&spec.connection).await?;
        let mut pager = pager(&shared, client, &spec, &cancel).await?;
        let mut so_far = 0;
        while let Some(page) = pager.next_page(&cancel).await? {
            let rows = rows_of(pager.site(), &page, page.number == 1);
            so_far += rows.rows.len() as u64;
            shared.emit(Event::RowsArrived { job, rows, so_far }).await;
        }
        Ok(so_far)
    }
    .await;
    shared.end_job(job);
    shared.emit(Event::FetchedAll { job, result }).await;
    report_token(&shared, &spec.connection).await;
}

/// Writes rows the UI holds to a CSV file, off the UI thread.
pub(super) async fn export_rows(
    shared: Arc<Shared>,
    job: JobId,
    columns: Vec<String>,
    rows: Arc<Vec<Row>>,
    path: PathBuf,
    options: CsvOptions,
) {
    let target = path.clone();
    let written = tokio::task::spawn_blocking(move || {
        let columns: Vec<crate::query::Column> =
            columns.into_iter().map(|name| crate::query::Column { keys: vec![name.clone()], name }).collect();
        let mut file = CsvFile::create(&target, &columns, options).map_err(|e| e.to_string())?;
        for row in rows.iter() {
            if let Err(e) = file.writer().write_cells(row.cells()) {
                let partial = file.keep_partial();
                return Err(format!("{e}; {}", partial.describe(&target)));
            }
        }
        file.commit().map_err(|e| e.to_string())
    })
    .await
    .unwrap_or_else(|e| Err(format!("the export task failed ({e})")));
    shared.emit(Event::Exported { job, result: written.map(|rows| (path, rows)) }).await;
}

/// Exports every page to a CSV file: the same code as `orgql export`.
pub(super) async fn export_all(
    shared: Arc<Shared>,
    job: JobId,
    spec: QuerySpec,
    path: PathBuf,
    options: CsvOptions,
    cancel: CancellationToken,
) {
    let result = async {
        let client = shared.client(&spec.connection).await.map_err(|e| e.to_string())?;
        let mut pager = pager(&shared, client, &spec, &cancel).await.map_err(|e| e.to_string())?;
        let (progress_tx, mut progress_rx) = tokio::sync::watch::channel((0u64, None::<u64>));
        let reporter = {
            let shared = shared.clone();
            tokio::spawn(async move {
                while progress_rx.changed().await.is_ok() {
                    let (rows, total) = *progress_rx.borrow_and_update();
                    shared.emit(Event::ExportProgress { job, rows, total }).await;
                }
            })
        };
        let exported = crate::export::export_all(&mut pager, &path, options, &cancel, |p| {
            progress_tx.send_replace((p.rows, p.total));
        })
        .await;
        drop(progress_tx);
        if let Err(e) = reporter.await {
            tracing::debug!("the progress reporter ended abnormally: {e}");
        }
        exported.map(|rows| (path.clone(), rows)).map_err(|e| e.to_string())
    }
    .await;
    shared.end_job(job);
    shared.emit(Event::Exported { job, result }).await;
}

/// Requests a fresh token (not the cached one) and reports what it grants.
pub(super) async fn test_connection(shared: Arc<Shared>, job: JobId, connection: Connection) {
    let result = async {
        let fresh = Client::new(client_credentials(&shared, &connection).await?, Default::default(), None)?;
        let token = fresh.tokens().get().await?;
        Ok(TokenState::Valid { remaining: token.remaining(), scopes: token.scopes })
    }
    .await;
    shared.emit(Event::ConnectionTested { job, result }).await;
}

async fn client_credentials(shared: &Shared, connection: &Connection) -> Result<crate::api::Credentials, ApiError> {
    match connection {
        Connection::Remote { credentials, .. } => Ok(credentials.clone()),
        Connection::Sandbox => shared.sandbox_credentials().await,
    }
}

/// Sends the newest history entries.
pub(super) async fn load_history(shared: Arc<Shared>) {
    match shared.with_store(|s| s.history(HISTORY_SHOWN)).await {
        Some(Ok(entries)) => shared.emit(Event::History(entries)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::api::{Activity, BaseUrl, ClientOptions, Credentials};
    use crate::sandbox::{ADMIN_CLIENT, Config, Server};

    #[tokio::test]
    async fn a_clients_activity_reaches_the_ui_as_events_of_its_connection_until_it_is_dropped() {
        let server = Server::start(Config { users: 5, rate_limit: 1, ..Config::default() }).await.expect("a sandbox");
        let credentials = Credentials {
            base_url: BaseUrl::parse(server.base_url()).expect("a base URL"),
            client_id: ADMIN_CLIENT.to_owned(),
            client_secret: crate::secret::Secret::new(server.client_secret()),
            scopes: crate::scopes::ScopeSet::all(),
        };
        let client = Client::new(credentials, ClientOptions::default(), None).expect("a client");
        let (events, mut received) = tokio::sync::mpsc::channel(8);
        let repaints = Arc::new(AtomicUsize::new(0));
        let counted = repaints.clone();
        forward_activity(
            &client,
            "Sandbox",
            events,
            Arc::new(move || {
                counted.fetch_add(1, Ordering::Relaxed);
            }),
        );
        // One request a second: the second waits out the rate limit.
        let request = GraphQlRequest::new("{ paginatedUsers(first: 1) { count } }");
        let cancel = CancellationToken::new();
        for _ in 0..2 {
            let answer = tokio::time::timeout(Duration::from_secs(10), client.execute(&request, &cancel));
            assert_eq!(answer.await.expect("in time").expect("an answer").status, 200);
        }
        drop(client);
        let mut seen = Vec::new();
        // The forwarder stops when the client is gone, so the channel ends.
        while let Some(event) = tokio::time::timeout(Duration::from_secs(5), received.recv()).await.expect("in time") {
            let Event::Activity { connection, activity } = event else { panic!("not an activity: {event:?}") };
            assert_eq!(connection, "Sandbox");
            seen.push(activity);
        }
        assert!(matches!(seen.as_slice(), [Activity::Throttled { .. }, Activity::Settled]), "{seen:?}");
        assert_eq!(repaints.load(Ordering::Relaxed), 2, "the UI is woken for each");
        server.stop().await;
    }
}
