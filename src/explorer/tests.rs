//! Unit tests of the schema model: a small hand-written schema for the views and search ranking,
//! synthetic schemas for sizes.

use super::synthetic::{introspection_json, schema_sdl};
use super::*;
use crate::scopes::Scope;

const SDL: &str = r#"
"An instant, RFC 3339."
scalar DateTime

type Query {
  "users.read. Null when no user has this ref."
  user(ref: String!): User
  "Needs users.read. Users, a page at a time."
  paginatedUsers(first: Int = 50, after: String, role: Role): UserConnection!
  "Anyone may ask."
  version: String!
}

type Mutation {
  "users.write"
  updateUser(ref: String!, input: UpdateUserInput!): User!
}

"A person."
type User {
  ref: String!
  email: String!
  emailVerified: Boolean!
  workEmail: String
  fullName: String! @deprecated(reason: "Use `name`.")
  nickname: String @deprecated
  groups: [Group!]!
}

type Group { name: String! members: [User!]! }
type UserEdge { node: User! cursor: String! }
type UserConnection { edges: [UserEdge!]! count: Int! }

"What a person may do."
enum Role {
  "Takes trainings."
  LEARNER
  ADMIN @deprecated(reason: "Use `MANAGER`.")
  MANAGER
}

type Email { address: String! }

input UpdateUserInput { name: String email: String = "a@b.c" roles: [Role!] }

type Unused { email: String }
"#;

fn model() -> SchemaModel {
    SchemaModel::from_sdl(SDL).unwrap()
}

#[test]
fn lists_the_root_fields_with_their_arguments() {
    let model = model();
    let names: Vec<_> = model.query_fields().iter().map(|f| f.name).collect();
    assert_eq!(names, ["user", "paginatedUsers", "version"]);
    let user = model.field("Query", "user").unwrap();
    assert_eq!((user.ty.to_string().as_str(), user.named_type, user.kind), ("User", "User", TypeKind::Object));
    assert!(!user.is_leaf());
    let [arg] = user.arguments.as_slice() else { panic!("{:?}", user.arguments) };
    assert_eq!((arg.name, arg.ty.to_string().as_str(), arg.is_required()), ("ref", "String!", true));
    let page = model.field("Query", "paginatedUsers").unwrap();
    assert_eq!(page.ty.to_string(), "UserConnection!");
    let first = &page.arguments[0];
    assert_eq!((first.default.map(ToString::to_string), first.is_required()), (Some("50".into()), false));
    assert_eq!(page.arguments[2].kind, TypeKind::Enum);
    assert_eq!(model.mutation_fields()[0].arguments[1].kind, TypeKind::InputObject);
}

#[test]
fn reads_scopes_deprecations_and_descriptions() {
    let model = model();
    assert_eq!(model.field("Query", "user").unwrap().scope, Some(Scope::UsersRead));
    assert_eq!(model.field("Query", "paginatedUsers").unwrap().scope, Some(Scope::UsersRead));
    assert_eq!(model.field("Query", "version").unwrap().scope, None);
    assert_eq!(model.field("Mutation", "updateUser").unwrap().scope, Some(Scope::UsersWrite));
    let full_name = model.field("User", "fullName").unwrap();
    assert_eq!(full_name.deprecation, Some("Use `name`."));
    assert_eq!(model.field("User", "nickname").unwrap().deprecation, Some("No longer supported"));
    assert_eq!(model.field("User", "email").unwrap().deprecation, None);
    let groups = model.field("User", "groups").unwrap();
    assert_eq!((groups.ty.to_string().as_str(), groups.named_type), ("[Group!]!", "Group"));
    let user = model.type_info("User").unwrap();
    assert_eq!((user.kind, user.description), (TypeKind::Object, Some("A person.")));
    assert_eq!(model.type_info("String").unwrap().kind, TypeKind::Scalar);
    assert!(model.type_info("Nope").is_none());
    assert!(model.fields("Nope").is_empty() && model.fields("Role").is_empty());
}

#[test]
fn describes_enum_values_and_input_fields() {
    let model = model();
    let values = model.enum_values("Role");
    assert_eq!(values.iter().map(|v| v.name).collect::<Vec<_>>(), ["LEARNER", "ADMIN", "MANAGER"]);
    assert_eq!(values[0].description, Some("Takes trainings."));
    assert_eq!(values[1].deprecation, Some("Use `MANAGER`."));
    let inputs = model.input_fields("UpdateUserInput");
    assert_eq!(inputs.iter().map(|f| f.name).collect::<Vec<_>>(), ["name", "email", "roles"]);
    assert_eq!(inputs[1].default.map(ToString::to_string), Some("\"a@b.c\"".into()));
    assert_eq!((inputs[2].ty.to_string().as_str(), inputs[2].kind), ("[Role!]", TypeKind::Enum));
    assert!(model.input_fields("User").is_empty() && model.enum_values("User").is_empty());
}

#[test]
fn finds_the_shortest_path_from_a_root() {
    let model = model();
    assert_eq!(model.root_path("Query").unwrap(), ["Query"]);
    assert_eq!(model.root_path("User").unwrap(), ["Query", "user"]);
    assert_eq!(model.root_path("Group").unwrap(), ["Query", "user", "groups"]);
    assert_eq!(model.root_path("UserEdge").unwrap(), ["Query", "paginatedUsers", "edges"]);
    assert!(model.root_path("Unused").is_none());
    assert!(model.root_path("UpdateUserInput").is_none());
}

#[test]
fn search_ranks_exact_then_prefix_then_substring() {
    let model = model();
    let hits = model.search("EMAIL", 10);
    let labels: Vec<_> = hits.iter().map(SearchHit::label).collect();
    assert_eq!(
        labels,
        ["Email", "User.email", "UpdateUserInput.email", "Unused.email", "User.emailVerified", "User.workEmail"]
    );
    assert_eq!(
        hits.iter().map(|h| h.rank).collect::<Vec<_>>()[3..],
        [MatchRank::Exact, MatchRank::Prefix, MatchRank::Substring]
    );
    assert_eq!(hits[1].path_text().as_deref(), Some("Query.user.email"));
    assert_eq!(hits[0].path, None, "no field leads to Email");
    assert_eq!(hits[2].path, None, "input fields are not reached from a root");
    assert_eq!(hits[3].path, None, "no root reaches Unused");
    assert_eq!(model.search("email", 2).iter().map(SearchHit::label).collect::<Vec<_>>(), ["Email", "User.email"]);
    assert!(model.search("  ", 10).is_empty() && model.search("zzz", 10).is_empty());
}

#[test]
fn search_matches_type_and_field_in_a_dotted_needle() {
    let model = model();
    let labels = |needle: &str| model.search(needle, 10).iter().map(SearchHit::label).collect::<Vec<_>>();
    // Ranked by the worse of the two parts: `UpdateUserInput` only contains `user`.
    assert_eq!(labels("user.email"), ["User.email", "User.emailVerified", "UpdateUserInput.email", "User.workEmail"]);
    assert_eq!(labels("edge."), ["UserEdge.node", "UserEdge.cursor"]);
    assert_eq!(labels(".cursor"), ["UserEdge.cursor"]);
}

#[test]
fn a_broken_schema_says_why_in_one_sentence() {
    let err = SchemaModel::from_sdl("type Query { a: Nope }").unwrap_err();
    assert!(err.starts_with("the schema is not valid GraphQL: ") && err.contains("Nope"), "{err}");
    assert!(err.contains("line 1") && !err.contains('\n'), "{err}");
    let err = SchemaModel::from_introspection_json("{\"data\": 3}").unwrap_err();
    assert!(err.starts_with("the text is not an introspection result"), "{err}");
    let err = SchemaModel::from_introspection_json(r#"{"data":null,"errors":[{"message":"no"}]}"#).unwrap_err();
    assert_eq!(err, "the introspection query failed: no");
}

#[test]
fn synthetic_schemas_have_the_asked_size_and_depth() {
    let model = SchemaModel::from_sdl(&schema_sdl(1_500, 10_000)).unwrap();
    assert_eq!((model.type_count(), model.field_count()), (1_500, 10_000));
    let deepest = model.schema().types.keys().filter_map(|name| model.root_path(name)).map(|p| p.len()).max();
    assert!(deepest.unwrap() >= 6, "{deepest:?}");
    let fields = model.query_fields();
    assert!(fields.iter().any(|f| f.scope.is_some()) && fields.iter().any(|f| !f.arguments.is_empty()));
    let deprecated =
        model.fields("Account").into_iter().chain(model.fields("Invoice")).any(|f| f.deprecation.is_some());
    assert!(deprecated);
    let hits = model.search("account", 50);
    assert_eq!(hits.len(), 50);
    assert_eq!((hits[0].label(), hits[0].rank), ("Account".to_owned(), MatchRank::Exact));
    assert!(hits.windows(2).all(|w| w[0].rank <= w[1].rank));
}

#[test]
fn introspection_json_gives_the_same_model_as_the_sdl() {
    let from_json = SchemaModel::from_introspection_json(&introspection_json(60, 400)).unwrap();
    let from_sdl = SchemaModel::from_sdl(&schema_sdl(60, 400)).unwrap();
    assert_eq!((from_json.type_count(), from_json.field_count()), (60, 400));
    assert_eq!(from_json.search("a", 1_000), from_sdl.search("a", 1_000));
    assert_eq!(from_json.fields("Account"), from_sdl.fields("Account"));
    let json: serde_json::Value = serde_json::from_str(&introspection_json(60, 400)).unwrap();
    let data_only = SchemaModel::from_introspection_json(&json["data"].to_string()).unwrap();
    assert_eq!(data_only.search("a", 1_000), from_sdl.search("a", 1_000));
}

#[test]
fn the_model_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<SchemaModel>();
}
