//! A JSON tree: objects and arrays fold (children are laid out only when open, so a large
//! response costs nothing while folded), scalars show in their JSON form, keys in the order the
//! server sent them. A search keeps only the branches holding a match (a key or a scalar that
//! contains the text), opened down to it.

use std::collections::HashSet;

use serde_json::Value;

/// How many children of one array or object are listed before "… n more".
const SHOWN_CHILDREN: usize = 1000;

/// Shows `value` under the name `key`.
pub fn show(ui: &mut egui::Ui, key: &str, value: &Value) {
    show_matching(ui, key, value, None);
}

/// Shows `value` under the name `key`; with `hits` (from [`mark_matches`]), only the branches
/// in it, open.
pub fn show_matching(ui: &mut egui::Ui, key: &str, value: &Value, hits: Option<&HashSet<String>>) {
    let root = ui.scope_id().with("json-tree");
    if hits.is_some_and(|hits| !hits.contains("")) {
        ui.weak("No match.");
        return;
    }
    node(ui, key, value, root, 0, "", hits);
}

/// A cheap identity of a response (with its address) for caches: its top-level size.
pub fn size(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.len(),
        Value::Array(items) => items.len(),
        _ => 1,
    }
}

/// Adds to `hits` the path (`/key/0/…`, `""` for the root) of every branch of `value` holding a
/// key or a scalar that contains `needle` (lowercase); returns whether `value` does.
pub fn mark_matches(value: &Value, path: &str, needle: &str, hits: &mut HashSet<String>) -> bool {
    let found = match value {
        Value::Object(map) => {
            let mut any = false;
            for (key, child) in map {
                let child_path = format!("{path}/{key}");
                let key_matches = key.to_lowercase().contains(needle);
                if mark_matches(child, &child_path, needle, hits) | key_matches {
                    hits.insert(child_path);
                    any = true;
                }
            }
            any
        }
        Value::Array(items) => {
            let mut any = false;
            for (i, child) in items.iter().enumerate() {
                let child_path = format!("{path}/{i}");
                if mark_matches(child, &child_path, needle, hits) {
                    hits.insert(child_path);
                    any = true;
                }
            }
            any
        }
        Value::String(text) => text.to_lowercase().contains(needle),
        scalar => scalar.to_string().contains(needle),
    };
    if found && path.is_empty() {
        hits.insert(String::new());
    }
    found
}

fn node(
    ui: &mut egui::Ui,
    key: &str,
    value: &Value,
    parent: egui::Id,
    depth: usize,
    path: &str,
    hits: Option<&HashSet<String>>,
) {
    let id = parent.with(key);
    let shown = |child: &str| hits.is_none_or(|hits| hits.contains(child));
    // While searching, the branches that match are open.
    let open = hits.map(|_| true);
    match value {
        Value::Object(map) => {
            let header = format!("{key}  {{{}}}", map.len());
            egui::CollapsingHeader::new(header).id_salt(id).default_open(depth < 2).open(open).show(ui, |ui| {
                for (k, v) in map.iter().take(SHOWN_CHILDREN) {
                    let child = format!("{path}/{k}");
                    if shown(&child) {
                        node(ui, k, v, id, depth + 1, &child, hits);
                    }
                }
                more(ui, map.len());
            });
        }
        Value::Array(items) => {
            let header = format!("{key}  [{}]", items.len());
            egui::CollapsingHeader::new(header).id_salt(id).default_open(depth < 2).open(open).show(ui, |ui| {
                for (i, v) in items.iter().enumerate().take(SHOWN_CHILDREN) {
                    let child = format!("{path}/{i}");
                    if shown(&child) {
                        node(ui, &i.to_string(), v, id, depth + 1, &child, hits);
                    }
                }
                more(ui, items.len());
            });
        }
        scalar => {
            ui.horizontal(|ui| {
                ui.label(format!("{key}:"));
                let text = scalar.to_string();
                let color = match scalar {
                    Value::String(_) => ui.visuals().hyperlink_color,
                    Value::Null => ui.visuals().weak_text_color(),
                    _ => ui.visuals().warn_fg_color,
                };
                ui.colored_label(color, egui::RichText::new(text).monospace());
            });
        }
    }
}

fn more(ui: &mut egui::Ui, len: usize) {
    if len > SHOWN_CHILDREN {
        ui.weak(format!("… {} more (see Raw)", len - SHOWN_CHILDREN));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_branches_holding_a_match() {
        let value =
            serde_json::json!({"users": [{"name": "Ann", "ref": "u1"}, {"name": "Bob", "ref": "u2"}], "count": 2});
        let mut hits = HashSet::new();
        assert!(mark_matches(&value, "", "bob", &mut hits));
        let mut found: Vec<&str> = hits.iter().map(String::as_str).collect();
        found.sort_unstable();
        assert_eq!(found, ["", "/users", "/users/1", "/users/1/name"]);
        let mut keys = HashSet::new();
        assert!(mark_matches(&value, "", "coun", &mut keys), "keys match too");
        assert!(keys.contains("/count"));
        assert!(!mark_matches(&value, "", "zzz", &mut HashSet::new()));
    }
}
