//! Where the objects another mutation takes can be chosen from: for an enrollment made from a
//! user and an offer (`enrollUser(offerRef:, userRef:)`, `registrationCreate(userRef:,
//! sessionId:)`), the root list of offers or sessions, found by the argument's name and the
//! schema's types, with its text filter when it has one.

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;

use super::display::Display;
use super::mutations::{Mutation, Supply};
use super::{Key, field, is_deprecated, is_text, items, object_fields, plain};

/// A root list to choose an object from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The type chosen (`Offer`).
    pub type_name: String,
    /// The root field (`paginatedOffers`).
    pub field: String,
    /// Whether it is a connection.
    pub connection: bool,
    /// Its page-size argument.
    pub first: Option<String>,
    /// Its text filter (`title`, `search`, `name`, `q`) and the filter's type, when it has one;
    /// otherwise the titles are compared by orgql.
    pub text: Option<(String, String)>,
    /// The field of the chosen object the mutation takes (`ref`, `id`).
    pub key: String,
    /// How its objects are shown.
    pub display: Display,
}

/// The list to choose the other object of `mutation` from (its [`Supply::OtherKey`] argument),
/// when the schema has one.
pub fn search_for(schema: &Schema, mutation: &Mutation, user_type: &str) -> Option<Search> {
    let (name, _, supply) = mutation.arg(|s| matches!(s, Supply::OtherKey(_)))?;
    let Supply::OtherKey(key) = supply else { return None };
    let plain_name = plain(name);
    let owner = ["refs", "ids", "ref", "id"].iter().find_map(|suffix| plain_name.strip_suffix(suffix))?;
    let type_name = schema.types.keys().find(|t| plain(t) == owner && object_fields(schema, t).is_some())?.to_string();
    let key = match key {
        Key::Ref => "ref",
        Key::Id => "id",
    };
    field(schema, &type_name, key)?;
    let query = schema.root_operation(OperationType::Query)?;
    object_fields(schema, query)?.into_iter().filter(|f| !is_deprecated(f)).find_map(|f| {
        let (node, connection) = items(schema, f)?;
        if node != type_name {
            return None;
        }
        let text = f
            .arguments
            .iter()
            .find(|a| is_text(&a.ty) && matches!(plain(&a.name).as_str(), "title" | "search" | "name" | "q" | "query"))
            .map(|a| (a.name.to_string(), a.ty.inner_named_type().to_string()));
        let first = f.arguments.iter().find(|a| a.name == "first").map(|a| a.name.to_string());
        let fillable = f.arguments.iter().all(|a| {
            !a.is_required()
                || Some(a.name.as_str()) == first.as_deref()
                || text.as_ref().is_some_and(|(t, _)| t == a.name.as_str())
        });
        fillable.then(|| Search {
            display: Display::of(schema, &type_name, user_type),
            type_name: type_name.clone(),
            field: f.name.to_string(),
            connection,
            first,
            text,
            key: key.to_owned(),
        })
    })
}
