//! The files an export writes page by page ([`PageSink`]): a CSV file and a workbook as they
//! are, every row also kept keyed for a later comparison ([`Kept`]), or only the rows added,
//! changed or removed since a baseline ([`ChangesFile`]).

use super::changes::{self, Baseline, Change, Counts, RowRecorder};
use crate::table::{CommitError, CsvFile, FileError, Partial, Row};

/// A file an export writes page by page: a CSV file or a workbook.
pub(super) trait PageSink {
    /// Writes one page's nodes, durably for a CSV file.
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String>;
    /// Writes one page whose nodes' text `rows` (each after its key) were already made from
    /// `data`: a CSV file writes them as they are (the same bytes as [`PageSink::page`]); a
    /// workbook types its cells from `data`.
    fn page_rows(
        &mut self,
        data: &serde_json::Value,
        site: &crate::query::ConnectionSite,
        _rows: &[(String, Row)],
    ) -> Result<(), String> {
        self.page(data, site)
    }
    /// Rows written.
    fn written(&self) -> u64;
    /// Rows fetched and handled so far, for the progress against the connection's `count`
    /// (a changes file writes fewer than it reads).
    fn handled(&self) -> u64 {
        self.written()
    }
    /// Keeps what was written as `F.partial`.
    fn partial(self) -> Partial;
    /// Finishes the file under its name.
    fn finish(self) -> Result<u64, CommitError>;
    /// Whether a kept `.partial` can be continued (see [`Reached`]).
    fn resumable(&self) -> bool;
    /// What was written of the rows and their recorder, once every page is in.
    fn outcome(&mut self) -> (Option<Counts>, Option<RowRecorder>) {
        (None, None)
    }
}

/// A file that takes rows of text (the rows of a changes file).
pub(super) trait TextSink: PageSink {
    /// Writes `rows`, durably for a CSV file.
    fn text_rows(&mut self, rows: &[Row]) -> Result<(), String>;
}

impl TextSink for CsvFile {
    fn text_rows(&mut self, rows: &[Row]) -> Result<(), String> {
        for row in rows {
            self.writer().write_cells(row.cells()).map_err(|e| e.to_string())?;
        }
        self.end_page().map(|_| ()).map_err(|e| e.error.reason)
    }
}

impl TextSink for crate::table::XlsxFile {
    fn text_rows(&mut self, rows: &[Row]) -> Result<(), String> {
        self.write_texts(rows.iter()).map(|_| ()).map_err(|e| e.reason)
    }
}

/// The row of `node` as text, and its key.
fn keyed_row(node: &serde_json::Value, columns: &[crate::query::Column], key: usize) -> (String, Row) {
    let row = Row::new(crate::table::cells(node, columns));
    (row.cell(key).unwrap_or_default().to_owned(), row)
}

/// Hands a page's rows, keyed and digested, to `recorder`; `key: None` says they are keyed by
/// their position ([`changes::BY_POSITION`]).
fn record_page(
    recorder: &mut Option<RowRecorder>,
    site: &crate::query::ConnectionSite,
    key: Option<usize>,
    rows: Vec<(String, Row)>,
) {
    let Some(recorder) = recorder else { return };
    let columns: Vec<String> = site.columns.iter().map(|c| c.name.clone()).collect();
    let key_column = match key {
        Some(key) => site.columns.get(key).map(|c| c.name.clone()).unwrap_or_default(),
        None => changes::BY_POSITION.to_owned(),
    };
    let keyed: Vec<(String, changes::RowDigest, Row)> =
        rows.into_iter().map(|(k, row)| (k, changes::digest(row.cells()), row)).collect();
    recorder.keep(&columns, &key_column, keyed);
}

/// A file that also keeps every row keyed (by its key column, else by its position).
pub(super) struct Kept<S> {
    inner: S,
    key: Option<usize>,
    recorder: Option<RowRecorder>,
    /// Rows kept so far: the position of the last one.
    position: u64,
}

impl<S> Kept<S> {
    /// `inner`, every row of which is also kept by `recorder`, keyed by the column `key` (or by
    /// its position when there is none).
    pub(super) fn new(inner: S, key: Option<usize>, recorder: RowRecorder) -> Self {
        Kept { inner, key, recorder: Some(recorder), position: 0 }
    }
}

impl<S: PageSink> PageSink for Kept<S> {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        // Each node's cells are made once, for the file and for the record.
        let rows: Vec<(String, Row)> = match self.key {
            Some(key) => site.nodes(data).map(|node| keyed_row(node, &site.columns, key)).collect(),
            None => site
                .nodes(data)
                .map(|node| {
                    self.position += 1;
                    (self.position.to_string(), Row::new(crate::table::cells(node, &site.columns)))
                })
                .collect(),
        };
        self.inner.page_rows(data, site, &rows)?;
        record_page(&mut self.recorder, site, self.key, rows);
        Ok(())
    }
    fn written(&self) -> u64 {
        self.inner.written()
    }
    fn partial(self) -> Partial {
        self.inner.partial()
    }
    fn finish(self) -> Result<u64, CommitError> {
        self.inner.finish()
    }
    fn resumable(&self) -> bool {
        self.inner.resumable()
    }
    fn outcome(&mut self) -> (Option<Counts>, Option<RowRecorder>) {
        (None, self.recorder.take())
    }
}

/// A changes file: only the rows added or changed since the baseline, as they come, then the
/// rows removed, each after its `change` and `changed fields`.
pub(super) struct ChangesFile<S> {
    inner: S,
    key: usize,
    baseline: Baseline,
    recorder: Option<RowRecorder>,
    seen: std::collections::HashSet<String>,
    counts: Counts,
}

impl<S: TextSink> ChangesFile<S> {
    pub(super) fn new(inner: S, key: usize, baseline: Baseline, recorder: Option<RowRecorder>) -> Self {
        let (seen, counts) = (Default::default(), Counts::default());
        ChangesFile { inner, key, baseline, recorder, seen, counts }
    }
}

impl<S: TextSink> PageSink for ChangesFile<S> {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        let mut written = Vec::new();
        let mut kept = Vec::new();
        for node in site.nodes(data) {
            let (key, row) = keyed_row(node, &site.columns, self.key);
            if !self.seen.insert(key.clone()) {
                self.counts.repeated += 1;
                continue;
            }
            let change = self.baseline.compare(&key, &row);
            let fields = match &change {
                Change::Same => {
                    self.counts.unchanged += 1;
                    None
                }
                Change::Added => {
                    self.counts.added += 1;
                    Some("")
                }
                Change::Changed(fields) => {
                    self.counts.changed += 1;
                    Some(fields.as_str())
                }
            };
            if let Some(fields) = fields {
                written.push(Row::new([change.label(), fields].into_iter().chain(row.cells())));
            }
            kept.push((key, row));
        }
        record_page(&mut self.recorder, site, Some(self.key), kept);
        self.inner.text_rows(&written)
    }
    fn written(&self) -> u64 {
        self.inner.written()
    }
    fn handled(&self) -> u64 {
        self.seen.len() as u64 + self.counts.repeated
    }
    fn partial(self) -> Partial {
        self.inner.partial()
    }
    fn finish(mut self) -> Result<u64, CommitError> {
        let removed: Vec<Row> =
            self.baseline.removed().map(|row| Row::new(["removed", ""].into_iter().chain(row.cells()))).collect();
        if let Err(reason) = self.inner.text_rows(&removed) {
            let partial = self.inner.partial();
            let path = partial.path.clone().unwrap_or_default();
            return Err(CommitError { error: FileError { path, reason }, partial });
        }
        self.inner.finish()
    }
    fn resumable(&self) -> bool {
        false
    }
    fn outcome(&mut self) -> (Option<Counts>, Option<RowRecorder>) {
        self.counts.removed = self.baseline.removed().count() as u64;
        (Some(self.counts), self.recorder.take())
    }
}

/// Two files written from the same pages: the whole file (`whole`) and the changes since a
/// baseline (`changes`, a [`ChangesFile`]) — what a scheduled delivery with changes sends.
/// Its rows, partial and resumability are the whole file's.
pub(super) struct Both<A, B> {
    pub(super) whole: A,
    pub(super) changes: B,
}

impl<A: PageSink, B: PageSink> PageSink for Both<A, B> {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        self.whole.page(data, site)?;
        self.changes.page(data, site)
    }
    fn written(&self) -> u64 {
        self.whole.written()
    }
    fn partial(self) -> Partial {
        // The changes file is worth nothing alone: it is kept as its own `.partial` beside.
        drop(self.changes.partial());
        self.whole.partial()
    }
    fn finish(self) -> Result<u64, CommitError> {
        let Both { whole, changes } = self;
        if let Err(e) = changes.finish() {
            return Err(CommitError { error: e.error, partial: whole.partial() });
        }
        whole.finish()
    }
    fn resumable(&self) -> bool {
        false
    }
    fn outcome(&mut self) -> (Option<Counts>, Option<RowRecorder>) {
        self.changes.outcome()
    }
}

impl PageSink for CsvFile {
    fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
        self.writer().write_page(data, site).map_err(|e| e.to_string())?;
        self.end_page().map(|_| ()).map_err(|e| e.error.reason)
    }
    fn page_rows(
        &mut self,
        _data: &serde_json::Value,
        _site: &crate::query::ConnectionSite,
        rows: &[(String, Row)],
    ) -> Result<(), String> {
        for (_, row) in rows {
            self.writer().write_cells(row.cells()).map_err(|e| e.to_string())?;
        }
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
