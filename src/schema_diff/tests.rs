use super::*;

fn shape(sdl: &str) -> SchemaShape {
    SchemaShape::from_sdl(sdl).expect("the SDL parses")
}

fn lines(old: &str, new: &str) -> Vec<String> {
    compare(&shape(old), &shape(new)).iter().map(ToString::to_string).collect()
}

const OLD: &str = r#"
type Query {
  user(ref: String!): User
  paginatedUsers(first: Int = 50, email: String, isActive: Boolean): [User!]!
  groups: [Group]
  search(term: String!): Result
}
type User implements Node { id: ID! name: String! email: String age: Int status: Status legacy: String }
interface Node { id: ID! }
type Group { name: String }
type Team { name: String }
union Result = User | Group
enum Status { ACTIVE INACTIVE PENDING }
input UserInput { name: String! email: String locale: String }
type Mutation { updateUser(ref: String!, input: UserInput!): User }
"#;

const NEW: &str = r#"
type Query {
  user(ref: String!, org: String!): User
  paginatedUsers(first: Int = 20, isActive: Boolean, order: String): [User!]!
  groups: [Group]
  search(term: String): Result
}
"The person."
type User { id: ID! name: String! @deprecated(reason: "Use `fullName`.") fullName: String! email: String! age: String status: Status }
interface Node { id: ID! }
type Group { name: String }
union Result = User | Group | Team
type Team { name: String }
enum Status { ACTIVE INACTIVE @deprecated(reason: "Use `ARCHIVED`.") ARCHIVED }
input UserInput { name: String! email: String! department: String }
type Mutation { updateUser(ref: String!, input: UserInput!): User }
type Course { title: String }
"#;

#[test]
fn classifies_as_graphql_js_and_inspector_do() {
    let got = lines(OLD, NEW);
    let expected = [
        "breaking: User no longer implements Node",
        "breaking: argument email removed from Query.paginatedUsers",
        "breaking: enum value Status.PENDING removed",
        "breaking: field User.age changed type from Int to String",
        "breaking: field User.legacy removed",
        "breaking: input field UserInput.email made required (String → String!)",
        "breaking: input field UserInput.locale removed",
        "breaking: required argument Query.user(org:) added",
        "dangerous: Team added to union Result",
        "dangerous: argument Query.search(term:) made optional (String! → String)",
        "dangerous: default of argument Query.paginatedUsers(first:) changed from 50 to 20",
        "dangerous: enum value Status.ARCHIVED added",
        "dangerous: optional input field UserInput.department added",
        "safe: description of User added",
        "safe: field User.email changed type from String to String!",
        "safe: field User.fullName added",
        "safe: optional argument Query.paginatedUsers(order:) added",
        "safe: type Course added",
        "deprecated: Status.INACTIVE — Use `ARCHIVED`.",
        "deprecated: User.name — Use `fullName`.",
    ];
    let mut got_sorted = got.clone();
    got_sorted.sort_by_key(|line| {
        let level = ["breaking", "dangerous", "safe", "deprecated"].iter().position(|l| line.starts_with(l));
        (level, line.clone())
    });
    assert_eq!(got_sorted, expected, "{got:#?}");
}

#[test]
fn deprecations_name_their_alternative_only_when_it_fits() {
    let changes = compare(&shape(OLD), &shape(NEW));
    let deprecated: Vec<(&str, Option<&str>)> = changes
        .iter()
        .filter(|c| c.level == Level::Deprecated)
        .map(|c| (c.site.path.as_str(), c.alternative.as_deref()))
        .collect();
    assert_eq!(deprecated, [("Status.INACTIVE", Some("ARCHIVED")), ("User.name", Some("fullName"))]);

    let old = "type Query { a: Int } type User { name: String! first: String last: Int count(by: Int): Int }";
    let cases = [
        // Two names: no one alternative.
        ("Use first and last", None),
        // Nullable where the old one was not: a reader of String! may fail.
        ("Use `first`.", None),
        // Another type.
        ("Use `last`.", None),
        // Not on the same type.
        ("Use `Query.a`.", None),
        // Needs no argument it lacks (`by` is optional).
        ("Replaced by full", Some("full")),
        ("Use `User.full` instead", Some("full")),
        ("No longer supported", None),
    ];
    for (reason, alternative) in cases {
        let new = format!(
            "type Query {{ a: Int }} type User {{ name: String! @deprecated(reason: \"{reason}\") first: String last: Int full: String! count(by: Int): Int }}"
        );
        let changes = compare(&shape(old), &shape(&new));
        let change = changes.iter().find(|c| c.level == Level::Deprecated).expect("a deprecation");
        assert_eq!(change.alternative.as_deref(), alternative, "{reason}");
        assert_eq!(change.reason.as_deref(), Some(reason));
    }
}

#[test]
fn arguments_and_input_fields_have_alternatives_too() {
    let old = "type Query { users(email: String, mail: String): Int } input F { a: Int b: Int }";
    let new = r#"type Query { users(email: String @deprecated(reason: "Use `mail`."), mail: String): Int }
        input F { a: Int @deprecated(reason: "use b") b: Int }"#;
    let changes = compare(&shape(old), &shape(new));
    let got: Vec<(&str, Element, Option<&str>)> =
        changes.iter().map(|c| (c.site.path.as_str(), c.site.element, c.alternative.as_deref())).collect();
    assert_eq!(
        got,
        [("F.a", Element::InputField, Some("b")), ("Query.users(email:)", Element::Argument, Some("mail"))]
    );
}

#[test]
fn the_fingerprint_ignores_order_and_sees_every_difference() {
    let a = "type Query { b(y: Int, x: Int): Int a: String } enum E { Y X } type T { z: Int }";
    let b = "enum E { X Y }\ntype T { z: Int }\ntype Query { a: String b(x: Int, y: Int): Int }";
    assert_eq!(shape(a).fingerprint(), shape(b).fingerprint());
    assert_eq!(shape(a).fingerprint().len(), 64);
    for other in [
        "type Query { b(y: Int, x: Int): Int a: String! } enum E { Y X } type T { z: Int }",
        "type Query { b(y: Int, x: Int = 1): Int a: String } enum E { Y X } type T { z: Int }",
        "type Query { b(y: Int, x: Int): Int a: String @deprecated } enum E { Y X } type T { z: Int }",
        "type Query { b(y: Int, x: Int): Int \"Why\" a: String } enum E { Y X } type T { z: Int }",
    ] {
        assert_ne!(shape(a).fingerprint(), shape(other).fingerprint(), "{other}");
    }
    assert!(compare(&shape(a), &shape(b)).is_empty());
}

#[test]
fn types_removed_or_changing_kind_and_directives() {
    let old =
        "directive @auth(role: String) on FIELD_DEFINITION | OBJECT type Query { a: Int } type A { x: Int } scalar S";
    let new = "directive @auth(role: String!) on FIELD_DEFINITION type Query { a: Int } input A { x: Int } directive @new on FIELD";
    assert_eq!(
        lines(old, new),
        [
            "breaking: location OBJECT removed from directive @auth",
            "breaking: argument @auth(role:) made required (String → String!)",
            "breaking: type A changed from an object type to an input object type",
            "breaking: type S removed",
            "safe: directive @new added",
        ]
    );
}

#[test]
fn summary_counts_by_kind() {
    let changes = compare(&shape(OLD), &shape(NEW));
    let summary = Summary::of(&changes);
    assert_eq!(summary.deprecated, 2);
    assert_eq!(summary.breaking, 8);
    assert_eq!(summary.removed, 5);
    assert_eq!(Summary::default().phrase(), "no changes");
    let one = Summary { added: 2, deprecated: 1, removed: 1, ..Summary::default() };
    assert_eq!(one.phrase(), "2 added, 1 deprecated, 1 removed");
}

#[test]
fn reasons_name_alternatives() {
    assert_eq!(named_in_reason("Use `fullName`."), ["fullName"]);
    assert_eq!(named_in_reason("Use `User.fullName` or `nick`"), ["User.fullName", "nick"]);
    assert_eq!(named_in_reason("Use displayName instead."), ["displayName"]);
    assert_eq!(named_in_reason("Replaced by `users(first:)`"), ["users"]);
    assert_eq!(named_in_reason("Use firstName and lastName"), ["firstName", "lastName"]);
    assert!(named_in_reason("No longer supported").is_empty());
}
