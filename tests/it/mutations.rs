//! Every mutation of the schema: its effect is visible through the queries, its refusals name the
//! failing field and leave the data as it was. Inputs travel as GraphQL variables.

use chrono::{DateTime, Utc};
use orgql::sandbox::RunningServer;
use serde_json::{Value, json};

use crate::harness::{ALL_SCOPES, SECRET, data, messages, post, sandbox, token, token_response};

const USER: &str =
    "id ref name email isActive roles groups { ref } extraFields { category { ref } value } createdAt updatedAt";

fn create_user_query() -> String {
    format!("mutation($input: CreateUserInput!) {{ createUser(input: $input) {{ {USER} }} }}")
}

fn update_user_query() -> String {
    format!("mutation($ref: String!, $input: UpdateUserInput!) {{ updateUser(ref: $ref, input: $input) {{ {USER} }} }}")
}

fn get_user_query() -> String {
    format!("query($ref: String!) {{ user(ref: $ref) {{ {USER} }} }}")
}

const TRAINING: &str = "ref title kind description isArchived grantsCertificate modules { ref }";
const PROGRESS: &str = "user { ref } training { ref } status percent completedAt";
const RECORD_PROGRESS: &str = "mutation($user: String!, $training: String!, $percent: Int!) { recordProgress(userRef: $user, trainingRef: $training, percent: $percent) { user { ref } training { ref } status percent completedAt } }";
const GROUP: &str = "ref name members { count edges { node { ref } } } managers { ref }";
const OFFER: &str = "ref title moduleGroup { ref } startsAt endsAt location capacity seatsTaken";
const ENROLLMENT: &str = "ref status user { ref } offer { ref seatsTaken }";
const ENROLL: &str = "mutation($offer: String!, $user: String!) { enrollUser(offerRef: $offer, userRef: $user) { ref status user { ref } offer { ref seatsTaken } } }";
const SET_STATUS: &str = "mutation($ref: String!, $status: EnrollmentStatus!) { updateEnrollmentStatus(ref: $ref, status: $status) { ref status user { ref } offer { ref seatsTaken } } }";
const CATEGORY: &str = "ref name allowedValues";

/// A sandbox with `users` users and a token with every scope.
async fn admin(users: usize) -> (RunningServer, String) {
    let server = sandbox(users).await;
    let token = token(&server, ALL_SCOPES).await;
    (server, token)
}

/// The `count` of a root connection, with extra arguments such as `, ref: "x"`.
async fn count(server: &RunningServer, token: &str, field: &str, args: &str) -> i64 {
    let query = format!("{{ {field}(first: 1{args}) {{ count }} }}");
    let page = data(server, token, &query, json!({})).await;
    page[field]["count"].as_i64().unwrap_or_else(|| panic!("no count in {page}"))
}

/// Runs a mutation that must succeed and returns the value of its root field.
async fn mutate(server: &RunningServer, token: &str, query: &str, field: &str, variables: Value) -> Value {
    data(server, token, query, variables).await[field].clone()
}

/// Runs a mutation that must be refused as a GraphQL error (HTTP 200, `data` null, one error at
/// the mutation's path) and returns the error's message.
async fn refused(server: &RunningServer, token: &str, query: &str, field: &str, variables: Value) -> String {
    let (status, body) = post(server, token, query, variables).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"], Value::Null, "{body}");
    assert_eq!(body["errors"][0]["path"], json!([field]), "{body}");
    let messages = messages(&body);
    assert_eq!(messages.len(), 1, "{body}");
    messages[0].clone()
}

async fn create_user(server: &RunningServer, token: &str, input: Value) -> Value {
    mutate(server, token, &create_user_query(), "createUser", json!({ "input": input })).await
}

async fn get_user(server: &RunningServer, token: &str, ref_: &str) -> Value {
    data(server, token, &get_user_query(), json!({ "ref": ref_ })).await["user"].clone()
}

/// A fresh user with only the required fields.
async fn new_user(server: &RunningServer, token: &str, ref_: &str) -> Value {
    create_user(
        server,
        token,
        json!({ "ref": ref_, "name": format!("Name of {ref_}"), "email": format!("{ref_}@example.net") }),
    )
    .await
}

fn time(value: &Value) -> DateTime<Utc> {
    let text = value.as_str().unwrap_or_else(|| panic!("not a DateTime: {value}"));
    DateTime::parse_from_rfc3339(text).unwrap_or_else(|e| panic!("{text:?} is not RFC 3339: {e}")).to_utc()
}

/// The allowed values of a generated extra category.
async fn allowed_values(server: &RunningServer, token: &str, category: &str) -> Vec<String> {
    let page =
        data(server, token, "{ paginatedExtraCategories { edges { node { ref allowedValues } } } }", json!({})).await;
    let node = page["paginatedExtraCategories"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["node"])
        .find(|n| n["ref"] == category)
        .unwrap_or_else(|| panic!("no category {category} in {page}"));
    serde_json::from_value(node["allowedValues"].clone()).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Users

#[tokio::test]
async fn create_user_is_visible_by_ref_and_in_the_count() {
    let (server, token) = admin(60).await;
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 60);

    let created = create_user(
        &server,
        &token,
        json!({
            "ref": "ext-1", "name": "Ada Lovelace", "email": "ada@example.net", "roles": ["LEARNER", "MANAGER"],
            "extraFields": [{ "categoryRef": "cost-center", "value": "CC-42" }],
        }),
    )
    .await;
    assert_eq!(created["ref"], "ext-1");
    assert_eq!(created["name"], "Ada Lovelace");
    assert_eq!(created["email"], "ada@example.net");
    assert_eq!(created["isActive"], true);
    assert_eq!(created["roles"], json!(["LEARNER", "MANAGER"]));
    assert_eq!(created["groups"], json!([]));
    assert_eq!(created["extraFields"], json!([{ "category": { "ref": "cost-center" }, "value": "CC-42" }]));
    assert_eq!(created["createdAt"], created["updatedAt"]);
    let age = Utc::now() - time(&created["createdAt"]);
    assert!(age.num_seconds().abs() < 60, "createdAt is not now: {created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(!id.is_empty());

    // The same user by ref, by id, and one more in the count.
    assert_eq!(get_user(&server, &token, "ext-1").await, created);
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 61);
    let by_id = data(
        &server,
        &token,
        "query($id: ID!) { paginatedUsers(id: $id) { count edges { node { ref } } } }",
        json!({ "id": id }),
    )
    .await;
    assert_eq!(by_id["paginatedUsers"], json!({ "count": 1, "edges": [{ "node": { "ref": "ext-1" } }] }));

    // The defaults: active, a learner, no extra fields.
    let plain = new_user(&server, &token, "ext-2").await;
    assert_eq!(plain["isActive"], true);
    assert_eq!(plain["roles"], json!(["LEARNER"]));
    assert_eq!(plain["extraFields"], json!([]));
    assert_ne!(plain["id"], created["id"]);
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 62);

    // Created inactive: found by the isActive filter.
    create_user(
        &server,
        &token,
        json!({ "ref": "ext-3", "name": "Off", "email": "off@example.net", "isActive": false }),
    )
    .await;
    assert_eq!(count(&server, &token, "paginatedUsers", ", ref: \"ext-3\", isActive: false").await, 1);
    assert_eq!(count(&server, &token, "paginatedUsers", ", ref: \"ext-3\", isActive: true").await, 0);
}

#[tokio::test]
async fn update_user_changes_only_the_given_fields() {
    let (server, token) = admin(20).await;
    let department = allowed_values(&server, &token, "department").await[0].clone();
    let created = create_user(
        &server,
        &token,
        json!({
            "ref": "upd-1", "name": "First Name", "email": "first@example.net",
            "extraFields": [
                { "categoryRef": "department", "value": department },
                { "categoryRef": "cost-center", "value": "CC-1" },
            ],
        }),
    )
    .await;

    let renamed = mutate(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({ "ref": "upd-1", "input": { "name": "Second Name" } }),
    )
    .await;
    assert_eq!(renamed["name"], "Second Name");
    for unchanged in ["id", "ref", "email", "isActive", "roles", "groups", "extraFields", "createdAt"] {
        assert_eq!(renamed[unchanged], created[unchanged], "{unchanged} changed: {renamed}");
    }
    assert!(time(&renamed["updatedAt"]) >= time(&created["updatedAt"]));
    assert_eq!(get_user(&server, &token, "upd-1").await, renamed);

    // Email, roles, and one extra field cleared; the other extra field stays.
    let changed = mutate(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({
            "ref": "upd-1",
            "input": {
                "email": "second@example.net", "roles": ["ADMIN"],
                "extraFields": [{ "categoryRef": "cost-center", "value": null }],
            },
        }),
    )
    .await;
    assert_eq!(changed["name"], "Second Name");
    assert_eq!(changed["email"], "second@example.net");
    assert_eq!(changed["roles"], json!(["ADMIN"]));
    assert_eq!(
        changed["extraFields"],
        json!([
            { "category": { "ref": "department" }, "value": department },
            { "category": { "ref": "cost-center" }, "value": null },
        ])
    );
    assert_eq!(get_user(&server, &token, "upd-1").await, changed);
    assert_eq!(count(&server, &token, "paginatedUsers", ", email: \"second@example.net\"").await, 1);
    assert_eq!(count(&server, &token, "paginatedUsers", ", email: \"first@example.net\"").await, 0);

    // Its own address (in other letters) is not a duplicate.
    let same = mutate(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({ "ref": "upd-1", "input": { "email": "Second@Example.net" } }),
    )
    .await;
    assert_eq!(same["email"], "Second@Example.net");
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 21);
}

#[tokio::test]
async fn archive_user_sets_is_active_to_false() {
    let (server, token) = admin(20).await;
    let created = new_user(&server, &token, "arc-1").await;
    assert_eq!(created["isActive"], true);

    let archived = mutate(
        &server,
        &token,
        &format!("mutation($ref: String!) {{ archiveUser(ref: $ref) {{ {USER} }} }}"),
        "archiveUser",
        json!({ "ref": "arc-1" }),
    )
    .await;
    assert_eq!(archived["ref"], "arc-1");
    assert_eq!(archived["isActive"], false);
    assert_eq!(archived["name"], created["name"]);
    assert_eq!(get_user(&server, &token, "arc-1").await["isActive"], false);
    assert_eq!(count(&server, &token, "paginatedUsers", ", ref: \"arc-1\", isActive: false").await, 1);
    assert_eq!(count(&server, &token, "paginatedUsers", ", ref: \"arc-1\", isActive: true").await, 0);
    // Archived, not deleted.
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 21);

    // updateUser brings the user back.
    let back = mutate(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({ "ref": "arc-1", "input": { "isActive": true } }),
    )
    .await;
    assert_eq!(back["isActive"], true);
    assert_eq!(get_user(&server, &token, "arc-1").await["isActive"], true);

    let missing = refused(
        &server,
        &token,
        "mutation($ref: String!) { archiveUser(ref: $ref) { ref } }",
        "archiveUser",
        json!({ "ref": "nobody" }),
    )
    .await;
    assert_eq!(missing, "ref: no user with ref 'nobody'");
}

#[tokio::test]
async fn delete_user_removes_the_user_and_what_belongs_to_them() {
    let (server, token) = admin(100).await;
    // A generated user with progress.
    let first =
        data(&server, &token, "{ paginatedProgress(first: 1) { edges { node { user { ref } } } } }", json!({})).await;
    let victim = first["paginatedProgress"]["edges"][0]["node"]["user"]["ref"].as_str().unwrap().to_owned();
    let victim_arg = format!(", userRef: \"{victim}\"");
    let own_progress = count(&server, &token, "paginatedProgress", &victim_arg).await;
    let own_certificates = count(&server, &token, "paginatedCertificates", &victim_arg).await;
    let own_enrollments = count(&server, &token, "paginatedEnrollments", &victim_arg).await;
    assert!(own_progress >= 1);
    let users = count(&server, &token, "paginatedUsers", "").await;
    let progress = count(&server, &token, "paginatedProgress", "").await;
    let certificates = count(&server, &token, "paginatedCertificates", "").await;
    let enrollments = count(&server, &token, "paginatedEnrollments", "").await;
    let groups = get_user(&server, &token, &victim).await["groups"].clone();
    let group = groups[0]["ref"].as_str().expect("every generated user is in a group").to_owned();
    let members_query = "query($ref: String!) { group(ref: $ref) { members { count } } }";
    let members = data(&server, &token, members_query, json!({ "ref": group })).await["group"]["members"]["count"]
        .as_i64()
        .unwrap();

    let deleted = mutate(
        &server,
        &token,
        "mutation($ref: String!) { deleteUser(ref: $ref) }",
        "deleteUser",
        json!({ "ref": victim }),
    )
    .await;
    assert_eq!(deleted, true);

    // user(ref): null plus an error naming the ref, at the field's path.
    let (status, body) = post(&server, &token, &get_user_query(), json!({ "ref": victim })).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"], json!({ "user": null }), "{body}");
    assert_eq!(messages(&body), vec![format!("No user with ref '{victim}'; check the identifier")]);
    assert_eq!(body["errors"][0]["path"], json!(["user"]));

    assert_eq!(count(&server, &token, "paginatedUsers", "").await, users - 1);
    assert_eq!(count(&server, &token, "paginatedProgress", "").await, progress - own_progress);
    assert_eq!(count(&server, &token, "paginatedCertificates", "").await, certificates - own_certificates);
    assert_eq!(count(&server, &token, "paginatedEnrollments", "").await, enrollments - own_enrollments);
    let after = data(&server, &token, members_query, json!({ "ref": group })).await["group"]["members"]["count"]
        .as_i64()
        .unwrap();
    assert_eq!(after, members - 1);

    // Deleting again: refused, naming the ref.
    let again = refused(
        &server,
        &token,
        "mutation($ref: String!) { deleteUser(ref: $ref) }",
        "deleteUser",
        json!({ "ref": victim }),
    )
    .await;
    assert_eq!(again, format!("ref: no user with ref '{victim}'"));
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, users - 1);

    // The ref is free again.
    let reborn = new_user(&server, &token, &victim).await;
    assert_eq!(reborn["ref"], victim.as_str());
    assert_eq!(reborn["groups"], json!([]));
    assert_eq!(count(&server, &token, "paginatedProgress", &victim_arg).await, 0);
}

#[tokio::test]
async fn create_user_refusals_name_the_field_and_change_nothing() {
    let (server, token) = admin(50).await;
    let other = get_user(&server, &token, "u00002").await;
    let taken_email = other["email"].as_str().unwrap().to_uppercase();
    let departments = allowed_values(&server, &token, "department").await;
    let query = create_user_query();
    let cases = [
        (
            json!({ "ref": "new-1", "name": "N", "email": "not-an-address" }),
            "input.email: not a valid address".to_owned(),
        ),
        (
            json!({ "ref": "new-1", "name": "N", "email": "two@@example.net" }),
            "input.email: not a valid address".to_owned(),
        ),
        (json!({ "ref": "new-1", "name": "N", "email": "x@localhost" }), "input.email: not a valid address".to_owned()),
        (
            json!({ "ref": "u00001", "name": "N", "email": "n@example.net" }),
            "input.ref: a user with ref 'u00001' already exists".to_owned(),
        ),
        (
            json!({ "ref": "new-1", "name": "N", "email": taken_email }),
            format!("input.email: a user with email '{taken_email}' already exists"),
        ),
        (
            json!({ "ref": "new-1", "name": "   ", "email": "n@example.net" }),
            "input.name: must not be empty".to_owned(),
        ),
        (json!({ "ref": "", "name": "N", "email": "n@example.net" }), "input.ref: must not be empty".to_owned()),
        (
            json!({ "ref": "new-1", "name": "N", "email": "n@example.net",
                    "extraFields": [{ "categoryRef": "no-such-category", "value": "x" }] }),
            "input.extraFields[0].categoryRef: no extra category with ref 'no-such-category'".to_owned(),
        ),
        (
            json!({ "ref": "new-1", "name": "N", "email": "n@example.net",
                    "extraFields": [{ "categoryRef": "cost-center", "value": "CC-1" },
                                    { "categoryRef": "department", "value": "Nowhere" }] }),
            format!(
                "input.extraFields[1].value: 'Nowhere' is not allowed for 'department'; allowed: {}",
                departments.join(", ")
            ),
        ),
    ];
    for (input, expected) in cases {
        let message = refused(&server, &token, &query, "createUser", json!({ "input": input })).await;
        assert_eq!(message, expected, "for {input}");
    }
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 50);
    let (_, body) = post(&server, &token, &get_user_query(), json!({ "ref": "new-1" })).await;
    assert_eq!(body["data"], json!({ "user": null }));
    assert_eq!(get_user(&server, &token, "u00002").await, other);
}

#[tokio::test]
async fn update_user_refusals_name_the_field_and_change_nothing() {
    let (server, token) = admin(50).await;
    let before = get_user(&server, &token, "u00003").await;
    let taken = get_user(&server, &token, "u00004").await["email"].as_str().unwrap().to_owned();
    let query = update_user_query();
    let cases = [
        ("u00003", json!({ "email": "a@b" }), "input.email: not a valid address".to_owned()),
        (
            "u00003",
            json!({ "email": taken, "name": "Changed" }),
            format!("input.email: a user with email '{taken}' already exists"),
        ),
        ("u00003", json!({ "name": "", "email": "fine@example.net" }), "input.name: must not be empty".to_owned()),
        (
            "u00003",
            json!({ "name": "Changed", "extraFields": [{ "categoryRef": "location", "value": "Atlantis" }] }),
            format!(
                "input.extraFields[0].value: 'Atlantis' is not allowed for 'location'; allowed: {}",
                allowed_values(&server, &token, "location").await.join(", ")
            ),
        ),
        ("nobody", json!({ "name": "Changed" }), "ref: no user with ref 'nobody'".to_owned()),
    ];
    for (ref_, input, expected) in cases {
        let message = refused(&server, &token, &query, "updateUser", json!({ "ref": ref_, "input": input })).await;
        assert_eq!(message, expected, "for {input}");
    }
    assert_eq!(get_user(&server, &token, "u00003").await, before);
    assert_eq!(count(&server, &token, "paginatedUsers", "").await, 50);
}

// ---------------------------------------------------------------------------------------------
// Trainings and progress

#[tokio::test]
async fn trainings_are_created_updated_and_archived() {
    let (server, token) = admin(20).await;
    let trainings = count(&server, &token, "paginatedTrainings", "").await;
    let create = format!("mutation($input: CreateTrainingInput!) {{ createTraining(input: $input) {{ {TRAINING} }} }}");
    let created = mutate(
        &server,
        &token,
        &create,
        "createTraining",
        json!({ "input": { "ref": "tr-1", "title": "Fire safety", "kind": "COURSE", "description": "Exits and extinguishers." } }),
    )
    .await;
    assert_eq!(
        created,
        json!({
            "ref": "tr-1", "title": "Fire safety", "kind": "COURSE", "description": "Exits and extinguishers.",
            "isArchived": false, "grantsCertificate": false, "modules": [],
        })
    );
    let get = format!("query($ref: String!) {{ training(ref: $ref) {{ {TRAINING} }} }}");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "tr-1" })).await["training"], created);
    assert_eq!(count(&server, &token, "paginatedTrainings", "").await, trainings + 1);
    assert_eq!(count(&server, &token, "paginatedTrainings", ", ref: \"tr-1\", kind: COURSE").await, 1);

    let update = format!(
        "mutation($ref: String!, $input: UpdateTrainingInput!) {{ updateTraining(ref: $ref, input: $input) {{ {TRAINING} }} }}"
    );
    let updated = mutate(
        &server,
        &token,
        &update,
        "updateTraining",
        json!({ "ref": "tr-1", "input": { "title": "Fire safety 2", "grantsCertificate": true } }),
    )
    .await;
    assert_eq!(updated["title"], "Fire safety 2");
    assert_eq!(updated["grantsCertificate"], true);
    assert_eq!(updated["description"], "Exits and extinguishers.");
    assert_eq!(updated["kind"], "COURSE");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "tr-1" })).await["training"], updated);

    let archive = format!("mutation($ref: String!) {{ archiveTraining(ref: $ref) {{ {TRAINING} }} }}");
    let archived = mutate(&server, &token, &archive, "archiveTraining", json!({ "ref": "tr-1" })).await;
    assert_eq!(archived["isArchived"], true);
    assert_eq!(archived["title"], "Fire safety 2");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "tr-1" })).await["training"]["isArchived"], true);
    assert_eq!(count(&server, &token, "paginatedTrainings", ", ref: \"tr-1\", isArchived: true").await, 1);
    assert_eq!(count(&server, &token, "paginatedTrainings", ", ref: \"tr-1\", isArchived: false").await, 0);
    assert_eq!(count(&server, &token, "paginatedTrainings", "").await, trainings + 1);

    // No progress on an archived training.
    let progress = count(&server, &token, "paginatedProgress", "").await;
    let message = refused(
        &server,
        &token,
        RECORD_PROGRESS,
        "recordProgress",
        json!({ "user": "u00001", "training": "tr-1", "percent": 10 }),
    )
    .await;
    assert_eq!(message, "trainingRef: the training 'tr-1' is archived");
    assert_eq!(count(&server, &token, "paginatedProgress", "").await, progress);

    // Refusals.
    let cases = [
        (
            json!({ "ref": "t001", "title": "T", "kind": "COURSE" }),
            "input.ref: a training with ref 't001' already exists",
        ),
        (json!({ "ref": "tr-2", "title": " ", "kind": "LEARNING_JOURNEY" }), "input.title: must not be empty"),
    ];
    for (input, expected) in cases {
        assert_eq!(refused(&server, &token, &create, "createTraining", json!({ "input": input })).await, expected);
    }
    let empty_title =
        refused(&server, &token, &update, "updateTraining", json!({ "ref": "tr-1", "input": { "title": "" } })).await;
    assert_eq!(empty_title, "input.title: must not be empty");
    let unknown =
        refused(&server, &token, &update, "updateTraining", json!({ "ref": "tr-9", "input": { "title": "X" } })).await;
    assert_eq!(unknown, "ref: no training with ref 'tr-9'");
    assert_eq!(count(&server, &token, "paginatedTrainings", "").await, trainings + 1);
    assert_eq!(data(&server, &token, &get, json!({ "ref": "tr-1" })).await["training"], archived);
}

#[tokio::test]
async fn record_progress_completes_the_training_and_issues_a_certificate() {
    let (server, token) = admin(20).await;
    new_user(&server, &token, "p-1").await;
    let create = "mutation($input: CreateTrainingInput!) { createTraining(input: $input) { ref } }";
    for input in [
        json!({ "ref": "tc-1", "title": "Course with certificate", "kind": "COURSE", "grantsCertificate": true }),
        json!({ "ref": "tj-1", "title": "Journey without", "kind": "LEARNING_JOURNEY" }),
    ] {
        mutate(&server, &token, create, "createTraining", json!({ "input": input })).await;
    }
    let record = |training: &str, percent: i32| json!({ "user": "p-1", "training": training, "percent": percent });
    let own = ", userRef: \"p-1\"";

    let half = mutate(&server, &token, RECORD_PROGRESS, "recordProgress", record("tc-1", 50)).await;
    assert_eq!(
        half,
        json!({ "user": { "ref": "p-1" }, "training": { "ref": "tc-1" }, "status": "IN_PROGRESS", "percent": 50, "completedAt": null })
    );
    let listed = data(
        &server,
        &token,
        &format!("query($user: String!) {{ paginatedProgress(userRef: $user) {{ count edges {{ node {{ {PROGRESS} }} }} }} }}"),
        json!({ "user": "p-1" }),
    )
    .await;
    assert_eq!(listed["paginatedProgress"], json!({ "count": 1, "edges": [{ "node": half }] }));
    assert_eq!(count(&server, &token, "paginatedCertificates", own).await, 0);
    let certificates = count(&server, &token, "paginatedCertificates", "").await;

    let started = Utc::now();
    let done = mutate(&server, &token, RECORD_PROGRESS, "recordProgress", record("tc-1", 100)).await;
    assert_eq!(done["status"], "COMPLETED");
    assert_eq!(done["percent"], 100);
    let completed_at = time(&done["completedAt"]);
    assert!(completed_at >= started - chrono::Duration::seconds(1) && completed_at <= Utc::now(), "{done}");
    assert_eq!(count(&server, &token, "paginatedProgress", ", userRef: \"p-1\", status: COMPLETED").await, 1);
    assert_eq!(count(&server, &token, "paginatedProgress", ", userRef: \"p-1\", status: IN_PROGRESS").await, 0);

    // The certificate.
    let issued = data(
        &server,
        &token,
        "query($user: String!) { paginatedCertificates(userRef: $user) { count edges { node { ref user { ref } training { ref } issuedAt expiresAt } } } }",
        json!({ "user": "p-1" }),
    )
    .await;
    let connection = &issued["paginatedCertificates"];
    assert_eq!(connection["count"], 1, "{issued}");
    let certificate = &connection["edges"][0]["node"];
    assert_eq!(certificate["user"], json!({ "ref": "p-1" }));
    assert_eq!(certificate["training"], json!({ "ref": "tc-1" }));
    assert_eq!(time(&certificate["issuedAt"]), completed_at);
    assert_eq!(certificate["expiresAt"], Value::Null);
    assert!(!certificate["ref"].as_str().unwrap().is_empty());
    assert_eq!(count(&server, &token, "paginatedCertificates", "").await, certificates + 1);

    // Completing again changes nothing: the same completedAt, no second certificate.
    let again = mutate(&server, &token, RECORD_PROGRESS, "recordProgress", record("tc-1", 100)).await;
    assert_eq!(again, done);
    assert_eq!(count(&server, &token, "paginatedCertificates", own).await, 1);

    // A training without a certificate: completed, no certificate.
    let journey = mutate(&server, &token, RECORD_PROGRESS, "recordProgress", record("tj-1", 100)).await;
    assert_eq!(journey["status"], "COMPLETED");
    assert!(journey["completedAt"].is_string());
    assert_eq!(count(&server, &token, "paginatedCertificates", own).await, 1);
    assert_eq!(count(&server, &token, "paginatedProgress", own).await, 2);

    // Back to 0: not started, no completion date.
    let reset = mutate(&server, &token, RECORD_PROGRESS, "recordProgress", record("tj-1", 0)).await;
    assert_eq!(reset["status"], "NOT_STARTED");
    assert_eq!(reset["completedAt"], Value::Null);
    assert_eq!(count(&server, &token, "paginatedProgress", ", userRef: \"p-1\", status: NOT_STARTED").await, 1);
}

#[tokio::test]
async fn record_progress_refusals_name_the_argument_and_change_nothing() {
    let (server, token) = admin(20).await;
    let progress = count(&server, &token, "paginatedProgress", "").await;
    let cases = [
        (
            json!({ "user": "u00001", "training": "t001", "percent": 101 }),
            "percent: must be between 0 and 100 (got 101)",
        ),
        (json!({ "user": "u00001", "training": "t001", "percent": -1 }), "percent: must be between 0 and 100 (got -1)"),
        (json!({ "user": "nobody", "training": "t001", "percent": 10 }), "userRef: no user with ref 'nobody'"),
        (json!({ "user": "u00001", "training": "t999", "percent": 10 }), "trainingRef: no training with ref 't999'"),
    ];
    for (variables, expected) in cases {
        assert_eq!(
            refused(&server, &token, RECORD_PROGRESS, "recordProgress", variables.clone()).await,
            expected,
            "{variables}"
        );
    }
    assert_eq!(count(&server, &token, "paginatedProgress", "").await, progress);
}

// ---------------------------------------------------------------------------------------------
// Groups

#[tokio::test]
async fn groups_are_created_updated_and_deleted() {
    let (server, token) = admin(60).await;
    let groups = count(&server, &token, "paginatedGroups", "").await;
    let create = format!("mutation($input: CreateGroupInput!) {{ createGroup(input: $input) {{ {GROUP} }} }}");
    let created = mutate(
        &server,
        &token,
        &create,
        "createGroup",
        json!({ "input": { "ref": "grp-1", "name": "Zyzzyva night crew" } }),
    )
    .await;
    assert_eq!(
        created,
        json!({ "ref": "grp-1", "name": "Zyzzyva night crew", "members": { "count": 0, "edges": [] }, "managers": [] })
    );
    let get = format!("query($ref: String!) {{ group(ref: $ref) {{ {GROUP} }} }}");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "grp-1" })).await["group"], created);
    assert_eq!(count(&server, &token, "paginatedGroups", "").await, groups + 1);
    assert_eq!(count(&server, &token, "paginatedGroups", ", name: \"ZYZZYVA NIGHT\"").await, 1);

    let update = format!(
        "mutation($ref: String!, $input: UpdateGroupInput!) {{ updateGroup(ref: $ref, input: $input) {{ {GROUP} }} }}"
    );
    let updated = mutate(
        &server,
        &token,
        &update,
        "updateGroup",
        json!({ "ref": "grp-1", "input": { "name": "Zyzzyva day crew" } }),
    )
    .await;
    assert_eq!(updated["name"], "Zyzzyva day crew");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "grp-1" })).await["group"], updated);
    assert_eq!(count(&server, &token, "paginatedGroups", ", name: \"zyzzyva night\"").await, 0);

    // Refusals leave it as it is.
    let duplicate =
        refused(&server, &token, &create, "createGroup", json!({ "input": { "ref": "g0001", "name": "Copy" } })).await;
    assert_eq!(duplicate, "input.ref: a group with ref 'g0001' already exists");
    let empty =
        refused(&server, &token, &create, "createGroup", json!({ "input": { "ref": "grp-2", "name": "" } })).await;
    assert_eq!(empty, "input.name: must not be empty");
    let rename =
        refused(&server, &token, &update, "updateGroup", json!({ "ref": "grp-1", "input": { "name": " " } })).await;
    assert_eq!(rename, "input.name: must not be empty");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "grp-1" })).await["group"], updated);
    assert_eq!(count(&server, &token, "paginatedGroups", "").await, groups + 1);

    let delete = "mutation($ref: String!) { deleteGroup(ref: $ref) }";
    assert_eq!(mutate(&server, &token, delete, "deleteGroup", json!({ "ref": "grp-1" })).await, true);
    let (status, body) = post(&server, &token, &get, json!({ "ref": "grp-1" })).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"], json!({ "group": null }), "{body}");
    assert_eq!(messages(&body), vec!["No group with ref 'grp-1'; check the identifier".to_owned()]);
    assert_eq!(count(&server, &token, "paginatedGroups", "").await, groups);
    let again = refused(&server, &token, delete, "deleteGroup", json!({ "ref": "grp-1" })).await;
    assert_eq!(again, "ref: no group with ref 'grp-1'");
}

#[tokio::test]
async fn group_members_and_managers_are_added_and_removed() {
    let (server, token) = admin(20).await;
    for user in ["m-1", "m-2", "m-3"] {
        new_user(&server, &token, user).await;
    }
    mutate(
        &server,
        &token,
        "mutation($input: CreateGroupInput!) { createGroup(input: $input) { ref } }",
        "createGroup",
        json!({ "input": { "ref": "grp-m", "name": "Members" } }),
    )
    .await;
    let add = format!(
        "mutation($group: String!, $users: [String!]!, $managers: Boolean) {{ addGroupMembers(groupRef: $group, userRefs: $users, asManagers: $managers) {{ {GROUP} }} }}"
    );
    let remove = format!(
        "mutation($group: String!, $users: [String!]!) {{ removeGroupMembers(groupRef: $group, userRefs: $users) {{ {GROUP} }} }}"
    );
    let get = format!("query($ref: String!) {{ group(ref: $ref) {{ {GROUP} }} }}");
    let members = |refs: &[&str]| json!({ "count": refs.len(), "edges": refs.iter().map(|r| json!({ "node": { "ref": r } })).collect::<Vec<_>>() });
    let groups_of = async |user: &str| get_user(&server, &token, user).await["groups"].clone();

    let two =
        mutate(&server, &token, &add, "addGroupMembers", json!({ "group": "grp-m", "users": ["m-1", "m-2"] })).await;
    assert_eq!(two["members"], members(&["m-1", "m-2"]));
    assert_eq!(two["managers"], json!([]));
    assert_eq!(groups_of("m-1").await, json!([{ "ref": "grp-m" }]));
    assert_eq!(groups_of("m-3").await, json!([]));

    let three = mutate(
        &server,
        &token,
        &add,
        "addGroupMembers",
        json!({ "group": "grp-m", "users": ["m-3"], "managers": true }),
    )
    .await;
    assert_eq!(three["members"], members(&["m-1", "m-2", "m-3"]));
    assert_eq!(three["managers"], json!([{ "ref": "m-3" }]));
    assert_eq!(groups_of("m-3").await, json!([{ "ref": "grp-m" }]));
    assert_eq!(data(&server, &token, &get, json!({ "ref": "grp-m" })).await["group"], three);
    assert_eq!(count(&server, &token, "paginatedUsers", ", groupRef: \"grp-m\"").await, 3);

    // Adding a member twice changes nothing.
    let same = mutate(&server, &token, &add, "addGroupMembers", json!({ "group": "grp-m", "users": ["m-1"] })).await;
    assert_eq!(same, three);

    // An unknown user anywhere in the list: refused, naming its index; nobody is added.
    new_user(&server, &token, "m-4").await;
    let message =
        refused(&server, &token, &add, "addGroupMembers", json!({ "group": "grp-m", "users": ["m-4", "nobody"] }))
            .await;
    assert_eq!(message, "userRefs[1]: no user with ref 'nobody'");
    assert_eq!(data(&server, &token, &get, json!({ "ref": "grp-m" })).await["group"], three);
    assert_eq!(groups_of("m-4").await, json!([]));
    let unknown_group =
        refused(&server, &token, &add, "addGroupMembers", json!({ "group": "grp-x", "users": ["m-4"] })).await;
    assert_eq!(unknown_group, "groupRef: no group with ref 'grp-x'");

    let one =
        mutate(&server, &token, &remove, "removeGroupMembers", json!({ "group": "grp-m", "users": ["m-1", "m-3"] }))
            .await;
    assert_eq!(one["members"], members(&["m-2"]));
    assert_eq!(one["managers"], json!([]));
    assert_eq!(groups_of("m-1").await, json!([]));
    assert_eq!(groups_of("m-3").await, json!([]));
    assert_eq!(groups_of("m-2").await, json!([{ "ref": "grp-m" }]));
    assert_eq!(count(&server, &token, "paginatedUsers", ", groupRef: \"grp-m\"").await, 1);

    // Deleting the group removes it from its members' groups.
    mutate(
        &server,
        &token,
        "mutation($ref: String!) { deleteGroup(ref: $ref) }",
        "deleteGroup",
        json!({ "ref": "grp-m" }),
    )
    .await;
    assert_eq!(groups_of("m-2").await, json!([]));
}

// ---------------------------------------------------------------------------------------------
// Offers and enrollments

#[tokio::test]
async fn offers_and_enrollments_fill_seats_then_the_waitlist() {
    let (server, token) = admin(20).await;
    let offers = count(&server, &token, "paginatedOffers", ", moduleGroupRef: \"mg001\"").await;
    let create = format!("mutation($input: CreateOfferInput!) {{ createOffer(input: $input) {{ {OFFER} }} }}");
    let created = mutate(
        &server,
        &token,
        &create,
        "createOffer",
        json!({ "input": {
            "ref": "of-1", "moduleGroupRef": "mg001", "title": "Evening session",
            "startsAt": "2030-03-01T09:00:00Z", "endsAt": "2030-03-01T17:00:00Z", "capacity": 2,
        } }),
    )
    .await;
    assert_eq!(
        created,
        json!({
            "ref": "of-1", "title": "Evening session", "moduleGroup": { "ref": "mg001" },
            "startsAt": "2030-03-01T09:00:00+00:00", "endsAt": "2030-03-01T17:00:00+00:00",
            "location": null, "capacity": 2, "seatsTaken": 0,
        })
    );
    assert_eq!(count(&server, &token, "paginatedOffers", ", moduleGroupRef: \"mg001\"").await, offers + 1);

    for user in ["e-1", "e-2", "e-3", "e-4"] {
        new_user(&server, &token, user).await;
    }
    let enroll = async |user: &str| {
        mutate(&server, &token, ENROLL, "enrollUser", json!({ "offer": "of-1", "user": user })).await
    };
    let first = enroll("e-1").await;
    assert_eq!(first["status"], "CONFIRMED");
    assert_eq!(first["user"], json!({ "ref": "e-1" }));
    assert_eq!(first["offer"], json!({ "ref": "of-1", "seatsTaken": 1 }));
    let second = enroll("e-2").await;
    assert_eq!(second["status"], "CONFIRMED");
    assert_eq!(second["offer"]["seatsTaken"], 2);
    let third = enroll("e-3").await;
    assert_eq!(third["status"], "WAITLISTED");
    assert_eq!(third["offer"]["seatsTaken"], 2);
    assert_ne!(first["ref"], second["ref"]);

    let listed = data(
        &server,
        &token,
        &format!("query($offer: String!) {{ paginatedEnrollments(offerRef: $offer) {{ count edges {{ node {{ {ENROLLMENT} }} }} }} }}"),
        json!({ "offer": "of-1" }),
    )
    .await;
    // Listed in the order of enrollment, each seeing the offer as it is now.
    let node = |enrollment: &Value| {
        let mut node = enrollment.clone();
        node["offer"]["seatsTaken"] = json!(2);
        json!({ "node": node })
    };
    assert_eq!(
        listed["paginatedEnrollments"],
        json!({ "count": 3, "edges": [node(&first), node(&second), node(&third)] })
    );

    // Already enrolled: refused, nothing added.
    let enrollments = count(&server, &token, "paginatedEnrollments", "").await;
    let twice = refused(&server, &token, ENROLL, "enrollUser", json!({ "offer": "of-1", "user": "e-2" })).await;
    assert_eq!(twice, "userRef: the user 'e-2' is already enrolled in 'of-1'");
    assert_eq!(count(&server, &token, "paginatedEnrollments", "").await, enrollments);

    // Full: a waitlisted enrollment cannot be confirmed.
    let full = refused(
        &server,
        &token,
        SET_STATUS,
        "updateEnrollmentStatus",
        json!({ "ref": third["ref"], "status": "CONFIRMED" }),
    )
    .await;
    assert_eq!(full, "status: the offer is full (2 seats); use WAITLISTED");
    assert_eq!(count(&server, &token, "paginatedEnrollments", ", offerRef: \"of-1\", status: WAITLISTED").await, 1);

    // A cancellation frees a seat for the waitlisted one.
    let cancelled = mutate(
        &server,
        &token,
        SET_STATUS,
        "updateEnrollmentStatus",
        json!({ "ref": first["ref"], "status": "CANCELLED" }),
    )
    .await;
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["offer"]["seatsTaken"], 1);
    let moved_up = mutate(
        &server,
        &token,
        SET_STATUS,
        "updateEnrollmentStatus",
        json!({ "ref": third["ref"], "status": "CONFIRMED" }),
    )
    .await;
    assert_eq!(moved_up["status"], "CONFIRMED");
    assert_eq!(moved_up["offer"]["seatsTaken"], 2);

    // A bigger room.
    let update = format!(
        "mutation($ref: String!, $input: UpdateOfferInput!) {{ updateOffer(ref: $ref, input: $input) {{ {OFFER} }} }}"
    );
    let updated = mutate(
        &server,
        &token,
        &update,
        "updateOffer",
        json!({ "ref": "of-1", "input": { "title": "Late session", "location": "Room 4", "capacity": 3, "endsAt": "2030-03-01T18:30:00Z" } }),
    )
    .await;
    assert_eq!(
        updated,
        json!({
            "ref": "of-1", "title": "Late session", "moduleGroup": { "ref": "mg001" },
            "startsAt": "2030-03-01T09:00:00+00:00", "endsAt": "2030-03-01T18:30:00+00:00",
            "location": "Room 4", "capacity": 3, "seatsTaken": 2,
        })
    );
    let offer = data(
        &server,
        &token,
        &format!("query($mg: String!) {{ paginatedOffers(moduleGroupRef: $mg) {{ edges {{ node {{ {OFFER} }} }} }} }}"),
        json!({ "mg": "mg001" }),
    )
    .await;
    let nodes: Vec<&Value> = offer["paginatedOffers"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["node"])
        .filter(|n| n["ref"] == "of-1")
        .collect();
    assert_eq!(nodes, vec![&updated]);

    let fourth = enroll("e-4").await;
    assert_eq!(fourth["status"], "CONFIRMED");
    assert_eq!(fourth["offer"]["seatsTaken"], 3);
    assert_eq!(count(&server, &token, "paginatedEnrollments", ", offerRef: \"of-1\", status: CONFIRMED").await, 3);
    assert_eq!(count(&server, &token, "paginatedEnrollments", ", offerRef: \"of-1\", status: CANCELLED").await, 1);
    assert_eq!(count(&server, &token, "paginatedEnrollments", ", userRef: \"e-4\"").await, 1);
}

#[tokio::test]
async fn offer_refusals_name_the_field_and_change_nothing() {
    let (server, token) = admin(20).await;
    let offers = count(&server, &token, "paginatedOffers", "").await;
    let create = "mutation($input: CreateOfferInput!) { createOffer(input: $input) { ref } }";
    let input = |ref_: &str, mg: &str, starts: &str, ends: &str, capacity: i32| json!({ "input": { "ref": ref_, "moduleGroupRef": mg, "title": "T", "startsAt": starts, "endsAt": ends, "capacity": capacity } });
    let cases = [
        (
            input("of-x", "mg001", "2030-03-01T09:00:00Z", "2030-03-01T08:00:00Z", 5),
            "input.endsAt: must be after startsAt",
        ),
        (
            input("of-x", "mg001", "2030-03-01T09:00:00Z", "2030-03-01T09:00:00Z", 5),
            "input.endsAt: must be after startsAt",
        ),
        (
            input("of-x", "mg001", "2030-03-01T09:00:00Z", "2030-03-01T10:00:00Z", -1),
            "input.capacity: must be 0 or more (got -1)",
        ),
        (
            input("of-x", "mg999", "2030-03-01T09:00:00Z", "2030-03-01T10:00:00Z", 5),
            "input.moduleGroupRef: no module group with ref 'mg999'",
        ),
        (
            input("o0001", "mg001", "2030-03-01T09:00:00Z", "2030-03-01T10:00:00Z", 5),
            "input.ref: an offer with ref 'o0001' already exists",
        ),
    ];
    for (variables, expected) in cases {
        assert_eq!(refused(&server, &token, create, "createOffer", variables.clone()).await, expected, "{variables}");
    }
    assert_eq!(count(&server, &token, "paginatedOffers", "").await, offers);

    // updateOffer checks the times against the stored ones.
    mutate(
        &server,
        &token,
        create,
        "createOffer",
        input("of-2", "mg001", "2030-03-01T09:00:00Z", "2030-03-01T10:00:00Z", 5),
    )
    .await;
    let update = format!(
        "mutation($ref: String!, $input: UpdateOfferInput!) {{ updateOffer(ref: $ref, input: $input) {{ {OFFER} }} }}"
    );
    let before = format!(
        "query {{ paginatedOffers(first: 50, moduleGroupRef: \"mg001\") {{ edges {{ node {{ {OFFER} }} }} }} }}"
    );
    let snapshot = data(&server, &token, &before, json!({})).await;
    let late_start = refused(
        &server,
        &token,
        &update,
        "updateOffer",
        json!({ "ref": "of-2", "input": { "startsAt": "2030-03-01T11:00:00Z" } }),
    )
    .await;
    assert_eq!(late_start, "input.endsAt: must be after startsAt");
    let shrink =
        refused(&server, &token, &update, "updateOffer", json!({ "ref": "of-2", "input": { "capacity": -3 } })).await;
    assert_eq!(shrink, "input.capacity: must be 0 or more (got -3)");
    let unknown =
        refused(&server, &token, &update, "updateOffer", json!({ "ref": "of-9", "input": { "title": "X" } })).await;
    assert_eq!(unknown, "ref: no offer with ref 'of-9'");
    assert_eq!(data(&server, &token, &before, json!({})).await, snapshot);
}

// ---------------------------------------------------------------------------------------------
// Extra categories

#[tokio::test]
async fn extra_categories_and_the_extra_fields_of_users() {
    let (server, token) = admin(20).await;
    assert_eq!(count(&server, &token, "paginatedExtraCategories", "").await, 3);
    let department = allowed_values(&server, &token, "department").await[1].clone();
    let create = format!(
        "mutation($input: CreateExtraCategoryInput!) {{ createExtraCategory(input: $input) {{ {CATEGORY} }} }}"
    );
    let update = format!(
        "mutation($ref: String!, $input: UpdateExtraCategoryInput!) {{ updateExtraCategory(ref: $ref, input: $input) {{ {CATEGORY} }} }}"
    );
    let created = mutate(
        &server,
        &token,
        &create,
        "createExtraCategory",
        json!({ "input": { "ref": "shift", "name": "Shift", "allowedValues": ["early", "late"] } }),
    )
    .await;
    assert_eq!(created, json!({ "ref": "shift", "name": "Shift", "allowedValues": ["early", "late"] }));
    let list = format!("{{ paginatedExtraCategories {{ count edges {{ node {{ {CATEGORY} }} }} }} }}");
    let listed = data(&server, &token, &list, json!({})).await;
    assert_eq!(listed["paginatedExtraCategories"]["count"], 4);
    assert_eq!(listed["paginatedExtraCategories"]["edges"][3]["node"], created);

    let updated = mutate(
        &server,
        &token,
        &update,
        "updateExtraCategory",
        json!({ "ref": "shift", "input": { "name": "Work shift", "allowedValues": ["early", "late", "night"] } }),
    )
    .await;
    assert_eq!(updated, json!({ "ref": "shift", "name": "Work shift", "allowedValues": ["early", "late", "night"] }));
    assert_eq!(data(&server, &token, &list, json!({})).await["paginatedExtraCategories"]["edges"][3]["node"], updated);

    // Free text when no values are listed.
    let free = mutate(
        &server,
        &token,
        &create,
        "createExtraCategory",
        json!({ "input": { "ref": "badge", "name": "Badge" } }),
    )
    .await;
    assert_eq!(free, json!({ "ref": "badge", "name": "Badge", "allowedValues": [] }));

    // Users carry the values, in the categories' order.
    let user = create_user(
        &server,
        &token,
        json!({
            "ref": "x-1", "name": "Extra", "email": "extra@example.net",
            "extraFields": [
                { "categoryRef": "badge", "value": "B-7, \"gold\"" },
                { "categoryRef": "shift", "value": "night" },
                { "categoryRef": "department", "value": department },
            ],
        }),
    )
    .await;
    let expected = json!([
        { "category": { "ref": "department" }, "value": department },
        { "category": { "ref": "shift" }, "value": "night" },
        { "category": { "ref": "badge" }, "value": "B-7, \"gold\"" },
    ]);
    assert_eq!(user["extraFields"], expected);
    assert_eq!(get_user(&server, &token, "x-1").await["extraFields"], expected);
    let changed = mutate(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({ "ref": "x-1", "input": { "extraFields": [{ "categoryRef": "shift", "value": "early" }] } }),
    )
    .await;
    let expected = json!([
        { "category": { "ref": "department" }, "value": department },
        { "category": { "ref": "shift" }, "value": "early" },
        { "category": { "ref": "badge" }, "value": "B-7, \"gold\"" },
    ]);
    assert_eq!(changed["extraFields"], expected);
    assert_eq!(get_user(&server, &token, "x-1").await["extraFields"], expected);
    // The category's new name shows through the user.
    let names = data(
        &server,
        &token,
        "query($ref: String!) { user(ref: $ref) { extraFields { category { name } } } }",
        json!({ "ref": "x-1" }),
    )
    .await;
    assert_eq!(names["user"]["extraFields"][1]["category"]["name"], "Work shift");

    // Refusals.
    let not_allowed = refused(
        &server,
        &token,
        &update_user_query(),
        "updateUser",
        json!({ "ref": "x-1", "input": { "extraFields": [{ "categoryRef": "shift", "value": "weekend" }] } }),
    )
    .await;
    assert_eq!(
        not_allowed,
        "input.extraFields[0].value: 'weekend' is not allowed for 'shift'; allowed: early, late, night"
    );
    assert_eq!(get_user(&server, &token, "x-1").await["extraFields"], expected);
    let cases = [
        (json!({ "ref": "shift", "name": "Again" }), "input.ref: an extra category with ref 'shift' already exists"),
        (json!({ "ref": "c-2", "name": "" }), "input.name: must not be empty"),
        (
            json!({ "ref": "c-2", "name": "Twice", "allowedValues": ["a", "b", "a"] }),
            "input.allowedValues[2]: 'a' is listed twice",
        ),
        (
            json!({ "ref": "c-2", "name": "Blank", "allowedValues": ["a", " "] }),
            "input.allowedValues[1]: must not be empty",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            refused(&server, &token, &create, "createExtraCategory", json!({ "input": input })).await,
            expected,
            "{input}"
        );
    }
    let unknown =
        refused(&server, &token, &update, "updateExtraCategory", json!({ "ref": "nope", "input": { "name": "X" } }))
            .await;
    assert_eq!(unknown, "ref: no extra category with ref 'nope'");
    let listed = data(&server, &token, &list, json!({})).await;
    assert_eq!(listed["paginatedExtraCategories"]["count"], 5);
    assert_eq!(listed["paginatedExtraCategories"]["edges"][3]["node"], updated);
}

// ---------------------------------------------------------------------------------------------
// Scopes

#[tokio::test]
async fn a_reader_token_cannot_mutate() {
    let server = sandbox(20).await;
    let (status, body) = token_response(&server, "sandbox-reader", SECRET, "users.read").await;
    assert_eq!(status, 200, "{body}");
    let reader = body["access_token"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &server,
        &reader,
        "mutation($input: CreateUserInput!) { createUser(input: $input) { ref } }",
        json!({ "input": { "ref": "r-1", "name": "R", "email": "r@example.net" } }),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(messages(&body), vec!["Insufficient scope: this operation requires 'users.write'".to_owned()]);
    assert_eq!(count(&server, &reader, "paginatedUsers", "").await, 20);
    let (_, body) =
        post(&server, &reader, "query($ref: String!) { user(ref: $ref) { ref } }", json!({ "ref": "r-1" })).await;
    assert_eq!(body["data"], json!({ "user": null }));
}

#[tokio::test]
async fn progress_is_kept_per_user_and_training_whatever_their_refs_hold() {
    // Refs are the caller's own identifiers and may hold a slash: ("a/b", "c") and ("a", "b/c")
    // are two different pairs.
    let (server, token) = admin(20).await;
    for user in ["a", "a/b", "a%2Fb"] {
        new_user(&server, &token, user).await;
    }
    let create = "mutation($input: CreateTrainingInput!) { createTraining(input: $input) { ref } }";
    for training in ["c", "b/c"] {
        mutate(
            &server,
            &token,
            create,
            "createTraining",
            json!({ "input": { "ref": training, "title": "T", "kind": "COURSE" } }),
        )
        .await;
    }
    let first = mutate(
        &server,
        &token,
        RECORD_PROGRESS,
        "recordProgress",
        json!({ "user": "a/b", "training": "c", "percent": 50 }),
    )
    .await;
    assert_eq!(first["user"], json!({ "ref": "a/b" }));
    let second = mutate(
        &server,
        &token,
        RECORD_PROGRESS,
        "recordProgress",
        json!({ "user": "a", "training": "b/c", "percent": 20 }),
    )
    .await;
    assert_eq!(
        second,
        json!({ "user": { "ref": "a" }, "training": { "ref": "b/c" }, "status": "IN_PROGRESS", "percent": 20, "completedAt": null })
    );
    let of = async |user: &str| {
        data(
            &server,
            &token,
            &format!("query($user: String!) {{ paginatedProgress(userRef: $user) {{ count edges {{ node {{ {PROGRESS} }} }} }} }}"),
            json!({ "user": user }),
        )
        .await["paginatedProgress"]
            .clone()
    };
    let third = mutate(
        &server,
        &token,
        RECORD_PROGRESS,
        "recordProgress",
        json!({ "user": "a%2Fb", "training": "c", "percent": 70 }),
    )
    .await;
    assert_eq!(third["user"], json!({ "ref": "a%2Fb" }));
    assert_eq!(third["percent"], 70);
    assert_eq!(of("a/b").await, json!({ "count": 1, "edges": [{ "node": first }] }));
    assert_eq!(of("a").await, json!({ "count": 1, "edges": [{ "node": second }] }));
    assert_eq!(of("a%2Fb").await, json!({ "count": 1, "edges": [{ "node": third }] }));
}
