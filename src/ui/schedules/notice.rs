//! The line shown at start for a delivery that failed while nobody looked (issue 53): "The
//! delivery 'weekly-users' failed on Monday at 07:00: <why>", with **Run now**, **Show** (the
//! Schedules window) and **Dismiss the failure**; a line above the work that takes no focus.
//! Dismissing it or running it again marks the failure shown, so that the next start does not
//! show it again.

use chrono::{DateTime, Local};

use crate::store::ScheduleRun;
use crate::ui::commands::Commands;
use crate::worker::SchedulesCommand;

/// What the line asks of the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeIntent {
    /// Deliver this schedule now.
    RunNow(String),
    /// Open the Schedules window on it.
    Show(String),
}

/// The failures not shown yet, newest first: the line shows one at a time.
#[derive(Default)]
pub struct FailureNotice {
    failures: Vec<ScheduleRun>,
}

impl FailureNotice {
    /// The worker found failures nobody has seen.
    pub fn failed(&mut self, runs: Vec<ScheduleRun>) {
        for run in runs {
            if !self.failures.iter().any(|shown| shown.id == run.id) {
                self.failures.push(run);
            }
        }
    }

    /// The line's text for the failure shown first.
    pub fn text(&self) -> Option<String> {
        self.failures.first().map(|run| line(run, &Local::now()))
    }

    /// Draws the line (when there is a failure to show); the failure acted on is marked shown.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut Commands) -> Option<NoticeIntent> {
        let text = self.text()?;
        let mut intent = None;
        let mut done = false;
        egui::Panel::top("schedule-failure").show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                crate::ui::widgets::a11y::polite_colored(ui, ui.visuals().error_fg_color, text);
                let name = self.failures[0].schedule.clone();
                if ui.button("Run now").on_hover_text("Deliver it again now").clicked() {
                    intent = Some(NoticeIntent::RunNow(name.clone()));
                    done = true;
                }
                if ui.button("Show").on_hover_text("Open the Schedules window").clicked() {
                    intent = Some(NoticeIntent::Show(name));
                }
                if ui.button("Dismiss the failure").on_hover_text("It is not shown again").clicked() {
                    done = true;
                }
            });
        });
        if done {
            let run = self.failures.remove(0);
            commands.send(SchedulesCommand::Shown { schedule: run.schedule, run: run.id });
        }
        intent
    }
}

/// "The delivery 'weekly-users' failed on Monday at 07:00: <why>" (the date too when it was
/// more than six days before `now`).
fn line(run: &ScheduleRun, now: &DateTime<Local>) -> String {
    let days = (*now - run.started).num_days();
    let when = if days < 6 {
        run.started.format("%A at %H:%M").to_string()
    } else {
        run.started.format("%A %-d %B at %H:%M").to_string()
    };
    let why = run.message.as_deref().unwrap_or("no reason was recorded");
    format!("The delivery '{}' failed on {when}: {why}", run.schedule)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn the_line_says_which_delivery_failed_when_and_why() {
        let started = Local.with_ymd_and_hms(2026, 11, 30, 7, 0, 0).single().expect("a time");
        let run = ScheduleRun {
            id: 3,
            schedule: "weekly-users".into(),
            started,
            ended: None,
            state: crate::store::RunState::Failed,
            rows: None,
            bytes: None,
            delivered_to: None,
            changes_to: None,
            message: Some("the service did not answer".into()),
            exit_code: Some(6),
            shown: false,
        };
        let now = started + chrono::Duration::hours(5);
        assert_eq!(
            line(&run, &now),
            "The delivery 'weekly-users' failed on Monday at 07:00: the service did not answer"
        );
        let later = started + chrono::Duration::days(9);
        assert!(line(&run, &later).starts_with("The delivery 'weekly-users' failed on Monday 30 November at 07:00"));
    }
}
