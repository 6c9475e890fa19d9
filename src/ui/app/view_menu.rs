//! The "View" menu: the theme (following the system where it says, or light, or dark, or high
//! contrast: [`crate::ui::widgets::theme`]) and
//! the text size (Ctrl+= and Ctrl+- as in a browser, Ctrl+0 to reset). Both live in egui's
//! options, which eframe keeps with the window's size and place (`app.ron`), so they come back
//! on the next start. Last, the renderer of the next start ([`crate::ui::renderer`]), kept in a file
//! of its own (it is read before the window, and so before `app.ron`, exists).

use egui::ThemePreference;

/// The text sizes offered, as egui's zoom factor.
const SMALLEST: f32 = 0.5;
const LARGEST: f32 = 3.0;
/// One step of "Larger text" and "Smaller text".
const STEP: f32 = 0.1;

/// Draws the menu button and its menu.
pub fn ui(ui: &mut egui::Ui, renderer: &mut crate::ui::renderer::RendererPanel) {
    ui.menu_button("View", |ui| {
        ui.label("Theme");
        let high = crate::ui::widgets::theme::high_contrast(ui.ctx());
        let mut preference = ui.ctx().options(|o| o.theme_preference);
        let before = preference;
        let mut chosen = false;
        for (choice, words) in [
            (ThemePreference::System, "Follow the system"),
            (ThemePreference::Light, "Light"),
            (ThemePreference::Dark, "Dark"),
        ] {
            if ui.radio(!high && preference == choice, words).clicked() {
                preference = choice;
                chosen = true;
            }
        }
        if ui.radio(high, "High contrast").on_hover_text("White and yellow on black").clicked() {
            crate::ui::widgets::theme::set_high_contrast(ui.ctx(), true);
        }
        if chosen {
            crate::ui::widgets::theme::set_high_contrast(ui.ctx(), false);
            if preference != before {
                ui.ctx().set_theme(preference);
            }
        }
        ui.separator();
        let zoom = ui.ctx().zoom_factor();
        ui.label(format!("Text size {:.0} %", zoom * 100.0));
        // The shortcuts show on hover, so that each button's name is its label alone.
        let keys =
            |key: egui::Key| ui.ctx().format_shortcut(&egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, key));
        let (plus, minus, zero) = (keys(egui::Key::Equals), keys(egui::Key::Minus), keys(egui::Key::Num0));
        if ui.add_enabled(zoom < LARGEST, egui::Button::new("Larger text")).on_hover_text(plus).clicked() {
            set_text_size(ui.ctx(), zoom + STEP);
        }
        if ui.add_enabled(zoom > SMALLEST, egui::Button::new("Smaller text")).on_hover_text(minus).clicked() {
            set_text_size(ui.ctx(), zoom - STEP);
        }
        if ui.add_enabled(zoom != 1.0, egui::Button::new("Reset text size")).on_hover_text(zero).clicked() {
            set_text_size(ui.ctx(), 1.0);
        }
        ui.separator();
        renderer.menu_ui(ui);
    });
}

/// Sets the zoom to `zoom`, kept within the sizes offered and rounded to a step.
fn set_text_size(ctx: &egui::Context, zoom: f32) {
    ctx.set_zoom_factor(((zoom.clamp(SMALLEST, LARGEST)) * 10.0).round() / 10.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_theme_and_text_size_are_kept_with_egui_s_memory() {
        // eframe writes `egui::Memory` (its options included) to app.ron and reads it back.
        let ctx = egui::Context::default();
        ctx.set_theme(ThemePreference::Light);
        set_text_size(&ctx, 1.34);
        let mut output = ctx.run_ui(egui::RawInput::default(), |_| {});
        output.textures_delta.clear();
        let kept = ctx.memory(ron::to_string).expect("the memory serialises");
        let memory: egui::Memory = ron::from_str(&kept).expect("and reads back");
        assert_eq!(memory.options.theme_preference, ThemePreference::Light);
        assert_eq!(memory.options.zoom_factor, 1.3, "rounded to a step");
    }
}
