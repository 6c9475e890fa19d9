//! Every document the support module builds, checked against three schemas: the sandbox's
//! own (also run in-process, no HTTP, and read into the typed forms), the spec's minimal one,
//! and one with other shapes. Each must validate against its schema: no unknown field, ever.

use std::sync::Arc;
use std::time::Duration;

use async_graphql::{Request, Variables};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::api::GraphQlRequest;
use crate::explorer::SchemaModel;
use crate::query::PagingStyle;
use crate::query::lang::validate;
use crate::sandbox::data::{SharedDb, generate};
use crate::sandbox::deliveries::Outbox;
use crate::sandbox::schema::{SandboxSchema, build};

/// The "minimal" variant of the sandbox (/work/notes/minimal.graphql): only what the spec shows.
const MINIMAL: &str = r#"
type Query {
  user(ref: String!): User
  paginatedUsers(first: Int!, after: String, ref: String, email: String): UserConnection
}
type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
type UserConnection { edges: [UserEdge] count: Int }
type UserEdge { cursor: String! node: User }
"#;

/// Other shapes where the spec is silent: roles as strings, groups as a connection keyed by
/// id, extra fields as JSON, other date names, no `user(ref:)`, no email filter, flat update
/// arguments, no way to remove from a group.
const OTHER: &str = r#"
scalar DateTime
scalar JSON
type Query {
  paginatedUsers(first: Int, after: String, name: String): UserPage!
  paginatedGroups(first: Int!): GroupPage!
}
type Mutation {
  editUser(userRef: ID!, name: String, isActive: Boolean): Boolean!
  addUsersToGroup(groupId: ID!, refs: [ID!]!): Group
  deleteUser(ref: String!): Boolean
}
type User {
  id: ID! ref: String! name: String! email: String! isActive: Boolean!
  roles: [String]
  groups(first: Int!, after: String): GroupPage!
  customFields: JSON
  insertedAt: DateTime
  lastLoginAt: String
  manager(ref: String!): User
}
type Group { id: ID! name: String! }
type GroupPage { edges: [GroupEdge!]! count: Int }
type GroupEdge { node: Group }
type UserPage { edges: [UserEdge] pageInfo: PageInfo! }
type UserEdge { node: User cursor: String }
type PageInfo { hasNextPage: Boolean! endCursor: String }
"#;

fn model(sdl: &str) -> SchemaModel {
    SchemaModel::from_sdl(sdl).unwrap_or_else(|e| panic!("{e}"))
}

fn capabilities(model: &SchemaModel) -> Capabilities {
    Capabilities::from_schema(model.schema()).unwrap_or_else(|e| panic!("{e}"))
}

fn sales() -> GroupRef {
    GroupRef { id: "R3JvdXA6Mw==".into(), ref_: "g0003".into(), name: "Sales Berlin".into() }
}

fn edits() -> [UserEdit; 3] {
    [
        UserEdit { name: Some("New Name".into()), email: None },
        UserEdit { name: None, email: Some("new@example.org".into()) },
        UserEdit { name: Some("New Name".into()), email: Some("new@example.org".into()) },
    ]
}

fn actions() -> Vec<SupportAction> {
    let mut actions = vec![
        SupportAction::Activate,
        SupportAction::Archive,
        SupportAction::AddToGroup(sales()),
        SupportAction::RemoveFromGroup(sales()),
    ];
    actions.extend(edits().into_iter().map(SupportAction::Edit));
    actions
}

/// Text that would break out of a string literal if it were pasted into the document.
const HOSTILE: &str = "u1\") { id } mutation { deleteUser(ref: \"u2\") } #";

/// Every document `caps` builds, each checked against `model`'s schema and for `HOSTILE` only
/// ever in the variables; returns them by name.
fn every_document(model: &SchemaModel, caps: &Capabilities) -> Vec<(String, GraphQlRequest)> {
    let mut documents = Vec::new();
    let scan = |cards| GraphQlRequest {
        query: caps.scan_page(cards),
        variables: Some(caps.scan_variables(Some("cursor"))),
        operation_name: None,
    };
    documents.push(("scan cards".to_owned(), scan(true)));
    documents.push(("scan names".to_owned(), scan(false)));
    documents.extend(caps.user_by_ref(HOSTILE).map(|r| ("by ref".to_owned(), r)));
    documents.extend(caps.users_by_email(HOSTILE).map(|r| ("by email".to_owned(), r)));
    documents.extend(caps.groups_named(HOSTILE).map(|r| ("groups".to_owned(), r)));
    for action in actions() {
        documents.extend(caps.action_request(&action, HOSTILE).map(|r| (format!("{action:?}"), r)));
    }
    for (name, request) in &documents {
        let problems = validate(model.schema(), &request.query);
        assert!(problems.is_empty(), "{name}:\n{}\n{problems:#?}", request.query);
        assert!(!request.query.contains("deleteUser"), "{name}: {}", request.query);
        let variables = request.variables.as_ref().expect("variables").to_string();
        let typed = match name.as_str() {
            "scan cards" | "scan names" => false,
            "groups" => caps.group_search.as_ref().is_some_and(|search| search.name.is_some()),
            _ => true,
        };
        assert_eq!(variables.contains("deleteUser"), typed, "{name}: {variables}");
    }
    documents
}

fn document<'d>(documents: &'d [(String, GraphQlRequest)], name: &str) -> Option<&'d GraphQlRequest> {
    documents.iter().find(|(n, _)| n == name).map(|(_, r)| r)
}

#[test]
fn the_sandbox_schema_offers_everything_the_card_shows() {
    let model = model(&crate::sandbox::schema::sdl());
    let caps = capabilities(&model);
    assert_eq!(caps.user_type, "User");
    assert_eq!(caps.core, ["id", "ref", "name", "email", "isActive"]);
    assert_eq!(caps.roles.as_deref(), Some(""));
    let groups = caps.groups.as_ref().expect("groups");
    assert_eq!((groups.connection, groups.selection.as_str()), (false, "id ref name"));
    assert_eq!(caps.extra_fields, Some(("extraFields".to_owned(), "{ category { ref name } value }".to_owned())));
    assert_eq!(caps.dates, ["createdAt", "updatedAt"]);
    assert!(matches!(&caps.by_ref, ByRef::Field { field, arg } if field == "user" && arg.ty == "String!"));
    assert_eq!(caps.users.paging.as_ref().map(|p| p.style), Some(PagingStyle::Relay));
    assert!(caps.users.count);
    for filter in ["email", "ref", "id", "groupRef"] {
        assert!(caps.users.filter(filter).is_some(), "{filter}");
    }
    let offers = caps.offers();
    assert!(offers.activate && offers.archive && offers.edit_name && offers.edit_email, "{offers:?}");
    assert!(offers.add_to_group && offers.remove_from_group && offers.notice.is_none(), "{offers:?}");
    assert_eq!(caps.mutations.archive.as_ref().unwrap().field, "archiveUser");
    assert_eq!(caps.mutations.activate.as_ref().unwrap().field, "updateUser");

    let documents = every_document(&model, &caps);
    assert_eq!(documents.len(), 2 + 3 + actions().len(), "{documents:#?}");
    let by_ref = document(&documents, "by ref").unwrap();
    assert!(by_ref.query.contains("user: user(ref: $ref) { ...SupportUser }"), "{}", by_ref.query);
    assert_eq!(by_ref.variables.as_ref().unwrap()["ref"], HOSTILE);
    let by_email = document(&documents, "by email").unwrap();
    assert!(by_email.query.contains("paginatedUsers(first: $first, email: $email)"), "{}", by_email.query);
    assert_eq!(by_email.variables.as_ref().unwrap()["first"], EMAIL_MATCHES);
    let activate = document(&documents, "Activate").unwrap();
    assert_eq!(activate.variables.as_ref().unwrap()["input"], serde_json::json!({ "isActive": true }));
    let add = document(&documents, &format!("{:?}", SupportAction::AddToGroup(sales()))).unwrap();
    assert_eq!(add.variables.as_ref().unwrap(), &serde_json::json!({ "groupRef": "g0003", "userRefs": [HOSTILE] }));
}

#[test]
fn the_minimal_schema_gives_a_card_of_the_guaranteed_fields_and_no_changes() {
    let model = model(MINIMAL);
    let caps = capabilities(&model);
    assert_eq!((caps.roles.as_ref(), caps.groups.as_ref(), caps.extra_fields.as_ref()), (None, None, None));
    assert!(caps.dates.is_empty() && caps.group_search.is_none());
    assert_eq!(caps.users.paging.as_ref().map(|p| p.style), Some(PagingStyle::EdgeCursors));
    assert_eq!(caps.users.first.as_ref().unwrap().ty, "Int!");
    assert!(!caps.offers_changes() && !caps.offers().any());
    let documents = every_document(&model, &caps);
    let names: Vec<&str> = documents.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["scan cards", "scan names", "by ref", "by email"]);
    let fragment = caps.fragment();
    assert_eq!(fragment, "fragment SupportUser on User {\n  id\n  ref\n  name\n  email\n  isActive\n}");
    let scan = caps.scan_page(false);
    assert!(
        scan.contains(
            "paginatedUsers(first: $first, after: $after) { count edges { cursor node { ref name email isActive } } }"
        ),
        "{scan}"
    );
    assert_eq!(caps.scan_variables(None), serde_json::json!({ "first": PAGE_SIZE, "after": null }));
}

#[test]
fn another_schema_gets_documents_of_its_own_shapes() {
    let model = model(OTHER);
    let caps = capabilities(&model);
    assert_eq!(caps.by_ref, ByRef::Scan, "no user(ref:) and no ref filter");
    assert!(caps.users.filter("email").is_none() && caps.users.filter("name").is_some());
    assert_eq!((caps.users.paging.as_ref().map(|p| p.style), caps.users.count), (Some(PagingStyle::Relay), false));
    assert_eq!(caps.users.first.as_ref().unwrap().ty, "Int");
    assert_eq!(caps.roles.as_deref(), Some(""));
    let groups = caps.groups.as_ref().unwrap();
    assert_eq!(
        (groups.connection, groups.arguments.as_str(), groups.selection.as_str()),
        (true, "(first: 50)", "id name")
    );
    assert_eq!(caps.extra_fields, Some(("customFields".to_owned(), String::new())));
    assert_eq!(caps.dates, ["insertedAt", "lastLoginAt"]);
    let offers = caps.offers();
    assert!(offers.activate && offers.archive && offers.edit_name && !offers.edit_email, "{offers:?}");
    assert!(offers.add_to_group && !offers.remove_from_group, "{offers:?}");

    let documents = every_document(&model, &caps);
    assert!(document(&documents, "by ref").is_none() && document(&documents, "by email").is_none());
    let archive = document(&documents, "Archive").unwrap();
    assert!(archive.query.contains("result: editUser(userRef: $userRef, isActive: $isActive)"), "{}", archive.query);
    assert_eq!(archive.variables.as_ref().unwrap(), &serde_json::json!({ "userRef": HOSTILE, "isActive": false }));
    let rename = document(&documents, &format!("{:?}", SupportAction::Edit(edits()[0].clone()))).unwrap();
    assert_eq!(rename.variables.as_ref().unwrap(), &serde_json::json!({ "userRef": HOSTILE, "name": "New Name" }));
    assert!(caps.action_request(&SupportAction::Edit(edits()[1].clone()), "u1").is_none(), "no email to set");
    let add = document(&documents, &format!("{:?}", SupportAction::AddToGroup(sales()))).unwrap();
    assert_eq!(add.variables.as_ref().unwrap(), &serde_json::json!({ "groupId": "R3JvdXA6Mw==", "refs": [HOSTILE] }));
    let groups = document(&documents, "groups").unwrap();
    assert_eq!(groups.variables.as_ref().unwrap(), &serde_json::json!({ "first": GROUP_CHOICES }));
    let fragment = caps.fragment();
    for part in [
        "roles\n",
        "groups: groups(first: 50) { edges { node { id name } } }",
        "extraFields: customFields\n",
        "insertedAt",
    ] {
        assert!(fragment.contains(part), "{part} in {fragment}");
    }
    assert!(!fragment.contains("manager"), "a field with a required argument is left out: {fragment}");
}

#[test]
fn the_guaranteed_fields_alone_make_valid_documents_for_the_minimal_schema_and_the_sandbox() {
    let caps = Capabilities::guaranteed("The service's schema could not be read.".into());
    assert_eq!(caps.offers().notice.as_deref(), Some("The service's schema could not be read."));
    for sdl in [MINIMAL.to_owned(), crate::sandbox::schema::sdl()] {
        let documents = every_document(&model(&sdl), &caps);
        let names: Vec<&str> = documents.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["scan cards", "scan names", "by ref"]);
    }
}

#[test]
fn a_schema_without_the_guaranteed_parts_is_refused_in_one_sentence() {
    let no_users = model("type Query { version: String }");
    assert_eq!(
        Capabilities::from_schema(no_users.schema()).unwrap_err(),
        "the schema has no paginatedUsers field, which the spec guarantees"
    );
}

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

fn sandbox_caps() -> Capabilities {
    capabilities(&model(&crate::sandbox::schema::sdl()))
}

#[tokio::test]
async fn the_find_documents_are_valid_and_read_into_cards() {
    let schema = schema();
    let caps = sandbox_caps();
    let card =
        |value: &Value| UserCard::read(value, &caps.dates, &caps.offers()).unwrap_or_else(|e| panic!("{e}: {value}"));
    let (data, errors) = run(&schema, &caps.user_by_ref("u00002").unwrap()).await;
    assert!(errors.is_empty(), "{errors:?}");
    let user = card(&data["user"]);
    assert_eq!(user.ref_, "u00002");
    let extra = user.extra_fields.as_ref().unwrap();
    assert!(!user.groups.as_ref().unwrap().is_empty() && !user.roles.as_ref().unwrap().is_empty(), "{user:?}");
    assert!(extra.len() == 3 && user.dates.len() == 2, "{user:?}");

    // A ref no user has: null, and an error at `user` (what the find reads as "nobody").
    let (data, errors) = run(&schema, &caps.user_by_ref("u99999").unwrap()).await;
    assert_eq!(data["user"], Value::Null);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].1.contains("user"), "{errors:?}");

    let (data, errors) = run(&schema, &caps.users_by_email(&user.email.to_uppercase()).unwrap()).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["paginatedUsers"]["edges"][0]["node"]), user);

    let (data, errors) = run(&schema, &caps.groups_named("").unwrap()).await;
    assert!(errors.is_empty(), "{errors:?}");
    let groups: Vec<GroupRef> = data["groups"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::from_value(e["node"].clone()).unwrap())
        .collect();
    assert_eq!(groups.len(), 5);

    let scan = GraphQlRequest {
        query: caps.scan_page(false),
        variables: Some(caps.scan_variables(None)),
        ..Default::default()
    };
    let (data, errors) = run(&schema, &scan).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(data["paginatedUsers"]["edges"].as_array().unwrap().len(), 50);
    assert_eq!(data["paginatedUsers"]["pageInfo"]["hasNextPage"], true);
}

#[tokio::test]
async fn the_action_documents_are_valid_and_read_into_cards() {
    let schema = schema();
    let caps = sandbox_caps();
    let card =
        |value: &Value| UserCard::read(value, &caps.dates, &caps.offers()).unwrap_or_else(|e| panic!("{e}: {value}"));
    let act = |action: SupportAction, user_ref: &str| caps.action_request(&action, user_ref).expect("offered");
    let (data, _) = run(&schema, &caps.user_by_ref("u00003").unwrap()).await;
    let user = card(&data["user"]);
    let (data, _) = run(&schema, &caps.groups_named("").unwrap()).await;
    let outside: GroupRef = data["groups"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::from_value::<GroupRef>(e["node"].clone()).unwrap())
        .find(|g| !user.is_member_of(g))
        .expect("a group the user is not in");

    let (data, errors) = run(&schema, &act(SupportAction::Archive, &user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["result"]).state(), UserState::Archived);
    let (data, errors) = run(&schema, &act(SupportAction::Activate, &user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(card(&data["result"]).state(), UserState::Active);

    let edit = UserEdit { name: Some("Renamed Person".into()), email: Some("renamed@example.net".into()) };
    let (data, errors) = run(&schema, &act(SupportAction::Edit(edit), &user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let edited = card(&data["result"]);
    assert_eq!((edited.name.as_str(), edited.email.as_str()), ("Renamed Person", "renamed@example.net"));

    let bad = UserEdit { name: None, email: Some("not an address".into()) };
    let (_, errors) = run(&schema, &act(SupportAction::Edit(bad), &user.ref_)).await;
    let errors: Vec<_> = errors
        .into_iter()
        .map(|(message, _)| crate::api::GraphQlError { message, locations: Vec::new(), path: Vec::new() })
        .collect();
    let refused = refusals(&errors);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].field, Some(RefusedField::Email));
    assert_eq!(refused[0].sentence, "The service refused the email: not a valid address.");

    let (_, errors) = run(&schema, &act(SupportAction::AddToGroup(outside.clone()), &user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (data, _) = run(&schema, &caps.user_by_ref(&user.ref_).unwrap()).await;
    assert!(card(&data["user"]).is_member_of(&outside));
    let (_, errors) = run(&schema, &act(SupportAction::RemoveFromGroup(outside.clone()), &user.ref_)).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (data, _) = run(&schema, &caps.user_by_ref(&user.ref_).unwrap()).await;
    assert!(!card(&data["user"]).is_member_of(&outside));
}

#[test]
fn every_other_scalar_of_the_user_is_under_more_in_the_schemas_order_without_deprecated_ones() {
    let model = model(crate::shape::tests::NESTED_SDL);
    let caps = capabilities(&model);
    assert_eq!(caps.more, ["department", "locale"]);
    assert_eq!(caps.dates, ["hiredOn"]);
    let fragment = caps.fragment();
    assert!(fragment.contains("department") && !fragment.contains("legacyCode"), "{fragment}");
    let mut card = UserCard::read(
        &serde_json::json!({ "ref": "u1", "name": "A", "email": "a@b.c", "isActive": true, "department": "Sales", "locale": "" }),
        &caps.dates,
        &caps.offers(),
    )
    .expect("a card");
    card.read_more(&serde_json::json!({ "department": "Sales", "locale": "" }), &caps.more);
    assert_eq!(card.more, [("Department".to_owned(), "Sales".to_owned())], "empty values left out");
    let names: Vec<&str> = caps.sections.iter().map(|s| s.field.as_str()).collect();
    assert_eq!(names, ["registrations", "trainingStatus", "certificates", "auditLog"]);
    assert!(caps.offers().archive && caps.offers().activate, "userArchive and userActivate, by shape");
}

#[test]
fn the_scope_a_mutations_description_names_is_the_scope_its_action_needs() {
    let sdl = r#"
type Query {
  user(ref: String!): User
  paginatedUsers(first: Int!, after: String): UserConnection
  paginatedEnrollments(first: Int, after: String, userRef: String): EnrollmentConnection!
}
type Mutation {
  "events.write: gives an enrollment another status"
  updateEnrollmentStatus(ref: String!, status: EnrollmentStatus!): Enrollment!
  "Archives a user."
  archiveUser(ref: String!): User!
}
enum EnrollmentStatus { CONFIRMED ATTENDED NO_SHOW }
type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
type UserConnection { edges: [UserEdge] count: Int }
type UserEdge { cursor: String! node: User }
type Enrollment { ref: String! status: EnrollmentStatus! user: User! }
type EnrollmentConnection { edges: [EnrollmentEdge!]! count: Int! }
type EnrollmentEdge { cursor: String! node: Enrollment! }
"#;
    let caps = capabilities(&model(sdl));
    assert_eq!(caps.mutation_scopes.get("updateEnrollmentStatus"), Some(&crate::scopes::Scope::EventsWrite));
    assert_eq!(caps.mutation_scopes.get("archiveUser"), None, "a description without a leading scope says nothing");
    let section = caps.sections.iter().position(|s| s.field == "paginatedEnrollments").expect("the section");
    let change = caps.state_changes[section].as_ref().expect("the state change, found by shape");
    assert_eq!(caps.mutation_scopes.get(&change.field), Some(&crate::scopes::Scope::EventsWrite));
}

#[test]
fn the_nested_variant_offers_its_noun_first_changes_sections_and_enrolling() {
    let model = model(&crate::sandbox::nested::sdl());
    let caps = capabilities(&model);
    let offers = caps.offers();
    assert!(offers.activate && offers.archive && offers.edit_name && offers.edit_email, "{offers:?}");
    assert!(offers.add_to_group && offers.remove_from_group, "{offers:?}");
    assert_eq!(caps.mutations.archive.as_ref().unwrap().field, "userArchive");
    assert_eq!(caps.mutations.activate.as_ref().unwrap().field, "userActivate");
    assert_eq!(caps.mutations.edit.as_ref().unwrap().field, "userUpdate");
    assert_eq!(caps.more, ["department", "locale"]);
    assert_eq!(caps.dates, ["hiredOn"]);
    let labels: Vec<&str> = caps.sections.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["Registrations", "Training status", "Certificates"]);
    assert_eq!(caps.state_changes[0].as_ref().map(|m| m.field.as_str()), Some("registrationChangeStatus"));
    assert!(caps.state_changes[1..].iter().all(Option::is_none));
    let (enroll, section, search) = caps.enroll.as_ref().expect("enrolling");
    assert_eq!((enroll.field.as_str(), *section, search.field.as_str()), ("registrationCreate", 0, "sessions"));
    let documents = every_document(&model, &caps);
    let edit = document(&documents, &format!("{:?}", SupportAction::Edit(edits()[1].clone()))).unwrap();
    assert!(edit.query.contains("{ user { ...SupportUser } errors { field messages } }"), "{}", edit.query);
    assert!(edit.query.contains("userUpdate(") && edit.query.contains("ref: $ref"), "{}", edit.query);
}

/// On graphene-django's form mutations the card offers rename, e-mail, archive (the service's
/// own mutation) and activate (the whole-record update); an input field that cannot be read back
/// makes the whole-record update refuse with a sentence before anything is sent.
#[test]
fn the_card_offers_a_form_mutations_changes_as_whole_record_updates() {
    let schema = crate::shape::tests::graphene_django();
    let caps = Capabilities::from_schema(&schema).expect("capabilities");
    let offers = caps.offers();
    assert!(offers.edit_name && offers.edit_email && offers.archive && offers.activate, "{offers:?}");
    let edit = caps.call(&SupportAction::Edit(UserEdit { name: Some("Ada".into()), email: None })).expect("edit");
    let replace = edit.replace.as_ref().expect("a whole-record update");
    assert_eq!(replace.selection(), "{ id ref name email isActive department }");
    assert_eq!(caps.call(&SupportAction::Archive).expect("archive").field, "archiveUser");
    assert_eq!(caps.call(&SupportAction::Activate).expect("activate").field, "updateUser");

    let sdl = crate::shape::tests::graphene_django_introspection().sdl;
    let input = sdl.find("input UpdateUserInput").expect("the form's input");
    let mut blind = sdl.clone();
    blind.insert_str(input + sdl[input..].find('{').expect("its fields") + 1, "\n  password: String");
    let blind = apollo_compiler::Schema::parse_and_validate(blind, "blind.graphql").expect("valid");
    let caps = Capabilities::from_schema(&blind).expect("capabilities");
    let edit = caps.call(&SupportAction::Edit(UserEdit { name: Some("Ada".into()), email: None })).expect("edit");
    let why = edit.replace.as_ref().and_then(|r| r.unreadable()).expect("refused");
    assert!(why.contains("cannot read password back") && why.contains("nothing was sent"), "{why}");
}

/// On Strawberry-Django's union payloads the card offers every change: the partial input named
/// by the user's relay id (read with the user, never the ref in its place — without it there is
/// no request to send), the union answer selected member by member, and Find user by e-mail
/// through `filters: {email: {iExact: …}}`.
#[test]
fn the_card_offers_strawberry_djangos_changes_named_by_the_users_id() {
    let schema = crate::shape::tests::strawberry_django();
    let caps = Capabilities::from_schema(&schema).expect("capabilities");
    let offers = caps.offers();
    assert!(offers.edit_name && offers.edit_email && offers.archive && offers.activate, "{offers:?}");
    let edit = SupportAction::Edit(UserEdit { name: Some("Ada".into()), email: None });
    assert!(caps.call(&edit).expect("edit").needs_id());
    assert!(caps.action_request_by_id(&edit, "u1", None).is_none(), "no id, nothing to send");
    let request = caps.action_request_by_id(&edit, "u1", Some("VXNlcjox")).expect("a request");
    assert_eq!(request.variables.as_ref().unwrap()["data"], serde_json::json!({ "id": "VXNlcjox", "name": "Ada" }));
    assert!(
        request.query.contains("... on OperationInfo { messages { kind field message code } }"),
        "{}",
        request.query
    );
    assert!(request.query.contains("... on User { ...SupportUser }"), "{}", request.query);
    let activate = caps.action_request_by_id(&SupportAction::Activate, "u1", Some("VXNlcjox")).expect("activate");
    assert_eq!(activate.variables.as_ref().unwrap()["data"], serde_json::json!({ "id": "VXNlcjox", "isActive": true }));
    assert_eq!(caps.call(&SupportAction::Archive).expect("archive").field, "archiveUser");
    let find = caps.users_by_email("Ana@Example.org").expect("found by e-mail");
    assert_eq!(
        find.variables.as_ref().unwrap()["filters"],
        serde_json::json!({ "email": { "iExact": "Ana@Example.org" } })
    );
    assert!(caps.data_fields.contains(&"department".to_owned()) && !caps.data_fields.contains(&"revision".to_owned()));
}
