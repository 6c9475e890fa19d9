//! What the explorer shows of a type, a field, an argument or an enum value: borrowed views
//! into the schema, made when a node expands.

use apollo_compiler::ast::{self, DirectiveList, FieldDefinition, InputValueDefinition};
use apollo_compiler::schema::{EnumValueDefinition, ExtendedType};
use apollo_compiler::{Node, Schema};

use super::scope::scope_in_description;
use crate::scopes::Scope;

/// The reason given when `@deprecated` names none (the GraphQL spec's default).
const DEFAULT_REASON: &str = "No longer supported";

/// The kind of a named type (also what [`crate::schema_diff`] compares and fingerprints: its
/// variants' names are part of the stored fingerprints, so keep them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub enum TypeKind {
    /// A scalar (`String`, `DateTime`, …): a leaf.
    Scalar,
    /// An object type, with fields.
    Object,
    /// An interface, with fields.
    Interface,
    /// A union of object types.
    Union,
    /// An enum: a leaf.
    Enum,
    /// An input object, with input fields.
    InputObject,
}

impl TypeKind {
    /// The kind of a type definition.
    pub fn of(ty: &ExtendedType) -> Self {
        match ty {
            ExtendedType::Scalar(_) => TypeKind::Scalar,
            ExtendedType::Object(_) => TypeKind::Object,
            ExtendedType::Interface(_) => TypeKind::Interface,
            ExtendedType::Union(_) => TypeKind::Union,
            ExtendedType::Enum(_) => TypeKind::Enum,
            ExtendedType::InputObject(_) => TypeKind::InputObject,
        }
    }

    /// As a sentence says it: "an object type".
    pub fn described(self) -> &'static str {
        match self {
            TypeKind::Scalar => "a scalar",
            TypeKind::Object => "an object type",
            TypeKind::Interface => "an interface",
            TypeKind::Union => "a union",
            TypeKind::Enum => "an enum",
            TypeKind::InputObject => "an input object type",
        }
    }

    /// Whether a value of this kind has no fields to select (scalars and enums).
    pub fn is_leaf(self) -> bool {
        matches!(self, TypeKind::Scalar | TypeKind::Enum)
    }
}

/// A named type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TypeInfo<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its kind.
    pub kind: TypeKind,
    /// Its description.
    pub description: Option<&'a str>,
}

/// A field of an object type or interface.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInfo<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its type as written; `to_string()` gives `[User!]!`.
    pub ty: &'a ast::Type,
    /// The named type inside the list and non-null wrappers: `User`.
    pub named_type: &'a str,
    /// The kind of the named type.
    pub kind: TypeKind,
    /// Its description.
    pub description: Option<&'a str>,
    /// The reason it is deprecated, when it is.
    pub deprecation: Option<&'a str>,
    /// The scope its description says it needs.
    pub scope: Option<Scope>,
    /// Its arguments, in the schema's order.
    pub arguments: Vec<InputValueInfo<'a>>,
}

impl FieldInfo<'_> {
    /// Whether the field's value is a scalar or an enum (nothing to select inside).
    pub fn is_leaf(&self) -> bool {
        self.kind.is_leaf()
    }
}

/// An argument of a field, or a field of an input object.
#[derive(Debug, Clone, PartialEq)]
pub struct InputValueInfo<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its type as written; `to_string()` gives `String!`.
    pub ty: &'a ast::Type,
    /// The named type inside the list and non-null wrappers.
    pub named_type: &'a str,
    /// The kind of the named type (scalar, enum or input object).
    pub kind: TypeKind,
    /// The default value; `to_string()` gives it as GraphQL, e.g. `50` or `"none"`.
    pub default: Option<&'a ast::Value>,
    /// Its description.
    pub description: Option<&'a str>,
    /// The reason it is deprecated, when it is.
    pub deprecation: Option<&'a str>,
}

impl InputValueInfo<'_> {
    /// Whether it must be given: non-null and without a default.
    pub fn is_required(&self) -> bool {
        self.ty.is_non_null() && self.default.is_none()
    }
}

/// A value of an enum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnumValueInfo<'a> {
    /// The value as written in a query: `ACTIVE`.
    pub name: &'a str,
    /// Its description.
    pub description: Option<&'a str>,
    /// The reason it is deprecated, when it is.
    pub deprecation: Option<&'a str>,
}

/// The reason of a `@deprecated` among `directives`.
fn deprecation(directives: &DirectiveList) -> Option<&str> {
    let directive = directives.get("deprecated")?;
    Some(directive.specified_argument_by_name("reason").and_then(|reason| reason.as_str()).unwrap_or(DEFAULT_REASON))
}

fn kind_of(schema: &Schema, name: &str) -> TypeKind {
    schema.types.get(name).map_or(TypeKind::Scalar, TypeKind::of)
}

/// The view of a field definition.
pub(crate) fn field_info<'a>(schema: &'a Schema, field: &'a FieldDefinition) -> FieldInfo<'a> {
    let named_type = field.ty.inner_named_type().as_str();
    let description = field.description.as_deref();
    FieldInfo {
        name: field.name.as_str(),
        ty: &field.ty,
        named_type,
        kind: kind_of(schema, named_type),
        description,
        deprecation: deprecation(&field.directives),
        scope: description.and_then(scope_in_description),
        arguments: field.arguments.iter().map(|arg| input_value_info(schema, arg)).collect(),
    }
}

/// The view of an argument or input field definition.
pub(crate) fn input_value_info<'a>(schema: &'a Schema, value: &'a Node<InputValueDefinition>) -> InputValueInfo<'a> {
    let named_type = value.ty.inner_named_type().as_str();
    InputValueInfo {
        name: value.name.as_str(),
        ty: &value.ty,
        named_type,
        kind: kind_of(schema, named_type),
        default: value.default_value.as_deref(),
        description: value.description.as_deref(),
        deprecation: deprecation(&value.directives),
    }
}

/// The view of an enum value definition.
pub(crate) fn enum_value_info(value: &EnumValueDefinition) -> EnumValueInfo<'_> {
    EnumValueInfo {
        name: value.value.as_str(),
        description: value.description.as_deref(),
        deprecation: deprecation(&value.directives),
    }
}
