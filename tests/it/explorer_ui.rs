//! The schema explorer and the editor's checks, driven as a person would: ticking fields and
//! typing arguments builds the query, hand edits move the ticks, deprecated fields show their
//! reason, a misspelt field is reported, and completion is offered and accepted.

use egui::accesskit::{Role, Toggled};
use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};

use crate::harness::Session;

/// The app with its schema loaded and an empty editor.
fn with_schema() -> Session {
    let mut s = Session::start();
    s.wait_for("the schema in the explorer", |h| h.state().schema_model().is_some());
    s.harness.get_by_label("Query").click();
    s.harness.step();
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    s.harness.key_press(Key::Backspace);
    s.harness.step();
    assert_eq!(s.app().active_tab().query, "");
    s
}

fn query(s: &Session) -> String {
    s.app().active_tab().query.clone()
}

/// Whether the explorer's checkbox `name` is ticked.
fn ticked(s: &Session, name: &str) -> bool {
    let Some(node) = s.harness.query_by_role_and_label(Role::CheckBox, name) else {
        panic!("no checkbox '{name}' on screen:\n{}", s.screen());
    };
    node.accesskit_node().toggled() == Some(Toggled::True)
}

fn tick(s: &mut Session, name: &str) {
    s.harness.get_by_role_and_label(Role::CheckBox, name).click();
    s.harness.step();
    s.harness.step();
}

#[test]
fn ticking_builds_a_three_level_query_with_arguments_and_unticking_takes_it_back() {
    let mut s = with_schema();
    tick(&mut s, "paginatedUsers");
    tick(&mut s, "edges");
    assert!(ticked(&s, "node"), "an edge is ticked with its node");
    tick(&mut s, "email");
    tick(&mut s, "name");
    // An argument typed into its input, another picked from its drop-down.
    s.harness.get_by_role_and_label(Role::TextInput, "first").click();
    s.harness.step();
    s.harness.get_by_role_and_label(Role::TextInput, "first").type_text("10");
    s.harness.step();
    s.harness.key_press(Key::Enter);
    s.harness.step();
    s.harness.step();
    s.harness.get_by_role_and_label(Role::ComboBox, "isActive").click();
    s.wait_for_label("true");
    s.click("true");
    assert_eq!(
        query(&s),
        "query {\n  paginatedUsers(first: 10, isActive: true) {\n    count\n    edges {\n      node {\n        id\n        \
         email\n        name\n      }\n    }\n  }\n}"
    );
    assert!(ticked(&s, "email") && ticked(&s, "node") && ticked(&s, "paginatedUsers"));
    // The query runs as built.
    s.run_query();
    assert_eq!(s.app().active_tab().grid.as_ref().map(|g| g.rows.len()), Some(10));

    tick(&mut s, "email");
    assert!(!query(&s).contains("email"));
    assert!(!ticked(&s, "email"));
    tick(&mut s, "paginatedUsers");
    assert_eq!(query(&s).trim(), "", "unticking the root takes the whole operation");
}

#[test]
fn hand_edits_move_the_ticks_and_keep_comments() {
    let mut s = with_schema();
    let text = "# mine\n{\n  paginatedUsers { # the users\n    count\n  }\n}\n";
    s.type_into("Query", text);
    s.harness.step();
    assert!(ticked(&s, "paginatedUsers"), "{}", s.screen());
    // Open it: its fields show, `count` ticked as the text says.
    s.click("Unfold paginatedUsers");
    tick(&mut s, "pageInfo");
    let edited = query(&s);
    assert!(edited.starts_with("# mine\n{\n  paginatedUsers { # the users\n    count\n"), "{edited}");
    assert!(edited.contains("pageInfo {"), "{edited}");
    assert!(ticked(&s, "count") && ticked(&s, "pageInfo"));
    s.type_into("Query", "{ user(ref: \"u1\") { email } }");
    s.harness.step();
    assert!(!ticked(&s, "paginatedUsers"));
    assert!(ticked(&s, "user"));
}

#[test]
fn a_deprecated_field_shows_its_reason() {
    let mut s = with_schema();
    s.type_into("Search the schema", "fullName");
    s.wait_for_label("User.fullName");
    s.click("User.fullName");
    let reason = s.wait_for_text("Deprecated:");
    assert!(reason.contains("name"), "{reason}");
    // Used in the editor, it is flagged with the same reason.
    s.type_into("Query", "{ user(ref: \"u1\") { fullName } }");
    let warning = s.wait_for_text("is deprecated");
    assert!(warning.contains("fullName"), "{warning}");
    assert!(s.harness.query_by_label("1 warning").is_some(), "{}", s.screen());
}

#[test]
fn a_misspelt_field_is_reported_with_the_validators_message_and_run_stays_allowed() {
    let mut s = with_schema();
    s.type_into("Query", "{\n  paginatedUsers {\n    edges { node { emial } }\n  }\n}");
    let message = s.wait_for_text("emial");
    assert!(s.harness.query_by_label("1 problem").is_some(), "{}", s.screen());
    assert!(message.contains("User"), "the validator names the type: {message}");
    assert!(s.harness.query_by_label("3:20").is_some(), "the place, line:column\n{}", s.screen());
    // Run is still allowed: the server has the last word.
    s.run_query();
    let answer = s.wait_for_text("emial");
    assert!(!answer.is_empty());
}

#[test]
fn completion_offers_the_fields_of_the_type_at_the_cursor_and_tab_accepts() {
    let mut s = with_schema();
    s.type_into("Query", "{ paginatedUsers { edges { node { em");
    s.wait_for("completions", |h| h.state().editor().completions().contains(&"email"));
    assert!(!s.app().editor().completions().contains(&"count"), "only User's fields");
    s.harness.key_press(Key::Tab);
    s.harness.step();
    assert_eq!(query(&s), "{ paginatedUsers { edges { node { email");
    assert!(s.app().editor().completions().is_empty(), "accepted: the offer closes");
    // Arguments inside parentheses.
    s.type_into("Query", "{ paginatedUsers(is");
    s.wait_for("argument completions", |h| h.state().editor().completions() == ["isActive"]);
    s.harness.key_press(Key::Enter);
    s.harness.step();
    assert_eq!(query(&s), "{ paginatedUsers(isActive");
}

#[test]
fn a_mutation_is_built_with_its_input_object_field_by_field_and_runs() {
    let mut s = with_schema();
    s.click("mutation");
    tick(&mut s, "createUser");
    for (field, value) in [("ref *", "clicked-1"), ("name *", "Clicked User"), ("email *", "clicked@example.com")] {
        s.harness.get_by_role_and_label(Role::TextInput, field).click();
        s.harness.step();
        s.harness.get_by_role_and_label(Role::TextInput, field).type_text(value);
        s.harness.step();
        s.harness.key_press(Key::Enter);
        s.harness.step();
        s.harness.step();
    }
    assert_eq!(
        query(&s),
        "mutation {\n  createUser(input: { ref: \"clicked-1\", name: \"Clicked User\", email: \"clicked@example.com\" }) \
         {\n    id\n  }\n}"
    );
    s.run_query();
    let raw = s.app().active_tab().result.value().map(|r| r.raw().to_owned()).unwrap_or_default();
    assert!(raw.contains("\"createUser\"") && !raw.contains("errors"), "{raw}");
}

#[test]
fn refresh_schema_keeps_the_tree_until_the_new_schema_is_in() {
    let mut s = Session::start();
    let slow = s.runtime.block_on(crate::harness::sandbox_with(orgql::sandbox::Config {
        users: 10,
        latency: std::time::Duration::from_secs(1),
        ..Default::default()
    }));
    s.add_profile("slow", slow.base_url(), "sandbox-admin");
    s.wait_for("the slow server's schema", |h| !h.state().schema().is_pending());
    assert!(s.app().schema_model().is_some(), "{}", s.screen());
    s.click("Refresh schema");
    assert!(s.app().schema().is_pending(), "reloading");
    // While it reloads (a second a request), the tree and the editor's checks keep the schema.
    assert!(s.app().schema_model().is_some(), "the previous schema stays");
    assert!(s.harness.query_by_role_and_label(Role::CheckBox, "paginatedUsers").is_some(), "{}", s.screen());
    s.wait_for("the refreshed schema", |h| !h.state().schema().is_pending());
    assert!(s.text_containing("fetched ").is_some(), "{}", s.screen());
}

/// Puts `sdl` in the store as the sandbox's cached schema, fetched a day ago.
fn cache_sandbox_schema(s: &Session, sdl: &str) {
    let path = s.dir.path().join("history.sqlite3");
    // The test's thread is the app's UI thread: the store is written from another.
    crate::harness::off_ui_thread(|| {
        let store = orgql::store::Store::open(&path).expect("the database opens");
        store.save_schema("Sandbox", sdl, chrono::Utc::now() - chrono::Duration::days(1)).expect("saved");
    });
}

#[test]
fn a_cached_schema_that_changed_on_the_service_is_replaced_in_the_background_and_said() {
    let s = Session::start();
    cache_sandbox_schema(&s, "type Query { onlyInTheOldSchema: Int }");
    let mut s = s.restart();
    // The cached schema is shown at once; the service's is fetched after it, and replaces it.
    s.wait_for("the fetched schema", |h| h.state().schema().value().is_some_and(|loaded| !loaded.cached));
    let problems = s.app().state().problems().join(" · ");
    assert!(problems.contains("The schema of Sandbox changed on the service since it was cached"), "{problems}");
    assert!(s.harness.query_by_role_and_label(Role::CheckBox, "paginatedUsers").is_some(), "{}", s.screen());
    assert!(s.harness.query_by_role_and_label(Role::CheckBox, "onlyInTheOldSchema").is_none(), "{}", s.screen());
}

#[test]
fn a_cached_schema_still_current_is_refreshed_without_a_notice() {
    let mut s = Session::start().restart();
    s.wait_for("the fetched schema", |h| h.state().schema().value().is_some_and(|loaded| !loaded.cached));
    let problems = s.app().state().problems().join(" · ");
    assert!(!problems.contains("changed"), "{problems}");
    assert!(s.text_containing("fetched ").is_some(), "{}", s.screen());
}
