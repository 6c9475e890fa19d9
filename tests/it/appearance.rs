//! Appearance: light and dark themes (or the system's) and the text size, from the View menu
//! and the browser's keys; the renderer, named in Help → About and chosen in View → Renderer.

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

#[test]
fn about_names_the_renderer_and_view_keeps_the_next_start_s_choice() {
    use orgql::ui::renderer::{Order, PassedOver, Renderer, StartReport, WindowStart};
    let mut s = Session::start();
    // What the window's start hands the app (src/ui/mod.rs) on a display without OpenGL.
    let order = Order::of(None, None, &[Renderer::Glow, Renderer::WgpuVulkan]);
    let start = WindowStart {
        at: chrono::Local::now().fixed_offset(),
        renderer: Some(Renderer::WgpuVulkan),
        adapter: Some("llvmpipe (LLVM 15.0.6, 256 bits) (software), driver Mesa 22.3.6".to_owned()),
        asked_by: order.asked_by.clone(),
        passed_over: vec![PassedOver {
            renderer: Renderer::Glow,
            reason: "glutin error: [a7] GLXBadFBConfig".to_owned(),
        }],
    };
    s.harness.state_mut().set_renderer(StartReport { start, order });
    s.click("Help");
    s.click("About orgql");
    s.wait_for_label("wgpu — Vulkan on llvmpipe (LLVM 15.0.6, 256 bits) (software), driver Mesa 22.3.6");
    assert!(s.harness.query_by_label("glow (OpenGL) (glutin error: [a7] GLXBadFBConfig)").is_some(), "{}", s.screen());
    let software = "drawn in software (lavapipe): the processor draws every frame, slow on a large screen; install the machine's GPU driver (or ask IT for a virtual GPU), or use a smaller window or scale";
    assert!(s.harness.query_by_label(software).is_some(), "About says it is drawn in software: {}", s.screen());
    assert!(s.harness.query_by_label("glow (OpenGL), then wgpu — Vulkan (automatic)").is_some(), "{}", s.screen());
    s.click("Close");
    assert!(s.harness.query_by_label("Copy details").is_none(), "the About window closed: {}", s.screen());
    // Escape closes it too, as every orgql window.
    s.click("Help");
    s.click("About orgql");
    s.wait_for_label("Copy details");
    crate::a11y_ui::press(&mut s, Key::Escape);
    assert!(s.harness.query_by_label("Copy details").is_none(), "Escape closed the About window: {}", s.screen());

    // View → Renderer: the next start's first renderer, kept beside the profiles file.
    s.click("View");
    s.wait_for_label("Renderer at the next start");
    assert!(s.harness.query_by_label_contains("Automatic: ").is_some(), "{}", s.screen());
    s.click("wgpu — Vulkan");
    s.wait_for("the setting to be kept", |h| !h.state().renderer().saving());
    let kept = std::fs::read_to_string(s.path("renderer.toml")).expect("the setting's file");
    assert!(kept.contains("first = \"wgpu-vulkan\""), "{kept}");
    assert_eq!(orgql::ui::renderer::choice::read_setting(&s.path("")), Ok(Some(Renderer::WgpuVulkan)));
    if s.harness.query_by_label("Renderer at the next start").is_none() {
        s.click("View");
    }
    s.harness.query_by_label_contains("Automatic: ").expect("the automatic choice").click();
    s.harness.step();
    s.wait_for("the setting to be kept", |h| !h.state().renderer().saving());
    assert_eq!(orgql::ui::renderer::choice::read_setting(&s.path("")), Ok(None));
}
