//! The Import window's first step: the file (a path field, always there, and Browse… for the
//! native dialog on its own thread) and each column's use (matched by name, remembered for the
//! same header, changed here).

use super::{Ask, EMPTY_CLEARS, ImportWindow};
use crate::import::Use;
use crate::import::plan::counted;
use crate::ui::widgets::file_dialog;

/// The words for a column's use in the mapping's choice.
const KEY: &str = "Key (finds the user)";
const GROUPS: &str = "Groups (as a set)";
const NOT_MAPPED: &str = "Not mapped";

impl ImportWindow {
    pub(super) fn file_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
        let idle = !self.busy();
        egui::Grid::new("import-file").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
            let label = ui.label("File");
            ui.horizontal(|ui| {
                let edit = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.path)
                            .hint_text("a CSV, XLSX or ODS file with a ref column")
                            .desired_width(460.0),
                    )
                    .labelled_by(label.id);
                if edit.changed() {
                    self.overrides.clear();
                }
                if ui.button("Browse…").accessible_name("Browse for the file to import").clicked() {
                    self.browse(ui.ctx());
                }
                if let Some(why) = file_dialog::failure(&self.picked) {
                    crate::ui::widgets::a11y::alert(ui, why);
                }
            });
            ui.end_row();
            let label = ui.label("Sheet");
            ui.add(egui::TextEdit::singleline(&mut self.sheet).hint_text("the first").desired_width(160.0))
                .labelled_by(label.id);
            ui.end_row();
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.archive_missing, "Archive active users missing from the file");
            if self.archive_missing {
                let label = ui.label("at most");
                ui.add(egui::DragValue::new(&mut self.archive_percent).range(0.0..=100.0).suffix(" %").speed(0.5))
                    .labelled_by(label.id);
                ui.weak("of them");
            }
        });
        ui.checkbox(&mut self.failed_only, "Only the rows that failed last time");
        let clears = ui
            .add_enabled(idle, egui::Checkbox::new(&mut self.empty_clears, EMPTY_CLEARS))
            .on_hover_text("An empty cell clears the value, as (empty) does; else it leaves the value as it is");
        // The plan follows the choice.
        if clears.changed() && self.plan.value().is_some() {
            asks.push(Ask::Plan);
        }
        ui.horizontal(|ui| {
            let can_plan = idle && !self.path.trim().is_empty();
            if ui
                .add_enabled(can_plan, egui::Button::new("Plan"))
                .on_hover_text("Read the file and compare it with the service's users; nothing is sent")
                .clicked()
            {
                asks.push(Ask::Plan);
            }
            if self.plan.is_pending() {
                ui.spinner();
                match self.progress {
                    Some((done, Some(total))) => ui.label(format!(
                        "reading the current users: {done} of {}",
                        counted(total, "request", "requests")
                    )),
                    Some((done, None)) => {
                        ui.label(format!("reading the current users: {}", counted(done, "request", "requests")))
                    }
                    None => ui.label("reading the file"),
                };
                if let Some(job) = self.plan_job
                    && ui.button("Cancel").clicked()
                {
                    asks.push(Ask::Cancel(job));
                }
            }
        });
        if let Some(error) = self.plan.error() {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
    }
}

impl ImportWindow {
    /// Each column with its use, to change; returns whether a use changed (the file is planned
    /// again with it).
    pub(super) fn mapping_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let Some(plan) = self.plan.value() else { return false };
        let mut changed: Option<(String, String)> = None;
        let idle = !self.busy();
        egui::Grid::new("import-mapping").num_columns(3).striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
            ui.strong("Column");
            ui.strong("Used as");
            ui.strong("Example");
            ui.end_row();
            for (i, (column, used)) in plan.mapping.header.iter().zip(&plan.mapping.uses).enumerate() {
                let label = ui.label(column);
                let current = use_words(used);
                let mut chosen = current.clone();
                ui.add_enabled_ui(idle, |ui| {
                    let combo = egui::ComboBox::from_id_salt(("import-use", i))
                        .selected_text(&current)
                        .width(200.0)
                        .show_ui(ui, |ui| {
                            // Not mapped first: a service with many fields (extra fields too)
                            // makes the list long enough to scroll.
                            for option in [NOT_MAPPED, KEY, GROUPS]
                                .iter()
                                .map(|s| (*s).to_owned())
                                .chain(plan.fields.iter().cloned())
                            {
                                crate::ui::widgets::a11y::choose(ui, &mut chosen, option.clone(), option);
                            }
                        });
                    let response = combo.response.labelled_by(label.id);
                    crate::ui::widgets::a11y::say_combo_value(ui, &response);
                });
                if chosen != current {
                    changed = Some((column.clone(), override_of(&chosen)));
                }
                ui.weak(plan.examples.get(i).map(String::as_str).unwrap_or_default());
                ui.end_row();
            }
        });
        let unmapped = plan.mapping.unmapped();
        if !unmapped.is_empty() {
            ui.weak(format!("Not mapped, so not imported: {}.", unmapped.join(", ")));
        }
        for note in &plan.notes {
            ui.colored_label(ui.visuals().warn_fg_color, note);
        }
        let Some((column, field)) = changed else { return false };
        self.overrides.retain(|(c, _)| *c != column);
        self.overrides.push((column, field));
        true
    }
}

impl ImportWindow {
    /// Opens the native open dialog on its own thread; the choice lands in the path field.
    fn browse(&self, ctx: &egui::Context) {
        let dialog = rfd::FileDialog::new().add_filter("Spreadsheets", &["csv", "txt", "tsv", "xlsx", "xlsm", "ods"]);
        file_dialog::spawn(ctx, &self.picked, move || dialog.pick_file());
    }
}

/// A use in the mapping's words.
fn use_words(used: &Use) -> String {
    match used {
        Use::Key => KEY.to_owned(),
        Use::Groups => GROUPS.to_owned(),
        Use::Field(field) => field.clone(),
        Use::EntryKeys(list) => format!("{list}[keys]"),
        Use::EntryValues(list) => format!("{list}[values]"),
        Use::Unmapped => NOT_MAPPED.to_owned(),
    }
}

/// The mapping's words as an override (`COLUMN=field`'s field).
fn override_of(words: &str) -> String {
    match words {
        KEY => "ref".to_owned(),
        GROUPS => "groups".to_owned(),
        NOT_MAPPED => String::new(),
        field => field.to_owned(),
    }
}
