//! `orgql schedule`: deliveries of an export on a schedule, registered with the system's own
//! scheduler (Task Scheduler, a systemd user timer, the person's crontab, a LaunchAgent), each
//! run recorded in orgql's database ([`crate::schedule`], docs/schedules.md).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Local};
use clap::{Args, Subcommand, ValueEnum};

use super::Failure;
use super::connection::{ConnectionArgs, secret_store};
use crate::schedule::definition::{Destination, Kind, Schedule, check_name};
use crate::schedule::deliver::RunFailure;
use crate::schedule::entry::Job;
use crate::schedule::register::{self, Scheduler};
use crate::schedule::runs::{self, Ended};
use crate::schedule::sftp::{self, SftpTarget, SshAuth};
use crate::schedule::when::When;
use crate::store::{RunState, Store};

/// The subcommands of `orgql schedule`.
#[derive(Subcommand, Debug)]
pub enum ScheduleCommand {
    /// Make (or replace) a schedule and register it with the system's scheduler.
    Add(Box<AddArgs>),
    /// Every schedule: when, its next run, its last run (time, outcome, rows, where it went).
    List,
    /// One delivery now: exactly what the system's scheduler runs.
    Run {
        /// The schedule's name.
        name: String,
    },
    /// A schedule's runs, newest first.
    History {
        /// The schedule's name.
        name: String,
        /// How many runs to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Remove a schedule and its entry in the system's scheduler.
    Remove {
        /// The schedule's name.
        name: String,
    },
    /// The entry as it is (or would be) registered with a scheduler.
    Show {
        /// The schedule's name.
        name: String,
        /// The scheduler's format (by default this system's).
        #[arg(long = "as", value_enum)]
        format: Option<SchedulerArg>,
    },
}

/// `--as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchedulerArg {
    /// Windows Task Scheduler's XML.
    TaskScheduler,
    /// A systemd user timer and its service.
    Systemd,
    /// A crontab line.
    Cron,
    /// A launchd LaunchAgent.
    Launchd,
}

impl From<SchedulerArg> for Scheduler {
    fn from(arg: SchedulerArg) -> Scheduler {
        match arg {
            SchedulerArg::TaskScheduler => Scheduler::TaskScheduler,
            SchedulerArg::Systemd => Scheduler::Systemd,
            SchedulerArg::Cron => Scheduler::Cron,
            SchedulerArg::Launchd => Scheduler::Launchd,
        }
    }
}

/// Options of `orgql schedule add`.
#[derive(Args, Debug)]
pub struct AddArgs {
    /// The schedule's name (letters, digits, - and _): its files and its scheduler entry carry it.
    name: String,
    /// The connection profile to run with (see `orgql profile add`).
    #[arg(long)]
    profile: String,
    /// An operation saved in the app, as COLLECTION/NAME or a NAME found once.
    #[arg(long = "operation", value_name = "SAVED", conflicts_with_all = ["file", "execute"], required_unless_present_any = ["file", "execute"])]
    saved: Option<String>,
    /// A file holding the GraphQL document.
    #[arg(long, short = 'f', conflicts_with = "execute")]
    file: Option<PathBuf>,
    /// The GraphQL document itself.
    #[arg(long = "execute", short = 'e', value_name = "QUERY")]
    execute: Option<String>,
    /// Variables as a JSON object (a saved operation's by default).
    #[arg(long)]
    variables: Option<String>,
    /// When, in local time: hourly, "daily HH:MM", "weekdays HH:MM", "mon HH:MM" (any day, or
    /// days: "mon,thu 06:30") or "monthly D HH:MM".
    #[arg(long, value_name = "WHEN")]
    every: String,
    /// Where: a folder (ending with / or \; each delivery NAME-YYYY-MM-DD.csv), a file (replaced
    /// each run), a Windows share (\\server\hr\) or sftp://user@host[:port]/dir/.
    #[arg(long, value_name = "DEST")]
    to: String,
    /// CSV (the default) or an Excel workbook.
    #[arg(long, value_enum, default_value = "csv")]
    format: FormatArg,
    /// Start each CSV with a UTF-8 byte order mark (for spreadsheet programs), as `orgql export --bom`.
    #[arg(long)]
    bom: bool,
    /// Cells as they are, without the leading ' that stops formulas, as `orgql export --raw`.
    #[arg(long)]
    raw: bool,
    /// Also deliver the rows added, changed and removed since the last delivered run.
    #[arg(long)]
    changes_since_last: bool,
    /// Keep the last N deliveries in the folder; older ones orgql delivered are removed.
    #[arg(long, value_name = "N")]
    keep: Option<u32>,
    /// Only write the definition (`orgql schedule show` prints the entry for IT to deploy).
    #[arg(long)]
    no_register: bool,
    /// Run whether or not you are signed in (Windows: Task Scheduler asks for your password and
    /// keeps it; Linux: needs lingering; macOS: not possible).
    #[arg(long)]
    signed_out: bool,
    /// The private key an SFTP delivery signs in with (default ~/.ssh/id_ed25519 or id_rsa).
    #[arg(long, value_name = "FILE")]
    ssh_key: Option<PathBuf>,
    /// Accept the SFTP server's host key with this fingerprint (as `ssh-keygen -lf` prints it).
    #[arg(long, value_name = "SHA256:…")]
    accept_host_key: Option<String>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// Comma-separated values.
    Csv,
    /// An Excel workbook.
    Xlsx,
}

/// Runs an `orgql schedule` subcommand.
pub fn run(command: ScheduleCommand) -> Result<(), Failure> {
    match command {
        ScheduleCommand::Add(args) => super::block_on(add(*args)),
        ScheduleCommand::List => list(),
        ScheduleCommand::Run { name } => super::block_on(run_one(&name)),
        ScheduleCommand::History { name, limit } => history(&name, limit),
        ScheduleCommand::Remove { name } => remove(&name),
        ScheduleCommand::Show { name, format } => show(&name, format),
    }
}

/// orgql's database (where schedules are kept).
fn store_path() -> Result<PathBuf, Failure> {
    Store::default_path()
        .ok_or_else(|| Failure::usage("no data folder for orgql's database (set HOME or XDG_DATA_HOME)"))
}

fn open_store() -> Result<Store, Failure> {
    Store::open(&store_path()?).map_err(|e| Failure::new(6, e.to_string()))
}

/// The schedule `name`, or one sentence saying there is none.
fn load(store: &Store, name: &str) -> Result<Schedule, Failure> {
    let definition = store.schedule_definition(name).map_err(|e| Failure::new(6, e.to_string()))?;
    let definition = definition.ok_or_else(|| {
        Failure::usage(format!("there is no schedule named '{name}'; `orgql schedule list` shows them"))
    })?;
    Schedule::from_json(&definition).map_err(|e| Failure::usage(format!("the schedule '{name}': {e}")))
}

/// The account the scheduler runs a delivery as: `DOMAIN\name` on Windows, the user name elsewhere.
fn account() -> String {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match (var("USERDOMAIN"), var("USERNAME")) {
        (Some(domain), Some(user)) => format!("{domain}\\{user}"),
        _ => var("USER")
            .or_else(|| var("LOGNAME"))
            .or_else(|| var("USERNAME"))
            .or_else(|| {
                let home = std::env::var_os("HOME")?;
                Path::new(&home).file_name().map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default(),
    }
}

/// The scheduler's entry of `schedule`: this program, `schedule run NAME`.
fn job(schedule: &Schedule) -> Result<Job, Failure> {
    let program = std::env::current_exe()
        .map(|p| crate::platform::shown_path(&p))
        .map_err(|e| Failure::new(6, format!("orgql cannot tell where its own program is ({e})")))?;
    Ok(Job {
        name: schedule.name.clone(),
        when: schedule.when.clone(),
        program,
        arguments: vec!["schedule".into(), "run".into(), schedule.name.clone()],
        secret_file: schedule.secret_file.clone(),
        signed_out: schedule.signed_out,
        user: account(),
    })
}

/// `Mon 2026-11-30 07:00`.
fn when_shown(at: &DateTime<Local>) -> String {
    at.format("%a %Y-%m-%d %H:%M").to_string()
}

/// The document, its variables and where they came from.
fn document(args: &AddArgs) -> Result<(String, Option<serde_json::Value>, String), Failure> {
    let (text, saved_variables, source) = match (&args.saved, &args.file, &args.execute) {
        (Some(name), ..) => {
            let saved = super::input::saved_operation(name, None)?;
            (saved.query, Some(saved.variables), format!("the saved operation {name}"))
        }
        (None, Some(file), _) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Failure::usage(format!("cannot read the query file {} ({e})", file.display())))?;
            (text, None, crate::platform::shown_path(file).display().to_string())
        }
        (None, None, Some(text)) => (text.clone(), None, "the command line".to_owned()),
        (None, None, None) => return Err(Failure::usage("give the query with --operation SAVED, -f FILE or -e QUERY")),
    };
    if text.trim().is_empty() {
        return Err(Failure::usage("the query is empty; give the document to deliver"));
    }
    let variables = match args.variables.clone().or(saved_variables).filter(|v| !v.trim().is_empty()) {
        None => None,
        Some(text) => match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(value @ serde_json::Value::Object(_)) => Some(value),
            Ok(_) => return Err(Failure::usage("--variables must be a JSON object")),
            Err(e) => return Err(Failure::usage(format!("the variables are not valid JSON ({e})"))),
        },
    };
    Ok((text, variables, source))
}

/// `--to` checked and made absolute (the scheduler runs from another folder).
fn destination(to: &str, keep: Option<u32>) -> Result<String, Failure> {
    let destination = Destination::parse(to).map_err(Failure::usage)?;
    if keep.is_some() && !destination.holds_many() {
        return Err(Failure::usage("--keep applies to a folder or an SFTP folder; give --to a folder ending with /"));
    }
    if keep == Some(0) {
        return Err(Failure::usage("--keep 0 would remove every delivery; give 1 or more"));
    }
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match destination {
        Destination::Sftp(url) => Ok(url),
        Destination::Folder(dir) => {
            let separator = if to.ends_with('\\') { '\\' } else { std::path::MAIN_SEPARATOR };
            let text = absolute(&dir).display().to_string();
            Ok(if text.ends_with(['/', '\\']) { text } else { format!("{text}{separator}") })
        }
        Destination::File(file) => {
            let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !parent.is_dir() {
                return Err(Failure::usage(format!(
                    "the folder {} does not exist; create it first, or end --to with / to name a folder",
                    parent.display()
                )));
            }
            Ok(absolute(&file).display().to_string())
        }
    }
}

/// `orgql schedule add`.
async fn add(args: AddArgs) -> Result<(), Failure> {
    check_name(&args.name).map_err(Failure::usage)?;
    let when: When = args.every.parse().map_err(Failure::usage)?;
    let (text, variables, source) = document(&args)?;
    crate::profiles::ProfileFile::default_location()
        .and_then(|file| file.get(&args.profile))
        .map_err(Failure::usage)?;
    let to = destination(&args.to, args.keep)?;
    let (ssh_key, host_key) = match Destination::parse(&to).map_err(Failure::usage)? {
        Destination::Sftp(url) => {
            let (key, host) = accept_server(&url, &args).await?;
            (key, Some(host))
        }
        Destination::Folder(dir) if !dir.is_dir() && !to.starts_with(r"\\") => {
            return Err(Failure::usage(format!(
                "the folder {} does not exist; create it first, or give another --to",
                dir.display()
            )));
        }
        _ => (None, None),
    };
    let store_file = store_path()?;
    let scheduler = (!args.no_register).then(Scheduler::native);
    let mut notes = Vec::new();
    // With nobody signed in, Linux's keyring is locked or absent: the secret goes in a file only
    // its owner can read (passed by systemd as a credential).
    let secret_file = match scheduler {
        Some(Scheduler::Systemd | Scheduler::Cron) => {
            let file = runs::schedule_folder(&store_file, &args.name).join("client-secret");
            keep_secret(&args.profile, &file)?;
            notes.push(format!(
                "the profile's secret is kept for runs with nobody signed in in {} (readable by you only)",
                file.display()
            ));
            Some(file)
        }
        _ => None,
    };
    let schedule = Schedule {
        name: args.name.clone(),
        profile: args.profile.clone(),
        document: text,
        variables,
        operation: None,
        source,
        when,
        to,
        format: match args.format {
            FormatArg::Csv => Kind::Csv,
            FormatArg::Xlsx => Kind::Xlsx,
        },
        bom: args.bom,
        raw: args.raw,
        changes_since_last: args.changes_since_last,
        keep: args.keep,
        ssh_key,
        host_key,
        secret_file,
        signed_out: args.signed_out,
        registered: scheduler.map(|s| s.name().to_owned()),
    };
    let store = open_store()?;
    let replaced = store.schedule_definition(&schedule.name).map_err(|e| Failure::new(6, e.to_string()))?.is_some();
    if replaced
        && let Ok(old) = load(&store, &schedule.name)
        && let Some(old_scheduler) = old.registered.as_deref().and_then(Scheduler::parse)
        && Some(old_scheduler) != scheduler
    {
        drop(register::unregister(old_scheduler, &schedule.name));
    }
    store.put_schedule(&schedule.name, &schedule.to_json()).map_err(|e| Failure::new(6, e.to_string()))?;
    let next = when_shown(&schedule.next_run(&Local::now()));
    let verb = if replaced { "replaced" } else { "scheduled" };
    let head = format!("{verb} '{}': {} to {}; next run {next}", schedule.name, schedule.when.describe(), schedule.to);
    match scheduler {
        None => {
            println!(
                "{head} (not registered: `orgql schedule show {} --as …` prints the entry to deploy)",
                schedule.name
            );
        }
        Some(scheduler) => {
            let job = job(&schedule)?;
            let registered = tokio::task::spawn_blocking(move || register::register(scheduler, &job))
                .await
                .map_err(|e| Failure::new(6, e.to_string()))?;
            match registered {
                Ok(registered) => {
                    println!("{head} (registered with {})", scheduler.name());
                    notes.extend(registered.notes);
                }
                Err(e) => {
                    return Err(Failure::new(
                        6,
                        format!(
                            "the schedule '{}' is saved but {} did not register it ({e}); fix that and add it again, or use --no-register and deploy `orgql schedule show {} --as {}`",
                            schedule.name,
                            scheduler.name(),
                            schedule.name,
                            scheduler.name()
                        ),
                    ));
                }
            }
        }
    }
    for note in notes {
        println!("note: {note}");
    }
    Ok(())
}

/// Writes the profile's secret (keyring, else ORGQL_CLIENT_SECRET) to `file`, owner-only.
fn keep_secret(profile: &str, file: &Path) -> Result<(), Failure> {
    let store = secret_store();
    let kept = store.client_secret(profile).ok().flatten();
    let secret = kept
        .or_else(|| std::env::var(crate::profiles::SECRET_ENV).ok().filter(|s| !s.is_empty()).map(crate::secret::Secret::new))
        .ok_or_else(|| {
            Failure::usage(format!(
                "the profile '{profile}' has no stored secret for the delivery to use; store one with 'orgql profile add {profile} …' or set {}",
                crate::profiles::SECRET_ENV
            ))
        })?;
    let written = file
        .parent()
        .map_or(Ok(()), crate::platform::private::create_dir_all)
        .and_then(|()| crate::platform::private::create_truncated(file))
        .and_then(|mut out| out.write_all(secret.expose().as_bytes()).and_then(|()| out.sync_all()));
    written.map_err(|e| {
        Failure::new(6, format!("the secret could not be kept for unattended runs in {} ({e})", file.display()))
    })
}

/// Asks the SFTP server for its host key and has it accepted (shown and confirmed on a
/// terminal, or given with `--accept-host-key`), then signs in and lists the folder, so that a
/// schedule is saved only when its deliveries can go there. The key file and the fingerprint.
async fn accept_server(url: &str, args: &AddArgs) -> Result<(Option<PathBuf>, String), Failure> {
    let target = SftpTarget::parse(url).map_err(Failure::usage)?;
    let step = Duration::from_secs(30);
    let shown = sftp::host_key(&target, step).await.map_err(|e| Failure::new(e.exit_code(), e.to_string()))?;
    let host = format!("{}:{}", target.host, target.port);
    match &args.accept_host_key {
        Some(given) if given.trim() == shown.fingerprint => {}
        Some(given) => {
            return Err(Failure::new(
                6,
                format!(
                    "the SFTP server at {host} shows the host key {}, not {} given with --accept-host-key; ask its administrator which is right before accepting it",
                    shown.fingerprint,
                    given.trim()
                ),
            ));
        }
        None if std::io::stdin().is_terminal() => {
            eprint!(
                "The SFTP server at {host} shows the {} host key {}.\nAccept it for this schedule (compare it with what its administrator says)? [y/N] ",
                shown.algorithm, shown.fingerprint
            );
            let mut answer = String::new();
            drop(std::io::stdin().lock().read_line(&mut answer));
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                return Err(Failure::usage("the host key was not accepted; the schedule was not saved"));
            }
        }
        None => {
            return Err(Failure::usage(format!(
                "the SFTP server at {host} shows the host key {}; check it with its administrator and add --accept-host-key {} to accept it",
                shown.fingerprint, shown.fingerprint
            )));
        }
    }
    let key = args.ssh_key.as_ref().map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
    let auth = match &key {
        Some(file) => SshAuth::KeyFile(file.clone()),
        None => SshAuth::default_for_person().ok_or_else(|| {
            Failure::usage("no SSH key to sign in to the SFTP server with (~/.ssh/id_ed25519 or id_rsa, or an agent); give one with --ssh-key FILE")
        })?,
    };
    if key.is_none() && matches!(auth, SshAuth::Agent) {
        eprintln!(
            "orgql: signing in with the SSH agent, which is gone once you sign out: give --ssh-key FILE for deliveries with nobody signed in"
        );
    }
    sftp::list(&target, &auth, &shown.fingerprint, step)
        .await
        .map_err(|e| Failure::new(e.exit_code(), format!("{e}; the schedule was not saved")))?;
    let key = key.or(match auth {
        SshAuth::KeyFile(file) => Some(file),
        SshAuth::Agent => None,
    });
    Ok((key, shown.fingerprint))
}

/// `orgql schedule run NAME`: one delivery, recorded; exit 0 only when it was delivered.
async fn run_one(name: &str) -> Result<(), Failure> {
    let store = open_store()?;
    let schedule = load(&store, name)?;
    drop(store);
    let path = store_path()?;
    let interrupt = crate::platform::signal::Interrupt::listen();
    let client = || -> Result<std::sync::Arc<crate::api::Client>, RunFailure> {
        let secret = runs::unattended_secret(&schedule)?;
        let connection = ConnectionArgs {
            profile: Some(schedule.profile.clone()),
            base_url: None,
            client_id: None,
            scope: None,
            timeout: 30,
            network: Box::default(),
            given_secret: secret,
        };
        connection.client().map_err(|f| {
            let code = if f.code == 2 { 3 } else { f.code };
            RunFailure { code, message: format!("the delivery '{}' cannot sign in: {}", schedule.name, f.message) }
        })
    };
    let Ended { result, .. } = runs::run_recorded(&schedule, &path, client, interrupt.token()).await;
    match result {
        Ok(delivered) => {
            let rows = crate::import::plan::counted(delivered.rows, "row", "rows");
            let mut line = format!("orgql: delivered {rows} to {}", delivered.to);
            if let (Some(changes), Some(counts)) = (&delivered.changes_to, delivered.counts) {
                line.push_str(&format!("; changes ({}) to {changes}", counts.summary()));
            }
            if !delivered.removed.is_empty() {
                line.push_str(&format!("; removed {} older", delivered.removed.len()));
            }
            eprintln!("{line}");
            Ok(())
        }
        Err(failure) => match interrupt.received() {
            Some((signal, code)) => Err(Failure::new(code, format!("stopped by {signal}; nothing was delivered"))),
            None => Err(Failure::new(failure.code, failure.message)),
        },
    }
}

/// `orgql schedule list`.
fn list() -> Result<(), Failure> {
    let store = open_store()?;
    let schedules = store.schedule_definitions().map_err(|e| Failure::new(6, e.to_string()))?;
    if schedules.is_empty() {
        println!(
            "no schedules yet; make one with `orgql schedule add NAME --profile P -e QUERY --every \"mon 07:00\" --to FOLDER/`"
        );
        return Ok(());
    }
    let now = Local::now();
    let mut rows = vec![["NAME", "WHEN", "NEXT RUN", "LAST RUN", "OUTCOME", "ROWS", "TO"].map(str::to_owned)];
    for (name, definition) in schedules {
        let Ok(schedule) = Schedule::from_json(&definition) else {
            rows.push([
                name,
                "?".into(),
                String::new(),
                String::new(),
                "unreadable".into(),
                String::new(),
                String::new(),
            ]);
            continue;
        };
        let last = store.schedule_runs(&name, 1).map_err(|e| Failure::new(6, e.to_string()))?.into_iter().next();
        let failed = store.failures_in_a_row(&name).unwrap_or(0);
        let (at, outcome, count, to) = match last {
            None => (String::from("never"), String::new(), String::new(), schedule.to.clone()),
            Some(run) => {
                let outcome = match (run.state, failed) {
                    (RunState::Failed, n) if n > 1 => {
                        format!("failed ({n} in a row): {}", run.message.unwrap_or_default())
                    }
                    (RunState::Failed | RunState::Skipped, _) => {
                        format!("{}: {}", run.state.word(), run.message.unwrap_or_default())
                    }
                    (state, _) => state.word().to_owned(),
                };
                let count = run.rows.map(|n| n.to_string()).unwrap_or_default();
                (when_shown(&run.started), outcome, count, run.delivered_to.unwrap_or(schedule.to.clone()))
            }
        };
        let next = when_shown(&schedule.next_run(&now));
        rows.push([name, schedule.when.to_string(), next, at, outcome, count, to]);
    }
    print_table(&rows);
    Ok(())
}

/// Prints rows as columns, each as wide as its widest cell (the last one as it is).
fn print_table<const N: usize>(rows: &[[String; N]]) {
    let mut widths = [0usize; N];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  ", width = widths[i]));
            }
        }
        println!("{}", crate::platform::terminal::printable_lines(line.trim_end()));
    }
}

/// `orgql schedule history NAME`.
fn history(name: &str, limit: usize) -> Result<(), Failure> {
    let store = open_store()?;
    load(&store, name)?;
    let runs = store.schedule_runs(name, limit).map_err(|e| Failure::new(6, e.to_string()))?;
    if runs.is_empty() {
        println!("'{name}' has not run yet; `orgql schedule run {name}` delivers now");
        return Ok(());
    }
    let mut rows = vec![["STARTED", "TOOK", "OUTCOME", "ROWS", "BYTES", "WHERE OR WHY"].map(str::to_owned)];
    for run in runs {
        let took = run.ended.map(|end| format!("{:.1} s", (end - run.started).num_milliseconds() as f64 / 1000.0));
        let outcome = match run.exit_code {
            Some(code) if code != 0 => format!("{} (exit {code})", run.state.word()),
            _ => run.state.word().to_owned(),
        };
        let whereto = match (run.delivered_to, run.changes_to, run.message) {
            (Some(to), Some(changes), _) => format!("{to} (changes: {changes})"),
            (Some(to), None, _) => to,
            (None, _, Some(message)) => message,
            _ => String::new(),
        };
        rows.push([
            run.started.format("%Y-%m-%d %H:%M:%S").to_string(),
            took.unwrap_or_default(),
            outcome,
            run.rows.map(|n| n.to_string()).unwrap_or_default(),
            run.bytes.map(|n| n.to_string()).unwrap_or_default(),
            whereto,
        ]);
    }
    print_table(&rows);
    Ok(())
}

/// `orgql schedule remove NAME`.
fn remove(name: &str) -> Result<(), Failure> {
    let store = open_store()?;
    let schedule = load(&store, name)?;
    let mut said = format!("removed the schedule '{name}'");
    if let Some(scheduler) = schedule.registered.as_deref().and_then(Scheduler::parse) {
        match register::unregister(scheduler, name) {
            Ok(true) => said.push_str(&format!(" and its {} entry", scheduler.name())),
            Ok(false) => said.push_str(&format!(" ({} had no entry for it)", scheduler.name())),
            Err(e) => {
                return Err(Failure::new(
                    6,
                    format!(
                        "{} did not remove the entry of '{name}' ({e}); the schedule is kept: try again",
                        scheduler.name()
                    ),
                ));
            }
        }
    }
    store.remove_schedule(name).map_err(|e| Failure::new(6, e.to_string()))?;
    let folder = runs::schedule_folder(&store_path()?, name);
    if folder.exists()
        && let Err(e) = std::fs::remove_dir_all(&folder)
    {
        eprintln!("orgql: {} stays ({e}); remove it by hand", folder.display());
    }
    println!("{said}; its deliveries stay where they are");
    Ok(())
}

/// `orgql schedule show NAME --as …`.
fn show(name: &str, format: Option<SchedulerArg>) -> Result<(), Failure> {
    let store = open_store()?;
    let schedule = load(&store, name)?;
    let scheduler = format.map(Scheduler::from).unwrap_or_else(Scheduler::native);
    print!("{}", scheduler.entry_text(&job(&schedule)?));
    Ok(())
}
