//! Conformance: one test per rule of the spec's tables and of the sandbox contract
//! (`shared/contract/README.md` section 1 and `sandbox.graphql`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use async_graphql::parser::parse_schema;
use async_graphql::parser::types::{OperationType, TypeKind, TypeSystemDefinition};
use orgql::sandbox::access::root_field_scope;
use orgql::sandbox::{Config, RunningServer};
use serde_json::{Value, json};

use crate::harness::*;

const READER_SCOPES: &str = "users.read trainings.read groups.read events.read";

/// Posts a form to the token endpoint; returns the status and the JSON body.
async fn token_form(server: &RunningServer, form: &[(&str, &str)]) -> (u16, Value) {
    let response = http().post(format!("{}/oauth/token/", server.base_url())).form(form).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Posts a GraphQL query with a raw `Authorization` header (or none).
async fn post_with_authorization(server: &RunningServer, authorization: Option<&str>, query: &str) -> (u16, Value) {
    let mut request = http().post(format!("{}/graphql/", server.base_url())).json(&json!({ "query": query }));
    if let Some(value) = authorization {
        request = request.header("Authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn words(list: &str) -> BTreeSet<&str> {
    list.split_whitespace().collect()
}

fn assert_token_response(status: u16, body: &Value, scope: &str, expires_in: u64) {
    assert_eq!(status, 200, "{body}");
    let keys: BTreeSet<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, BTreeSet::from(["access_token", "token_type", "expires_in", "scope"]), "{body}");
    assert!(body["access_token"].as_str().is_some_and(|t| t.len() >= 32), "{body}");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"].as_u64(), Some(expires_in), "{body}");
    assert_eq!(words(body["scope"].as_str().unwrap()), words(scope), "{body}");
}

/// The one error of a refused GraphQL request, in the spec's shape.
fn only_message(body: &Value) -> &str {
    assert!(body["data"].is_null(), "{body}");
    let errors = body["errors"].as_array().unwrap_or_else(|| panic!("no errors: {body}"));
    assert_eq!(errors.len(), 1, "{body}");
    errors[0]["message"].as_str().unwrap()
}

// --- The token endpoint ---------------------------------------------------------------------

#[tokio::test]
async fn admin_token_response_has_the_spec_fields() {
    let server = sandbox(50).await;
    let response = http()
        .post(format!("{}/oauth/token/", server.base_url()))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", "sandbox-admin"),
            ("client_secret", SECRET),
            ("scope", ALL_SCOPES),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(response.headers()["cache-control"], "no-store");
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_token_response(status, &body, ALL_SCOPES, 86_400);
    assert_eq!(body["scope"], ALL_SCOPES, "granted scopes in the spec's order");
    let token = body["access_token"].as_str().unwrap();
    let page = data(&server, token, "{ paginatedUsers(first: 1) { count } }", json!({})).await;
    assert_eq!(page["paginatedUsers"]["count"], 50);
}

#[tokio::test]
async fn reader_token_response_has_the_spec_fields() {
    let server = sandbox(50).await;
    let (status, body) = token_response(&server, "sandbox-reader", SECRET, READER_SCOPES).await;
    assert_token_response(status, &body, READER_SCOPES, 86_400);
    let token = body["access_token"].as_str().unwrap();
    let page = data(&server, token, "{ paginatedGroups(first: 1) { count } }", json!({})).await;
    assert_eq!(page["paginatedGroups"]["count"], 5);
}

#[tokio::test]
async fn the_granted_scope_is_the_requested_subset() {
    let server = sandbox(50).await;
    for (client, scope) in [
        ("sandbox-admin", "groups.read users.read"),
        ("sandbox-admin", "extra_categories.write"),
        ("sandbox-reader", "events.read"),
        ("sandbox-reader", "trainings.read  users.read"),
    ] {
        let (status, body) = token_response(&server, client, SECRET, scope).await;
        assert_token_response(status, &body, scope, 86_400);
    }
    // The token carries exactly those scopes: one it was not given is refused.
    let token = token(&server, "groups.read users.read").await;
    data(&server, &token, "{ paginatedGroups(first: 1) { count } paginatedUsers(first: 1) { count } }", json!({}))
        .await;
    let (status, _) = post(&server, &token, "{ paginatedTrainings(first: 1) { count } }", json!({})).await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn a_wrong_secret_or_client_is_invalid_client() {
    let server = sandbox(50).await;
    for (client, secret) in [
        ("sandbox-admin", "wrong-secret"),
        ("sandbox-reader", "wrong-secret"),
        ("sandbox-admin", ""),
        ("sandbox-admin", "sandbox-secre"),
        ("nobody", SECRET),
    ] {
        let (status, body) = token_response(&server, client, secret, "users.read").await;
        assert_eq!(status, 401, "{client}/{secret}: {body}");
        assert_eq!(body["error"], "invalid_client", "{body}");
        assert!(body.get("access_token").is_none(), "{body}");
    }
}

#[tokio::test]
async fn an_unknown_scope_is_invalid_scope() {
    let server = sandbox(50).await;
    for (client, scope, named) in [
        ("sandbox-admin", "users.read users.admin", "users.admin"),
        ("sandbox-admin", "admin", "admin"),
        ("sandbox-reader", "Users.Read", "Users.Read"),
    ] {
        let (status, body) = token_response(&server, client, SECRET, scope).await;
        assert_eq!(status, 400, "{scope}: {body}");
        assert_eq!(body["error"], "invalid_scope", "{body}");
        assert!(body["error_description"].as_str().unwrap().contains(&format!("'{named}'")), "{body}");
    }
    let (status, body) = token_response(&server, "sandbox-admin", SECRET, "").await;
    assert_eq!((status, &body["error"]), (400, &json!("invalid_scope")), "{body}");
}

#[tokio::test]
async fn the_reader_may_not_request_write_scopes() {
    let server = sandbox(50).await;
    for scope in ["users.write", "trainings.write", "groups.write", "events.write", "extra_categories.write"] {
        let (status, body) = token_response(&server, "sandbox-reader", SECRET, &format!("users.read {scope}")).await;
        assert_eq!(status, 400, "{scope}: {body}");
        assert_eq!(body["error"], "invalid_scope", "{body}");
        let description = body["error_description"].as_str().unwrap();
        assert!(description.contains(scope) && description.contains("sandbox-reader"), "{body}");
        // The admin may.
        let (status, body) = token_response(&server, "sandbox-admin", SECRET, scope).await;
        assert_token_response(status, &body, scope, 86_400);
    }
}

#[tokio::test]
async fn other_grant_types_are_unsupported() {
    let server = sandbox(50).await;
    for grant_type in ["password", "authorization_code", "refresh_token", "Client_Credentials", ""] {
        let (status, body) = token_form(
            &server,
            &[
                ("grant_type", grant_type),
                ("client_id", "sandbox-admin"),
                ("client_secret", SECRET),
                ("scope", "users.read"),
            ],
        )
        .await;
        assert_eq!(status, 400, "{grant_type}: {body}");
        assert_eq!(body["error"], "unsupported_grant_type", "{body}");
    }
}

#[tokio::test]
async fn a_json_token_request_is_invalid_request() {
    let server = sandbox(50).await;
    let response = http()
        .post(format!("{}/oauth/token/", server.base_url()))
        .json(&json!({
            "grant_type": "client_credentials",
            "client_id": "sandbox-admin",
            "client_secret": SECRET,
            "scope": "users.read",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request", "{body}");
    assert!(body["error_description"].as_str().unwrap().contains("x-www-form-urlencoded"), "{body}");
}

// --- Token lifetime and 401 -----------------------------------------------------------------

#[tokio::test]
async fn a_token_expires_after_its_ttl_and_a_new_one_works() {
    let server = sandbox_with(Config { users: 20, token_ttl: Duration::from_secs(2), ..Config::default() }).await;
    let (status, body) = token_response(&server, "sandbox-admin", SECRET, "users.read").await;
    assert_token_response(status, &body, "users.read", 2);
    let old = body["access_token"].as_str().unwrap().to_owned();
    let query = "{ paginatedUsers(first: 1) { count } }";
    let (status, body) = post(&server, &old, query, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["count"], 20);

    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let (status, body) = post(&server, &old, query, json!({})).await;
    assert_eq!(status, 401, "{body}");
    let message = only_message(&body);
    assert!(message.contains("invalid or expired") && message.contains("/oauth/token/"), "{message}");

    let fresh = token(&server, "users.read").await;
    assert_ne!(fresh, old);
    let (status, body) = post(&server, &fresh, query, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["count"], 20);
}

#[tokio::test]
async fn a_garbage_or_missing_token_is_401() {
    let server = sandbox(20).await;
    let query = "{ paginatedUsers(first: 1) { count } }";
    let good = token(&server, "users.read").await;
    let cases: Vec<(Option<String>, &str)> = vec![
        (None, "No access token"),
        (Some("Bearer garbage".to_owned()), "invalid or expired"),
        (Some(format!("Bearer {good}x")), "invalid or expired"),
        (Some(format!("Basic {good}")), "Bearer <token>"),
        (Some(good.clone()), "Bearer <token>"),
    ];
    for (authorization, needle) in cases {
        let (status, body) = post_with_authorization(&server, authorization.as_deref(), query).await;
        assert_eq!(status, 401, "{authorization:?}: {body}");
        assert!(only_message(&body).contains(needle), "{authorization:?}: {body}");
    }
    // The same request with the good token passes, so the 401s were the token's doing.
    let (status, body) = post_with_authorization(&server, Some(&format!("Bearer {good}")), query).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["paginatedUsers"]["count"], 20);
}

// --- Scopes: 403 at the root, null and an error inside ----------------------------------------

/// One operation for each of the nine scopes, with a check that it ran.
const SCOPED_OPERATIONS: [(&str, &str); 9] = [
    ("users.read", r#"{ user(ref: "u00001") { ref name } }"#),
    (
        "users.write",
        r#"mutation { createUser(input: { ref: "scope-user", name: "Scope User", email: "scope.user@example.org" }) { ref } }"#,
    ),
    ("trainings.read", "{ paginatedTrainings(first: 1) { count } }"),
    (
        "trainings.write",
        r#"mutation { createTraining(input: { ref: "scope-training", title: "Scope", kind: COURSE }) { ref } }"#,
    ),
    ("groups.read", "{ paginatedGroups(first: 1) { count } }"),
    ("groups.write", r#"mutation { createGroup(input: { ref: "scope-group", name: "Scope Group" }) { ref } }"#),
    ("events.read", "{ paginatedOffers(first: 1) { count } }"),
    (
        "events.write",
        r#"mutation { createOffer(input: { ref: "scope-offer", moduleGroupRef: "mg001", title: "Scope", startsAt: "2026-03-02T09:00:00Z", endsAt: "2026-03-02T17:00:00Z", capacity: 10 }) { ref } }"#,
    ),
    (
        "extra_categories.write",
        r#"mutation { createExtraCategory(input: { ref: "scope-category", name: "Scope" }) { ref } }"#,
    ),
];

/// Whether the write of a scope's operation is in the data.
fn written(server: &RunningServer, scope: &str) -> bool {
    let db = server.data().read();
    match scope {
        "users.write" => db.users.get("scope-user").is_some(),
        "trainings.write" => db.trainings.get("scope-training").is_some(),
        "groups.write" => db.groups.get("scope-group").is_some(),
        "events.write" => db.offers.get("scope-offer").is_some(),
        "extra_categories.write" => db.extra_categories.get("scope-category").is_some(),
        _ => false,
    }
}

#[tokio::test]
async fn each_scope_is_required_by_its_operations_with_403_naming_it() {
    let server = sandbox(100).await;
    for (scope, operation) in SCOPED_OPERATIONS {
        let other = if scope == "users.read" { "groups.read" } else { "users.read" };
        let without = token(&server, other).await;
        let (status, body) = post(&server, &without, operation, json!({})).await;
        assert_eq!(status, 403, "{scope}: {body}");
        assert_eq!(
            body,
            json!({ "data": null, "errors": [{ "message": format!("Insufficient scope: this operation requires '{scope}'") }] }),
            "{scope}"
        );
        assert!(!written(&server, scope), "{scope}: the refused operation ran anyway");

        // With the scope (and only it) the same operation runs.
        let with = token(&server, scope).await;
        let (status, body) = post(&server, &with, operation, json!({})).await;
        assert_eq!(status, 200, "{scope}: {body}");
        assert!(body.get("errors").is_none(), "{scope}: {body}");
        if scope.ends_with(".write") {
            assert!(written(&server, scope), "{scope}: the operation did not run");
        }
    }
}

#[tokio::test]
async fn a_403_names_every_missing_scope() {
    let server = sandbox(50).await;
    let token = token(&server, "events.read").await;
    let query = r#"query Q { ...Reads } fragment Reads on Query { user(ref: "u00001") { id } paginatedGroups { count } paginatedOffers { count } }"#;
    let (status, body) = post(&server, &token, query, json!({})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(only_message(&body), "Insufficient scope: this operation requires 'users.read' and 'groups.read'");
    // An alias does not hide a root field.
    let (status, body) =
        post(&server, &token, "{ offers: paginatedOffers { count } people: paginatedUsers { count } }", json!({}))
            .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(only_message(&body), "Insufficient scope: this operation requires 'users.read'");
}

#[tokio::test]
async fn a_nested_field_needing_a_missing_scope_is_null_with_an_error() {
    let server = sandbox(100).await;
    let query = r#"{ group(ref: "g0001") { ref name members(first: 2) { count } } }"#;
    let groups_only = token(&server, "groups.read").await;
    let (status, body) = post(&server, &groups_only, query, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let group = body["data"]["group"].as_object().unwrap_or_else(|| panic!("group is not an object: {body}"));
    assert_eq!(group["ref"], "g0001");
    assert!(group.contains_key("members"), "members must be present as null: {body}");
    assert!(group["members"].is_null(), "{body}");
    let errors = body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["path"], json!(["group", "members"]));
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("'users.read'") && message.contains("members"), "{message}");
    assert!(errors[0]["locations"][0]["line"].as_i64().is_some(), "{body}");

    // Inside a list: each node's field is null with its own indexed path.
    let events_only = token(&server, "events.read").await;
    let (status, body) = post(
        &server,
        &events_only,
        "{ paginatedEnrollments(first: 2) { edges { node { ref user { ref } } } } }",
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let edges = body["data"]["paginatedEnrollments"]["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 2, "{body}");
    let paths: Vec<&Value> = body["errors"].as_array().unwrap().iter().map(|e| &e["path"]).collect();
    for (i, edge) in edges.iter().enumerate() {
        assert!(edge["node"]["ref"].is_string(), "{body}");
        assert!(edge["node"].as_object().unwrap().get("user").is_some_and(Value::is_null), "{body}");
        assert!(paths.contains(&&json!(["paginatedEnrollments", "edges", i, "node", "user"])), "{body}");
    }
    assert!(messages(&body).iter().all(|m| m.contains("'users.read'")), "{body}");

    // With users.read as well, the field resolves.
    let both = token(&server, "groups.read users.read").await;
    let page = data(&server, &both, query, json!({})).await;
    let members = server.data().read().groups.get("g0001").unwrap().members.len();
    assert_eq!(page["group"]["members"]["count"], members);
}

// --- Paths ------------------------------------------------------------------------------------

#[tokio::test]
async fn paths_without_the_trailing_slash_redirect_with_301() {
    let server = sandbox(20).await;
    for path in ["/graphql", "/oauth/token"] {
        let response = http().post(format!("{}{path}", server.base_url())).body("x").send().await.unwrap();
        assert_eq!(response.status().as_u16(), 301, "{path}");
        let location = response.headers()["location"].to_str().unwrap();
        assert!(location.ends_with(&format!("{path}/")), "{path} -> {location}");
    }
    // The query string is kept.
    let response = http().post(format!("{}/graphql?x=1", server.base_url())).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 301);
    assert!(response.headers()["location"].to_str().unwrap().ends_with("/graphql/?x=1"));
}

// --- Not found and empty results --------------------------------------------------------------

#[tokio::test]
async fn an_unknown_user_is_null_with_an_error_at_its_path() {
    let server = sandbox(20).await;
    let token = token(&server, "users.read").await;
    let (status, body) = post(&server, &token, "{\n  user(ref: \"no-such-user\") { id name }\n}", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["data"].as_object().unwrap().get("user").is_some_and(Value::is_null), "{body}");
    let errors = body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["path"], json!(["user"]));
    assert_eq!(errors[0]["locations"], json!([{ "line": 2, "column": 3 }]));
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("no-such-user"), "{message}");
    // A known ref is found, without errors.
    let found = data(&server, &token, r#"{ user(ref: "u00001") { ref } }"#, json!({})).await;
    assert_eq!(found["user"]["ref"], "u00001");
}

#[tokio::test]
async fn filters_without_a_match_give_an_empty_connection_and_no_error() {
    let server = sandbox(100).await;
    let token = token(&server, "users.read").await;
    let (active_ref, email) = {
        let db = server.data().read();
        let user = db.users.iter().find(|u| u.is_active).unwrap();
        (user.ref_.clone(), user.email.clone())
    };
    let query =
        "query($filter: String!) { paginatedUsers(FILTER) { count edges { node { ref } } pageInfo { hasNextPage } } }";
    let empty = json!({ "count": 0, "edges": [], "pageInfo": { "hasNextPage": false } });
    for (filter, value) in [
        ("email: $filter", "nobody@example.invalid".to_owned()),
        ("ref: $filter", "no-such-user".to_owned()),
        ("groupRef: $filter", "no-such-group".to_owned()),
        ("id: $filter", "VXNlcjo5OTk5OTk=".to_owned()),
        ("ref: $filter, isActive: false", active_ref.clone()),
    ] {
        let (status, body) = post(&server, &token, &query.replace("FILTER", filter), json!({ "filter": value })).await;
        assert_eq!(status, 200, "{filter}: {body}");
        assert!(body.get("errors").is_none(), "{filter}: {body}");
        assert_eq!(body["data"]["paginatedUsers"], empty, "{filter}");
    }
    // The same filters with a matching value find the user.
    for (filter, value) in [
        ("email: $filter", email.to_uppercase()),
        ("ref: $filter", active_ref.clone()),
        ("ref: $filter, isActive: true", active_ref.clone()),
    ] {
        let page = data(&server, &token, &query.replace("FILTER", filter), json!({ "filter": value })).await;
        assert_eq!(page["paginatedUsers"]["count"], 1, "{filter}");
        assert_eq!(page["paginatedUsers"]["edges"][0]["node"]["ref"], active_ref.as_str(), "{filter}");
    }
}

// --- Pagination -------------------------------------------------------------------------------

/// Walks a connection page by page. `query` takes `$first: Int!` and `$after: String` and
/// selects the connection at `path` with `CONNECTION` standing for its selection; `key` names a
/// node. Checks every page on the way; returns the keys and the `count`.
async fn walk_pages(
    server: &RunningServer,
    token: &str,
    query: &str,
    path: &[&str],
    first: usize,
    node: &str,
    key: impl Fn(&Value) -> String,
) -> (Vec<String>, usize) {
    let selection =
        format!("count pageInfo {{ hasNextPage hasPreviousPage endCursor }} edges {{ cursor node {{ {node} }} }}");
    let query = query.replace("CONNECTION", &selection);
    let mut keys = Vec::new();
    let mut cursors = HashSet::new();
    let mut after = Value::Null;
    let mut count = None;
    for _ in 0..1_000 {
        let page = data(server, token, &query, json!({ "first": first, "after": after })).await;
        let connection = path.iter().fold(&page, |value, field| &value[*field]);
        let page_count = connection["count"].as_u64().unwrap() as usize;
        assert_eq!(*count.get_or_insert(page_count), page_count, "count changed between pages");
        let edges = connection["edges"].as_array().unwrap();
        let info = &connection["pageInfo"];
        assert!(edges.len() <= first, "{connection}");
        assert_eq!(info["hasPreviousPage"], !after.is_null(), "{connection}");
        for edge in edges {
            assert!(cursors.insert(edge["cursor"].as_str().unwrap().to_owned()), "cursor seen twice: {edge}");
            keys.push(key(&edge["node"]));
        }
        if !info["hasNextPage"].as_bool().unwrap() {
            return (keys, page_count);
        }
        assert_eq!(edges.len(), first, "a page before the last is full");
        assert_eq!(info["endCursor"], edges.last().unwrap()["cursor"]);
        after = info["endCursor"].clone();
    }
    panic!("{path:?} did not end after 1,000 pages");
}

fn id_of(node: &Value) -> String {
    node["id"].as_str().unwrap().to_owned()
}

/// Walks a root connection and compares it with the server's own table.
async fn assert_walks_everything(
    field: &str,
    first: usize,
    node: &str,
    key: fn(&Value) -> String,
    expected: fn(&orgql::sandbox::data::Db) -> Vec<String>,
) {
    let server = sandbox(500).await;
    let token = token(&server, ALL_SCOPES).await;
    let query =
        format!("query($first: Int!, $after: String) {{ {field}(first: $first, after: $after) {{ CONNECTION }} }}");
    let (keys, count) = walk_pages(&server, &token, &query, &[field], first, node, key).await;
    let expected: BTreeSet<String> = expected(&server.data().read()).into_iter().collect();
    let unique: BTreeSet<String> = keys.iter().cloned().collect();
    assert_eq!(unique.len(), keys.len(), "{field}: an object came twice");
    assert_eq!(count, keys.len(), "{field}: count is not the number walked");
    assert!(keys.len() > first, "{field}: only one page ({} objects); the walk proves little", keys.len());
    assert_eq!(unique, expected, "{field}: not the server's data");
}

#[tokio::test]
async fn walking_paginated_users_returns_every_user_once() {
    assert_walks_everything("paginatedUsers", 50, "id ref", id_of, |db| {
        db.users.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_trainings_returns_every_training_once() {
    assert_walks_everything("paginatedTrainings", 7, "id", id_of, |db| {
        db.trainings.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_progress_returns_every_progress_once() {
    fn key(node: &Value) -> String {
        format!("{}/{}", node["user"]["ref"].as_str().unwrap(), node["training"]["ref"].as_str().unwrap())
    }
    assert_walks_everything("paginatedProgress", 50, "percent user { ref } training { ref }", key, |db| {
        db.progress.iter().map(|r| r.key.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_certificates_returns_every_certificate_once() {
    assert_walks_everything("paginatedCertificates", 25, "id", id_of, |db| {
        db.certificates.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_groups_returns_every_group_once() {
    assert_walks_everything("paginatedGroups", 10, "id", id_of, |db| db.groups.iter().map(|r| r.id.clone()).collect())
        .await;
}

#[tokio::test]
async fn walking_paginated_module_groups_returns_every_module_group_once() {
    assert_walks_everything("paginatedModuleGroups", 5, "id", id_of, |db| {
        db.module_groups.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_offers_returns_every_offer_once() {
    assert_walks_everything("paginatedOffers", 10, "id", id_of, |db| db.offers.iter().map(|r| r.id.clone()).collect())
        .await;
}

#[tokio::test]
async fn walking_paginated_enrollments_returns_every_enrollment_once() {
    assert_walks_everything("paginatedEnrollments", 50, "id", id_of, |db| {
        db.enrollments.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_paginated_extra_categories_returns_every_category_once() {
    assert_walks_everything("paginatedExtraCategories", 2, "id", id_of, |db| {
        db.extra_categories.iter().map(|r| r.id.clone()).collect()
    })
    .await;
}

#[tokio::test]
async fn walking_group_members_returns_every_member_once() {
    let server = sandbox(500).await;
    let token = token(&server, "groups.read users.read").await;
    let (group, expected) = {
        let db = server.data().read();
        let group = db.groups.iter().max_by_key(|g| g.members.len()).unwrap();
        let ids: BTreeSet<String> = group.members.iter().map(|m| db.users.by_seq(*m).unwrap().id.clone()).collect();
        (group.ref_.clone(), ids)
    };
    let query = format!(
        "query($first: Int!, $after: String) {{ group(ref: \"{group}\") {{ members(first: $first, after: $after) {{ CONNECTION }} }} }}"
    );
    let (keys, count) = walk_pages(&server, &token, &query, &["group", "members"], 7, "id", id_of).await;
    let unique: BTreeSet<String> = keys.iter().cloned().collect();
    assert_eq!(unique.len(), keys.len(), "a member came twice");
    assert_eq!(count, keys.len());
    assert!(keys.len() > 7, "{group} has {} members", keys.len());
    assert_eq!(unique, expected);
}

#[tokio::test]
async fn first_above_50_is_an_error_naming_first() {
    let server = sandbox(100).await;
    let token = token(&server, "users.read groups.read").await;
    for query in ["{ paginatedUsers(first: 51) { count } }", "{ paginatedUsers(first: 1000) { count } }"] {
        let (status, body) = post(&server, &token, query, json!({})).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"]["paginatedUsers"].is_null(), "{body}");
        let errors = body["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{body}");
        let message = errors[0]["message"].as_str().unwrap();
        assert!(message.starts_with("first:") && message.contains("at most 50"), "{message}");
        assert_eq!(errors[0]["path"], json!(["paginatedUsers"]));
    }
    // Nested connections too.
    let (_, body) =
        post(&server, &token, r#"{ group(ref: "g0001") { ref members(first: 51) { count } } }"#, json!({})).await;
    assert!(messages(&body).iter().any(|m| m.starts_with("first:")), "{body}");
    assert_eq!(body["errors"][0]["path"], json!(["group", "members"]));
    // 50 is allowed.
    let page = data(&server, &token, "{ paginatedUsers(first: 50) { edges { cursor } } }", json!({})).await;
    assert_eq!(page["paginatedUsers"]["edges"].as_array().unwrap().len(), 50);
}

#[tokio::test]
async fn a_negative_first_is_an_error() {
    let server = sandbox(100).await;
    let token = token(&server, "users.read").await;
    for first in [-1, -50] {
        let (status, body) =
            post(&server, &token, "query($n: Int) { paginatedUsers(first: $n) { count } }", json!({ "n": first }))
                .await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"]["paginatedUsers"].is_null(), "{body}");
        let message = only_message(&body);
        assert!(message.starts_with("first:") && message.contains("negative"), "{message}");
    }
}

#[tokio::test]
async fn first_zero_gives_no_edges_but_the_count() {
    let server = sandbox(100).await;
    let token = token(&server, "users.read").await;
    let page = data(
        &server,
        &token,
        "{ paginatedUsers(first: 0) { count edges { cursor } pageInfo { hasNextPage } } }",
        json!({}),
    )
    .await;
    assert_eq!(page["paginatedUsers"], json!({ "count": 100, "edges": [], "pageInfo": { "hasNextPage": true } }));
}

#[tokio::test]
async fn filters_combine_with_and_and_agree_with_the_data() {
    let server = sandbox(500).await;
    let token = token(&server, "users.read").await;
    // The group with most members that has both active and inactive ones.
    let (group, active, inactive) = {
        let db = server.data().read();
        let mut best: Option<(String, BTreeSet<String>, BTreeSet<String>)> = None;
        for g in db.groups.iter() {
            let members: Vec<_> = g.members.iter().map(|m| db.users.by_seq(*m).unwrap()).collect();
            let active: BTreeSet<String> = members.iter().filter(|u| u.is_active).map(|u| u.ref_.clone()).collect();
            let inactive: BTreeSet<String> = members.iter().filter(|u| !u.is_active).map(|u| u.ref_.clone()).collect();
            if !inactive.is_empty() && best.as_ref().is_none_or(|b| b.1.len() < active.len()) {
                best = Some((g.ref_.clone(), active, inactive));
            }
        }
        best.expect("a group with an inactive member")
    };
    for (is_active, expected) in [(true, &active), (false, &inactive)] {
        let args = format!(", isActive: {is_active}, groupRef: \"{group}\"");
        let (nodes, count) = walk(&server, &token, "paginatedUsers", &args, "ref isActive groups { ref }").await;
        assert_eq!(count, expected.len() as i64);
        let refs: BTreeSet<String> = nodes.iter().map(|n| n["ref"].as_str().unwrap().to_owned()).collect();
        assert_eq!(&refs, expected, "isActive: {is_active}, groupRef: {group}");
        for node in &nodes {
            assert_eq!(node["isActive"], is_active, "{node}");
            assert!(node["groups"].as_array().unwrap().iter().any(|g| g["ref"] == group.as_str()), "{node}");
        }
    }
}

// --- Schema -----------------------------------------------------------------------------------

#[tokio::test]
async fn full_name_is_deprecated_in_favour_of_name() {
    let server = sandbox(20).await;
    let token = token(&server, "users.read").await;
    let query = r#"{
        all: __type(name: "User") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
        current: __type(name: "User") { fields { name } }
    }"#;
    let schema = data(&server, &token, query, json!({})).await;
    let fields = schema["all"]["fields"].as_array().unwrap();
    let full_name = fields.iter().find(|f| f["name"] == "fullName").expect("User.fullName in introspection");
    assert_eq!(full_name["isDeprecated"], true);
    let reason = full_name["deprecationReason"].as_str().unwrap();
    assert!(reason.contains("name"), "{reason}");
    let name = fields.iter().find(|f| f["name"] == "name").unwrap();
    assert_eq!(name["isDeprecated"], false);
    // Hidden unless deprecated fields are asked for, and still served.
    assert!(!schema["current"]["fields"].as_array().unwrap().iter().any(|f| f["name"] == "fullName"));
    let user = data(&server, &token, r#"{ user(ref: "u00003") { name fullName } }"#, json!({})).await;
    assert_eq!(user["user"]["fullName"], user["user"]["name"]);
}

/// The introspection query GraphiQL sends (graphql-js `getIntrospectionQuery`).
const INTROSPECTION_QUERY: &str = r#"
query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives {
      name
      description
      isRepeatable
      locations
      args { ...InputValue }
    }
  }
}

fragment FullType on __Type {
  kind
  name
  description
  specifiedByURL
  fields(includeDeprecated: true) {
    name
    description
    args { ...InputValue }
    type { ...TypeRef }
    isDeprecated
    deprecationReason
  }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) {
    name
    description
    isDeprecated
    deprecationReason
  }
  possibleTypes { ...TypeRef }
}

fragment InputValue on __InputValue {
  name
  description
  type { ...TypeRef }
  defaultValue
}

fragment TypeRef on __Type {
  kind
  name
  ofType {
    kind
    name
    ofType {
      kind
      name
      ofType {
        kind
        name
        ofType {
          kind
          name
          ofType {
            kind
            name
            ofType {
              kind
              name
              ofType {
                kind
                name
              }
            }
          }
        }
      }
    }
  }
}
"#;

#[tokio::test]
async fn the_standard_introspection_query_works_with_a_token_of_any_scope() {
    let server = sandbox(20).await;
    for scope in ALL_SCOPES.split(' ') {
        let token = token(&server, scope).await;
        let (status, body) = post(&server, &token, INTROSPECTION_QUERY, json!({})).await;
        assert_eq!(status, 200, "{scope}: {body}");
        assert!(body.get("errors").is_none(), "{scope}: {}", body["errors"]);
        let schema = &body["data"]["__schema"];
        assert_eq!(schema["queryType"]["name"], "Query", "{scope}");
        assert_eq!(schema["mutationType"]["name"], "Mutation", "{scope}");
        let types: BTreeSet<&str> =
            schema["types"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        for name in ["User", "UserConnection", "PageInfo", "Group", "Training", "Offer", "Enrollment", "DateTime"] {
            assert!(types.contains(name), "{scope}: no type {name}");
        }
    }
}

#[tokio::test]
async fn the_root_types_are_named_as_in_the_contract() {
    let server = sandbox(20).await;
    let token = token(&server, "users.read").await;
    let page = data(&server, &token, r#"{ ... on Query { user(ref: "u00001") { ref } } __typename }"#, json!({})).await;
    assert_eq!(page, json!({ "user": { "ref": "u00001" }, "__typename": "Query" }));
}

/// The root fields of `shared/contract/sandbox.graphql`, with the scope each one needs.
const CONTRACT_QUERY_FIELDS: &[(&str, &str)] = &[
    ("user", "users.read"),
    ("paginatedUsers", "users.read"),
    ("training", "trainings.read"),
    ("paginatedTrainings", "trainings.read"),
    ("paginatedProgress", "trainings.read"),
    ("paginatedCertificates", "trainings.read"),
    ("group", "groups.read"),
    ("paginatedGroups", "groups.read"),
    ("moduleGroup", "events.read"),
    ("paginatedModuleGroups", "events.read"),
    ("paginatedOffers", "events.read"),
    ("paginatedEnrollments", "events.read"),
    ("paginatedExtraCategories", "users.read"),
];

const CONTRACT_MUTATION_FIELDS: &[(&str, &str)] = &[
    ("createUser", "users.write"),
    ("updateUser", "users.write"),
    ("archiveUser", "users.write"),
    ("deleteUser", "users.write"),
    ("createTraining", "trainings.write"),
    ("updateTraining", "trainings.write"),
    ("archiveTraining", "trainings.write"),
    ("recordProgress", "trainings.write"),
    ("createGroup", "groups.write"),
    ("updateGroup", "groups.write"),
    ("deleteGroup", "groups.write"),
    ("addGroupMembers", "groups.write"),
    ("removeGroupMembers", "groups.write"),
    ("createOffer", "events.write"),
    ("updateOffer", "events.write"),
    ("enrollUser", "events.write"),
    ("updateEnrollmentStatus", "events.write"),
    ("createExtraCategory", "extra_categories.write"),
    ("updateExtraCategory", "extra_categories.write"),
];

#[test]
fn every_root_field_has_the_contract_scope() {
    let doc = parse_schema(orgql::sandbox::schema::sdl()).expect("the SDL parses");
    let mut roots =
        BTreeMap::from([("Query".to_owned(), OperationType::Query), ("Mutation".to_owned(), OperationType::Mutation)]);
    for definition in &doc.definitions {
        if let TypeSystemDefinition::Schema(schema) = definition {
            roots.clear();
            if let Some(query) = &schema.node.query {
                roots.insert(query.node.to_string(), OperationType::Query);
            }
            if let Some(mutation) = &schema.node.mutation {
                roots.insert(mutation.node.to_string(), OperationType::Mutation);
            }
        }
    }
    assert_eq!(roots.keys().collect::<Vec<_>>(), ["Mutation", "Query"], "root type names of the contract");
    let mut found: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for definition in &doc.definitions {
        let TypeSystemDefinition::Type(ty) = definition else { continue };
        let Some(&operation) = roots.get(ty.node.name.node.as_str()) else { continue };
        let TypeKind::Object(object) = &ty.node.kind else { panic!("{} is not an object type", ty.node.name.node) };
        for field in &object.fields {
            let name = field.node.name.node.to_string();
            let scope =
                root_field_scope(operation, &name).unwrap_or_else(|| panic!("{operation:?}.{name} has no scope"));
            found.entry(ty.node.name.node.to_string()).or_default().insert(name, scope.to_string());
        }
    }
    let contract = |fields: &[(&str, &str)]| -> BTreeMap<String, String> {
        fields.iter().map(|(f, s)| ((*f).to_owned(), (*s).to_owned())).collect()
    };
    assert_eq!(found["Query"], contract(CONTRACT_QUERY_FIELDS));
    assert_eq!(found["Mutation"], contract(CONTRACT_MUTATION_FIELDS));
    // Introspection and unknown fields need none (the validator answers those).
    assert_eq!(root_field_scope(OperationType::Query, "__schema"), None);
    assert_eq!(root_field_scope(OperationType::Mutation, "user"), None);
}

// --- Data -------------------------------------------------------------------------------------

#[tokio::test]
async fn every_page_of_50_users_holds_the_tricky_names() {
    let server = sandbox(100).await;
    let token = token(&server, "users.read").await;
    let query = "query($after: String) { paginatedUsers(first: 50, after: $after) { edges { node { ref name } } pageInfo { endCursor } } }";
    let mut after = Value::Null;
    for page_number in 0..2 {
        let page = data(&server, &token, query, json!({ "after": after })).await;
        let connection = &page["paginatedUsers"];
        let nodes: Vec<&Value> = connection["edges"].as_array().unwrap().iter().map(|e| &e["node"]).collect();
        assert_eq!(nodes.len(), 50);
        let names: Vec<&str> = nodes.iter().map(|n| n["name"].as_str().unwrap()).collect();
        let has = |what: &str, test: &dyn Fn(&str) -> bool| {
            assert!(names.iter().any(|n| test(n)), "page {page_number}: no name with {what}: {names:?}");
        };
        has("a comma", &|n| n.contains(','));
        has("a double quote", &|n| n.contains('"'));
        has("a newline", &|n| n.contains('\n'));
        has("an emoji", &|n| n.chars().any(|c| ('\u{1F300}'..='\u{1FAFF}').contains(&c)));
        has("CJK script", &|n| n.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c)));
        has("Cyrillic script", &|n| n.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c)));
        has("Arabic script", &|n| n.chars().any(|c| ('\u{0600}'..='\u{06FF}').contains(&c)));
        for lead in ['=', '+', '-', '@'] {
            has(&format!("a leading {lead}"), &|n| n.starts_with(lead));
        }
        // Byte for byte the server's own names.
        {
            let db = server.data().read();
            for node in &nodes {
                assert_eq!(node["name"], db.users.get(node["ref"].as_str().unwrap()).unwrap().name.as_str());
            }
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
}
