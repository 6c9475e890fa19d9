//! The jobs: each runs as its own task, ends by sending its result, and stops when cancelled.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::walks::pager;
use super::{Connection, Event, JobId, QuerySpec, Repaint, Shared};
use crate::api::{ApiError, Client, TokenState};
use crate::export::resume::{self, ExportJob};
use crate::export::{ExportError, Keeping, changes};
use crate::table::{CsvFile, CsvOptions, Row};

/// How many history entries the UI lists.
pub(super) const HISTORY_SHOWN: usize = 200;

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

/// Whether an export can write `path` as it is, or what the window should ask.
pub(super) async fn check_export_file(shared: Arc<Shared>, path: PathBuf) {
    let target = path.clone();
    let answer = tokio::task::spawn_blocking(move || match crate::table::check_out(&target) {
        Ok(crate::table::OutKind::Replace) => Ok(Some(crate::table::free_name(&target))),
        Ok(_) => Ok(None),
        Err(e) => Err(e.to_string()),
    })
    .await
    .unwrap_or_else(|e| Err(format!("the file could not be checked ({e})")));
    shared.emit(Event::ExportFileChecked { path, answer }).await;
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
        if crate::table::Format::of(&target) == crate::table::Format::Xlsx {
            let about = crate::table::About { query: "(the rows shown in the app)".into(), connection: String::new() };
            let mut file = crate::table::XlsxFile::create(&target, &columns, about).map_err(|e| e.to_string())?;
            if let Err(e) = file.write_texts(rows.iter()) {
                let partial = file.keep_partial();
                return Err(format!("{e}; {}", partial.describe(&target)));
            }
            return file.commit().map_err(|e| e.to_string());
        }
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
    shared.emit(Event::Exported { job, result: written.map(|rows| (path, rows)), resumable: false, note: None }).await;
}

/// What the UI asked of an export of every page.
#[derive(Debug)]
pub(super) struct ExportAsked {
    /// The file.
    pub path: PathBuf,
    /// BOM, raw.
    pub options: CsvOptions,
    /// Continue the interrupted export into `path`.
    pub resume: bool,
    /// Only the changes since the last export of the query.
    pub changes_since_last: bool,
}

/// Exports every page to a CSV file or a workbook, or goes on with an interrupted export: the
/// same code as `orgql export` (an interruption is recorded for a later resume the same way, and
/// a finished export in the store, for a later export of what changed since).
pub(super) async fn export_all(
    shared: Arc<Shared>,
    job: JobId,
    spec: QuerySpec,
    asked: ExportAsked,
    cancel: CancellationToken,
) {
    let ExportAsked { path, options, resume, changes_since_last } = asked;
    let mut note = None;
    let result = async {
        let format = crate::table::Format::of(&path);
        let export = ExportJob {
            query: spec.query.clone(),
            operation: spec.operation.clone(),
            variables: spec.variables.clone(),
            connection: spec.connection.name().to_owned(),
            format,
            bom: options.bom,
            raw: options.raw,
        };
        // A folder, a file in a missing folder, or nothing to resume, is refused before anything
        // is fetched.
        let checked = {
            let (path, export) = (path.clone(), export.clone());
            tokio::task::spawn_blocking(move || {
                crate::table::check_out(&path).map_err(|e| e.to_string())?;
                resume.then(|| resume::load(&path, &export)).transpose()
            })
            .await
            .unwrap_or_else(|e| Err(format!("the export task failed ({e})")))
        };
        let from = checked.map_err(|e| (e, false))?;
        let client = shared.client(&spec.connection).await.map_err(|e| (e.to_string(), false))?;
        let mut pager = pager(&shared, client, &spec, &cancel).await.map_err(|e| (e.to_string(), false))?;
        let name = spec.connection.name().to_owned();
        let identity = changes::identity(&spec.query, spec.operation.as_deref(), spec.variables.as_ref());
        let key = changes::key_column(&pager.site().columns);
        let mut keeping = match (changes_since_last, key) {
            (false, key) => key.map(|key| Keeping { key, baseline: None, recorder: None }),
            (true, None) => return Err((changes::no_key_column(), false)),
            (true, Some(_)) if from.is_some() => {
                return Err(("an export of changes cannot be resumed; export the changes again".to_owned(), false));
            }
            (true, Some(key)) => {
                let (identity, connection) = (identity.clone(), name.clone());
                let last = shared.with_store(move |store| changes::since_last(store, &identity, &connection)).await;
                let baseline = match last {
                    Some(Ok(baseline)) => baseline,
                    Some(Err(e)) => return Err((e, false)),
                    None => return Err(("there is no database to compare with an earlier export".to_owned(), false)),
                };
                if baseline.is_none() {
                    note = Some(changes::no_earlier_export(&name));
                }
                Some(Keeping { key, baseline, recorder: None })
            }
        };
        if let Some(keeping) = keeping.as_mut() {
            let store = shared.clone();
            let access: changes::StoreAccess = Box::new(move |work| store.with_store_here(work));
            keeping.recorder = Some(changes::RowRecorder::new(access, &identity, &spec.query, &name));
        }
        let since = keeping.as_ref().and_then(|k| k.baseline.as_ref()).map(|b| b.described.clone());
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
        let exported = crate::export::export_all(
            &mut pager,
            &path,
            format,
            options,
            &name,
            from.as_ref(),
            keeping,
            &cancel,
            |p| {
                progress_tx.send_replace((p.rows, p.total));
            },
        )
        .await;
        drop(progress_tx);
        if let Err(e) = reporter.await {
            tracing::debug!("the progress reporter ended abnormally: {e}");
        }
        match exported {
            Ok(exported) => {
                resume::forget(&path, from.is_some());
                if let Some(counts) = exported.counts {
                    note = Some(format!("{} since {}", counts.summary(), since.unwrap_or_default()));
                }
                let rows = exported.rows;
                if let Some(recorder) = exported.recorder {
                    let file = path.display().to_string();
                    let finished = tokio::task::spawn_blocking(move || recorder.finish(&file, rows)).await;
                    if let Ok(Err(e)) = finished {
                        tracing::warn!("the export was not recorded for a later comparison: {e}");
                    }
                }
                Ok((path.clone(), rows))
            }
            Err(error) => Err(record_resume_point(&path, &export, &error)),
        }
    }
    .await;
    shared.end_job(job);
    let (result, resumable) = match result {
        Ok(done) => (Ok(done), false),
        Err((error, resumable)) => (Err(error), resumable),
    };
    shared.emit(Event::Exported { job, result, resumable, note }).await;
}

/// The sentence of a failed export, once where it stopped is recorded for the app's Resume,
/// and whether it can be resumed.
fn record_resume_point(path: &std::path::Path, export: &ExportJob, error: &ExportError) -> (String, bool) {
    let (ExportError::Interrupted { partial, reached: Some(reached), .. }
    | ExportError::Write { partial, reached: Some(reached), .. }) = error
    else {
        return (error.to_string(), false);
    };
    match resume::record(path, export, reached, partial) {
        Ok(true) => (format!("{error}; Resume continues it from there"), true),
        Ok(false) => (error.to_string(), false),
        Err(e) => (format!("{error} ({e}: it cannot be resumed)"), false),
    }
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
        // A run adds to the history: a frame only when the list is on screen.
        Some(Ok(entries)) if shared.history_shown() => shared.emit(Event::History(entries)).await,
        Some(Ok(entries)) => shared.emit_quietly(Event::History(entries)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::api::{Activity, BaseUrl, ClientOptions, Credentials, GraphQlRequest};
    use crate::sandbox::{ADMIN_CLIENT, Config, Server};
    use crate::worker::Command;

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

    /// The next event that is a history list, within 10 s (others skipped).
    async fn next_history(events: &mut tokio::sync::mpsc::Receiver<Event>) {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), events.recv()).await;
            match event.expect("an event in time").expect("the worker runs") {
                Event::History(_) => return,
                _ => continue,
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_changed_history_wakes_the_ui_only_when_its_list_is_on_screen() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let repaints = Arc::new(AtomicUsize::new(0));
        let counted = repaints.clone();
        let repaint: crate::worker::Repaint = Arc::new(move || {
            counted.fetch_add(1, Ordering::Relaxed);
        });
        let secrets = crate::profiles::SecretStore::Unavailable("tests".into());
        let store = Some(dir.path().join("orgql.sqlite3"));
        let (worker, mut events) =
            crate::worker::Worker::spawn(&tokio::runtime::Handle::current(), repaint, store, None, secrets, 5, None);

        // The worker sends an event, then wakes the UI: give the wake-up time to come.
        let settled = || async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            repaints.load(Ordering::Relaxed)
        };
        worker.send(Command::ShowingHistory(false)).expect("sent");
        worker.send(Command::LoadHistory).expect("sent");
        next_history(&mut events).await;
        let before = settled().await;
        worker.send(Command::LoadHistory).expect("sent");
        next_history(&mut events).await;
        assert_eq!(settled().await, before, "hidden: taken at the next frame, none drawn for it");

        worker.send(Command::ShowingHistory(true)).expect("sent");
        worker.send(Command::LoadHistory).expect("sent");
        next_history(&mut events).await;
        assert_eq!(settled().await, before + 1, "on screen: a frame shows it");
    }
}
