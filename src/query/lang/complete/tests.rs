//! Completion against a trimmed sandbox schema, on finished and unfinished documents.

use super::super::test_schema::schema;
use super::*;

/// The completions where `|` is in `marked` (the `|` removed).
fn at_bar(marked: &str) -> (String, Completions) {
    let cursor = marked.find('|').unwrap_or(marked.len());
    let text = marked.replacen('|', "", 1);
    let completions = complete(&schema(), &text, cursor);
    (text, completions)
}

fn labels(marked: &str) -> Vec<String> {
    at_bar(marked).1.items.into_iter().map(|item| item.label).collect()
}

#[test]
fn field_names_of_the_type_at_the_cursor_in_an_unfinished_document() {
    let (text, completions) = at_bar("{ users { edges { node { em");
    assert_eq!(&text[completions.replace.clone()], "em");
    let [email] = completions.items.as_slice() else { panic!("{completions:#?}") };
    assert_eq!((email.label.as_str(), email.detail.as_str(), email.kind), ("email", "String!", CompletionKind::Field));
    assert_eq!(email.documentation.as_deref(), Some("The work email address."));
}

#[test]
fn every_field_with_the_deprecated_ones_last() {
    let (_, completions) = at_bar("{ users { edges { node { | } } } }");
    let names: Vec<&str> = completions.items.iter().map(|item| item.label.as_str()).collect();
    let expected = ["ref", "email", "firstName", "lastName", "status", "isActive", "groups", "__typename", "fullName"];
    assert_eq!(names, expected);
    assert_eq!(completions.items[8].deprecated.as_deref(), Some("Use firstName and lastName"));
    assert_eq!(labels("{ users { edges { node { ref | } } } }").len(), 9);
}

#[test]
fn fields_after_a_closed_selection_and_after_an_alias() {
    assert_eq!(labels("{ users { edges { node { ref } } | } }"), ["edges", "pageInfo", "count", "__typename"]);
    assert_eq!(labels("{ users { edges { node { mail: em"), ["email"]);
    assert_eq!(labels("{ users { edges { node { mail: |"), labels("{ users { edges { node { |"));
    assert_eq!(labels("query {\n  users(first: 2) {\n    c|\n  }\n}"), ["count"]);
    assert_eq!(labels("mutation { cr"), ["createUser"]);
}

#[test]
fn fields_through_fragments_and_their_type_conditions() {
    assert_eq!(labels("{ users { edges { node { ... on User { fi"), ["firstName"]);
    assert_eq!(labels("{ users { ...C } }\nfragment C on UserConnection { edges { node { groups { p"), ["pageInfo"]);
    assert_eq!(labels("{ users { edges { node { ... { st"), ["status"]);
    let types = labels("{ users { edges { node { ... on |");
    assert!(types.contains(&"User".to_string()) && types.contains(&"Group".to_string()), "{types:?}");
    assert!(!types.iter().any(|name| name.starts_with("__") || name == "String" || name == "UserFilter"));
    assert_eq!(labels("fragment F on Us"), ["UserConnection", "UserEdge", "User"]);
}

#[test]
fn argument_names_inside_parentheses_but_those_given() {
    let (text, completions) = at_bar("query { users(fi");
    assert_eq!(&text[completions.replace.clone()], "fi");
    let names: Vec<(&str, CompletionKind)> = completions.items.iter().map(|i| (i.label.as_str(), i.kind)).collect();
    assert_eq!(names, [("first", CompletionKind::Argument), ("filter", CompletionKind::Argument)]);
    assert_eq!(completions.items[0].documentation.as_deref(), Some("How many users a page holds."));
    assert_eq!(labels("{ users(first: 10, |) { count } }"), ["after", "filter", "orderBy"]);
    assert_eq!(labels("{ users(first: 10 |"), ["after", "filter", "orderBy"]);
    assert_eq!(labels("{ users(|after: \"x\") { count } }"), ["first", "filter", "orderBy"]);
    assert_eq!(labels("{ user(|"), ["ref"]);
}

#[test]
fn enum_values_and_booleans_after_an_argument_name() {
    assert_eq!(labels("{ users(orderBy: |"), ["REF", "EMAIL"]);
    assert_eq!(labels("{ users(orderBy: E"), ["EMAIL"]);
    let (_, completions) = at_bar("{ users(filter: { status: | }) { count } }");
    let values: Vec<(&str, Option<&str>)> =
        completions.items.iter().map(|i| (i.label.as_str(), i.deprecated.as_deref())).collect();
    assert_eq!(
        values,
        [("ACTIVE", None), ("ARCHIVED", None), ("PENDING", Some("Invitations are accepted at once now"))]
    );
    assert_eq!(completions.items[1].documentation.as_deref(), Some("Archived users cannot sign in."));
    assert_eq!(labels("{ users(filter: {status: AC"), ["ACTIVE"]);
    assert_eq!(labels("{ users(filter: { active: |"), ["true", "false"]);
    assert_eq!(labels("{ users(filter: { active: t"), ["true"]);
    assert!(labels("{ users(first: |").is_empty());
}

#[test]
fn input_object_fields_inside_braces_but_those_given() {
    assert_eq!(labels("{ users(filter: {sta"), ["status"]);
    assert_eq!(labels("{ users(filter: { status: ACTIVE, |"), ["groupName", "search", "active"]);
    let (_, completions) = at_bar("mutation { createUser(input: { | }) { ref } }");
    let fields: Vec<(&str, &str, CompletionKind)> =
        completions.items.iter().map(|i| (i.label.as_str(), i.detail.as_str(), i.kind)).collect();
    assert_eq!(
        fields,
        [
            ("email", "String!", CompletionKind::InputField),
            ("firstName", "String!", CompletionKind::InputField),
            ("lastName", "String!", CompletionKind::InputField),
            ("status", "UserStatus", CompletionKind::InputField),
            ("groupRefs", "[String!]", CompletionKind::InputField),
        ]
    );
    assert_eq!(labels("mutation { createUser(input: { status: |"), ["ACTIVE", "ARCHIVED", "PENDING"]);
}

#[test]
fn nothing_in_comments_strings_numbers_or_unknown_places() {
    assert!(labels("{ users { # ed|\n count } }").is_empty());
    assert!(labels("{ user(ref: \"ab|\") { ref } }").is_empty());
    assert!(labels("{ users(first: 1|").is_empty());
    assert!(labels("{ usrs { |").is_empty());
    assert!(labels("|").is_empty());
    assert!(labels("query Q($n: |").is_empty());
    assert!(labels("{ users { edges { node { ...|").is_empty());
}

#[test]
fn the_cursor_is_clamped_to_the_text() {
    let completions = complete(&schema(), "{ us", 99);
    assert_eq!(completions.replace, 2..4);
    assert_eq!(completions.items.iter().map(|i| i.label.as_str()).collect::<Vec<_>>(), ["users", "user"]);
    let completions = complete(&schema(), "{ é", 3);
    assert_eq!(completions.replace, 2..2);
    assert_eq!(completions.items.len(), 4);
}

#[test]
fn errors_before_the_cursor_do_not_stop_completion() {
    assert_eq!(labels("{ users(first: ) { edges { node { em"), ["email"]);
    assert_eq!(
        labels(
            "query Q($n: Int) {\n  users(first: $n, filter: {status: ACTIVE}) {\n    edges {\n      node {\n        fir"
        ),
        ["firstName"]
    );
    assert_eq!(labels("{ users { edges { node { ref( } } } } user(ref: \"x\") { gr"), ["groups"]);
    assert_eq!(
        labels("{ users { edges { node { groups { edges { node { | } } } } } } }"),
        ["id", "name", "__typename"]
    );
    assert_eq!(labels("{ users { count }\n  user(ref: \"a\" { em"), ["email"]);
    assert_eq!(labels("{ users { edges { node { email @include(if: true) gr"), ["groups"]);
    assert_eq!(labels("{ users { edges { node { email @include(|"), ["if"]);
}
