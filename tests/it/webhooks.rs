//! The sandbox's webhooks (contract section 1, Webhooks): each mutation's event after it commits,
//! Standard Webhooks signatures checked with the independent `standardwebhooks` crate, retries
//! with backoff (5 tries), in order per receiver. The receiver is a real HTTP server in the test.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use chrono::{DateTime, Utc};
use orgql::sandbox::{Config, DeliveryStats, RunningServer, WebhookTarget};
use orgql::webhooks::standard::Secret;
use serde_json::{Value, json};
use standardwebhooks::{Webhook, WebhookError};

use crate::harness::{ALL_SCOPES, data, post, sandbox_with, token};

/// The signing secret of the receivers (the example of the Standard Webhooks specification).
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/// How long a test waits for deliveries before it fails.
const PATIENCE: Duration = Duration::from_secs(10);

const CREATE_USER: &str = "mutation($input: CreateUserInput!) { createUser(input: $input) { ref } }";

/// One request that reached a receiver, with the status it was answered.
#[derive(Clone, Debug)]
struct Delivery {
    method: Method,
    path: String,
    headers: HeaderMap,
    body: Bytes,
    answered: StatusCode,
}

impl Delivery {
    fn id(&self) -> &str {
        self.headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or_default()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("the body is not JSON ({e}): {:?}", self.body))
    }

    fn kind(&self) -> String {
        self.json()["type"].as_str().unwrap_or_default().to_owned()
    }

    /// The `ref` of the user of a `user.*` event.
    fn user_ref(&self) -> String {
        self.json()["data"]["ref"].as_str().unwrap_or_default().to_owned()
    }
}

/// How a receiver answers: from the number of this try of the message (1 for the first) and
/// the index of the message among the distinct messages received (0 for the first).
type Answer = dyn Fn(usize, usize) -> StatusCode + Send + Sync;

struct Log {
    deliveries: Mutex<Vec<Delivery>>,
    answer: Box<Answer>,
}

/// A webhook receiver on 127.0.0.1 that records every request.
struct Receiver {
    url: String,
    log: Arc<Log>,
}

async fn record(State(log): State<Arc<Log>>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> StatusCode {
    let mut deliveries = log.deliveries.lock().unwrap_or_else(PoisonError::into_inner);
    let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let attempt = deliveries.iter().filter(|d| d.id() == id).count() + 1;
    let mut seen = Vec::new();
    for delivery in deliveries.iter() {
        if !seen.contains(&delivery.id()) {
            seen.push(delivery.id());
        }
    }
    let index = seen.iter().position(|s| *s == id).unwrap_or(seen.len());
    let answered = (log.answer)(attempt, index);
    deliveries.push(Delivery { method, path: uri.path().to_owned(), headers, body, answered });
    answered
}

impl Receiver {
    /// A receiver answering 200 to everything.
    async fn ok() -> Receiver {
        Receiver::answering(|_, _| StatusCode::OK).await
    }

    async fn answering(answer: impl Fn(usize, usize) -> StatusCode + Send + Sync + 'static) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("the receiver binds");
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Log { deliveries: Mutex::new(Vec::new()), answer: Box::new(answer) });
        let app = Router::new().fallback(record).with_state(log.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.expect("the receiver serves") });
        Receiver { url: format!("http://{addr}/hooks"), log }
    }

    fn target(&self) -> WebhookTarget {
        WebhookTarget { url: self.url.clone(), secret: Secret::parse(SECRET).unwrap() }
    }

    fn deliveries(&self) -> Vec<Delivery> {
        self.log.deliveries.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The deliveries answered 2xx, once `count` of them have arrived.
    async fn wait_for(&self, count: usize) -> Vec<Delivery> {
        eventually(&format!("{count} successful deliveries at {}", self.url), || {
            let all = self.deliveries();
            let ok: Vec<Delivery> = all.iter().filter(|d| d.answered.is_success()).cloned().collect();
            if ok.len() >= count { Ok(ok) } else { Err(format!("{:?}", all.iter().map(summary).collect::<Vec<_>>())) }
        })
        .await
    }

    /// Every request so far, once `count` have arrived.
    async fn wait_for_requests(&self, count: usize) -> Vec<Delivery> {
        eventually(&format!("{count} requests at {}", self.url), || {
            let all = self.deliveries();
            if all.len() >= count { Ok(all) } else { Err(format!("{:?}", all.iter().map(summary).collect::<Vec<_>>())) }
        })
        .await
    }
}

fn summary(delivery: &Delivery) -> String {
    format!("{} {} {} -> {}", delivery.id(), delivery.kind(), delivery.json()["data"], delivery.answered.as_u16())
}

/// Polls `check` every 20 ms for up to [`PATIENCE`]; fails with what it last saw.
async fn eventually<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match check() {
            Ok(value) => return value,
            Err(seen) if Instant::now() >= deadline => panic!("waited {PATIENCE:?} for {what}; saw {seen}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Waits until the sandbox's delivery counters equal `expected`.
async fn stats_become(server: &RunningServer, expected: DeliveryStats) {
    eventually(&format!("delivery stats {expected:?}"), || {
        let stats = server.delivery_stats();
        if stats == expected { Ok(()) } else { Err(format!("{stats:?}")) }
    })
    .await;
}

/// A small sandbox sending to `targets`, retrying after 50 ms (then 100, 200, 400).
async fn sandbox_sending_to(targets: Vec<WebhookTarget>) -> (RunningServer, String) {
    let server = sandbox_with(Config {
        users: 20,
        webhooks: targets,
        webhook_retry: Duration::from_millis(50),
        ..Config::default()
    })
    .await;
    let token = token(&server, ALL_SCOPES).await;
    (server, token)
}

async fn create_user(server: &RunningServer, token: &str, ref_: &str) {
    let input = json!({ "ref": ref_, "name": format!("Name of {ref_}"), "email": format!("{ref_}@example.net") });
    let created = data(server, token, CREATE_USER, json!({ "input": input })).await;
    assert_eq!(created["createUser"]["ref"], ref_);
}

async fn run(server: &RunningServer, token: &str, query: &str, variables: Value) -> Value {
    data(server, token, query, variables).await
}

/// Whether every field of `expected` is in `actual` with the same value (recursively for objects).
fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => {
            expected.iter().all(|(key, value)| actual.get(key).is_some_and(|a| contains(a, value)))
        }
        _ => actual == expected,
    }
}

/// Checks one delivery against the contract: POST of JSON, `{type, timestamp, data}` with an
/// RFC 3339 timestamp of now, Standard Webhooks headers that the reference crate accepts.
fn check_envelope(delivery: &Delivery) {
    assert_eq!(delivery.method, Method::POST);
    assert_eq!(delivery.path, "/hooks");
    assert_eq!(delivery.headers.get("content-type"), Some(&HeaderValue::from_static("application/json")));
    let body = delivery.json();
    let mut keys: Vec<&str> = body.as_object().expect("the body is an object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["data", "timestamp", "type"], "{body}");
    assert!(body["data"].is_object(), "{body}");
    let timestamp = body["timestamp"].as_str().expect("timestamp is a string");
    let at = DateTime::parse_from_rfc3339(timestamp).unwrap_or_else(|e| panic!("{timestamp:?} is not RFC 3339: {e}"));
    assert!((Utc::now() - at.to_utc()).num_seconds().abs() < 60, "timestamp {timestamp} is not now");
    let header_time: i64 = delivery.headers["webhook-timestamp"].to_str().unwrap().parse().expect("Unix seconds");
    assert!((Utc::now().timestamp() - header_time).abs() < 60, "webhook-timestamp {header_time} is not now");
    assert!(delivery.headers["webhook-signature"].to_str().unwrap().starts_with("v1,"));
    assert!(!delivery.id().is_empty());
    Webhook::new(SECRET)
        .unwrap()
        .verify(&delivery.body, &delivery.headers)
        .unwrap_or_else(|e| panic!("{} does not verify: {e}", summary(delivery)));
}

#[tokio::test]
async fn each_mutation_sends_its_event_after_it_commits() {
    let receiver = Receiver::ok().await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    let update_user =
        "mutation($ref: String!, $input: UpdateUserInput!) { updateUser(ref: $ref, input: $input) { ref } }";
    let record = "mutation($user: String!, $training: String!, $percent: Int!) { recordProgress(userRef: $user, trainingRef: $training, percent: $percent) { status } }";
    let set_status = "mutation($ref: String!, $status: EnrollmentStatus!) { updateEnrollmentStatus(ref: $ref, status: $status) { status } }";
    let enroll =
        "mutation($offer: String!, $user: String!) { enrollUser(offerRef: $offer, userRef: $user) { ref status } }";
    let members =
        "mutation($group: String!, $users: [String!]!) { addGroupMembers(groupRef: $group, userRefs: $users) { ref } }";

    // Users.
    create_user(&server, &token, "w-1").await;
    let (status, refused) = post(
        &server,
        &token,
        CREATE_USER,
        json!({ "input": { "ref": "w-1", "name": "Again", "email": "again@example.net" } }),
    )
    .await;
    assert_eq!((status, refused["data"].clone()), (200, Value::Null), "{refused}");
    run(&server, &token, update_user, json!({ "ref": "w-1", "input": { "name": "Renamed" } })).await;
    run(&server, &token, "mutation($ref: String!) { archiveUser(ref: $ref) { ref } }", json!({ "ref": "w-1" })).await;
    create_user(&server, &token, "w-2").await;
    run(&server, &token, update_user, json!({ "ref": "w-2", "input": { "isActive": false } })).await;

    // Trainings and progress: only completions send.
    create_user(&server, &token, "w-3").await;
    let create_training = "mutation($input: CreateTrainingInput!) { createTraining(input: $input) { ref } }";
    run(
        &server,
        &token,
        create_training,
        json!({ "input": { "ref": "tc", "title": "Course", "kind": "COURSE", "grantsCertificate": true } }),
    )
    .await;
    run(
        &server,
        &token,
        create_training,
        json!({ "input": { "ref": "tj", "title": "Journey", "kind": "LEARNING_JOURNEY" } }),
    )
    .await;
    run(
        &server,
        &token,
        "mutation($ref: String!, $input: UpdateTrainingInput!) { updateTraining(ref: $ref, input: $input) { ref } }",
        json!({ "ref": "tj", "input": { "title": "Journey 2" } }),
    )
    .await;
    run(&server, &token, record, json!({ "user": "w-3", "training": "tc", "percent": 50 })).await;
    run(&server, &token, record, json!({ "user": "w-3", "training": "tc", "percent": 100 })).await;
    run(&server, &token, record, json!({ "user": "w-3", "training": "tj", "percent": 100 })).await;
    run(&server, &token, record, json!({ "user": "w-3", "training": "tc", "percent": 100 })).await;
    run(&server, &token, "mutation($ref: String!) { archiveTraining(ref: $ref) { ref } }", json!({ "ref": "tj" }))
        .await;
    let certificates = run(
        &server,
        &token,
        "query($user: String!) { paginatedCertificates(userRef: $user) { edges { node { ref } } } }",
        json!({ "user": "w-3" }),
    )
    .await;
    let certificate = certificates["paginatedCertificates"]["edges"][0]["node"]["ref"].clone();

    // Offers and enrollments.
    run(
        &server,
        &token,
        "mutation($input: CreateOfferInput!) { createOffer(input: $input) { ref } }",
        json!({ "input": { "ref": "of-w", "moduleGroupRef": "mg001", "title": "One seat",
                           "startsAt": "2030-01-01T09:00:00Z", "endsAt": "2030-01-01T12:00:00Z", "capacity": 1 } }),
    )
    .await;
    let first = run(&server, &token, enroll, json!({ "offer": "of-w", "user": "w-3" })).await["enrollUser"].clone();
    let second = run(&server, &token, enroll, json!({ "offer": "of-w", "user": "u00001" })).await["enrollUser"].clone();
    assert_eq!((first["status"].as_str(), second["status"].as_str()), (Some("CONFIRMED"), Some("WAITLISTED")));
    run(&server, &token, set_status, json!({ "ref": first["ref"], "status": "CONFIRMED" })).await;
    run(&server, &token, set_status, json!({ "ref": first["ref"], "status": "CANCELLED" })).await;
    run(
        &server,
        &token,
        "mutation($ref: String!, $input: UpdateOfferInput!) { updateOffer(ref: $ref, input: $input) { ref } }",
        json!({ "ref": "of-w", "input": { "capacity": 2 } }),
    )
    .await;

    // Extra categories send nothing.
    run(
        &server,
        &token,
        "mutation($input: CreateExtraCategoryInput!) { createExtraCategory(input: $input) { ref } }",
        json!({ "input": { "ref": "shift", "name": "Shift" } }),
    )
    .await;
    run(
        &server,
        &token,
        "mutation($ref: String!, $input: UpdateExtraCategoryInput!) { updateExtraCategory(ref: $ref, input: $input) { ref } }",
        json!({ "ref": "shift", "input": { "name": "Work shift" } }),
    )
    .await;

    // Groups.
    run(
        &server,
        &token,
        "mutation($input: CreateGroupInput!) { createGroup(input: $input) { ref } }",
        json!({ "input": { "ref": "grp-w", "name": "Webhook group" } }),
    )
    .await;
    run(
        &server,
        &token,
        "mutation($ref: String!, $input: UpdateGroupInput!) { updateGroup(ref: $ref, input: $input) { ref } }",
        json!({ "ref": "grp-w", "input": { "name": "Renamed group" } }),
    )
    .await;
    run(&server, &token, members, json!({ "group": "grp-w", "users": ["w-3", "u00001"] })).await;
    run(&server, &token, members, json!({ "group": "grp-w", "users": ["w-3"] })).await;
    run(
        &server,
        &token,
        "mutation($group: String!, $users: [String!]!) { removeGroupMembers(groupRef: $group, userRefs: $users) { ref } }",
        json!({ "group": "grp-w", "users": ["u00001"] }),
    )
    .await;
    run(&server, &token, "mutation($ref: String!) { deleteGroup(ref: $ref) }", json!({ "ref": "grp-w" })).await;
    run(&server, &token, "mutation($ref: String!) { deleteUser(ref: $ref) }", json!({ "ref": "w-1" })).await;
    // A last event: once it is in, everything before it is (deliveries keep their order).
    create_user(&server, &token, "w-end").await;

    let expected = [
        ("user.created", json!({ "ref": "w-1", "name": "Name of w-1", "email": "w-1@example.net", "isActive": true })),
        ("user.updated", json!({ "ref": "w-1", "name": "Renamed", "isActive": true })),
        ("user.archived", json!({ "ref": "w-1", "isActive": false })),
        ("user.created", json!({ "ref": "w-2", "isActive": true })),
        ("user.updated", json!({ "ref": "w-2", "isActive": false })),
        ("user.archived", json!({ "ref": "w-2", "isActive": false })),
        ("user.created", json!({ "ref": "w-3" })),
        ("course.completed", json!({ "user": { "ref": "w-3" }, "training": { "ref": "tc", "kind": "COURSE" } })),
        (
            "certificate.issued",
            json!({ "certificate": { "ref": certificate }, "user": { "ref": "w-3" }, "training": { "ref": "tc" } }),
        ),
        ("portfolio.updated", json!({ "user": { "ref": "w-3" }, "training": { "ref": "tc" } })),
        (
            "training.completed",
            json!({ "user": { "ref": "w-3" }, "training": { "ref": "tj", "kind": "LEARNING_JOURNEY" } }),
        ),
        ("portfolio.updated", json!({ "user": { "ref": "w-3" }, "training": { "ref": "tj" } })),
        (
            "enrollment.status_changed",
            json!({ "enrollment": { "ref": first["ref"] }, "user": { "ref": "w-3" }, "offer": { "ref": "of-w" },
                    "from": null, "to": "CONFIRMED" }),
        ),
        (
            "enrollment.status_changed",
            json!({ "enrollment": { "ref": second["ref"] }, "user": { "ref": "u00001" }, "offer": { "ref": "of-w" },
                    "from": null, "to": "WAITLISTED" }),
        ),
        (
            "enrollment.status_changed",
            json!({ "enrollment": { "ref": first["ref"] }, "from": "CONFIRMED", "to": "CANCELLED" }),
        ),
        ("group.created", json!({ "ref": "grp-w", "name": "Webhook group" })),
        ("group.updated", json!({ "ref": "grp-w", "name": "Renamed group" })),
        ("group.members_changed", json!({ "group": { "ref": "grp-w" }, "added": ["w-3", "u00001"], "removed": [] })),
        ("group.members_changed", json!({ "group": { "ref": "grp-w" }, "added": [], "removed": ["u00001"] })),
        ("group.deleted", json!({ "ref": "grp-w" })),
        ("user.deleted", json!({ "ref": "w-1" })),
        ("user.created", json!({ "ref": "w-end" })),
    ];
    let deliveries = receiver.wait_for(expected.len()).await;
    let kinds: Vec<String> = deliveries.iter().map(Delivery::kind).collect();
    assert_eq!(kinds, expected.iter().map(|(kind, _)| *kind).collect::<Vec<_>>());
    for (delivery, (kind, data)) in deliveries.iter().zip(&expected) {
        check_envelope(delivery);
        let body = delivery.json();
        assert!(contains(&body["data"], data), "{kind}: expected data with {data}, got {body}");
    }
    let ids: HashSet<&str> = deliveries.iter().map(Delivery::id).collect();
    assert_eq!(ids.len(), deliveries.len(), "every message has its own webhook-id");
    assert_eq!(receiver.deliveries().len(), expected.len(), "no request beyond the expected ones");
    stats_become(&server, DeliveryStats { delivered: expected.len() as u64, failed: 0, dropped: 0 }).await;
}

#[tokio::test]
async fn signatures_verify_with_the_standardwebhooks_crate_and_detect_tampering() {
    let receiver = Receiver::ok().await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    for user in ["s-1", "s-2", "s-3"] {
        create_user(&server, &token, user).await;
    }
    run(
        &server,
        &token,
        "mutation($input: CreateGroupInput!) { createGroup(input: $input) { ref } }",
        json!({ "input": { "ref": "grp-s", "name": "Ünïcödé, \"quoted\" 🚀" } }),
    )
    .await;
    let deliveries = receiver.wait_for(4).await;
    assert_eq!(deliveries[3].json()["data"]["name"], "Ünïcödé, \"quoted\" 🚀");

    let webhook = Webhook::new(SECRET).unwrap();
    let wrong = Webhook::new(&Secret::from_key(b"another secret key".to_vec()).to_text()).unwrap();
    for delivery in &deliveries {
        check_envelope(delivery);
        assert!(webhook.verify(&delivery.body, &delivery.headers).is_ok());

        // One byte of the body changed (an ASCII letter or digit, so that the body stays UTF-8).
        let mut tampered = delivery.body.to_vec();
        let at = (tampered.len() / 2..tampered.len())
            .find(|&i| tampered[i].is_ascii_alphanumeric())
            .expect("an ASCII letter or digit in the second half of the body");
        tampered[at] = if tampered[at] == b'x' { b'y' } else { b'x' };
        assert_ne!(tampered, delivery.body.to_vec());
        let err = webhook.verify(&tampered, &delivery.headers).expect_err("a tampered body must not verify");
        assert!(matches!(err, WebhookError::InvalidSignature), "{err:?}");

        // Another secret.
        let err = wrong.verify(&delivery.body, &delivery.headers).expect_err("another secret must not verify");
        assert!(matches!(err, WebhookError::InvalidSignature), "{err:?}");

        // Another message id with the same signature.
        let mut headers = delivery.headers.clone();
        headers.insert("webhook-id", HeaderValue::from_static("msg_forged"));
        let err = webhook.verify(&delivery.body, &headers).expect_err("another id must not verify");
        assert!(matches!(err, WebhookError::InvalidSignature), "{err:?}");

        // Another timestamp with the same signature.
        let mut headers = delivery.headers.clone();
        let shifted = delivery.headers["webhook-timestamp"].to_str().unwrap().parse::<i64>().unwrap() - 1;
        headers.insert("webhook-timestamp", HeaderValue::from_str(&shifted.to_string()).unwrap());
        let err = webhook.verify(&delivery.body, &headers).expect_err("another timestamp must not verify");
        assert!(matches!(err, WebhookError::InvalidSignature), "{err:?}");
    }
}

#[tokio::test]
async fn a_receiver_failing_twice_gets_the_same_message_three_times() {
    let receiver =
        Receiver::answering(|attempt, _| if attempt <= 2 { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK })
            .await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    create_user(&server, &token, "r-1").await;

    let requests = receiver.wait_for_requests(3).await;
    stats_become(&server, DeliveryStats { delivered: 1, failed: 0, dropped: 0 }).await;
    let requests_after = receiver.deliveries();
    assert_eq!(requests_after.len(), 3, "{:?}", requests_after.iter().map(summary).collect::<Vec<_>>());
    let answered: Vec<u16> = requests.iter().map(|d| d.answered.as_u16()).collect();
    assert_eq!(answered, [500, 500, 200]);
    assert!(requests.iter().all(|d| d.id() == requests[0].id()), "one webhook-id for every try");
    assert!(requests.iter().all(|d| d.body == requests[0].body), "the same body on every try");
    assert_eq!(requests[0].kind(), "user.created");
    assert_eq!(requests[0].user_ref(), "r-1");
    for request in &requests {
        check_envelope(request);
    }
}

#[tokio::test]
async fn a_receiver_that_always_fails_gets_five_tries_then_the_next_message() {
    // The first message always fails; the ones after it succeed.
    let receiver =
        Receiver::answering(|_, index| if index == 0 { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK })
            .await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    create_user(&server, &token, "f-1").await;

    stats_become(&server, DeliveryStats { delivered: 0, failed: 1, dropped: 0 }).await;
    let tries = receiver.deliveries();
    assert_eq!(tries.len(), 5, "{:?}", tries.iter().map(summary).collect::<Vec<_>>());
    assert!(tries.iter().all(|d| d.id() == tries[0].id() && d.answered == StatusCode::INTERNAL_SERVER_ERROR));
    assert_eq!(tries[0].user_ref(), "f-1");

    // Given up, not stuck: the next message goes out.
    create_user(&server, &token, "f-2").await;
    stats_become(&server, DeliveryStats { delivered: 1, failed: 1, dropped: 0 }).await;
    let all = receiver.deliveries();
    assert_eq!(all.len(), 6, "{:?}", all.iter().map(summary).collect::<Vec<_>>());
    assert_eq!(all[5].user_ref(), "f-2");
    assert_eq!(all[5].answered, StatusCode::OK);
    assert_ne!(all[5].id(), all[0].id());
}

#[tokio::test]
async fn a_receiver_that_does_not_answer_counts_as_failed() {
    // A port that nobody listens on.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", closed.local_addr().unwrap());
    drop(closed);
    let (server, token) = sandbox_sending_to(vec![WebhookTarget { url, secret: Secret::parse(SECRET).unwrap() }]).await;
    create_user(&server, &token, "n-1").await;
    stats_become(&server, DeliveryStats { delivered: 0, failed: 1, dropped: 0 }).await;
}

#[tokio::test]
async fn deliveries_keep_their_order_when_some_are_retried() {
    // Every third message fails its first try.
    let receiver = Receiver::answering(|attempt, index| {
        if index % 3 == 0 && attempt == 1 { StatusCode::SERVICE_UNAVAILABLE } else { StatusCode::OK }
    })
    .await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    let refs: Vec<String> = (0..20).map(|i| format!("ord-{i:02}")).collect();
    for user in &refs {
        create_user(&server, &token, user).await;
    }

    let delivered = receiver.wait_for(20).await;
    stats_become(&server, DeliveryStats { delivered: 20, failed: 0, dropped: 0 }).await;
    assert_eq!(delivered.iter().map(Delivery::user_ref).collect::<Vec<_>>(), refs);
    assert!(delivered.iter().all(|d| d.kind() == "user.created"));

    // The whole log: a failed first try is followed by its retry, before the next message.
    let log: Vec<(String, u16)> = receiver.deliveries().iter().map(|d| (d.user_ref(), d.answered.as_u16())).collect();
    let mut expected = Vec::new();
    for (i, user) in refs.iter().enumerate() {
        if i % 3 == 0 {
            expected.push((user.clone(), 503));
        }
        expected.push((user.clone(), 200));
    }
    assert_eq!(log, expected);
}

#[tokio::test]
async fn nothing_is_sent_without_a_receiver_and_set_webhooks_switches_it() {
    let a = Receiver::ok().await;
    let b = Receiver::ok().await;
    let (server, token) = sandbox_sending_to(Vec::new()).await;

    // No receiver: nothing queued, nothing counted.
    create_user(&server, &token, "x-0").await;
    assert_eq!(server.delivery_stats(), DeliveryStats::default());

    // A from now on: its first message is the next one (x-0 was never queued).
    server.set_webhooks(vec![a.target()]);
    create_user(&server, &token, "x-1").await;
    let got = a.wait_for(1).await;
    assert_eq!(got.iter().map(Delivery::user_ref).collect::<Vec<_>>(), ["x-1"]);
    // set_webhooks abandons a try in flight; let the sender see the answer first.
    stats_become(&server, DeliveryStats { delivered: 1, failed: 0, dropped: 0 }).await;

    // Switched to B.
    server.set_webhooks(vec![b.target()]);
    create_user(&server, &token, "x-2").await;
    let got = b.wait_for(1).await;
    assert_eq!(got.iter().map(Delivery::user_ref).collect::<Vec<_>>(), ["x-2"]);
    stats_become(&server, DeliveryStats { delivered: 2, failed: 0, dropped: 0 }).await;

    // Back to A: it gets x-3, and never got x-2.
    server.set_webhooks(vec![a.target()]);
    create_user(&server, &token, "x-3").await;
    let got = a.wait_for(2).await;
    assert_eq!(got.iter().map(Delivery::user_ref).collect::<Vec<_>>(), ["x-1", "x-3"]);
    stats_become(&server, DeliveryStats { delivered: 3, failed: 0, dropped: 0 }).await;

    // None again, then B: B gets x-5 only.
    server.set_webhooks(Vec::new());
    create_user(&server, &token, "x-4").await;
    server.set_webhooks(vec![b.target()]);
    create_user(&server, &token, "x-5").await;
    let got = b.wait_for(2).await;
    assert_eq!(got.iter().map(Delivery::user_ref).collect::<Vec<_>>(), ["x-2", "x-5"]);
    stats_become(&server, DeliveryStats { delivered: 4, failed: 0, dropped: 0 }).await;

    // Both: the same message, with the same id, to each.
    server.set_webhooks(vec![a.target(), b.target()]);
    create_user(&server, &token, "x-6").await;
    let to_a = a.wait_for(3).await;
    let to_b = b.wait_for(3).await;
    assert_eq!(to_a[2].user_ref(), "x-6");
    assert_eq!(to_b[2].user_ref(), "x-6");
    assert_eq!(to_a[2].id(), to_b[2].id());
    assert_eq!(to_a[2].body, to_b[2].body);
    for delivery in to_a.iter().chain(&to_b) {
        check_envelope(delivery);
    }
    stats_become(&server, DeliveryStats { delivered: 6, failed: 0, dropped: 0 }).await;
    assert_eq!(a.deliveries().len(), 3);
    assert_eq!(b.deliveries().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_mutations_arrive_in_the_order_they_committed() {
    let receiver = Receiver::ok().await;
    let (server, token) = sandbox_sending_to(vec![receiver.target()]).await;
    create_user(&server, &token, "c-1").await;
    let server = Arc::new(server);
    let update =
        "mutation($ref: String!, $input: UpdateUserInput!) { updateUser(ref: $ref, input: $input) { updatedAt } }";
    let mut tasks = Vec::new();
    for i in 0..200 {
        let (server, token) = (server.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            run(&server, &token, update, json!({ "ref": "c-1", "input": { "name": format!("name {i:03}") } })).await;
        }));
    }
    for task in tasks {
        task.await.expect("the update ran");
    }
    let deliveries = receiver.wait_for(201).await;
    // updatedAt is taken under the write lock, so it rises in commit order; so must the events.
    let stamps: Vec<DateTime<Utc>> = deliveries[1..]
        .iter()
        .map(|d| DateTime::parse_from_rfc3339(d.json()["data"]["updatedAt"].as_str().unwrap()).unwrap().to_utc())
        .collect();
    let inversions: Vec<usize> = (1..stamps.len()).filter(|&i| stamps[i] < stamps[i - 1]).collect();
    assert!(inversions.is_empty(), "events out of commit order at {inversions:?}");
    // The last event tells the state the data ends in.
    let last = deliveries.last().unwrap().json();
    let user = run(&server, &token, "query($ref: String!) { user(ref: $ref) { name } }", json!({ "ref": "c-1" })).await;
    assert_eq!(last["data"]["name"], user["user"]["name"]);
}
