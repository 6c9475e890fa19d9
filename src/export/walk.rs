//! The walk of an export: every page of a query's connection fetched on one task while a
//! blocking thread reads, writes and records the page before it ([`walk_into`]), so that an
//! interrupted export keeps exactly the rows of the pages before the failure.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::outcome::{ExportError, Exported, Progress, Reached};
use super::sinks::PageSink;
use crate::api::{ApiError, Pager};
use crate::table::{CommitError, FileError};

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
pub(super) async fn walk_into<S: PageSink + Send + 'static>(
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
    use crate::table::{CsvFile, CsvOptions, Partial};

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
