//! The library's API client (`orgql::api::Client`) against the in-process sandbox over real HTTP:
//! one token for many requests, renewal when it expires mid-walk, every failure mapped to its
//! error and exit status, throttling, page-size capping, timeouts, cancellation, and mutations
//! that are never sent twice.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orgql::api::{ApiError, BaseUrl, Client, ClientOptions, Credentials, GraphQlRequest, Pager};
use orgql::query::PagingOptions;
use orgql::sandbox::{Config, RunningServer};
use orgql::secret::Secret;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::harness::{SECRET, sandbox, sandbox_with};

const USERS_PAGE: &str = "{ paginatedUsers(first: 5) { count edges { node { ref name } } } }";

fn credentials(base_url: &str, client_id: &str, secret: &str, scope: &str) -> Credentials {
    Credentials {
        base_url: BaseUrl::parse(base_url).expect("a valid base URL"),
        client_id: client_id.to_owned(),
        client_secret: Secret::new(secret),
        scopes: scope.parse().expect("known scopes"),
    }
}

fn client_with(base_url: &str, client_id: &str, secret: &str, scope: &str, options: ClientOptions) -> Arc<Client> {
    Arc::new(Client::new(credentials(base_url, client_id, secret, scope), options, None).expect("a client"))
}

/// A client of `sandbox-admin` with `scope` and default options.
fn admin(server: &RunningServer, scope: &str) -> Arc<Client> {
    client_with(server.base_url(), "sandbox-admin", SECRET, scope, ClientOptions::default())
}

/// Runs `query` and returns `data`, failing the test on any error.
async fn run(client: &Client, query: &str) -> Value {
    let exchange = client.execute(&GraphQlRequest::new(query), &CancellationToken::new()).await.expect("an answer");
    assert_eq!(exchange.status, 200);
    exchange.response.into_data().expect("no GraphQL errors")
}

/// Runs `query` and returns the error it must end with.
async fn fails(client: &Client, query: &str) -> ApiError {
    match client.execute(&GraphQlRequest::new(query), &CancellationToken::new()).await {
        Ok(exchange) => match exchange.response.into_data() {
            Ok(data) => panic!("expected an error, got {data}"),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

/// The refs of the sandbox's users, in their order.
fn refs_of(server: &RunningServer) -> Vec<String> {
    server.data().read().users.iter().map(|u| u.ref_.clone()).collect()
}

/// Walks every page of `query` and returns the refs of the nodes and the number of pages.
async fn walk_refs(pager: &mut Pager) -> (Vec<String>, usize) {
    let cancel = CancellationToken::new();
    let mut refs = Vec::new();
    let mut pages = 0;
    while let Some(page) = pager.next_page(&cancel).await.expect("a page") {
        pages += 1;
        assert!(page.nodes <= 50, "page {} has {} nodes", page.number, page.nodes);
        for node in pager.site().nodes(&page.data) {
            refs.push(node["ref"].as_str().expect("a ref").to_owned());
        }
    }
    (refs, pages)
}

fn assert_each_once(got: &[String], want: &[String]) {
    let distinct: HashSet<&String> = got.iter().collect();
    assert_eq!(distinct.len(), got.len(), "some users arrived twice");
    assert_eq!(got, want, "the walk did not return every user once, in order");
}

#[tokio::test]
async fn twenty_queries_some_concurrent_share_one_token() {
    let server = sandbox(60).await;
    let client = admin(&server, "users.read");
    assert_eq!(client.tokens().requests_made(), 0);

    // Four at once on a fresh client: they all wait for the same token request.
    let (a, b, c, d) = tokio::join!(
        run(&client, USERS_PAGE),
        run(&client, USERS_PAGE),
        run(&client, USERS_PAGE),
        run(&client, USERS_PAGE)
    );
    for data in [a, b, c, d] {
        assert_eq!(data["paginatedUsers"]["count"], 60);
    }
    // Ten more on their own tasks.
    let mut set = JoinSet::new();
    for i in 0..10 {
        let client = client.clone();
        set.spawn(async move {
            let query = format!("{{ user(ref: \"u{:05}\") {{ ref }} }}", i + 1);
            run(&client, &query).await
        });
    }
    let mut seen = HashSet::new();
    while let Some(result) = set.join_next().await {
        let data = result.expect("the task ends");
        seen.insert(data["user"]["ref"].as_str().expect("a ref").to_owned());
    }
    assert_eq!(seen.len(), 10);
    // And six one after another.
    for _ in 0..6 {
        run(&client, USERS_PAGE).await;
    }
    assert_eq!(client.tokens().requests_made(), 1, "20 queries should share one token");
}

#[tokio::test]
async fn a_token_that_expires_mid_walk_is_renewed_and_every_user_arrives_once() {
    let server = sandbox_with(Config {
        users: 500,
        token_ttl: Duration::from_secs(2),
        latency: Duration::from_millis(150),
        ..Config::default()
    })
    .await;
    let client = admin(&server, "users.read");
    let query = "{ paginatedUsers(first: 25) { edges { node { ref name } } } }";
    let mut pager = Pager::new(client.clone(), query, None, None, PagingOptions::default()).expect("a pager");
    let started = Instant::now();
    let (refs, pages) = walk_refs(&mut pager).await;
    assert!(started.elapsed() > Duration::from_secs(2), "the walk must outlive the 2-second token");
    assert_eq!(pages, 20);
    assert_each_once(&refs, &refs_of(&server));
    assert!(client.tokens().requests_made() > 1, "the token expired mid-walk, yet no new one was requested");
}

#[tokio::test]
async fn a_wrong_secret_is_invalid_client_with_exit_status_3() {
    let server = sandbox(5).await;
    let client =
        client_with(server.base_url(), "sandbox-admin", "not-the-secret", "users.read", ClientOptions::default());
    let err = fails(&client, USERS_PAGE).await;
    assert!(matches!(err, ApiError::InvalidClient), "{err:?}");
    assert_eq!(err.exit_code(), 3);
    assert!(!err.to_string().contains("not-the-secret"), "{err}");
}

#[tokio::test]
async fn a_scope_the_reader_may_not_request_is_refused_with_exit_status_4() {
    let server = sandbox(5).await;
    let client =
        client_with(server.base_url(), "sandbox-reader", SECRET, "users.read users.write", ClientOptions::default());
    let err = fails(&client, USERS_PAGE).await;
    match &err {
        ApiError::TokenRefused { code, .. } => assert_eq!(code, "invalid_scope"),
        other => panic!("expected TokenRefused invalid_scope, got {other:?}"),
    }
    assert_eq!(err.exit_code(), 4);
}

#[tokio::test]
async fn a_query_needing_a_scope_the_token_lacks_is_missing_scope_with_exit_status_4() {
    let server = sandbox(5).await;
    let client = admin(&server, "groups.read");
    let err = fails(&client, USERS_PAGE).await;
    match &err {
        ApiError::MissingScope { scopes, message } => {
            assert_eq!(scopes, &["users.read".to_owned()], "{message}");
            assert!(message.contains("users.read"), "{message}");
        }
        other => panic!("expected MissingScope, got {other:?}"),
    }
    assert_eq!(err.exit_code(), 4);
    assert!(err.to_string().contains("'users.read'"), "{err}");
}

#[tokio::test]
async fn graphql_errors_arrive_in_the_response_and_into_data_makes_them_an_error() {
    let server = sandbox(5).await;
    let client = admin(&server, "users.read");
    let exchange = client
        .execute(&GraphQlRequest::new("{\n  user(ref: \"nobody\") { name }\n}"), &CancellationToken::new())
        .await
        .expect("an answer");
    assert_eq!(exchange.status, 200);
    let response = exchange.response;
    assert_eq!(response.errors.len(), 1, "{response:?}");
    let error = &response.errors[0];
    assert!(error.message.contains("nobody"), "{}", error.message);
    assert_eq!(error.path, [json!("user")]);
    assert_eq!(error.locations.len(), 1);
    assert_eq!((error.locations[0].line, error.locations[0].column), (2, 3));
    assert_eq!(response.data, Some(json!({ "user": null })));

    let err = response.into_data().expect_err("errors make into_data fail");
    match &err {
        ApiError::GraphQl { errors, data } => {
            assert_eq!(errors.len(), 1);
            assert_eq!(data, &Some(json!({ "user": null })));
        }
        other => panic!("expected GraphQl, got {other:?}"),
    }
    assert_eq!(err.exit_code(), 5);
    assert!(err.to_string().contains("nobody"), "{err}");
}

#[tokio::test]
async fn a_closed_port_is_a_network_error_with_exit_status_6() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let options = ClientOptions { timeout: Duration::from_secs(5), ..ClientOptions::default() };
    let client = client_with(&format!("http://127.0.0.1:{port}"), "sandbox-admin", SECRET, "users.read", options);
    let started = Instant::now();
    let err = fails(&client, USERS_PAGE).await;
    // Named in one sentence: nothing listens there (issue 44).
    assert!(matches!(&err, ApiError::Blocked(o) if matches!(**o, orgql::net::Obstacle::Refused { .. })), "{err:?}");
    assert!(err.to_string().contains(&format!("the connection to 127.0.0.1:{port} was refused")), "{err}");
    assert_eq!(err.exit_code(), 6);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn base_urls_are_normalized_so_the_client_never_meets_the_301() {
    let server = sandbox(5).await;
    let base = server.base_url();
    for given in
        [format!("{base}/"), format!("{base}/graphql"), format!("{base}/graphql/"), format!("{base}/oauth/token/")]
    {
        let parsed = BaseUrl::parse(&given).expect("a valid base URL");
        assert_eq!(parsed.as_str(), base, "{given}");
        assert_eq!(parsed.graphql_url(), format!("{base}/graphql/"));
        assert_eq!(parsed.token_url(), format!("{base}/oauth/token/"));
    }
    // The sandbox does answer the slash-less path with a 301, which is why this matters.
    let response = crate::harness::http().post(format!("{base}/graphql")).send().await.expect("an answer");
    assert_eq!(response.status().as_u16(), 301);

    for given in [format!("{base}/"), format!("{base}/graphql")] {
        let client = client_with(&given, "sandbox-admin", SECRET, "users.read", ClientOptions::default());
        let data = run(&client, USERS_PAGE).await;
        assert_eq!(data["paginatedUsers"]["count"], 5, "{given}");
    }
}

#[tokio::test]
async fn throttled_requests_honour_retry_after_and_all_succeed() {
    let server = sandbox_with(Config { users: 20, rate_limit: 2, ..Config::default() }).await;
    let client = admin(&server, "users.read");
    let mut set = JoinSet::new();
    for _ in 0..12 {
        let client = client.clone();
        set.spawn(async move { client.execute(&GraphQlRequest::new(USERS_PAGE), &CancellationToken::new()).await });
    }
    let mut retried = 0;
    while let Some(result) = set.join_next().await {
        let exchange = result.expect("the task ends").expect("throttling is waited out, not reported");
        assert_eq!(exchange.status, 200);
        assert_eq!(exchange.response.into_data().expect("no errors")["paginatedUsers"]["count"], 20);
        if exchange.tries > 1 {
            retried += 1;
        }
    }
    assert!(retried >= 8, "only {retried} of 12 requests were throttled; the rate limit did not bite");
    assert_eq!(client.tokens().requests_made(), 1);
}

#[tokio::test]
async fn a_page_size_above_50_is_capped_with_a_warning_and_the_walk_is_complete() {
    let server = sandbox(500).await;
    let client = admin(&server, "users.read");
    let want = refs_of(&server);

    let query = "{ paginatedUsers(first: 200) { edges { node { ref } } } }";
    let mut pager = Pager::new(client.clone(), query, None, None, PagingOptions::default()).expect("a pager");
    assert!(pager.warnings().iter().any(|w| w.contains("200") && w.contains("50")), "{:?}", pager.warnings());
    let (refs, pages) = walk_refs(&mut pager).await;
    assert_eq!(pages, 10);
    assert_each_once(&refs, &want);

    // The same through a variable.
    let query = "query($n: Int) { paginatedUsers(first: $n) { edges { node { ref } } } }";
    let mut pager =
        Pager::new(client, query, Some(json!({ "n": 200 })), None, PagingOptions::default()).expect("a pager");
    assert!(pager.warnings().iter().any(|w| w.contains("200") && w.contains("50")), "{:?}", pager.warnings());
    let (refs, pages) = walk_refs(&mut pager).await;
    assert_eq!(pages, 10);
    assert_each_once(&refs, &want);
}

/// A server that accepts connections and, depending on `tokens`, answers token requests but
/// never answers anything else. It counts connections and GraphQL requests.
struct Hanging {
    base_url: String,
    connections: Arc<AtomicUsize>,
    graphql_requests: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Hanging {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Hanging {
    async fn start(answer_tokens: bool) -> Hanging {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let base_url = format!("http://{}", listener.local_addr().expect("an address"));
        let connections = Arc::new(AtomicUsize::new(0));
        let graphql_requests = Arc::new(AtomicUsize::new(0));
        let (accepted, requests) = (connections.clone(), graphql_requests.clone());
        let task = tokio::spawn(async move {
            let mut held = JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                let requests = requests.clone();
                held.spawn(async move {
                    if answer_tokens {
                        serve(stream, requests).await;
                    } else {
                        // Hold the connection, read and never answer.
                        let mut stream = stream;
                        let mut sink = [0u8; 4096];
                        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                    }
                });
            }
        });
        Hanging { base_url, connections, graphql_requests, task }
    }
}

/// Answers token requests on `stream` (keep-alive) and holds the first other request unanswered.
async fn serve(mut stream: TcpStream, graphql_requests: Arc<AtomicUsize>) {
    let mut buffer = Vec::new();
    loop {
        let head_end = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        let length: usize = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length").then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        while buffer.len() < head_end + length {
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        buffer.drain(..head_end + length);
        if head.starts_with("POST /oauth/token/ ") {
            let body = r#"{"access_token":"fake-token","token_type":"Bearer","expires_in":86400,"scope":"users.read users.write"}"#;
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            if stream.write_all(response.as_bytes()).await.is_err() {
                return;
            }
        } else {
            graphql_requests.fetch_add(1, Ordering::SeqCst);
            let mut sink = [0u8; 4096];
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
            return;
        }
    }
}

fn short_timeout(max_retries: u32) -> ClientOptions {
    ClientOptions {
        timeout: Duration::from_secs(1),
        max_retries,
        retry_base: Duration::from_millis(50),
        ..ClientOptions::default()
    }
}

#[tokio::test]
async fn a_server_that_never_answers_gives_a_timeout_within_seconds() {
    let server = Hanging::start(false).await;
    let client = client_with(&server.base_url, "sandbox-admin", SECRET, "users.read", short_timeout(1));
    let started = Instant::now();
    let err = fails(&client, USERS_PAGE).await;
    let elapsed = started.elapsed();
    match &err {
        ApiError::Timeout(after) => assert_eq!(*after, Duration::from_secs(1), "{err}"),
        other => panic!("expected Timeout, got {other:?}"),
    }
    assert!(err.to_string().contains("1s"), "the message should say how long it waited: {err}");
    assert_eq!(err.exit_code(), 6);
    assert!(elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(server.connections.load(Ordering::SeqCst) >= 1);

    // The same when the token comes back and the GraphQL request hangs: one retry, then Timeout.
    let server = Hanging::start(true).await;
    let client = client_with(&server.base_url, "sandbox-admin", SECRET, "users.read", short_timeout(1));
    let started = Instant::now();
    let err = fails(&client, USERS_PAGE).await;
    let elapsed = started.elapsed();
    // After the retries the sentence tells the tries and the true time, not one try's timeout.
    match &err {
        ApiError::GaveUp { tries: 2, last, .. } => {
            assert!(matches!(**last, ApiError::Timeout(after) if after == Duration::from_secs(1)), "{err:?}")
        }
        other => panic!("expected GaveUp after a Timeout, got {other:?}"),
    }
    assert!(err.to_string().contains("2 tries over"), "{err}");
    assert!(elapsed >= Duration::from_millis(1900) && elapsed < Duration::from_secs(6), "took {elapsed:?}");
    assert_eq!(server.graphql_requests.load(Ordering::SeqCst), 2, "a query is tried once and retried once");
}

#[tokio::test]
async fn a_mutation_is_never_sent_twice() {
    let server = Hanging::start(true).await;
    let client = client_with(&server.base_url, "sandbox-admin", SECRET, "users.write", short_timeout(3));
    let started = Instant::now();
    let err = fails(&client, "mutation { archiveUser(ref: \"u00001\") { ref } }").await;
    assert!(matches!(err, ApiError::Timeout(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    // Give a wrongly scheduled retry the time to arrive before counting.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(server.graphql_requests.load(Ordering::SeqCst), 1, "the mutation was sent more than once");
    assert_eq!(client.tokens().requests_made(), 1);
}

/// A token that cancels itself after `delay`.
fn cancel_after(delay: Duration) -> CancellationToken {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        trigger.cancel();
    });
    cancel
}

#[tokio::test]
async fn cancelling_stops_a_slow_request_promptly() {
    let server = sandbox_with(Config { users: 5, latency: Duration::from_secs(5), ..Config::default() }).await;
    let client = admin(&server, "users.read");
    let cancel = cancel_after(Duration::from_millis(200));
    let started = Instant::now();
    let result = client.execute(&GraphQlRequest::new(USERS_PAGE), &cancel).await;
    let elapsed = started.elapsed();
    assert!(matches!(result, Err(ApiError::Cancelled)), "{result:?}");
    assert!(elapsed >= Duration::from_millis(150) && elapsed < Duration::from_secs(2), "took {elapsed:?}");

    // A pager stops the same way.
    let mut pager =
        Pager::new(client, "{ paginatedUsers { edges { node { ref } } } }", None, None, PagingOptions::default())
            .expect("a pager");
    let cancel = cancel_after(Duration::from_millis(200));
    let started = Instant::now();
    let result = pager.next_page(&cancel).await;
    assert!(matches!(result, Err(ApiError::Cancelled)), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn a_token_kept_in_the_keyring_is_reused_by_the_next_run_until_it_is_refused() {
    use orgql::api::TokenStore;
    use orgql::profiles::SecretStore;

    let server = sandbox(20).await;
    let store = SecretStore::Keyring(keyring_core::mock::Store::new().unwrap());
    let kept: Arc<dyn TokenStore> = Arc::new(store.clone());
    let creds = credentials(server.base_url(), "sandbox-admin", SECRET, "users.read");
    let query = "{ paginatedUsers(first: 1) { count } }";

    // The first run asks for a token and keeps it.
    let first = Client::new(creds.clone(), ClientOptions::default(), Some(kept.clone())).unwrap();
    run(&first, query).await;
    assert_eq!(first.tokens().requests_made(), 1);

    // A second run (a new client, as a new process would make) reuses it.
    let second = Client::new(creds.clone(), ClientOptions::default(), Some(kept.clone())).unwrap();
    run(&second, query).await;
    assert_eq!(second.tokens().requests_made(), 0);

    // A kept token the service no longer knows (a restarted service) gets one 401, then a new token.
    let restarted = sandbox(20).await;
    let moved = credentials(restarted.base_url(), "sandbox-admin", SECRET, "users.read");
    let key_of_moved = Client::new(moved.clone(), ClientOptions::default(), None).unwrap().tokens().store_key();
    let stale = first.tokens().get().await.unwrap();
    kept.save(&key_of_moved, &stale);
    let third = Client::new(moved, ClientOptions::default(), Some(kept)).unwrap();
    run(&third, query).await;
    assert_eq!(third.tokens().requests_made(), 1);
}

#[tokio::test]
async fn a_token_endpoint_that_redirects_is_reported_as_a_redirect() {
    // An http:// base URL of a service that redirects to https:// is the usual cause.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buffer = vec![0u8; 4096];
            let _ = stream.read(&mut buffer).await;
            let answer = "HTTP/1.1 301 Moved Permanently\r\nLocation: https://lms.example.org/oauth/token/\r\n\
                          Content-Length: 0\r\nConnection: close\r\n\r\n";
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    let client =
        client_with(&format!("http://{addr}"), "sandbox-admin", SECRET, "users.read", ClientOptions::default());
    let err = client.tokens().get().await.expect_err("no token from a redirect");
    assert!(
        matches!(&err, ApiError::Redirected { status: 301, location } if location == "https://lms.example.org/oauth/token/"),
        "{err:?}"
    );
    assert!(err.to_string().contains("redirected the request (HTTP 301)"), "{err}");
}
