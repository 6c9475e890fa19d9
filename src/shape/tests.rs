use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;
use serde_json::json;

use super::*;

/// A service unlike the sandbox: learning data nested on the user, noun-first mutations, errors
/// returned as data (graphene-django's `errors { field messages }`, Shopify's
/// `userErrors { field message }`), a filter input on a root connection.
pub(crate) const NESTED_SDL: &str = r#"
scalar Date
scalar DateTime

type Query {
  user(ref: String!): User
  paginatedUsers(first: Int!, after: String, ref: String): UserConnection!
  sessions(search: String, first: Int, after: String): SessionConnection!
  auditLog(filter: AuditFilter!, first: Int): [AuditEntry!]!
  group(ref: String!): Group
}

input AuditFilter { userId: ID! since: DateTime }
type AuditEntry { id: ID! action: String! at: DateTime! }

type Mutation {
  userCreate(input: UserCreateInput!): UserPayload!
  userUpdate(ref: String!, input: UserUpdateInput!): UserPayload!
  userArchive(ref: String!): UserPayload!
  userActivate(ref: String!): UserPayload!
  registrationCreate(userRef: String!, sessionId: ID!): RegistrationPayload!
  registrationChangeStatus(id: ID!, status: RegistrationStatus!): RegistrationPayload!
  groupMemberAdd(groupRef: String!, userRef: String!): GroupPayload!
  groupMemberRemove(groupRef: String!, userRef: String!): GroupPayload!
  sessionRename(id: ID!, title: String!): Session!
}

type User {
  id: ID!
  ref: String!
  name: String!
  email: String!
  isActive: Boolean!
  department: String
  locale: String
  hiredOn: Date
  legacyCode: String @deprecated(reason: "gone")
  registrations(first: Int, after: String): RegistrationConnection!
  trainingStatus: [TrainingStatus!]!
  certificates: [Certificate!]!
  groups: [Group!]!
}

type Group { id: ID! ref: String! name: String! members(first: Int, after: String): UserConnection! managers: [User!]! }

enum RegistrationStatus { REQUESTED CONFIRMED WAITLISTED CANCELLED ATTENDED NO_SHOW }
type Registration { id: ID! status: RegistrationStatus! registeredAt: DateTime! session: Session! user: User! }
type Session { id: ID! title: String! startsAt: DateTime! endsAt: DateTime! course: Course! }
type Course { id: ID! title: String! }
type TrainingStatus { course: Course! progressPercent: Float! completedAt: DateTime }
type Certificate { id: ID! course: Course! issuedOn: Date! expiresOn: Date }

type PageInfo { hasNextPage: Boolean! endCursor: String }
type UserEdge { node: User! cursor: String! }
type UserConnection { edges: [UserEdge!]! pageInfo: PageInfo! totalCount: Int! }
type RegistrationEdge { node: Registration! cursor: String! }
type RegistrationConnection { edges: [RegistrationEdge!]! pageInfo: PageInfo! totalCount: Int! }
type SessionEdge { node: Session! cursor: String! }
type SessionConnection { edges: [SessionEdge!]! pageInfo: PageInfo! }

input UserCreateInput { ref: String! name: String! email: String! department: String }
input UserUpdateInput { name: String email: String isActive: Boolean department: String locale: String }

type FieldError { field: String messages: [String!]! }
type UserError { field: [String!] message: String! code: String }
type UserPayload { user: User errors: [FieldError!]! }
type RegistrationPayload { registration: Registration userErrors: [UserError!]! }
type GroupPayload { group: Group errors: [FieldError!]! }
"#;

fn schema(sdl: &str) -> Valid<Schema> {
    Schema::parse_and_validate(sdl, "test.graphql").expect("a valid schema")
}

fn sandbox() -> Valid<Schema> {
    schema(&crate::sandbox::schema::sdl())
}

fn find<'m>(found: &'m [Mutation], field: &str) -> &'m Mutation {
    found.iter().find(|m| m.field == field).unwrap_or_else(|| panic!("{field} not found in {found:#?}"))
}

#[test]
fn the_sandboxs_learning_data_is_found_as_root_connections_taking_the_users_ref() {
    let schema = sandbox();
    let user = user_type(&schema).expect("a user type");
    assert_eq!(user, "User");
    let found = related(&schema, &user);
    let names: Vec<&str> = found.iter().map(|r| r.field.as_str()).collect();
    assert_eq!(names, ["paginatedProgress", "paginatedCertificates", "paginatedEnrollments"]);
    let enrollments = &found[2];
    assert_eq!(enrollments.label, "Enrollments");
    assert!(
        matches!(&enrollments.place, Place::Root { argument, key: Key::Ref, inside: None, .. } if argument == "userRef")
    );
    assert!(enrollments.connection && enrollments.count.is_some() && enrollments.after.is_some());
    let display = &enrollments.display;
    assert_eq!(display.titles[0], ["offer", "title"], "the offer's title first: {display:?}");
    let (state, enum_type, values) = display.state.clone().expect("a state");
    assert_eq!((state, enum_type.as_str()), (vec!["status".to_owned()], "EnrollmentStatus"));
    assert!(values.contains(&"NO_SHOW".to_owned()));
    assert!(display.dates.contains(&vec!["offer".to_owned(), "startsAt".to_owned()]), "{display:?}");
    let progress = &found[0];
    assert_eq!(progress.display.percent, Some(vec!["percent".to_owned()]));
    assert_eq!(progress.display.titles[0], ["training", "title"]);
    let certificates = &found[1];
    assert_eq!(certificates.display.expires, Some(vec!["expiresAt".to_owned()]));
    assert!(certificates.display.selection().contains("training { title"), "{}", certificates.display.selection());
}

#[test]
fn the_nested_shapes_learning_data_is_found_on_the_user_and_in_a_filter_input() {
    let schema = schema(NESTED_SDL);
    let found = related(&schema, "User");
    let names: Vec<(&str, &str)> = found.iter().map(|r| (r.field.as_str(), r.label.as_str())).collect();
    assert_eq!(
        names,
        [
            ("registrations", "Registrations"),
            ("trainingStatus", "Training status"),
            ("certificates", "Certificates"),
            ("auditLog", "Audit log"),
        ]
    );
    assert_eq!(found[0].place, Place::Nested);
    assert!(found[0].connection && found[0].count.as_deref() == Some("totalCount"), "totalCount counts");
    assert_eq!(found[0].display.titles[0], ["session", "title"]);
    assert_eq!(found[1].display.percent, Some(vec!["progressPercent".to_owned()]));
    assert_eq!(found[2].display.expires, Some(vec!["expiresOn".to_owned()]));
    assert!(
        matches!(&found[3].place, Place::Root { argument, inside: Some(inner), key: Key::Id, .. } if argument == "filter" && inner == "userId"),
        "{:?}",
        found[3].place
    );
}

#[test]
fn the_sandboxs_mutations_are_told_apart_by_shape() {
    let schema = sandbox();
    let found = mutations(&schema, "User", &related(&schema, "User"));
    assert_eq!(find(&found, "createUser").action, Action::CreateUser);
    assert_eq!(find(&found, "updateUser").action, Action::UpdateUser);
    assert_eq!(find(&found, "archiveUser").action, Action::ArchiveUser);
    assert_eq!(find(&found, "deleteUser").action, Action::DeleteUser);
    assert_eq!(find(&found, "addGroupMembers").action, Action::AddToGroup);
    assert_eq!(find(&found, "removeGroupMembers").action, Action::RemoveFromGroup);
    let status = find(&found, "updateEnrollmentStatus");
    assert!(
        matches!(&status.action, Action::ChangeState { node_type, values } if node_type == "Enrollment" && values.len() == 6)
    );
    assert!(status.arg(|s| matches!(s, Supply::ObjectKey(Key::Ref))).is_some());
    let enroll = find(&found, "enrollUser");
    assert_eq!(enroll.action, Action::Enroll { node_type: "Enrollment".into() });
    assert!(enroll.arg(|s| matches!(s, Supply::OtherKey(_))).is_some_and(|(name, _, _)| name == "offerRef"));
    let update = find(&found, "updateUser");
    assert!(update.sets().contains(&"email") && update.sets().contains(&"isActive"));
    assert_eq!(update.returns, Returns::Object);
    for other in ["createTraining", "recordProgress", "createGroup", "updateOffer"] {
        assert!(found.iter().all(|m| m.field != other), "{other} is not about users: {found:#?}");
    }
}

#[test]
fn noun_first_mutations_with_payloads_are_the_same_actions() {
    let schema = schema(NESTED_SDL);
    let found = mutations(&schema, "User", &related(&schema, "User"));
    assert_eq!(find(&found, "userCreate").action, Action::CreateUser);
    assert_eq!(find(&found, "userUpdate").action, Action::UpdateUser);
    assert_eq!(find(&found, "userArchive").action, Action::ArchiveUser);
    assert_eq!(find(&found, "userActivate").action, Action::ActivateUser);
    assert_eq!(find(&found, "groupMemberAdd").action, Action::AddToGroup);
    assert_eq!(find(&found, "groupMemberRemove").action, Action::RemoveFromGroup);
    let change = find(&found, "registrationChangeStatus");
    assert!(matches!(&change.action, Action::ChangeState { node_type, .. } if node_type == "Registration"));
    assert_eq!(find(&found, "registrationCreate").action, Action::Enroll { node_type: "Registration".into() });
    assert!(found.iter().all(|m| m.field != "sessionRename"), "a session is not the user's");
    let update = find(&found, "userUpdate");
    let Returns::Payload { object, errors: Some(errors) } = &update.returns else { panic!("{:?}", update.returns) };
    assert_eq!(object.as_deref(), Some("user"));
    assert_eq!(errors.selection(), "errors { field messages }");
    assert_eq!(update.returns.selection("{ ref }"), "{ user { ref } errors { field messages } }");
    let Returns::Payload { errors: Some(errors), .. } = &find(&found, "registrationChangeStatus").returns else {
        panic!("no payload")
    };
    assert_eq!(errors.selection(), "userErrors { field message code }");
}

#[test]
fn errors_returned_as_data_are_read_with_their_field() {
    let schema = schema(NESTED_SDL);
    let found = mutations(&schema, "User", &related(&schema, "User"));
    let update = find(&found, "userUpdate");
    let answer = json!({ "user": null, "errors": [{ "field": "email", "messages": ["Enter a valid email address.", "Too long."] }] });
    let errors = update.returns.errors(&answer);
    assert_eq!(
        errors,
        [PayloadError { field: Some("email".into()), message: "Enter a valid email address.; Too long.".into() }]
    );
    assert_eq!(errors[0].sentence(), "email: Enter a valid email address.; Too long.");
    assert!(update.returns.object(&answer).is_none(), "no user: the change was not made");
    let change = find(&found, "registrationChangeStatus");
    let answer = json!({ "registration": null, "userErrors": [{ "field": ["input", "status"], "message": "Cannot cancel", "code": "INVALID" }] });
    assert_eq!(change.returns.errors(&answer)[0].field.as_deref(), Some("input.status"));
    let fine = json!({ "user": { "ref": "u1" }, "errors": [] });
    assert!(update.returns.errors(&fine).is_empty());
    assert_eq!(update.returns.object(&fine), Some(&json!({ "ref": "u1" })));
}

#[test]
fn the_minimal_variant_offers_no_learning_data_and_no_mutation() {
    let db = std::sync::Arc::new(crate::sandbox::data::SharedDb::new(crate::sandbox::data::generate(3, 1)));
    let sdl = crate::sandbox::minimal::build(db).expect("the schema builds").sdl();
    let schema = schema(&sdl);
    let user = user_type(&schema).expect("a user type");
    assert!(related(&schema, &user).is_empty());
    assert!(mutations(&schema, &user, &[]).is_empty());
}

#[test]
fn every_fixture_of_a_real_library_reads_its_users_mutations_alike() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/introspection");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("the fixtures") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let json = std::fs::read_to_string(&path).expect("readable");
        let introspection = crate::api::read_introspection_json(&json).expect("a schema");
        let schema = &introspection.schema;
        let user = user_type(schema).unwrap_or_else(|| panic!("{}: no user type", path.display()));
        let found = mutations(schema, &user, &related(schema, &user));
        let name = path.display();
        assert_eq!(find(&found, "createUser").action, Action::CreateUser, "{name}");
        assert_eq!(find(&found, "archiveUser").action, Action::ArchiveUser, "{name}");
        read += 1;
    }
    assert!(read >= 6, "every library's fixture was read ({read})");
}

#[test]
fn names_and_values_read_as_words() {
    assert_eq!(enum_words("NO_SHOW"), "No show");
    assert_eq!(enum_words("IN_PROGRESS"), "In progress");
    assert_eq!(label("paginatedEnrollments"), "Enrollments");
    assert_eq!(label("trainingStatus"), "Training status");
    assert_eq!(label("user_groups"), "User groups");
}

#[test]
fn the_other_object_of_an_enrollment_is_chosen_from_its_root_list() {
    let schema = sandbox();
    let found = mutations(&schema, "User", &related(&schema, "User"));
    let search = search_for(&schema, find(&found, "enrollUser"), "User").expect("offers to choose from");
    assert_eq!(
        (search.type_name.as_str(), search.field.as_str(), search.key.as_str()),
        ("Offer", "paginatedOffers", "ref")
    );
    assert!(search.text.is_none(), "the sandbox's offers have no title filter: compared by orgql");
    assert_eq!(search.display.titles[0], ["title"]);
    let nested = schema_of_nested();
    let found = mutations(&nested, "User", &related(&nested, "User"));
    let search = search_for(&nested, find(&found, "registrationCreate"), "User").expect("sessions");
    assert_eq!((search.field.as_str(), search.key.as_str()), ("sessions", "id"));
    assert_eq!(search.text, Some(("search".to_owned(), "String".to_owned())));
}

fn schema_of_nested() -> Valid<Schema> {
    schema(NESTED_SDL)
}

/// The nested variant of the sandbox (`orgql sandbox --variant nested`) serves the shape
/// [`NESTED_SDL`] describes: its real schema is read the same way.
#[test]
fn the_nested_variants_real_schema_is_read_as_the_nested_shape() {
    let nested = schema(&crate::sandbox::nested::sdl());
    let user = user_type(&nested).expect("a user type");
    let found = related(&nested, &user);
    let names: Vec<(&str, &str)> = found.iter().map(|r| (r.field.as_str(), r.label.as_str())).collect();
    assert_eq!(
        names,
        [("registrations", "Registrations"), ("trainingStatus", "Training status"), ("certificates", "Certificates")]
    );
    assert_eq!(found[0].place, Place::Nested);
    assert!(found[0].connection && found[0].count.as_deref() == Some("totalCount") && found[0].after.is_some());
    assert_eq!(found[0].display.titles[0], ["session", "title"]);
    let (_, enum_type, values) = found[0].display.state.clone().expect("a state");
    assert_eq!((enum_type.as_str(), values.len()), ("RegistrationStatus", 6));
    assert_eq!(found[1].display.percent, Some(vec!["progressPercent".to_owned()]));
    assert_eq!(found[2].display.expires, Some(vec!["expiresOn".to_owned()]));

    let mutations = mutations(&nested, &user, &found);
    for (field, action) in [
        ("userCreate", Action::CreateUser),
        ("userUpdate", Action::UpdateUser),
        ("userArchive", Action::ArchiveUser),
        ("userActivate", Action::ActivateUser),
        ("groupMemberAdd", Action::AddToGroup),
        ("groupMemberRemove", Action::RemoveFromGroup),
        ("registrationCreate", Action::Enroll { node_type: "Registration".into() }),
    ] {
        assert_eq!(find(&mutations, field).action, action, "{field}");
    }
    let change = find(&mutations, "registrationChangeStatus");
    assert!(matches!(&change.action, Action::ChangeState { node_type, .. } if node_type == "Registration"));
    let Returns::Payload { errors: Some(errors), .. } = &change.returns else { panic!("{:?}", change.returns) };
    assert_eq!(errors.selection(), "userErrors { field message code }");
    let update = find(&mutations, "userUpdate");
    assert_eq!(update.returns.selection("{ ref }"), "{ user { ref } errors { field messages } }");
    let search = search_for(&nested, find(&mutations, "registrationCreate"), &user).expect("sessions");
    assert_eq!((search.field.as_str(), search.key.as_str()), ("sessions", "id"));
    assert_eq!(search.text, Some(("search".to_owned(), "String".to_owned())));
}

#[test]
fn entries_a_user_carries_are_found_by_their_key_and_value_whatever_their_names() {
    let contract = sandbox();
    let found = entries(&contract, "User", "UpdateUserInput");
    assert_eq!(found.len(), 1, "{found:#?}");
    let extra = &found[0];
    assert_eq!(
        (extra.input.as_str(), extra.key_input.as_str(), extra.value_input.as_str(), extra.output.as_str()),
        ("extraFields", "categoryRef", "value", "extraFields")
    );
    assert_eq!(extra.key_path, ["category", "ref"]);
    assert_eq!(extra.selection(), "{ category { ref } value }");
    let keys = extra.keys.as_ref().expect("the categories are listed at the root");
    assert_eq!(
        (keys.field.as_str(), keys.connection, keys.name.as_deref(), keys.allowed.as_deref()),
        ("paginatedExtraCategories", true, Some("name"), Some("allowedValues"))
    );
    assert_eq!(
        extra.keys_query().as_deref(),
        Some("query { paginatedExtraCategories { edges { node { ref name allowedValues } } } }")
    );
    assert_eq!(entries(&contract, "User", "CreateUserInput"), found, "the create input takes the same list");

    // Saleor's metadata: a plain key, read back as it is, listed nowhere; and a list of keys
    // alone (no value) is not entries.
    let saleor = schema(
        r#"
        type Query { user(ref: String!): User }
        type Mutation { userUpdate(ref: String!, input: UserInput!): User }
        type User { ref: String! name: String! metadata: [MetadataItem!]! tags: [String!]! }
        type MetadataItem { key: String! value: String! }
        input MetadataInput { key: String! value: String! }
        input UserInput { name: String metadata: [MetadataInput!] tags: [String!] }
        "#,
    );
    let found = entries(&saleor, "User", "UserInput");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].input.as_str(), found[0].key_path.as_slice()), ("metadata", ["key".to_owned()].as_slice()));
    assert_eq!(found[0].selection(), "{ key value }");
    assert_eq!(found[0].keys, None);

    // The nested server's users carry none.
    let nested = schema(&crate::sandbox::nested::sdl());
    assert!(entries(&nested, "User", "UserUpdateInput").is_empty());
}

#[test]
fn a_bulk_creation_is_found_by_the_list_of_the_creations_input_it_takes() {
    let nested = schema(&crate::sandbox::nested::sdl());
    let batch = batch_create(&nested, "User", "UserCreateInput").expect("userBulkCreate");
    assert_eq!(
        (batch.field.as_str(), batch.argument.as_str(), batch.argument_type.as_str(), batch.results.as_deref()),
        ("userBulkCreate", "inputs", "[UserCreateInput!]!", Some("results"))
    );
    assert_eq!(batch.selection("{ id ref }"), "{ results { user { id ref } errors { field messages } } }");
    let answer = json!({ "count": 1, "results": [
        { "user": { "id": "1", "ref": "a" }, "errors": [] },
        { "user": null, "errors": [{ "field": "email", "messages": ["Enter a valid email address."] }] },
    ] });
    let results = batch.results(&answer);
    assert_eq!(results.len(), 2);
    assert_eq!(batch.item.object(results[0]).and_then(|u| u.get("ref")), Some(&json!("a")));
    assert_eq!(batch.item.errors(results[1])[0].sentence(), "email: Enter a valid email address.");
    // The one-user creation is not taken for a bulk one, nor is anything on the sandbox.
    assert!(find(&mutations(&nested, "User", &related(&nested, "User")), "userCreate").action == Action::CreateUser);
    assert_eq!(batch_create(&sandbox(), "User", "CreateUserInput"), None);
    // A list of users as the answer.
    let plain = schema(
        r#"
        type Query { user(ref: String!): User }
        type Mutation { createUser(input: NewUser!): User createUsers(input: [NewUser!]!, dryRun: Boolean): [User] }
        type User { ref: String! name: String! }
        input NewUser { ref: String! name: String! }
        "#,
    );
    let batch = batch_create(&plain, "User", "NewUser").expect("createUsers");
    assert_eq!(
        (batch.field.as_str(), batch.results.clone(), batch.item.clone()),
        ("createUsers", None, Returns::Object)
    );
}

/// A related item's label: its own title first, then a `…Name`/`…Title` scalar beside its state
/// (graphene-django's `offerName`), then what it points to; never a person's name part.
#[test]
fn a_related_items_label_is_found_by_shape() {
    let graphene = graphene_django();
    let display = Display::of(&graphene, "EnrollmentNode", "UserNode");
    assert_eq!(display.titles.first().map(|p| p.join(".")), Some("offerName".to_owned()), "{display:?}");
    let sdl = r#"
        type Offer { title: String! }
        type Enrollment { id: ID! userName: String firstName: String offerName: String status: String offer: Offer }
        type Query { e: Enrollment }
    "#;
    let nested = schema(sdl);
    let display = Display::of(&nested, "Enrollment", "User");
    let titles: Vec<String> = display.titles.iter().map(|p| p.join(".")).collect();
    assert_eq!(titles, ["offerName", "offer.title"]);
    let own = schema_own_title();
    assert_eq!(Display::of(&own, "Enrollment", "User").titles[0], ["title"]);
}

fn schema_own_title() -> Valid<Schema> {
    schema("type Enrollment { id: ID! courseTitle: String title: String } type Query { e: Enrollment }")
}

/// What graphene-django 3.2.3 makes of `tests/django_service` (written by its `introspect.py`),
/// read as orgql reads an introspection: its SDL and its schema.
pub(crate) fn graphene_django_introspection() -> crate::api::Introspection {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/django_service/introspection-graphene-django-3.2.3.json"
    ))
    .expect("the committed fixture");
    crate::api::read_introspection_json(&text).expect("the fixture reads")
}

/// [`graphene_django_introspection`]'s schema.
pub(crate) fn graphene_django() -> Valid<Schema> {
    graphene_django_introspection().schema
}

/// What strawberry-graphql-django 0.93 makes of `tests/strawberry_service` (written by its
/// `introspect.py`).
pub(crate) fn strawberry_django() -> Valid<Schema> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/introspection/strawberry-django-0.93.0.json"
    ))
    .expect("the committed fixture");
    crate::api::read_introspection_json(&text).expect("the fixture reads").schema
}

#[test]
fn strawberry_djangos_union_payloads_and_partial_input_named_by_its_global_id() {
    let schema = strawberry_django();
    let user = user_type(&schema).expect("User");
    assert_eq!(user, "User");
    let found = mutations(&schema, &user, &related(&schema, &user));
    let update = find(&found, "updateUser");
    assert_eq!(update.action, Action::UpdateUser);
    // The required relay `id` names the record; the optional `ref` beside it is data.
    let Supply::Input { fields, key, nest: None } = &update.args[0].2 else { panic!("{:?}", update.args) };
    assert_eq!(key, &Some(("id".to_owned(), Key::Id)));
    assert_eq!(fields, &["ref", "name", "email", "isActive", "department"]);
    assert_eq!(style(&schema, update, &user), Style::Patch, "a partial input patches");
    assert_eq!(
        update.returns.selection("{ id }"),
        "{ __typename ... on User { id } ... on OperationInfo { messages { kind field message code } } }"
    );
    assert_eq!(update.returns.unreadable("updateUser"), None);
    // The answer read: the user as the success, OperationInfo's messages as refusals at their field.
    let refused = json!({ "__typename": "OperationInfo", "messages": [
        { "kind": "VALIDATION", "message": "Enter a valid email address.", "field": "email", "code": "invalid" },
        { "kind": "ERROR", "message": "Learner matching query does not exist.", "field": null, "code": null } ] });
    assert_eq!(update.returns.object(&refused), None);
    let errors = update.returns.errors(&refused);
    assert_eq!(errors[0].sentence(), "email: Enter a valid email address.");
    assert_eq!(
        (errors[1].field.as_deref(), errors[1].message.as_str()),
        (None, "Learner matching query does not exist.")
    );
    let done = json!({ "__typename": "User", "id": "VXNlcjoz" });
    assert_eq!(update.returns.object(&done), Some(&done));
    assert!(update.returns.errors(&done).is_empty());
    assert_eq!(find(&found, "createUser").action, Action::CreateUser);
    assert_eq!(find(&found, "archiveUser").action, Action::ArchiveUser);
    // Its lookups: `filters: {email: {iExact: …}}`, case-insensitive.
    let query = schema.get_object("Query").unwrap();
    let lookup = lookup(&schema, &query.fields["paginatedUsers"], "email", true).expect("a lookup");
    assert_eq!(lookup.value("A@x.org"), json!({ "email": { "iExact": "A@x.org" } }));
}

/// Result unions ("errors as data"), Hot Chocolate's error lists, and a member that is neither.
const CONVENTIONS_SDL: &str = r#"
type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
type UserEdge { node: User! }
type UserConnection { edges: [UserEdge!]! count: Int! }
type Query { user(ref: String!): User paginatedUsers(first: Int): UserConnection! }
input UpdateUserInput { name: String email: String isActive: Boolean }
interface Error { message: String! }
type UpdateUserSuccess { user: User! }
type ValidationError implements Error { message: String! field: String! }
type NotFoundError implements Error { message: String! }
type Pending { at: String }
union UpdateUserResult = UpdateUserSuccess | ValidationError | NotFoundError
union OddResult = User | Pending
union UpdateUserError = ValidationError | NotFoundError
type EditUserPayload { user: User errors: [UpdateUserError!] }
type Mutation {
  updateUser(ref: String!, input: UpdateUserInput!): UpdateUserResult!
  editUser(ref: String!, input: UpdateUserInput!): EditUserPayload!
  archiveUser(ref: String!): OddResult!
}
"#;

#[test]
fn result_unions_and_error_lists_of_a_union_are_read_by_shape() {
    let schema = schema(CONVENTIONS_SDL);
    let found = mutations(&schema, "User", &[]);
    let update = find(&found, "updateUser");
    assert_eq!(
        update.returns.selection("{ id }"),
        "{ __typename ... on UpdateUserSuccess { user { id } } ... on ValidationError { field message } \
         ... on NotFoundError { message } }"
    );
    let done = json!({ "__typename": "UpdateUserSuccess", "user": { "id": "1" } });
    assert_eq!(update.returns.object(&done), Some(&json!({ "id": "1" })));
    let refused = json!({ "__typename": "ValidationError", "message": "is not valid", "field": "email" });
    assert_eq!(update.returns.errors(&refused)[0].sentence(), "email: is not valid");
    let hc = find(&found, "editUser");
    assert_eq!(
        hc.returns.selection("{ id }"),
        "{ user { id } errors { __typename ... on ValidationError { field message } ... on NotFoundError { message } } }"
    );
    let refused = json!({ "user": null, "errors": [{ "__typename": "NotFoundError", "message": "no such user" }] });
    assert_eq!(hc.returns.errors(&refused)[0].sentence(), "no such user");
    // A member that is neither the user nor an error: refused before anything is sent.
    let odd = find(&found, "archiveUser");
    let why = odd.returns.unreadable("archiveUser").expect("Pending cannot be read");
    assert!(why.contains("may answer Pending (of its OddResult)") && why.contains("nothing was sent"), "{why}");
}
