//! The desktop app driven as a person would, with egui_kittest: widgets are found by their
//! accessible names and roles, clicked and typed into. The worker runs on a real tokio runtime
//! and talks to real sandboxes over HTTP, so its events arrive asynchronously: the tests step the
//! harness in bounded loops until what a person would wait for is on screen.

use std::path::Path;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::sandbox::{Config, RunningServer};
use orgql::ui::OrgqlApp;

use crate::harness::{SECRET, Session, USERS, off_ui_thread, sandbox, sandbox_with};

/// The `ref` column of the grid, in the order shown.
fn grid_refs(app: &OrgqlApp) -> Vec<String> {
    let grid = app.active_tab().grid.as_ref().expect("a grid");
    let column = grid.columns.iter().position(|c| c == "ref").expect("a ref column");
    grid.order.iter().map(|i| grid.rows[*i].cell(column).unwrap_or_default().to_owned()).collect()
}

fn is_enabled(harness: &Harness<'static, OrgqlApp>, label: &str) -> bool {
    !harness.get_by_label(label).accesskit_node().is_disabled()
}

#[test]
fn first_start_shows_the_sandbox_users() {
    let mut s = Session::start();
    s.harness.run();
    // A first start: the sample query of the sandbox's users, one click from a grid.
    assert_eq!(s.app().tabs().len(), 1);
    let query = s.harness.get_by_label("Query").value().unwrap_or_default();
    assert!(query.contains("paginatedUsers"), "the sample query: {query}");
    assert!(s.harness.query_by_label("Run the query to see its rows here.").is_some(), "{}", s.screen());
    assert!(s.text_containing("No OS keyring is available (tests)").is_some(), "the keyring notice: {}", s.screen());

    s.run_query();
    assert_eq!(s.wait_for_text(" of 120"), "1–50 of 120");
    for column in ["ref", "name", "email", "isActive"] {
        assert!(s.harness.query_by_role_and_label(Role::ColumnHeader, column).is_some(), "a '{column}' header");
    }
    let expected = s.expected_refs();
    assert_eq!(expected.len(), USERS);
    assert_eq!(grid_refs(s.app()), expected[..50]);
    // The first rows are on screen, as cells a screen reader reads.
    for user in &expected[..5] {
        assert!(s.harness.query_by_label(user).is_some(), "{user} on screen:\n{}", s.screen());
    }
    assert!(s.text_containing("Token: valid for").is_some(), "the status bar shows the token");
    assert!(s.text_containing("HTTP 200").is_some(), "the status bar shows the last request");
    // The run went into the history, which the app lists.
    s.wait_for("the run in the history", |h| !h.state().history().is_empty());
    assert_eq!(s.app().history()[0].profile, "Sandbox");
    s.harness.run();
}

#[test]
fn a_profile_with_a_wrong_secret_says_the_client_is_invalid() {
    let mut s = Session::start();
    let server = s.runtime.block_on(sandbox(10));
    s.click("Profiles…");
    s.wait_for_label("Add profile");
    s.click("Add profile");
    s.type_into("Name", "acme-test");
    s.type_into("Base URL", server.base_url());
    s.type_into("Client ID", "sandbox-admin");
    s.type_into("Client secret", "not-the-secret");
    s.harness.run();
    s.click("Test connection");
    let failed = s.wait_for_text("Connection failed");
    assert!(failed.contains("invalid_client"), "{failed}");
    assert!(failed.contains("check the client ID and secret"), "{failed}");
    assert!(!failed.contains("not-the-secret"), "the secret leaked: {failed}");

    // Saved all the same, the profile can be chosen; running against it says the same.
    s.click("Save profile");
    s.wait_for_label("Edit acme-test");
    // The worker writes the file: wait for it.
    let file = s.path("profiles.toml");
    s.wait_for("the profiles file", |_| std::fs::read_to_string(&file).is_ok_and(|text| text.contains("acme-test")));
    let saved = std::fs::read_to_string(&file).expect("the profiles file");
    assert!(saved.contains("acme-test") && saved.contains(server.base_url()), "{saved}");
    assert!(!saved.contains("not-the-secret"), "the secret went to the file: {saved}");
    s.click("Close Profiles");
    s.click("Connection");
    s.harness.get_by_role_and_label(Role::Button, "acme-test").click();
    s.harness.step();
    s.run_query();
    let error = s.wait_for_text("invalid_client");
    assert!(error.contains("refused the client credentials"), "{error}");
    assert!(s.text_containing("Check the profile's client ID and secret").is_some(), "the advice: {}", s.screen());
    assert!(s.app().active_tab().grid.is_none());

    // With the secret corrected, the same profile connects and runs.
    s.click("Profiles…");
    s.click("Edit acme-test");
    s.type_into("Client secret", SECRET);
    s.click("Test connection");
    let connected = s.wait_for_text("Connected: token valid for");
    assert!(connected.contains("23 h"), "{connected}");
    s.click("Save profile");
    s.wait_for_label("Edit acme-test");
    s.click("Close Profiles");
    s.run_query();
    assert_eq!(s.wait_for_text(" of 10"), "1–10 of 10");
    s.harness.run();
}

/// A query whose sixth line has a misspelt field.
const MISSPELT: &str = "query Users {
  paginatedUsers(first: 5) {
    edges {
      node {
        ref
        emial
      }
    }
  }
}
";

/// The same in a fragment after the operation, below where the app adds `pageInfo` and `count`
/// to the query it sends.
const MISSPELT_IN_A_FRAGMENT: &str = "query Users {
  paginatedUsers(first: 5) {
    edges {
      node { ...Person }
    }
  }
}
fragment Person on User {
  ref
  emial
}
";

#[test]
fn a_graphql_error_shows_its_message_and_location_and_the_location_leads_to_it() {
    let mut s = Session::start();
    for (query, location, line) in
        [(MISSPELT, "line 6, column 9", 6), (MISSPELT_IN_A_FRAGMENT, "line 10, column 3", 10)]
    {
        s.type_into("Query", query);
        assert_eq!(s.app().active_tab().query, query);
        s.run_query();
        // The server's message (the editor's own check words it differently).
        let message = s.wait_for_text("Unknown field");
        assert!(message.contains("emial"), "{message}");
        assert!(s.harness.query_by_label("1 error").is_some(), "the error count:\n{}", s.screen());
        let link = s.harness.query_by_role_and_label(Role::Link, location);
        assert!(link.is_some(), "{location} of the query as written:\n{}", s.screen());
        s.harness.get_by_role_and_label(Role::Link, location).click();
        s.harness.step();
        s.harness.step();
        // The editor has the focus, its cursor before the misspelt field: typing lands there.
        assert!(s.harness.get_by_label("Query").is_focused(), "the editor has the focus");
        s.harness.get_by_label("Query").type_text("e");
        s.harness.step();
        let typed = s.app().active_tab().query.lines().nth(line - 1).expect("the line").trim().to_owned();
        assert_eq!(typed, "eemial");
        // Typing a name offers completions; Escape closes the offer.
        s.harness.key_press(egui::Key::Escape);
        s.harness.run();
    }
}

#[test]
fn paging_forward_and_back_shows_the_right_rows() {
    let mut s = Session::start();
    s.run_query();
    let expected = s.expected_refs();
    let pages = [("1–50 of 120", 0..50), ("51–100 of 120", 50..100), ("101–120 of 120", 100..120)];
    let check = |s: &mut Session, page: usize| {
        let (range, rows) = pages[page].clone();
        assert_eq!(s.wait_for_text(" of 120"), range);
        assert_eq!(grid_refs(s.app()), expected[rows.clone()], "the rows of {range}");
        assert!(s.harness.query_by_label(&expected[rows.start]).is_some(), "{range} starts on screen");
        assert_eq!(is_enabled(&s.harness, "Previous page"), page > 0, "Previous page on {range}");
        assert_eq!(is_enabled(&s.harness, "Next page"), page < 2, "Next page on {range}");
    };
    check(&mut s, 0);
    for page in [1, 2] {
        s.click("Next page");
        s.wait_until_idle();
        check(&mut s, page);
    }
    for page in [1, 0] {
        s.click("Previous page");
        s.wait_until_idle();
        check(&mut s, page);
    }

    // Pages of another size number their rows by that size.
    s.type_into("Query", &orgql::ui::SAMPLE_QUERY.replace("first: 50", "first: 20"));
    s.run_query();
    assert_eq!(s.wait_for_text(" of 120"), "1–20 of 120");
    s.click("Next page");
    s.wait_until_idle();
    assert_eq!(s.wait_for_text(" of 120"), "21–40 of 120");
    assert_eq!(grid_refs(s.app()), expected[20..40]);
    s.click("Previous page");
    s.wait_until_idle();
    assert_eq!(s.wait_for_text(" of 120"), "1–20 of 120");
    s.harness.run();
}

/// `orgql export` of `query` against `base_url`, into `out`.
fn cli_export(dir: &Path, base_url: &str, query: &str, out: &Path, bom: bool) {
    let out = out.to_str().expect("a UTF-8 path");
    let mut args = vec!["export", "-e", query, "--out", out];
    args.extend(bom.then_some("--bom"));
    let (code, _, stderr) = crate::harness::orgql_cli(dir, base_url, &args);
    assert_eq!(code, 0, "orgql export failed: {stderr}");
}

#[test]
fn fetch_all_then_export_writes_the_csv_the_command_line_writes() {
    let mut s = Session::start();
    s.run_query();
    s.click("Fetch all pages");
    assert_eq!(s.wait_for_text("rows fetched"), "All 120 rows fetched");
    s.wait_until_idle();
    let expected = s.expected_refs();
    assert_eq!(grid_refs(s.app()), expected, "every row, in the service's order");
    assert!(s.harness.query_by_label("Next page").is_none(), "no paging once every row is there");

    // The rows shown, with the window's defaults (a BOM for spreadsheet programs).
    let shown = s.path("shown.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &shown.display().to_string());
    s.click("Export");
    let done = s.wait_for_text("Exported ");
    assert_eq!(done, format!("Exported 120 rows to {}", shown.display()));
    s.wait_until_idle();

    // Every page of the query, without the BOM.
    let all = s.path("all.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &all.display().to_string());
    s.click("Every page of the query");
    s.click("UTF-8 BOM (for spreadsheet programs)");
    s.click("Export");
    s.wait_for(&format!("the export to {}", all.display()), |h| {
        h.state().active_tab().export.as_ref().is_some_and(|e| e.request.path == all && !e.outcome.is_pending())
    });
    assert_eq!(s.wait_for_text("Exported "), format!("Exported 120 rows to {}", all.display()));

    let url = s.sandbox_url();
    let query = orgql::ui::SAMPLE_QUERY;
    let (cli_bom, cli_plain) = (s.path("cli-bom.csv"), s.path("cli.csv"));
    cli_export(s.dir.path(), &url, query, &cli_bom, true);
    cli_export(s.dir.path(), &url, query, &cli_plain, false);
    let read = |path: &Path| std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cli = read(&cli_bom);
    assert!(cli.starts_with("\u{feff}ref,name,email".as_bytes()), "{}", String::from_utf8_lossy(&cli[..40]));
    assert_eq!(String::from_utf8_lossy(&read(&shown)), String::from_utf8_lossy(&cli), "the rows shown");
    assert_eq!(String::from_utf8_lossy(&read(&all)), String::from_utf8_lossy(&read(&cli_plain)), "every page");
    let records = csv::Reader::from_reader(cli.as_slice()).records().count();
    assert_eq!(records, 120, "a row a user");
    s.harness.run();
}

#[test]
fn a_slow_server_keeps_the_window_responsive_and_cancel_stops_the_request() {
    const LATENCY: Duration = Duration::from_secs(3);
    let mut s = Session::start();
    let slow: RunningServer =
        s.runtime.block_on(sandbox_with(Config { users: 10, latency: LATENCY, ..Config::default() }));
    s.add_profile("slow", slow.base_url(), "sandbox-admin");
    s.type_into("Query", "{ paginatedUsers(first: 5) { edges { node { ref name } } } }");

    let asked = Instant::now();
    s.click("Run");
    assert!(s.app().active_tab().busy(), "the request is under way");
    // Frames keep coming while the request waits: each step returns quickly, and the window
    // still answers clicks.
    let (mut frames, mut slowest) = (0, Duration::ZERO);
    while asked.elapsed() < Duration::from_secs(1) {
        let step = Instant::now();
        s.harness.step();
        slowest = slowest.max(step.elapsed());
        frames += 1;
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(frames >= 20, "only {frames} frames in a second");
    assert!(slowest < Duration::from_millis(500), "a frame took {slowest:?}");
    s.click("Raw");
    assert_eq!(s.app().active_tab().view, orgql::ui::View::Raw);
    s.click("Grid");
    assert!(s.app().active_tab().busy(), "still waiting for the slow server");
    assert!(s.harness.query_by_label("Cancel").is_some(), "a Cancel button while waiting:\n{}", s.screen());

    s.click("Cancel");
    assert!(!s.app().active_tab().busy(), "Cancel ends the wait at once");
    assert!(s.harness.query_by_label("cancelled").is_some(), "the tab says so:\n{}", s.screen());
    assert!(s.harness.query_by_label("Cancel").is_none(), "no Cancel button once cancelled");
    // The request itself stopped: its job ended (and went into the history as cancelled)
    // long before the server would have answered.
    s.wait_for("the cancelled run in the history", |h| !h.state().history().is_empty());
    assert_eq!(s.app().history()[0].outcome, "cancelled");
    assert!(asked.elapsed() < LATENCY, "the job ended only after {:?}", asked.elapsed());
    // Nothing arrives later.
    while asked.elapsed() < LATENCY + Duration::from_millis(500) {
        s.harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let tab = s.app().active_tab();
    assert!(tab.grid.is_none() && !tab.busy() && tab.result.error().is_some(), "{:?}", tab.result);
    // (No settling run: the explorer may still be reading the slow server's schema.)
}

const CREATE_USER: &str = r#"mutation {
  createUser(input: { ref: "inspector-1", name: "Ada Inspector", email: "ada.inspector@example.com" }) {
    ref
  }
}"#;

#[test]
fn a_sandbox_mutation_shows_its_verified_delivery_which_replays_to_a_local_receiver() {
    use orgql::store::Store;
    use orgql::ui::ListenerStatus;
    use orgql::webhooks::{Listener, ListenerConfig, Scheme};

    let mut s = Session::start();
    s.wait_for("the app's listener", |h| matches!(h.state().webhooks().status(), ListenerStatus::Listening(_)));
    s.type_into("Query", CREATE_USER);
    s.run_query();
    let raw = s.app().active_tab().result.value().map(|r| r.raw().to_owned()).unwrap_or_default();
    assert!(raw.contains("\"ref\": \"inspector-1\""), "the mutation ran: {raw}");
    s.wait_for("the user.created delivery", |h| {
        h.state().webhooks().list.rows().iter().any(|d| d.event_type.as_deref() == Some("user.created"))
    });
    let toggle = s.text_containing("Webhooks (").expect("the toolbar counts deliveries");
    s.click(&toggle);
    s.wait_for_label("user.created");
    let row = s.app().webhooks().list.rows().iter().find(|d| d.event_type.as_deref() == Some("user.created")).cloned();
    assert_eq!(row.expect("listed").verified, Some(true), "signed by the sandbox with the listener's secret");

    // The detail: verified, with its headers and body.
    s.click("user.created");
    s.wait_for_label("✓ Signature verified");
    let detail = s.app().webhooks().detail().expect("the detail").clone();
    assert!(String::from_utf8_lossy(&detail.delivery.body).contains("inspector-1"));
    assert!(s.harness.query_by_label("Copy as cURL").is_some());
    // Who sent it (issue 31): the sandbox, straight from loopback, through no forwarder.
    assert_eq!(detail.delivery.sender.as_ref().map(|d| d.to_string()).as_deref(), Some("from 127.0.0.1"));
    assert!(s.harness.query_by_label("from 127.0.0.1").is_some(), "the detail shows the sender");

    // Replay it to a receiver of the user's that checks the same secret: the bytes are intact.
    let secret = s.app().webhooks().form.secret.clone();
    let receiver_store = s.path("receiver.sqlite3");
    let receiver = s
        .runtime
        .block_on(Listener::start(ListenerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            scheme: Some(Scheme::Standard),
            secret: Some(secret),
            ..ListenerConfig::new(receiver_store.clone())
        }))
        .expect("the receiver starts");
    let url = format!("http://{}/mine", receiver.addr());
    s.type_into("Replay to", &url);
    s.click("Replay");
    let answer = s.wait_for_text("answered 204");
    assert!(answer.contains("/mine"), "{answer}");
    let replayed = off_ui_thread(|| Store::open(&receiver_store).unwrap().deliveries(10, 0).unwrap());
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0].delivery.body, detail.delivery.body);
    assert_eq!(replayed[0].delivery.verified, Some(true), "{}", replayed[0].delivery.reason);
    s.runtime.block_on(receiver.stop());

    // Filters: no failed deliveries; then export what is listed, and clear.
    let total = s.app().webhooks().list.rows().len();
    s.harness.get_by_label("Signature").click();
    s.wait_for_label("Failed ✗");
    s.click("Failed ✗");
    s.wait_for_text(&format!("0 of {total} deliveries"));
    s.harness.get_by_label("Signature").click();
    s.wait_for_label("Any signature");
    s.click("Any signature");
    let out = s.path("deliveries.jsonl");
    s.type_into("Export to", &out.display().to_string());
    s.click("Export JSONL");
    s.wait_for_text(&format!("Exported {total} deliveries"));
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), total);
    assert!(lines.contains("inspector-1"));
    s.click("Clear…");
    s.click("Delete all");
    s.wait_for("an empty list", |h| h.state().webhooks().list.rows().is_empty());
    s.harness.run();
}

#[test]
fn a_cancelled_export_resumes_into_the_file_an_uninterrupted_export_writes() {
    let mut s = Session::start();
    let slow: RunningServer = s.runtime.block_on(sandbox_with(Config {
        users: 100,
        latency: Duration::from_millis(300),
        ..Config::default()
    }));
    s.add_profile("slow", slow.base_url(), "sandbox-admin");
    let query = "{ paginatedUsers(first: 10) { edges { node { ref name email isActive } } } }";
    s.type_into("Query", query);
    s.click("Run");
    s.wait_for("the first page", |h| h.state().active_tab().grid.is_some());

    let out = s.path("users.csv");
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &out.display().to_string());
    s.click("Every page of the query");
    s.click("Export");
    s.wait_for("a few pages exported", |h| h.state().active_tab().export.as_ref().is_some_and(|e| e.rows >= 20));
    s.click("Cancel export");
    // "cancelled" at once; then the worker's word: what was kept, and that it can be resumed.
    s.wait_for("the export's partial", |h| h.state().active_tab().export.as_ref().is_some_and(|e| e.resumable));
    let stopped = s.wait_for_text("Export failed: ");
    assert!(stopped.contains("Resume continues it from there"), "{stopped}");
    assert!(!out.exists(), "no file under its name until complete");
    let partial = s.path("users.csv.partial");
    assert!(partial.exists() && s.path("users.csv.partial.resume").exists(), "the partial and where it stops");

    s.click("Resume");
    s.wait_for("the resumed export", |h| {
        h.state().active_tab().export.as_ref().is_some_and(|e| !e.outcome.is_pending())
    });
    assert_eq!(s.wait_for_text("Exported "), format!("Exported 100 rows to {}", out.display()));
    assert!(s.harness.query_by_label("Resume").is_none(), "nothing more to resume");

    // The command line's uninterrupted export of the same query (the window's default BOM).
    let full = s.path("full.csv");
    cli_export(s.dir.path(), slow.base_url(), query, &full, true);
    let read = |path: &Path| std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(read(&out) == read(&full), "the resumed file is byte for byte the uninterrupted one");
    assert!(!partial.exists() && !s.path("users.csv.partial.resume").exists(), "nothing left to resume");
    s.harness.run();
}

/// Exports every page of the active tab's query to `path` through the export window, ticking
/// "Only changes since the last export" when `changes`; the line the tab shows after.
fn export_every_page(s: &mut Session, path: &Path, changes: bool) -> String {
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &path.display().to_string());
    s.click("Every page of the query");
    let ticked = s.app().active_tab().export.as_ref().is_some_and(|e| e.request.changes_since_last);
    if changes != ticked {
        s.click("Only changes since the last export");
    }
    s.click("Export");
    s.wait_for(&format!("the export to {}", path.display()), |h| {
        h.state().active_tab().export.as_ref().is_some_and(|e| e.request.path == path && !e.outcome.is_pending())
    });
    s.wait_for_text("Exported ")
}

#[test]
fn only_changes_since_the_last_export_writes_the_users_a_mutation_changed() {
    let mut s = Session::start();
    s.run_query();
    let first = s.path("first.csv");
    let done = export_every_page(&mut s, &first, false);
    assert_eq!(done, format!("Exported 120 rows to {}", first.display()));

    // One user renamed through the service.
    let url = s.sandbox_url();
    let renamed = s.expected_refs()[1].clone();
    s.runtime.block_on(async {
        let token = crate::harness::admin_token(&url, "users.write").await;
        let rename = "mutation($ref: String!) { updateUser(ref: $ref, input: { name: \"Renamed In Test\" }) { ref } }";
        let answer = crate::harness::graphql(&url, &token, rename, serde_json::json!({ "ref": renamed })).await;
        assert!(answer.get("errors").is_none(), "{answer}");
    });

    let changes = s.path("changes.csv");
    let done = export_every_page(&mut s, &changes, true);
    assert!(done.starts_with(&format!("Exported 1 row to {}", changes.display())), "{done}");
    assert!(done.contains("(0 added, 1 changed, 0 removed since the export of"), "{done}");
    let mut reader = csv::Reader::from_path(&changes).expect("the changes file");
    let header: Vec<String> = reader.headers().expect("a header").iter().map(str::to_owned).collect();
    assert_eq!(header[..3], ["change", "changed fields", "ref"], "(the csv crate reads past the BOM)");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
    assert_eq!(rows.len(), 1, "one row: the renamed user");
    assert_eq!((&rows[0][0], &rows[0][1], &rows[0][2]), ("changed", "name", renamed.as_str()));
    s.harness.run();
}

#[test]
fn an_existing_file_is_replaced_only_when_asked_and_a_free_name_is_offered() {
    let mut s = Session::start();
    s.run_query();
    let users = s.path("users.csv");
    std::fs::write(&users, "keep me").expect("an earlier file");
    let done_to = |s: &mut Session, path: std::path::PathBuf| {
        s.wait_for(&format!("the export to {}", path.display()), move |h| {
            h.state().active_tab().export.as_ref().is_some_and(|e| e.request.path == path && !e.outcome.is_pending())
        });
    };

    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &users.display().to_string());
    s.click("Export");
    s.wait_for_label("Use users (2).csv");
    assert!(s.harness.query_by_label("users.csv already exists.").is_some(), "{}", s.screen());
    assert!(s.harness.query_by_label("Replace").is_some());
    assert_eq!(std::fs::read_to_string(&users).expect("the file"), "keep me", "nothing replaced yet");
    s.click("Use users (2).csv");
    let second = s.path("users (2).csv");
    done_to(&mut s, second.clone());
    assert_eq!(std::fs::read_to_string(&users).expect("the file"), "keep me", "the earlier file is kept");
    assert!(std::fs::read_to_string(&second).expect("the new file").contains("ref,name"));

    // Asked again for users.csv: Replace replaces it.
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &users.display().to_string());
    s.click("Export");
    s.wait_for_label("Replace");
    s.click("Replace");
    done_to(&mut s, users.clone());
    assert!(std::fs::read_to_string(&users).expect("the file").contains("ref,name"), "replaced when asked");

    // The format follows the choice, and the file's extension with it.
    s.click("Export…");
    s.wait_for_label("File");
    s.type_into("File", &s.path("book.csv").display().to_string());
    s.click("Excel workbook");
    assert!(s.harness.query_by_label("UTF-8 BOM (for spreadsheet programs)").is_some());
    s.click("Export");
    let book = s.path("book.xlsx");
    done_to(&mut s, book.clone());
    let bytes = std::fs::read(&book).expect("the workbook");
    assert!(bytes.starts_with(b"PK"), "an XLSX workbook (a zip archive)");
    assert!(!s.path("book.csv").exists());
    s.harness.run();
}
