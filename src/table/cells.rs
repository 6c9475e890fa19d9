//! One row of cells from one connection node.

use serde_json::Value;

use crate::query::Column;

/// The separator between the values of a list in one cell.
pub const LIST_SEPARATOR: &str = "; ";

/// The cells of one node, one per column, in the columns' order.
pub fn cells(node: &Value, columns: &[Column]) -> Vec<String> {
    columns.iter().map(|column| cell(node, column)).collect()
}

/// The cell of one column: the column's keys followed from `node`.
///
/// Lists on the way (of objects or scalars, nested lists flattened) give one value per item,
/// joined with `; ` (an item without the value keeps its place as an empty string, so that
/// the columns of one list line up). Booleans are `true`/`false`, null or missing is empty,
/// numbers are written as JSON writes them, strings as they are, and an object at a leaf (a
/// custom scalar) as compact JSON.
pub fn cell(node: &Value, column: &Column) -> String {
    let mut values = Vec::new();
    collect(node, &column.keys, &mut values);
    let mut text = String::new();
    for (index, value) in values.into_iter().enumerate() {
        if index > 0 {
            text.push_str(LIST_SEPARATOR);
        }
        write_scalar(value, &mut text);
    }
    text
}

/// Whether the column's keys cross a list in `node` (its [`cell`] then joins the list's values
/// with [`LIST_SEPARATOR`]; a cell of a column that crosses none is one value, whatever its text).
pub fn holds_list(node: &Value, column: &Column) -> bool {
    let mut value = node;
    for key in &column.keys {
        match value.get(key) {
            Some(Value::Array(_)) => return true,
            Some(inner) => value = inner,
            None => return false,
        }
    }
    false
}

/// A cell as a spreadsheet types it: a lone boolean or number as itself, anything else
/// (strings, lists, nulls, objects) as the text [`cell`] gives.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedCell {
    /// A boolean.
    Bool(bool),
    /// A number that is exactly an `f64` (larger integers stay text, so no digit is lost).
    Number(f64),
    /// Text, never read as a formula or a number by a spreadsheet.
    Text(String),
}

/// The cell of one column, typed as the response gives it.
pub fn typed_cell(node: &Value, column: &Column) -> TypedCell {
    let mut values = Vec::new();
    collect(node, &column.keys, &mut values);
    match values.as_slice() {
        [Some(Value::Bool(flag))] => TypedCell::Bool(*flag),
        [Some(Value::Number(number))] => match number.as_f64() {
            Some(float) if number.is_f64() || float.abs() < 9_007_199_254_740_992.0 => TypedCell::Number(float),
            _ => TypedCell::Text(number.to_string()),
        },
        _ => TypedCell::Text(cell(node, column)),
    }
}

/// Pushes the values at `keys` under `value`, mapping over lists; `None` for a missing value.
fn collect<'a>(value: &'a Value, keys: &[String], out: &mut Vec<Option<&'a Value>>) {
    if let Value::Array(items) = value {
        for item in items {
            collect(item, keys, out);
        }
        return;
    }
    match keys.split_first() {
        None => out.push(Some(value)),
        Some((key, rest)) => match value.get(key) {
            Some(inner) => collect(inner, rest, out),
            None => out.push(None),
        },
    }
}

fn write_scalar(value: Option<&Value>, out: &mut String) {
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Bool(flag)) => out.push_str(if *flag { "true" } else { "false" }),
        Some(Value::Number(number)) => out.push_str(&number.to_string()),
        Some(Value::String(text)) => out.push_str(text),
        // Lists were flattened by `collect`; an object at a leaf is a custom scalar.
        Some(other) => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn column(path: &str) -> Column {
        Column { name: path.to_string(), keys: path.split('.').map(str::to_string).collect() }
    }

    fn row(node: &Value, paths: &[&str]) -> Vec<String> {
        let columns: Vec<Column> = paths.iter().map(|path| column(path)).collect();
        cells(node, &columns)
    }

    #[test]
    fn scalars() {
        let node = json!({"name": "Zoë, \"Z\"", "isActive": true, "archived": false, "n": 42, "x": 1.5, "big": 12345678901234_i64});
        assert_eq!(
            row(&node, &["name", "isActive", "archived", "n", "x", "big"]),
            ["Zoë, \"Z\"", "true", "false", "42", "1.5", "12345678901234"]
        );
    }

    #[test]
    fn null_and_missing_are_empty() {
        let node = json!({"description": null, "training": null});
        assert_eq!(row(&node, &["description", "missing", "training.title"]), ["", "", ""]);
    }

    #[test]
    fn a_column_holds_a_list_when_its_keys_cross_one_whatever_its_text() {
        let node = json!({"name": "Smith; John", "groups": [{"name": "Sales"}], "roles": [], "training": {"tags": ["a"]}, "none": null});
        let holds = |path| holds_list(&node, &column(path));
        assert!(!holds("name"), "a text with the separator is one value");
        assert!(holds("groups.name") && holds("roles") && holds("training.tags"), "lists, empty ones too");
        assert!(!holds("none.name") && !holds("missing"));
    }

    #[test]
    fn lists_of_objects_join_with_semicolons() {
        let node = json!({"groups": [{"name": "Sales"}, {"name": "Ops"}], "empty": []});
        assert_eq!(row(&node, &["groups.name", "empty.name"]), ["Sales; Ops", ""]);
    }

    #[test]
    fn lists_of_scalars_and_nested_lists_flatten() {
        let node = json!({"roles": ["LEARNER", "ADMIN"], "matrix": [[1, 2], [3]], "flags": [true, null, false]});
        assert_eq!(row(&node, &["roles", "matrix", "flags"]), ["LEARNER; ADMIN", "1; 2; 3", "true; ; false"]);
    }

    #[test]
    fn nested_paths_through_lists_keep_places() {
        let node = json!({"extraFields": [
            {"category": {"name": "Site"}, "value": "Paris"},
            {"category": {"name": "Team"}, "value": null},
            {"category": null, "value": "x"}
        ]});
        assert_eq!(row(&node, &["extraFields.category.name", "extraFields.value"]), ["Site; Team; ", "Paris; ; x"]);
    }

    #[test]
    fn aliased_keys_are_followed_as_written() {
        let node = json!({"id": "u1", "teams": [{"label": "A"}]});
        let columns = vec![
            Column { name: "id".into(), keys: vec!["id".into()] },
            Column { name: "teams.label".into(), keys: vec!["teams".into(), "label".into()] },
        ];
        assert_eq!(cells(&node, &columns), ["u1", "A"]);
    }

    #[test]
    fn an_object_at_a_leaf_is_compact_json() {
        let node = json!({"meta": {"a": 1, "b": [true, "x"]}});
        assert_eq!(row(&node, &["meta"]), [r#"{"a":1,"b":[true,"x"]}"#]);
    }

    #[test]
    fn typed_cells_keep_booleans_and_numbers_and_everything_else_as_text() {
        let column =
            |keys: &[&str]| Column { name: keys.join("."), keys: keys.iter().map(|k| (*k).to_owned()).collect() };
        let node = serde_json::json!({
            "ref": "00123", "active": true, "score": 4.5, "huge": 9_007_199_254_740_993_u64,
            "tags": [{"n": 1}, {"n": 2}], "none": null
        });
        assert_eq!(typed_cell(&node, &column(&["ref"])), TypedCell::Text("00123".into()), "leading zeros kept");
        assert_eq!(typed_cell(&node, &column(&["active"])), TypedCell::Bool(true));
        assert_eq!(typed_cell(&node, &column(&["score"])), TypedCell::Number(4.5));
        assert_eq!(typed_cell(&node, &column(&["huge"])), TypedCell::Text("9007199254740993".into()));
        assert_eq!(typed_cell(&node, &column(&["tags", "n"])), TypedCell::Text("1; 2".into()), "lists joined");
        assert_eq!(typed_cell(&node, &column(&["none"])), TypedCell::Text(String::new()));
    }
}
