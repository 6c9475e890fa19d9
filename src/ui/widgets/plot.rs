//! Plots drawn still (the chart of a tab's rows, the import's plan bar, the webhooks' timeline)
//! and the labelled choice beside them.

use egui_plot::Plot;

/// A plot that stays as drawn (no zoom, pan or box zoom: a click or a drag means what the
/// view makes of it), from zero up.
pub fn still_plot<'a>(id_salt: impl egui::AsIdSalt) -> Plot<'a> {
    Plot::new(id_salt)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .include_y(0.0)
}

/// A choice among `choices` (value, words), with `label` as its accessible name.
pub fn choice<T: PartialEq + Copy>(
    ui: &mut egui::Ui,
    label: &str,
    id_salt: &str,
    current: &mut T,
    choices: &[(T, &str)],
) {
    let label = ui.label(label);
    let shown = choices.iter().find(|(value, _)| value == current).map_or("", |(_, words)| words).to_owned();
    let options = choices.iter().map(|(value, words)| (*value, (*words).to_owned()));
    crate::ui::widgets::a11y::combo(ui, id_salt, label.id, shown, current, options);
}
