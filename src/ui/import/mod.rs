//! The Import… window (issue 22): HR's spreadsheet becomes a plan, previewed before anything is
//! sent. The file (a path field, always there, and Browse… for the native dialog on its own
//! thread), each column's use (matched by name, remembered for the same header, changed here),
//! the plan as a grid filtered by action with old → new in each row, then Rehearse on a scratch
//! sandbox, Apply with progress and Cancel, Resume of an interrupted apply, and the results:
//! what failed with the service's own words, and the results and undo files written beside the
//! file. The work is the worker's ([`crate::worker::ImportCommand`]), the same as `orgql import`.

mod chart;
mod row_outcomes;

use std::path::PathBuf;

use egui_extras::{Column, TableBuilder};

use crate::import::plan::{counted, thousands};
use crate::import::rehearse::Rehearsal;
use crate::import::{Action, PlannedRow, Use};
use crate::ui::commands::Commands;
use crate::ui::import::chart::{ApplyRate, plan_bar};
use crate::ui::import::row_outcomes::{Outcomes, capitalised, invalid_rows, were_skipped, will_skip};
use crate::ui::widgets::file_dialog;
use crate::ui::widgets::requested::Requested;
use crate::worker::{ApplyOutcome, ApplyRequest, Connection, ImportCommand, ImportEvent, JobId, PlanRequest, PlanView};

const ROW_HEIGHT: f32 = 20.0;

/// The words for a column's use in the mapping's choice.
const KEY: &str = "Key (finds the user)";
const GROUPS: &str = "Groups (as a set)";
const NOT_MAPPED: &str = "Not mapped";
/// The choice to read empty cells as clearings.
const EMPTY_CLEARS: &str = "Empty cells clear values";

/// The Import… window.
pub struct ImportWindow {
    open: bool,
    path: String,
    sheet: String,
    picked: file_dialog::Picked,
    /// Each column's use as the person set it (column → field; empty: not mapped).
    overrides: Vec<(String, String)>,
    archive_missing: bool,
    archive_percent: f64,
    failed_only: bool,
    /// An empty cell clears the service's value (else it leaves it).
    empty_clears: bool,
    overwrite: bool,
    /// The connection the plan was made on (a plan belongs to it).
    connection: Option<String>,
    plan: Requested<PlanView, String>,
    plan_job: Option<JobId>,
    /// The action the grid shows (none: every row).
    filter: Option<Action>,
    /// Indices of the plan's rows that pass the filters.
    shown: Vec<usize>,
    /// Each row's outcome after an apply, and the filter by outcome.
    outcomes: Outcomes,
    /// The plan's invalid rows: how many, and the first named.
    invalid: Option<(u64, String)>,
    rehearsal: Requested<Rehearsal, String>,
    rehearsal_job: Option<JobId>,
    applied: Requested<ApplyOutcome, String>,
    apply_job: Option<JobId>,
    /// Done and expected of the job under way.
    progress: Option<(u64, Option<u64>)>,
    /// Apply asked, waiting for the person's yes (`true`: a resume).
    confirm: Option<bool>,
    saved_plan: Requested<PathBuf, String>,
    save_job: Option<JobId>,
    /// Rows applied over time (rows per second) of the apply under way or done last.
    rate: ApplyRate,
    /// The key of the row a Retry under way sends again (the focus lands on it after).
    retried: Option<String>,
}

impl Default for ImportWindow {
    fn default() -> Self {
        ImportWindow {
            open: false,
            path: String::new(),
            sheet: String::new(),
            picked: file_dialog::Picked::default(),
            overrides: Vec::new(),
            archive_missing: false,
            archive_percent: 10.0,
            failed_only: false,
            empty_clears: false,
            overwrite: false,
            connection: None,
            plan: Requested::Idle,
            plan_job: None,
            filter: None,
            shown: Vec::new(),
            outcomes: Outcomes::default(),
            invalid: None,
            rehearsal: Requested::Idle,
            rehearsal_job: None,
            applied: Requested::Idle,
            apply_job: None,
            progress: None,
            confirm: None,
            saved_plan: Requested::Idle,
            save_job: None,
            rate: ApplyRate::default(),
            retried: None,
        }
    }
}

/// What the window asks of the worker this frame (sent once the connection is known).
enum Ask {
    Plan,
    Rehearse,
    Apply {
        resume: bool,
    },
    /// Send again the failed row of this key.
    Retry(String),
    SavePlan {
        /// As an Excel workbook rather than CSV.
        xlsx: bool,
    },
    Cancel(JobId),
}

impl ImportWindow {
    /// Opens the window.
    pub fn show(&mut self) {
        self.open = true;
    }

    /// Whether a job of the window is under way (for tests).
    pub fn busy(&self) -> bool {
        self.plan.is_pending()
            || self.rehearsal.is_pending()
            || self.applied.is_pending()
            || self.saved_plan.is_pending()
    }

    /// Applies an event of the worker.
    pub fn on_event(&mut self, event: ImportEvent) {
        match event {
            ImportEvent::Progress { job, done, total } => {
                if [self.plan_job, self.apply_job].contains(&Some(job)) {
                    self.progress = Some((done, total));
                }
                if self.apply_job == Some(job) {
                    self.rate.record(done);
                }
            }
            ImportEvent::Planned { job, result } => {
                if self.plan_job == Some(job) {
                    self.plan_job = None;
                    self.progress = None;
                    self.plan.finish(result);
                    self.invalid = self.plan.value().and_then(|p| invalid_rows(&p.rows));
                    self.outcomes = Outcomes::default();
                    self.refilter();
                }
            }
            ImportEvent::Rehearsed { job, result } => {
                if self.rehearsal_job == Some(job) {
                    self.rehearsal_job = None;
                    self.rehearsal.finish(result);
                }
            }
            ImportEvent::Applied { job, result } => {
                if self.apply_job == Some(job) {
                    self.apply_job = None;
                    self.progress = None;
                    if let (Some(plan), Ok(outcome)) = (self.plan.value_mut(), &result) {
                        plan.resumable = (outcome.left > 0).then_some(outcome.left as usize);
                        self.outcomes = Outcomes::of(outcome, plan.rows.len());
                        // After a Retry the focus lands on its row; the summary is read out.
                        self.outcomes.land = self.retried.take();
                    }
                    self.applied.finish(result);
                    self.refilter();
                }
            }
            ImportEvent::PlanSaved { job, result } => {
                if self.save_job == Some(job) {
                    self.save_job = None;
                    self.saved_plan.finish(result);
                }
            }
        }
    }

    /// Draws the window when open, and sends what it asks to the connection named
    /// `connection_name` (`connection` gives it, or why there is none).
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        connection_name: &str,
        connection: impl Fn() -> Result<Connection, String>,
        commands: &mut Commands,
    ) {
        if !self.open {
            return;
        }
        self.follow(connection_name);
        if let Some(picked) = file_dialog::take(&self.picked) {
            self.path = picked.display().to_string();
            self.overrides.clear();
        }
        let mut asks = Vec::new();
        let mut open = self.open;
        let screen = ctx.content_rect();
        let dialog = crate::ui::widgets::a11y::Dialog::new("import");
        let mut escaped = false;
        egui::Window::new("Import users from a file")
            .title_bar(false)
            .default_width(760.0)
            .default_height((screen.height() - 120.0).max(300.0))
            // Below the toolbar, beside the side panel: the connection stays in sight.
            .default_pos(screen.left_top() + egui::vec2(320.0, 64.0))
            .resizable(true)
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Import users from a file");
                self.file_ui(ui, &mut asks);
                if self.plan.value().is_some() || self.plan.error().is_some() {
                    ui.separator();
                    self.plan_ui(ui, connection_name, &mut asks);
                }
            });
        open &= !escaped;
        self.open = open;
        dialog.after(ctx, open);
        if let Some(resume) = self.confirm_ui(ctx, connection_name) {
            asks.push(Ask::Apply { resume });
        }
        for ask in asks {
            self.send(ask, &connection, commands);
        }
    }

    /// A plan belongs to the connection it was made on: choosing another one clears it.
    fn follow(&mut self, connection: &str) {
        if self.connection.as_deref().is_some_and(|c| c != connection) && self.plan.value().is_some() {
            self.plan = Requested::Failed {
                previous: None,
                error: format!("The connection is now {connection}: plan the file again there."),
            };
            self.rehearsal = Requested::Idle;
            self.applied = Requested::Idle;
            self.outcomes = Outcomes::default();
            self.shown.clear();
        }
        self.connection = Some(connection.to_owned());
    }

    fn send(&mut self, ask: Ask, connection: &impl Fn() -> Result<Connection, String>, commands: &mut Commands) {
        if let Ask::Cancel(job) = ask {
            commands.cancel(job);
            return;
        }
        if let Ask::Rehearse = ask {
            // A rehearsal never reaches the connection.
            let Some(plan) = self.plan.value() else { return };
            let job = commands.job();
            self.rehearsal_job = Some(job);
            self.rehearsal.start();
            commands.send(ImportCommand::Rehearse { job, rows: plan.rows.clone() });
            return;
        }
        if let Ask::SavePlan { xlsx } = ask {
            let Some(plan) = self.plan.value() else { return };
            let job = commands.job();
            self.save_job = Some(job);
            self.saved_plan.start();
            let path = crate::import::files::beside(&plan.file, "plan");
            let path = if xlsx { path.with_extension("xlsx") } else { path };
            commands.send(ImportCommand::SavePlan { job, path, rows: plan.rows.clone() });
            return;
        }
        let connection = match connection() {
            Ok(connection) => connection,
            Err(message) => {
                self.plan.finish(Err(message));
                return;
            }
        };
        match ask {
            Ask::Plan => {
                let job = commands.job();
                if let Some(old) = self.plan_job.replace(job) {
                    commands.cancel(old);
                }
                self.plan.start();
                self.progress = None;
                self.rehearsal = Requested::Idle;
                self.applied = Requested::Idle;
                self.saved_plan = Requested::Idle;
                let request = PlanRequest {
                    path: PathBuf::from(self.path.trim()),
                    sheet: Some(self.sheet.trim().to_owned()).filter(|s| !s.is_empty()),
                    overrides: self.overrides.clone(),
                    archive_missing: self.archive_missing,
                    archive_share: (self.archive_percent / 100.0).clamp(0.0, 1.0),
                    failed_only: self.failed_only,
                    empty_clears: self.empty_clears,
                };
                commands.send(ImportCommand::Plan { job, connection, request });
            }
            Ask::Apply { .. } | Ask::Retry(_) => {
                let Some(plan) = self.plan.value() else { return };
                let (resume, retry) = match ask {
                    Ask::Retry(key) => {
                        self.retried = Some(key.clone());
                        (false, vec![key])
                    }
                    Ask::Apply { resume } => (resume, Vec::new()),
                    _ => (false, Vec::new()),
                };
                let job = commands.job();
                self.apply_job = Some(job);
                self.applied.start();
                self.progress = Some((0, None));
                self.rate.start();
                let request = ApplyRequest {
                    file: plan.file.clone(),
                    rows: plan.rows.clone(),
                    resume,
                    overwrite: self.overwrite,
                    sheet: plan.sheet.clone(),
                    retry,
                    retry_of: plan.retry_of,
                };
                commands.send(ImportCommand::Apply { job, connection, request });
            }
            Ask::Rehearse | Ask::SavePlan { .. } | Ask::Cancel(_) => {}
        }
    }

    fn file_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
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

    fn plan_ui(&mut self, ui: &mut egui::Ui, connection: &str, asks: &mut Vec<Ask>) {
        let Some(plan) = self.plan.value() else { return };
        let choose = format!("choose \"{EMPTY_CLEARS}\"");
        let empty_note = plan.counts.empty_note((!plan.empty_clears).then_some(choose.as_str()));
        ui.label(format!(
            "{}: {}, read as {}; planned against {connection} with {}.",
            plan.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            rows(plan.file_rows),
            plan.kind,
            counted(plan.requests, "request", "requests")
        ));
        let mut replan = false;
        egui::CollapsingHeader::new("Columns").default_open(true).show(ui, |ui| {
            replan = self.mapping_ui(ui);
        });
        if replan {
            asks.push(Ask::Plan);
        }
        self.filter_ui(ui);
        if let Some(note) = empty_note {
            ui.label(capitalised(&note));
        }
        self.actions_ui(ui, connection, asks);
        self.outcome_ui(ui, asks);
        if self.outcomes.filter_ui(ui) {
            self.refilter();
        }
        ui.separator();
        self.grid_ui(ui, asks);
    }

    /// Each column with its use, to change; returns whether a use changed (the file is planned
    /// again with it).
    fn mapping_ui(&mut self, ui: &mut egui::Ui) -> bool {
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

    /// The counts per action as one bar and as buttons, each part a filter of the grid.
    fn filter_ui(&mut self, ui: &mut egui::Ui) {
        let Some(plan) = self.plan.value() else { return };
        let counts = plan.counts;
        let parts = [
            (Action::Create, counts.create, "to create"),
            (Action::Update, counts.update, "to update"),
            (Action::Archive, counts.archive, "to archive"),
            (Action::Activate, counts.activate, "to activate"),
            (Action::Unchanged, counts.unchanged, "unchanged"),
            (Action::Invalid, counts.invalid, "invalid"),
        ];
        let mut filter = self.filter;
        plan_bar(ui, &parts, &mut filter);
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut filter, None, format!("All ({})", thousands(plan.rows.len() as u64)));
            for (action, n, words) in parts {
                if n > 0 || matches!(action, Action::Create | Action::Update | Action::Archive) {
                    ui.selectable_value(&mut filter, Some(action), format!("{} {words}", thousands(n)));
                }
            }
        });
        if filter != self.filter {
            self.filter = filter;
            self.refilter();
        }
    }

    fn refilter(&mut self) {
        let Some(plan) = self.plan.value() else {
            self.shown.clear();
            return;
        };
        self.shown = plan
            .rows
            .iter()
            .enumerate()
            .filter(|(i, r)| self.filter.is_none_or(|a| r.action == a) && self.outcomes.passes(*i))
            .map(|(i, _)| i)
            .collect();
    }

    /// Save plan, Rehearse, Apply and Resume.
    fn actions_ui(&mut self, ui: &mut egui::Ui, connection: &str, asks: &mut Vec<Ask>) {
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

    /// The rehearsal's and the apply's outcome, and the progress of an apply under way.
    fn outcome_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
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

    /// The plan's rows that pass the filter (only the visible ones are drawn).
    fn grid_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
        let Some(plan) = self.plan.value() else { return };
        let idle = !self.busy();
        let rows = &plan.rows;
        let shown = &self.shown;
        let land = self.outcomes.land.take();
        let mut landed = self.outcomes.landed;
        let outcomes = &self.outcomes;
        let with_outcomes = outcomes.any();
        let land_at =
            land.as_ref().and_then(|key| shown.iter().position(|i| rows.get(*i).is_some_and(|r| r.key == *key)));
        let mut table = TableBuilder::new(ui)
            .id_salt("import-plan")
            .striped(true)
            .resizable(true)
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(Column::initial(52.0).at_least(36.0))
            .column(Column::initial(110.0).at_least(60.0).clip(true))
            .column(Column::initial(80.0).at_least(60.0));
        if let Some(at) = land_at {
            table = table.scroll_to_row(at, Some(egui::Align::Center));
        }
        let mut names = vec!["Row", "Key", "Action"];
        if with_outcomes {
            table = table.column(Column::initial(260.0).at_least(120.0).clip(true));
            names.push("Outcome");
        }
        names.push("What changes");
        let mut retry = None;
        table
            .column(Column::remainder().at_least(120.0).clip(true))
            .header(ROW_HEIGHT + 2.0, |mut header| {
                for name in names {
                    header.col(|ui| {
                        ui.strong(name);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, shown.len(), |mut row| {
                    let Some((index, planned)) = shown.get(row.index()).and_then(|i| Some((*i, rows.get(*i)?))) else {
                        return;
                    };
                    row.col(|ui| {
                        ui.label(if planned.row == 0 { "—".to_owned() } else { planned.row.to_string() });
                    });
                    row.col(|ui| {
                        ui.label(&planned.key);
                    });
                    row.col(|ui| {
                        action_label(ui, planned.action);
                    });
                    if with_outcomes {
                        row.col(|ui| {
                            let here = land.as_deref() == Some(planned.key.as_str());
                            if let Some(key) = outcomes.cell_ui(ui, index, planned, idle, here, &mut landed) {
                                retry = Some(key);
                            }
                        });
                    }
                    row.col(|ui| {
                        ui.label(what_changes(planned));
                    });
                });
            });
        self.outcomes.landed = landed;
        if let Some(key) = retry {
            asks.push(Ask::Retry(key));
        }
    }

    /// The question before Apply or Resume; `Some(resume)` once answered yes.
    fn confirm_ui(&mut self, ctx: &egui::Context, connection: &str) -> Option<bool> {
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

/// What a row changes, or why it is invalid.
fn what_changes(row: &PlannedRow) -> String {
    match row.action {
        Action::Invalid => row.reason.clone(),
        // Nothing changes, though the file's empty cells might have been meant to clear.
        Action::Unchanged => match row.empty_kept {
            0 => String::new(),
            1 => "1 empty cell leaves its value as it is".to_owned(),
            n => format!("{n} empty cells leave their values as they are"),
        },
        Action::Archive if row.row == 0 => "missing from the file".to_owned(),
        _ => row.describe_changes(),
    }
}

fn action_label(ui: &mut egui::Ui, action: Action) {
    let color = match action {
        Action::Create | Action::Activate => Some(egui::Color32::from_rgb(0x2e, 0x9e, 0x4f)),
        Action::Update => Some(ui.visuals().hyperlink_color),
        Action::Archive => Some(ui.visuals().warn_fg_color),
        Action::Invalid => Some(ui.visuals().error_fg_color),
        Action::Unchanged => None,
    };
    let word = action.word();
    match color {
        Some(color) => ui.colored_label(color, word),
        None => ui.weak(word),
    };
}

/// `1 row`, `1,200 rows`.
fn rows(n: u64) -> String {
    counted(n, "row", "rows")
}
