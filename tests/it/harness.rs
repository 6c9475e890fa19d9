//! Shared helpers: start a sandbox, get tokens, post GraphQL; drive the desktop app as a person
//! would ([`Session`]).

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::profiles::{ProfileFile, SecretStore};
use orgql::sandbox::{Config, RunningServer, Server, Variant};
use orgql::ui::{AppConfig, OrgqlApp};
use serde_json::{Value, json};
use tempfile::TempDir;

pub const SECRET: &str = "sandbox-secret";
pub const ALL_SCOPES: &str = "users.read users.write trainings.read trainings.write groups.read groups.write events.read events.write extra_categories.write";

/// A sandbox with `users` users and otherwise default settings.
pub async fn sandbox(users: usize) -> RunningServer {
    sandbox_with(Config { users, ..Config::default() }).await
}

/// The minimal variant of the sandbox (`orgql sandbox --variant minimal`) with `users` users: a
/// different server of the spec (users only, edge cursors, no pageInfo) to rehearse against.
pub async fn minimal_server(users: usize) -> RunningServer {
    sandbox_with(Config { users, variant: Variant::Minimal, ..Config::default() }).await
}

/// The nested variant of the sandbox (`orgql sandbox --variant nested`) with `users` users: a
/// server of another shape (learning data on the user, noun-first mutations whose payloads
/// return refusals as data), over real HTTP with the sandbox's token endpoint and scopes.
pub async fn nested_server(users: usize) -> RunningServer {
    sandbox_with(Config { users, variant: Variant::Nested, ..Config::default() }).await
}

/// A sandbox with a given configuration (listening on 127.0.0.1:0).
pub async fn sandbox_with(config: Config) -> RunningServer {
    Server::start(Config { listen: "127.0.0.1:0".parse().unwrap(), ..config }).await.expect("sandbox starts")
}

/// An HTTP client that does not follow redirects (the tests look at them).
pub fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The raw token response: status and JSON body.
pub async fn token_response(server: &RunningServer, client_id: &str, secret: &str, scope: &str) -> (u16, Value) {
    let response = http()
        .post(format!("{}/oauth/token/", server.base_url()))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", client_id),
            ("client_secret", secret),
            ("scope", scope),
        ])
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A token of `sandbox-admin` with `scope`.
pub async fn token(server: &RunningServer, scope: &str) -> String {
    let (status, body) = token_response(server, "sandbox-admin", SECRET, scope).await;
    assert_eq!(status, 200, "{body}");
    body["access_token"].as_str().unwrap().to_owned()
}

/// Posts a GraphQL request; returns the status and the JSON body.
pub async fn post(server: &RunningServer, token: &str, query: &str, variables: Value) -> (u16, Value) {
    let response = http()
        .post(format!("{}/graphql/", server.base_url()))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Posts a GraphQL request that must succeed without errors; returns `data`.
pub async fn data(server: &RunningServer, token: &str, query: &str, variables: Value) -> Value {
    let (status, body) = post(server, token, query, variables).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("errors").is_none(), "unexpected errors: {body}");
    body["data"].clone()
}

/// The messages of the `errors` array.
pub fn messages(body: &Value) -> Vec<String> {
    body["errors"].as_array().map_or_else(Vec::new, |errors| {
        errors.iter().map(|e| e["message"].as_str().unwrap_or_default().to_owned()).collect()
    })
}

/// Walks every page of the connection at `field` (a root field taking `first` and `after`),
/// selecting `node_selection`; returns the nodes and the `count` of the first page.
pub async fn walk(
    server: &RunningServer,
    token: &str,
    field: &str,
    args: &str,
    node_selection: &str,
) -> (Vec<Value>, i64) {
    let query = format!(
        "query($after: String) {{ {field}(first: 50, after: $after{args}) {{ count pageInfo {{ hasNextPage endCursor }} edges {{ cursor node {{ {node_selection} }} }} }} }}"
    );
    let mut nodes = Vec::new();
    let mut after = Value::Null;
    let mut count = None;
    for _ in 0..10_000 {
        let page = data(server, token, &query, json!({ "after": after })).await;
        let connection = &page[field];
        count.get_or_insert(connection["count"].as_i64().unwrap());
        for edge in connection["edges"].as_array().unwrap() {
            nodes.push(edge["node"].clone());
        }
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            return (nodes, count.unwrap());
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    panic!("{field} did not end after 10,000 pages");
}

/// Users of the app's in-process sandbox: three pages of 50.
pub const USERS: usize = 120;
/// The longest wait for something the worker does.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// One app under test: its runtime, its temporary places, and the harness driving it.
pub struct Session {
    pub harness: Harness<'static, OrgqlApp>,
    pub dir: TempDir,
    /// Ends when the app's worker has done every command (see `AppConfig::worker_finished`).
    pub worker_done: std::sync::mpsc::Receiver<()>,
    // Dropped last: the worker's tasks run on it.
    pub runtime: tokio::runtime::Runtime,
}

impl Session {
    /// The app as on a first start: no profiles, no keyring, an empty history.
    pub fn start() -> Session {
        Session::start_with(Session::runtime(), tempfile::tempdir().expect("a temporary directory"), None)
    }

    /// Quits the app (its worker and runtime stop) and starts it again on the same places, as
    /// a person closing and reopening orgql.
    pub fn restart(self) -> Session {
        self.restart_with(None)
    }

    /// [`Session::restart`], the app given `secrets` (a keyring kept across the restart).
    pub fn restart_with(self, secrets: Option<SecretStore>) -> Session {
        let Session { mut harness, dir, runtime, worker_done } = self;
        // As eframe does when the window closes, and `main` after it.
        eframe::App::on_exit(harness.state_mut(), None);
        drop(harness);
        let _ = worker_done.recv_timeout(Duration::from_secs(10));
        runtime.shutdown_timeout(Duration::from_secs(5));
        Session::start_with(Session::runtime(), dir, secrets)
    }

    /// The app started on the places in `dir` (its profiles file and database, if any).
    pub fn start_in(dir: TempDir) -> Session {
        Session::start_with(Session::runtime(), dir, None)
    }

    /// A runtime for [`Session::start_with`].
    pub fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("ui-test-worker")
            .build()
            .expect("a runtime")
    }

    /// The app on `runtime`, with what `dir` holds already (`profiles.toml`, `history.sqlite3`)
    /// and `secrets` (none: no keyring). The calling thread becomes the app's UI thread: from
    /// then on, the test's own blocking calls go through [`off_ui_thread`].
    pub fn start_with(runtime: tokio::runtime::Runtime, dir: TempDir, secrets: Option<SecretStore>) -> Session {
        Session::start_with_users(runtime, dir, secrets, USERS)
    }

    /// [`Session::start_with`], the app's sandbox holding `users` users.
    pub fn start_with_users(
        runtime: tokio::runtime::Runtime,
        dir: TempDir,
        secrets: Option<SecretStore>,
        users: usize,
    ) -> Session {
        Session::start_on_screen(runtime, dir, secrets, users, egui::vec2(1280.0, 800.0), 1.0)
    }

    /// The app in a window of `size` points at `pixels_per_point` (1.5 is Windows' 150 %).
    pub fn start_on_screen(
        runtime: tokio::runtime::Runtime,
        dir: TempDir,
        secrets: Option<SecretStore>,
        users: usize,
        size: egui::Vec2,
        pixels_per_point: f32,
    ) -> Session {
        let (finished, worker_done) = std::sync::mpsc::channel();
        let config = AppConfig {
            runtime: runtime.handle().clone(),
            profiles: Some(ProfileFile::at(dir.path().join("profiles.toml"))),
            secrets: secrets.unwrap_or_else(|| SecretStore::Unavailable("tests".into())),
            store_path: Some(dir.path().join("history.sqlite3")),
            sandbox_users: users,
            export_dir: dir.path().to_path_buf(),
            webhook_port: Some(0),
            worker_finished: Some(finished),
        };
        // The sandbox's names include CJK and other scripts that egui's default fonts lack; the
        // window adds system fonts for them (`run_native`), the harness does not, and would
        // otherwise panic on the first missing glyph.
        let harness = Harness::builder()
            .with_size(size)
            .with_pixels_per_point(pixels_per_point)
            .allow_missing_glyphs()
            .build_eframe(move |cc| {
                let ctx = cc.egui_ctx.clone();
                OrgqlApp::new(config, Arc::new(move || ctx.request_repaint()))
            });
        let mut session = Session { harness, dir, runtime, worker_done };
        // The app asks for the chosen connection's schema at once (the explorer shows a spinner
        // until it is there, or why it is not).
        session.wait_for("the chosen connection's schema", |h| {
            let schema = h.state().schema();
            schema.value().is_some() || schema.error().is_some()
        });
        session
    }

    /// Adds a profile in the Profiles window as a person does (the secret is the sandbox's)
    /// and chooses it as the connection.
    pub fn add_profile(&mut self, name: &str, base_url: &str, client_id: &str) {
        self.click("Profiles…");
        self.wait_for_label("Add profile");
        self.click("Add profile");
        self.type_into("Name", name);
        self.type_into("Base URL", base_url);
        self.type_into("Client ID", client_id);
        self.type_into("Client secret", SECRET);
        self.click("Save profile");
        self.wait_for_label(&format!("Edit {name}"));
        self.click("Close Profiles");
        self.click("Connection");
        self.harness.get_by_role_and_label(egui::accesskit::Role::Button, name).click();
        self.harness.step();
    }

    pub fn app(&self) -> &OrgqlApp {
        self.harness.state()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Steps the harness until `done` holds; fails after [`PATIENCE`], saying what it waited for.
    #[track_caller]
    pub fn wait_for(&mut self, what: &str, done: impl Fn(&Harness<'static, OrgqlApp>) -> bool) {
        self.wait_for_or(what, done, |_| String::new());
    }

    /// [`Session::wait_for`], saying what `explain` finds in the app when it fails (state the
    /// screen does not show).
    #[track_caller]
    pub fn wait_for_or(
        &mut self,
        what: &str,
        done: impl Fn(&Harness<'static, OrgqlApp>) -> bool,
        explain: impl Fn(&Harness<'static, OrgqlApp>) -> String,
    ) {
        let started = Instant::now();
        loop {
            self.harness.step();
            if done(&self.harness) {
                // Let the frame that follows lay out what arrived.
                self.harness.step();
                return;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {what}; {}; the screen:\n{}",
                explain(&self.harness),
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Lets what Find user asked arrive (a card's sections and deliveries come after it, each
    /// waking the window), then runs the harness until it settles.
    #[track_caller]
    pub fn settle(&mut self) {
        self.wait_for("Find user's requests to end", |h| !h.state().find_user_busy());
        self.harness.run();
    }

    /// Steps until a widget named `label` is on screen.
    #[track_caller]
    pub fn wait_for_label(&mut self, label: &str) {
        let label = label.to_owned();
        self.wait_for(&format!("'{label}' on screen"), move |h| h.query_by_label(&label).is_some());
    }

    /// Steps until a widget whose name contains `text` is on screen; returns that name.
    #[track_caller]
    pub fn wait_for_text(&mut self, text: &str) -> String {
        let needle = text.to_owned();
        self.wait_for(&format!("a text with '{text}' on screen"), move |h| {
            h.query_all_by_label_contains(&needle).next().is_some()
        });
        self.text_containing(text).expect("the text is still there")
    }

    /// The name (or text) of the first widget whose name contains `text`.
    pub fn text_containing(&self, text: &str) -> Option<String> {
        self.harness.query_all_by_label_contains(text).next().map(|node| name_of(&node))
    }

    /// Steps until the active tab has no request, fetch or export under way.
    #[track_caller]
    pub fn wait_until_idle(&mut self) {
        self.wait_for("the active tab to finish", |h| !h.state().active_tab().busy());
    }

    /// Clicks the widget named `label` and lets the app react.
    #[track_caller]
    pub fn click(&mut self, label: &str) {
        self.harness.get_by_label(label).click();
        self.harness.step();
        self.harness.step();
    }

    /// Replaces the text of the field named `label` with `text`, as typed.
    #[track_caller]
    pub fn type_into(&mut self, label: &str, text: &str) {
        self.harness.get_by_label(label).click();
        self.harness.step();
        self.harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
        self.harness.step();
        self.harness.get_by_label(label).type_text(text);
        self.harness.step();
        self.harness.step();
    }

    /// Drags with the left button from `from` to `to` in `steps` moves, as a mouse does.
    pub fn drag(&mut self, from: egui::Pos2, to: egui::Pos2, steps: u32) {
        self.harness.hover_at(from);
        self.harness.step();
        self.harness.drag_at(from);
        self.harness.step();
        for step in 1..=steps {
            self.harness.hover_at(from + (to - from) * (step as f32 / steps as f32));
            self.harness.step();
        }
        self.harness.drop_at(to);
        self.harness.step();
        self.harness.step();
    }

    /// Runs the active tab's query with the Run button and waits for its answer.
    #[track_caller]
    pub fn run_query(&mut self) {
        self.click("Run");
        self.wait_until_idle();
    }

    /// The base URL of the app's sandbox, as its status bar shows it.
    pub fn sandbox_url(&mut self) -> String {
        let shown = self.wait_for_text("Sandbox at ");
        shown.trim_start_matches("Sandbox at ").trim().to_owned()
    }

    /// Every user's `ref` of the app's sandbox, asked of it directly: what the grid should show.
    pub fn expected_refs(&mut self) -> Vec<String> {
        let url = self.sandbox_url();
        refs_of(&self.runtime, &url)
    }

    /// What is on screen, for failure messages: every named widget, one a line.
    pub fn screen(&self) -> String {
        self.harness
            .root()
            .children_recursive()
            .map(|node| name_of(&node))
            .filter(|name| !name.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs `work` on a thread of its own and returns what it returns: for a test's own blocking
/// calls (the store, the keyring) once the app has made the test's thread its UI thread, where
/// the guard of `orgql::platform::ui_thread` refuses them.
pub fn off_ui_thread<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// A widget's accessible name (a label's text is its value).
pub fn name_of<'t>(node: &impl NodeT<'t>) -> String {
    let node = node.accesskit_node();
    let name = if node.role() == Role::Label { node.value() } else { node.label() };
    name.unwrap_or_default()
}

/// A token of the sandbox's admin client for `scope`, asked of `base_url` directly (not
/// through the app).
pub async fn admin_token(base_url: &str, scope: &str) -> String {
    client_token(base_url, "sandbox-admin", scope).await
}

/// A token of the API client `client_id` (the secret [`SECRET`]) for `scope`, asked of
/// `base_url` directly.
pub async fn client_token(base_url: &str, client_id: &str, scope: &str) -> String {
    let token: Value = http()
        .post(format!("{base_url}/oauth/token/"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", client_id),
            ("client_secret", SECRET),
            ("scope", scope),
        ])
        .send()
        .await
        .expect("the token endpoint answers")
        .json()
        .await
        .expect("a JSON token response");
    token["access_token"].as_str().expect("a token").to_owned()
}

/// The whole answer to `query` from `base_url`'s GraphQL endpoint with `token`.
pub async fn graphql(base_url: &str, token: &str, query: &str, variables: Value) -> Value {
    http()
        .post(format!("{base_url}/graphql/"))
        .bearer_auth(token)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .expect("the service answers")
        .json()
        .await
        .expect("a JSON response")
}

/// Every user's `ref` in the order the service pages them, asked of `base_url` directly (not
/// through the app): what the grid should show.
pub fn refs_of(runtime: &tokio::runtime::Runtime, base_url: &str) -> Vec<String> {
    runtime.block_on(async {
        let token = admin_token(base_url, "users.read").await;
        let query = "query($after: String) { paginatedUsers(first: 50, after: $after) { pageInfo { hasNextPage endCursor } edges { node { ref } } } }";
        let (mut refs, mut after) = (Vec::new(), Value::Null);
        for _ in 0..100 {
            let page = graphql(base_url, &token, query, json!({ "after": after })).await;
            let connection = &page["data"]["paginatedUsers"];
            for edge in connection["edges"].as_array().expect("edges") {
                refs.push(edge["node"]["ref"].as_str().expect("a ref").to_owned());
            }
            if connection["pageInfo"]["hasNextPage"] != json!(true) {
                return refs;
            }
            after = connection["pageInfo"]["endCursor"].clone();
        }
        panic!("the users did not end after 100 pages");
    })
}

/// `orgql ARGS` against `base_url` as the API client `client_id` with `scope`, the secret
/// [`SECRET`] from the environment, no keyring, its files under `dir`; no standard input.
pub fn orgql_command(
    dir: &std::path::Path,
    base_url: &str,
    client_id: &str,
    scope: &str,
    args: &[&str],
) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_orgql"));
    command
        .args(args)
        .args(["--base-url", base_url, "--client-id", client_id, "--scope", scope])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ORGQL_NO_KEYRING", "1")
        .env("ORGQL_CLIENT_SECRET", SECRET)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    command
}

/// The `orgql` binary with `args` against `base_url` (the sandbox's admin client, every scope, the
/// secret from the environment, no keyring, its files under `dir`); its exit code, stdout and stderr.
pub fn orgql_cli(dir: &std::path::Path, base_url: &str, args: &[&str]) -> (i32, String, String) {
    let output = orgql_command(dir, base_url, "sandbox-admin", ALL_SCOPES, args).output().expect("orgql runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}
