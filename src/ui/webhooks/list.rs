//! The deliveries the inspector holds (summaries only), the filter over them and the list drawn
//! newest first. Arrivals are appended and filtered incrementally, so a burst costs what it adds.

use std::collections::BTreeMap;

use egui_extras::{Column, TableBuilder};

use crate::store::DeliverySummary;
use crate::ui::widgets::numbers::size;
use crate::webhooks::{DeliveryFilter, VerificationFilter};

const ROW_HEIGHT: f32 = 20.0;

/// The deliveries and the filter.
#[derive(Default)]
pub struct DeliveryList {
    rows: Vec<DeliverySummary>,
    /// Indices into `rows` of those that pass the filter, oldest first.
    shown: Vec<usize>,
    /// Every event type seen, with how many deliveries have it.
    types: BTreeMap<String, usize>,
    filter: DeliveryFilter,
}

impl DeliveryList {
    /// Every delivery held, oldest first.
    pub fn rows(&self) -> &[DeliverySummary] {
        &self.rows
    }

    /// How many pass the filter.
    pub fn shown_len(&self) -> usize {
        self.shown.len()
    }

    /// The filter.
    pub fn filter(&self) -> &DeliveryFilter {
        &self.filter
    }

    /// The `i`-th shown delivery, newest first.
    pub fn shown_newest_first(&self, i: usize) -> Option<&DeliverySummary> {
        let index = self.shown.len().checked_sub(i + 1)?;
        self.rows.get(self.shown[index])
    }

    /// Adds what just arrived (ids above the newest held; others are already here).
    pub fn append(&mut self, arrived: Vec<DeliverySummary>) {
        let newest = self.rows.last().map_or(0, |d| d.id);
        for delivery in arrived.into_iter().filter(|d| d.id > newest) {
            self.push(delivery);
        }
    }

    /// Replaces what is held up to `through` with `rows` (the store's list), keeping newer arrivals.
    pub fn replace(&mut self, rows: Vec<DeliverySummary>, through: i64) {
        let keep_after = rows.last().map_or(through, |d| d.id.max(through));
        let newer: Vec<DeliverySummary> =
            std::mem::take(&mut self.rows).into_iter().filter(|d| d.id > keep_after).collect();
        self.types.clear();
        self.shown.clear();
        for delivery in rows.into_iter().chain(newer) {
            self.push(delivery);
        }
        if let Some(kind) = &self.filter.event_type
            && !self.types.contains_key(kind)
        {
            self.set_filter(DeliveryFilter { event_type: None, ..self.filter.clone() });
        }
    }

    fn push(&mut self, delivery: DeliverySummary) {
        if let Some(kind) = &delivery.event_type {
            *self.types.entry(kind.clone()).or_default() += 1;
        }
        if self.filter.matches(&delivery) {
            self.shown.push(self.rows.len());
        }
        self.rows.push(delivery);
    }

    /// Changes the filter (recomputing which pass).
    pub fn set_filter(&mut self, filter: DeliveryFilter) {
        if filter == self.filter {
            return;
        }
        self.filter = filter;
        self.shown = self.rows.iter().enumerate().filter(|(_, d)| self.filter.matches(d)).map(|(i, _)| i).collect();
    }

    /// The filter controls; a change is applied at once.
    pub fn filter_ui(&mut self, ui: &mut egui::Ui) {
        let mut filter = self.filter.clone();
        let label = ui.label("Event type");
        let chosen = filter.event_type.clone().unwrap_or_else(|| "Any type".to_owned());
        let response = egui::ComboBox::from_id_salt("webhook-type-filter")
            .selected_text(chosen)
            .show_ui(ui, |ui| {
                crate::ui::widgets::a11y::choose(ui, &mut filter.event_type, None, "Any type");
                for (kind, count) in &self.types {
                    crate::ui::widgets::a11y::choose(
                        ui,
                        &mut filter.event_type,
                        Some(kind.clone()),
                        format!("{kind} ({count})"),
                    );
                }
            })
            .response
            .labelled_by(label.id);
        crate::ui::widgets::a11y::say_combo_value(ui, &response);
        let label = ui.label("Signature");
        let response = egui::ComboBox::from_id_salt("webhook-verification-filter")
            .selected_text(filter.verification.label())
            .show_ui(ui, |ui| {
                for choice in VerificationFilter::ALL {
                    crate::ui::widgets::a11y::choose(ui, &mut filter.verification, choice, choice.label());
                }
            })
            .response
            .labelled_by(label.id);
        crate::ui::widgets::a11y::say_combo_value(ui, &response);
        self.set_filter(filter);
    }

    /// The list, newest first; returns the delivery clicked.
    /// `altered`: the test delivery came back changed by the tunnel or relay, so a failed
    /// signature says nothing about the sender (shown as `?`, not a false ✗).
    pub fn ui(&self, ui: &mut egui::Ui, selected: Option<i64>, altered: bool) -> Option<i64> {
        let mut clicked = None;
        TableBuilder::new(ui)
            .id_salt("deliveries")
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(Column::initial(86.0).at_least(60.0))
            .column(Column::initial(150.0).at_least(60.0).clip(true))
            .column(Column::initial(28.0).at_least(24.0))
            .column(Column::initial(64.0).at_least(40.0))
            .column(Column::remainder().at_least(60.0).clip(true))
            .header(ROW_HEIGHT + 2.0, |mut header| {
                for name in ["Time", "Event type", "Sig.", "Size", "Request"] {
                    header.col(|ui| {
                        ui.strong(name);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, self.shown.len(), |mut row| {
                    let Some(delivery) = self.shown_newest_first(row.index()) else { return };
                    row.set_selected(selected == Some(delivery.id));
                    let when = delivery.received_at.with_timezone(&chrono::Local).format("%H:%M:%S%.3f").to_string();
                    // Each cell (a click selects the row) is named by its row: type, time, signature.
                    let name = format!(
                        "{} at {when}, signature {}",
                        delivery.event_type.as_deref().unwrap_or("no type"),
                        signature_words(delivery, altered)
                    );
                    let named = |ui: &egui::Ui| {
                        ui.ctx().accesskit_node_builder(ui.unique_id(), |node| {
                            node.set_role(egui::accesskit::Role::Row);
                            node.set_label(name.as_str());
                        });
                    };
                    row.col(|ui| {
                        named(ui);
                        ui.add(egui::Label::new(when.as_str()).selectable(false));
                    });
                    row.col(|ui| {
                        named(ui);
                        let kind = delivery.event_type.as_deref().unwrap_or("—");
                        ui.add(egui::Label::new(kind).truncate().selectable(false));
                    });
                    row.col(|ui| {
                        named(ui);
                        signature_mark(ui, delivery, altered);
                    });
                    row.col(|ui| {
                        named(ui);
                        ui.add(
                            egui::Label::new(size(usize::try_from(delivery.size).unwrap_or(usize::MAX)))
                                .selectable(false),
                        );
                    });
                    row.col(|ui| {
                        named(ui);
                        let request = format!("{} {}", delivery.method, delivery.path);
                        ui.add(egui::Label::new(request).truncate().selectable(false));
                    });
                    if row.response().clicked() {
                        clicked = Some(delivery.id);
                    }
                });
            });
        clicked
    }
}

/// The signature's state in words, for screen readers.
fn signature_words(delivery: &DeliverySummary, altered: bool) -> &'static str {
    match delivery.verified {
        Some(true) => "verified",
        Some(false) if altered => "not verifiable through this relay",
        Some(false) => "failed",
        None => "not checked",
    }
}

/// ✓ verified, ✗ failed (the reason on hover), — not checked; `?` for a failure through a
/// tunnel or relay that alters bodies (`altered`).
pub fn signature_mark(ui: &mut egui::Ui, delivery: &DeliverySummary, altered: bool) {
    let (mark, color, hover) = match delivery.verified {
        Some(true) => ("✓", egui::Color32::from_rgb(0x2e, 0xa0, 0x43), "Signature verified".to_owned()),
        Some(false) if altered => (
            "?",
            ui.visuals().warn_fg_color,
            format!(
                "Signatures cannot be verified through this relay: the test delivery arrived altered ({})",
                delivery.reason
            ),
        ),
        Some(false) => ("✗", ui.visuals().error_fg_color, format!("Failed: {}", delivery.reason)),
        None => ("—", ui.visuals().weak_text_color(), "Not checked: no secret was set".to_owned()),
    };
    ui.add(egui::Label::new(egui::RichText::new(mark).color(color).strong()).selectable(false)).on_hover_text(hover);
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn summary(id: i64, kind: &str, verified: Option<bool>) -> DeliverySummary {
        DeliverySummary {
            id,
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/".into(),
            event_type: Some(kind.into()),
            verified,
            reason: String::new(),
            size: 10,
        }
    }

    fn ids(list: &DeliveryList) -> Vec<i64> {
        (0..list.shown_len()).map(|i| list.shown_newest_first(i).unwrap().id).collect()
    }

    #[test]
    fn arrivals_append_once_and_show_newest_first() {
        let mut list = DeliveryList::default();
        list.append(vec![summary(1, "a", Some(true)), summary(2, "b", Some(false))]);
        list.append(vec![summary(2, "b", Some(false)), summary(3, "a", None)]);
        assert_eq!(ids(&list), [3, 2, 1]);
        list.set_filter(DeliveryFilter { event_type: Some("a".into()), ..Default::default() });
        assert_eq!(ids(&list), [3, 1]);
        list.append(vec![summary(4, "a", Some(true)), summary(5, "b", Some(true))]);
        assert_eq!(ids(&list), [4, 3, 1], "arrivals are filtered as they come");
    }

    #[test]
    fn a_reload_keeps_newer_arrivals_and_a_clear_empties() {
        let mut list = DeliveryList::default();
        list.append(vec![summary(5, "a", None), summary(6, "a", None)]);
        list.replace(vec![summary(1, "a", None), summary(5, "a", None)], 5);
        assert_eq!(ids(&list), [6, 5, 1]);
        list.replace(Vec::new(), 6);
        assert_eq!(list.shown_len(), 0);
        assert!(list.rows().is_empty());
    }
}
