//! The file an export writes, decided before anything is fetched ([`check_out`]):
//!
//! - a regular file (or a new one) is written to a temporary file beside it (owner-only, 0600:
//!   exports hold personal data) and renamed over it only when complete, so a reader never sees
//!   half a file; a failed export keeps its rows as `F.partial` instead;
//! - a pipe (FIFO, `/dev/stdout` on a pipe) or a character device (`/dev/null`, a terminal) is
//!   written in place: replacing it with a regular file would break it (for `/dev/null`, for the
//!   whole system);
//! - a folder, a socket or a block device, or a file in a folder that does not exist, is refused.
//!
//! Rows are flushed page by page ([`CsvFile::end_page`]), and only what a flush wrote is counted:
//! when the disk fills, the kept `.partial` holds exactly the rows reported, the last one whole
//! (what a failed write left of a further page is cut off).

use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::csv::{CsvOptions, CsvWriter};
use crate::query::Column;

/// The file could not be created or completed.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {} ({reason}); choose another file", path.display())]
pub struct FileError {
    /// The file asked for.
    pub path: PathBuf,
    pub reason: String,
}

/// How an export's file is written, as [`check_out`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutKind {
    /// A new file.
    New,
    /// A regular file that will be replaced when the export completes.
    Replace,
    /// A pipe or character device, written in place.
    InPlace,
}

/// Decides how `out` is written, or refuses it (a folder, a missing folder, a socket, a block
/// device) — before any page is fetched.
pub fn check_out(out: &Path) -> Result<OutKind, FileError> {
    crate::platform::ui_thread::check("export file");
    let error = |reason: String| FileError { path: out.to_path_buf(), reason };
    match std::fs::metadata(out) {
        Ok(meta) => {
            let kind = meta.file_type();
            if kind.is_dir() {
                Err(error("it is a folder; give the name of a file inside it".into()))
            } else if kind.is_file() {
                Ok(OutKind::Replace)
            } else if written_in_place(&kind) {
                Ok(OutKind::InPlace)
            } else {
                Err(error("it is neither a regular file, a pipe nor a character device".into()))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = folder_of(out);
            if dir.is_dir() {
                Ok(OutKind::New)
            } else {
                Err(error(format!("the folder {} does not exist", dir.display())))
            }
        }
        Err(e) => Err(error(e.to_string())),
    }
}

/// The first free name beside `path`, as file managers propose: `users (2).csv`, then
/// `users (3).csv`… (a name that already ends in ` (N)` counts on from it).
pub fn free_name(path: &Path) -> PathBuf {
    crate::platform::ui_thread::check("export file");
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let (base, first) = match stem.rsplit_once(" (") {
        Some((base, number)) => match number.strip_suffix(')').and_then(|n| n.parse::<u32>().ok()) {
            Some(n) => (base.to_owned(), n + 1),
            None => (stem.clone(), 2),
        },
        None => (stem.clone(), 2),
    };
    let extension = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    let folder = path.parent().unwrap_or(Path::new(""));
    (first..first.saturating_add(10_000))
        .map(|n| folder.join(format!("{base} ({n}){extension}")))
        .find(|candidate| matches!(std::fs::symlink_metadata(candidate), Err(e) if e.kind() == std::io::ErrorKind::NotFound))
        .unwrap_or_else(|| path.to_path_buf())
}

fn folder_of(out: &Path) -> PathBuf {
    match out.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Where the bytes go.
enum Sink {
    /// A temporary file beside the one asked for, renamed at the end.
    Temp(tempfile::NamedTempFile),
    /// The file asked for itself (a pipe or a device).
    InPlace,
}

/// A CSV file being written.
pub struct CsvFile {
    sink: Sink,
    out: PathBuf,
    kind: OutKind,
    writer: CsvWriter<BufWriter<File>>,
    /// Rows known to be in the file (written by a successful flush).
    durable_rows: u64,
    /// The file's length after that flush.
    durable_len: u64,
}

/// What was kept of a failed export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partial {
    /// Where the rows are, when they could be kept (the file asked for itself when it was
    /// written in place).
    pub path: Option<PathBuf>,
    /// How many rows were written.
    pub rows: u64,
}

impl Partial {
    /// "the 150 rows written so far are in F.partial (not F)".
    pub fn describe(&self, out: &Path) -> String {
        match &self.path {
            Some(path) if path == out => format!("the {} rows before that went to {}", self.rows, out.display()),
            Some(path) => {
                format!("the {} rows written so far are in {} (not {})", self.rows, path.display(), out.display())
            }
            None => format!("the {} rows written so far could not be kept", self.rows),
        }
    }
}

/// The file could not be completed; what it holds was kept.
#[derive(Debug, thiserror::Error)]
#[error("{error}; {}", partial.describe(&error.path))]
pub struct CommitError {
    pub error: FileError,
    /// What was kept.
    pub partial: Partial,
}

impl CsvFile {
    /// Starts `out` with the header of `columns`: in its folder under a temporary name, or in
    /// place for a pipe or a device (see [`check_out`]).
    pub fn create(out: &Path, columns: &[Column], options: CsvOptions) -> Result<Self, FileError> {
        crate::platform::ui_thread::check("export file");
        let kind = check_out(out)?;
        let error = |reason: &dyn std::fmt::Display| FileError { path: out.to_path_buf(), reason: reason.to_string() };
        let (sink, file) = match kind {
            OutKind::InPlace => {
                // A FIFO without a reader waits for one here, as a shell's `>` does.
                let file = OpenOptions::new().write(true).open(out).map_err(|e| error(&e))?;
                (Sink::InPlace, file)
            }
            OutKind::New | OutKind::Replace => {
                let name =
                    out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "export.csv".into());
                // tempfile creates the file owner-only (0600); the rename keeps that.
                let temp = tempfile::Builder::new()
                    .prefix(&format!(".{name}."))
                    .suffix(".tmp")
                    .tempfile_in(folder_of(out))
                    .map_err(|e| error(&e))?;
                let file = temp.reopen().map_err(|e| error(&e))?;
                (Sink::Temp(temp), file)
            }
        };
        let writer = CsvWriter::new(BufWriter::new(file), columns, options).map_err(|e| error(&e))?;
        let mut this = CsvFile { sink, out: out.to_path_buf(), kind, writer, durable_rows: 0, durable_len: 0 };
        this.end_page().map_err(|e| e.error)?;
        Ok(this)
    }

    /// Goes on with the interrupted export of `out` whose rows so far are in `partial` (its
    /// header and `rows` rows, cut after a whole page): the partial is copied to a new
    /// temporary file beside `out`, which then grows and is renamed as [`CsvFile::create`]'s.
    /// The partial itself is left as it is until the export completes (or is replaced by a
    /// longer one), so a second interruption loses nothing either. Pipes and devices cannot be
    /// resumed (nothing of them can be read back).
    pub fn resume(
        out: &Path,
        partial: &Path,
        columns: &[Column],
        options: CsvOptions,
        rows: u64,
    ) -> Result<Self, FileError> {
        crate::platform::ui_thread::check("export file");
        let kind = check_out(out)?;
        let error = |reason: &dyn std::fmt::Display| FileError { path: out.to_path_buf(), reason: reason.to_string() };
        if kind == OutKind::InPlace {
            return Err(error(&"an export to a pipe or a device cannot be resumed; export again without --resume"));
        }
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "export.csv".into());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(folder_of(out))
            .map_err(|e| error(&e))?;
        let mut file = temp.reopen().map_err(|e| error(&e))?;
        let mut earlier = File::open(partial).map_err(|e| error(&format!("{}: {e}", partial.display())))?;
        let copied = std::io::copy(&mut earlier, &mut file).map_err(|e| error(&e))?;
        let writer = CsvWriter::continuing(BufWriter::new(file), columns, options, rows).map_err(|e| error(&e))?;
        Ok(CsvFile {
            sink: Sink::Temp(temp),
            out: out.to_path_buf(),
            kind,
            writer,
            durable_rows: rows,
            durable_len: copied,
        })
    }

    /// How the file is written.
    pub fn kind(&self) -> OutKind {
        self.kind
    }

    /// The writer of the rows.
    pub fn writer(&mut self) -> &mut CsvWriter<BufWriter<File>> {
        &mut self.writer
    }

    /// Rows known to be in the file (as of the last [`CsvFile::end_page`]).
    pub fn rows(&self) -> u64 {
        self.durable_rows
    }

    /// The file asked for.
    pub fn path(&self) -> &Path {
        &self.out
    }

    /// Flushes the rows written so far to the file and counts them as written.
    pub fn end_page(&mut self) -> Result<u64, CommitError> {
        let out = self.out.clone();
        let flushed = self.writer.flush().and_then(|()| match &self.sink {
            Sink::Temp(temp) => Ok(temp.as_file().metadata()?.len()),
            Sink::InPlace => Ok(0),
        });
        match flushed {
            Ok(len) => {
                self.durable_rows = self.writer.rows();
                self.durable_len = len;
                Ok(self.durable_rows)
            }
            Err(e) => Err(CommitError {
                error: FileError { path: out, reason: e.to_string() },
                partial: Partial { path: None, rows: self.durable_rows },
            }),
        }
    }

    /// Flushes and renames the file to its name; returns the rows written. When that fails, what
    /// the file holds is kept as `F.partial`.
    pub fn commit(mut self) -> Result<u64, CommitError> {
        crate::platform::ui_thread::check("export file");
        if let Err(mut failed) = self.end_page() {
            failed.partial = self.keep_partial();
            return Err(failed);
        }
        let error = |reason: &dyn std::fmt::Display| FileError { path: self.out.clone(), reason: reason.to_string() };
        let synced = match &self.sink {
            Sink::Temp(temp) => temp.as_file().sync_all().map_err(|e| error(&e)),
            Sink::InPlace => Ok(()),
        };
        if let Err(error) = synced {
            let partial = self.keep_partial();
            return Err(CommitError { error, partial });
        }
        let rows = self.durable_rows;
        let CsvFile { sink, out, writer, .. } = self;
        drop(writer);
        match sink {
            Sink::Temp(temp) => match temp.persist(&out) {
                Ok(_) => Ok(rows),
                Err(e) => {
                    let error = FileError { path: out.clone(), reason: e.error.to_string() };
                    let partial = keep(e.file, &out, rows);
                    Err(CommitError { error, partial })
                }
            },
            Sink::InPlace => Ok(rows),
        }
    }

    /// Keeps what was flushed as `F.partial`, cut to the last whole page, and says how many
    /// rows that holds.
    pub fn keep_partial(self) -> Partial {
        crate::platform::ui_thread::check("export file");
        let CsvFile { sink, out, writer, durable_rows, durable_len, .. } = self;
        // Dropping the writer may still write some of what it buffers: cut it off below.
        drop(writer);
        match sink {
            Sink::InPlace => Partial { path: Some(out), rows: durable_rows },
            Sink::Temp(temp) => {
                if let Err(e) = temp.as_file().set_len(durable_len) {
                    tracing::warn!("the partial export could not be cut to its last whole row: {e}");
                }
                keep(temp, &out, durable_rows)
            }
        }
    }
}

/// Renames `temp` to `out.partial`.
fn keep(temp: tempfile::NamedTempFile, out: &Path, rows: u64) -> Partial {
    let mut partial = out.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    match temp.persist(&partial) {
        Ok(_) => Partial { path: Some(partial), rows },
        Err(e) => {
            tracing::warn!("the partial export could not be kept: {}", e.error);
            Partial { path: None, rows }
        }
    }
}

/// A pipe or a device (`/dev/stdout`, a FIFO): written where it is, never replaced.
fn written_in_place(kind: &std::fs::FileType) -> bool {
    crate::platform::private::written_in_place(kind)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    use super::*;

    fn columns() -> Vec<Column> {
        vec![Column { keys: vec!["ref".into()], name: "ref".into() }]
    }

    #[test]
    fn folders_missing_folders_and_sockets_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let refused = check_out(dir.path()).expect_err("a folder");
        assert!(refused.to_string().contains("folder"), "{refused}");
        let missing = dir.path().join("nowhere").join("users.csv");
        let refused = check_out(&missing).expect_err("a missing folder");
        assert!(refused.to_string().contains("does not exist"), "{refused}");
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("a socket");
        assert!(check_out(&socket).is_err());
        assert_eq!(check_out(&dir.path().join("new.csv")).expect("a new file"), OutKind::New);
        assert_eq!(check_out(Path::new("/dev/null")).expect("a device"), OutKind::InPlace);
        assert!(CsvFile::create(dir.path(), &columns(), CsvOptions::default()).is_err());
        assert_eq!(std::fs::read_dir(dir.path()).expect("the folder").count(), 1, "only the socket");
    }

    #[test]
    fn a_free_name_counts_up_beside_the_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let users = dir.path().join("users.xlsx");
        assert_eq!(free_name(&users), dir.path().join("users (2).xlsx"));
        std::fs::write(dir.path().join("users (2).xlsx"), "").expect("a file");
        assert_eq!(free_name(&users), dir.path().join("users (3).xlsx"));
        assert_eq!(free_name(&dir.path().join("users (2).xlsx")), dir.path().join("users (3).xlsx"));
        assert_eq!(free_name(&dir.path().join("export")), dir.path().join("export (2)"));
    }

    #[test]
    fn a_complete_file_is_owner_only_and_a_device_is_left_a_device() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("users.csv");
        std::fs::write(&out, "old").expect("an old file");
        let mut file = CsvFile::create(&out, &columns(), CsvOptions::default()).expect("started");
        assert_eq!(file.kind(), OutKind::Replace);
        file.writer().write_cells(["u00001"]).expect("a row");
        assert_eq!(file.commit().expect("complete"), 1);
        assert_eq!(std::fs::read_to_string(&out).expect("the file"), "ref\r\nu00001\r\n");
        let mode = std::fs::metadata(&out).expect("the file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);

        let null = Path::new("/dev/null");
        let mut file = CsvFile::create(null, &columns(), CsvOptions::default()).expect("started");
        file.writer().write_cells(["u00001"]).expect("a row");
        assert_eq!(file.commit().expect("complete"), 1);
        assert!(std::fs::metadata(null).expect("/dev/null").file_type().is_char_device());
    }

    #[test]
    fn a_full_device_keeps_nothing_in_place_and_says_so() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        // The header's flush already fails: nothing is started.
        let refused = CsvFile::create(full, &columns(), CsvOptions::default()).err().expect("no space");
        assert!(refused.to_string().contains("/dev/full"), "{refused}");
        assert!(std::fs::metadata(full).expect("/dev/full").file_type().is_char_device());
    }
}
