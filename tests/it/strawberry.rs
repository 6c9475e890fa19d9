//! orgql against the other Django stack (issue 39): `tests/strawberry_service`, Django +
//! django-oauth-toolkit + strawberry-graphql-django in that library's documented shapes — a
//! relay `Node` type, a connection with `count` filtered through `filters: {email: {exact: …}}`
//! lookups, and mutations made with `handle_django_errors=True`, each answering a union
//! `User | OperationInfo` (a refusal is data: `messages { kind message field code }`);
//! `updateUser(data: UserPartialInput!)` is a partial input named by its required relay
//! `id: ID!`. The same walks as on the graphene-django service (`tests/it/django.rs`).
//!
//! The service runs as a real process (its own Python, `.ci/run` installs it into a venv with
//! pip). Where it cannot be installed, each test says so and passes without running;
//! `ORGQL_STRAWBERRY_REQUIRED=1` (set by `.ci/run`) makes a missing service a failure.

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use serde_json::Value;

use crate::django::{
    Django, Find, Service, Stack, card_walk, connect, hr_file_walk, killed_walk, learner, orgql, p, said,
};

fn start(users: usize) -> Option<Django> {
    Django::start_stack(Stack::Strawberry, users, &[])
}

/// The issue's Done-when walk: the HR file (joiners, department changes among null and empty
/// ones, e-mail changes, leavers, an address the model refuses) planned, applied and read back —
/// every learner as the file says and saved exactly once, nothing else moved, the refusal in
/// the results in the service's words (`Enter a valid email address.`) at its column — and
/// undone exactly, nulls and empties included, the joiners archived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_the_strawberry_django_service_and_its_undo_gives_everything_back() {
    let Some(service) = start(120) else { return };
    hr_file_walk(&service).await;
}

/// The card on the Strawberry-Django service: found by e-mail (typed in capitals: its `iExact`
/// lookup), rename, e-mail, archive and activate each change exactly that field.
#[test]
fn the_card_changes_exactly_the_field_asked_on_the_strawberry_django_service() {
    let Some(service) = start(30) else { return };
    card_walk(&service, Find::EmailInCapitals);
}

/// An apply killed (SIGKILL) a fifth of the way and resumed: every row applied exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_killed_on_the_strawberry_django_service_resumes_and_applies_every_row_once() {
    let Some(service) = start(120) else { return };
    killed_walk(&service, "filters: { name: { startsWith: \"Renamed \" } }").await;
}

/// Reading holds on Strawberry-Django (issue 46): every page of 260 learners (the connection
/// gives at most 50 a page) exported to CSV equals, cell for cell, what the service answers
/// directly — nulls as empty cells, booleans as `true`/`false`, names with commas and quotes in
/// their cell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_of_every_learner_equals_the_strawberry_django_service_cell_for_cell() {
    let Some(service) = start(260) else { return };
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("learners.csv");
    let fields = ["ref", "name", "email", "isActive", "department"];
    let query = format!("{{ paginatedUsers {{ edges {{ node {{ {} }} }} }} }}", fields.join(" "));
    let run = orgql(home.path(), &service, "users.read", &["export", "-e", &query, "--out", p(&out), "--raw"]).await;
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(String::from_utf8_lossy(&run.stderr).contains("wrote 260 rows"), "{}", said(&run));
    let learners = service.learners().await;
    assert_eq!(learners.len(), 260);
    let mut reader = csv::Reader::from_path(&out).expect("the CSV reads");
    assert_eq!(reader.headers().expect("a header").iter().collect::<Vec<_>>(), fields);
    let text = |value: &Value| match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut rows = 0;
    for record in reader.records() {
        let record = record.expect("a row");
        let learner = &learners[&record[0]];
        let want: Vec<String> = fields.iter().map(|f| text(&learner[*f])).collect();
        assert_eq!(record.iter().collect::<Vec<_>>(), want, "{}", &record[0]);
        rows += 1;
    }
    assert_eq!(rows, 260, "every learner once");
}

/// `serve.py --schema next` (a release later: `User.fullName` added, `User.name` deprecated for
/// it, Strawberry's `deprecation_reason`), on the same address: `orgql schema changes` names both
/// in the service's own names; `orgql operations check` finds the deprecated use (exit 8), `--fix`
/// rewrites it and the operations check clean; the fixed operation and a nested filter still read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_strawberry_django_services_next_schema_is_listed_and_its_operations_checked_and_fixed() {
    let Some(service) = start(5) else { return };
    let home = tempfile::tempdir().unwrap();
    let ops = home.path().join("ops");
    std::fs::create_dir_all(&ops).unwrap();
    let users =
        "# who they are\nquery Users {\n  paginatedUsers(first: 5) {\n    edges { node { ref name } }\n  }\n}\n";
    let by_ref = "query ByRef {\n  paginatedUsers(filters: { ref: { exact: \"u00001\" } }) { count }\n}\n";
    std::fs::write(ops.join("Users.graphql"), users).unwrap();
    std::fs::write(ops.join("ByRef.graphql"), by_ref).unwrap();
    let ops_dir = p(&ops).to_owned();
    let run = |service: &Django, args: &[&str]| crate::django::run_cli(home.path(), service, args);
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(&service, &["schema", "changes"]);
    assert_eq!((code, out.starts_with("no changes since 20")), (0, true), "{out}{err}");

    let listen = service.base_url().trim_start_matches("http://").trim_end_matches('/').to_owned();
    drop(service);
    let Some(service) = start_with(5, &["--schema", "next", "--listen", &listen]) else { return };
    let (code, out, err) = run(&service, &["schema", "changes"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["safe: field User.fullName added", "deprecated: User.name — Use `fullName`."],
        "{err}"
    );
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 8, "deprecated uses only: {out}{err}");
    assert!(out.contains("Users.graphql:4:24: deprecated: User.name — Use `fullName`."), "{out}");
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir, "--fix"]);
    assert!(out.contains("Users.graphql:4:24: fixed: `name` → `name: fullName`"), "{code} {out}{err}");
    let fixed = std::fs::read_to_string(ops.join("Users.graphql")).unwrap();
    assert_eq!(fixed, users.replace("ref name }", "ref name: fullName }"), "comments and layout kept");
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(&service, &["query", "--file", p(&ops.join("Users.graphql"))]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"name\"") && !out.contains("fullName"), "the response key kept: {out}");
    let (code, out, err) = run(&service, &["query", "--file", p(&ops.join("ByRef.graphql"))]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"count\": 1"), "{out}");
}

fn start_with(users: usize, arguments: &[&str]) -> Option<Django> {
    Django::start_stack(Stack::Strawberry, users, arguments)
}

/// Issue 46's Done-when on the live service: the explorer on Strawberry-Django's schema,
/// `paginatedUsers` ticked and `filters → email → iExact` filled with an address in capitals;
/// the document says `filters: {email: {iExact: "…"}}` and Run counts exactly that learner.
#[test]
fn the_explorer_s_nested_filter_finds_the_learner_on_the_strawberry_django_service() {
    let Some(service) = start(30) else { return };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let wanted = crate::harness::off_ui_thread(|| runtime.block_on(learner(&service, "u00007")));
    let email = wanted["email"].as_str().expect("an address").to_uppercase();
    let mut s = crate::harness::Session::start();
    connect(&mut s, &service);
    s.wait_for("the service's schema", |h| {
        let fields = h.state().schema().value().map(|loaded| loaded.model.query_fields()).unwrap_or_default();
        fields.iter().any(|f| f.name == "paginatedUsers" && f.arguments.iter().any(|a| a.name == "filters"))
    });
    s.harness.get_by_label("Query").click();
    s.harness.step();
    s.harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
    s.harness.key_press(Key::Backspace);
    s.harness.step();
    s.harness.get_by_role_and_label(Role::CheckBox, "paginatedUsers").click();
    s.harness.step();
    s.harness.step();
    s.click("Unfold email");
    s.harness.get_by_role_and_label(Role::TextInput, "iExact").click();
    s.harness.step();
    s.harness.get_by_role_and_label(Role::TextInput, "iExact").type_text(&email);
    s.harness.step();
    s.harness.key_press(Key::Enter);
    s.harness.step();
    s.harness.step();
    let query = s.app().active_tab().query.clone();
    let squeezed: String = query.split_whitespace().collect();
    assert!(squeezed.contains(&format!(r#"paginatedUsers(filters:{{email:{{iExact:"{email}"}}}})"#)), "{query}");
    s.run_query();
    let raw = s.app().active_tab().result.value().map(|r| r.raw().to_owned()).unwrap_or_default();
    let answer: String = raw.split_whitespace().collect();
    assert!(answer.contains(r#""paginatedUsers":{"count":1"#) && !raw.contains("errors"), "{raw}");
}
