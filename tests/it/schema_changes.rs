//! What changed in the service (issue 30), on the command line as an integrator's CI runs it:
//! a folder of two operations checked against the sandbox's schema and then its next schema
//! (`orgql sandbox --schema next`: `User.displayName` added, `User.name` deprecated for it,
//! `paginatedUsers(email:)` removed, `Role.REVIEWER` added), fixed in place, and the schema's
//! changes listed.

use std::net::SocketAddr;

use egui_kittest::kittest::Queryable;
use orgql::sandbox::schema::Edition;
use orgql::sandbox::{Config, RunningServer, Server};
use serde_json::Value;

use crate::harness::{Session, off_ui_thread, orgql_cli};

const USERS: &str = "# The users' names, for HR.\nquery Users {\n  # the first page is enough\n  paginatedUsers(first: 5) {\n    edges { node { ref name } }\n  }\n}\n";
const BY_EMAIL: &str = "query ByEmail($email: String) {\n  paginatedUsers(email: $email) { count }\n}\n";

async fn serve(listen: SocketAddr, schema: Edition) -> RunningServer {
    Server::start(Config { listen, users: 20, schema, ..Config::default() }).await.expect("the sandbox starts")
}

#[test]
fn operations_checked_fixed_and_the_schema_changes_listed_across_two_versions() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ops = dir.path().join("ops");
    std::fs::create_dir_all(ops.join("Reports")).unwrap();
    std::fs::write(ops.join("Users.graphql"), USERS).unwrap();
    std::fs::write(ops.join("Reports/ByEmail.graphql"), BY_EMAIL).unwrap();
    let run = |base: &str, args: &[&str]| orgql_cli(dir.path(), base, args);

    // The schema as it is: both operations valid, the first version kept.
    let server = runtime.block_on(serve("127.0.0.1:0".parse().unwrap(), Edition::Current));
    let (addr, base) = (server.addr(), server.base_url().to_owned());
    let (code, out, err) = run(&base, &["operations", "check", "ops"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("2 operations checked: 2 valid"), "{err}");
    let (code, out, err) = run(&base, &["schema", "changes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("no changes since 20"), "{out}");

    // The next schema, at the same address.
    runtime.block_on(server.stop());
    let server = runtime.block_on(serve(addr, Edition::Next));
    let (code, out, err) = run(&base, &["operations", "check", "ops"]);
    assert_eq!(code, 9, "{out}{err}");
    assert!(out.contains("ops/Users.graphql:5:24: deprecated: User.name — Use `displayName`."), "{out}");
    assert!(out.contains("--fix writes `name: displayName`"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("ops/Reports/ByEmail.graphql:2:18: error: ")), "{out}");

    // --fix rewrites the deprecated field (comments, layout and the response key kept) and
    // leaves the broken operation alone: still 9.
    let (code, out, err) = run(&base, &["operations", "check", "ops", "--fix"]);
    assert_eq!(code, 9, "{out}{err}");
    assert!(out.contains("ops/Users.graphql:5:24: fixed: `name` → `name: displayName`"), "{out}");
    assert_eq!(
        std::fs::read_to_string(ops.join("Users.graphql")).unwrap(),
        USERS.replace("ref name }", "ref name: displayName }")
    );
    assert_eq!(std::fs::read_to_string(ops.join("Reports/ByEmail.graphql")).unwrap(), BY_EMAIL);
    let (code, out, _) = run(&base, &["operations", "check", "ops", "--json"]);
    assert_eq!(code, 9);
    let report: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["verdict"], "invalid", "{report}");
    assert_eq!(report["operations"].as_array().map(Vec::len), Some(2), "{report}");
    let fixed = report["operations"].as_array().unwrap().iter().find(|o| o["path"] == "ops/Users.graphql").unwrap();
    assert_eq!(fixed["verdict"], "valid", "{report}");

    // Once the broken operation is gone: 0.
    std::fs::remove_file(ops.join("Reports/ByEmail.graphql")).unwrap();
    let (code, out, err) = run(&base, &["operations", "check", "ops"]);
    assert_eq!(code, 0, "{out}{err}");

    // The changes since the version shown last, then nothing new, twice; as JSON too.
    let (code, out, err) = run(&base, &["schema", "changes"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "breaking: argument email removed from Query.paginatedUsers",
            "dangerous: enum value Role.REVIEWER added",
            "safe: field User.displayName added",
            "deprecated: User.name — Use `displayName`.",
        ],
        "{err}"
    );
    for _ in 0..2 {
        let (code, out, err) = run(&base, &["schema", "changes"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("no changes since 20") && out.lines().count() == 1, "{out}");
    }
    let (code, out, _) = run(&base, &["schema", "changes", "--since", "2000-01-01", "--json"]);
    assert_eq!(code, 0);
    let changes: Value = serde_json::from_str(&out).expect("JSON");
    let levels: Vec<&str> = changes["changes"].as_array().unwrap().iter().filter_map(|c| c["level"].as_str()).collect();
    assert_eq!(levels, ["breaking", "dangerous", "safe", "deprecated"], "{changes}");
    assert_eq!(changes["changes"][3]["alternative"], "displayName", "{changes}");

    let (code, _, err) = run(&base, &["schema", "save", "next.graphql"]);
    assert_eq!(code, 0, "{err}");
    let sdl = std::fs::read_to_string(dir.path().join("next.graphql")).unwrap();
    assert!(sdl.contains("displayName: String!") && sdl.contains("Use `displayName`."), "{sdl}");
    runtime.block_on(server.stop());
}

/// The sandbox's current schema served, and the app connected to it as "Acme" with its schema
/// fetched.
fn on_acme(s: &mut Session) -> RunningServer {
    let server = s.runtime.block_on(serve("127.0.0.1:0".parse().unwrap(), Edition::Current));
    s.add_profile("Acme", server.base_url(), "sandbox-admin");
    s.wait_for("Acme's schema", |h| h.state().schema().value().is_some_and(|loaded| !loaded.cached));
    server
}

/// The exports the app's database records on "Acme".
fn exports_on_acme(s: &Session) -> Vec<(orgql::store::ExportRecord, String)> {
    let db = s.path("history.sqlite3");
    off_ui_thread(move || {
        let store = orgql::store::Store::open(&db).expect("the database");
        store.exports_on("Acme").expect("the exports")
    })
}

#[test]
fn the_app_says_in_one_line_when_the_services_schema_changed_and_shows_the_changes() {
    let mut s = Session::start();
    let server = on_acme(&mut s);
    let addr = server.addr();
    s.runtime.block_on(server.stop());
    let server = s.runtime.block_on(serve(addr, Edition::Next));
    s.click("Refresh schema");
    let notice = s.wait_for_text("The service's schema changed since");
    assert!(notice.contains("2 added, 1 deprecated, 1 removed"), "{notice}");
    assert!(!s.app().state().problems().iter().any(|p| p.contains("since it was cached")), "one notice");
    // The view: the changes by kind, the deprecation with its alternative.
    s.click("Schema changes…");
    s.wait_for_label("Breaking (1)");
    assert!(
        s.text_containing("breaking: argument email removed from Query.paginatedUsers").is_some(),
        "{}",
        s.screen()
    );
    assert!(s.text_containing("safe: field User.displayName added").is_some(), "{}", s.screen());
    s.wait_for_label("Dangerous (1)");
    assert!(s.text_containing("dangerous: enum value Role.REVIEWER added").is_some(), "{}", s.screen());
    s.wait_for_text("deprecated: User.name — Use `displayName`. — use displayName");
    // Each change links to the explorer: the deprecated field shown with its docs; what was
    // removed, through the field that had it.
    s.click("User.name");
    s.wait_for_label("Deprecated: Use `displayName`.");
    assert_eq!(s.app().state().side(), orgql::ui::Side::Explorer);
    s.click("Query.paginatedUsers");
    s.wait_for_label(": UserConnection!");
    s.runtime.block_on(server.stop());
}

const WHO: &str =
    "query Who {\n  # the first five\n  paginatedUsers(first: 5) {\n    edges { node { ref name } }\n  }\n}";

#[test]
fn fix_rewrites_a_saved_operation_from_the_schema_changes_window_and_undo_puts_it_back() {
    let mut s = Session::start();
    let server = on_acme(&mut s);
    let addr = server.addr();
    // An operation using User.name, saved and run once (the history has it too).
    s.type_into("Query", WHO);
    s.run_query();
    s.harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    s.harness.step();
    s.wait_for_label("Save operation");
    s.type_into("Name", "Who");
    s.type_into("Collection", "HR");
    s.click("Save");
    s.wait_for("the operation saved", |h| h.state().saved_operations().len() == 1);
    // The rows shown exported from the window: recorded as `orgql export` records its own.
    let shown = s.path("who.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &shown.display().to_string());
    s.click("Export");
    assert_eq!(s.wait_for_text("Exported "), format!("Exported 5 rows to {}", shown.display()));
    s.wait_until_idle();
    let exports = exports_on_acme(&s);
    assert_eq!(exports.len(), 1, "{exports:?}");
    let (record, query) = &exports[0];
    assert_eq!((record.file.as_str(), record.rows, query.as_str()), (shown.to_str().unwrap(), 5, WHO));

    // The service moves to its next schema: User.name deprecated for displayName.
    s.runtime.block_on(server.stop());
    let server = s.runtime.block_on(serve(addr, Edition::Next));
    s.click("Refresh schema");
    let notice = s.wait_for_text("The service's schema changed since");
    assert!(notice.contains("1 saved operation affected"), "{notice}");
    // Its own line, pointing to the window, not to the command line.
    assert!(notice.contains("Schema changes… lists") && !notice.contains("orgql schema"), "{notice}");
    assert!(s.harness.query_by_label("Dismiss the notice").is_some(), "its own Dismiss:\n{}", s.screen());
    s.click("Show the changes");
    s.wait_for_label("Saved operations affected (1)");
    s.wait_for_label("Exports affected (1)");
    assert!(s.text_containing(&format!("{} (5 rows, ", shown.display())).is_some(), "{}", s.screen());
    assert!(s.text_containing("4:24: deprecated: User.name — Use `displayName`.").is_some(), "{}", s.screen());
    s.wait_for_label("History entries affected (1)");
    assert!(s.text_containing("Who, run of 20").is_some(), "{}", s.screen());
    // Default: the last two versions.
    assert!(s.text_containing("2 versions kept").is_some(), "{}", s.screen());

    // Fix shows the rewrite as a diff, and applies it on confirm.
    s.click("Fix HR/Who");
    s.wait_for_label("Apply fix");
    assert!(s.text_containing("4 -     edges { node { ref name } }").is_some(), "{}", s.screen());
    assert!(s.text_containing("4 +     edges { node { ref name: displayName } }").is_some(), "{}", s.screen());
    s.click("Apply fix");
    let fixed = WHO.replace("ref name }", "ref name: displayName }");
    s.wait_for("the saved operation rewritten", |h| h.state().saved_operations()[0].query == fixed);
    s.wait_for_label("Fixed HR/Who: 1 use rewritten");
    assert_eq!(s.app().active_tab().query, fixed, "the open tab follows its saved operation");
    s.wait_for_label("Saved operations: none uses what changed.");
    // The notice counts again: the operation fixed no longer uses what changed.
    let notice = s.wait_for_text("— no saved operation affected now");
    assert!(!notice.contains("1 saved operation affected"), "{notice}");

    // Undo puts the previous text back.
    s.click("Undo");
    s.wait_for("the saved operation put back", |h| h.state().saved_operations()[0].query == WHO);
    s.wait_for_label("HR/Who is as it was before the fix");
    // Written for good: the database read afresh says so.
    let db = s.path("history.sqlite3");
    let kept = off_ui_thread(move || {
        let store = orgql::store::Store::open(&db).expect("the database");
        store.operation_in("HR", "Who").expect("read").expect("kept").query
    });
    assert_eq!(kept, WHO, "the undo is in the database");
    s.wait_for_label("Fix HR/Who");
    assert_eq!(s.app().active_tab().query, WHO);

    // Any two versions: the baseline as To, the current one as From — the other way round.
    let choose = |s: &mut Session, combo: &str, version: &str| {
        s.click(combo);
        let item = s.text_containing(version).expect("the version listed");
        s.harness.get_by_role_and_label(egui::accesskit::Role::Button, &item).click();
        s.harness.step();
    };
    choose(&mut s, "To", "(baseline)");
    s.wait_for_label("Acme: choose two different versions to compare.");
    choose(&mut s, "From", "#2 — ");
    s.wait_for_text("breaking: field User.displayName removed");
    assert!(s.harness.query_by_label("Fix HR/Who").is_none(), "no fix toward a version that is not current");
    s.runtime.block_on(server.stop());
}

const NAMES: &str = "query Names {\n  paginatedUsers(first: 5) {\n    edges { node { name email } }\n  }\n}";

/// Issue 46: an export of every page of a query with no `ref` or `id` column, from the window,
/// is recorded (its rows by position, and the record says so); an export of the changes since
/// it says why rows cannot be compared, instead of nothing; and once the schema changes, the
/// Schema changes window lists it among the exports affected.
#[test]
fn an_export_of_a_query_without_a_key_is_recorded_and_listed_among_the_exports_affected() {
    let mut s = Session::start();
    let server = on_acme(&mut s);
    let addr = server.addr();
    s.type_into("Query", NAMES);
    s.run_query();
    let every = s.path("names.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &every.display().to_string());
    s.click("Every page of the query");
    s.click("Export");
    let done = s.wait_for_text("Exported ");
    assert!(done.contains("20 rows"), "every page of 5: {done}");
    s.wait_until_idle();
    let exports = exports_on_acme(&s);
    assert_eq!(exports.len(), 1, "{exports:?}");
    let (record, query) = &exports[0];
    assert_eq!((record.file.as_str(), record.rows, query.as_str()), (every.to_str().unwrap(), 20, NAMES));
    assert!(record.by_position(), "{record:?}");

    // The changes since it: refused in one sentence that names it.
    s.click("Export…");
    s.wait_for_label("File");
    let changes = s.path("changes.csv");
    s.type_into("File", &changes.display().to_string());
    s.click("Every page of the query");
    s.click("Only changes since the last export");
    s.click("Export");
    let said = s.wait_for_text("kept its rows by their position");
    assert!(said.contains("names.csv, 20 rows") && said.contains("cannot be compared by key"), "{said}");

    // The next schema deprecates User.name, which the query reads.
    s.runtime.block_on(server.stop());
    let server = s.runtime.block_on(serve(addr, Edition::Next));
    s.click("Refresh schema");
    s.wait_for_text("The service's schema changed since");
    s.click("Show the changes");
    s.wait_for_label("Exports affected (1)");
    let listed = s.text_containing(&format!("{} (20 rows, rows by position", every.display()));
    assert!(listed.is_some(), "{}", s.screen());
    assert!(s.text_containing("3:20: deprecated: User.name — Use `displayName`.").is_some(), "{}", s.screen());
    s.runtime.block_on(server.stop());
}
