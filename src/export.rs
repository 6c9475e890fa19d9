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
pub async fn export_all(
    pager: &mut Pager,
    out: &Path,
    options: CsvOptions,
    cancel: &CancellationToken,
    mut progress: impl FnMut(Progress),
) -> Result<u64, ExportError> {
    crate::ui_thread::check("export file");
    let mut file = CsvFile::create(out, &pager.site().columns, options)?;
    loop {
        let page = match pager.next_page(cancel).await {
            Ok(Some(page)) => page,
            Ok(None) => break,
            Err(cause) => {
                return Err(ExportError::Interrupted { cause, partial: file.keep_partial(), out: out.to_path_buf() });
            }
        };
        let written = file.writer().write_page(&page.data, pager.site()).map_err(|e| e.to_string());
        let flushed = written.and_then(|_| file.end_page().map_err(|e| e.error.reason));
        if let Err(reason) = flushed {
            return Err(ExportError::Write { reason, partial: file.keep_partial(), out: out.to_path_buf() });
        }
        progress(Progress { rows: file.rows(), total: page.total });
    }
    file.commit().map_err(|CommitError { error, partial }| ExportError::Write {
        reason: error.reason,
        partial,
        out: out.to_path_buf(),
    })
}
