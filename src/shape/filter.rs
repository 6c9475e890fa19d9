//! Filters as input objects: how a root list is asked for the users whose `email` (or `ref`) is
//! a value, by the shape of its filter argument — `filters: {email: {exact: …}}`
//! (Strawberry-Django), `filter: {email: {eq: …}}` (graphql-compose, Nest), `where: {email:
//! {_eq: …}}` (Hasura), `condition: {email: …}` (PostGraphile) — preferring the service's
//! case-insensitive lookup for e-mails (`iExact`, `_ieq`) where it has one.

use apollo_compiler::Schema;
use apollo_compiler::schema::FieldDefinition;
use serde_json::{Map, Value};

use super::{input_fields, plain};

/// A lookup of one field's value through an input object argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The argument (`filters`).
    pub argument: String,
    /// Its type as declared (`UserFilter`), for the variable.
    pub argument_type: String,
    /// The input fields from the argument down to the value (`["email", "exact"]`).
    pub path: Vec<String>,
    /// Whether the lookup ignores case.
    pub insensitive: bool,
}

impl Lookup {
    /// The argument's value for `value`: `{email: {exact: value}}`.
    pub fn value(&self, value: &str) -> Value {
        self.path.iter().rev().fold(Value::from(value), |inner, name| {
            let mut object = Map::new();
            object.insert(name.clone(), inner);
            Value::Object(object)
        })
    }
}

/// Exact comparisons, by plain name (`_eq` is `eq`).
const EXACT: &[&str] = &["exact", "eq", "equals", "equalto", "is"];
/// Case-insensitive exact comparisons.
const INSENSITIVE: &[&str] = &["iexact", "ieq", "equalsinsensitive", "eqi", "likeinsensitive"];

/// How `f` (a root list) looks up the value of `name` (`email`), when an input object argument
/// can; `insensitive` asks for the case-insensitive comparison where there is one.
pub fn lookup(schema: &Schema, f: &FieldDefinition, name: &str, insensitive: bool) -> Option<Lookup> {
    f.arguments.iter().filter(|a| !a.ty.is_list()).find_map(|a| {
        let fields = input_fields(schema, a.ty.inner_named_type())?;
        let own = fields.iter().find(|i| plain(&i.name) == plain(name) && !i.ty.is_list())?;
        let named = own.ty.inner_named_type().as_str();
        let (path, insensitive) = if matches!(named, "String" | "ID") {
            // `condition: {email: …}`: the value itself.
            (vec![own.name.to_string()], false)
        } else {
            let ops = input_fields(schema, named)?;
            let text = |i: &&&apollo_compiler::ast::InputValueDefinition| {
                !i.ty.is_list() && matches!(i.ty.inner_named_type().as_str(), "String" | "ID")
            };
            let find = |names: &[&str]| ops.iter().filter(text).find(|i| names.contains(&plain(&i.name).as_str()));
            let (op, folded) = match (insensitive.then(|| find(INSENSITIVE)).flatten(), find(EXACT)) {
                (Some(op), _) => (op, true),
                (None, Some(op)) => (op, false),
                (None, None) => return None,
            };
            (vec![own.name.to_string(), op.name.to_string()], folded)
        };
        // Every other required argument makes the field unusable for a look-up.
        let others_optional = f.arguments.iter().all(|o| o.name == a.name || !o.is_required() || o.name == "first");
        others_optional.then(|| Lookup {
            argument: a.name.to_string(),
            argument_type: a.ty.to_string(),
            path,
            insensitive,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(sdl: &str, extra: &str, insensitive: bool) -> Option<Lookup> {
        let full = format!(
            "{extra} type User {{ ref: String! email: String! }} type Query {{ paginatedUsers{sdl}: [User!]! }}"
        );
        let schema = Schema::parse_and_validate(full, "t.graphql").expect("valid");
        let query = schema.get_object("Query").unwrap();
        lookup(&schema, &query.fields["paginatedUsers"], "email", insensitive)
    }

    #[test]
    fn every_filter_convention_is_read_by_its_shape() {
        let strawberry = "input StrFilterLookup { exact: String iExact: String contains: String } \
                          input UserFilter { ref: StrFilterLookup email: StrFilterLookup AND: UserFilter }";
        let l = found("(filters: UserFilter, first: Int)", strawberry, true).unwrap();
        assert_eq!((l.argument.as_str(), l.argument_type.as_str()), ("filters", "UserFilter"));
        assert_eq!(l.value("a@x.org"), json!({ "email": { "iExact": "a@x.org" } }));
        assert!(l.insensitive);
        assert_eq!(
            found("(filters: UserFilter)", strawberry, false).unwrap().value("a"),
            json!({ "email": { "exact": "a" } })
        );
        let compose = "input StringFilter { eq: String ne: String } input UserFilter { email: StringFilter }";
        assert_eq!(found("(filter: UserFilter)", compose, true).unwrap().value("a"), json!({ "email": { "eq": "a" } }));
        let hasura = "input String_comparison_exp { _eq: String _ilike: String _in: [String!] } \
                      input users_bool_exp { email: String_comparison_exp _and: [users_bool_exp!] }";
        let l = found("(where: users_bool_exp)", hasura, true).unwrap();
        assert_eq!(l.value("a"), json!({ "email": { "_eq": "a" } }));
        assert!(!l.insensitive, "_ilike is a pattern, not an exact comparison");
        let postgraphile = "input UserCondition { email: String ref: String }";
        assert_eq!(
            found("(condition: UserCondition)", postgraphile, true).unwrap().value("a"),
            json!({ "email": "a" })
        );
        // No email in the filter; a required argument of its own.
        assert_eq!(found("(filter: F)", "input F { ref: String }", true), None);
        assert_eq!(found("(filter: F, org: ID!)", "input F { email: String }", true), None);
    }
}
