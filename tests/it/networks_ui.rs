//! The Network section of Profiles and Test connection's route, by keys alone (issue 44): a
//! profile of an HTTPS service whose certificate comes from a private root, the root given as
//! the profile's extra roots; Test connection shows the route lines — direct for loopback, the
//! certificate, its issuer and the store that trusted it.

use std::net::SocketAddr;

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::a11y_ui::{focused, frames, press, tab_until};
use crate::harness::{SECRET, Session, sandbox};
use crate::networks::{Pki, ROOT_NAME, tls_front};

/// Tabs to the text field `field` (unless it has the focus) and types `text` into it.
fn type_by_keys(s: &mut Session, field: &str, text: &str) {
    let text_field = |role: Role| matches!(role, Role::TextInput | Role::PasswordInput);
    if focused(s).is_none_or(|(role, name)| !text_field(role) || name != field) {
        tab_until(s, field, 80, |role, name| text_field(role) && name == field);
    }
    s.harness.event(egui::Event::Text(text.to_owned()));
    frames(s);
}

#[test]
fn test_connection_shows_the_route_of_a_profile_with_extra_roots_by_keys_alone() {
    let mut s = Session::start();
    let server = s.runtime.block_on(sandbox(10));
    let pki = Pki::new();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().expect("an address");
    let front = s.runtime.block_on(tls_front(&pki, upstream, false));
    frames(&mut s);

    tab_until(&mut s, "Profiles…", 80, |role, name| role == Role::Button && name == "Profiles…");
    press(&mut s, Key::Enter);
    s.wait_for_label("Add profile");
    tab_until(&mut s, "Add profile", 80, |role, name| role == Role::Button && name == "Add profile");
    press(&mut s, Key::Enter);
    s.wait_for_label("Extra roots");
    type_by_keys(&mut s, "Name", "dev");
    type_by_keys(&mut s, "Base URL", &format!("https://localhost:{}", front.port()));
    type_by_keys(&mut s, "Client ID", "sandbox-admin");
    type_by_keys(&mut s, "Client secret", SECRET);
    // The Network section: the proxy combo says its value; the private root as extra roots.
    let proxy = s.harness.get_by_role_and_label(Role::ComboBox, "Proxy");
    assert_eq!(proxy.accesskit_node().value().as_deref(), Some("System"));
    type_by_keys(&mut s, "Extra roots", pki.root.to_str().expect("a path"));
    tab_until(&mut s, "Test connection", 80, |role, name| role == Role::Button && name == "Test connection");
    press(&mut s, Key::Enter);

    let connected = s.wait_for_text("Connected: token valid");
    assert!(!connected.is_empty());
    s.wait_for_label("Route");
    let trusted =
        s.text_containing(&format!("issued by {ROOT_NAME}; trusted by the extra roots of")).unwrap_or_default();
    assert!(trusted.starts_with("certificate: orgql.test"), "{}", s.screen());
    assert!(s.text_containing("proxy: direct (loopback").is_some(), "{}", s.screen());
    assert!(s.text_containing(orgql::net::REVOCATION).is_some(), "{}", s.screen());
}
