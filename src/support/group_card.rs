//! A group's card: its name and the people in it (members, managers: every list of users the
//! group's type has), read by the group's key through the root field that answers with one
//! group, as the schema shapes it — each person opening their own card.

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use serde_json::{Map, Value, json};

use crate::api::GraphQlRequest;
use crate::shape::{Key, is_text, items, key_of, label, object_fields};

/// Rows of a group's list read at once (a page).
pub const GROUP_PAGE: i64 = 50;

/// How a group is read, as the schema has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupQuery {
    /// The root field answering with one group (`group`).
    pub field: String,
    /// Its key argument, its type, and which key it takes.
    pub arg: (String, String, Key),
    /// The group's lists of users: field, whether a connection, its page-size argument, its
    /// count field.
    pub lists: Vec<(String, bool, Option<String>, Option<String>)>,
}

/// A group's card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupCard {
    /// Its name.
    pub name: String,
    /// Its key.
    pub key: String,
    /// Each list of people: heading, the people (ref, name, email), how many in all.
    pub lists: Vec<(String, Vec<super::UserSummary>, Option<u64>)>,
}

/// How a group of type `group_type` is read, when the schema has a root field for one group.
pub fn group_query(schema: &Schema, group_type: &str, user_type: &str) -> Option<GroupQuery> {
    let query = schema.root_operation(OperationType::Query)?;
    let root = object_fields(schema, query)?.into_iter().find(|f| {
        !f.ty.is_list()
            && f.ty.inner_named_type() == group_type
            && f.arguments.iter().filter(|a| a.is_required()).count() == 1
    })?;
    let arg = root.arguments.iter().find(|a| a.is_required() && is_text(&a.ty))?;
    let key = key_of(&arg.name, &arg.ty, "group").or_else(|| key_of(&arg.name, &arg.ty, ""))?;
    let lists: Vec<(String, bool, Option<String>, Option<String>)> = object_fields(schema, group_type)?
        .into_iter()
        .filter(|f| f.directives.get("deprecated").is_none())
        .filter_map(|f| {
            let (node, connection) = items(schema, f)?;
            let first = f.arguments.iter().find(|a| a.name == "first").map(|a| a.name.to_string());
            let fillable = f.arguments.iter().all(|a| !a.is_required() || Some(a.name.as_str()) == first.as_deref());
            let named = f.ty.inner_named_type().as_str();
            let count = ["count", "totalCount"]
                .into_iter()
                .find(|c| {
                    connection
                        && crate::shape::object_fields(schema, named).is_some_and(|fs| fs.iter().any(|x| x.name == *c))
                })
                .map(str::to_owned);
            (node == user_type && fillable).then(|| (f.name.to_string(), connection, first, count))
        })
        .collect();
    (!lists.is_empty()).then(|| GroupQuery {
        field: root.name.to_string(),
        arg: (arg.name.to_string(), arg.ty.to_string(), key),
        lists,
    })
}

impl GroupQuery {
    /// The document that reads the group with `key` and the first page of each of its lists.
    pub fn request(&self, key: &str) -> GraphQlRequest {
        let (arg, ty, _) = &self.arg;
        let mut parts = vec!["name".to_owned()];
        for (field, connection, first, count) in &self.lists {
            let args = first.as_ref().map(|f| format!("({f}: {GROUP_PAGE})")).unwrap_or_default();
            let person = "{ ref name email isActive }";
            if *connection {
                let count = count.as_ref().map(|c| format!("{c} ")).unwrap_or_default();
                parts.push(format!("{field}{args} {{ {count}edges {{ node {person} }} }}"));
            } else {
                parts.push(format!("{field}{args} {person}"));
            }
        }
        let query = format!(
            "query SupportGroup($key: {ty}) {{\n  group: {}({arg}: $key) {{ {} }}\n}}\n",
            self.field,
            parts.join(" ")
        );
        let mut variables = Map::new();
        variables.insert("key".into(), json!(key));
        GraphQlRequest { query, variables: Some(Value::Object(variables)), operation_name: None }
    }

    /// The card from the answer's `group`.
    pub fn read(&self, group: &Value, key: &str) -> Option<GroupCard> {
        if group.is_null() {
            return None;
        }
        let lists = self
            .lists
            .iter()
            .map(|(field, connection, _, count)| {
                let value = &group[field];
                let nodes: Vec<&Value> = if *connection {
                    value["edges"].as_array().map(|e| e.iter().map(|edge| &edge["node"]).collect()).unwrap_or_default()
                } else {
                    value.as_array().map(|items| items.iter().collect()).unwrap_or_default()
                };
                let people =
                    nodes.into_iter().filter_map(|n| serde_json::from_value(n.clone()).ok()).collect::<Vec<_>>();
                let total = count.as_ref().and_then(|c| value[c].as_u64());
                (label(field), people, total)
            })
            .collect();
        Some(GroupCard { name: group["name"].as_str().unwrap_or_default().to_owned(), key: key.to_owned(), lists })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandboxs_group_is_read_with_its_members_and_managers() {
        let schema = Schema::parse_and_validate(crate::sandbox::schema::sdl(), "s.graphql").expect("valid");
        let query = group_query(&schema, "Group", "User").expect("a group query");
        assert_eq!(query.field, "group");
        assert_eq!(query.lists.iter().map(|l| l.0.as_str()).collect::<Vec<_>>(), ["members", "managers"]);
        let request = query.request("g0001");
        let valid = apollo_compiler::ExecutableDocument::parse_and_validate(&schema, &request.query, "q.graphql");
        assert!(valid.is_ok(), "{:?}\n{}", valid.err(), request.query);
        let answer = json!({ "name": "Sales", "members": { "count": 7, "edges": [{ "node": { "ref": "u1", "name": "A", "email": "a@x", "isActive": true } }] }, "managers": [] });
        let card = query.read(&answer, "g0001").expect("a card");
        assert_eq!(card.lists[0].0, "Members");
        assert_eq!((card.lists[0].1.len(), card.lists[0].2), (1, Some(7)));
    }
}
