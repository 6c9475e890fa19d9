//! Every page of a query's one connection into a CSV file or a workbook, streamed: the one code
//! path of `orgql export` and of the app's "Export all pages". An interrupted CSV export can be
//! resumed from where its `.partial` stops ([`resume`]).

pub mod resume;

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::api::{ApiError, Pager};
use crate::table::{CommitError, CsvFile, CsvOptions, FileError, Format, Partial};

/// How far an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Rows written.
    pub rows: u64,
    /// The connection's `count`, when the service gives it.
    pub total: Option<u64>,
}

/// Why an export did not complete.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The file could not be started or finished.
    #[error(transparent)]
    File(#[from] FileError),
    /// A page could not be fetched (or the export was cancelled); what was written is kept.
    #[error("{cause}; {}", partial.describe(out))]
    Interrupted {
        /// Why.
        cause: ApiError,
        /// What was kept.
        partial: Partial,
        /// The file asked for.
        out: std::path::PathBuf,
        /// Where the kept rows stop, when the export can be resumed from there.
        reached: Option<Reached>,
    },
    /// Writing a row failed (disk full, say); what was written is kept.
    #[error("{reason}; {}", partial.describe(out))]
    Write {
        /// Why.
        reason: String,
        /// What was kept.
        partial: Partial,
        /// The file asked for.
        out: std::path::PathBuf,
        /// Where the kept rows stop, when the export can be resumed from there.
        reached: Option<Reached>,
    },
}

/// Where the rows of an interrupted export's `.partial` stop: the walk's cursor after its last
/// row (`None`: before the first page). Only a CSV file kept as `F.partial` has one (a workbook
/// is written whole; a pipe cannot be read back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// The cursor the next page starts after.
    pub cursor: Option<String>,
}

/// Where a resumed export starts: the rows its `.partial` holds and the cursor after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continue {
    /// The partial file.
    pub partial: std::path::PathBuf,
    /// Its rows (the header not counted).
    pub rows: u64,
    /// The cursor the next page starts after.
    pub cursor: Option<String>,
}

impl ExportError {
    /// The exit status of the command line.
    pub fn exit_code(&self) -> u8 {
        match self {
            ExportError::File(_) => 2,
            ExportError::Interrupted { cause, .. } => cause.exit_code(),
            ExportError::Write { .. } => 6,
        }
    }
}

/// Walks every page of `pager` into `out`; returns the rows written. A regular file appears under
/// its name only when complete; otherwise its rows are kept as `out.partial`, flushed page by page
/// so that it holds exactly the rows the error states (see [`crate::table::check_out`] for pipes
/// and devices, written in place).
///
/// `format` says CSV or workbook ([`crate::table::XlsxFile`]; `options` are the CSV's and do not
/// apply to it), its "About" sheet naming `connection`. With `from`, a CSV export goes on from
/// where an interrupted one stopped: `pager` is moved to its cursor and its rows are copied first.
#[allow(clippy::too_many_arguments)]
pub async fn export_all(
    pager: &mut Pager,
    out: &Path,
    format: Format,
    options: CsvOptions,
    connection: &str,
    from: Option<&Continue>,
    cancel: &CancellationToken,
    progress: impl FnMut(Progress),
) -> Result<u64, ExportError> {
    crate::ui_thread::check("export file");
    match (format, from) {
        (Format::Xlsx, Some(_)) => Err(ExportError::File(FileError {
            path: out.to_path_buf(),
            reason: "an XLSX workbook is written whole and cannot be resumed; export it again without resuming".into(),
        })),
        (Format::Xlsx, None) => {
            let about = crate::table::About { query: pager.query_text().to_owned(), connection: connection.to_owned() };
            let file = crate::table::XlsxFile::create(out, &pager.site().columns, about)?;
            walk_into(pager, out, file, cancel, progress).await
        }
        (Format::Csv, None) => {
            let file = CsvFile::create(out, &pager.site().columns, options)?;
            walk_into(pager, out, file, cancel, progress).await
        }
        (Format::Csv, Some(from)) => {
            let file = CsvFile::resume(out, &from.partial, &pager.site().columns, options, from.rows)?;
            pager.seek(from.cursor.clone());
            walk_into(pager, out, file, cancel, progress).await
        }
    }
}

/// A file an export writes page by page: a CSV file or a workbook.
trait PageSink {
    /// Writes one page's nodes, durably for a CSV file.
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String>;
    /// Rows written.
    fn written(&self) -> u64;
    /// Keeps what was written as `F.partial`.
    fn partial(self) -> Partial;
    /// Finishes the file under its name.
    fn finish(self) -> Result<u64, CommitError>;
    /// Whether a kept `.partial` can be continued (see [`Reached`]).
    fn resumable(&self) -> bool;
}

impl PageSink for CsvFile {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        self.writer().write_page(data, site).map_err(|e| e.to_string())?;
        self.end_page().map(|_| ()).map_err(|e| e.error.reason)
    }
    fn written(&self) -> u64 {
        self.rows()
    }
    fn partial(self) -> Partial {
        self.keep_partial()
    }
    fn finish(self) -> Result<u64, CommitError> {
        self.commit()
    }
    fn resumable(&self) -> bool {
        self.kind() != crate::table::OutKind::InPlace
    }
}

impl PageSink for crate::table::XlsxFile {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        self.write_page(data, site).map(|_| ()).map_err(|e| e.reason)
    }
    fn written(&self) -> u64 {
        self.rows()
    }
    fn partial(self) -> Partial {
        self.keep_partial()
    }
    fn finish(self) -> Result<u64, CommitError> {
        self.commit()
    }
    fn resumable(&self) -> bool {
        false
    }
}

/// Every page of `pager` into `file`, which becomes `out` when complete (or its `.partial`).
async fn walk_into(
    pager: &mut Pager,
    out: &Path,
    mut file: impl PageSink,
    cancel: &CancellationToken,
    mut progress: impl FnMut(Progress),
) -> Result<u64, ExportError> {
    // The cursor after the last page the file holds whole.
    let mut durable = pager.cursor().map(str::to_owned);
    let resumable = file.resumable();
    let reached = |cursor: Option<String>| resumable.then_some(Reached { cursor });
    loop {
        let page = match pager.next_page(cancel).await {
            Ok(Some(page)) => page,
            Ok(None) => break,
            Err(cause) => {
                let reached = reached(durable);
                return Err(ExportError::Interrupted {
                    cause,
                    partial: file.partial(),
                    out: out.to_path_buf(),
                    reached,
                });
            }
        };
        if let Err(reason) = file.page(&page.data, pager.site()) {
            let reached = reached(durable);
            return Err(ExportError::Write { reason, partial: file.partial(), out: out.to_path_buf(), reached });
        }
        durable = pager.cursor().map(str::to_owned);
        progress(Progress { rows: file.written(), total: page.total });
    }
    file.finish().map_err(|CommitError { error, partial }| ExportError::Write {
        reason: error.reason,
        partial,
        out: out.to_path_buf(),
        // Every page is in: a resume asks for the page after the last and completes the file.
        reached: reached(durable),
    })
}
