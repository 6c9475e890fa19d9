//! Whether a value read back from a service is the value a change asked for (issue 41).
//!
//! Services store "nothing" their own way: a Django `CharField(null=True)` turns a cleared text
//! into `null`, others keep `""`, a list becomes `[]` or `null`. When a change asked to clear a
//! field, any of those read back is the same outcome — cleared. Only a value that differs in
//! content is a failure. One function for the card, the import, its undo and its rehearsal (and
//! any later read-back), so that they all judge a clearing alike.

use serde_json::Value;

/// Whether `value` holds nothing: `null`, `""` or an empty list.
pub fn is_cleared(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Whether `found` (read back) is what a change that asked for `asked` expects: equal, numbers and
/// their text alike (an id may come back as a number), and a clearing (`null`, `""`, `[]`) asked
/// is met by any clearing found.
pub fn reads_back_as(asked: &Value, found: &Value) -> bool {
    match (asked, found) {
        (Value::String(x), Value::Number(n)) | (Value::Number(n), Value::String(x)) => *x == n.to_string(),
        (a, b) if is_cleared(a) => is_cleared(b),
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clearing_reads_back_as_any_nothing_and_only_content_differs() {
        for asked in [json!(null), json!(""), json!([])] {
            for found in [json!(null), json!(""), json!([])] {
                assert!(reads_back_as(&asked, &found), "{asked} asked, {found} found");
            }
            assert!(!reads_back_as(&asked, &json!("People")), "{asked} asked, a value found");
        }
        assert!(!reads_back_as(&json!("People"), &json!(null)), "a value asked is not met by nothing");
        assert!(!reads_back_as(&json!(false), &json!(null)), "false is a value, not a clearing");
        assert!(!reads_back_as(&json!(0), &json!("")), "0 is a value, not a clearing");
        assert!(reads_back_as(&json!("7"), &json!(7)), "an id as a number");
        assert!(reads_back_as(&json!("People"), &json!("People")));
    }

    #[test]
    fn a_record_read_back_with_a_cleared_field_stored_as_null_moved_nothing() {
        let fields = [("department", "department"), ("isActive", "isActive")];
        let before = json!({ "department": "People", "isActive": true });
        let asked = json!({ "department": "" });
        let after = json!({ "department": null, "isActive": true });
        let changes = asked.as_object().unwrap();
        assert!(crate::shape::compare(fields, &before, changes, &after).is_empty(), "cleared is cleared");
        // A field not asked to change must come back exactly: "" turned null unasked moved.
        let was_empty = json!({ "department": "", "isActive": true });
        let unasked = crate::shape::compare(fields, &was_empty, &serde_json::Map::new(), &after);
        assert_eq!(unasked.len(), 1, "{unasked:?}");
        // A value in place of the clearing is the failure, said as such.
        let kept = json!({ "department": "People", "isActive": true });
        let failed = crate::shape::compare(fields, &before, changes, &kept);
        assert_eq!(failed[0].sentence("the file"), "the service has department: People instead of \"\"");
    }
}
