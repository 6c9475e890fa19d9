//! The query editor's own keys (comment, indent, find, undo and redo as one step per pause) and
//! its undo history: what [`super::QueryEditor`] does between egui's text edit and the tab.

use super::{COMMENT_SHORTCUT, FIND_SHORTCUT, FindBar, QueryEditor, UNDO_PAUSE, UndoState, apply_typed, byte_of};
use crate::query::lang::typing;
use crate::ui::queries::tab::Tab;
use egui::text::{CCursor, CCursorRange};
use egui::util::undoer::{Settings as UndoSettings, Undoer};
use egui::{Event, Key, Modifiers};
use std::ops::Range;

impl QueryEditor {
    /// Sets the undo history up for a tab (pauses group typing), and makes a change of the
    /// text from outside the editor since the last frame an undo step of its own.
    pub(super) fn undo_steps(&mut self, ctx: &egui::Context, edit_id: egui::Id, tab: &Tab) {
        let mut state = egui::TextEdit::load_state(ctx, edit_id).unwrap_or_default();
        let mut changed = false;
        if self.undo_ready.insert(tab.id) {
            let settings = UndoSettings { max_undos: 200, stable_time: UNDO_PAUSE, auto_save_interval: 5.0 };
            state.set_undoer(Undoer::with_settings(settings));
            changed = true;
        }
        if let Some((id, (selection, text))) = &self.seen
            && *id == tab.id
            && *text != tab.query
        {
            let mut undoer = state.undoer();
            undoer.add_undo(&(*selection, text.clone()));
            let end = CCursor::new(tab.query.chars().count());
            let now =
                state.cursor.char_range().filter(|r| r.primary.index <= end.index).unwrap_or(CCursorRange::one(end));
            undoer.add_undo(&(now, tab.query.clone()));
            state.set_undoer(undoer);
            changed = true;
        }
        if changed {
            state.store(ctx, edit_id);
        }
    }

    /// The keys the editor answers to itself while focused (before the text edit sees them).
    pub(super) fn keys(&mut self, ui: &egui::Ui, edit_id: egui::Id, tab: &mut Tab) {
        let ctx = ui.ctx();
        let selection = || -> Range<usize> {
            let range = egui::TextEdit::load_state(ctx, edit_id).and_then(|s| s.cursor.char_range());
            let end = tab.query.chars().count();
            let (a, b) = range.map_or((end, end), |r| (r.primary.index.0, r.secondary.index.0));
            byte_of(&tab.query, a.min(b))..byte_of(&tab.query, a.max(b))
        };
        // Ctrl+Z goes back to the last text that differs (egui's step back to a mere cursor
        // move would look like nothing happened). Ctrl+Shift+Z redoes, as egui does.
        let undo = ui.input_mut(|i| {
            let at = i.events.iter().position(|e| {
                matches!(e, Event::Key { key: Key::Z, pressed: true, modifiers, .. } if modifiers.command && !modifiers.shift)
            });
            at.map(|at| i.events.remove(at)).is_some()
        });
        if undo {
            self.undo(ctx, edit_id, tab);
            return;
        }
        if ui.input_mut(|i| i.consume_shortcut(&FIND_SHORTCUT)) {
            let find = self.find.get_or_insert_with(FindBar::default);
            find.focus = true;
            let range = selection();
            if range.start < range.end && !tab.query[range.clone()].contains('\n') {
                find.text = tab.query[range].to_owned();
            }
            return;
        }
        if ui.input_mut(|i| i.consume_shortcut(&COMMENT_SHORTCUT)) {
            let typed = typing::toggle_comment(&tab.query, selection());
            apply_typed(ctx, edit_id, &mut tab.query, typed);
            return;
        }
        if ui.input(|i| i.key_pressed(Key::Enter) && i.modifiers.is_none())
            && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Enter))
        {
            let typed = typing::new_line(&tab.query, selection());
            apply_typed(ctx, edit_id, &mut tab.query, typed);
            return;
        }
        // One bracket or quote typed alone (not a paste): closed as it opens, or stepped over.
        let texts: Vec<String> = ui.input(|i| {
            i.events.iter().filter_map(|e| if let Event::Text(t) = e { Some(t.clone()) } else { None }).collect()
        });
        if let [one] = texts.as_slice()
            && let Some(c) = one.chars().next().filter(|_| one.chars().count() == 1)
            && let Some(typed) = typing::typed(&tab.query, selection(), c)
        {
            ui.input_mut(|i| i.events.retain(|e| !matches!(e, Event::Text(t) if t == one)));
            apply_typed(ctx, edit_id, &mut tab.query, typed);
        }
    }

    /// Goes back to the last state of the undo history whose text differs from the query's.
    fn undo(&mut self, ctx: &egui::Context, edit_id: egui::Id, tab: &mut Tab) {
        let mut state = egui::TextEdit::load_state(ctx, edit_id).unwrap_or_default();
        let mut undoer = state.undoer();
        let end = CCursor::new(tab.query.chars().count());
        let mut current: UndoState = (state.cursor.char_range().unwrap_or(CCursorRange::one(end)), tab.query.clone());
        while let Some(previous) = undoer.undo(&current).cloned() {
            if previous.1 != tab.query {
                tab.query = previous.1.clone();
                state.cursor.set_char_range(Some(previous.0));
                break;
            }
            current = previous;
        }
        state.set_undoer(undoer);
        let selection = state.cursor.char_range().unwrap_or(CCursorRange::one(end));
        state.store(ctx, edit_id);
        // The change is the editor's own, not one from outside.
        if let Some((_, seen)) = self.seen.as_mut() {
            *seen = (selection, tab.query.clone());
        }
    }
}
