//! The webhook listener's throughput on loopback (issue: "deliveries per second received,
//! verified and stored with concurrent senders, aim above 5,000/s on two cores with none lost").
//!
//! `cargo bench --bench webhooks` reports `listener/burst_2000_by_64`: 2,000 Standard Webhooks
//! deliveries (signed, ~300-byte bodies) sent by 64 concurrent senders over keep-alive
//! connections; each is verified and committed to the SQLite store (WAL) before its 2xx.
//! Criterion prints deliveries/s. After the run the store is counted: every delivery sent is
//! there exactly once, or the benchmark fails.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orgql::store::Store;
use orgql::webhooks::standard::Secret;
use orgql::webhooks::{Listener, ListenerConfig, Scheme};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const BURST: u64 = 2_000;
const SENDERS: u64 = 64;

fn body(n: u64) -> Vec<u8> {
    format!(
        r#"{{"type":"user.updated","timestamp":"2026-11-22T03:00:00.000Z","data":{{"ref":"u{n:06}","name":"Benchmark User {n}","email":"user{n}@example.com","isActive":true,"roles":["LEARNER"],"groups":[{{"id":"g1","name":"Sales"}}]}}}}"#
    )
    .into_bytes()
}

fn listener(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = dir.path().join("bench.sqlite3");
    let running = runtime
        .block_on(Listener::start(ListenerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            scheme: Some(Scheme::Standard),
            secret: Some(SECRET.to_owned()),
            ..ListenerConfig::new(store.clone())
        }))
        .expect("the listener starts");
    let url = Arc::new(format!("http://{}/bench", running.addr()));
    let http = reqwest::Client::builder().pool_max_idle_per_host(SENDERS as usize).build().expect("a client");
    let secret = Arc::new(Secret::parse(SECRET).expect("the secret"));
    let sent = Arc::new(AtomicU64::new(0));

    let mut group = c.benchmark_group("listener");
    group.throughput(Throughput::Elements(BURST));
    group.measurement_time(Duration::from_secs(15));
    group.sample_size(20);
    group.bench_function("burst_2000_by_64", |b| {
        b.to_async(&runtime).iter(|| {
            let (http, url, secret, sent) = (http.clone(), url.clone(), secret.clone(), sent.clone());
            async move {
                let mut senders = tokio::task::JoinSet::new();
                for _ in 0..SENDERS {
                    let (http, url, secret, sent) = (http.clone(), url.clone(), secret.clone(), sent.clone());
                    senders.spawn(async move {
                        for _ in 0..BURST / SENDERS + 1 {
                            let n = sent.fetch_add(1, Ordering::Relaxed);
                            let body = body(n);
                            let id = format!("msg_{n}");
                            let now = chrono::Utc::now().timestamp();
                            let response = http
                                .post(url.as_str())
                                .header("webhook-id", &id)
                                .header("webhook-timestamp", now.to_string())
                                .header("webhook-signature", secret.sign(&id, now, &body))
                                .header("content-type", "application/json")
                                .body(body)
                                .send()
                                .await
                                .expect("the listener answers");
                            assert_eq!(response.status().as_u16(), 204);
                        }
                    });
                }
                while let Some(done) = senders.join_next().await {
                    done.expect("a sender");
                }
            }
        })
    });
    group.finish();
    runtime.block_on(running.stop());
    let store = Store::open(&store).expect("the store");
    let total = sent.load(Ordering::Relaxed);
    assert_eq!(store.delivery_count().expect("a count"), total, "every delivery sent is stored");
    let verified = store.summaries_after(0).expect("summaries").iter().filter(|d| d.verified == Some(true)).count();
    assert_eq!(verified as u64, total, "every delivery verified");
    println!("listener: {total} deliveries sent, {total} stored and verified, none lost");
}

criterion_group!(webhooks, listener);
criterion_main!(webhooks);
