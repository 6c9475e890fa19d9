//! `orgql export`: every page of the query's one connection into a CSV file or an Excel workbook,
//! one row per node, streamed to disk. The file appears under its name only when complete; a
//! failed or interrupted export keeps what it wrote as `F.partial` and says how many rows that
//! holds, and a CSV one continues from there with `--resume` ([`crate::export::resume`]).
//! Throttling, retries and token renewals show as they happen (in the progress bar, or a line
//! each on stderr when it is not a terminal) and are counted in the closing line.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::Failure;
use super::connection::ConnectionArgs;
use super::input::QueryInput;
use crate::api::ApiError;
use crate::api::{Activity, Client, Pager};
use crate::export::changes::{self, Baseline};
use crate::export::resume::{self, ExportJob};
use crate::export::{ExportError, Keeping, export_all};
use crate::platform::signal::Interrupt;
use crate::query::PagingOptions;
use crate::table::{CsvOptions, Format, OutKind, check_out};

/// Options of `orgql export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    input: QueryInput,
    /// The file to write: CSV, or an Excel workbook when it is named `….xlsx`.
    #[arg(long)]
    out: PathBuf,
    /// The kind of file (by default what the file's name says: `.xlsx` a workbook, else CSV).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Start the file with a UTF-8 byte order mark (for spreadsheet programs; CSV only).
    #[arg(long)]
    bom: bool,
    /// Write cells as they are, without the leading ' that stops formulas (=, +, -, @; CSV only).
    #[arg(long)]
    raw: bool,
    /// Continue the interrupted export of the same query into the same file, from where its
    /// `.partial` stops (CSV only): the file is the one an uninterrupted run writes.
    #[arg(long)]
    resume: bool,
    /// Write only the rows added, changed or removed since an earlier export, with a first
    /// column `change` and the fields that changed: `last` (the last export of this query on
    /// this connection, which orgql keeps) or a CSV file orgql wrote of the same query.
    #[arg(long, value_name = "last|FILE")]
    changes_since: Option<String>,
    /// Read the service's schema again instead of the copy orgql keeps of it (it is read again
    /// anyway when the query does not validate against the copy).
    #[arg(long)]
    refresh_schema: bool,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// Comma-separated values.
    Csv,
    /// An Excel workbook.
    Xlsx,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Format {
        match format {
            FormatArg::Csv => Format::Csv,
            FormatArg::Xlsx => Format::Xlsx,
        }
    }
}

/// The format asked for: `--format` when given (refused when the file's name says another),
/// else the file's name.
fn format_of(args: &ExportArgs) -> Result<Format, Failure> {
    let named = Format::named_by(&args.out);
    match (args.format.map(Format::from), named) {
        (Some(asked), Some(named)) if asked != named => Err(Failure::new(
            2,
            format!(
                "--format {} does not fit the file name {}; name it ….{} or leave out --format",
                asked.extension(),
                args.out.display(),
                asked.extension()
            ),
        )),
        (Some(asked), _) => Ok(asked),
        (None, _) => Ok(Format::of(&args.out)),
    }
}

/// Runs `orgql export`.
pub async fn run(args: ExportArgs) -> Result<(), Failure> {
    let query = args.input.query()?;
    let variables = args.input.variables()?;
    let format = format_of(&args)?;
    let identity = changes::identity(&query, args.input.operation.as_deref(), variables.as_ref());
    let client = args.connection.client()?;
    // A folder, a missing folder or a socket is refused before anything is fetched.
    let kind = check_out(&args.out).map_err(|e| Failure::new(2, e.to_string()))?;
    let connection = match (&args.connection.profile, &args.connection.base_url) {
        (Some(profile), _) => profile.clone(),
        (None, Some(base_url)) => base_url.clone(),
        (None, None) => "the default profile".to_owned(),
    };
    let job = ExportJob {
        query: query.clone(),
        operation: args.input.operation.clone(),
        variables: variables.clone(),
        connection: connection.clone(),
        format,
        bom: args.bom,
        raw: args.raw,
    };
    // What to resume is checked before anything is fetched, too.
    let from = match (args.resume, format) {
        (false, _) => None,
        (true, Format::Xlsx) => {
            return Err(Failure::new(
                2,
                "an XLSX workbook is written whole and cannot be resumed; export it again without --resume",
            ));
        }
        (true, Format::Csv) => Some(resume::load(&args.out, &job).map_err(|e| Failure::new(2, e))?),
    };
    let interrupt = Interrupt::listen();
    let cancel = interrupt.token();
    let progress = progress_bar();
    let activity = ActivityWatch::start(&client, progress.clone());
    let options = PagingOptions { ensure_count: true, paging: None };
    let operation = args.input.operation.as_deref();
    let store = open_store();
    // The schema as an earlier run (or the app) kept it: no introspection when it still fits.
    let schema_key = format!("orgql export {}", client.graphql_url());
    let cached = match (&store, args.refresh_schema) {
        (Ok(store), false) => store.cached_schema(&schema_key).ok().flatten().map(|(sdl, _)| sdl),
        _ => None,
    };
    let discovered =
        Pager::discover_cached(client, &query, variables, operation, options, cached.as_deref(), &cancel).await;
    let mut pager = match discovered {
        Ok((pager, fetched)) => {
            if let (Some(sdl), Ok(store)) = (fetched, &store)
                && let Err(e) = store.save_schema(&schema_key, &sdl, chrono::Utc::now())
            {
                tracing::warn!("the schema is not kept for the next export: {e}");
            }
            pager
        }
        Err(ApiError::Cancelled) => {
            activity.finish().await;
            progress.finish_and_clear();
            return Err(stopped(&interrupt, "before any row was written".into()));
        }
        Err(e) => return Err(e.into()),
    };
    for warning in pager.warnings() {
        progress.suspend(|| eprintln!("orgql: {warning}"));
    }
    let mut keeping = keeping(&args, &pager, &identity, &connection, store.as_ref(), from.is_some(), &progress)?;
    if let (Some(keeping), Ok(store)) = (keeping.as_mut(), store) {
        let access: changes::StoreAccess = Box::new(move |work| work(&store).map_err(|e| e.to_string()));
        keeping.recorder = Some(changes::RowRecorder::new(access, &identity, &query, &connection));
    }
    let since = keeping.as_ref().and_then(|k| k.baseline.as_ref()).map(|b| b.described.clone());
    let options = CsvOptions { bom: args.bom, raw: args.raw };
    if let Some(from) = &from {
        // The rate and ETA count only what this run fetches.
        progress.set_position(from.rows);
        progress.reset_eta();
    }
    let result =
        export_all(&mut pager, &args.out, format, options, &connection, from.as_ref(), keeping, &cancel, |p| {
            match p.total {
                Some(total) => progress.set_length(total),
                None if progress.length() == Some(0) => without_total(&progress),
                None => {}
            }
            progress.set_position(p.rows);
        })
        .await;
    let counts = activity.finish().await;
    progress.finish_and_clear();
    pager.walk_warnings().iter().for_each(|warning| eprintln!("orgql: {warning}"));
    match result {
        Ok(exported) => {
            resume::forget(&args.out, from.is_some());
            let recorded = exported.recorder.map(|r| r.finish(&args.out.display().to_string(), exported.rows));
            if let Some(Err(e)) = recorded {
                eprintln!("orgql: the export is complete but was not recorded for a later --changes-since ({e})");
            }
            let rows = crate::import::plan::counted(exported.rows, "row", "rows");
            let done = format!("orgql: wrote {rows} to {}", args.out.display());
            let changed = exported.counts.map(|c| {
                let since = since.as_deref().unwrap_or("the earlier export");
                match c.repeated {
                    0 => format!("{} since {since}", c.summary()),
                    n => format!("{} since {since}; {n} rows repeated a key and were compared once", c.summary()),
                }
            });
            let resumed = from.as_ref().map(|from| format!("resumed after row {}", from.rows));
            let replaced = (kind == OutKind::Replace).then(|| "replaced the previous file".to_owned());
            match [changed, resumed, replaced, counts.summary()].into_iter().flatten().collect::<Vec<_>>() {
                notes if notes.is_empty() => eprintln!("{done}"),
                notes => eprintln!("{done} ({})", notes.join("; ")),
            }
            Ok(())
        }
        Err(err) => {
            let hint = resume_hint(&args.out, &job, &err);
            match err {
                ExportError::Interrupted { cause: ApiError::Cancelled, partial, out, .. } => {
                    Err(stopped(&interrupt, format!("{}{hint}", partial.describe(&out))))
                }
                err => Err(Failure::new(err.exit_code(), format!("{err}{hint}"))),
            }
        }
    }
}

/// orgql's database, where exports are recorded; why not, in one sentence.
fn open_store() -> Result<crate::store::Store, String> {
    let path = crate::store::Store::default_path()
        .ok_or_else(|| "no data folder for orgql's database (set HOME or XDG_DATA_HOME)".to_owned())?;
    let store = crate::store::Store::open(&path).map_err(|e| e.to_string())?;
    if let Err(e) = store.limit_cache(EXPORT_CACHE_KIB) {
        tracing::debug!("SQLite's cache keeps its default size: {e}");
    }
    Ok(store)
}

/// SQLite's page cache for an export's record (KiB): the pages on the way to the end of its
/// rows' table, with room to spare (measured: no slower than the default 2,000 KiB).
const EXPORT_CACHE_KIB: u32 = 256;

/// What the export keeps of its rows and compares them with (`--changes-since`); refused in
/// one sentence before any row is fetched when that cannot be done.
fn keeping(
    args: &ExportArgs,
    pager: &Pager,
    identity: &str,
    connection: &str,
    store: Result<&crate::store::Store, &String>,
    resuming: bool,
    progress: &ProgressBar,
) -> Result<Option<Keeping>, Failure> {
    let key = changes::key_column(&pager.site().columns);
    let Some(since) = &args.changes_since else {
        // Every export is recorded, by position where the query has no key column.
        return Ok(Some(Keeping { key, baseline: None, recorder: None }));
    };
    let Some(key) = key else {
        let sentence = match (since.as_str(), store) {
            ("last", Ok(store)) => changes::cannot_compare(store, identity, connection),
            _ => changes::no_key_column(),
        };
        return Err(Failure::new(2, sentence));
    };
    if resuming {
        return Err(Failure::new(2, "an export of changes cannot be resumed; leave out --resume or --changes-since"));
    }
    let baseline = if since == "last" {
        let store = store.map_err(|e| Failure::new(6, format!("--changes-since last needs orgql's database: {e}")))?;
        let last = changes::since_last(store, identity, connection).map_err(|e| Failure::new(6, e.to_string()))?;
        if last.is_none() {
            progress.suspend(|| eprintln!("orgql: {}", changes::no_earlier_export(connection)));
        }
        last
    } else {
        let file = PathBuf::from(since);
        if Format::of(&file) == Format::Xlsx {
            return Err(Failure::new(
                2,
                format!("--changes-since takes a CSV file orgql wrote, not {}; give one, or last", file.display()),
            ));
        }
        let names: Vec<String> = pager.site().columns.iter().map(|c| c.name.clone()).collect();
        Some(Baseline::from_csv_file(&file, &names, key, !args.raw).map_err(|e| Failure::new(2, e))?)
    };
    Ok(Some(Keeping { key: Some(key), baseline, recorder: None }))
}

/// Records where an interrupted export stopped and says how to go on ("; `--resume` continues
/// it"), or nothing when it cannot be resumed.
fn resume_hint(out: &std::path::Path, job: &ExportJob, err: &ExportError) -> String {
    let (ExportError::Interrupted { partial, reached: Some(reached), .. }
    | ExportError::Write { partial, reached: Some(reached), .. }) = err
    else {
        return String::new();
    };
    match resume::record(out, job, reached, partial) {
        Ok(true) => "; the same command with --resume continues it from there".to_owned(),
        Ok(false) => String::new(),
        Err(e) => format!(" ({e}: it cannot be resumed)"),
    }
}

/// The failure of an export stopped by a signal: "stopped by SIGTERM; the 150 rows written so far
/// are in F.partial (not F)", exit 128 + the signal's number.
fn stopped(interrupt: &Interrupt, kept: String) -> Failure {
    match interrupt.received() {
        Some((name, code)) => Failure::new(code, format!("stopped by {name}; {kept}")),
        None => Failure::new(130, format!("cancelled; {kept}")),
    }
}

/// indicatif's bar on a terminal: rows written of the connection's `count` (or of what is known
/// so far when the service gives none), the rate, the time spent and the time left, and what the
/// client is doing (throttled, retrying); hidden otherwise (the closing line says it all).
pub(super) fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    let template = "{bar:40} {human_pos}/{human_len} rows  {per_sec:0}  {elapsed} spent, about {eta} left  {msg}";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The bar of a connection without `count`: rows and rate, no length nor time left.
fn without_total(bar: &ProgressBar) {
    bar.unset_length();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {human_pos} rows  {per_sec:0}  {elapsed} spent  {msg}") {
        bar.set_style(style);
    }
}

/// What the client did while a command ran, for its closing line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct ActivityCounts {
    /// Waits after a 429.
    pub throttled: u32,
    /// Retries after a server or network failure.
    pub retries: u32,
    /// Token renewals.
    pub renewals: u32,
}

impl ActivityCounts {
    fn count(&mut self, activity: &Activity) {
        match activity {
            Activity::Throttled { .. } => self.throttled += 1,
            Activity::BackingOff { .. } => self.retries += 1,
            Activity::RenewingToken => self.renewals += 1,
            Activity::Settled => {}
        }
    }

    /// `3 throttled waits, 1 token renewal`, or `None` when nothing happened.
    pub fn summary(&self) -> Option<String> {
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let parts: Vec<String> = [
            (self.throttled, "throttled wait", "throttled waits"),
            (self.retries, "retry after a failure", "retries after failures"),
            (self.renewals, "token renewal", "token renewals"),
        ]
        .into_iter()
        .filter(|(n, ..)| *n > 0)
        .map(|(n, one, many)| plural(n, one, many))
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Shows a client's activity while a command runs: as the progress line's message when the bar
/// is drawn, otherwise one stderr line each (`orgql: throttled by the service; retrying in 2 s`).
pub(super) struct ActivityWatch {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<ActivityCounts>,
}

impl ActivityWatch {
    /// Starts watching `client`; `progress` is the command's bar (hidden: lines on stderr).
    pub fn start(client: &Client, progress: ProgressBar) -> Self {
        let mut activity = client.activity();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let mut counts = ActivityCounts::default();
            loop {
                // Whatever was reported before the stop is already queued: take it first.
                let received = tokio::select! {
                    biased;
                    received = activity.recv() => received,
                    _ = stopped.cancelled() => break,
                };
                match received {
                    Ok(Activity::Settled) => progress.set_message(""),
                    Ok(event) => {
                        counts.count(&event);
                        if progress.is_hidden() {
                            eprintln!("orgql: {event}");
                        } else {
                            progress.set_message(event.to_string());
                        }
                    }
                    Err(RecvError::Lagged(skipped)) => tracing::debug!("{skipped} activities not shown"),
                    Err(RecvError::Closed) => break,
                }
            }
            counts
        });
        ActivityWatch { stop, task }
    }

    /// Stops watching, once what was reported so far is shown, and gives the counts.
    pub async fn finish(self) -> ActivityCounts {
        self.stop.cancel();
        match self.task.await {
            Ok(counts) => counts,
            Err(e) => {
                tracing::debug!("the activity watch ended abnormally: {e}");
                ActivityCounts::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_counts_what_happened() {
        assert_eq!(ActivityCounts::default().summary(), None);
        let mut counts = ActivityCounts::default();
        for activity in [
            Activity::Throttled { wait: std::time::Duration::from_secs(2) },
            Activity::RenewingToken,
            Activity::Throttled { wait: std::time::Duration::from_secs(2) },
            Activity::Settled,
            Activity::Throttled { wait: std::time::Duration::from_secs(1) },
        ] {
            counts.count(&activity);
        }
        assert_eq!(counts.summary().as_deref(), Some("3 throttled waits, 1 token renewal"));
    }
}
