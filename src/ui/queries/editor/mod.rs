//! The query editor: the document (monospace, highlighted), its variables (JSON, checked before
//! sending), Run (Ctrl+Enter) and Cancel.
//!
//! Keys beyond typing: Enter keeps the indentation (one step more after an opening bracket);
//! brackets and quotes close as they open, and a typed closer steps over the one there;
//! Shift+Ctrl+P prettifies the document (comments kept, [`crate::query::lang::prettify`]); Ctrl+F
//! opens a find bar (Next, Previous); Ctrl+/ comments the lines out or in; Ctrl+Space asks for
//! completions; Esc closes them and the editor keeps the focus. Tab indents; Escape then Tab, or
//! Tab after Ctrl+M ("Tab moves focus", as in VS Code), goes on to the next control, and
//! Shift+Tab to the one before (docs/accessibility.md). Undo goes back a pause of typing
//! at a time (egui's undoer, told to group by pauses of [`UNDO_PAUSE`]) and an explorer's tick,
//! a prettify or any change from outside the editor at a time.
//!
//! Run runs the operation under the cursor when the document has several (its name goes as
//! `operationName`); with the cursor outside them it asks which, by name.

pub mod completion;
mod find;
mod keys;
pub mod problems;

use egui::text::{CCursor, CCursorRange, LayoutJob, TextFormat};
use egui::{Color32, FontId, Key, KeyboardShortcut, Modifiers};
use serde_json::Value;

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use crate::explorer::SchemaModel;
use crate::query::lang::highlight::Highlighter;
use crate::query::lang::prettify;
use crate::query::lang::typing::Typed;
use crate::query::operations::UNNAMED_AMONG_SEVERAL;
use crate::query::{RunChoice, run_choice};
use crate::ui::queries::editor::completion::{COMPLETE_SHORTCUT, Completion, KeyOutcome};
use crate::ui::queries::editor::problems::Problems;
use crate::ui::queries::tab::Tab;

/// An underline: the bytes of a problem and its colour.
type Mark = (Range<usize>, Color32);

/// Ctrl+Enter (Cmd+Enter on macOS) runs the query.
pub const RUN_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);

/// Shift+Ctrl+P prettifies the document.
pub const PRETTIFY_SHORTCUT: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::P);
/// Ctrl+F opens the find bar.
pub const FIND_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);
/// Ctrl+/ comments the selected lines out or in.
pub const COMMENT_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Slash);
/// Typing after a pause this long (seconds) is a new undo step.
pub const UNDO_PAUSE: f32 = 0.6;

/// The state of a text edit's undo history: its selection and text.
type UndoState = (CCursorRange, String);

/// The find bar: what is looked for, and the match selected.
#[derive(Default)]
struct FindBar {
    text: String,
    /// The bytes of the match selected last.
    found: Option<Range<usize>>,
    /// Focus the field at the next frame.
    focus: bool,
    /// Scroll the editor to the match selected, at the next frame.
    reveal: bool,
}

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
    /// The tabs whose undo history groups typing by pauses.
    undo_ready: HashSet<u64>,
    /// The tab, text and selection the editor showed at the end of the last frame: another
    /// text at the next one was changed from outside (an explorer's tick), an undo step alone.
    seen: Option<(u64, UndoState)>,
    /// The tab and id of the query's text edit last drawn (its state keeps the cursor while
    /// the editor is unfocused).
    edit_id: Option<(u64, egui::Id)>,
    /// The find bar, when open.
    find: Option<FindBar>,
    /// The operations Run offers when the cursor is outside them all.
    choosing: Option<Vec<String>>,
    /// One sentence about the last Run or Prettify that could not be done.
    notice: Option<String>,
    /// What the empty variables pane says, for the document it was made from.
    variables_hint: Option<(String, String)>,
}

impl QueryEditor {
    /// What the empty variables pane says for `query` (made again only when it changes).
    fn variables_hint_for(&mut self, query: &str) -> String {
        match &self.variables_hint {
            Some((text, hint)) if text == query => hint.clone(),
            _ => {
                let hint = variables_hint(query);
                self.variables_hint = Some((query.to_owned(), hint.clone()));
                hint
            }
        }
    }
}

/// What the variables pane says while it is empty, unmistakably not a value: that nothing is
/// sent, and the variables the document declares with their types and defaults (what the
/// service uses when none are sent).
fn variables_hint(query: &str) -> String {
    use apollo_parser::cst::{self, CstNode};
    let tree = apollo_parser::Parser::new(query).parse();
    let declared: Vec<String> = tree
        .document()
        .definitions()
        .filter_map(|definition| match definition {
            cst::Definition::OperationDefinition(operation) => operation.variable_definitions(),
            _ => None,
        })
        .flat_map(|definitions| definitions.variable_definitions())
        .map(|definition| definition.syntax().to_string().split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    if declared.is_empty() {
        "No variables are sent. To send some, type a JSON object, e.g. {\"ref\": \"u00001\"}".to_owned()
    } else {
        format!(
            "No variables are sent: the service uses the defaults of {}. To set them, type a JSON object",
            declared.join(", ")
        )
    }
}

/// What the editor can change of a tab, hashed (a few microseconds for thousands of lines).
fn fingerprint(tab: &Tab) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (&tab.query, &tab.variables, &tab.operation).hash(&mut hasher);
    hasher.finish()
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

    /// The bytes of the match the find bar selected last (for tests).
    pub fn found(&self) -> Option<Range<usize>> {
        self.find.as_ref().and_then(|f| f.found.clone())
    }

    /// The sentence shown under Run, if any (for tests).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The cursor's byte in `tab`'s query (kept while the editor is unfocused).
    fn cursor_byte(&self, ctx: &egui::Context, tab: &Tab) -> Option<usize> {
        let (_, id) = self.edit_id.filter(|(of, _)| *of == tab.id)?;
        let range = egui::TextEdit::load_state(ctx, id)?.cursor.char_range()?;
        Some(byte_of(&tab.query, range.primary.index.0))
    }

    /// Run: the whole document, the operation under the cursor, or a question which.
    fn run_choice(&mut self, ctx: &egui::Context, tab: &mut Tab) -> Option<EditorIntent> {
        self.notice = None;
        self.choosing = None;
        match run_choice(&tab.query, self.cursor_byte(ctx, tab)) {
            RunChoice::Whole => {
                tab.operation = None;
                Some(EditorIntent::Run)
            }
            RunChoice::Named(name) => {
                tab.operation = Some(name);
                Some(EditorIntent::Run)
            }
            RunChoice::Choose(names) if !names.is_empty() => {
                self.choosing = Some(names);
                None
            }
            RunChoice::Choose(_) | RunChoice::Unnamed => {
                self.notice = Some(UNNAMED_AMONG_SEVERAL.to_owned());
                None
            }
        }
    }

    /// Prettifies `tab`'s query, or says why not.
    fn prettify(&mut self, tab: &mut Tab) {
        match prettify(&tab.query) {
            Ok(pretty) => {
                self.notice = None;
                if pretty != tab.query {
                    tab.query = pretty;
                }
            }
            Err(e) => self.notice = Some(format!("Not prettified: {e}.")),
        }
    }

    /// Draws the editor of `tab`, checking and completing against `schema` when there is one,
    /// with the variables pane beside it unless `variables_folded` (its toggle is here); returns
    /// what the user asked for. A change of the tab's text or operation is noted on the tab
    /// ([`Tab::touch`]): the editor changes them in many ways (typing, completion, Prettify,
    /// undo), and one comparison of the text here catches them all.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        tab: &mut Tab,
        schema: Option<&Arc<SchemaModel>>,
        variables_folded: &mut bool,
    ) -> Option<EditorIntent> {
        let before = fingerprint(tab);
        let intent = self.editor_ui(ui, tab, schema, variables_folded);
        if fingerprint(tab) != before {
            tab.touch();
        }
        intent
    }

    fn editor_ui(
        &mut self,
        ui: &mut egui::Ui,
        tab: &mut Tab,
        schema: Option<&Arc<SchemaModel>>,
        variables_folded: &mut bool,
    ) -> Option<EditorIntent> {
        let mut intent = None;
        let variables_error = parse_variables(&tab.variables).err();
        ui.horizontal(|ui| {
            let run = ui.add_enabled(variables_error.is_none(), egui::Button::new("Run"));
            if run.on_hover_text("Run the operation under the cursor (Ctrl+Enter)").clicked() {
                intent = self.run_choice(ui.ctx(), tab);
            }
            if ui.button("Prettify").on_hover_text("Lay the document out, comments kept (Shift+Ctrl+P)").clicked() {
                self.prettify(tab);
            }
            if tab.result.is_pending() && ui.button("Cancel").clicked() {
                intent = Some(EditorIntent::Cancel);
            }
            if tab.result.is_pending() {
                ui.spinner();
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let fold = if *variables_folded { "Show variables" } else { "Hide variables" };
                if ui.button(fold).clicked() {
                    *variables_folded = !*variables_folded;
                }
            });
        });
        if variables_error.is_none() && ui.input_mut(|i| i.consume_shortcut(&RUN_SHORTCUT)) {
            intent = self.run_choice(ui.ctx(), tab);
        }
        if ui.input_mut(|i| i.consume_shortcut(&PRETTIFY_SHORTCUT)) {
            self.prettify(tab);
        }
        if let Some(names) = self.choosing.clone() {
            ui.horizontal_wrapped(|ui| {
                ui.label("The cursor is in no operation; run which?");
                for name in names {
                    if ui.button(format!("Run {name}")).clicked() {
                        tab.operation = Some(name);
                        intent = Some(EditorIntent::Run);
                        self.choosing = None;
                    }
                }
                if ui.button("Not now").clicked() {
                    self.choosing = None;
                }
            });
        }
        if let Some(notice) = &self.notice {
            crate::ui::widgets::a11y::polite_colored(ui, ui.visuals().warn_fg_color, notice);
        }
        // The query fills the pane above the divider, less the problems list under it.
        let height = (ui.available_height() - 60.0).max(80.0);
        let variables_open = !*variables_folded;
        ui.horizontal_top(|ui| {
            let width = ui.available_width();
            ui.vertical(|ui| {
                ui.set_width(if variables_open { width * 0.66 } else { width });
                let label = ui.label("Query");
                self.find_ui(ui, tab);
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
            crate::ui::widgets::panes::show(ui, crate::ui::widgets::panes::Pane::Variables, |ui| {
                ui.vertical(|ui| {
                    let label = ui.label("Variables (JSON)");
                    let id = ui.make_persistent_id(("variables", tab.id));
                    let filter = crate::ui::widgets::a11y::code_editor_keys(ui, id);
                    let response = ui.add(
                        egui::TextEdit::multiline(&mut tab.variables)
                            .id(id)
                            .code_editor()
                            .event_filter(filter)
                            .desired_rows(6)
                            .desired_width(f32::INFINITY)
                            .hint_text(self.variables_hint_for(&tab.query)),
                    );
                    response.labelled_by(label.id);
                    if let Some(error) = &variables_error {
                        crate::ui::widgets::a11y::alert(ui, error);
                    }
                });
            });
        });
        intent
    }

    fn query_ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, label: egui::Id, schema: Option<&Arc<SchemaModel>>) {
        self.problems.update(&tab.query, schema);
        let edit_id = ui.make_persistent_id(("query", tab.id));
        self.edit_id = Some((tab.id, edit_id));
        // F6 into the editor lands in the query, not on Run.
        crate::ui::widgets::panes::land_on(ui, crate::ui::widgets::panes::Pane::Editor, edit_id);
        let focused = ui.memory(|m| m.has_focus(edit_id));
        self.undo_steps(ui.ctx(), edit_id, tab);
        let asked = focused && ui.input_mut(|i| i.consume_shortcut(&COMPLETE_SHORTCUT));
        // Esc closes an offer of completions (the editor keeps the focus); with none open,
        // Escape then Tab leaves the editor forward ([`crate::ui::widgets::a11y::code_editor_keys`]).
        if focused && let KeyOutcome::Accept(range, name) = self.completion.keys(ui, &tab.query) {
            accept(ui.ctx(), edit_id, &mut tab.query, range, &name);
        }
        let filter = crate::ui::widgets::a11y::code_editor_keys(ui, edit_id);
        if focused {
            self.keys(ui, edit_id, tab);
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
            .event_filter(filter)
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
        let selection = egui::TextEdit::load_state(ui.ctx(), edit_id)
            .and_then(|s| s.cursor.char_range())
            .unwrap_or_else(|| CCursorRange::one(CCursor::new(tab.query.chars().count())));
        if let Some(find) = self.find.as_mut()
            && std::mem::take(&mut find.reveal)
        {
            // The match found, in view.
            let rect = output.galley.pos_from_cursor(selection.primary).translate(output.galley_pos.to_vec2());
            ui.scroll_to_rect(rect, Some(egui::Align::Center));
        }
        match self.seen.as_mut() {
            // Not a copy of the text a frame: only when it changed.
            Some((id, (seen_selection, text))) if *id == tab.id && *text == tab.query => *seen_selection = selection,
            _ => self.seen = Some((tab.id, (selection, tab.query.clone()))),
        }
    }
}

/// Applies an edit of the editor's keys and puts the selection where it says.
fn apply_typed(ctx: &egui::Context, edit_id: egui::Id, text: &mut String, typed: Typed) {
    if let Some(edit) = &typed.edit {
        edit.apply_in_place(text);
    }
    let (start, end) = (typed.selection.start.min(text.len()), typed.selection.end.min(text.len()));
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return;
    }
    let (from, to) = (text[..start].chars().count(), text[..end].chars().count());
    let mut state = egui::TextEdit::load_state(ctx, edit_id).unwrap_or_default();
    state.cursor.set_char_range(Some(CCursorRange::two(CCursor::new(from), CCursor::new(to))));
    state.store(ctx, edit_id);
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
fn layout_job(text: &str, spans: &[crate::query::lang::highlight::Span], font: &FontId, marks: &[Mark]) -> LayoutJob {
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

    #[test]
    fn the_empty_variables_pane_says_nothing_is_sent_and_names_the_declared_defaults() {
        let none = variables_hint("{ paginatedUsers { count } }");
        assert!(none.starts_with("No variables are sent."), "{none}");
        let declared =
            variables_hint("query Users($first: Int = 50, $after: String) { a }\nquery B($ref: String!) { b }");
        assert!(declared.contains("$first: Int = 50, $after: String, $ref: String!"), "{declared}");
        assert!(!declared.starts_with('{'), "never looks like a value: {declared}");
    }
}
