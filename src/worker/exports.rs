//! Exports of the query tabs: the rows a tab holds to a file, or every page of its query (the
//! same code as `orgql export`, with its resume points and its record for "changes since").

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::queries::pager;
use super::{JobId, QuerySpec, Shared};
use crate::export::resume::{self, ExportJob};
use crate::export::{ExportError, Keeping, changes};
use crate::table::{CsvFile, CsvOptions, Row};

/// What the export window and the results ask.
#[derive(Debug, Clone)]
pub enum ExportCommand {
    /// Find out whether an export can write `path` as it is ([`ExportEvent::FileChecked`]).
    CheckFile {
        /// The file the window proposes.
        path: PathBuf,
    },
    /// Write the rows a tab holds to a CSV file or a workbook (by the file's name).
    Rows {
        /// The export (its event carries it).
        job: JobId,
        /// Column names.
        columns: Vec<String>,
        /// The rows, shared with the grid (not copied).
        rows: Arc<Vec<Row>>,
        /// Where to.
        path: PathBuf,
        /// BOM, raw.
        options: CsvOptions,
        /// The query the rows are of: the export is recorded with it, as `orgql export`
        /// records its own (none: the rows of no query, not recorded).
        about: Option<QuerySpec>,
    },
    /// Export every page of the query's connection to a CSV file or a workbook (by the file's
    /// name), or go on with its interrupted export.
    All {
        /// The export (its events carry it; Cancel stops it).
        job: JobId,
        /// What to run.
        spec: QuerySpec,
        /// What the window asked.
        asked: ExportAsked,
    },
}

/// What comes back of exports.
#[derive(Debug, Clone)]
pub enum ExportEvent {
    /// Whether an export can write a file: `Ok(None)` it can, `Ok(Some(free))` it exists (and
    /// `free` is a free name beside it), or why it cannot (a folder, a missing folder).
    FileChecked {
        /// The file asked about.
        path: PathBuf,
        /// The answer.
        answer: Result<Option<PathBuf>, String>,
    },
    /// How far an export is.
    Progress {
        /// The export.
        job: JobId,
        /// Rows done: written, or for a changes export fetched and compared.
        rows: u64,
        /// Rows expected, when known.
        total: Option<u64>,
    },
    /// An export ended.
    Exported {
        /// The export.
        job: JobId,
        /// The file and its rows, or why it failed (one sentence).
        result: Result<(PathBuf, u64), String>,
        /// The export stopped and can be resumed ([`ExportAsked::resume`]).
        resumable: bool,
        /// What else to say of it: what changed since the last export, or that there was none.
        note: Option<String>,
    },
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: ExportCommand) {
    match command {
        ExportCommand::CheckFile { path } => {
            tokio::spawn(check_export_file(shared.clone(), path));
        }
        ExportCommand::Rows { job, columns, rows, path, options, about } => {
            tokio::spawn(export_rows(shared.clone(), job, RowsShown { columns, rows, about }, path, options));
        }
        ExportCommand::All { job, spec, asked } => {
            let cancel = shared.start_job(job);
            tokio::spawn(export_all(shared.clone(), job, spec, asked, cancel));
        }
    }
}

/// Whether an export can write `path` as it is, or what the window should ask.
async fn check_export_file(shared: Arc<Shared>, path: PathBuf) {
    let target = path.clone();
    let answer = tokio::task::spawn_blocking(move || match crate::table::check_out(&target) {
        Ok(crate::table::OutKind::Replace) => Ok(Some(crate::table::free_name(&target))),
        Ok(_) => Ok(None),
        Err(e) => Err(e.to_string()),
    })
    .await
    .unwrap_or_else(|e| Err(format!("the file could not be checked ({e})")));
    shared.emit(ExportEvent::FileChecked { path, answer }).await;
}

/// The rows a tab shows, to export: their columns, the rows and the query they are of.
struct RowsShown {
    columns: Vec<String>,
    rows: Arc<Vec<Row>>,
    about: Option<QuerySpec>,
}

/// Writes rows the UI holds to a CSV file or a workbook, off the UI thread, and records the
/// export (query, connection, columns, rows and file) as `orgql export` does: with its rows keyed
/// by the ref or id the query selects (for a later export of what changed since), else by their
/// position.
async fn export_rows(shared: Arc<Shared>, job: JobId, shown: RowsShown, path: PathBuf, options: CsvOptions) {
    let RowsShown { columns, rows, about } = shown;
    let target = path.clone();
    let (kept_columns, kept_rows) = (columns.clone(), rows.clone());
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
    let mut note = None;
    if let (Ok(written), Some(spec)) = (&written, about) {
        let store = shared.clone();
        let access: changes::StoreAccess = Box::new(move |work| store.with_store_here(work));
        let file = path.display().to_string();
        let written = *written;
        let recorded = tokio::task::spawn_blocking(move || {
            let export = changes::Recorded {
                identity: changes::identity(&spec.query, spec.operation.as_deref(), spec.variables.as_ref()),
                query: spec.query.clone(),
                connection: spec.connection.name().to_owned(),
            };
            changes::record_rows(access, &export, &kept_columns, &kept_rows, &file, written)
        })
        .await
        .unwrap_or_else(|e| Err(format!("the record task failed ({e})")));
        if let Err(e) = recorded {
            tracing::warn!("the export was not recorded: {e}");
            note = Some(format!("the export is complete but was not recorded for a later comparison ({e})"));
        }
    }
    shared.emit(ExportEvent::Exported { job, result: written.map(|rows| (path, rows)), resumable: false, note }).await;
}

/// What the UI asked of an export of every page.
#[derive(Debug, Clone)]
pub struct ExportAsked {
    /// Where to (CSV or a workbook, by its name).
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
async fn export_all(shared: Arc<Shared>, job: JobId, spec: QuerySpec, asked: ExportAsked, cancel: CancellationToken) {
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
            // Every export is recorded, by position where the query has no key column.
            (false, key) => Some(Keeping { key, baseline: None, recorder: None }),
            (true, None) => {
                let (identity, connection) = (identity.clone(), name.clone());
                let sentence =
                    shared.with_store(move |store| Ok(changes::cannot_compare(store, &identity, &connection))).await;
                return Err((sentence.and_then(Result::ok).unwrap_or_else(changes::no_key_column), false));
            }
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
                Some(Keeping { key: Some(key), baseline, recorder: None })
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
                    shared.emit(ExportEvent::Progress { job, rows, total }).await;
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
    shared.emit(ExportEvent::Exported { job, result, resumable, note }).await;
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
