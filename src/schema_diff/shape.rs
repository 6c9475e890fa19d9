//! A schema as the comparison reads it: every type, field, argument, input field, enum value and
//! directive by name, in name order, with what a client depends on (types, defaults,
//! deprecations, descriptions). Built from apollo-compiler's schema, so from the SDL orgql keeps
//! of an introspection; its [`SchemaShape::fingerprint`] does not depend on the order the service
//! listed things in.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use apollo_compiler::Schema;
use apollo_compiler::ast::{DirectiveList, InputValueDefinition, Type};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::Valid;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The directives every schema has; never compared.
const BUILT_IN_DIRECTIVES: [&str; 5] = ["skip", "include", "deprecated", "specifiedBy", "oneOf"];

/// The reason `@deprecated` gives when it is written without one.
pub const DEFAULT_REASON: &str = "No longer supported";

/// A whole schema, keyed by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaShape {
    /// The root operation types: query, mutation, subscription.
    pub roots: [Option<String>; 3],
    /// The named types other than the built-in scalars and introspection types.
    pub types: BTreeMap<String, TypeShape>,
    /// The directives other than the built-in ones.
    pub directives: BTreeMap<String, DirectiveShape>,
}

/// The kind of a named type: the explorer's ([`crate::explorer::TypeKind`]).
pub use crate::explorer::TypeKind;

/// A named type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeShape {
    /// Its kind.
    pub kind: TypeKind,
    /// Its description (empty when none).
    pub description: String,
    /// The interfaces it implements (objects and interfaces).
    pub interfaces: BTreeSet<String>,
    /// Its member types (unions).
    pub members: BTreeSet<String>,
    /// Its fields (objects and interfaces).
    pub fields: BTreeMap<String, FieldShape>,
    /// Its input fields (input objects).
    pub input_fields: BTreeMap<String, InputShape>,
    /// Its values (enums).
    pub values: BTreeMap<String, ValueShape>,
}

impl TypeShape {
    /// An empty type of `kind`.
    pub fn new(kind: TypeKind) -> Self {
        TypeShape {
            kind,
            description: String::new(),
            interfaces: BTreeSet::new(),
            members: BTreeSet::new(),
            fields: BTreeMap::new(),
            input_fields: BTreeMap::new(),
            values: BTreeMap::new(),
        }
    }
}

/// A field of an object or interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldShape {
    /// Its type.
    pub ty: TypeRef,
    /// Its arguments.
    pub args: BTreeMap<String, InputShape>,
    /// Its deprecation reason, when deprecated.
    pub deprecated: Option<String>,
    /// Its description (empty when none).
    pub description: String,
}

/// An argument or an input field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputShape {
    /// Its type.
    pub ty: TypeRef,
    /// Its default value as GraphQL text, when it has one.
    pub default: Option<String>,
    /// Its deprecation reason, when deprecated.
    pub deprecated: Option<String>,
    /// Its description (empty when none).
    pub description: String,
}

impl InputShape {
    /// Whether a caller must give it: non-null without a default.
    pub fn is_required(&self) -> bool {
        self.ty.is_non_null() && self.default.is_none()
    }
}

/// An enum value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueShape {
    /// Its deprecation reason, when deprecated.
    pub deprecated: Option<String>,
    /// Its description (empty when none).
    pub description: String,
}

/// A directive a service declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectiveShape {
    /// Its arguments.
    pub args: BTreeMap<String, InputShape>,
    /// Where it may be written (`FIELD`, `QUERY`, …).
    pub locations: BTreeSet<String>,
    /// Whether it may be written more than once at a place.
    pub repeatable: bool,
    /// Its description (empty when none).
    pub description: String,
}

/// A type reference: `[User!]!`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TypeRef {
    /// A named type, nullable.
    Named(String),
    /// A list, nullable.
    List(Box<TypeRef>),
    /// The type inside, non-null.
    NonNull(Box<TypeRef>),
}

impl TypeRef {
    /// From apollo-compiler's type.
    pub fn of(ty: &Type) -> Self {
        match ty {
            Type::Named(name) => TypeRef::Named(name.to_string()),
            Type::NonNullNamed(name) => TypeRef::NonNull(Box::new(TypeRef::Named(name.to_string()))),
            Type::List(inner) => TypeRef::List(Box::new(TypeRef::of(inner))),
            Type::NonNullList(inner) => TypeRef::NonNull(Box::new(TypeRef::List(Box::new(TypeRef::of(inner))))),
        }
    }

    /// Whether it is non-null.
    pub fn is_non_null(&self) -> bool {
        matches!(self, TypeRef::NonNull(_))
    }

    /// The named type inside the lists and non-nulls.
    pub fn named(&self) -> &str {
        match self {
            TypeRef::Named(name) => name,
            TypeRef::List(inner) | TypeRef::NonNull(inner) => inner.named(),
        }
    }

    /// The same type, nullable.
    pub fn nullable(&self) -> &TypeRef {
        match self {
            TypeRef::NonNull(inner) => inner,
            other => other,
        }
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeRef::Named(name) => f.write_str(name),
            TypeRef::List(inner) => write!(f, "[{inner}]"),
            TypeRef::NonNull(inner) => write!(f, "{inner}!"),
        }
    }
}

impl SchemaShape {
    /// The shape of an apollo-compiler schema (valid or not: what is there is read).
    pub fn of(schema: &Schema) -> Self {
        let root = |name: &Option<apollo_compiler::schema::ComponentName>| name.as_ref().map(|n| n.to_string());
        let definition = &schema.schema_definition;
        let roots = [root(&definition.query), root(&definition.mutation), root(&definition.subscription)];
        let mut types = BTreeMap::new();
        for (name, ty) in &schema.types {
            if ty.is_built_in() {
                continue;
            }
            types.insert(name.to_string(), type_shape(ty));
        }
        let mut directives = BTreeMap::new();
        for (name, directive) in &schema.directive_definitions {
            if BUILT_IN_DIRECTIVES.contains(&name.as_str()) {
                continue;
            }
            directives.insert(
                name.to_string(),
                DirectiveShape {
                    args: arguments(&directive.arguments),
                    locations: directive.locations.iter().map(|l| l.name().to_owned()).collect(),
                    repeatable: directive.repeatable,
                    description: text(directive.description.as_deref()),
                },
            );
        }
        SchemaShape { roots, types, directives }
    }

    /// The shape of the schema written as `sdl` (what the store keeps); `Err` with the parser's
    /// first complaint when it does not parse at all.
    pub fn from_sdl(sdl: &str) -> Result<Self, String> {
        parsed(sdl).map(|(schema, _)| Self::of(&schema))
    }

    /// [`SchemaShape::from_sdl`], with the schema validated for checking operations against it
    /// (`None` when it is not valid) — the SDL parsed once for both.
    pub fn with_schema(sdl: &str) -> Result<(Self, Option<Valid<Schema>>), String> {
        let (schema, whole) = parsed(sdl)?;
        let shape = Self::of(&schema);
        Ok((shape, whole.then(|| schema.validate().ok()).flatten()))
    }

    /// A hex SHA-256 of the shape, the same whatever order the service listed its types,
    /// fields, arguments and values in.
    pub fn fingerprint(&self) -> String {
        // BTreeMaps and sets serialize in key order: the text is canonical.
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        let digest = Sha256::digest(&canonical);
        digest.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The root type of `operation` (0 query, 1 mutation, 2 subscription), by the schema's
    /// definition or else the conventional name.
    pub fn root(&self, operation: usize) -> Option<&str> {
        const NAMES: [&str; 3] = ["Query", "Mutation", "Subscription"];
        self.roots[operation]
            .as_deref()
            .or_else(|| self.types.contains_key(NAMES[operation]).then_some(NAMES[operation]))
    }
}

fn text(description: Option<&str>) -> String {
    description.map(str::trim).unwrap_or_default().to_owned()
}

/// The reason of `@deprecated` among `directives`, `None` when not deprecated.
fn deprecation(directives: &DirectiveList) -> Option<String> {
    let directive = directives.get("deprecated")?;
    let reason = directive.specified_argument_by_name("reason").and_then(|value| value.as_str());
    Some(reason.unwrap_or(DEFAULT_REASON).to_owned())
}

fn input(value: &InputValueDefinition) -> InputShape {
    InputShape {
        ty: TypeRef::of(&value.ty),
        default: value.default_value.as_ref().map(|v| v.to_string()),
        deprecated: deprecation(&value.directives),
        description: text(value.description.as_deref()),
    }
}

fn arguments(args: &[apollo_compiler::Node<InputValueDefinition>]) -> BTreeMap<String, InputShape> {
    args.iter().map(|arg| (arg.name.to_string(), input(arg))).collect()
}

fn type_shape(ty: &ExtendedType) -> TypeShape {
    let names = |set: &apollo_compiler::collections::IndexSet<apollo_compiler::schema::ComponentName>| {
        set.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>()
    };
    let fields = |fields: &apollo_compiler::collections::IndexMap<
        apollo_compiler::Name,
        apollo_compiler::schema::Component<apollo_compiler::ast::FieldDefinition>,
    >| {
        fields
            .iter()
            .map(|(name, field)| {
                let shape = FieldShape {
                    ty: TypeRef::of(&field.ty),
                    args: arguments(&field.arguments),
                    deprecated: deprecation(&field.directives),
                    description: text(field.description.as_deref()),
                };
                (name.to_string(), shape)
            })
            .collect::<BTreeMap<_, _>>()
    };
    match ty {
        ExtendedType::Scalar(scalar) => {
            TypeShape { description: text(scalar.description.as_deref()), ..TypeShape::new(TypeKind::Scalar) }
        }
        ExtendedType::Object(object) => TypeShape {
            description: text(object.description.as_deref()),
            interfaces: names(&object.implements_interfaces),
            fields: fields(&object.fields),
            ..TypeShape::new(TypeKind::Object)
        },
        ExtendedType::Interface(interface) => TypeShape {
            description: text(interface.description.as_deref()),
            interfaces: names(&interface.implements_interfaces),
            fields: fields(&interface.fields),
            ..TypeShape::new(TypeKind::Interface)
        },
        ExtendedType::Union(union) => TypeShape {
            description: text(union.description.as_deref()),
            members: names(&union.members),
            ..TypeShape::new(TypeKind::Union)
        },
        ExtendedType::Enum(enumeration) => TypeShape {
            description: text(enumeration.description.as_deref()),
            values: enumeration
                .values
                .iter()
                .map(|(name, value)| {
                    let shape = ValueShape {
                        deprecated: deprecation(&value.directives),
                        description: text(value.description.as_deref()),
                    };
                    (name.to_string(), shape)
                })
                .collect(),
            ..TypeShape::new(TypeKind::Enum)
        },
        ExtendedType::InputObject(object) => TypeShape {
            description: text(object.description.as_deref()),
            input_fields: object.fields.iter().map(|(name, field)| (name.to_string(), input(field))).collect(),
            ..TypeShape::new(TypeKind::InputObject)
        },
    }
}

/// `sdl` parsed, and whether without errors; a schema with errors still has its parts (what is
/// there is compared); an error when it has none.
fn parsed(sdl: &str) -> Result<(Schema, bool), String> {
    match Schema::parse(sdl, "schema.graphql") {
        Ok(schema) => Ok((schema, true)),
        Err(with_errors) if !with_errors.partial.types.is_empty() => Ok((with_errors.partial, false)),
        Err(with_errors) => Err(with_errors.errors.to_string()),
    }
}

/// Whether a reader of `old` still reads `new` (graphql-js `isChangeSafeForObjectOrInterfaceField`):
/// the same type, made non-null at any level.
pub(crate) fn output_change_is_safe(old: &TypeRef, new: &TypeRef) -> bool {
    match (old, new) {
        (TypeRef::Named(a), TypeRef::Named(b)) => a == b,
        (TypeRef::List(a), TypeRef::List(b)) => output_change_is_safe(a, b),
        (TypeRef::NonNull(a), TypeRef::NonNull(b)) => output_change_is_safe(a, b),
        (TypeRef::NonNull(_), _) => false,
        (old, TypeRef::NonNull(b)) => output_change_is_safe(old, b),
        _ => false,
    }
}

/// Whether every value written for `old` is still accepted by `new` (graphql-js
/// `isChangeSafeForInputObjectFieldOrFieldArg`): the same type, made nullable at any level.
pub(crate) fn input_change_is_safe(old: &TypeRef, new: &TypeRef) -> bool {
    match (old, new) {
        (TypeRef::Named(a), TypeRef::Named(b)) => a == b,
        (TypeRef::List(a), TypeRef::List(b)) => input_change_is_safe(a, b),
        (TypeRef::NonNull(a), TypeRef::NonNull(b)) => input_change_is_safe(a, b),
        (TypeRef::NonNull(a), b) => input_change_is_safe(a, b),
        _ => false,
    }
}
