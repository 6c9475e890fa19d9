//! The one connection of a query: where it is, what its columns are, and how to read a page.

use apollo_parser::cst::{self, CstNode};
use serde_json::Value;

use super::DocumentError;
pub use super::columns::Column;
use super::columns::node_columns;
use super::document::Parsed;
use super::fields::{Collector, Merged};

/// The value of a field argument as written in the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentValue {
    /// The argument is not given.
    Absent,
    /// A literal integer.
    Int(i64),
    /// A literal string (unescaped).
    String(String),
    /// A variable, by name without the `$`.
    Variable(String),
    /// Any other literal (`null`, an enum, an integer too large for `i64`…), as written.
    Other(String),
}

/// Where a query's connection is and what it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionSite {
    /// The response keys from `data` to the connection object (aliases where given),
    /// e.g. `["group", "members"]`.
    pub path: Vec<String>,
    /// The response key of `edges` in the connection object.
    pub edges_key: String,
    /// The response key of `node` in each edge.
    pub node_key: String,
    /// The columns of a row: the leaf fields of the node's selection.
    pub columns: Vec<Column>,
    /// The connection's `first` argument as written.
    pub first: ArgumentValue,
    /// The connection's `after` argument as written.
    pub after: ArgumentValue,
    /// The response key of `pageInfo` when the query selects it.
    pub page_info_key: Option<String>,
    /// The response key of `hasNextPage` inside `pageInfo` when the query selects it.
    pub has_next_page_key: Option<String>,
    /// The response key of `endCursor` inside `pageInfo` when the query selects it.
    pub end_cursor_key: Option<String>,
    /// The response key of `count` when the query selects it.
    pub count_key: Option<String>,
    /// The field names (not aliases) from the operation's root to the connection field, to look
    /// the connection up in a schema.
    pub field_path: Vec<String>,
    /// The response key of `cursor` inside each edge when the query selects it.
    pub cursor_key: Option<String>,
}

impl ConnectionSite {
    /// The connection object in a response's `data`, if it is there.
    pub fn connection<'a>(&self, data: &'a Value) -> Option<&'a Value> {
        value_at(data, &self.path)
    }

    /// The nodes of one page, in order: `data` → path → `edges[*].node`. Edges without a
    /// node (or with a null one) are skipped.
    pub fn nodes<'a>(&'a self, data: &'a Value) -> impl Iterator<Item = &'a Value> + 'a {
        self.connection(data)
            .and_then(|connection| connection.get(&self.edges_key))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|edge| edge.get(&self.node_key))
            .filter(|node| !node.is_null())
    }

    /// `pageInfo.hasNextPage` of a page, when the query selects it and the response has it.
    pub fn has_next_page(&self, data: &Value) -> Option<bool> {
        self.page_info_field(data, self.has_next_page_key.as_deref())?.as_bool()
    }

    /// `pageInfo.endCursor` of a page, when the query selects it and the response has a string.
    pub fn end_cursor<'a>(&self, data: &'a Value) -> Option<&'a str> {
        self.page_info_field(data, self.end_cursor_key.as_deref())?.as_str()
    }

    /// The connection's `count` (every node across all pages), when selected and present.
    pub fn count(&self, data: &Value) -> Option<u64> {
        self.connection(data)?.get(self.count_key.as_deref()?)?.as_u64()
    }

    /// The edges of one page that are objects (a null edge is skipped).
    pub fn edges<'a>(&self, data: &'a Value) -> impl Iterator<Item = &'a Value> + 'a {
        value_at(data, &self.path)
            .and_then(|connection| connection.get(&self.edges_key))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|edge| edge.is_object())
    }

    /// The `cursor` of the last edge of a page, when the query selects edge cursors.
    pub fn last_edge_cursor<'a>(&self, data: &'a Value) -> Option<&'a str> {
        let key = self.cursor_key.as_deref()?;
        self.edges(data).last()?.get(key)?.as_str()
    }

    fn page_info_field<'a>(&self, data: &'a Value, key: Option<&str>) -> Option<&'a Value> {
        self.connection(data)?.get(self.page_info_key.as_deref()?)?.get(key?)
    }
}

/// Follows `path` (object keys) from `data`; `None` when a key is missing or a value on the
/// way is not an object.
pub fn value_at<'a>(data: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(data, |value, key| value.as_object()?.get(key))
}

/// Finds the one connection of the operation `operation_name` (or the only operation) of `query`.
///
/// A connection is a field whose selection set contains `edges { node { … } }`, searched depth
/// first through the operation, following inline fragments and fragment spreads. A connection
/// inside another connection's node belongs to that connection's columns, not a second one.
///
/// # Errors
///
/// A [`DocumentError`] for a syntax error (with line and column), a missing or ambiguous
/// operation, an undefined or cyclic fragment, and zero or two connections.
pub fn locate(query: &str, operation_name: Option<&str>) -> Result<ConnectionSite, DocumentError> {
    let parsed = Parsed::new(query, operation_name)?;
    Ok(find(&parsed)?.site)
}

/// A located connection with the syntax it came from (for rewriting).
pub(crate) struct Found {
    /// What [`locate`] returns.
    pub(crate) site: ConnectionSite,
    /// The connection field's occurrences.
    pub(crate) connection: Merged,
    /// The fields selected in the connection object.
    pub(crate) children: Vec<Merged>,
    /// The `edges` field.
    pub(crate) edges: Merged,
    /// The fields selected in each edge.
    pub(crate) edge_children: Vec<Merged>,
    /// The `pageInfo` field and its fields, when selected with a selection set.
    pub(crate) page_info: Option<(Merged, Vec<Merged>)>,
}

/// Finds the one connection of a parsed document's operation.
pub(crate) fn find(parsed: &Parsed) -> Result<Found, DocumentError> {
    let collector = Collector::new(&parsed.fragments);
    let Some(selection_set) = parsed.operation.selection_set() else { return Err(DocumentError::NoConnection) };
    let top = collector.collect(&selection_set)?;
    let mut candidates = Vec::new();
    search(&collector, top, &mut Vec::new(), &mut candidates)?;
    if candidates.len() > 1 {
        let paths = candidates.iter().map(|candidate| keys(&candidate.path).join(".")).collect();
        return Err(DocumentError::SeveralConnections { paths });
    }
    let Some(candidate) = candidates.pop() else { return Err(DocumentError::NoConnection) };
    describe(&collector, candidate)
}

/// A connection found by [`search`].
struct Candidate {
    /// Response key and field name of each field from the root to the connection.
    path: Vec<(String, String)>,
    connection: Merged,
    children: Vec<Merged>,
    edges: Merged,
    node: Merged,
}

fn keys(path: &[(String, String)]) -> Vec<String> {
    path.iter().map(|(key, _)| key.clone()).collect()
}

fn search(
    collector: &Collector<'_>,
    fields: Vec<Merged>,
    path: &mut Vec<(String, String)>,
    found: &mut Vec<Candidate>,
) -> Result<(), DocumentError> {
    for merged in fields {
        if merged.is_leaf() {
            continue;
        }
        let children = collector.children(&merged)?;
        path.push((merged.key.clone(), merged.name.clone()));
        match edges_and_node(collector, &children)? {
            Some((edges, node)) => {
                found.push(Candidate { path: path.clone(), connection: merged, children, edges, node });
            }
            None => search(collector, children, path, found)?,
        }
        path.pop();
    }
    Ok(())
}

/// The merged `edges` and `node` fields, when `children` select `edges { node { … } }`.
fn edges_and_node(collector: &Collector<'_>, children: &[Merged]) -> Result<Option<(Merged, Merged)>, DocumentError> {
    for edges in children.iter().filter(|merged| merged.name == "edges" && !merged.is_leaf()) {
        let edge_fields = collector.children(edges)?;
        if let Some(node) = edge_fields.into_iter().find(|merged| merged.name == "node" && !merged.is_leaf()) {
            return Ok(Some((edges.clone(), node)));
        }
    }
    Ok(None)
}

fn describe(collector: &Collector<'_>, candidate: Candidate) -> Result<Found, DocumentError> {
    let Candidate { path, connection, children, edges, node } = candidate;
    let columns = node_columns(collector, &node)?;
    let edge_fields = collector.children(&edges)?;
    let page_info = match children.iter().find(|merged| merged.name == "pageInfo" && !merged.is_leaf()) {
        Some(page_info) => Some((page_info.clone(), collector.children(page_info)?)),
        None => None,
    };
    let key_of = |fields: &[Merged], name: &str| {
        fields.iter().find(|merged| merged.name == name && merged.is_leaf()).map(|merged| merged.key.clone())
    };
    let site = ConnectionSite {
        field_path: path.iter().map(|(_, name)| name.clone()).collect(),
        path: keys(&path),
        edges_key: edges.key.clone(),
        cursor_key: key_of(&edge_fields, "cursor"),
        node_key: node.key.clone(),
        columns,
        first: argument(&connection, "first"),
        after: argument(&connection, "after"),
        page_info_key: page_info.as_ref().map(|(merged, _)| merged.key.clone()),
        has_next_page_key: page_info.as_ref().and_then(|(_, fields)| key_of(fields, "hasNextPage")),
        end_cursor_key: page_info.as_ref().and_then(|(_, fields)| key_of(fields, "endCursor")),
        count_key: key_of(&children, "count"),
    };
    Ok(Found { site, connection, children, edges, edge_children: edge_fields, page_info })
}

/// The argument `name` of the first occurrence of `field` that gives it.
pub(crate) fn argument_node(field: &Merged, name: &str) -> Option<cst::Argument> {
    field
        .fields()
        .filter_map(cst::Field::arguments)
        .flat_map(|arguments| arguments.arguments())
        .find(|argument| argument.name().is_some_and(|argument_name| argument_name.text() == name))
}

fn argument(field: &Merged, name: &str) -> ArgumentValue {
    let Some(value) = argument_node(field, name).and_then(|argument| argument.value()) else {
        return ArgumentValue::Absent;
    };
    match &value {
        cst::Value::Variable(variable) => match variable.name() {
            Some(name) => ArgumentValue::Variable(name.text().to_string()),
            None => ArgumentValue::Other(value.syntax().text().to_string()),
        },
        cst::Value::IntValue(int) => match value.syntax().text().to_string().parse() {
            Ok(number) => ArgumentValue::Int(number),
            Err(_) => ArgumentValue::Other(int.syntax().text().to_string()),
        },
        cst::Value::StringValue(string) => ArgumentValue::String(String::from(string)),
        _ => ArgumentValue::Other(value.syntax().text().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(query: &str, operation: Option<&str>) -> ConnectionSite {
        match locate(query, operation) {
            Ok(site) => site,
            Err(error) => panic!("{error}"),
        }
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn finds_a_top_level_connection() {
        let found = site("{ paginatedUsers(first: 10) { count edges { node { ref name } } } }", None);
        assert_eq!(found.path, strings(&["paginatedUsers"]));
        assert_eq!(found.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["ref", "name"]);
        assert_eq!(found.first, ArgumentValue::Int(10));
        assert_eq!(found.after, ArgumentValue::Absent);
        assert_eq!(found.count_key.as_deref(), Some("count"));
        assert_eq!(found.page_info_key, None);
    }

    #[test]
    fn path_uses_aliases_and_nested_objects() {
        let query = r#"query { team: group(ref: "g1") { name people: members(after: "abc", first: $n) {
            e: edges { n: node { ref } } info: pageInfo { more: hasNextPage endCursor } total: count } } }"#;
        let found = site(query, None);
        assert_eq!(found.path, strings(&["team", "people"]));
        assert_eq!((found.edges_key.as_str(), found.node_key.as_str()), ("e", "n"));
        assert_eq!(found.after, ArgumentValue::String("abc".to_string()));
        assert_eq!(found.first, ArgumentValue::Variable("n".to_string()));
        assert_eq!(found.page_info_key.as_deref(), Some("info"));
        assert_eq!(found.has_next_page_key.as_deref(), Some("more"));
        assert_eq!(found.end_cursor_key.as_deref(), Some("endCursor"));
        assert_eq!(found.count_key.as_deref(), Some("total"));
    }

    #[test]
    fn follows_fragment_spreads_and_inline_fragments() {
        let query = "query Q { ...Root }
            fragment Root on Query { paginatedUsers { ...Conn } }
            fragment Conn on UserConnection { edges { ... on UserEdge { node { ref ...Names } } } }
            fragment Names on User { name }";
        let found = site(query, None);
        assert_eq!(found.path, strings(&["paginatedUsers"]));
        assert_eq!(found.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["ref", "name"]);
    }

    #[test]
    fn a_connection_inside_a_node_is_a_column_not_a_second_connection() {
        let query = "{ paginatedGroups { edges { node { name members { edges { node { ref } } } } } } }";
        let found = site(query, None);
        assert_eq!(found.path, strings(&["paginatedGroups"]));
        assert_eq!(
            found.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["name", "members.edges.node.ref"]
        );
    }

    #[test]
    fn picks_the_named_operation() {
        let query = "query Users { paginatedUsers { edges { node { ref } } } }
            query Groups { paginatedGroups { edges { node { name } } } }";
        assert_eq!(site(query, Some("Groups")).path, strings(&["paginatedGroups"]));
        assert_eq!(site(query, Some("Users")).path, strings(&["paginatedUsers"]));
        assert!(matches!(locate(query, None), Err(DocumentError::SeveralOperations { count: 2, .. })));
    }

    #[test]
    fn zero_connections_is_an_error() {
        let error = locate(r#"{ user(ref: "u1") { ref groups { name } } }"#, None);
        assert_eq!(error, Err(DocumentError::NoConnection));
        let message = DocumentError::NoConnection.to_string();
        assert!(message.contains("no connection") && message.contains("edges { node { … } }"), "{message}");
    }

    #[test]
    fn two_connections_name_their_paths() {
        let query = "{ paginatedUsers { edges { node { ref } } }
            g: group(ref: \"x\") { members { edges { node { ref } } } } }";
        let error = locate(query, None);
        let paths = strings(&["paginatedUsers", "g.members"]);
        assert_eq!(error, Err(DocumentError::SeveralConnections { paths }));
        let message = error.map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(message.contains("paginatedUsers, g.members") && message.contains("one at a time"), "{message}");
    }

    #[test]
    fn the_same_connection_selected_twice_merges() {
        let query = "{ paginatedUsers { count } paginatedUsers { edges { node { ref } } } }";
        let found = site(query, None);
        assert_eq!(found.path, strings(&["paginatedUsers"]));
        assert_eq!(found.count_key.as_deref(), Some("count"));
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let error = locate("query {\n  paginatedUsers(first: ) {\n    edges { node { ref } }\n  }\n}", None);
        let Err(DocumentError::Syntax { line, column, message }) = error else { panic!("{error:?}") };
        assert_eq!((line, column), (2, 25), "{message}");
        let unclosed = locate("{ paginatedUsers { edges { node { ref } } }", None);
        assert!(matches!(unclosed, Err(DocumentError::Syntax { line: 1, column: 44, .. })), "{unclosed:?}");
    }

    #[test]
    fn value_at_follows_object_keys() {
        let data = json!({"group": {"members": {"count": 3}}, "list": [1]});
        assert_eq!(value_at(&data, &strings(&["group", "members", "count"])), Some(&json!(3)));
        assert_eq!(value_at(&data, &strings(&["group", "missing"])), None);
        assert_eq!(value_at(&data, &strings(&["list", "0"])), None);
        assert_eq!(value_at(&data, &[]), Some(&data));
    }

    #[test]
    fn reads_nodes_and_page_info_of_a_page() {
        let query = "{ g: group(ref: \"x\") { m: members { total: count e: edges { n: node { ref } }
            p: pageInfo { more: hasNextPage end: endCursor } } } }";
        let found = site(query, None);
        let data = json!({"g": {"m": {
            "total": 7,
            "e": [{"n": {"ref": "a"}}, {"n": null}, {"n": {"ref": "b"}}],
            "p": {"more": true, "end": "c2"}
        }}});
        let refs: Vec<&Value> = found.nodes(&data).filter_map(|node| node.get("ref")).collect();
        assert_eq!(refs, [&json!("a"), &json!("b")]);
        assert_eq!(found.has_next_page(&data), Some(true));
        assert_eq!(found.end_cursor(&data), Some("c2"));
        assert_eq!(found.count(&data), Some(7));
        assert_eq!(found.nodes(&json!({"g": null})).count(), 0);
    }
}
