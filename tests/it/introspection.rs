//! Introspection results produced by real server libraries (tests/fixtures/introspection, made
//! by its generate.sh): each builds the explorer's model, the editor checks and completes
//! against it, and its SDL survives the local cache. Then a stub server on 127.0.0.1 that
//! answers like a graphql-core service, and one that refuses introspection.

use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use chrono::Utc;
use orgql::api::{
    ApiError, BaseUrl, CAPABILITIES_QUERY, Capabilities, Client, ClientOptions, Credentials, GraphQlRequest,
    read_introspection_json,
};
use orgql::explorer::SchemaModel;
use orgql::query::lang::{Severity, complete, validate};
use orgql::secret::Secret;
use orgql::store::Store;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::harness::{SECRET, sandbox};

/// Long enough for a debug build on a busy machine, short enough to fail rather than hang.
const LIMIT: Duration = Duration::from_secs(30);

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/introspection")
}

/// Every committed fixture, by file name, with its text.
fn fixtures() -> Vec<(String, String)> {
    let mut found: Vec<_> = std::fs::read_dir(fixture_dir())
        .expect("the fixture folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).expect("a readable fixture"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_fixtures_of_every_library_are_there() {
    let names: Vec<String> = fixtures().into_iter().map(|(name, _)| name).collect();
    for library in
        ["graphql-js-16.", "graphql-js-17.", "graphql-core-3.2.", "graphene-", "strawberry-graphql-", "async-graphql-7"]
    {
        assert!(names.iter().any(|name| name.starts_with(library)), "no fixture of {library} in {names:?}");
    }
}

#[test]
fn every_fixture_builds_the_explorer_tree_whole() {
    for (name, json) in fixtures() {
        let model = SchemaModel::from_introspection_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(model.skipped().is_empty(), "{name}: {:?}", model.skipped());
        let roots: Vec<_> = model.query_fields().iter().map(|field| field.name).collect();
        assert!(roots.contains(&"user") && roots.contains(&"paginatedUsers"), "{name}: {roots:?}");
        let user = model.query_fields().into_iter().find(|f| f.name == "user").unwrap();
        let fields: Vec<_> = model.fields(user.named_type).iter().map(|f| f.name).collect();
        for field in ["id", "ref", "name", "email", "isActive"] {
            assert!(fields.contains(&field), "{name}: User has no {field}: {fields:?}");
        }
        assert!(model.root_path(user.named_type).is_some(), "{name}");
    }
}

#[test]
fn the_shared_schema_keeps_its_stress_parts_in_every_library_that_has_them() {
    // The sandbox's and the Strawberry-Django test service's own schemas are not the shared one.
    let shared = |name: &str| !name.starts_with("async-graphql") && !name.starts_with("strawberry-django");
    for (name, json) in fixtures().into_iter().filter(|(name, _)| shared(name)) {
        let read = read_introspection_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let sdl = &read.sdl;
        assert_eq!(read.schema.schema_definition.query.as_ref().map(|n| n.as_str()), Some("QueryRoot"), "{name}");
        assert!(read.schema.schema_definition.subscription.is_none(), "{name}");
        assert!(sdl.contains("@deprecated(reason: \"Use `name`.\")"), "{name}: deprecated field\n{sdl}");
        assert!(sdl.contains("ADMIN @deprecated(reason: \"Use \\\"MANAGER\\\".\")"), "{name}: deprecated value\n{sdl}");
        assert!(sdl.contains("directive @scope("), "{name}: custom directive\n{sdl}");
        assert!(sdl.contains("repeatable on FIELD_DEFINITION | OBJECT"), "{name}: repeatable\n{sdl}");
        assert!(sdl.contains("Zoë") || name.starts_with("graphene") || name.starts_with("strawberry"), "{name}");
        // graphene has neither @oneOf nor @specifiedBy (see the fixtures' README).
        if !name.starts_with("graphene") {
            assert!(sdl.contains("input UserLookup @oneOf {"), "{name}: oneOf\n{sdl}");
            assert!(
                sdl.contains("scalar DateTime @specifiedBy(url: \"https://scalars.graphql.org/andimarek/date-time\")"),
                "{name}"
            );
        }
        // Deprecated arguments and input fields need a server that reports them.
        // (Strawberry gives them a `= null` default.)
        let line = |start: &str| sdl.lines().find(|line| line.trim_start().starts_with(start)).unwrap_or_default();
        assert!(line("legacyOrder: Order").ends_with("@deprecated(reason: \"Use `filter`.\")"), "{name}\n{sdl}");
        assert!(line("legacyName: String").ends_with("@deprecated(reason: \"Filter by `email`.\")"), "{name}\n{sdl}");
    }
}

const VALID: &str = "query Users {
  user(ref: \"x\") { id ref name email isActive }
  paginatedUsers(first: 2) { count edges { cursor node { id email } } pageInfo { hasNextPage endCursor } }
}";

#[test]
fn the_editor_checks_and_completes_against_every_fixture() {
    for (name, json) in fixtures() {
        let model = SchemaModel::from_introspection_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let errors: Vec<_> =
            validate(model.schema(), VALID).into_iter().filter(|p| p.severity == Severity::Error).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let misspelt = validate(model.schema(), "{ user(ref: \"x\") { emial } }");
        assert!(
            misspelt.iter().any(|p| p.severity == Severity::Error && p.message.contains("emial")),
            "{name}: {misspelt:?}"
        );
        let text = "query { user(ref:\"x\") {  } }";
        let cursor = text.find("{  }").unwrap() + 2;
        let labels: Vec<_> = complete(model.schema(), text, cursor).items.into_iter().map(|c| c.label).collect();
        assert!(labels.contains(&"email".to_owned()), "{name}: {labels:?}");
    }
}

#[test]
fn every_fixture_survives_the_sdl_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orgql.sqlite3");
    let fetched_at = Utc::now();
    for (name, json) in fixtures() {
        let read = read_introspection_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        Store::open(&path).unwrap().save_schema(&name, &read.sdl, fetched_at).unwrap();
        let model = SchemaModel::from_introspection(read);
        let (cached, _) = Store::open(&path).unwrap().cached_schema(&name).unwrap().expect("a cached schema");
        let again = SchemaModel::from_sdl(&cached).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((again.type_count(), again.field_count()), (model.type_count(), model.field_count()), "{name}");
        assert_eq!(again.search("user", 50), model.search("user", 50), "{name}");
    }
}

/// A stub of a spec-conforming service on 127.0.0.1: a token on `/oauth/token/`, and on
/// `/graphql/` the status and body given, whatever the request.
async fn stub(status: StatusCode, body: String) -> (String, tokio::task::JoinHandle<()>) {
    let token = json!({ "access_token": "t", "token_type": "Bearer", "expires_in": 86_400, "scope": "users.read" });
    let app = Router::new().route("/oauth/token/", post(move || async move { axum::Json(token) })).route(
        "/graphql/",
        post(move || async move { (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            panic!("the stub stopped: {e}");
        }
    });
    (base, server)
}

fn client(base_url: &str, client_id: &str, secret: &str) -> Client {
    let credentials = Credentials {
        base_url: BaseUrl::parse(base_url).expect("a valid base URL"),
        client_id: client_id.to_owned(),
        client_secret: Secret::new(secret),
        scopes: "users.read".parse().expect("known scopes"),
    };
    let options = ClientOptions { max_retries: 0, ..ClientOptions::default() };
    Client::new(credentials, options, None).expect("a client")
}

#[tokio::test]
async fn a_graphql_core_service_is_introspected_over_http() {
    let json = std::fs::read_to_string(fixture_dir().join("graphql-core-3.2.14.json")).unwrap();
    // The stub answers the fixture to the probe as well: the probe is not understood, so the
    // 2018 standard query is sent, and the answer (which has more) is read all the same.
    let (base, server) = stub(StatusCode::OK, json).await;
    let read = tokio::time::timeout(LIMIT, client(&base, "id", "secret").introspect(&CancellationToken::new()))
        .await
        .expect("in time")
        .expect("the schema loads");
    server.abort();
    // graphql-core 3.2 lists DIRECTIVE_DEFINITION among @deprecated's locations; built-in
    // directives are not declared again, so that is dropped silently.
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(read.summary(), None);
    let model = SchemaModel::from_introspection(read);
    assert!(model.query_fields().iter().any(|f| f.name == "paginatedUsers"));
}

#[tokio::test]
async fn a_service_that_refuses_introspection_says_so_and_what_to_do() {
    let refusal = json!({ "errors": [{ "message": "GraphQL introspection is not allowed" }] }).to_string();
    let plain = "GraphQL introspection is not allowed".to_owned();
    for (status, body) in
        [(StatusCode::BAD_REQUEST, refusal.clone()), (StatusCode::OK, refusal), (StatusCode::BAD_REQUEST, plain)]
    {
        let (base, server) = stub(status, body).await;
        let err = tokio::time::timeout(LIMIT, client(&base, "id", "secret").introspect(&CancellationToken::new()))
            .await
            .expect("in time")
            .unwrap_err();
        server.abort();
        assert!(matches!(err, ApiError::IntrospectionRefused(_)), "{status}: {err:?}");
        let message = err.to_string();
        assert!(message.contains("GraphQL introspection is not allowed"), "{message}");
        assert!(message.contains("administrator") && !message.contains("base URL"), "{message}");
        assert!(!message.contains('\n'), "{message}");
    }
}

#[tokio::test]
async fn the_sandbox_answers_the_probe_and_the_full_query() {
    let server = sandbox(5).await;
    let client = client(server.base_url(), "sandbox-reader", SECRET);
    let cancel = CancellationToken::new();
    let probe = GraphQlRequest { query: CAPABILITIES_QUERY.to_owned(), variables: None, operation_name: None };
    let data = client.execute(&probe, &cancel).await.unwrap().response.into_data().unwrap();
    let capabilities = Capabilities::from_probe(&data).expect("async-graphql answers the probe");
    assert!(capabilities.directive_is_repeatable && capabilities.specified_by.is_some(), "{capabilities:?}");
    let read = tokio::time::timeout(LIMIT, client.introspect(&cancel)).await.expect("in time").unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
}

/// `async-graphql-7.json` is the sandbox's answer to orgql's own introspection (probe, then the
/// full query with what the probe found): checked against the sandbox as it is now, so the fixture
/// never drifts from it; written instead to the file named by `ORGQL_WRITE_FIXTURE` (that is how
/// tests/fixtures/introspection/generate.sh makes it).
#[tokio::test]
async fn the_async_graphql_fixture_is_the_sandbox_s_answer() {
    let server = sandbox(5).await;
    let client = client(server.base_url(), "sandbox-reader", SECRET);
    let cancel = CancellationToken::new();
    let run = |query: String| {
        let request = GraphQlRequest { query, variables: None, operation_name: None };
        let client = &client;
        let cancel = &cancel;
        async move { client.execute(&request, cancel).await.unwrap().response.into_data().unwrap() }
    };
    let capabilities = Capabilities::from_probe(&run(CAPABILITIES_QUERY.to_owned()).await).expect("a probe answer");
    let answer = json!({ "data": run(capabilities.query()).await });
    match std::env::var("ORGQL_WRITE_FIXTURE") {
        Ok(out) => {
            let text = serde_json::to_string_pretty(&answer).unwrap() + "\n";
            std::fs::write(&out, text).expect("the fixture is written");
        }
        Err(_) => {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/introspection/async-graphql-7.json");
            let committed: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture"))
                .expect("the fixture is JSON");
            assert!(committed == answer, "the sandbox's introspection changed: run generate.sh and commit the fixture");
        }
    }
}
