//! Every page of a query's one connection into a CSV file or a workbook, streamed: the one code
//! path of `orgql export` and of the app's "Export all pages". An interrupted CSV export can be
//! resumed from where its `.partial` stops ([`resume`]).
//!
//! The parts: this file chooses the file to write and starts the walk ([`export_all`]);
//! `walk.rs` fetches the pages and hands them to a writer thread, `sinks.rs` holds the files a
//! page is written to (CSV, workbook, kept rows, changes only), `outcome.rs` what an export
//! reports; [`changes`] compares rows with an earlier export's, [`resume`] keeps where an
//! interrupted one stopped.

pub mod changes;
mod outcome;
pub mod resume;
mod sinks;
mod walk;

use std::path::Path;

use tokio_util::sync::CancellationToken;

use self::changes::{Baseline, RowRecorder};
pub use self::outcome::{Continue, ExportError, Exported, Progress, Reached};
use self::sinks::{Both, ChangesFile, Kept, PageSink};
use self::walk::walk_into;
use crate::api::Pager;
use crate::table::{CsvFile, CsvOptions, FileError, Format};

/// What an export keeps of its rows (to compare a later export with) and compares them with.
#[derive(Debug)]
pub struct Keeping {
    /// The key column's index among the query's columns ([`changes::key_column`]); `None`: the
    /// query has none, and rows are kept by their position ([`changes::BY_POSITION`]; they
    /// cannot be compared with a baseline).
    pub key: Option<usize>,
    /// The rows to compare with: only the rows added, changed or removed since are written.
    /// `None` writes every row.
    pub baseline: Option<Baseline>,
    /// Where every row fetched is kept, page by page.
    pub recorder: Option<RowRecorder>,
}

/// Walks every page of `pager` into `out`; returns the rows written. A regular file appears under
/// its name only when complete; otherwise its rows are kept as `out.partial`, flushed page by page
/// so that it holds exactly the rows the error states (see [`crate::table::check_out`] for pipes
/// and devices, written in place).
///
/// `format` says CSV or workbook ([`crate::table::XlsxFile`]; `options` are the CSV's and do not
/// apply to it), its "About" sheet naming `connection`. With `from`, a CSV export goes on from
/// where an interrupted one stopped: `pager` is moved to its cursor and its rows are copied first.
/// With `keeping`, every row is also kept keyed ([`changes::RowRecorder`]) and, with a baseline,
/// only the rows added, changed or removed since are written ([`changes`]; not resumable).
#[allow(clippy::too_many_arguments)]
pub async fn export_all(
    pager: &mut Pager,
    out: &Path,
    format: Format,
    options: CsvOptions,
    connection: &str,
    from: Option<&Continue>,
    keeping: Option<Keeping>,
    cancel: &CancellationToken,
    progress: impl FnMut(Progress),
) -> Result<Exported, ExportError> {
    crate::platform::ui_thread::check("export file");
    let refused = |reason: &str| ExportError::File(FileError { path: out.to_path_buf(), reason: reason.to_owned() });
    let columns = pager.site().columns.clone();
    let about = crate::table::About { query: pager.query_text().to_owned(), connection: connection.to_owned() };
    match (format, from, keeping) {
        (Format::Xlsx, Some(_), _) => {
            Err(refused("an XLSX workbook is written whole and cannot be resumed; export it again without resuming"))
        }
        (_, Some(_), Some(Keeping { baseline: Some(_), .. })) => {
            Err(refused("an export of changes cannot be resumed; export the changes again without resuming"))
        }
        (_, None, Some(Keeping { key: None, baseline: Some(_), .. })) => Err(refused(&changes::no_key_column())),
        (format, None, Some(Keeping { key: Some(key), baseline: Some(baseline), recorder })) => {
            let named = |name: &str| crate::query::Column { name: name.into(), keys: vec![name.into()] };
            let mut header = vec![named(changes::CHANGE), named(changes::CHANGED_FIELDS)];
            header.extend(columns.iter().cloned());
            match format {
                Format::Xlsx => {
                    let file = crate::table::XlsxFile::create(out, &header, about)?;
                    walk_into(pager, out, ChangesFile::new(file, key, baseline, recorder), cancel, progress).await
                }
                Format::Csv => {
                    let file = CsvFile::create(out, &header, options)?;
                    walk_into(pager, out, ChangesFile::new(file, key, baseline, recorder), cancel, progress).await
                }
            }
        }
        (Format::Xlsx, None, keeping) => {
            let file = crate::table::XlsxFile::create(out, &columns, about)?;
            walk_kept(pager, out, file, keeping, cancel, progress).await
        }
        (Format::Csv, None, keeping) => {
            let file = CsvFile::create(out, &columns, options)?;
            walk_kept(pager, out, file, keeping, cancel, progress).await
        }
        (Format::Csv, Some(from), _) => {
            // A resumed export has not seen the rows of its partial: it keeps no snapshot.
            let file = CsvFile::resume(out, &from.partial, &columns, options, from.rows)?;
            pager.seek(from.cursor.clone());
            walk_into(pager, out, file, cancel, progress).await
        }
    }
}

/// [`walk_into`] `file`, keeping every row keyed when asked.
async fn walk_kept(
    pager: &mut Pager,
    out: &Path,
    file: impl PageSink + Send + 'static,
    keeping: Option<Keeping>,
    cancel: &CancellationToken,
    progress: impl FnMut(Progress),
) -> Result<Exported, ExportError> {
    match keeping {
        Some(Keeping { key, recorder: Some(recorder), .. }) => {
            let kept = Kept::new(file, key, recorder);
            walk_into(pager, out, kept, cancel, progress).await
        }
        Some(Keeping { recorder: None, .. }) => walk_into(pager, out, file, cancel, progress).await,
        None => walk_into(pager, out, file, cancel, progress).await,
    }
}

/// Walks every page of `pager` into two files at once: `whole` (every row, as [`export_all`]
/// writes it) and `changes` (the rows added, changed or removed since `baseline`, as
/// `--changes-since` writes them), every row kept by `recorder` keyed by the column `key`: what
/// a scheduled delivery with changes sends (issue 53). Both files appear under their names only
/// when both are complete; the returned rows are the whole file's, the counts the changes'.
#[allow(clippy::too_many_arguments)]
pub async fn export_with_changes(
    pager: &mut Pager,
    whole: &Path,
    changes: &Path,
    format: Format,
    options: CsvOptions,
    connection: &str,
    key: usize,
    baseline: Baseline,
    recorder: Option<RowRecorder>,
    cancel: &CancellationToken,
    progress: impl FnMut(Progress),
) -> Result<Exported, ExportError> {
    crate::platform::ui_thread::check("export file");
    let columns = pager.site().columns.clone();
    let about = || crate::table::About { query: pager.query_text().to_owned(), connection: connection.to_owned() };
    let named = |name: &str| crate::query::Column { name: name.into(), keys: vec![name.into()] };
    let mut header = vec![named(changes::CHANGE), named(changes::CHANGED_FIELDS)];
    header.extend(columns.iter().cloned());
    match format {
        Format::Xlsx => {
            let whole_file = crate::table::XlsxFile::create(whole, &columns, about())?;
            let changes_file = crate::table::XlsxFile::create(changes, &header, about())?;
            let both = Both { whole: whole_file, changes: ChangesFile::new(changes_file, key, baseline, recorder) };
            walk_into(pager, whole, both, cancel, progress).await
        }
        Format::Csv => {
            let whole_file = CsvFile::create(whole, &columns, options)?;
            let changes_file = CsvFile::create(changes, &header, options)?;
            let both = Both { whole: whole_file, changes: ChangesFile::new(changes_file, key, baseline, recorder) };
            walk_into(pager, whole, both, cancel, progress).await
        }
    }
}
