//! Results → Chart (issue 32): the grid's rows counted by a column ("Count by"), or a numeric
//! column summed or averaged by it, as bars (egui_plot) and as a text table beside them (value,
//! count, share: what a screen reader reads and Copy puts on the clipboard as TSV). Hovering a
//! bar gives its exact value; a click on it filters the grid to its rows. The counting is the
//! worker's ([`crate::worker::ChartCommand`]): the panel asks, shows the last answer meanwhile,
//! and asks again when the rows (a fetch of every page) or the choice change, one ask at a time.
//! Save PNG crops the window's next frame to the plot; Save SVG writes the bars as a document;
//! both files are written by the worker.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use egui_extras::{Column, TableBuilder};
use egui_plot::{Bar, BarChart, PlotTransform};

use crate::chart::{ChartSpec, ColumnKind, EMPTY, Measure, Period, Tally, number, percent};
use crate::table::Row;
use crate::ui::queries::tab::Tab;
use crate::ui::widgets::file_dialog;
use crate::ui::widgets::plot::{choice, still_plot};
use crate::ui::widgets::requested::Requested;
use crate::worker::{ChartCommand, ChartEvent, ChartImage, JobId};

/// The most bars drawn (the largest groups); the table lists every group.
pub const MAX_BARS: usize = 60;
const ROW_HEIGHT: f32 = 20.0;
const BAR_WIDTH: f64 = 0.7;

/// What the chart measures, as chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum MeasureChoice {
    #[default]
    Count,
    Sum,
    Average,
}

impl MeasureChoice {
    const ALL: [MeasureChoice; 3] = [MeasureChoice::Count, MeasureChoice::Sum, MeasureChoice::Average];

    fn label(self) -> &'static str {
        match self {
            MeasureChoice::Count => "Count",
            MeasureChoice::Sum => "Sum",
            MeasureChoice::Average => "Average",
        }
    }
}

/// What a tally counted: the tab, its rows (by address and length) and the spec.
type Counted = (u64, usize, usize, ChartSpec);

/// What the chart asks of the worker (the results panel hands it on with a job).
#[derive(Debug, Clone)]
pub enum ChartAsk {
    /// Count rows.
    Tally { rows: Arc<Vec<Row>>, columns: Vec<String>, spec: ChartSpec },
    /// Write a chart to a file.
    Save { path: PathBuf, image: ChartImage },
}

/// What the chart asks of the results panel.
#[derive(Debug, Clone)]
pub enum ChartIntent {
    /// Ask the worker.
    Ask(ChartAsk),
    /// Show only these rows in the grid (a bar clicked); `label` says which.
    ShowRows { label: String, rows: Vec<u32> },
    /// Copy text to the clipboard.
    Copy(String),
}

/// How long Save PNG waits for the window's picture before it says it did not come.
const SHOT_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A screenshot cropped to the plot, on its way to a file.
type Shot = Arc<Mutex<Option<(PathBuf, egui::ColorImage)>>>;

/// The Chart view of a tab's rows.
#[derive(Default)]
pub struct ChartPanel {
    /// The tab it shows.
    tab: u64,
    /// The column counted by, the measure and its column, by name (kept across runs).
    by: Option<String>,
    measure: MeasureChoice,
    of: Option<String>,
    period: Period,
    tally: Requested<Arc<Tally>, String>,
    /// What the tally shown, or the one asked, counts.
    counted: Option<Counted>,
    /// The count under way.
    job: Option<JobId>,
    save_path: String,
    picked: file_dialog::Picked,
    saving: Requested<PathBuf, String>,
    save_job: Option<JobId>,
    shot: Shot,
    /// When the window's picture for Save PNG was asked for (it comes with a later frame).
    shot_asked: Option<std::time::Instant>,
    /// The chart's rectangle on screen (title, axes and bars: what Save PNG keeps) and the
    /// plot's transform in the last frame.
    plot: Option<(egui::Rect, PlotTransform)>,
}

impl ChartPanel {
    /// The tally shown (for tests and benchmarks).
    pub fn tally(&self) -> Option<&Tally> {
        self.tally.value().map(|t| &**t)
    }

    /// Whether a count or a save is under way.
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.save_job.is_some()
    }

    /// Where on screen the middle of bar `index` was drawn in the last frame, for a pointer to
    /// hover or click (tests).
    pub fn bar_position(&self, index: usize) -> Option<egui::Pos2> {
        let (_, transform) = self.plot.as_ref()?;
        let amount = self.tally()?.groups.get(index)?.amount;
        Some(transform.position_from_point(&egui_plot::PlotPoint::new(index as f64, amount / 2.0)))
    }

    /// The worker's command for `ask`, which goes out as job `job`.
    pub fn asked(&mut self, job: JobId, ask: ChartAsk) -> ChartCommand {
        match ask {
            ChartAsk::Tally { rows, columns, spec } => {
                self.job = Some(job);
                ChartCommand::Tally { job, rows, columns, spec }
            }
            ChartAsk::Save { path, image } => {
                self.save_job = Some(job);
                self.saving.start();
                ChartCommand::Save { job, path, image }
            }
        }
    }

    /// Takes what the worker says of charts.
    pub fn on_event(&mut self, event: ChartEvent) {
        match event {
            ChartEvent::Tallied { job, result } if self.job == Some(job) => {
                self.job = None;
                self.tally.finish(result);
            }
            ChartEvent::Saved { job, result } if self.save_job == Some(job) => {
                self.save_job = None;
                self.saving.finish(result);
            }
            _ => {}
        }
    }

    /// Draws the chart of `tab`'s rows.
    pub fn ui(&mut self, ui: &mut egui::Ui, tab: &Tab) -> Option<ChartIntent> {
        if self.tab != tab.id {
            *self = ChartPanel { tab: tab.id, save_path: std::mem::take(&mut self.save_path), ..Default::default() };
        }
        let Some(grid) = tab.grid.as_ref().filter(|g| !g.columns.is_empty()) else {
            ui.weak("Run a query whose result has rows to chart them here.");
            return None;
        };
        let mut intent = None;
        if let Some(path) = file_dialog::take(&self.picked) {
            self.save_path = path.display().to_string();
        }
        if let Some((path, image)) = self.shot.lock().unwrap_or_else(PoisonError::into_inner).take() {
            self.shot_asked = None;
            let rgba = Arc::new(image.as_raw().to_vec());
            intent = Some(ChartIntent::Ask(ChartAsk::Save { path, image: ChartImage::Png { size: image.size, rgba } }));
        } else if let Some(asked) = self.shot_asked {
            // A renderer that never answers must not leave the spinner turning for ever.
            if asked.elapsed() > SHOT_WAIT {
                self.shot_asked = None;
                let why = "The window did not give its picture for the PNG; save again, or use Save SVG.";
                self.saving.finish(Err(why.to_owned()));
            } else {
                ui.ctx().request_repaint_after(SHOT_WAIT);
            }
        }
        let mut spec = self.choice_ui(ui, &grid.columns, &grid.rows);
        spec.by_list = grid.holds_list(spec.by);
        let counted = (tab.id, Arc::as_ptr(&grid.rows) as usize, grid.rows.len(), spec);
        if self.counted != Some(counted) && self.job.is_none() && intent.is_none() {
            self.counted = Some(counted);
            self.tally.start();
            let (rows, columns) = (grid.rows.clone(), grid.columns.clone());
            intent = Some(ChartIntent::Ask(ChartAsk::Tally { rows, columns, spec }));
        }
        let more = tab.has_next_page() || tab.fetch_all.as_ref().is_some_and(|f| f.outcome.is_pending());
        if more {
            let of =
                grid.total.map(|t| format!(" of {}", crate::ui::widgets::numbers::thousands(t))).unwrap_or_default();
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "These bars count the {} rows fetched{of}; Fetch all pages to count every row.",
                    crate::ui::widgets::numbers::thousands(grid.rows.len() as u64)
                ),
            );
        }
        if let Some(error) = self.tally.error() {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let Some(tally) = self.tally.value().cloned() else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Counting…");
            });
            return intent;
        };
        if tally.not_numbers > 0 {
            ui.weak(format!(
                "{} rows whose {} is not a number are counted but not in the {}.",
                crate::ui::widgets::numbers::thousands(tally.not_numbers as u64),
                tally.measure_name.as_deref().unwrap_or_default(),
                tally.amount_name()
            ));
        }
        if let Some(asked) = self.save_ui(ui, &tally) {
            intent = Some(asked);
        }
        egui::Panel::right(egui::Id::unique(("chart-table", tab.id)))
            .resizable(true)
            .default_size(360.0)
            .min_size(220.0)
            .show(ui, |ui| {
                if let Some(copy) = table_ui(ui, &tally) {
                    intent = Some(copy);
                }
            });
        egui::CentralPanel::default().show(ui, |ui| {
            if let Some(clicked) = self.plot_ui(ui, &tally) {
                intent = Some(clicked);
            }
        });
        intent
    }

    /// The choices above the chart; returns the spec they make.
    fn choice_ui(&mut self, ui: &mut egui::Ui, columns: &[String], rows: &[Row]) -> ChartSpec {
        if self.by.as_ref().is_none_or(|by| !columns.contains(by)) {
            self.by = Some(columns[default_column(rows, columns.len())].clone());
        }
        let date = self.tally.value().is_some_and(|t| t.kind == ColumnKind::Date);
        ui.horizontal_wrapped(|ui| {
            column_choice(ui, "Count by", columns, &mut self.by);
            let measures = MeasureChoice::ALL.map(|m| (m, m.label()));
            choice(ui, "Measure", "chart-measure", &mut self.measure, &measures);
            if self.measure != MeasureChoice::Count {
                if self.of.as_ref().is_none_or(|of| !columns.contains(of)) {
                    let numeric =
                        (0..columns.len()).find(|c| crate::chart::column_kind(rows, *c) == ColumnKind::Number);
                    self.of = Some(columns[numeric.unwrap_or(0)].clone());
                }
                column_choice(ui, "of", columns, &mut self.of);
            }
            if date {
                choice(ui, "Period", "chart-period", &mut self.period, &Period::ALL.map(|p| (p, p.label())));
            }
        });
        let index = |name: &Option<String>| name.as_ref().and_then(|n| columns.iter().position(|c| c == n));
        let by = index(&self.by).unwrap_or(0);
        let of = index(&self.of).unwrap_or(0);
        let measure = match self.measure {
            MeasureChoice::Count => Measure::Count,
            MeasureChoice::Sum => Measure::Sum(of),
            MeasureChoice::Average => Measure::Average(of),
        };
        ChartSpec { by, measure, period: self.period, by_list: false }
    }

    /// The file to save to, Browse…, Save PNG and Save SVG, and how the last save went.
    fn save_ui(&mut self, ui: &mut egui::Ui, tally: &Tally) -> Option<ChartIntent> {
        let mut intent = None;
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Save as");
            ui.add(
                egui::TextEdit::singleline(&mut self.save_path)
                    .hint_text("a file; Save PNG or Save SVG sets its extension")
                    .desired_width(280.0),
            )
            .labelled_by(label.id);
            if ui.button("Browse…").accessible_name("Browse for the chart's file").clicked() {
                let dialog = rfd::FileDialog::new().add_filter("Images", &["png", "svg"]).set_file_name("chart.png");
                file_dialog::spawn(ui.ctx(), &self.picked, move || dialog.save_file());
            }
            if let Some(why) = file_dialog::failure(&self.picked) {
                crate::ui::widgets::a11y::alert(ui, why);
            }
            let ready = !self.save_path.trim().is_empty() && self.save_job.is_none();
            let path = PathBuf::from(self.save_path.trim());
            if ui.add_enabled(ready, egui::Button::new("Save PNG")).on_hover_text("The chart as on screen").clicked() {
                let path = path.with_extension("png");
                match self.plot.as_ref().map(|(rect, _)| *rect) {
                    Some(rect) => {
                        let shot = self.shot.clone();
                        let ctx = ui.ctx().clone();
                        let ppp = ctx.pixels_per_point();
                        self.saving.start();
                        self.shot_asked = Some(std::time::Instant::now());
                        ui.ctx().request_screenshot(move |image| {
                            let cropped = image.region(&rect, Some(ppp));
                            *shot.lock().unwrap_or_else(PoisonError::into_inner) = Some((path, cropped));
                            ctx.request_repaint();
                        });
                    }
                    None => self.saving.finish(Err("The chart is not on screen yet; save again.".to_owned())),
                }
            }
            if ui
                .add_enabled(ready, egui::Button::new("Save SVG"))
                .on_hover_text("The bars as a vector drawing")
                .clicked()
            {
                let image = ChartImage::Svg(crate::chart::svg::document(tally, MAX_BARS));
                intent = Some(ChartIntent::Ask(ChartAsk::Save { path: path.with_extension("svg"), image }));
            }
            match &self.saving {
                Requested::Pending { .. } => {
                    ui.spinner();
                }
                Requested::Done(path) => {
                    ui.label(format!("Saved to {}", path.display()));
                }
                Requested::Failed { error, .. } => {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                Requested::Idle => {}
            }
        });
        intent
    }

    /// The bars; a click on one asks for its rows in the grid.
    fn plot_ui(&mut self, ui: &mut egui::Ui, tally: &Tally) -> Option<ChartIntent> {
        let groups = &tally.groups[..tally.groups.len().min(MAX_BARS)];
        if groups.is_empty() {
            ui.weak("No rows to count.");
            return None;
        }
        if tally.groups.len() > MAX_BARS {
            ui.weak(format!(
                "The {MAX_BARS} largest of {} values are drawn; the table lists every one.",
                crate::ui::widgets::numbers::thousands(tally.groups.len() as u64)
            ));
        }
        let title = tally.title();
        let top = ui.strong(&title).rect.min;
        let amount = tally.amount_name();
        let colour = egui::Color32::from_rgb(0x3b, 0x82, 0xc4);
        let bars: Vec<Bar> = groups
            .iter()
            .enumerate()
            .map(|(i, group)| Bar::new(i as f64, group.amount).name(&group.value).width(BAR_WIDTH).fill(colour))
            .collect();
        let shares: Vec<Option<f64>> = groups.iter().map(|g| g.share).collect();
        let chart = BarChart::new(title.clone(), bars).color(colour).element_formatter(Box::new(move |bar, _| {
            let share = shares.get(bar.argument as usize).copied().flatten();
            let share = share.map(|s| format!(" ({})", percent(s))).unwrap_or_default();
            format!("{}\n{}: {}{share}", bar.name, amount, number(bar.value))
        }));
        let names: Vec<String> = groups.iter().map(|g| short(&g.value)).collect();
        let count = names.len();
        // A name every 110 points or so: egui_plot leaves out labels closer than their width.
        let every = (count as f32 * 110.0 / ui.available_width().max(1.0)).ceil().max(1.0) as f64;
        let response = still_plot(("chart", self.tab))
            .show_grid([false, true])
            .y_axis_label(amount)
            .x_grid_spacer(move |input| {
                let (low, high) = input.bounds;
                (0..count)
                    .filter(|i| (*i as f64) % every == 0.0 && (*i as f64) >= low && (*i as f64) <= high)
                    .map(|i| egui_plot::GridMark { value: i as f64, step_size: every })
                    .collect()
            })
            .x_axis_formatter(move |mark, _| {
                let i = mark.value.round();
                if (mark.value - i).abs() < 1e-6 && i >= 0.0 {
                    names.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .label_formatter(|_| None)
            .show(ui, |plot| {
                plot.bar_chart(chart);
                plot.pointer_coordinate()
            });
        response.response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, &title));
        let chart_rect = egui::Rect::from_min_max(top, ui.min_rect().max);
        self.plot = Some((chart_rect, response.transform));
        if !response.response.clicked() {
            return None;
        }
        let point = response.inner?;
        let index = point.x.round();
        let hit = (point.x - index).abs() <= BAR_WIDTH / 2.0 + 0.05 && index >= 0.0;
        let group = groups.get(index as usize).filter(|_| hit)?;
        let value = if group.value == EMPTY { "empty".to_owned() } else { group.value.clone() };
        Some(ChartIntent::ShowRows { label: format!("{} is {value}", tally.by_name), rows: group.rows.clone() })
    }
}

/// A choice among the columns, with its label as its accessible name.
fn column_choice(ui: &mut egui::Ui, label: &str, columns: &[String], chosen: &mut Option<String>) {
    let label = ui.label(label);
    let shown = chosen.clone().unwrap_or_default();
    let options = columns.iter().map(|column| (Some(column.clone()), column.clone()));
    crate::ui::widgets::a11y::combo(ui, ("chart-column", label.id), label.id, shown, chosen, options);
}

/// The first column with at most 20 values among its first 200 cells (a status, a group), else
/// the first: counting by a unique column draws one bar a row.
fn default_column(rows: &[Row], columns: usize) -> usize {
    (0..columns)
        .find(|c| {
            let mut seen = std::collections::HashSet::new();
            rows.iter().take(200).filter_map(|r| r.cell(*c)).all(|cell| {
                seen.insert(cell);
                seen.len() <= 20
            }) && !rows.is_empty()
        })
        .unwrap_or(0)
}

/// A value shortened for the axis.
fn short(value: &str) -> String {
    if value.chars().count() > 16 { value.chars().take(15).chain(['…']).collect() } else { value.to_owned() }
}

/// The counts as text: value, count (sum or average), share; Copy puts them on the clipboard.
fn table_ui(ui: &mut egui::Ui, tally: &Tally) -> Option<ChartIntent> {
    let mut intent = None;
    ui.horizontal(|ui| {
        ui.strong(format!(
            "{} values in {} rows",
            crate::ui::widgets::numbers::thousands(tally.groups.len() as u64),
            crate::ui::widgets::numbers::thousands(tally.rows as u64)
        ));
        if ui.button("Copy").on_hover_text("The table as tab-separated values, for a spreadsheet").clicked() {
            intent = Some(ChartIntent::Copy(tally.tsv()));
        }
    });
    let measured = tally.spec.measure != Measure::Count;
    let mut table = TableBuilder::new(ui)
        .id_salt("chart-table")
        .striped(true)
        .resizable(true)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::initial(150.0).at_least(60.0).clip(true))
        .column(Column::initial(60.0).at_least(40.0));
    if measured {
        table = table.column(Column::initial(70.0).at_least(40.0));
    }
    table
        .column(Column::remainder().at_least(50.0))
        .header(ROW_HEIGHT + 2.0, |mut header| {
            let mut names = vec![tally.by_name.as_str(), "count"];
            if measured {
                names.push(tally.amount_name());
            }
            names.push("share");
            for name in names {
                header.col(|ui| {
                    ui.strong(name);
                });
            }
        })
        .body(|body| {
            body.rows(ROW_HEIGHT, tally.groups.len(), |mut row| {
                let Some(group) = tally.groups.get(row.index()) else { return };
                row.col(|ui| {
                    ui.add(egui::Label::new(&group.value).truncate());
                });
                row.col(|ui| {
                    ui.label(group.count.to_string());
                });
                if measured {
                    row.col(|ui| {
                        ui.label(number(group.amount));
                    });
                }
                row.col(|ui| {
                    ui.label(group.share.map(percent).unwrap_or_default());
                });
            });
        });
    intent
}
