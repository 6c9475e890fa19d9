//! The lists and connections that relate to a user: fields of the user's type whose items are
//! objects (`User.registrations(first:, after:)`, `User.trainingStatus`), and root fields whose
//! items are objects and that take the user's ref or id (`paginatedEnrollments(userRef:)`, or a
//! `filter: { userId: … }` input).

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use apollo_compiler::schema::FieldDefinition;

use super::display::Display;
use super::{Key, field, input_fields, is_deprecated, items, key_of, label, object_fields};

/// Where a related list is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A field of the user's type, read with the user.
    Nested,
    /// A root field given the user's key.
    Root {
        /// The argument that takes the key (`userRef`), or the filter input argument.
        argument: String,
        /// Its type as a variable declares it (`String`, `UserFilter`).
        argument_type: String,
        /// Within a filter input: the input's field that takes the key (`userId`).
        inside: Option<String>,
        /// Which key it takes.
        key: Key,
    },
}

/// A list or connection that relates to a user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// The field's name (`paginatedEnrollments`, `registrations`).
    pub field: String,
    /// Its name as a section's heading ("Enrollments", "Training status").
    pub label: String,
    /// Where it is read.
    pub place: Place,
    /// The type of its items.
    pub node_type: String,
    /// Whether it is a connection (`edges { node }`) rather than a list.
    pub connection: bool,
    /// The page-size argument (`first`), when it has one.
    pub first: Option<String>,
    /// The cursor argument (`after`) and its type, when its pages can be walked.
    pub after: Option<(String, String)>,
    /// The connection's count field (`count`, `totalCount`), when it has one.
    pub count: Option<String>,
    /// How its items are shown.
    pub display: Display,
}

/// What of a connection's arguments and fields lets it be read page by page.
fn paging_of(schema: &Schema, f: &FieldDefinition) -> (Option<String>, Option<(String, String)>, Option<String>) {
    let arg = |name: &str| f.arguments.iter().find(|a| a.name == name);
    let first = arg("first").filter(|a| a.ty.inner_named_type() == "Int").map(|a| a.name.to_string());
    let named = f.ty.inner_named_type().as_str();
    let has_page_info = field(schema, named, "pageInfo").is_some();
    let after =
        arg("after").filter(|_| has_page_info).map(|a| (a.name.to_string(), a.ty.inner_named_type().to_string()));
    let count =
        ["count", "totalCount"].into_iter().find(|name| field(schema, named, name).is_some()).map(str::to_owned);
    (first, after, count)
}

/// Whether `f` can be read when only its user key (if any) and its paging are given.
fn fillable(f: &FieldDefinition, given: &str) -> bool {
    f.arguments.iter().all(|a| !a.is_required() || a.name == given || a.name == "first")
}

/// Every list or connection of objects that relates to a user of `user_type`: nested ones first,
/// in the user type's order, then root ones in the query type's order. The user's groups and
/// extra fields (shown on the card already) and lists of users are left out.
pub fn related(schema: &Schema, user_type: &str) -> Vec<Related> {
    let mut found = Vec::new();
    let shown_already = |name: &str| {
        let name = super::plain(name);
        name == "groups" || name.contains("extrafield") || name.contains("customfield") || name == "roles"
    };
    for f in object_fields(schema, user_type).unwrap_or_default() {
        if is_deprecated(f) || shown_already(&f.name) || !fillable(f, "") {
            continue;
        }
        let Some((node, connection)) = items(schema, f) else { continue };
        if node == user_type {
            continue;
        }
        let (first, after, count) = paging_of(schema, f);
        found.push(Related {
            field: f.name.to_string(),
            label: label(&f.name),
            place: Place::Nested,
            display: Display::of(schema, &node, user_type),
            node_type: node,
            connection,
            first,
            after,
            count,
        });
    }
    let Some(query) = schema.root_operation(OperationType::Query) else { return found };
    for f in object_fields(schema, query).unwrap_or_default() {
        if is_deprecated(f) {
            continue;
        }
        let Some((node, connection)) = items(schema, f) else { continue };
        if node == user_type {
            continue;
        }
        let Some(place) = user_argument(schema, f) else { continue };
        let Place::Root { argument, .. } = &place else { continue };
        if !fillable(f, argument) {
            continue;
        }
        let (first, after, count) = paging_of(schema, f);
        found.push(Related {
            field: f.name.to_string(),
            label: label(&f.name),
            place,
            display: Display::of(schema, &node, user_type),
            node_type: node,
            connection,
            first,
            after,
            count,
        });
    }
    found
}

/// The argument of a root field that takes a user's key: `userRef`, `userId`, `user`, or a field
/// of an input argument (`filter: { userRef }`).
fn user_argument(schema: &Schema, f: &FieldDefinition) -> Option<Place> {
    for a in &f.arguments {
        if super::is_text(&a.ty)
            && let Some(key) = key_of(&a.name, &a.ty, "user")
        {
            return Some(Place::Root {
                argument: a.name.to_string(),
                argument_type: a.ty.inner_named_type().to_string(),
                inside: None,
                key,
            });
        }
    }
    for a in &f.arguments {
        let named = a.ty.inner_named_type().as_str();
        let Some(fields) = input_fields(schema, named) else { continue };
        let Some((inner, key)) = fields
            .iter()
            .find_map(|i| super::is_text(&i.ty).then(|| key_of(&i.name, &i.ty, "user")).flatten().map(|k| (i, k)))
        else {
            continue;
        };
        let others_optional = fields.iter().all(|i| i.name == inner.name || !i.is_required());
        if others_optional {
            return Some(Place::Root {
                argument: a.name.to_string(),
                argument_type: named.to_owned(),
                inside: Some(inner.name.to_string()),
                key,
            });
        }
    }
    None
}
