//! The schema explorer's model against the in-process sandbox: introspected through the API
//! client, built, searched, and cached in a real SQLite file.

use chrono::{DateTime, Utc};
use orgql::api::{BaseUrl, Client, ClientOptions, Credentials};
use orgql::explorer::{self, MatchRank, SchemaModel, TypeKind};
use orgql::sandbox::RunningServer;
use orgql::scopes::Scope;
use orgql::secret::Secret;
use orgql::store::Store;
use tokio_util::sync::CancellationToken;

use crate::harness::{SECRET, sandbox};

/// A client of `sandbox-reader` with one read scope: introspection needs no particular scope.
fn reader(server: &RunningServer) -> Client {
    let credentials = Credentials {
        base_url: BaseUrl::parse(server.base_url()).expect("a valid base URL"),
        client_id: "sandbox-reader".to_owned(),
        client_secret: Secret::new(SECRET),
        scopes: "groups.read".parse().expect("known scopes"),
    };
    Client::new(credentials, ClientOptions::default(), None).expect("a client")
}

async fn fetched() -> (SchemaModel, String) {
    let server = sandbox(5).await;
    explorer::load::fetch(&reader(&server), &CancellationToken::new()).await.expect("the schema loads")
}

#[tokio::test]
async fn the_sandbox_schema_has_its_root_fields_arguments_and_scopes() {
    let (model, sdl) = fetched().await;
    assert!(sdl.contains("type User"), "{sdl}");
    let roots: Vec<_> = model.query_fields().iter().map(|f| f.name).collect();
    for name in ["user", "paginatedUsers", "group", "paginatedGroups", "training"] {
        assert!(roots.contains(&name), "no root field {name} in {roots:?}");
    }
    let user = model.field("Query", "user").expect("Query.user");
    let [arg] = user.arguments.as_slice() else { panic!("{:?}", user.arguments) };
    assert_eq!((arg.name, arg.ty.to_string().as_str(), arg.is_required()), ("ref", "String!", true));
    assert_eq!((user.named_type, user.kind, user.scope), ("User", TypeKind::Object, Some(Scope::UsersRead)));
    assert_eq!(model.field("Query", "paginatedUsers").unwrap().scope, Some(Scope::UsersRead));
    assert_eq!(model.field("Query", "paginatedGroups").unwrap().scope, Some(Scope::GroupsRead));
    let mutations: Vec<_> = model.mutation_fields().iter().map(|f| (f.name, f.scope)).collect();
    assert!(mutations.contains(&("createUser", Some(Scope::UsersWrite))), "{mutations:?}");
}

#[tokio::test]
async fn the_sandbox_schema_shows_deprecations_and_searches_with_paths() {
    let (model, _) = fetched().await;
    let full_name = model.field("User", "fullName").expect("User.fullName");
    assert_eq!(full_name.deprecation, Some("Use `name`."));
    assert!(model.field("User", "name").unwrap().deprecation.is_none());
    let hits = model.search("email", 20);
    let hit = hits.iter().find(|h| h.label() == "User.email").unwrap_or_else(|| panic!("{hits:?}"));
    assert_eq!(hit.rank, MatchRank::Exact);
    let path = hit.path.as_ref().expect("User is reached from a root");
    assert_eq!((path.first().map(String::as_str), path.last().map(String::as_str)), (Some("Query"), Some("email")));
    // The path is a real walk through the schema, field by field.
    let mut type_name = "Query".to_owned();
    for field in &path[1..] {
        type_name = model.field(&type_name, field).unwrap_or_else(|| panic!("{type_name}.{field}")).named_type.into();
    }
}

#[tokio::test]
async fn a_fetched_schema_is_cached_per_profile_and_models_again() {
    let (model, sdl) = fetched().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orgql.sqlite3");
    let fetched_at = DateTime::parse_from_rfc3339("2026-11-23T10:11:12.5+00:00").unwrap().with_timezone(&Utc);
    Store::open(&path).unwrap().save_schema("Sandbox", &sdl, fetched_at).unwrap();
    let store = Store::open(&path).unwrap();
    let (cached, when) = store.cached_schema("Sandbox").unwrap().expect("a cached schema");
    assert_eq!((cached.as_str(), when), (sdl.as_str(), fetched_at));
    assert!(store.cached_schema("Acme").unwrap().is_none());
    let again = SchemaModel::from_sdl(&cached).unwrap();
    assert_eq!((again.type_count(), again.field_count()), (model.type_count(), model.field_count()));
    assert_eq!(again.search("group", 50), model.search("group", 50));
}

#[tokio::test]
async fn a_cancelled_fetch_says_so() {
    let server = sandbox(5).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = explorer::load::fetch(&reader(&server), &cancel).await.unwrap_err();
    assert_eq!(err.to_string(), "cancelled");
}
