//! The columns of a connection: the leaf fields of its node's selection.

use std::collections::HashSet;

use super::DocumentError;
use super::fields::{Collector, Merged};

/// A column of a connection's rows: one leaf field of the node's selection.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Column {
    /// The column's name: its response keys from the node joined with `.` (`groups.name`).
    pub name: String,
    /// The response keys from the node to the value (`["groups", "name"]`).
    pub keys: Vec<String>,
}

/// The leaf fields under `node`, in the order of the query, each named by its path of response
/// keys joined with `.`; a name that appears twice is kept at its first place.
pub(crate) fn node_columns(collector: &Collector<'_>, node: &Merged) -> Result<Vec<Column>, DocumentError> {
    let mut columns = Vec::new();
    let mut seen = HashSet::new();
    let children = collector.children(node)?;
    walk(collector, children, &mut Vec::new(), &mut columns, &mut seen)?;
    Ok(columns)
}

fn walk(
    collector: &Collector<'_>,
    fields: Vec<Merged>,
    keys: &mut Vec<String>,
    columns: &mut Vec<Column>,
    seen: &mut HashSet<String>,
) -> Result<(), DocumentError> {
    for merged in fields {
        keys.push(merged.key.clone());
        if merged.is_leaf() {
            let name = keys.join(".");
            if seen.insert(name.clone()) {
                columns.push(Column { name, keys: keys.clone() });
            }
        } else {
            let children = collector.children(&merged)?;
            walk(collector, children, keys, columns, seen)?;
        }
        keys.pop();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::locate;

    fn names(query: &str) -> Vec<String> {
        match locate(query, None) {
            Ok(site) => site.columns.into_iter().map(|column| column.name).collect(),
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn leaves_in_query_order_with_paths() {
        let query = "{ paginatedUsers { edges { node {
            ref name groups { name ref } extraFields { category { name } value } isActive
        } } } }";
        let want =
            ["ref", "name", "groups.name", "groups.ref", "extraFields.category.name", "extraFields.value", "isActive"];
        assert_eq!(names(query), want);
    }

    #[test]
    fn aliases_replace_names_and_typename_is_a_leaf() {
        let query = "{ paginatedUsers { edges { node { __typename id: ref teams: groups { label: name } } } } }";
        assert_eq!(names(query), ["__typename", "id", "teams.label"]);
    }

    #[test]
    fn fragments_expand_in_place_and_duplicates_keep_their_first_place() {
        let query = "{ paginatedUsers { edges { node { ref ...U email ... on User { name ref } groups { name } } } } }
            fragment U on User { name groups { ref name } }";
        assert_eq!(names(query), ["ref", "name", "groups.ref", "groups.name", "email"]);
    }

    #[test]
    fn the_keys_follow_the_path() {
        let query = "{ paginatedUsers { edges { node { g: groups { name } } } } }";
        let site = locate(query, None).map_err(|e| e.to_string());
        let keys = site.map(|s| s.columns.into_iter().map(|c| c.keys).collect::<Vec<_>>());
        assert_eq!(keys, Ok(vec![vec!["g".to_string(), "name".to_string()]]));
    }
}
