//! The form that adds or edits a schedule: its name, the profile it runs with, the document
//! (the query tab's, a saved operation's, or typed), when (the forms accepted as the hint, the
//! one-sentence error under the field while it does not read), where to, CSV or workbook, BOM,
//! the changes since the last delivery, how many to keep, and whether the system's scheduler
//! runs it. Saving goes through the worker, which checks where it goes.

use crate::schedule::definition::{Kind, Schedule, check_name};
use crate::schedule::when::When;
use crate::ui::commands::Commands;
use crate::ui::widgets::a11y;
use crate::worker::{ScheduleDraft, SchedulesCommand};

/// The forms "When" accepts, as its hint.
const WHEN_HINT: &str = "hourly · daily 07:00 · weekdays 07:00 · mon 07:00 · mon,thu 06:30 · monthly 1 07:00";

/// What a schedule is made from: the query tab's document, a saved operation's, or nothing yet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    /// The GraphQL document.
    pub text: String,
    /// Its variables, as JSON text (empty: none).
    pub variables: String,
    /// The operation to run when the document has several.
    pub operation: Option<String>,
    /// Where it came from ("the query tab Users", "the saved operation Users/active").
    pub source: String,
    /// The profile proposed (the tab's connection, when it is a profile).
    pub profile: Option<String>,
    /// The export window's choices, when opened from it: format, BOM, changes since the last.
    pub export: Option<(Kind, bool, bool)>,
}

impl Document {
    /// A saved operation's document.
    pub fn of_saved(operation: &crate::store::SavedOperation) -> Document {
        Document {
            text: operation.query.clone(),
            variables: operation.variables.clone(),
            operation: None,
            source: format!("the saved operation {}", operation.path()),
            profile: None,
            export: None,
        }
    }
}

/// What the form asks of the window.
pub enum FormIntent {
    /// Close the form without saving.
    Cancel,
}

/// The form's fields.
pub struct ScheduleForm {
    /// Editing this schedule (its name stays); `None`: a new one.
    editing: Option<String>,
    name: String,
    profile: String,
    profiles: Vec<String>,
    document: String,
    variables: String,
    operation: Option<String>,
    source: String,
    when: String,
    to: String,
    format: Kind,
    bom: bool,
    changes_since_last: bool,
    keep: String,
    register: bool,
    /// A save sent, not answered yet.
    saving: bool,
    /// Why the last save was refused (by the form or the worker).
    error: Option<String>,
}

impl ScheduleForm {
    /// A new schedule of `document`; `profiles` are the saved profiles' names.
    pub fn new(document: Document, profiles: &[String]) -> Self {
        let profile =
            document.profile.filter(|p| profiles.contains(p)).or_else(|| profiles.first().cloned()).unwrap_or_default();
        let (format, bom, changes_since_last) = document.export.unwrap_or((Kind::Csv, true, false));
        ScheduleForm {
            editing: None,
            name: String::new(),
            profile,
            profiles: profiles.to_vec(),
            document: document.text,
            variables: document.variables,
            operation: document.operation,
            source: if document.source.is_empty() { "the Schedules window".to_owned() } else { document.source },
            when: String::new(),
            to: String::new(),
            format,
            bom,
            changes_since_last,
            keep: String::new(),
            register: true,
            saving: false,
            error: None,
        }
    }

    /// The form on `schedule`, to change it.
    pub fn edit(schedule: &Schedule, profiles: &[String]) -> Self {
        let variables = schedule.variables.as_ref().map(|v| v.to_string()).unwrap_or_default();
        ScheduleForm {
            editing: Some(schedule.name.clone()),
            name: schedule.name.clone(),
            profile: schedule.profile.clone(),
            profiles: profiles.to_vec(),
            document: schedule.document.clone(),
            variables,
            operation: schedule.operation.clone(),
            source: schedule.source.clone(),
            when: schedule.when.to_string(),
            to: schedule.to.clone(),
            format: schedule.format,
            bom: schedule.bom,
            changes_since_last: schedule.changes_since_last,
            keep: schedule.keep.map(|n| n.to_string()).unwrap_or_default(),
            register: schedule.registered.is_some(),
            saving: false,
            error: None,
        }
    }

    /// The worker refused the save: why, under the form.
    pub fn refused(&mut self, why: String) {
        self.saving = false;
        self.error = Some(why);
    }

    /// A text field with its label before it, named by it.
    fn field(ui: &mut egui::Ui, label: &str, text: &mut String, hint: &str) -> egui::Response {
        let label = ui.label(label);
        ui.add(egui::TextEdit::singleline(text).hint_text(hint).desired_width(f32::INFINITY)).labelled_by(label.id)
    }

    /// Draws the form; sends the save itself.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut Commands) -> Option<FormIntent> {
        let mut intent = None;
        ui.heading(match &self.editing {
            Some(name) => format!("Edit {name}"),
            None => "New schedule".to_owned(),
        });
        egui::Grid::new("schedule-form").num_columns(2).spacing([10.0, 6.0]).show(ui, |ui| {
            if self.editing.is_some() {
                ui.label("Name");
                ui.label(&self.name);
            } else {
                Self::field(ui, "Name", &mut self.name, "weekly-users");
            }
            ui.end_row();
            self.profile_ui(ui);
            ui.end_row();
            let label = ui.label("Document");
            ui.add(
                egui::TextEdit::multiline(&mut self.document)
                    .code_editor()
                    .desired_rows(5)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
            ui.end_row();
            Self::field(ui, "Variables", &mut self.variables, "a JSON object, or nothing");
            ui.end_row();
            Self::field(ui, "When", &mut self.when, WHEN_HINT);
            ui.end_row();
            ui.label("");
            match self.when.trim().parse::<When>() {
                _ if self.when.trim().is_empty() => {
                    ui.weak(WHEN_HINT);
                }
                Ok(when) => {
                    a11y::polite(ui, when.describe());
                }
                Err(why) => {
                    a11y::alert(ui, why.to_string());
                }
            }
            ui.end_row();
            Self::field(ui, "To", &mut self.to, "a folder ending with /, a file, or \\\\server\\share\\");
            ui.end_row();
            ui.label("Format");
            ui.horizontal(|ui| {
                ui.radio_value(&mut self.format, Kind::Csv, "CSV");
                ui.radio_value(&mut self.format, Kind::Xlsx, "Excel workbook");
            });
            ui.end_row();
        });
        let csv = self.format == Kind::Csv;
        ui.add_enabled(csv, egui::Checkbox::new(&mut self.bom, "UTF-8 BOM (for spreadsheet programs)"));
        ui.checkbox(&mut self.changes_since_last, "Also the changes since the last delivery");
        ui.horizontal(|ui| {
            Self::field(ui, "Keep the last", &mut self.keep, "every delivery");
        });
        ui.checkbox(&mut self.register, "Register with the system scheduler").on_hover_text(
            "Off: the schedule is only kept; `orgql schedule show NAME --as …` prints the entry to deploy",
        );
        if let Some(error) = &self.error {
            a11y::alert(ui, error);
        }
        ui.horizontal(|ui| {
            if ui.add_enabled(!self.saving, egui::Button::new("Save schedule")).clicked() {
                match self.draft() {
                    Ok(draft) => {
                        self.error = None;
                        self.saving = true;
                        commands.send(SchedulesCommand::Save(Box::new(draft)));
                    }
                    Err(why) => self.error = Some(why),
                }
            }
            if ui.button("Cancel").clicked() {
                intent = Some(FormIntent::Cancel);
            }
            if self.saving {
                ui.spinner();
            }
        });
        intent
    }

    /// The profile chooser (the saved profiles: the sandbox in the app is not reachable by the
    /// system's scheduler).
    fn profile_ui(&mut self, ui: &mut egui::Ui) {
        let label = ui.label("Profile");
        if self.profiles.is_empty() {
            ui.weak("No saved profiles: add one in Profiles… (a delivery cannot use the app's sandbox)");
            return;
        }
        let combo =
            egui::ComboBox::from_id_salt("schedule-profile").selected_text(self.profile.clone()).show_ui(ui, |ui| {
                let mut chosen = false;
                for name in self.profiles.clone() {
                    chosen |= a11y::choose(ui, &mut self.profile, name.clone(), name).clicked();
                }
                chosen
            });
        let response = combo.response.labelled_by(label.id);
        a11y::finish_combo(ui, &response, combo.inner == Some(true));
    }

    /// The schedule the fields describe, or why not (one sentence).
    fn draft(&self) -> Result<ScheduleDraft, String> {
        let name = self.name.trim().to_owned();
        check_name(&name)?;
        if self.profile.is_empty() {
            return Err("choose the profile it runs with (add one in Profiles…)".to_owned());
        }
        if self.document.trim().is_empty() {
            return Err("the document is empty; give the query to deliver".to_owned());
        }
        let when: When = self.when.trim().parse().map_err(|e: <When as std::str::FromStr>::Err| e.to_string())?;
        if self.to.trim().is_empty() {
            return Err("give where it goes: a folder ending with /, or a file".to_owned());
        }
        let variables = match self.variables.trim() {
            "" => None,
            text => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(value @ serde_json::Value::Object(_)) => Some(value),
                Ok(_) => return Err("the variables must be a JSON object".to_owned()),
                Err(e) => return Err(format!("the variables are not valid JSON ({e})")),
            },
        };
        let keep = match self.keep.trim() {
            "" => None,
            text => Some(text.parse::<u32>().map_err(|_| format!("'{text}' is not a number of deliveries to keep"))?),
        };
        Ok(ScheduleDraft {
            name,
            profile: self.profile.clone(),
            document: self.document.clone(),
            variables,
            operation: self.operation.clone(),
            source: self.source.clone(),
            when,
            to: self.to.trim().to_owned(),
            format: self.format,
            bom: self.bom,
            changes_since_last: self.changes_since_last,
            keep,
            register: self.register,
        })
    }
}
