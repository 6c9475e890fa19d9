//! The `orgql sandbox` binary as a person runs it: it prints its base URL and credentials, serves
//! the spec's Authentication flow, and stops cleanly on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::http;

/// Sends SIGTERM and waits (at most 10 s) for the process to exit with status 0.
async fn stops_cleanly_on_sigterm(child: &mut std::process::Child, what: &str) {
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "{what} did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "{what}: {status:?}");
}

#[tokio::test]
async fn the_sandbox_command_serves_the_authentication_flow_and_stops_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["sandbox", "--listen", "127.0.0.1:0", "--users", "120", "--seed", "9"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("orgql starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(
        line.contains("sandbox-admin") && line.contains("sandbox-reader") && line.contains("sandbox-secret"),
        "{line}"
    );
    let base_url = line.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).expect("a base URL").to_owned();

    // 1. A token with client credentials, form-encoded.
    let token: Value = http()
        .post(format!("{base_url}/oauth/token/"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", "sandbox-reader"),
            ("client_secret", "sandbox-secret"),
            ("scope", "users.read"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(token["token_type"], "Bearer");
    // 2. Every GraphQL request carries it.
    let body: Value = http()
        .post(format!("{base_url}/graphql/"))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .json(&json!({ "query": "{ paginatedUsers(first: 2) { count edges { node { ref name } } } }" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["data"]["paginatedUsers"]["count"], 120, "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["edges"][0]["node"]["ref"], "u00001");

    stops_cleanly_on_sigterm(&mut child, "orgql sandbox").await;
}

#[test]
fn a_taken_port_is_a_usage_error_with_one_clear_sentence() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_orgql")).args(["sandbox", "--listen", &addr]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot listen on") && stderr.contains("--listen"), "{stderr}");
}

#[test]
fn a_malformed_webhook_secret_is_refused_before_starting() {
    let output = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args([
            "sandbox",
            "--listen",
            "127.0.0.1:0",
            "--webhook-url",
            "http://127.0.0.1:9/",
            "--webhook-secret",
            "whsec_%%",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid base64"));
}

#[tokio::test]
async fn webhooks_listen_stores_and_prints_each_delivery_and_export_writes_the_contract_fields() {
    use orgql::webhooks::standard::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, Secret};

    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("orgql.sqlite3");
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "listen", "--listen", "127.0.0.1:0", "--store"])
        .arg(&store)
        .env("ORGQL_WEBHOOK_SECRET", secret)
        .env("ORGQL_NO_KEYRING", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("orgql starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(!first.contains(secret), "{first}");
    let url = first.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).expect("an address").to_owned();

    let body = br#"{"type":"user.created","timestamp":"2026-11-22T00:00:00Z","data":{"ref":"u1"}}"#;
    let now = chrono::Utc::now().timestamp();
    let signature = Secret::parse(secret).unwrap().sign("msg_1", now, body);
    let response = http()
        .post(format!("{url}/hooks?source=test"))
        .header(HEADER_ID, "msg_1")
        .header(HEADER_TIMESTAMP, now.to_string())
        .header(HEADER_SIGNATURE, signature)
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let line = lines.next().unwrap().unwrap();
    assert!(line.contains("user.created") && line.contains("verified") && !line.contains("not verified"), "{line}");

    stops_cleanly_on_sigterm(&mut child, "orgql webhooks listen").await;

    let out = dir.path().join("deliveries.jsonl");
    let export = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "export", "--out"])
        .arg(&out)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 1, "{text}");
    let record = &records[0];
    assert_eq!(record["method"], "POST");
    assert_eq!(record["path"], "/hooks");
    assert_eq!(record["query"], "source=test");
    assert_eq!(record["headers"][HEADER_ID], "msg_1");
    assert_eq!(record["body"], std::str::from_utf8(body).unwrap());
    assert_eq!(record["verified"], true);
    assert!(
        record["received_at"].as_str().is_some_and(|t| chrono::DateTime::parse_from_rfc3339(t).is_ok()),
        "{record}"
    );
    assert!(!text.contains(secret));
}
