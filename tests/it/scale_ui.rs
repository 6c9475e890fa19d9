//! At any scale (issue 45): the app as Windows gives it a window at 150 % on a 1366×768 laptop
//! screen and at 200 % on a 2560×1440 one (the first window fits the work area: the screen less a
//! 40-pixel taskbar, divided by the scale), with every toolbar control, every dialog's buttons
//! and the grid's rows inside the window. The Windows build is started at the same scales under
//! Wine by packaging/windows/smoke.sh (screenshots kept there).

use egui::accesskit::Role;
use egui::{Pos2, Rect};
use egui_kittest::kittest::Queryable;

use crate::harness::{Session, USERS, name_of};

/// The toolbar's controls (it wraps onto a second line when narrow) and the query's Run.
const TOOLBAR: [&str; 10] = [
    "Connection",
    "Profiles…",
    "Find user",
    "Import…",
    "Schema changes…",
    "Copy as code",
    "Queries",
    "View",
    "Help",
    "Run",
];

/// Every button, combo box, radio button and text field that is at least partly in the window
/// lies wholly in it (one cut by the window's edge fails; what is scrolled away entirely is not on
/// screen at all).
#[track_caller]
fn every_control_on_screen(s: &Session, window: Rect, what: &str) {
    let mut seen = 0;
    for role in [Role::Button, Role::ComboBox, Role::RadioButton, Role::TextInput] {
        for node in s.harness.query_all_by_role(role) {
            let rect = node.rect();
            if !rect.intersects(window) {
                continue;
            }
            seen += 1;
            assert!(
                window.expand(0.5).contains_rect(rect),
                "{what}: '{}' ({role:?}) at {rect:?} is cut by the {window:?} window; the screen:\n{}",
                name_of(&node),
                s.screen()
            );
        }
    }
    assert!(seen > 5, "{what}: only {seen} controls on screen:\n{}", s.screen());
}

/// Opens a dialog with `opener`, waits for `button` in it, checks the controls, closes it.
fn dialog(s: &mut Session, window: Rect, opener: &str, button: &str, close: &str) {
    s.click(opener);
    s.wait_for_label(button);
    every_control_on_screen(s, window, &format!("the dialog of '{opener}'"));
    s.click(close);
    assert!(s.harness.query_by_label(button).is_none(), "'{close}' closed the dialog of '{opener}':\n{}", s.screen());
}

fn at_scale(work_area_pixels: [f32; 2], scale: f32) {
    let size = orgql::ui::first_window_size(Some([work_area_pixels[0] / scale, work_area_pixels[1] / scale]));
    let window = Rect::from_min_size(Pos2::ZERO, egui::vec2(size[0], size[1]));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut s = Session::start_on_screen(Session::runtime(), dir, None, USERS, window.size(), scale);
    for label in TOOLBAR {
        let rect = s.harness.get_by_label(label).rect();
        assert!(window.contains_rect(rect), "at {scale}: '{label}' at {rect:?} is outside the {window:?} window");
    }
    every_control_on_screen(&s, window, "the window");
    // The grid shows rows.
    s.run_query();
    let first = s.expected_refs().into_iter().next().expect("the sandbox's first user");
    let cell = s.harness.query_all_by_label(&first).next().expect("the first row on screen").rect();
    assert!(window.contains_rect(cell), "at {scale}: the first row's '{first}' at {cell:?} is outside the window");
    every_control_on_screen(&s, window, "the window with rows");
    // Every dialog's buttons.
    dialog(&mut s, window, "Profiles…", "Add profile", "Close Profiles");
    s.click("Profiles…");
    s.click("Add profile");
    s.wait_for_label("Save profile");
    every_control_on_screen(&s, window, "the profile form");
    s.click("Cancel");
    s.click("Close Profiles");
    dialog(&mut s, window, "Find user", "User to find", "Close Find user");
    dialog(&mut s, window, "Import…", "Browse for the file to import", "Close Import users from a file");
    dialog(&mut s, window, "Schema changes…", "Close Schema changes", "Close Schema changes");
    dialog(&mut s, window, "Export…", "Browse for the export file", "Close Export to a file");
    s.click("Saved");
    dialog(&mut s, window, "Save tab…", "Cancel", "Cancel");
    s.click("Explorer");
    s.click("Copy as code");
    dialog(&mut s, window, "cURL", "cURL code", "Close cURL code");
    s.click("Help");
    dialog(&mut s, window, "About orgql", "Copy details", "Close About orgql");
    s.click("View");
    s.wait_for_label("Renderer at the next start");
    every_control_on_screen(&s, window, "the View menu");
}

#[test]
fn at_150_percent_on_1366x768_every_control_and_dialog_button_is_on_screen() {
    at_scale([1366.0, 728.0], 1.5);
}

#[test]
fn at_200_percent_on_2560x1440_every_control_and_dialog_button_is_on_screen() {
    at_scale([2560.0, 1400.0], 2.0);
}
