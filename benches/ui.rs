//! CPU time of the desktop app's hot paths, headless (no window, no GPU): egui's
//! `Context::run_ui` lays out and paints into shapes, `Context::tessellate` turns them into
//! triangles, as eframe does every frame before handing them to the GPU.
//!
//! `cargo bench --bench ui` reports:
//! - `grid_100k/scroll_frame`: one frame of the results panel (`ResultsPanel::ui`) holding
//!   100,000 rows × 12 columns while it scrolls (a mouse-wheel event every frame), shapes
//!   tessellated; `grid_100k/scroll_frame_ui_only` is the same without tessellation
//!   (aim: one frame below 2 ms);
//! - `highlight_2000_lines/one_char_edit`: `Highlighter::spans` after a one-character edit in the
//!   middle of a 2,000-line document (aim below 5 ms), and `full` the same document highlighted
//!   from scratch (what an edit would cost without the per-line cache);
//! - `editor_2000_lines/one_char_edit_frame`: one frame of the query editor (`QueryEditor::ui`)
//!   after such an edit: highlighting, layout job, egui's layout (cached per line), the text edit
//!   and tessellation; `unchanged_frame` the same without an edit;
//! - `inspector_100k/scroll_frame`: one frame of the webhook inspector (`WebhooksPanel::draw`)
//!   listing 100,000 deliveries while it scrolls, tessellated; `burst_1000_frame` a frame that
//!   first takes 1,000 new arrivals (a burst) into the list, as the app does when they come;
//! - `explorer_1500_types/first_frame`: the explorer's first frame on a schema of 1,500 types and
//!   10,000 fields (the root's fields listed, the ticks read from the editor's query);
//!   `tick_round_trip`: a click on a checkbox three levels deep until the next frame shows it
//!   ticked (the edit of the document, the ticks read again, the tree laid out).
//!
//! - `grid_filter_100k/index`: the grid's quick filter making its lowercased copy of 100,000
//!   rows × 12 columns (once, at the first keystroke); `keystroke_scan` one keystroke that
//!   scans every row (`user.1`); `keystroke_narrow` one that narrows what the last one kept
//!   (`user.1` → `user.12`); `keystroke_frame` a whole frame of the results panel in which the filter's text
//!   changed (the scan, the "n of m rows" and the grid of the rows kept, tessellated). Aim: a
//!   keystroke below 16 ms.
//!
//! - `inspector_100k/timeline_frame`: a frame of the webhook inspector whose 100,000 deliveries
//!   came in an hour: the timeline (60 bins of six event types, failures marked) above the list,
//!   tessellated (aim below 4 ms);
//! - `chart_100k/count_by_column`, `count_by_list_column` (each of a `;` list's values) and
//!   `count_by_date_per_week`: counting 100,000 rows as the worker does for the Chart view (aim
//!   below 50 ms); `timeline_build`: the timeline's bins of 100,000 deliveries made from scratch;
//!   `chart_view_frame`: a frame of the results panel showing the Chart view of 100,000 rows
//!   (bars, the text table, tessellated; aim below 4 ms).
//!
//! The system fonts are installed as in the app, so the Chinese, Arabic and emoji names of the
//! grid are drawn with real fonts when the machine has them.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{Event, Modifiers, MouseWheelSource, MouseWheelUnit, Pos2, RawInput, Rect, TouchPhase, vec2};
use egui_system_font_provider::SystemFontProvider;
use orgql::chart::timeline::{Step, Timeline};
use orgql::chart::{self, ChartSpec, Measure, Period};
use orgql::explorer::SchemaModel;
use orgql::explorer::synthetic::schema_sdl;
use orgql::query::lang::highlight::Highlighter;
use orgql::store::DeliverySummary;
use orgql::table::{RowIndex, normalize};
use orgql::ui::{CardBench, ExplorerIntent, ExplorerPanel, SchemaState};
use orgql::ui::{
    Grid, ListenerForm, QueryEditor, ResultsIntent, ResultsPanel, SAMPLE_QUERY, Tab, View, WebhooksPanel,
    synthetic_rows,
};
use orgql::worker::{ChartCommand, ChartEvent, JobIds, LoadedSchema};

const SCREEN: Rect = Rect::from_min_max(Pos2::ZERO, Pos2::new(1280.0, 800.0));
/// Where the wheel turns: over the grid's rows.
const OVER_THE_GRID: Pos2 = Pos2::new(400.0, 400.0);
/// Frames scrolled in one direction before turning back (never resting at an end).
const FRAMES_EACH_WAY: u64 = 2_000;

/// A headless egui with the app's fonts, fed frame after frame.
struct Headless {
    ctx: egui::Context,
    frame: u64,
}

impl Headless {
    fn new() -> Self {
        let ctx = egui::Context::default();
        ctx.add_font_provider(Arc::new(SystemFontProvider::new()));
        Headless { ctx, frame: 0 }
    }

    /// One frame: `ui` inside a central panel, with `events`; returns the shapes (tessellated
    /// when asked) and the texts drawn.
    fn frame(&mut self, events: Vec<Event>, tessellate: bool, mut ui: impl FnMut(&mut egui::Ui)) -> Vec<String> {
        self.frame += 1;
        let input = RawInput {
            screen_rect: Some(SCREEN),
            time: Some(self.frame as f64 / 60.0),
            predicted_dt: 1.0 / 60.0,
            events,
            ..RawInput::default()
        };
        let mut output = self.ctx.run_ui(input, |root| {
            egui::CentralPanel::default().show(root, |inner| ui(inner));
        });
        output.textures_delta.clear();
        let shapes = std::mem::take(&mut output.shapes);
        if tessellate {
            let primitives = self.ctx.tessellate(shapes, output.pixels_per_point);
            std::hint::black_box(primitives);
            Vec::new()
        } else {
            let texts = shapes.iter().flat_map(|s| texts(&s.shape)).collect();
            std::hint::black_box(shapes);
            texts
        }
    }
}

impl Headless {
    /// The next frame of a scroll: frame `n` (counted on) with its wheel event.
    fn scroll_frame(&mut self, n: &mut u64, tessellate: bool, ui: impl FnMut(&mut egui::Ui)) -> Vec<String> {
        *n += 1;
        self.frame(vec![wheel(*n)], tessellate, ui)
    }
}

/// The texts of a shape.
fn texts(shape: &egui::Shape) -> Vec<String> {
    match shape {
        egui::Shape::Text(text) => vec![text.galley.text().to_owned()],
        egui::Shape::Vec(shapes) => shapes.iter().flat_map(texts).collect(),
        _ => Vec::new(),
    }
}

/// The wheel event of frame `n`: 3 rows a frame, down then up.
fn wheel(n: u64) -> Event {
    let down = (n / FRAMES_EACH_WAY).is_multiple_of(2);
    Event::MouseWheel {
        unit: MouseWheelUnit::Point,
        delta: vec2(0.0, if down { -60.0 } else { 60.0 }),
        phase: TouchPhase::Move,
        source: MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    }
}

/// The first user ref (`u000123`) among the texts drawn.
fn first_ref(texts: &[String]) -> Option<u32> {
    texts.iter().filter_map(|t| t.strip_prefix('u').and_then(|n| n.parse().ok())).min()
}

fn grid(c: &mut Criterion) {
    let mut tab = Tab::new(1, "Users", SAMPLE_QUERY);
    tab.grid = Some(Grid::from_rows(synthetic_rows(100_000), 1));
    let mut panel = ResultsPanel::default();
    let mut headless = Headless::new();
    // Point at the grid, lay everything out once, and check that the wheel does scroll the rows.
    headless.frame(vec![Event::PointerMoved(OVER_THE_GRID)], false, |ui| {
        panel.ui(ui, &mut tab, "Sandbox");
    });
    let before = first_ref(&headless.frame(Vec::new(), false, |ui| {
        panel.ui(ui, &mut tab, "Sandbox");
    }));
    let mut after = None;
    for n in 0..30 {
        after = first_ref(&headless.frame(vec![wheel(n)], false, |ui| {
            panel.ui(ui, &mut tab, "Sandbox");
        }));
    }
    assert!(before.is_some() && after > before, "the wheel scrolls the grid: first row {before:?} → {after:?}");

    let mut group = c.benchmark_group("grid_100k");
    group.measurement_time(Duration::from_secs(10));
    let mut n = 0;
    group.bench_function("scroll_frame", |b| {
        b.iter(|| {
            headless.scroll_frame(&mut n, true, |ui| {
                panel.ui(ui, &mut tab, "Sandbox");
            })
        })
    });
    group.bench_function("scroll_frame_ui_only", |b| {
        b.iter(|| {
            headless.scroll_frame(&mut n, false, |ui| {
                panel.ui(ui, &mut tab, "Sandbox");
            })
        })
    });
    group.finish();
}

/// A 2,000-line document: queries with arguments, variables, strings, comments and fragments.
fn document() -> String {
    let block = "# Users of a group, with their trainings.
query UsersOfGroup($group: ID!, $after: String) {
  paginatedUsers(first: 50, after: $after, groupId: $group, isActive: true) {
    count
    pageInfo { hasNextPage endCursor }
    edges {
      node {
        ref
        name
        email
        groups { name }
        ...TrainingFields
      }
    }
  }
}
fragment TrainingFields on User {
  trainings(status: \"COMPLETED\") { title completedAt }
}
";
    let text: String = block.lines().cycle().take(2000).map(|l| format!("{l}\n")).collect();
    assert_eq!(text.lines().count(), 2000);
    text
}

/// The byte offset of the middle of a field name near line 1,000.
fn middle(text: &str) -> usize {
    let line_start: usize = text.lines().take(1000).map(|l| l.len() + 1).sum();
    line_start + text[line_start..].find("name").expect("a field") + 2
}

/// Inserts `x` at `at`, or takes it out again: a one-character edit each call.
fn edit(text: &mut String, at: usize, n: u64) {
    if n.is_multiple_of(2) {
        text.insert(at, 'x');
    } else {
        text.remove(at);
    }
}

fn highlight(c: &mut Criterion) {
    let mut text = document();
    let at = middle(&text);
    let mut group = c.benchmark_group("highlight_2000_lines");
    let mut highlighter = Highlighter::new(true).expect("syntax");
    highlighter.spans(&text);
    let mut n = 0;
    group.bench_function("one_char_edit", |b| {
        b.iter(|| {
            edit(&mut text, at, n);
            n += 1;
            highlighter.spans(&text)
        })
    });
    // Checked only when the benchmark ran (a name filter may skip it).
    if n > 0 {
        assert!(highlighter.reparsed() <= 2, "an edit reparses its line, not {}", highlighter.reparsed());
    }
    group.sample_size(10);
    group.bench_function("full", |b| b.iter(|| Highlighter::new(true).expect("syntax").spans(&text)));
    group.finish();
}

fn editor(c: &mut Criterion) {
    let mut tab = Tab::new(1, "Long", document());
    let at = middle(&tab.query);
    let mut editor = QueryEditor::default();
    let mut headless = Headless::new();
    for _ in 0..3 {
        headless.frame(Vec::new(), true, |ui| {
            editor.ui(ui, &mut tab, None, &mut false);
        });
    }
    let mut group = c.benchmark_group("editor_2000_lines");
    let mut n = 0;
    group.bench_function("one_char_edit_frame", |b| {
        b.iter(|| {
            edit(&mut tab.query, at, n);
            n += 1;
            headless.frame(Vec::new(), true, |ui| {
                editor.ui(ui, &mut tab, None, &mut false);
            })
        })
    });
    group.bench_function("unchanged_frame", |b| {
        b.iter(|| {
            headless.frame(Vec::new(), true, |ui| {
                editor.ui(ui, &mut tab, None, &mut false);
            })
        })
    });
    group.finish();
}

/// Delivery `id` as the listener would summarise it: 100,000 of them arrive in an hour.
fn delivery(id: i64) -> DeliverySummary {
    const TYPES: [&str; 6] =
        ["user.created", "user.updated", "enrollment.changed", "training.completed", "group.changed", "user.archived"];
    let start = chrono::DateTime::from_timestamp(1_772_442_000, 0).expect("a time");
    DeliverySummary {
        id,
        received_at: start + chrono::Duration::milliseconds((id - 1) * 36),
        method: "POST".to_owned(),
        path: "/sandbox".to_owned(),
        event_type: Some(TYPES[id as usize % TYPES.len()].to_owned()),
        verified: Some(id % 17 != 0),
        reason: if id % 17 == 0 { "the signature does not match".to_owned() } else { String::new() },
        size: 300 + (id as u64 % 200),
    }
}

fn inspector(c: &mut Criterion) {
    let mut panel = WebhooksPanel::new(ListenerForm::new(9000, None), std::path::Path::new("/tmp"));
    panel.deliveries((1..=100_000).map(delivery).collect(), Some(100_000));
    let mut headless = Headless::new();
    headless.frame(vec![Event::PointerMoved(Pos2::new(200.0, 500.0))], false, |ui| {
        panel.draw(ui);
    });
    let mut group = c.benchmark_group("inspector_100k");
    group.measurement_time(Duration::from_secs(10));
    let mut n = 0;
    group.bench_function("scroll_frame", |b| {
        b.iter(|| {
            headless.scroll_frame(&mut n, true, |ui| {
                panel.draw(ui);
            })
        })
    });
    group.bench_function("timeline_frame", |b| {
        b.iter(|| {
            headless.frame(Vec::new(), true, |ui| {
                panel.draw(ui);
            })
        })
    });
    assert_eq!(panel.timeline.timeline().bins.len(), 60, "an hour of deliveries, a bin a minute");
    let mut next = 100_001;
    group.bench_function("burst_1000_frame", |b| {
        b.iter(|| {
            let burst: Vec<DeliverySummary> = (next..next + 1000).map(delivery).collect();
            next += 1000;
            panel.deliveries(burst, None);
            headless.frame(Vec::new(), true, |ui| {
                panel.draw(ui);
            })
        })
    });
    group.finish();
    assert_eq!(panel.list.rows().len() as i64, next - 1, "every arrival is listed");
}

/// The schema state of `model`, loaded.
fn schema_of(model: &std::sync::Arc<SchemaModel>) -> SchemaState {
    let loaded = LoadedSchema {
        model: model.clone(),
        fetched_at: chrono::Utc::now(),
        cached: true,
        skipped: None,
        version_changed: false,
    };
    SchemaState::Done(loaded)
}

fn explorer(c: &mut Criterion) {
    let model = std::sync::Arc::new(SchemaModel::from_sdl(&schema_sdl(1_500, 10_000)).expect("a schema"));
    let root = model.query_type().expect("a query root").to_owned();
    // A path three levels deep: a root field, an object field of its type, a leaf of that.
    let first = model.fields(&root).into_iter().find(|f| !f.is_leaf()).expect("an object field");
    let second = model.fields(first.named_type).into_iter().find(|f| !f.is_leaf()).expect("a nested object");
    let leaf = model.fields(second.named_type).into_iter().find(|f| f.is_leaf()).expect("a leaf").name.to_owned();
    let path = [first.name.to_owned(), second.name.to_owned(), leaf];
    let schema = schema_of(&model);
    let mut headless = Headless::new();
    let mut group = c.benchmark_group("explorer_1500_types");
    group.bench_function("first_frame", |b| {
        b.iter(|| {
            let mut panel = ExplorerPanel::default();
            headless.frame(Vec::new(), true, |ui| {
                panel.ui(ui, "", &schema, "Synthetic");
            })
        })
    });
    let mut text = String::new();
    let mut panel = ExplorerPanel::default();
    let mut n = 0u64;
    group.bench_function("tick_round_trip", |b| {
        b.iter(|| {
            n += 1;
            let edit = panel.toggle(&model, &mut text, &path, n % 2 == 1);
            headless.frame(Vec::new(), true, |ui| {
                if let Some(ExplorerIntent::Edit(edit)) = panel.ui(ui, &text, &schema, "Synthetic") {
                    edit.apply_in_place(&mut text);
                }
            });
            edit
        })
    });
    group.finish();
}

fn grid_filter(c: &mut Criterion) {
    let rows = synthetic_rows(100_000);
    let order: Vec<usize> = (0..rows.rows.len()).collect();
    let mut group = c.benchmark_group("grid_filter_100k");
    group.bench_function("index", |b| b.iter(|| RowIndex::new(std::hint::black_box(&rows.rows))));
    let index = RowIndex::new(&rows.rows);
    // Typing an e-mail address: `user.1` keeps about one row in nine, `user.12` one in ninety.
    let kept_first = index.filter(&normalize("user.1"), &order);
    let kept_second = index.filter(&normalize("user.12"), &kept_first);
    assert!(!kept_second.is_empty() && kept_second.len() < kept_first.len() && kept_first.len() < order.len());
    group.bench_function("keystroke_scan", |b| {
        b.iter(|| index.filter(&normalize("user.1"), std::hint::black_box(&order)))
    });
    group.bench_function("keystroke_narrow", |b| {
        b.iter(|| index.filter(&normalize("user.12"), std::hint::black_box(&kept_first)))
    });
    // A whole frame in which the filter's text changed: `user.1` and `user.2` in turn, each a
    // scan of every row (neither narrows the other).
    let mut tab = Tab::new(1, "Users", SAMPLE_QUERY);
    tab.grid = Some(Grid::from_rows(rows, 1));
    let mut panel = ResultsPanel::default();
    let mut headless = Headless::new();
    for typed in ["", "user.1"] {
        panel.set_quick_filter(typed);
        headless.frame(Vec::new(), true, |ui| {
            panel.ui(ui, &mut tab, "Sandbox");
        });
    }
    assert_eq!(panel.rows_kept(), Some(kept_first.len()), "the panel filters as the index does");
    let mut n = 0u64;
    group.bench_function("keystroke_frame", |b| {
        b.iter(|| {
            n += 1;
            panel.set_quick_filter(if n.is_multiple_of(2) { "user.1" } else { "user.2" });
            headless.frame(Vec::new(), true, |ui| {
                panel.ui(ui, &mut tab, "Sandbox");
            })
        })
    });
    group.finish();
}

/// Issue 21: the card of a learner with 500 enrollments, the frame after the first page's
/// answer (50 rows applied and drawn, tessellated as eframe does), and after "Show all 500".
fn card(c: &mut Criterion) {
    let mut group = c.benchmark_group("card");
    for (name, shown) in [("first_page_of_500", 50), ("all_500", 500)] {
        let mut headless = Headless::new();
        let mut bench = CardBench::new(shown, 500);
        // Fonts and the layout's caches warm, as in a running app.
        for _ in 0..3 {
            headless.frame(Vec::new(), true, |ui| bench.ui(ui));
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                bench.answer();
                headless.frame(Vec::new(), true, |ui| bench.ui(ui));
            })
        });
    }
    group.finish();
}

/// Counting 100,000 rows by a column (what the worker does for the Chart view), building the
/// timeline of 100,000 deliveries, and a frame of the Chart view holding 100,000 rows.
fn chart(c: &mut Criterion) {
    let generated = synthetic_rows(100_000);
    let columns = generated.columns.clone();
    let rows = Arc::new(generated.rows);
    let at = |name: &str| columns.iter().position(|c| c == name).expect("a column");
    let mut group = c.benchmark_group("chart_100k");
    group.measurement_time(Duration::from_secs(10));
    for (bench, by, period) in [
        ("count_by_column", "language", Period::Day),
        ("count_by_list_column", "groups.name", Period::Day),
        ("count_by_date_per_week", "createdAt", Period::Week),
    ] {
        let spec = ChartSpec { by: at(by), measure: Measure::Count, period, by_list: by == "groups.name" };
        let tally = chart::tally(&rows, &columns, spec).expect("counted");
        assert!(tally.groups.len() > 1, "{bench}: {} groups", tally.groups.len());
        group.bench_function(bench, |b| b.iter(|| chart::tally(&rows, &columns, spec).expect("counted")));
    }
    let deliveries: Vec<DeliverySummary> = (1..=100_000).map(delivery).collect();
    group.bench_function("timeline_build", |b| {
        b.iter(|| {
            let mut timeline = Timeline::new(Step::Minute);
            timeline.extend(&deliveries);
            timeline
        })
    });

    // The Chart view: its first frame asks for the count, which the worker's work answers.
    let mut tab = Tab::new(1, "Users", SAMPLE_QUERY);
    tab.grid = Some(Grid::from_rows(synthetic_rows(100_000), 1));
    tab.view = View::Chart;
    let mut panel = ResultsPanel::default();
    let mut headless = Headless::new();
    let mut asked = None;
    headless.frame(vec![Event::PointerMoved(Pos2::new(300.0, 500.0))], false, |ui| {
        asked = panel.ui(ui, &mut tab, "Sandbox");
    });
    let Some(ResultsIntent::Chart(ask)) = asked else { panic!("the chart asks for a count") };
    let job = JobIds::default().allocate();
    let ChartCommand::Tally { rows, columns, spec, .. } = panel.chart.asked(job, ask) else { panic!("a count") };
    let tally = chart::tally(&rows, &columns, spec).map(Arc::new).map_err(|e| e.to_string());
    panel.chart.on_event(ChartEvent::Tallied { job, result: tally });
    let texts = headless.frame(Vec::new(), false, |ui| {
        panel.ui(ui, &mut tab, "Sandbox");
    });
    assert!(texts.iter().any(|t| t.starts_with("Count by")), "the chart is drawn: {texts:?}");
    group.bench_function("chart_view_frame", |b| {
        b.iter(|| {
            headless.frame(Vec::new(), true, |ui| {
                panel.ui(ui, &mut tab, "Sandbox");
            })
        })
    });
    group.finish();
}

criterion_group!(ui, grid, highlight, editor, inspector, explorer, grid_filter, card, chart);
criterion_main!(ui);
