//! Every task by keyboard alone and through the accessibility tree (issue 40): the tests press
//! keys only (no pointer) for what they prove, and read the focus, names, roles and values from
//! the AccessKit tree that a screen reader reads. Setting a scene up (a second profile) may use
//! the pointer; what is proven after it does not.

use std::time::{Duration, Instant};

use egui::accesskit::{Live, Role};
use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT, Queryable};

use crate::harness::{PATIENCE, Session, name_of, sandbox};

/// The focused widget: its role and name.
pub(crate) fn focused(s: &Session) -> Option<(Role, String)> {
    s.harness
        .root()
        .children_recursive()
        .find(|node| node.accesskit_node().is_focused())
        .map(|node| (node.accesskit_node().role(), name_of(&node)))
}

/// Presses a key (with modifiers) and lets the app answer it (the harness hands the app one
/// event a frame: the modifiers, the key down, the key up, the modifiers again).
pub(crate) fn press_with(s: &mut Session, modifiers: Modifiers, key: Key) {
    s.harness.key_press_modifiers(modifiers, key);
    for _ in 0..if modifiers.is_none() { 2 } else { 4 } {
        s.harness.step();
    }
}

pub(crate) fn press(s: &mut Session, key: Key) {
    press_with(s, Modifiers::NONE, key);
}

/// Presses Tab until the focused widget is `what`; returns how many presses it took (fails
/// after `most`).
#[track_caller]
pub(crate) fn tab_until(s: &mut Session, what: &str, most: usize, found: impl Fn(Role, &str) -> bool) -> usize {
    let mut path = vec![format!("from {:?}", focused(s))];
    for presses in 1..=most {
        press(s, Key::Tab);
        if let Some((role, name)) = focused(s) {
            if found(role, &name) {
                return presses;
            }
            path.push(name);
        } else {
            path.push("(nothing)".to_owned());
        }
    }
    panic!("{what} not reached in {most} presses of Tab: {path:?}");
}

/// Steps until the focused widget is named `name`.
#[track_caller]
pub(crate) fn wait_for_focus(s: &mut Session, name: &str) {
    let started = Instant::now();
    let mut seen: Vec<Option<(Role, String)>> = Vec::new();
    while focused(s).is_none_or(|(_, n)| n != name) {
        let now = focused(s);
        if seen.last() != Some(&now) {
            seen.push(now);
        }
        assert!(started.elapsed() < PATIENCE, "the focus never reached '{name}'; it was on {seen:?}");
        s.harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Lets the app draw a few frames (a spinner may keep it repainting: no waiting to settle).
pub(crate) fn frames(s: &mut Session) {
    for _ in 0..8 {
        s.harness.step();
    }
}

/// The text the app last asked to put on the clipboard, within a few frames.
fn copied(s: &mut Session) -> Option<String> {
    for _ in 0..8 {
        s.harness.step();
        let text = s.harness.output().platform_output.commands.iter().find_map(|c| match c {
            egui::OutputCommand::CopyText(text) => Some(text.clone()),
            _ => None,
        });
        if text.is_some() {
            return text;
        }
    }
    None
}

#[test]
fn the_keyboard_runs_the_query_and_reaches_row_50_of_the_grid() {
    let mut s = Session::start();
    frames(&mut s);
    // Ctrl+Enter runs the query wherever the focus is.
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    s.harness.step();
    s.wait_until_idle();
    assert_eq!(s.wait_for_text(" of 120"), "1–50 of 120");
    let expected = s.expected_refs();

    // From the result's views (a screen reader jumps there), Tab reaches the grid: one stop,
    // on its cursor (a cell), not one stop a cell.
    s.harness.get_by_role_and_label(Role::Tab, "Grid").focus();
    frames(&mut s);
    tab_until(&mut s, "the grid", 20, |role, _| role == Role::Cell);
    assert_eq!(focused(&s), Some((Role::Cell, expected[0].clone())), "the cursor starts on the first cell");
    assert_eq!(s.app().results().grid_cursor(), (0, 0));

    // PageDown, then the arrows, reach row 50, scrolled into view.
    let mut presses = 0;
    while s.app().results().grid_cursor().0 < 49 && presses < 20 {
        press(&mut s, Key::PageDown);
        presses += 1;
    }
    assert_eq!(s.app().results().grid_cursor(), (49, 0), "PageDown stops at the last row");
    assert_eq!(focused(&s), Some((Role::Cell, expected[49].clone())), "row 50 has the focus:\n{}", s.screen());
    let cell = s.harness.get_by(|n| n.is_focused());
    let screen = s.harness.ctx.content_rect();
    assert!(screen.contains_rect(cell.rect()), "row 50 is on screen: {:?} in {screen:?}", cell.rect());
    // Its row says where it is among all the rows (what Orca reads as "row 50 of 50"):
    // AccessKit's position is zero-based and the set's size is the table's.
    let row = cell.parent().expect("the cell's row");
    assert_eq!(row.accesskit_node().role(), Role::Row);
    assert_eq!(row.accesskit_node().data().position_in_set(), Some(49));
    assert_eq!(s.harness.get_by_role(Role::Table).accesskit_node().data().size_of_set(), Some(50));

    // Ctrl+Home and Ctrl+End go to the first and the last cell; Home and End along the row.
    press_with(&mut s, Modifiers::COMMAND, Key::Home);
    assert_eq!(s.app().results().grid_cursor(), (0, 0));
    press(&mut s, Key::End);
    assert_eq!(s.app().results().grid_cursor(), (0, 3));
    press(&mut s, Key::ArrowDown);
    press(&mut s, Key::ArrowLeft);
    assert_eq!(s.app().results().grid_cursor(), (1, 2));
    press_with(&mut s, Modifiers::COMMAND, Key::End);
    assert_eq!(s.app().results().grid_cursor(), (49, 3));
    press_with(&mut s, Modifiers::COMMAND, Key::Home);

    // Ctrl+C copies the cell; Shift+F10 opens its menu, with the focus on its first item.
    // (One event: the harness runs a frame an event, and keeps the output of the last.)
    s.harness.event(egui::Event::Key {
        key: Key::C,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: Modifiers::COMMAND,
    });
    let copy = copied(&mut s);
    assert_eq!(copy, Some(expected[0].clone()), "Ctrl+C copies the cell; focus {:?}", focused(&s));
    press_with(&mut s, Modifiers::SHIFT, Key::F10);
    wait_for_focus(&mut s, "Copy cell");
    press(&mut s, Key::ArrowDown);
    wait_for_focus(&mut s, "Copy row");
    s.harness.key_press(Key::Enter);
    let row = copied(&mut s).expect("the row copied");
    assert!(row.starts_with(&format!("{}\t", expected[0])), "{row}");
    frames(&mut s);
    assert!(s.harness.query_by_label("Copy cell").is_none(), "the menu closed");
    assert_eq!(focused(&s).map(|(role, _)| role), Some(Role::Cell), "the focus is back on the grid");

    // The headers are no Tab stops: the menu sorts by the cursor's column, either way.
    press_with(&mut s, Modifiers::SHIFT, Key::F10);
    wait_for_focus(&mut s, "Copy cell");
    for _ in 0..3 {
        press(&mut s, Key::ArrowDown);
    }
    wait_for_focus(&mut s, "Sort by ref, descending");
    press(&mut s, Key::Enter);
    frames(&mut s);
    let header = s.harness.get_by_role_and_label(Role::ColumnHeader, "ref");
    assert_eq!(header.accesskit_node().data().sort_direction(), Some(egui::accesskit::SortDirection::Descending));
    assert_eq!(focused(&s).map(|(role, _)| role), Some(Role::Cell), "the focus is back on the grid");
    let last = expected[..50].iter().max().cloned();
    assert_eq!(focused(&s).map(|(_, name)| name), last, "the cursor's row is the first of the new order");
}

#[test]
fn the_grid_is_a_table_with_the_whole_result_s_counts_and_its_sort() {
    let mut s = Session::start();
    s.run_query();
    s.click("Fetch all pages");
    s.wait_for_text("All 120 rows fetched");
    s.wait_until_idle();
    let table = s.harness.get_by_role(Role::Table);
    let data = table.accesskit_node().data().clone();
    assert_eq!(data.row_count(), Some(121), "a header row and every row of the result, not only those drawn");
    assert_eq!(data.column_count(), Some(4));
    let rows: Vec<_> = table.children_recursive().filter(|n| n.accesskit_node().role() == Role::Row).collect();
    assert!(rows.len() < 60, "only the rows on screen are drawn ({})", rows.len());
    // The set is the result's rows, the header apart: the first user is the first of 120.
    assert_eq!(data.size_of_set(), Some(120));
    assert_eq!(rows[0].accesskit_node().data().position_in_set(), None, "the header row is not counted");
    assert_eq!(rows[1].accesskit_node().data().position_in_set(), Some(0), "the first user is 1 of 120");
    let headers: Vec<String> = table
        .children_recursive()
        .filter(|n| n.accesskit_node().role() == Role::ColumnHeader)
        .map(|n| name_of(&n))
        .collect();
    assert_eq!(headers, ["ref", "name", "email", "isActive"]);
    // The sort is a property of its header, not a glyph in its name.
    s.harness.get_by_role_and_label(Role::ColumnHeader, "name").click();
    frames(&mut s);
    let name = s.harness.get_by_role_and_label(Role::ColumnHeader, "name");
    assert_eq!(name.accesskit_node().data().sort_direction(), Some(egui::accesskit::SortDirection::Ascending));
    // The page's range and the fetch's outcome are live regions.
    assert_eq!(s.harness.get_by_label("All 120 rows fetched").accesskit_node().live(), Live::Polite);
}

#[test]
fn the_editor_is_left_forward_by_a_documented_key_and_export_is_eleven_presses_from_run() {
    let mut s = Session::start();
    s.run_query();
    // From Run: Tab reaches the editor, where Tab indents.
    s.harness.get_by_label("Run").focus();
    frames(&mut s);
    assert_eq!(focused(&s), Some((Role::Button, "Run".to_owned())));
    let mut presses = tab_until(&mut s, "the query", 5, |_, name| name == "Query");
    let before = s.app().active_tab().query.clone();
    press(&mut s, Key::Tab);
    assert_eq!(focused(&s).map(|(_, n)| n), Some("Query".to_owned()), "Tab stays in the editor");
    assert_ne!(s.app().active_tab().query, before, "and indents");
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    frames(&mut s);
    // Escape, then Tab: on to the next control (the variables), and the same again from there
    // (to the divider between the editor and the result, a control of its own).
    for next in ["Variables (JSON)", "Resize panel"] {
        press(&mut s, Key::Escape);
        press(&mut s, Key::Tab);
        assert_eq!(focused(&s).map(|(_, n)| n), Some(next.to_owned()), "Escape then Tab leaves forward");
    }
    presses += 4 + tab_until(&mut s, "Export…", 7, |_, name| name == "Export…");
    // Export… comes last before the grid (two Shift+Tab from it, where F6 lands).
    assert!(presses <= 12, "Export… is {presses} presses from Run with Escape, then Tab");

    // Shift+Tab leaves the editor backward.
    s.harness.get_by_label("Query").focus();
    frames(&mut s);
    press_with(&mut s, Modifiers::SHIFT, Key::Tab);
    assert_eq!(focused(&s).map(|(_, n)| n), Some("Hide variables".to_owned()), "Shift+Tab leaves backward");

    // Ctrl+M ("Tab moves focus", the documented key): Export… at most 10 presses from Run.
    s.harness.get_by_label("Run").focus();
    frames(&mut s);
    let mut presses = tab_until(&mut s, "the query", 5, |_, name| name == "Query");
    press_with(&mut s, Modifiers::COMMAND, Key::M);
    press(&mut s, Key::Tab);
    assert_eq!(focused(&s).map(|(_, n)| n), Some("Variables (JSON)".to_owned()), "Ctrl+M: Tab moves focus");
    presses += 2 + tab_until(&mut s, "Export…", 7, |_, name| name == "Export…");
    assert!(presses <= 11, "Export… is {presses} presses from Run with Ctrl+M");
    // Enter on Export… opens its window.
    press(&mut s, Key::Enter);
    s.wait_for_label("Browse for the export file");
}

#[test]
fn a_csv_is_exported_by_keys_alone() {
    let mut s = Session::start();
    s.run_query();
    s.harness.get_by_label("Export…").focus();
    frames(&mut s);
    // Enter opens the window, its first control (the file) focused.
    press(&mut s, Key::Enter);
    s.wait_for_label("Browse for the export file");
    wait_for_focus(&mut s, "File");
    let file = s.path("keys.csv");
    press_with(&mut s, Modifiers::COMMAND, Key::A);
    s.harness.event(egui::Event::Text(file.display().to_string()));
    s.harness.step();
    tab_until(&mut s, "Export", 12, |role, name| role == Role::Button && name == "Export");
    press(&mut s, Key::Enter);
    let done = s.wait_for_text("Exported ");
    assert_eq!(done, format!("Exported 50 rows to {}", file.display()));
    let records = csv::Reader::from_path(&file).expect("the file").records().count();
    assert_eq!(records, 50, "the 50 rows shown");
    // The window closed and gave the focus back to Export…; Escape closes it too.
    wait_for_focus(&mut s, "Export…");
    press(&mut s, Key::Enter);
    wait_for_focus(&mut s, "File");
    press(&mut s, Key::Escape);
    assert!(s.harness.query_by_label("Browse for the export file").is_none(), "Escape closed the window");
    wait_for_focus(&mut s, "Export…");
}

#[test]
fn find_user_archive_confirm_and_activate_by_keys_alone() {
    let mut s = Session::start();
    frames(&mut s);
    tab_until(&mut s, "Find user", 12, |role, name| role == Role::Button && name == "Find user");
    press(&mut s, Key::Enter);
    wait_for_focus(&mut s, "User to find");
    s.harness.event(egui::Event::Text("u00021".to_owned()));
    s.harness.step();
    press(&mut s, Key::Enter);
    s.settle();
    // The focus landed on the card (its first control), inside the window.
    let (_, first) = focused(&s).expect("a focused control after Find");
    assert_ne!(first, "User to find", "the focus moved to the card");
    if s.harness.query_by_role_and_label(Role::Button, "Activate").is_some() {
        tab_until(&mut s, "Activate", 30, |_, name| name == "Activate");
        press(&mut s, Key::Enter);
        wait_for_focus(&mut s, "Confirm");
        press(&mut s, Key::Enter);
        s.wait_for_text(" is active.");
        s.settle();
        // The focus lands on what changed: the state, read with its new value.
        wait_for_focus(&mut s, "State: Active");
        press(&mut s, Key::Tab);
    } else {
        tab_until(&mut s, "Archive", 30, |role, name| role == Role::Button && name == "Archive");
    }
    wait_for_focus(&mut s, "Archive");
    press(&mut s, Key::Enter);
    // The confirmation takes the focus on Confirm, is named by its question; Enter confirms.
    wait_for_focus(&mut s, "Confirm");
    let dialog = s.harness.get_by_role(Role::AlertDialog);
    assert!(name_of(&dialog).starts_with("Archive "), "the dialog is named by its question: {}", name_of(&dialog));
    press(&mut s, Key::Enter);
    let archived = s.wait_for_text(" is archived.");
    assert_eq!(s.harness.get_by_label(&archived).accesskit_node().live(), Live::Polite, "the outcome is read out");
    s.settle();
    // The focus lands on the changed field, read with its new value; the button is next.
    wait_for_focus(&mut s, "State: Archived");
    press(&mut s, Key::Tab);
    wait_for_focus(&mut s, "Activate");
    press(&mut s, Key::Enter);
    wait_for_focus(&mut s, "Confirm");
    press(&mut s, Key::Enter);
    let active = s.wait_for_text(" is active.");
    assert_eq!(s.harness.get_by_label(&active).accesskit_node().live(), Live::Polite, "the outcome is read out");
    s.settle();
    wait_for_focus(&mut s, "State: Active");
    // Escape closes the window; the focus goes back to Find user.
    press(&mut s, Key::Escape);
    press(&mut s, Key::Escape);
    frames(&mut s);
    assert!(s.harness.query_by_label("User to find").is_none(), "Escape closed Find user:\n{}", s.screen());
}

#[test]
fn a_connection_is_chosen_by_keys_alone_and_the_combo_says_its_value() {
    let mut s = Session::start();
    let server = s.runtime.block_on(sandbox(10));
    s.add_profile("acme-test", server.base_url(), "sandbox-admin");
    for _ in 0..8 {
        s.harness.step();
    }
    // Back to the sandbox by keys: the combo, Enter opens its list, arrows choose, Enter closes it.
    let combo = s.harness.get_by_role_and_label(Role::ComboBox, "Connection");
    assert_eq!(combo.accesskit_node().value().as_deref(), Some("acme-test"), "the combo says its value");
    combo.focus();
    frames(&mut s);
    press(&mut s, Key::Enter);
    s.wait_for_label("Sandbox");
    for _ in 0..3 {
        if focused(&s).is_some_and(|(_, n)| n == "Sandbox") {
            break;
        }
        press(&mut s, Key::ArrowDown);
    }
    if focused(&s).is_none_or(|(_, n)| n != "Sandbox") {
        press(&mut s, Key::ArrowUp);
    }
    wait_for_focus(&mut s, "Sandbox");
    press(&mut s, Key::Enter);
    frames(&mut s);
    assert!(
        s.harness.query_by_role(Role::ListBox).is_none(),
        "the list closed after a choice by keys:\n{}",
        s.screen()
    );
    assert_eq!(s.app().state().connection_name(), "Sandbox");
    let combo = s.harness.get_by_role_and_label(Role::ComboBox, "Connection");
    assert_eq!(combo.accesskit_node().value().as_deref(), Some("Sandbox"));
    assert!(combo.accesskit_node().is_focused(), "the focus is back on the combo");
}

/// Roles a person acts on: each needs a name that says what it acts on.
fn is_control(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::Link
            | Role::CheckBox
            | Role::RadioButton
            | Role::ComboBox
            | Role::TextInput
            | Role::MultilineTextInput
            | Role::SearchInput
            | Role::Tab
            | Role::ColumnHeader
            | Role::Slider
            | Role::SpinButton
            | Role::MenuItem
            | Role::Window
            | Role::Dialog
            | Role::AlertDialog
            | Role::Table
    )
}

/// Every control on screen with an empty or bare-symbol name, with its role.
fn unnamed(s: &Session) -> Vec<String> {
    s.harness
        .root()
        .children_recursive()
        .filter(|node| is_control(node.accesskit_node().role()))
        .map(|node| (node.accesskit_node().role(), name_of(&node)))
        .filter(|(_, name)| !name.chars().any(char::is_alphanumeric))
        .map(|(role, name)| format!("{role:?} named {name:?}"))
        .collect()
}

#[test]
fn every_control_of_every_window_is_named_by_what_it_acts_on() {
    let mut s = Session::start();
    s.run_query();
    let root = s.harness.root();
    assert!(name_of(&root).contains("orgql"), "the main window is named: {:?}", name_of(&root));
    let mut failures = Vec::new();
    let mut check = |s: &mut Session, place: &str| {
        for _ in 0..6 {
            s.harness.step();
        }
        failures.extend(unnamed(s).into_iter().map(|f| format!("{place}: {f}")));
    };
    check(&mut s, "the query view");
    // The tab bar's symbols are named by what they act on.
    assert!(s.harness.query_by_label("Close the Users tab").is_some(), "{}", s.screen());
    assert!(s.harness.query_by_label("New tab").is_some());
    for view in ["Tree", "Raw", "Chart", "Grid"] {
        s.harness.get_by_role_and_label(Role::Tab, view).click();
        check(&mut s, view);
    }
    for side in ["History", "Saved", "Explorer"] {
        s.click(side);
        check(&mut s, side);
    }
    for (open, window) in [
        ("Find user", "User to find"),
        ("Profiles…", "Add profile"),
        ("Import…", "Browse for the file to import"),
        ("Export…", "Browse for the export file"),
    ] {
        s.harness.get_by_role_and_label(Role::Button, open).click();
        s.wait_for_label(window);
        check(&mut s, open);
        press(&mut s, Key::Escape);
        assert!(s.harness.query_by_label(window).is_none(), "Escape closed {open}:\n{}", s.screen());
    }
    s.harness.get_by_role_and_label(Role::Button, "Webhooks").click();
    check(&mut s, "Webhooks");
    assert!(failures.is_empty(), "unnamed or bare-symbol controls:\n{}", failures.join("\n"));
    // Combos say their value.
    let connection = s.harness.get_by_role_and_label(Role::ComboBox, "Connection");
    assert_eq!(connection.accesskit_node().value().as_deref(), Some("Sandbox"));
}

#[test]
fn at_150_percent_every_toolbar_control_is_on_screen_and_the_grid_shows_rows() {
    let mut s = Session::start();
    s.harness.ctx.set_zoom_factor(1.5);
    frames(&mut s);
    s.run_query();
    frames(&mut s);
    let screen = s.harness.ctx.content_rect();
    for control in ["Connection", "Profiles…", "Find user", "Import…", "Schema changes…", "Queries", "Webhooks", "View"]
    {
        let node = s.harness.get_by_label(control);
        assert!(screen.contains_rect(node.rect()), "{control} at {:?} is off the screen {screen:?}", node.rect());
    }
    let table = s.harness.get_by_role(Role::Table);
    let cells: Vec<_> = table
        .children_recursive()
        .filter(|n| n.accesskit_node().role() == Role::Cell && screen.contains_rect(n.rect()))
        .collect();
    let all: Vec<_> = table
        .children_recursive()
        .filter(|n| n.accesskit_node().role() == Role::Cell)
        .map(|n| n.rect())
        .take(6)
        .collect();
    let rows: std::collections::BTreeSet<i64> = cells.iter().map(|n| n.rect().top().round() as i64).collect();
    assert!(rows.len() >= 2, "the grid shows rows at 150 %: {} cells on screen of {screen:?}: {all:?}", cells.len());
}

/// The pane the focused control is in: the name of its nearest ancestor that is a pane (a
/// toolbar, a pane, a status bar), or its own when it is the pane.
fn focused_pane(s: &Session) -> Option<String> {
    let node = s.harness.root().children_recursive().find(|node| node.accesskit_node().is_focused())?;
    let mut at = Some(node);
    while let Some(node) = at {
        if matches!(node.accesskit_node().role(), Role::Toolbar | Role::Pane | Role::Status) {
            return Some(name_of(&node));
        }
        at = node.parent();
    }
    None
}

#[test]
fn f6_moves_through_every_pane_and_each_says_its_name() {
    let mut s = Session::start();
    frames(&mut s);
    // Ctrl+Enter runs the query wherever the focus is (here: nowhere).
    press_with(&mut s, Modifiers::COMMAND, Key::Enter);
    s.wait_until_idle();
    s.wait_for_text(" of 120");
    assert_eq!(focused(&s), None, "nothing is focused at the window's start");
    // F6 from the window's start: the first pane, then each in turn, around. The connection
    // is one press from the start, the query three.
    let panes = ["Toolbar", "Side panel", "Query editor", "Variables", "Result", "Status bar"];
    for (presses, pane) in panes.iter().chain(&panes[..1]).enumerate() {
        press(&mut s, Key::F6);
        frames(&mut s);
        assert_eq!(focused_pane(&s).as_deref(), Some(*pane), "F6: the focus is on {:?}", focused(&s));
        match presses {
            0 => assert_eq!(focused(&s), Some((Role::ComboBox, "Connection".to_owned())), "F6 lands on the connection"),
            2 => assert_eq!(focused(&s).map(|(_, n)| n).as_deref(), Some("Query"), "F6 ×3 lands in the query"),
            4 => assert_eq!(focused(&s).map(|(r, _)| r), Some(Role::Cell), "F6 lands on the grid in the result"),
            _ => {}
        }
    }
    // Where F6 lands in each: the connection, the query, the variables, the grid.
    for (pane, control) in [("Query editor", "Query"), ("Variables", "Variables (JSON)")] {
        while focused_pane(&s).as_deref() != Some(pane) {
            press(&mut s, Key::F6);
        }
        assert_eq!(focused(&s).map(|(_, name)| name).as_deref(), Some(control));
    }
    // Shift+F6 goes back, around.
    for pane in ["Query editor", "Side panel", "Toolbar", "Status bar", "Result"] {
        press_with(&mut s, Modifiers::SHIFT, Key::F6);
        frames(&mut s);
        assert_eq!(focused_pane(&s).as_deref(), Some(pane), "Shift+F6: the focus is on {:?}", focused(&s));
    }
    assert_eq!(focused(&s).map(|(role, _)| role), Some(Role::Cell), "F6 lands on the grid in the result");
    // Each pane is a node of its own, named, with a role that says what it is.
    for (role, name) in [
        (Role::Toolbar, "Toolbar"),
        (Role::Pane, "Side panel"),
        (Role::Pane, "Query editor"),
        (Role::Pane, "Variables"),
        (Role::Pane, "Result"),
        (Role::Status, "Status bar"),
    ] {
        assert!(s.harness.query_by_role_and_label(role, name).is_some(), "no {role:?} named {name}");
    }
}

#[test]
fn from_the_window_s_start_keys_alone_run_the_query_reach_row_50_and_export_a_csv() {
    let mut s = Session::start();
    frames(&mut s);
    assert_eq!(focused(&s), None, "nothing is focused at the window's start");
    // Run, wherever the focus is (Ctrl+Enter); nothing takes the focus.
    press_with(&mut s, Modifiers::COMMAND, Key::Enter);
    s.wait_until_idle();
    assert_eq!(s.wait_for_text(" of 120"), "1–50 of 120");
    let expected = s.expected_refs();
    assert_eq!(focused(&s), None);
    // The grid: two presses of Shift+F6 from the start (the status bar, the result).
    press_with(&mut s, Modifiers::SHIFT, Key::F6);
    press_with(&mut s, Modifiers::SHIFT, Key::F6);
    assert_eq!(focused(&s), Some((Role::Cell, expected[0].clone())), "Shift+F6 ×2 lands on the grid's cursor");
    // Row 50, by PageDown.
    let mut presses = 0;
    while s.app().results().grid_cursor().0 < 49 && presses < 20 {
        press(&mut s, Key::PageDown);
        presses += 1;
    }
    assert_eq!(focused(&s), Some((Role::Cell, expected[49].clone())), "row 50 has the focus");
    // Export…: two presses of Shift+Tab from the grid (its filter, then Export…): four from
    // the window's start.
    press_with(&mut s, Modifiers::SHIFT, Key::Tab);
    assert_eq!(focused(&s).map(|(_, n)| n).as_deref(), Some("Filter rows"));
    press_with(&mut s, Modifiers::SHIFT, Key::Tab);
    assert_eq!(focused(&s), Some((Role::Button, "Export…".to_owned())));
    // A CSV, by keys.
    press(&mut s, Key::Enter);
    s.wait_for_label("Browse for the export file");
    wait_for_focus(&mut s, "File");
    let file = s.path("from-the-start.csv");
    press_with(&mut s, Modifiers::COMMAND, Key::A);
    s.harness.event(egui::Event::Text(file.display().to_string()));
    s.harness.step();
    tab_until(&mut s, "Export", 12, |role, name| role == Role::Button && name == "Export");
    press(&mut s, Key::Enter);
    assert_eq!(s.wait_for_text("Exported "), format!("Exported 50 rows to {}", file.display()));
    let refs: Vec<String> = csv::Reader::from_path(&file)
        .expect("the file")
        .records()
        .map(|r| r.expect("a record")[0].to_owned())
        .collect();
    assert_eq!(refs, expected[..50], "the 50 rows shown, in order");
    wait_for_focus(&mut s, "Export…");
}

#[test]
fn escape_closes_save_operation_and_the_focus_returns() {
    let mut s = Session::start();
    frames(&mut s);
    for _ in 0..3 {
        press(&mut s, Key::F6);
    }
    assert_eq!(focused(&s).map(|(_, n)| n).as_deref(), Some("Query"));
    press_with(&mut s, Modifiers::COMMAND, Key::S);
    s.wait_for_label("Save operation");
    // The window takes the focus on its first control: the name.
    wait_for_focus(&mut s, "Name");
    press(&mut s, Key::Escape);
    frames(&mut s);
    assert!(s.harness.query_by_label("Save operation").is_none(), "Escape closed Save operation:\n{}", s.screen());
    wait_for_focus(&mut s, "Query");
    assert!(s.app().saved_operations().is_empty(), "nothing was saved");
}

#[test]
fn every_window_s_close_button_is_named_after_it() {
    let mut s = Session::start();
    s.run_query();
    // Each window (the button that opens it, its title, a control of it to wait for).
    let windows: [(&str, &str, &str); 5] = [
        ("Find user", "Find user", "User to find"),
        ("Profiles…", "Profiles", "Add profile"),
        ("Import…", "Import users from a file", "Browse for the file to import"),
        ("Export…", "Export to a file", "Browse for the export file"),
        ("Schema changes…", "Schema changes", "Close Schema changes"),
    ];
    for (open, title, control) in windows {
        s.harness.get_by_role_and_label(Role::Button, open).click();
        s.wait_for_label(control);
        frames(&mut s);
        assert!(s.harness.query_by_label("Close window").is_none(), "egui's unnamed close button:\n{}", s.screen());
        let name = format!("Close {title}");
        s.harness.get_by_role_and_label(Role::Button, &name).click();
        frames(&mut s);
        assert!(s.harness.query_by_role_and_label(Role::Window, title).is_none(), "Close {title} closed it");
    }
    s.click("Copy as code");
    s.click("cURL");
    s.wait_for_label("cURL code");
    s.harness.get_by_role_and_label(Role::Button, "Close cURL code").click();
    frames(&mut s);
    assert!(s.harness.query_by_label("cURL code").is_none());
    press_with(&mut s, Modifiers::COMMAND, Key::S);
    s.wait_for_label("Save operation");
    s.harness.get_by_role_and_label(Role::Button, "Close Save operation").click();
    frames(&mut s);
    assert!(s.harness.query_by_label("Save operation").is_none());
}

#[test]
fn the_profile_form_is_tabbed_through_to_its_buttons_and_cancel_gives_the_focus_to_add_profile() {
    // At 150 % on a 1366×768 laptop (the window of issue 45): the form scrolls, its buttons do not.
    let size = orgql::ui::first_window_size(Some([1366.0 / 1.5, 728.0 / 1.5]));
    let runtime = Session::runtime();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut s = Session::start_on_screen(runtime, dir, None, crate::harness::USERS, egui::vec2(size[0], size[1]), 1.5);
    frames(&mut s);
    tab_until(&mut s, "Profiles…", 80, |role, name| role == Role::Button && name == "Profiles…");
    press(&mut s, Key::Enter);
    tab_until(&mut s, "Add profile", 20, |role, name| role == Role::Button && name == "Add profile");
    press(&mut s, Key::Enter);
    wait_for_focus(&mut s, "Name");
    // Every field of the form, then its buttons, in the order they are seen.
    let mut order = Vec::new();
    while order.last().is_none_or(|name| name != "Cancel") {
        assert!(order.len() < 40, "Cancel not reached by Tab: {order:?}");
        press(&mut s, Key::Tab);
        order.push(focused(&s).map(|(_, name)| name).unwrap_or_default());
    }
    let at = |name: &str| order.iter().position(|n| n == name).unwrap_or_else(|| panic!("{name} in {order:?}"));
    assert!(at("Client secret") < at("Pinned certificate"), "{order:?}");
    assert_eq!(&order[order.len() - 3..], ["Save profile", "Test connection", "Cancel"], "{order:?}");
    press(&mut s, Key::Enter);
    frames(&mut s);
    assert!(s.harness.query_by_label("Save profile").is_none(), "Enter on Cancel closed the form:\n{}", s.screen());
    wait_for_focus(&mut s, "Add profile");
}
