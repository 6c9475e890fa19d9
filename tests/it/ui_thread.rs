//! The UI thread does no I/O: the app marks it, and in debug builds a blocking call there panics
//! naming its entry point (so every UI test checks it). Here: the guard bites on the test's UI
//! thread, and profiles read from the file and the keyring at start-up, run against and deleted,
//! all go through the worker.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use orgql::profiles::{Profile, ProfileFile, SecretStore};
use orgql::secret::Secret;

use crate::harness::{SECRET, Session, off_ui_thread, sandbox};

/// What a panic said.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[cfg(debug_assertions)]
#[test]
fn a_keyring_call_on_the_ui_thread_panics_naming_the_keyring() {
    let s = Session::start();
    let secrets = SecretStore::Unavailable("tests".into());
    // On the thread that runs the app's frames: refused, whatever the keyring would answer.
    let refused =
        std::panic::catch_unwind(AssertUnwindSafe(|| secrets.client_secret("acme"))).expect_err("the guard bites");
    let said = message(refused);
    assert!(said.contains("`keyring` was called on the UI thread"), "{said}");
    assert!(said.contains("send a worker command instead"), "{said}");
    // The store's and the profiles file's entry points too.
    let path = s.path("history.sqlite3");
    let said = message(std::panic::catch_unwind(|| orgql::store::Store::open(&path)).err().expect("refused"));
    assert!(said.contains("Store (SQLite)"), "{said}");
    let file = ProfileFile::at(s.path("profiles.toml"));
    let said = message(std::panic::catch_unwind(|| file.load()).expect_err("refused"));
    assert!(said.contains("profiles file"), "{said}");
    // Off that thread, the same calls run.
    let answer = off_ui_thread(|| secrets.client_secret("acme"));
    assert!(answer.is_err_and(|e| e.to_string().contains("no OS keyring")), "the keyring's own answer");
    assert!(off_ui_thread(|| file.load()).is_ok());
}

#[test]
fn profiles_from_the_file_and_the_keyring_run_and_delete_through_the_worker() {
    let runtime = Session::runtime();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = runtime.block_on(sandbox(10));
    // Before the app starts: a profile in the file, its secret in a (mock) keyring.
    let file = ProfileFile::at(dir.path().join("profiles.toml"));
    let profile = Profile {
        name: "acme".into(),
        base_url: server.base_url().to_owned(),
        client_id: "sandbox-admin".into(),
        scopes: "users.read".parse().expect("scopes"),
        network: Default::default(),
    };
    file.upsert(profile).expect("the profile is written");
    let secrets = SecretStore::Keyring(keyring_core::mock::Store::new().expect("a mock keyring"));
    secrets.set_client_secret("acme", &Secret::new(SECRET)).expect("the secret is kept");

    let mut s = Session::start_with(runtime, dir, Some(secrets.clone()));
    // Listed once the worker has read the file; chosen, it runs with the keyring's secret.
    s.click("Connection");
    s.wait_for("acme in the connection list", |h| h.query_by_role_and_label(Role::Button, "acme").is_some());
    s.harness.get_by_role_and_label(Role::Button, "acme").click();
    s.harness.step();
    s.run_query();
    assert_eq!(s.wait_for_text(" of 10"), "1–10 of 10");
    assert_eq!(s.app().active_tab().source.as_ref().map(|c| c.name().to_owned()).as_deref(), Some("acme"));

    // Deleted in the window: gone from the list at once, from the file and the keyring by the worker.
    s.click("Profiles…");
    s.wait_for_label("Delete acme");
    s.click("Delete acme");
    assert!(s.harness.query_by_label("Delete acme").is_none(), "listed no more");
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        s.harness.step();
        let (listed, secret) = off_ui_thread(|| (file.load().expect("the file reads"), secrets.client_secret("acme")));
        if listed.is_empty() && matches!(secret, Ok(None)) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still kept: {listed:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(s.text_containing("was not deleted").is_none(), "no notice: {}", s.screen());
    s.harness.run();
}
