//! Saved operations: Ctrl+S into a collection, the side list (open, rename, duplicate, delete,
//! marks against the chosen connection's schema), after a restart, from the command line
//! (`--saved`), and as `.graphql` files.

use std::path::Path;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;

use crate::harness::{Session, orgql_cli};

const ACTIVE: &str = "query ActiveUsers($first: Int) { paginatedUsers(first: $first, isActive: true) { count edges { node { ref name } } } }";

/// `orgql operations …` with the session's database.
fn operations(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_orgql"))
        .arg("operations")
        .args(args)
        .arg("--store")
        .arg(dir.join("history.sqlite3"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ORGQL_NO_KEYRING", "1")
        .output()
        .expect("orgql runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// The entry named `label` of the saved list (on the left; a tab may have the same name).
fn entry<'a>(s: &'a Session, label: &'a str) -> egui_kittest::Node<'a> {
    let filter = s.harness.get_by_label("Filter saved").rect();
    let in_list = |rect: egui::Rect| rect.left() < filter.right() + 20.0 && rect.top() > filter.bottom();
    s.harness.get_all_by_label(label).find(|node| in_list(node.rect())).expect("the entry in the list")
}

fn saved_names(s: &Session) -> Vec<String> {
    s.app().saved_operations().iter().map(|op| op.path()).collect()
}

/// Saves the active tab with Ctrl+S as `name` in `collection`.
fn save_as(s: &mut Session, name: &str, collection: &str) {
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    s.harness.step();
    s.wait_for_label("Save operation");
    s.type_into("Name", name);
    s.type_into("Collection", collection);
    s.click("Save");
}

#[test]
fn an_operation_saved_with_ctrl_s_comes_back_runs_from_the_list_and_from_the_command_line() {
    let mut s = Session::start();
    s.type_into("Query", ACTIVE);
    s.type_into("Variables (JSON)", "{\"first\": 3}");
    s.click("Saved");
    save_as(&mut s, "Active users", "HR");
    s.wait_for("the saved operation listed", |h| !h.state().saved_operations().is_empty());
    assert_eq!(saved_names(&s), ["HR/Active users"]);
    assert_eq!(s.app().active_tab().title, "Active users", "the tab is the operation's now");
    s.wait_for_label("HR");
    entry(&s, "Active users");
    // Ctrl+S again saves in place, without asking.
    s.type_into("Variables (JSON)", "{\"first\": 4}");
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    s.harness.step();
    assert!(s.harness.query_by_label("Save operation").is_none(), "no window: the tab has its operation");
    s.wait_for("the variables saved", |h| {
        h.state().saved_operations().first().is_some_and(|op| op.variables == "{\"first\": 4}")
    });
    assert_eq!(saved_names(&s), ["HR/Active users"], "replaced, not added");

    let base_url = s.sandbox_url();
    let dir = s.path("");
    let store = s.path("history.sqlite3");
    let store = store.to_str().expect("a UTF-8 path");
    let (code, out, err) = orgql_cli(&dir, &base_url, &["query", "--saved", "HR/Active users", "--store", store]);
    assert_eq!(code, 0, "{err}");
    let answer: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(answer["data"]["paginatedUsers"]["edges"].as_array().map(Vec::len), Some(4), "the saved variables");
    let csv = dir.join("active.csv");
    let (code, _, err) = orgql_cli(
        &dir,
        &base_url,
        &["export", "--saved", "Active users", "--store", store, "--out", csv.to_str().expect("UTF-8")],
    );
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&csv).expect("the CSV");
    assert!(written.lines().count() > 5, "every page of the saved operation: {written}");
    let (code, _, err) = orgql_cli(&dir, &base_url, &["query", "--saved", "Nope", "--store", store]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no saved operation is named 'Nope'"), "{err}");

    // After a restart the list is there, and opening it selects its (restored) tab.
    let mut s = s.restart();
    s.wait_for("the saved operations", |h| !h.state().saved_operations().is_empty());
    s.click("New tab");
    s.click("Saved");
    entry(&s, "Active users").click();
    s.harness.step();
    s.harness.step();
    assert_eq!(s.app().active_tab().title, "Active users");
    assert_eq!(s.app().tabs().len(), 2, "its tab was restored, not opened twice");
    s.click("Run");
    s.wait_for("rows", |h| h.state().active_tab().grid.as_ref().is_some_and(|g| g.rows.len() == 4));
    s.harness.run();
}

#[test]
fn the_list_renames_duplicates_deletes_and_marks_what_the_connection_cannot_run() {
    let mut s = Session::start();
    s.click("Saved");
    s.type_into("Query", "{ paginatedGroups(first: 2) { count } }");
    save_as(&mut s, "Groups", "");
    s.wait_for("saved", |h| h.state().saved_operations().len() == 1);
    entry(&s, "Groups").click_secondary();
    s.wait_for_label("Duplicate");
    s.click("Duplicate");
    s.wait_for("the copy", |h| h.state().saved_operations().len() == 2);
    assert_eq!(saved_names(&s), ["Groups", "Groups copy"]);
    entry(&s, "Groups copy").click_secondary();
    s.wait_for_label("Rename…");
    s.click("Rename…");
    s.type_into("New name", "Two groups");
    s.type_into("In collection", "Reports");
    s.click("Rename");
    s.wait_for("renamed", |h| h.state().saved_operations().iter().any(|op| op.path() == "Reports/Two groups"));
    entry(&s, "Groups").click_secondary();
    s.wait_for_label("Delete");
    s.click("Delete");
    s.wait_for("deleted", |h| h.state().saved_operations().len() == 1);
    assert!(s.harness.query_by_label("invalid").is_none(), "valid on the sandbox");
    // The minimal server has no groups: the operation is marked there.
    let minimal = s.runtime.block_on(crate::harness::minimal_server(5));
    s.add_profile("minimal", minimal.base_url(), "sandbox-admin");
    s.wait_for("the minimal server's schema", |h| {
        h.state().schema_model().is_some_and(|model| model.type_info("Group").is_none())
    });
    s.wait_for_label("invalid");
    s.harness.run();
}

#[test]
fn operations_go_to_graphql_files_and_come_back() {
    let mut s = Session::start();
    s.type_into("Query", ACTIVE);
    s.type_into("Variables (JSON)", "{\"first\": 2}");
    save_as(&mut s, "Active users", "HR/Monthly");
    s.wait_for("saved", |h| h.state().saved_operations().len() == 1);
    let dir = s.path("");
    let folder = dir.join("ops");
    let (code, _, err) = operations(&dir, &["export", folder.to_str().expect("UTF-8")]);
    assert_eq!(code, 0, "{err}");
    let document = std::fs::read_to_string(folder.join("HR/Monthly/Active users.graphql")).expect("the file");
    assert_eq!(document, ACTIVE);
    let variables = std::fs::read_to_string(folder.join("HR/Monthly/Active users.variables.json")).expect("JSON");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&variables).expect("JSON"), serde_json::json!({"first": 2}));
    // A teammate's file, imported from the app's list.
    std::fs::write(folder.join("Everyone.graphql"), "{ paginatedUsers(first: 50) { count } }").expect("written");
    s.click("Saved");
    s.type_into("Folder", folder.to_str().expect("UTF-8"));
    s.click("Import");
    s.wait_for("the import", |h| h.state().saved_operations().len() == 2);
    assert!(s.wait_for_text("2 operations read from").contains("ops"));
    let (code, out, err) = operations(&dir, &["list"]);
    assert_eq!(code, 0, "{err}");
    let listed: Vec<&str> = out.lines().map(|line| line.split('\t').next().unwrap_or("")).collect();
    assert_eq!(listed, ["Everyone", "HR/Monthly/Active users"]);
    s.harness.run();
}

/// The app keeps one connection to its database open while other programs (the user's
/// `sqlite3`, a backup, a script reading the history) open and close it. A second connection
/// opened in the app (the webhooks' reader, say) once dropped this connection's locks — it opened
/// the file itself to create it and closed it — so the next program to close the database (here
/// Debian's `sqlite3`, 3.40) thought itself the last, checkpointed and deleted the write-ahead
/// log, and the app's later writes went to a deleted file: on screen, but in no other process and
/// not after a restart.
#[test]
fn writes_stay_in_the_database_while_other_programs_come_and_go() {
    if std::process::Command::new("sqlite3").arg("--version").output().is_err() {
        eprintln!("note: skipped, there is no sqlite3 program here (Debian: apt install sqlite3)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite3");
    let read_elsewhere = || {
        let output = std::process::Command::new("sqlite3").arg(&path).arg("SELECT query FROM operations").output();
        let output = output.unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    };
    let store = orgql::store::Store::open(&path).unwrap();
    let saved = store.save_operation("HR", "Who", "{ a }", "").unwrap();
    drop(orgql::store::Store::open(&path).unwrap());
    assert_eq!(read_elsewhere(), "{ a }");
    assert!(dir.path().join("history.sqlite3-wal").exists(), "the log of the open connection is kept");
    assert!(store.rewrite_operation(saved.id, "{ a }", "{ b }").unwrap().is_some(), "written");
    assert_eq!(read_elsewhere(), "{ b }", "another program reads what the open connection wrote");
}
