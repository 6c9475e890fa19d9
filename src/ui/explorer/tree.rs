//! The explorer's tree: a row a field (checkbox, name, type, scope), children laid out only when
//! a node is open, and the argument inputs of selected fields.

use std::collections::{HashMap, HashSet};

use super::arguments::ArgumentInputs;
use super::docs::Focus;
use crate::explorer::{FieldInfo, SchemaModel};
use crate::query::OperationKind;
use crate::query::lang::{SelectionState, TextEdit, set_argument, toggle_field};

/// How deep the tree opens (a guard against cycles such as `User.manager.manager…`).
const MAX_DEPTH: usize = 12;
/// Fields preferred when ticking an object field selects one of its leaves for it.
const PREFERRED_LEAVES: [&str; 5] = ["id", "ref", "name", "title", "count"];

/// The key of an open node: the tree's kind and the field path.
pub fn node_key(kind: &str, path: &[impl AsRef<str>]) -> String {
    let mut key = kind.to_owned();
    for name in path {
        key.push('/');
        key.push_str(name.as_ref());
    }
    key
}

/// A change the user made in the tree.
pub enum Action {
    /// Tick or untick the field at `path`; `leaf` when it has no fields of its own.
    Toggle {
        /// The field path.
        path: Vec<String>,
        /// Tick (true) or untick.
        on: bool,
        /// The field's named type, when it has fields.
        object: Option<String>,
    },
    /// Set (or remove, for none) an argument of the selected field at `path`.
    Argument {
        /// The field path.
        path: Vec<String>,
        /// The argument.
        name: String,
        /// A GraphQL literal.
        value: Option<String>,
    },
}

impl Action {
    /// The edit of `text` this action makes, or what went wrong (one sentence).
    pub fn into_edit(self, model: &SchemaModel, text: &str, kind: OperationKind) -> Result<Option<TextEdit>, String> {
        let result = match self {
            Action::Toggle { mut path, on: true, object: Some(type_name) } => {
                // An object field needs a selection: its most telling leaf goes with it.
                path.extend(default_leaves(model, &type_name));
                toggle_field(text, kind, &path, true)
            }
            Action::Toggle { path, on, .. } => toggle_field(text, kind, &path, on),
            Action::Argument { path, name, value } => set_argument(text, kind, &path, &name, value.as_deref()),
        };
        result.map_err(|e| {
            let mut message = e.to_string();
            if let Some(first) = message.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            message
        })
    }
}

/// The fields that make a first selection of an object type: through a Relay edge's `node`, a
/// preferred leaf, or the first leaf, or (when it has none) the way to one through its first
/// object field.
fn default_leaves(model: &SchemaModel, type_name: &str) -> Vec<String> {
    let mut path = Vec::new();
    let mut current = type_name.to_owned();
    for _ in 0..MAX_DEPTH {
        let fields = model.fields(&current);
        let needs_nothing = |f: &&FieldInfo<'_>| f.arguments.iter().all(|a| !a.is_required());
        // A Relay edge is there for its node.
        if let Some(node) = fields.iter().find(|f| f.name == "node" && !f.is_leaf()) {
            path.push("node".to_owned());
            current = node.named_type.to_owned();
            continue;
        }
        let leaf = PREFERRED_LEAVES
            .iter()
            .find_map(|name| fields.iter().filter(needs_nothing).find(|f| f.name == *name && f.is_leaf()))
            .or_else(|| fields.iter().filter(needs_nothing).find(|f| f.is_leaf() && f.deprecation.is_none()));
        if let Some(leaf) = leaf {
            path.push(leaf.name.to_owned());
            return path;
        }
        let Some(next) = fields.iter().filter(needs_nothing).find(|f| !f.is_leaf()) else {
            path.push("__typename".to_owned());
            return path;
        };
        path.push(next.name.to_owned());
        current = next.named_type.to_owned();
    }
    path.push("__typename".to_owned());
    path
}

/// One frame of the tree.
pub struct TreeView<'a> {
    pub model: &'a SchemaModel,
    pub kind: OperationKind,
    pub key: &'static str,
    pub ticks: &'a SelectionState,
    pub open: &'a mut HashSet<String>,
    pub focus: &'a mut Option<Focus>,
    pub reveal: &'a mut bool,
    pub arguments: &'a mut ArgumentInputs,
    /// The argument values of selected fields by node, read from `text` once.
    pub values: &'a mut HashMap<String, Vec<(String, String)>>,
    pub text: &'a str,
    pub action: Option<Action>,
}

impl TreeView<'_> {
    /// The fields of `type_name` at `path`.
    pub fn type_ui(&mut self, ui: &mut egui::Ui, type_name: &str, path: &mut Vec<String>) {
        let fields = self.model.fields(type_name);
        if fields.is_empty() {
            let members = self.model.possible_types(type_name);
            if !members.is_empty() {
                ui.weak(format!("one of {} (use … on Type in the editor)", members.join(", ")));
            }
            return;
        }
        for field in &fields {
            path.push(field.name.to_owned());
            self.field_ui(ui, type_name, field, path);
            path.pop();
        }
    }

    fn field_ui(&mut self, ui: &mut egui::Ui, parent: &str, field: &FieldInfo<'_>, path: &mut Vec<String>) {
        let key = node_key(self.key, path);
        let ticked = self.ticks.is_selected(self.kind, path);
        let is_open = self.open.contains(&key);
        let focused = matches!(self.focus, Some(Focus::Field(t, f)) if t == parent && f == field.name);
        let row = ui.horizontal(|ui| {
            if field.is_leaf() {
                ui.add_space(18.0);
            } else {
                // Triangles of egui's own monospace font (Hack), so no system font is needed.
                let arrow = egui::RichText::new(if is_open { "▾" } else { "▸" }).monospace();
                let what = format!("{} {}", if is_open { "Fold" } else { "Unfold" }, field.name);
                let button = ui.small_button(arrow);
                // Screen readers (and the tests) know the button by what it does.
                button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &what));
                if button.on_hover_text(&what).clicked() {
                    if is_open {
                        self.open.remove(&key);
                    } else {
                        self.open.insert(key.clone());
                    }
                }
            }
            let mut checked = ticked;
            let name = field_name_text(ui, field);
            let response = ui.checkbox(&mut checked, name);
            if response.changed() {
                let object = (!field.is_leaf()).then(|| field.named_type.to_owned());
                if checked && let Some(named) = &object {
                    // Open the way to the fields ticked with it.
                    self.open.insert(key.clone());
                    let mut way = path.clone();
                    let leaves = default_leaves(self.model, named);
                    for name in &leaves[..leaves.len().saturating_sub(1)] {
                        way.push(name.clone());
                        self.open.insert(node_key(self.key, &way));
                    }
                }
                self.action = Some(Action::Toggle { path: path.clone(), on: checked, object });
                *self.focus = Some(Focus::Field(parent.to_owned(), field.name.to_owned()));
            }
            let hover = hover_text(field);
            response.on_hover_text(hover);
            // A link (to the type's docs), as a screen reader says it.
            let type_text = egui::RichText::new(field.ty.to_string()).monospace();
            if ui.add(egui::Link::new(type_text)).on_hover_text("Show the docs").clicked() {
                *self.focus = Some(Focus::Field(parent.to_owned(), field.name.to_owned()));
            }
            if let Some(scope) = field.scope {
                ui.weak(egui::RichText::new(scope.as_str()).small());
            }
        });
        if focused && std::mem::take(self.reveal) {
            row.response.scroll_to_me(Some(egui::Align::Center));
        }
        ui.indent(("args", &key), |ui| {
            if ticked && !field.arguments.is_empty() {
                let (text, kind) = (self.text, self.kind);
                let current = self
                    .values
                    .entry(key.clone())
                    .or_insert_with(|| crate::query::lang::argument_values(text, kind, path));
                if let Some((name, value)) = self.arguments.ui(ui, self.model, &key, &field.arguments, current) {
                    self.action = Some(Action::Argument { path: path.clone(), name, value });
                }
            }
            if is_open && !field.is_leaf() {
                if path.len() >= MAX_DEPTH {
                    ui.weak("(deeper levels: write them in the editor)");
                } else {
                    let named = field.named_type.to_owned();
                    self.type_ui(ui, &named, path);
                }
            }
        });
    }
}

/// The field's name: struck through and dimmed when deprecated.
fn field_name_text(ui: &egui::Ui, field: &FieldInfo<'_>) -> egui::RichText {
    let text = egui::RichText::new(field.name).monospace();
    if field.deprecation.is_some() { text.strikethrough().color(ui.visuals().weak_text_color()) } else { text }
}

fn hover_text(field: &FieldInfo<'_>) -> String {
    let mut hover = format!("{}: {}", field.name, field.ty);
    if let Some(description) = field.description {
        hover.push_str("\n\n");
        hover.push_str(description);
    }
    if let Some(reason) = field.deprecation {
        hover.push_str("\n\nDeprecated: ");
        hover.push_str(reason);
    }
    hover
}
