//! The result of the active tab: paging and export controls, the `errors` beside the data,
//! and the grid, tree or raw view. The response is copied whole with Copy response; the tree
//! and the raw text are searched (the tree shows only the branches that match); the grid's
//! rows are narrowed by a quick filter ([`crate::table::RowIndex`]: a keystroke scans a
//! lowercased copy of the rows made once, no frame without a keystroke does). The raw text and
//! the errors are in monospace, so that a server's diagram with a `^` under a column lines up.

pub mod chart;
mod grid_view;
mod intent;

pub use intent::ResultsIntent;

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::api::ApiError;
use crate::table::{Row, RowIndex, normalize};
use crate::ui::queries::results::chart::{ChartIntent, ChartPanel};
use crate::ui::queries::results::grid_view::GridView;
use crate::ui::queries::tab::{Tab, View};
use crate::ui::widgets::json_tree;
use crate::ui::widgets::numbers::thousands;
use crate::ui::widgets::requested::Requested;

/// A filter as applied: its text, the length of the order and the sort it applied to.
type Applied = (String, usize, Option<(usize, bool)>);

/// The grid's quick filter: what is typed, and the rows it keeps.
#[derive(Default)]
struct QuickFilter {
    /// The tab it belongs to.
    tab: u64,
    /// What is typed.
    typed: String,
    /// The rows indexed (compared by address and length: a new run makes new rows).
    rows: Option<(usize, usize)>,
    index: Option<RowIndex>,
    /// The filter applied: its text, the order's length and the sort it applied to.
    applied: Option<Applied>,
    /// The rows kept, in the grid's order (`None`: no filter).
    kept: Option<Vec<usize>>,
}

impl QuickFilter {
    /// Brings the kept rows up to date with what is typed and the grid: a scan when the text,
    /// the rows or their order changed since the last frame, nothing otherwise.
    fn update(&mut self, tab: u64, rows: &Arc<Vec<Row>>, order: &[usize], sort: Option<(usize, bool)>) {
        if self.tab != tab {
            *self = QuickFilter { tab, ..QuickFilter::default() };
        }
        let needle = normalize(&self.typed);
        if needle.is_empty() {
            self.kept = None;
            self.applied = None;
            return;
        }
        let identity = (Arc::as_ptr(rows) as usize, rows.len());
        match (self.rows, self.index.as_mut()) {
            (Some((at, len)), Some(index)) if at == identity.0 && len <= identity.1 => {
                if len < identity.1 {
                    index.extend(&rows[len..]);
                }
            }
            _ => {
                self.index = Some(RowIndex::new(rows));
                self.applied = None;
            }
        }
        let rebuilt = self.rows != Some(identity);
        self.rows = Some(identity);
        let Some(index) = &self.index else { return };
        let kept = match (&self.applied, self.kept.take()) {
            // Typing more of the same text narrows what the last filter kept.
            (Some((text, length, applied_sort)), Some(kept))
                if *length == order.len() && *applied_sort == sort && !rebuilt =>
            {
                if *text == needle {
                    kept
                } else if needle.starts_with(text.as_str()) {
                    index.filter(&needle, &kept)
                } else {
                    index.filter(&needle, order)
                }
            }
            // Rows appended at the end of an unsorted grid (fetching every page): only they are scanned.
            (Some((text, length, None)), Some(mut kept))
                if *text == needle && sort.is_none() && *length < order.len() =>
            {
                kept.extend(index.filter(&needle, &order[*length..]));
                kept
            }
            _ => index.filter(&needle, order),
        };
        self.kept = Some(kept);
        self.applied = Some((needle, order.len(), sort));
    }
}

/// The search of the tree and the raw text.
#[derive(Default)]
struct Search {
    typed: String,
    /// The tree's branches holding a match, for a text and a response (by address and length).
    branches: Option<(String, usize, usize, HashSet<String>)>,
    /// The match of the raw text selected last.
    current: Option<usize>,
}

/// The rows of a bar clicked on the Chart view: the grid shows only them until cleared.
struct BarRows {
    /// The tab and its rows (by address: a new run clears it).
    tab: u64,
    rows: usize,
    /// Which bar, in words ("isActive is true").
    label: String,
    /// Whether each row (by index) is one of them.
    member: Vec<bool>,
    /// How many rows.
    count: usize,
}

/// The results panel.
#[derive(Default)]
pub struct ResultsPanel {
    copy: Option<String>,
    filter: QuickFilter,
    search: Search,
    /// The Chart view.
    pub chart: ChartPanel,
    /// The rows of the bar clicked last.
    bar_rows: Option<BarRows>,
    /// The rows shown when both the quick filter and a bar apply (reused frame to frame).
    narrowed: Vec<usize>,
    /// The grid: its cursor, columns' widths and scroll.
    grid: GridView,
    /// How far below the panel's top the grid's rows began at the last frame (the views, the
    /// pager, notices, the filter, the header), when a grid was drawn.
    above_rows: Option<f32>,
}

impl ResultsPanel {
    /// Asks for `text` to be copied at the next frame.
    pub fn copy(&mut self, text: String) {
        self.copy = Some(text);
    }

    /// Sets the grid's quick filter as if typed into its field (for benchmarks and scripts);
    /// it applies at the next frame, once the panel has shown the tab (showing another tab
    /// clears it).
    pub fn set_quick_filter(&mut self, text: &str) {
        self.filter.typed = text.to_owned();
    }

    /// How many rows the quick filter keeps (`None`: no filter).
    pub fn rows_kept(&self) -> Option<usize> {
        self.filter.kept.as_ref().map(Vec::len)
    }

    /// The grid's cursor: its place among the rows shown and its column (for tests).
    pub fn grid_cursor(&self) -> (usize, usize) {
        self.grid.cursor()
    }

    /// The rows of the bar clicked last, as the grid shows them (for tests).
    pub fn bar_rows(&self) -> Option<(&str, usize)> {
        self.bar_rows.as_ref().map(|b| (b.label.as_str(), b.count))
    }

    /// The height the panel needs to show `rows` rows of the grid under what it shows above
    /// them (at the last frame): the editor above gives way to it on a short screen.
    pub fn height_for_rows(&self, ui: &egui::Ui, rows: usize) -> f32 {
        // Before a grid is drawn: the views' bar, a notice, the filter and the header.
        let above = self.above_rows.unwrap_or(4.0 * ui.spacing().interact_size.y);
        // Half a row more: a last row cut by the edge is not one a person can read.
        let half_row = GridView::rows_height(ui, 1) / 2.0;
        above + GridView::rows_height(ui, rows) + half_row + ui.spacing().scroll.bar_width + ui.spacing().item_spacing.y
    }

    /// Draws the result of `tab`; `chosen` names the connection now chosen.
    pub fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab, chosen: &str) -> Option<ResultsIntent> {
        let top = ui.cursor().top();
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
        if matches!(tab.view, View::Tree | View::Raw) && tab.result.value().is_some() {
            self.search_ui(ui, tab);
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
                crate::ui::widgets::a11y::polite(ui, egui::RichText::new(count).strong());
                for error in &result.errors {
                    ui.horizontal_wrapped(|ui| {
                        // Monospace: a server's diagram puts a `^` under a column of the line above.
                        let message = egui::RichText::new(&error.message).monospace();
                        crate::ui::widgets::a11y::alert(ui, message);
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
                Some(grid) => {
                    filter_ui(ui, &mut self.filter, tab.id, grid);
                    let narrowed = self.bar_rows_ui(ui, tab.id, grid);
                    let shown = if narrowed { Some(&self.narrowed[..]) } else { self.filter.kept.as_deref() };
                    self.grid.ui(ui, tab.id, grid, shown, &mut intent);
                    self.above_rows = Some(self.grid.body_top() - top);
                }
                None if tab.result.value().is_some() => {
                    ui.weak("This result has no connection (edges { node }) to show as rows; see Tree or Raw.");
                }
                None => {
                    ui.weak("Run the query to see its rows here.");
                }
            },
            View::Tree => match tab.result.value().and_then(|r| r.data.as_ref()) {
                Some(data) => {
                    let hits = self.search.branches_of(data);
                    egui::ScrollArea::both()
                        .id_salt(("tree", tab.id))
                        .show(ui, |ui| json_tree::show_matching(ui, "data", data, hits));
                }
                None => {
                    ui.weak("No data.");
                }
            },
            View::Chart => match self.chart.ui(ui, tab) {
                Some(ChartIntent::Ask(ask)) => intent = Some(ResultsIntent::Chart(ask)),
                Some(ChartIntent::Copy(text)) => intent = Some(ResultsIntent::CopyText(text)),
                Some(ChartIntent::ShowRows { label, rows }) => {
                    if let Some(grid) = &tab.grid {
                        let mut member = vec![false; grid.rows.len()];
                        for row in &rows {
                            if let Some(slot) = member.get_mut(*row as usize) {
                                *slot = true;
                            }
                        }
                        let rows_at = Arc::as_ptr(&grid.rows) as usize;
                        self.bar_rows = Some(BarRows { tab: tab.id, rows: rows_at, label, member, count: rows.len() });
                        tab.view = View::Grid;
                        tab.touch();
                    }
                }
                None => {}
            },
            View::Raw => match tab.result.value() {
                Some(result) => {
                    let mut text = result.raw();
                    egui::ScrollArea::both().id_salt(("raw", tab.id)).show(ui, |ui| {
                        let label = ui.label("Response");
                        let edit = egui::TextEdit::multiline(&mut text)
                            .id(raw_id(tab.id))
                            .font(egui::TextStyle::Monospace)
                            .code_editor()
                            .desired_width(f32::INFINITY);
                        ui.add(edit).labelled_by(label.id);
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
            let before = tab.view;
            view_tabs_ui(ui, &mut tab.view);
            if tab.view != before {
                tab.touch();
            }
            ui.separator();
            let fetching = tab.fetch_all.as_ref().filter(|f| f.outcome.is_pending());
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
                crate::ui::widgets::a11y::polite(ui, format!("{range}{of}"));
                let next = tab.has_next_page() && !tab.busy();
                if ui.add_enabled(next, egui::Button::new("Next page")).clicked() {
                    *intent = Some(ResultsIntent::NextPage);
                }
            }
            let rows = tab.grid.is_some() || tab.fetch_all.is_some();
            if rows && ui.add_enabled(!tab.busy(), egui::Button::new("Fetch all pages")).clicked() {
                *intent = Some(ResultsIntent::FetchAll);
            }
            if let Some(result) = tab.result.value()
                && ui.button("Copy response").on_hover_text("The whole response, as JSON").clicked()
            {
                *intent = Some(ResultsIntent::CopyText(result.raw().to_owned()));
            }
            // Last before the grid's filter: from the grid (where F6 lands), Shift+Tab twice.
            if rows && ui.add_enabled(!tab.busy(), egui::Button::new("Export…")).clicked() {
                *intent = Some(ResultsIntent::Export);
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
                    Requested::Done(rows) => {
                        crate::ui::widgets::a11y::polite(ui, format!("All {} rows fetched", thousands(*rows)))
                    }
                    Requested::Failed { error, .. } => {
                        crate::ui::widgets::a11y::alert(ui, format!("Fetching stopped: {error}"))
                    }
                    Requested::Idle | Requested::Pending { .. } => ui.label(""),
                };
                for warning in &fetch.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, warning);
                }
            }
            if let Some(export) = &tab.export {
                match &export.outcome {
                    Requested::Idle | Requested::Pending { .. } => {
                        ui.spinner();
                        ui.label(format!("Exporting… {}", crate::import::plan::counted(export.rows, "row", "rows")));
                        if ui.button("Cancel export").clicked() {
                            *intent = Some(ResultsIntent::Cancel);
                        }
                    }
                    Requested::Done((path, rows)) => {
                        let done = format!(
                            "Exported {} to {}",
                            crate::import::plan::counted(*rows, "row", "rows"),
                            path.display()
                        );
                        match &export.note {
                            Some(note) => crate::ui::widgets::a11y::polite(ui, format!("{done} ({note})")),
                            None => crate::ui::widgets::a11y::polite(ui, done),
                        };
                    }
                    Requested::Failed { error, .. } => {
                        crate::ui::widgets::a11y::alert(ui, format!("Export failed: {error}"));
                        if export.resumable && ui.button("Resume").clicked() {
                            *intent = Some(ResultsIntent::ResumeExport);
                        }
                    }
                }
            }
        });
    }
}

impl ResultsPanel {
    /// Narrows the quick filter's rows to a clicked bar's (into `narrowed`), with a line saying
    /// so and a way back to every row; whether they were narrowed.
    fn bar_rows_ui(&mut self, ui: &mut egui::Ui, tab: u64, grid: &crate::ui::queries::tab::Grid) -> bool {
        let rows_at = Arc::as_ptr(&grid.rows) as usize;
        if self.bar_rows.as_ref().is_some_and(|b| b.tab != tab || b.rows != rows_at) {
            self.bar_rows = None;
        }
        let Some(bar) = &self.bar_rows else { return false };
        let mut clear = false;
        ui.horizontal(|ui| {
            ui.label(format!("Showing the {} rows where {}", thousands(bar.count as u64), bar.label));
            clear = ui.button("Show all rows").clicked();
        });
        if clear {
            self.bar_rows = None;
            return false;
        }
        let among = self.filter.kept.as_deref().unwrap_or(&grid.order);
        self.narrowed.clear();
        self.narrowed.extend(among.iter().copied().filter(|i| bar.member.get(*i).copied().unwrap_or(false)));
        true
    }
}

/// The views of a result as a tab list: one stop in the Tab order (the view shown), the arrow
/// keys choose another, as in any tab list; a click chooses one too.
fn view_tabs_ui(ui: &mut egui::Ui, view: &mut View) {
    use egui::accesskit::Role;
    const VIEWS: [(View, &str); 4] =
        [(View::Grid, "Grid"), (View::Tree, "Tree"), (View::Raw, "Raw"), (View::Chart, "Chart")];
    let list = egui::UiBuilder::new()
        .layout(egui::Layout::left_to_right(egui::Align::Center))
        .accessibility_role(Role::TabList)
        .accessibility_label("Result view");
    ui.scope_builder(list, |ui| {
        let at = VIEWS.iter().position(|(v, _)| v == view).unwrap_or(0);
        let mut ids = Vec::with_capacity(VIEWS.len());
        let mut chosen = None;
        for (i, (v, name)) in VIEWS.iter().enumerate() {
            let selected = i == at;
            let sense = if selected { egui::Sense::click() } else { egui::Sense::CLICK };
            let response = ui.add(egui::Button::selectable(selected, *name).sense(sense));
            ui.ctx().accesskit_node_builder(response.id, |node| {
                node.set_role(Role::Tab);
                node.set_selected(selected);
                node.clear_toggled();
            });
            if response.clicked() {
                chosen = Some(*v);
            }
            if selected && response.has_focus() {
                let step = ui.input_mut(|i| {
                    if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowRight) {
                        1
                    } else if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowLeft) {
                        VIEWS.len() - 1
                    } else {
                        0
                    }
                });
                if step != 0 {
                    ui.memory_mut(|m| m.move_focus(egui::FocusDirection::None));
                    chosen = Some(VIEWS[(at + step) % VIEWS.len()].0);
                }
            }
            ids.push(response.id);
        }
        if let Some(new) = chosen {
            *view = new;
            let index = VIEWS.iter().position(|(v, _)| *v == new).unwrap_or(0);
            if ids.iter().any(|id| ui.memory(|m| m.has_focus(*id))) {
                ui.memory_mut(|m| m.request_focus(ids[index]));
            }
        }
    });
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
    crate::ui::widgets::a11y::alert(ui, egui::RichText::new(error.to_string()).monospace());
    if !advice.is_empty() {
        ui.label(advice);
    }
}

/// The id of the raw view's text (its selection shows a search's match).
fn raw_id(tab: u64) -> egui::Id {
    egui::Id::unique(("raw-response", tab))
}

impl ResultsPanel {
    /// The search field of the tree and raw views: the tree keeps the branches that match; the
    /// raw text selects a match at a time (Enter or Next match for the next).
    fn search_ui(&mut self, ui: &mut egui::Ui, tab: &Tab) {
        let Some(result) = tab.result.value() else { return };
        let mut next = false;
        ui.horizontal(|ui| {
            let label = ui.label("Search the response");
            let response = ui.add(
                egui::TextEdit::singleline(&mut self.search.typed)
                    .id_salt(("result-search", tab.id))
                    .hint_text("a key or a value")
                    .desired_width(220.0),
            );
            let response = response.labelled_by(label.id);
            if response.changed() {
                self.search.current = None;
            }
            if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                next = true;
                response.request_focus();
            }
            let needle = self.search.typed.trim();
            if needle.is_empty() || tab.view != View::Raw {
                return;
            }
            let matches = crate::query::lang::typing::find_all(result.raw(), needle);
            if matches.is_empty() {
                ui.weak("No match");
                return;
            }
            next |= ui.button("Next match").clicked();
            if next {
                let current = self.search.current.map_or(0, |i| (i + 1) % matches.len());
                self.search.current = Some(current);
                let range = &matches[current];
                let (from, to) =
                    (result.raw()[..range.start].chars().count(), result.raw()[..range.end].chars().count());
                let id = raw_id(tab.id);
                let mut state = egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
                state.cursor.set_char_range(Some(egui::text::CCursorRange::two(
                    egui::text::CCursor::new(from),
                    egui::text::CCursor::new(to),
                )));
                state.store(ui.ctx(), id);
            }
            match self.search.current.filter(|i| *i < matches.len()) {
                Some(i) => ui.label(format!("{} of {}", i + 1, matches.len())),
                None => ui.label(format!("{} matches", matches.len())),
            };
        });
    }
}

impl Search {
    /// The branches of `data` holding a match of what is typed (`None`: no search), worked out
    /// once for a text and a response.
    fn branches_of(&mut self, data: &Value) -> Option<&HashSet<String>> {
        let needle = normalize(&self.typed);
        if needle.is_empty() {
            return None;
        }
        let identity = (data as *const Value as usize, json_tree::size(data));
        let fresh = self.branches.as_ref().is_some_and(|(t, a, n, _)| *t == needle && (*a, *n) == identity);
        if !fresh {
            let mut set = HashSet::new();
            json_tree::mark_matches(data, "", &needle, &mut set);
            self.branches = Some((needle, identity.0, identity.1, set));
        }
        self.branches.as_ref().map(|(_, _, _, set)| set)
    }
}

/// The quick filter's field above the grid, and how many rows it keeps.
fn filter_ui(ui: &mut egui::Ui, filter: &mut QuickFilter, tab: u64, grid: &crate::ui::queries::tab::Grid) {
    if filter.tab != tab {
        *filter = QuickFilter { tab, ..QuickFilter::default() };
    }
    ui.horizontal(|ui| {
        let label = ui.label("Filter rows");
        ui.add(
            egui::TextEdit::singleline(&mut filter.typed)
                .id_salt(("grid-filter", tab))
                .hint_text("text in any cell")
                .desired_width(220.0),
        )
        .labelled_by(label.id);
        filter.update(tab, &grid.rows, &grid.order, grid.sort);
        if let Some(kept) = &filter.kept {
            crate::ui::widgets::a11y::polite(
                ui,
                format!("{} of {} rows", thousands(kept.len() as u64), thousands(grid.order.len() as u64)),
            );
        }
    });
}
