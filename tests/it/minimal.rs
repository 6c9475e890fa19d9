//! The minimal variant of the sandbox (`orgql sandbox --variant minimal`) over real HTTP: the same
//! token endpoint, 301s and 401s as the full sandbox; users only, graphene-style edge cursors
//! without pageInfo, its own wording, and graphql-core's `@deprecated` locations.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use orgql::sandbox::{Config, RunningServer, Variant};
use serde_json::{Value, json};

use crate::harness::{SECRET, http, messages, minimal_server, post, sandbox_with, token, token_response};

const USERS: usize = 120;

/// Every user's ref in the order the service keeps them.
fn expected_refs(server: &RunningServer) -> Vec<String> {
    server.data().read().users.iter().map(|u| u.ref_.clone()).collect()
}

/// The only error of a response: its message and path.
fn only_error(body: &Value) -> (String, Value) {
    let errors = body["errors"].as_array().unwrap_or_else(|| panic!("no errors in {body}"));
    assert_eq!(errors.len(), 1, "{body}");
    (errors[0]["message"].as_str().unwrap_or_default().to_owned(), errors[0]["path"].clone())
}

#[tokio::test]
async fn tokens_come_from_the_same_endpoint_for_admin_and_reader() {
    let server = minimal_server(10).await;
    for (client, scope) in [("sandbox-admin", "users.read users.write"), ("sandbox-reader", "users.read")] {
        let (status, body) = token_response(&server, client, SECRET, scope).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["scope"], scope);
        assert_eq!(body["expires_in"], 86_400);
        let (status, body) =
            post(&server, body["access_token"].as_str().unwrap(), "{ paginatedUsers(first: 1) { count } }", json!({}))
                .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["paginatedUsers"]["count"], 10, "{body}");
    }
    // The reader may not write, as in the full sandbox.
    let (status, body) = token_response(&server, "sandbox-reader", SECRET, "users.write").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_scope")), "{body}");
    let (status, body) = token_response(&server, "sandbox-admin", "wrong", "users.read").await;
    assert_eq!((status, body["error"].as_str()), (401, Some("invalid_client")), "{body}");
}

#[tokio::test]
async fn paths_without_their_slash_answer_301() {
    let server = minimal_server(5).await;
    for path in ["/graphql", "/oauth/token"] {
        let response = http().post(format!("{}{path}", server.base_url())).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 301, "{path}");
        assert_eq!(response.headers()["location"], format!("{path}/"));
    }
}

#[tokio::test]
async fn a_missing_or_expired_token_is_401() {
    let server = sandbox_with(Config {
        users: 5,
        variant: Variant::Minimal,
        token_ttl: Duration::from_secs(1),
        ..Config::default()
    })
    .await;
    let query = json!({ "query": "{ paginatedUsers(first: 1) { count } }" });
    let response = http().post(format!("{}/graphql/", server.base_url())).json(&query).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 401);
    assert!(response.headers().contains_key("www-authenticate"));
    let body: Value = response.json().await.unwrap();
    assert!(messages(&body)[0].contains("No access token"), "{body}");

    let old = token(&server, "users.read").await;
    let (status, body) = post(&server, &old, "{ paginatedUsers(first: 1) { count } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let (status, body) = post(&server, &old, "{ paginatedUsers(first: 1) { count } }", json!({})).await;
    assert_eq!(status, 401, "{body}");
    assert!(messages(&body)[0].contains("invalid or expired"), "{body}");
}

#[tokio::test]
async fn a_token_without_users_read_gets_403_in_the_variants_words() {
    let server = minimal_server(5).await;
    let other = token(&server, "trainings.read groups.read").await;
    for query in [
        "{ user(ref: \"u00001\") { name } }",
        "query { ...F } fragment F on Query { paginatedUsers(first: 2) { count } }",
    ] {
        let (status, body) = post(&server, &other, query, json!({})).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(
            body,
            json!({ "errors": [{ "message": "You do not have permission to perform this action (scope users.read is required)." }] })
        );
    }
    // Introspection needs no scope.
    let (status, body) = post(&server, &other, "{ __typename }", json!({})).await;
    assert_eq!((status, &body), (200, &json!({ "data": { "__typename": "Query" } })));
}

#[tokio::test]
async fn user_by_ref_found_and_not_found() {
    let server = minimal_server(10).await;
    let token = token(&server, "users.read").await;
    let first = server.data().read().users.iter().next().cloned().unwrap();
    let (status, body) = post(
        &server,
        &token,
        "query($r: String!) { user(ref: $r) { id ref name email isActive } }",
        json!({ "r": first.ref_ }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "data": { "user": {
            "id": first.id, "ref": first.ref_, "name": first.name, "email": first.email, "isActive": first.is_active,
        } } })
    );

    let (status, body) = post(&server, &token, "{ user(ref: \"nobody\") { name } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({
            "data": { "user": null },
            "errors": [{
                "message": "User matching query does not exist.",
                "locations": [{ "line": 1, "column": 3 }],
                "path": ["user"],
            }],
        })
    );
}

/// Walks `paginatedUsers` by edge cursors, `first` a page, until a page shorter than `first`;
/// returns the refs, the cursors, `count` and the number of requests.
async fn walk(server: &RunningServer, token: &str, first: usize) -> (Vec<String>, Vec<String>, i64, usize) {
    let query = "query($first: Int!, $after: String) { paginatedUsers(first: $first, after: $after) { count edges { cursor node { ref } } } }";
    let (mut refs, mut cursors, mut after, mut count) = (Vec::new(), Vec::new(), Value::Null, None);
    for requests in 1..=100 {
        let (status, body) = post(server, token, query, json!({ "first": first, "after": after })).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.get("errors").is_none(), "{body}");
        let connection = &body["data"]["paginatedUsers"];
        count.get_or_insert(connection["count"].as_i64().unwrap());
        let edges = connection["edges"].as_array().unwrap();
        for edge in edges {
            refs.push(edge["node"]["ref"].as_str().unwrap().to_owned());
            cursors.push(edge["cursor"].as_str().unwrap().to_owned());
        }
        if edges.len() < first {
            return (refs, cursors, count.unwrap(), requests);
        }
        after = edges.last().unwrap()["cursor"].clone();
    }
    panic!("paginatedUsers did not end after 100 pages");
}

#[tokio::test]
async fn paginated_users_walked_by_edge_cursors_gives_every_user_once() {
    let server = minimal_server(USERS).await;
    let token = token(&server, "users.read").await;
    let expected = expected_refs(&server);

    // 120 = 50 + 50 + 20: the short page is the last.
    let (refs, cursors, count, requests) = walk(&server, &token, 50).await;
    assert_eq!((count, requests), (USERS as i64, 3));
    assert_eq!(refs, expected);
    assert_eq!(refs.iter().collect::<HashSet<_>>().len(), USERS);
    // Graphene's cursors: base64 of arrayconnection:<offset>.
    for (offset, cursor) in cursors.iter().enumerate() {
        assert_eq!(B64.decode(cursor).unwrap(), format!("arrayconnection:{offset}").into_bytes());
    }

    // 120 = 3 × 40: the fourth page is empty, and ends the walk.
    let (refs, _, count, requests) = walk(&server, &token, 40).await;
    assert_eq!((count, requests), (USERS as i64, 4));
    assert_eq!(refs, expected);
}

#[tokio::test]
async fn first_is_capped_to_50_and_must_be_positive() {
    let server = minimal_server(USERS).await;
    let token = token(&server, "users.read").await;
    let (status, body) =
        post(&server, &token, "{ paginatedUsers(first: 80) { count edges { cursor } } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("errors").is_none(), "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["edges"].as_array().unwrap().len(), 50);
    assert_eq!(body["data"]["paginatedUsers"]["count"], USERS);

    for first in [0, -3] {
        let (status, body) =
            post(&server, &token, "query($f: Int!) { paginatedUsers(first: $f) { count } }", json!({ "f": first }))
                .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"], json!({ "paginatedUsers": null }), "{body}");
        assert_eq!(only_error(&body), ("Argument 'first' must be positive.".to_owned(), json!(["paginatedUsers"])));
    }

    // `first` is required.
    let (status, body) = post(&server, &token, "{ paginatedUsers { count } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(messages(&body)[0].contains("first"), "{body}");
}

#[tokio::test]
async fn an_unknown_cursor_is_an_error_with_its_path() {
    let server = minimal_server(30).await;
    let token = token(&server, "users.read").await;
    let beyond = B64.encode("arrayconnection:30");
    let full_style = B64.encode("User:1");
    for after in ["nope", beyond.as_str(), full_style.as_str(), ""] {
        let (status, body) = post(
            &server,
            &token,
            "query($a: String) { paginatedUsers(first: 5, after: $a) { count edges { cursor } } }",
            json!({ "a": after }),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"], json!({ "paginatedUsers": null }), "{after}: {body}");
        assert_eq!(only_error(&body), ("Invalid cursor.".to_owned(), json!(["paginatedUsers"])), "{after}");
    }
    // The last edge's cursor is known: after it comes an empty page.
    let last = B64.encode("arrayconnection:29");
    let (_, body) = post(
        &server,
        &token,
        "query($a: String) { paginatedUsers(first: 5, after: $a) { count edges { cursor } } }",
        json!({ "a": last }),
    )
    .await;
    assert_eq!(body, json!({ "data": { "paginatedUsers": { "count": 30, "edges": [] } } }));
}

#[tokio::test]
async fn filters_by_ref_and_by_email_ignoring_case() {
    let server = minimal_server(40).await;
    let token = token(&server, "users.read").await;
    let (a, b) = {
        let db = server.data().read();
        let mut users = db.users.iter();
        (users.nth(3).cloned().unwrap(), users.nth(10).cloned().unwrap())
    };
    let query = "query($r: String, $e: String) { paginatedUsers(first: 50, ref: $r, email: $e) { count edges { node { ref email } } } }";
    let refs_of = |body: &Value| -> Vec<String> {
        body["data"]["paginatedUsers"]["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["node"]["ref"].as_str().unwrap().to_owned())
            .collect()
    };

    let (_, body) = post(&server, &token, query, json!({ "r": a.ref_ })).await;
    assert_eq!((refs_of(&body), body["data"]["paginatedUsers"]["count"].clone()), (vec![a.ref_.clone()], json!(1)));
    let (_, body) = post(&server, &token, query, json!({ "e": b.email.to_uppercase() })).await;
    assert_eq!(refs_of(&body), vec![b.ref_.clone()], "{body}");
    let (_, body) = post(&server, &token, query, json!({ "r": a.ref_, "e": b.email })).await;
    assert_eq!(body, json!({ "data": { "paginatedUsers": { "count": 0, "edges": [] } } }));
    let (_, body) = post(&server, &token, query, json!({ "r": a.ref_.to_uppercase() })).await;
    assert_eq!(body["data"]["paginatedUsers"]["count"], 0, "ref is exact: {body}");
}

#[tokio::test]
async fn introspection_has_graphql_core_deprecated_locations_no_page_info_and_no_mutation() {
    let server = minimal_server(5).await;
    let token = token(&server, "users.read").await;
    // The 2018 standard introspection query (orgql's fallback when its probe is refused): within
    // the depth and complexity limits.
    let query = orgql::api::Capabilities::standard_2018().query();
    let (status, body) = post(&server, &token, &query, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("errors").is_none(), "{body}");
    let schema = &body["data"]["__schema"];
    let deprecated = schema["directives"].as_array().unwrap().iter().find(|d| d["name"] == "deprecated").unwrap();
    let locations = deprecated["locations"].as_array().unwrap();
    assert!(locations.contains(&json!("DIRECTIVE_DEFINITION")), "{deprecated}");
    assert!(locations.contains(&json!("FIELD_DEFINITION")), "{deprecated}");
    for other in schema["directives"].as_array().unwrap().iter().filter(|d| d["name"] != "deprecated") {
        assert!(!other["locations"].as_array().unwrap().contains(&json!("DIRECTIVE_DEFINITION")), "{other}");
    }
    assert_eq!(schema["mutationType"], Value::Null);
    let types = schema["types"].as_array().unwrap();
    assert!(types.iter().all(|t| t["name"] != "Mutation" && t["name"] != "PageInfo"), "{schema}");
    let connection = types.iter().find(|t| t["name"] == "UserConnection").unwrap();
    let fields: Vec<&str> =
        connection["fields"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(fields, ["edges", "count"]);

    // Aliased, and asked by a token without any users scope.
    let other = token_response(&server, "sandbox-reader", SECRET, "groups.read").await.1["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) =
        post(&server, &other, "{ s: __schema { d: directives { n: name l: locations } } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let d = body["data"]["s"]["d"].as_array().unwrap().iter().find(|d| d["n"] == "deprecated").unwrap().clone();
    assert_eq!(d["l"].as_array().unwrap().last().unwrap(), "DIRECTIVE_DEFINITION");

    // Fields come in the order asked, the added location included.
    let text = http()
        .post(format!("{}/graphql/", server.base_url()))
        .bearer_auth(&token)
        .json(&json!({ "query": "{ paginatedUsers(first: 1) { edges { node { ref } } count } __schema { directives { name locations } } }" }))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.find("\"edges\"") < text.find("\"count\""), "{text}");
    assert!(text.contains(r#"{"name":"deprecated","locations":["#), "{text}");
    assert!(text.contains(r#""ENUM_VALUE","DIRECTIVE_DEFINITION"]}"#), "{text}");

    // Asking for pageInfo is a GraphQL error, with HTTP 200.
    let (status, body) =
        post(&server, &token, "{ paginatedUsers(first: 1) { pageInfo { hasNextPage } } }", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(messages(&body)[0].contains("pageInfo"), "{body}");
}

#[tokio::test]
async fn malformed_bodies_are_400_and_deep_queries_are_errors() {
    let server = minimal_server(5).await;
    let token = token(&server, "users.read").await;
    for (body, message) in [
        ("{", "POST body sent invalid JSON."),
        ("{\"variables\": {}}", "Must provide query string."),
        ("{\"query\": \"{ __typename }\", \"variables\": [1]}", "Variables are invalid JSON."),
    ] {
        let response = http()
            .post(format!("{}/graphql/", server.base_url()))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400, "{body}");
        assert_eq!(response.json::<Value>().await.unwrap(), json!({ "errors": [{ "message": message }] }));
    }
    let deep = format!(
        "{{ __schema {{ types {{ fields {{ type {{ {} name {} }} }} }} }} }}",
        "ofType { ".repeat(14),
        "}".repeat(14)
    );
    let (status, body) = post(&server, &token, &deep, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(messages(&body)[0].contains("nested too deep"), "{body}");
}

/// A child process killed when dropped (a failing assertion must not leave it running).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            if let Err(err) = self.0.kill() {
                eprintln!("cannot kill the sandbox process: {err}");
            }
            if let Err(err) = self.0.wait() {
                eprintln!("cannot wait for the sandbox process: {err}");
            }
        }
    }
}

#[tokio::test]
async fn the_cli_runs_the_minimal_variant() {
    let mut child = Running(
        Command::new(env!("CARGO_BIN_EXE_orgql"))
            .args(["sandbox", "--variant", "minimal", "--listen", "127.0.0.1:0", "--users", "30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("orgql starts"),
    );
    let stdout = child.0.stdout.take().unwrap();
    // The first line, read on a thread so that a silent process fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        if tx.send(read).is_err() {
            eprintln!("the test stopped waiting for the sandbox's first line");
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(30)).expect("a first line within 30 s").unwrap();
    assert!(line.contains("minimal") && line.contains("sandbox-admin") && line.contains("sandbox-secret"), "{line}");
    let base_url = line.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).expect("a base URL").to_owned();

    let token = crate::harness::admin_token(&base_url, "users.read").await;
    let body = crate::harness::graphql(
        &base_url,
        &token,
        "{ paginatedUsers(first: 3) { count edges { cursor node { ref } } } }",
        json!({}),
    )
    .await;
    assert_eq!(body["data"]["paginatedUsers"]["count"], 30, "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["edges"][2]["cursor"], B64.encode("arrayconnection:2"), "{body}");

    // SIGTERM stops it cleanly.
    let pid = child.0.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "orgql sandbox --variant minimal did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn webhooks_with_the_minimal_variant_are_a_usage_error() {
    let mut child = Running(
        Command::new(env!("CARGO_BIN_EXE_orgql"))
            .args([
                "sandbox",
                "--variant",
                "minimal",
                "--listen",
                "127.0.0.1:0",
                "--webhook-url",
                "http://127.0.0.1:9/",
                "--webhook-secret",
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("orgql starts"),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "orgql sandbox did not refuse --webhook-url with the minimal variant"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status.code(), Some(2));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("no webhooks") && stderr.contains("--variant full"), "{stderr}");
}
