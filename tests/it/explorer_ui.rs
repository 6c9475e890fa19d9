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

/// The explorer panel alone, on a schema read from the service's own introspection answer, with
/// the document it edits (issue 46: input objects at every level).
struct Panel {
    panel: orgql::ui::ExplorerPanel,
    text: String,
    schema: orgql::ui::SchemaState,
}

/// A harness drawing the explorer of `model` (a window tall enough for every row it opens).
fn panel_on(model: orgql::explorer::SchemaModel) -> egui_kittest::Harness<'static, Panel> {
    let loaded = orgql::worker::LoadedSchema {
        model: std::sync::Arc::new(model),
        fetched_at: chrono::Utc::now(),
        cached: true,
        skipped: None,
        version_changed: false,
    };
    let state = Panel { panel: Default::default(), text: String::new(), schema: orgql::ui::SchemaState::Done(loaded) };
    egui_kittest::Harness::builder().with_size(egui::vec2(1000.0, 2400.0)).build_ui_state(
        |ui, state: &mut Panel| {
            let Panel { panel, text, schema } = state;
            if let Some(orgql::ui::ExplorerIntent::Edit(edit)) = panel.ui(ui, text, schema, "Service") {
                edit.apply_in_place(text);
            }
        },
        state,
    )
}

/// The focused widget's role and name.
fn focus_of(h: &egui_kittest::Harness<'_, Panel>) -> Option<(Role, String)> {
    h.root()
        .children_recursive()
        .find(|node| node.accesskit_node().is_focused())
        .map(|node| (node.accesskit_node().role(), node.accesskit_node().label().unwrap_or_default()))
}

/// Presses Tab until `role` named `name` has the focus (at most `most` presses).
#[track_caller]
fn tab_to(h: &mut egui_kittest::Harness<'_, Panel>, role: Role, name: &str, most: usize) {
    for _ in 0..most {
        if focus_of(h).is_some_and(|(r, n)| r == role && n == name) {
            return;
        }
        h.key_press(Key::Tab);
        h.step();
        h.step();
    }
    panic!("no {role:?} '{name}' within {most} Tab presses; the focus is on {:?}", focus_of(h));
}

/// Presses `key` on the focused widget and lets the panel answer it.
fn press(h: &mut egui_kittest::Harness<'_, Panel>, key: Key) {
    h.key_press(key);
    for _ in 0..3 {
        h.step();
    }
}

/// The text the `nth` input named `name` shows (inputs of the same name at different levels,
/// as `exact` under both `ref` and `email`, count in the order drawn).
fn shown(h: &egui_kittest::Harness<'_, Panel>, name: &str, nth: usize) -> String {
    let input = h.get_all_by_role_and_label(Role::TextInput, name).nth(nth);
    input.unwrap_or_else(|| panic!("no input '{name}' #{nth}")).value().unwrap_or_default()
}

/// Lets the panel answer what happened (a click, a key) and draw what it changed.
fn settle(h: &mut egui_kittest::Harness<'_, Panel>) {
    for _ in 0..3 {
        h.step();
    }
}

/// Clicks `role` named `name`, and lets the panel answer it.
#[track_caller]
fn click(h: &mut egui_kittest::Harness<'_, Panel>, role: Role, name: &str) {
    h.get_by_role_and_label(role, name).click();
    settle(h);
}

/// The text without its whitespace, to compare documents by what they say.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect()
}

/// The issue's Done-when, on Strawberry-Django's schema (its introspection as the service
/// answers it, committed as a fixture), by keys alone: tick `paginatedUsers`, unfold `filters →
/// email` and fill `iExact` — the document gets `filters: {email: {iExact: "…"}}`; the document
/// edited by hand moves the fields; the value cleared takes the whole argument away.
#[test]
fn on_strawberry_django_a_nested_filter_is_filled_by_keys_and_follows_the_document() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/introspection/strawberry-django-0.93.0.json");
    let json = std::fs::read_to_string(fixture).expect("the fixture");
    let model = orgql::explorer::SchemaModel::from_introspection_json(&json).expect("the schema");
    let mut h = panel_on(model);
    h.run();
    tab_to(&mut h, Role::CheckBox, "paginatedUsers", 60);
    press(&mut h, Key::Space);
    assert!(h.state().text.contains("paginatedUsers"), "{}", h.state().text);
    // The filter's first level shows at once; each level below unfolds when asked.
    assert!(h.query_by_role_and_label(Role::TextInput, "iExact").is_none(), "email is folded");
    tab_to(&mut h, Role::Button, "Unfold email", 20);
    press(&mut h, Key::Enter);
    tab_to(&mut h, Role::TextInput, "iExact", 20);
    h.event(egui::Event::Text("ANN@EXAMPLE.ORG".into()));
    h.step();
    press(&mut h, Key::Enter);
    let text = h.state().text.clone();
    assert!(squeezed(&text).contains(r#"paginatedUsers(filters:{email:{iExact:"ANN@EXAMPLE.ORG"}})"#), "{text}");
    assert_eq!(shown(&h, "iExact", 0), "ANN@EXAMPLE.ORG");

    // Another level beside it, through the type's own fields: ref's exact, its list inList.
    h.get_by_role_and_label(Role::Button, "Unfold ref").click();
    h.step();
    h.step();
    let in_list = h.get_all_by_role_and_label(Role::TextInput, "inList").next().expect("ref's inList");
    in_list.focus();
    h.step();
    h.event(egui::Event::Text("u00001, u00002".into()));
    h.step();
    press(&mut h, Key::Enter);
    let text = h.state().text.clone();
    assert!(
        squeezed(&text).contains(r#"filters:{ref:{inList:["u00001","u00002"]},email:{iExact:"ANN@EXAMPLE.ORG"}}"#),
        "the schema's order of fields, a list of strings: {text}"
    );

    // The document edited by hand: the fields follow.
    let edited = text.replace(r#"email: { iExact: "ANN@EXAMPLE.ORG" }"#, r#"email: { exact: "bo@example.org" }"#);
    assert_ne!(edited, text);
    h.state_mut().text = edited;
    h.step();
    h.step();
    // ref's inputs come first, then email's.
    assert_eq!(shown(&h, "exact", 1), "bo@example.org", "{}", h.state().text);
    assert_eq!(shown(&h, "iExact", 1), "");
    assert_eq!(shown(&h, "inList", 0), "u00001, u00002");
    // Cleared field by field, the argument goes.
    for (name, nth) in [("inList", 0), ("exact", 1)] {
        let input = h.get_all_by_role_and_label(Role::TextInput, name).nth(nth).expect("the input");
        input.focus();
        h.step();
        h.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
        h.step();
        press(&mut h, Key::Backspace);
        press(&mut h, Key::Enter);
    }
    let text = h.state().text.clone();
    assert!(!text.contains("filters") && text.contains("paginatedUsers"), "{text}");
}

/// Hasura's shapes: `where: {email: {_eq: …}}`, lists of input objects (`_or`, `order_by`) with
/// Add and Remove, a nested enum choice (`order_by: asc`), a list of enum values as checkboxes
/// (`distinct_on`), and a type that holds itself (`_not`) unfolding one level at a time.
#[test]
fn hasura_where_and_lists_of_inputs_are_filled_at_every_level() {
    let sdl = r#"
        type Query { users(distinct_on: [users_select_column!], limit: Int, order_by: [users_order_by!], where: users_bool_exp): [users!]! }
        type users { id: ID! email: String! name: String! }
        input users_bool_exp { _and: [users_bool_exp!] _not: users_bool_exp _or: [users_bool_exp!] email: String_comparison_exp name: String_comparison_exp }
        input String_comparison_exp { _eq: String _ilike: String _in: [String!] _is_null: Boolean _neq: String }
        input users_order_by { email: order_by name: order_by }
        enum order_by { asc asc_nulls_first desc desc_nulls_last }
        enum users_select_column { email id name }
    "#;
    let mut h = panel_on(orgql::explorer::SchemaModel::from_sdl(sdl).expect("the schema"));
    h.run();
    click(&mut h, Role::CheckBox, "users");
    // Its fields fold away, so that the enum's checkboxes are the only ones named so.
    click(&mut h, Role::Button, "Fold users");
    click(&mut h, Role::Button, "Unfold email");
    h.get_by_role_and_label(Role::TextInput, "_eq").focus();
    h.step();
    h.event(egui::Event::Text("ann@example.org".into()));
    press(&mut h, Key::Enter);
    assert!(
        squeezed(&h.state().text).contains(r#"users(where:{email:{_eq:"ann@example.org"}})"#),
        "{}",
        h.state().text
    );

    // A list of filters: an item added, filled one level further in, the recursion folded.
    click(&mut h, Role::Button, "Unfold _or");
    click(&mut h, Role::Button, "Add to _or");
    assert!(squeezed(&h.state().text).contains("_or:[{}]"), "{}", h.state().text);
    let names = h.get_all_by_role_and_label(Role::Button, "Unfold name").count();
    assert_eq!(names, 2, "the item's name and where's (drawn in that order)");
    h.get_all_by_role_and_label(Role::Button, "Unfold name").next().expect("the item's name").click();
    settle(&mut h);
    // The item's `_ilike` comes before that of where's email (unfolded: it holds `_eq`).
    h.get_all_by_role_and_label(Role::TextInput, "_ilike").next().expect("the item's _ilike").focus();
    h.step();
    h.event(egui::Event::Text("%ann%".into()));
    press(&mut h, Key::Enter);
    assert!(
        squeezed(&h.state().text).contains(r#"where:{_or:[{name:{_ilike:"%ann%"}}],email:{_eq:"ann@example.org"}}"#),
        "{}",
        h.state().text
    );
    let folded = h.get_all_by_role_and_label(Role::Button, "Unfold _not").count();
    assert_eq!(folded, 2, "where's _not and the item's stay folded: the type holds itself");

    // Order and columns: a list of input objects with an enum inside; a list of enum values.
    click(&mut h, Role::Button, "Add to order_by");
    click(&mut h, Role::ComboBox, "name");
    h.get_by_label("desc").click();
    settle(&mut h);
    click(&mut h, Role::CheckBox, "name");
    click(&mut h, Role::CheckBox, "email");
    let text = squeezed(&h.state().text);
    assert!(text.contains("distinct_on:[email,name]"), "the enum's order: {text}");
    assert!(text.contains("order_by:[{name:desc}]"), "{text}");

    // The document edited by hand: a second ordering; then the first removed from the panel.
    let edited = h.state().text.replace("order_by: [{ name: desc }]", "order_by: [{ name: desc }, { email: asc }]");
    assert_ne!(edited, h.state().text);
    h.state_mut().text = edited;
    h.step();
    h.step();
    assert!(h.query_by_role_and_label(Role::Button, "Remove item 2").is_some(), "the second item shows");
    // The arguments are drawn in the schema's order: order_by's items before where's _or.
    let removes: Vec<_> = h.get_all_by_role_and_label(Role::Button, "Remove item 1").collect();
    assert_eq!(removes.len(), 2);
    removes[0].click();
    settle(&mut h);
    let text = squeezed(&h.state().text);
    assert!(text.contains("order_by:[{email:asc}]") && text.contains(r#"_or:[{name:{_ilike:"%ann%"}}]"#), "{text}");
}
