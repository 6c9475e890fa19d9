//! Argument inputs of a selected field, typed by the argument's type: a drop-down for enums and
//! booleans, a checked number for Int and Float, text for String and ID (quoted for the
//! document). An input object unfolds into a row a field at every level, each typed by its own
//! type (its enum choices, its lists, the input objects inside it, folded until unfolded or
//! holding a value); a list of input objects into its items (**Add to NAME**, **Remove item
//! N**); a list of enum values into a checkbox a value; a list of scalars into one text of
//! comma-separated values. `$name` anywhere uses a variable.
//! A value is written into the document when Enter is pressed or the input loses focus (a
//! choice at once): the whole argument is written again from its value read as a tree
//! ([`Literal`]), so what the document holds beside the field changed stays as written, and the
//! inputs are read back from the document whenever it changes.

use std::collections::{HashMap, HashSet};

use crate::explorer::{InputValueInfo, Literal, SchemaModel, TypeKind};

/// The text being typed into argument inputs, by input, and which inputs are unfolded.
#[derive(Default)]
pub struct ArgumentInputs {
    editing: HashMap<String, String>,
    errors: HashMap<String, String>,
    /// Input objects and lists unfolded by the person (those holding a value are unfolded
    /// anyway, as are the arguments themselves).
    unfolded: HashSet<String>,
    /// Input objects and lists folded by the person though they would be unfolded.
    folded: HashSet<String>,
}

/// How deep input objects unfold (a guard against input types that hold themselves, as Hasura's
/// `_and: [users_bool_exp!]` or Strawberry's `AND: UserFilter`; each level opens only when asked).
const MAX_INPUT_DEPTH: usize = 16;
/// The indentation of each level of an input object.
const INDENT: f32 = 14.0;

/// How an argument is entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Pick one of the enum's values.
    Enum,
    /// true / false.
    Boolean,
    /// A whole number.
    Int,
    /// A number.
    Float,
    /// Text, quoted in the document.
    Text,
    /// A GraphQL literal as written (lists of lists, custom scalars).
    Literal,
}

impl Entry {
    /// How a single value of `argument`'s named type is entered (lists aside: see [`Shape`]).
    pub fn of(argument: &InputValueInfo<'_>) -> Entry {
        match (argument.kind, argument.named_type) {
            (TypeKind::Enum, _) => Entry::Enum,
            (_, "Boolean") => Entry::Boolean,
            (_, "Int") => Entry::Int,
            (_, "Float") => Entry::Float,
            (_, "String" | "ID") => Entry::Text,
            _ => Entry::Literal,
        }
    }

    /// The document's literal as shown in the input (strings unquoted).
    pub fn shown(self, literal: &str) -> String {
        match self {
            Entry::Text => serde_json::from_str::<String>(literal).unwrap_or_else(|_| literal.to_owned()),
            _ => literal.to_owned(),
        }
    }

    /// What was typed as a literal for the document; none when empty (remove the argument).
    pub fn literal(self, typed: &str) -> Result<Option<String>, String> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Ok(None);
        }
        if typed.starts_with('$') {
            return Ok(Some(typed.to_owned()));
        }
        match self {
            Entry::Int => typed
                .parse::<i64>()
                .map(|_| Some(typed.to_owned()))
                .map_err(|_| format!("'{typed}' is not a whole number; write one such as 50, or $variable")),
            Entry::Float => typed
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .map(|_| Some(typed.to_owned()))
                .ok_or_else(|| format!("'{typed}' is not a number; write one such as 2.5, or $variable")),
            // JSON string escaping is GraphQL string escaping.
            Entry::Text => Ok(Some(serde_json::Value::String(typed.to_owned()).to_string())),
            Entry::Enum | Entry::Boolean | Entry::Literal => Ok(Some(typed.to_owned())),
        }
    }
}

/// How an input is entered, by its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// An input object: a row a field, one level further in.
    Object,
    /// A list of input objects: its items, each a row a field.
    Objects,
    /// A list of enum values: a checkbox a value.
    Enums,
    /// A list of scalars: one text of comma-separated values.
    Scalars(Entry),
    /// One value.
    One(Entry),
}

impl Shape {
    fn of(input: &InputValueInfo<'_>, value: Option<&Literal>) -> Shape {
        let entry = Entry::of(input);
        if value.is_some_and(Literal::is_variable) {
            return Shape::One(Entry::Literal);
        }
        match (input.ty.is_list(), input.ty.is_list() && input.ty.item_type().is_list(), input.kind) {
            (true, true, _) => Shape::One(Entry::Literal),
            (true, false, TypeKind::InputObject) => Shape::Objects,
            (true, false, TypeKind::Enum) => Shape::Enums,
            (true, false, _) => Shape::Scalars(entry),
            (false, _, TypeKind::InputObject) => Shape::Object,
            (false, _, _) => Shape::One(entry),
        }
    }
}

impl ArgumentInputs {
    /// The inputs of `arguments` of the node `key` whose values in the document are `current`;
    /// returns an argument to set (name, literal or none to remove).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        key: &str,
        arguments: &[InputValueInfo<'_>],
        current: &[(String, String)],
    ) -> Option<(String, Option<String>)> {
        let values = Literal::Object(current.iter().map(|(name, v)| (name.clone(), Literal::parse(v))).collect());
        egui::Grid::new(("arguments", key))
            .num_columns(2)
            .spacing([6.0, 2.0])
            .show(ui, |ui| self.fields(ui, model, key, 0, arguments, Some(&values)))
            .inner
            .map(|(name, value)| (name, value.map(|v| v.write())))
    }

    /// The rows of the inputs of an object (or of a field's arguments) at `depth` whose value is
    /// `object`; returns an input that changed and its new value (none: left out).
    fn fields(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        id: &str,
        depth: usize,
        inputs: &[InputValueInfo<'_>],
        object: Option<&Literal>,
    ) -> Option<(String, Option<Literal>)> {
        let mut change = None;
        for input in inputs {
            let id = format!("{id}({})", input.name);
            let value = object.and_then(|o| o.field(input.name));
            if let Some(new) = self.input(ui, model, &id, depth, input, value) {
                change = Some((input.name.to_owned(), new));
            }
        }
        change
    }

    /// The rows of one input whose value is `value`; its new value when it changed.
    fn input(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        id: &str,
        depth: usize,
        input: &InputValueInfo<'_>,
        value: Option<&Literal>,
    ) -> Option<Option<Literal>> {
        let shape = Shape::of(input, value);
        let foldable = matches!(shape, Shape::Object | Shape::Objects);
        // The arguments themselves are unfolded (their fields are what one came for); the levels
        // below, when they hold a value or are asked to.
        let open = foldable && self.is_open(id, depth == 0 || value.is_some());
        let label = self.label_ui(ui, id, depth, input, foldable.then_some(open));
        let change = match shape {
            Shape::Object | Shape::Objects => {
                ui.weak(egui::RichText::new(input.ty.to_string()).monospace());
                ui.end_row();
                match (open, shape) {
                    (false, _) => None,
                    _ if depth + 1 >= MAX_INPUT_DEPTH => {
                        ui.label("");
                        ui.weak("(deeper levels: write them in the editor)");
                        ui.end_row();
                        None
                    }
                    (true, Shape::Object) => self.object(ui, model, id, depth, input, value),
                    _ => self.objects(ui, model, id, depth, input, value),
                }
            }
            Shape::Enums => {
                let change = enums(ui, model, input, value);
                ui.end_row();
                change
            }
            Shape::Scalars(entry) => {
                let change = self.scalars(ui, id, entry, input, value, &label);
                ui.end_row();
                change
            }
            Shape::One(entry) => {
                let change = self.one(ui, model, id, entry, input, value, &label);
                ui.end_row();
                change
            }
        };
        if let Some(error) = self.errors.get(id) {
            ui.label("");
            ui.colored_label(ui.visuals().error_fg_color, error);
            ui.end_row();
        }
        change
    }

    /// Whether the input `id` shows its fields: `by_default`, unless the person said otherwise.
    fn is_open(&self, id: &str, by_default: bool) -> bool {
        match by_default {
            true => !self.folded.contains(id),
            false => self.unfolded.contains(id),
        }
    }

    /// The input's name (and `*` when required), indented by `depth`, with its Fold/Unfold
    /// button when it has fields (`open`: whether they show).
    fn label_ui(
        &mut self,
        ui: &mut egui::Ui,
        id: &str,
        depth: usize,
        input: &InputValueInfo<'_>,
        open: Option<bool>,
    ) -> egui::Response {
        let required = if input.is_required() { " *" } else { "" };
        let text = egui::RichText::new(format!("{}{required}", input.name)).monospace().italics();
        // Its own id: the same field name at another level is another input.
        ui.push_id(id, |ui| {
            ui.horizontal(|ui| {
                ui.add_space(INDENT * depth as f32);
                if let Some(open) = open {
                    // The tree's triangles and names: a screen reader (and the tests) knows the button by
                    // what it does.
                    let what = format!("{} {}", if open { "Fold" } else { "Unfold" }, input.name);
                    let button = ui.small_button(egui::RichText::new(if open { "▾" } else { "▸" }).monospace());
                    button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &what));
                    if button.on_hover_text(&what).clicked() {
                        match open {
                            true => {
                                self.unfolded.remove(id);
                                self.folded.insert(id.to_owned());
                            }
                            false => {
                                self.folded.remove(id);
                                self.unfolded.insert(id.to_owned());
                            }
                        }
                    }
                }
                ui.label(text).on_hover_text(argument_hover(input))
            })
            .inner
        })
        .inner
    }

    /// The fields of an input object, one level further in.
    fn object(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        id: &str,
        depth: usize,
        input: &InputValueInfo<'_>,
        value: Option<&Literal>,
    ) -> Option<Option<Literal>> {
        let fields = model.input_fields(input.named_type);
        let (name, new) = self.fields(ui, model, id, depth + 1, &fields, value)?;
        let order: Vec<&str> = fields.iter().map(|f| f.name).collect();
        Some(Literal::with_field(value, &name, new, &order))
    }

    /// The items of a list of input objects, each a row a field, with Remove and Add.
    fn objects(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        id: &str,
        depth: usize,
        input: &InputValueInfo<'_>,
        value: Option<&Literal>,
    ) -> Option<Option<Literal>> {
        let fields = model.input_fields(input.named_type);
        let order: Vec<&str> = fields.iter().map(|f| f.name).collect();
        let mut items: Vec<Literal> = value.map(|v| v.items().into_iter().cloned().collect()).unwrap_or_default();
        let mut changed = false;
        let mut remove = None;
        for (i, item) in items.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                ui.add_space(INDENT * (depth + 1) as f32);
                ui.label(format!("item {}", i + 1));
            });
            if ui.push_id((id, i), |ui| ui.small_button(format!("Remove item {}", i + 1))).inner.clicked() {
                remove = Some(i);
            }
            ui.end_row();
            let item_id = format!("{id}[{i}]");
            if let Some((name, new)) = self.fields(ui, model, &item_id, depth + 2, &fields, Some(&*item)) {
                // An item emptied stays an (empty) item until it is removed.
                *item = Literal::with_field(Some(&*item), &name, new, &order).unwrap_or(Literal::Object(Vec::new()));
                changed = true;
            }
        }
        ui.horizontal(|ui| ui.add_space(INDENT * (depth + 1) as f32));
        if ui.push_id(id, |ui| ui.small_button(format!("Add to {}", input.name))).inner.clicked() {
            items.push(Literal::Object(Vec::new()));
            changed = true;
        }
        ui.end_row();
        if let Some(i) = remove {
            items.remove(i);
            changed = true;
        }
        changed.then(|| (!items.is_empty()).then_some(Literal::List(items)))
    }

    /// A list of scalars: its values in one text, separated by commas (a GraphQL list, or a
    /// variable, may be written as is).
    fn scalars(
        &mut self,
        ui: &mut egui::Ui,
        id: &str,
        entry: Entry,
        input: &InputValueInfo<'_>,
        value: Option<&Literal>,
        label: &egui::Response,
    ) -> Option<Option<Literal>> {
        let items = value.map(Literal::items).unwrap_or_default();
        let plain = items.iter().all(|i| matches!(i, Literal::Raw(_)));
        let shown = match (value, plain) {
            (None, _) => String::new(),
            (Some(_), true) => items
                .iter()
                .map(|i| match i {
                    Literal::Raw(text) => entry.shown(text),
                    other => other.write(),
                })
                .collect::<Vec<_>>()
                .join(", "),
            (Some(value), false) => value.write(),
        };
        let hint = "values, separated by commas".to_owned();
        let typed = self.text(ui, id, shown, hint, label.id)?;
        let typed = typed.trim();
        if typed.is_empty() {
            self.errors.remove(id);
            return Some(None);
        }
        if typed.starts_with('[') || typed.starts_with('$') {
            self.errors.remove(id);
            return Some(Some(Literal::parse(typed)));
        }
        let mut items = Vec::new();
        for item in typed.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match entry.literal(item) {
                Ok(Some(literal)) => items.push(Literal::Raw(literal)),
                Ok(None) => {}
                Err(e) => {
                    self.errors.insert(id.to_owned(), format!("{e} (in the list of {})", input.name));
                    return None;
                }
            }
        }
        self.errors.remove(id);
        Some((!items.is_empty()).then_some(Literal::List(items)))
    }

    /// One value: a choice for enums and booleans, a text otherwise.
    #[allow(clippy::too_many_arguments)]
    fn one(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        id: &str,
        entry: Entry,
        input: &InputValueInfo<'_>,
        value: Option<&Literal>,
        label: &egui::Response,
    ) -> Option<Option<Literal>> {
        let written = value.map(Literal::write);
        let picked = match entry {
            Entry::Enum => {
                let values: Vec<String> =
                    model.enum_values(input.named_type).iter().map(|v| v.name.to_owned()).collect();
                choice(ui, id, written.as_deref(), &values, label.id)
            }
            Entry::Boolean => choice(ui, id, written.as_deref(), &["true".to_owned(), "false".to_owned()], label.id),
            _ => {
                let shown = written.as_deref().map(|v| entry.shown(v)).unwrap_or_default();
                let hint = match entry {
                    Entry::Literal => "GraphQL value".to_owned(),
                    _ => input.default.map(|d| d.to_string()).unwrap_or_default(),
                };
                let typed = self.text(ui, id, shown, hint, label.id)?;
                match entry.literal(&typed) {
                    Ok(literal) => {
                        self.errors.remove(id);
                        Some(literal)
                    }
                    Err(e) => {
                        self.errors.insert(id.to_owned(), e);
                        None
                    }
                }
            }
        };
        picked.map(|literal| literal.map(|l| Literal::parse(&l)))
    }

    /// A text input showing `shown` (what the document says, unless it is being typed into);
    /// returns the text when it is committed changed (Enter, or focus leaving it).
    fn text(&mut self, ui: &mut egui::Ui, id: &str, shown: String, hint: String, label: egui::Id) -> Option<String> {
        let buffer = self.editing.entry(id.to_owned()).or_insert_with(|| shown.clone());
        let edit_id = egui::Id::unique(("argument", id));
        let has_focus = ui.memory(|m| m.has_focus(edit_id));
        if !has_focus && *buffer != shown {
            // The document changed by hand: show what it says now.
            *buffer = shown.clone();
        }
        let response = ui
            .add(egui::TextEdit::singleline(buffer).id(edit_id).hint_text(hint).desired_width(160.0))
            .labelled_by(label);
        (response.lost_focus() && *buffer != shown).then(|| buffer.clone())
    }
}

/// A list of enum values: a checkbox a value of the enum, in its order.
fn enums(
    ui: &mut egui::Ui,
    model: &SchemaModel,
    input: &InputValueInfo<'_>,
    value: Option<&Literal>,
) -> Option<Option<Literal>> {
    let values = model.enum_values(input.named_type);
    let chosen: Vec<&Literal> = value.map(Literal::items).unwrap_or_default();
    let mut change = None;
    ui.horizontal_wrapped(|ui| {
        ui.set_max_width(320.0);
        for enum_value in &values {
            let was = chosen.iter().any(|c| matches!(c, Literal::Raw(v) if v == enum_value.name));
            let mut on = was;
            let text = egui::RichText::new(enum_value.name).monospace();
            let response = ui.add(egui::Checkbox::new(&mut on, text)).on_hover_text(format!(
                "{} of {}{}",
                enum_value.name,
                input.named_type,
                enum_value.deprecation.map(|r| format!("\n\nDeprecated: {r}")).unwrap_or_default()
            ));
            if response.changed() {
                // The enum's order, and what else the document lists (written by hand) after.
                let mut items: Vec<Literal> = values
                    .iter()
                    .filter(|v| {
                        let listed = chosen.iter().any(|c| matches!(c, Literal::Raw(x) if x == v.name));
                        if v.name == enum_value.name { on } else { listed }
                    })
                    .map(|v| Literal::Raw(v.name.to_owned()))
                    .collect();
                let known = |c: &&Literal| values.iter().any(|v| matches!(c, Literal::Raw(x) if x == v.name));
                items.extend(chosen.iter().copied().filter(|c| !known(c)).cloned());
                change = Some((!items.is_empty()).then_some(Literal::List(items)));
            }
        }
    });
    change
}

fn argument_hover(argument: &InputValueInfo<'_>) -> String {
    let required = if argument.is_required() { " (required)" } else { "" };
    let mut hover = format!("{}: {}{required}", argument.name, argument.ty);
    if let Some(default) = argument.default {
        hover.push_str(&format!(" = {default}"));
    }
    if let Some(description) = argument.description {
        hover.push_str("\n\n");
        hover.push_str(description);
    }
    if let Some(reason) = argument.deprecation {
        hover.push_str("\n\nDeprecated: ");
        hover.push_str(reason);
    }
    hover
}

/// A drop-down of `values` and "(none)"; returns the new choice.
fn choice(
    ui: &mut egui::Ui,
    id: &str,
    current: Option<&str>,
    values: &[String],
    label: egui::Id,
) -> Option<Option<String>> {
    let mut picked = current.map(str::to_owned);
    let before = picked.clone();
    let response = egui::ComboBox::from_id_salt(("argument-choice", id))
        .selected_text(current.unwrap_or("(none)"))
        .show_ui(ui, |ui| {
            crate::ui::widgets::a11y::choose(ui, &mut picked, None, "(none)");
            for value in values {
                crate::ui::widgets::a11y::choose(ui, &mut picked, Some(value.clone()), value);
            }
        })
        .response
        .labelled_by(label);
    crate::ui::widgets::a11y::say_combo_value(ui, &response);
    (picked != before).then_some(picked)
}

#[cfg(test)]
mod tests {
    use super::Entry;

    #[test]
    fn typed_values_become_literals() {
        assert_eq!(Entry::Int.literal("50").unwrap().as_deref(), Some("50"));
        assert!(Entry::Int.literal("5x").unwrap_err().contains("whole number"));
        assert_eq!(Entry::Int.literal(" $first ").unwrap().as_deref(), Some("$first"));
        assert_eq!(Entry::Float.literal("2.5").unwrap().as_deref(), Some("2.5"));
        assert!(Entry::Float.literal("NaN").is_err());
        assert_eq!(Entry::Text.literal(r#"O"Brien"#).unwrap().as_deref(), Some(r#""O\"Brien""#));
        assert_eq!(Entry::Text.literal("  ").unwrap(), None, "empty removes the argument");
        assert_eq!(Entry::Literal.literal("{ status: ACTIVE }").unwrap().as_deref(), Some("{ status: ACTIVE }"));
        assert_eq!(Entry::Text.shown(r#""O\"Brien""#), r#"O"Brien"#);
        assert_eq!(Entry::Text.shown("$name"), "$name");
    }
}
