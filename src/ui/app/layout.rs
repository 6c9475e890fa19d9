//! The window's layout: the toolbar, the problems, the status bar, the query view (side panel,
//! tabs, editor and results) or the webhook inspector, and the windows over them.

use super::OrgqlApp;
use crate::ui::app::state::{MainView, Side};
use crate::ui::find_user::Access;
use crate::ui::saved::SavedIntent;
use crate::ui::status_bar::Now;
use crate::ui::widgets::panes::{self, Pane};
use crate::worker::HistoryCommand;

/// Saves the active tab as an operation.
const SAVE_SHORTCUT: egui::KeyboardShortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S);

impl OrgqlApp {
    /// Draws the whole window.
    pub(super) fn window_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        crate::ui::widgets::theme::install(&ctx);
        self.title_ui(&ctx);
        panes::keys(&ctx);
        egui::Panel::top("toolbar").show(ui, |ui| panes::show(ui, Pane::Toolbar, |ui| self.toolbar_ui(ui)));
        self.problems_ui(ui);
        let connection = self.state.connection_name();
        let waiting = self
            .state
            .tabs()
            .list()
            .iter()
            .filter_map(|tab| tab.running())
            .any(|running| running.on.name() == connection);
        let now = Now { connection: &connection, waiting, webhooks: self.webhooks.listening_at() };
        egui::Panel::bottom("status").show(ui, |ui| panes::show(ui, Pane::Status, |ui| self.status.ui(ui, now)));
        match self.state.view() {
            MainView::Queries => self.queries_ui(ui),
            MainView::Webhooks => {
                egui::CentralPanel::default()
                    .show(ui, |ui| panes::show(ui, Pane::Webhooks, |ui| self.webhooks.ui(ui, &mut self.commands)));
                if let Some(remote) = self.webhooks.take_remembered() {
                    self.state.remember_remote(remote);
                }
            }
        }
        let history_shown = self.state.view() == MainView::Queries && self.state.side() == Side::History;
        if self.history_shown != Some(history_shown) {
            self.history_shown = Some(history_shown);
            self.commands.send(HistoryCommand::Showing(history_shown));
        }
        self.windows_ui(&ctx);
        let active = self.state.tabs().active();
        let shown = crate::timing::Frame {
            tree: self.state.view() == MainView::Queries
                && self.state.side() == Side::Explorer
                && self.state.schema().value().is_some(),
            rows: active.grid.is_some() && !active.busy(),
        };
        crate::ui::widgets::a11y::focus_ring(&ctx);
        crate::timing::frame_end(&ctx, shown);
    }

    /// The window's title: the active tab and the connection.
    fn title_ui(&mut self, ctx: &egui::Context) {
        let title = format!("{} — {} — orgql", self.state.tabs().active().title, self.state.connection_name());
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        // The main window is named by its title for screen readers too.
        ctx.accesskit_node_builder(egui::accesskit_root_id(), |node| node.set_label(self.title.as_str()));
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        // Wraps onto a second line when the window is narrow (150 % on a laptop).
        ui.horizontal_wrapped(|ui| {
            ui.strong("orgql");
            ui.separator();
            let mut choice = self.state.connection().clone();
            self.profiles.choice_ui(ui, &mut choice);
            self.state.choose(choice);
            if ui.button("Profiles…").clicked() {
                self.profiles.open = true;
            }
            if ui.button("Find user").on_hover_text("Find a user by ref, email or name").clicked() {
                self.find_user.show();
            }
            if ui.button("Import…").on_hover_text("Create, change and archive users from a spreadsheet").clicked() {
                self.import.show();
            }
            if ui.button("Schema changes…").on_hover_text("What changed in the service's schema").clicked() {
                let connection = self.profiles.connection(self.state.connection());
                self.schema_changes.show(connection, &mut self.commands);
            }
            if ui.button("Schedules…").on_hover_text("Exports delivered on a schedule").clicked() {
                self.schedules.show(&mut self.commands);
            }
            if let Some(language) = self.copy_code.menu_ui(ui) {
                let program = self.code_of_active_tab(language);
                self.copy_code.show(ui.ctx(), language, program);
            }
            ui.separator();
            let mut view = self.state.view();
            ui.selectable_value(&mut view, MainView::Queries, "Queries");
            let count = self.webhooks.list.rows().len();
            let label = if count == 0 { "Webhooks".to_owned() } else { format!("Webhooks ({count})") };
            ui.selectable_value(&mut view, MainView::Webhooks, label);
            self.state.show(view);
            ui.separator();
            crate::ui::app::view_menu::ui(ui, &mut self.renderer);
            self.renderer.help_menu_ui(ui);
        });
        if self.state.view() == MainView::Queries {
            let (queries, mut cx) = self.context();
            queries.tabs_ui(ui, &mut cx);
        }
    }

    fn queries_ui(&mut self, ui: &mut egui::Ui) {
        // A quarter of a narrow window at most (150 % on a laptop leaves 853 points).
        let side = 300f32.min(ui.ctx().content_rect().width() * 0.25);
        egui::Panel::left("side").resizable(true).default_size(side).show(ui, |ui| {
            panes::show(ui, Pane::Side, |ui| self.side_ui(ui));
        });
        egui::CentralPanel::default().show(ui, |ui| {
            let (queries, mut cx) = self.context();
            queries.central_ui(ui, &mut cx);
        });
    }

    /// The side panel: the explorer, the history or the saved operations.
    fn side_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let mut side = self.state.side();
            ui.selectable_value(&mut side, Side::Explorer, "Explorer");
            ui.selectable_value(&mut side, Side::History, "History");
            ui.selectable_value(&mut side, Side::Saved, "Saved");
            self.state.set_side(side);
        });
        ui.separator();
        match self.state.side() {
            Side::Explorer => {
                let (queries, mut cx) = self.context();
                queries.explorer_ui(ui, &mut cx);
            }
            Side::History => {
                if let Some(entry) = self.history.ui(ui, &mut self.commands) {
                    self.open_history(entry);
                }
            }
            Side::Saved => {
                let chosen = self.state.connection_name();
                let schema = self.state.schemas().model(&chosen).cloned();
                match self.saved.ui(ui, schema.as_ref(), &chosen, &mut self.commands) {
                    Some(SavedIntent::Open(operation)) => self.open_saved(operation),
                    Some(SavedIntent::SaveActive) => self.saved.save(self.state.tabs().active(), &mut self.commands),
                    Some(SavedIntent::Schedule(operation)) => {
                        let document = crate::ui::schedules::Document::of_saved(&operation);
                        self.schedules.add_from(document, &self.profiles, &mut self.commands);
                    }
                    None => {}
                }
            }
        }
    }

    /// The windows over the work: export, profiles, Find user, save operation, copy as code, About.
    fn windows_ui(&mut self, ctx: &egui::Context) {
        let (queries, mut cx) = self.context();
        queries.export_window_ui(ctx, &mut cx);
        if let Some(document) = self.queries.take_to_schedule() {
            self.schedules.add_from(document, &self.profiles, &mut self.commands);
        }
        self.schedules.ui(ctx, &self.profiles, &mut self.commands);
        self.profiles.window_ui(ctx, &mut self.commands);
        let access = Access {
            connection: self.state.connection_name(),
            scopes: self.profiles.scopes_of(self.state.connection()),
        };
        let (profiles, choice) = (&self.profiles, self.state.connection());
        self.find_user.ui(ctx, &access, || profiles.connection(choice), &mut self.commands);
        self.import.ui(ctx, &access.connection, || profiles.connection(choice), &mut self.commands);
        if let Some(id) = self.find_user.take_open_delivery() {
            self.state.show(MainView::Webhooks);
            self.webhooks.select(id, &mut self.commands);
        }
        if let Some((query, variables)) = self.find_user.take_open_query() {
            let tab = self.state.tabs_mut().open(Some("Support section".to_owned()), query);
            tab.variables = variables;
        }
        if ctx.input_mut(|i| i.consume_shortcut(&SAVE_SHORTCUT)) {
            self.saved.save(self.state.tabs().active(), &mut self.commands);
        }
        self.saved.window_ui(ctx, self.state.tabs().active(), &mut self.commands);
        self.copy_code.window_ui(ctx);
        self.renderer.window_ui(ctx);
        // The window's changes link to the explorer when it shows the same connection.
        let shown = self.state.connection_name();
        let model =
            self.state.schemas().model(&shown).filter(|_| shown == self.schema_changes.connection_name()).cloned();
        if let Some(target) = self.schema_changes.ui(ctx, model.as_deref(), &mut self.commands)
            && let Some(model) = &model
        {
            self.state.set_side(Side::Explorer);
            self.state.show(MainView::Queries);
            self.queries.explorer.reveal(model, &target.type_name, target.field.as_deref());
        }
    }

    fn problems_ui(&mut self, ui: &mut egui::Ui) {
        self.schedules.notice_ui(ui, &mut self.commands);
        if let Some(crate::ui::schema_changes::notice::NoticeIntent::ShowChanges) = self.schema_notice.ui(ui) {
            let connection = self.profiles.connection(self.state.connection());
            self.schema_changes.show(connection, &mut self.commands);
        }
        if self.state.problems().is_empty() {
            return;
        }
        egui::Panel::top("problems").show(ui, |ui| {
            let mut dismiss = false;
            ui.horizontal_wrapped(|ui| {
                crate::ui::widgets::a11y::polite_colored(
                    ui,
                    ui.visuals().warn_fg_color,
                    self.state.problems().join(" · "),
                );
                dismiss = ui.button("Dismiss").clicked();
            });
            if dismiss {
                self.state.dismiss_problems();
            }
        });
    }
}
