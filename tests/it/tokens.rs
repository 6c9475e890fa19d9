//! Tokens that die at any moment (issue 11, part 5) and the activity a client reports meanwhile
//! (part 6), against a stub service over real HTTP on 127.0.0.1: its tokens live 1.5 s whatever
//! `expires_in` says, and its GraphQL endpoint answers 429 with `Retry-After: 2` before it answers.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use orgql::api::{Activity, ApiError, BaseUrl, Client, ClientOptions, Credentials, GraphQlRequest, RetryCause};
use orgql::secret::Secret;
use serde_json::json;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// How a stub behaves.
#[derive(Clone, Copy)]
struct Rules {
    /// The `expires_in` the token endpoint announces.
    announced_secs: u64,
    /// How long a token really lives.
    lives: Duration,
    /// The first requests with a live token are answered 429 (`Retry-After` as given, if any).
    throttle_first: usize,
    /// `Retry-After` of those 429s.
    retry_after: Option<u64>,
    /// Then this many are answered 502.
    fail_first: usize,
    /// Every token is refused, live or not.
    refuse_all: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            announced_secs: 3600,
            lives: Duration::from_millis(1_500),
            throttle_first: 0,
            retry_after: Some(2),
            fail_first: 0,
            refuse_all: false,
        }
    }
}

/// The stub's state: the tokens it issued and what it answered.
struct Stub {
    rules: Rules,
    issued: Mutex<Vec<(String, Instant)>>,
    answered: Mutex<Vec<u16>>,
    live_requests: AtomicUsize,
}

impl Stub {
    async fn start(rules: Rules) -> (Arc<Stub>, SocketAddr, tokio::task::JoinHandle<()>) {
        let stub = Arc::new(Stub {
            rules,
            issued: Mutex::new(Vec::new()),
            answered: Mutex::new(Vec::new()),
            live_requests: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/oauth/token/", post(issue))
            .route("/graphql/", post(graphql))
            .with_state(stub.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let addr = listener.local_addr().expect("an address");
        let server = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                panic!("the stub stopped: {e}");
            }
        });
        (stub, addr, server)
    }

    fn tokens_issued(&self) -> usize {
        self.issued.lock().expect("not poisoned").len()
    }

    fn answered(&self) -> Vec<u16> {
        self.answered.lock().expect("not poisoned").clone()
    }
}

async fn issue(State(stub): State<Arc<Stub>>) -> Response {
    let token = {
        let mut issued = stub.issued.lock().expect("not poisoned");
        let token = format!("token-{}", issued.len() + 1);
        issued.push((token.clone(), Instant::now()));
        token
    };
    let body = json!({ "access_token": token, "token_type": "bearer", "expires_in": stub.rules.announced_secs });
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn graphql(State(stub): State<Arc<Stub>>, headers: HeaderMap) -> Response {
    let rules = stub.rules;
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    let live = stub
        .issued
        .lock()
        .expect("not poisoned")
        .iter()
        .any(|(token, at)| *token == bearer && at.elapsed() < rules.lives);
    let (status, body) = if rules.refuse_all || !live {
        (StatusCode::UNAUTHORIZED, json!({ "errors": [{ "message": "The access token is invalid or expired" }] }))
    } else {
        let n = stub.live_requests.fetch_add(1, Ordering::SeqCst);
        if n < rules.throttle_first {
            (StatusCode::TOO_MANY_REQUESTS, json!({ "errors": [{ "message": "Too many requests" }] }))
        } else if n < rules.throttle_first + rules.fail_first {
            (StatusCode::BAD_GATEWAY, json!({ "errors": [{ "message": "Bad gateway" }] }))
        } else {
            (StatusCode::OK, json!({ "data": { "ok": true } }))
        }
    };
    stub.answered.lock().expect("not poisoned").push(status.as_u16());
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    if status == StatusCode::TOO_MANY_REQUESTS
        && let Some(seconds) = rules.retry_after
    {
        response.headers_mut().insert(header::RETRY_AFTER, seconds.into());
    }
    response
}

fn client(addr: SocketAddr, options: ClientOptions) -> Client {
    let credentials = Credentials {
        base_url: BaseUrl::parse(&format!("http://{addr}")).expect("a base URL"),
        client_id: "stub-client".to_owned(),
        client_secret: Secret::new("stub-secret"),
        scopes: "users.read".parse().expect("a scope"),
    };
    Client::new(credentials, options, None).expect("a client")
}

/// Everything reported so far.
fn drain(activity: &mut broadcast::Receiver<Activity>) -> Vec<Activity> {
    std::iter::from_fn(|| activity.try_recv().ok()).collect()
}

/// The activities without their waits, as words.
fn kinds(activities: &[Activity]) -> Vec<&'static str> {
    activities
        .iter()
        .map(|a| match a {
            Activity::Throttled { .. } => "throttled",
            Activity::BackingOff { .. } => "backing off",
            Activity::RenewingToken => "renewing",
            Activity::Settled => "settled",
        })
        .collect()
}

async fn execute(client: &Client, limit: Duration) -> Result<orgql::api::Exchange, ApiError> {
    let request = GraphQlRequest::new("{ ok }");
    tokio::time::timeout(limit, client.execute(&request, &CancellationToken::new()))
        .await
        .expect("the request ends in time")
}

#[tokio::test]
async fn a_token_that_dies_during_a_retry_after_wait_is_renewed_and_the_request_succeeds() {
    // The service says tokens last an hour; they die after 1.5 s, during each 2 s wait.
    let (stub, addr, _server) = Stub::start(Rules { throttle_first: 2, ..Rules::default() }).await;
    let client = client(addr, ClientOptions::default());
    let mut activity = client.activity();
    let started = Instant::now();
    let exchange = execute(&client, Duration::from_secs(20)).await.expect("the request succeeds");
    assert_eq!(exchange.status, 200);
    assert!(started.elapsed() >= Duration::from_secs(4), "two Retry-After: 2 waits, took {:?}", started.elapsed());
    // 429, then the old token's 401 and a renewal, 429 again, 401 again and a renewal, then 200.
    assert_eq!(stub.answered(), [429, 401, 429, 401, 200]);
    assert_eq!(stub.tokens_issued(), 3, "one token, then one renewal after each wait");
    assert_eq!(exchange.tries, 5);
    let seen = drain(&mut activity);
    assert_eq!(kinds(&seen), ["throttled", "renewing", "throttled", "renewing", "settled"]);
    for wait in seen.iter().filter_map(|a| match a {
        Activity::Throttled { wait } => Some(*wait),
        _ => None,
    }) {
        assert!(wait >= Duration::from_secs(2) && wait <= Duration::from_secs(3), "wait {wait:?}");
    }
}

#[tokio::test]
async fn a_token_announced_for_1_s_is_renewed_before_the_next_try_without_a_401() {
    // `expires_in` 1 for a token that lives 1.5 s: the client renews it by its own clock after
    // each wait (it has less than a 24th of its second left), so the service never says 401.
    let rules = Rules { announced_secs: 1, throttle_first: 2, ..Rules::default() };
    let (stub, addr, _server) = Stub::start(rules).await;
    let client = client(addr, ClientOptions::default());
    let mut activity = client.activity();
    let exchange = execute(&client, Duration::from_secs(20)).await.expect("the request succeeds");
    assert_eq!(exchange.status, 200);
    assert_eq!(stub.answered(), [429, 429, 200]);
    assert_eq!(stub.tokens_issued(), 3);
    assert_eq!(kinds(&drain(&mut activity)), ["throttled", "renewing", "throttled", "renewing", "settled"]);
}

#[tokio::test]
async fn a_service_that_refuses_every_token_is_unauthorized_after_exactly_one_renewal() {
    let (stub, addr, _server) = Stub::start(Rules { refuse_all: true, ..Rules::default() }).await;

    // A token obtained for this very try and refused at once: no renewal is worth trying.
    let cold = client(addr, ClientOptions::default());
    let started = Instant::now();
    let err = execute(&cold, Duration::from_secs(10)).await.expect_err("refused");
    assert!(matches!(err, ApiError::Unauthorized), "{err}");
    assert_eq!(err.exit_code(), 3);
    assert_eq!((stub.tokens_issued(), stub.answered()), (1, vec![401]));

    // A cached token refused: one renewal, then the fresh token is refused too.
    let warm = client(addr, ClientOptions::default());
    warm.tokens().get().await.expect("a token");
    let mut activity = warm.activity();
    let err = execute(&warm, Duration::from_secs(10)).await.expect_err("refused");
    assert!(matches!(err, ApiError::Unauthorized), "{err}");
    assert_eq!(warm.tokens().requests_made(), 2, "the first token and exactly one renewal");
    assert_eq!(stub.answered(), [401, 401, 401]);
    assert_eq!(kinds(&drain(&mut activity)), ["renewing", "settled"]);
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn tries_stay_bounded_against_a_service_that_throttles_and_kills_tokens_forever() {
    // Every token dies almost at once and every live request is throttled: each wait costs a
    // renewal, and the throttling budget still ends the request.
    // Tokens live 100 ms; the waits without Retry-After are 120 ms and more.
    let rules = Rules {
        lives: Duration::from_millis(100),
        throttle_first: usize::MAX / 2,
        retry_after: None,
        ..Rules::default()
    };
    let (stub, addr, _server) = Stub::start(rules).await;
    let options = ClientOptions { max_retries: 2, retry_base: Duration::from_millis(60), ..ClientOptions::default() };
    let client = client(addr, options);
    let err = execute(&client, Duration::from_secs(10)).await.expect_err("throttled for good");
    assert!(matches!(err, ApiError::Throttled { retries: 4, .. }), "{err}");
    let answered = stub.answered();
    assert_eq!(answered.iter().filter(|s| **s == 429).count(), 5, "{answered:?}");
    assert!(answered.len() <= 2 * 5, "{answered:?}");
    assert!(stub.tokens_issued() <= 5, "at most one renewal a wait: {}", stub.tokens_issued());
}

#[tokio::test]
async fn a_server_error_is_retried_after_a_backoff_that_is_reported() {
    let (stub, addr, _server) = Stub::start(Rules { fail_first: 1, ..Rules::default() }).await;
    let options = ClientOptions { retry_base: Duration::from_millis(50), ..ClientOptions::default() };
    let client = client(addr, options);
    let mut activity = client.activity();
    let exchange = execute(&client, Duration::from_secs(10)).await.expect("the retry succeeds");
    assert_eq!(exchange.tries, 2);
    assert_eq!(stub.answered(), [502, 200]);
    let seen = drain(&mut activity);
    assert_eq!(kinds(&seen), ["backing off", "settled"]);
    let Activity::BackingOff { cause, .. } = &seen[0] else { unreachable!() };
    assert_eq!(*cause, RetryCause::Server(502));
    assert!(seen[0].to_string().starts_with("server error 502; retrying in "), "{}", seen[0]);
}

#[tokio::test]
async fn a_cancelled_wait_settles_its_activity() {
    let (_stub, addr, _server) = Stub::start(Rules { throttle_first: 1, ..Rules::default() }).await;
    let client = client(addr, ClientOptions::default());
    let mut activity = client.activity();
    let cancel = CancellationToken::new();
    let request = GraphQlRequest::new("{ ok }");
    let (result, ()) = tokio::join!(client.execute(&request, &cancel), async {
        // Cancel once the client says it waits.
        let first = tokio::time::timeout(Duration::from_secs(5), activity.recv()).await;
        assert!(matches!(first, Ok(Ok(Activity::Throttled { .. }))), "{first:?}");
        cancel.cancel();
    });
    assert!(matches!(result, Err(ApiError::Cancelled)), "{result:?}");
    assert_eq!(activity.try_recv().ok(), Some(Activity::Settled));
}
