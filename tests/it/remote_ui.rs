//! The Webhooks panel's Remote listener (issue 23): deliveries a sharing listener kept while the
//! app was closed are copied into the app's store and listed, byte for byte, verified here.

use std::time::Duration;

use orgql::ui::{ListenerStatus, RemoteState};
use orgql::webhooks::standard::Secret;
use orgql::webhooks::{Listener, ListenerConfig, Scheme};

use crate::harness::{Session, http, off_ui_thread};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

#[test]
fn deliveries_kept_by_a_remote_listener_are_copied_listed_and_verified() {
    let mut s = Session::start();
    s.wait_for("the app's listener", |h| matches!(h.state().webhooks().status(), ListenerStatus::Listening(_)));
    // The organisation's secret: the one in the app's listener settings.
    let secret = s.app().webhooks().form.secret.clone();
    let remote_store = s.path("server.sqlite3");
    let remote = s
        .runtime
        .block_on(Listener::start(ListenerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            scheme: Some(Scheme::Standard),
            secret: Some(secret.clone()),
            share_token: Some(orgql::secret::Secret::new(TOKEN)),
            ..ListenerConfig::new(remote_store)
        }))
        .expect("the remote listener starts");
    let url = format!("http://{}", remote.addr());
    // 30 deliveries the remote keeps before the app attaches.
    let signer = Secret::parse(&secret).unwrap();
    off_ui_thread(|| {
        s.runtime.block_on(async {
            for i in 0..30 {
                let body = format!(r#"{{"type":"remote.kept","n":{i}}}"#).into_bytes();
                let id = format!("msg_remote_{i}");
                let now = chrono::Utc::now().timestamp();
                let response = http()
                    .post(format!("{url}/org"))
                    .header("webhook-id", &id)
                    .header("webhook-timestamp", now.to_string())
                    .header("webhook-signature", signer.sign(&id, now, &body))
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_success());
            }
        })
    });

    s.click("Webhooks");
    s.click("Remote listener");
    s.type_into("Listener URL", &url);
    s.type_into("Share token", TOKEN);
    s.click("Attach");
    s.wait_for("the 30 kept deliveries", |h| {
        h.state().webhooks().list.rows().iter().filter(|d| d.event_type.as_deref() == Some("remote.kept")).count() == 30
    });
    let rows = s.app().webhooks().list.rows().to_vec();
    assert!(
        rows.iter().filter(|d| d.event_type.as_deref() == Some("remote.kept")).all(|d| d.verified == Some(true)),
        "verified here with the organisation's secret"
    );
    s.wait_for("30 copied", |h| matches!(h.state().webhooks().remote.state(), RemoteState::Attached { copied: 30 }));
    assert!(
        s.text_containing("30 deliveries copied").is_some(),
        "{:?}\n{}",
        s.app().webhooks().remote.state(),
        s.screen()
    );
    // The typed token is not kept in the form (the keyring, or this session, has it).
    assert!(s.app().webhooks().remote.token.is_empty());

    s.click("Detach");
    s.wait_for("detached", |h| matches!(h.state().webhooks().remote.state(), RemoteState::Detached(_)));
    s.runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), remote.stop()).await.unwrap() });
}

/// Posts `n` signed deliveries of type `remote.kept` to `url`, numbered from `from`.
fn post_kept(runtime: &tokio::runtime::Runtime, url: &str, signer: &Secret, from: usize, n: usize) {
    off_ui_thread(|| {
        runtime.block_on(async {
            for i in from..from + n {
                let body = format!(r#"{{"type":"remote.kept","n":{i}}}"#).into_bytes();
                let id = format!("msg_remote_{i}");
                let now = chrono::Utc::now().timestamp();
                let response = http()
                    .post(format!("{url}/org"))
                    .header("webhook-id", &id)
                    .header("webhook-timestamp", now.to_string())
                    .header("webhook-signature", signer.sign(&id, now, &body))
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_success());
            }
        })
    });
}

#[test]
fn the_app_attaches_again_at_its_start_and_copies_what_arrived_while_it_was_closed() {
    let keyring = orgql::profiles::SecretStore::Keyring(keyring_core::mock::Store::new().expect("a mock keyring"));
    let mut s = Session::start_with(Session::runtime(), tempfile::tempdir().unwrap(), Some(keyring.clone()));
    s.wait_for("the app's listener", |h| matches!(h.state().webhooks().status(), ListenerStatus::Listening(_)));
    let secret = s.app().webhooks().form.secret.clone();
    // The remote listener runs apart from the app's runtime, which a restart stops.
    let remote_runtime = Session::runtime();
    let remote = remote_runtime
        .block_on(Listener::start(ListenerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            scheme: Some(Scheme::Standard),
            secret: Some(secret.clone()),
            share_token: Some(orgql::secret::Secret::new(TOKEN)),
            ..ListenerConfig::new(s.path("server.sqlite3"))
        }))
        .expect("the remote listener starts");
    let url = format!("http://{}", remote.addr());
    let signer = Secret::parse(&secret).unwrap();
    post_kept(&remote_runtime, &url, &signer, 0, 5);
    s.click("Webhooks");
    s.click("Remote listener");
    s.type_into("Listener URL", &url);
    s.type_into("Share token", TOKEN);
    s.click("Attach");
    let kept = |n: usize| {
        move |h: &egui_kittest::Harness<'static, orgql::ui::OrgqlApp>| {
            h.state().webhooks().list.rows().iter().filter(|d| d.event_type.as_deref() == Some("remote.kept")).count()
                == n
        }
    };
    s.wait_for("the 5 kept deliveries", kept(5));
    // Closed; 7 more arrive at the remote meanwhile; opened again: no click.
    let s_closed = s.restart_with(Some(keyring));
    let mut s = s_closed;
    post_kept(&remote_runtime, &url, &signer, 5, 7);
    // Each step waited for on its own, so that a failure says which one did not come.
    s.wait_for("the workspace to bring back the remote listener's address", |h| h.state().webhooks().remote.url == url);
    s.wait_for_or(
        "the stream to the remote listener to open again, without a click",
        |h| matches!(h.state().webhooks().remote.state(), RemoteState::Attached { .. }),
        |h| {
            let webhooks = h.state().webhooks();
            format!(
                "the remote section: {:?}, gaps {:?}; the inspector's secret is {}",
                webhooks.remote.state(),
                webhooks.remote.gaps(),
                if webhooks.form.secret.is_empty() { "not known yet" } else { "known" }
            )
        },
    );
    s.wait_for("the 12 deliveries, the 7 of the closed time copied", kept(12));
    assert!(
        s.app()
            .webhooks()
            .list
            .rows()
            .iter()
            .filter(|d| d.event_type.as_deref() == Some("remote.kept"))
            .all(|d| d.verified == Some(true)),
        "verified here"
    );
    remote_runtime.block_on(async { tokio::time::timeout(Duration::from_secs(5), remote.stop()).await.unwrap() });
}
