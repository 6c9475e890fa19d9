//! The Import window's jobs (the work itself is [`crate::import`]'s, shared with `orgql
//! import`): read a file and plan it against the connection's users, rehearse a plan on a
//! scratch sandbox, apply it with the journal in the app's database (or resume its interrupted
//! apply), and write the plan to a file. Results and undo files are written beside the file
//! imported when an apply ends, as `orgql import --results --undo` writes them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::{Connection, JobId, Shared};
use crate::api::ApiError;
use crate::import::session::{self, Refusal};
use crate::import::{
    self, Action, Applied, ApplyOptions, Counts, Mapping, PlanError, PlanOptions, PlannedRow, Stopped, Target, Use,
};
use crate::store::RowState;

/// What the Import window asks.
#[derive(Debug, Clone)]
pub enum ImportCommand {
    /// Read the file, map its columns, and plan every row against the connection's users.
    Plan {
        /// The planning (its events carry it; Cancel stops it).
        job: JobId,
        /// Where the users are.
        connection: Connection,
        /// What to read and how.
        request: PlanRequest,
    },
    /// Apply a plan to a scratch sandbox seeded with the users it touches: what it refuses and
    /// the webhooks it causes (nothing reaches the connection).
    Rehearse {
        /// The rehearsal.
        job: JobId,
        /// The plan.
        rows: Arc<Vec<PlannedRow>>,
    },
    /// Apply a plan, or resume the interrupted apply of its file.
    Apply {
        /// The apply (its events carry it; Cancel stops it between rows).
        job: JobId,
        /// Where to apply it.
        connection: Connection,
        /// What to apply.
        request: ApplyRequest,
    },
    /// Write a plan to a CSV file or a workbook (by the file's name).
    SavePlan {
        /// The write.
        job: JobId,
        /// Where.
        path: PathBuf,
        /// The plan.
        rows: Arc<Vec<PlannedRow>>,
    },
}

/// A file to plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    /// The CSV, XLSX or ODS file.
    pub path: PathBuf,
    /// A workbook's sheet (the first when none).
    pub sheet: Option<String>,
    /// Each column's use as the person set it (`COLUMN` → `field`, empty: not mapped; `ref`: the
    /// key); the rest are matched by name, or as remembered for the same header.
    pub overrides: Vec<(String, String)>,
    /// Also archive the active users the file does not list.
    pub archive_missing: bool,
    /// The largest share of active users that may be archived so (0 to 1).
    pub archive_share: f64,
    /// Only the rows that failed (or conflicted) in the last apply of this file.
    pub failed_only: bool,
    /// An empty cell clears the service's value instead of leaving it.
    pub empty_clears: bool,
}

/// A plan to apply.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    /// The file the plan was made of (its journal is kept under this name).
    pub file: PathBuf,
    /// The plan; ignored when resuming (the journal has it).
    pub rows: Arc<Vec<PlannedRow>>,
    /// Continue the interrupted apply of the file instead.
    pub resume: bool,
    /// Write over values changed on the service since the plan.
    pub overwrite: bool,
    /// The workbook's sheet the plan was made of (the first when none): the results file
    /// gives back that sheet's rows.
    pub sheet: Option<String>,
    /// Apply again only the rows of these keys that failed or conflicted in the last apply of
    /// the file (a failed row's own Retry); empty: not a retry.
    pub retry: Vec<String>,
    /// The import whose failed rows this plan applies again ([`PlanView::retry_of`]): the two
    /// make one import.
    pub retry_of: Option<i64>,
}

/// A file planned.
#[derive(Debug, Clone)]
pub struct PlanView {
    /// The file, as the journal names it.
    pub file: PathBuf,
    /// How it was read (`CSV, UTF-8, semicolons`).
    pub kind: String,
    /// Each column's use.
    pub mapping: Mapping,
    /// A value of each column (the first non-empty one), to recognise it by.
    pub examples: Vec<String>,
    /// The user fields the service's mutations take, to map columns onto.
    pub fields: Vec<String>,
    /// Every row planned, in file order.
    pub rows: Arc<Vec<PlannedRow>>,
    /// The rows per action.
    pub counts: Counts,
    /// Rows of the file (the rest are users missing from it, to archive).
    pub file_rows: u64,
    /// Requests made to read the current users.
    pub requests: u64,
    /// Rows left of an interrupted apply of this file on this connection.
    pub resumable: Option<usize>,
    /// The workbook's sheet planned (the first when none).
    pub sheet: Option<String>,
    /// What could not be read of the service to map the columns (a list's keys), to say.
    pub notes: Vec<String>,
    /// Whether its empty cells were read as clearings.
    pub empty_clears: bool,
    /// With "Only the rows that failed last time": the import whose failed rows it holds.
    pub retry_of: Option<i64>,
}

/// How an apply ended.
#[derive(Debug, Clone)]
pub struct ApplyOutcome {
    /// Rows applied, failed and in conflict.
    pub applied: Applied,
    /// Invalid rows (never sent).
    pub invalid: u64,
    /// Why it stopped before the end (cancelled, the network); the journal lets Resume go on.
    pub stopped: Option<String>,
    /// Rows still to apply (after a stop: what Resume goes on with).
    pub left: u64,
    /// What the whole import says, when this apply applied again the failed rows of an earlier
    /// one ("Only the rows that failed last time"): the two are one import.
    pub whole: Option<session::Whole>,
    /// Rows that failed or conflicted: row, key, message, field.
    pub failures: Vec<(u64, String, String, String)>,
    /// The outcome of each row of the plan applied (the request's rows, in their order).
    pub outcomes: Arc<Vec<session::RowOutcome>>,
    /// The results file written (every row with its outcome), or why not.
    pub results: Result<PathBuf, String>,
    /// The undo file written (an import that reverts what was applied), or why not.
    pub undo: Result<PathBuf, String>,
}

/// What comes back of imports.
#[derive(Debug, Clone)]
pub enum ImportEvent {
    /// How far a job is: requests made while planning, rows applied while applying.
    Progress {
        job: JobId,
        /// Done so far.
        done: u64,
        /// Expected, when known.
        total: Option<u64>,
    },
    /// A plan, or why there is none (one sentence).
    Planned {
        /// The planning.
        job: JobId,
        /// The plan.
        result: Result<PlanView, String>,
    },
    /// A rehearsal ended.
    Rehearsed {
        /// The rehearsal.
        job: JobId,
        /// What it showed.
        result: Result<import::rehearse::Rehearsal, String>,
    },
    /// An apply ended (or stopped).
    Applied {
        /// The apply.
        job: JobId,
        /// How.
        result: Result<ApplyOutcome, String>,
    },
    /// A plan written to a file.
    PlanSaved {
        /// The write.
        job: JobId,
        /// The file, or why not.
        result: Result<PathBuf, String>,
    },
}

/// Progress events are at most this often.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: ImportCommand) {
    match command {
        ImportCommand::Plan { job, connection, request } => {
            let cancel = shared.start_job(job);
            let shared = shared.clone();
            tokio::spawn(async move {
                let result = plan(&shared, job, &connection, request, &cancel).await;
                shared.end_job(job);
                shared.emit(ImportEvent::Planned { job, result }).await;
            });
        }
        ImportCommand::Rehearse { job, rows } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                let result = rehearse(&rows).await;
                shared.emit(ImportEvent::Rehearsed { job, result }).await;
            });
        }
        ImportCommand::Apply { job, connection, request } => {
            let cancel = shared.start_job(job);
            let shared = shared.clone();
            tokio::spawn(async move {
                let result = apply(&shared, job, &connection, request, &cancel).await;
                shared.end_job(job);
                shared.emit(ImportEvent::Applied { job, result }).await;
            });
        }
        ImportCommand::SavePlan { job, path, rows } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                let written = path.clone();
                let result =
                    tokio::task::spawn_blocking(move || import::files::write_plan(&written, &rows).map(|()| written))
                        .await
                        .unwrap_or_else(|e| Err(format!("the plan could not be written ({e})")));
                shared.emit(ImportEvent::PlanSaved { job, result }).await;
            });
        }
    }
}

/// The connection's client, schema and what its mutations take.
async fn target(
    shared: &Arc<Shared>,
    connection: &Connection,
    cancel: &CancellationToken,
) -> Result<(Arc<crate::api::Client>, Arc<crate::explorer::SchemaModel>, Target), String> {
    let client = shared.client(connection).await.map_err(|e| format!("{e:#}"))?;
    let model = shared.schema(connection, false, cancel).await.map_err(|e| format!("{e:#}"))?.model;
    let mut target = Target::of(model.schema()).ok_or_else(import::target::no_mutations)?;
    import::service::read_entry_keys(&client, model.schema(), &mut target, cancel)
        .await
        .map_err(|e| format!("{e:#}"))?;
    Ok((client, model, target))
}

/// The database that keeps the imports' journal.
fn journal(shared: &Shared) -> Result<&std::sync::Mutex<crate::store::Store>, String> {
    shared.store.as_ref().ok_or_else(|| "an import needs orgql's database, and there is none this session".to_owned())
}

/// The file's name as the journal keeps it (absolute, so that the CLI and the app agree).
fn journal_name(path: &Path) -> String {
    crate::platform::shown_path(path).display().to_string()
}

async fn plan(
    shared: &Arc<Shared>,
    job: JobId,
    connection: &Connection,
    request: PlanRequest,
    cancel: &CancellationToken,
) -> Result<PlanView, String> {
    let (client, model, target) = target(shared, connection, cancel).await?;
    let store = journal(shared)?;
    // Read and convert the file off the async threads (calamine and the CSV reader block).
    let shared_for_read = shared.clone();
    let read_target = target.clone();
    let read_request = request.clone();
    let (prepared, file) = tokio::task::spawn_blocking(move || {
        let file = journal_name(&read_request.path);
        let remembered = |header: &[String]| {
            let key = import::mapping::header_key(header);
            shared_for_read
                .store
                .as_ref()
                .and_then(|s| session::lock(s).import_mapping(&key).ok().flatten())
                .and_then(|json| serde_json::from_str::<BTreeMap<String, Use>>(&json).ok())
        };
        let prepared = import::prepare(
            &read_request.path,
            read_request.sheet.as_deref(),
            &read_target,
            None,
            remembered,
            &read_request.overrides,
        )?;
        if !read_request.overrides.is_empty() {
            let key = import::mapping::header_key(&prepared.mapping.header);
            let json = serde_json::to_string(&prepared.mapping.remembered()).unwrap_or_default();
            if let Some(store) = shared_for_read.store.as_ref()
                && let Err(e) = session::lock(store).save_import_mapping(&key, &json)
            {
                tracing::warn!("the mapping is not remembered for the next file ({e})");
            }
        }
        Ok::<_, String>((prepared, file))
    })
    .await
    .map_err(|e| format!("the file could not be read ({e})"))??;
    let kind = prepared.kind.describe();
    let mapping = prepared.mapping.clone();
    let examples = prepared.examples.clone();
    let options = PlanOptions {
        archive_missing: request.archive_missing,
        archive_share: request.archive_share,
        empty_clears: request.empty_clears,
    };
    let failed = match request.failed_only {
        true => Some(session::failed_rows(&session::lock(store), &file, connection.name()).map_err(|e| e.to_string())?),
        false => None,
    };
    let retry_of = failed.as_ref().map(|f| f.import);
    let failed = failed.map(|f| f.keys);
    let progress = Progress::new(shared, job);
    let mut rows = Vec::new();
    let planned = import::make_plan(
        &client,
        model.schema(),
        &target,
        prepared,
        options,
        cancel,
        |done, total| progress.report(done, total),
        |row| {
            if failed.as_ref().is_none_or(|f| f.contains(&row.key)) {
                rows.push(row);
            }
        },
    )
    .await
    .map_err(|e| match e {
        PlanError::Service(ApiError::Cancelled) => "planning cancelled; nothing was sent".to_owned(),
        PlanError::Service(e) => format!("{e:#}"),
        PlanError::Refused(message) => message,
    })?;
    progress.flush().await;
    let resumable = session::left_to_resume(&session::lock(store), &file, connection.name()).ok().flatten();
    let counts = Counts::of(&rows);
    let file_rows = rows.iter().filter(|r| r.row > 0).count() as u64;
    Ok(PlanView {
        file: PathBuf::from(file),
        kind,
        mapping,
        examples,
        fields: target
            .fields
            .iter()
            .map(|f| f.name.clone())
            .chain(
                target.entries.iter().flat_map(|l| ["keys", "values"].map(|part| format!("{}[{part}]", l.shape.input))),
            )
            .collect(),
        rows: Arc::new(rows),
        counts,
        file_rows,
        requests: planned.requests,
        resumable,
        sheet: request.sheet.clone(),
        notes: target.notes.clone(),
        empty_clears: request.empty_clears,
        retry_of,
    })
}

async fn rehearse(rows: &[PlannedRow]) -> Result<import::rehearse::Rehearsal, String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a scratch folder for the rehearsal ({e})"))?;
    import::rehearse::rehearse(rows, &scratch.path().join("rehearsal.sqlite3")).await
}

async fn apply(
    shared: &Arc<Shared>,
    job: JobId,
    connection: &Connection,
    request: ApplyRequest,
    cancel: &CancellationToken,
) -> Result<ApplyOutcome, String> {
    let (client, model, target) = target(shared, connection, cancel).await?;
    let store = journal(shared)?;
    let file = journal_name(&request.file);
    let shown = request.file.display().to_string();
    let digest_path = request.file.clone();
    let digest = tokio::task::spawn_blocking(move || import::files::digest(&digest_path))
        .await
        .map_err(|e| format!("the file could not be read ({e})"))??;
    let schema = model.schema();
    let (id, journal, rows, reading) = if request.resume || !request.retry.is_empty() {
        let on = session::FileOn { file: &file, shown: &shown, digest: &digest, connection: connection.name() };
        let found = match request.retry.is_empty() {
            true => session::interrupted(store, schema, &target, on),
            false => session::retry(store, schema, &target, on, &request.retry),
        }
        .map_err(|e| e.to_string())?;
        // The connection may have changed since the interruption (another profile's scopes).
        let lacking = session::lacking_scopes(&client, &found.rows).await.map_err(|e| format!("{e:#}"))?;
        if !lacking.is_empty() {
            return Err(session::lacking_sentence(&lacking));
        }
        (found.id, found.journal, Arc::new(found.rows), found.reading)
    } else {
        // Shared with the window's preview, not copied: a plan may have a million rows.
        let rows = request.rows.clone();
        let lacking = session::lacking_scopes(&client, &rows).await.map_err(|e| format!("{e:#}"))?;
        if !lacking.is_empty() {
            return Err(session::lacking_sentence(&lacking));
        }
        let fields: Vec<&str> = rows.iter().flat_map(|p| p.changes.iter().map(|c| c.field.as_str())).collect();
        let groups = rows.iter().any(|p| !p.add_groups.is_empty() || !p.remove_groups.is_empty());
        let reading = import::Reading::new(schema, &target, &fields, groups);
        // The window asks before Apply, naming the invalid rows: they are skipped by choice.
        let origin = crate::store::Origin { retry_of: request.retry_of, skip_invalid: true };
        let (id, journal) =
            session::begin(store, &file, &digest, connection.name(), origin, &rows).map_err(|e| match e {
                Refusal::Usage(s) | Refusal::Store(s) => s,
            })?;
        (id, journal, rows, reading)
    };
    let total = journal.iter().filter(|j| session::still_to_apply(j.state)).count() as u64;
    let progress = Progress::new(shared, job);
    progress.report(0, Some(total));
    let done = AtomicU64::new(0);
    let options = ApplyOptions { overwrite: request.overwrite, ..ApplyOptions::default() };
    let outcome = import::apply(&client, &target, &reading, store, id, journal, options, cancel, |_, _| {
        progress.report(done.fetch_add(1, Ordering::Relaxed) + 1, Some(total))
    })
    .await;
    progress.flush().await;
    let journal = session::lock(store).import_rows(id).map_err(|e| e.to_string())?;
    // What the whole journal says (a resume or a retry included), invalid and unchanged rows apart.
    let applied = session::tally(&journal, &rows);
    let stopped = match outcome {
        Ok(_) => {
            if let Err(e) = session::lock(store).finish_import(id) {
                tracing::warn!("the import is complete but not marked so ({e})");
            }
            None
        }
        Err(Stopped::Service(ApiError::Cancelled)) => {
            Some("cancelled; the rows applied so far are in the journal, and Resume goes on".to_owned())
        }
        Err(Stopped::Service(e)) => Some(format!(
            "{e:#}; the rows applied so far are in the journal, and Resume goes on after checking the last one"
        )),
        Err(Stopped::Journal(e)) => Some(e),
    };
    let failures = journal
        .iter()
        .filter(|j| matches!(j.state, RowState::Failed | RowState::Conflict))
        .filter(|j| rows.get(j.position as usize).is_none_or(|r| r.action != Action::Invalid))
        .map(|j| (j.row, j.key.clone(), j.message.clone(), j.field.clone()))
        .collect();
    let invalid = rows.iter().filter(|r| r.action == Action::Invalid).count() as u64;
    let left = journal.iter().filter(|j| session::still_to_apply(j.state)).count() as u64;
    // One lock for both reads (a second lock inside a match on the first's guard would wait forever).
    let whole = {
        let held = session::lock(store);
        match held.import_job(id) {
            Ok(Some(job)) if job.origin.retry_of.is_some() => session::whole(&held, id).ok(),
            _ => None,
        }
    };
    let outcomes = Arc::new(session::outcomes_of(&request.rows, &journal, &rows));
    let (results, undo) = write_outputs(&request.file, request.sheet.clone(), target, rows, journal).await;
    Ok(ApplyOutcome { applied, invalid, stopped, left, whole, failures, outcomes, results, undo })
}

/// Writes the results and undo files beside `file`.
async fn write_outputs(
    file: &Path,
    sheet: Option<String>,
    target: Target,
    rows: Arc<Vec<PlannedRow>>,
    journal: Vec<crate::store::JournalRow>,
) -> (Result<PathBuf, String>, Result<PathBuf, String>) {
    let file = file.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let results = import::files::beside(&file, "results");
        let results =
            import::files::write_results(&results, &file, sheet.as_deref(), &rows, &journal).map(|()| results);
        let undo = import::files::beside(&file, "undo");
        let undo = import::files::write_undo(&undo, &target, &journal).map(|_| undo);
        (results, undo)
    })
    .await
    .unwrap_or_else(|e| {
        let why = format!("the files could not be written ({e})");
        (Err(why.clone()), Err(why))
    })
}

/// Progress of a job, sent at most every [`PROGRESS_EVERY`] without waiting for the UI.
struct Progress<'a> {
    shared: &'a Arc<Shared>,
    job: JobId,
    last: std::sync::Mutex<(Option<Instant>, u64, Option<u64>)>,
}

impl<'a> Progress<'a> {
    fn new(shared: &'a Arc<Shared>, job: JobId) -> Self {
        Progress { shared, job, last: std::sync::Mutex::new((None, 0, None)) }
    }

    fn report(&self, done: u64, total: Option<u64>) {
        let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *last = (last.0, done, total);
        if last.0.is_some_and(|at| at.elapsed() < PROGRESS_EVERY) {
            return;
        }
        last.0 = Some(Instant::now());
        let event = ImportEvent::Progress { job: self.job, done, total };
        // A full queue drops a progress step; the next one says as much.
        if self.shared.events.try_send(event.into()).is_ok() {
            (self.shared.repaint)();
        }
    }

    async fn flush(&self) {
        let (_, done, total) = *self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.shared.emit(ImportEvent::Progress { job: self.job, done, total }).await;
    }
}
