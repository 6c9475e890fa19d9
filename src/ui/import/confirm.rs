//! The Import window's actions and the question before a change: Save plan, Rehearse, Apply and
//! Resume, and the confirmation that names what Apply or Resume will send.

use super::{Ask, ImportWindow};
use crate::import::plan::counted;
use crate::table::thousands;
use crate::ui::import::row_outcomes::will_skip;
use crate::ui::widgets::requested::Requested;

impl ImportWindow {
    /// Save plan, Rehearse, Apply and Resume.
    pub(super) fn actions_ui(&mut self, ui: &mut egui::Ui, connection: &str, asks: &mut Vec<Ask>) {
        let Some(plan) = self.plan.value() else { return };
        let idle = !self.busy();
        let writes = plan.counts.writes();
        ui.horizontal_wrapped(|ui| {
            if ui
                .add_enabled(idle, egui::Button::new("Save plan"))
                .on_hover_text("Write the plan beside the file, as CSV")
                .clicked()
            {
                asks.push(Ask::SavePlan { xlsx: false });
            }
            if ui
                .add_enabled(idle, egui::Button::new("Save plan as Excel"))
                .on_hover_text("Write the plan beside the file, as an Excel workbook")
                .clicked()
            {
                asks.push(Ask::SavePlan { xlsx: true });
            }
            if ui
                .add_enabled(idle && writes > 0, egui::Button::new("Rehearse"))
                .on_hover_text(
                    "Apply the plan to a scratch sandbox seeded with these users; nothing reaches the service",
                )
                .clicked()
            {
                asks.push(Ask::Rehearse);
            }
            if ui
                .add_enabled(idle && writes > 0, egui::Button::new("Apply…"))
                .on_hover_text(format!(
                    "Send the {} to {connection}, one row at a time",
                    counted(writes, "change", "changes")
                ))
                .clicked()
            {
                self.confirm = Some(false);
            }
            if let Some(left) = plan.resumable
                && ui
                    .add_enabled(idle, egui::Button::new("Resume"))
                    .on_hover_text(format!(
                        "Go on with the interrupted apply of this file ({} left); no row is applied twice",
                        counted(left as u64, "row was", "rows were")
                    ))
                    .clicked()
            {
                self.confirm = Some(true);
            }
            ui.checkbox(&mut self.overwrite, "Overwrite values changed since the plan");
        });
        match &self.saved_plan {
            Requested::Done(path) => {
                ui.label(format!("The plan is in {}.", path.display()));
            }
            Requested::Failed { error, .. } => {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            _ => {}
        }
    }
}

impl ImportWindow {
    /// The question before Apply or Resume; `Some(resume)` once answered yes.
    pub(super) fn confirm_ui(&mut self, ctx: &egui::Context, connection: &str) -> Option<bool> {
        let resume = self.confirm?;
        let plan = self.plan.value()?;
        let question = if resume {
            format!(
                "Go on with the interrupted apply of {} on {connection}? The row that was in flight is read from the \
                 service before anything is sent again.",
                plan.file.display()
            )
        } else {
            let counts = plan.counts;
            let missing = plan.rows.len() as u64 - plan.file_rows;
            let mut what: String = [
                (counts.create, "to create"),
                (counts.update, "to update"),
                (counts.archive, "to archive"),
                (counts.activate, "to activate"),
            ]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, words)| format!("{} {words}", thousands(n)))
            .collect::<Vec<_>>()
            .join(", ");
            if missing > 0 {
                what.push_str(&format!(" (of them, {} missing from the file)", counted(missing, "user", "users")));
            }
            format!(
                "Apply {} to {connection}: {what}? Each row is recorded before the next is sent, so Cancel \
                 or an interruption can be resumed.",
                counted(counts.writes(), "change", "changes")
            )
        };
        let mut answer = None;
        let modal = egui::Modal::new(egui::Id::unique("import-confirm")).show(ctx, |ui| {
            ui.set_max_width(440.0);
            ui.strong(if resume { "Resume the import" } else { "Apply the import" });
            ui.label(question);
            if let Some(invalid) = self.invalid.as_ref().filter(|_| !resume) {
                ui.label(will_skip(invalid));
            }
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button(if resume { "Resume now" } else { "Apply now" }).clicked() {
                    answer = Some(true);
                }
                if ui.button("Not now").clicked() {
                    answer = Some(false);
                }
            });
        });
        if modal.should_close() {
            answer.get_or_insert(false);
        }
        let yes = answer?;
        self.confirm = None;
        yes.then_some(resume)
    }
}
