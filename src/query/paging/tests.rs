//! Tests of [`prepare_paging`](super::prepare_paging).

use apollo_parser::Parser;
use serde_json::{Map, Value, json};

use super::*;

fn prepare(query: &str) -> PagedQuery {
    prepare_with(query, None, PagingOptions::default())
}

fn prepare_with(query: &str, operation: Option<&str>, options: PagingOptions) -> PagedQuery {
    match prepare_paging(query, operation, options) {
        Ok(paged) => {
            let tree = Parser::new(&paged.text).parse();
            let errors: Vec<String> = tree.errors().map(|error| format!("{error:?}")).collect();
            assert!(errors.is_empty(), "{errors:?} in\n{}", paged.text);
            paged
        }
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn adds_first_after_variable_and_page_info_to_a_shorthand_query() {
    let paged = prepare("{ paginatedUsers { edges { node { ref } } } }");
    assert_eq!(
        paged.text,
        "query($orgqlAfter: String) { paginatedUsers(first: 50, after: $orgqlAfter) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    assert_eq!(paged.after_variable, "orgqlAfter");
    assert_eq!((paged.start_cursor, paged.first_variable), (None, None));
    assert!(paged.warnings.is_empty());
    assert_eq!(paged.site.first, ArgumentValue::Int(50));
    assert_eq!(paged.site.after, ArgumentValue::Variable("orgqlAfter".to_string()));
    assert_eq!(paged.site.page_info_key.as_deref(), Some("pageInfo"));
    assert_eq!(paged.site.has_next_page_key.as_deref(), Some("hasNextPage"));
    assert_eq!(paged.site.end_cursor_key.as_deref(), Some("endCursor"));
}

#[test]
fn a_large_literal_first_becomes_the_limit_with_a_warning() {
    let paged = prepare("query Q { paginatedUsers(first: 200) { edges { node { ref } } } }");
    assert_eq!(
        paged.text,
        "query Q($orgqlAfter: String) { paginatedUsers(first: 50, after: $orgqlAfter) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    assert_eq!(paged.warnings, ["first: 200 is above the page-size limit of 50; using 50"]);
}

#[test]
fn a_small_literal_first_stays_and_zero_is_replaced() {
    let paged = prepare("query { paginatedUsers(first: 10) { edges { node { ref } } } }");
    assert_eq!(
        paged.text,
        "query($orgqlAfter: String) { paginatedUsers(first: 10, after: $orgqlAfter) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    assert!(paged.warnings.is_empty());
    let zero = prepare("query { paginatedUsers(first: 0) { edges { node { ref } } } }");
    assert_eq!(zero.site.first, ArgumentValue::Int(50));
    assert_eq!(zero.warnings, ["first: 0 would return no rows; using 50"]);
    let huge = prepare("query { paginatedUsers(first: 99999999999999999999) { edges { node { ref } } } }");
    assert_eq!(huge.site.first, ArgumentValue::Int(50));
    assert_eq!(huge.warnings, ["first: 99999999999999999999 is above the page-size limit of 50; using 50"]);
}

#[test]
fn a_variable_first_is_reported_for_the_caller_to_cap() {
    let query = "query Q($n: Int) { paginatedUsers(first: $n) { edges { node { ref } } } }";
    let paged = prepare(query);
    assert_eq!(paged.first_variable.as_deref(), Some("n"));
    assert_eq!(
        paged.text,
        "query Q($n: Int, $orgqlAfter: String) { paginatedUsers(first: $n, after: $orgqlAfter) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    let mut variables = Map::new();
    variables.insert("n".to_string(), json!(500));
    assert_eq!(
        paged.cap_first_variable(&mut variables).as_deref(),
        Some("$n = 500 is above the page-size limit of 50; using 50")
    );
    assert_eq!(variables.get("n"), Some(&json!(50)));
    variables.insert("n".to_string(), json!(20));
    assert_eq!(paged.cap_first_variable(&mut variables), None);
    assert_eq!(variables.get("n"), Some(&json!(20)));
}

#[test]
fn an_after_variable_is_used_as_it_is() {
    let query = "query Q($cursor: String) { paginatedUsers(first: 20, after: $cursor) { edges { node { ref } } } }";
    let paged = prepare(query);
    assert_eq!(paged.after_variable, "cursor");
    assert_eq!(
        paged.text,
        "query Q($cursor: String) { paginatedUsers(first: 20, after: $cursor) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    let mut variables = Map::new();
    paged.set_cursor(&mut variables, Some("c9"));
    assert_eq!(variables.get("cursor"), Some(&json!("c9")));
    paged.set_cursor(&mut variables, None);
    assert_eq!(variables.get("cursor"), Some(&Value::Null));
}

#[test]
fn a_literal_after_becomes_the_variable_and_the_start_cursor() {
    let paged = prepare(r#"query { paginatedUsers(after: "YXJyYXk6NDk=", first: 5) { edges { node { ref } } } }"#);
    assert_eq!(paged.start_cursor.as_deref(), Some("YXJyYXk6NDk="));
    assert_eq!(
        paged.text,
        "query($orgqlAfter: String) { paginatedUsers(after: $orgqlAfter, first: 5) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
    let null = prepare("query { paginatedUsers(after: null) { edges { node { ref } } } }");
    assert_eq!(null.start_cursor, None);
    assert!(null.warnings.is_empty());
    assert_eq!(null.site.after, ArgumentValue::Variable("orgqlAfter".to_string()));
}

#[test]
fn arguments_without_commas_stay_without_commas() {
    let paged = prepare(r#"{ paginatedUsers(isActive: true groupRef: "g") { edges { node { ref } } } }"#);
    assert!(
        paged.text.contains(r#"paginatedUsers(isActive: true groupRef: "g" first: 50 after: $orgqlAfter)"#),
        "{}",
        paged.text
    );
}

#[test]
fn a_complete_page_info_is_left_alone() {
    let query = "query($a: String) { paginatedUsers(first: 50, after: $a) { pageInfo { endCursor hasNextPage } edges { node { ref } } } }";
    let paged = prepare(query);
    assert_eq!(paged.text, query);
}

#[test]
fn a_partial_page_info_gets_the_missing_field() {
    let query = "query($a: String) { paginatedUsers(first: 50, after: $a) { info: pageInfo { more: hasNextPage } edges { node { ref } } } }";
    let paged = prepare(query);
    assert_eq!(
        paged.text,
        "query($a: String) { paginatedUsers(first: 50, after: $a) { info: pageInfo { more: hasNextPage endCursor } edges { node { ref } } } }"
    );
    assert_eq!(paged.site.page_info_key.as_deref(), Some("info"));
    assert_eq!(paged.site.has_next_page_key.as_deref(), Some("more"));
    let other =
        prepare("query($a: String) { paginatedUsers(after: $a) { pageInfo { endCursor } edges { node { ref } } } }");
    assert!(other.text.contains("pageInfo { endCursor hasNextPage }"), "{}", other.text);
}

#[test]
fn ensure_count_adds_count_once() {
    let options = PagingOptions { ensure_count: true, paging: None };
    let paged = prepare_with("{ paginatedUsers { edges { node { ref } } } }", None, options.clone());
    assert!(paged.text.contains("pageInfo { hasNextPage endCursor } count } }"), "{}", paged.text);
    assert_eq!(paged.site.count_key.as_deref(), Some("count"));
    let counted = prepare_with("{ paginatedUsers { total: count edges { node { ref } } } }", None, options);
    assert!(!counted.text.contains("total: count edges { node { ref } } pageInfo { hasNextPage endCursor } count"));
    assert_eq!(counted.site.count_key.as_deref(), Some("total"));
}

#[test]
fn a_taken_response_key_gets_an_alias() {
    let paged = prepare("{ paginatedUsers { pageInfo: count edges { node { ref } } } }");
    assert!(paged.text.contains("orgqlPageInfo: pageInfo { hasNextPage endCursor }"), "{}", paged.text);
    assert_eq!(paged.site.page_info_key.as_deref(), Some("orgqlPageInfo"));
}

#[test]
fn comments_and_odd_formatting_survive() {
    let query = "# Every active user\r\nquery  Active(\r\n  $active: Boolean # the filter\r\n)\r\n{\r\n  u: paginatedUsers(\r\n    isActive: $active # only these\r\n  ) { # the connection\r\n    edges { node {\r\n      ref # the key\r\n      name\r\n    } }\r\n    count # total\r\n  }\r\n}\r\n";
    let paged = prepare_with(query, Some("Active"), PagingOptions::default());
    let want = "# Every active user\r\nquery  Active(\r\n  $active: Boolean # the filter\r\n  $orgqlAfter: String\r\n)\r\n{\r\n  u: paginatedUsers(\r\n    isActive: $active # only these\r\n    first: 50\r\n    after: $orgqlAfter\r\n  ) { # the connection\r\n    edges { node {\r\n      ref # the key\r\n      name\r\n    } }\r\n    count # total\r\n    pageInfo { hasNextPage endCursor }\r\n  }\r\n}\r\n";
    assert_eq!(paged.text, want);
    assert_eq!(paged.site.path, ["u"]);
    assert_eq!(paged.site.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["ref", "name"]);
}

#[test]
fn a_named_operation_among_several_is_the_one_rewritten() {
    let query = "query Users { paginatedUsers { edges { node { ref } } } }\nquery Groups { paginatedGroups { edges { node { name } } } }";
    let paged = prepare_with(query, Some("Groups"), PagingOptions::default());
    assert_eq!(
        paged.text,
        "query Users { paginatedUsers { edges { node { ref } } } }\nquery Groups($orgqlAfter: String) { paginatedGroups(first: 50, after: $orgqlAfter) { edges { node { name } } pageInfo { hasNextPage endCursor } } }"
    );
    assert_eq!(paged.site.path, ["paginatedGroups"]);
}

#[test]
fn a_connection_in_a_shared_fragment_defines_the_variable_in_every_operation_using_it() {
    let query = "query A { ...Users }\nquery B { ...Users }\nquery C { user(ref: \"x\") { ref } }\nfragment Users on Query { paginatedUsers { edges { node { ref } } } }";
    let paged = prepare_with(query, Some("A"), PagingOptions::default());
    assert_eq!(
        paged.text,
        "query A($orgqlAfter: String) { ...Users }\nquery B($orgqlAfter: String) { ...Users }\nquery C { user(ref: \"x\") { ref } }\nfragment Users on Query { paginatedUsers(first: 50, after: $orgqlAfter) { edges { node { ref } } pageInfo { hasNextPage endCursor } } }"
    );
}

#[test]
fn a_connection_selected_twice_gets_the_same_arguments_everywhere() {
    let paged = prepare("{ paginatedUsers { count } paginatedUsers { edges { node { ref } } } }");
    assert_eq!(paged.text.matches("paginatedUsers(first: 50, after: $orgqlAfter)").count(), 2, "{}", paged.text);
}

#[test]
fn the_new_variable_avoids_names_in_use() {
    let paged =
        prepare("query($orgqlAfter: Boolean) { paginatedUsers(isActive: $orgqlAfter) { edges { node { ref } } } }");
    assert_eq!(paged.after_variable, "orgqlAfter2");
    assert!(paged.text.starts_with("query($orgqlAfter: Boolean, $orgqlAfter2: String)"), "{}", paged.text);
}

#[test]
fn mutations_are_refused_and_document_errors_pass_through() {
    let mutation = prepare_paging("mutation { createUser { ref } }", None, PagingOptions::default());
    assert_eq!(mutation, Err(DocumentError::NotAQuery { kind: "mutation" }));
    let none = prepare_paging("{ user(ref: \"x\") { ref } }", None, PagingOptions::default());
    assert_eq!(none, Err(DocumentError::NoConnection));
    let syntax = prepare_paging("{ paginatedUsers {", None, PagingOptions::default());
    assert!(matches!(syntax, Err(DocumentError::Syntax { line: 1, .. })), "{syntax:?}");
}

#[test]
fn preparing_twice_changes_nothing_more() {
    let once = prepare_with(
        "{ paginatedUsers(first: 80) { edges { node { ref } } } }",
        None,
        PagingOptions { ensure_count: true, paging: None },
    );
    let twice = prepare_with(&once.text, None, PagingOptions { ensure_count: true, paging: None });
    assert_eq!(twice.text, once.text);
    assert_eq!(twice.after_variable, once.after_variable);
    assert!(twice.warnings.is_empty());
}

#[test]
fn maps_a_location_of_the_rewritten_query_back_to_the_users_text() {
    let query =
        "query {\n  paginatedUsers {\n    edges { node { ...U } }\n  }\n}\nfragment U on User {\n  ref\n  emial\n}\n";
    let paged = prepare_with(query, None, PagingOptions { ensure_count: true, paging: None });
    let line = |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).map(|i| i as u32 + 1);
    let moved = line(&paged.text, "emial").unwrap_or_default();
    assert_ne!(moved, 8, "the rewrite adds lines above the fragment:\n{}", paged.text);
    assert_eq!(paged.original_location(moved, 3), (8, 3));
    // On a line the rewrite changed, and inside what it added.
    assert_eq!(line(&paged.text, "paginatedUsers"), Some(2));
    assert_eq!(paged.original_location(2, 3), (2, 3));
    let added = paged.text.lines().nth(1).unwrap_or_default().find("after").unwrap_or_default() as u32 + 1;
    assert_eq!(paged.original_location(2, added), (2, 17));
    assert_eq!(paged.original_location(99, 1), (99, 1));
}

fn edge_cursors() -> PagingOptions {
    let paging = Paging { style: PagingStyle::EdgeCursors, ..Paging::assumed() };
    PagingOptions { ensure_count: true, paging: Some(paging) }
}

#[test]
fn edge_cursor_paging_selects_the_edges_cursor_and_no_page_info() {
    let paged = prepare_with("{ paginatedUsers { count edges { node { ref } } } }", None, edge_cursors());
    assert_eq!(
        paged.text,
        "query($orgqlAfter: String) { paginatedUsers(first: 50, after: $orgqlAfter) { count edges { node { ref } cursor } } }"
    );
    assert_eq!(paged.style, PagingStyle::EdgeCursors);
    assert_eq!(paged.site.cursor_key.as_deref(), Some("cursor"));
    assert_eq!(paged.site.page_info_key, None);
}

#[test]
fn edge_cursor_paging_keeps_a_selected_cursor_and_an_alias_named_cursor_apart() {
    let kept = prepare_with("{ paginatedUsers(first: 5) { edges { cursor node { ref } } } }", None, edge_cursors());
    assert_eq!(kept.text.matches("cursor").count(), 1, "{}", kept.text);
    let aliased = prepare_with("{ paginatedUsers(first: 5) { edges { cursor: node { ref } } } }", None, edge_cursors());
    assert!(aliased.text.contains("orgqlCursor: cursor"), "{}", aliased.text);
}

#[test]
fn count_is_added_only_where_the_schema_has_it() {
    let paging = Paging { has_count: false, ..Paging::assumed() };
    let options = PagingOptions { ensure_count: true, paging: Some(paging) };
    let paged = prepare_with("{ paginatedUsers { edges { node { ref } } } }", None, options);
    assert!(!paged.text.contains("count"), "{}", paged.text);
}

#[test]
fn the_cursor_variable_has_the_schema_s_type() {
    let paging = Paging { after_type: "ID".into(), ..Paging::assumed() };
    let options = PagingOptions { ensure_count: false, paging: Some(paging) };
    let paged = prepare_with("{ paginatedUsers { edges { node { ref } } } }", None, options);
    assert!(paged.text.starts_with("query($orgqlAfter: ID)"), "{}", paged.text);
}
