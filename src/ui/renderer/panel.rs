//! The renderer as the person sees it: Help → About orgql names what draws the window and what
//! was passed over at this start; View → Renderer chooses the renderer to try first at the next
//! start (kept in [`super::choice::SETTING_FILE`] beside the profiles file, written off the UI
//! thread).

use std::path::PathBuf;
use std::sync::mpsc;

use super::choice::{ENV, Order, Renderer, WindowStart, automatic};

/// What the start knew before the app was made: what drew the window, the order (with the
/// setting read for it).
#[derive(Debug, Clone)]
pub struct StartReport {
    /// What drew the window.
    pub start: WindowStart,
    /// The order of this start.
    pub order: Order,
}

/// Help → About and View → Renderer.
pub struct RendererPanel {
    /// What this start used; none when the app runs without eframe's window (tests).
    report: Option<StartReport>,
    /// The renderers this system has: the choices of View → Renderer.
    available: Vec<Renderer>,
    /// The setting as chosen (none: automatic).
    setting: Option<Renderer>,
    /// `ORGQL_RENDERER` as set at this start, which comes before the setting.
    env: Option<String>,
    /// Where the setting is kept; none: nowhere (no profiles file).
    settings_dir: Option<PathBuf>,
    runtime: tokio::runtime::Handle,
    /// The answer of the setting's write under way.
    saving: Option<mpsc::Receiver<Result<(), String>>>,
    /// Why the setting could not be kept.
    problem: Option<String>,
    /// Whether the About window is open.
    about_open: bool,
}

impl RendererPanel {
    /// The panel; the setting is kept in `settings_dir`, written on `runtime`.
    pub fn new(settings_dir: Option<PathBuf>, runtime: tokio::runtime::Handle) -> Self {
        RendererPanel {
            report: None,
            available: automatic(),
            setting: None,
            env: std::env::var(ENV).ok().filter(|v| !v.trim().is_empty()),
            settings_dir,
            runtime,
            saving: None,
            problem: None,
            about_open: false,
        }
    }

    /// What drew the window at this start, and the setting read then.
    pub fn set_report(&mut self, report: StartReport) {
        self.setting = report.order.setting;
        self.report = Some(report);
    }

    /// What this start used (for tests).
    pub fn report(&self) -> Option<&StartReport> {
        self.report.as_ref()
    }

    /// The choices of View → Renderer, drawn inside the View menu.
    pub fn menu_ui(&mut self, ui: &mut egui::Ui) {
        self.poll();
        ui.label("Renderer at the next start");
        let automatic_words = format!("Automatic: {}", Order::of(None, None, &self.available).describe());
        let mut chosen = self.setting;
        if ui.radio(chosen.is_none(), automatic_words).clicked() {
            chosen = None;
        }
        for renderer in self.available.clone() {
            if ui.radio(chosen == Some(renderer), renderer.name()).clicked() {
                chosen = Some(renderer);
            }
        }
        if let Some(env) = &self.env {
            ui.weak(format!("{ENV}={env} is set and comes first"));
        }
        if let Some(problem) = &self.problem {
            crate::ui::widgets::a11y::polite_colored(ui, ui.visuals().warn_fg_color, problem.clone());
        }
        if chosen != self.setting {
            self.setting = chosen;
            self.save(ui.ctx());
        }
    }

    /// The Help menu.
    pub fn help_menu_ui(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("Help", |ui| {
            if ui.button("About orgql").clicked() {
                self.about_open = true;
                ui.close();
            }
        });
    }

    /// The About window, when open.
    pub fn window_ui(&mut self, ctx: &egui::Context) {
        self.poll();
        if !self.about_open {
            return;
        }
        let mut close = false;
        let details = self.details();
        // The manners of every orgql window: the focus on its first control when it opens, Escape
        // closes it, the focus back to what opened it; its own title row, whose close button is
        // named "Close About orgql" (egui's says "Close window").
        let dialog = crate::ui::widgets::a11y::Dialog::new("About orgql");
        egui::Window::new("About orgql").title_bar(false).resizable(false).show(ctx, |ui| {
            close |= dialog.titled_contents(ui, "About orgql");
            ui.heading(format!("orgql {}", env!("CARGO_PKG_VERSION")));
            ui.label(env!("CARGO_PKG_DESCRIPTION"));
            ui.separator();
            egui::Grid::new("about-renderer").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
                for (what, value) in &details {
                    ui.strong(*what);
                    ui.label(value);
                    ui.end_row();
                }
            });
            if let Some(report) = &self.report {
                for warning in &report.order.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, warning);
                }
            }
            ui.separator();
            ui.horizontal(|ui| {
                if ui.button("Copy details").on_hover_text("For a support request").clicked() {
                    let text: Vec<String> = details.iter().map(|(what, value)| format!("{what}: {value}")).collect();
                    ui.ctx().copy_text(format!("orgql {}\n{}", env!("CARGO_PKG_VERSION"), text.join("\n")));
                }
                if ui.button("Close").clicked() {
                    close = true;
                }
            });
        });
        self.about_open = !close;
        dialog.after(ctx, self.about_open);
    }

    /// The About window's lines: what and its value.
    fn details(&self) -> Vec<(&'static str, String)> {
        let next = match self.setting {
            Some(renderer) => format!("{} first (View → Renderer)", renderer.name()),
            None => "automatic (View → Renderer)".to_owned(),
        };
        let next = match &self.env {
            Some(env) => format!("{ENV}={env} first, then {next}"),
            None => next,
        };
        match &self.report {
            Some(StartReport { start, order, .. }) => {
                let mut details = vec![("Renderer", start.drawn_by().unwrap_or_else(|| "none".to_owned()))];
                if let Some(note) = start.software_note() {
                    details.push(("In software", note));
                }
                details.extend([
                    ("Passed over", start.passed_over_text()),
                    ("Order at this start", format!("{} ({})", order.describe(), order.asked_by)),
                    ("Next start", next),
                ]);
                details
            }
            None => vec![
                ("Renderer", "not known: the app runs without a window of its own".to_owned()),
                ("Next start", next),
            ],
        }
    }

    /// Keeps the setting, off the UI thread; its answer is read by [`Self::poll`].
    fn save(&mut self, ctx: &egui::Context) {
        let Some(dir) = self.settings_dir.clone() else {
            self.problem = Some("no settings folder is known (set HOME): the renderer cannot be kept".to_owned());
            return;
        };
        let first = self.setting;
        let (tx, rx) = mpsc::channel();
        let ctx = ctx.clone();
        self.runtime.spawn_blocking(move || {
            let result = super::choice::write_setting(&dir, first);
            if let Err(e) = &result {
                tracing::warn!("{e}");
            }
            if tx.send(result).is_err() {
                tracing::debug!("the renderer setting was written after the app closed");
            }
            ctx.request_repaint();
        });
        self.saving = Some(rx);
    }

    /// Takes the answer of a write under way.
    fn poll(&mut self) {
        let Some(saving) = &self.saving else { return };
        match saving.try_recv() {
            Ok(result) => {
                self.problem = result.err();
                self.saving = None;
            }
            Err(mpsc::TryRecvError::Empty) => {}
            Err(mpsc::TryRecvError::Disconnected) => {
                self.problem = Some("the renderer setting could not be saved (its writer stopped)".to_owned());
                self.saving = None;
            }
        }
    }

    /// Whether a write of the setting is under way (for tests).
    pub fn saving(&self) -> bool {
        self.saving.is_some()
    }
}
