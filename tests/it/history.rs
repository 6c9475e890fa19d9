//! The History side list as a person uses it: what each run shows, searching, deleting one and
//! all (after a question), and opening a run in a new tab on its own connection.

use egui_kittest::kittest::Queryable;

use crate::harness::{Session, off_ui_thread};

/// Runs `query` in the active tab.
fn run(s: &mut Session, query: &str) {
    s.harness.state_mut().active_tab_mut().query = query.to_owned();
    s.harness.step();
    s.run_query();
}

fn listed(s: &Session) -> Vec<String> {
    s.app().history().iter().map(|entry| entry.operation.clone()).collect()
}

const LIST: &str = "query ListUsers { paginatedUsers(first: 5) { edges { node { ref name } } } }";
const COUNT: &str = "query CountGroups { paginatedGroups(first: 1) { count } }";

#[test]
fn each_run_shows_when_where_what_and_how_and_search_finds_it() {
    let mut s = Session::start();
    run(&mut s, LIST);
    run(&mut s, COUNT);
    s.click("History");
    s.wait_for("both runs listed", |h| h.state().history().len() == 2);
    assert_eq!(listed(&s), ["CountGroups", "ListUsers"], "the newest first");
    s.wait_for_label("ListUsers");
    // Date and time, connection, status, rows, duration.
    let today = chrono::Local::now().format("%Y-%m-%d ").to_string();
    assert!(s.text_containing(&today).is_some(), "the date is shown:\n{}", s.screen());
    assert!(s.harness.query_all_by_label("Sandbox").count() >= 2, "{}", s.screen());
    assert!(s.harness.query_all_by_label("OK").count() >= 2, "{}", s.screen());
    s.wait_for_label("5 rows");
    assert!(s.text_containing(" ms").is_some() || s.text_containing(" s").is_some(), "{}", s.screen());
    let entry = &s.app().history()[1];
    assert_eq!((entry.rows, entry.status), (Some(5), orgql::store::RunStatus::Ok));

    // Search: in the database, by any text of the run (here a field of the document).
    s.type_into("Search history", "paginatedGroups");
    s.wait_for("the search's answer", |h| h.state().history().len() == 1);
    assert_eq!(listed(&s), ["CountGroups"]);
    assert!(s.harness.query_by_label("ListUsers").is_none(), "{}", s.screen());
    s.type_into("Search history", "no run has this");
    s.wait_for_label("No run contains this text.");
    // A run while searching keeps the search.
    s.type_into("Search history", "ListUsers");
    s.wait_for("the search's answer", |h| h.state().history().len() == 1);
    run(&mut s, LIST);
    s.wait_for("the new run found", |h| h.state().history().len() == 2);
    assert_eq!(listed(&s), ["ListUsers", "ListUsers"]);
}

#[test]
fn runs_are_deleted_one_by_one_and_all_after_a_question() {
    let mut s = Session::start();
    run(&mut s, LIST);
    run(&mut s, COUNT);
    run(&mut s, LIST);
    s.click("History");
    s.wait_for("three runs listed", |h| h.state().history().len() == 3);
    // The newest entry's Delete button comes first.
    s.harness.get_all_by_label("Delete").next().expect("a Delete button").click();
    s.wait_for("one run deleted", |h| h.state().history().len() == 2);
    assert_eq!(listed(&s), ["CountGroups", "ListUsers"]);

    // Clearing asks first; keeping the history changes nothing.
    s.click("Clear history…");
    s.wait_for_label("Delete the whole history?");
    s.click("Keep history");
    assert!(s.harness.query_by_label("Delete the whole history?").is_none());
    assert_eq!(s.app().history().len(), 2);
    s.click("Clear history…");
    s.click("Delete all");
    s.wait_for("the history emptied", |h| h.state().history().is_empty());
    s.wait_for_label("Queries you run appear here.");

    // Gone from the database too, not only from the list.
    let path = s.path("history.sqlite3");
    let kept = off_ui_thread(|| orgql::store::Store::open(&path).unwrap().history(10).unwrap().len());
    assert_eq!(kept, 0);
}

#[test]
fn a_run_opens_in_a_new_tab_on_its_own_connection() {
    let mut s = Session::start();
    let other = s.runtime.block_on(crate::harness::sandbox(10));
    s.add_profile("second", other.base_url(), "sandbox-admin");
    s.harness.state_mut().active_tab_mut().variables = "{\"n\": 3}".into();
    run(&mut s, "query OnSecond($n: Int) { paginatedUsers(first: $n) { edges { node { ref } } } }");
    s.wait_for("the run listed", |h| h.state().history().len() == 1);
    assert_eq!(s.app().history()[0].profile, "second");
    // Back on the sandbox, the run is opened from the list.
    s.click("Connection");
    s.harness.get_by_role_and_label(egui::accesskit::Role::Button, "Sandbox").click();
    s.harness.step();
    s.harness.step();
    assert!(s.app().title().contains("Sandbox"), "{}", s.app().title());
    s.click("History");
    s.wait_for_label("OnSecond");
    let tabs_before = s.app().tabs().len();
    s.click("OnSecond");
    assert_eq!(s.app().tabs().len(), tabs_before + 1, "a new tab");
    let tab = s.app().active_tab();
    assert_eq!(tab.title, "OnSecond");
    assert!(tab.query.contains("query OnSecond"), "{}", tab.query);
    assert_eq!(tab.variables, "{\"n\":3}");
    s.harness.step();
    assert!(s.app().title().contains("second"), "the run's connection is chosen: {}", s.app().title());
    s.run_query();
    let grid = s.app().active_tab().grid.as_ref().expect("rows");
    assert_eq!(grid.rows.len(), 3);
}
