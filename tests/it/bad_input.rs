//! Bad input: every malformed request gets a clear error in the spec's shape
//! (`{"errors":[{"message"}]}`, or RFC 6749's `{"error"}` on the token endpoint), never a panic
//! or a hang, and the server keeps serving afterwards.

use std::time::Duration;

use orgql::sandbox::RunningServer;
use reqwest::Method;
use serde_json::{Value, json};

use crate::harness::*;

const USERS: usize = 120;

struct Reply {
    status: u16,
    allow: Option<String>,
    body: Value,
}

/// Sends a raw request; the reply must be JSON.
async fn send(
    server: &RunningServer,
    method: Method,
    path: &str,
    token: Option<&str>,
    content_type: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> Reply {
    let mut request = http().request(method, format!("{}{path}", server.base_url())).body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(content_type) = content_type {
        request = request.header("Content-Type", content_type);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let allow = response.headers().get("allow").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"));
    Reply { status, allow, body }
}

/// Posts raw bytes to `/graphql/` as JSON.
async fn post_raw(server: &RunningServer, token: &str, body: impl Into<reqwest::Body>) -> Reply {
    send(server, Method::POST, "/graphql/", Some(token), Some("application/json"), body).await
}

/// The messages of a response in the GraphQL error shape (at least one; each a non-empty string).
fn error_messages(body: &Value) -> Vec<String> {
    let errors = body["errors"].as_array().unwrap_or_else(|| panic!("no errors array: {body}"));
    assert!(!errors.is_empty(), "{body}");
    for error in errors {
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    }
    messages(body)
}

/// The single message of a request refused before execution: `{"data":null,"errors":[{message}]}`.
fn refusal(reply: &Reply, status: u16) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert!(reply.body["data"].is_null(), "{}", reply.body);
    let messages = error_messages(&reply.body);
    assert_eq!(messages.len(), 1, "{}", reply.body);
    messages[0].clone()
}

/// A refusal of the token endpoint: `{"error": error, "error_description": ...}`.
fn assert_oauth_error(reply: &Reply, status: u16, error: &str) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body["error"], error, "{}", reply.body);
    assert!(reply.body.get("access_token").is_none(), "{}", reply.body);
    reply.body["error_description"].as_str().unwrap().to_owned()
}

/// The server still issues tokens and answers a good query.
async fn assert_still_serving(server: &RunningServer) {
    let token = token(server, "users.read groups.read").await;
    let page = data(server, &token, "{ paginatedUsers(first: 2) { count edges { node { ref } } } }", json!({})).await;
    assert_eq!(page["paginatedUsers"]["count"], USERS);
    assert_eq!(page["paginatedUsers"]["edges"][1]["node"]["ref"], "u00002");
}

async fn setup() -> (RunningServer, String) {
    let server = sandbox(USERS).await;
    let token = token(&server, "users.read groups.read").await;
    (server, token)
}

#[tokio::test]
async fn malformed_json_is_400() {
    let (server, token) = setup().await;
    let bodies: [&[u8]; 5] = [
        br#"{"query": "{ paginatedUsers { count } }""#,
        br#"{query: "{ paginatedUsers { count } }"}"#,
        b"query { paginatedUsers { count } }",
        b"\xff\xfe{}",
        br#"{"query": "{ paginatedUsers { count } }"} trailing"#,
    ];
    for body in bodies {
        let reply = post_raw(&server, &token, body.to_vec()).await;
        let message = refusal(&reply, 400);
        assert!(message.contains("not valid JSON") && message.contains("\"query\""), "{message}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn a_body_that_is_not_an_object_is_400() {
    let (server, token) = setup().await;
    for body in [
        r#"[{"query": "{ paginatedUsers { count } }"}]"#,
        "42",
        "-1.5",
        r#""{ paginatedUsers { count } }""#,
        "true",
        "null",
    ] {
        let reply = post_raw(&server, &token, body).await;
        let message = refusal(&reply, 400);
        assert!(message.contains("must be a JSON object"), "{body}: {message}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn a_body_without_query_is_400() {
    let (server, token) = setup().await;
    for body in ["{}", r#"{"variables": {}}"#, r#"{"query": null}"#, r#"{"Query": "{ paginatedUsers { count } }"}"#] {
        let reply = post_raw(&server, &token, body).await;
        let message = refusal(&reply, 400);
        assert!(message.contains("no 'query'"), "{body}: {message}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn a_query_that_is_not_a_string_is_400() {
    let (server, token) = setup().await;
    for body in [
        r#"{"query": 5}"#,
        r#"{"query": ["{ paginatedUsers { count } }"]}"#,
        r#"{"query": {"paginatedUsers": 1}}"#,
        r#"{"query": true}"#,
    ] {
        let reply = post_raw(&server, &token, body).await;
        let message = refusal(&reply, 400);
        assert!(message.contains("'query' must be a string"), "{body}: {message}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn variables_that_are_not_an_object_are_400() {
    let (server, token) = setup().await;
    let query = "query($n: Int) { paginatedUsers(first: $n) { count } }";
    for variables in [json!([1]), json!("{\"n\": 1}"), json!(5), json!(true)] {
        let body = json!({ "query": query, "variables": variables }).to_string();
        let reply = post_raw(&server, &token, body).await;
        let message = refusal(&reply, 400);
        assert!(message.contains("'variables' must be a JSON object"), "{variables}: {message}");
        assert_still_serving(&server).await;
    }
    // So is an operationName that is not a string.
    let body = json!({ "query": query, "operationName": 1 }).to_string();
    let message = refusal(&post_raw(&server, &token, body).await, 400);
    assert!(message.contains("'operationName' must be a string"), "{message}");
    assert_still_serving(&server).await;
    // null variables are the same as none.
    let body = json!({ "query": query, "variables": null }).to_string();
    let reply = post_raw(&server, &token, body).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body["data"]["paginatedUsers"]["count"], USERS);
}

#[tokio::test]
async fn an_unknown_operation_name_is_an_error() {
    let (server, token) = setup().await;
    let document = "query A { paginatedUsers(first: 1) { count } } query B { paginatedGroups(first: 1) { count } }";
    let reply = post_raw(&server, &token, json!({ "query": document, "operationName": "C" }).to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body["data"].is_null(), "{}", reply.body);
    assert_eq!(error_messages(&reply.body), [r#"Unknown operation named "C""#]);
    assert_still_serving(&server).await;

    // Without a name, the server cannot choose.
    let reply = post_raw(&server, &token, json!({ "query": document }).to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.body["data"].is_null(), "{}", reply.body);
    let messages = error_messages(&reply.body);
    assert!(messages.iter().any(|m| m.to_lowercase().contains("operation")), "{messages:?}");
    assert_still_serving(&server).await;

    // A known name runs that operation only.
    let reply = post_raw(&server, &token, json!({ "query": document, "operationName": "B" }).to_string()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body, json!({ "data": { "paginatedGroups": { "count": 6 } } }));
}

#[tokio::test]
async fn a_variable_of_the_wrong_type_is_an_error() {
    let (server, token) = setup().await;
    let cases = [
        ("query($n: Int) { paginatedUsers(first: $n) { count } }", json!({ "n": "5" }), r#"expected type "Int""#),
        ("query($n: Int) { paginatedUsers(first: $n) { count } }", json!({ "n": 2.5 }), r#"expected type "Int""#),
        (r#"query($r: String!) { user(ref: $r) { id } }"#, json!({ "r": 5 }), r#"expected type "String""#),
        ("query($a: Boolean) { paginatedUsers(isActive: $a) { count } }", json!({ "a": "yes" }), r#""Boolean""#),
        // Not given at all (async-graphql's words: "Variable r is not defined.").
        (r#"query($r: String!) { user(ref: $r) { id } }"#, json!({}), "Variable r "),
    ];
    for (query, variables, needle) in cases {
        let (status, body) = post(&server, &token, query, variables.clone()).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"].is_null(), "{variables}: {body}");
        let messages = error_messages(&body);
        assert!(messages.iter().any(|m| m.contains(needle)), "{variables}: {messages:?}");
        assert!(body["errors"][0]["locations"][0]["line"].is_u64(), "{body}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn a_ten_megabyte_body_is_413() {
    let (server, token) = setup().await;
    let query = format!("{{ paginatedUsers(first: 1) {{ count }} }}{}", " ".repeat(10 * 1024 * 1024));
    let body = json!({ "query": query }).to_string();
    assert!(body.len() > 10 * 1024 * 1024);
    let reply = post_raw(&server, &token, body).await;
    let message = refusal(&reply, 413);
    assert!(message.contains("too large"), "{message}");
    assert_still_serving(&server).await;

    let reply = send(
        &server,
        Method::POST,
        "/oauth/token/",
        None,
        Some("application/x-www-form-urlencoded"),
        format!(
            "grant_type=client_credentials&client_id=sandbox-admin&client_secret={SECRET}&scope=users.read&pad={}",
            "a".repeat(10 * 1024 * 1024)
        ),
    )
    .await;
    let description = assert_oauth_error(&reply, 413, "invalid_request");
    assert!(description.contains("too large"), "{description}");
    assert_still_serving(&server).await;
}

/// `{ user(ref: "u00001") { groups { managers { groups { ... id ... } } } } }` with `levels`
/// fields below `user`.
fn nested_query(levels: usize) -> String {
    let mut query = String::from(r#"{ user(ref: "u00001") { "#);
    for level in 0..levels {
        query.push_str(if level % 2 == 0 { "groups { " } else { "managers { " });
    }
    query.push_str("id ");
    query.push_str(&"} ".repeat(levels + 2));
    query
}

#[tokio::test]
async fn a_query_nested_200_levels_deep_is_refused_without_a_hang() {
    let (server, token) = setup().await;
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(10), post(&server, &token, &nested_query(200), json!({})))
            .await
            .expect("an answer within 10 s");
    assert_eq!(status, 200, "{body}");
    assert!(body["data"].is_null(), "{body}");
    let messages = error_messages(&body);
    assert_eq!(messages.len(), 1, "{body}");
    assert!(messages[0].contains("nested too deep") && messages[0].contains("recursion"), "{}", messages[0]);
    assert_still_serving(&server).await;

    // Deeper than the schema's limit of 16, within the parser's: the limit is named.
    let (status, body) = post(&server, &token, &nested_query(20), json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["data"].is_null(), "{body}");
    let messages = error_messages(&body);
    assert!(messages[0].contains("nested too deep") && messages[0].contains("at most 16"), "{}", messages[0]);
    assert_still_serving(&server).await;

    // Within the limit, the same shape runs.
    let page = data(&server, &token, &nested_query(6), json!({})).await;
    assert!(page["user"]["groups"].is_array(), "{page}");
}

#[tokio::test]
async fn self_referencing_fragments_are_an_error_without_a_hang() {
    let (server, token) = setup().await;
    let query = r#"{ user(ref: "u00001") { ...A } } fragment A on User { groups { managers { ...B } } } fragment B on User { ...A }"#;
    let (status, body) = tokio::time::timeout(Duration::from_secs(10), post(&server, &token, query, json!({})))
        .await
        .expect("an answer within 10 s");
    assert_eq!(status, 200, "{body}");
    assert!(body["data"].is_null(), "{body}");
    let messages = error_messages(&body);
    // async-graphql's recursion-depth check catches the cycle.
    assert_eq!(messages.len(), 1, "{body}");
    assert!(messages[0].contains("nested too deep"), "{messages:?}");
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn a_very_complex_query_is_too_complex() {
    let (server, token) = setup().await;
    let query = "{ paginatedGroups(first: 50) { edges { node { members(first: 50) { edges { node { groups { members(first: 50) { edges { node { id name email } } } } } } } } } } }";
    let (status, body) = tokio::time::timeout(Duration::from_secs(10), post(&server, &token, query, json!({})))
        .await
        .expect("an answer within 10 s");
    assert_eq!(status, 200, "{body}");
    assert!(body["data"].is_null(), "{body}");
    let messages = error_messages(&body);
    assert_eq!(messages.len(), 1, "{body}");
    assert!(messages[0].contains("too complex") && messages[0].contains("20000"), "{}", messages[0]);
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn an_unknown_cursor_is_an_error_naming_after() {
    let (server, token) = setup().await;
    let group_cursor =
        data(&server, &token, "{ paginatedGroups(first: 1) { edges { cursor } } }", json!({})).await["paginatedGroups"]
            ["edges"][0]["cursor"]
            .as_str()
            .unwrap()
            .to_owned();
    let long = "x".repeat(10_000);
    for cursor in ["nope", "", group_cursor.as_str(), "VXNlcjphYmM", long.as_str()] {
        let (status, body) = post(
            &server,
            &token,
            "query($after: String) { paginatedUsers(first: 5, after: $after) { count } }",
            json!({ "after": cursor }),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"]["paginatedUsers"].is_null(), "{body}");
        let messages = error_messages(&body);
        assert!(messages[0].starts_with("after: unknown cursor"), "{}", messages[0]);
        assert!(messages[0].len() < 300, "the message repeats a huge cursor: {} bytes", messages[0].len());
        assert_eq!(body["errors"][0]["path"], json!(["paginatedUsers"]));
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn a_token_request_missing_a_parameter_is_invalid_request_naming_it() {
    let (server, _) = setup().await;
    let full = [
        ("grant_type", "client_credentials"),
        ("client_id", "sandbox-admin"),
        ("client_secret", SECRET),
        ("scope", "users.read"),
    ];
    for missing in ["grant_type", "client_id", "client_secret", "scope"] {
        let form: Vec<(&str, &str)> = full.iter().copied().filter(|(name, _)| *name != missing).collect();
        let body = serde_urlencoded::to_string(&form).unwrap();
        let reply =
            send(&server, Method::POST, "/oauth/token/", None, Some("application/x-www-form-urlencoded"), body).await;
        let description = assert_oauth_error(&reply, 400, "invalid_request");
        assert!(description.contains(&format!("'{missing}'")) && description.contains("missing"), "{description}");
        assert_still_serving(&server).await;
    }
    // A parameter given twice is refused too.
    let body = format!("{}&scope=groups.read", serde_urlencoded::to_string(full).unwrap());
    let reply =
        send(&server, Method::POST, "/oauth/token/", None, Some("application/x-www-form-urlencoded"), body).await;
    let description = assert_oauth_error(&reply, 400, "invalid_request");
    assert!(description.contains("'scope'") && description.contains("twice"), "{description}");
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn an_empty_body_is_400() {
    let (server, token) = setup().await;
    for content_type in [Some("application/json"), None] {
        let reply = send(&server, Method::POST, "/graphql/", Some(&token), content_type, "").await;
        let message = refusal(&reply, 400);
        assert!(message.contains("not valid JSON"), "{message}");
        assert_still_serving(&server).await;
    }
    let reply = send(&server, Method::POST, "/oauth/token/", None, Some("application/x-www-form-urlencoded"), "").await;
    let description = assert_oauth_error(&reply, 400, "invalid_request");
    assert!(description.contains("'grant_type'"), "{description}");
    assert_still_serving(&server).await;
    let reply = send(&server, Method::POST, "/oauth/token/", None, None, "").await;
    let description = assert_oauth_error(&reply, 400, "invalid_request");
    assert!(description.contains("x-www-form-urlencoded"), "{description}");
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn other_methods_are_405() {
    let (server, token) = setup().await;
    for (method, path) in [
        (Method::GET, "/graphql/"),
        (Method::PUT, "/graphql/"),
        (Method::DELETE, "/graphql/"),
        (Method::GET, "/oauth/token/"),
    ] {
        let reply = send(&server, method.clone(), path, Some(&token), None, "").await;
        let message = refusal(&reply, 405);
        assert_eq!(message, format!("Use POST for {path}"), "{method} {path}");
        assert_eq!(reply.allow.as_deref(), Some("POST"), "{method} {path}");
        assert_still_serving(&server).await;
    }
}

#[tokio::test]
async fn an_unknown_path_is_404() {
    let (server, token) = setup().await;
    let reply = send(&server, Method::POST, "/graphql/v2/", Some(&token), Some("application/json"), "{}").await;
    let message = refusal(&reply, 404);
    assert!(message.contains("'/graphql/v2/'") && message.contains("POST /graphql/"), "{message}");
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn a_syntax_error_or_unknown_field_is_an_error_with_its_location() {
    let (server, token) = setup().await;
    for (query, needle) in [
        ("{ paginatedUsers(first: 1) { count }", ""),
        ("{ paginatedUsers(first: ) { count } }", ""),
        ("{ noSuchField }", "\"noSuchField\""),
        ("{ paginatedUsers(first: 1) { count nosuch } }", "\"nosuch\""),
        ("{ paginatedUsers(frist: 1) { count } }", "\"frist\""),
    ] {
        let (status, body) = post(&server, &token, query, json!({})).await;
        assert_eq!(status, 200, "{query}: {body}");
        assert!(body["data"].is_null(), "{query}: {body}");
        let messages = error_messages(&body);
        assert!(messages[0].contains(needle), "{query}: {messages:?}");
        assert!(body["errors"][0]["locations"][0]["column"].is_u64(), "{query}: {body}");
        assert_still_serving(&server).await;
    }
}
