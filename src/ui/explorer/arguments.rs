//! Argument inputs of a selected field, typed by the argument's type: a drop-down for enums and
//! booleans, a checked number for Int and Float, text for String and ID (quoted for the
//! document), an input object as a row a field (the object literal written from them), a GraphQL
//! literal for lists and deeper objects; `$name` anywhere uses a variable.
//! A value is written into the document when Enter is pressed or the input loses focus.

use std::collections::HashMap;

use crate::explorer::{InputValueInfo, SchemaModel, TypeKind};

/// The text being typed into argument inputs, by node and argument.
#[derive(Default)]
pub struct ArgumentInputs {
    editing: HashMap<String, String>,
    errors: HashMap<String, String>,
}

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
    /// A GraphQL literal as written (input objects, lists, custom scalars).
    Literal,
}

impl Entry {
    /// How an argument of this type is entered.
    pub fn of(argument: &InputValueInfo<'_>) -> Entry {
        if argument.ty.is_list() {
            return Entry::Literal;
        }
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
        egui::Grid::new(("arguments", key))
            .num_columns(2)
            .spacing([6.0, 2.0])
            .show(ui, |ui| self.rows(ui, model, key, arguments, current, true))
            .inner
    }

    /// A row an input; an input object (not in a list) opens into a row a field of its own when
    /// `nest`, and a change of one of them sets the whole object.
    fn rows(
        &mut self,
        ui: &mut egui::Ui,
        model: &SchemaModel,
        key: &str,
        inputs: &[InputValueInfo<'_>],
        current: &[(String, String)],
        nest: bool,
    ) -> Option<(String, Option<String>)> {
        let mut change = None;
        for input in inputs {
            let id = format!("{key}({})", input.name);
            let value = current.iter().find(|(name, _)| name == input.name).map(|(_, v)| v.as_str());
            let required = if input.is_required() { " *" } else { "" };
            let text = egui::RichText::new(format!("{}{required}", input.name)).monospace().italics();
            let label = ui
                .horizontal(|ui| {
                    if !nest {
                        ui.add_space(12.0);
                    }
                    ui.label(text).on_hover_text(argument_hover(input))
                })
                .inner;
            let entry = Entry::of(input);
            let variable = value.is_some_and(|v| v.trim_start().starts_with('$'));
            if nest && entry == Entry::Literal && input.kind == TypeKind::InputObject && !variable {
                ui.weak(egui::RichText::new(input.named_type).monospace());
                ui.end_row();
                let fields = model.input_fields(input.named_type);
                let mut inner = value.map(object_fields).unwrap_or_default();
                if let Some((name, literal)) = self.rows(ui, model, &id, &fields, &inner, false) {
                    inner.retain(|(n, _)| *n != name);
                    if let Some(literal) = literal {
                        // Keep the schema's order of fields.
                        let at = fields
                            .iter()
                            .filter(|f| inner.iter().any(|(n, _)| n == f.name))
                            .take_while(|f| f.name != name)
                            .count();
                        let at = inner.len().min(at);
                        inner.insert(at, (name, literal));
                    }
                    change = Some((input.name.to_owned(), object_literal(&inner)));
                }
                continue;
            }
            let picked = match entry {
                Entry::Enum => {
                    let values: Vec<String> =
                        model.enum_values(input.named_type).iter().map(|v| v.name.to_owned()).collect();
                    choice(ui, &id, value, &values, label.id)
                }
                Entry::Boolean => choice(ui, &id, value, &["true".to_owned(), "false".to_owned()], label.id),
                _ => self.typed(ui, &id, entry, input, value, label.id),
            };
            if let Some(picked) = picked {
                change = Some((input.name.to_owned(), picked));
            }
            ui.end_row();
            if let Some(error) = self.errors.get(&id) {
                ui.label("");
                ui.colored_label(ui.visuals().error_fg_color, error);
                ui.end_row();
            }
        }
        change
    }

    fn typed(
        &mut self,
        ui: &mut egui::Ui,
        id: &str,
        entry: Entry,
        argument: &InputValueInfo<'_>,
        value: Option<&str>,
        label: egui::Id,
    ) -> Option<Option<String>> {
        let shown = value.map(|v| entry.shown(v)).unwrap_or_default();
        let hint = match entry {
            Entry::Literal if argument.kind == TypeKind::InputObject => "{ field: value }".to_owned(),
            Entry::Literal => "GraphQL value".to_owned(),
            _ => argument.default.map(|d| d.to_string()).unwrap_or_default(),
        };
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
        let committed = response.lost_focus() && *buffer != shown;
        if !committed {
            return None;
        }
        match entry.literal(buffer) {
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
}

/// The fields of an input object literal (`{ a: 1, b: "x" }`) as name and value text, in order.
fn object_fields(literal: &str) -> Vec<(String, String)> {
    use apollo_parser::cst::{self, CstNode};
    let document = format!("{{ f(a: {literal}) }}");
    let tree = apollo_parser::Parser::new(&document).parse();
    let object = tree.document().syntax().descendants().find_map(cst::ObjectValue::cast);
    object
        .map(|object| {
            object
                .object_fields()
                .filter_map(|field| Some((field.name()?.text().to_string(), field.value()?.syntax().to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// An input object literal of `fields`; none when it has none (the argument goes).
fn object_literal(fields: &[(String, String)]) -> Option<String> {
    if fields.is_empty() {
        return None;
    }
    let fields: Vec<String> = fields.iter().map(|(name, value)| format!("{name}: {value}")).collect();
    Some(format!("{{ {} }}", fields.join(", ")))
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
    egui::ComboBox::from_id_salt(("argument-choice", id))
        .selected_text(current.unwrap_or("(none)"))
        .show_ui(ui, |ui| {
            crate::ui::a11y::choose(ui, &mut picked, None, "(none)");
            for value in values {
                crate::ui::a11y::choose(ui, &mut picked, Some(value.clone()), value);
            }
        })
        .response
        .labelled_by(label);
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

    #[test]
    fn input_objects_are_read_and_written_field_by_field() {
        use super::{object_fields, object_literal};
        let fields = object_fields(r#"{ ref: "u1", roles: [ADMIN], extraFields: [{ categoryRef: "c", value: "x" }] }"#);
        assert_eq!(
            fields,
            [
                ("ref".to_owned(), r#""u1""#.to_owned()),
                ("roles".to_owned(), "[ADMIN]".to_owned()),
                ("extraFields".to_owned(), r#"[{ categoryRef: "c", value: "x" }]"#.to_owned()),
            ]
        );
        assert_eq!(object_literal(&fields[..2]).as_deref(), Some(r#"{ ref: "u1", roles: [ADMIN] }"#));
        assert_eq!(object_literal(&[]), None);
        assert!(object_fields("$input").is_empty());
    }
}
