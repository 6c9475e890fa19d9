//! The support card (issue 21) against a server of another shape: the nested variant of the
//! sandbox (`orgql sandbox --variant nested`), its learning data fields of the user
//! (`registrations`, `trainingStatus`, `certificates`), its mutations noun-first and answering
//! with payloads that return refusals as data. Driven as a person would with egui_kittest, each
//! change checked against the service itself.

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::sandbox::RunningServer;
use orgql::shape::enum_words;
use orgql::support::one_line;
use serde_json::{Value, json};

use crate::harness::{Session, data, nested_server, token};

/// What the service has of a user: the card's fields and their learning data.
const LEARNER: &str = "query($r: String!) { user(ref: $r) {
  ref name email department locale
  registrations(first: 50) { totalCount edges { node { id status session { title course { title } } } } }
  trainingStatus { progressPercent course { title } }
  certificates { expiresOn course { title } }
} }";

/// The user `user_ref` as the nested server has them, asked directly (not through the app).
fn learner(s: &mut Session, server: &RunningServer, user_ref: &str) -> Value {
    s.runtime.block_on(async {
        let token = token(server, "users.read").await;
        data(server, &token, LEARNER, json!({ "r": user_ref })).await["user"].clone()
    })
}

/// The title a registration's row shows: its session's, then its course's.
fn registration_title(node: &Value) -> String {
    let session = one_line(node["session"]["title"].as_str().expect("a session title"));
    let course = one_line(node["session"]["course"]["title"].as_str().expect("a course title"));
    if session == course { session } else { format!("{session} · {course}") }
}

fn registrations(user: &Value) -> Vec<Value> {
    user["registrations"]["edges"].as_array().expect("edges").iter().map(|e| e["node"].clone()).collect()
}

fn expired(certificate: &Value) -> bool {
    certificate["expiresOn"]
        .as_str()
        .and_then(|day| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok())
        .is_some_and(|day| day < chrono::Utc::now().date_naive())
}

/// The app with a profile on the nested server that may read and change users, registrations and
/// groups, chosen as the connection, and the Find user window open.
fn open_on(server: &RunningServer, s: &mut Session) {
    s.click("Profiles…");
    s.wait_for_label("Add profile");
    s.click("Add profile");
    s.type_into("Name", "nested-service");
    s.type_into("Base URL", server.base_url());
    s.type_into("Client ID", "sandbox-admin");
    s.type_into("Client secret", crate::harness::SECRET);
    for scope in ["users.write", "events.read", "events.write", "groups.read", "groups.write"] {
        s.harness.get_by_role_and_label(Role::CheckBox, scope).click();
        s.harness.step();
    }
    s.click("Save profile");
    s.wait_for_label("Edit nested-service");
    s.click("Close Profiles");
    s.click("Connection");
    s.harness.get_by_role_and_label(Role::Button, "nested-service").click();
    s.harness.step();
    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
}

/// Finds `user_ref` and waits for their card with its sections read.
fn open_card(s: &mut Session, user: &Value) {
    let user_ref = user["ref"].as_str().expect("a ref");
    s.type_into("User to find", user_ref);
    s.click("Find");
    s.wait_for_label(&one_line(user["name"].as_str().expect("a name")));
    s.wait_for_text(&format!("Registrations ({})", user["registrations"]["totalCount"]));
}

/// Scrolls a widget into view and lets the animated scroll end.
#[track_caller]
fn reveal(s: &mut Session, label: &str) {
    s.harness.get_by_label(label).scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
}

/// The first of the first 40 users that `wanted` accepts, as the service has them.
fn pick(s: &mut Session, server: &RunningServer, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    (1..=40)
        .map(|n| learner(s, server, &format!("u{n:05}")))
        .find(|u| wanted(u))
        .unwrap_or_else(|| panic!("{what} among the first 40 users"))
}

#[test]
fn the_card_shows_the_nested_sections_with_titles_states_percentages_and_expiry() {
    let mut s = Session::start();
    let server = s.runtime.block_on(nested_server(40));
    let user = pick(&mut s, &server, "a learner with registrations, progress and an expired certificate", |u| {
        !registrations(u).is_empty()
            && !u["trainingStatus"].as_array().unwrap().is_empty()
            && u["certificates"].as_array().unwrap().iter().any(expired)
    });
    open_on(&server, &mut s);
    open_card(&mut s, &user);
    let status = user["trainingStatus"].as_array().unwrap();
    let certificates = user["certificates"].as_array().unwrap();
    s.wait_for_text(&format!("Training status ({})", status.len()));
    s.wait_for_text(&format!("Certificates ({})", certificates.len()));

    // A registration: its session and course, its status in words.
    let first = &registrations(&user)[0];
    s.wait_for_text(&registration_title(first));
    let words = enum_words(first["status"].as_str().unwrap());
    assert!(s.harness.query_all_by_label(&words).next().is_some(), "the status {words}:\n{}", s.screen());
    // Progress: the course and its percentage, as a bar with its number.
    let progress = &status[0];
    s.wait_for_text(&one_line(progress["course"]["title"].as_str().unwrap()));
    s.wait_for_text(&format!("{:.0} %", progress["progressPercent"].as_f64().unwrap()));
    // An expired certificate says so.
    s.wait_for_text("expired");
    // The scalars of the user the card has no fixed place for, under "More".
    for (label, field) in [("Department", "department"), ("Locale", "locale")] {
        if let Some(value) = user[field].as_str() {
            assert!(s.harness.query_by_label(label).is_some(), "{label}:\n{}", s.screen());
            assert!(s.harness.query_all_by_label(value).next().is_some(), "{value}:\n{}", s.screen());
        }
    }
    // Found by shape: every change the schema offers is on the card.
    for button in ["Archive", "Save changes", "Search groups", "Search sessions"] {
        assert!(
            s.harness.query_by_role_and_label(Role::Button, button).is_some()
                || (button == "Archive" && s.harness.query_by_role_and_label(Role::Button, "Activate").is_some()),
            "{button}:\n{}",
            s.screen()
        );
    }
    assert!(
        s.harness.query_by_label("This service offers no changes to users through its schema.").is_none(),
        "{}",
        s.screen()
    );
    s.settle();
}

#[test]
fn a_registrations_status_changes_from_the_card_after_a_question() {
    let mut s = Session::start();
    let server = s.runtime.block_on(nested_server(40));
    let user = pick(&mut s, &server, "a learner with a registration", |u| !registrations(u).is_empty());
    let registration = registrations(&user)[0].clone();
    let (title, status) = (registration_title(&registration), registration["status"].as_str().unwrap().to_owned());
    let new = if status == "ATTENDED" { "NO_SHOW" } else { "ATTENDED" };
    open_on(&server, &mut s);
    open_card(&mut s, &user);
    let change = format!("Change the status of {title}");
    s.wait_for_label(&change);
    let labels = |h: &egui_kittest::Harness<'static, orgql::ui::OrgqlApp>, words: &str| {
        h.query_all_by_label(words).filter(|n| n.accesskit_node().role() == Role::Label).count()
    };
    let shown = labels(&s.harness, &enum_words(new));
    reveal(&mut s, &change);
    s.click(&change);
    s.wait_for_text(&format!("is {}. Its new status:", enum_words(&status)));
    s.harness.get_by_role_and_label(Role::RadioButton, &enum_words(new)).click();
    s.harness.step();
    s.wait_for_text(&format!("Change it to {}?", enum_words(new)));
    let before = server.data().read().commits;
    s.click("Confirm");
    // The section is read again after the change: the row says the new status.
    s.wait_for("the change committed", |_| server.data().read().commits > before);
    s.wait_for("the registrations read again, one more row in the new status", |h| {
        labels(h, &enum_words(new)) == shown + 1
    });
    let after = learner(&mut s, &server, user["ref"].as_str().unwrap());
    let changed = registrations(&after).into_iter().find(|r| r["id"] == registration["id"]).expect("still there");
    assert_eq!(changed["status"], new, "the service has it");
    s.settle();
}

#[test]
fn a_learner_with_no_registration_yet_is_enrolled_in_a_session_found_by_its_title() {
    let mut s = Session::start();
    let server = s.runtime.block_on(nested_server(40));
    // A new joiner, created through the service's own noun-first mutation: no registration yet.
    let created = s.runtime.block_on(async {
        let token = token(&server, "users.write").await;
        let create =
            "mutation($i: UserCreateInput!) { userCreate(input: $i) { user { ref } errors { field messages } } }";
        let input = json!({ "ref": "joiner-1", "name": "Joan Joiner", "email": "joan.joiner@example.org" });
        data(&server, &token, create, json!({ "i": input })).await
    });
    assert_eq!(created["userCreate"]["errors"], json!([]), "{created}");
    let user = learner(&mut s, &server, "joiner-1");
    assert_eq!(user["registrations"]["totalCount"], 0, "{user}");
    // A session, by its title.
    let sessions = s.runtime.block_on(async {
        let token = token(&server, "events.read").await;
        data(&server, &token, "{ sessions(first: 50) { edges { node { title } } } }", json!({})).await
    });
    let title = sessions["sessions"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| one_line(e["node"]["title"].as_str().unwrap()))
        .nth(2)
        .expect("sessions");
    open_on(&server, &mut s);
    open_card(&mut s, &user);
    let field = "Enroll in a session";
    s.wait_for_label(field);
    reveal(&mut s, field);
    s.type_into(field, &title);
    s.click("Search sessions");
    let button = s.wait_for_text(&format!("Enroll in {title}"));
    reveal(&mut s, &button);
    s.click(&button);
    s.wait_for_text(&format!(") in {title}"));
    s.click("Confirm");
    s.wait_for_text("Registrations (1)");
    let after = learner(&mut s, &server, user["ref"].as_str().unwrap());
    assert!(
        registrations(&after).iter().any(|r| one_line(r["session"]["title"].as_str().unwrap()) == title),
        "the service has the registration: {after}"
    );
    s.settle();
}

#[test]
fn an_edit_the_payload_refuses_shows_its_message_at_the_field() {
    let mut s = Session::start();
    let server = s.runtime.block_on(nested_server(40));
    let user = learner(&mut s, &server, "u00022");
    let name = one_line(user["name"].as_str().unwrap());
    let (named, email) = (format!("{name} (u00022)"), user["email"].as_str().unwrap().to_owned());
    open_on(&server, &mut s);
    open_card(&mut s, &user);

    s.type_into("Email", "not-an-address");
    reveal(&mut s, "Save changes");
    s.click("Save changes");
    let question = format!("Change the email of {named} from '{email}' to 'not-an-address'?");
    s.wait_for_label(&question);
    s.click("Confirm");
    // graphene-django's words, returned as data with HTTP 200, at the field they name.
    let refused = "The service refused the email: Enter a valid email address.";
    s.wait_for_label(refused);
    let field = s.harness.get_by_label("Email").rect();
    let error = s.harness.get_by_label(refused).rect();
    assert!(error.top() >= field.bottom() - 1.0 && error.top() - field.bottom() < 24.0, "{field:?} {error:?}");
    assert!((error.left() - field.left()).abs() < 4.0, "{field:?} {error:?}");
    assert_eq!(s.harness.get_by_label("Email").value().as_deref(), Some("not-an-address"), "kept to correct");
    assert_eq!(learner(&mut s, &server, "u00022")["email"], email.as_str(), "nothing was changed");

    s.type_into("Email", "fixed.address@example.net");
    reveal(&mut s, "Save changes");
    s.click("Save changes");
    s.wait_for_text("to 'fixed.address@example.net'?");
    s.click("Confirm");
    s.wait_for_label(&format!("Saved the email of {named}."));
    assert!(s.harness.query_by_label(refused).is_none(), "{}", s.screen());
    assert_eq!(learner(&mut s, &server, "u00022")["email"], "fixed.address@example.net");
    s.settle();
}
