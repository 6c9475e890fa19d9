//! Sharing and pulling (issue 23): a headless `orgql webhooks listen --share-token-file` in its
//! own process, and pullers (`orgql webhooks pull`, the library's `attach`) copying from it over
//! real HTTP on 127.0.0.1 into real SQLite files; a stand-in gosmee relay for its event format.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orgql::store::{Delivery, Store};
use orgql::webhooks::pull::{AttachEvent, Remote, attach};
use orgql::webhooks::standard::Secret;

use crate::harness::http;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fn token_file(dir: &Path, token: &str) -> PathBuf {
    let path = dir.join("share-token");
    std::fs::write(&path, format!("{token}\n")).unwrap();
    path
}

/// `orgql webhooks listen` with sharing on `listen`; its base URL.
fn start_listener(dir: &Path, store: &Path, listen: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "listen", "--listen", listen, "--store"])
        .arg(store)
        .arg("--share-token-file")
        .arg(token_file(dir, TOKEN))
        .env("ORGQL_WEBHOOK_SECRET", SECRET)
        .env("ORGQL_NO_KEYRING", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("orgql starts");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).expect("an address").to_owned();
    // The rest of its output is drained, so that printing never blocks it.
    std::thread::spawn(move || for _ in lines.by_ref() {});
    (child, url)
}

fn pull_cli(dir: &Path, url: &str, token: &str, store: &Path) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "pull", url, "--token-file"])
        .arg(token_file(dir, token))
        .arg("--store")
        .arg(store)
        .env("ORGQL_WEBHOOK_SECRET", SECRET)
        .env("ORGQL_NO_KEYRING", "1")
        .output()
        .expect("orgql runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

fn signed(url: &str, id: &str, body: Vec<u8>) -> reqwest::RequestBuilder {
    let now = chrono::Utc::now().timestamp();
    let signature = Secret::parse(SECRET).unwrap().sign(id, now, &body);
    http()
        .post(url)
        .header("webhook-id", id)
        .header("webhook-timestamp", now.to_string())
        .header("webhook-signature", signature)
        .header("content-type", "application/json")
        .body(body)
}

fn all(store: &Path) -> Vec<Delivery> {
    Store::open(store).unwrap().deliveries(1_000_000, 0).unwrap()
}

fn webhook_id(d: &Delivery) -> String {
    d.delivery
        .headers
        .iter()
        .find(|(n, _)| n == "webhook-id")
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_sent_while_the_puller_is_away_arrive_byte_identical_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let remote_store = dir.path().join("server.sqlite3");
    let local_store = dir.path().join("desk.sqlite3");
    let (mut child, url) = start_listener(dir.path(), &remote_store, "127.0.0.1:0");
    let gate = Arc::new(tokio::sync::Semaphore::new(32));
    let mut sends = Vec::new();
    for i in 0..1000 {
        let (url, gate) = (url.clone(), gate.clone());
        sends.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.unwrap();
            // Bodies with bytes that are not UTF-8 and a line break, as a sender may send.
            let mut body = format!(r#"{{"type":"user.updated","data":{{"n":{i}}}}}"#).into_bytes();
            body.extend_from_slice(&[b'\n', 0xff, 0xfe]);
            signed(&format!("{url}/hooks?n={i}"), &format!("msg_{i}"), body).send().await.unwrap().status()
        }));
    }
    for send in sends {
        assert_eq!(send.await.unwrap().as_u16(), 204);
    }

    // A wrong token, or none, gets 401 and a sentence: no delivery, nothing stored.
    for auth in [Some("Bearer wrong-token-wrong-token"), None, Some(TOKEN)] {
        let mut request = http().get(format!("{url}/_orgql/v1/deliveries?after=0"));
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 401, "{auth:?}");
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let text = response.text().await.unwrap();
        assert!(!text.contains("msg_") && !text.contains("body_base64"), "{text}");
    }
    let (code, _, stderr) = pull_cli(dir.path(), &url, "wrong-token-wrong-token", &local_store);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("refused the token"), "{stderr}");
    assert!(!stderr.contains("wrong-token"), "the token is never in an error: {stderr}");
    assert_eq!(all(&remote_store).len(), 1000, "401s are not stored as deliveries");

    let (code, stdout, stderr) = pull_cli(dir.path(), &url, TOKEN, &local_store);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("pulled 1000 deliveries"), "{stdout}");
    let (remote, local) = (all(&remote_store), all(&local_store));
    assert_eq!(local.len(), 1000);
    for (r, l) in remote.iter().zip(&local) {
        assert_eq!(r.delivery.headers, l.delivery.headers);
        assert_eq!(r.delivery.body, l.delivery.body);
        assert_eq!(
            (&r.delivery.method, &r.delivery.path, &r.delivery.query),
            (&l.delivery.method, &l.delivery.path, &l.delivery.query)
        );
        assert_eq!(r.delivery.received_at, l.delivery.received_at);
        assert_eq!(l.delivery.verified, Some(true), "verified locally: {}", l.delivery.reason);
    }
    let (code, stdout, _) = pull_cli(dir.path(), &url, TOKEN, &local_store);
    assert_eq!(code, 0);
    assert!(stdout.contains("pulled 0 deliveries"), "{stdout}");

    // One delivery with its exact bytes.
    let one: serde_json::Value = http()
        .get(format!("{url}/_orgql/v1/deliveries/{}", remote[7].id))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    use base64::Engine as _;
    let body = base64::engine::general_purpose::STANDARD.decode(one["body_base64"].as_str().unwrap()).unwrap();
    assert_eq!(body, remote[7].delivery.body);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_during_a_burst_loses_no_answered_delivery_and_the_attached_puller_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let remote_store = dir.path().join("server.sqlite3");
    let local_store = dir.path().join("desk.sqlite3");
    let (child, url) = start_listener(dir.path(), &remote_store, "127.0.0.1:0");
    let listen = url.trim_start_matches("http://").to_owned();
    let cancel = tokio_util::sync::CancellationToken::new();
    let remote = Remote::new(&url, Some(orgql::secret::Secret::new(TOKEN))).unwrap();
    let (task, mut events) = attach(remote, local_store.clone(), None, cancel.clone());
    let reconnected = Arc::new(AtomicUsize::new(0));
    let seen = reconnected.clone();
    // What the attachment said besides its copies, for a failure's message.
    let said = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = said.clone();
    let drain = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if matches!(event, AttachEvent::Connected { .. }) {
                seen.fetch_add(1, Ordering::SeqCst);
            }
            if !matches!(event, AttachEvent::Stored { .. }) {
                log.lock().unwrap().push(format!("{event:?}"));
            }
        }
    });

    // Attached before the burst (on a loaded machine the first connection can take a while:
    // a puller that connects only after the kill would see one Connected, not two).
    let deadline = Instant::now() + Duration::from_secs(30);
    while reconnected.load(Ordering::SeqCst) < 1 {
        assert!(Instant::now() < deadline, "never attached; the attachment said {:?}", said.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // A burst of 8 senders; the listener is killed with SIGKILL once 150 have been answered.
    let answered = Arc::new(std::sync::Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut senders = Vec::new();
    for s in 0..8 {
        let (url, answered, count, stop) = (url.clone(), answered.clone(), count.clone(), stop.clone());
        senders.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && i < 100 {
                let id = format!("msg_{s}_{i}");
                let body = format!(r#"{{"type":"burst","n":"{id}"}}"#).into_bytes();
                if let Ok(response) = signed(&format!("{url}/burst"), &id, body).send().await
                    && response.status().is_success()
                {
                    answered.lock().unwrap().push(id);
                    count.fetch_add(1, Ordering::SeqCst);
                }
                i += 1;
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while count.load(Ordering::SeqCst) < 150 {
        assert!(Instant::now() < deadline, "the burst did not reach 150 answers");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut child = child;
    child.kill().unwrap();
    child.wait().unwrap();
    stop.store(true, Ordering::SeqCst);
    for sender in senders {
        sender.await.unwrap();
    }
    let answered: Vec<String> = answered.lock().unwrap().clone();
    let on_disk: std::collections::HashSet<String> = all(&remote_store).iter().map(webhook_id).collect();
    for id in &answered {
        assert!(on_disk.contains(id), "{id} was answered 2xx and is not in the store after kill -9");
    }

    // Back on the same port with 20 more deliveries: the attached puller reconnects (only a new
    // connection can bring those) and copies everything, each once.
    let (mut child, _) = start_listener(dir.path(), &remote_store, &listen);
    for i in 0..20 {
        let id = format!("msg_after_{i}");
        let response = signed(&format!("{url}/after"), &id, br#"{"type":"after"}"#.to_vec()).send().await.unwrap();
        assert!(response.status().is_success());
    }
    let expected = on_disk.len() + 20;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let local: Vec<String> = all(&local_store).iter().map(webhook_id).collect();
        if local.len() == expected {
            let unique: std::collections::HashSet<&String> = local.iter().collect();
            assert_eq!(unique.len(), local.len(), "each delivery copied once");
            assert!(answered.iter().all(|id| unique.contains(id)));
            break;
        }
        assert!(Instant::now() < deadline, "the attached puller has {} of {expected}", local.len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The events are read by another task, which may be a little behind the store.
    let deadline = Instant::now() + Duration::from_secs(30);
    while reconnected.load(Ordering::SeqCst) < 2 {
        assert!(
            Instant::now() < deadline,
            "no second Connected after the kill; the attachment said {:?}",
            said.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    cancel.cancel();
    task.await.unwrap();
    drain.await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A stand-in gosmee relay with its Redis store: `/events/chan` sends what gosmee sends (its
/// greetings, each webhook as JSON with the headers, `timestamp` and `bodyB`, an `id:` each), and
/// a `gosmee-gap` when asked to resume after an id it no longer has.
async fn gosmee_stand_in(bodies: Vec<Vec<u8>>) -> String {
    use axum::http::HeaderMap;
    use base64::Engine as _;
    let bodies = Arc::new(bodies);
    let app = axum::Router::new().route(
        "/events/chan",
        axum::routing::get(move |headers: HeaderMap| {
            let bodies = bodies.clone();
            async move {
                let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
                let event = |id: &str, body: &[u8]| {
                    format!(
                        "id: {id}\ndata: {{\"content-type\":\"application/json\",\"x-github-event\":\"push\",\"timestamp\":\"1700000000{id_ms}\",\"bodyB\":\"{}\"}}\n\n",
                        b64(body),
                        id_ms = &id[..1],
                    )
                };
                let mut text = String::from("data: {\"message\":\"connected\"}\n\ndata: {\"message\":\"ready\"}\n\n: keepalive\n\n");
                match headers.get("last-event-id").and_then(|v| v.to_str().ok()) {
                    None => {
                        for (i, body) in bodies.iter().enumerate() {
                            text.push_str(&event(&format!("{}-0", i + 1), body));
                        }
                    }
                    Some(after) => {
                        text.push_str(&format!(
                            "event: gosmee-gap\ndata: {{\"error\":\"missed_history\",\"requested_id\":\"{after}\",\"oldest_id\":\"7-0\"}}\n\n"
                        ));
                        text.push_str(&event("7-0", b"{\"late\":true}"));
                    }
                }
                ([("content-type", "text/event-stream")], text)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/events/chan")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulls_a_gosmee_relay_byte_for_byte_and_records_its_gap() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("desk.sqlite3");
    let bodies = vec![b"{\"a\":1}".to_vec(), vec![0xff, 0x00, b'\n', 0xfe], b"{ \"spaced\" :  true }".to_vec()];
    let url = gosmee_stand_in(bodies.clone()).await;
    let output = {
        let (url, store) = (url.clone(), store.clone());
        move |args: &[&str]| {
            let output = Command::new(env!("CARGO_BIN_EXE_orgql"))
                .args(["webhooks", "pull", &url, "--idle", "1", "--store"])
                .arg(&store)
                .args(args)
                .env("ORGQL_NO_KEYRING", "1")
                .env_remove("ORGQL_WEBHOOK_SECRET")
                .output()
                .unwrap();
            (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
        }
    };
    let (stdout, stderr) = tokio::task::spawn_blocking({
        let output = output.clone();
        move || output(&[])
    })
    .await
    .unwrap();
    assert!(stdout.contains("pulled 3 deliveries"), "{stdout}{stderr}");
    let stored = all(&store);
    assert_eq!(stored.iter().map(|d| d.delivery.body.clone()).collect::<Vec<_>>(), bodies);
    assert!(stored[0].delivery.headers.contains(&("x-github-event".into(), b"push".to_vec())));
    assert_eq!(stored[0].delivery.path, "/chan");
    let (stdout, _) = tokio::task::spawn_blocking(move || output(&[])).await.unwrap();
    assert!(stdout.contains("gap: the relay no longer has the deliveries after 3-0 (its oldest is 7-0)"), "{stdout}");
    assert!(stdout.contains("pulled 1 deliveries"), "{stdout}");
    let gaps = Store::open(&store).unwrap().pull_gaps(url.trim_end_matches('/')).unwrap();
    assert_eq!((gaps[0].after_id.as_str(), gaps[0].oldest_id.as_str()), ("3-0", "7-0"));
}
