//! Every document the support module builds, run against the sandbox's own schema in-process
//! (no HTTP): the documents are valid, and their answers read into the typed forms.

use std::sync::Arc;
use std::time::Duration;

use async_graphql::{Request, Variables};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::queries::{USERS_FOR_NAMES, name_scan_variables};
use super::*;
use crate::api::GraphQlRequest;
use crate::sandbox::data::{SharedDb, generate};
use crate::sandbox::deliveries::Outbox;
use crate::sandbox::schema::{SandboxSchema, build};

fn schema() -> SandboxSchema {
    let db = Arc::new(SharedDb::new(generate(60, 1)));
    build(db, Outbox::new(CancellationToken::new(), Duration::from_secs(1)))
}

/// Runs a request; returns `data` and the error messages with their paths.
async fn run(schema: &SandboxSchema, request: &GraphQlRequest) -> (Value, Vec<(String, String)>) {
    let variables = Variables::from_json(request.variables.clone().unwrap_or(Value::Null));
    let response = schema.execute(Request::new(request.query.clone()).variables(variables)).await;
    let errors = response
        .errors
        .iter()
        .map(|e| {
            let path = e
                .path
                .iter()
                .map(|p| match p {
                    async_graphql::PathSegment::Field(name) => name.clone(),
                    async_graphql::PathSegment::Index(i) => i.to_string(),
                })
                .collect::<Vec<_>>()
                .join(".");
            (e.message.clone(), path)
        })
        .collect();
    (response.data.into_json().expect("JSON data"), errors)
}

fn card(value: &Value) -> UserCard {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"))
}

#[tokio::test]
async fn the_find_documents_are_valid_and_read_into_cards() {
    let schema = schema();
    let (data, errors) = run(&schema, &user_by_ref("u00002")).await;
    assert!(errors.is_empty(), "{errors:?}");
    let user = card(&data["user"]);
    assert_eq!(user.ref_, "u00002");
    assert!(!user.groups.is_empty() && !user.roles.is_empty() && user.extra_fields.len() == 3, "{user:?}");

    // A ref no user has: null, and an error at `user` (what the find reads as "nobody").
    let (data, errors) = run(&schema, &user_by_ref("u99999")).await;
    assert_eq!(data["user"], Value::Null);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].1.contains("user"), "{errors:?}");

    let (data, errors) = run(&schema, &users_by_email(&user.email.to_uppercase())).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["paginatedUsers"]["edges"][0]["node"]), user);

    let (data, errors) = run(&schema, &groups_named("")).await;
    assert!(errors.is_empty(), "{errors:?}");
    let groups: Vec<GroupRef> = data["paginatedGroups"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::from_value(e["node"].clone()).unwrap())
        .collect();
    assert_eq!(groups.len(), 5);

    let scan =
        GraphQlRequest { query: USERS_FOR_NAMES.into(), variables: Some(name_scan_variables()), ..Default::default() };
    let (data, errors) = run(&schema, &scan).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(data["paginatedUsers"]["edges"].as_array().unwrap().len(), 50);
    assert_eq!(data["paginatedUsers"]["pageInfo"]["hasNextPage"], true);
}

#[tokio::test]
async fn the_action_documents_are_valid_and_read_into_cards() {
    let schema = schema();
    let (data, _) = run(&schema, &user_by_ref("u00003")).await;
    let user = card(&data["user"]);
    let (data, _) = run(&schema, &groups_named("")).await;
    let outside: GroupRef = data["paginatedGroups"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::from_value::<GroupRef>(e["node"].clone()).unwrap())
        .find(|g| !user.is_member_of(&g.ref_))
        .expect("a group the user is not in");

    let (data, errors) = run(&schema, &SupportAction::Archive.request(&user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["archiveUser"]).state(), UserState::Archived);
    let (data, errors) = run(&schema, &SupportAction::Activate.request(&user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["updateUser"]).state(), UserState::Active);

    let edit = UserEdit { name: Some("Renamed Person".into()), email: Some("renamed@example.net".into()) };
    let (data, errors) = run(&schema, &SupportAction::Edit(edit).request(&user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let edited = card(&data["updateUser"]);
    assert_eq!((edited.name.as_str(), edited.email.as_str()), ("Renamed Person", "renamed@example.net"));

    let bad = UserEdit { name: None, email: Some("not an address".into()) };
    let (_, errors) = run(&schema, &SupportAction::Edit(bad).request(&user.ref_)).await;
    let errors: Vec<_> = errors
        .into_iter()
        .map(|(message, _)| crate::api::GraphQlError { message, locations: Vec::new(), path: Vec::new() })
        .collect();
    let refused = refusals(&errors);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].field, Some(RefusedField::Email));
    assert_eq!(refused[0].sentence, "The service refused the email: not a valid address.");

    let (_, errors) = run(&schema, &SupportAction::AddToGroup(outside.clone()).request(&user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (data, _) = run(&schema, &user_by_ref(&user.ref_)).await;
    assert!(card(&data["user"]).is_member_of(&outside.ref_));
    let (_, errors) = run(&schema, &SupportAction::RemoveFromGroup(outside.clone()).request(&user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (data, _) = run(&schema, &user_by_ref(&user.ref_)).await;
    assert!(!card(&data["user"]).is_member_of(&outside.ref_));
}
