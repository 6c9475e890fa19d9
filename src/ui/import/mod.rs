//! The Import… window (issue 22): HR's spreadsheet becomes a plan, previewed before anything is
//! sent. The file (a path field, always there, and Browse… for the native dialog on its own
//! thread), each column's use (matched by name, remembered for the same header, changed here),
//! the plan as a grid filtered by action with old → new in each row, then Rehearse on a scratch
//! sandbox, Apply with progress and Cancel, Resume of an interrupted apply, and the results:
//! what failed with the service's own words, and the results and undo files written beside the
//! file. The work is the worker's ([`crate::worker::ImportCommand`]), the same as `orgql import`.

mod chart;
mod confirm;
mod file;
mod outcome;
mod plan;
mod row_outcomes;

use std::path::PathBuf;

use crate::import::Action;
use crate::import::plan::counted;
use crate::import::rehearse::Rehearsal;
use crate::ui::commands::Commands;
use crate::ui::import::chart::ApplyRate;
use crate::ui::import::row_outcomes::{Outcomes, invalid_rows};
use crate::ui::widgets::file_dialog;
use crate::ui::widgets::requested::Requested;
use crate::worker::{ApplyOutcome, ApplyRequest, Connection, ImportCommand, ImportEvent, JobId, PlanRequest, PlanView};

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
}

/// `1 row`, `1,200 rows`.
fn rows(n: u64) -> String {
    counted(n, "row", "rows")
}
