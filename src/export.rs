//! Every page of a query's one connection into a CSV file, streamed: the one code path of
//! `orgql export` and of the app's "Export all pages".

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::api::{ApiError, Pager};
use crate::table::{CommitError, CsvFile, CsvOptions, FileError, Partial};

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
    },
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
/// A file named `….xlsx` is written as a workbook ([`crate::table::XlsxFile`]; `options` are the
/// CSV's and do not apply), its "About" sheet naming `connection`.
pub async fn export_all(
    pager: &mut Pager,
    out: &Path,
    options: CsvOptions,
    connection: &str,
    cancel: &CancellationToken,
    progress: impl FnMut(Progress),
) -> Result<u64, ExportError> {
    crate::ui_thread::check("export file");
    if crate::table::is_xlsx(out) {
        let about = crate::table::About { query: pager.query_text().to_owned(), connection: connection.to_owned() };
        let file = crate::table::XlsxFile::create(out, &pager.site().columns, about)?;
        return walk_into(pager, out, file, cancel, progress).await;
    }
    let file = CsvFile::create(out, &pager.site().columns, options)?;
    walk_into(pager, out, file, cancel, progress).await
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
}

/// Every page of `pager` into `file`, which becomes `out` when complete (or its `.partial`).
async fn walk_into(
    pager: &mut Pager,
    out: &Path,
    mut file: impl PageSink,
    cancel: &CancellationToken,
    mut progress: impl FnMut(Progress),
) -> Result<u64, ExportError> {
    loop {
        let page = match pager.next_page(cancel).await {
            Ok(Some(page)) => page,
            Ok(None) => break,
            Err(cause) => {
                return Err(ExportError::Interrupted { cause, partial: file.partial(), out: out.to_path_buf() });
            }
        };
        if let Err(reason) = file.page(&page.data, pager.site()) {
            return Err(ExportError::Write { reason, partial: file.partial(), out: out.to_path_buf() });
        }
        progress(Progress { rows: file.written(), total: page.total });
    }
    file.finish().map_err(|CommitError { error, partial }| ExportError::Write {
        reason: error.reason,
        partial,
        out: out.to_path_buf(),
    })
}
