//! `orgql export`: every page of the query's one connection into a CSV file, one row per node,
//! streamed to disk. The file appears under its name only when complete; a failed or
//! interrupted export keeps what it wrote as `F.partial` and says how many rows that holds.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::connection::ConnectionArgs;
use super::input::QueryInput;
use super::{Failure, cancel_on_ctrl_c};
use crate::api::Pager;
use crate::export::export_all;
use crate::query::PagingOptions;
use crate::table::CsvOptions;

/// Options of `orgql export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    input: QueryInput,
    /// The CSV file to write.
    #[arg(long)]
    out: PathBuf,
    /// Start the file with a UTF-8 byte order mark (for spreadsheet programs).
    #[arg(long)]
    bom: bool,
    /// Write cells as they are, without the leading ' that stops formulas (=, +, -, @).
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// Runs `orgql export`.
pub async fn run(args: ExportArgs) -> Result<(), Failure> {
    let query = args.input.query()?;
    let variables = args.input.variables()?;
    let client = args.connection.client()?;
    let cancel = cancel_on_ctrl_c();
    let options = PagingOptions { ensure_count: true, paging: None };
    let operation = args.input.operation.as_deref();
    let mut pager = Pager::discover(client, &query, variables, operation, options, &cancel).await?;
    for warning in pager.warnings() {
        eprintln!("orgql: {warning}");
    }
    let progress = progress_bar();
    let options = CsvOptions { bom: args.bom, raw: args.raw };
    let result = export_all(&mut pager, &args.out, options, &cancel, |p| {
        if let Some(total) = p.total {
            progress.set_length(total);
        }
        progress.set_position(p.rows);
    })
    .await;
    progress.finish_and_clear();
    match result {
        Ok(rows) => {
            eprintln!("orgql: wrote {rows} rows to {}", args.out.display());
            Ok(())
        }
        Err(err) => Err(Failure::new(err.exit_code(), err.to_string())),
    }
}

fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} rows {elapsed_precise} ETA {eta}") {
        bar.set_style(style);
    }
    bar
}
