//! A CSV file that appears under its name only when complete: rows go to a temporary file next
//! to it, renamed at the end; a failed export keeps its rows as `F.partial` instead.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::csv::{CsvError, CsvOptions, CsvWriter};
use crate::query::Column;

/// The file could not be created or completed.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {} ({reason}); choose another file", path.display())]
pub struct FileError {
    /// The file asked for.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// A CSV file being written.
pub struct CsvFile {
    temp: tempfile::NamedTempFile,
    out: PathBuf,
    writer: CsvWriter<BufWriter<File>>,
}

/// What was kept of a failed export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partial {
    /// Where the rows are, when they could be kept.
    pub path: Option<PathBuf>,
    /// How many rows were written.
    pub rows: u64,
}

impl Partial {
    /// "the 150 rows written so far are in F.partial (not F)".
    pub fn describe(&self, out: &Path) -> String {
        match &self.path {
            Some(path) => {
                format!("the {} rows written so far are in {} (not {})", self.rows, path.display(), out.display())
            }
            None => format!("the {} rows written so far could not be kept", self.rows),
        }
    }
}

impl CsvFile {
    /// Starts `out` (in its directory, under a temporary name) with the header of `columns`.
    pub fn create(out: &Path, columns: &[Column], options: CsvOptions) -> Result<Self, FileError> {
        crate::ui_thread::check("export file");
        let error = |reason: &dyn std::fmt::Display| FileError { path: out.to_path_buf(), reason: reason.to_string() };
        let dir = match out.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(error(&format_args!("the folder {} does not exist", dir.display())));
        }
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "export.csv".into());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| error(&e))?;
        let file = temp.reopen().map_err(|e| error(&e))?;
        let writer = CsvWriter::new(BufWriter::new(file), columns, options).map_err(|e| error(&e))?;
        Ok(CsvFile { temp, out: out.to_path_buf(), writer })
    }

    /// The writer of the rows.
    pub fn writer(&mut self) -> &mut CsvWriter<BufWriter<File>> {
        &mut self.writer
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.writer.rows()
    }

    /// The file asked for.
    pub fn path(&self) -> &Path {
        &self.out
    }

    /// Flushes and renames the file to its name; returns the rows written.
    pub fn commit(self) -> Result<u64, FileError> {
        crate::ui_thread::check("export file");
        let rows = self.writer.rows();
        let out = self.out.clone();
        let error = |reason: &dyn std::fmt::Display| FileError { path: out.clone(), reason: reason.to_string() };
        self.writer.finish().map_err(|e: CsvError| error(&e))?;
        self.temp.persist(&self.out).map_err(|e| error(&e.error))?;
        Ok(rows)
    }

    /// Flushes what was written and keeps it as `F.partial`.
    pub fn keep_partial(self) -> Partial {
        crate::ui_thread::check("export file");
        let rows = self.writer.rows();
        if let Err(e) = self.writer.finish() {
            tracing::warn!("the partial export could not be flushed: {e}");
        }
        let mut partial = self.out.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        match self.temp.persist(&partial) {
            Ok(_) => Partial { path: Some(partial), rows },
            Err(e) => {
                tracing::warn!("the partial export could not be kept: {}", e.error);
                Partial { path: None, rows }
            }
        }
    }
}
