//! The Import window's charts (issue 32): the plan's counts as one stacked bar whose parts filter
//! the plan's grid as the count buttons do, and the rows applied per second while an apply runs.
//!
//! The bar is painted with egui itself, a widget a part, so that each part is a control a screen
//! reader names and a click reaches ("update", its count on hover), which one egui_plot item
//! would not be; the rate is an egui_plot line.

use std::time::Instant;

use egui_plot::Line;

use crate::ui::widgets::plot::still_plot;

use crate::import::Action;
use crate::table::thousands;

const BAR_HEIGHT: f32 = 26.0;
/// Room beside a part's name: a part narrower than its name and this draws no text (the name
/// is still there for a screen reader, and on hover).
const TEXT_MARGIN: f32 = 8.0;

/// A part's colour.
fn colour(action: Action) -> egui::Color32 {
    match action {
        Action::Create => egui::Color32::from_rgb(0x00, 0x9e, 0x73),
        Action::Update => egui::Color32::from_rgb(0x3b, 0x82, 0xc4),
        Action::Archive => egui::Color32::from_rgb(0xd5, 0x5e, 0x00),
        Action::Activate => egui::Color32::from_rgb(0xcc, 0x79, 0xa7),
        Action::Unchanged => egui::Color32::from_rgb(0x9a, 0x9a, 0x9a),
        Action::Invalid => egui::Color32::from_rgb(0xd0, 0x21, 0x21),
    }
}

/// The plan's counts as one bar (parts of `parts`: action, rows, words); a click on a part
/// shows only its rows (`filter`), a click on the part shown shows every row again.
pub fn plan_bar(ui: &mut egui::Ui, parts: &[(Action, u64, &str)], filter: &mut Option<Action>) {
    let total: u64 = parts.iter().map(|(_, n, _)| n).sum();
    if total == 0 {
        return;
    }
    let width = ui.available_width().min(720.0);
    let (whole, _) = ui.allocate_exact_size(egui::vec2(width, BAR_HEIGHT), egui::Sense::hover());
    let mut left = whole.left();
    for (action, n, words) in parts.iter().filter(|(_, n, _)| *n > 0) {
        let part_width = width * (*n as f32 / total as f32);
        let rect = egui::Rect::from_min_size(egui::pos2(left, whole.top()), egui::vec2(part_width, BAR_HEIGHT));
        left += part_width;
        let name = action.word();
        let response = ui.interact(rect, ui.scope_id().with(("plan-bar", name)), egui::Sense::click());
        response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, *filter == Some(*action), name));
        let chosen = *filter == Some(*action);
        let painter = ui.painter();
        let fill = if chosen || response.hovered() { colour(*action) } else { colour(*action).gamma_multiply(0.8) };
        painter.rect_filled(rect.shrink2(egui::vec2(0.5, 0.0)), 0.0, fill);
        if chosen {
            painter.rect_stroke(
                rect.shrink(1.0),
                0.0,
                (2.0, ui.visuals().strong_text_color()),
                egui::StrokeKind::Inside,
            );
        }
        let text = painter.layout_no_wrap(name.to_owned(), egui::FontId::proportional(13.0), egui::Color32::WHITE);
        if text.size().x + TEXT_MARGIN <= part_width {
            painter.galley(rect.center() - text.size() / 2.0, text, egui::Color32::WHITE);
        }
        let response = response.on_hover_text(format!(
            "{} {words} ({:.0}%); click to list them",
            thousands(*n),
            *n as f64 * 100.0 / total as f64
        ));
        if response.clicked() {
            *filter = if chosen { None } else { Some(*action) };
        }
    }
}

/// Rows applied over time, for rows per second.
#[derive(Default)]
pub struct ApplyRate {
    started: Option<Instant>,
    /// Seconds since the start and rows done then.
    samples: Vec<(f64, u64)>,
}

impl ApplyRate {
    /// An apply starts.
    pub fn start(&mut self) {
        self.started = Some(Instant::now());
        self.samples.clear();
        self.samples.push((0.0, 0));
    }

    /// `done` rows are applied by now.
    pub fn record(&mut self, done: u64) {
        let Some(started) = self.started else { return };
        self.samples.push((started.elapsed().as_secs_f64(), done));
    }

    /// Rows per second in each step of `step` seconds since the start, at the step's end.
    pub fn per_second(&self, step: f64) -> Vec<[f64; 2]> {
        let Some(&(last, _)) = self.samples.last() else { return Vec::new() };
        let steps = (last / step).ceil() as usize;
        let mut done_by = vec![0u64; steps + 1];
        let mut at = 0;
        for (i, slot) in done_by.iter_mut().enumerate() {
            while at + 1 < self.samples.len() && self.samples[at + 1].0 <= i as f64 * step {
                at += 1;
            }
            *slot = self.samples[at].1;
        }
        if let (Some(slot), Some((_, done))) = (done_by.last_mut(), self.samples.last()) {
            *slot = *done;
        }
        done_by
            .windows(2)
            .enumerate()
            .map(|(i, w)| [(i + 1) as f64 * step, w[1].saturating_sub(w[0]) as f64 / step])
            .collect()
    }

    /// The rate drawn, when an apply has been seen: per second, or per quarter second for an
    /// apply of less than ten seconds.
    pub fn ui(&self, ui: &mut egui::Ui) {
        let Some(&(elapsed, done)) = self.samples.last() else { return };
        if elapsed <= 0.0 {
            return;
        }
        let step = if elapsed < 10.0 { 0.25 } else { 1.0 };
        let points = self.per_second(step);
        let took = if elapsed < 1.0 { format!("{elapsed:.2} s") } else { format!("{elapsed:.1} s") };
        let rows = crate::import::plan::counted(done, "row", "rows");
        ui.label(format!("{rows} in {took}: {:.0} rows per second", done as f64 / elapsed));
        // A line needs a few steps: an apply of under a second says its rate in words only.
        if points.len() < 3 {
            return;
        }
        still_plot("apply-rate")
            .height(90.0)
            .include_x(0.0)
            .x_axis_label("seconds")
            .y_axis_label("rows/s")
            .show(ui, |plot| plot.line(Line::new("rows per second", points)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_per_second_are_the_rows_done_in_each_second() {
        let rate = ApplyRate {
            started: Some(Instant::now()),
            samples: vec![(0.0, 0), (0.5, 10), (1.0, 20), (1.5, 25), (2.4, 60)],
        };
        assert_eq!(rate.per_second(1.0), [[1.0, 20.0], [2.0, 5.0], [3.0, 35.0]]);
        assert_eq!(rate.per_second(0.5)[..3], [[0.5, 20.0], [1.0, 20.0], [1.5, 10.0]]);
        assert!(ApplyRate::default().per_second(1.0).is_empty());
    }
}
