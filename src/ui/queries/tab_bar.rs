//! The row of tabs as in an IDE: click to select, double-click (or the context menu) to rename,
//! drag to reorder, × or a middle click to close, + for a new one; Ctrl+T, Ctrl+W and
//! Ctrl+Shift+T.

use egui::{Key, KeyboardShortcut, Modifiers};

use crate::ui::queries::tabs::Tabs;

/// What the tab bar asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabIntent {
    /// Make this tab active.
    Select(usize),
    /// Close this tab.
    Close(usize),
    /// Open a new tab.
    New,
    /// Reopen the tab closed last.
    Reopen,
    /// Move a tab to another place.
    Move {
        /// Where it is.
        from: usize,
        /// Where it goes.
        to: usize,
    },
    /// Rename a tab.
    Rename {
        index: usize,
        /// Its new name.
        title: String,
    },
}

/// The tab bar's own state: the tab being renamed and its text.
#[derive(Debug, Default)]
pub struct TabBar {
    renaming: Option<(u64, String)>,
}

const NEW_TAB: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::T);
const CLOSE_TAB: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::W);
const REOPEN_TAB: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::T);

impl TabBar {
    /// Draws the tabs; returns what the user asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, tabs: &Tabs) -> Option<TabIntent> {
        let mut intent = shortcuts(ui, tabs);
        ui.horizontal_wrapped(|ui| {
            let mut rects = Vec::with_capacity(tabs.len());
            let mut dragged = None;
            for (index, tab) in tabs.list().iter().enumerate() {
                if let Some((id, text)) = self.renaming.as_mut()
                    && *id == tab.id
                {
                    let label = ui.label("Tab name");
                    let edit = ui.add(egui::TextEdit::singleline(text).desired_width(120.0)).labelled_by(label.id);
                    if !edit.has_focus() && !edit.lost_focus() {
                        edit.request_focus();
                    }
                    if edit.lost_focus() {
                        if !ui.input(|i| i.key_pressed(Key::Escape)) {
                            intent = Some(TabIntent::Rename { index, title: text.clone() });
                        }
                        self.renaming = None;
                    }
                    rects.push(edit.rect);
                    continue;
                }
                let label = if tab.busy() { format!("{} …", tab.title) } else { tab.title.clone() };
                let response = ui
                    .add(
                        egui::Button::selectable(index == tabs.active_index(), label)
                            .sense(egui::Sense::click_and_drag()),
                    )
                    .on_hover_text("Double-click to rename, drag to move, middle-click to close, right-click for more");
                if response.double_clicked() {
                    self.renaming = Some((tab.id, tab.title.clone()));
                } else if response.clicked() {
                    intent = Some(TabIntent::Select(index));
                } else if response.middle_clicked() {
                    intent = Some(TabIntent::Close(index));
                }
                if response.drag_stopped() {
                    dragged = Some(index);
                }
                response.context_menu(|ui| {
                    if ui.button("Rename tab").clicked() {
                        self.renaming = Some((tab.id, tab.title.clone()));
                        ui.close();
                    }
                    if ui.button("Close tab").clicked() {
                        intent = Some(TabIntent::Close(index));
                        ui.close();
                    }
                    if ui.add_enabled(tabs.can_reopen(), egui::Button::new("Reopen closed tab")).clicked() {
                        intent = Some(TabIntent::Reopen);
                        ui.close();
                    }
                });
                rects.push(response.rect);
                let close = ui
                    .small_button("×")
                    .on_hover_text("Close tab (Ctrl+W)")
                    .accessible_name(format!("Close the {} tab", tab.title));
                if close.clicked() {
                    intent = Some(TabIntent::Close(index));
                }
            }
            if ui.button("+").on_hover_text("New tab (Ctrl+T)").accessible_name("New tab").clicked() {
                intent = Some(TabIntent::New);
            }
            if let Some(from) = dragged
                && let Some(pointer) = ui.input(|i| i.pointer.interact_pos())
            {
                // The place whose middle is nearest the pointer, along the row.
                let to = rects
                    .iter()
                    .enumerate()
                    .min_by(|(_, a), (_, b)| {
                        let distance = |r: &&egui::Rect| (r.center() - pointer).length();
                        distance(a).total_cmp(&distance(b))
                    })
                    .map_or(from, |(index, _)| index);
                if to != from {
                    intent = Some(TabIntent::Move { from, to });
                }
            }
        });
        intent
    }
}

/// Ctrl+Shift+T, Ctrl+T and Ctrl+W (the longer shortcut is consumed first).
fn shortcuts(ui: &mut egui::Ui, tabs: &Tabs) -> Option<TabIntent> {
    ui.input_mut(|input| {
        if input.consume_shortcut(&REOPEN_TAB) {
            Some(TabIntent::Reopen)
        } else if input.consume_shortcut(&NEW_TAB) {
            Some(TabIntent::New)
        } else if input.consume_shortcut(&CLOSE_TAB) {
            Some(TabIntent::Close(tabs.active_index()))
        } else {
            None
        }
    })
}
