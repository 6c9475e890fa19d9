//! What an export reports: how far it is ([`Progress`]), how it ended ([`Exported`]) or why not
//! ([`ExportError`]), where the rows of an interrupted one stop ([`Reached`]) and where a resumed
//! one starts ([`Continue`]). The walk, the sinks and `resume.rs` share these.

use super::changes::{Counts, RowRecorder};
use crate::api::ApiError;
use crate::table::{FileError, Partial};

/// How far an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Rows done: written, or for a changes file, fetched and compared.
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

/// How an export ended.
#[derive(Debug, Default)]
pub struct Exported {
    /// Rows written to the file.
    pub rows: u64,
    /// What was written of the rows, when compared with a baseline.
    pub counts: Option<Counts>,
    /// The recorder of the rows, to mark the export complete ([`RowRecorder::finish`]).
    pub recorder: Option<RowRecorder>,
}
