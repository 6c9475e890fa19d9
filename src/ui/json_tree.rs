//! A JSON tree: objects and arrays fold (children are laid out only when open, so a large
//! response costs nothing while folded), scalars show in their JSON form.

use serde_json::Value;

/// How many children of one array or object are listed before "… n more".
const SHOWN_CHILDREN: usize = 1000;

/// Shows `value` under the name `key`.
pub fn show(ui: &mut egui::Ui, key: &str, value: &Value) {
    let root = ui.scope_id().with("json-tree");
    node(ui, key, value, root, 0);
}

fn node(ui: &mut egui::Ui, key: &str, value: &Value, parent: egui::Id, depth: usize) {
    let id = parent.with(key);
    match value {
        Value::Object(map) => {
            let header = format!("{key}  {{{}}}", map.len());
            egui::CollapsingHeader::new(header).id_salt(id).default_open(depth < 2).show(ui, |ui| {
                for (k, v) in map.iter().take(SHOWN_CHILDREN) {
                    node(ui, k, v, id, depth + 1);
                }
                more(ui, map.len());
            });
        }
        Value::Array(items) => {
            let header = format!("{key}  [{}]", items.len());
            egui::CollapsingHeader::new(header).id_salt(id).default_open(depth < 2).show(ui, |ui| {
                for (i, v) in items.iter().enumerate().take(SHOWN_CHILDREN) {
                    node(ui, &i.to_string(), v, id, depth + 1);
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
                ui.colored_label(color, text);
            });
        }
    }
}

fn more(ui: &mut egui::Ui, len: usize) {
    if len > SHOWN_CHILDREN {
        ui.weak(format!("… {} more (see Raw)", len - SHOWN_CHILDREN));
    }
}
