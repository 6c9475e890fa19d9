//! The minimal variant's introspection flavour: `@deprecated` also lists the location
//! `DIRECTIVE_DEFINITION`, as graphql-core 3.2.14 servers are reported to (the flavour this
//! variant imitates; the report is taken as given, not checked against graphql-core here).
//!
//! Why: `DIRECTIVE_DEFINITION` is not a value of the spec's `__DirectiveLocation` enum, so an
//! introspection reader that maps `locations` strictly onto that enum (as cynic-introspection
//! does) fails on the whole schema of such a server. orgql was only ever tested against its own
//! sandbox, which never says it; this variant says it so that orgql learns to live with it.
//!
//! The change is made on the response's value (before it is written as JSON, so that fields keep
//! their order), at the response keys (aliases included) of `__schema { directives { name
//! locations } }` found in the request's document, and only to the entry named `deprecated`: a
//! string replace could hit a description or another directive.

use std::collections::HashSet;

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, Value};

/// The location this variant adds to `@deprecated`.
pub const EXTRA_LOCATION: &str = "DIRECTIVE_DEFINITION";

/// Where a response holds directives' names and locations: the response keys of `__schema`,
/// its `directives`, and their `name` and `locations`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationsPath {
    schema: String,
    directives: String,
    name: String,
    locations: String,
}

/// Every place in the responses to `doc` where `@deprecated`'s locations can show up with its
/// name next to them (none when the document does not ask for both).
pub fn locations_paths(doc: &ExecutableDocument) -> Vec<LocationsPath> {
    let mut paths = Vec::new();
    for (_, operation) in doc.operations.iter() {
        for (schema, schema_sets) in children(doc, &[&operation.node.selection_set.node], "__schema") {
            for (directives, directive_sets) in children(doc, &schema_sets, "directives") {
                let names = children(doc, &directive_sets, "name");
                let locations = children(doc, &directive_sets, "locations");
                for (name, _) in &names {
                    for (location, _) in &locations {
                        let path = LocationsPath {
                            schema: schema.clone(),
                            directives: directives.clone(),
                            name: name.clone(),
                            locations: location.clone(),
                        };
                        if !paths.contains(&path) {
                            paths.push(path);
                        }
                    }
                }
            }
        }
    }
    paths
}

/// Adds [`EXTRA_LOCATION`] to the locations of the `deprecated` entry of `__schema.directives`
/// in a response's `data`, at each of `paths`.
pub fn add_extra_location(data: &mut Value, paths: &[LocationsPath]) {
    for path in paths {
        let Some(Value::List(directives)) = field_mut(data, &path.schema).and_then(|s| field_mut(s, &path.directives))
        else {
            continue;
        };
        for directive in directives {
            let is_deprecated = match field_mut(directive, &path.name) {
                Some(Value::String(name)) => name == "deprecated",
                _ => false,
            };
            if !is_deprecated {
                continue;
            }
            if let Some(Value::List(locations)) = field_mut(directive, &path.locations)
                && !locations.iter().any(|l| matches!(l, Value::Enum(e) if e.as_str() == EXTRA_LOCATION))
            {
                locations.push(Value::Enum(Name::new(EXTRA_LOCATION)));
            }
        }
    }
}

/// The value at `key` of an object.
fn field_mut<'v>(value: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    match value {
        Value::Object(map) => map.get_mut(key),
        _ => None,
    }
}

/// The fields named `name` selected in `sets` (through fragments), grouped by response key with
/// the selection sets that the response merges under that key.
fn children<'a>(
    doc: &'a ExecutableDocument,
    sets: &[&'a SelectionSet],
    name: &str,
) -> Vec<(String, Vec<&'a SelectionSet>)> {
    let mut found: Vec<(String, Vec<&'a SelectionSet>)> = Vec::new();
    let mut seen = HashSet::new();
    for set in sets {
        collect(doc, set, name, &mut found, &mut seen);
    }
    found
}

fn collect<'a>(
    doc: &'a ExecutableDocument,
    set: &'a SelectionSet,
    name: &str,
    found: &mut Vec<(String, Vec<&'a SelectionSet>)>,
    seen: &mut HashSet<&'a str>,
) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) if field.node.name.node == name => {
                let key = field.node.response_key().node.to_string();
                let child = &field.node.selection_set.node;
                match found.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, sets)) => sets.push(child),
                    None => found.push((key, vec![child])),
                }
            }
            Selection::Field(_) => {}
            Selection::InlineFragment(fragment) => collect(doc, &fragment.node.selection_set.node, name, found, seen),
            Selection::FragmentSpread(spread) => {
                let fragment_name = &spread.node.fragment_name.node;
                if seen.insert(fragment_name.as_str())
                    && let Some(fragment) = doc.fragments.get(fragment_name)
                {
                    collect(doc, &fragment.node.selection_set.node, name, found, seen);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;
    use serde_json::{Value as Json, json};

    /// `data` patched for `query`; locations are enum values, as the executor gives them.
    fn patched(query: &str, data: Json) -> Json {
        let mut data = as_enums(Value::from_json(data).unwrap());
        let paths = locations_paths(&parse_query(query).unwrap());
        add_extra_location(&mut data, &paths);
        data.into_json().unwrap()
    }

    fn as_enums(value: Value) -> Value {
        match value {
            Value::String(s) if s.chars().all(|c| c.is_ascii_uppercase() || c == '_') => Value::Enum(Name::new(s)),
            Value::List(list) => Value::List(list.into_iter().map(as_enums).collect()),
            Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, as_enums(v))).collect()),
            other => other,
        }
    }

    #[test]
    fn adds_the_location_to_deprecated_only() {
        let data = json!({ "__schema": { "directives": [
            { "name": "skip", "locations": ["FIELD"] },
            { "name": "deprecated", "locations": ["FIELD_DEFINITION", "ENUM_VALUE"] },
        ] } });
        let out = patched("{ __schema { directives { name locations } } }", data);
        assert_eq!(out["__schema"]["directives"][0]["locations"], json!(["FIELD"]));
        assert_eq!(
            out["__schema"]["directives"][1]["locations"],
            json!(["FIELD_DEFINITION", "ENUM_VALUE", "DIRECTIVE_DEFINITION"])
        );
        // Twice is still once.
        let again = patched("{ __schema { directives { name locations } } }", out.clone());
        assert_eq!(again, out);
    }

    #[test]
    fn follows_aliases_fragments_and_merged_fields() {
        let query = "query Q { s: __schema { ...D } } fragment D on __Schema { d: directives { n: name } d: directives { ... on __Directive { l: locations } } }";
        let data = json!({ "s": { "d": [{ "n": "deprecated", "l": ["ENUM_VALUE"] }] } });
        assert_eq!(patched(query, data)["s"]["d"][0]["l"], json!(["ENUM_VALUE", "DIRECTIVE_DEFINITION"]));
    }

    #[test]
    fn leaves_other_answers_alone() {
        // No locations asked; a description that mentions the directive; a user named "deprecated".
        let data = json!({ "__schema": { "directives": [{ "name": "deprecated", "description": "locations" }] } });
        assert_eq!(patched("{ __schema { directives { name description } } }", data.clone()), data);
        let data = json!({ "user": { "name": "deprecated", "locations": [] } });
        assert_eq!(patched("{ user(ref: \"x\") { name locations: email } }", data.clone()), data);
        assert!(locations_paths(&parse_query("{ __schema { directives { locations } } }").unwrap()).is_empty());
    }
}
