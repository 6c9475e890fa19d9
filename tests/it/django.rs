//! orgql against a service built from the libraries the spec points to (issue 29):
//! `tests/django_service`, Django + django-oauth-toolkit + graphene-django in their usual shapes —
//! a relay node type, a countable connection capped at 50, `DjangoModelFormMutation` for create
//! and update (the whole record, named by its relay id; a field left out is cleared, a missing
//! checkbox deactivates), a plain archive mutation, and DOT's scoped protected resource (403 with
//! an empty body and `WWW-Authenticate: Bearer error="insufficient_scope"`).
//!
//! The service runs as a real process (its own Python, `.ci/run` installs it into a venv with
//! pip). Where it cannot be installed, each test says so and passes without running: a fresh
//! `cargo test` with only Rust stays green. `ORGQL_DJANGO_REQUIRED=1` (set by `.ci/run`) makes a
//! missing service a failure instead.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::harness::SECRET;

/// The OAuth client the service is seeded with.
const CLIENT: &str = "orgql-admin";

/// What each learner is compared by.
const LEARNERS: &str = "query($after: String) { paginatedUsers(first: 50, after: $after) {
  pageInfo { hasNextPage endCursor } edges { node { id ref name email isActive department revision } } } }";

/// A Django test service's GraphQL layer: which service is started, and the Python it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// `tests/django_service`: graphene-django.
    Graphene,
    /// `tests/strawberry_service`: strawberry-graphql-django.
    Strawberry,
}

impl Stack {
    fn name(self) -> &'static str {
        match self {
            Stack::Graphene => "graphene-django",
            Stack::Strawberry => "Strawberry-Django",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Stack::Graphene => "django_service",
            Stack::Strawberry => "strawberry_service",
        }
    }

    /// The variables `.ci/run` sets: the venv's Python, and that the service must run.
    fn env(self) -> (&'static str, &'static str) {
        match self {
            Stack::Graphene => ("ORGQL_DJANGO_PYTHON", "ORGQL_DJANGO_REQUIRED"),
            Stack::Strawberry => ("ORGQL_STRAWBERRY_PYTHON", "ORGQL_STRAWBERRY_REQUIRED"),
        }
    }

    fn venv(self) -> &'static str {
        match self {
            Stack::Graphene => "/var/tmp/orgql-django-venv",
            Stack::Strawberry => "/var/tmp/orgql-strawberry-venv",
        }
    }

    fn modules(self) -> &'static str {
        match self {
            Stack::Graphene => "('django', 'oauth2_provider', 'graphene_django', 'django_filters')",
            Stack::Strawberry => "('django', 'oauth2_provider', 'strawberry_django', 'waitress')",
        }
    }
}

/// The Python that has the service's libraries: the variable `.ci/run` sets, else the venv it
/// makes; `None` (with the reason) when there is none.
fn python(stack: Stack) -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = std::env::var_os(stack.env().0)
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from(format!("{}/bin/python", stack.venv()))])
        .collect();
    for python in &candidates {
        let check = format!(
            "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in {}))",
            stack.modules()
        );
        let ok = Command::new(python)
            .args(["-c", &check])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Ok(python.clone());
        }
    }
    Err(format!(
        "no Python with the {} service's libraries (tried {}); `.ci/run` installs them \
         (pip install -r tests/{}/requirements.txt into {})",
        stack.name(),
        candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        stack.dir(),
        stack.venv()
    ))
}

/// The test service, running; stopped when dropped.
pub struct Django {
    child: Child,
    base_url: String,
    _dir: TempDir,
}

impl Drop for Django {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Django {
    /// Starts the service with `users` learners (and `scope_in_challenge`: its 403 names the
    /// scope); `None` when it cannot run here, said on stderr.
    pub fn start(users: usize, scope_in_challenge: bool) -> Option<Django> {
        let challenge: &[&str] = if scope_in_challenge { &["--scope-in-challenge"] } else { &[] };
        Django::start_with(users, challenge)
    }

    /// Starts the service with `users` learners and more of `serve.py`'s arguments
    /// (`--schema next`, `--listen HOST:PORT`); `None` when it cannot run here, said on stderr.
    pub fn start_with(users: usize, arguments: &[&str]) -> Option<Django> {
        Django::start_stack(Stack::Graphene, users, arguments)
    }

    /// Starts the service of `stack` with `users` learners and more of its `serve.py`'s
    /// arguments; `None` when it cannot run here, said on stderr.
    pub fn start_stack(stack: Stack, users: usize, arguments: &[&str]) -> Option<Django> {
        let python = match python(stack) {
            Ok(python) => python,
            Err(why) if std::env::var_os(stack.env().1).is_some() => panic!("{why}"),
            Err(why) => {
                eprintln!("note: skipped, the {} service cannot run here: {why}", stack.name());
                return None;
            }
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let serve = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/{}/serve.py", stack.dir()));
        let mut command = Command::new(python);
        command
            .arg(serve)
            .args(["--db", dir.path().join("service.sqlite3").to_str().unwrap()])
            .args(["--users", &users.to_string(), "--secret", SECRET])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .stdin(Stdio::null())
            .args(arguments);
        let mut child = command.spawn().expect("the service starts");
        let stdout = child.stdout.take().expect("its output");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!("the {} service did not say where it listens within two minutes", stack.name());
            }
        };
        let base_url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("the service's first line names its URL: {line:?}"))
            .to_owned();
        Some(Django { child, base_url, _dir: dir })
    }
}

/// A test service that orgql's walks run against: its base URL, the seeded client, and the
/// learners as it has them (asked directly, not through orgql).
pub trait Service {
    /// Where it listens.
    fn base_url(&self) -> &str;

    /// A token for `scope`, asked of the service directly.
    async fn token(&self, scope: &str) -> String {
        crate::harness::client_token(self.base_url(), CLIENT, scope).await
    }

    /// The data of `query`, asked directly (not through orgql).
    async fn data(&self, query: &str, variables: Value) -> Value {
        let token = self.token("users.read users.write").await;
        let answer = crate::harness::graphql(self.base_url(), &token, query, variables).await;
        assert!(answer.get("errors").is_none(), "{answer}");
        answer["data"].clone()
    }

    /// Every learner as the service has them, by ref.
    async fn learners(&self) -> std::collections::BTreeMap<String, Value> {
        let mut all = std::collections::BTreeMap::new();
        let mut after = Value::Null;
        for _ in 0..200 {
            let page = self.data(LEARNERS, json!({ "after": after })).await["paginatedUsers"].clone();
            for edge in page["edges"].as_array().expect("edges") {
                all.insert(edge["node"]["ref"].as_str().unwrap().to_owned(), edge["node"].clone());
            }
            if page["pageInfo"]["hasNextPage"] != json!(true) {
                return all;
            }
            after = page["pageInfo"]["endCursor"].clone();
        }
        panic!("the learners did not end after 200 pages")
    }
}

impl Service for Django {
    fn base_url(&self) -> &str {
        &self.base_url
    }
}

/// `orgql ARGS` against the service as its seeded client with `scope`, its files under `home`.
pub fn command(home: &Path, service: &impl Service, scope: &str, args: &[&str]) -> Command {
    crate::harness::orgql_command(home, service.base_url(), CLIENT, scope, args)
}

/// [`command`] run to its end, as its exit status, standard output and standard error.
pub fn run_cli(home: &Path, service: &impl Service, args: &[&str]) -> (i32, String, String) {
    let output = command(home, service, "users.read", args).output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// [`command`] run to its end (within five minutes).
pub async fn orgql(home: &Path, service: &impl Service, scope: &str, args: &[&str]) -> Output {
    let mut command = command(home, service, scope, args);
    tokio::time::timeout(Duration::from_secs(300), tokio::task::spawn_blocking(move || command.output().unwrap()))
        .await
        .expect("orgql ends within five minutes")
        .expect("the run ends")
}

pub fn said(output: &Output) -> String {
    format!("stdout: {}\nstderr: {}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

pub fn p(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// A CSV cell, quoted when it needs to be.
fn cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

/// The issue's Done-when walk: an HR file of 3 joiners, 40 department changes (among them
/// departments that were null and empty), 3 e-mail changes, 2 leavers and 1 address the form
/// refuses is planned, applied and read back — every learner equals the file field for field and
/// nothing else moved; the refusal is in the results in the form's words — and the undo file
/// gives every learner back exactly, nulls and empties included, the joiners archived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hr_file_lands_exactly_on_the_graphene_django_service_and_its_undo_gives_everything_back() {
    let Some(service) = Django::start(120, false) else { return };
    hr_file_walk(&service).await;
}

/// The HR file's walk on `service` (120 learners): planned, applied, read back — every learner
/// as the file says and saved exactly once (`revision`), nothing else moved, the refusal in the
/// service's words at its column — and undone exactly.
pub async fn hr_file_walk(service: &impl Service) {
    let home = tempfile::tempdir().unwrap();
    let before = service.learners().await;
    assert_eq!(before.len(), 120);
    let departments: Vec<&Value> = before.values().map(|l| &l["department"]).collect();
    assert!(departments.contains(&&Value::Null) && departments.contains(&&json!("")), "null and empty both seeded");

    // The file: ref, name, email, Active, Department; an empty cell changes nothing.
    let mut expected = before.clone();
    let mut csv = String::from("ref,name,email,Active,department\n");
    let refs: Vec<String> = before.keys().cloned().collect();
    // 40 department changes among active learners, from null, from "" and from a value.
    let movers: Vec<&String> = refs.iter().filter(|r| before[*r]["isActive"] == true).take(40).collect();
    for (i, r) in movers.iter().enumerate() {
        let department = ["Finance", "Legal", "Support", "Research"][i % 4];
        csv.push_str(&format!("{r},,,,{department}\n"));
        expected.get_mut(*r).unwrap()["department"] = json!(department);
    }
    let was: Vec<&Value> = movers.iter().map(|r| &before[*r]["department"]).collect();
    assert!(was.contains(&&Value::Null) && was.contains(&&json!("")), "{was:?}");
    // 3 e-mail changes and 1 address the form refuses (orgql's own check lets it through).
    let rest: Vec<&String> = refs.iter().filter(|r| !movers.contains(r) && before[*r]["isActive"] == true).collect();
    for r in &rest[0..3] {
        let email = format!("{r}.new@example.net");
        csv.push_str(&format!("{r},,{email},,\n"));
        expected.get_mut(*r).unwrap()["email"] = json!(email);
    }
    let refused = rest[3].clone();
    csv.push_str(&format!("{refused},,first..last@example.org,,\n"));
    // 2 leavers.
    for r in &rest[4..6] {
        csv.push_str(&format!("{r},,,no,\n"));
        expected.get_mut(*r).unwrap()["isActive"] = json!(false);
    }
    // 3 joiners, one without an Active cell (active all the same: a joiner is).
    for (i, active) in ["yes", "", "x"].iter().enumerate() {
        let r = format!("n{i:04}");
        let name = format!("Joiner, {i} \"new\"");
        csv.push_str(&format!("{r},{},j{i}@example.org,{active},HR\n", cell(&name)));
        expected.insert(
            r.clone(),
            json!({ "ref": r, "name": name, "email": format!("j{i}@example.org"), "isActive": true, "department": "HR" }),
        );
    }
    let file = home.path().join("hr.csv");
    std::fs::write(&file, &csv).unwrap();

    let scope = "users.read users.write";
    let plan = orgql(home.path(), service, scope, &["import", p(&file)]).await;
    assert_eq!(plan.status.code(), Some(0), "{}", said(&plan));
    let plan_text = String::from_utf8_lossy(&plan.stdout);
    assert!(plan_text.contains("3 to create, 44 to update, 2 to archive, 0 unchanged, 0 invalid"), "{}", said(&plan));

    let results = home.path().join("results.csv");
    let undo = home.path().join("undo.csv");
    let apply = orgql(
        home.path(),
        service,
        scope,
        &["import", p(&file), "--apply", "--results", p(&results), "--undo", p(&undo)],
    )
    .await;
    assert_eq!(apply.status.code(), Some(7), "one row refused: {}", said(&apply));
    let results_text = std::fs::read_to_string(&results).unwrap();
    let refusal = results_text.lines().find(|l| l.contains(&refused)).expect("the refused row in the results");
    assert!(refusal.contains("Enter a valid email address."), "the service's words: {refusal}");
    let mut reader = csv::Reader::from_reader(results_text.as_bytes());
    let column = reader.headers().unwrap().iter().position(|h| h == "field").expect("a field column in the results");
    let row = reader.records().map(Result::unwrap).find(|r| r.get(0) == Some(refused.as_str())).unwrap();
    assert_eq!(row.get(column), Some("email"), "at its column: {refusal}");

    // Read back: every learner as the file says, field for field; nothing else moved.
    let after = service.learners().await;
    assert_eq!(after.len(), 123);
    for (r, want) in &expected {
        let got = &after[r];
        for field in ["name", "email", "isActive", "department"] {
            assert_eq!(got[field], want[field], "{r}.{field}: {got} against {want}");
        }
        // Saved exactly once when changed (a joiner's creation is no save), never otherwise.
        let saves = got["revision"].as_u64().unwrap() - before.get(r).map_or(0, |b| b["revision"].as_u64().unwrap());
        let changed = before.get(r).is_some_and(|b| b != want);
        assert_eq!(saves, u64::from(changed), "{r} saved {saves} times");
    }

    // The undo file gives everything back: nulls and empties included, the joiners archived.
    let undo_text = std::fs::read_to_string(&undo).unwrap();
    assert!(undo_text.contains("(null)") && undo_text.contains("(empty)"), "{undo_text}");
    let undone = orgql(home.path(), service, scope, &["import", p(&undo), "--apply"]).await;
    assert_eq!(undone.status.code(), Some(0), "{}", said(&undone));
    let back = service.learners().await;
    for (r, was) in &before {
        for field in ["name", "email", "isActive", "department"] {
            assert_eq!(back[r][field], was[field], "{r}.{field} given back exactly");
        }
    }
    for i in 0..3 {
        assert_eq!(back[&format!("n{i:04}")]["isActive"], false, "the joiner is archived");
    }
}

/// A token without users.read: the scope is named — from the challenge where the service names
/// it, from the granted scopes where DOT's bare challenge does not — with exit 4.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_the_scope_is_told_which_scope_it_lacks() {
    for in_challenge in [false, true] {
        let Some(service) = Django::start(5, in_challenge) else { return };
        let home = tempfile::tempdir().unwrap();
        let run =
            orgql(home.path(), &service, "trainings.read", &["query", "-e", "{ user(ref: \"u00001\") { name } }"])
                .await;
        assert_eq!(run.status.code(), Some(4), "{}", said(&run));
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("the token lacks the scope 'users.read'"), "challenge names it: {in_challenge}: {err}");
        let write = orgql(
            home.path(),
            &service,
            "users.read",
            &["query", "-e", "mutation { archiveUser(ref: \"u00001\") { ok } }"],
        )
        .await;
        assert_eq!(write.status.code(), Some(4), "{}", said(&write));
        assert!(String::from_utf8_lossy(&write.stderr).contains("'users.write'"), "{}", said(&write));
        assert!(!said(&write).contains("Bearer "), "no token printed");
    }
}

/// A row cut short by a line break in an unquoted cell is invalid with a sentence; an empty
/// Active cell plans nothing (no archive by omission).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_cut_short_is_invalid_and_an_empty_active_cell_changes_nothing() {
    let Some(service) = Django::start(10, false) else { return };
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("short.csv");
    std::fs::write(&file, "ref,name,email,Active,department\nu00001,Ada\nLovelace,,,Sales\nu00002,,,,\nu00003,,,,HR\n")
        .unwrap();
    let plan = orgql(home.path(), &service, "users.read users.write", &["import", p(&file)]).await;
    let text = said(&plan);
    assert!(text.contains("row 2 has 2 cells where the header has 5: a line break inside an unquoted cell?"), "{text}");
    assert!(text.contains("0 to archive"), "{text}");
    assert!(text.contains("1 to update"), "{text}");
}

/// What the service holds for the learner `user_ref`.
pub async fn learner(service: &impl Service, user_ref: &str) -> Value {
    service
        .data(
            "query($r: String!) { user(ref: $r) { id ref name email isActive department } }",
            json!({ "r": user_ref }),
        )
        .await["user"]
        .clone()
}

/// Every field but `except` is as it was.
#[track_caller]
fn only_changed(before: &Value, after: &Value, except: &str) {
    for field in ["id", "ref", "name", "email", "isActive", "department"] {
        if field != except {
            assert_eq!(before[field], after[field], "{field} did not move when {except} changed");
        }
    }
}

/// The app's connection made a profile of `service` that may change users, as a person adds it.
pub fn connect(s: &mut crate::harness::Session, service: &impl Service) {
    use egui::accesskit::Role;
    use egui_kittest::kittest::Queryable;
    s.click("Profiles…");
    s.wait_for_label("Add profile");
    s.click("Add profile");
    s.type_into("Name", "django-service");
    s.type_into("Base URL", service.base_url());
    s.type_into("Client ID", CLIENT);
    s.type_into("Client secret", SECRET);
    s.harness.get_by_role_and_label(Role::CheckBox, "users.write").click();
    s.harness.step();
    s.click("Save profile");
    s.wait_for_label("Edit django-service");
    s.click("Close window");
    s.click("Connection");
    s.harness.get_by_role_and_label(Role::Button, "django-service").click();
    s.harness.step();
}

/// The card on the graphene-django service, as a person uses it: rename, change the e-mail,
/// archive and activate each change exactly that field (read back from the service).
#[test]
fn the_card_changes_exactly_the_field_asked_on_the_graphene_django_service() {
    let Some(service) = Django::start(30, false) else { return };
    card_walk(&service, Find::Ref);
}

/// How the card's walk finds its learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Find {
    /// By ref.
    Ref,
    /// By e-mail, as stored.
    Email,
    /// By e-mail typed in capitals (a service with a case-insensitive lookup).
    EmailInCapitals,
}

/// The card's walk on `service` (30 learners), the learner found as `find` says: rename, change
/// the e-mail, archive and activate each change exactly that field.
pub fn card_walk(service: &(impl Service + Sync), find: Find) {
    use egui::accesskit::Role;
    use egui_kittest::kittest::Queryable;
    let mut s = crate::harness::Session::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ask = |user_ref: &str| runtime.block_on(learner(service, user_ref));
    // A learner whose department is null: a form would clear it, or the checkbox, if sent short.
    let user_ref = "u00006";
    let before = crate::harness::off_ui_thread(|| ask(user_ref));
    assert_eq!(before["department"], Value::Null);
    assert_eq!(before["isActive"], true);

    connect(&mut s, service);
    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
    let email = before["email"].as_str().unwrap();
    let typed = match find {
        Find::Ref => user_ref.to_owned(),
        Find::Email => email.to_owned(),
        Find::EmailInCapitals => email.to_uppercase(),
    };
    s.type_into("User to find", &typed);
    s.click("Find");
    let heading = orgql::support::one_line(before["name"].as_str().unwrap());
    s.wait_for_label(&heading);

    let confirm = |s: &mut crate::harness::Session, button: &str, outcome: &str| {
        s.harness.get_by_label(button).scroll_to_me();
        s.harness.step();
        s.click(button);
        s.wait_for_label("Confirm");
        s.click("Confirm");
        s.wait_for_label(outcome);
    };

    // Rename.
    s.type_into("Name", "Renamed Learner");
    let named = format!("Renamed Learner ({user_ref})");
    confirm(&mut s, "Save changes", &format!("Saved the name of {named}."));
    let renamed = crate::harness::off_ui_thread(|| ask(user_ref));
    assert_eq!(renamed["name"], "Renamed Learner");
    only_changed(&before, &renamed, "name");

    // Change the e-mail.
    s.type_into("Email", "renamed@example.net");
    confirm(&mut s, "Save changes", &format!("Saved the email of {named}."));
    let emailed = crate::harness::off_ui_thread(|| ask(user_ref));
    assert_eq!(emailed["email"], "renamed@example.net");
    only_changed(&renamed, &emailed, "email");

    // Archive (the service's own mutation), then activate (through the whole-record update).
    confirm(&mut s, "Archive", &format!("{named} is archived."));
    let archived = crate::harness::off_ui_thread(|| ask(user_ref));
    assert_eq!(archived["isActive"], false);
    only_changed(&emailed, &archived, "isActive");
    confirm(&mut s, "Activate", &format!("{named} is active."));
    let active = crate::harness::off_ui_thread(|| ask(user_ref));
    assert_eq!(active["isActive"], true);
    only_changed(&archived, &active, "isActive");
    s.settle();
}

/// An apply on the replace-style service killed (SIGKILL) a fifth of the way, then resumed:
/// every row applied exactly once (each learner's `revision` counts its saves), nothing else
/// moved, the results say so row by row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_killed_on_the_graphene_django_service_resumes_and_applies_every_row_once() {
    let Some(service) = Django::start(120, false) else { return };
    killed_walk(&service, "name_Icontains: \"Renamed \"").await;
}

/// The kill -9 and resume walk on `service` (120 learners); `renamed` is the argument of
/// `paginatedUsers` that lists the learners renamed `Renamed …`.
pub async fn killed_walk(service: &impl Service, renamed: &str) {
    let home = tempfile::tempdir().unwrap();
    let before = service.learners().await;
    let file = home.path().join("rename.csv");
    let refs: Vec<&String> = before.keys().take(100).collect();
    let mut csv = String::from("ref,name\n");
    for (i, r) in refs.iter().enumerate() {
        csv.push_str(&format!("{r},Renamed {i}\n"));
    }
    std::fs::write(&file, csv).unwrap();
    let filter = renamed;
    let renamed = || async {
        service.data(&format!("{{ paginatedUsers(first: 1, {filter}) {{ count }} }}"), json!({})).await
            ["paginatedUsers"]["count"]
            .as_u64()
            .unwrap()
    };
    let mut command = command(home.path(), service, "users.read users.write", &["import", p(&file), "--apply"]);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let started = std::time::Instant::now();
    while renamed().await < 20 {
        assert!(started.elapsed() < Duration::from_secs(120), "20 rows applied within two minutes");
        assert!(child.try_wait().unwrap().is_none(), "the import is still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = renamed().await;
    assert!((20..100).contains(&at_kill), "{at_kill}");

    let results = home.path().join("results.csv");
    let resumed = orgql(
        home.path(),
        service,
        "users.read users.write",
        &["import", p(&file), "--resume", "--results", p(&results)],
    )
    .await;
    assert_eq!(resumed.status.code(), Some(0), "{}", said(&resumed));
    let after = service.learners().await;
    let revisions = service
        .data(
            &format!("{{ paginatedUsers(first: 50, {filter}) {{ edges {{ node {{ ref revision }} }} }} }}"),
            json!({}),
        )
        .await;
    let mut saved_once = 0;
    for edge in revisions["paginatedUsers"]["edges"].as_array().unwrap() {
        assert_eq!(edge["node"]["revision"], 1, "saved exactly once: {edge}");
        saved_once += 1;
    }
    assert_eq!(saved_once, 50, "the first page of renamed learners");
    for (i, r) in refs.iter().enumerate() {
        assert_eq!(
            after[*r]["name"],
            format!("Renamed {i}"),
            "{}\n{}",
            said(&resumed),
            std::fs::read_to_string(&results).unwrap_or_default()
        );
        for field in ["email", "isActive", "department"] {
            assert_eq!(after[*r][field], before[*r][field], "{r}.{field} did not move");
        }
    }
    let results = std::fs::read_to_string(&results).unwrap();
    assert_eq!(results.lines().filter(|l| l.contains(",updated")).count(), 100, "{results}");
}

/// Issue 30 on the graphene-django service: its schema evolves the way graphene does it (a field
/// added, the old one kept with `deprecation_reason` naming it, a filter argument dropped), the
/// service restarted on the same address; `orgql schema changes` names each change in the
/// service's own names and `orgql operations check` finds both operations, `--fix` rewrites the
/// deprecated field to its alternative.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graphene_django_services_schema_changes_are_listed_and_operations_checked_and_fixed() {
    let Some(service) = Django::start_with(5, &[]) else { return };
    let home = tempfile::tempdir().unwrap();
    let ops = home.path().join("ops");
    std::fs::create_dir_all(&ops).unwrap();
    let users =
        "# who they are\nquery Users {\n  paginatedUsers(first: 5) {\n    edges { node { ref name } }\n  }\n}\n";
    let search = "query Search {\n  paginatedUsers(email_Icontains: \"example\") { count }\n}\n";
    std::fs::write(ops.join("Users.graphql"), users).unwrap();
    std::fs::write(ops.join("Search.graphql"), search).unwrap();
    let run = |service: &Django, args: &[&str]| run_cli(home.path(), service, args);
    let ops_dir = p(&ops).to_owned();
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(&service, &["schema", "changes"]);
    assert_eq!((code, out.starts_with("no changes since 20")), (0, true), "{out}{err}");

    // A release later, on the same address.
    let listen = service.base_url().trim_start_matches("http://").trim_end_matches('/').to_owned();
    drop(service);
    let Some(service) = Django::start_with(5, &["--schema", "next", "--listen", &listen]) else { return };
    let (code, out, err) = run(&service, &["schema", "changes"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "breaking: argument email_Icontains removed from Query.paginatedUsers",
            "safe: field UserNode.fullName added",
            "deprecated: UserNode.name — Use `fullName`.",
        ],
        "{err}"
    );
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 9, "{out}{err}");
    assert!(out.contains("Users.graphql:4:24: deprecated: UserNode.name — Use `fullName`."), "{out}");
    assert!(out.lines().any(|l| l.contains("Search.graphql:2:18: error: ")), "{out}");
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir, "--fix"]);
    assert_eq!(code, 9, "{out}{err}");
    let fixed = std::fs::read_to_string(ops.join("Users.graphql")).unwrap();
    assert_eq!(fixed, users.replace("ref name }", "ref name: fullName }"), "comments and layout kept");
    std::fs::remove_file(ops.join("Search.graphql")).unwrap();
    let (code, out, err) = run(&service, &["operations", "check", &ops_dir]);
    assert_eq!(code, 0, "{out}{err}");
    // What the fixed operation reads is what the old field read.
    let (code, out, err) = run(&service, &["query", "--file", p(&ops.join("Users.graphql"))]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"name\""), "the response key kept: {out}");
}

/// The learners whose department has a value.
fn with_department(learners: &std::collections::BTreeMap<String, Value>) -> Vec<&String> {
    learners.iter().filter(|(_, l)| l["department"].as_str().is_some_and(|d| !d.is_empty())).map(|(r, _)| r).collect()
}

/// Issue 41: on a service that stores a cleared text as null (Django's own form field of a
/// `CharField(null=True)`), a file clearing departments with `(empty)` applies with exit 0, every
/// row `updated` in the results file with what the service now holds, and the service holds
/// null; planned again, the same file changes nothing (nothing is nothing, however stored).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_department_cleared_with_empty_is_updated_though_the_service_stores_null() {
    let Some(service) = Django::start_with(30, &["--empty-as-null"]) else { return };
    let home = tempfile::tempdir().unwrap();
    let before = service.learners().await;
    let set = with_department(&before);
    assert!(set.len() >= 3, "learners with a department: {before:?}");
    let cleared = &set[..3];
    let file = home.path().join("clear.csv");
    let mut csv = String::from("ref,department\n");
    for r in cleared {
        csv.push_str(&format!("{r},(empty)\n"));
    }
    std::fs::write(&file, &csv).unwrap();
    let scope = "users.read users.write";
    let results = home.path().join("results.csv");
    let apply = orgql(home.path(), &service, scope, &["import", p(&file), "--apply", "--results", p(&results)]).await;
    assert_eq!(apply.status.code(), Some(0), "{}", said(&apply));
    assert!(String::from_utf8_lossy(&apply.stdout).contains("applied 3 rows; 0 failed, 0 conflicts, 0 invalid"));
    let mut read = csv::Reader::from_path(&results).unwrap();
    for row in read.records() {
        let row = row.unwrap();
        assert_eq!(&row[2], "updated", "{row:?}");
        assert_eq!(&row[3], "department: cleared; the service holds null", "what the service holds: {row:?}");
    }
    let after = service.learners().await;
    for r in cleared {
        assert_eq!(after[*r]["department"], Value::Null, "{r} holds null");
        only_changed(&before[*r], &after[*r], "department");
    }
    let again = orgql(home.path(), &service, scope, &["import", p(&file)]).await;
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 to update"), "{}", said(&again));
    assert!(String::from_utf8_lossy(&again.stdout).contains("3 unchanged"), "{}", said(&again));
}

/// Issue 41: cells emptied in a spreadsheet leave the service's values, and the plan says how
/// many and how to clear them; with `--empty-clears` they clear, read back as cleared (the service
/// stores null) and nothing else moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emptied_cells_are_counted_in_the_plan_and_clear_with_empty_clears() {
    let Some(service) = Django::start_with(30, &["--empty-as-null"]) else { return };
    let home = tempfile::tempdir().unwrap();
    let before = service.learners().await;
    let set = with_department(&before);
    let emptied = &set[..3];
    // As HR leaves an export edited: the department's text deleted, the name as it was.
    let file = home.path().join("emptied.csv");
    let mut csv = String::from("ref,name,department\n");
    for r in emptied {
        csv.push_str(&format!("{r},{},\n", cell(before[*r]["name"].as_str().unwrap())));
    }
    std::fs::write(&file, &csv).unwrap();
    let scope = "users.read users.write";
    let plan = orgql(home.path(), &service, scope, &["import", p(&file)]).await;
    assert_eq!(plan.status.code(), Some(0), "{}", said(&plan));
    assert!(String::from_utf8_lossy(&plan.stdout).contains("0 to update"), "{}", said(&plan));
    assert!(
        String::from_utf8_lossy(&plan.stderr)
            .contains("3 empty cells leave their values as they are; write (empty) to clear, or use --empty-clears"),
        "{}",
        said(&plan)
    );
    let plan_file = home.path().join("plan.csv");
    let results = home.path().join("results.csv");
    let apply = orgql(
        home.path(),
        &service,
        scope,
        &["import", p(&file), "--empty-clears", "--plan", p(&plan_file), "--apply", "--results", p(&results)],
    )
    .await;
    assert_eq!(apply.status.code(), Some(0), "{}", said(&apply));
    assert!(!said(&apply).contains("empty cells leave"), "{}", said(&apply));
    let planned = std::fs::read_to_string(&plan_file).unwrap();
    let first = emptied[0];
    let was = before[first]["department"].as_str().unwrap();
    assert!(planned.contains(&format!("department: {was} → (empty)")), "{planned}");
    let results = std::fs::read_to_string(&results).unwrap();
    assert_eq!(results.lines().filter(|l| l.contains(",updated,")).count(), 3, "{results}");
    let after = service.learners().await;
    for r in emptied {
        assert_eq!(after[*r]["department"], Value::Null, "{r} cleared");
        only_changed(&before[*r], &after[*r], "department");
    }
}

/// Issue 41 in the Import window, on a service that stores a cleared text as null: a department
/// cleared with `(empty)` plans as such, and cells emptied are counted with the way to clear
/// them; **Empty cells clear values** plans those as `department: … → (empty)` too, and applied,
/// the summary says every row applied and none failed, each row's outcome is `applied`, the
/// results file says what the service holds, and it holds null.
#[test]
fn the_import_window_clears_emptied_departments_and_says_every_row_applied() {
    use egui_kittest::kittest::Queryable;
    let Some(service) = Django::start_with(30, &["--empty-as-null"]) else { return };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let before = crate::harness::off_ui_thread(|| runtime.block_on(service.learners()));
    let set = with_department(&before);
    // One department cleared as the docs say, with (empty); three cells emptied.
    let (said, emptied) = (set[0], &set[1..4]);
    let mut s = crate::harness::Session::start();
    let file = s.path("departments.csv");
    let mut csv = format!("ref,department\n{said},(empty)\n");
    for r in emptied {
        csv.push_str(&format!("{r},\n"));
    }
    std::fs::write(&file, &csv).unwrap();
    connect(&mut s, &service);
    s.click("Import…");
    s.wait_for_label("File");
    s.type_into("File", p(&file));
    s.click("Plan");
    s.wait_for("the plan", |h| !h.state().import_busy());
    s.wait_for_label("1 to update");
    assert!(s.harness.query_by_label("3 unchanged").is_some(), "{}", s.screen());
    let was = |r: &str| before[r]["department"].as_str().unwrap().to_owned();
    s.wait_for_text(&format!("department: {} → (empty)", was(said)));
    s.wait_for_text(
        "3 empty cells leave their values as they are; write (empty) to clear, or choose \"Empty cells clear values\"",
    );
    s.click("Empty cells clear values");
    s.wait_for("the plan again", |h| !h.state().import_busy());
    s.wait_for_label("4 to update");
    s.wait_for_text(&format!("department: {} → (empty)", was(emptied[0])));
    assert!(s.text_containing("empty cells leave").is_none(), "{}", s.screen());
    s.click("Apply…");
    s.wait_for_text("Apply 4 changes to django-service: 4 to update?");
    s.click("Apply now");
    s.wait_for("the apply", |h| !h.state().import_busy());
    s.wait_for_text("Applied 4 rows; 0 failed, 0 conflicts, 0 invalid.");
    assert!(s.harness.query_by_label("4 applied").is_some(), "every row's outcome:\n{}", s.screen());
    let after = crate::harness::off_ui_thread(|| runtime.block_on(service.learners()));
    for r in set[..4].iter() {
        assert_eq!(after[*r]["department"], Value::Null, "{r} cleared");
        only_changed(&before[*r], &after[*r], "department");
    }
    let results = std::fs::read_to_string(s.path("departments.results.csv")).unwrap();
    let updated = results.lines().filter(|l| l.contains(",updated,department: cleared; the service holds null"));
    assert_eq!(updated.count(), 4, "{results}");
    s.settle();
}
