//! Setting and reading arguments, and building a query by clicking.

use super::super::super::OperationKind::Query;
use super::tests_toggle::{SAMPLE, toggled};
use super::*;

fn with_argument(text: &str, path: &str, name: &str, value: Option<&str>) -> String {
    let path: Vec<&str> = path.split('.').collect();
    match set_argument(text, Query, &path, name, value) {
        Ok(Some(edit)) => edit.apply(text),
        Ok(None) => text.to_string(),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn adds_replaces_and_removes_arguments() {
    let text = "{ users { count } }";
    let added = with_argument(text, "users", "first", Some("10"));
    assert_eq!(added, "{ users(first: 10) { count } }");
    let second = with_argument(&added, "users", "after", Some("\"abc\""));
    assert_eq!(second, "{ users(first: 10, after: \"abc\") { count } }");
    let replaced = with_argument(&second, "users", "first", Some(" 20 "));
    assert_eq!(replaced, "{ users(first: 20, after: \"abc\") { count } }");
    assert_eq!(with_argument(&replaced, "users", "first", None), "{ users(after: \"abc\") { count } }");
    assert_eq!(with_argument(&second, "users", "after", None), added);
    assert_eq!(with_argument(&added, "users", "first", None), text);
    assert_eq!(with_argument(text, "users", "first", None), text);
}

#[test]
fn argument_lists_keep_their_layout() {
    let spaced = "{ users(first: 1 after: $a) { count } }";
    assert_eq!(with_argument(spaced, "users", "last", Some("2")), "{ users(first: 1 after: $a last: 2) { count } }");
    let lines = "{\n  users(\n    first: 1 # page\n  ) { count }\n}";
    let added = with_argument(lines, "users", "filter", Some("{ status: ACTIVE }"));
    assert_eq!(added, "{\n  users(\n    first: 1 # page\n    filter: { status: ACTIVE }\n  ) { count }\n}");
    assert_eq!(with_argument(&added, "users", "filter", None), lines);
    assert_eq!(with_argument(lines, "users", "first", None), "{\n  users { count }\n}");
}

#[test]
fn reads_the_values_as_written() {
    let values = argument_values(SAMPLE, Query, &["users"]);
    let expected = [("first", "$first"), ("filter", "{ status: ACTIVE }")].map(|(n, v)| (n.to_string(), v.to_string()));
    assert_eq!(values, expected);
    assert_eq!(argument_values(SAMPLE, Query, &["user"]), [("ref".to_string(), "\"u1\"".to_string())]);
    assert!(argument_values(SAMPLE, Query, &["users", "edges"]).is_empty());
    assert!(argument_values("{ users(first: 3", Query, &["users"]) == [("first".to_string(), "3".to_string())]);
}

#[test]
fn arguments_go_on_every_field_an_untick_would_remove() {
    let text = "{ users { count } ...F }\nfragment F on Query { users { total } }";
    let set = with_argument(text, "users", "first", Some("5"));
    assert_eq!(set, "{ users(first: 5) { count } ...F }\nfragment F on Query { users(first: 5) { total } }");
    let aliased = "{ all: users(first: 1) { count } }";
    assert_eq!(with_argument(aliased, "users", "first", Some("2")), "{ all: users(first: 2) { count } }");
}

#[test]
fn bad_arguments_are_refused() {
    let text = "{ users { count } }";
    let error = set_argument(text, Query, &["users", "edges"], "first", Some("1"));
    assert!(matches!(error, Err(EditError::NotSelected { ref path }) if path == "users.edges"), "{error:?}");
    assert!(matches!(set_argument(text, Query, &["users"], "first", Some("1 2")), Err(EditError::InvalidValue { .. })));
    assert!(matches!(
        set_argument(text, Query, &["users"], "1st", Some("1")),
        Err(EditError::InvalidArgumentName { .. })
    ));
    let message = EditError::NotSelected { path: "users.edges".into() }.to_string();
    assert_eq!(message, "the field users.edges is not in the query; tick it before setting its arguments");
}

#[test]
fn builds_a_three_level_query_with_arguments_by_clicking() {
    let mut text = String::new();
    for path in ["users.edges.node.email", "users.edges.node.groups.edges.node.name", "users.pageInfo.endCursor"] {
        text = toggled(&text, path, true);
    }
    text = with_argument(&text, "users", "first", Some("10"));
    text = with_argument(&text, "users", "filter", Some("{ status: ACTIVE, groupName: \"Sales\" }"));
    text = with_argument(&text, "users.edges.node.groups", "first", Some("3"));
    let expected = r#"query {
  users(first: 10, filter: { status: ACTIVE, groupName: "Sales" }) {
    edges {
      node {
        email
        groups(first: 3) {
          edges {
            node {
              name
            }
          }
        }
      }
    }
    pageInfo {
      endCursor
    }
  }
}"#;
    assert_eq!(text, expected);
    let state = selected_paths(&text, None);
    assert!(state.is_selected(Query, &["users", "edges", "node", "groups", "edges", "node", "name"]));
    for path in ["users.pageInfo.endCursor", "users.edges.node.groups.edges.node.name", "users.edges.node.email"] {
        text = toggled(&text, path, false);
    }
    assert_eq!(text, "");
}
