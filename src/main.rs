//! The `orgql` binary: parses the command line and hands over to [`orgql::cli`].

/// See Cargo.toml: fewer CPU cycles a page for an export and the sandbox (issue 24).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    orgql::timing::start();
    orgql::cli::main()
}
