//! The `orgql` binary: parses the command line and hands over to [`orgql::cli`].

fn main() -> std::process::ExitCode {
    orgql::timing::start();
    orgql::cli::main()
}
