//! The `orgql` binary's headless commands (`query`, `export`, `profile`) against an in-process
//! sandbox: the CSV of contract section 3 cell by cell, the exit statuses and one-sentence errors
//! of section 2, partial exports, and a secret that never reaches a file or the terminal.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use orgql::sandbox::{Config, RunningServer};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::harness::{SECRET, data, sandbox, sandbox_with, token, walk};

const SELECTION: &str = "ref name email isActive groups { name } extraFields { category { ref } value }";
const HEADER: [&str; 7] =
    ["ref", "name", "email", "isActive", "groups.name", "extraFields.category.ref", "extraFields.value"];

/// A home for one test's runs of `orgql`: config, data and cache under a temporary directory,
/// no keyring.
struct Home {
    dir: TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for sub in ["home", "config", "data", "cache", "out"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("a directory");
        }
        Home { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `orgql ARGS` with a clean environment pointing into the temporary directory.
    fn orgql(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_orgql"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("ORGQL_NO_KEYRING", "1")
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env("XDG_CACHE_HOME", self.path("cache"))
            .current_dir(self.path("out"))
            .stdin(Stdio::null());
        command
    }

    /// `orgql ARGS` with the client secret in the environment.
    fn orgql_with_secret(&self, secret: &str, args: &[&str]) -> Command {
        let mut command = self.orgql(args);
        command.env("ORGQL_CLIENT_SECRET", secret);
        command
    }
}

/// Runs a command off the async runtime (the sandbox must keep serving meanwhile).
async fn output(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output().expect("orgql runs")).await.expect("the run ends")
}

/// Runs a command with `input` on its standard input.
async fn output_with_stdin(mut command: Command, input: &'static str) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("orgql runs");
        child.stdin.take().expect("a stdin").write_all(input.as_bytes()).expect("stdin takes the input");
        child.wait_with_output().expect("orgql ends")
    })
    .await
    .expect("the run ends")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The connection options of `sandbox-admin` on `server`.
fn connection<'a>(server: &'a RunningServer, scope: &'a str) -> [&'a str; 6] {
    ["--base-url", server.base_url(), "--client-id", "sandbox-admin", "--scope", scope]
}

fn args<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(tail).copied().collect()
}

/// Checks a failed run: its exit status, and one sentence on stderr that starts with `orgql: `,
/// mentions `needle`, and holds none of `secrets`.
fn assert_fails(output: &Output, code: i32, needle: &str, secrets: &[&str]) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "stderr: {err}\nstdout: {}", stdout(output));
    let text = err.trim_end();
    assert!(text.starts_with("orgql: "), "stderr should start with 'orgql: ': {err:?}");
    assert_eq!(text.lines().count(), 1, "stderr should be one sentence on one line: {err:?}");
    assert!(text.contains(needle), "stderr should mention {needle:?}: {err:?}");
    for secret in secrets {
        assert!(!err.contains(secret) && !stdout(output).contains(secret), "the secret leaked: {err:?}");
    }
}

/// The cell the contract wants for `value`: lists joined with `; `, booleans as words, null empty.
fn cell_of(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(flag) => flag.to_string(),
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        other => panic!("not a scalar: {other}"),
    }
}

fn joined(list: &Value, pick: impl Fn(&Value) -> &Value) -> String {
    list.as_array().expect("a list").iter().map(|item| cell_of(pick(item))).collect::<Vec<_>>().join("; ")
}

/// The formula guard of the contract.
fn guarded(cell: String) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{cell}") } else { cell }
}

/// The rows the export of `SELECTION` should hold, from the nodes of a direct GraphQL walk.
fn expected_rows(nodes: &[Value], raw: bool) -> Vec<Vec<String>> {
    nodes
        .iter()
        .map(|node| {
            let row = vec![
                cell_of(&node["ref"]),
                cell_of(&node["name"]),
                cell_of(&node["email"]),
                cell_of(&node["isActive"]),
                joined(&node["groups"], |g| &g["name"]),
                joined(&node["extraFields"], |f| &f["category"]["ref"]),
                joined(&node["extraFields"], |f| &f["value"]),
            ];
            if raw { row } else { row.into_iter().map(guarded).collect() }
        })
        .collect()
}

/// Every record of a CSV file (after an optional BOM), the header included.
fn read_csv(bytes: &[u8]) -> Vec<Vec<String>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(bytes);
    reader.records().map(|r| r.expect("a CSV record").iter().map(str::to_owned).collect()).collect()
}

fn compare(got: &[Vec<String>], want: &[Vec<String>]) {
    assert_eq!(got[0], HEADER, "the header row");
    assert_eq!(got.len(), want.len() + 1, "rows: every node plus the header");
    for (i, (row, expected)) in got[1..].iter().zip(want).enumerate() {
        assert_eq!(row.len(), HEADER.len(), "row {i} has {} cells", row.len());
        for (column, (cell, wanted)) in row.iter().zip(expected).enumerate() {
            assert_eq!(cell, wanted, "row {i} ({}), column {}", expected[0], HEADER[column]);
        }
    }
}

/// Lists every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Opens the CSV with Python's csv module when python3 is installed; the number of records, or
/// `None` (with a note) when there is no python3.
fn python_rows(path: &Path) -> Option<usize> {
    let script = r#"import csv,sys; rows=list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8-sig"))); print(len(rows))"#;
    match Command::new("python3").arg("-c").arg(script).arg(path).output() {
        Ok(output) => {
            assert!(output.status.success(), "python3 could not read the CSV: {}", stderr(&output));
            Some(stdout(&output).trim().parse().expect("a number of rows"))
        }
        Err(err) => {
            println!("note: python3 is not on PATH ({err}); skipping the check with Python's csv module");
            None
        }
    }
}

/// `orgql export` of 500 sandbox users' `SELECTION` into `out/NAME`: the sandbox (to check the
/// rows against), the home and the file.
async fn export_500_users(name: &str) -> (RunningServer, Home, PathBuf) {
    let server = sandbox(500).await;
    let home = Home::new();
    let query = format!("{{ paginatedUsers {{ edges {{ node {{ {SELECTION} }} }} }} }}");
    let out = home.path("out").join(name);
    let out_text = out.to_str().expect("a UTF-8 path").to_owned();
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &query, "--out", &out_text], &connection(&server, "users.read")),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("500 rows"), "{}", stderr(&run));
    (server, home, out)
}

#[tokio::test]
async fn an_export_of_every_page_matches_a_direct_query_cell_by_cell() {
    let (server, home, out) = export_500_users("users.csv").await;

    let admin = token(&server, "users.read").await;
    let (nodes, count) = walk(&server, &admin, "paginatedUsers", "", SELECTION).await;
    assert_eq!((nodes.len(), count), (500, 500));
    let bytes = std::fs::read(&out).expect("the CSV exists");
    assert!(bytes.starts_with(b"ref,name,"), "no BOM unless asked");
    let rows = read_csv(&bytes);
    compare(&rows, &expected_rows(&nodes, false));

    // The tricky names made it through quoting and the guard.
    let names: Vec<&str> = rows[1..].iter().map(|row| row[1].as_str()).collect();
    for name in ["'=SUM(A1:A9)", "'+49 Caller", "'-Dash Minus", "'@mention Handle", "'\tTab Leading"] {
        assert_eq!(names.iter().filter(|n| **n == name).count(), 10, "{name:?}");
    }
    for name in ["O'Brien, Seán", "Ana \"Nana\" Souza", "Jordan\nLee", "Zoë 🚀 Quinn", "Carriage\rReturn"] {
        assert_eq!(names.iter().filter(|n| **n == name).count(), 10, "{name:?}");
    }
    // Lists became joined cells.
    assert!(rows[1..].iter().any(|row| row[4].contains("; ")), "no user in two groups?");
    assert!(rows[1..].iter().all(|row| row[6].matches("; ").count() == 2), "three extra fields each");

    if let Some(count) = python_rows(&out) {
        assert_eq!(count, 501, "Python's csv module reads another number of rows");
    }
    // Only the file: no temporary file is left next to it.
    let left: Vec<PathBuf> = files_under(&home.path("out"));
    assert_eq!(left, [out], "{left:?}");
}

#[tokio::test]
async fn bom_starts_the_file_and_raw_turns_the_guard_off() {
    let server = sandbox(100).await;
    let home = Home::new();
    let query = format!("{{ paginatedUsers {{ edges {{ node {{ {SELECTION} }} }} }} }}");
    let admin = token(&server, "users.read").await;
    let (nodes, _) = walk(&server, &admin, "paginatedUsers", "", SELECTION).await;

    let bom = home.path("out").join("bom.csv");
    let bom_text = bom.to_str().expect("a UTF-8 path");
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &query, "--out", bom_text, "--bom"], &connection(&server, "users.read")),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let bytes = std::fs::read(&bom).expect("the CSV exists");
    assert!(bytes.starts_with(&[0xEF, 0xBB, 0xBF]), "{:?}", &bytes[..8]);
    assert!(bytes[3..].starts_with(b"ref,name,"));
    compare(&read_csv(&bytes), &expected_rows(&nodes, false));
    if let Some(count) = python_rows(&bom) {
        assert_eq!(count, 101);
    }

    let raw = home.path("out").join("raw.csv");
    let raw_text = raw.to_str().expect("a UTF-8 path");
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &query, "--out", raw_text, "--raw"], &connection(&server, "users.read")),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let bytes = std::fs::read(&raw).expect("the CSV exists");
    assert!(bytes.starts_with(b"ref,name,"), "no BOM unless asked");
    let rows = read_csv(&bytes);
    compare(&rows, &expected_rows(&nodes, true));
    assert!(rows.iter().any(|row| row[1] == "=SUM(A1:A9)"), "--raw keeps the formula as it is");
    assert!(!rows.iter().any(|row| row[1].starts_with('\'') && row[1] != "'"), "--raw adds no quote");
}

#[tokio::test]
async fn query_all_pages_prints_every_edge_as_one_response() {
    let server = sandbox(120).await;
    let home = Home::new();
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(
            &["query", "--all-pages", "-e", "{ paginatedUsers { count edges { node { ref name } } } }"],
            &connection(&server, "users.read"),
        ),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let response: Value = serde_json::from_slice(&run.stdout).expect("JSON on stdout");
    assert!(response.get("errors").is_none(), "{response}");
    let connection = &response["data"]["paginatedUsers"];
    assert_eq!(connection["count"], 120);
    let refs: Vec<&str> =
        connection["edges"].as_array().expect("edges").iter().map(|e| e["node"]["ref"].as_str().unwrap()).collect();
    let want: Vec<String> = (1..=120).map(|n| format!("u{n:05}")).collect();
    assert_eq!(refs, want, "all 120 edges, each once, in order");
    assert_eq!(connection["pageInfo"]["hasNextPage"], false, "the last page's pageInfo");
}

#[tokio::test]
async fn a_capped_page_size_is_said_once_and_the_export_is_complete() {
    let server = sandbox(120).await;
    let home = Home::new();
    let query = "{ paginatedUsers(first: 200) { edges { node { ref } } } }";
    let out = home.path("out").join("capped.csv");
    let out_text = out.to_str().expect("a UTF-8 path");
    for command in [&["export", "-e", query, "--out", out_text][..], &["query", "--all-pages", "-e", query][..]] {
        let run = output(home.orgql_with_secret(SECRET, &args(command, &connection(&server, "users.read")))).await;
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        let err = stderr(&run);
        assert_eq!(err.matches("first: 200 is above the page-size limit of 50").count(), 1, "said once: {err:?}");
        assert!(err.lines().all(|line| line.starts_with("orgql: ")), "{err:?}");
    }
    let refs: Vec<String> =
        read_csv(&std::fs::read(&out).expect("the CSV"))[1..].iter().map(|r| r[0].clone()).collect();
    assert_eq!(refs, (1..=120).map(|n| format!("u{n:05}")).collect::<Vec<_>>());
}

#[tokio::test]
async fn usage_errors_exit_with_status_2_and_one_sentence() {
    let server = sandbox(60).await;
    let home = Home::new();
    let conn = connection(&server, "users.read");
    let query = "{ paginatedUsers { edges { node { ref } } } }";
    let out = home.path("out").join("x.csv");
    let out = out.to_str().expect("a UTF-8 path");

    // No --out.
    let run = output(home.orgql_with_secret(SECRET, &args(&["export", "-e", query], &conn))).await;
    assert_fails(&run, 2, "--out", &[SECRET]);
    // A query file that cannot be read.
    let missing = home.path("nowhere.graphql");
    let missing = missing.to_str().expect("a UTF-8 path");
    let run = output(home.orgql_with_secret(SECRET, &args(&["query", "--file", missing], &conn))).await;
    assert_fails(&run, 2, "nowhere.graphql", &[SECRET]);
    let run = output(home.orgql_with_secret(SECRET, &args(&["export", "--file", missing, "--out", out], &conn))).await;
    assert_fails(&run, 2, "nowhere.graphql", &[SECRET]);
    // Variables that are not JSON, or not an object.
    let run =
        output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query, "--variables", "{ref: u1}"], &conn))).await;
    assert_fails(&run, 2, "--variables", &[SECRET]);
    let run = output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query, "--variables", "[1]"], &conn))).await;
    assert_fails(&run, 2, "--variables", &[SECRET]);
    // A query with no connection cannot be exported.
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", "{ user(ref: \"u00001\") { name } }", "--out", out], &conn),
    ))
    .await;
    assert_fails(&run, 2, "connection", &[SECRET]);
    // No secret in the environment.
    let run = output(home.orgql(&args(&["query", "-e", query], &conn))).await;
    assert_fails(&run, 2, "ORGQL_CLIENT_SECRET", &[]);
    // None of them left a file behind.
    assert!(files_under(&home.path("out")).is_empty(), "{:?}", files_under(&home.path("out")));
}

#[tokio::test]
async fn service_failures_exit_with_the_contract_statuses() {
    let server = sandbox(60).await;
    let home = Home::new();
    let query = "{ paginatedUsers { edges { node { ref } } } }";

    // 3: a wrong secret.
    let wrong = "wrong-secret-3a8c";
    let run =
        output(home.orgql_with_secret(wrong, &args(&["query", "-e", query], &connection(&server, "users.read")))).await;
    assert_fails(&run, 3, "client", &[wrong, SECRET]);
    assert!(run.stdout.is_empty());

    // 4: a token without the scope the query needs, and a scope the client may not request.
    let run =
        output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query], &connection(&server, "groups.read"))))
            .await;
    assert_fails(&run, 4, "users.read", &[SECRET]);
    let reader =
        ["--base-url", server.base_url(), "--client-id", "sandbox-reader", "--scope", "users.read users.write"];
    let run = output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query], &reader))).await;
    assert_fails(&run, 4, "invalid_scope", &[SECRET]);

    // 5: GraphQL errors; stdout still holds the response with them.
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["query", "-e", "{ user(ref: \"nobody\") { name } }"], &connection(&server, "users.read")),
    ))
    .await;
    assert_fails(&run, 5, "nobody", &[SECRET]);
    let response: Value = serde_json::from_slice(&run.stdout).expect("the JSON response on stdout");
    assert_eq!(response["data"], json!({ "user": null }));
    assert!(response["errors"][0]["message"].as_str().unwrap().contains("nobody"), "{response}");
    assert_eq!(response["errors"][0]["path"], json!(["user"]));

    // 6: nothing listens at the base URL.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let closed = format!("http://127.0.0.1:{port}");
    let conn = ["--base-url", closed.as_str(), "--client-id", "sandbox-admin", "--scope", "users.read"];
    let run = output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query], &conn))).await;
    assert_fails(&run, 6, "nothing listens there", &[SECRET]);
    let out = home.path("out").join("closed.csv");
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", query, "--out", out.to_str().expect("a UTF-8 path")], &conn),
    ))
    .await;
    assert_fails(&run, 6, "nothing listens there", &[SECRET]);
    assert!(!out.exists());

    // 0: the same query, right.
    let run =
        output(home.orgql_with_secret(SECRET, &args(&["query", "-e", query], &connection(&server, "users.read"))))
            .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(run.stderr.is_empty(), "{}", stderr(&run));
}

/// A front for a sandbox that passes the first `pages` GraphQL requests through and answers every
/// later one with a GraphQL error, as a service that breaks off mid-walk.
struct BreakingProxy {
    upstream: String,
    pages: usize,
    seen: AtomicUsize,
    /// Introspection requests passed.
    introspections: AtomicUsize,
    http: reqwest::Client,
}

async fn forward(State(proxy): State<Arc<BreakingProxy>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    // The schema (which orgql reads to learn how the connection pages) passes; pages are counted.
    let text = String::from_utf8_lossy(&body);
    let introspection = text.contains("__schema") || text.contains("__type");
    if introspection {
        proxy.introspections.fetch_add(1, Ordering::SeqCst);
    }
    if uri.path() == "/graphql/" && !introspection && proxy.seen.fetch_add(1, Ordering::SeqCst) >= proxy.pages {
        let body = json!({ "data": null, "errors": [{ "message": "The service broke off the walk" }] });
        return (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    }
    let mut request = proxy.http.post(format!("{}{}", proxy.upstream, uri.path())).body(body);
    for name in [header::CONTENT_TYPE, header::AUTHORIZATION] {
        if let Some(value) = headers.get(&name) {
            request = request.header(name.as_str(), value.as_bytes());
        }
    }
    let answer = request.send().await.expect("the sandbox answers");
    let status = StatusCode::from_u16(answer.status().as_u16()).expect("a status");
    let content_type = answer
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let bytes = answer.bytes().await.expect("a body").to_vec();
    (status, [(header::CONTENT_TYPE, content_type)], bytes).into_response()
}

#[tokio::test]
async fn an_export_that_fails_midway_keeps_a_partial_file_and_says_how_many_rows() {
    let server = sandbox(500).await;
    let proxy = Arc::new(BreakingProxy {
        upstream: server.base_url().to_owned(),
        pages: 3,
        seen: AtomicUsize::new(0),
        introspections: AtomicUsize::new(0),
        http: crate::harness::http(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let front = format!("http://{}", listener.local_addr().expect("an address"));
    let app = axum::Router::new().fallback(forward).with_state(proxy.clone());
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });

    let home = Home::new();
    let out = home.path("out").join("users.csv");
    let conn = ["--base-url", front.as_str(), "--client-id", "sandbox-admin", "--scope", "users.read"];
    let query = "{ paginatedUsers { edges { node { ref name } } } }";
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", query, "--out", out.to_str().expect("a UTF-8 path")], &conn),
    ))
    .await;
    serving.abort();
    assert_eq!(proxy.seen.load(Ordering::SeqCst), 4, "three pages, then the broken one, not retried");
    assert_fails(&run, 5, "150 rows", &[SECRET]);
    assert!(stderr(&run).contains("users.csv.partial"), "{}", stderr(&run));

    assert!(!out.exists(), "a failed export must not leave {}", out.display());
    let partial = home.path("out").join("users.csv.partial");
    let rows = read_csv(&std::fs::read(&partial).expect("the partial file exists"));
    assert_eq!(rows[0], ["ref", "name"]);
    assert_eq!(rows.len(), 151, "the header and the 150 rows the message states");
    let refs: Vec<String> = rows[1..].iter().map(|row| row[0].clone()).collect();
    let want: Vec<String> = (1..=150).map(|n| format!("u{n:05}")).collect();
    assert_eq!(refs, want);
    let mut left = files_under(&home.path("out"));
    left.sort();
    let point = home.path("out").join("users.csv.partial.resume");
    assert_eq!(left, [partial, point], "no temporary file is left, and where the rows stop is kept");
}

#[tokio::test]
async fn a_second_export_reads_the_schema_kept_by_the_first_unless_asked_to_refresh_it() {
    let server = sandbox(120).await;
    let proxy = Arc::new(BreakingProxy {
        upstream: server.base_url().to_owned(),
        pages: usize::MAX,
        seen: AtomicUsize::new(0),
        introspections: AtomicUsize::new(0),
        http: crate::harness::http(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let front = format!("http://{}", listener.local_addr().expect("an address"));
    let app = axum::Router::new().fallback(forward).with_state(proxy.clone());
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });

    let home = Home::new();
    let out = home.path("out").join("users.csv");
    let conn = ["--base-url", front.as_str(), "--client-id", "sandbox-admin", "--scope", "users.read"];
    let export = |extra: &'static [&'static str]| {
        let mut list = vec!["export", "-e", "{ paginatedUsers { edges { node { ref name } } } }", "--out"];
        list.push(out.to_str().expect("a UTF-8 path"));
        list.extend_from_slice(extra);
        output(home.orgql_with_secret(SECRET, &args(&list, &conn)))
    };
    let first = export(&[]).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let asked = proxy.introspections.load(Ordering::SeqCst);
    assert!(asked >= 1, "the first export reads the schema");
    let second = export(&[]).await;
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(proxy.introspections.load(Ordering::SeqCst), asked, "the second takes the kept schema");
    let refreshed = export(&["--refresh-schema"]).await;
    assert_eq!(refreshed.status.code(), Some(0), "{}", stderr(&refreshed));
    assert_eq!(proxy.introspections.load(Ordering::SeqCst), 2 * asked, "--refresh-schema reads it again");
    serving.abort();
    let rows = read_csv(&std::fs::read(&out).expect("the file"));
    assert_eq!(rows.len(), 121, "the header and every user, each time");
}

#[tokio::test]
async fn the_secret_never_reaches_a_file_stdout_or_stderr() {
    let secret = "s3cr3t-Zq8w-never-written";
    let server = sandbox_with(Config { users: 60, secret: secret.to_owned(), ..Config::default() }).await;
    let home = Home::new();
    let mut outputs = Vec::new();

    // profile add: the secret on stdin; without a keyring it is not kept, and the command says so.
    let add = home.orgql(&[
        "profile",
        "add",
        "acme",
        "--base-url",
        server.base_url(),
        "--client-id",
        "sandbox-admin",
        "--scope",
        "users.read",
    ]);
    let run = output_with_stdin(add, "s3cr3t-Zq8w-never-written\n").await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("no OS keyring"), "{}", stderr(&run));
    assert!(stderr(&run).contains("ORGQL_CLIENT_SECRET"), "{}", stderr(&run));
    outputs.push(run);
    let profiles = home.path("config").join("orgql").join("profiles.toml");
    let text = std::fs::read_to_string(&profiles).expect("the profile was saved");
    assert!(text.contains("acme") && text.contains(server.base_url()), "{text}");

    // profile list.
    let run = output(home.orgql(&["profile", "list"])).await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stdout(&run).contains("acme") && stdout(&run).contains("sandbox-admin"), "{}", stdout(&run));
    outputs.push(run);

    // query --profile, the secret from the environment; with the most verbose logs.
    let query = "{ paginatedUsers { count edges { node { ref } } } }";
    let mut command = home.orgql_with_secret(secret, &["query", "--profile", "acme", "-e", query]);
    command.env("ORGQL_LOG", "trace");
    let run = output(command).await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let response: Value = serde_json::from_slice(&run.stdout).expect("JSON on stdout");
    assert_eq!(response["data"]["paginatedUsers"]["count"], 60);
    outputs.push(run);
    // Without the variable, the profile has no secret to use.
    let run = output(home.orgql(&["query", "--profile", "acme", "-e", query])).await;
    assert_fails(&run, 2, "ORGQL_CLIENT_SECRET", &[secret]);
    outputs.push(run);

    // export --profile, and export with the connection options.
    let out = home.path("out").join("users.csv");
    let out_text = out.to_str().expect("a UTF-8 path");
    let run =
        output(home.orgql_with_secret(secret, &["export", "--profile", "acme", "-e", query, "--out", out_text])).await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    outputs.push(run);
    let run = output(home.orgql_with_secret(
        secret,
        &args(&["export", "-e", query, "--out", out_text, "--bom"], &connection(&server, "users.read")),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    outputs.push(run);
    assert_eq!(read_csv(&std::fs::read(&out).expect("the CSV")).len(), 61);

    // A wrong secret's failure does not print the secret either.
    let mut command = home.orgql_with_secret("wrong-Zq8w", &["query", "--profile", "acme", "-e", query]);
    command.env("ORGQL_LOG", "trace");
    outputs.push(output(command).await);

    for (i, run) in outputs.iter().enumerate() {
        assert!(!contains(&run.stdout, secret), "run {i} printed the secret on stdout");
        assert!(!contains(&run.stderr, secret), "run {i} printed the secret on stderr");
        assert!(!contains(&run.stderr, "wrong-Zq8w"), "run {i} printed the wrong secret on stderr");
    }
    let files = files_under(home.dir.path());
    assert!(files.contains(&profiles) && files.contains(&out), "{files:?}");
    for file in files {
        let bytes = std::fs::read(&file).expect("a readable file");
        assert!(!contains(&bytes, secret), "{} holds the secret", file.display());
    }
}

#[tokio::test]
async fn removing_profiles() {
    let server = sandbox(5).await;
    let home = Home::new();
    let run = output(home.orgql(&["profile", "remove", "ghost"])).await;
    assert_fails(&run, 2, "ghost", &[]);
    assert!(stderr(&run).contains("no profile"), "{}", stderr(&run));

    let add = home.orgql(&[
        "profile",
        "add",
        "real",
        "--base-url",
        server.base_url(),
        "--client-id",
        "sandbox-admin",
        "--scope",
        "users.read",
    ]);
    let run = output_with_stdin(add, "sandbox-secret\n").await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let run = output(home.orgql(&["profile", "remove", "real"])).await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("removed the profile 'real'"), "{}", stderr(&run));
    let run = output(home.orgql(&["profile", "list"])).await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(!stdout(&run).contains("real"), "{}", stdout(&run));
    let run = output(home.orgql(&["profile", "remove", "real"])).await;
    assert_fails(&run, 2, "real", &[]);
}

#[tokio::test]
async fn exports_against_a_throttling_sandbox_whose_tokens_die_complete_run_after_run() {
    // Tokens live 2 s and the client may send 2 requests a second: each run is throttled
    // (Retry-After: 1, plus up to a second of spread) and outlives its token.
    let config =
        Config { users: 300, token_ttl: std::time::Duration::from_secs(2), rate_limit: 2, ..Config::default() };
    let server = sandbox_with(config).await;
    let home = Home::new();
    let query = "{ paginatedUsers { edges { node { ref name } } } }";
    let (mut throttled, mut renewed) = (false, false);
    for run_number in 1..=3 {
        let out = home.path("out").join(format!("run-{run_number}.csv"));
        let out_text = out.to_str().expect("a UTF-8 path").to_owned();
        let command = home.orgql_with_secret(
            SECRET,
            &args(&["export", "-e", query, "--out", &out_text], &connection(&server, "users.read")),
        );
        let run = tokio::time::timeout(std::time::Duration::from_secs(60), output(command))
            .await
            .expect("the export ends within a minute");
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(0), "run {run_number}: {err}");
        let rows = read_csv(&std::fs::read(&out).expect("the CSV exists"));
        assert_eq!(rows.len(), 301, "run {run_number}: every user and the header");
        // Said as it happened, one line each (stderr is not a terminal), and counted at the end.
        assert!(err.contains("orgql: throttled by the service; retrying in "), "run {run_number}: {err}");
        let closing = err.lines().last().unwrap_or_default();
        assert!(closing.starts_with("orgql: wrote 300 rows to "), "run {run_number}: {err}");
        assert!(closing.contains("throttled wait"), "run {run_number}: {err}");
        throttled |= closing.contains("throttled wait");
        renewed |= err.contains("orgql: renewing the access token") && closing.contains("token renewal");
    }
    assert!(throttled && renewed, "three runs of several seconds with 2 s tokens renewed none");
}

/// `command` run under `sh` with a file-size limit of `blocks` × 512 bytes (`ulimit -f`), and
/// SIGXFSZ ignored so that a write past it fails with EFBIG as on a full disk.
fn with_file_limit(command: &Command, blocks: u32) -> Command {
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {blocks} && exec \"$@\""))
        .arg("sh")
        .arg(command.get_program())
        .args(command.get_args())
        .env_clear()
        .stdin(Stdio::null());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            limited.env(key, value);
        }
    }
    if let Some(dir) = command.get_current_dir() {
        limited.current_dir(dir);
    }
    limited
}

/// The N of "the N rows written so far are in …" on stderr.
fn rows_stated(err: &str) -> usize {
    let after = err.split("the ").find(|part| part.contains(" rows written so far")).expect("a row count");
    after.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("a number in {err:?}"))
}

/// Checks a kept `.partial`: the header, then exactly `stated` whole rows, in order.
fn assert_partial(partial: &Path, stated: usize) {
    let rows = read_csv(&std::fs::read(partial).expect("the partial file exists"));
    assert_eq!(rows[0], HEADER);
    assert_eq!(rows.len() - 1, stated, "the .partial holds the rows the message states");
    for (i, row) in rows[1..].iter().enumerate() {
        assert_eq!(row.len(), HEADER.len(), "row {i} is whole: {row:?}");
        assert_eq!(row[0], format!("u{:05}", i + 1));
    }
}

#[tokio::test]
async fn an_out_that_is_a_folder_or_in_a_missing_folder_is_refused_before_anything_is_fetched() {
    // Nothing listens at the base URL: a refusal with 2 (not 6, unreachable) shows nothing was asked.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let closed = format!("http://127.0.0.1:{port}");
    let conn = ["--base-url", closed.as_str(), "--client-id", "sandbox-admin", "--scope", "users.read"];
    let home = Home::new();
    let folder = home.path("out");
    let missing = home.path("out").join("nowhere").join("users.csv");
    for (out, needle) in [(&folder, "folder"), (&missing, "does not exist")] {
        let started = std::time::Instant::now();
        let run = output(home.orgql_with_secret(
            SECRET,
            &args(
                &["export", "-e", "{ paginatedUsers { edges { node { ref } } } }", "--out", out.to_str().unwrap()],
                &conn,
            ),
        ))
        .await;
        assert_fails(&run, 2, needle, &[SECRET]);
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "no retries against the closed port");
    }
    assert_eq!(files_under(&home.path("out")), Vec::<PathBuf>::new(), "nothing written");
}

#[tokio::test]
async fn a_fifo_is_written_in_place_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let server = sandbox(120).await;
    let home = Home::new();
    let fifo = home.path("out").join("users.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    // The reader waits on the FIFO in a thread of its own; a FIFO replaced by a regular file
    // would leave it waiting forever, so the test waits for it a bounded time.
    let (read_tx, read_rx) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || read_tx.send(std::fs::read(fifo).expect("the FIFO reads")));
    }
    let select = format!("{{ paginatedUsers {{ edges {{ node {{ {SELECTION} }} }} }} }}");
    let run = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        output(home.orgql_with_secret(
            SECRET,
            &args(&["export", "-e", &select, "--out", fifo.to_str().unwrap()], &connection(&server, "users.read")),
        )),
    )
    .await
    .expect("the export ends");
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let bytes = read_rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the export went into the FIFO (not a regular file put in its place)");
    let rows = read_csv(&bytes);
    assert_eq!(rows[0], HEADER);
    assert_eq!(rows.len(), 121);
    assert!(std::fs::metadata(&fifo).expect("the FIFO").file_type().is_fifo(), "still a FIFO");
    assert_eq!(files_under(&home.path("out")), [fifo], "no temporary file, no .partial");
}

#[tokio::test]
async fn a_disk_that_fills_keeps_exactly_the_rows_reported_in_the_partial() {
    let server = sandbox(500).await;
    let home = Home::new();
    let out = home.path("out").join("users.csv");
    let partial = home.path("out").join("users.csv.partial");
    let select = format!("{{ paginatedUsers {{ edges {{ node {{ {SELECTION} }} }} }} }}");
    let command = home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &select, "--out", out.to_str().unwrap()], &connection(&server, "users.read")),
    );

    // Full midway: 40 blocks (20 KB) hold a few pages of these rows, not 500.
    let run = output(with_file_limit(&command, 40)).await;
    assert_fails(&run, 6, "users.csv.partial", &[SECRET]);
    let stated = rows_stated(&stderr(&run));
    assert!(stated > 0 && stated < 500 && stated.is_multiple_of(50), "whole pages: {stated}");
    assert_partial(&partial, stated);
    assert!(std::fs::metadata(&partial).expect("the partial").len() <= 40 * 512);
    assert!(!out.exists());
    let mut left = files_under(&home.path("out"));
    left.sort();
    let point = home.path("out").join("users.csv.partial.resume");
    assert_eq!(left, [partial.clone(), point.clone()], "no temporary file is left, and where the rows stop is kept");
    std::fs::remove_file(&partial).expect("removed");
    std::fs::remove_file(&point).expect("removed");

    // Full at the last flush: one page of twenty users fits in the writer's buffer, not in one block.
    let small = sandbox(20).await;
    let command = home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &select, "--out", out.to_str().unwrap()], &connection(&small, "users.read")),
    );
    let run = output(with_file_limit(&command, 1)).await;
    assert_fails(&run, 6, "users.csv.partial", &[SECRET]);
    assert_partial(&partial, rows_stated(&stderr(&run)));
    assert!(!out.exists());
}

/// Starts an export of 500 users (150 ms a page) and sends `signal` once some pages are written;
/// checks the run stopped with `code`, kept its rows as `users.csv.partial` and said how to go
/// on. Gives the sandbox, the home, the file asked for and the query, for a resume.
async fn interrupt_an_export(signal: &str, code: i32) -> (RunningServer, Home, PathBuf, String) {
    use std::os::unix::fs::PermissionsExt;
    let server =
        sandbox_with(Config { users: 500, latency: std::time::Duration::from_millis(150), ..Config::default() }).await;
    let home = Home::new();
    let out = home.path("out").join("users.csv");
    let select = format!("{{ paginatedUsers {{ edges {{ node {{ {SELECTION} }} }} }} }}");
    let mut command = home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &select, "--bom", "--out", out.to_str().unwrap()], &connection(&server, "users.read")),
    );
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("orgql runs");
    let dir = home.path("out");
    let signal = signal.to_owned();
    let run = tokio::task::spawn_blocking(move || {
        // Some pages written: the temporary file holds more than the header.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let written =
                files_under(&dir).iter().any(|f| std::fs::metadata(f).map(|m| m.len() > 2_000).unwrap_or(false));
            if written {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no page was written within 30 s");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let sent = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status();
        assert!(sent.expect("kill runs").success());
        let mut child = child;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while child.try_wait().expect("a status").is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().expect("killed");
                panic!("orgql did not stop within 20 s of the signal");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.wait_with_output().expect("its output")
    })
    .await
    .expect("the run ends");
    assert_fails(&run, code, "stopped by SIG", &[SECRET]);
    assert!(stderr(&run).contains("with --resume continues it"), "{}", stderr(&run));
    let stated = rows_stated(&stderr(&run));
    assert!(stated > 0 && stated < 500, "{}", stderr(&run));
    let partial = home.path("out").join("users.csv.partial");
    assert_partial(&partial, stated);
    let point = home.path("out").join("users.csv.partial.resume");
    for kept in [&partial, &point] {
        let mode = std::fs::metadata(kept).expect("kept").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}: owner only", kept.display());
    }
    let point_text = std::fs::read_to_string(&point).expect("the resume point");
    assert!(!point_text.contains(SECRET), "no secret in the resume point");
    assert!(!out.exists());
    let mut left = files_under(&home.path("out"));
    left.sort();
    assert_eq!(left, [partial, point], "no temporary file is left");
    (server, home, out, select)
}

#[tokio::test]
async fn sigterm_during_an_export_keeps_the_rows_as_a_partial_and_exits_143() {
    interrupt_an_export("TERM", 143).await;
}

#[tokio::test]
async fn sigint_during_an_export_keeps_the_rows_as_a_partial_and_exits_130() {
    interrupt_an_export("INT", 130).await;
}

#[tokio::test]
async fn an_export_stopped_by_a_signal_resumes_into_the_very_file_of_an_uninterrupted_run() {
    let (server, home, out, select) = interrupt_an_export("TERM", 143).await;
    let partial = home.path("out").join("users.csv.partial");
    let kept = std::fs::read(&partial).expect("the partial");
    let out_text = out.to_str().expect("a UTF-8 path").to_owned();
    let resume = |extra: &[&str]| {
        let mut head = vec!["export", "-e", &select, "--out", &out_text, "--resume"];
        head.extend(extra);
        home.orgql_with_secret(SECRET, &args(&head, &connection(&server, "users.read")))
    };

    // Another export is not continued: the options must be the same (here --bom is missing).
    let refused = output(resume(&[])).await;
    assert_fails(&refused, 2, "was with --bom", &[SECRET]);
    assert_eq!(std::fs::read(&partial).expect("the partial"), kept, "a refused resume leaves the partial");

    let resumed = output(resume(&["--bom"])).await;
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains("wrote 500 rows") && stderr(&resumed).contains("resumed after row"));

    let full = home.path("out").join("full.csv");
    let run = output(home.orgql_with_secret(
        SECRET,
        &args(&["export", "-e", &select, "--bom", "--out", full.to_str().unwrap()], &connection(&server, "users.read")),
    ))
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let (resumed, uninterrupted) = (std::fs::read(&out).expect("resumed"), std::fs::read(&full).expect("full"));
    assert!(resumed == uninterrupted, "the resumed file is byte for byte the uninterrupted one");
    let mut left = files_under(&home.path("out"));
    left.sort();
    assert_eq!(left, [full, out], "the partial and its resume point are gone");

    // Nothing left to resume.
    let nothing = output(resume(&["--bom"])).await;
    assert_fails(&nothing, 2, "there is no interrupted export of", &[SECRET]);
}

#[tokio::test]
async fn a_workbook_cannot_be_resumed_and_the_format_must_fit_the_name() {
    let server = sandbox(3).await;
    let home = Home::new();
    let select = "{ paginatedUsers { edges { node { ref } } } }";
    let run = |extra: &[&str]| {
        let head: Vec<&str> = ["export", "-e", select].iter().chain(extra).copied().collect();
        home.orgql_with_secret(SECRET, &args(&head, &connection(&server, "users.read")))
    };
    let refused = output(run(&["--out", "users.xlsx", "--resume"])).await;
    assert_fails(&refused, 2, "cannot be resumed", &[SECRET]);
    let refused = output(run(&["--out", "users.csv", "--format", "xlsx"])).await;
    assert_fails(&refused, 2, "--format xlsx does not fit the file name", &[SECRET]);
    // A name that says nothing takes the format asked for.
    let written = output(run(&["--out", "users.data", "--format", "xlsx"])).await;
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    let bytes = std::fs::read(home.path("out").join("users.data")).expect("the workbook");
    assert!(bytes.starts_with(b"PK"), "a zip archive: an XLSX workbook");
    assert!(files_under(&home.path("out")).len() == 1, "nothing else was written");
}

/// Every row of a workbook's sheet, each cell as text, and the cells' kinds in the second row.
fn read_sheet(path: &Path, sheet: &str) -> (Vec<Vec<String>>, Vec<calamine::Data>) {
    use calamine::{Data, Reader};
    let mut workbook: calamine::Xlsx<_> = calamine::open_workbook(path).expect("the workbook opens");
    let range = workbook.worksheet_range(sheet).expect("the sheet");
    let text = |cell: &Data| match cell {
        Data::Empty => String::new(),
        Data::String(text) => text.clone(),
        Data::Bool(flag) => flag.to_string(),
        Data::Float(number) => number.to_string(),
        Data::Int(number) => number.to_string(),
        other => panic!("an unexpected cell: {other:?}"),
    };
    let rows: Vec<Vec<String>> = range.rows().map(|row| row.iter().map(text).collect()).collect();
    let kinds = range.rows().nth(1).map(<[Data]>::to_vec).unwrap_or_default();
    let formulas = workbook.worksheet_formula(sheet).expect("the formulas");
    assert!(formulas.used_cells().all(|(_, _, formula)| formula.is_empty()), "no formula anywhere");
    (rows, kinds)
}

#[tokio::test]
async fn an_xlsx_export_holds_every_row_typed_never_a_formula_with_an_about_sheet() {
    let (server, home, out) = export_500_users("users.xlsx").await;
    let admin = token(&server, "users.read").await;
    let (nodes, _) = walk(&server, &admin, "paginatedUsers", "", SELECTION).await;
    let (rows, kinds) = read_sheet(&out, "Rows");
    // As the CSV without the formula guard: a workbook's text cells are never formulas.
    compare(&rows, &expected_rows(&nodes, true));
    assert!(rows[1..].iter().any(|row| row[1] == "=SUM(A1:A9)"), "a formula-like name is text");
    assert!(matches!(kinds[0], calamine::Data::String(ref r) if r.starts_with('u')), "{kinds:?}");
    assert!(matches!(kinds[3], calamine::Data::Bool(_)), "isActive is a boolean: {kinds:?}");
    let (about, _) = read_sheet(&out, "About");
    let about: Vec<(String, String)> = about.into_iter().map(|row| (row[0].clone(), row[1].clone())).collect();
    assert!(about.contains(&("Rows".to_owned(), "500".to_owned())), "{about:?}");
    assert!(about.iter().any(|(name, value)| name == "Query" && value.contains("paginatedUsers")), "{about:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).expect("the file").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "personal data: the owner's only");
    }
    let left: Vec<PathBuf> = files_under(&home.path("out"));
    assert_eq!(left, [out], "no temporary file left: {left:?}");
}

/// `orgql export -e QUERY --out NAME EXTRA…` in `home` against `server` (every users scope).
async fn export_to(home: &Home, server: &RunningServer, query: &str, name: &str, extra: &[&str]) -> Output {
    let out = home.path("out").join(name);
    let out = out.to_str().expect("a UTF-8 path").to_owned();
    let head: Vec<&str> = ["export", "-e", query, "--out", &out].iter().copied().chain(extra.iter().copied()).collect();
    output(home.orgql_with_secret(SECRET, &args(&head, &connection(server, "users.read")))).await
}

#[tokio::test]
async fn changes_since_the_last_export_are_exactly_the_users_changed_archived_and_created() {
    let server = sandbox(120).await;
    let home = Home::new();
    let query = "{ paginatedUsers { edges { node { ref name email isActive } } } }";
    let first = export_to(&home, &server, query, "monday.csv", &[]).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));

    // Three users changed, one archived, one created, through the service's own mutations.
    let admin = token(&server, "users.write").await;
    let update = "mutation($ref: String!, $input: UpdateUserInput!) { updateUser(ref: $ref, input: $input) { ref } }";
    for (user, input) in [
        ("u00002", json!({ "name": "Ana Renamed" })),
        ("u00003", json!({ "email": "moved@example.org" })),
        ("u00004", json!({ "name": "Both Changed", "email": "both@example.org" })),
    ] {
        data(&server, &admin, update, json!({ "ref": user, "input": input })).await;
    }
    data(&server, &admin, "mutation { archiveUser(ref: \"u00001\") { ref } }", json!({})).await;
    let create = "mutation { createUser(input: { ref: \"00123\", name: \"New Joiner\", email: \"joiner@example.org\" }) { ref } }";
    data(&server, &admin, create, json!({})).await;

    let since = export_to(&home, &server, query, "changes.csv", &["--changes-since", "last"]).await;
    assert_eq!(since.status.code(), Some(0), "{}", stderr(&since));
    let said = stderr(&since);
    assert!(
        said.contains("wrote 5 rows") && said.contains("1 added, 4 changed, 0 removed since the export of"),
        "{said}"
    );
    assert!(said.contains("monday.csv"), "it says which export it compared with: {said}");
    let rows = read_csv(&std::fs::read(home.path("out").join("changes.csv")).expect("the changes file"));
    let expected: Vec<Vec<&str>> = vec![
        vec!["change", "changed fields", "ref", "name", "email", "isActive"],
        vec!["changed", "isActive", "u00001"],
        vec!["changed", "name", "u00002", "Ana Renamed"],
        vec!["changed", "email", "u00003"],
        vec!["changed", "name; email", "u00004", "Both Changed", "both@example.org"],
        vec!["added", "", "00123", "New Joiner", "joiner@example.org", "true"],
    ];
    assert_eq!(rows.len(), expected.len(), "the header and exactly five rows: {rows:?}");
    for (row, want) in rows.iter().zip(&expected) {
        assert_eq!(&row[..want.len()], want.as_slice(), "{rows:?}");
    }
    assert_eq!(rows[1][5], "false", "the archived user is inactive now");

    // The same against the file itself, and a third export since the second: nothing changed.
    let monday = home.path("out").join("monday.csv");
    let against_file =
        export_to(&home, &server, query, "against-file.csv", &["--changes-since", monday.to_str().unwrap()]).await;
    assert_eq!(against_file.status.code(), Some(0), "{}", stderr(&against_file));
    let from_file = read_csv(&std::fs::read(home.path("out").join("against-file.csv")).expect("written"));
    assert_eq!(from_file, rows, "comparing with the file says the same");
    let again = export_to(&home, &server, query, "again.csv", &["--changes-since", "last"]).await;
    assert!(stderr(&again).contains("0 added, 0 changed, 0 removed"), "{}", stderr(&again));

    // A query without ref or id cannot say which row is which: refused before any row is written.
    let keyless = "{ paginatedUsers { edges { node { name email } } } }";
    let refused = export_to(&home, &server, keyless, "keyless.csv", &["--changes-since", "last"]).await;
    assert_fails(&refused, 2, "needs each row's ref or id", &[SECRET]);
    assert!(!home.path("out").join("keyless.csv").exists());
}

/// Issue 46: an export of every page of a query with no `ref` or `id` column is recorded too,
/// its rows keyed by their position and the record saying so; asking for the changes since it
/// says the rows cannot be compared by key, naming that export, instead of nothing.
#[tokio::test]
async fn an_export_without_a_key_column_is_recorded_by_position_and_changes_since_it_say_why_not() {
    let server = sandbox(120).await;
    let home = Home::new();
    let keyless = "{ paginatedUsers { edges { node { name email } } } }";
    let first = export_to(&home, &server, keyless, "names.csv", &["--raw"]).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(stderr(&first).contains("wrote 120 rows"), "{}", stderr(&first));
    assert!(!stderr(&first).contains("not recorded"), "{}", stderr(&first));

    let store = orgql::store::Store::open(&home.path("data").join("orgql").join("orgql.sqlite3")).expect("the store");
    let identity = orgql::export::changes::identity(keyless, None, None);
    let connection = server.base_url().to_owned();
    let exports = store.exports_on(&connection).expect("the exports");
    assert_eq!(exports.len(), 1, "{exports:?}");
    let (record, query) = &exports[0];
    assert_eq!((query.as_str(), record.rows), (keyless, 120));
    assert!(record.file.ends_with("names.csv"), "{record:?}");
    assert!(record.by_position(), "the record says its rows are kept by position: {record:?}");
    let (_, snapshot) = store.last_export(&identity, &connection).expect("read").expect("the rows kept");
    assert_eq!(snapshot.key_column, orgql::export::changes::BY_POSITION);
    let written = read_csv(&std::fs::read(home.path("out").join("names.csv")).expect("the file"));
    assert_eq!(snapshot.rows.len(), 120);
    for (n, ((key, _, row), line)) in snapshot.rows.iter().zip(&written[1..]).enumerate() {
        assert_eq!(key, &(n + 1).to_string(), "keyed by position");
        assert_eq!(row.cells().collect::<Vec<_>>(), line.iter().map(String::as_str).collect::<Vec<_>>());
    }
    drop(store);

    let refused = export_to(&home, &server, keyless, "changes.csv", &["--changes-since", "last"]).await;
    assert_fails(&refused, 2, "kept its rows by their position", &[SECRET]);
    let said = stderr(&refused);
    assert!(said.contains("names.csv, 120 rows") && said.contains("cannot be compared by key"), "{said}");
    assert!(!home.path("out").join("changes.csv").exists());
}

#[tokio::test]
async fn a_first_export_with_changes_says_there_is_no_earlier_one_and_writes_every_row() {
    let server = sandbox(30).await;
    let home = Home::new();
    let query = "{ paginatedUsers { edges { node { ref name } } } }";
    let first = export_to(&home, &server, query, "users.xlsx", &["--changes-since", "last"]).await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(stderr(&first).contains("no earlier export of this query on"), "{}", stderr(&first));
    assert!(stderr(&first).contains("wrote 30 rows"), "{}", stderr(&first));
    // The workbook has every row and no change column; a second one, the changes only.
    let (rows, _) = read_sheet(&home.path("out").join("users.xlsx"), "Rows");
    assert_eq!((rows.len(), rows[0][0].as_str()), (31, "ref"));
    let second = export_to(&home, &server, query, "second.xlsx", &["--changes-since", "last"]).await;
    assert!(stderr(&second).contains("wrote 0 rows"), "{}", stderr(&second));
    let (rows, _) = read_sheet(&home.path("out").join("second.xlsx"), "Rows");
    assert_eq!(rows[0][..3], ["change", "changed fields", "ref"]);
}
