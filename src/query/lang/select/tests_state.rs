//! Reading the ticks from a document.

use super::super::super::OperationKind::{Mutation, Query};
use super::tests_toggle::SAMPLE;
use super::*;

fn joined(state: &SelectionState, kind: OperationKind) -> Vec<String> {
    state.paths(kind).iter().map(|path| path.join(".")).collect()
}

#[test]
fn paths_follow_fragments_and_count_aliases_under_the_field_name() {
    let state = selected_paths(SAMPLE, None);
    let paths = joined(&state, Query);
    let expected = [
        "users",
        "users.edges",
        "users.edges.node",
        "users.edges.node.ref",
        "users.edges.node.email",
        "users.edges.node.firstName",
        "users.edges.node.lastName",
        "users.edges.node.groups",
        "users.edges.node.groups.edges",
        "users.edges.node.groups.edges.node",
        "users.edges.node.groups.edges.node.name",
        "user",
        "user.email",
    ];
    assert_eq!(paths, expected);
    assert!(joined(&state, Mutation).is_empty());
    assert_eq!(state.root(Mutation), None);
}

#[test]
fn uses_tell_aliases_fragments_and_where_the_field_is() {
    let state = selected_paths(SAMPLE, None);
    let email = state.field(Query, &["users", "edges", "node", "email"]).map(SelectedField::uses);
    let Some([work]) = email else { panic!("{email:?}") };
    assert_eq!(work.alias.as_deref(), Some("work"));
    assert!(work.aliased_path);
    assert_eq!(&SAMPLE[work.range.clone()], "work: email");
    let first = state.field(Query, &["users", "edges", "node", "firstName"]).map(SelectedField::uses);
    let Some([first]) = first else { panic!("{first:?}") };
    assert_eq!((first.fragment.as_deref(), first.alias.as_deref(), first.aliased_path), (Some("Names"), None, false));
    let me = state.field(Query, &["user", "email"]).map(SelectedField::uses);
    assert!(matches!(me, Some([FieldUse { alias: None, aliased_path: true, .. }])), "{me:?}");
}

#[test]
fn hand_edits_mid_typing_still_give_ticks() {
    let state = selected_paths("{ users { edges { node { em", None);
    assert!(state.is_selected(Query, &["users", "edges", "node", "em"]));
    let state = selected_paths("query {\n  users(first: ) {\n    count\n  }\n  user(", None);
    assert!(state.is_selected(Query, &["users", "count"]), "{:?}", state.paths(Query));
    assert!(state.is_selected(Query, &["user"]));
}

#[test]
fn picks_the_operation_by_kind_and_name() {
    let text = "query A { a } query B { b } mutation M { m { x } }";
    let state = selected_paths(text, Some("B"));
    assert_eq!(joined(&state, Query), ["b"]);
    assert_eq!(joined(&state, Mutation), ["m", "m.x"]);
    assert_eq!(joined(&selected_paths(text, None), Query), ["a"]);
    assert_eq!(joined(&selected_paths(text, Some("M")), Query), ["a"]);
}

#[test]
fn fragment_cycles_and_undefined_fragments_are_skipped() {
    let text = "{ user { ...A ...Missing } }\nfragment A on User { groups { members { ...A } } }";
    let state = selected_paths(text, None);
    assert_eq!(joined(&state, Query), ["user", "user.groups", "user.groups.members"]);
}
