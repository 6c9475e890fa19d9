//! The Webhooks panel's "Make reachable from the internet" (issue 23), with a stand-in tunnel:
//! a command that prints the listener's address the way cloudflared prints a quick tunnel's.
#![cfg(unix)]

use orgql::ui::{ListenerStatus, TunnelState};
use orgql::webhooks::testsend::TestOutcome;

use crate::harness::Session;

#[test]
fn the_panel_shows_the_public_url_and_a_test_delivery_through_it_verifies() {
    let mut s = Session::start();
    s.wait_for("the app's listener", |h| matches!(h.state().webhooks().status(), ListenerStatus::Listening(_)));
    s.click("Webhooks");
    s.click("Public address");
    s.wait_for_label("Make reachable from the internet");
    // No tunnel program is installed here: "a command of your own" is chosen, and each program's
    // way to get it is said.
    assert!(s.text_containing("quick tunnels need no account").is_some(), "{}", s.screen());
    s.type_into("Command", r#"echo "2026-11-25T05:00:00Z INF |  http://127.0.0.1:{port}  |" >&2; exec sleep 600"#);
    s.click("Make reachable from the internet");
    s.wait_for_text("Public URL:");
    let TunnelState::Up { url, .. } = s.app().webhooks().tunnel.state().clone() else {
        panic!("the tunnel is up: {}", s.screen())
    };
    let addr = match s.app().webhooks().status() {
        ListenerStatus::Listening(addr) => *addr,
        other => panic!("listening: {other:?}"),
    };
    assert_eq!(url, format!("http://{addr}"));
    assert!(s.text_containing(&format!("Paste {url}")).is_some());

    s.click("Send a test delivery");
    s.wait_for("the test delivery's outcome", |h| h.state().webhooks().tunnel.test().is_some());
    assert_eq!(s.app().webhooks().tunnel.test(), Some(&Ok(TestOutcome::Verified)), "{}", s.screen());
    s.wait_for_text("arrived byte for byte and verified");

    s.click("Stop tunnel");
    s.wait_for("the tunnel stopped", |h| matches!(h.state().webhooks().tunnel.state(), TunnelState::Off(None)));
}
