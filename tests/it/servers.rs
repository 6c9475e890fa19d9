//! The desktop app against two servers that differ: orgql's own sandbox (Relay `pageInfo`,
//! every resource) and the minimal variant (`orgql sandbox --variant minimal`: users only, edge
//! cursors without `pageInfo`, a required `first`, other wording, graphql-core's introspection
//! quirk). Every feature reads what it needs from the schema of the server it talks to; these
//! tests drive the same steps on both, as a person would.

use std::path::Path;

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::sandbox::RunningServer;
use orgql::ui::OrgqlApp;
use serde_json::{Value, json};

use crate::harness::{Session, USERS, admin_token, graphql, minimal_server, orgql_cli as cli};

/// Users of the minimal server: another count than the sandbox's, so that rows show where they
/// came from.
const MINIMAL_USERS: usize = 77;

/// Which server a session talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// The app's in-process sandbox (its default connection).
    Sandbox,
    /// The minimal variant, added as a profile named "minimal".
    Minimal,
}

/// A session connected to `server`, its schema loaded; the minimal server is returned to keep
/// it running.
fn open(server: Server) -> (Session, Option<RunningServer>) {
    let mut s = Session::start();
    match server {
        Server::Sandbox => (s, None),
        Server::Minimal => {
            let minimal = s.runtime.block_on(minimal_server(MINIMAL_USERS));
            s.add_profile("minimal", minimal.base_url(), "sandbox-admin");
            s.wait_for("the minimal server's schema", |h| {
                h.state().schema_model().is_some_and(|model| model.type_info("Group").is_none())
            });
            (s, Some(minimal))
        }
    }
}

/// The base URL of the server a session talks to.
fn base_url(s: &mut Session, minimal: &Option<RunningServer>) -> String {
    match minimal {
        Some(server) => server.base_url().to_owned(),
        None => s.sandbox_url(),
    }
}

/// Every user's ref in the service's order, walked by edge cursors (both servers have them),
/// asked of the server directly.
fn refs_of(s: &Session, base_url: &str) -> Vec<String> {
    s.runtime.block_on(async {
        let token = admin_token(base_url, "users.read").await;
        let query =
            "query($after: String) { paginatedUsers(first: 50, after: $after) { edges { cursor node { ref } } } }";
        let (mut refs, mut after) = (Vec::new(), Value::Null);
        for _ in 0..100 {
            let page = graphql(base_url, &token, query, json!({ "after": after })).await;
            let edges = page["data"]["paginatedUsers"]["edges"].as_array().cloned().unwrap_or_default();
            refs.extend(edges.iter().map(|edge| edge["node"]["ref"].as_str().expect("a ref").to_owned()));
            if edges.len() < 50 {
                return refs;
            }
            after = edges[49]["cursor"].clone();
        }
        panic!("the users did not end after 100 pages");
    })
}

/// The `ref` column of the grid, in the order shown.
fn grid_refs(app: &OrgqlApp) -> Vec<String> {
    let grid = app.active_tab().grid.as_ref().expect("a grid");
    let column = grid.columns.iter().position(|c| c == "ref").expect("a ref column");
    grid.order.iter().map(|i| grid.rows[*i].cell(column).unwrap_or_default().to_owned()).collect()
}

fn is_enabled(s: &Session, label: &str) -> bool {
    !s.harness.get_by_label(label).accesskit_node().is_disabled()
}

/// `orgql export` of `query` against `base_url`, into `out`; its stderr.
fn cli_export(dir: &Path, base_url: &str, query: &str, out: &Path) -> String {
    let out = out.to_str().expect("a UTF-8 path");
    let (code, _, stderr) = cli(dir, base_url, &["export", "-e", query, "--out", out]);
    assert_eq!(code, 0, "orgql export failed: {stderr}");
    stderr
}

/// A new tab's sample, built from the connection's schema, runs and pages to the end; Fetch all
/// and Export every page give every row, the same file as the command line.
fn pages_fetch_all_and_export(server: Server) {
    let (mut s, minimal) = open(server);
    let url = base_url(&mut s, &minimal);
    let users = if minimal.is_some() { MINIMAL_USERS } else { USERS };
    let expected = refs_of(&s, &url);
    assert_eq!(expected.len(), users, "{server:?}");

    // A new tab: its sample asks only for what this server's schema has.
    s.click("New tab");
    let sample = s.app().active_tab().query.clone();
    assert!(sample.contains("paginatedUsers(first: 50)"), "{server:?}: {sample}");
    let problems = orgql::query::lang::validate(s.app().schema_model().expect("a schema").schema(), &sample);
    assert!(problems.is_empty(), "{server:?}: {problems:?} in\n{sample}");

    s.run_query();
    let of = format!(" of {users}");
    assert_eq!(s.wait_for_text(&of), format!("1–50{of}"), "{server:?}");
    assert_eq!(grid_refs(s.app()), expected[..50], "{server:?}");
    // Next page to the end, then back to the start.
    let mut seen = grid_refs(s.app());
    let mut pages = 1;
    while is_enabled(&s, "Next page") {
        s.click("Next page");
        s.wait_until_idle();
        pages += 1;
        let shown = grid_refs(s.app());
        let first = seen.len() + 1;
        assert_eq!(s.wait_for_text(&of), format!("{first}–{}{of}", seen.len() + shown.len()), "{server:?}");
        seen.extend(shown);
        assert!(pages <= users.div_ceil(50), "{server:?}: more pages than users");
    }
    assert_eq!(seen, expected, "{server:?}: every page once, in order");
    for _ in 1..pages {
        s.click("Previous page");
        s.wait_until_idle();
    }
    assert_eq!(grid_refs(s.app()), expected[..50], "{server:?}");
    assert!(!is_enabled(&s, "Previous page"), "{server:?}");

    s.click("Fetch all pages");
    assert_eq!(s.wait_for_text("rows fetched"), format!("All {users} rows fetched"), "{server:?}");
    s.wait_until_idle();
    assert_eq!(grid_refs(s.app()), expected, "{server:?}: every row, in the service's order");

    let all = s.path("all.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &all.display().to_string());
    s.click("Every page of the query");
    s.click("UTF-8 BOM (for spreadsheet programs)");
    s.click("Export");
    s.wait_for("the export", |h| {
        h.state().active_tab().export.as_ref().is_some_and(|e| e.request.path == all && !e.outcome.is_pending())
    });
    assert_eq!(s.wait_for_text("Exported "), format!("Exported {users} rows to {}", all.display()), "{server:?}");

    let cli = s.path("cli.csv");
    cli_export(s.dir.path(), &url, &sample, &cli);
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(read(&all), read(&cli), "{server:?}: the app's export is the command line's");
    assert_eq!(csv::Reader::from_reader(read(&cli).as_bytes()).records().count(), users, "{server:?}");
    s.harness.run();
}

#[test]
fn pages_fetch_all_and_export_on_the_sandbox() {
    pages_fetch_all_and_export(Server::Sandbox);
}

#[test]
fn pages_fetch_all_and_export_on_the_minimal_server() {
    pages_fetch_all_and_export(Server::Minimal);
}

#[test]
fn the_explorer_shows_the_minimal_server_s_schema_and_builds_queries_from_it() {
    let (mut s, _minimal) = open(Server::Minimal);
    s.harness.run();
    let model = s.app().schema_model().expect("a schema");
    assert!(
        model.type_info("UserEdge").is_some() && model.type_info("PageInfo").is_none(),
        "the minimal server's own schema"
    );
    assert!(s.harness.query_by_role_and_label(Role::CheckBox, "paginatedUsers").is_some(), "{}", s.screen());
    assert!(s.harness.query_by_label("mutation").is_none(), "the minimal server has no mutations:\n{}", s.screen());
    // A field of the sandbox that this server lacks is flagged by the editor's checks.
    s.type_into("Query", "{ paginatedUsers(first: 5) { edges { node { ref roles } } } }");
    let problem = s.wait_for_text("`roles`");
    assert!(problem.contains("User"), "the validator names the type: {problem}");
}

#[test]
fn rows_stay_with_the_connection_that_produced_them() {
    let mut s = Session::start();
    let sandbox_refs = {
        let url = s.sandbox_url();
        refs_of(&s, &url)
    };
    s.run_query();
    assert_eq!(s.wait_for_text(&format!(" of {USERS}")), format!("1–50 of {USERS}"));

    let minimal = s.runtime.block_on(minimal_server(MINIMAL_USERS));
    s.add_profile("minimal", minimal.base_url(), "sandbox-admin");
    let notice = s.wait_for_text("These rows came from Sandbox");
    assert!(notice.contains("The chosen connection is minimal"), "{notice}");

    // The next page is the sandbox's: its cursor never goes to the other server.
    s.click("Next page");
    s.wait_until_idle();
    assert_eq!(grid_refs(s.app()), sandbox_refs[50..100]);
    assert_eq!(s.wait_for_text(&format!(" of {USERS}")), format!("51–100 of {USERS}"));

    // Run on the chosen connection: its rows, and the notice is gone.
    s.click("Run on minimal");
    s.wait_until_idle();
    assert_eq!(s.wait_for_text(&format!(" of {MINIMAL_USERS}")), format!("1–50 of {MINIMAL_USERS}"));
    assert!(s.text_containing("These rows came from").is_none(), "{}", s.screen());
    let minimal_refs = refs_of(&s, minimal.base_url());
    assert_eq!(grid_refs(s.app()), minimal_refs[..50]);
    s.harness.run();
}

#[test]
fn the_command_line_walks_every_page_of_both_servers() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sandbox = runtime.block_on(crate::harness::sandbox(USERS));
    let minimal = runtime.block_on(minimal_server(MINIMAL_USERS));
    // No `first`, no cursor, no page information: each server's schema says what to add.
    let query = "{ paginatedUsers { count edges { node { ref email } } } }";
    for (server, users) in [(&sandbox, USERS), (&minimal, MINIMAL_USERS)] {
        let url = server.base_url();
        let (code, stdout, stderr) = cli(dir.path(), url, &["query", "-e", query, "--all-pages"]);
        assert_eq!(code, 0, "{url}: {stderr}");
        let merged: Value = serde_json::from_str(&stdout).expect("one JSON response");
        let edges = merged["data"]["paginatedUsers"]["edges"].as_array().expect("edges");
        assert_eq!(edges.len(), users, "{url}: every user once");
        let out = dir.path().join(format!("users-{users}.csv"));
        let (code, _, stderr) =
            cli(dir.path(), url, &["export", "-e", query, "--out", out.to_str().expect("a UTF-8 path")]);
        assert_eq!(code, 0, "{url}: {stderr}");
        let text = std::fs::read_to_string(&out).expect("the CSV");
        assert_eq!(csv::Reader::from_reader(text.as_bytes()).records().count(), users, "{url}");
        assert_eq!(text.lines().next(), Some("ref,email"), "{url}: only the columns asked for");
    }
}

#[test]
fn a_field_the_server_lacks_is_the_server_s_own_error() {
    // The user asks for `pageInfo`, which the minimal server lacks: orgql pages by edge cursors
    // and adds nothing of its own, so the service's own error is what is shown.
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let minimal = runtime.block_on(minimal_server(10));
    let query = "{ paginatedUsers(first: 5) { pageInfo { hasNextPage } edges { node { ref } } } }";
    let (code, _, stderr) = cli(dir.path(), minimal.base_url(), &["query", "-e", query, "--all-pages"]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("pageInfo"), "{stderr}");
}

/// A user of the server, as it has them: ref, name, email.
fn user_of(s: &Session, base_url: &str, user_ref: &str) -> (String, String, String) {
    s.runtime.block_on(async {
        let token = admin_token(base_url, "users.read").await;
        let query = "query($r: String!) { user(ref: $r) { ref name email } }";
        let body = graphql(base_url, &token, query, json!({ "r": user_ref })).await;
        let user = &body["data"]["user"];
        let text = |key: &str| user[key].as_str().unwrap_or_else(|| panic!("{key} in {body}")).to_owned();
        (text("ref"), text("name"), text("email"))
    })
}

/// Steps until a widget named exactly `name` is on screen (the card's heading; the name may also
/// show elsewhere on the card).
fn wait_for_name(s: &mut Session, name: &str) {
    let name = name.to_owned();
    s.wait_for(&format!("'{name}' on screen"), move |h| h.query_all_by_label(&name).next().is_some());
}

/// Whether the card shows `email`: in its editable field where the service can change it, as
/// text where it cannot.
fn shows_email(s: &Session, email: &str) -> bool {
    s.harness.query_by_label("Email").and_then(|field| field.value()).as_deref() == Some(email)
        || s.harness.query_all_by_label(email).next().is_some()
}

/// Find user by ref, by email and by name opens a card on both servers; the card shows what
/// each server's schema has, and offers changes only where it has mutations for them.
fn find_user_by_ref_email_and_name(server: Server) {
    let (mut s, minimal) = open(server);
    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
    let url = base_url(&mut s, &minimal);
    // A user past the unusual names of the first ones, with a name of their own.
    let (user_ref, name, email) = user_of(&s, &url, "u00042");
    let heading = orgql::support::one_line(&name);

    s.type_into("User to find", &user_ref);
    s.click("Find");
    wait_for_name(&mut s, &heading);
    assert!(shows_email(&s, &email), "{server:?}: the email on the card:\n{}", s.screen());
    match server {
        Server::Minimal => {
            assert!(s.harness.query_by_label("Roles").is_none(), "no roles on this server:\n{}", s.screen());
            assert!(s.text_containing("Groups (").is_none(), "no groups on this server:\n{}", s.screen());
            assert!(s.harness.query_by_role_and_label(Role::Button, "Archive").is_none(), "no mutation, no action");
            assert!(s.harness.query_by_role_and_label(Role::Button, "Activate").is_none(), "no mutation, no action");
            assert!(s.text_containing("offers no changes to users").is_some(), "{}", s.screen());
            // One line says what the service's schema does not offer (issue 21).
            assert!(s.text_containing("offers no learning data about users").is_some(), "{}", s.screen());
        }
        Server::Sandbox => {
            s.wait_for_text("Enrollments (");
            assert!(s.harness.query_by_label("Roles").is_some(), "{}", s.screen());
            let actions =
                ["Archive", "Activate"].iter().filter(|a| s.harness.query_by_role_and_label(Role::Button, a).is_some());
            assert_eq!(actions.count(), 1, "archive or activate is offered:\n{}", s.screen());
        }
    }

    // By email, typed in capitals.
    s.type_into("User to find", "nobody-yet@example.invalid");
    s.click("Find");
    s.wait_for_label("No user has the email 'nobody-yet@example.invalid'.");
    s.type_into("User to find", &email.to_uppercase());
    s.click("Find");
    wait_for_name(&mut s, &heading);
    assert!(s.harness.query_by_label(&user_ref).is_some(), "{server:?}: the ref on the card:\n{}", s.screen());

    // By name: the whole name finds them (alone, or among those who share it).
    s.type_into("User to find", "nobody-yet@example.invalid");
    s.click("Find");
    s.wait_for_label("No user has the email 'nobody-yet@example.invalid'.");
    s.type_into("User to find", &format!("name:{heading}"));
    s.click("Find");
    s.wait_for("the card or the list of matches", |h| {
        h.query_by_label("Email").is_some() || h.query_all_by_label_contains("Pick one:").next().is_some()
    });
    if s.harness.query_by_label("Email").is_none() {
        s.harness.query_all_by_label(&heading).next().expect("the match").click();
        s.harness.step();
    }
    wait_for_name(&mut s, &heading);
    assert!(shows_email(&s, &email), "{server:?}: the email on the card:\n{}", s.screen());
    s.settle();
}

#[test]
fn find_user_by_ref_email_and_name_on_the_sandbox() {
    find_user_by_ref_email_and_name(Server::Sandbox);
}

#[test]
fn find_user_by_ref_email_and_name_on_the_minimal_server() {
    find_user_by_ref_email_and_name(Server::Minimal);
}
