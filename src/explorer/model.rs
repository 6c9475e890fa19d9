//! The schema as the explorer reads it: the validated apollo-compiler schema, the shortest root
//! path to each type and a name index for search, all made once; views of a type's fields are
//! made when asked, as nodes expand.

use std::fmt;

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::validation::{Valid, WithErrors};

use super::info::{
    EnumValueInfo, FieldInfo, InputValueInfo, TypeInfo, TypeKind, enum_value_info, field_info, input_value_info,
};
use super::paths::RootPaths;
use super::search::{NameIndex, SearchHit};
use crate::api::{Introspection, read_introspection_json, skipped_summary};

/// A fetched schema, ready for the explorer, validation and completion.
#[derive(Clone)]
pub struct SchemaModel {
    schema: Valid<Schema>,
    paths: RootPaths,
    names: NameIndex,
    skipped: Vec<String>,
}

impl fmt::Debug for SchemaModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaModel")
            .field("types", &self.type_count())
            .field("fields", &self.field_count())
            .field("skipped", &self.skipped.len())
            .finish_non_exhaustive()
    }
}

impl SchemaModel {
    /// Parses and validates a schema written in SDL; the error says in one sentence why it is
    /// not a usable schema.
    pub fn from_sdl(sdl: &str) -> Result<Self, String> {
        let schema = Schema::parse_and_validate(sdl, "schema.graphql").map_err(|e| invalid(&e))?;
        Ok(Self::from_valid(schema))
    }

    /// Builds the model from an introspection response as JSON text: `{"data":{"__schema":…}}`
    /// or just the `data` object. Parts that cannot be read are left out and listed by
    /// [`skipped`](Self::skipped).
    pub fn from_introspection_json(json: &str) -> Result<Self, String> {
        Ok(Self::from_introspection(read_introspection_json(json)?))
    }

    /// Builds the model from a schema as [`api::Client::introspect`](crate::api::Client::introspect)
    /// returns it (already validated).
    pub fn from_introspection(introspection: Introspection) -> Self {
        let mut model = Self::from_valid(introspection.schema);
        model.skipped = introspection.skipped;
        model
    }

    /// The parts of the introspected schema that could not be read and are left out (empty for
    /// a schema built from SDL).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// [`skipped`](Self::skipped) in one line, e.g. `1 part of the schema could not be read and
    /// is left out: directive @foo (no known location)`; `None` when nothing was left out.
    pub fn skipped_summary(&self) -> Option<String> {
        skipped_summary(&self.skipped)
    }

    fn from_valid(schema: Valid<Schema>) -> Self {
        let paths = RootPaths::new(&schema);
        let names = NameIndex::new(&schema);
        SchemaModel { schema, paths, names, skipped: Vec::new() }
    }

    /// The validated schema, for validating documents and completing against them.
    pub fn schema(&self) -> &Valid<Schema> {
        &self.schema
    }

    /// How many types the schema defines (not counting built-in scalars and introspection types).
    pub fn type_count(&self) -> usize {
        self.names.type_count()
    }

    /// How many fields its object types, interfaces and input objects have in all.
    pub fn field_count(&self) -> usize {
        self.names.field_count()
    }

    /// The name of the query root type.
    pub fn query_type(&self) -> Option<&str> {
        self.schema.root_operation(OperationType::Query).map(|name| name.as_str())
    }

    /// The name of the mutation root type, when the schema has mutations.
    pub fn mutation_type(&self) -> Option<&str> {
        self.schema.root_operation(OperationType::Mutation).map(|name| name.as_str())
    }

    /// The root query fields, in the schema's order.
    pub fn query_fields(&self) -> Vec<FieldInfo<'_>> {
        self.query_type().map(|name| self.fields(name)).unwrap_or_default()
    }

    /// The root mutation fields, in the schema's order (empty when there are none).
    pub fn mutation_fields(&self) -> Vec<FieldInfo<'_>> {
        self.mutation_type().map(|name| self.fields(name)).unwrap_or_default()
    }

    /// A named type, built-in scalars included.
    pub fn type_info(&self, name: &str) -> Option<TypeInfo<'_>> {
        let (name, ty) = self.schema.types.get_key_value(name)?;
        Some(TypeInfo { name: name.as_str(), kind: TypeKind::of(ty), description: ty.description().map(|d| &**d) })
    }

    fn field_definitions(&self, type_name: &str) -> Option<impl Iterator<Item = &FieldDefinition>> {
        let fields = match self.schema.types.get(type_name)? {
            ExtendedType::Object(object) => &object.fields,
            ExtendedType::Interface(interface) => &interface.fields,
            _ => return None,
        };
        Some(fields.values().map(|field| &*field.node))
    }

    /// The fields of an object type or interface, in the schema's order; empty for other types
    /// and unknown names.
    pub fn fields(&self, type_name: &str) -> Vec<FieldInfo<'_>> {
        let Some(fields) = self.field_definitions(type_name) else { return Vec::new() };
        fields.map(|field| field_info(&self.schema, field)).collect()
    }

    /// One field of an object type or interface.
    pub fn field(&self, type_name: &str, field_name: &str) -> Option<FieldInfo<'_>> {
        let field = self.field_definitions(type_name)?.find(|field| field.name == field_name)?;
        Some(field_info(&self.schema, field))
    }

    /// The fields of an input object, in the schema's order; empty for other types.
    pub fn input_fields(&self, type_name: &str) -> Vec<InputValueInfo<'_>> {
        match self.schema.types.get(type_name) {
            Some(ExtendedType::InputObject(input)) => {
                input.fields.values().map(|field| input_value_info(&self.schema, &field.node)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The values of an enum, in the schema's order; empty for other types.
    pub fn enum_values(&self, type_name: &str) -> Vec<EnumValueInfo<'_>> {
        match self.schema.types.get(type_name) {
            Some(ExtendedType::Enum(ty)) => ty.values.values().map(|value| enum_value_info(value)).collect(),
            _ => Vec::new(),
        }
    }

    /// The object types a union or interface may be (for `... on Type`); empty for other types.
    pub fn possible_types(&self, type_name: &str) -> Vec<&str> {
        match self.schema.types.get(type_name) {
            Some(ExtendedType::Union(union)) => union.members.iter().map(|member| member.name.as_str()).collect(),
            Some(ExtendedType::Interface(_)) => self
                .schema
                .types
                .values()
                .filter_map(|ty| match ty {
                    ExtendedType::Object(object) if object.implements_interfaces.contains(type_name) => {
                        Some(object.name.as_str())
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The shortest way from a root to values of `type_name`: the root type's name, then field
    /// names (`["Query", "paginatedUsers", "edges", "node"]` for `User`); `None` when no root
    /// reaches it through fields (input objects, unused types).
    pub fn root_path(&self, type_name: &str) -> Option<Vec<&str>> {
        self.paths.path(&self.schema, self.schema.types.get_index_of(type_name)?)
    }

    /// Up to `limit` types and fields whose name contains `needle`, ignoring case (`User.em`
    /// matches both parts), best first: exact, then prefix, then substring matches; types before
    /// fields, shorter names first.
    pub fn search(&self, needle: &str, limit: usize) -> Vec<SearchHit> {
        self.names
            .search(needle, limit)
            .into_iter()
            .filter_map(|found| {
                let (type_name, ty) = self.schema.types.get_index(found.type_index)?;
                let field = match (found.field, ty) {
                    (None, _) => None,
                    (Some(i), ExtendedType::Object(object)) => Some(object.fields.get_index(i)?.0.as_str()),
                    (Some(i), ExtendedType::Interface(interface)) => Some(interface.fields.get_index(i)?.0.as_str()),
                    (Some(i), ExtendedType::InputObject(input)) => Some(input.fields.get_index(i)?.0.as_str()),
                    (Some(_), _) => return None,
                };
                let path = self.paths.path(&self.schema, found.type_index).map(|mut path| {
                    path.extend(field);
                    path.into_iter().map(str::to_owned).collect()
                });
                Some(SearchHit {
                    type_name: type_name.to_string(),
                    field: field.map(str::to_owned),
                    rank: found.rank,
                    path,
                })
            })
            .collect()
    }
}

/// One sentence for a schema that does not parse or validate: the first problem and where.
fn invalid(errors: &WithErrors<Schema>) -> String {
    let mut diagnostics = errors.errors.iter();
    let Some(first) = diagnostics.next() else { return "the schema is not valid GraphQL".to_owned() };
    let place = first
        .line_column_range()
        .map(|range| format!(" at line {}, column {}", range.start.line, range.start.column))
        .unwrap_or_default();
    let more = match diagnostics.len() {
        0 => String::new(),
        n => format!(", and {n} more problem{}", if n == 1 { "" } else { "s" }),
    };
    format!("the schema is not valid GraphQL: {}{place}{more}", first.error)
}
