//! Every page of a query's one connection into a CSV file or a workbook, streamed: the one code
//! path of `orgql export` and of the app's "Export all pages". An interrupted CSV export can be
//! resumed from where its `.partial` stops ([`resume`]).

pub mod changes;
pub mod resume;

use std::path::Path;

use tokio_util::sync::CancellationToken;

use self::changes::{Baseline, Change, Counts, RowRecorder};
use crate::api::{ApiError, Pager};
use crate::table::{CommitError, CsvFile, CsvOptions, FileError, Format, Partial, Row};

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
            let kept = Kept { inner: file, key, recorder: Some(recorder), position: 0 };
            walk_into(pager, out, kept, cancel, progress).await
        }
        Some(Keeping { recorder: None, .. }) => walk_into(pager, out, file, cancel, progress).await,
        None => walk_into(pager, out, file, cancel, progress).await,
    }
}

/// A file an export writes page by page: a CSV file or a workbook.
trait PageSink {
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
trait TextSink: PageSink {
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
struct Kept<S> {
    inner: S,
    key: Option<usize>,
    recorder: Option<RowRecorder>,
    /// Rows kept so far: the position of the last one.
    position: u64,
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
struct ChangesFile<S> {
    inner: S,
    key: usize,
    baseline: Baseline,
    recorder: Option<RowRecorder>,
    seen: std::collections::HashSet<String>,
    counts: Counts,
}

impl<S: TextSink> ChangesFile<S> {
    fn new(inner: S, key: usize, baseline: Baseline, recorder: Option<RowRecorder>) -> Self {
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

/// A page on its way from the walk to the writer.
struct Fetched {
    /// Read into JSON by the writer, off the walk's critical path.
    data: crate::api::pages::PageData,
    total: Option<u64>,
    /// The walk's cursor after this page: where a resume starts once the page is written.
    cursor: Option<String>,
}

/// How many fetched pages may wait for the writer: the walk asks for the next page while the
/// writer writes the last, and stops asking only when the writer is this many pages behind.
/// Pages wait as the answers' bytes (about 5 KB for 50 users; an answer of an unusual shape,
/// read whole on the walk, as its JSON), so memory stays flat however slow the disk; a depth of one stalled the walk whenever the writer paused longer than a page
/// (SQLite's WAL checkpoint of the record, with its fsync, every few hundred pages; the writer
/// thread waiting for a core on a busy machine).
const PAGES_AHEAD: usize = 32;

/// Why the writer stopped before the last page.
enum Stop {
    /// Writing failed.
    Write(String),
    /// The page could not be read (its answer was not JSON after all).
    Page(ApiError),
}

/// Every page of `pager` into `file`, which becomes `out` when complete (or its `.partial`).
///
/// Pipelined: the walk fetches pages on this task, reading of each answer only what the next
/// request needs (the cursor, the nodes' count and keys: `api::outline`), while a blocking
/// thread reads the page into JSON, writes and records it (`file.page`), so the request for the
/// next page leaves as soon as the current page's cursor is known. The rows keep the page order;
/// when a page fails, the pages before it are written first, so the `.partial` holds exactly the
/// rows of the pages before the failure.
async fn walk_into<S: PageSink + Send + 'static>(
    pager: &mut Pager,
    out: &Path,
    file: S,
    cancel: &CancellationToken,
    mut progress: impl FnMut(Progress),
) -> Result<Exported, ExportError> {
    // The cursor after the last page the file holds whole.
    let start = pager.cursor().map(str::to_owned);
    let resumable = file.resumable();
    let reached = |cursor: Option<String>| resumable.then_some(Reached { cursor });
    let site = pager.site().clone();
    let (pages, mut to_write) = tokio::sync::mpsc::channel::<Fetched>(PAGES_AHEAD);
    let (report, mut written) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let writer = tokio::task::spawn_blocking(move || {
        let (mut file, mut durable) = (file, start);
        while let Some(page) = to_write.blocking_recv() {
            let data = match page.data.into_json() {
                Ok(data) => data,
                Err(cause) => return (file, durable, Err(Stop::Page(cause))),
            };
            if let Err(reason) = file.page(&data, &site) {
                return (file, durable, Err(Stop::Write(reason)));
            }
            durable = page.cursor;
            if report.send(Progress { rows: file.handled(), total: page.total }).is_err() {
                tracing::debug!("the export's progress is no longer read");
            }
        }
        (file, durable, Ok(()))
    });
    let fetched = loop {
        while let Ok(done) = written.try_recv() {
            progress(done);
        }
        match pager.next_page_unread(cancel).await {
            Ok(Some((data, page))) => {
                let page = Fetched { data, total: page.total, cursor: pager.cursor().map(str::to_owned) };
                if pages.send(page).await.is_err() {
                    // The writer stopped on an error, said below.
                    break Ok(());
                }
            }
            Ok(None) => break Ok(()),
            Err(cause) => break Err(cause),
        }
    };
    drop(pages);
    let joined = writer.await;
    while let Ok(done) = written.try_recv() {
        progress(done);
    }
    let (mut file, durable, wrote) = joined.map_err(|e| {
        ExportError::File(FileError {
            path: out.to_path_buf(),
            reason: format!("the export's writer stopped abnormally ({e}); export again"),
        })
    })?;
    match wrote {
        Ok(()) => {}
        Err(Stop::Write(reason)) => {
            return Err(ExportError::Write {
                reason,
                partial: file.partial(),
                out: out.to_path_buf(),
                reached: reached(durable),
            });
        }
        Err(Stop::Page(cause)) => {
            return Err(ExportError::Interrupted {
                cause,
                partial: file.partial(),
                out: out.to_path_buf(),
                reached: reached(durable),
            });
        }
    }
    if let Err(cause) = fetched {
        return Err(ExportError::Interrupted {
            cause,
            partial: file.partial(),
            out: out.to_path_buf(),
            reached: reached(durable),
        });
    }
    let (counts, recorder) = file.outcome();
    let rows = file.finish().map_err(|CommitError { error, partial }| ExportError::Write {
        reason: error.reason,
        partial,
        out: out.to_path_buf(),
        // Every page is in: a resume asks for the page after the last and completes the file.
        reached: reached(durable),
    })?;
    Ok(Exported { rows, counts, recorder })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::api::{BaseUrl, Client, ClientOptions, Credentials};
    use crate::query::PagingOptions;
    use crate::sandbox::{ADMIN_CLIENT, Config, Server};

    /// A front for a sandbox that passes the first `pages` page requests and answers the next
    /// with a GraphQL error, noting when it did.
    struct Breaking {
        upstream: String,
        pages: usize,
        /// The answer that breaks the walk (HTTP 200, JSON).
        answer: &'static [u8],
        seen: AtomicUsize,
        broke: Arc<(Mutex<bool>, Condvar)>,
        http: reqwest::Client,
    }

    async fn forward(
        axum::extract::State(front): axum::extract::State<Arc<Breaking>>,
        uri: axum::http::Uri,
        headers: axum::http::HeaderMap,
        body: axum::body::Bytes,
    ) -> axum::response::Response {
        use axum::response::IntoResponse;
        let text = String::from_utf8_lossy(&body);
        let page = uri.path() == "/graphql/" && !text.contains("__schema") && !text.contains("__type");
        if page && front.seen.fetch_add(1, Ordering::SeqCst) >= front.pages {
            let (broke, said) = &*front.broke;
            *broke.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
            said.notify_all();
            return ([(axum::http::header::CONTENT_TYPE, "application/json")], front.answer).into_response();
        }
        let mut request = front.http.post(format!("{}{}", front.upstream, uri.path())).body(body);
        for name in [axum::http::header::CONTENT_TYPE, axum::http::header::AUTHORIZATION] {
            if let Some(value) = headers.get(&name) {
                request = request.header(name.as_str(), value.as_bytes());
            }
        }
        let answer = request.send().await.expect("the sandbox answers");
        let status = axum::http::StatusCode::from_u16(answer.status().as_u16()).expect("a status");
        let bytes = answer.bytes().await.expect("a body").to_vec();
        (status, [(axum::http::header::CONTENT_TYPE, "application/json")], bytes).into_response()
    }

    /// A CSV file whose writing of page `hold` waits until the front has answered the page after
    /// it with its error (10 s at most), and says whether it saw that.
    struct Held {
        inner: CsvFile,
        pages: usize,
        hold: usize,
        broke: Arc<(Mutex<bool>, Condvar)>,
        seen_in_flight: Arc<AtomicBool>,
    }

    impl PageSink for Held {
        fn page(&mut self, data: &serde_json::Value, site: &crate::query::ConnectionSite) -> Result<(), String> {
            self.pages += 1;
            if self.pages == self.hold {
                let (broke, said) = &*self.broke;
                let guard = broke.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let (guard, _) = said
                    .wait_timeout_while(guard, Duration::from_secs(10), |broke| !*broke)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                self.seen_in_flight.store(*guard, Ordering::SeqCst);
            }
            PageSink::page(&mut self.inner, data, site)
        }
        fn written(&self) -> u64 {
            self.inner.rows()
        }
        fn partial(self) -> Partial {
            self.inner.keep_partial()
        }
        fn finish(self) -> Result<u64, CommitError> {
            self.inner.commit()
        }
        fn resumable(&self) -> bool {
            true
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_fails_while_the_one_before_is_written_leaves_exactly_the_pages_before_it() {
        let run = async {
            let server = Server::start(Config { users: 500, ..Config::default() }).await.expect("a sandbox");
            let broke = Arc::new((Mutex::new(false), Condvar::new()));
            let front = Arc::new(Breaking {
                upstream: server.base_url().to_owned(),
                pages: 3,
                answer: br#"{"data":null,"errors":[{"message":"The service broke off the walk"}]}"#,
                seen: AtomicUsize::new(0),
                broke: broke.clone(),
                http: reqwest::Client::new(),
            });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
            let base = format!("http://{}", listener.local_addr().expect("an address"));
            let app = axum::Router::new().fallback(forward).with_state(front.clone());
            let serving = tokio::spawn(async move { axum::serve(listener, app).await });

            let credentials = Credentials {
                base_url: BaseUrl::parse(&base).expect("a base URL"),
                client_id: ADMIN_CLIENT.to_owned(),
                client_secret: crate::secret::Secret::new(server.client_secret()),
                scopes: crate::scopes::ScopeSet::all(),
            };
            let client = Arc::new(Client::new(credentials, ClientOptions::default(), None).expect("a client"));
            let query = "{ paginatedUsers(first: 50) { edges { node { ref name } } } }";
            let mut pager = Pager::new(client, query, None, None, PagingOptions::default()).expect("a pager");
            let dir = tempfile::tempdir().expect("a folder");
            let out = dir.path().join("users.csv");
            let file = CsvFile::create(&out, &pager.site().columns.clone(), CsvOptions::default()).expect("a file");
            let seen_in_flight = Arc::new(AtomicBool::new(false));
            let held = Held { inner: file, pages: 0, hold: 3, broke, seen_in_flight: seen_in_flight.clone() };
            let cancel = CancellationToken::new();
            let result = walk_into(&mut pager, &out, held, &cancel, |_| {}).await;
            serving.abort();
            server.stop().await;

            assert!(
                seen_in_flight.load(Ordering::SeqCst),
                "the fourth page was asked for (and failed) while the third was being written"
            );
            let Err(ExportError::Interrupted { partial, reached, .. }) = result else {
                panic!("not interrupted: {result:?}")
            };
            assert_eq!(partial.rows, 150, "the three pages before the failed one, whole");
            assert!(reached.is_some_and(|r| r.cursor.is_some()), "the resume point is after the third page");
            let mut reader = ::csv::Reader::from_path(partial.path.expect("a partial file")).expect("readable");
            let refs: Vec<String> =
                reader.records().map(|record| record.expect("a CSV record")[0].to_owned()).collect();
            let want: Vec<String> = (1..=150).map(|n| format!("u{n:05}")).collect();
            assert_eq!(refs, want, "in page order");
        };
        tokio::time::timeout(Duration::from_secs(60), run).await.expect("the test ends within a minute");
    }

    /// A page whose outline reads (its cursor is known, the next request leaves) but whose JSON
    /// does not (a name that is not UTF-8, which the outline skips): the writer finds it, and
    /// the export stops as if the page had not come, with exactly the pages before it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_cannot_be_read_when_written_leaves_exactly_the_pages_before_it() {
        let run = async {
            let server = Server::start(Config { users: 500, ..Config::default() }).await.expect("a sandbox");
            let front = Arc::new(Breaking {
                upstream: server.base_url().to_owned(),
                pages: 3,
                answer: b"{\"data\":{\"paginatedUsers\":{\"pageInfo\":{\"hasNextPage\":true,\"endCursor\":\"X\"},\
                          \"edges\":[{\"node\":{\"ref\":\"u9\",\"name\":\"\xff\"}}]}}}",
                seen: AtomicUsize::new(0),
                broke: Arc::new((Mutex::new(false), Condvar::new())),
                http: reqwest::Client::new(),
            });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
            let base = format!("http://{}", listener.local_addr().expect("an address"));
            let app = axum::Router::new().fallback(forward).with_state(front.clone());
            let serving = tokio::spawn(async move { axum::serve(listener, app).await });
            let credentials = Credentials {
                base_url: BaseUrl::parse(&base).expect("a base URL"),
                client_id: ADMIN_CLIENT.to_owned(),
                client_secret: crate::secret::Secret::new(server.client_secret()),
                scopes: crate::scopes::ScopeSet::all(),
            };
            let client = Arc::new(Client::new(credentials, ClientOptions::default(), None).expect("a client"));
            let query = "{ paginatedUsers(first: 50) { edges { node { ref name } } } }";
            let mut pager = Pager::new(client, query, None, None, PagingOptions::default()).expect("a pager");
            let dir = tempfile::tempdir().expect("a folder");
            let out = dir.path().join("users.csv");
            let file = CsvFile::create(&out, &pager.site().columns.clone(), CsvOptions::default()).expect("a file");
            let cancel = CancellationToken::new();
            let result = walk_into(&mut pager, &out, file, &cancel, |_| {}).await;
            serving.abort();
            server.stop().await;

            let Err(ExportError::Interrupted { cause: ApiError::BadResponse(_), partial, reached, .. }) = result else {
                panic!("not interrupted by the unreadable page: {result:?}")
            };
            assert_eq!(partial.rows, 150, "the three pages before the unreadable one, whole");
            assert!(reached.is_some_and(|r| r.cursor.is_some()), "the resume point is after the third page");
            let mut reader = ::csv::Reader::from_path(partial.path.expect("a partial file")).expect("readable");
            let refs: Vec<String> =
                reader.records().map(|record| record.expect("a CSV record")[0].to_owned()).collect();
            let want: Vec<String> = (1..=150).map(|n| format!("u{n:05}")).collect();
            assert_eq!(refs, want, "in page order");
        };
        tokio::time::timeout(Duration::from_secs(60), run).await.expect("the test ends within a minute");
    }
}
