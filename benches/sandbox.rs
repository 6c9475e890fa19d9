//! Sandbox throughput on loopback (issue: "the sandbox must never be the bottleneck").
//!
//! `cargo bench --bench sandbox` reports:
//! - `users_page/sequential`: one `paginatedUsers(first: 50)` with five fields, request after request;
//! - `users_page/concurrent_64`: 64 such requests in flight at once (criterion prints pages/s);
//! - `walk_10k_users`: every page of 10,000 users, one after another, following `endCursor`.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orgql::sandbox::{Config, RunningServer, Server};
use serde_json::{Value, json};

const PAGE: &str = "query($after: String) { paginatedUsers(first: 50, after: $after) { count pageInfo { hasNextPage endCursor } edges { node { id ref name email isActive } } } }";

struct Fixture {
    server: RunningServer,
    http: reqwest::Client,
    token: String,
}

impl Fixture {
    async fn start(users: usize) -> Fixture {
        let config = Config { users, ..Config::default() };
        let server = Server::start(config).await.expect("the sandbox starts");
        let http = reqwest::Client::new();
        let response: Value = http
            .post(format!("{}/oauth/token/", server.base_url()))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", "sandbox-reader"),
                ("client_secret", "sandbox-secret"),
                ("scope", "users.read"),
            ])
            .send()
            .await
            .expect("token request")
            .json()
            .await
            .expect("token JSON");
        let token = response["access_token"].as_str().expect("a token").to_owned();
        Fixture { server, http, token }
    }

    async fn page(&self, after: &Value) -> Value {
        let body: Value = self
            .http
            .post(format!("{}/graphql/", self.server.base_url()))
            .bearer_auth(&self.token)
            .json(&json!({ "query": PAGE, "variables": { "after": after } }))
            .send()
            .await
            .expect("page request")
            .json()
            .await
            .expect("page JSON");
        assert!(body.get("errors").is_none(), "{body}");
        body
    }

    async fn walk(&self) -> usize {
        let mut after = Value::Null;
        let mut seen = 0;
        loop {
            let body = self.page(&after).await;
            let connection = &body["data"]["paginatedUsers"];
            seen += connection["edges"].as_array().map_or(0, Vec::len);
            if connection["pageInfo"]["hasNextPage"] != Value::Bool(true) {
                return seen;
            }
            after = connection["pageInfo"]["endCursor"].clone();
        }
    }
}

fn benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");

    let fixture = Arc::new(runtime.block_on(Fixture::start(10_000)));
    let mut group = c.benchmark_group("users_page");
    group.throughput(Throughput::Elements(1));
    group.bench_function("sequential", |b| b.to_async(&runtime).iter(|| fixture.page(&Value::Null)));
    group.throughput(Throughput::Elements(64));
    group.bench_function("concurrent_64", |b| {
        b.to_async(&runtime).iter(|| async {
            let mut tasks = tokio::task::JoinSet::new();
            for _ in 0..64 {
                let fixture = fixture.clone();
                tasks.spawn(async move { fixture.page(&Value::Null).await });
            }
            while let Some(page) = tasks.join_next().await {
                std::hint::black_box(page.expect("the request task ends"));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("walk_10k_users");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(200));
    group.bench_function("200_pages", |b| {
        b.to_async(&runtime).iter(|| async {
            let seen = fixture.walk().await;
            assert_eq!(seen, 10_000);
        })
    });
    group.finish();
}

criterion_group!(sandbox, benches);
criterion_main!(sandbox);
