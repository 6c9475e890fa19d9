//! The find bar above the query (Ctrl+F): Enter or Next selects the next match, Previous the one
//! before, Esc closes it.

use super::{QueryEditor, apply_typed};
use crate::query::lang::typing::{self, Typed};
use crate::ui::queries::tab::Tab;
use egui::Key;

impl QueryEditor {
    /// The find bar above the query: Enter or Next selects the next match, Previous the one
    /// before, Esc closes it.
    pub(super) fn find_ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab) {
        let Some(find) = self.find.as_mut() else { return };
        let mut close = false;
        let mut step: Option<bool> = None;
        ui.horizontal(|ui| {
            let label = ui.label("Find");
            let response = ui.add(
                egui::TextEdit::singleline(&mut find.text)
                    .id_salt(("find", tab.id))
                    .hint_text("text in the query")
                    .desired_width(200.0),
            );
            let response = response.labelled_by(label.id);
            if std::mem::take(&mut find.focus) {
                response.request_focus();
            }
            if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                step = Some(!ui.input(|i| i.modifiers.shift));
                response.request_focus();
            }
            if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Escape)) {
                close = true;
            }
            let matches = typing::find_all(&tab.query, &find.text);
            if ui.button("Previous").clicked() {
                step = Some(false);
            }
            if ui.button("Next").clicked() {
                step = Some(true);
            }
            if ui.button("Close find").clicked() {
                close = true;
            }
            if let Some(forward) = step.filter(|_| !matches.is_empty()) {
                let at = find.found.as_ref().and_then(|f| matches.iter().position(|m| m == f));
                let next = match (at, forward) {
                    (Some(i), true) => (i + 1) % matches.len(),
                    (Some(i), false) => (i + matches.len() - 1) % matches.len(),
                    (None, true) => 0,
                    (None, false) => matches.len() - 1,
                };
                find.found = Some(matches[next].clone());
                find.reveal = true;
            }
            match (&find.found, matches.is_empty(), find.text.is_empty()) {
                (_, _, true) => {}
                (_, true, false) => {
                    ui.weak("No match");
                }
                (found, false, false) => {
                    let at = found.as_ref().and_then(|f| matches.iter().position(|m| m == f));
                    let shown = at.map_or_else(|| "–".to_owned(), |i| (i + 1).to_string());
                    ui.label(format!("{shown} of {}", matches.len()));
                }
            }
        });
        if let (Some(_), Some(found), Some((_, id))) = (step, find.found.clone(), self.edit_id) {
            let typed = Typed { edit: None, selection: found };
            apply_typed(ui.ctx(), id, &mut tab.query, typed);
        }
        if close {
            self.find = None;
        }
    }
}
