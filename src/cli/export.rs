//! `orgql export`: every page of the query's one connection into a CSV file, one row per node,
//! streamed to disk. The file appears under its name only when complete; a failed or
//! interrupted export keeps what it wrote as `F.partial` and says how many rows that holds.

use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::connection::ConnectionArgs;
use super::input::QueryInput;
use super::{Failure, cancel_on_ctrl_c};
use crate::api::Pager;
use crate::query::PagingOptions;
use crate::table::{CsvOptions, CsvWriter};

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
    let mut pager =
        Pager::new(client, &query, variables, args.input.operation.as_deref(), PagingOptions { ensure_count: true })?;
    for warning in pager.warnings() {
        eprintln!("orgql: {warning}");
    }
    let cannot_write = |e: &dyn std::fmt::Display| {
        Failure::usage(format!("cannot write {} ({e}); choose another --out", args.out.display()))
    };
    let dir = match args.out.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = args.out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "export.csv".into());
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| cannot_write(&e))?;
    let file = temp.reopen().map_err(|e| cannot_write(&e))?;
    let options = CsvOptions { bom: args.bom, raw: args.raw };
    let mut csv = CsvWriter::new(BufWriter::new(file), &pager.site().columns, options).map_err(|e| cannot_write(&e))?;
    let progress = progress_bar();
    let cancel = cancel_on_ctrl_c();

    let outcome: Result<(), Failure> = async {
        while let Some(page) = pager.next_page(&cancel).await? {
            csv.write_page(&page.data, pager.site()).map_err(|e| Failure::new(6, e.to_string()))?;
            if let Some(total) = page.total {
                progress.set_length(total);
            }
            progress.set_position(csv.rows());
        }
        Ok(())
    }
    .await;
    progress.finish_and_clear();
    let rows = csv.rows();
    let flushed = csv.finish().map_err(|e| Failure::new(6, e.to_string()));
    match outcome.and(flushed.map(drop)) {
        Ok(()) => {
            temp.persist(&args.out).map_err(|e| cannot_write(&e.error))?;
            eprintln!("orgql: wrote {rows} rows to {}", args.out.display());
            Ok(())
        }
        Err(failure) => Err(keep_partial(temp, &args.out, rows, failure)),
    }
}

/// Keeps the rows written so far as `F.partial` and adds that to the failure's message.
fn keep_partial(temp: tempfile::NamedTempFile, out: &Path, rows: u64, failure: Failure) -> Failure {
    let mut partial = out.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let kept = match temp.persist(&partial) {
        Ok(_) => format!("the {rows} rows written so far are in {} (not {})", partial.display(), out.display()),
        Err(e) => format!("the {rows} rows written so far could not be kept ({})", e.error),
    };
    Failure::new(failure.code, format!("{}; {kept}", failure.message))
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
