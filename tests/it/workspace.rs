//! The workspace that lasts: tabs, their text, the chosen connection and the layout come back
//! after a restart; a workspace that cannot be read starts a fresh session and is kept aside;
//! tabs open, close, reopen and rename as in an IDE.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::store::Store;

use crate::harness::{PATIENCE, Session};

/// Reads the database from another thread (the test's own thread is the app's UI thread, where
/// no file is read).
fn with_store<T: Send + 'static>(path: PathBuf, work: impl FnOnce(&Store) -> T + Send + 'static) -> T {
    std::thread::spawn(move || work(&Store::open(&path).expect("the database opens"))).join().expect("no panic")
}

/// Steps until the saved workspace contains every one of `texts`.
fn wait_until_saved(s: &mut Session, texts: &[&str]) -> String {
    let path = s.path("history.sqlite3");
    let started = Instant::now();
    loop {
        s.harness.step();
        let saved = with_store(path.clone(), |store| store.workspace().expect("readable")).unwrap_or_default();
        if texts.iter().all(|text| saved.contains(text)) {
            return saved;
        }
        assert!(started.elapsed() < PATIENCE, "the workspace was not saved with {texts:?}: {saved}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn titles(s: &Session) -> Vec<String> {
    s.app().tabs().iter().map(|tab| tab.title.clone()).collect()
}

#[test]
fn tabs_queries_connection_and_layout_come_back_after_a_restart() {
    let mut s = Session::start();
    let other = s.runtime.block_on(crate::harness::sandbox(10));
    s.type_into("Query", "{ paginatedUsers(first: 3) { edges { node { ref } } } }");
    s.click("New tab");
    s.type_into("Query", "# second\n{ paginatedGroups(first: 2) { count } }");
    s.type_into("Variables (JSON)", "{\"x\": 1}");
    s.click("New tab");
    s.type_into("Query", "{ user(ref: \"u00001\") { name } }");
    // Rename the third tab from its context menu: a name, Enter.
    s.harness.get_by_label("Query 3").click_secondary();
    s.wait_for_label("Rename tab");
    s.click("Rename tab");
    s.type_into("Tab name", "One user");
    s.harness.key_press(Key::Enter);
    s.harness.step();
    s.harness.step();
    assert_eq!(titles(&s), ["Users", "Query 2", "One user"]);
    s.harness.get_by_label("Query 2").click();
    s.harness.step();
    s.click("Raw");
    s.click("History");
    s.click("Hide variables");
    s.add_profile("second", other.base_url(), "sandbox-admin");
    wait_until_saved(&mut s, &["One user", "paginatedGroups", "\"connection\":\"second\"", "\"side\":\"History\""]);

    let mut s = s.restart();
    s.harness.run();
    assert_eq!(titles(&s), ["Users", "Query 2", "One user"]);
    let tabs = s.app().tabs();
    assert_eq!(tabs[0].query, "{ paginatedUsers(first: 3) { edges { node { ref } } } }");
    assert_eq!(tabs[1].query, "# second\n{ paginatedGroups(first: 2) { count } }");
    assert_eq!(tabs[1].variables, "{\"x\": 1}");
    assert_eq!(tabs[1].view, orgql::ui::View::Raw);
    assert_eq!(s.app().active_tab().title, "Query 2", "the active tab");
    let connection = s.harness.get_by_role_and_label(Role::ComboBox, "Connection");
    assert_eq!(connection.value().as_deref(), Some("second"), "the chosen connection");
    assert!(s.harness.query_by_label("Show variables").is_some(), "the variables pane stays folded");
    assert!(s.harness.query_by_label("Variables (JSON)").is_none());
    assert_eq!(s.app().title(), "Query 2 — second — orgql");
    s.harness.run();
}

#[test]
fn a_workspace_that_cannot_be_read_starts_fresh_and_is_kept_aside() {
    for (bad, why) in [("{\"tabs\": [", "not a workspace"), ("{\"version\": 99}", "newer orgql")] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("history.sqlite3");
        with_store(path.clone(), move |store| store.save_workspace(bad).expect("saved"));
        let mut s = Session::start_in(dir);
        let notice = s.wait_for_text("The saved workspace could not be restored");
        assert!(notice.contains(why), "{notice}");
        assert_eq!(titles(&s), ["Users"], "a fresh session");
        // The old text is kept aside, and the fresh session is saved in its place.
        s.type_into("Query", "{ paginatedUsers { count } }");
        wait_until_saved(&mut s, &["paginatedUsers { count }"]);
        let aside = with_store(path, |store| store.workspace_aside().expect("readable"));
        assert_eq!(aside.len(), 1);
        assert_eq!(aside[0].0, bad);
        assert!(aside[0].1.contains(why), "{:?}", aside[0]);
        s.harness.run();
    }
}

#[test]
fn tabs_close_reopen_and_keep_the_right_one_active() {
    let mut s = Session::start();
    s.click("New tab");
    s.click("New tab");
    s.click("New tab");
    assert_eq!(titles(&s), ["Users", "Query 2", "Query 3", "Query 4"]);
    s.harness.get_by_label("Query 3").click();
    s.harness.step();
    // Close a tab left of the active one with its ×: the active tab stays.
    s.harness.query_all_by_label_contains("Close the ").next().expect("a close button").click();
    s.harness.step();
    s.harness.step();
    assert_eq!(titles(&s), ["Query 2", "Query 3", "Query 4"]);
    assert_eq!(s.app().active_tab().title, "Query 3");
    // Ctrl+W closes the active one; its right neighbour becomes active.
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::W);
    s.harness.step();
    assert_eq!(titles(&s), ["Query 2", "Query 4"]);
    assert_eq!(s.app().active_tab().title, "Query 4");
    // Ctrl+Shift+T brings it back; Ctrl+T opens a new one.
    s.harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::T);
    s.harness.step();
    assert_eq!(titles(&s), ["Query 2", "Query 4", "Query 3"]);
    assert_eq!(s.app().active_tab().title, "Query 3");
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::T);
    s.harness.step();
    assert_eq!(s.app().tabs().len(), 4);
    // A middle click closes a tab too.
    s.harness.get_by_label("Query 2").click_button(egui::PointerButton::Middle);
    s.harness.step();
    s.harness.step();
    assert_eq!(titles(&s), ["Query 4", "Query 3", "Query 6"]);
    s.harness.run();
}

#[test]
fn closing_a_tab_with_a_request_under_way_cancels_it() {
    let mut s = Session::start();
    let slow = s.runtime.block_on(crate::harness::sandbox_with(orgql::sandbox::Config {
        users: 10,
        latency: Duration::from_secs(30),
        ..Default::default()
    }));
    s.add_profile("slow", slow.base_url(), "sandbox-admin");
    s.click("New tab");
    s.type_into("Query", "{ paginatedUsers(first: 5) { edges { node { ref } } } }");
    s.click("Run");
    assert!(s.app().active_tab().busy());
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::W);
    s.harness.step();
    assert!(s.app().tabs().iter().all(|tab| !tab.busy()), "nothing runs for a closed tab");
    // The request was cancelled in the worker: its end comes at once, not after the latency.
    let asked = Instant::now();
    s.wait_for("the cancelled request's end", |h| h.state().running_jobs() == 0);
    assert!(asked.elapsed() < Duration::from_secs(10), "the request was not cancelled");
    // (No settling run: the explorer still waits for the slow server's schema, with a spinner.)
}

#[test]
fn a_connection_chosen_with_the_history_shown_brings_its_schema_to_the_editor() {
    let mut s = Session::start();
    let minimal = s.runtime.block_on(crate::harness::minimal_server(5));
    // Groups are the sandbox's: checked against its schema, the query is valid.
    s.type_into("Query", "{ paginatedGroups(first: 2) { count } }");
    s.harness.run();
    // A problem names the field in backticks (the query's text has none).
    assert!(s.text_containing("`paginatedGroups`").is_none(), "valid on the sandbox:\n{}", s.screen());
    // The explorer is not drawn: the schema is the app's, asked for when the connection changes.
    s.click("History");
    s.add_profile("minimal", minimal.base_url(), "sandbox-admin");
    s.wait_for("the minimal server's schema", |h| {
        h.state().schema_model().is_some_and(|model| model.type_info("Group").is_none())
    });
    // The editor checks against the minimal server's schema, which has no groups.
    s.wait_for_text("`paginatedGroups`");
    // Back on the sandbox: its schema is still known, nothing is fetched again.
    s.click("Connection");
    s.harness.get_by_role_and_label(Role::Button, "Sandbox").click();
    s.harness.step();
    assert!(s.app().schema_model().is_some_and(|model| model.type_info("Group").is_some()));
    assert!(!s.app().schema().is_pending(), "kept per connection");
    s.harness.run();
}

#[test]
fn a_closed_tab_s_pages_end_with_it_and_pages_move_in_the_worker() {
    let mut s = Session::start();
    s.type_into("Query", "{ paginatedUsers(first: 5) { count edges { node { ref } } } }");
    s.click("Run");
    s.wait_for("the first page", |h| h.state().active_tab().grid.as_ref().is_some_and(|g| g.rows.len() == 5));
    let first: Vec<String> = rows(&s);
    s.click("Next page");
    s.wait_for("the second page", |h| h.state().active_tab().position.is_some_and(|p| p.number == 2));
    assert_eq!(s.app().active_tab().grid.as_ref().map(|g| g.first_row), Some(6));
    assert_ne!(rows(&s), first);
    s.click("Previous page");
    s.wait_for("the first page again", |h| h.state().active_tab().position.is_some_and(|p| p.number == 1));
    assert_eq!(rows(&s), first, "the same rows, from the walk's remembered start");
    // Closed and reopened: the rows come back, the walk does not (Run pages again).
    s.click("New tab");
    s.harness.get_by_label("Users").click();
    s.harness.step();
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::W);
    s.harness.step();
    s.harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::T);
    s.harness.step();
    assert_eq!(s.app().active_tab().title, "Users");
    assert_eq!(rows(&s), first);
    let next = s.harness.get_by_label("Next page");
    assert!(next.accesskit_node().is_disabled(), "no walk to move on");
    s.harness.run();
}

fn rows(s: &Session) -> Vec<String> {
    let grid = s.app().active_tab().grid.as_ref().expect("rows");
    grid.rows.iter().map(|row| row.cell(0).unwrap_or_default().to_owned()).collect()
}

#[test]
fn a_drag_moves_a_tab() {
    let mut s = Session::start();
    s.click("New tab");
    s.click("New tab");
    assert_eq!(titles(&s), ["Users", "Query 2", "Query 3"]);
    // Drag "Users" past "Query 3": it goes last, and stays the tab it was.
    let from = s.harness.get_by_label("Users").rect().center();
    let to = s.harness.get_by_label("Query 3").rect().right_center() + egui::vec2(4.0, 0.0);
    s.drag(from, to, 6);
    assert_eq!(titles(&s), ["Query 2", "Query 3", "Users"]);
    assert_eq!(s.app().active_tab().title, "Query 3", "the active tab stays active");
    s.harness.run();
}

#[test]
fn a_new_tab_takes_the_keys_typed_right_after_ctrl_t() {
    let mut s = Session::start();
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::T);
    s.harness.step();
    s.harness.step();
    s.harness.event(egui::Event::Text("# mine\n".into()));
    s.harness.step();
    s.harness.step();
    assert_eq!(s.app().active_tab().title, "Query 2");
    assert!(s.app().active_tab().query.starts_with("# mine\n"), "{}", s.app().active_tab().query);
    s.harness.run();
}
