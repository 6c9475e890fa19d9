//! One delivery: the schedule's export made whole in orgql's own folder (the same code and bytes
//! as `orgql export`), then put in its destination under a temporary name and renamed when
//! complete — a folder, a file, a Windows share or an SFTP server — so that nobody ever opens
//! half a file; older deliveries past `--keep` removed (only files orgql delivered).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Local};
use tokio_util::sync::CancellationToken;

use super::definition::{self, Destination, Names, Schedule};
use super::sftp::{self, SftpTarget, SshAuth};
use crate::api::{ApiError, Client, Pager};
use crate::export::changes::{self, Baseline, Counts, RowRecorder, Snapshot};
use crate::export::{ExportError, export_all, export_with_changes};
use crate::query::PagingOptions;
use crate::store::{RunState, Store};
use crate::table::CsvOptions;

/// How long one step of an SFTP delivery may take (connecting, signing in, each write).
const SFTP_STEP: Duration = Duration::from_secs(30);

/// What a delivery needs besides its schedule.
pub struct Run<'a> {
    /// The schedule.
    pub schedule: &'a Schedule,
    /// A client of its profile's connection.
    pub client: Arc<Client>,
    /// orgql's database (where the rows of the last delivery are kept for the changes file).
    pub store: &'a Path,
    /// The schedule's own folder, owner-only, where the files are made before they are sent.
    pub staging: PathBuf,
    /// When the run started (the files are named after it).
    pub at: DateTime<Local>,
    /// Stops the run (a signal).
    pub cancel: CancellationToken,
}

/// A delivery made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// Rows of the whole file.
    pub rows: u64,
    /// Bytes of the whole file.
    pub bytes: u64,
    /// Where it went (a path, or an `sftp://` address).
    pub to: String,
    /// Where the changes file went.
    pub changes_to: Option<String>,
    /// What the changes file holds.
    pub counts: Option<Counts>,
    /// Older deliveries removed (`--keep`).
    pub removed: Vec<String>,
}

/// A delivery that did not happen: the exit status and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    /// 2 the schedule or a file it names, 3 sign-in, 4 scope, 5 GraphQL errors, 6 the service,
    /// the network or the destination, 130 and up a signal.
    pub code: u8,
    /// What happened and what to do.
    pub message: String,
}

impl RunFailure {
    fn new(code: u8, message: impl Into<String>) -> Self {
        RunFailure { code, message: message.into() }
    }
}

impl From<ApiError> for RunFailure {
    fn from(err: ApiError) -> Self {
        RunFailure::new(err.exit_code(), err.to_string())
    }
}

/// The identity a schedule's rows are kept under, apart from the exports people make of the same
/// query, so that its changes are "since the last delivered run".
fn identity(schedule: &Schedule) -> String {
    let own = format!("# orgql schedule {}\n{}", schedule.name, schedule.document);
    changes::identity(&own, schedule.operation.as_deref(), schedule.variables.as_ref())
}

/// Makes one delivery of `run.schedule`.
pub async fn deliver(run: Run<'_>) -> Result<Delivered, RunFailure> {
    let schedule = run.schedule;
    let destination = schedule.destination().map_err(|e| RunFailure::new(2, e))?;
    // What is in the way is found before anything is fetched.
    let target = match &destination {
        Destination::Sftp(url) => Some(SftpTarget::parse(url).map_err(|e| RunFailure::new(2, e))?),
        Destination::Folder(dir) => {
            reachable_folder(dir)?;
            None
        }
        Destination::File(file) => {
            let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            reachable_folder(dir)?;
            None
        }
    };
    let auth = match &target {
        Some(_) => Some(ssh_auth(schedule)?),
        None => None,
    };
    prepare_staging(&run.staging)?;
    let names = match &destination {
        Destination::Folder(dir) => definition::delivery_names(schedule, &run.at, |name| dir.join(name).exists()),
        Destination::Sftp(_) => definition::delivery_names(schedule, &run.at, |_| false),
        Destination::File(file) => {
            let whole = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let changes = definition::changes_beside(Path::new(&whole)).to_string_lossy().into_owned();
            Names { whole, changes }
        }
    };
    let staged = Names {
        whole: run.staging.join(&names.whole).to_string_lossy().into_owned(),
        changes: run.staging.join(&names.changes).to_string_lossy().into_owned(),
    };
    let made = make_files(&run, Path::new(&staged.whole), Path::new(&staged.changes)).await;
    let result = match made {
        Ok(made) => send(&run, &destination, target.as_ref(), auth.as_ref(), &names, &staged, made).await,
        Err(failure) => Err(failure),
    };
    // The staged files hold personal data: gone whatever happened.
    if let Err(e) = std::fs::remove_dir_all(&run.staging) {
        tracing::debug!("the staging folder {} stays: {e}", run.staging.display());
    }
    result
}

/// The files made in the staging folder.
struct Made {
    rows: u64,
    changes: Option<(Counts, RowRecorder)>,
}

/// Fetches every page into the staging folder: the whole file and, with changes asked for, the
/// changes file.
async fn make_files(run: &Run<'_>, whole: &Path, changes_file: &Path) -> Result<Made, RunFailure> {
    let schedule = run.schedule;
    let client = run.client.clone();
    let store = Store::open(run.store).map_err(|e| RunFailure::new(6, e.to_string()))?;
    let options = PagingOptions { ensure_count: true, paging: None };
    let schema_key = format!("orgql export {}", client.graphql_url());
    let cached = store.cached_schema(&schema_key).ok().flatten().map(|(sdl, _)| sdl);
    let discovered = Pager::discover_cached(
        client,
        &schedule.document,
        schedule.variables.clone(),
        schedule.operation.as_deref(),
        options,
        cached.as_deref(),
        &run.cancel,
    )
    .await;
    let mut pager = match discovered {
        Ok((pager, fetched)) => {
            if let Some(sdl) = fetched
                && let Err(e) = store.save_schema(&schema_key, &sdl, chrono::Utc::now())
            {
                tracing::warn!("the schema is not kept for the next delivery: {e}");
            }
            pager
        }
        Err(e) => return Err(e.into()),
    };
    let format = schedule.format.format();
    let options = CsvOptions { bom: schedule.bom, raw: schedule.raw };
    let connection = schedule.profile.as_str();
    if !schedule.changes_since_last {
        let exported = export_all(&mut pager, whole, format, options, connection, None, None, &run.cancel, |_| {})
            .await
            .map_err(export_failure)?;
        return Ok(Made { rows: exported.rows, changes: None });
    }
    let Some(key) = changes::key_column(&pager.site().columns) else {
        return Err(RunFailure::new(2, changes::no_key_column()));
    };
    let identity = identity(schedule);
    let baseline = changes::since_last(&store, &identity, connection)
        .map_err(|e| RunFailure::new(6, e.to_string()))?
        .unwrap_or_else(|| Baseline::from_snapshot(Snapshot::default(), "nothing delivered before".to_owned()));
    let access: changes::StoreAccess = Box::new(move |work| work(&store).map_err(|e| e.to_string()));
    let recorder = RowRecorder::new(access, &identity, &schedule.document, connection);
    let exported = export_with_changes(
        &mut pager,
        whole,
        changes_file,
        format,
        options,
        connection,
        key,
        baseline,
        Some(recorder),
        &run.cancel,
        |_| {},
    )
    .await
    .map_err(export_failure)?;
    let counts = exported.counts.unwrap_or_default();
    let recorder = exported.recorder.ok_or_else(|| RunFailure::new(6, "the rows were not kept"))?;
    Ok(Made { rows: exported.rows, changes: Some((counts, recorder)) })
}

/// An error's sentence without its full stop, to go on with "; nothing was delivered".
fn sentence(err: &dyn std::fmt::Display) -> String {
    err.to_string().trim_end().trim_end_matches('.').to_owned()
}

fn export_failure(err: ExportError) -> RunFailure {
    match err {
        ExportError::Interrupted { cause: ApiError::Cancelled, .. } => {
            RunFailure::new(130, "the delivery was stopped before it was complete; nothing was delivered")
        }
        err => RunFailure::new(err.exit_code(), format!("{}; nothing was delivered", sentence(&err))),
    }
}

/// Puts the staged files in the destination, whole or nothing, then removes deliveries past
/// `--keep` and marks the rows as the last delivered.
async fn send(
    run: &Run<'_>,
    destination: &Destination,
    target: Option<&SftpTarget>,
    auth: Option<&SshAuth>,
    names: &Names,
    staged: &Names,
    made: Made,
) -> Result<Delivered, RunFailure> {
    let schedule = run.schedule;
    let whole = Path::new(&staged.whole);
    let bytes = std::fs::metadata(whole).map(|m| m.len()).unwrap_or(0);
    let with_changes = made.changes.is_some();
    let (to, changes_to) = match (destination, target, auth) {
        (Destination::Sftp(_), Some(target), Some(auth)) => {
            let pinned = schedule.host_key.as_deref().unwrap_or_default();
            let put = |local: PathBuf, name: String| async move {
                sftp::upload(target, auth, pinned, &local, &name, SFTP_STEP, &run.cancel)
                    .await
                    .map_err(|e| RunFailure::new(e.exit_code(), format!("{}; nothing was delivered", sentence(&e))))
            };
            if with_changes {
                put(PathBuf::from(&staged.changes), names.changes.clone()).await?;
            }
            put(whole.to_path_buf(), names.whole.clone()).await?;
            let at = |name: &str| format!("{}{name}", target.url());
            (at(&names.whole), with_changes.then(|| at(&names.changes)))
        }
        (Destination::Folder(dir), ..) => {
            if with_changes {
                place(Path::new(&staged.changes), &dir.join(&names.changes), &schedule.name)?;
            }
            let to = dir.join(&names.whole);
            place(whole, &to, &schedule.name)?;
            let shown = |p: &Path| crate::platform::shown_path(p).display().to_string();
            (shown(&to), with_changes.then(|| shown(&dir.join(&names.changes))))
        }
        (Destination::File(file), ..) => {
            let changes = definition::changes_beside(file);
            if with_changes {
                place(Path::new(&staged.changes), &changes, &schedule.name)?;
            }
            place(whole, file, &schedule.name)?;
            let shown = |p: &Path| crate::platform::shown_path(p).display().to_string();
            (shown(file), with_changes.then(|| shown(&changes)))
        }
        (Destination::Sftp(_), ..) => return Err(RunFailure::new(2, "the SFTP destination cannot be read")),
    };
    let counts = match made.changes {
        Some((counts, recorder)) => {
            // Delivered: these rows are what the next changes file compares with.
            if let Err(e) = recorder.finish(&to, made.rows) {
                tracing::warn!("the delivery is complete but its rows were not kept for the next changes file: {e}");
            }
            Some(counts)
        }
        None => None,
    };
    let removed = match schedule.keep {
        Some(keep) if destination.holds_many() => prune(run, destination, target, auth, keep).await,
        _ => Vec::new(),
    };
    Ok(Delivered { rows: made.rows, bytes, to, changes_to, counts, removed })
}

/// Whether the folder a delivery goes to is there; why not in one sentence (exit 6: a share or
/// a disk that is not reachable now may be at the next run).
fn reachable_folder(dir: &Path) -> Result<(), RunFailure> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => {
            Err(RunFailure::new(2, format!("{} is not a folder; give a folder or a file to deliver to", dir.display())))
        }
        Err(e) => Err(RunFailure::new(
            6,
            format!(
                "the folder {} cannot be reached ({}); check that it exists and this account may write there, or change the schedule's --to",
                dir.display(),
                e
            ),
        )),
    }
}

/// An empty owner-only staging folder.
fn prepare_staging(dir: &Path) -> Result<(), RunFailure> {
    if dir.exists() {
        drop(std::fs::remove_dir_all(dir));
    }
    crate::platform::private::create_dir_all(dir).map_err(|e| {
        RunFailure::new(
            6,
            format!("orgql's folder {} cannot be written ({e}); free some space or fix its permissions", dir.display()),
        )
    })
}

/// Copies `staged` next to `to` under a temporary name, durably, then renames it to `to`
/// (replacing an earlier delivery of that name). Temporary files an earlier run of `schedule`
/// left there (killed mid-way) are removed first.
fn place(staged: &Path, to: &Path, schedule: &str) -> Result<(), RunFailure> {
    let dir = to.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let final_name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    remove_left_behind(dir, schedule, &final_name);
    let temporary = dir.join(definition::temporary_name(&final_name));
    let failed = |e: std::io::Error| {
        drop(std::fs::remove_file(&temporary));
        RunFailure::new(
            6,
            format!(
                "the delivery could not be written to {} ({}); nothing was delivered — free some space or check the permissions",
                dir.display(),
                e
            ),
        )
    };
    let copy = || -> std::io::Result<()> {
        let mut from = std::fs::File::open(staged)?;
        let mut into = std::fs::File::create(&temporary)?;
        std::io::copy(&mut from, &mut into)?;
        into.sync_all()?;
        drop(into);
        std::fs::rename(&temporary, to)
    };
    copy().map_err(failed)
}

/// Removes the temporary files a killed run of `schedule` left in `dir`.
fn remove_left_behind(dir: &Path, schedule: &str, final_name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = definition::is_left_behind(&name, schedule, None)
            || definition::is_left_behind(&name, schedule, Some(final_name));
        if ours && let Err(e) = std::fs::remove_file(entry.path()) {
            tracing::warn!("a temporary file of an earlier delivery stays: {}: {e}", entry.path().display());
        }
    }
}

/// How an SFTP delivery signs in: the schedule's key file, else the person's default key or
/// agent.
fn ssh_auth(schedule: &Schedule) -> Result<SshAuth, RunFailure> {
    match &schedule.ssh_key {
        Some(file) => Ok(SshAuth::KeyFile(file.clone())),
        None => SshAuth::default_for_person().ok_or_else(|| {
            RunFailure::new(
                2,
                "no SSH key to sign in to the SFTP server with (~/.ssh/id_ed25519 or id_rsa, or an agent); give one with --ssh-key FILE",
            )
        }),
    }
}

/// Removes the deliveries of the schedule older than the last `keep` (the one just made
/// included) from the destination: only files orgql recorded delivering there.
async fn prune(
    run: &Run<'_>,
    destination: &Destination,
    target: Option<&SftpTarget>,
    auth: Option<&SshAuth>,
    keep: u32,
) -> Vec<String> {
    let Ok(store) = Store::open(run.store) else { return Vec::new() };
    let Ok(runs) = store.schedule_runs(&run.schedule.name, 10_000) else { return Vec::new() };
    let older: Vec<String> = runs
        .into_iter()
        .filter(|r| r.state == RunState::Delivered)
        .skip(keep.saturating_sub(1) as usize)
        .flat_map(|r| r.delivered_to.into_iter().chain(r.changes_to))
        .collect();
    let mut removed = Vec::new();
    match (destination, target, auth) {
        (Destination::Folder(dir), ..) => {
            let dir = crate::platform::shown_path(dir);
            for file in older {
                let path = PathBuf::from(&file);
                let inside = path.parent().is_some_and(|p| p == dir);
                if inside && path.is_file() && std::fs::remove_file(&path).is_ok() {
                    removed.push(file);
                }
            }
        }
        (Destination::Sftp(_), Some(target), Some(auth)) => {
            let prefix = target.url();
            let names: Vec<String> = older
                .iter()
                .filter_map(|f| f.strip_prefix(&prefix))
                .filter(|n| !n.contains('/'))
                .map(str::to_owned)
                .collect();
            let pinned = run.schedule.host_key.as_deref().unwrap_or_default();
            match sftp::remove(target, auth, pinned, &names, SFTP_STEP).await {
                Ok(()) => removed.extend(names.iter().map(|n| format!("{prefix}{n}"))),
                Err(e) => tracing::warn!("older deliveries stay on the server: {e}"),
            }
        }
        _ => {}
    }
    removed
}
