//! `orgql operations`: the operations saved in the app, listed, or written to and read from
//! `.graphql` files (one per operation, in the folder of its collection) so that a team keeps
//! them in git; and checked against the connection's current schema (`check`, issue 30).

mod check;

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::Failure;
use crate::store::Store;

pub use check::CheckArgs;

/// The `operations` subcommands.
#[derive(Subcommand, Debug)]
pub enum OperationsCommand {
    /// List the saved operations as COLLECTION/NAME (what `--saved` takes).
    List(StoreArg),
    /// Write every saved operation under DIR as DIR/COLLECTION/NAME.graphql (and NAME.variables.json).
    Export {
        /// The folder (created when missing).
        dir: PathBuf,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Read every .graphql file under DIR into the saved operations (one of the same
    /// collection and name is replaced).
    Import {
        /// The folder.
        dir: PathBuf,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Check the saved operations, or every .graphql file under DIR, against the connection's
    /// current schema: `path:line:column:` findings; exit 0 all valid, 8 deprecated uses only,
    /// 9 some no longer valid.
    Check(CheckArgs),
}

/// Which database.
#[derive(Args, Debug)]
pub struct StoreArg {
    /// orgql's database (the saved operations, the schema versions) to use instead of the default one.
    #[arg(long, value_name = "PATH")]
    pub(super) store: Option<PathBuf>,
}

/// The database at `given`, else orgql's.
pub(super) fn store_path(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    given.or_else(Store::default_path).ok_or_else(|| {
        Failure::usage("this system has no data directory for orgql's database; give one with --store PATH")
    })
}

/// The database chosen by `store`, opened.
pub(super) fn open_store(store: StoreArg) -> Result<Store, Failure> {
    Store::open(&store_path(store.store)?).map_err(|e| Failure::new(6, e.to_string()))
}

/// Runs an `operations` subcommand.
pub fn run(command: OperationsCommand) -> Result<(), Failure> {
    let store_failed = |e: crate::store::StoreError| Failure::new(6, e.to_string());
    match command {
        OperationsCommand::List(store) => {
            for operation in open_store(store)?.operations().map_err(store_failed)? {
                let when = operation.saved_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M");
                println!("{}\t{when}", crate::platform::terminal::printable(&operation.path()));
            }
        }
        OperationsCommand::Export { dir, store } => {
            let operations = open_store(store)?.operations().map_err(store_failed)?;
            let written = crate::operations::write_all(&operations, &dir).map_err(|e| Failure::new(6, e))?;
            eprintln!("orgql: {written} operations written to {}", dir.display());
        }
        OperationsCommand::Import { dir, store } => {
            let store = open_store(store)?;
            let (files, problems) = crate::operations::read_all(&dir).map_err(Failure::usage)?;
            for file in &files {
                store
                    .save_operation(&file.collection, &file.name, &file.query, &file.variables)
                    .map_err(store_failed)?;
            }
            for problem in &problems {
                eprintln!("orgql: {problem}");
            }
            eprintln!("orgql: {} operations read from {}", files.len(), dir.display());
        }
        OperationsCommand::Check(args) => return super::block_on(check::run(args)),
    }
    Ok(())
}
