//! The docs of the type or field in focus: description, type, scope, arguments, enum values and
//! deprecation reasons, as the schema states them.

use crate::explorer::{SchemaModel, TypeKind};

/// What the explorer's docs show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Focus {
    /// A type.
    Type(String),
    /// A field of a type.
    Field(String, String),
}

/// Draws the docs of `focus`.
pub fn ui(ui: &mut egui::Ui, model: &SchemaModel, focus: &Focus) {
    match focus {
        Focus::Type(name) => type_docs(ui, model, name),
        Focus::Field(parent, name) => match model.field(parent, name) {
            Some(field) => {
                ui.horizontal_wrapped(|ui| {
                    ui.strong(format!("{parent}.{name}"));
                    ui.monospace(format!(": {}", field.ty));
                });
                if let Some(scope) = field.scope {
                    ui.label(format!("Needs the scope {} ({})", scope.as_str(), scope.description()));
                }
                if let Some(reason) = field.deprecation {
                    ui.colored_label(ui.visuals().warn_fg_color, format!("Deprecated: {reason}"));
                }
                if let Some(description) = field.description {
                    ui.label(description);
                }
                if !field.arguments.is_empty() {
                    ui.strong("Arguments");
                    for argument in &field.arguments {
                        let default = argument.default.map(|d| format!(" = {d}")).unwrap_or_default();
                        ui.monospace(format!("{}: {}{default}", argument.name, argument.ty));
                        if let Some(description) = argument.description {
                            ui.weak(description);
                        }
                        if let Some(reason) = argument.deprecation {
                            ui.colored_label(ui.visuals().warn_fg_color, format!("Deprecated: {reason}"));
                        }
                    }
                }
                ui.separator();
                type_docs(ui, model, field.named_type);
            }
            None => {
                ui.weak(format!("{parent}.{name} is not in this schema."));
            }
        },
    }
}

fn type_docs(ui: &mut egui::Ui, model: &SchemaModel, name: &str) {
    let Some(info) = model.type_info(name) else {
        ui.weak(format!("{name} is not in this schema."));
        return;
    };
    let kind = match info.kind {
        TypeKind::Scalar => "scalar",
        TypeKind::Object => "object type",
        TypeKind::Interface => "interface",
        TypeKind::Union => "union",
        TypeKind::Enum => "enum",
        TypeKind::InputObject => "input object",
    };
    ui.strong(format!("{} — {kind}", info.name));
    if let Some(description) = info.description {
        ui.label(description);
    }
    let values = model.enum_values(name);
    for value in &values {
        let text = match value.description {
            Some(description) => format!("{} — {description}", value.name),
            None => value.name.to_owned(),
        };
        match value.deprecation {
            Some(reason) => ui.colored_label(ui.visuals().weak_text_color(), format!("{text} (deprecated: {reason})")),
            None => ui.monospace(text),
        };
    }
    for field in model.input_fields(name) {
        ui.monospace(format!("{}: {}", field.name, field.ty));
    }
}
