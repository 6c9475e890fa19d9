//! At any scale (issue 45): the app as Windows gives it a window at 150 % on a 1366×768 laptop
//! screen and at 200 % on a 2560×1440 one (the first window fits the work area: the screen less a
//! 40-pixel taskbar, divided by the scale), with every toolbar control, every dialog's buttons
//! and the grid's rows inside the window. The Windows build is started at the same scales under
//! Wine by packaging/windows/smoke.sh (screenshots kept there).

use std::collections::HashMap;

use egui::accesskit::Role;
use egui::{Pos2, Rect};
use egui_kittest::kittest::{NodeT, Queryable};

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

/// The part of each widget that shows, by its AccessKit id, as egui laid the last frame out: its
/// rect within the clip of what holds it (a scroll area's view, a dialog, the window).
fn shown_parts(s: &Session) -> HashMap<u64, Rect> {
    s.harness.ctx.viewport(|viewport| {
        let widgets = &viewport.prev_pass.widgets;
        widgets.layers().flat_map(|(_, rects)| rects.iter().map(|w| (w.id.value(), w.interact_rect))).collect()
    })
}

/// Whether `rect`, of which `shown` shows, goes past an edge of the `window` and is cut there
/// (what a scroll area cuts inside the window shows up to the scroll area's edge, not the window's).
fn cut_by(window: Rect, rect: Rect, shown: Rect) -> bool {
    let past = |outside: bool, at_edge: bool| outside && at_edge;
    past(rect.min.x < window.min.x - 0.5, shown.min.x <= window.min.x + 0.5)
        || past(rect.max.x > window.max.x + 0.5, shown.max.x >= window.max.x - 0.5)
        || past(rect.min.y < window.min.y - 0.5, shown.min.y <= window.min.y + 0.5)
        || past(rect.max.y > window.max.y + 0.5, shown.max.y >= window.max.y - 0.5)
}

/// Every button, combo box, radio button and text field that shows at all is not cut by the
/// window's edge (one a scroll area shows in part, or scrolls away wholly, is the scroll area's).
#[track_caller]
fn every_control_on_screen(s: &Session, window: Rect, what: &str) {
    let shown = shown_parts(s);
    let mut seen = 0;
    for role in [Role::Button, Role::ComboBox, Role::RadioButton, Role::TextInput] {
        for node in s.harness.query_all_by_role(role) {
            let rect = node.rect();
            let part = shown.get(&node.accesskit_node().locate().0.0).copied().unwrap_or(rect).intersect(window);
            if !part.is_positive() {
                continue;
            }
            seen += 1;
            assert!(
                !cut_by(window, rect, part),
                "{what}: '{}' ({role:?}) at {rect:?} is cut by the {window:?} window; the screen:\n{}",
                name_of(&node),
                s.screen()
            );
        }
    }
    assert!(seen > 5, "{what}: only {seen} controls on screen:\n{}", s.screen());
}

/// The dialog `title` (an egui window named by its title) is in the window, and each of its
/// named `buttons` shows whole in it, whether or not what is around them scrolls: one a scroll
/// area has scrolled away, wholly or in part, fails.
#[track_caller]
fn buttons_on_screen(s: &Session, window: Rect, title: &str, buttons: &[&str]) {
    let shown = shown_parts(s);
    let dialog = s.harness.get_by_role_and_label(Role::Window, title);
    let frame = dialog.rect();
    assert!(
        window.expand(0.5).contains_rect(frame),
        "the dialog '{title}' at {frame:?} is not inside the {window:?} window:\n{}",
        s.screen()
    );
    for &label in buttons {
        let found: Vec<_> =
            dialog.query_all_by_label(label).filter(|node| node.accesskit_node().role() == Role::Button).collect();
        assert_eq!(found.len(), 1, "the dialog '{title}' has one button '{label}':\n{}", s.screen());
        let rect = found[0].rect();
        let part = shown.get(&found[0].accesskit_node().locate().0.0).copied().unwrap_or(Rect::NOTHING);
        assert!(
            frame.expand(0.5).contains_rect(rect)
                && window.expand(0.5).contains_rect(rect)
                && part.expand(0.5).contains_rect(rect),
            "'{label}' at {rect:?} (shown: {part:?}) is not in sight in the dialog '{title}' at {frame:?} \
             (the window: {window:?}); the screen:\n{}",
            s.screen()
        );
    }
}

/// Opens a dialog with `opener`, waits for the first of its `buttons`, checks that they and its
/// controls are on screen, closes it with `close`.
fn dialog(s: &mut Session, window: Rect, opener: &str, title: &str, buttons: &[&str], close: &str) {
    s.click(opener);
    s.wait_for_label(buttons[0]);
    every_control_on_screen(s, window, &format!("the dialog of '{opener}'"));
    buttons_on_screen(s, window, title, buttons);
    s.click(close);
    assert!(
        s.harness.query_by_role_and_label(Role::Window, title).is_none(),
        "'{close}' closed the dialog '{title}':\n{}",
        s.screen()
    );
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
    let profiles = ["Close Profiles", "Test the sandbox connection", "Add profile"];
    dialog(&mut s, window, "Profiles…", "Profiles", &profiles, "Close Profiles");
    s.click("Profiles…");
    s.click("Add profile");
    s.wait_for_label("Save profile");
    every_control_on_screen(&s, window, "the profile form");
    let form = ["Close Profiles", "Save profile", "Test connection", "Cancel"];
    buttons_on_screen(&s, window, "Profiles", &form);
    // What the form cannot take is said above its buttons, which stay, and the dialog stays put.
    let top = s.harness.get_by_role_and_label(Role::Window, "Profiles").rect().top();
    s.click("Save profile");
    s.wait_for_text("cannot be a profile name");
    s.harness.step();
    buttons_on_screen(&s, window, "Profiles", &form);
    let moved = s.harness.get_by_role_and_label(Role::Window, "Profiles").rect().top();
    assert!((moved - top).abs() < 0.5, "the dialog moved from {top} to {moved} when the form said why");
    s.click("Cancel");
    assert!(s.harness.query_by_label("Save profile").is_none(), "Cancel closed the profile form:\n{}", s.screen());
    buttons_on_screen(&s, window, "Profiles", &profiles);
    s.click("Close Profiles");
    let closed = s.harness.query_by_role_and_label(Role::Window, "Profiles").is_none();
    assert!(closed, "'Close Profiles' closed the dialog after the form:\n{}", s.screen());
    let find = ["Find", "Close Find user"];
    dialog(&mut s, window, "Find user", "Find user", &find, "Close Find user");
    let import = ["Browse for the file to import", "Plan", "Close Import users from a file"];
    let title = "Import users from a file";
    dialog(&mut s, window, "Import…", title, &import, "Close Import users from a file");
    let schema = ["Close Schema changes"];
    dialog(&mut s, window, "Schema changes…", "Schema changes", &schema, "Close Schema changes");
    let export = ["Browse for the export file", "Export", "Close Export to a file"];
    dialog(&mut s, window, "Export…", "Export to a file", &export, "Close Export to a file");
    s.click("Saved");
    dialog(&mut s, window, "Save tab…", "Save operation", &["Save", "Cancel", "Close Save operation"], "Cancel");
    s.click("Explorer");
    s.click("Copy as code");
    dialog(&mut s, window, "cURL", "cURL code", &["Close cURL code"], "Close cURL code");
    s.click("Help");
    let about = ["Copy details", "Close", "Close About orgql"];
    dialog(&mut s, window, "About orgql", "About orgql", &about, "Close About orgql");
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
