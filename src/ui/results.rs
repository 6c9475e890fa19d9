//! The result of the active tab: paging and export controls, the `errors` beside the data,
//! and the grid, tree or raw view.

use egui_extras::{Column, TableBuilder};

use super::json_tree;
use super::tab::{Tab, View};
use crate::api::ApiError;

/// What the results panel asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultsIntent {
    /// The next page.
    NextPage,
    /// The previous page.
    PreviousPage,
    /// Every page, appended as it arrives.
    FetchAll,
    /// Stop what is under way.
    Cancel,
    /// Run the query again on the chosen connection (after it changed).
    RunAgain,
    /// Open the export window.
    Export,
    /// Put the editor's cursor at a line and column.
    JumpTo(u32, u32),
    /// Copy text to the clipboard.
    CopyText(String),
}

/// The results panel.
#[derive(Default)]
pub struct ResultsPanel {
    copy: Option<String>,
}

const ROW_HEIGHT: f32 = 20.0;

impl ResultsPanel {
    /// Asks for `text` to be copied at the next frame.
    pub fn copy(&mut self, text: String) {
        self.copy = Some(text);
    }

    /// Draws the result of `tab`; `chosen` names the connection now chosen.
    pub fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, chosen: &str) -> Option<ResultsIntent> {
        if let Some(text) = self.copy.take() {
            ui.ctx().copy_text(text);
        }
        let mut intent = None;
        self.toolbar_ui(ui, tab, &mut intent);
        if let Some(source) = tab.source_differs(chosen) {
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "These rows came from {source}; its pages stay with it. The chosen connection is {chosen}."
                    ),
                );
                let run = egui::Button::new(format!("Run on {chosen}"));
                if ui.add_enabled(!tab.busy(), run).clicked() {
                    intent = Some(ResultsIntent::RunAgain);
                }
            });
        }
        if let Some(error) = tab.result.error() {
            error_ui(ui, error);
        }
        if let Some(result) = tab.result.value() {
            for warning in &result.warnings {
                ui.colored_label(ui.visuals().warn_fg_color, warning);
            }
            if !result.errors.is_empty() {
                let count = match result.errors.len() {
                    1 => "1 error".to_owned(),
                    n => format!("{n} errors"),
                };
                ui.label(egui::RichText::new(count).strong());
                for error in &result.errors {
                    ui.horizontal_wrapped(|ui| {
                        ui.colored_label(ui.visuals().error_fg_color, &error.message);
                        if !error.path.is_empty() {
                            ui.weak(format!("at {}", error.path_text()));
                        }
                        for location in &error.locations {
                            let text = format!("line {}, column {}", location.line, location.column);
                            if ui.link(text).on_hover_text("Show in the editor").clicked() {
                                intent = Some(ResultsIntent::JumpTo(location.line, location.column));
                            }
                        }
                    });
                }
                ui.separator();
            }
        }
        match tab.view {
            View::Grid => match tab.grid.as_mut() {
                Some(grid) => grid_ui(ui, grid, &mut intent),
                None if tab.result.value().is_some() => {
                    ui.weak("This result has no connection (edges { node }) to show as rows; see Tree or Raw.");
                }
                None => {
                    ui.weak("Run the query to see its rows here.");
                }
            },
            View::Tree => match tab.result.value().and_then(|r| r.data.as_ref()) {
                Some(data) => {
                    egui::ScrollArea::both().id_salt(("tree", tab.id)).show(ui, |ui| json_tree::show(ui, "data", data));
                }
                None => {
                    ui.weak("No data.");
                }
            },
            View::Raw => match tab.result.value() {
                Some(result) => {
                    let mut text = result.raw.as_str();
                    egui::ScrollArea::both().id_salt(("raw", tab.id)).show(ui, |ui| {
                        let label = ui.label("Response");
                        ui.add(egui::TextEdit::multiline(&mut text).code_editor().desired_width(f32::INFINITY))
                            .labelled_by(label.id);
                    });
                }
                None => {
                    ui.weak("No response yet.");
                }
            },
        }
        intent
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, intent: &mut Option<ResultsIntent>) {
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut tab.view, View::Grid, "Grid");
            ui.selectable_value(&mut tab.view, View::Tree, "Tree");
            ui.selectable_value(&mut tab.view, View::Raw, "Raw");
            ui.separator();
            let fetching = tab.fetch_all.as_ref().filter(|f| f.outcome.is_none());
            if let Some(grid) = &tab.grid
                && tab.fetch_all.is_none()
            {
                let shown = grid.rows.len() as u64;
                let range = if shown == 0 {
                    "no rows".to_owned()
                } else {
                    format!("{}–{}", thousands(grid.first_row), thousands(grid.first_row + shown - 1))
                };
                let of = grid.total.map(|t| format!(" of {}", thousands(t))).unwrap_or_default();
                let back = tab.has_previous_page() && !tab.busy();
                if ui.add_enabled(back, egui::Button::new("Previous page")).clicked() {
                    *intent = Some(ResultsIntent::PreviousPage);
                }
                ui.label(format!("{range}{of}"));
                let next = tab.has_next_page() && !tab.busy();
                if ui.add_enabled(next, egui::Button::new("Next page")).clicked() {
                    *intent = Some(ResultsIntent::NextPage);
                }
            }
            if tab.grid.is_some() || tab.fetch_all.is_some() {
                if ui.add_enabled(!tab.busy(), egui::Button::new("Fetch all pages")).clicked() {
                    *intent = Some(ResultsIntent::FetchAll);
                }
                if ui.add_enabled(!tab.busy(), egui::Button::new("Export CSV…")).clicked() {
                    *intent = Some(ResultsIntent::Export);
                }
            }
            if let Some(fetch) = fetching {
                let fraction = fetch.total.filter(|t| *t > 0).map(|t| fetch.so_far as f32 / t as f32);
                let text = match fetch.total {
                    Some(total) => format!("{} of {} rows", thousands(fetch.so_far), thousands(total)),
                    None => format!("{} rows", thousands(fetch.so_far)),
                };
                ui.add(egui::ProgressBar::new(fraction.unwrap_or(0.0)).text(text).desired_width(200.0));
                if ui.button("Cancel fetching").clicked() {
                    *intent = Some(ResultsIntent::Cancel);
                }
            } else if let Some(fetch) = &tab.fetch_all {
                match &fetch.outcome {
                    Some(Ok(rows)) => ui.label(format!("All {} rows fetched", thousands(*rows))),
                    Some(Err(e)) => ui.colored_label(ui.visuals().error_fg_color, format!("Fetching stopped: {e}")),
                    None => ui.label(""),
                };
                for warning in &fetch.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, warning);
                }
            }
            if let Some(export) = &tab.export {
                match &export.outcome {
                    None => {
                        ui.spinner();
                        ui.label(format!("Exporting… {} rows", thousands(export.rows)));
                        if ui.button("Cancel export").clicked() {
                            *intent = Some(ResultsIntent::Cancel);
                        }
                    }
                    Some(Ok((path, rows))) => {
                        ui.label(format!("Exported {} rows to {}", thousands(*rows), path.display()));
                    }
                    Some(Err(e)) => {
                        ui.colored_label(ui.visuals().error_fg_color, format!("Export failed: {e}"));
                    }
                }
            }
        });
    }
}

fn error_ui(ui: &mut egui::Ui, error: &ApiError) {
    let advice = match error {
        ApiError::MissingScope { scopes, .. } if !scopes.is_empty() => {
            format!("Add {} to the profile's scopes (Profiles…), then run again.", scopes.join(" and "))
        }
        ApiError::Unauthorized | ApiError::InvalidClient => {
            "Check the profile's client ID and secret (Profiles… → Test connection).".to_owned()
        }
        _ => String::new(),
    };
    ui.colored_label(ui.visuals().error_fg_color, error.to_string());
    if !advice.is_empty() {
        ui.label(advice);
    }
}

fn grid_ui(ui: &mut egui::Ui, grid: &mut super::tab::Grid, intent: &mut Option<ResultsIntent>) {
    let columns = grid.columns.len();
    if columns == 0 {
        ui.weak("The query selects no fields of the node.");
        return;
    }
    let mut sort_request = None;
    let rows = grid.rows.clone();
    let order = &grid.order;
    let sort = grid.sort;
    let columns_names = &grid.columns;
    egui::ScrollArea::horizontal().id_salt("grid-h").show(ui, |ui| {
        TableBuilder::new(ui)
            .id_salt("grid")
            .striped(true)
            .resizable(true)
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .columns(Column::initial(140.0).at_least(40.0).clip(true), columns)
            .header(ROW_HEIGHT + 4.0, |mut header| {
                for (i, name) in columns_names.iter().enumerate() {
                    header.col(|ui| {
                        let arrow = match sort {
                            Some((c, true)) if c == i => " ⏶",
                            Some((c, false)) if c == i => " ⏷",
                            _ => "",
                        };
                        if ui.button(format!("{name}{arrow}")).on_hover_text("Sort by this column").clicked() {
                            let ascending = !matches!(sort, Some((c, true)) if c == i);
                            sort_request = Some((i, ascending));
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, order.len(), |mut row| {
                    let Some(cells) = order.get(row.index()).and_then(|i| rows.get(*i)) else { return };
                    for cell in cells.cells() {
                        row.col(|ui| {
                            let shown = cell.replace(['\n', '\r', '\t'], " ");
                            let response = ui.add(egui::Label::new(shown).truncate().sense(egui::Sense::click()));
                            response.context_menu(|ui| {
                                if ui.button("Copy cell").clicked() {
                                    *intent = Some(ResultsIntent::CopyText(cell.to_owned()));
                                    ui.close();
                                }
                                if ui.button("Copy row").clicked() {
                                    *intent =
                                        Some(ResultsIntent::CopyText(cells.cells().collect::<Vec<_>>().join("\t")));
                                    ui.close();
                                }
                            });
                        });
                    }
                });
            });
    });
    if let Some((column, ascending)) = sort_request {
        grid.sort_by(column, ascending);
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234), "1,234");
        assert_eq!(thousands(100_000), "100,000");
    }
}
