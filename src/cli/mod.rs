//! The command line (contract section 2): the same `api`, `profiles`, `table` and `sandbox`
//! code as the desktop app, no egui.

mod connection;
mod doctor;
mod export;
mod import;
mod input;
mod logs;
mod operations;
mod places;
mod profile;
mod query;
mod reset;
mod sandbox;
mod schedule;
mod schema;
mod webhooks;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tokio_util::sync::CancellationToken;

use crate::api::ApiError;

/// orgql: explore an organization's learning-platform GraphQL API.
#[derive(Parser, Debug)]
#[command(name = "orgql", version, about, long_about = None, after_help = places::help_text())]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Remove orgql's settings, data, cache, logs and keyring entries, after listing them and asking.
    #[arg(long)]
    pub reset: bool,
    /// With --reset: remove without asking.
    #[arg(long, requires = "reset")]
    pub yes: bool,
    /// Also write logs to this file (the help shows where the desktop app writes them by default).
    #[arg(long, global = true, value_name = "PATH", help = logs::help())]
    pub log_file: Option<PathBuf>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the local sandbox: the whole service of the spec on this machine.
    Sandbox(sandbox::SandboxArgs),
    /// Run a query or mutation and print the JSON response.
    Query(query::QueryArgs),
    /// Export every node of the query's one connection to a CSV file or an Excel workbook.
    Export(export::ExportArgs),
    /// Plan (and with --apply make) bulk changes to users from a CSV/XLSX/ODS file.
    Import(import::ImportArgs),
    /// Manage connection profiles (their secrets live in the OS keyring).
    #[command(subcommand)]
    Profile(profile::ProfileCommand),
    /// Receive and store webhook deliveries, pull them from a listener elsewhere, or export the stored ones.
    #[command(subcommand)]
    Webhooks(webhooks::WebhooksCommand),
    /// List the operations saved in the app, or keep them as .graphql files (for git).
    #[command(subcommand)]
    Operations(operations::OperationsCommand),
    /// What changed in the service's schema (every version is kept), or the schema as SDL.
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Deliver an export on a schedule (to a folder, a file, a share or SFTP), registered with
    /// the system's own scheduler; every run recorded.
    #[command(subcommand)]
    Schedule(schedule::ScheduleCommand),
    /// Show the route to the service (settings files, proxy, certificate and who trusts it,
    /// token, schema); exit 0 when a query would work.
    Doctor(doctor::DoctorArgs),
}

/// A command that failed: the exit status of the contract and one sentence for stderr.
#[derive(Debug)]
pub struct Failure {
    /// 2 usage or input, 3 authentication, 4 scope, 5 GraphQL errors, 6 service or network, 8
    /// and 9 `operations check` (deprecated uses, no longer valid).
    pub code: u8,
    /// What happened and what to do.
    pub message: String,
}

impl Failure {
    /// A failure with an exit status.
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Failure { code, message: message.into() }
    }

    /// Bad usage or input (exit status 2).
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Failure::new(2, message.to_string())
    }
}

impl From<ApiError> for Failure {
    fn from(err: ApiError) -> Self {
        Failure::new(err.exit_code(), err.to_string())
    }
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    // A command (anything but the app alone) prints to the console it was started from.
    if std::env::args_os().nth(1).is_some() {
        crate::platform::attach_console();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    // The desktop app, started from a menu, has no terminal: its logs go to a file by default.
    let log_file =
        cli.log_file.clone().or_else(|| (cli.command.is_none() && !cli.reset).then(logs::default_for_app).flatten());
    if let Err(failure) = logs::init(log_file.as_deref()) {
        if cli.log_file.is_some() {
            return fail(failure);
        }
        // The app's own log file is a convenience: without it, logs still go to stderr.
        eprintln!("orgql: {}", failure.message);
        drop(logs::init(None));
    }
    crate::timing::mark_start();
    if cli.reset && cli.command.is_some() {
        return fail(Failure::usage("--reset runs alone; leave out the command"));
    }
    let result = match cli.command {
        None if cli.reset => reset::run(cli.yes),
        Some(Command::Sandbox(args)) => return sandbox::run(args),
        Some(Command::Query(args)) => block_on(query::run(args)),
        Some(Command::Export(args)) => block_on_one_thread(export::run(args)),
        Some(Command::Import(args)) => block_on(import::run(args)),
        Some(Command::Profile(command)) => profile::run(command),
        Some(Command::Webhooks(command)) => webhooks::run(command),
        Some(Command::Operations(command)) => operations::run(command),
        Some(Command::Schema(command)) => block_on(schema::run(command)),
        Some(Command::Schedule(command)) => schedule::run(command),
        Some(Command::Doctor(args)) => block_on(doctor::run(args)),
        None => desktop(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => fail(failure),
    }
}

/// Says why on stderr and gives the exit status.
fn fail(failure: Failure) -> ExitCode {
    // A message may quote what a service or a file said: shown, never obeyed by the terminal.
    eprintln!("orgql: {}", crate::platform::terminal::printable_lines(&failure.message));
    ExitCode::from(failure.code)
}

/// A command line clap refused, as the contract's one sentence on stderr and exit status 2;
/// `--help` and `--version` print as clap prints them.
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        err.exit();
    }
    // Clap's first paragraph says what is wrong ("error: the following required arguments were
    // not provided:\n  --out <OUT>"); its tips and usage follow after a blank line.
    let rendered = err.render().to_string();
    let what: Vec<&str> = rendered.lines().map(str::trim).take_while(|line| !line.is_empty()).collect();
    let what = what.join(" ");
    let what = what.strip_prefix("error: ").unwrap_or(&what).trim_end_matches('.');
    eprintln!("orgql: {what}; run the command with --help to see its options");
    ExitCode::from(2)
}

/// Opens the desktop app: `main` owns the runtime and hands the app a handle.
fn desktop() -> Result<(), Failure> {
    crate::platform::resident::return_freed_memory_at_once();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("orgql-worker")
        .build()
        .map_err(|e| Failure::new(6, format!("cannot start the async runtime ({e})")))?;
    let export_dir = directories::UserDirs::new()
        .and_then(|dirs| {
            dirs.document_dir().map(std::path::Path::to_path_buf).or_else(|| Some(dirs.home_dir().to_path_buf()))
        })
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let (finished, worker_done) = std::sync::mpsc::channel::<()>();
    let config = crate::ui::AppConfig {
        runtime: runtime.handle().clone(),
        profiles: crate::profiles::ProfileFile::default_location().ok(),
        secrets: connection::secret_store(),
        store_path: crate::store::Store::default_path(),
        sandbox_users: crate::ui::bench_sandbox_users().unwrap_or(500),
        export_dir,
        webhook_port: Some(crate::webhooks::listener::DEFAULT_LISTEN.port()),
        worker_finished: Some(finished),
    };
    let result = crate::ui::run_native(config).map_err(|e| Failure::new(6, e));
    // The workspace's last save (and whatever else was asked before the window closed) first.
    let _ = worker_done.recv_timeout(std::time::Duration::from_secs(3));
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    result
}

fn block_on(future: impl Future<Output = Result<(), Failure>>) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("orgql-cli")
        .build()
        .map_err(|e| Failure::new(6, format!("cannot start the async runtime ({e})")))?;
    runtime.block_on(future)
}

/// Like [`block_on`] on a runtime of one thread: what an export waits for (the next page, its
/// HTTP connection) is then woken on the thread that waits, not handed between threads on every
/// page; the export's file and record are written on a blocking thread of their own meanwhile.
fn block_on_one_thread(future: impl Future<Output = Result<(), Failure>>) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("orgql-cli")
        .build()
        .map_err(|e| Failure::new(6, format!("cannot start the async runtime ({e})")))?;
    runtime.block_on(future)
}

/// A token cancelled by a stop signal ([`crate::platform::signal::Interrupt`]).
fn cancel_on_ctrl_c() -> CancellationToken {
    crate::platform::signal::Interrupt::listen().token()
}
