//! Shared helpers: start a sandbox, get tokens, post GraphQL.

#![allow(dead_code)]

use std::time::Duration;

use orgql::sandbox::{Config, RunningServer, Server};
use serde_json::{Value, json};

pub const SECRET: &str = "sandbox-secret";
pub const ALL_SCOPES: &str = "users.read users.write trainings.read trainings.write groups.read groups.write events.read events.write extra_categories.write";

/// A sandbox with `users` users and otherwise default settings.
pub async fn sandbox(users: usize) -> RunningServer {
    sandbox_with(Config { users, ..Config::default() }).await
}

/// A sandbox with a given configuration (listening on 127.0.0.1:0).
pub async fn sandbox_with(config: Config) -> RunningServer {
    Server::start(Config { listen: "127.0.0.1:0".parse().unwrap(), ..config }).await.expect("sandbox starts")
}

/// An HTTP client that does not follow redirects (the tests look at them).
pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The raw token response: status and JSON body.
pub async fn token_response(server: &RunningServer, client_id: &str, secret: &str, scope: &str) -> (u16, Value) {
    let response = http()
        .post(format!("{}/oauth/token/", server.base_url()))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", client_id),
            ("client_secret", secret),
            ("scope", scope),
        ])
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A token of `sandbox-admin` with `scope`.
pub async fn token(server: &RunningServer, scope: &str) -> String {
    let (status, body) = token_response(server, "sandbox-admin", SECRET, scope).await;
    assert_eq!(status, 200, "{body}");
    body["access_token"].as_str().unwrap().to_owned()
}

/// Posts a GraphQL request; returns the status and the JSON body.
pub async fn post(server: &RunningServer, token: &str, query: &str, variables: Value) -> (u16, Value) {
    let response = http()
        .post(format!("{}/graphql/", server.base_url()))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Posts a GraphQL request that must succeed without errors; returns `data`.
pub async fn data(server: &RunningServer, token: &str, query: &str, variables: Value) -> Value {
    let (status, body) = post(server, token, query, variables).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("errors").is_none(), "unexpected errors: {body}");
    body["data"].clone()
}

/// The messages of the `errors` array.
pub fn messages(body: &Value) -> Vec<String> {
    body["errors"].as_array().map_or_else(Vec::new, |errors| {
        errors.iter().map(|e| e["message"].as_str().unwrap_or_default().to_owned()).collect()
    })
}

/// Walks every page of the connection at `field` (a root field taking `first` and `after`),
/// selecting `node_selection`; returns the nodes and the `count` of the first page.
pub async fn walk(
    server: &RunningServer,
    token: &str,
    field: &str,
    args: &str,
    node_selection: &str,
) -> (Vec<Value>, i64) {
    let query = format!(
        "query($after: String) {{ {field}(first: 50, after: $after{args}) {{ count pageInfo {{ hasNextPage endCursor }} edges {{ cursor node {{ {node_selection} }} }} }} }}"
    );
    let mut nodes = Vec::new();
    let mut after = Value::Null;
    let mut count = None;
    for _ in 0..10_000 {
        let page = data(server, token, &query, json!({ "after": after })).await;
        let connection = &page[field];
        count.get_or_insert(connection["count"].as_i64().unwrap());
        for edge in connection["edges"].as_array().unwrap() {
            nodes.push(edge["node"].clone());
        }
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            return (nodes, count.unwrap());
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    panic!("{field} did not end after 10,000 pages");
}
