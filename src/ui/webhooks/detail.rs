//! The detail of one delivery: its verification, request line, headers and body (a JSON tree
//! when the body is JSON), with copy as cURL and replay to a URL of the user's.

use crate::store::Delivery;
use crate::ui::widgets::json_tree;
use crate::ui::widgets::numbers::size;
use crate::webhooks::listener::OVER_LIMIT;
use crate::webhooks::replay::Replayed;
use crate::worker::LoadedDelivery;

/// What the detail asks for.
pub enum DetailIntent {
    /// Copy this text.
    Copy(String),
    /// Send the delivery to this URL.
    Replay(String),
}

/// The body as shown: parsed by the worker when the delivery is loaded.
pub use crate::worker::DeliveryBody as Body;

/// A loaded delivery and what the detail view keeps for it.
pub struct Detail {
    /// The delivery.
    pub delivery: Box<Delivery>,
    /// Its body, parsed.
    pub body: Body,
    /// Raw text instead of the tree.
    pub raw: bool,
}

impl Detail {
    /// The detail of a delivery the worker loaded (and parsed the body of).
    pub fn new(loaded: Box<LoadedDelivery>) -> Self {
        let LoadedDelivery { delivery, body } = *loaded;
        Detail { delivery: Box::new(delivery), body, raw: false }
    }

    /// Draws it. `curl` is the delivery as a cURL command; `replay` the last replay's outcome.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        curl: &dyn Fn(&Delivery) -> String,
        replay_url: &mut String,
        replay: Option<&Result<Replayed, String>>,
        replaying: bool,
    ) -> Option<DetailIntent> {
        let mut intent = None;
        let d = &self.delivery.delivery;
        ui.horizontal_wrapped(|ui| {
            ui.heading(format!("Delivery {}", self.delivery.id));
            let when = d.received_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S%.3f");
            ui.label(format!("{when} · {} · {}", d.method, size(usize::try_from(d.size).unwrap_or(usize::MAX))));
            // Who sent it: "from 203.0.113.7 via cloudflared" behind a tunnel (issue 31).
            if let Some(sender) = &d.sender {
                ui.label(sender.to_string()).on_hover_text(
                    "The client's address; behind a tunnel or a trusted proxy, the one it forwarded for",
                );
            }
        });
        match d.verified {
            Some(true) => ui.colored_label(egui::Color32::from_rgb(0x2e, 0xa0, 0x43), "✓ Signature verified"),
            Some(false) if d.reason == OVER_LIMIT => {
                ui.colored_label(ui.visuals().error_fg_color, format!("✗ Refused: {}", d.reason))
            }
            Some(false) => ui.colored_label(ui.visuals().error_fg_color, format!("✗ Signature failed: {}", d.reason)),
            None => ui.weak("Signature not checked: the listener had no secret when it arrived"),
        };
        let target = if d.query.is_empty() { d.path.clone() } else { format!("{}?{}", d.path, d.query) };
        ui.monospace(format!("{} {target}", d.method));
        ui.horizontal(|ui| {
            if ui.button("Copy as cURL").on_hover_text("A shell command that sends the same bytes").clicked() {
                intent = Some(DetailIntent::Copy(curl(&self.delivery)));
            }
            if ui.button("Copy body").clicked() {
                intent = Some(DetailIntent::Copy(String::from_utf8_lossy(&d.body).into_owned()));
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Replay to");
            ui.add(
                egui::TextEdit::singleline(replay_url).hint_text("http://127.0.0.1:8080/hooks").desired_width(260.0),
            )
            .labelled_by(label.id);
            let ready = !replay_url.trim().is_empty() && !replaying;
            let hover = "Sends the same method, headers and bytes; a receiver that checks timestamps refuses \
                         replays older than its tolerance";
            if ui.add_enabled(ready, egui::Button::new("Replay")).on_hover_text(hover).clicked() {
                intent = Some(DetailIntent::Replay(replay_url.trim().to_owned()));
            }
            if replaying {
                ui.spinner();
            }
        });
        match replay {
            Some(Ok(r)) => {
                let color = if (200..300).contains(&r.status) {
                    egui::Color32::from_rgb(0x2e, 0xa0, 0x43)
                } else {
                    ui.visuals().warn_fg_color
                };
                let text = format!("{} answered {} in {} ms", r.url, r.status, r.elapsed.as_millis());
                ui.colored_label(color, text).on_hover_text(&r.body);
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            None => {}
        }
        ui.separator();
        egui::ScrollArea::vertical().id_salt("delivery-detail").show(ui, |ui| {
            egui::CollapsingHeader::new(format!("Headers ({})", d.headers.len())).default_open(true).show(ui, |ui| {
                egui::Grid::new("delivery-headers").striped(true).num_columns(2).show(ui, |ui| {
                    for (name, value) in &d.headers {
                        ui.monospace(name);
                        ui.add(
                            egui::Label::new(egui::RichText::new(String::from_utf8_lossy(value)).monospace()).wrap(),
                        );
                        ui.end_row();
                    }
                });
            });
            ui.horizontal(|ui| {
                ui.strong("Body");
                if matches!(self.body, Body::Json(_)) {
                    ui.selectable_value(&mut self.raw, false, "Tree");
                    ui.selectable_value(&mut self.raw, true, "Raw");
                }
            });
            match &self.body {
                Body::Json(value) if !self.raw => json_tree::show(ui, "body", value),
                Body::Json(_) | Body::Text => {
                    let mut text = String::from_utf8_lossy(&d.body);
                    let label = ui.label("Body text");
                    ui.add(egui::TextEdit::multiline(&mut text).code_editor().desired_width(f32::INFINITY))
                        .labelled_by(label.id);
                }
                Body::Binary(dump) => {
                    ui.weak("The body is not UTF-8 text; its first bytes:");
                    ui.monospace(dump);
                }
            }
        });
        intent
    }
}
