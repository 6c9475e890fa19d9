//! "Make reachable from the internet": the tunnel programs on PATH (how to get each that is not),
//! the tunnel's state and public address with Copy, and Send a test delivery through it.

use crate::webhooks::testsend::TestOutcome;
use crate::webhooks::tunnel::{TunnelEvent, TunnelKind};
use crate::worker::{JobId, TunnelProgram};

/// The tunnel as the panel knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunnelState {
    /// None runs (why, when it failed to start).
    Off(Option<String>),
    /// Its program is starting.
    Starting,
    /// Reachable at this address (the one before, when a restart changed it).
    Up {
        /// The public URL.
        url: String,
        /// The address before the restart.
        previous: Option<String>,
    },
    /// The program stopped; it is started again.
    Down { reason: String },
}

/// What the section asks.
#[derive(Debug, Clone, PartialEq)]
pub enum TunnelIntent {
    /// Start this tunnel.
    Start(TunnelKind),
    /// Stop it.
    Stop,
    /// Send a test delivery to the public URL.
    SendTest(String),
}

/// The section's state.
pub struct TunnelSection {
    programs: Vec<TunnelProgram>,
    /// The program chosen (an index into the programs, or the command below past them).
    choice: usize,
    /// A command of one's own, with `{port}`.
    pub command: String,
    state: TunnelState,
    test: Option<Result<TestOutcome, String>>,
    /// The test under way: only its answer is shown.
    pub test_job: Option<JobId>,
}

impl Default for TunnelSection {
    fn default() -> Self {
        TunnelSection {
            programs: Vec::new(),
            choice: 0,
            command: String::new(),
            state: TunnelState::Off(None),
            test: None,
            test_job: None,
        }
    }
}

impl TunnelSection {
    /// The tunnel's state.
    pub fn state(&self) -> &TunnelState {
        &self.state
    }

    /// The last test delivery's outcome.
    pub fn test(&self) -> Option<&Result<TestOutcome, String>> {
        self.test.as_ref()
    }

    /// The programs on PATH were found.
    pub fn programs_found(&mut self, programs: Vec<TunnelProgram>) {
        self.choice = programs.iter().position(|p| p.found).unwrap_or(programs.len());
        self.programs = programs;
    }

    /// What the tunnel reports.
    pub fn on_tunnel(&mut self, event: TunnelEvent) {
        self.state = match event {
            TunnelEvent::Starting { .. } => TunnelState::Starting,
            TunnelEvent::Up { url, previous } => TunnelState::Up { url, previous },
            TunnelEvent::Down { reason, restart_in } => {
                TunnelState::Down { reason: format!("{reason}; starting it again in {} s", restart_in.as_secs()) }
            }
        };
    }

    /// The tunnel stopped.
    pub fn stopped(&mut self, why: Option<String>) {
        self.state = TunnelState::Off(why);
    }

    /// Whether the last test delivery came back altered by the tunnel or relay.
    pub fn relay_alters(&self) -> bool {
        matches!(self.test, Some(Ok(TestOutcome::Altered(_))))
    }

    /// A test delivery ended.
    pub fn tested(&mut self, job: JobId, result: Result<TestOutcome, String>) {
        if self.test_job == Some(job) {
            self.test_job = None;
            self.test = Some(result);
        }
    }

    /// Draws the section; `listening` says whether there is a port to make reachable.
    pub fn ui(&mut self, ui: &mut egui::Ui, listening: bool, copy: &mut Option<String>) -> Option<TunnelIntent> {
        let mut intent = None;
        let running = !matches!(self.state, TunnelState::Off(_));
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Through");
            let names: Vec<String> = self
                .programs
                .iter()
                .map(|p| if p.found { p.kind.name().to_owned() } else { format!("{} (not installed)", p.kind.name()) })
                .chain(std::iter::once("a command of your own".to_owned()))
                .collect();
            let response = egui::ComboBox::from_id_salt("tunnel-program")
                .selected_text(names.get(self.choice).cloned().unwrap_or_default())
                .show_ui(ui, |ui| {
                    for (i, name) in names.iter().enumerate() {
                        crate::ui::widgets::a11y::choose(ui, &mut self.choice, i, name);
                    }
                })
                .response
                .labelled_by(label.id);
            crate::ui::widgets::a11y::say_combo_value(ui, &response);
            let own = self.choice >= self.programs.len();
            if own {
                let label = ui.label("Command");
                ui.add(egui::TextEdit::singleline(&mut self.command).hint_text("bore local {port} --to bore.pub"))
                    .labelled_by(label.id);
            }
            let kind = match self.programs.get(self.choice) {
                Some(p) if p.found => Ok(p.kind.clone()),
                Some(p) => Err(p.kind.how_to_get().to_owned()),
                None => self.command.parse::<TunnelKind>(),
            };
            if running {
                if ui.button("Stop tunnel").clicked() {
                    intent = Some(TunnelIntent::Stop);
                }
            } else {
                let ready = listening && kind.is_ok();
                if ui.add_enabled(ready, egui::Button::new("Make reachable from the internet")).clicked()
                    && let Ok(kind) = kind.clone()
                {
                    self.state = TunnelState::Starting;
                    intent = Some(TunnelIntent::Start(kind));
                }
            }
            if let Err(why) = &kind
                && !(own && self.command.trim().is_empty())
            {
                ui.weak(why);
            }
        });
        if self.programs.iter().all(|p| !p.found) && !self.programs.is_empty() {
            for program in &self.programs {
                ui.weak(program.kind.how_to_get());
            }
        }
        match &self.state {
            TunnelState::Off(Some(why)) => {
                ui.colored_label(ui.visuals().error_fg_color, why);
            }
            TunnelState::Off(None) => {}
            TunnelState::Starting => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Starting the tunnel…");
                });
            }
            TunnelState::Down { reason } => {
                ui.colored_label(ui.visuals().warn_fg_color, format!("The tunnel is down: {reason}"));
            }
            TunnelState::Up { url, previous } => {
                let url = url.clone();
                ui.horizontal_wrapped(|ui| {
                    ui.label("Public URL:");
                    ui.monospace(&url);
                    if ui.small_button("Copy").clicked() {
                        *copy = Some(url.clone());
                    }
                    let testing = self.test_job.is_some();
                    if ui.add_enabled(!testing, egui::Button::new("Send a test delivery")).clicked() {
                        self.test = None;
                        intent = Some(TunnelIntent::SendTest(url.clone()));
                    }
                    if testing {
                        ui.spinner();
                    }
                });
                ui.weak(format!("Paste {url} (any path after it) as the webhook URL in the admin interface."));
                if let Some(previous) = previous {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("The address changed (it was {previous}): paste the new one."),
                    );
                }
            }
        }
        match &self.test {
            Some(Ok(TestOutcome::Verified)) => {
                ui.colored_label(egui::Color32::from_rgb(0x2e, 0xa0, 0x43), format!("✔ {}", TestOutcome::Verified));
            }
            Some(Ok(outcome)) => {
                ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ {outcome}"));
            }
            Some(Err(why)) => {
                ui.colored_label(ui.visuals().error_fg_color, why);
            }
            None => {}
        }
        intent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_delivery_altered_on_the_way_marks_the_relay_as_one_signatures_cannot_cross() {
        let mut jobs = crate::worker::JobIds::default();
        let mut section = TunnelSection::default();
        assert!(!section.relay_alters());
        let job = jobs.allocate();
        section.test_job = Some(job);
        section.tested(job, Ok(TestOutcome::Altered("the body was re-encoded".into())));
        assert!(section.relay_alters());
        let job = jobs.allocate();
        section.test_job = Some(job);
        section.tested(job, Ok(TestOutcome::Verified));
        assert!(!section.relay_alters(), "a later test that arrives intact clears it");
    }
}
