//! Search over every type and field name of the schema; a click opens the tree down to the hit.

use crate::explorer::{SchemaModel, SearchHit};

/// How many hits are listed.
const SHOWN: usize = 50;

/// The search box and its hits (searched again only when the needle changes).
#[derive(Default)]
pub struct Search {
    needle: String,
    searched: Option<String>,
    hits: Vec<SearchHit>,
}

impl Search {
    /// Forgets the hits (a new schema).
    pub fn invalidate(&mut self) {
        self.searched = None;
    }

    /// Draws the box and the hits; returns the hit clicked.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &SchemaModel) -> Option<SearchHit> {
        let label = ui.label("Search the schema");
        let response = ui.add(
            egui::TextEdit::singleline(&mut self.needle).hint_text("type or field name").desired_width(f32::INFINITY),
        );
        response.labelled_by(label.id);
        let needle = self.needle.trim();
        if needle.is_empty() {
            return None;
        }
        if self.searched.as_deref() != Some(needle) {
            self.hits = model.search(needle, SHOWN);
            self.searched = Some(needle.to_owned());
        }
        if self.hits.is_empty() {
            ui.weak(format!("No type or field is named like '{needle}'."));
            return None;
        }
        let mut chosen = None;
        egui::ScrollArea::vertical().id_salt("explorer-search").max_height(160.0).show(ui, |ui| {
            for hit in &self.hits {
                let path = hit.path_text().unwrap_or_else(|| "(not reachable from a root field)".to_owned());
                if ui.add(egui::Button::new(hit.label()).truncate()).on_hover_text(path).clicked() {
                    chosen = Some(hit.clone());
                }
            }
        });
        if chosen.is_some() {
            self.needle.clear();
        }
        chosen
    }
}
