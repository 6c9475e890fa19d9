//! The `orgql` binary: parses the command line and hands over to [`orgql::cli`].
//!
//! On Windows it is a Windows-GUI program (no console window opens beside the app when the Start
//! menu or Explorer starts it); for a command it takes the console of whoever started it
//! ([`orgql::platform::attach_console`]), and `orgql.com` beside it is the console program that
//! Command Prompt and PowerShell run and wait for (packaging/README.md). Elsewhere the attribute
//! means nothing.
#![windows_subsystem = "windows"]

/// See Cargo.toml: fewer CPU cycles a page for an export and the sandbox (issue 24).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    orgql::timing::start();
    orgql::cli::main()
}
