//! `orgql import FILE`: bulk changes from a CSV/XLSX/ODS file ([`crate::import`]). Without
//! `--apply` it only plans: it prints `N to create, N to update, N to archive, N unchanged, N
//! invalid` and writes `--plan`. With `--apply` it applies the plan row by row with a journal;
//! `--resume` continues an interrupted apply; `--failed-only` re-runs the rows that failed.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;
use indicatif::ProgressBar;

use super::Failure;
use super::connection::ConnectionArgs;
use super::export::{ActivityWatch, progress_bar};
use crate::import::plan::counted;
use crate::import::{
    self, Action, ApplyOptions, Counts, PlanError, PlanOptions, PlannedRow, Stopped, Target, Use, session,
};
use crate::platform::signal::Interrupt;
use crate::store::{JournalRow, Store};

/// The exit status of an import applied with rows that failed or conflicted.
pub const ROW_FAILURES: u8 = 7;

/// Options of `orgql import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The file: CSV (any delimiter, UTF-8, UTF-16 or Windows-1252) or an XLSX/ODS workbook.
    file: PathBuf,
    /// The workbook's sheet to read (the first by default).
    #[arg(long)]
    sheet: Option<String>,
    /// Apply the plan (without it, orgql only plans and changes nothing).
    #[arg(long)]
    apply: bool,
    /// Apply the plan to an in-process sandbox seeded with the affected users instead: what it
    /// refuses and the webhooks it causes (nothing is sent to the service).
    #[arg(long, conflicts_with_all = ["apply", "resume"])]
    rehearse: bool,
    /// Continue the interrupted apply of this file on this connection (no row is applied twice).
    #[arg(long, conflicts_with = "failed_only")]
    resume: bool,
    /// Apply only the rows that failed, conflicted or were invalid in the last import of this
    /// file (the two make one import: the exit status and the last line count it whole).
    #[arg(long)]
    failed_only: bool,
    /// Skip the invalid rows by choice: they are listed (and in --results) but do not make the
    /// exit status 7.
    #[arg(long)]
    skip_invalid: bool,
    /// Write the plan here (CSV, or XLSX when named ….xlsx).
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// Write every input row with its outcome here (CSV).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Write an import that reverts what was applied here (CSV).
    #[arg(long, value_name = "FILE")]
    undo: Option<PathBuf>,
    /// The column that finds users (default: the one named ref).
    #[arg(long, value_name = "COLUMN")]
    key: Option<String>,
    /// Map a column onto a field (`--map "Dept=name"`; `--map "Notes="` leaves it out); repeatable.
    #[arg(long, value_name = "COLUMN=field")]
    map: Vec<String>,
    /// Also archive the active users the file does not list.
    #[arg(long)]
    archive_missing: bool,
    /// Read an empty cell as a clearing, as `(empty)` (booleans aside); without it an empty cell
    /// leaves the service's value as it is.
    #[arg(long)]
    empty_clears: bool,
    /// The largest share of active users --archive-missing may archive, in percent.
    #[arg(long, default_value_t = 10.0, value_name = "PERCENT")]
    archive_share: f64,
    /// Confirm --archive-missing without a question.
    #[arg(long)]
    yes: bool,
    /// Write over values changed on the service since the plan (otherwise they are conflicts).
    #[arg(long)]
    overwrite: bool,
    /// Rows sent at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=16))]
    concurrency: u16,
    /// New users sent in one request when the service has a bulk creation (1: one mutation a row).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..=500))]
    batch_size: u16,
    #[command(flatten)]
    connection: ConnectionArgs,
}

fn say(progress: &ProgressBar, line: &str) {
    progress.suspend(|| eprintln!("orgql: {line}"));
}

/// Runs `orgql import`.
pub async fn run(args: ImportArgs) -> Result<(), Failure> {
    if !args.file.is_file() {
        return Err(Failure::usage(format!(
            "cannot read {}: no such file; give the path of a CSV or XLSX file",
            args.file.display()
        )));
    }
    let mapped = overrides(&args.map)?;
    let client = args.connection.client()?;
    let connection = match (&args.connection.profile, &args.connection.base_url) {
        (Some(profile), _) => profile.clone(),
        (None, Some(base_url)) => base_url.clone(),
        (None, None) => "the default profile".to_owned(),
    };
    let file_name = crate::platform::shown_path(&args.file).display().to_string();
    let store = open_store()?;
    let interrupt = Interrupt::listen();
    let cancel = interrupt.token();
    let progress = progress_bar();
    let activity = ActivityWatch::start(&client, progress.clone());
    let result = run_with(&args, &mapped, &client, &connection, &file_name, store, &cancel, &progress).await;
    activity.finish().await;
    progress.finish_and_clear();
    match result {
        Err(Failure { code: 130, message }) => match interrupt.received() {
            Some((name, code)) => Err(Failure::new(code, format!("stopped by {name}; {message}"))),
            None => Err(Failure::new(130, format!("cancelled; {message}"))),
        },
        other => other,
    }
}

#[allow(clippy::too_many_arguments)]
async fn run_with(
    args: &ImportArgs,
    overrides: &[(String, String)],
    client: &Arc<crate::api::Client>,
    connection: &str,
    file_name: &str,
    store: Store,
    cancel: &tokio_util::sync::CancellationToken,
    progress: &ProgressBar,
) -> Result<(), Failure> {
    let (model, _) = crate::explorer::load::fetch(client, cancel).await?;
    let schema = model.schema();
    let mut target = Target::of(schema).ok_or_else(|| Failure::new(2, import::target::no_mutations()))?;
    import::service::read_entry_keys(client, schema, &mut target, cancel).await?;
    for note in &target.notes {
        say(progress, note);
    }
    let store = Mutex::new(store);
    let lock = || session::lock(&store);
    let digest = import::files::digest(&args.file).map_err(Failure::usage)?;

    // What to apply: the interrupted import's journal, or a new plan.
    let (import_id, journal, plan_rows, reading, retry_of) = if args.resume {
        let shown = args.file.display().to_string();
        let found = session::interrupted(
            &store,
            schema,
            &target,
            session::FileOn { file: file_name, shown: &shown, digest: &digest, connection },
        )
        .map_err(refused)?;
        say(progress, &format!("resuming the import of {shown}: {} left", counted(found.left as u64, "row", "rows")));
        if args.skip_invalid {
            lock().skip_invalid_of_import(found.id).map_err(|e| Failure::new(6, e.to_string()))?;
        }
        (Some(found.id), found.journal, found.rows, found.reading, None)
    } else {
        let header_key = std::cell::RefCell::new(String::new());
        let remembered = |header: &[String]| {
            let key = import::mapping::header_key(header);
            *header_key.borrow_mut() = key.clone();
            lock()
                .import_mapping(&key)
                .ok()
                .flatten()
                .and_then(|json| serde_json::from_str::<BTreeMap<String, Use>>(&json).ok())
        };
        let prepared =
            import::prepare(&args.file, args.sheet.as_deref(), &target, args.key.as_deref(), remembered, overrides)
                .map_err(Failure::usage)?;
        say(
            progress,
            &format!("read {} ({}): {}", args.file.display(), prepared.kind.describe(), prepared.mapping.describe()),
        );
        if !overrides.is_empty() || args.key.is_some() {
            let json = serde_json::to_string(&prepared.mapping.remembered()).unwrap_or_default();
            if let Err(e) = lock().save_import_mapping(&header_key.borrow(), &json) {
                say(progress, &format!("the mapping is not remembered for the next file ({e})"));
            }
        }
        let options = PlanOptions {
            archive_missing: args.archive_missing,
            archive_share: args.archive_share / 100.0,
            empty_clears: args.empty_clears,
        };
        let failed = match args.failed_only {
            true => Some(session::failed_rows(&lock(), file_name, connection).map_err(refused)?),
            false => None,
        };
        let retry_of = failed.as_ref().map(|f| f.import);
        let failed = failed.map(|f| f.keys);
        // The plan is streamed: written to --plan and counted as it is made, and kept only when
        // it is to be rehearsed or applied (a million-row file is not held to print its counts).
        let mut plan_file =
            args.plan.as_deref().map(import::files::PlanWriter::create).transpose().map_err(Failure::usage)?;
        let keep = args.apply || args.rehearse;
        let (mut counts, mut kept, mut invalid, mut write_error) = (Counts::default(), Vec::new(), Vec::new(), None);
        progress.set_message("reading the current users");
        let bar = progress.clone();
        let planned = import::make_plan(
            client,
            schema,
            &target,
            prepared,
            options,
            cancel,
            move |done, total| {
                if let Some(total) = total {
                    bar.set_length(total);
                }
                bar.set_position(done);
            },
            |row| {
                if failed.as_ref().is_some_and(|f| !f.contains(&row.key)) {
                    return;
                }
                counts.add(&row);
                if let Some(writer) = plan_file.as_mut().filter(|_| write_error.is_none()) {
                    write_error = writer.write(&row).err();
                }
                if row.action == Action::Invalid && invalid.len() < 20 {
                    invalid.push(format!("row {} ({}): {}", row.row, row.key, row.reason));
                }
                if keep {
                    kept.push(row);
                }
            },
        )
        .await
        .map_err(|e| match e {
            PlanError::Service(e) => Failure::from(e),
            PlanError::Refused(message) => Failure::usage(message),
        })?;
        progress.set_message("");
        if let Some(e) = write_error {
            return Err(Failure::usage(e));
        }
        if let Some(writer) = plan_file {
            writer.finish().map_err(Failure::usage)?;
        }
        println!("{}", counts.summary());
        if let Some(note) = counts.empty_note((!args.empty_clears).then_some("use --empty-clears")) {
            say(progress, &note);
        }
        for line in &invalid {
            say(progress, line);
        }
        if counts.invalid > 20 {
            say(
                progress,
                &format!("… and {} more (see --plan)", counted(counts.invalid - 20, "invalid row", "invalid rows")),
            );
        }
        (None, Vec::new(), kept, planned.reading, retry_of)
    };
    if import_id.is_some()
        && let Some(path) = &args.plan
    {
        import::files::write_plan(path, &plan_rows).map_err(Failure::usage)?;
    }
    if args.rehearse {
        let scratch =
            tempfile::tempdir().map_err(|e| Failure::new(6, format!("cannot make a scratch folder ({e})")))?;
        progress.set_message("rehearsing on a sandbox");
        let rehearsal = import::rehearse::rehearse(&plan_rows, &scratch.path().join("rehearsal.sqlite3"))
            .await
            .map_err(|e| Failure::new(6, e))?;
        progress.set_message("");
        println!("{}", rehearsal.summary());
        for (row, key, message) in rehearsal.refused.iter().take(20) {
            say(progress, &format!("row {row} ({key}) would be refused: {message}"));
        }
        return Ok(());
    }
    if !args.apply && !args.resume {
        return Ok(());
    }
    check_scopes(client, &plan_rows).await?;
    let missing = plan_rows.iter().filter(|r| r.row == 0).count();
    if missing > 0
        && !args.yes
        && !confirm(&format!("archive {} missing from the file?", counted(missing as u64, "user", "users")))
    {
        return Err(Failure::usage(format!(
            "--archive-missing would archive {}; confirm with --yes (or answer y) to apply",
            counted(missing as u64, "user", "users")
        )));
    }
    let (import_id, journal) = match import_id {
        Some(id) => (id, journal),
        None => {
            let origin = crate::store::Origin { retry_of, skip_invalid: args.skip_invalid };
            session::begin(&store, file_name, &digest, connection, origin, &plan_rows).map_err(refused)?
        }
    };
    let to_send = journal.iter().filter(|j| session::still_to_apply(j.state)).count() as u64;
    progress.set_length(to_send);
    progress.set_position(0);
    let bar = progress.clone();
    let options = ApplyOptions {
        concurrency: usize::from(args.concurrency),
        overwrite: args.overwrite,
        batch: usize::from(args.batch_size),
    };
    let outcome =
        import::apply(client, &target, &reading, &store, import_id, journal, options, cancel, move |_, _| bar.inc(1))
            .await;
    let journal = lock().import_rows(import_id).map_err(|e| Failure::new(6, e.to_string()))?;
    write_outputs(args, &target, &plan_rows, &journal, progress)?;
    match outcome {
        Ok(applied) => {
            if let Err(e) = lock().finish_import(import_id) {
                say(progress, &format!("the import is complete but not marked so ({e})"));
            }
            // The import is one piece of work: a resumed run, or the rows that failed applied
            // again, answer for the whole of it (issue 46), with the run's own rows beside it.
            let whole = session::whole(&lock(), import_id).map_err(|e| Failure::new(6, e.to_string()))?;
            match args.resume || whole.runs > 1 {
                true => println!("the whole import: {}; this run: {}", whole.summary(), applied.sent_summary()),
                false => println!("{}", whole.summary()),
            }
            if !whole.landed() {
                let invalid = whole.invalid - whole.invalid_by_choice;
                let skip = match invalid {
                    0 => "",
                    _ => " (or skip the invalid rows by choice with --skip-invalid)",
                };
                return Err(Failure::new(
                    ROW_FAILURES,
                    format!(
                        "{} not applied; see --results, fix the file and run it again with --apply --failed-only{skip}",
                        counted(whole.not_landed(), "row of the import was", "rows of the import were")
                    ),
                ));
            }
            Ok(())
        }
        Err(Stopped::Service(crate::api::ApiError::Cancelled)) => Err(Failure::new(
            130,
            "the rows applied so far are in the journal; the same command with --resume continues",
        )),
        Err(Stopped::Service(e)) => Err(Failure::new(
            e.exit_code(),
            format!(
                "{e}; the rows applied so far are in the journal, and --resume continues after checking the last one"
            ),
        )),
        Err(Stopped::Journal(e)) => Err(Failure::new(6, e)),
    }
}

fn write_outputs(
    args: &ImportArgs,
    target: &Target,
    plan_rows: &[PlannedRow],
    journal: &[JournalRow],
    progress: &ProgressBar,
) -> Result<(), Failure> {
    if let Some(path) = &args.results {
        import::files::write_results(path, &args.file, args.sheet.as_deref(), plan_rows, journal)
            .map_err(|e| Failure::new(2, e))?;
    }
    if let Some(path) = &args.undo {
        let n = import::files::write_undo(path, target, journal).map_err(|e| Failure::new(2, e))?;
        say(
            progress,
            &format!("wrote the undo of {} to {}; import it to revert", counted(n, "row", "rows"), path.display()),
        );
    }
    Ok(())
}

/// The token's scopes cover the writes: `users.write`, and `groups.write` for group changes.
async fn check_scopes(client: &crate::api::Client, rows: &[PlannedRow]) -> Result<(), Failure> {
    let lacking = session::lacking_scopes(client, rows).await?;
    if lacking.is_empty() { Ok(()) } else { Err(Failure::new(4, session::lacking_sentence(&lacking))) }
}

/// A step refused: the person's to fix (exit 2) or the database's (exit 6).
fn refused(refusal: session::Refusal) -> Failure {
    match refusal {
        session::Refusal::Usage(message) => Failure::usage(message),
        session::Refusal::Store(message) => Failure::new(6, message),
    }
}

fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    eprint!("orgql: {question} [y/N] ");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).is_ok() && matches!(answer.trim(), "y" | "Y" | "yes")
}

fn overrides(maps: &[String]) -> Result<Vec<(String, String)>, Failure> {
    maps.iter()
        .map(|m| {
            m.split_once('=').map(|(c, f)| (c.trim().to_owned(), f.trim().to_owned())).ok_or_else(|| {
                Failure::usage(format!("--map {m}: write it as COLUMN=field (or COLUMN= to leave a column out)"))
            })
        })
        .collect()
}

fn open_store() -> Result<Store, Failure> {
    let path = Store::default_path()
        .ok_or_else(|| Failure::new(6, "no data folder for orgql's database (set HOME or XDG_DATA_HOME)"))?;
    Store::open(&path).map_err(|e| Failure::new(6, format!("the import's journal needs orgql's database: {e}")))
}
