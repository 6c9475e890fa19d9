//! The sample query a new tab opens, built from the schema of the connection it will run on:
//! every field it selects is in that schema.

use apollo_compiler::Schema;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};

/// The user fields the spec guarantees, in the order a table shows them.
const USER_FIELDS: [&str; 5] = ["ref", "name", "email", "isActive", "id"];

/// A first query for a tab: the users' connection (`paginatedUsers`) with the spec's user fields
/// that the schema has, `first: 50` and `count` where the schema offers them. A schema without
/// `paginatedUsers` gets its first root field that is a connection (`edges { node }`) with up to
/// five of its node's scalar fields, and a schema without any connection `{ __typename }`.
pub fn sample_query(schema: &Schema) -> String {
    let Some(root) = schema.schema_definition.query.as_ref().map(|root| root.name.as_str()) else {
        return "{ __typename }\n".to_owned();
    };
    let root_fields = fields(schema, root);
    let users =
        root_fields.iter().find(|field| field.name == "paginatedUsers").and_then(|field| connection(schema, field));
    let chosen = users.or_else(|| root_fields.iter().find_map(|field| connection(schema, field)));
    let Some(found) = chosen else {
        return "# This service's schema has no connection (edges { node }) to list.\n{ __typename }\n".to_owned();
    };
    let Connection { field, has_count, node_type } = found;
    let node_fields = fields(schema, node_type);
    let is_leaf = |field: &&FieldDefinition| {
        matches!(
            schema.types.get(field.ty.inner_named_type().as_str()),
            Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
        ) && !field.ty.is_list()
            && field.arguments.iter().all(|argument| !argument.is_required())
    };
    let mut leaves: Vec<&str> =
        USER_FIELDS.iter().copied().filter(|name| node_fields.iter().any(|f| f.name == *name && is_leaf(f))).collect();
    if leaves.is_empty() {
        leaves = node_fields.iter().filter(|field| is_leaf(field)).map(|field| field.name.as_str()).take(5).collect();
    }
    if leaves.is_empty() {
        leaves.push("__typename");
    }
    let first =
        field.arguments.iter().any(|argument| argument.name == "first" && argument.ty.inner_named_type() == "Int");
    let required = field.arguments.iter().filter(|argument| argument.is_required() && argument.name != "first").count();
    let arguments = if first { "(first: 50)" } else { "" };
    let count = if has_count { "    count\n" } else { "" };
    let selection: String = leaves.iter().map(|leaf| format!("        {leaf}\n")).collect();
    let what =
        if field.name == "paginatedUsers" { "Users of the organization".to_owned() } else { format!("{}", field.name) };
    let per_page = if first { ", 50 a page" } else { "" };
    let note = if required > 0 { "\n# It has required arguments: give them before running." } else { "" };
    format!(
        "# {what}{per_page}. Press Run (Ctrl+Enter).{note}\nquery {{\n  {name}{arguments} {{\n{count}    edges {{\n      node {{\n{selection}      }}\n    }}\n  }}\n}}\n",
        name = field.name
    )
}

/// A root field whose type is a connection.
struct Connection<'s> {
    field: &'s FieldDefinition,
    has_count: bool,
    node_type: &'s str,
}

/// The connection a field returns: a type with `edges` whose type has `node`.
fn connection<'s>(schema: &'s Schema, field: &'s FieldDefinition) -> Option<Connection<'s>> {
    let connection_fields = fields(schema, field.ty.inner_named_type().as_str());
    let edges = connection_fields.iter().find(|f| f.name == "edges")?;
    let node = fields(schema, edges.ty.inner_named_type().as_str()).into_iter().find(|f| f.name == "node")?;
    Some(Connection {
        field,
        has_count: connection_fields.iter().any(|f| f.name == "count"),
        node_type: node.ty.inner_named_type().as_str(),
    })
}

fn fields<'s>(schema: &'s Schema, type_name: &str) -> Vec<&'s FieldDefinition> {
    match schema.types.get(type_name) {
        Some(ExtendedType::Object(object)) => object.fields.values().map(|field| &***field).collect(),
        Some(ExtendedType::Interface(interface)) => interface.fields.values().map(|field| &***field).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(sdl: &str) -> String {
        let schema = Schema::parse_and_validate(sdl, "t.graphql").expect("a valid test schema");
        let text = sample_query(&schema);
        let problems = crate::query::lang::validate(&schema, &text);
        assert!(problems.is_empty(), "{problems:?} in\n{text}");
        text
    }

    #[test]
    fn the_users_connection_with_the_fields_the_schema_has() {
        let text = sample(
            "type Query { paginatedUsers(first: Int!, after: String): UserConnection }
             type UserConnection { edges: [UserEdge] }
             type UserEdge { cursor: String! node: User }
             type User { id: ID! ref: String! name: String! email: String! }",
        );
        assert!(text.contains("paginatedUsers(first: 50)"), "{text}");
        assert!(!text.contains("count") && !text.contains("isActive"), "{text}");
        assert!(text.contains("ref\n") && text.contains("email\n") && text.contains("id\n"), "{text}");
    }

    #[test]
    fn another_connection_when_there_are_no_users() {
        let text = sample(
            "type Query { version: String items(limit: Int): ItemConnection! }
             type ItemConnection { count: Int edges: [ItemEdge!]! }
             type ItemEdge { node: Item! }
             type Item { code: String! tags: [String] size(unit: String!): Int weight: Float }",
        );
        assert!(text.contains("  items {\n    count\n"), "{text}");
        assert!(text.contains("code\n") && text.contains("weight\n"), "{text}");
        assert!(!text.contains("tags") && !text.contains("size"), "{text}");
    }

    #[test]
    fn no_connection_at_all() {
        let text = sample("type Query { version: String }");
        assert!(text.contains("{ __typename }"), "{text}");
    }
}
