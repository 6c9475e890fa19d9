//! The history of run queries (from the local database); a click reopens one in a new tab.

use crate::store::HistoryEntry;

/// The history panel.
#[derive(Default)]
pub struct HistoryPanel {
    /// The newest entries first.
    pub entries: Vec<HistoryEntry>,
    filter: String,
}

impl HistoryPanel {
    /// Draws the list; returns the entry to reopen.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<HistoryEntry> {
        ui.heading("History");
        let label = ui.label("Filter history");
        ui.add(egui::TextEdit::singleline(&mut self.filter).hint_text("text in the query")).labelled_by(label.id);
        if self.entries.is_empty() {
            ui.weak("Queries you run appear here.");
            return None;
        }
        let needle = self.filter.to_lowercase();
        let mut chosen = None;
        egui::ScrollArea::vertical().id_salt("history-list").show(ui, |ui| {
            for entry in self.entries.iter().filter(|e| needle.is_empty() || e.query.to_lowercase().contains(&needle)) {
                let first_line = entry
                    .query
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty() && !l.starts_with('#'))
                    .unwrap_or("(empty)");
                let when = entry.ran_at.with_timezone(&chrono::Local).format("%H:%M:%S");
                let response = ui
                    .add(egui::Button::new(format!("{when} {first_line}")).truncate())
                    .on_hover_text(format!("{} · {}\n\n{}", entry.profile, entry.outcome, entry.query));
                if response.clicked() {
                    chosen = Some(entry.clone());
                }
            }
        });
        chosen
    }
}
