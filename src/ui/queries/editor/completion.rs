//! Completion in the query editor: offered while a name is typed (or on Ctrl+Space) from the
//! connection's schema — fields of the type at the cursor, arguments, enum values — with their
//! types and descriptions; ↑/↓ choose, Tab accepts, Escape closes (the editor keeps the focus).
//! Enter accepts only a suggestion the person moved to with the arrows or typed towards (the
//! name typed so far begins it and is shorter), as GraphiQL does; otherwise it closes the offer
//! and makes a new line, so that Enter after `}` never inserts a name.

use std::ops::Range;

use egui::{Key, KeyboardShortcut, Modifiers};

use crate::explorer::SchemaModel;
use crate::query::lang::{Completions, complete};

/// Ctrl+Space asks for completions where none are offered.
pub const COMPLETE_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Space);
/// How many completions are listed at once.
const SHOWN: usize = 12;

/// The completions offered, if any.
#[derive(Default)]
pub struct Completion {
    offered: Option<Offer>,
}

struct Offer {
    completions: Completions,
    selected: usize,
    /// The person moved the choice with the arrows.
    moved: bool,
    /// Where the cursor was (a byte of the text) when they were made.
    cursor: usize,
}

/// What a key did to the offer.
pub enum KeyOutcome {
    /// Nothing for the completion.
    None,
    /// Replace these bytes of the text with this name.
    Accept(Range<usize>, String),
    /// The offer closed on a key the editor should not see (Escape).
    Closed,
}

impl Completion {
    /// Whether completions are offered.
    pub fn is_open(&self) -> bool {
        self.offered.is_some()
    }

    /// The names offered (for tests and the popup).
    pub fn labels(&self) -> Vec<&str> {
        self.offered.iter().flat_map(|o| o.completions.items.iter().map(|i| i.label.as_str())).collect()
    }

    /// Takes the keys the popup answers to before the editor sees them.
    pub fn keys(&mut self, ui: &egui::Ui, text: &str) -> KeyOutcome {
        let towards = self.typed_towards(text);
        let Some(offer) = self.offered.as_mut() else { return KeyOutcome::None };
        let count = offer.completions.items.len();
        let pressed = |key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, key));
        if pressed(Key::Escape) {
            self.offered = None;
            return KeyOutcome::Closed;
        } else if pressed(Key::ArrowDown) {
            offer.selected = (offer.selected + 1) % count;
            offer.moved = true;
        } else if pressed(Key::ArrowUp) {
            offer.selected = (offer.selected + count - 1) % count;
            offer.moved = true;
        } else if pressed(Key::Tab) {
            return self.accept_selected();
        } else if ui.input(|i| i.key_pressed(Key::Enter) && i.modifiers.is_none()) {
            if offer.moved || towards {
                ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Enter));
                return self.accept_selected();
            }
            // Enter is the editor's: a new line.
            self.offered = None;
        }
        KeyOutcome::None
    }

    /// Whether the name typed so far begins the chosen suggestion and is shorter than it.
    fn typed_towards(&self, text: &str) -> bool {
        let Some(offer) = &self.offered else { return false };
        let typed = text.get(offer.completions.replace.clone()).unwrap_or("");
        offer
            .completions
            .items
            .get(offer.selected)
            .is_some_and(|item| !typed.is_empty() && item.label.len() > typed.len() && item.label.starts_with(typed))
    }

    fn accept_selected(&mut self) -> KeyOutcome {
        match self.offered.take() {
            Some(offer) => match offer.completions.items.get(offer.selected) {
                Some(item) => KeyOutcome::Accept(offer.completions.replace.clone(), item.label.clone()),
                None => KeyOutcome::None,
            },
            None => KeyOutcome::None,
        }
    }

    /// After the editor ran: offers completions when a name is being typed at `cursor` (or
    /// when `asked`), follows the typing while offered, and closes when the cursor moves away.
    pub fn update(&mut self, schema: Option<&SchemaModel>, text: &str, cursor: usize, changed: bool, asked: bool) {
        let Some(schema) = schema else {
            self.offered = None;
            return;
        };
        // Offered only while a name is typed: a change that leaves anything else before the
        // cursor (`}`, a space, a new line) closes the offer.
        let typing_name = changed && text[..cursor.min(text.len())].chars().next_back().is_some_and(is_name_char);
        if !(asked || typing_name) {
            if changed || self.offered.as_ref().is_some_and(|o| o.cursor != cursor) {
                self.offered = None;
            }
            return;
        }
        let completions = complete(schema.schema(), text, cursor);
        let typed_exactly = completions.items.len() == 1
            && text.get(completions.replace.clone()) == Some(completions.items[0].label.as_str());
        self.offered = (!completions.items.is_empty() && !typed_exactly).then_some(Offer {
            completions,
            selected: 0,
            moved: false,
            cursor,
        });
    }

    /// The popup at `at` (below the cursor); returns a completion clicked.
    pub fn popup_ui(&mut self, ctx: &egui::Context, at: egui::Pos2) -> KeyOutcome {
        let Some(offer) = self.offered.as_mut() else { return KeyOutcome::None };
        let mut clicked = None;
        egui::Area::new(egui::Id::unique("completion-popup")).order(egui::Order::Foreground).fixed_pos(at).show(
            ctx,
            |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_max_width(420.0);
                    let first = offer.selected.saturating_sub(SHOWN - 1);
                    for (i, item) in offer.completions.items.iter().enumerate().skip(first).take(SHOWN) {
                        let mut name = egui::RichText::new(&item.label).monospace();
                        if item.deprecated.is_some() {
                            name = name.strikethrough();
                        }
                        ui.horizontal(|ui| {
                            if ui.selectable_label(i == offer.selected, name).clicked() {
                                clicked = Some(i);
                            }
                            ui.weak(&item.detail);
                        });
                    }
                    if let Some(item) = offer.completions.items.get(offer.selected) {
                        if let Some(reason) = &item.deprecated {
                            ui.colored_label(ui.visuals().warn_fg_color, format!("Deprecated: {reason}"));
                        }
                        if let Some(documentation) = &item.documentation {
                            ui.separator();
                            ui.label(documentation);
                        }
                    }
                    ui.weak("Tab accepts · ↑↓ then Enter · Esc closes");
                });
            },
        );
        match clicked {
            Some(i) => {
                offer.selected = i;
                self.accept_selected()
            }
            None => KeyOutcome::None,
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}
