//! Hostile servers, hostile senders and signals (issue 15): stub services over real HTTP on
//! 127.0.0.1 that answer as an attacker or bad luck would, the sandbox fed a fragment bomb, the
//! real binary sent SIGTERM while a sender trickles a body. Every test is bounded in time.

use std::io::{BufRead, BufReader, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orgql::api::{ApiError, BaseUrl, Client, ClientOptions, Credentials, Pager};
use orgql::query::PagingOptions;
use orgql::secret::Secret;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::harness::{ALL_SCOPES, orgql_cli, sandbox, token};

/// The longest any test here may take before it counts as a hang.
const BOUND: Duration = Duration::from_secs(60);

/// How a stub answers one request.
enum Answer {
    /// Status, extra header lines, body.
    Full(u16, Vec<String>, Vec<u8>),
    /// A 200 whose body never ends (no length; chunks until the client hangs up).
    Endless,
    /// Nothing, ever (the connection stays open).
    Silence,
}

fn json_answer(body: &Value) -> Answer {
    Answer::Full(200, vec!["Content-Type: application/json".into()], body.to_string().into_bytes())
}

fn good_token() -> Answer {
    json_answer(&json!({ "access_token": "stub-token", "token_type": "Bearer", "expires_in": 3600 }))
}

type Respond = dyn Fn(&str, usize) -> Answer + Send + Sync;

/// A stub HTTP/1.1 service on 127.0.0.1: `respond(path, n)` answers the n-th request (from 0) to
/// the GraphQL path; the token path gets `token(n)`. One request per connection.
async fn stub(
    token: impl Fn(usize) -> Answer + Send + Sync + 'static,
    respond: impl Fn(&str, usize) -> Answer + Send + Sync + 'static,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().unwrap();
    let respond: Arc<Respond> = Arc::new(respond);
    let token: Arc<dyn Fn(usize) -> Answer + Send + Sync> = Arc::new(token);
    let (graphql_count, token_count) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (respond, token) = (respond.clone(), token.clone());
            let (graphql_count, token_count) = (graphql_count.clone(), token_count.clone());
            tokio::spawn(async move {
                let Some((path, body)) = read_request(stream_ref(&stream)).await else { return };
                let answer = if path.starts_with("/oauth/token") {
                    token(token_count.fetch_add(1, Ordering::SeqCst))
                } else {
                    respond(&body, graphql_count.fetch_add(1, Ordering::SeqCst))
                };
                write_answer(stream, answer).await;
            });
        }
    });
    format!("http://{addr}")
}

fn stream_ref(stream: &TcpStream) -> &TcpStream {
    stream
}

/// The path and body of one request.
async fn read_request(stream: &TcpStream) -> Option<(String, String)> {
    let mut data = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        stream.readable().await.ok()?;
        match stream.try_read(&mut buffer) {
            Ok(0) => return None,
            Ok(n) => data.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => return None,
        }
        let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&data[..end]).to_string();
        let length = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0))
            })
            .unwrap_or(0);
        if data.len() >= end + 4 + length {
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            return Some((path, String::from_utf8_lossy(&data[end + 4..end + 4 + length]).into_owned()));
        }
    }
}

async fn write_answer(mut stream: TcpStream, answer: Answer) {
    match answer {
        Answer::Full(status, headers, body) => {
            let mut head = format!("HTTP/1.1 {status} Stub\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
            for header in headers {
                head.push_str(&header);
                head.push_str("\r\n");
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(&body).await;
        }
        Answer::Endless => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"data\":\"";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'a'; 64 * 1024];
            // At most 4 GiB: the client must hang up long before.
            for _ in 0..65_536 {
                if stream.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        }
        Answer::Silence => {
            tokio::time::sleep(BOUND).await;
        }
    }
}

fn client(base_url: &str, options: ClientOptions) -> Arc<Client> {
    let credentials = Credentials {
        base_url: BaseUrl::parse(base_url).unwrap(),
        client_id: "stub-client".into(),
        client_secret: Secret::new("stub-secret"),
        scopes: "users.read".parse().unwrap(),
    };
    Arc::new(Client::new(credentials, options, None).unwrap())
}

const USERS: &str = "{ paginatedUsers(first: 2) { count edges { node { ref } } pageInfo { hasNextPage endCursor } } }";

fn page(refs: &[String], count: u64, next: Option<&str>) -> Answer {
    let edges: Vec<Value> = refs.iter().map(|r| json!({ "node": { "ref": r } })).collect();
    json_answer(&json!({ "data": { "paginatedUsers": {
        "count": count,
        "edges": edges,
        "pageInfo": { "hasNextPage": next.is_some(), "endCursor": next },
    } } }))
}

/// Walks every page of `USERS`; the error it ends with, or the rows and the walk's warnings.
async fn walk(base_url: &str) -> Result<(u64, Vec<String>), ApiError> {
    let client = client(base_url, ClientOptions { max_retries: 0, ..ClientOptions::default() });
    let mut pager = Pager::new(client, USERS, None, None, PagingOptions::default())?;
    let cancel = CancellationToken::new();
    let mut rows = 0;
    let walked = tokio::time::timeout(BOUND, async {
        while let Some(page) = pager.next_page(&cancel).await? {
            rows += page.nodes as u64;
        }
        Ok::<_, ApiError>(())
    })
    .await
    .expect("the walk ends by itself");
    walked.map(|()| (rows, pager.walk_warnings()))
}

#[tokio::test]
async fn cursors_that_alternate_stop_the_walk_with_a_sentence() {
    let base = stub(
        |_| good_token(),
        |_, n| {
            let cursor = if n % 2 == 0 { "A" } else { "B" };
            page(&[format!("u{n}a"), format!("u{n}b")], 1_000_000, Some(cursor))
        },
    )
    .await;
    let err = walk(&base).await.expect_err("a loop is not a walk");
    assert!(matches!(err, ApiError::Paging(_)), "{err:?}");
    assert!(err.to_string().contains("go round in a loop"), "{err}");
}

#[tokio::test]
async fn empty_pages_that_always_promise_more_stop_the_walk() {
    let base = stub(|_| good_token(), |_, n| page(&[], 0, Some(&format!("cursor-{n}")))).await;
    let err = walk(&base).await.expect_err("no progress is not a walk");
    assert!(err.to_string().contains("3 empty pages in a row"), "{err}");
}

#[tokio::test]
async fn rows_far_past_the_count_stop_the_walk() {
    let base =
        stub(|_| good_token(), |_, n| page(&[format!("u{n}a"), format!("u{n}b")], 4, Some(&format!("c{n}")))).await;
    let err = walk(&base).await.expect_err("endless rows are not a walk");
    assert!(err.to_string().contains("though its count is 4"), "{err}");
}

/// The page a request asks for: after cursor `cN`, page N + 1; `None` for introspection.
fn page_asked(body: &str) -> Option<usize> {
    let request: Value = serde_json::from_str(body).ok()?;
    if request["query"].as_str().is_some_and(|q| q.contains("__schema") || q.contains("__type")) {
        return None;
    }
    // Whatever orgql names the variable: the one value that is one of our cursors.
    let after = request["variables"].as_object().and_then(|variables| {
        variables.values().filter_map(Value::as_str).find_map(|c| c.strip_prefix('c')?.parse::<usize>().ok())
    });
    Some(after.map_or(0, |n| n + 1))
}

/// 10 pages of 10 rows; page 5 repeats the rows of page 0; the count promises 1,000.
fn duplicating_service(body: &str, _: usize) -> Answer {
    let Some(n) = page_asked(body) else {
        return json_answer(&json!({ "data": null, "errors": [{ "message": "introspection is off" }] }));
    };
    let refs: Vec<String> = (0..10).map(|i| if n == 5 { format!("u0-{i}") } else { format!("u{n}-{i}") }).collect();
    page(&refs, 1000, (n < 9).then(|| format!("c{n}")).as_deref())
}

#[tokio::test]
async fn repeated_rows_and_a_count_not_reached_are_warned_with_how_many() {
    let base = stub(|_| good_token(), duplicating_service).await;
    let (rows, warnings) = walk(&base).await.expect("a walk that ends");
    assert_eq!(rows, 100);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("10 rows repeated an earlier row's id"), "{warnings:?}");
    assert!(warnings[1].contains("said 1000 rows but its pages held 100 (900 missing)"), "{warnings:?}");

    // The command line says them too, and still exits 0.
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_owned();
    let (code, _, stderr) = tokio::task::spawn_blocking(move || {
        orgql_cli(&dir_path, &base, &["query", "--all-pages", "-e", USERS, "--timeout", "10"])
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("orgql: 10 rows repeated"), "{stderr}");
    assert!(stderr.contains("(900 missing)"), "{stderr}");
}

#[tokio::test]
async fn an_endless_answer_is_cut_at_the_cap() {
    let base = stub(|_| good_token(), |_, _| Answer::Endless).await;
    let client = client(&base, ClientOptions { max_retries: 0, max_response: 1024 * 1024, ..ClientOptions::default() });
    let request = orgql::api::GraphQlRequest::new("{ viewer { id } }");
    let result = tokio::time::timeout(BOUND, client.execute(&request, &CancellationToken::new()))
        .await
        .expect("the reader stops at the cap");
    let err = result.expect_err("too large");
    assert!(matches!(err, ApiError::TooLarge { limit: 1_048_576, .. }), "{err:?}");
    assert!(err.to_string().contains("larger than the 1 MiB orgql reads"), "{err}");
    assert!(err.to_string().contains("ORGQL_MAX_RESPONSE_MIB"), "{err}");
}

#[tokio::test]
async fn an_announced_length_over_the_cap_is_refused_before_reading() {
    let base = stub(
        |_| good_token(),
        |_, _| Answer::Full(200, vec!["Content-Type: application/json".into()], vec![b' '; 3 * 1024 * 1024]),
    )
    .await;
    let client = client(&base, ClientOptions { max_retries: 0, max_response: 1024 * 1024, ..ClientOptions::default() });
    let err = client.execute(&orgql::api::GraphQlRequest::new("{ a }"), &CancellationToken::new()).await.unwrap_err();
    assert!(err.to_string().contains("(it announced 3 MiB)"), "{err}");
}

#[tokio::test]
async fn an_absurd_access_token_is_refused() {
    let huge = "t".repeat(20 * 1024);
    let base = stub(
        move |_| json_answer(&json!({ "access_token": huge, "token_type": "Bearer", "expires_in": 3600 })),
        |_, _| json_answer(&json!({ "data": {} })),
    )
    .await;
    let err = client(&base, ClientOptions::default()).tokens().get().await.expect_err("refused");
    assert!(matches!(err, ApiError::TokenTooLarge(20480)), "{err:?}");
    assert_eq!(err.exit_code(), 3);
    // A token answer over 64 KiB is not read whole.
    let base = stub(|_| Answer::Endless, |_, _| json_answer(&json!({ "data": {} }))).await;
    let err = tokio::time::timeout(BOUND, client(&base, ClientOptions::default()).tokens().get())
        .await
        .expect("bounded")
        .expect_err("refused");
    assert!(matches!(err, ApiError::TooLarge { limit: 65_536, .. }), "{err:?}");
}

#[tokio::test]
async fn expires_in_as_a_string_is_accepted_and_no_error_prints_the_token() {
    let base = stub(
        |_| json_answer(&json!({ "access_token": "stub-token", "token_type": "Bearer", "expires_in": "3600" })),
        |_, _| json_answer(&json!({ "data": {} })),
    )
    .await;
    let token = client(&base, ClientOptions::default()).tokens().get().await.expect("a token");
    let remaining = token.remaining().as_secs();
    assert!((3590..=3600).contains(&remaining), "{remaining}");

    // An answer that is not a token answer: the error never quotes it.
    let leaked = "LEAKED-ACCESS-TOKEN-1234567890";
    for body in [
        json!({ "access_token": leaked, "token_type": "Bearer", "expires_in": "soon" }),
        json!({ "access_token": leaked, "token_type": 7 }),
        json!({ "access_token": [leaked] }),
    ] {
        let base = stub(move |_| json_answer(&body), |_, _| json_answer(&json!({ "data": {} }))).await;
        let err = client(&base, ClientOptions::default()).tokens().get().await.expect_err("not a token answer");
        assert!(!err.to_string().contains(leaked) && !format!("{err:?}").contains(leaked), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let dir_path = dir.path().to_owned();
        let (code, stdout, stderr) = tokio::task::spawn_blocking(move || {
            orgql_cli(&dir_path, &base, &["query", "-e", "{ a }", "--timeout", "10"])
        })
        .await
        .unwrap();
        assert_eq!(code, 6, "{stderr}");
        assert!(!stderr.contains(leaked) && !stdout.contains(leaked), "{stderr}");
        assert!(stderr.contains("not an OAuth token answer"), "{stderr}");
    }
}

#[tokio::test]
async fn a_token_endpoints_401_with_an_html_body_is_an_auth_failure() {
    let base = stub(
        |_| Answer::Full(401, vec!["Content-Type: text/html".into()], b"<html><title>Login</title></html>".to_vec()),
        |_, _| json_answer(&json!({ "data": {} })),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_owned();
    let (code, _, stderr) =
        tokio::task::spawn_blocking(move || orgql_cli(&dir_path, &base, &["query", "-e", "{ a }", "--timeout", "10"]))
            .await
            .unwrap();
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("refused the client credentials"), "{stderr}");
}

#[tokio::test]
async fn a_502_page_from_a_proxy_is_named_a_gateway_failure() {
    let base = stub(
        |_| good_token(),
        |_, _| {
            Answer::Full(
                502,
                vec!["Content-Type: text/html".into()],
                b"<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>".to_vec(),
            )
        },
    )
    .await;
    let client = client(&base, ClientOptions { max_retries: 0, ..ClientOptions::default() });
    let err = client.execute(&orgql::api::GraphQlRequest::new("{ a }"), &CancellationToken::new()).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("a gateway or proxy in front of the service answered HTTP 502"), "{text}");
    assert!(text.contains("(502 Bad Gateway)") && !text.contains("<html>"), "{text}");
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_honoured() {
    let base = stub(
        |_| good_token(),
        |_, n| {
            if n == 0 {
                let when = (chrono::Utc::now() + chrono::Duration::seconds(3)).to_rfc2822().replace("+0000", "GMT");
                Answer::Full(429, vec![format!("Retry-After: {when}")], b"{}".to_vec())
            } else {
                json_answer(&json!({ "data": { "a": 1 } }))
            }
        },
    )
    .await;
    let client = client(&base, ClientOptions::default());
    let started = Instant::now();
    let exchange =
        client.execute(&orgql::api::GraphQlRequest::new("{ a }"), &CancellationToken::new()).await.expect("answered");
    assert_eq!(exchange.tries, 2);
    // The date is whole seconds: at least 2 s of the 3 were waited (the default backoff is 0.5 s).
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}", started.elapsed());
}

#[tokio::test]
async fn waits_on_429_are_announced_at_the_default_level() {
    let base = stub(
        |_| good_token(),
        |_, n| {
            if n == 0 {
                Answer::Full(429, vec!["Retry-After: 5".into()], b"{}".to_vec())
            } else if n == 1 {
                Answer::Full(429, vec!["Retry-After: 1".into()], b"{}".to_vec())
            } else {
                json_answer(&json!({ "data": { "a": 1 } }))
            }
        },
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_owned();
    let (code, _, stderr) =
        tokio::task::spawn_blocking(move || orgql_cli(&dir_path, &base, &["query", "-e", "{ a }", "--timeout", "10"]))
            .await
            .unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("has been throttling this API client (HTTP 429) for "), "{stderr}");
}

#[tokio::test]
async fn a_timeout_after_retries_tells_the_true_time() {
    let base = stub(|_| good_token(), |_, _| Answer::Silence).await;
    let options = ClientOptions {
        timeout: Duration::from_millis(300),
        max_retries: 2,
        retry_base: Duration::from_millis(50),
        ..ClientOptions::default()
    };
    let client = client(&base, options);
    let err = tokio::time::timeout(
        BOUND,
        client.execute(&orgql::api::GraphQlRequest::new("{ a }"), &CancellationToken::new()),
    )
    .await
    .expect("bounded")
    .unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("the service did not answer: 3 tries over "), "{text}");
    assert!(text.contains("each waiting up to 0.3 s"), "{text}");
}

/// A fragment bomb of `levels` doublings (about 45 bytes a level).
fn fragment_bomb(levels: usize) -> String {
    let mut text = format!(
        "query {{ paginatedUsers(first: 1) {{ edges {{ node {{ ...F{levels} }} }} }} }}\nfragment F0 on User {{ ref }}\n"
    );
    for i in 1..=levels {
        text.push_str(&format!("fragment F{i} on User {{ ...F{} ...F{} }}\n", i - 1, i - 1));
    }
    text
}

#[tokio::test]
async fn a_fragment_bomb_is_refused_before_it_runs() {
    let server = sandbox(5).await;
    let token = token(&server, ALL_SCOPES).await;
    let bomb = fragment_bomb(26);
    assert!(bomb.len() < 1400, "{}", bomb.len());
    // Bounded well below the seconds the bomb costs async-graphql's own validation.
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(3), crate::harness::post(&server, &token, &bomb, json!({})))
            .await
            .expect("refused at once");
    assert_eq!(status, 400, "{body}");
    assert!(body["errors"][0]["message"].as_str().unwrap().contains("with its fragments expanded"), "{body}");
    // Other requests are answered meanwhile and after.
    let (status, _) = crate::harness::post(&server, &token, "{ paginatedUsers(first: 1) { count } }", json!({})).await;
    assert_eq!(status, 200);
    server.stop().await;

    let minimal = crate::harness::minimal_server(5).await;
    let token = crate::harness::admin_token(minimal.base_url(), "users.read").await;
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(3), crate::harness::post(&minimal, &token, &bomb, json!({})))
            .await
            .expect("refused at once");
    assert_eq!(status, 400, "{body}");
}

/// `orgql` with `args` and nothing else (no connection options), its files under `dir`.
fn orgql_plain(dir: &std::path::Path, args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_orgql"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ORGQL_NO_KEYRING", "1")
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir);
    command
}

#[test]
fn profile_list_escapes_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("config/orgql")).unwrap();
    std::fs::write(
        dir.path().join("config/orgql/profiles.toml"),
        "[profiles.\"evil\\u001b[2J\"]\nbase_url = \"https://a.example/\\u001b]0;owned\\u0007\"\nclient_id = \"c\\r\\nverified\"\nscopes = \"users.read nonsense.scope\"\n",
    )
    .unwrap();
    let output = orgql_plain(dir.path(), &["profile", "list"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!stdout.contains('\u{1b}') && !stdout.contains('\r') && !stdout.contains('\u{7}'), "{stdout:?}");
    assert!(stdout.contains("evil\\u{1b}[2J") && stdout.contains("c\\u{d}\\u{a}verified"), "{stdout}");
    assert!(stdout.contains("users.read"), "{stdout}");
}

/// Sends a delivery with an escape-laden `type`; its line is printed escaped. Then a sender that
/// trickles a body does not keep SIGTERM from stopping the listener.
#[test]
fn webhooks_listen_escapes_what_it_prints_and_stops_on_sigterm_while_a_body_trickles() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = orgql_plain(
        dir.path(),
        &["webhooks", "listen", "--listen", "127.0.0.1:0", "--store", "private/orgql/hooks.sqlite3"],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("a first line").unwrap();
    let addr =
        first.split("http://").nth(1).and_then(|rest| rest.split_whitespace().next()).expect("the address").to_owned();

    let body =
        json!({ "type": "user.created\u{1b}[2J\u{1b}]0;owned\u{7}\r\n2026-01-01 #9 POST / verified" }).to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let printed = lines.next().expect("a delivery line").unwrap();
    assert!(!printed.contains('\u{1b}') && !printed.contains('\u{7}'), "{printed:?}");
    assert!(printed.contains("user.created\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{d}\\u{a}2026"), "{printed}");
    assert!(printed.ends_with("not checked"), "{printed}");

    // A sender that promises 1,000 bytes and sends one a second.
    let mut trickle = std::net::TcpStream::connect(&addr).unwrap();
    write!(trickle, "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n").unwrap();
    let sender = std::thread::spawn(move || {
        for _ in 0..60 {
            if trickle.write_all(b"x").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    });
    std::thread::sleep(Duration::from_millis(800));
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("the listener was still running 15 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    drop(sender);

    // The database of webhook bodies (personal data) and the folders made for it: the owner's only.
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &str| std::fs::metadata(dir.path().join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("private"), 0o700);
    assert_eq!(mode("private/orgql"), 0o700);
    assert_eq!(mode("private/orgql/hooks.sqlite3"), 0o600);
}

/// Fuzz-style, bounded (proptest): the readers of what arrives from outside (the GraphQL response
/// reader, the introspection reader, the webhook verifier, the profiles-file parser) fed random
/// bytes and mutations of valid inputs, 256 cases each (proptest shrinks a failure to a small
/// case). None may panic; every input is at most a few KiB past its seed, so memory is bounded by
/// construction.
mod fuzz {
    use proptest::prelude::*;

    const RESPONSE: &[u8] = br#"{"data":{"paginatedUsers":{"count":2,"edges":[{"node":{"ref":"u1"}}],"pageInfo":{"hasNextPage":true,"endCursor":"YQ=="}}},"errors":[{"message":"m","locations":[{"line":1,"column":2}],"path":["a",0]}]}"#;
    const INTROSPECTION: &[u8] = include_bytes!("../fixtures/introspection/graphql-js-16.15.0.json");
    const PROFILES: &[u8] =
        b"[profiles.a]\nbase_url = \"https://a.example\"\nclient_id = \"c\"\nscopes = \"users.read groups.read\"\n";
    const BODY: &[u8] = br#"{"type":"user.created","data":{"ref":"u1"}}"#;
    const TOKENS: [&[u8]; 8] = [b"{", b"}", b"[", b"]", b"\"", b"\\u0000", b"\xff\xfe", b"[[[[[[[[[[[[[[[["];

    /// One edit: where (a fraction of the length), what, a byte, a count.
    type Edit = (u32, u8, u8, u8);

    fn apply(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
        let mut bytes = seed.to_vec();
        for &(place, op, byte, count) in edits {
            let at = (place as usize) % (bytes.len() + 1);
            match op % 5 {
                0 if !bytes.is_empty() => {
                    let i = at.min(bytes.len() - 1);
                    bytes[i] = byte;
                }
                1 => bytes.truncate(at),
                2 => {
                    let token = TOKENS[byte as usize % TOKENS.len()];
                    let insert: Vec<u8> = token.iter().copied().cycle().take(token.len() * count as usize).collect();
                    bytes.splice(at..at, insert);
                }
                3 => {
                    let end = (at + count as usize * 16).min(bytes.len());
                    let copy = bytes[at..end].to_vec();
                    bytes.splice(at..at, copy);
                }
                _ => bytes.splice(at..at, std::iter::repeat_n(byte, count as usize)).for_each(drop),
            }
        }
        bytes
    }

    /// Random bytes, or `seed` with a few edits.
    fn input(seed: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..1024),
            proptest::collection::vec(any::<Edit>(), 1..8).prop_map(move |edits| apply(seed, &edits)),
        ]
    }

    fn config() -> ProptestConfig {
        ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn the_graphql_response_reader_never_panics(bytes in input(RESPONSE)) {
            let _ = serde_json::from_slice::<orgql::api::GraphQlResponse>(&bytes).map(|r| r.into_data());
        }

        #[test]
        fn the_introspection_reader_never_panics(bytes in input(INTROSPECTION)) {
            let _ = orgql::api::read_introspection_json(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn the_profiles_parser_never_panics(bytes in input(PROFILES)) {
            let _ = orgql::profiles::parse(&bytes);
        }

        #[test]
        fn the_webhook_verifier_never_panics(body in input(BODY), header in proptest::collection::vec(any::<u8>(), 0..200)) {
            let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
            let headers: Vec<(String, Vec<u8>)> =
                ["webhook-id", "webhook-timestamp", "webhook-signature", "x-hub-signature-256", "stripe-signature", "x-sig"]
                    .iter()
                    .map(|name| (name.to_string(), header.clone()))
                    .collect();
            for scheme in ["standard", "github", "stripe", "hmac-sha256-hex:x-sig", "hmac-sha256-base64:x-sig"] {
                let scheme: orgql::webhooks::Scheme = scheme.parse().unwrap();
                let _ = orgql::webhooks::verify(&scheme, secret, &headers, &body, 1_700_000_000);
            }
        }
    }
}

/// Reads until the server closes the connection; `None` if it is still open after `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    tokio::time::timeout(within, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .ok()
    .map(|()| seen)
}

#[tokio::test]
async fn the_listener_closes_idle_connections_and_caps_them() {
    use orgql::serve::ConnectionLimits;
    use orgql::webhooks::{Listener, ListenerConfig};
    let dir = tempfile::tempdir().unwrap();
    let limits = ConnectionLimits { max_connections: 2, idle_timeout: Duration::from_secs(1), ..Default::default() };
    let listener = Listener::start(ListenerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        connections: limits,
        ..ListenerConfig::new(dir.path().join("s.sqlite3"))
    })
    .await
    .unwrap();
    let addr = listener.addr();
    // Two connections that send nothing, and one that sends its headers slowly.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /hook HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    // A third waits for a place: its request is answered once an idle one is closed.
    let started = Instant::now();
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(b"POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        .await
        .unwrap();
    let answer = closed_within(&mut third, Duration::from_secs(10)).await.expect("answered once a place is free");
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 204"), "{}", String::from_utf8_lossy(&answer));
    assert!(started.elapsed() >= Duration::from_millis(800), "{:?}: the cap of 2 was not kept", started.elapsed());
    assert!(closed_within(&mut silent, Duration::from_secs(5)).await.is_some(), "an idle connection stays open");
    assert!(closed_within(&mut slow, Duration::from_secs(5)).await.is_some(), "a stalled request stays open");
    listener.stop().await;
}

#[tokio::test]
async fn the_sandbox_closes_idle_connections() {
    use orgql::serve::ConnectionLimits;
    let limits = ConnectionLimits { max_connections: 8, idle_timeout: Duration::from_secs(1), ..Default::default() };
    let server =
        crate::harness::sandbox_with(orgql::sandbox::Config { users: 3, connections: limits, ..Default::default() })
            .await;
    let mut stalled = TcpStream::connect(server.addr()).await.unwrap();
    stalled.write_all(b"POST /oauth/token/ HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\ngrant").await.unwrap();
    assert!(closed_within(&mut stalled, Duration::from_secs(5)).await.is_some(), "a stalled body keeps its connection");
    // Requests that move are served as before.
    let token = token(&server, "users.read").await;
    let (status, _) = crate::harness::post(&server, &token, "{ paginatedUsers(first: 1) { count } }", json!({})).await;
    assert_eq!(status, 200);
}
