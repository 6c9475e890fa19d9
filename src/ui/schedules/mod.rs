//! The "Schedules" window (issue 53): every scheduled delivery — its name, when, its next run,
//! its last run's time, outcome and where it went — and for the one selected its latest runs,
//! with **Run now**, **Edit** and **Remove** (asked in the window, no modal dialog); the form
//! that adds or edits one ([`form`]); and the line shown at start for a delivery that failed
//! while the app was closed ([`notice`]).
//!
//! The worker reads and writes the schedules and runs them ([`crate::worker::SchedulesCommand`]);
//! the window only draws what came back.

pub mod form;
pub mod notice;

use crate::schedule::manage::{Overview, when_shown};
use crate::store::ScheduleRun;
use crate::ui::commands::Commands;
use crate::ui::profiles::{ProfileChoice, ProfilesWindow};
use crate::ui::widgets::a11y;
use crate::ui::widgets::requested::Requested;
use crate::worker::{JobId, SchedulesCommand, SchedulesEvent};

pub use form::{Document, ScheduleForm};
use notice::FailureNotice;

/// The Schedules window, its form and the failures' notice.
#[derive(Default)]
pub struct SchedulesWindow {
    /// Whether the window is open.
    pub open: bool,
    /// Every schedule, as the worker read them last.
    list: Requested<Vec<Overview>, String>,
    /// The schedule selected (its runs are shown).
    selected: Option<String>,
    /// The last Run now: its job and schedule while it runs, then what came of it (shown once,
    /// until the next action).
    run: Requested<String, String>,
    /// The Run now under way (its job and schedule).
    running: Option<(JobId, String)>,
    /// The schedule whose removal is being asked about.
    confirm_remove: Option<String>,
    /// What came of the last save or removal.
    note: Option<Result<String, String>>,
    /// The form, while adding or editing.
    form: Option<ScheduleForm>,
    /// The failures not shown yet.
    notice: FailureNotice,
    /// A Run now asked from the notice, started once the list (and so its profile) is read.
    run_when_listed: Option<String>,
}

/// What the window asks, after drawing.
enum Intent {
    RunNow(String),
    Edit(String),
    New,
    Remove(String),
}

impl SchedulesWindow {
    /// Opens the window (the schedules are read again).
    pub fn show(&mut self, commands: &mut Commands) {
        self.open = true;
        self.list.start();
        commands.send(SchedulesCommand::Load);
    }

    /// Opens the form on `document` (from the query tab or a saved operation).
    pub fn add_from(&mut self, document: Document, profiles: &ProfilesWindow, commands: &mut Commands) {
        self.show(commands);
        self.form = Some(ScheduleForm::new(document, &profiles.names()));
    }

    /// Takes what the worker says of the schedules.
    pub fn on_event(&mut self, event: SchedulesEvent) {
        match event {
            SchedulesEvent::Listed(listed) => self.list.finish(listed),
            SchedulesEvent::Failures(runs) => self.notice.failed(runs),
            SchedulesEvent::Saved { name, result } => {
                match &result {
                    Ok(_) => {
                        self.form = None;
                        self.selected = Some(name);
                    }
                    Err(why) => {
                        if let Some(form) = &mut self.form {
                            form.refused(why.clone());
                        }
                    }
                }
                if result.is_ok() {
                    self.note = Some(result);
                }
            }
            SchedulesEvent::Removed { name, result } => {
                if result.is_ok() && self.selected.as_deref() == Some(name.as_str()) {
                    self.selected = None;
                }
                self.note = Some(result);
            }
            SchedulesEvent::Ran { job, name, result } => {
                if self.running.as_ref().is_some_and(|(running, _)| *running == job) {
                    self.running = None;
                    self.selected = Some(name);
                    self.run.finish(result);
                }
            }
        }
    }

    /// Whether a Run now is under way (for tests).
    pub fn busy(&self) -> bool {
        self.run.is_pending()
    }

    /// The schedules listed (for tests).
    pub fn listed(&self) -> &[Overview] {
        self.list.value().map_or(&[], Vec::as_slice)
    }

    /// Delivers `name` now with its profile's connection.
    fn run_now(&mut self, name: String, profiles: &ProfilesWindow, commands: &mut Commands) {
        let profile = self
            .listed()
            .iter()
            .find(|o| o.name == name)
            .and_then(|o| o.schedule.as_ref().ok())
            .map(|s| s.profile.clone());
        self.selected = Some(name.clone());
        self.note = None;
        let connection = match profile {
            Some(profile) => profiles.connection(&ProfileChoice::Named(profile)),
            None => Err(format!("the schedule '{name}' is not listed; open Schedules… again")),
        };
        match connection {
            Ok(connection) => {
                let job = commands.job();
                self.running = Some((job, name.clone()));
                self.run.start();
                commands.send(SchedulesCommand::RunNow { job, name, connection });
            }
            Err(why) => {
                self.run.start();
                self.run.finish(Err(why));
            }
        }
    }

    /// The notice of failures at start (a line above the work, never a dialog).
    pub fn notice_ui(&mut self, ui: &mut egui::Ui, commands: &mut Commands) {
        match self.notice.ui(ui, commands) {
            Some(notice::NoticeIntent::RunNow(name)) => {
                self.show(commands);
                self.selected = Some(name.clone());
                self.run_when_listed = Some(name);
            }
            Some(notice::NoticeIntent::Show(name)) => {
                self.show(commands);
                self.selected = Some(name);
            }
            None => {}
        }
    }

    /// Draws the window when open.
    pub fn ui(&mut self, ctx: &egui::Context, profiles: &ProfilesWindow, commands: &mut Commands) {
        let dialog = a11y::Dialog::new("schedules");
        if !self.open {
            dialog.after(ctx, false);
            return;
        }
        if !self.list.is_pending()
            && let Some(name) = self.run_when_listed.take()
        {
            self.run_now(name, profiles, commands);
        }
        let mut escaped = false;
        let mut intent = None;
        egui::Window::new("Schedules")
            .title_bar(false)
            .default_pos(egui::pos2(340.0, 90.0))
            .default_width(760.0)
            .default_height(560.0)
            .vscroll(true)
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Schedules");
                if let Some(form) = &mut self.form {
                    match form.ui(ui, commands) {
                        Some(form::FormIntent::Cancel) => self.form = None,
                        None => {}
                    }
                } else {
                    intent = self.list_ui(ui);
                }
                a11y::reveal_focus(ui);
            });
        match intent {
            Some(Intent::RunNow(name)) => self.run_now(name, profiles, commands),
            Some(Intent::Edit(name)) => {
                let schedule = self.listed().iter().find(|o| o.name == name).and_then(|o| o.schedule.clone().ok());
                if let Some(schedule) = schedule {
                    self.form = Some(ScheduleForm::edit(&schedule, &profiles.names()));
                }
            }
            Some(Intent::New) => self.form = Some(ScheduleForm::new(Document::default(), &profiles.names())),
            Some(Intent::Remove(name)) => {
                self.confirm_remove = None;
                self.note = None;
                commands.send(SchedulesCommand::Remove(name));
            }
            None => {}
        }
        self.open &= !escaped;
        dialog.after(ctx, self.open);
    }

    /// The list, the selected schedule's actions and runs.
    fn list_ui(&mut self, ui: &mut egui::Ui) -> Option<Intent> {
        let mut intent = None;
        ui.horizontal(|ui| {
            if ui.button("New schedule…").on_hover_text("Deliver a query's rows on a schedule").clicked() {
                intent = Some(Intent::New);
            }
            if self.list.is_pending() {
                ui.spinner();
            }
        });
        match &self.note {
            Some(Ok(said)) => {
                a11y::polite(ui, said);
            }
            Some(Err(why)) => {
                a11y::alert(ui, why);
            }
            None => {}
        }
        if let Some(error) = self.list.error() {
            a11y::alert(ui, error);
        }
        let listed = self.list.value().cloned().unwrap_or_default();
        if listed.is_empty() {
            if !self.list.is_pending() {
                ui.weak("No schedules yet: New schedule…, or Export… → Deliver on a schedule…");
            }
            return intent;
        }
        egui::Grid::new("schedules-grid").striped(true).num_columns(6).spacing([12.0, 4.0]).show(ui, |ui| {
            for heading in ["Name", "When", "Next run", "Last run", "Outcome", "To"] {
                ui.strong(heading);
            }
            ui.end_row();
            for overview in &listed {
                let chosen = self.selected.as_deref() == Some(overview.name.as_str());
                if ui.selectable_label(chosen, &overview.name).clicked() {
                    self.selected = Some(overview.name.clone());
                    self.confirm_remove = None;
                }
                match &overview.schedule {
                    Ok(schedule) => ui.label(schedule.when.to_string()).on_hover_text(schedule.when.describe()),
                    Err(why) => ui.colored_label(ui.visuals().error_fg_color, "unreadable").on_hover_text(why),
                };
                ui.label(overview.next.as_ref().map(when_shown).unwrap_or_default());
                ui.label(overview.runs.first().map_or_else(|| "never".to_owned(), |run| when_shown(&run.started)));
                outcome_label(ui, overview);
                ui.label(overview.whereto());
                ui.end_row();
            }
        });
        let Some(selected) = listed.iter().find(|o| Some(o.name.as_str()) == self.selected.as_deref()) else {
            return intent;
        };
        ui.separator();
        intent = self.selected_ui(ui, selected).or(intent);
        intent
    }

    /// The selected schedule: its actions, Run now's progress and outcome, its latest runs.
    fn selected_ui(&mut self, ui: &mut egui::Ui, overview: &Overview) -> Option<Intent> {
        let mut intent = None;
        let name = overview.name.clone();
        ui.horizontal(|ui| {
            ui.strong(&name);
            let running = self.run.is_pending();
            if ui
                .add_enabled(!running, egui::Button::new("Run now"))
                .on_hover_text("Deliver now, as the scheduler would")
                .clicked()
            {
                intent = Some(Intent::RunNow(name.clone()));
            }
            if ui.add_enabled(overview.schedule.is_ok(), egui::Button::new("Edit")).clicked() {
                intent = Some(Intent::Edit(name.clone()));
            }
            if ui.button("Remove").clicked() {
                self.confirm_remove = Some(name.clone());
            }
        });
        if self.confirm_remove.as_deref() == Some(name.as_str()) {
            ui.horizontal_wrapped(|ui| {
                a11y::polite_colored(
                    ui,
                    ui.visuals().warn_fg_color,
                    format!("Remove '{name}' and its entry in the system's scheduler? Its deliveries stay."),
                );
                if ui.button("Remove schedule").clicked() {
                    intent = Some(Intent::Remove(name.clone()));
                }
                if ui.button("Keep it").clicked() {
                    self.confirm_remove = None;
                }
            });
        }
        let this_run = self.running.as_ref().is_none_or(|(_, running)| *running == name);
        match &self.run {
            Requested::Pending { .. } if this_run => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    a11y::polite(ui, format!("Delivering '{name}'…"));
                });
            }
            Requested::Done(said) => {
                a11y::polite(ui, said);
            }
            Requested::Failed { error, .. } => {
                a11y::alert(ui, error);
            }
            _ => {}
        }
        ui.add_space(6.0);
        ui.label("Latest runs");
        if overview.runs.is_empty() {
            ui.weak("It has not run yet.");
            return intent;
        }
        egui::Grid::new("schedule-runs-grid").striped(true).num_columns(4).spacing([12.0, 2.0]).show(ui, |ui| {
            for heading in ["Started", "Took", "Outcome", "Where or why"] {
                ui.strong(heading);
            }
            ui.end_row();
            for run in &overview.runs {
                run_row(ui, run);
            }
        });
        intent
    }
}

/// The last run's outcome, coloured by how it ended.
fn outcome_label(ui: &mut egui::Ui, overview: &Overview) {
    let text = overview.outcome();
    let color = match overview.runs.first().map(|run| run.state) {
        Some(crate::store::RunState::Failed) => ui.visuals().error_fg_color,
        Some(crate::store::RunState::Skipped) => ui.visuals().warn_fg_color,
        _ => ui.visuals().text_color(),
    };
    let short: String = text.chars().take(60).collect();
    let shown = if short.len() < text.len() { format!("{short}…") } else { short };
    let label = ui.colored_label(color, shown);
    if text.chars().count() > 60 {
        label.on_hover_text(text);
    }
}

/// One run of the selected schedule.
fn run_row(ui: &mut egui::Ui, run: &ScheduleRun) {
    ui.label(run.started.format("%Y-%m-%d %H:%M:%S").to_string());
    let took = run.ended.map(|end| format!("{:.1} s", (end - run.started).num_milliseconds() as f64 / 1000.0));
    ui.label(took.unwrap_or_default());
    ui.label(run.state.word());
    let whereto = match (&run.delivered_to, &run.changes_to, &run.message) {
        (Some(to), Some(changes), _) => format!("{to} (changes: {changes})"),
        (Some(to), None, _) => to.clone(),
        (None, _, Some(message)) => message.clone(),
        _ => String::new(),
    };
    ui.label(whereto);
    ui.end_row();
}
