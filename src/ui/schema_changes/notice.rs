//! The one-line notice that the connection's schema changed (issue 41): its own line above the
//! work, apart from the other notices (a keyring warning, a file that could not be read), with a
//! way to the Schema changes… window and its own Dismiss; counted again after a fix.

use crate::ui::commands::Commands;
use crate::worker::{SchemaCommand, SchemaNotice};

/// The notice's line.
#[derive(Default)]
pub struct SchemaNoticeBar {
    notice: Option<SchemaNotice>,
}

/// What the line asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeIntent {
    /// Open the Schema changes… window.
    ShowChanges,
}

impl SchemaNoticeBar {
    /// Takes a notice of the worker: a new one is shown; a recount replaces the one shown (a
    /// dismissed notice is not shown again by it).
    pub fn on_notice(&mut self, notice: SchemaNotice) {
        if notice.recounted && self.notice.as_ref().is_none_or(|shown| shown.key != notice.key) {
            return;
        }
        self.notice = Some(notice);
    }

    /// Asks the worker to count the notice's affected saved operations again (after a fix).
    pub fn recount(&self, commands: &mut Commands) {
        if let Some(notice) = &self.notice {
            commands.send(SchemaCommand::Recount { notice: notice.clone() });
        }
    }

    /// The notice's text, when one is shown.
    pub fn text(&self) -> Option<String> {
        self.notice.as_ref().map(SchemaNotice::line)
    }

    /// The line, when there is a notice.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<NoticeIntent> {
        let line = self.text()?;
        let mut intent = None;
        egui::Panel::top("schema-notice").show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(ui.visuals().warn_fg_color, line);
                if ui.button("Show the changes").on_hover_text("Open the Schema changes… window").clicked() {
                    intent = Some(NoticeIntent::ShowChanges);
                }
                if ui.button("Dismiss the notice").clicked() {
                    self.notice = None;
                }
            });
        });
        intent
    }
}
