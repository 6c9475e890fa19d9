//! The history of runs (from the local database): each with its date and time, connection,
//! operation, status, rows and duration; searched by text in the database; a click reopens a
//! run in a new tab on its connection; entries are deleted one by one, or all after a question.

use crate::store::{HistoryEntry, RunStatus};
use crate::ui::commands::Commands;
use crate::worker::{HistoryCommand, HistoryEvent};

/// What the history panel asks for.
#[derive(Debug, Clone, PartialEq)]
enum HistoryIntent {
    /// Open this run in a new tab, on its connection.
    Open(HistoryEntry),
    /// Find the entries containing this text (all for an empty one).
    Search(String),
    /// Delete this entry.
    Delete(i64),
    /// Delete every entry (confirmed).
    ClearAll,
}

/// The history panel.
#[derive(Default)]
pub struct HistoryPanel {
    /// The entries listed, the newest first.
    pub entries: Vec<HistoryEntry>,
    /// The search as typed.
    search: String,
    /// The newest entries arrived while a search is on: ask for the search again.
    stale: bool,
    /// The question before deleting every entry is open.
    confirm_clear: bool,
}

impl HistoryPanel {
    /// Takes what the worker says of the history.
    pub fn on_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Listed(entries) => self.loaded(entries),
            HistoryEvent::Found { search, entries } => self.found(&search, entries),
        }
    }

    /// Draws the list and sends what it asks; returns the run to open in a new tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut Commands) -> Option<HistoryEntry> {
        match self.draw(ui)? {
            HistoryIntent::Open(entry) => return Some(entry),
            HistoryIntent::Search(text) => commands.send(HistoryCommand::Search(text)),
            HistoryIntent::Delete(id) => commands.send(HistoryCommand::Delete(id)),
            HistoryIntent::ClearAll => commands.send(HistoryCommand::Clear),
        }
        None
    }

    /// The newest entries (after a run or a deletion).
    fn loaded(&mut self, entries: Vec<HistoryEntry>) {
        if self.search.trim().is_empty() {
            self.entries = entries;
        } else {
            self.stale = true;
        }
    }

    /// The entries found for `search` (ignored when the search has changed since).
    fn found(&mut self, search: &str, entries: Vec<HistoryEntry>) {
        if search == self.search.trim() {
            self.entries = entries;
        }
    }

    /// Draws the list; returns what to do.
    fn draw(&mut self, ui: &mut egui::Ui) -> Option<HistoryIntent> {
        let mut intent = None;
        ui.horizontal(|ui| {
            ui.heading("History");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let clear = ui
                    .add_enabled(!self.entries.is_empty(), egui::Button::new("Clear history…"))
                    .on_hover_text("Delete every run of the history, of every connection");
                if clear.clicked() {
                    self.confirm_clear = true;
                }
            });
        });
        let label = ui.label("Search history");
        let search = ui
            .add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text("text in the query, connection, name or outcome")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
        if search.changed() || std::mem::take(&mut self.stale) {
            intent = Some(HistoryIntent::Search(self.search.trim().to_owned()));
        }
        if self.confirm_clear {
            intent = self.confirm_ui(ui).or(intent);
        }
        if self.entries.is_empty() {
            ui.weak(if self.search.trim().is_empty() {
                "Queries you run appear here."
            } else {
                "No run contains this text."
            });
            return intent;
        }
        egui::ScrollArea::vertical().id_salt("history-list").auto_shrink([false, false]).show(ui, |ui| {
            for entry in &self.entries {
                if let Some(chosen) = entry_ui(ui, entry) {
                    intent = Some(chosen);
                }
            }
        });
        intent
    }

    /// The question before every entry is deleted.
    fn confirm_ui(&mut self, ui: &mut egui::Ui) -> Option<HistoryIntent> {
        let mut intent = None;
        let modal = egui::Modal::new(egui::Id::unique("clear-history")).show(ui.ctx(), |ui| {
            ui.heading("Delete the whole history?");
            ui.label("Every run of every connection is deleted from this computer. This cannot be undone.");
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button("Delete all").clicked() {
                    intent = Some(HistoryIntent::ClearAll);
                    self.confirm_clear = false;
                }
                if ui.button("Keep history").clicked() {
                    self.confirm_clear = false;
                }
            });
        });
        if modal.should_close() {
            self.confirm_clear = false;
        }
        intent
    }
}

/// One entry: its operation (a click opens it), then when, where and how it ran.
fn entry_ui(ui: &mut egui::Ui, entry: &HistoryEntry) -> Option<HistoryIntent> {
    let mut intent = None;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            // Delete at the right; the operation (truncated) fills the rest from the left.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button("Delete").on_hover_text("Delete this run from the history").clicked() {
                    intent = Some(HistoryIntent::Delete(entry.id));
                }
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    let open = ui
                        .add(egui::Button::new(egui::RichText::new(title_of(entry)).strong()).frame(false).truncate())
                        .on_hover_text(format!("Open in a new tab on {}\n\n{}", entry.profile, entry.query));
                    if open.clicked() {
                        intent = Some(HistoryIntent::Open(entry.clone()));
                    }
                });
            });
        });
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 6.0;
            let when = entry.ran_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S");
            ui.weak(when.to_string());
            ui.label(&entry.profile);
            let (text, color) = status_of(ui, entry);
            ui.colored_label(color, text).on_hover_text(&entry.outcome);
            if let Some(rows) = entry.rows {
                ui.weak(if rows == 1 { "1 row".to_owned() } else { format!("{rows} rows") });
            }
            if let Some(duration) = entry.duration {
                ui.weak(duration_text(duration));
            }
        });
    });
    intent
}

/// The operation's name, else the first line of the document that says something.
fn title_of(entry: &HistoryEntry) -> String {
    if !entry.operation.is_empty() {
        return entry.operation.clone();
    }
    entry
        .query
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#') && *line != "{" && *line != "query {")
        .unwrap_or("(empty document)")
        .to_owned()
}

/// How the run ended, in a word and a colour (the outcome itself for runs kept before).
fn status_of(ui: &egui::Ui, entry: &HistoryEntry) -> (String, egui::Color32) {
    let visuals = ui.visuals();
    match entry.status {
        RunStatus::Ok => ("OK".into(), egui::Color32::from_rgb(0x3c, 0xa0, 0x5a)),
        RunStatus::Errors => ("errors".into(), visuals.warn_fg_color),
        RunStatus::Failed => ("failed".into(), visuals.error_fg_color),
        RunStatus::Unknown => (entry.outcome.chars().take(40).collect(), visuals.weak_text_color()),
    }
}

/// `850 ms`, `2.4 s`, `3 min 5 s`.
fn duration_text(duration: std::time::Duration) -> String {
    let ms = duration.as_millis();
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", duration.as_secs_f64()),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1_000),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration_text(Duration::from_millis(850)), "850 ms");
        assert_eq!(duration_text(Duration::from_millis(2_440)), "2.4 s");
        assert_eq!(duration_text(Duration::from_secs(185)), "3 min 5 s");
    }

    #[test]
    fn a_search_answer_counts_only_while_it_is_the_search_shown() {
        let entry = |id| HistoryEntry {
            id,
            ran_at: chrono::Utc::now(),
            profile: "Sandbox".into(),
            query: "{ a }".into(),
            variables: String::new(),
            outcome: "200".into(),
            operation: String::new(),
            status: RunStatus::Ok,
            rows: None,
            duration: None,
        };
        let mut panel = HistoryPanel::default();
        panel.loaded(vec![entry(1), entry(2)]);
        assert_eq!(panel.entries.len(), 2);
        panel.search = "users".into();
        panel.found("user", vec![entry(1)]);
        assert_eq!(panel.entries.len(), 2, "an answer to an older search is dropped");
        panel.found("users", vec![entry(3)]);
        assert_eq!(panel.entries[0].id, 3);
        panel.loaded(vec![entry(4)]);
        assert_eq!(panel.entries[0].id, 3, "the newest do not replace a search's answer");
        assert!(panel.stale, "the search is asked again");
    }
}
