//! "Attach to a remote listener": a sharing `orgql webhooks listen` (or a gosmee relay) whose
//! deliveries are copied into this app's store and listed with the rest, verified here with the
//! listener settings' secret (which never leaves the desktop); the token is kept in the OS keyring.

use crate::webhooks::pull::AttachEvent;

/// The attachment as the panel knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteState {
    /// Not attached (why, when it failed or stopped).
    Detached(Option<String>),
    /// Asked to attach.
    Attaching,
    /// The stream is open; `copied` deliveries came through it since.
    Attached {
        /// Copied since the attachment began.
        copied: u64,
    },
    /// The stream broke and is opened again.
    Reconnecting(String),
}

/// What the section asks.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteIntent {
    /// Attach to this URL (the token typed, if any).
    Attach {
        /// The URL.
        url: String,
        /// The token, when typed (else the keyring's).
        token: Option<String>,
    },
    /// Stop.
    Detach,
}

/// The section's state.
pub struct RemoteSection {
    /// The remote's URL as typed.
    pub url: String,
    /// The token as typed (cleared once sent: the keyring keeps it).
    pub token: String,
    state: RemoteState,
    gaps: Vec<String>,
}

impl Default for RemoteSection {
    fn default() -> Self {
        RemoteSection { url: String::new(), token: String::new(), state: RemoteState::Detached(None), gaps: Vec::new() }
    }
}

impl RemoteSection {
    /// The attachment's state.
    pub fn state(&self) -> &RemoteState {
        &self.state
    }

    /// The holes a relay reported, in words.
    pub fn gaps(&self) -> &[String] {
        &self.gaps
    }

    /// Deliveries of the attachment were listed.
    pub fn copied(&mut self, n: usize) {
        if let RemoteState::Attached { copied } = &mut self.state {
            *copied += n as u64;
        }
    }

    /// What the attachment reports.
    pub fn on_event(&mut self, event: AttachEvent) {
        match event {
            AttachEvent::Connected { .. } => {
                let copied = match self.state {
                    RemoteState::Attached { copied } => copied,
                    _ => 0,
                };
                self.state = RemoteState::Attached { copied };
            }
            AttachEvent::Stored { .. } => self.copied(1),
            AttachEvent::Gap(gap) => self.gaps.push(format!(
                "The relay no longer had the deliveries after {} (its oldest was {}): a hole in the list.",
                gap.after_id, gap.oldest_id
            )),
            AttachEvent::Unreadable(_) => {}
            AttachEvent::Disconnected { reason, retry_in } => {
                self.state = RemoteState::Reconnecting(format!("{reason}; trying again in {} s", retry_in.as_secs()));
            }
            AttachEvent::Stopped(why) => self.state = RemoteState::Detached(Some(why)),
        }
    }

    /// The attachment ended.
    /// Attaching again to `url` (the session's start, with the token the keyring kept).
    pub fn reattaching(&mut self, url: &str) {
        self.url = url.to_owned();
        self.state = RemoteState::Attaching;
    }

    pub fn detached(&mut self, why: Option<String>) {
        if why.is_some() || !matches!(self.state, RemoteState::Detached(Some(_))) {
            self.state = RemoteState::Detached(why);
        }
    }

    /// Draws the section.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<RemoteIntent> {
        let mut intent = None;
        let attached = !matches!(self.state, RemoteState::Detached(_));
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Listener URL");
            ui.add_enabled(
                !attached,
                egui::TextEdit::singleline(&mut self.url).hint_text("https://hooks.example.org").desired_width(260.0),
            )
            .labelled_by(label.id);
            let label = ui.label("Share token");
            ui.add_enabled(
                !attached,
                egui::TextEdit::singleline(&mut self.token)
                    .password(true)
                    .hint_text("kept in the OS keyring")
                    .desired_width(200.0),
            )
            .labelled_by(label.id);
            if attached {
                if ui.button("Detach").clicked() {
                    intent = Some(RemoteIntent::Detach);
                }
            } else if ui.add_enabled(!self.url.trim().is_empty(), egui::Button::new("Attach")).clicked() {
                let token = std::mem::take(&mut self.token);
                let token = (!token.trim().is_empty()).then(|| token.trim().to_owned());
                self.state = RemoteState::Attaching;
                intent = Some(RemoteIntent::Attach { url: self.url.trim().to_owned(), token });
            }
        });
        match &self.state {
            RemoteState::Detached(Some(why)) => {
                ui.colored_label(ui.visuals().error_fg_color, why);
            }
            RemoteState::Detached(None) => {
                ui.weak("Deliveries a sharing listener kept while this app was closed are copied here, byte for byte.");
            }
            RemoteState::Attaching => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Attaching…");
                });
            }
            RemoteState::Attached { copied } => {
                ui.colored_label(
                    egui::Color32::from_rgb(0x2e, 0xa0, 0x43),
                    format!("● Attached to {}: {copied} deliveries copied", self.url.trim()),
                );
            }
            RemoteState::Reconnecting(why) => {
                ui.colored_label(ui.visuals().warn_fg_color, format!("Reconnecting: {why}"));
            }
        }
        for gap in &self.gaps {
            ui.colored_label(ui.visuals().warn_fg_color, gap);
        }
        intent
    }
}
