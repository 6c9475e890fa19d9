//! `orgql operations`: the operations saved in the app, listed, or written to and read from
//! `.graphql` files (one per operation, in the folder of its collection) so that a team keeps
//! them in git.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::Failure;
use crate::store::Store;

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
}

/// Which database.
#[derive(Args, Debug)]
pub struct StoreArg {
    /// The database the operations are kept in (default: orgql's).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
}

/// The database at `given`, else orgql's.
pub(super) fn store_path(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    given.or_else(Store::default_path).ok_or_else(|| {
        Failure::usage("this system has no data directory for orgql's database; give one with --store PATH")
    })
}

fn open(store: StoreArg) -> Result<Store, Failure> {
    Store::open(&store_path(store.store)?).map_err(|e| Failure::new(6, e.to_string()))
}

/// Runs an `operations` subcommand.
pub fn run(command: OperationsCommand) -> Result<(), Failure> {
    let store_failed = |e: crate::store::StoreError| Failure::new(6, e.to_string());
    match command {
        OperationsCommand::List(store) => {
            for operation in open(store)?.operations().map_err(store_failed)? {
                let when = operation.saved_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M");
                println!("{}\t{when}", crate::terminal::printable(&operation.path()));
            }
        }
        OperationsCommand::Export { dir, store } => {
            let operations = open(store)?.operations().map_err(store_failed)?;
            let written = crate::operations::write_all(&operations, &dir).map_err(|e| Failure::new(6, e))?;
            eprintln!("orgql: {written} operations written to {}", dir.display());
        }
        OperationsCommand::Import { dir, store } => {
            let store = open(store)?;
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
    }
    Ok(())
}
