//! Appearance: light and dark themes (or the system's) and the text size, from the View menu
//! and the browser's keys.

use egui::{Key, Modifiers, Theme};
use egui_kittest::kittest::Queryable;

use crate::harness::Session;

/// Opens the View menu unless it is open.
fn open_view_menu(s: &mut Session) {
    if s.harness.query_by_label("Larger text").is_none() {
        s.click("View");
    }
    s.wait_for_label("Larger text");
}

fn zoom(s: &Session) -> f32 {
    s.harness.ctx.zoom_factor()
}

#[test]
fn the_view_menu_switches_the_theme_and_the_keys_change_the_text_size() {
    let mut s = Session::start();
    open_view_menu(&mut s);
    s.click("Light");
    assert_eq!(s.harness.ctx.theme(), Theme::Light);
    assert!(!s.harness.ctx.global_style().visuals.dark_mode, "light visuals");
    open_view_menu(&mut s);
    s.click("Dark");
    assert_eq!(s.harness.ctx.theme(), Theme::Dark);
    open_view_menu(&mut s);
    assert!(s.harness.query_by_label("Text size 100 %").is_some(), "{}", s.screen());
    s.click("Larger text");
    assert!((zoom(&s) - 1.1).abs() < 1e-4, "{}", zoom(&s));
    // Ctrl+= and Ctrl+- as in a browser, Ctrl+0 back to 100 %.
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::Equals);
    s.harness.step();
    assert!((zoom(&s) - 1.2).abs() < 1e-4, "{}", zoom(&s));
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::Num0);
    s.harness.step();
    assert_eq!(zoom(&s), 1.0);
    s.harness.key_press_modifiers(Modifiers::COMMAND, Key::Minus);
    s.harness.step();
    assert!((zoom(&s) - 0.9).abs() < 1e-4, "{}", zoom(&s));
    s.harness.run();
}
