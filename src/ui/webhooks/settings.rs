//! The listener's settings as the user edits them: port, signature scheme, secret (masked),
//! reject invalid. Checked into [`ListenerSettings`] when the user starts or restarts it.

use crate::secret::Secret;
use crate::webhooks::{Encoding, Scheme};
use crate::worker::ListenerSettings;

/// The schemes offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemeKind {
    /// Standard Webhooks (the sandbox's).
    Standard,
    /// GitHub's `X-Hub-Signature-256`.
    GitHub,
    /// Stripe's `Stripe-Signature`.
    Stripe,
    /// HMAC-SHA256 in a named header, hex.
    HmacHex,
    /// HMAC-SHA256 in a named header, base64 (Shopify).
    HmacBase64,
}

impl SchemeKind {
    const ALL: [SchemeKind; 5] =
        [SchemeKind::Standard, SchemeKind::GitHub, SchemeKind::Stripe, SchemeKind::HmacHex, SchemeKind::HmacBase64];

    fn label(self) -> &'static str {
        match self {
            SchemeKind::Standard => "Standard Webhooks",
            SchemeKind::GitHub => "GitHub (X-Hub-Signature-256)",
            SchemeKind::Stripe => "Stripe (Stripe-Signature)",
            SchemeKind::HmacHex => "HMAC-SHA256, hex, in a header",
            SchemeKind::HmacBase64 => "HMAC-SHA256, base64, in a header",
        }
    }
}

/// The settings form.
pub struct ListenerForm {
    /// The port, as typed.
    pub port: String,
    /// The scheme.
    pub scheme: SchemeKind,
    /// The header of the HMAC schemes.
    pub header: String,
    /// The secret, as typed (empty: deliveries are stored unchecked).
    pub secret: String,
    show_secret: bool,
    /// Answer 401 to deliveries that fail verification.
    pub reject_invalid: bool,
    /// Whether the OS keyring keeps the secret (otherwise it lasts this session).
    pub kept: bool,
    error: Option<String>,
}

impl ListenerForm {
    /// A form for `port`, Standard Webhooks and `secret`.
    pub fn new(port: u16, secret: Option<Secret>) -> Self {
        ListenerForm {
            port: port.to_string(),
            scheme: SchemeKind::Standard,
            header: "X-Shopify-Hmac-SHA256".to_owned(),
            secret: secret.map(|s| s.expose().to_owned()).unwrap_or_default(),
            show_secret: false,
            reject_invalid: false,
            kept: true,
            error: None,
        }
    }

    /// The settings, or what to correct (one sentence).
    pub fn settings(&self) -> Result<ListenerSettings, String> {
        let port = self.port.trim().parse::<u16>().map_err(|_| {
            format!("the port '{}' is not a number from 0 to 65535; 0 picks a free port", self.port.trim())
        })?;
        let header = self.header.trim();
        let scheme = match self.scheme {
            SchemeKind::Standard => Scheme::Standard,
            SchemeKind::GitHub => Scheme::GitHub,
            SchemeKind::Stripe => Scheme::Stripe,
            SchemeKind::HmacHex | SchemeKind::HmacBase64 if header.is_empty() => {
                return Err("name the header that carries the signature, such as X-Shopify-Hmac-SHA256".into());
            }
            SchemeKind::HmacHex => Scheme::Hmac { header: header.to_owned(), encoding: Encoding::Hex },
            SchemeKind::HmacBase64 => Scheme::Hmac { header: header.to_owned(), encoding: Encoding::Base64 },
        };
        let secret = self.secret.trim();
        if scheme == Scheme::Standard
            && !secret.is_empty()
            && let Err(e) = crate::webhooks::standard::Secret::parse(secret)
        {
            return Err(format!("{e}; or press New secret"));
        }
        let secret = (!secret.is_empty()).then(|| Secret::new(secret));
        Ok(ListenerSettings { port, any_port_if_taken: false, scheme, secret, reject_invalid: self.reject_invalid })
    }

    /// Draws the form; returns the settings to start with when the user asks.
    pub fn ui(&mut self, ui: &mut egui::Ui, running: bool) -> Option<ListenerSettings> {
        let mut start = false;
        egui::Grid::new("listener-settings").num_columns(2).show(ui, |ui| {
            let label = ui.label("Port");
            ui.add(egui::TextEdit::singleline(&mut self.port).desired_width(70.0)).labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Signature scheme");
            let response = egui::ComboBox::from_id_salt("listener-scheme")
                .selected_text(self.scheme.label())
                .show_ui(ui, |ui| {
                    for kind in SchemeKind::ALL {
                        crate::ui::widgets::a11y::choose(ui, &mut self.scheme, kind, kind.label());
                    }
                })
                .response
                .labelled_by(label.id);
            crate::ui::widgets::a11y::say_combo_value(ui, &response);
            ui.end_row();
            if matches!(self.scheme, SchemeKind::HmacHex | SchemeKind::HmacBase64) {
                let label = ui.label("Signature header");
                ui.add(egui::TextEdit::singleline(&mut self.header).desired_width(220.0)).labelled_by(label.id);
                ui.end_row();
            }
            let label = ui.label("Secret");
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut self.secret)
                        .password(!self.show_secret)
                        .hint_text("empty: store deliveries unchecked")
                        .desired_width(260.0),
                )
                .labelled_by(label.id);
                ui.checkbox(&mut self.show_secret, "Show");
                if self.scheme == SchemeKind::Standard
                    && ui.button("New secret").on_hover_text("A random whsec_ secret").clicked()
                {
                    let key = rand::random::<[u8; 24]>().to_vec();
                    self.secret = crate::webhooks::standard::Secret::from_key(key).to_text();
                }
            });
            ui.end_row();
            ui.label("");
            ui.checkbox(&mut self.reject_invalid, "Answer 401 to deliveries that fail verification");
            ui.end_row();
        });
        ui.horizontal(|ui| {
            let text = if running { "Restart with these settings" } else { "Start listener" };
            start = ui.button(text).clicked();
            ui.weak(if self.kept {
                "The secret is kept in the OS keyring."
            } else {
                "No OS keyring: the secret lasts this session."
            });
        });
        if start {
            match self.settings() {
                Ok(settings) => {
                    self.error = None;
                    return Some(settings);
                }
                Err(e) => self.error = Some(e),
            }
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_checks_port_header_and_secret() {
        let mut form = ListenerForm::new(9000, None);
        let settings = form.settings().unwrap();
        assert_eq!((settings.port, settings.secret.is_none()), (9000, true));
        form.port = "70000".into();
        assert!(form.settings().unwrap_err().contains("0 to 65535"));
        form.port = "0".into();
        form.secret = "not-whsec".into();
        assert!(form.settings().is_err());
        form.scheme = SchemeKind::GitHub;
        assert_eq!(form.settings().unwrap().scheme, Scheme::GitHub, "GitHub secrets are any text");
        form.scheme = SchemeKind::HmacBase64;
        form.header = " ".into();
        assert!(form.settings().unwrap_err().contains("header"));
        form.header = "X-Shopify-Hmac-SHA256".into();
        assert_eq!(
            form.settings().unwrap().scheme,
            Scheme::Hmac { header: "X-Shopify-Hmac-SHA256".into(), encoding: Encoding::Base64 }
        );
    }
}
