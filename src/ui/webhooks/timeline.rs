//! Webhooks → Timeline (issue 32): the deliveries held, per minute or per hour, stacked by
//! event type, a red mark over each bin with failed signatures. Dragging across it keeps the
//! list (and its export) to that time range. The bins are built once and extended by arrivals
//! ([`crate::chart::timeline`]); a frame draws bins, never deliveries.

use chrono::{DateTime, Local, Utc};
use egui_plot::{Bar, BarChart, Legend, PlotPoint, PlotTransform, Points, Span};

use crate::ui::widgets::plot::{choice, still_plot};

use super::list::DeliveryList;
use crate::chart::timeline::{Step, Timeline};

/// Colours of the event types, in the order first seen (then again from the start).
const COLOURS: [egui::Color32; 8] = [
    egui::Color32::from_rgb(0x3b, 0x82, 0xc4),
    egui::Color32::from_rgb(0xe6, 0x9f, 0x00),
    egui::Color32::from_rgb(0x00, 0x9e, 0x73),
    egui::Color32::from_rgb(0xcc, 0x79, 0xa7),
    egui::Color32::from_rgb(0x56, 0xb4, 0xe9),
    egui::Color32::from_rgb(0xd5, 0x5e, 0x00),
    egui::Color32::from_rgb(0x7f, 0x7f, 0x7f),
    egui::Color32::from_rgb(0xf0, 0xe4, 0x42),
];
const FAILED: egui::Color32 = egui::Color32::from_rgb(0xd0, 0x21, 0x21);
const HEIGHT: f32 = 150.0;
/// The most bins drawn (the newest): a frame's cost stays the same however long the list.
const MOST_DRAWN: usize = 720;

/// The timeline above the deliveries.
#[derive(Default)]
pub struct TimelineView {
    /// The step chosen (none: one that fits what is held).
    chosen: Option<Step>,
    timeline: Timeline,
    /// What the bins were built from: how many deliveries, and the id of the last.
    built: (usize, i64),
    /// Where a drag started and where it is, in seconds.
    drag_from: Option<f64>,
    drag_to: Option<f64>,
    /// The plot's rectangle and transform in the last frame.
    plot: Option<(egui::Rect, PlotTransform)>,
}

impl TimelineView {
    /// The bins (for tests and benchmarks).
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Where on screen instant `at` is on the timeline's axis, halfway up (tests drag from one
    /// to another).
    pub fn position_of(&self, at: DateTime<Utc>) -> Option<egui::Pos2> {
        let (rect, transform) = self.plot.as_ref()?;
        let x = transform.position_from_point(&PlotPoint::new(at.timestamp() as f64, 0.0)).x;
        Some(egui::pos2(x, rect.center().y))
    }

    /// Brings the bins up to date with `list`: arrivals are added; a list replaced, cleared or
    /// a step changed builds them again.
    fn update(&mut self, list: &DeliveryList) {
        let rows = list.rows();
        let step = self.chosen.unwrap_or_else(|| {
            // Kept once chosen for what is held, so that a burst does not change the bins' width.
            if self.timeline.deliveries > 0 { self.timeline.step } else { Timeline::fitting_step(rows) }
        });
        let (held, last) = self.built;
        let extends = step == self.timeline.step
            && held <= rows.len()
            && (held == 0 && self.timeline.deliveries == 0
                || rows.get(held.wrapping_sub(1)).is_some_and(|d| d.id == last));
        if !extends {
            let step = self.chosen.unwrap_or_else(|| Timeline::fitting_step(rows));
            self.timeline = Timeline::new(step);
            self.timeline.extend(rows);
        } else if held < rows.len() {
            self.timeline.extend(&rows[held..]);
        }
        // Arrivals over more than six hours: hours fit better than minutes, unless asked.
        if self.chosen.is_none()
            && self.timeline.step == Step::Minute
            && self.timeline.bins.len() > Timeline::MOST_MINUTES
        {
            self.timeline = Timeline::new(Step::Hour);
            self.timeline.extend(rows);
        }
        self.built = (rows.len(), rows.last().map_or(0, |d| d.id));
    }

    /// Draws the timeline; a drag across it sets the list's time range.
    pub fn ui(&mut self, ui: &mut egui::Ui, list: &mut DeliveryList) {
        self.update(list);
        let mut filter = list.filter().clone();
        ui.horizontal_wrapped(|ui| {
            ui.strong("Timeline");
            let mut step = self.chosen.unwrap_or(self.timeline.step);
            choice(ui, "Bins", "timeline-step", &mut step, &Step::ALL.map(|s| (s, s.label())));
            if step != self.timeline.step {
                self.chosen = Some(step);
            }
            match filter.received {
                Some((from, to)) => {
                    ui.label(format!("From {} to {}", local(from), local(to)));
                    if ui.button("Any time").on_hover_text("Show the deliveries of every time").clicked() {
                        filter.received = None;
                    }
                }
                None => {
                    ui.weak("Drag across the timeline to list only that time.");
                }
            }
        });
        if self.timeline.bins.is_empty() {
            list.set_filter(filter);
            return;
        }
        let seconds = self.timeline.step.seconds() as f64;
        let from = self.timeline.last_bins_from(MOST_DRAWN);
        if self.timeline.bins.len() > MOST_DRAWN {
            let hint = if self.timeline.step == Step::Minute { "; choose Per hour to see every delivery" } else { "" };
            ui.weak(format!("The newest {MOST_DRAWN} of {} bins are drawn{hint}.", self.timeline.bins.len()));
        }
        let mut charts = Vec::with_capacity(self.timeline.types.len());
        let mut base: std::collections::BTreeMap<i64, f64> = std::collections::BTreeMap::new();
        for (kind, name) in self.timeline.types.iter().enumerate() {
            let colour = COLOURS[kind % COLOURS.len()];
            let bars: Vec<Bar> = self
                .timeline
                .series(kind, from)
                .map(|(start, n)| {
                    let below = base.entry(start).or_default();
                    let bar = Bar::new(start as f64 + seconds / 2.0, f64::from(n))
                        .base_offset(*below)
                        .width(seconds * 0.9)
                        .fill(colour)
                        .name(local_secs(start));
                    *below += f64::from(n);
                    bar
                })
                .collect();
            let kind_name = name.clone();
            // The legend names each type with its count (the list's rows name the type alone).
            let legend = format!("{name} ({})", self.timeline.type_counts[kind]);
            charts.push(
                BarChart::new(legend, bars)
                    .id(("timeline-type", kind))
                    .color(colour)
                    .element_formatter(Box::new(move |bar, _| format!("{kind_name} at {}: {}", bar.name, bar.value))),
            );
        }
        let failures: Vec<[f64; 2]> = self
            .timeline
            .bins
            .range(from..)
            .filter(|(_, bin)| bin.failed > 0)
            .map(|(start, bin)| [*start as f64 + seconds / 2.0, f64::from(bin.total())])
            .collect();
        let failed_total: u32 = self.timeline.bins.values().map(|b| b.failed).sum();
        let selected = filter.received.map(|(from, to)| (from.timestamp() as f64, to.timestamp() as f64));
        let dragging = self.drag_from;
        let response = still_plot("webhook-timeline")
            .height(HEIGHT)
            .show_grid([false, true])
            .legend(Legend::default())
            .x_axis_formatter(|mark, _| local_secs(mark.value as i64))
            .label_formatter(|_| None)
            .show(ui, |plot| {
                for chart in charts {
                    plot.bar_chart(chart);
                }
                if !failures.is_empty() {
                    let name = format!("failed signature ({failed_total})");
                    plot.points(
                        Points::new(name, failures).color(FAILED).radius(4.0).shape(egui_plot::MarkerShape::Down),
                    );
                }
                let pointer = plot.pointer_coordinate().map(|p| p.x);
                let shown = match (dragging, pointer) {
                    (Some(from), Some(to)) => Some((from.min(to), from.max(to))),
                    _ => selected,
                };
                if let Some((from, to)) = shown {
                    plot.span(Span::new("", from..=to).fill(egui::Color32::from_white_alpha(24)));
                }
                pointer
            });
        response.response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, "Deliveries over time"));
        self.plot = Some((response.response.rect, response.transform));
        let x_of = |pos: egui::Pos2| response.transform.value_from_position(pos).x;
        if response.response.drag_started()
            && let Some(origin) = ui.input(|i| i.pointer.press_origin())
        {
            self.drag_from = Some(x_of(origin));
        }
        if let Some(now) = ui.input(|i| i.pointer.latest_pos()).filter(|_| self.drag_from.is_some()) {
            self.drag_to = Some(x_of(now));
        }
        if response.response.drag_stopped()
            && let (Some(from), Some(to)) = (self.drag_from.take(), self.drag_to.take())
            && let Some(range) = self.timeline.range(from, to)
        {
            filter.received = Some(range);
        }
        list.set_filter(filter);
    }
}

fn local(at: DateTime<Utc>) -> String {
    at.with_timezone(&Local).format("%H:%M").to_string()
}

fn local_secs(seconds: i64) -> String {
    DateTime::from_timestamp(seconds, 0).map(local).unwrap_or_default()
}
