//! The Import… window (issue 22), driven as an HR person would with egui_kittest on the real app,
//! its in-process sandbox and its own database: a semicolon CSV with a changed name, a bad
//! e-mail, a new person, a leaver and a column nobody maps is planned; a column's use is changed
//! and the plan follows; the invalid row is explained; the plan is rehearsed, applied after a
//! question, and the undo file written beside the file takes it all back.

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use serde_json::{Value, json};

use crate::harness::{Session, admin_token, graphql, name_of};

const USER: &str = "query($ref: String!) { user(ref: $ref) { ref name email isActive } }";

/// The user with `user_ref` as the app's sandbox has them (null when there is none).
fn service_user(s: &mut Session, user_ref: &str) -> Value {
    let url = s.sandbox_url();
    s.runtime.block_on(async {
        let token = admin_token(&url, "users.read").await;
        let body = graphql(&url, &token, USER, json!({ "ref": user_ref })).await;
        body["data"]["user"].clone()
    })
}

fn text(value: &Value) -> String {
    value.as_str().expect("a text").to_owned()
}

/// Plans the file at `path` from the Import window and waits for its counts.
fn plan(s: &mut Session, path: &std::path::Path, counts: &str) {
    s.type_into("File", path.to_str().expect("a UTF-8 path"));
    s.click("Plan");
    s.wait_for("the plan", |h| !h.state().import_busy());
    s.wait_for_label(counts);
}

/// Chooses in the mapping what `column` is used as.
fn use_column_as(s: &mut Session, column: &str, used_as: &str) {
    s.harness.get_by_role_and_label(Role::ComboBox, column).click();
    let option = used_as.to_owned();
    // An item of the open list, not another combo's value (a selected option, child of its combo).
    let is_choice = move |n: &egui_kittest::kittest::AccessKitNode<'_>| {
        let value_of_combo = n.parent().is_some_and(|p| p.role() == Role::ComboBox);
        n.label().as_deref() == Some(option.as_str())
            && !matches!(n.role(), Role::ComboBox | Role::Label)
            && !value_of_combo
    };
    let wanted = is_choice.clone();
    s.wait_for(&format!("the choice '{used_as}'"), move |h| h.query_all_by(&wanted).next().is_some());
    s.harness.query_all_by(&is_choice).next().expect("the choice").click();
    s.harness.step();
}

#[test]
fn a_spreadsheet_is_planned_mapped_rehearsed_applied_and_undone_from_the_window() {
    let mut s = Session::start();
    let renamed = service_user(&mut s, "u00001");
    let unchanged = service_user(&mut s, "u00003");
    let leaver = service_user(&mut s, "u00004");
    let mover = service_user(&mut s, "u00005");
    let taken = text(&service_user(&mut s, "u00006")["email"]);
    assert_eq!(leaver["isActive"], true, "the leaver is active before: {leaver}");
    let file = s.path("hr.csv");
    let rows: Vec<Vec<String>> = vec![
        ["ref", "Full name", "E-mail", "Active", "Notes"].map(str::to_owned).to_vec(),
        vec![
            "u00001".into(),
            format!("{} Junior", text(&renamed["name"])),
            text(&renamed["email"]),
            "yes".into(),
            "renamed".into(),
        ],
        ["u00002", "Bad Address", "not-an-address", "yes", "typo"].map(str::to_owned).to_vec(),
        vec!["u00003".into(), text(&unchanged["name"]), text(&unchanged["email"]), "yes".into(), String::new()],
        vec!["u00004".into(), text(&leaver["name"]), text(&leaver["email"]), "no".into(), "left in May".into()],
        // The service refuses it: another user has that address.
        vec!["u00005".into(), text(&mover["name"]), taken.clone(), "yes".into(), "moved".into()],
        ["n00001", "Nia Newcomer", "nia.newcomer@example.com", "yes", "joins in June"].map(str::to_owned).to_vec(),
    ];
    // As a spreadsheet program saves it in a semicolon locale: quoted where a cell needs it.
    let mut writer =
        csv::WriterBuilder::new().delimiter(b';').terminator(csv::Terminator::CRLF).from_path(&file).expect("the file");
    for row in &rows {
        writer.write_record(row).expect("a row");
    }
    writer.flush().expect("the file is written");
    drop(writer);

    s.click("Import…");
    s.wait_for_label("File");
    plan(&mut s, &file, "1 to create");
    for label in ["2 to update", "1 to archive", "1 unchanged", "1 invalid"] {
        assert!(s.harness.query_by_label(label).is_some(), "'{label}' among the counts:\n{}", s.screen());
    }
    assert!(s.text_containing("read as CSV").is_some(), "how the file was read:\n{}", s.screen());
    s.wait_for_text("Not mapped, so not imported: Notes.");

    // A column's use changed by the person: the plan follows (no name, so u00001 is unchanged).
    use_column_as(&mut s, "Full name", "Not mapped");
    s.wait_for("the plan again", |h| !h.state().import_busy());
    s.wait_for_label("1 to update");
    assert!(s.harness.query_by_label("2 unchanged").is_some(), "u00001 is unchanged without names:\n{}", s.screen());
    s.wait_for_text("Not mapped, so not imported: Full name, Notes.");
    use_column_as(&mut s, "Full name", "name");
    s.wait_for("the plan again", |h| !h.state().import_busy());
    s.wait_for_label("2 to update");

    // The invalid row, alone in the grid, with its reason.
    s.click("1 invalid");
    let reason = s.wait_for_text("u00002").to_owned();
    assert!(reason.contains("u00002"), "{reason}");
    assert!(
        s.text_containing("e-mail").or_else(|| s.text_containing("email")).is_some(),
        "the reason names the address:\n{}",
        s.screen()
    );
    s.click("All (6)");

    s.click("Rehearse");
    s.wait_for("the rehearsal", |h| !h.state().import_busy());
    s.wait_for_text("Rehearsed on a sandbox: 4 rows applied, 0 refused");
    assert_eq!(service_user(&mut s, "n00001"), Value::Null, "a rehearsal sends nothing to the service");

    s.click("Apply…");
    s.wait_for_text("Apply 4 changes to Sandbox: 1 to create, 2 to update, 1 to archive?");
    // The question names the row that will be skipped.
    s.wait_for_label("Row 3 (u00002) is invalid and will be skipped.");
    s.click("Apply now");
    s.wait_for("the apply", |h| !h.state().import_busy());
    s.wait_for_text("Applied 3 rows; 1 failed, 0 conflicts, 1 invalid.");
    s.wait_for_label("Skipped as invalid: row 3 (u00002).");
    // The refusal in the service's own words, with the row a spreadsheet shows it on.
    let refusal = s.wait_for_text("Row 6 (u00005)");
    assert!(refusal.contains("input.email") && refusal.contains("already exists"), "{refusal}");

    // Every row's outcome in the grid, the counts per outcome as filters of it.
    for label in ["All outcomes (6)", "3 applied", "1 failed", "1 skipped as invalid", "1 left unchanged"] {
        assert!(s.harness.query_by_label(label).is_some(), "'{label}' among the outcomes:\n{}", s.screen());
    }
    assert!(s.harness.query_by_label("0 conflicts").is_none(), "no conflict, no filter of it:\n{}", s.screen());
    // The columns folded away (the ref column's example is a key too): only the grid shows keys.
    s.click("Columns");
    let grid_keys = |s: &Session| -> Vec<String> {
        ["u00001", "u00002", "u00003", "u00004", "u00005", "n00001"]
            .into_iter()
            .filter(|k| s.harness.query_by_label(k).is_some())
            .map(str::to_owned)
            .collect()
    };
    s.click("1 failed");
    assert_eq!(grid_keys(&s), ["u00005"], "the failed row alone:\n{}", s.screen());
    let failed = s
        .harness
        .query_all_by_label_contains("already exists")
        .map(|n| crate::harness::name_of(&n))
        .find(|t| t.starts_with("failed"));
    assert!(failed.is_some_and(|f| f.contains("input.email")), "the outcome in the service's words:\n{}", s.screen());
    assert!(s.harness.query_by_label("Retry u00005").is_some(), "a failed row's own retry:\n{}", s.screen());
    s.click("1 skipped as invalid");
    assert_eq!(grid_keys(&s), ["u00002"], "the invalid row alone:\n{}", s.screen());
    assert!(s.harness.query_by_label("skipped as invalid").is_some(), "its outcome:\n{}", s.screen());
    s.click("3 applied");
    assert_eq!(grid_keys(&s), ["u00001", "u00004", "n00001"], "the applied rows:\n{}", s.screen());
    s.click("1 left unchanged");
    assert_eq!(grid_keys(&s), ["u00003"], "{}", s.screen());
    s.click("All outcomes (6)");
    assert_eq!(grid_keys(&s).len(), 6, "{}", s.screen());
    let after = service_user(&mut s, "u00001");
    assert_eq!(after["name"], format!("{} Junior", text(&renamed["name"])), "{after}");
    assert_eq!(service_user(&mut s, "u00004")["isActive"], false);
    let created = service_user(&mut s, "n00001");
    assert_eq!(created["email"], "nia.newcomer@example.com", "{created}");
    let mut results = csv::Reader::from_path(s.path("hr.results.csv")).expect("the results file beside the file");
    let outcomes: Vec<(String, String)> =
        results.records().map(|r| r.expect("a row")).map(|r| (r[0].to_owned(), r[5].to_owned())).collect();
    let expected = [
        ("u00001", "updated"),
        ("u00002", "invalid"),
        ("u00003", "unchanged"),
        ("u00004", "archived"),
        ("u00005", "failed"),
        ("n00001", "created"),
    ];
    assert_eq!(outcomes, expected.map(|(k, o)| (k.to_owned(), o.to_owned())), "every input row in its place");
    let undo = s.path("hr.undo.csv");
    assert!(undo.is_file(), "the undo file beside the file");
    s.wait_for_text(&format!("To take it back, import {}", undo.display()));

    // Only the rows that were not applied (refused, or invalid), planned again as after fixing
    // the file.
    s.click("Only the rows that failed last time");
    s.click("Plan");
    s.wait_for("the failed rows' plan", |h| !h.state().import_busy());
    s.wait_for_label("All (2)");
    assert!(s.harness.query_by_label("1 to update").is_some() && s.harness.query_by_label("1 invalid").is_some());
    s.click("Only the rows that failed last time");

    // The undo file, imported in the same window, takes it all back.
    plan(&mut s, &undo, "1 to archive");
    s.click("Apply…");
    s.click("Apply now");
    s.wait_for("the undo", |h| !h.state().import_busy());
    s.wait_for_text("0 failed, 0 conflicts, 0 invalid.");
    assert_eq!(service_user(&mut s, "u00001")["name"], renamed["name"]);
    assert_eq!(service_user(&mut s, "u00004")["isActive"], true);
    assert_eq!(service_user(&mut s, "n00001")["isActive"], false, "the created user is archived");

    // The rows that did not land, applied again from the window (issue 46): one import with the
    // first apply, counted whole — the address is still taken, the invalid row skipped by choice.
    s.click("Only the rows that failed last time");
    plan(&mut s, &file, "1 invalid");
    s.click("Apply…");
    s.click("Apply now");
    s.wait_for("the rows applied again", |h| !h.state().import_busy());
    s.wait_for_text("Applied 0 rows; 1 failed, 0 conflicts, 1 invalid.");
    s.wait_for_text(
        "The whole import: applied 3 rows; 1 failed, 0 conflicts, 1 invalid (skipped by choice); not every row landed.",
    );
}

/// A user's department and location as the app's sandbox has them (its extra fields).
fn extra_fields_of(s: &mut Session, user_ref: &str) -> (String, String) {
    let url = s.sandbox_url();
    let query = "query($ref: String!) { user(ref: $ref) { extraFields { category { ref } value } } }";
    let user = s.runtime.block_on(async {
        let token = admin_token(&url, "users.read").await;
        graphql(&url, &token, query, json!({ "ref": user_ref })).await["data"]["user"].clone()
    });
    let of = |category: &str| {
        let fields = user["extraFields"].as_array().expect("extra fields");
        let field = fields.iter().find(|f| f["category"]["ref"] == category).expect("the category");
        text(&field["value"])
    };
    (of("department"), of("location"))
}

/// HR's Department column in the window: used as the users' extra field `department` (found by
/// the shape of the sandbox's `extraFields` and its categories), a change shown old → new, a
/// value the category does not allow explained, and applied without touching the location.
#[test]
fn a_department_column_sets_the_extra_field_from_the_window() {
    let mut s = Session::start();
    let (department, location) = extra_fields_of(&mut s, "u00001");
    let moved = if department == "HR" { "Finance" } else { "HR" };
    let file = s.path("departments.csv");
    std::fs::write(&file, format!("ref,Department\nu00001,{moved}\nu00002,Nowhere\n")).expect("written");
    s.click("Import…");
    s.wait_for_label("File");
    plan(&mut s, &file, "1 to update");
    assert!(s.harness.query_by_label("1 invalid").is_some(), "the unknown department:\n{}", s.screen());
    assert!(s.text_containing("Not mapped, so not imported").is_none(), "every column is used:\n{}", s.screen());
    s.wait_for_text(&format!("extraFields.department: {department} → {moved}"));
    s.wait_for_text("'Nowhere' is not one of");

    s.click("Apply…");
    s.wait_for_text("to Sandbox: 1 to update?");
    s.click("Apply now");
    s.wait_for("the apply", |h| !h.state().import_busy());
    assert_eq!(extra_fields_of(&mut s, "u00001"), (moved.to_owned(), location));
}

/// A failed row's own Retry (issue 41): a rename applies, an address another user holds is
/// refused; once that user's address changes on the service, **Retry u00002** sends the row
/// again and the summary and the outcomes say every row applied.
#[test]
fn a_failed_row_is_retried_from_its_outcome() {
    let mut s = Session::start();
    let renamed = service_user(&mut s, "u00001");
    let taken = text(&service_user(&mut s, "u00003")["email"]);
    let file = s.path("retry.csv");
    let name = format!("{} Junior", text(&renamed["name"]));
    let mut writer = csv::Writer::from_path(&file).expect("the file");
    for row in [["ref", "name", "email"], ["u00001", &name, ""], ["u00002", "", &taken]] {
        writer.write_record(row).expect("a row");
    }
    writer.flush().expect("the file is written");
    drop(writer);
    s.click("Import…");
    s.wait_for_label("File");
    plan(&mut s, &file, "2 to update");
    s.click("Apply…");
    s.wait_for_text("Apply 2 changes to Sandbox: 2 to update?");
    assert!(s.text_containing("will be skipped").is_none(), "no invalid row to name:\n{}", s.screen());
    s.click("Apply now");
    s.wait_for("the apply", |h| !h.state().import_busy());
    s.wait_for_text("Applied 1 row; 1 failed, 0 conflicts, 0 invalid.");
    assert!(s.harness.query_by_label("1 applied").is_some(), "{}", s.screen());

    // The address is freed on the service; the row is sent again on its own.
    let url = s.sandbox_url();
    s.runtime.block_on(async {
        let token = admin_token(&url, "users.write").await;
        let update =
            "mutation($ref: String!, $input: UpdateUserInput!) { updateUser(ref: $ref, input: $input) { ref } }";
        let input = json!({ "email": "moved.elsewhere@example.com" });
        graphql(&url, &token, update, json!({ "ref": "u00003", "input": input })).await;
    });
    s.click("Retry u00002");
    s.wait_for("the retry", |h| !h.state().import_busy());
    let summary = s.wait_for_text("Applied 2 rows; 0 failed, 0 conflicts, 0 invalid.");
    // The focus lands on the row retried, read with its outcome; the summary is read out.
    s.wait_for("the focus on the retried row", |h| {
        h.root()
            .children_recursive()
            .any(|n| n.accesskit_node().is_focused() && name_of(&n) == "Row 3 (u00002): applied")
    });
    assert_eq!(s.harness.get_by_label(&summary).accesskit_node().live(), egui::accesskit::Live::Polite);
    assert!(s.harness.query_by_label("2 applied").is_some(), "{}", s.screen());
    assert_eq!(text(&service_user(&mut s, "u00002")["email"]), taken);
    assert_eq!(text(&service_user(&mut s, "u00001")["name"]), name, "the applied row is not sent twice");
    let results = std::fs::read_to_string(s.path("retry.results.csv")).expect("the results file");
    assert_eq!(results.lines().filter(|l| l.contains(",updated,")).count(), 2, "{results}");
}
