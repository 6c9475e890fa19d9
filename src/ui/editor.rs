//! The query editor: the document (monospace, highlighted), its variables (JSON, checked before
//! sending), Run (Ctrl+Enter) and Cancel.

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Key, KeyboardShortcut, Modifiers};
use serde_json::Value;

use std::ops::Range;
use std::sync::Arc;

use super::completion::{COMPLETE_SHORTCUT, Completion, KeyOutcome};
use super::problems::Problems;
use super::tab::Tab;
use crate::explorer::SchemaModel;
use crate::query::highlight::Highlighter;

/// An underline: the bytes of a problem and its colour.
type Mark = (Range<usize>, Color32);

/// Ctrl+Enter (Cmd+Enter on macOS) runs the query.
pub const RUN_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);

/// What the editor asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorIntent {
    /// Run the query.
    Run,
    /// Stop the request under way.
    Cancel,
}

/// The editor of the active tab. The highlighter keeps its per-line states between frames, so a
/// keystroke re-highlights only the lines it changed.
#[derive(Default)]
pub struct QueryEditor {
    highlighter: Option<(bool, Highlighter)>,
    /// The last highlighted text and its layout job, reused while the text does not change. The
    /// galley itself is left to egui's cache (which lays out only the changed lines again): a
    /// galley kept across frames goes stale when the fonts change (system fonts arriving, zoom).
    cached: Option<(String, bool, Vec<Mark>, LayoutJob)>,
    /// The query checked against the connection's schema.
    problems: Problems,
    /// Completions offered at the cursor.
    completion: Completion,
    /// Whether the variables pane is folded away (the query takes the whole width).
    pub variables_folded: bool,
}

/// Reads the variables editor's text: empty means none; otherwise a JSON object.
pub fn parse_variables(text: &str) -> Result<Option<Value>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(Some(value)),
        Ok(_) => Err("the variables must be a JSON object, like {\"active\": true}".to_owned()),
        Err(e) => Err(format!(
            "the variables are not valid JSON (line {}, column {}): fix them before running",
            e.line(),
            e.column()
        )),
    }
}

impl QueryEditor {
    /// The names completion offers now (for tests).
    pub fn completions(&self) -> Vec<&str> {
        self.completion.labels()
    }

    /// Draws the editor of `tab`, checking and completing against `schema` when there is one;
    /// returns what the user asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, schema: Option<&Arc<SchemaModel>>) -> Option<EditorIntent> {
        let mut intent = None;
        let variables_error = parse_variables(&tab.variables).err();
        ui.horizontal(|ui| {
            let run = ui.add_enabled(variables_error.is_none(), egui::Button::new("Run"));
            if run.on_hover_text("Run the query (Ctrl+Enter)").clicked() {
                intent = Some(EditorIntent::Run);
            }
            if tab.result.is_pending() && ui.button("Cancel").clicked() {
                intent = Some(EditorIntent::Cancel);
            }
            if tab.result.is_pending() {
                ui.spinner();
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let fold = if self.variables_folded { "Show variables" } else { "Hide variables" };
                if ui.button(fold).clicked() {
                    self.variables_folded = !self.variables_folded;
                }
            });
        });
        if variables_error.is_none() && ui.input_mut(|i| i.consume_shortcut(&RUN_SHORTCUT)) {
            intent = Some(EditorIntent::Run);
        }
        // The query fills the pane above the divider, less the problems list under it.
        let height = (ui.available_height() - 60.0).max(80.0);
        let variables_open = !self.variables_folded;
        ui.horizontal_top(|ui| {
            let width = ui.available_width();
            ui.vertical(|ui| {
                ui.set_width(if variables_open { width * 0.66 } else { width });
                let label = ui.label("Query");
                egui::ScrollArea::vertical().id_salt(("query-scroll", tab.id)).max_height(height).show(ui, |ui| {
                    self.query_ui(ui, tab, label.id, schema);
                });
                if let Some(place) = self.problems.list_ui(ui, &tab.query) {
                    tab.jump_to = Some(place);
                }
            });
            if !variables_open {
                return;
            }
            ui.vertical(|ui| {
                let label = ui.label("Variables (JSON)");
                let response = ui.add(
                    egui::TextEdit::multiline(&mut tab.variables)
                        .id_salt(("variables", tab.id))
                        .code_editor()
                        .desired_rows(6)
                        .desired_width(f32::INFINITY)
                        .hint_text("{\"active\": true}"),
                );
                response.labelled_by(label.id);
                if let Some(error) = &variables_error {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
            });
        });
        intent
    }

    fn query_ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, label: egui::Id, schema: Option<&Arc<SchemaModel>>) {
        self.problems.update(&tab.query, schema);
        let edit_id = ui.make_persistent_id(("query", tab.id));
        let focused = ui.memory(|m| m.has_focus(edit_id));
        let asked = focused && ui.input_mut(|i| i.consume_shortcut(&COMPLETE_SHORTCUT));
        if focused && let KeyOutcome::Accept(range, name) = self.completion.keys(ui) {
            accept(ui.ctx(), edit_id, &mut tab.query, range, &name);
        }
        let dark = ui.visuals().dark_mode;
        if self.highlighter.as_ref().is_none_or(|(d, _)| *d != dark) {
            self.highlighter = Highlighter::new(dark).ok().map(|h| (dark, h));
            self.cached = None;
        }
        let font = FontId::monospace(13.0);
        let default_color = ui.visuals().text_color();
        let QueryEditor { highlighter, cached, problems, .. } = self;
        let mut layouter = |ui: &egui::Ui, text: &dyn egui::TextBuffer, wrap_width: f32| {
            let text = text.as_str();
            let marks = problems.marks(text, ui.visuals());
            let fresh = cached.as_ref().is_some_and(|(t, d, m, _)| t == text && *d == dark && *m == marks);
            if !fresh {
                let job = match highlighter.as_mut() {
                    Some((_, h)) => layout_job(text, &h.spans(text), &font, &marks),
                    None => LayoutJob::simple(text.to_owned(), font.clone(), default_color, wrap_width),
                };
                *cached = Some((text.to_owned(), dark, marks, job));
            }
            let mut job = cached.as_ref().map(|(_, _, _, job)| job.clone()).unwrap_or_default();
            job.wrap.max_width = wrap_width;
            ui.fonts_mut(|f| f.layout_job(job))
        };
        let output = egui::TextEdit::multiline(&mut tab.query)
            .id(edit_id)
            .code_editor()
            .desired_rows(16)
            .desired_width(f32::INFINITY)
            .lock_focus(true)
            .layouter(&mut layouter)
            .show(ui);
        let response = output.response.response.clone().labelled_by(label);
        let cursor = output.cursor_range.map(|r| r.primary);
        if let Some(cursor) = cursor {
            let at = byte_of(&tab.query, cursor.index.0);
            self.completion.update(schema.map(|s| &**s), &tab.query, at, response.changed(), asked);
            if self.completion.is_open() && response.has_focus() {
                let rect = output.galley.pos_from_cursor(cursor).translate(output.galley_pos.to_vec2());
                if let KeyOutcome::Accept(range, name) = self.completion.popup_ui(ui.ctx(), rect.left_bottom()) {
                    accept(ui.ctx(), edit_id, &mut tab.query, range, &name);
                }
            }
        }
        if let Some(pointer) = response.hover_pos() {
            let index = output.galley.cursor_from_pos(pointer - output.galley_pos).index;
            if let Some(problem) = self.problems.at(&tab.query, byte_of(&tab.query, index.0)) {
                response.on_hover_text_at_pointer(&problem.message);
            }
        }
        if let Some((line, column)) = tab.jump_to.take() {
            let index = char_index(&tab.query, line, column);
            let mut state = output.state;
            let cursor = egui::text::CCursor::new(index);
            state.cursor.set_char_range(Some(egui::text::CCursorRange::one(cursor)));
            state.store(ui.ctx(), output.response.response.id);
            output.response.response.request_focus();
        }
    }
}

/// Replaces `range` of `text` with a completion and puts the cursor after it.
fn accept(ctx: &egui::Context, edit_id: egui::Id, text: &mut String, range: Range<usize>, name: &str) {
    if range.end > text.len() || !text.is_char_boundary(range.start) || !text.is_char_boundary(range.end) {
        return;
    }
    text.replace_range(range.clone(), name);
    let index = text[..range.start + name.len()].chars().count();
    let mut state = egui::TextEdit::load_state(ctx, edit_id).unwrap_or_default();
    state.cursor.set_char_range(Some(egui::text::CCursorRange::one(egui::text::CCursor::new(index))));
    state.store(ctx, edit_id);
}

/// The byte offset of character `index` of `text` (its end when beyond).
fn byte_of(text: &str, index: usize) -> usize {
    text.char_indices().nth(index).map_or(text.len(), |(at, _)| at)
}

/// The character index of a line and column (from 1) in `text`, clamped to the text.
fn char_index(text: &str, line: u32, column: u32) -> usize {
    let mut index = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            return index + (column as usize).saturating_sub(1).min(l.chars().count());
        }
        index += l.chars().count();
    }
    index
}

/// The highlighted text as a layout job, with `marks` (byte ranges of problems) underlined in
/// their colour.
fn layout_job(text: &str, spans: &[crate::query::highlight::Span], font: &FontId, marks: &[Mark]) -> LayoutJob {
    let mut job = LayoutJob::default();
    let mut end = 0;
    for span in spans {
        if span.range.start > end || span.range.end > text.len() {
            break;
        }
        let [r, g, b, a] = span.color;
        let format = TextFormat {
            font_id: font.clone(),
            color: Color32::from_rgba_unmultiplied(r, g, b, a),
            italics: span.italic,
            ..Default::default()
        };
        // Cut the span where underlines start and stop.
        let mut cuts: Vec<usize> = marks
            .iter()
            .flat_map(|(range, _)| [range.start, range.end])
            .filter(|at| *at > span.range.start && *at < span.range.end && text.is_char_boundary(*at))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut from = span.range.start;
        for to in cuts.into_iter().chain([span.range.end]) {
            let mut piece = format.clone();
            if let Some((_, color)) = marks.iter().find(|(range, _)| range.start <= from && from < range.end) {
                piece.underline = egui::Stroke::new(1.5, *color);
            }
            job.append(&text[from..to], 0.0, piece);
            from = to;
        }
        end = span.range.end;
    }
    if end < text.len() {
        job.append(&text[end..], 0.0, TextFormat { font_id: font.clone(), ..Default::default() });
    }
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_an_object_or_nothing() {
        assert_eq!(parse_variables("  ").unwrap(), None);
        assert!(parse_variables("{\"a\": 1}").unwrap().is_some());
        assert!(parse_variables("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_variables("{\"a\": }").unwrap_err().contains("line 1"));
    }

    #[test]
    fn finds_a_line_and_column() {
        let text = "ab\ncdé\nf";
        assert_eq!(char_index(text, 1, 1), 0);
        assert_eq!(char_index(text, 2, 3), 5);
        assert_eq!(char_index(text, 3, 99), 8);
    }
}
