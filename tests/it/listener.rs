//! The webhook listener (contract section 2, `orgql webhooks listen`): deliveries from the sandbox
//! and from hand-made requests, each stored before it is answered.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use orgql::sandbox::{Config, WebhookTarget};
use orgql::store::{Delivery, Store};
use orgql::webhooks::standard::Secret;
use orgql::webhooks::{Listener, ListenerConfig, ListenerError, RunningListener, Scheme};
use serde_json::{Value, json};

use crate::harness::{ALL_SCOPES, data, http, sandbox_with, token};

/// The signing secret (the example of the Standard Webhooks specification).
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async fn listener(store: &Path, body_limit: usize) -> RunningListener {
    Listener::start(ListenerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        scheme: Some(Scheme::Standard),
        secret: Some(SECRET.to_owned()),
        body_limit,
        ..ListenerConfig::new(store.to_path_buf())
    })
    .await
    .expect("the listener starts")
}

fn stored(store: &Path) -> Vec<Delivery> {
    Store::open(store).unwrap().deliveries(10_000, 0).unwrap()
}

fn header<'a>(delivery: &'a Delivery, name: &str) -> Option<&'a [u8]> {
    delivery.delivery.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_slice())
}

/// A request signed as the Standard Webhooks specification says, with `signed` as the signed body.
fn signed_request(url: &str, id: &str, signed: &[u8], sent: Vec<u8>) -> reqwest::RequestBuilder {
    let now = chrono::Utc::now().timestamp();
    let signature = Secret::parse(SECRET).unwrap().sign(id, now, signed);
    http()
        .post(url)
        .header("webhook-id", id)
        .header("webhook-timestamp", now.to_string())
        .header("webhook-signature", signature)
        .header("content-type", "application/json")
        .body(sent)
}

#[tokio::test]
async fn stores_the_sandbox_deliveries_as_verified() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let listener = listener(&store, 1024 * 1024).await;
    let server = sandbox_with(Config {
        users: 5,
        webhooks: vec![WebhookTarget {
            url: format!("http://{}/hooks/orgql", listener.addr()),
            secret: Secret::parse(SECRET).unwrap(),
        }],
        webhook_retry: Duration::from_millis(50),
        ..Config::default()
    })
    .await;
    let token = token(&server, ALL_SCOPES).await;
    let input = json!({ "ref": "listened-1", "name": "Listened To", "email": "listened@example.net" });
    data(
        &server,
        &token,
        "mutation($input: CreateUserInput!) { createUser(input: $input) { ref } }",
        json!({ "input": input }),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let delivery = loop {
        let found = stored(&store).into_iter().find(|d| {
            serde_json::from_slice::<Value>(&d.delivery.body).is_ok_and(|body| body["type"] == "user.created")
        });
        if let Some(found) = found {
            break found;
        }
        assert!(Instant::now() < deadline, "no user.created delivery was stored: {:?}", stored(&store));
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let body: Value = serde_json::from_slice(&delivery.delivery.body).unwrap();
    assert_eq!(body["data"]["ref"], "listened-1");
    assert_eq!(delivery.delivery.verified, Some(true), "{delivery:?}");
    assert_eq!(delivery.delivery.reason, "");
    assert_eq!(delivery.delivery.method, "POST");
    assert_eq!(delivery.delivery.path, "/hooks/orgql");
    assert!(header(&delivery, "webhook-signature").is_some_and(|v| v.starts_with(b"v1,")));
    server.stop().await;
    listener.stop().await;
}

#[tokio::test]
async fn stores_a_tampered_delivery_as_failed_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let listener = listener(&store, 1024 * 1024).await;
    let url = format!("http://{}/hook?source=test", listener.addr());
    let signed = br#"{"type":"user.created","data":{"ref":"a"}}"#;
    let sent = br#"{"type":"user.created","data":{"ref":"b"}}"#.to_vec();
    let response = signed_request(&url, "msg_tampered", signed, sent.clone()).send().await.unwrap();
    assert!(response.status().is_success(), "stored and acknowledged unless reject_invalid");
    let all = stored(&store);
    assert_eq!(all.len(), 1, "the answer came after the row was written");
    let delivery = &all[0].delivery;
    assert_eq!(delivery.verified, Some(false));
    assert!(delivery.reason.contains("does not match"), "{}", delivery.reason);
    assert_eq!(delivery.body, sent);
    assert_eq!((delivery.path.as_str(), delivery.query.as_str()), ("/hook", "source=test"));
    listener.stop().await;

    // With reject_invalid the same delivery is answered 401, and still stored.
    let listener = Listener::start(ListenerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        secret: Some(SECRET.to_owned()),
        reject_invalid: true,
        ..ListenerConfig::new(store.clone())
    })
    .await
    .unwrap();
    let url = format!("http://{}/", listener.addr());
    let response = signed_request(&url, "msg_tampered", signed, sent).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let response = signed_request(&url, "msg_good", signed, signed.to_vec()).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 204);
    let verified: Vec<Option<bool>> = stored(&store).iter().map(|d| d.delivery.verified).collect();
    assert_eq!(verified, [Some(false), Some(false), Some(true)]);
    listener.stop().await;
}

#[tokio::test]
async fn stores_1000_concurrent_deliveries_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let listener = listener(&store, 1024 * 1024).await;
    let url = format!("http://{}/concurrent", listener.addr());
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..1000 {
        let url = url.clone();
        tasks.spawn(async move {
            let body = format!(r#"{{"type":"user.updated","data":{{"n":{i}}}}}"#).into_bytes();
            let response = signed_request(&url, &format!("msg_{i}"), &body, body.clone()).send().await.unwrap();
            assert_eq!(response.status().as_u16(), 204);
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    let all = stored(&store);
    assert_eq!(all.len(), 1000);
    let ids: HashSet<Vec<u8>> = all.iter().map(|d| header(d, "webhook-id").unwrap().to_vec()).collect();
    assert_eq!(ids.len(), 1000, "each delivery once");
    assert!(all.iter().all(|d| d.delivery.verified == Some(true)));
    listener.stop().await;
}

#[tokio::test]
async fn refuses_a_body_over_the_limit_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let listener = listener(&store, 1024).await;
    let url = format!("http://{}/big", listener.addr());
    let body = vec![b'x'; 4096];
    let response = signed_request(&url, "msg_big", &body, body.clone()).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 413);
    let all = stored(&store);
    assert_eq!(all.len(), 1);
    let delivery = &all[0].delivery;
    assert_eq!(delivery.verified, Some(false));
    assert_eq!(delivery.reason, "body over the limit");
    assert!(delivery.body.is_empty());
    assert_eq!(delivery.size, 4096);
    assert_eq!(header(&all[0], "webhook-id"), Some(&b"msg_big"[..]));
    // A body of exactly the limit is fine.
    let body = vec![b'y'; 1024];
    let response = signed_request(&url, "msg_fits", &body, body.clone()).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 204);
    listener.stop().await;
}

#[tokio::test]
async fn stores_a_non_utf8_body_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let listener = Listener::start(ListenerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        ..ListenerConfig::new(store.clone())
    })
    .await
    .unwrap();
    let body: Vec<u8> = (0..=255u8).rev().chain([0xff, 0xfe, 0x00, 0xc3]).collect();
    let response = http()
        .put(format!("http://{}/bin", listener.addr()))
        .header("x-raw", reqwest::header::HeaderValue::from_bytes(&[b'a', 0xe9, b'b']).unwrap())
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    let all = stored(&store);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].delivery.body, body);
    assert_eq!(all[0].delivery.size, body.len() as u64);
    assert_eq!(all[0].delivery.verified, None, "no secret, not checked");
    assert_eq!(all[0].delivery.method, "PUT");
    assert_eq!(header(&all[0], "x-raw"), Some(&[b'a', 0xe9, b'b'][..]));
    listener.stop().await;
}

#[tokio::test]
async fn refuses_a_remote_address_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let config = ListenerConfig { listen: "0.0.0.0:0".parse().unwrap(), ..ListenerConfig::new(dir.path().join("s")) };
    let err = Listener::start(config.clone()).await.err().unwrap();
    assert!(matches!(err, ListenerError::Remote(_)), "{err}");
    assert!(err.to_string().contains("not a loopback address"), "{err}");
    // Nothing is bound when refused; the allowed case is not started here, so that the tests
    // never listen beyond loopback.
}

#[tokio::test]
async fn a_delivery_answered_2xx_is_on_disk_even_when_the_listener_is_killed_at_once() {
    use std::io::BufRead;

    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "listen", "--listen", "127.0.0.1:0", "--store"])
        .arg(&store)
        .env("ORGQL_WEBHOOK_SECRET", SECRET)
        .env("ORGQL_NO_KEYRING", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("orgql starts");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).expect("an address").to_owned();
    let mut answered = Vec::new();
    for i in 0..20 {
        let body = format!(r#"{{"type":"user.updated","data":{{"n":{i}}}}}"#).into_bytes();
        let response =
            signed_request(&format!("{url}/kill"), &format!("msg_{i}"), &body, body.clone()).send().await.unwrap();
        assert!(response.status().is_success());
        answered.push(format!("msg_{i}"));
    }
    // SIGKILL right after the last 2xx: no shutdown, no flush beyond what was done before answering.
    child.kill().unwrap();
    child.wait().unwrap();
    let all = stored(&store);
    let ids: Vec<String> =
        all.iter().map(|d| String::from_utf8(header(d, "webhook-id").unwrap().to_vec()).unwrap()).collect();
    assert_eq!(ids, answered, "every answered delivery is in the store after a kill");
}
