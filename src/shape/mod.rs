//! What a schema offers around its users, read from the *shape* of its types and fields, never
//! from a fixed list of names (no egui, no I/O). Services name things as their framework likes:
//! `updateUser` (async-graphql, Apollo) or `userUpdate` (Saleor, Shopify, graphene services),
//! learning data as root connections filtered by `userRef` (orgql's sandbox) or as fields of the
//! user's type (`User.registrations(first:, after:)`). Shared by the support card (issue 21) and
//! bulk changes (issue 22).
//!
//! - [`related`]: every list or connection that relates to a user, nested on the user's type or a
//!   root field with an argument (or a filter input's field) taking the user's ref or id, with what
//!   a person reads first of each row ([`Display`]).
//! - [`mutations`]: which mutations create, change, archive, activate or delete a user, change the
//!   state of a related object, enroll a user, or change a group's members — judged by what they
//!   take (the user's ref or id, an input object whose fields are the user's, an enum state and an
//!   id) and return (the type, or a payload holding it, with or without an errors list). Where the
//!   shape alone cannot tell archive from activate (both take a ref and return the user), the verb
//!   in the mutation's name decides, wherever it stands (`archiveUser`, `userArchive`).
//! - [`batch_create`]: a mutation creating many users in one request (a list of the one-user
//!   creation's input), and how each input's result is read.
//! - [`entries`]: key–value lists a user carries (extra fields: `extraFields: [{ categoryRef,
//!   value }]`, metadata), how they are set and read back, and where the keys that exist are listed.
//! - [`style`]: whether an update input patches (every field optional) or replaces the whole record
//!   (a Django form: required fields, named by its relay `id`, a field left out cleared), and for a
//!   replace the record read, overlaid, sent whole and compared when read back ([`Replace`]).
//! - [`payload_errors`]: the errors a payload returns as data (`errors { field messages }`,
//!   `userErrors { field message }`, `errors { field message code }`), and [`Returns::Union`]:
//!   a union answer's success and refusals (`User | OperationInfo`).
//! - [`lookup`]: a filter input object that looks a user up by a field's value
//!   (`filters: {email: {exact: …}}`, `where: {email: {_eq: …}}`, `condition: {email: …}`).

mod batch;
mod display;
mod entries;
mod filter;
mod mutations;
mod payload;
mod readback;
mod related;
mod replace;
mod search;
#[cfg(test)]
pub(crate) mod tests;

use apollo_compiler::Schema;
use apollo_compiler::ast::Type;
use apollo_compiler::schema::{ExtendedType, FieldDefinition, InputValueDefinition};

pub use batch::{Batch, batch_create};
pub use display::{Display, Path, at};
pub use entries::{Entries, KeyList, entries};
pub use filter::{Lookup, lookup};
pub use mutations::{Action, Mutation, Supply, mutations};
pub use payload::{ErrorItem, ErrorList, PayloadError, Refusal, Returns, Union, payload_errors, returns};
pub use readback::{is_cleared, reads_back_as};
pub use related::{Place, Related, related};
pub use replace::{Moved, Replace, ReplaceField, Style, compare, style};
pub use search::{Search, search_for};

/// The user's type: the node of `paginatedUsers` (the spec guarantees it), else what `user`
/// returns.
pub fn user_type(schema: &Schema) -> Option<String> {
    let query = schema.root_operation(apollo_compiler::ast::OperationType::Query)?;
    let fields = object_fields(schema, query)?;
    if let Some(paginated) = fields.iter().find(|f| f.name == "paginatedUsers")
        && let Some((node, _)) = items(schema, paginated)
    {
        return Some(node);
    }
    fields
        .iter()
        .find(|f| f.name == "user" && is_composite(schema, f.ty.inner_named_type()))
        .map(|f| f.ty.inner_named_type().to_string())
}

/// How an argument or input field identifies a user (or another object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// By its `ref` (the service's external key).
    Ref,
    /// By its `id`.
    Id,
}

impl Key {
    /// The field of the object that gives this key.
    pub fn field(self) -> &'static str {
        match self {
            Key::Ref => "ref",
            Key::Id => "id",
        }
    }
}

/// A name in lower case without `_` or `-`, to compare names written in any convention.
pub(crate) fn plain(name: &str) -> String {
    name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Whether `ty` is one string or ID (what a ref or an id is passed as).
pub fn is_text(ty: &Type) -> bool {
    matches!(ty.inner_named_type().as_str(), "String" | "ID") && !ty.is_list()
}

/// Whether `ty` is a list of strings or IDs.
pub(crate) fn is_text_list(ty: &Type) -> bool {
    matches!(ty.inner_named_type().as_str(), "String" | "ID") && ty.is_list()
}

/// The key an argument (or input field) named `name` of type `ty` gives of an object named, in
/// plain words, `owner`: with `owner` = `user`, `userRef`, `user_ref`, `userId`, `userRefs`, and
/// `user` itself (a ref, or an id when typed `ID`); with `owner` = `""`, `ref` and `id`.
pub fn key_of(name: &str, ty: &Type, owner: &str) -> Option<Key> {
    let name = plain(name);
    let rest = name.strip_prefix(owner)?;
    match rest {
        "ref" | "refs" => Some(Key::Ref),
        "id" | "ids" | "pk" => Some(Key::Id),
        "" if !owner.is_empty() && ty.inner_named_type() == "ID" => Some(Key::Id),
        "" if !owner.is_empty() => Some(Key::Ref),
        _ => None,
    }
}

/// The fields of an object or interface type, in the schema's order.
pub(crate) fn object_fields<'s>(schema: &'s Schema, type_name: &str) -> Option<Vec<&'s FieldDefinition>> {
    let fields = match schema.types.get(type_name)? {
        ExtendedType::Object(object) => &object.fields,
        ExtendedType::Interface(interface) => &interface.fields,
        _ => return None,
    };
    Some(fields.values().map(|component| &*component.node).collect())
}

/// `type_name.name`.
pub(crate) fn field<'s>(schema: &'s Schema, type_name: &str, name: &str) -> Option<&'s FieldDefinition> {
    object_fields(schema, type_name)?.into_iter().find(|f| f.name == name)
}

/// The fields of an input object, in the schema's order.
pub(crate) fn input_fields<'s>(schema: &'s Schema, type_name: &str) -> Option<Vec<&'s InputValueDefinition>> {
    let input = schema.get_input_object(type_name)?;
    Some(input.fields.values().map(|component| &***component).collect())
}

pub(crate) fn is_leaf(schema: &Schema, type_name: &str) -> bool {
    matches!(schema.types.get(type_name), Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_)))
}

pub(crate) fn is_composite(schema: &Schema, type_name: &str) -> bool {
    matches!(schema.types.get(type_name), Some(ExtendedType::Object(_) | ExtendedType::Interface(_)))
}

pub(crate) fn no_required_args(f: &FieldDefinition) -> bool {
    f.arguments.iter().all(|a| !a.is_required())
}

pub(crate) fn is_deprecated(f: &FieldDefinition) -> bool {
    f.directives.get("deprecated").is_some()
}

/// The type of a list's items, or of a connection's nodes (`edges { node }`), and whether it is
/// a connection.
pub fn items(schema: &Schema, f: &FieldDefinition) -> Option<(String, bool)> {
    let named = f.ty.inner_named_type().as_str();
    if f.ty.is_list() {
        return is_composite(schema, named).then(|| (named.to_owned(), false));
    }
    let edges = field(schema, named, "edges")?;
    let node = field(schema, edges.ty.inner_named_type(), "node")?;
    let node = node.ty.inner_named_type().as_str();
    is_composite(schema, node).then(|| (node.to_owned(), true))
}

/// `paginatedEnrollments` → "Enrollments", `trainingStatus` → "Training status".
pub fn label(name: &str) -> String {
    let name = name.strip_prefix("paginated").filter(|rest| rest.starts_with(char::is_uppercase)).unwrap_or(name);
    let mut words = String::new();
    for (i, c) in name.chars().enumerate() {
        if c == '_' {
            words.push(' ');
        } else if c.is_uppercase() && i > 0 {
            words.push(' ');
            words.extend(c.to_lowercase());
        } else if i == 0 {
            words.extend(c.to_uppercase());
        } else {
            words.push(c);
        }
    }
    words
}

/// An enum value as words: `NO_SHOW` → "No show", `IN_PROGRESS` → "In progress".
pub fn enum_words(value: &str) -> String {
    let lower = value.replace('_', " ").to_lowercase();
    let mut chars = lower.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
