//! The command line (contract section 2).

mod sandbox;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// orgql: explore an organization's learning-platform GraphQL API.
#[derive(Parser, Debug)]
#[command(name = "orgql", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the local sandbox: the whole service of the spec on this machine.
    Sandbox(sandbox::SandboxArgs),
}

/// Exit statuses of the contract.
pub mod exit {
    /// Bad usage or input file.
    pub const USAGE: u8 = 2;
    /// Network, throttling or server failure.
    pub const SERVICE: u8 = 6;
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logs();
    match cli.command {
        Some(Command::Sandbox(args)) => sandbox::run(args),
        None => {
            eprintln!(
                "orgql: the desktop app is not built yet; run 'orgql sandbox' to start the local service, or 'orgql --help'"
            );
            ExitCode::from(exit::USAGE)
        }
    }
}

fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ORGQL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}
