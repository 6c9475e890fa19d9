//! The "Find user" window of support staff, driven as a person would with egui_kittest on the
//! real app and its in-process sandbox: find by ref, by email and by name, nobody found, and the
//! changes support staff make there, each confirmed, checked against the service itself.

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use orgql::support::{name_matches, one_line};
use serde_json::{Value, json};

use crate::harness::{Session, admin_token, graphql, sandbox};

/// What the card shows of a user, as the service has them.
const USER: &str = "query($ref: String!) { user(ref: $ref) {
  ref name email isActive roles groups { ref name } extraFields { category { name } value }
} }";

/// Asks the app's own sandbox directly (not through the app): what the window should show.
fn ask(s: &mut Session, query: &str, variables: Value) -> Value {
    let url = s.sandbox_url();
    s.runtime.block_on(async {
        let token = admin_token(&url, "users.read groups.read").await;
        let body = graphql(&url, &token, query, variables).await;
        assert!(body.get("errors").is_none(), "{body}");
        body["data"].clone()
    })
}

/// The user with `user_ref`, as the service has them.
fn service_user(s: &mut Session, user_ref: &str) -> Value {
    ask(s, USER, json!({ "ref": user_ref }))["user"].clone()
}

/// Every user's ref and name, as the service has them.
fn all_users(s: &mut Session) -> Vec<(String, String)> {
    let query = "query($after: String) { paginatedUsers(first: 50, after: $after) {
      pageInfo { hasNextPage endCursor } edges { node { ref name } } } }";
    let (mut users, mut after) = (Vec::new(), Value::Null);
    loop {
        let page = ask(s, query, json!({ "after": after }))["paginatedUsers"].clone();
        for edge in page["edges"].as_array().expect("edges") {
            users.push((
                edge["node"]["ref"].as_str().unwrap().to_owned(),
                edge["node"]["name"].as_str().unwrap().to_owned(),
            ));
        }
        if page["pageInfo"]["hasNextPage"] != true {
            return users;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
}

/// The window opened from the toolbar, the sandbox started behind it.
fn open_window() -> Session {
    let mut s = Session::start();
    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
    assert!(s.harness.get_by_label("User to find").is_focused(), "the search box has the focus");
    s
}

/// Types into the search box and clicks Find.
fn find(s: &mut Session, typed: &str) {
    s.type_into("User to find", typed);
    s.click("Find");
}

/// Finds the user with `user_ref` and waits for their card; returns them as the service has them.
fn open_card(s: &mut Session, user_ref: &str) -> Value {
    find(s, user_ref);
    s.wait_for_text(user_ref);
    let user = service_user(s, user_ref);
    s.wait_for_label(&heading(&user));
    user
}

fn heading(user: &Value) -> String {
    one_line(user["name"].as_str().expect("a name"))
}

/// Clicks a widget of the window, scrolled into view first (the window scrolls).
#[track_caller]
fn press(s: &mut Session, label: &str) {
    s.harness.get_by_label(label).scroll_to_me();
    s.harness.step();
    s.click(label);
}

/// Clicks `button`, checks the confirmation names the change, confirms, and waits for `outcome`.
#[track_caller]
fn confirm(s: &mut Session, button: &str, question: &str, outcome: &str) {
    press(s, button);
    s.wait_for_label(question);
    s.click("Confirm");
    s.wait_for_label(outcome);
    assert!(s.harness.query_by_label(question).is_none(), "the confirmation is gone");
}

#[test]
fn find_by_ref_shows_the_user_with_groups_roles_and_extra_fields() {
    let mut s = open_window();
    s.type_into("User to find", "u00020");
    s.harness.key_press(Key::Enter);
    s.wait_for_text("u00020");
    let user = service_user(&mut s, "u00020");
    s.wait_for_label(&heading(&user));

    assert_eq!(s.harness.get_by_label("Name").value().as_deref(), user["name"].as_str(), "the name, editable");
    assert_eq!(s.harness.get_by_label("Email").value().as_deref(), user["email"].as_str(), "the email, editable");
    let state = if user["isActive"] == true { ("Active", "Archive") } else { ("Archived", "Activate") };
    assert!(s.harness.query_by_label(state.0).is_some(), "the state {}:\n{}", state.0, s.screen());
    assert!(s.harness.query_by_role_and_label(Role::Button, state.1).is_some(), "{} is offered", state.1);
    let roles: Vec<String> = user["roles"]
        .as_array()
        .expect("roles")
        .iter()
        .map(|r| {
            let r = r.as_str().unwrap().to_lowercase();
            r[..1].to_uppercase() + &r[1..]
        })
        .collect();
    assert!(s.harness.query_by_label(&roles.join(", ")).is_some(), "the roles {roles:?}:\n{}", s.screen());
    let groups = user["groups"].as_array().expect("groups");
    assert!(s.harness.query_by_label(&format!("Groups ({})", groups.len())).is_some(), "{}", s.screen());
    for group in groups {
        let named = format!("{} ({})", group["name"].as_str().unwrap(), group["ref"].as_str().unwrap());
        assert!(s.harness.query_by_label(&named).is_some(), "the group {named}:\n{}", s.screen());
        assert!(s.harness.query_by_label(&format!("Remove from {named}")).is_some(), "a Remove button for {named}");
    }
    for field in user["extraFields"].as_array().expect("extra fields") {
        let category = field["category"]["name"].as_str().unwrap();
        assert!(s.harness.query_by_label(category).is_some(), "the category {category}:\n{}", s.screen());
        if let Some(value) = field["value"].as_str() {
            assert!(s.harness.query_all_by_label(value).next().is_some(), "the value {value}:\n{}", s.screen());
        }
    }
    assert!(s.harness.get_by_label("Save changes").accesskit_node().is_disabled(), "nothing to save yet");
    s.settle();
}

#[test]
fn find_by_email_shows_the_user() {
    let mut s = open_window();
    // Find someone first, so that the sandbox runs and the email can be asked of it.
    open_card(&mut s, "u00021");
    let user = service_user(&mut s, "u00030");
    let email = user["email"].as_str().expect("an email").to_owned();
    find(&mut s, &email.to_uppercase());
    s.wait_for_label(&heading(&user));
    assert_eq!(s.harness.get_by_label("Email").value().as_deref(), Some(email.as_str()));
    assert!(s.harness.query_by_label("u00030").is_some(), "the ref:\n{}", s.screen());
    s.settle();
}

#[test]
fn a_ref_no_user_has_says_so_clearly() {
    let mut s = open_window();
    find(&mut s, "u99999");
    s.wait_for_label("No user has the ref 'u99999'.");
    find(&mut s, "nobody@example.invalid");
    s.wait_for_label("No user has the email 'nobody@example.invalid'.");
    find(&mut s, "Nobody Atall");
    s.wait_for_label("No user matches the name 'Nobody Atall'.");
    find(&mut s, "   ");
    s.wait_for_label("Type a ref, an email or a name to find a user.");
    assert!(s.harness.query_by_label("Name").is_none(), "no card:\n{}", s.screen());
    s.settle();
}

#[test]
fn a_name_several_users_have_lists_them_to_pick_from() {
    let mut s = open_window();
    open_card(&mut s, "u00021");
    // A first name several users share, as the service has them (past the unusual names of
    // the first users).
    let names = all_users(&mut s);
    assert_eq!(names.len(), 120);
    let first_name = names[20..]
        .iter()
        .map(|(_, name)| name.split(' ').next().unwrap().to_owned())
        .find(|first| names.iter().filter(|(_, n)| name_matches(n, first)).count() >= 2)
        .expect("a first name two users share");
    let expected = names.iter().filter(|(_, n)| name_matches(n, &first_name)).count();

    // One word is tried as a ref, then as a name; the name scan reads every page.
    find(&mut s, &first_name);
    let listed = s.wait_for_text(&format!("match '{first_name}'. Pick one:"));
    let count: usize = listed.split(' ').next().unwrap().parse().expect("a count");
    assert_eq!(count, expected, "{listed}");
    let (pick_ref, pick_name) = names
        .iter()
        .filter(|(_, n)| name_matches(n, &first_name))
        .find(|(_, n)| names.iter().filter(|(_, m)| m == n).count() == 1)
        .cloned()
        .expect("a match with a name of its own");
    s.click(&pick_name);
    s.wait_for_label(&format!("Back to the {count} matches"));
    assert_eq!(s.harness.get_by_label("Name").value(), Some(pick_name.clone()));
    assert!(s.harness.query_by_label(&pick_ref).is_some(), "{}", s.screen());
    s.click(&format!("Back to the {count} matches"));
    s.wait_for_label(&listed);
    s.settle();
}

#[test]
fn archive_then_activate_each_asks_first_and_updates_the_card() {
    let mut s = open_window();
    let user = open_card(&mut s, "u00021");
    let named = format!("{} (u00021)", heading(&user));
    if user["isActive"] == false {
        confirm(
            &mut s,
            "Activate",
            &format!("Activate {named}? Their state changes from Archived to Active."),
            &format!("{named} is active."),
        );
    }

    // Cancelled: nothing changes.
    let archive = format!("Archive {named}? Their state changes from Active to Archived.");
    press(&mut s, "Archive");
    s.wait_for_label(&archive);
    s.click("Cancel");
    assert!(s.harness.query_by_label(&archive).is_none(), "the confirmation is gone");
    assert_eq!(service_user(&mut s, "u00021")["isActive"], true, "nothing was changed");

    confirm(&mut s, "Archive", &archive, &format!("{named} is archived."));
    // The focus landed on the new state, read with what it is the state of.
    assert!(s.harness.query_by_label("State: Archived").is_some(), "the card shows the new state:\n{}", s.screen());
    assert_eq!(service_user(&mut s, "u00021")["isActive"], false);

    let activate = format!("Activate {named}? Their state changes from Archived to Active.");
    confirm(&mut s, "Activate", &activate, &format!("{named} is active."));
    assert!(s.harness.query_by_label("State: Active").is_some(), "{}", s.screen());
    assert!(s.harness.query_by_role_and_label(Role::Button, "Archive").is_some(), "Archive is offered again");
    assert_eq!(service_user(&mut s, "u00021")["isActive"], true);
    s.settle();
}

#[test]
fn an_invalid_email_shows_the_services_validation_error_next_to_the_field() {
    let mut s = open_window();
    let user = open_card(&mut s, "u00022");
    let (named, email) = (format!("{} (u00022)", heading(&user)), user["email"].as_str().unwrap().to_owned());

    s.type_into("Email", "not-an-address");
    confirm(
        &mut s,
        "Save changes",
        &format!("Change the email of {named} from '{email}' to 'not-an-address'?"),
        "The service refused the email: not a valid address.",
    );
    // Next to the field: right below it, and the typed value is kept to correct.
    let field = s.harness.get_by_label("Email").rect();
    let error = s.harness.get_by_label("The service refused the email: not a valid address.").rect();
    assert!(error.top() >= field.bottom() - 1.0 && error.top() - field.bottom() < 24.0, "{field:?} {error:?}");
    assert!((error.left() - field.left()).abs() < 4.0, "{field:?} {error:?}");
    assert_eq!(s.harness.get_by_label("Email").value().as_deref(), Some("not-an-address"));
    assert_eq!(service_user(&mut s, "u00022")["email"], email.as_str(), "nothing was changed");

    s.type_into("Email", "fixed.address@example.net");
    confirm(
        &mut s,
        "Save changes",
        &format!("Change the email of {named} from '{email}' to 'fixed.address@example.net'?"),
        &format!("Saved the email of {named}."),
    );
    assert!(s.harness.query_by_label("The service refused the email: not a valid address.").is_none());
    assert_eq!(service_user(&mut s, "u00022")["email"], "fixed.address@example.net");
    s.settle();
}

#[test]
fn adding_to_and_removing_from_a_group_goes_through_the_picker() {
    let mut s = open_window();
    let user = open_card(&mut s, "u00023");
    let named = format!("{} (u00023)", heading(&user));
    let groups = ask(&mut s, "{ paginatedGroups(first: 50) { edges { node { ref name } } } }", json!({}));
    let member_of: Vec<&str> = user["groups"].as_array().unwrap().iter().map(|g| g["ref"].as_str().unwrap()).collect();
    let group = groups["paginatedGroups"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["node"])
        .find(|g| !member_of.contains(&g["ref"].as_str().unwrap()))
        .expect("a group the user is not in");
    let group_named = format!("{} ({})", group["name"].as_str().unwrap(), group["ref"].as_str().unwrap());

    press(&mut s, "Search groups");
    s.wait_for_text(" to choose from.");
    press(&mut s, "Group to add to");
    s.harness.get_by_role_and_label(Role::Button, &group_named).click();
    s.harness.step();
    confirm(
        &mut s,
        "Add to group",
        &format!("Add {named} to the group {group_named}?"),
        &format!("Added {named} to the group {group_named}."),
    );
    let remove = format!("Remove from {group_named}");
    assert!(s.harness.query_by_label(&remove).is_some(), "the new group on the card:\n{}", s.screen());
    let refs = |user: &Value| -> Vec<String> {
        user["groups"].as_array().unwrap().iter().map(|g| g["ref"].as_str().unwrap().to_owned()).collect()
    };
    assert!(refs(&service_user(&mut s, "u00023")).contains(&group["ref"].as_str().unwrap().to_owned()));

    confirm(
        &mut s,
        &remove,
        &format!("Remove {named} from the group {group_named}?"),
        &format!("Removed {named} from the group {group_named}."),
    );
    assert!(s.harness.query_by_label(&remove).is_none(), "{}", s.screen());
    assert_eq!(refs(&service_user(&mut s, "u00023")), member_of);
    s.settle();
}

#[test]
fn a_profile_that_may_only_read_shows_the_user_without_actions() {
    let mut s = Session::start();
    let server = s.runtime.block_on(sandbox(10));
    // A new profile requests users.read only.
    s.add_profile("support-reader", server.base_url(), "sandbox-reader");

    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
    find(&mut s, "u00001");
    s.wait_for_text("Groups (");
    s.wait_for_text("Changes need users.write and groups.write");
    assert!(s.harness.query_by_label("u00001").is_some(), "{}", s.screen());
    for button in ["Archive", "Activate", "Save changes", "Search groups"] {
        assert!(s.harness.query_by_role_and_label(Role::Button, button).is_none(), "no {button}:\n{}", s.screen());
    }
    assert!(s.harness.query_all_by_label_contains("Remove from").next().is_none(), "no Remove buttons");
    assert!(
        s.harness.query_by_role_and_label(Role::TextInput, "Email").is_none(),
        "the email is shown, not editable:\n{}",
        s.screen()
    );
    s.wait_for("nothing under way", |h| h.query_all_by_role(Role::ProgressIndicator).next().is_none());
    s.settle();
}

/// The find's own logic over HTTP, without the window: the documents built from the sandbox's
/// introspected schema, and the scans the find falls back to on a schema without lookups by
/// ref or email, in both paging styles.
mod documents {
    use std::sync::Arc;
    use std::time::Duration;

    use orgql::api::{BaseUrl, Client, ClientOptions, Credentials};
    use orgql::query::PagingStyle;
    use orgql::sandbox::RunningServer;
    use orgql::secret::Secret;
    use orgql::support::{ByRef, Capabilities, Found, SupportReply, SupportRequest, UserCard, answer};
    use tokio_util::sync::CancellationToken;

    use crate::harness::{ALL_SCOPES, SECRET, sandbox};

    fn client(server: &RunningServer) -> Arc<Client> {
        let credentials = Credentials {
            base_url: BaseUrl::parse(server.base_url()).expect("a valid base URL"),
            client_id: "sandbox-admin".to_owned(),
            client_secret: Secret::new(SECRET),
            scopes: ALL_SCOPES.parse().expect("known scopes"),
        };
        Arc::new(Client::new(credentials, ClientOptions::default(), None).expect("a client"))
    }

    async fn find(client: &Arc<Client>, caps: &Capabilities, typed: &str) -> Found {
        let request = SupportRequest::Find(typed.to_owned());
        let cancel = CancellationToken::new();
        let reply = tokio::time::timeout(Duration::from_secs(60), answer(client.clone(), caps, request, &cancel))
            .await
            .expect("the find ends within a minute")
            .unwrap_or_else(|e| panic!("{typed}: {e}"));
        match reply {
            SupportReply::Found(found) => found,
            other => panic!("{other:?}"),
        }
    }

    fn user(found: Found) -> Box<UserCard> {
        match found {
            Found::User(user) => user,
            other => panic!("not one user: {other:?}"),
        }
    }

    #[tokio::test]
    async fn without_lookups_by_ref_or_email_the_users_are_scanned_in_either_paging_style() {
        let server = sandbox(120).await;
        let client = client(&server);
        let cancel = CancellationToken::new();
        let (model, _) = tokio::time::timeout(Duration::from_secs(30), orgql::explorer::load::fetch(&client, &cancel))
            .await
            .expect("introspection ends")
            .expect("the sandbox's schema");
        let full = Capabilities::from_schema(model.schema()).expect("capabilities");
        // On the third page: a user only a walk reaches.
        let far = user(find(&client, &full, "u00111").await);
        assert!(far.roles.is_some() && far.groups.is_some() && !far.dates.is_empty(), "{far:?}");

        for walk in [PagingStyle::Relay, PagingStyle::EdgeCursors] {
            let mut caps = full.clone();
            caps.by_ref = ByRef::Scan;
            caps.users.filters.clear();
            caps.users.paging.as_mut().expect("the sandbox pages").style = walk;
            assert!(caps.user_by_ref("u1").is_none() && caps.users_by_email("a@b.c").is_none());
            assert_eq!(user(find(&client, &caps, "u00111").await), far, "{walk:?}");
            assert_eq!(user(find(&client, &caps, &far.email.to_uppercase()).await), far, "{walk:?}");
            match find(&client, &caps, "ref:u99999").await {
                Found::Nobody(sentence) => assert_eq!(
                    sentence,
                    "No user has the ref 'u99999'. This service cannot look users up by ref, so all 120 users were compared."
                ),
                other => panic!("{other:?}"),
            }
        }

        // The spec's guaranteed fields only: one page (no cursor argument is guaranteed).
        let guaranteed = Capabilities::guaranteed("The schema could not be read.".into());
        let card = user(find(&client, &guaranteed, "u00111").await);
        assert_eq!((card.roles.as_ref(), card.groups.as_ref(), card.dates.len()), (None, None, 0));
        assert_eq!(card.offers.notice.as_deref(), Some("The schema could not be read."));
        assert!(!card.offers.any());
        match find(&client, &guaranteed, &far.email).await {
            Found::Nobody(sentence) => assert!(
                sentence.ends_with(
                    "This service cannot look users up by email, so only the first 50 of 120 users were compared."
                ),
                "{sentence}"
            ),
            other => panic!("{other:?}"),
        }
    }

    /// A noun-first service whose mutations answer with payloads and return errors as data.
    const NOUN_FIRST: &str = r#"
type Query { user(ref: String!): User  paginatedUsers(first: Int!, after: String): UserConnection! }
type Mutation {
  userUpdate(ref: String!, input: UserUpdateInput!): UserPayload!
  userArchive(ref: String!): UserPayload!
  userActivate(ref: String!): UserPayload!
}
type User { id: ID! ref: String! name: String! email: String! isActive: Boolean! }
input UserUpdateInput { name: String email: String isActive: Boolean }
type FieldError { field: String messages: [String!]! }
type UserPayload { user: User errors: [FieldError!]! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
type UserEdge { node: User! cursor: String! }
type UserConnection { edges: [UserEdge!]! pageInfo: PageInfo! }
"#;

    /// Serves a token and, for each mutation, the answer `answers` gives for its operation name.
    async fn payload_service(answers: fn(&str) -> serde_json::Value) -> (String, tokio::task::JoinHandle<()>) {
        use axum::routing::post;
        let token = post(|| async {
            axum::Json(
                serde_json::json!({ "access_token": "t", "token_type": "Bearer", "expires_in": 3600, "scope": "users.read users.write" }),
            )
        });
        let graphql = post(move |body: axum::Json<serde_json::Value>| async move {
            let query = body["query"].as_str().unwrap_or_default().to_owned();
            let operation =
                query.split_whitespace().nth(1).unwrap_or_default().split('(').next().unwrap_or_default().to_owned();
            axum::Json(answers(&operation))
        });
        let app = axum::Router::new().route("/oauth/token/", token).route("/graphql/", graphql);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let serving = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                eprintln!("the test service stopped: {e}");
            }
        });
        (base, serving)
    }

    #[tokio::test]
    async fn noun_first_mutations_refuse_with_the_errors_their_payload_returns_at_their_field() {
        let (base, serving) = payload_service(|operation| match operation {
            // The card reads the user before a change, to read it back after.
            "SupportUserByRef" => serde_json::json!({ "data": { "user":
                { "id": "1", "ref": "u1", "name": "Ana", "email": "ana@example.org", "isActive": true } } }),
            "SupportEditUser" => serde_json::json!({ "data": { "result": {
                "user": null, "errors": [{ "field": "email", "messages": ["Enter a valid email address."] }] } } }),
            "SupportArchiveUser" => serde_json::json!({ "data": { "result": {
                "user": { "id": "1", "ref": "u1", "name": "Ana", "email": "ana@example.org", "isActive": false },
                "errors": [] } } }),
            _ => serde_json::json!({ "data": { "result": { "user": null, "errors": [] } } }),
        })
        .await;
        let schema = apollo_compiler::Schema::parse_and_validate(NOUN_FIRST, "noun-first.graphql").expect("valid");
        let caps = Capabilities::from_schema(&schema).expect("capabilities");
        let offers = caps.offers();
        assert!(offers.archive && offers.activate && offers.edit_email, "found by shape: {offers:?}");
        assert_eq!(caps.mutations.archive.as_ref().map(|c| c.field.as_str()), Some("userArchive"));
        let credentials = Credentials {
            base_url: BaseUrl::parse(&base).expect("a base URL"),
            client_id: "c".into(),
            client_secret: Secret::new("s"),
            scopes: "users.read users.write".parse().expect("scopes"),
        };
        let client = Arc::new(Client::new(credentials, ClientOptions::default(), None).expect("a client"));
        let act = |action: orgql::support::SupportAction| {
            let (client, caps) = (client.clone(), caps.clone());
            async move {
                let request = SupportRequest::Act { user_ref: "u1".into(), action };
                let cancel = CancellationToken::new();
                tokio::time::timeout(Duration::from_secs(30), answer(client, &caps, request, &cancel))
                    .await
                    .expect("the change ends in time")
            }
        };
        let edit = orgql::support::UserEdit { name: None, email: Some("not-an-address".into()) };
        match act(orgql::support::SupportAction::Edit(edit)).await {
            Err(orgql::support::SupportError::Refused(refusals)) => {
                assert_eq!(refusals.len(), 1);
                assert_eq!(refusals[0].field, Some(orgql::support::RefusedField::Email), "{refusals:?}");
                assert_eq!(refusals[0].sentence, "The service refused the email: Enter a valid email address.");
            }
            other => panic!("not refused: {other:?}"),
        }
        match act(orgql::support::SupportAction::Archive).await {
            Ok(SupportReply::Acted { user, .. }) => assert!(!user.is_active),
            other => panic!("not archived: {other:?}"),
        }
        match act(orgql::support::SupportAction::Activate).await {
            Err(e) => assert!(e.to_string().contains("gave no answer"), "{e}"),
            other => panic!("an empty payload must not pass for an answer: {other:?}"),
        }
        serving.abort();
    }
}

/// The learning sections of a user as the sandbox answers them directly: enrollments (offer
/// title and status), progress (training title and percent), certificates (training title).
/// Enrollments (offer, status in words), progress (training, percent) and the number of certificates.
type Learning = (Vec<(String, String)>, Vec<(String, i64)>, usize);

fn learning_of(s: &mut Session, user_ref: &str) -> Learning {
    let query = "query($u: String!) {
      paginatedEnrollments(userRef: $u, first: 50) { edges { node { status offer { title } } } }
      paginatedProgress(userRef: $u, first: 50) { edges { node { percent training { title } } } }
      paginatedCertificates(userRef: $u, first: 50) { count }
    }";
    let url = s.sandbox_url();
    let data = s.runtime.block_on(async {
        let token = admin_token(&url, "users.read trainings.read events.read").await;
        let body = graphql(&url, &token, query, json!({ "u": user_ref })).await;
        assert!(body.get("errors").is_none(), "{body}");
        body["data"].clone()
    });
    let edges = |name: &str| data[name]["edges"].as_array().cloned().unwrap_or_default();
    let enrollments = edges("paginatedEnrollments")
        .iter()
        .map(|e| {
            let status = orgql::shape::enum_words(e["node"]["status"].as_str().unwrap());
            (one_line(e["node"]["offer"]["title"].as_str().unwrap()), status)
        })
        .collect();
    let progress = edges("paginatedProgress")
        .iter()
        .map(|e| (one_line(e["node"]["training"]["title"].as_str().unwrap()), e["node"]["percent"].as_i64().unwrap()))
        .collect();
    (enrollments, progress, data["paginatedCertificates"]["count"].as_u64().unwrap() as usize)
}

#[test]
fn the_card_shows_the_learners_enrollments_progress_and_certificates_from_the_schema() {
    let mut s = open_window();
    // A user with enrollments and progress in the generated data.
    let user_ref = (1..=60)
        .map(|n| format!("u{n:05}"))
        .find(|r| {
            let (enrollments, progress, _) = learning_of(&mut s, r);
            !enrollments.is_empty() && !progress.is_empty()
        })
        .expect("a learner with enrollments and progress among the first 60 users");
    let (enrollments, progress, certificates) = learning_of(&mut s, &user_ref);
    open_card(&mut s, &user_ref);
    s.wait_for_text(&format!("Enrollments ({})", enrollments.len()));
    s.wait_for_text(&format!("Progress ({})", progress.len()));
    s.wait_for_text(&format!("Certificates ({certificates})"));
    let (offer, status) = &enrollments[0];
    s.wait_for_text(offer);
    s.wait_for_text(status);
    let (training, percent) = &progress[0];
    s.wait_for_text(training);
    s.wait_for_text(&format!("{percent} %"));
    // Each section opens as a query in a new tab, with its variables.
    let tabs = s.app().tabs().len();
    s.click("Open Enrollments as a query");
    assert_eq!(s.app().tabs().len(), tabs + 1);
    let tab = s.app().active_tab();
    assert!(tab.query.contains("paginatedEnrollments(userRef: $user"), "{}", tab.query);
    assert!(tab.variables.contains(&user_ref), "{}", tab.variables);
}

#[test]
fn an_enrollments_status_changes_from_the_card_after_a_question() {
    let mut s = open_window();
    let user_ref = (1..=60)
        .map(|n| format!("u{n:05}"))
        .find(|r| !learning_of(&mut s, r).0.is_empty())
        .expect("a learner with an enrollment among the first 60 users");
    let (enrollments, _, _) = learning_of(&mut s, &user_ref);
    let (offer, status) = enrollments[0].clone();
    open_card(&mut s, &user_ref);
    s.wait_for_text(&format!("Enrollments ({})", enrollments.len()));
    let new = if status == "Attended" { "Confirmed" } else { "Attended" };
    let choice = |node: &egui_kittest::kittest::AccessKitNode<'_>| {
        node.role() == Role::Button
            && node.label().is_some_and(|l| l.starts_with("Change the status of") && l.contains(offer.as_str()))
    };
    s.harness.query_all_by(choice).next().expect("a status change on the enrollment's row").scroll_to_me();
    // The scroll is animated over a few frames.
    for _ in 0..20 {
        s.harness.step();
    }
    let button = s.harness.query_all_by(choice).next().expect("a status change on the enrollment's row");
    button.click();
    s.harness.step();
    s.wait_for_text(&format!("is {status}. Its new status:"));
    s.harness.get_by_role_and_label(Role::RadioButton, new).click();
    s.harness.step();
    s.wait_for_text(&format!("Change it to {new}?"));
    s.click("Confirm");
    // The section is read again after the change: its row says the new status.
    s.wait_for_label(new);
    let (after, _, _) = learning_of(&mut s, &user_ref);
    assert!(after.iter().any(|(o, st)| *o == offer && st == new), "the service has it: {after:?}");

    // The webhook the change caused, at the foot of the card (the sandbox sends it to the app's
    // listener after the change): it opens in the inspector.
    s.wait_for("the delivery in the store", |h| {
        h.state().webhooks().list.rows().iter().any(|d| d.event_type.as_deref() == Some("enrollment.status_changed"))
    });
    s.harness.get_by_label("Refresh lately").scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
    s.click("Refresh lately");
    let link = s.wait_for_text("(enrollment.status_changed)");
    s.harness.get_by_label(&link).scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
    s.click(&link);
    s.wait_for("the inspector showing the delivery", |h| {
        h.state().webhooks().detail().is_some_and(|d| String::from_utf8_lossy(&d.delivery.body).contains(&user_ref))
    });
}

#[test]
fn a_learner_is_enrolled_in_an_offer_found_by_its_title_after_a_question() {
    let mut s = open_window();
    let user_ref = (1..=60)
        .map(|n| format!("u{n:05}"))
        .find(|r| !learning_of(&mut s, r).0.is_empty())
        .expect("a learner with an enrollment among the first 60 users");
    let (before, _, _) = learning_of(&mut s, &user_ref);
    // An offer the learner is not enrolled in, by its title.
    let url = s.sandbox_url();
    let offers = s.runtime.block_on(async {
        let token = admin_token(&url, "events.read").await;
        graphql(&url, &token, "{ paginatedOffers(first: 50) { edges { node { ref title } } } }", json!({})).await["data"]
            .clone()
    });
    let title = offers["paginatedOffers"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| one_line(e["node"]["title"].as_str().unwrap()))
        .find(|t| before.iter().all(|(offer, _)| offer != t))
        .expect("an offer the learner is not in");
    open_card(&mut s, &user_ref);
    s.wait_for_text(&format!("Enrollments ({})", before.len()));
    let field = "Enroll in an offer";
    s.harness.get_by_label(field).scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
    s.type_into(field, &title);
    s.click("Search offers");
    // The offer's title, then its training's.
    let button = s.wait_for_text(&format!("Enroll in {title}"));
    s.harness.get_by_label(&button).scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
    s.click(&button);
    s.wait_for_text(&format!(") in {title}"));
    s.click("Confirm");
    s.wait_for_text(&format!("Enrollments ({})", before.len() + 1));
    let (after, _, _) = learning_of(&mut s, &user_ref);
    assert!(after.iter().any(|(offer, _)| *offer == title), "the service has the enrollment: {after:?}");
}

#[test]
fn a_section_the_profile_may_not_read_says_why_in_its_place_beside_those_it_may() {
    let mut s = Session::start();
    let server = s.runtime.block_on(sandbox(60));
    // users.read and trainings.read, but not events.read: enrollments are refused, progress is not.
    s.click("Profiles…");
    s.wait_for_label("Add profile");
    s.click("Add profile");
    s.type_into("Name", "learning-reader");
    s.type_into("Base URL", server.base_url());
    s.type_into("Client ID", "sandbox-reader");
    s.type_into("Client secret", crate::harness::SECRET);
    s.harness.get_by_role_and_label(Role::CheckBox, "trainings.read").click();
    s.harness.step();
    s.click("Save profile");
    s.wait_for_label("Edit learning-reader");
    s.click("Close Profiles");
    s.click("Connection");
    s.harness.get_by_role_and_label(Role::Button, "learning-reader").click();
    s.harness.step();

    s.harness.get_by_role_and_label(Role::Button, "Find user").click();
    s.harness.step();
    s.wait_for_label("User to find");
    find(&mut s, "u00002");
    s.wait_for_text("Enrollments could not be read");
    let refused = s.text_containing("Enrollments could not be read").expect("the refusal");
    assert!(refused.contains("events.read"), "it names the scope: {refused}");
    let progress = s.wait_for_text("Progress (");
    assert!(!progress.contains("could not"), "{progress}");
    s.wait_for_text("Certificates (");
}

#[test]
fn a_group_on_the_card_opens_its_card_of_members_and_managers_each_opening_theirs() {
    let mut s = open_window();
    let user = open_card(&mut s, "u00023");
    let group = &user["groups"][0];
    let named = format!("{} ({})", group["name"].as_str().unwrap(), group["ref"].as_str().unwrap());
    let members = ask(
        &mut s,
        "query($g: String!) { group(ref: $g) { members(first: 50) { count edges { node { ref name } } } managers { ref } } }",
        json!({ "g": group["ref"] }),
    );
    let count = members["group"]["members"]["count"].as_u64().unwrap();
    let other = members["group"]["members"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["node"]["ref"].as_str().unwrap().to_owned(), one_line(e["node"]["name"].as_str().unwrap())))
        .find(|(r, _)| r != "u00023")
        .expect("another member");
    press(&mut s, &named);
    s.wait_for_text(&format!("Members ({count})"));
    s.wait_for_text("Managers (");
    let open = format!("Open {} ({})", other.1, other.0);
    s.harness.get_by_label(&open).scroll_to_me();
    for _ in 0..20 {
        s.harness.step();
    }
    s.click(&open);
    s.wait_for_label(&other.1);
    s.wait_for_label(&other.0);
}
