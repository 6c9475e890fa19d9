//! The themes: Light, Dark and High contrast, each with every text colour at 4.5:1 or more
//! against the background it is drawn on (3:1 for large text and the focus ring), disabled
//! controls readable; `text_pairs` lists those pairs and `contrast` computes WCAG's ratio, so
//! that a test checks every one of them (both are compiled for the tests only).
//!
//! Light and Dark follow egui's own look with the colours that failed changed (dim text 2.70:1,
//! red errors on dark 4.31:1, the orange warning on light 2.79:1, disabled buttons 2.60:1);
//! High contrast is white and yellow on black, with a white frame on every control. The choice
//! is kept in egui's persisted memory, as the theme and text size are.

use egui::{Color32, Context, Id, Stroke, Theme, Visuals};

/// Where the high-contrast choice is kept.
fn high_contrast_id() -> Id {
    Id::unique("orgql-high-contrast")
}

/// Where the theme installed last is noted (installing is done only when it changes).
fn installed_id() -> Id {
    Id::unique("orgql-theme-installed")
}

/// Whether the high-contrast theme is chosen.
pub fn high_contrast(ctx: &Context) -> bool {
    ctx.data_mut(|d| *d.get_persisted_mut_or_default::<bool>(high_contrast_id()))
}

/// Chooses the high-contrast theme (or Light and Dark again); it applies at once.
pub fn set_high_contrast(ctx: &Context, on: bool) {
    ctx.data_mut(|d| d.insert_persisted(high_contrast_id(), on));
    install(ctx);
}

/// Installs the themes' visuals when the choice changed since they were installed last (a
/// lookup a frame otherwise).
pub fn install(ctx: &Context) {
    let high = high_contrast(ctx);
    if ctx.data(|d| d.get_temp::<bool>(installed_id())) == Some(high) {
        return;
    }
    ctx.data_mut(|d| d.insert_temp(installed_id(), high));
    // No animations: a scroll bar that appears with a Run's rows faded in over five more frames
    // (egui's `animate_bool_responsive`), each a whole repaint — up to half a second each when the
    // window is drawn in software (issue 51). Transitions are instant instead.
    ctx.all_styles_mut(|style| style.animation_time = 0.0);
    if high {
        ctx.set_visuals_of(Theme::Dark, high_contrast_visuals());
        ctx.set_visuals_of(Theme::Light, high_contrast_visuals());
    } else {
        ctx.set_visuals_of(Theme::Dark, dark());
        ctx.set_visuals_of(Theme::Light, light());
    }
}

/// The focus ring's colour in a theme: 3:1 or more against its panels and windows.
pub fn focus_color(visuals: &Visuals) -> Color32 {
    if visuals.panel_fill == Color32::BLACK {
        Color32::from_rgb(255, 255, 0)
    } else if visuals.dark_mode {
        Color32::from_rgb(255, 200, 40)
    } else {
        Color32::from_rgb(0, 90, 190)
    }
}

/// How opaque a disabled control is drawn (egui's 0.5 left its text at 2.60:1).
const DISABLED_ALPHA: f32 = 0.75;

/// The Light theme.
pub fn light() -> Visuals {
    let mut v = Visuals::light();
    let text = Color32::from_gray(40);
    v.widgets.noninteractive.fg_stroke.color = text;
    v.widgets.inactive.fg_stroke.color = Color32::from_gray(30);
    v.widgets.hovered.fg_stroke.color = Color32::BLACK;
    v.widgets.active.fg_stroke.color = Color32::BLACK;
    v.weak_text_color = Some(Color32::from_gray(100));
    v.warn_fg_color = Color32::from_rgb(160, 64, 0);
    v.error_fg_color = Color32::from_rgb(190, 0, 0);
    v.hyperlink_color = Color32::from_rgb(0, 80, 170);
    v.selection.stroke.color = Color32::from_rgb(0, 60, 100);
    v.disabled_alpha = DISABLED_ALPHA;
    v
}

/// The Dark theme.
pub fn dark() -> Visuals {
    let mut v = Visuals::dark();
    v.widgets.noninteractive.fg_stroke.color = Color32::from_gray(200);
    v.widgets.inactive.fg_stroke.color = Color32::from_gray(215);
    v.weak_text_color = Some(Color32::from_gray(150));
    v.warn_fg_color = Color32::from_rgb(255, 160, 40);
    v.error_fg_color = Color32::from_rgb(255, 110, 110);
    v.hyperlink_color = Color32::from_rgb(110, 180, 255);
    v.selection.bg_fill = Color32::from_rgb(0, 70, 110);
    v.selection.stroke.color = Color32::from_rgb(200, 228, 255);
    v.disabled_alpha = DISABLED_ALPHA;
    v
}

/// The High contrast theme: white and yellow on black, a white frame on every control.
pub fn high_contrast_visuals() -> Visuals {
    let mut v = Visuals::dark();
    let (black, white) = (Color32::BLACK, Color32::WHITE);
    v.panel_fill = black;
    v.window_fill = black;
    v.extreme_bg_color = black;
    v.faint_bg_color = Color32::from_gray(24);
    v.code_bg_color = Color32::from_gray(24);
    v.window_stroke = Stroke::new(2.0, white);
    v.weak_text_color = Some(Color32::from_gray(220));
    v.warn_fg_color = Color32::from_rgb(255, 220, 0);
    v.error_fg_color = Color32::from_rgb(255, 140, 140);
    v.hyperlink_color = Color32::from_rgb(130, 210, 255);
    v.selection.bg_fill = Color32::from_rgb(0, 0, 150);
    v.selection.stroke = Stroke::new(2.0, Color32::from_rgb(255, 255, 0));
    v.disabled_alpha = 0.8;
    for (w, fg) in [
        (&mut v.widgets.noninteractive, white),
        (&mut v.widgets.inactive, white),
        (&mut v.widgets.hovered, Color32::from_rgb(255, 255, 0)),
        (&mut v.widgets.active, Color32::from_rgb(255, 255, 0)),
        (&mut v.widgets.open, white),
    ] {
        w.bg_fill = black;
        w.weak_bg_fill = black;
        w.fg_stroke = Stroke::new(1.5, fg);
    }
    v.widgets.noninteractive.bg_stroke = Stroke::new(1.0, Color32::from_gray(200));
    v.widgets.inactive.bg_stroke = Stroke::new(1.0, white);
    v.widgets.hovered.bg_stroke = Stroke::new(2.0, Color32::from_rgb(255, 255, 0));
    v.widgets.active.bg_stroke = Stroke::new(2.0, Color32::from_rgb(255, 255, 0));
    v
}

#[cfg(test)]
/// A text colour on the background it is drawn on, and whether the text is large (3:1 is
/// enough then; the focus ring and control frames are held to 3:1 too).
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    /// What it is ("weak text on a panel").
    pub what: &'static str,
    /// The text's colour (drawn over `bg` when translucent).
    pub fg: Color32,
    /// The background's colour.
    pub bg: Color32,
    /// Large text or a non-text mark (3:1).
    pub large: bool,
}

#[cfg(test)]
/// Every text colour of a theme on every background it is drawn on.
pub fn text_pairs(v: &Visuals) -> Vec<Pair> {
    let text_edit = v.text_edit_bg_color();
    let disabled = |c: Color32| c.gamma_multiply(v.disabled_alpha);
    let pair = |what, fg, bg| Pair { what, fg, bg, large: false };
    let mut pairs = Vec::new();
    for (place, bg) in [
        ("a panel", v.panel_fill),
        ("a window", v.window_fill),
        ("a striped row", over(v.faint_bg_color, v.panel_fill)),
    ] {
        let _ = place;
        pairs.push(pair("text", v.text_color(), bg));
        pairs.push(pair("weak text (dates, scopes, type names)", v.weak_text_color(), bg));
        pairs.push(pair("strong text", v.strong_text_color(), bg));
        pairs.push(pair("a warning", v.warn_fg_color, bg));
        pairs.push(pair("an error", v.error_fg_color, bg));
        pairs.push(pair("a link", v.hyperlink_color, bg));
        pairs.push(pair("disabled text", disabled(v.text_color()), bg));
        pairs.push(Pair { what: "the focus ring", fg: focus_color(v), bg, large: true });
    }
    pairs.push(pair("typed text", v.text_color(), text_edit));
    pairs.push(pair("a placeholder", v.weak_text_color(), text_edit));
    pairs.push(pair("code", v.text_color(), v.code_bg_color));
    pairs.push(pair("selected text", v.text_color(), v.selection.bg_fill));
    pairs.push(pair("a selected button", v.selection.stroke.color, v.selection.bg_fill));
    for (state, w) in [
        ("a button", &v.widgets.inactive),
        ("a hovered button", &v.widgets.hovered),
        ("a pressed or focused button", &v.widgets.active),
    ] {
        let bg = over(w.weak_bg_fill, v.panel_fill);
        pairs.push(pair(state, w.fg_stroke.color, bg));
    }
    let button = over(v.widgets.inactive.weak_bg_fill, v.panel_fill);
    pairs.push(pair(
        "a disabled button",
        disabled(v.widgets.inactive.fg_stroke.color),
        over(disabled(v.widgets.inactive.weak_bg_fill), v.panel_fill),
    ));
    pairs.push(Pair { what: "the focus ring on a button", fg: focus_color(v), bg: button, large: true });
    pairs
}

#[cfg(test)]
/// `fg` drawn over an opaque `bg` (egui's colours are premultiplied).
fn over(fg: Color32, bg: Color32) -> Color32 {
    let a = fg.a() as f32 / 255.0;
    let mix = |f: u8, b: u8| (f as f32 + b as f32 * (1.0 - a)).round().min(255.0) as u8;
    Color32::from_rgb(mix(fg.r(), bg.r()), mix(fg.g(), bg.g()), mix(fg.b(), bg.b()))
}

#[cfg(test)]
/// WCAG 2's contrast ratio of `fg` drawn over the opaque `bg` (1 to 21).
pub fn contrast(fg: Color32, bg: Color32) -> f32 {
    let fg = over(fg, bg);
    let luminance = |c: Color32| {
        let channel = |v: u8| {
            let v = v as f32 / 255.0;
            if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * channel(c.r()) + 0.7152 * channel(c.g()) + 0.0722 * channel(c.b())
    };
    let (a, b) = (luminance(fg), luminance(bg));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_is_wcag_s_ratio() {
        assert!((contrast(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 0.01);
        assert!((contrast(Color32::from_gray(118), Color32::WHITE) - 4.54).abs() < 0.05);
        // What the issue measured of egui's own colours: red errors on dark at 4.31:1.
        let egui_dark = Visuals::dark();
        assert!((contrast(egui_dark.error_fg_color, egui_dark.panel_fill) - 4.31).abs() < 0.05);
    }

    #[test]
    fn every_text_of_every_theme_is_readable() {
        let mut failed = Vec::new();
        for (theme, visuals) in [("Light", light()), ("Dark", dark()), ("High contrast", high_contrast_visuals())] {
            for pair in text_pairs(&visuals) {
                let ratio = contrast(pair.fg, pair.bg);
                let needed = if pair.large { 3.0 } else { 4.5 };
                if ratio < needed {
                    failed.push(format!(
                        "{theme}: {} {:?} on {:?} is {ratio:.2}:1 (needs {needed}:1)",
                        pair.what, pair.fg, pair.bg
                    ));
                }
            }
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
