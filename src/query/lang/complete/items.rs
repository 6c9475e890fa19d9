//! The completions the schema offers for each kind of place.

use apollo_compiler::Node;
use apollo_compiler::Schema;
use apollo_compiler::ast::Type;
use apollo_compiler::schema::{ExtendedType, FieldDefinition, InputValueDefinition};

use super::super::schema_info::{deprecation, description};
use super::{Completion, CompletionKind};

/// The fields of the type `name` (none for a union but `__typename`), then `__typename`.
pub(super) fn fields(schema: &Schema, name: &str) -> Vec<Completion> {
    let listed: Vec<&FieldDefinition> = match schema.types.get(name) {
        Some(ExtendedType::Object(object)) => object.fields.values().map(|field| &***field).collect(),
        Some(ExtendedType::Interface(interface)) => interface.fields.values().map(|field| &***field).collect(),
        Some(ExtendedType::Union(_)) => Vec::new(),
        _ => return Vec::new(),
    };
    let mut out: Vec<Completion> = listed
        .into_iter()
        .map(|field| Completion {
            label: field.name.to_string(),
            detail: field.ty.to_string(),
            documentation: description(field.description.as_ref()),
            kind: CompletionKind::Field,
            deprecated: deprecation(&field.directives),
        })
        .collect();
    out.push(Completion {
        label: "__typename".to_string(),
        detail: "String!".to_string(),
        documentation: Some(format!("The name of the object's type ({name} or a type implementing it).")),
        kind: CompletionKind::Field,
        deprecated: None,
    });
    out
}

/// Input values (arguments or input object fields) not among `given`.
pub(super) fn inputs<'a>(
    definitions: impl Iterator<Item = &'a Node<InputValueDefinition>>,
    given: &[String],
    kind: CompletionKind,
) -> Vec<Completion> {
    definitions
        .filter(|definition| !given.iter().any(|name| definition.name == name.as_str()))
        .map(|definition| Completion {
            label: definition.name.to_string(),
            detail: definition.ty.to_string(),
            documentation: description(definition.description.as_ref()),
            kind,
            deprecated: deprecation(&definition.directives),
        })
        .collect()
}

/// The fields of the input object type `name` not among `given`.
pub(super) fn input_fields(schema: &Schema, name: &str, given: &[String]) -> Vec<Completion> {
    let Some(input) = schema.get_input_object(name) else { return Vec::new() };
    inputs(input.fields.values().map(|field| &field.node), given, CompletionKind::InputField)
}

/// The names a value of `ty` may be: an enum's values, or `true` and `false`.
pub(super) fn values(schema: &Schema, ty: &Type) -> Vec<Completion> {
    let name = ty.inner_named_type();
    if let Some(enum_type) = schema.get_enum(name) {
        return enum_type
            .values
            .values()
            .map(|value| Completion {
                label: value.value.to_string(),
                detail: name.to_string(),
                documentation: description(value.description.as_ref()),
                kind: CompletionKind::EnumValue,
                deprecated: deprecation(&value.directives),
            })
            .collect();
    }
    if name == "Boolean" {
        let literal = |label: &str| Completion {
            label: label.to_string(),
            detail: ty.to_string(),
            documentation: None,
            kind: CompletionKind::Value,
            deprecated: None,
        };
        return vec![literal("true"), literal("false")];
    }
    Vec::new()
}

/// The types a fragment may be on: objects, interfaces and unions (not introspection's own).
pub(super) fn types(schema: &Schema) -> Vec<Completion> {
    schema
        .types
        .iter()
        .filter(|(name, ty)| !name.starts_with("__") && (ty.is_object() || ty.is_interface() || ty.is_union()))
        .map(|(name, ty)| {
            let detail = match ty {
                ExtendedType::Interface(_) => "interface",
                ExtendedType::Union(_) => "union",
                _ => "type",
            };
            Completion {
                label: name.to_string(),
                detail: detail.to_string(),
                documentation: description(ty.description()),
                kind: CompletionKind::Type,
                deprecated: None,
            }
        })
        .collect()
}
