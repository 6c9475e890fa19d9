//! The Import window's outcome: the rehearsal's and the apply's, and the progress of an apply
//! under way (each row's own outcome is [`super::row_outcomes`]).

use super::{Ask, ImportWindow, rows};
use crate::table::thousands;
use crate::ui::import::row_outcomes::{capitalised, were_skipped};
use crate::ui::widgets::requested::Requested;

impl ImportWindow {
    /// The rehearsal's and the apply's outcome, and the progress of an apply under way.
    pub(super) fn outcome_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
        if self.rehearsal.is_pending() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("rehearsing on a scratch sandbox");
            });
        }
        if let Some(rehearsal) = self.rehearsal.value() {
            crate::ui::widgets::a11y::polite(ui, capitalised(&rehearsal.summary()));
            for (row, key, message) in rehearsal.refused.iter().take(20) {
                ui.colored_label(ui.visuals().warn_fg_color, format!("Row {row} ({key}) would be refused: {message}"));
            }
        }
        if let Some(error) = self.rehearsal.error() {
            crate::ui::widgets::a11y::alert(ui, capitalised(error));
        }
        if self.applied.is_pending() {
            ui.horizontal(|ui| {
                let (done, total) = self.progress.unwrap_or((0, None));
                let text = match total {
                    Some(total) => format!("{} of {} applied", thousands(done), rows(total)),
                    None => format!("{} applied", rows(done)),
                };
                let fraction = total.filter(|t| *t > 0).map(|t| done as f32 / t as f32).unwrap_or(0.0);
                ui.add(egui::ProgressBar::new(fraction).text(text).desired_width(320.0));
                if let Some(job) = self.apply_job
                    && ui.button("Cancel").on_hover_text("Stop after the row in flight; Resume goes on").clicked()
                {
                    asks.push(Ask::Cancel(job));
                }
            });
        }
        if !matches!(self.applied, Requested::Idle) {
            self.rate.ui(ui);
        }
        if let Some(error) = self.applied.error() {
            crate::ui::widgets::a11y::alert(ui, capitalised(error));
        }
        let Some(outcome) = self.applied.value() else { return };
        let a = &outcome.applied;
        crate::ui::widgets::a11y::polite(
            ui,
            egui::RichText::new(format!("{}.", capitalised(&a.summary(outcome.invalid)))).strong(),
        );
        if let Some(invalid) = self.invalid.as_ref().filter(|_| outcome.invalid > 0) {
            ui.label(were_skipped(invalid));
        }
        if let Some(whole) = &outcome.whole {
            let landed = if whole.landed() { "every row landed" } else { "not every row landed" };
            crate::ui::widgets::a11y::polite(ui, format!("The whole import: {}; {landed}.", whole.summary()));
        }
        if let Some(stopped) = &outcome.stopped {
            ui.colored_label(ui.visuals().warn_fg_color, capitalised(stopped));
        }
        for (row, key, message, field) in outcome.failures.iter().take(50) {
            // The service's words often name the field already (`input.email: …`).
            let at = if field.is_empty() || message.starts_with(field.as_str()) {
                String::new()
            } else {
                format!(" at {field}")
            };
            ui.colored_label(ui.visuals().error_fg_color, format!("Row {row} ({key}){at}: {message}"));
        }
        match &outcome.results {
            Ok(path) => ui.label(format!("Every row with its outcome: {}", path.display())),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("The results file could not be written: {e}"))
            }
        };
        match &outcome.undo {
            Ok(path) => ui.label(format!("To take it back, import {}", path.display())),
            Err(e) => ui.colored_label(ui.visuals().error_fg_color, format!("The undo file could not be written: {e}")),
        };
    }
}
