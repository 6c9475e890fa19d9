//! `orgql schedule`: deliveries of an export on a schedule, registered with the system's own
//! scheduler (Task Scheduler, a systemd user timer, the person's crontab, a LaunchAgent), each
//! run recorded in orgql's database ([`crate::schedule`], docs/schedules.md).

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::time::Duration;

use chrono::Local;
use clap::{Args, Subcommand, ValueEnum};

use super::Failure;
use super::connection::{ConnectionArgs, secret_store};
use crate::schedule::definition::{Destination, Kind, Schedule, check_name};
use crate::schedule::deliver::RunFailure;
use crate::schedule::entry::Job;
use crate::schedule::manage;
use crate::schedule::register::Scheduler;
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
    manage::load(store, name).map_err(refused)
}

/// A refused step as the command's failure (exit 2 for what was given, else 6).
fn refused(refused: manage::Refused) -> Failure {
    if refused.usage { Failure::usage(refused.message) } else { Failure::new(6, refused.message) }
}

/// The scheduler's entry of `schedule`: this program, `schedule run NAME`.
fn job(schedule: &Schedule) -> Result<Job, Failure> {
    manage::job(schedule).map_err(|e| Failure::new(6, e))
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

/// `orgql schedule add`.
async fn add(args: AddArgs) -> Result<(), Failure> {
    check_name(&args.name).map_err(Failure::usage)?;
    let when: When = args.every.parse().map_err(Failure::usage)?;
    let (text, variables, source) = document(&args)?;
    crate::profiles::ProfileFile::default_location()
        .and_then(|file| file.get(&args.profile))
        .map_err(Failure::usage)?;
    let to = manage::destination(&args.to, args.keep).map_err(Failure::usage)?;
    let (ssh_key, host_key) = match Destination::parse(&to).map_err(Failure::usage)? {
        Destination::Sftp(url) => {
            let (key, host) = accept_server(&url, &args).await?;
            (key, Some(host))
        }
        _ => (None, None),
    };
    let store_file = store_path()?;
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
        secret_file: None,
        signed_out: args.signed_out,
        registered: None,
    };
    let profile = args.profile.clone();
    let register = !args.no_register;
    let saved =
        tokio::task::spawn_blocking(move || manage::save(&store_file, schedule, register, || kept_secret(&profile)))
            .await
            .map_err(|e| Failure::new(6, e.to_string()))?
            .map_err(refused)?;
    println!("{}", saved.summary);
    for note in saved.notes {
        println!("note: {note}");
    }
    Ok(())
}

/// The profile's secret for runs with nobody signed in: the keyring's, else ORGQL_CLIENT_SECRET.
fn kept_secret(profile: &str) -> Result<crate::secret::Secret, String> {
    let kept = secret_store().client_secret(profile).ok().flatten();
    kept.or_else(|| std::env::var(crate::profiles::SECRET_ENV).ok().filter(|s| !s.is_empty()).map(crate::secret::Secret::new))
        .ok_or_else(|| {
            format!(
                "the profile '{profile}' has no stored secret for the delivery to use; store one with 'orgql profile add {profile} …' or set {}",
                crate::profiles::SECRET_ENV
            )
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
    let now = Local::now();
    let schedules = manage::overview(&store, 1, &now).map_err(|e| Failure::new(6, e))?;
    if schedules.is_empty() {
        println!(
            "no schedules yet; make one with `orgql schedule add NAME --profile P -e QUERY --every \"mon 07:00\" --to FOLDER/`"
        );
        return Ok(());
    }
    let mut rows = vec![["NAME", "WHEN", "NEXT RUN", "LAST RUN", "OUTCOME", "ROWS", "TO"].map(str::to_owned)];
    for overview in schedules {
        let Ok(schedule) = &overview.schedule else {
            let unreadable = ["?", "", "", "unreadable", "", ""].map(str::to_owned);
            let [a, b, c, d, e, f] = unreadable;
            rows.push([overview.name, a, b, c, d, e, f]);
            continue;
        };
        let (at, count) = match overview.runs.first() {
            None => (String::from("never"), String::new()),
            Some(run) => (manage::when_shown(&run.started), run.rows.map(|n| n.to_string()).unwrap_or_default()),
        };
        let outcome = match overview.runs.first() {
            Some(run) if run.state == RunState::Delivered => run.state.word().to_owned(),
            _ => overview.outcome(),
        };
        let next = overview.next.as_ref().map(manage::when_shown).unwrap_or_default();
        rows.push([overview.name.clone(), schedule.when.to_string(), next, at, outcome, count, overview.whereto()]);
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
    let removed = manage::remove(&store_path()?, name).map_err(refused)?;
    if let Some((folder, e)) = removed.left {
        eprintln!("orgql: {} stays ({e}); remove it by hand", folder.display());
    }
    println!("{}; its deliveries stay where they are", removed.said);
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
