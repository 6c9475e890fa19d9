//! Results → Chart, Webhooks → Timeline and the import plan's bar (issue 32), driven as a person
//! would with egui_kittest on the real app and its in-process sandbox: what the bars and their
//! text table say is compared with counts the test makes itself from the rows the grid holds
//! (or the deliveries stored); a click on a bar, a drag across the timeline and a click on a part
//! of the plan's bar narrow their lists.

use chrono::{TimeZone, Utc};
use egui::accesskit::Role;
use egui::{Modifiers, OutputCommand, PointerButton, Pos2};
use egui_kittest::kittest::{AccessKitNode, NodeT, Queryable};
use std::collections::HashMap;

use crate::harness::{Session, admin_token, graphql};

/// Users of the sandbox of these tests (ten pages).
const USERS: usize = 500;

const USERS_QUERY: &str =
    "query Users { paginatedUsers(first: 50) { count edges { node { ref isActive groups { name } createdAt } } } }";

const PROGRESS_QUERY: &str =
    "query Progress { paginatedProgress(first: 50) { count edges { node { status percent } } } }";

fn start() -> Session {
    Session::start_with_users(Session::runtime(), tempfile::tempdir().expect("a temporary directory"), None, USERS)
}

/// Runs `query` and fetches every page into the grid.
fn fetch_all(s: &mut Session, query: &str, rows: usize) {
    s.type_into("Query", query);
    s.run_query();
    s.click("Fetch all pages");
    s.wait_until_idle();
    let held = s.app().active_tab().grid.as_ref().map_or(0, |g| g.rows.len());
    assert_eq!(held, rows, "every row fetched:\n{}", s.screen());
}

/// The cells of column `name` of the grid, in the rows' order.
fn column(s: &Session, name: &str) -> Vec<String> {
    let grid = s.app().active_tab().grid.as_ref().expect("a grid");
    let at = grid.columns.iter().position(|c| c == name).unwrap_or_else(|| panic!("a column {name}"));
    grid.rows.iter().map(|row| row.cell(at).unwrap_or_default().to_owned()).collect()
}

/// Chooses `option` in the choice named `label`, as a person does: open it, click the option.
fn choose(s: &mut Session, label: &str, option: &str) {
    s.harness.get_by_role_and_label(Role::ComboBox, label).click();
    s.harness.step();
    let wanted = option.to_owned();
    // Not a closed combo's value (a selected option, child of its combo): an item of the list.
    let is_option = move |n: &AccessKitNode<'_>| {
        let value_of_combo = n.parent().is_some_and(|p| p.role() == Role::ComboBox);
        n.label().as_deref() == Some(wanted.as_str())
            && !matches!(n.role(), Role::ComboBox | Role::Label)
            && !value_of_combo
    };
    let find = is_option.clone();
    s.wait_for(&format!("the option '{option}' of {label}"), move |h| h.query_all_by(&find).next().is_some());
    s.harness.query_all_by(&is_option).next().expect("the option").click();
    s.harness.step();
    s.harness.step();
}

/// Waits until the chart's count of the current choice is in.
fn wait_for_tally(s: &mut Session, title: &str) {
    let title = title.to_owned();
    s.wait_for_or(
        &format!("the chart '{title}'"),
        move |h| {
            let chart = &h.state().results().chart;
            !chart.busy() && chart.tally().is_some_and(|t| t.title() == title)
        },
        |h| format!("{:?}", h.state().results().chart.tally().map(|t| t.title())),
    );
}

/// (value, count) of the chart shown.
fn bars(s: &Session) -> Vec<(String, u64)> {
    let tally = s.app().results().chart.tally().expect("a chart");
    tally.groups.iter().map(|g| (g.value.clone(), g.count)).collect()
}

/// Counts `values` as the chart should: most first, then by value.
fn counted<'v>(values: impl IntoIterator<Item = &'v str>) -> Vec<(String, u64)> {
    let mut counts: HashMap<String, u64> = HashMap::new();
    for value in values {
        *counts.entry(if value.is_empty() { "(empty)".to_owned() } else { value.to_owned() }).or_default() += 1;
    }
    let mut counts: Vec<(String, u64)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

/// Whether a widget named `label` is on screen.
fn on_screen(s: &Session, label: &str) -> bool {
    s.harness.query_all_by_label(label).next().is_some()
}

/// Clicks the left button at `at`, as a mouse does.
fn click_at(s: &mut Session, at: Pos2) {
    s.harness.hover_at(at);
    s.harness.step();
    for pressed in [true, false] {
        s.harness.event(egui::Event::PointerButton {
            pos: at,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        s.harness.step();
    }
    s.harness.step();
}

/// The text the app last put on the clipboard, after clicking `label`.
fn copied_by(s: &mut Session, label: &str) -> String {
    s.harness.get_by_label(label).click();
    for _ in 0..4 {
        s.harness.step();
        let copied = s.harness.output().platform_output.commands.iter().find_map(|c| match c {
            OutputCommand::CopyText(text) => Some(text.clone()),
            _ => None,
        });
        if let Some(text) = copied {
            return text;
        }
    }
    panic!("'{label}' copied nothing");
}

#[test]
fn count_by_a_column_of_500_users_matches_the_rows_and_a_bar_shows_its_rows_in_the_grid() {
    let mut s = start();
    fetch_all(&mut s, USERS_QUERY, USERS);
    s.click("Chart");
    choose(&mut s, "Count by", "isActive");
    wait_for_tally(&mut s, "Count by isActive");
    let active = column(&s, "isActive");
    let expected = counted(active.iter().map(String::as_str));
    assert_eq!(bars(&s), expected);
    assert_eq!(expected.iter().map(|(_, n)| n).sum::<u64>(), USERS as u64);

    // The text table beside the bars: each value and its count, readable on screen.
    s.harness.run_steps(2);
    for (value, count) in &expected {
        assert!(on_screen(&s, value), "'{value}' in the table:\n{}", s.screen());
        assert!(on_screen(&s, &count.to_string()), "{count} in the table:\n{}", s.screen());
    }
    // Copy gives the table as TSV.
    let mut tsv = "isActive\tcount\tshare\n".to_owned();
    for (value, count) in &expected {
        tsv.push_str(&format!("{value}\t{count}\t{:.1}%\n", *count as f64 * 100.0 / USERS as f64));
    }
    assert_eq!(copied_by(&mut s, "Copy"), tsv);

    // A click on the first bar: the grid shows exactly its rows.
    let (value, count) = expected[0].clone();
    let bar = s.app().results().chart.bar_position(0).expect("the first bar on screen");
    click_at(&mut s, bar);
    let shown = s.wait_for_text("Showing the ");
    assert_eq!(shown, format!("Showing the {count} rows where isActive is {value}"));
    assert_eq!(s.app().active_tab().view, orgql::ui::View::Grid);
    assert_eq!(s.app().results().bar_rows(), Some((format!("isActive is {value}").as_str(), count as usize)));
    let refs = column(&s, "ref");
    let visible: Vec<&String> = refs.iter().filter(|r| on_screen(&s, r)).collect();
    assert!(!visible.is_empty(), "rows on screen:\n{}", s.screen());
    for user in visible {
        let at = refs.iter().position(|r| r == user).expect("a row");
        assert_eq!(active[at], value, "{user} on screen is one of the bar's rows");
    }
    s.click("Show all rows");
    assert!(s.app().results().bar_rows().is_none());

    // A list cell counts each of its values; a date column counts per month.
    s.click("Chart");
    choose(&mut s, "Count by", "groups.name");
    wait_for_tally(&mut s, "Count by groups.name");
    let groups = column(&s, "groups.name");
    let expected =
        counted(groups.iter().flat_map(|cell| if cell.is_empty() { vec![""] } else { cell.split("; ").collect() }));
    assert!(expected.len() > 1, "users are in several groups: {expected:?}");
    assert_eq!(bars(&s), expected);
    choose(&mut s, "Count by", "createdAt");
    wait_for_tally(&mut s, "Count by createdAt (per day)");
    choose(&mut s, "Period", "Per month");
    wait_for_tally(&mut s, "Count by createdAt (per month)");
    let created = column(&s, "createdAt");
    let mut months = counted(created.iter().map(|c| &c[..7]));
    months.sort();
    assert_eq!(bars(&s), months, "months in time order");

    // Saved as SVG through the worker: a bar per month.
    let svg = s.path("users.svg");
    s.type_into("Save as", svg.to_str().expect("a UTF-8 path"));
    s.click("Save SVG");
    s.wait_for_text("Saved to ");
    let document = std::fs::read_to_string(&svg).expect("the SVG");
    assert_eq!(document.matches("<rect").count(), months.len() + 1, "a background and a bar a month");
    assert!(document.contains("Count by createdAt (per month)"));

    // Save PNG waits for the window's picture with a later frame; this harness never gives one
    // (a renderer that does not answer): after a while it says so rather than spin for ever.
    s.click("Save PNG");
    s.wait_for_text("The window did not give its picture for the PNG");
    assert!(!s.path("users.png").exists(), "nothing written");
}

#[test]
fn sum_and_average_of_a_numeric_column_by_another() {
    let mut s = start();
    s.type_into("Query", PROGRESS_QUERY);
    s.run_query();
    let total = s.app().active_tab().grid.as_ref().and_then(|g| g.total).expect("a count") as usize;
    s.click("Fetch all pages");
    s.wait_until_idle();
    assert_eq!(column(&s, "status").len(), total);
    s.click("Chart");
    // More pages would be counted only after Fetch all pages; here every row is in.
    assert!(s.text_containing("Fetch all pages to count").is_none());
    choose(&mut s, "Count by", "status");
    choose(&mut s, "Measure", "Sum");
    choose(&mut s, "of", "percent");
    wait_for_tally(&mut s, "Sum of percent by status");
    let (status, percent) = (column(&s, "status"), column(&s, "percent"));
    let mut sums: HashMap<&str, (f64, u64)> = HashMap::new();
    for (status, percent) in status.iter().zip(&percent) {
        let entry = sums.entry(status).or_default();
        entry.0 += percent.parse::<f64>().expect("a number");
        entry.1 += 1;
    }
    let tally = s.app().results().chart.tally().expect("a chart").clone();
    assert_eq!(tally.groups.len(), sums.len());
    for group in &tally.groups {
        assert_eq!(group.amount, sums[group.value.as_str()].0, "the sum of {}", group.value);
    }
    choose(&mut s, "Measure", "Average");
    wait_for_tally(&mut s, "Average of percent by status");
    let tally = s.app().results().chart.tally().expect("a chart").clone();
    for group in &tally.groups {
        let (sum, n) = sums[group.value.as_str()];
        assert!((group.amount - sum / n as f64).abs() < 1e-9, "the average of {}", group.value);
        let shown = orgql::chart::number(group.amount);
        assert!(on_screen(&s, &shown), "{shown} in the table:\n{}", s.screen());
    }
    // A column of text cannot be summed: one sentence, no chart drawn from it.
    choose(&mut s, "of", "status");
    s.wait_for_text("holds no numbers");
}

#[test]
fn a_page_of_rows_says_more_pages_exist_and_offers_to_fetch_them() {
    let mut s = start();
    s.type_into("Query", USERS_QUERY);
    s.run_query();
    s.click("Chart");
    s.wait_for_text("These bars count the 50 rows fetched of 500; Fetch all pages to count every row.");
    s.click("Fetch all pages");
    s.wait_until_idle();
    s.wait_for("the chart of every row", |h| h.state().results().chart.tally().is_some_and(|t| t.rows == USERS));
    assert!(s.text_containing("Fetch all pages to count").is_none(), "{}", s.screen());
}

/// 10,000 deliveries stored over 100 minutes, a quarter of them failing their signature.
fn stored_deliveries(dir: &std::path::Path) -> Vec<(i64, i64)> {
    let store = orgql::store::Store::open(&dir.join("history.sqlite3")).expect("the database");
    let start = Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap();
    let kinds = ["user.created", "user.updated", "enrollment.changed"];
    let mut kept = Vec::new();
    for i in 0..10_000i64 {
        let received_at = start + chrono::Duration::milliseconds(i * 600);
        let kind = kinds[(i % 3) as usize];
        let body = format!("{{\"type\":\"{kind}\",\"n\":{i}}}").into_bytes();
        let delivery = orgql::store::NewDelivery {
            received_at,
            method: "POST".into(),
            path: "/hook".into(),
            query: String::new(),
            headers: Vec::new(),
            size: body.len() as u64,
            body,
            verified: Some(i % 4 != 0),
            reason: String::new(),
            sender: None,
        };
        let id = store.add_delivery(&delivery).expect("stored");
        kept.push((id, received_at.timestamp()));
    }
    kept
}

#[test]
fn the_timeline_of_10000_deliveries_filters_the_list_by_a_dragged_range() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stored = stored_deliveries(dir.path());
    let mut s = Session::start_in(dir);
    let tab = s.wait_for_text("Webhooks (");
    s.click(&tab);
    s.wait_for("every delivery listed", |h| h.state().webhooks().list.rows().len() == 10_000);
    s.wait_for_label("Deliveries over time");
    let timeline = s.app().webhooks().timeline.timeline().clone();
    assert_eq!(timeline.deliveries, 10_000);
    assert_eq!(timeline.bins.len(), 100, "100 minutes, a bin each");
    assert_eq!(timeline.types.len(), 3);
    assert!(timeline.bins.values().all(|b| b.total() == 100 && b.failed == 25));
    assert!(s.text_containing("failed signature (2500)").is_some(), "failures marked:\n{}", s.screen());

    // Dragging from 09:10 to 09:20 (inside those minutes): the list keeps those ten minutes.
    let at = |minute: i64, second: i64| {
        Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap() + chrono::Duration::seconds(minute * 60 + second)
    };
    let view = &s.app().webhooks().timeline;
    let (from, to) =
        (view.position_of(at(10, 20)).expect("on screen"), view.position_of(at(19, 40)).expect("on screen"));
    s.drag(from, to, 10);
    let (start, end) = (at(10, 0).timestamp(), at(20, 0).timestamp());
    let expected = stored.iter().filter(|(_, t)| (start..end).contains(t)).count();
    assert_eq!(expected, 1_000);
    s.wait_for_or(
        "the list narrowed to the dragged range",
        |h| h.state().webhooks().list.shown_len() == 1_000,
        |h| format!("{} shown, filter {:?}", h.state().webhooks().list.shown_len(), h.state().webhooks().list.filter()),
    );
    assert!(s.text_containing("1,000 of 10000 deliveries").is_some(), "{}", s.screen());
    let list = &s.app().webhooks().list;
    for i in 0..list.shown_len() {
        let delivery = list.shown_newest_first(i).expect("a delivery");
        assert!((start..end).contains(&delivery.received_at.timestamp()), "{delivery:?} in the range");
    }
    s.click("Any time");
    assert_eq!(s.app().webhooks().list.shown_len(), 10_000);
}

const USER: &str = "query($ref: String!) { user(ref: $ref) { name email } }";

#[test]
fn each_part_of_the_plan_bar_lists_its_rows() {
    let mut s = start();
    let url = s.sandbox_url();
    let (renamed, unchanged) = s.runtime.block_on(async {
        let token = admin_token(&url, "users.read").await;
        let user = |r: &'static str| {
            let (url, token) = (url.clone(), token.clone());
            async move { graphql(&url, &token, USER, serde_json::json!({ "ref": r })).await["data"]["user"].clone() }
        };
        (user("u00001").await, user("u00003").await)
    });
    let text = |v: &serde_json::Value| v.as_str().expect("a text").to_owned();
    let file = s.path("hr.csv");
    let mut writer = csv::Writer::from_path(&file).expect("the file");
    writer.write_record(["ref", "name", "email"]).expect("a row");
    // First: the mapping shows the first row's cells as examples, so its ref is always on screen.
    writer.write_record(["u00003".into(), text(&unchanged["name"]), text(&unchanged["email"])]).expect("a row");
    writer
        .write_record(["u00001".into(), format!("{} Jr", text(&renamed["name"])), text(&renamed["email"])])
        .expect("a row");
    writer.write_record(["u00002", "Bad Address", "not-an-address"]).expect("a row");
    writer.write_record(["n00001", "Nia Newcomer", "nia.newcomer@example.com"]).expect("a row");
    writer.flush().expect("written");
    drop(writer);

    s.click("Import…");
    s.type_into("File", file.to_str().expect("a UTF-8 path"));
    s.click("Plan");
    s.wait_for("the plan", |h| !h.state().import_busy());
    s.wait_for_label("1 to create");
    for part in ["create", "update", "unchanged", "invalid"] {
        assert!(s.harness.query_by_role_and_label(Role::Button, part).is_some(), "the part '{part}':\n{}", s.screen());
    }
    assert!(s.harness.query_by_role_and_label(Role::Button, "archive").is_none(), "no part without rows");
    // The rows of the plan's grid (u00003, unchanged, is also the mapping's example).
    let listed =
        |s: &Session| ["u00001", "u00002", "n00001"].into_iter().filter(|r| on_screen(s, r)).collect::<Vec<_>>();
    assert_eq!(listed(&s), ["u00001", "u00002", "n00001"]);
    s.harness.get_by_role_and_label(Role::Button, "invalid").click();
    s.harness.run_steps(2);
    assert_eq!(listed(&s), ["u00002"], "{}", s.screen());
    assert!(
        s.harness.get_by_label("1 invalid").accesskit_node().toggled() == Some(egui::accesskit::Toggled::True),
        "the count button follows"
    );
    s.harness.get_by_role_and_label(Role::Button, "create").click();
    s.harness.run_steps(2);
    assert_eq!(listed(&s), ["n00001"]);
    // The part shown, clicked again: every row.
    s.harness.get_by_role_and_label(Role::Button, "create").click();
    s.harness.run_steps(2);
    assert_eq!(listed(&s).len(), 3);
    s.harness.get_by_role_and_label(Role::Button, "update").click();
    s.harness.run_steps(2);
    assert_eq!(listed(&s), ["u00001"]);
}
