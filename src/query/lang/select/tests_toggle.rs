//! Ticking and unticking fields.

use super::super::super::OperationKind::{Mutation, Query};
use super::*;

/// A document with comments, variables, a named fragment, an inline fragment and aliases.
pub(super) const SAMPLE: &str = r#"# Active users and their groups
query Users($first: Int = 10) {
  # the connection
  users(first: $first, filter: { status: ACTIVE }) {
    edges {
      node {
        ref
        work: email # the work address
        ...Names
        ... on User {
          groups {
            edges { node { name } }
          }
        }
      }
    }
  }
  me: user(ref: "u1") { email }
}

fragment Names on User {
  firstName
  lastName # family name
}
"#;

/// `text` after toggling `path` in its query.
pub(super) fn toggled(text: &str, path: &str, on: bool) -> String {
    toggled_in(text, Query, path, on)
}

fn toggled_in(text: &str, kind: OperationKind, path: &str, on: bool) -> String {
    let path: Vec<&str> = path.split('.').collect();
    match toggle_field(text, kind, &path, on) {
        Ok(Some(edit)) => edit.apply(text),
        Ok(None) => text.to_string(),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn ticking_in_an_empty_document_adds_a_query_and_unticking_removes_it() {
    let ticked = toggled("", "users.edges.node.email", true);
    assert_eq!(ticked, "query {\n  users {\n    edges {\n      node {\n        email\n      }\n    }\n  }\n}");
    assert_eq!(toggled(&ticked, "users.edges.node.email", false), "");
    let notes = "# my notes\n";
    let ticked = toggled(notes, "users.count", true);
    assert_eq!(ticked, "# my notes\nquery {\n  users {\n    count\n  }\n}\n");
    assert_eq!(toggled(&ticked, "users.count", false), notes);
}

#[test]
fn ticking_then_unticking_gives_back_the_text_exactly() {
    let paths = [
        "users.edges.node.fullName",
        "users.pageInfo.hasNextPage",
        "users.edges.node.groups.edges.node.id",
        "users.edges.cursor",
        "user.firstName",
        "user.groups.edges.node.name",
        "group.name",
    ];
    for path in paths {
        let ticked = toggled(SAMPLE, path, true);
        assert_ne!(ticked, SAMPLE, "{path}");
        assert!(selected_paths(&ticked, None).is_selected(Query, &path.split('.').collect::<Vec<_>>()), "{path}");
        assert_eq!(toggled(&ticked, path, false), SAMPLE, "{path}\n{ticked}");
    }
}

#[test]
fn ticking_follows_the_indentation_of_the_lines_around() {
    let ticked = toggled(SAMPLE, "users.edges.node.fullName", true);
    assert!(ticked.contains("        }\n        fullName\n      }\n"), "{ticked}");
    let ticked = toggled(SAMPLE, "users.edges.node.groups.edges.node.id", true);
    assert!(ticked.contains("edges { node { name id } }"), "{ticked}");
    let ticked = toggled(SAMPLE, "group.members.edges.node.ref", true);
    assert!(
        ticked.contains("  me: user(ref: \"u1\") { email }\n  group {\n    members {\n      edges {\n"),
        "{ticked}"
    );
    let tabs = "query {\n\tusers {\n\t\tcount\n\t}\n}";
    assert_eq!(
        toggled(tabs, "users.edges.cursor", true),
        "query {\n\tusers {\n\t\tcount\n\t\tedges {\n\t\t\tcursor\n\t\t}\n\t}\n}"
    );
    let crlf = "{\r\n  users {\r\n    count\r\n  }\r\n}\r\n";
    assert_eq!(toggled(crlf, "users.total", true), "{\r\n  users {\r\n    count\r\n    total\r\n  }\r\n}\r\n");
}

#[test]
fn ticking_on_one_line_stays_on_one_line() {
    let text = "{ users(first: 5) { edges { node { ref } } } }";
    assert_eq!(toggled(text, "users.edges.node.email", true), "{ users(first: 5) { edges { node { ref email } } } }");
    assert_eq!(toggled(text, "users.count", true), "{ users(first: 5) { edges { node { ref } } count } }");
    assert_eq!(toggled(text, "users.edges.node.ref", true), text);
}

#[test]
fn ticking_under_a_field_without_selection_gives_it_one() {
    assert_eq!(toggled("{ users }", "users.count", true), "{ users { count } }");
    let text = "query {\n  users(first: 2)\n}";
    assert_eq!(
        toggled(text, "users.edges.cursor", true),
        "query {\n  users(first: 2) {\n    edges {\n      cursor\n    }\n  }\n}"
    );
}

#[test]
fn ticking_inside_a_fragment_edits_the_fragment() {
    let text = "{ users { ...Conn } }\nfragment Conn on UserConnection { edges { node { ref } } }";
    let ticked = toggled(text, "users.edges.node.email", true);
    assert_eq!(ticked, "{ users { ...Conn } }\nfragment Conn on UserConnection { edges { node { ref email } } }");
    assert_eq!(toggled(&ticked, "users.edges.node.email", false), text);
}

#[test]
fn unticking_removes_the_field_its_arguments_and_its_line() {
    let unticked = toggled(SAMPLE, "user", false);
    assert!(!unticked.contains("me: user"), "{unticked}");
    assert!(unticked.contains("    }\n  }\n}\n\nfragment Names"), "{unticked}");
    let unticked = toggled(SAMPLE, "users.edges.node.email", false);
    assert!(unticked.contains("        ref\n        ...Names\n"), "{unticked}");
    let unticked = toggled(SAMPLE, "users", false);
    assert!(unticked.starts_with(
        "# Active users and their groups\nquery Users($first: Int = 10) {\n  # the connection\n  me: user"
    ));
}

#[test]
fn unticking_empties_parents_up_to_the_operation() {
    let unticked = toggled(SAMPLE, "users.edges.node.groups.edges.node.name", false);
    assert!(unticked.contains("        ...Names\n      }\n"), "{unticked}");
    let text = "query Q {\n  users { edges { node { ref } } }\n}\n# end\n";
    assert_eq!(toggled(text, "users.edges.node.ref", false), "# end\n");
    let two = "query { a }\n\nmutation { b { c } }\n";
    assert_eq!(toggled_in(two, Mutation, "b.c", false), "query { a }\n");
}

#[test]
fn unticking_a_fragment_field_edits_the_fragment_and_drops_an_empty_one() {
    let unticked = toggled(SAMPLE, "users.edges.node.lastName", false);
    assert!(unticked.ends_with("fragment Names on User {\n  firstName\n}\n"), "{unticked}");
    let unticked = toggled(&unticked, "users.edges.node.firstName", false);
    assert!(!unticked.contains("Names"), "{unticked}");
    assert!(unticked.ends_with("  me: user(ref: \"u1\") { email }\n}\n"), "{unticked}");
    assert!(unticked.contains("        work: email # the work address\n        ... on User {"), "{unticked}");
}

#[test]
fn unticking_removes_plain_fields_before_aliased_ones() {
    let text = "{ users { edges { node { email work: email } } } }";
    let once = toggled(text, "users.edges.node.email", false);
    assert_eq!(once, "{ users { edges { node { work: email } } } }");
    assert!(selected_paths(&once, None).is_selected(Query, &["users", "edges", "node", "email"]));
    assert_eq!(toggled(&once, "users.edges.node.email", false), "");
    let two = "{ a: users { count } users { count total } }";
    assert_eq!(toggled(two, "users.count", false), "{ a: users { count } users { total } }");
}

#[test]
fn a_mutation_goes_into_its_own_named_operation_and_the_document_stays_valid() {
    // Beside an unnamed query, both get a name: a document of several operations is valid only so.
    let text = "query {\n  users { count }\n}\n";
    let ticked = toggled_in(text, Mutation, "createUser.ref", true);
    let expected = "query Query {\n  users { count }\n}\n\nmutation CreateUser {\n  createUser {\n    ref\n  }\n}\n";
    assert_eq!(ticked, expected);
    assert_eq!(toggled_in(&ticked, Mutation, "createUser.ref", false), "query Query {\n  users { count }\n}\n");
    let shorthand = toggled_in("{ users { count } }", Mutation, "createUser.ref", true);
    assert!(shorthand.starts_with("query Query { users { count } }"), "{shorthand}");
    assert!(shorthand.contains("mutation CreateUser {"), "{shorthand}");
    // A name taken already is not given twice.
    let taken = toggled_in("query CreateUser { a }", Mutation, "createUser.ref", true);
    assert!(taken.contains("mutation CreateUser2 {"), "{taken}");
    let named = toggle_field("", Target { kind: Mutation, name: Some("Create") }, &["createUser", "ref"], true);
    assert_eq!(
        named.map(|edit| edit.map(|e| e.replacement)),
        Ok(Some("mutation Create {\n  createUser {\n    ref\n  }\n}".into()))
    );
}

#[test]
fn edits_are_refused_on_syntax_errors_and_bad_paths() {
    let error = toggle_field("{ users { edges ", Query, &["users", "count"], true);
    assert!(matches!(error, Err(EditError::Syntax { line: 1, .. })), "{error:?}");
    assert!(matches!(toggle_field("", Query, &[] as &[&str], true), Err(EditError::InvalidPath { .. })));
    assert!(matches!(toggle_field("", Query, &["a b"], true), Err(EditError::InvalidPath { .. })));
    assert_eq!(toggle_field("{ a }", Query, &["b"], false), Ok(None));
}

#[test]
fn the_edit_is_one_small_range() {
    let edit = toggle_field(SAMPLE, Query, &["users", "edges", "node", "fullName"], true);
    let Ok(Some(edit)) = edit else { panic!("{edit:?}") };
    assert_eq!(edit.range.len(), 0);
    assert_eq!(edit.replacement, "\n        fullName");
    let edit = toggle_field(SAMPLE, Query, &["users", "edges", "node", "ref"], false);
    let Ok(Some(edit)) = edit else { panic!("{edit:?}") };
    assert_eq!(&SAMPLE[edit.range.clone()], "\n        ref");
}
