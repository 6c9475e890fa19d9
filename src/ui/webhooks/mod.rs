//! The webhook inspector: the listener's state and settings, the live list of deliveries with
//! its filters, and the detail of the one selected.

mod detail;
mod list;
mod remote;
mod settings;
mod timeline;
mod tunnel;

use std::net::SocketAddr;
use std::path::PathBuf;

pub use detail::Detail;
pub use list::DeliveryList;
pub use remote::{RemoteIntent, RemoteSection, RemoteState};
pub use settings::ListenerForm;
pub use timeline::TimelineView;
pub use tunnel::{TunnelIntent, TunnelSection, TunnelState};

use crate::store::{Delivery, DeliverySummary};
use crate::ui::commands::Commands;
use crate::webhooks::DeliveryFilter;
use crate::webhooks::replay::Replayed;
use crate::worker::{JobId, ListenerSettings, WebhooksCommand, WebhooksEvent};
use detail::DetailIntent;

/// What the inspector asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum WebhooksIntent {
    /// Start (or restart) the listener.
    Start(ListenerSettings),
    /// Stop it.
    Stop,
    /// Load a delivery for the detail.
    Select(i64),
    /// Delete every stored delivery.
    Clear,
    /// Send a delivery to a URL.
    Replay {
        /// The delivery.
        id: i64,
        url: String,
    },
    /// Write the listed deliveries to a JSONL file.
    Export { filter: DeliveryFilter, path: PathBuf },
    /// The tunnel section's ask.
    Tunnel(TunnelIntent),
    /// The remote listener section's ask.
    Remote(RemoteIntent),
}

/// The listener as the inspector knows it.
#[derive(Debug, Clone, PartialEq)]
pub enum ListenerStatus {
    /// Not running (with why, when it failed).
    Stopped(Option<String>),
    /// Asked to start.
    Starting,
    /// Listening.
    Listening(SocketAddr),
}

/// The webhook inspector.
pub struct WebhooksPanel {
    /// The deliveries.
    pub list: DeliveryList,
    /// The deliveries over time, above the list.
    pub timeline: TimelineView,
    /// The listener's settings as edited.
    pub form: ListenerForm,
    status: ListenerStatus,
    notice: Option<String>,
    selected: Option<i64>,
    detail: Option<Detail>,
    replay_url: String,
    replay: Option<Result<Replayed, String>>,
    replaying: bool,
    /// The replay under way: only its answer is shown.
    replay_job: Option<JobId>,
    export_path: String,
    export: Option<Result<(PathBuf, u64), String>>,
    exporting: bool,
    /// The export under way: only its answer is shown.
    export_job: Option<JobId>,
    confirm_clear: bool,
    copy: Option<String>,
    /// Make reachable from the internet.
    pub tunnel: TunnelSection,
    /// Attach to a remote listener.
    pub remote: RemoteSection,
    /// The remote listener to keep for the next start (`Some(None)`: none), until the app takes it.
    remembered: Option<Option<String>>,
    /// A remote listener to attach to again once the inspector's secret is known (to verify with).
    reattach: Option<String>,
}

impl WebhooksPanel {
    /// An inspector with `form`'s settings, proposing exports in `export_dir`.
    pub fn new(form: ListenerForm, export_dir: &std::path::Path) -> Self {
        WebhooksPanel {
            list: DeliveryList::default(),
            timeline: TimelineView::default(),
            form,
            status: ListenerStatus::Stopped(None),
            notice: None,
            selected: None,
            detail: None,
            replay_url: String::new(),
            replay: None,
            replaying: false,
            replay_job: None,
            export_path: export_dir.join("deliveries.jsonl").display().to_string(),
            export: None,
            exporting: false,
            export_job: None,
            confirm_clear: false,
            copy: None,
            tunnel: TunnelSection::default(),
            remote: RemoteSection::default(),
            remembered: None,
            reattach: None,
        }
    }

    /// Asks the worker for the inspector's secret (the keyring's, or a new one kept there: no
    /// keyring call on the UI thread), and to start the listener on `port` when there is one;
    /// without a listener, the deliveries stored before are listed (when there is a store).
    pub fn start(&mut self, port: Option<u16>, has_store: bool, commands: &mut Commands) {
        self.form = ListenerForm::new(port.unwrap_or(crate::webhooks::listener::DEFAULT_LISTEN.port()), None);
        if port.is_some() {
            self.starting();
        } else if has_store {
            commands.send(WebhooksCommand::LoadDeliveries);
        }
        commands.send(WebhooksCommand::Prepare { start_on: port });
        commands.send(WebhooksCommand::FindTunnels);
    }

    /// Takes what the worker says of webhooks.
    pub fn on_event(&mut self, event: WebhooksEvent) {
        match event {
            WebhooksEvent::Secret { secret, kept } => self.secret_found(secret, kept),
            WebhooksEvent::ListenerStarted { addr, notice } => self.started(addr, notice),
            WebhooksEvent::ListenerStopped(why) => self.stopped(why),
            WebhooksEvent::Deliveries { rows, through } => self.deliveries(rows, through),
            WebhooksEvent::DeliveryLoaded(id, delivery) => self.loaded(id, delivery),
            WebhooksEvent::Replayed { job, result } => {
                if self.replay_job == Some(job) {
                    self.replay_job = None;
                    self.replayed(result);
                }
            }
            WebhooksEvent::Exported { job, result } => {
                if self.export_job == Some(job) {
                    self.export_job = None;
                    self.exported(result);
                }
            }
            WebhooksEvent::Attached(event) => self.remote.on_event(event),
            WebhooksEvent::Copied(n) => self.remote.copied(n),
            WebhooksEvent::Detached(why) => self.remote.detached(why),
            WebhooksEvent::Tunnels(programs) => self.tunnel.programs_found(programs),
            WebhooksEvent::Tunnel(event) => self.tunnel.on_tunnel(event),
            WebhooksEvent::TunnelStopped(why) => self.tunnel.stopped(why),
            WebhooksEvent::TestSent { job, result } => self.tunnel.tested(job, result),
        }
    }

    /// Shows delivery `id` in the detail (asked of the worker).
    pub fn select(&mut self, id: i64, commands: &mut Commands) {
        self.selected = Some(id);
        self.detail = None;
        commands.send(WebhooksCommand::LoadDelivery(id));
    }

    /// The remote listener attached to or detached from since asked last (for the workspace).
    pub fn take_remembered(&mut self) -> Option<Option<String>> {
        self.remembered.take()
    }

    /// Attaches again to the remote listener of the last session (its token is the keyring's),
    /// as soon as the inspector's secret is known, so that what arrived meanwhile is copied
    /// without a click.
    pub fn reattach(&mut self, url: String, commands: &mut Commands) {
        self.remote.reattaching(&url);
        self.reattach = Some(url);
        self.resume_pending(commands);
    }

    /// Sends what waited for the inspector's secret (a re-attachment).
    pub fn resume_pending(&mut self, commands: &mut Commands) {
        if self.form.secret.is_empty() {
            return;
        }
        let Some(url) = self.reattach.take() else { return };
        let check = match self.form.settings() {
            Ok(ListenerSettings { scheme, secret: Some(secret), .. }) => Some((scheme, secret)),
            _ => None,
        };
        commands.send(WebhooksCommand::Attach { url, token: None, check });
    }

    /// Where the listener listens, while it does.
    pub fn listening_at(&self) -> Option<SocketAddr> {
        match self.status {
            ListenerStatus::Listening(addr) => Some(addr),
            _ => None,
        }
    }

    /// Draws the inspector and sends what it asks.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut Commands) {
        let Some(intent) = self.draw(ui) else { return };
        match intent {
            WebhooksIntent::Start(settings) => {
                self.starting();
                commands.send(WebhooksCommand::StartListener(settings));
            }
            WebhooksIntent::Stop => commands.send(WebhooksCommand::StopListener),
            WebhooksIntent::Select(id) => commands.send(WebhooksCommand::LoadDelivery(id)),
            WebhooksIntent::Clear => commands.send(WebhooksCommand::Clear),
            WebhooksIntent::Replay { id, url } => {
                let job = commands.job();
                self.replay_job = Some(job);
                commands.send(WebhooksCommand::Replay { job, id, url });
            }
            WebhooksIntent::Export { filter, path } => {
                let job = commands.job();
                self.export_job = Some(job);
                commands.send(WebhooksCommand::Export { job, filter, path });
            }
            WebhooksIntent::Remote(RemoteIntent::Attach { url, token }) => {
                self.remembered = Some(Some(url.clone()));
                // The copies are verified here with the listener settings' secret, when there is one.
                let check = match self.form.settings() {
                    Ok(ListenerSettings { scheme, secret: Some(secret), .. }) => Some((scheme, secret)),
                    _ => None,
                };
                let token = token.map(crate::secret::Secret::new);
                commands.send(WebhooksCommand::Attach { url, token, check });
            }
            WebhooksIntent::Remote(RemoteIntent::Detach) => {
                self.remembered = Some(None);
                commands.send(WebhooksCommand::Detach);
            }
            WebhooksIntent::Tunnel(TunnelIntent::Start(kind)) => commands.send(WebhooksCommand::StartTunnel(kind)),
            WebhooksIntent::Tunnel(TunnelIntent::Stop) => commands.send(WebhooksCommand::StopTunnel),
            WebhooksIntent::Tunnel(TunnelIntent::SendTest(url)) => match self.form.settings() {
                Ok(ListenerSettings { scheme, secret: Some(secret), .. }) => {
                    let job = commands.job();
                    self.tunnel.test_job = Some(job);
                    commands.send(WebhooksCommand::SendTest { job, url, scheme, secret });
                }
                Ok(_) => self.notify(
                    "A test delivery is signed with the webhook secret; enter it in the listener settings.".to_owned(),
                ),
                Err(why) => self.notify(why),
            },
        }
    }

    /// The listener's state.
    pub fn status(&self) -> &ListenerStatus {
        &self.status
    }

    /// The delivery shown in the detail.
    pub fn detail(&self) -> Option<&Delivery> {
        self.detail.as_ref().map(|d| &*d.delivery)
    }

    /// The listener was asked to start.
    pub fn starting(&mut self) {
        self.status = ListenerStatus::Starting;
    }

    /// The worker found (or made) the inspector's secret; `kept` says whether the keyring has it.
    fn secret_found(&mut self, secret: crate::secret::Secret, kept: bool) {
        if self.form.secret.is_empty() {
            self.form.secret = secret.expose().to_owned();
        }
        self.form.kept = kept;
        if !kept {
            self.notice = Some(
                "The webhook secret is kept for this session only (no OS keyring); the sandbox signs with it."
                    .to_owned(),
            );
        }
    }

    /// The listener listens.
    fn started(&mut self, addr: SocketAddr, notice: Option<String>) {
        self.status = ListenerStatus::Listening(addr);
        self.form.port = addr.port().to_string();
        if notice.is_some() {
            self.notice = notice;
        }
    }

    /// The listener stopped, or failed to start.
    fn stopped(&mut self, why: Option<String>) {
        self.status = ListenerStatus::Stopped(why);
    }

    /// Something the user should know about the listener's settings.
    pub fn notify(&mut self, notice: String) {
        self.notice = Some(notice);
    }

    /// Summaries arrived: new ones, or the whole list up to `through`.
    pub fn deliveries(&mut self, rows: Vec<DeliverySummary>, through: Option<i64>) {
        match through {
            Some(through) => {
                self.list.replace(rows, through);
                if self.selected.is_some_and(|id| id <= through && !self.list.rows().iter().any(|d| d.id == id)) {
                    self.selected = None;
                    self.detail = None;
                }
            }
            None => self.list.append(rows),
        }
    }

    /// A delivery was loaded for the detail.
    fn loaded(&mut self, id: i64, delivery: Option<Box<crate::worker::LoadedDelivery>>) {
        if self.selected == Some(id) {
            self.detail = delivery.map(Detail::new);
        }
    }

    /// A replay ended.
    fn replayed(&mut self, result: Result<Replayed, String>) {
        self.replaying = false;
        self.replay = Some(result);
    }

    /// An export ended.
    fn exported(&mut self, result: Result<(PathBuf, u64), String>) {
        self.exporting = false;
        self.export = Some(result);
    }

    /// Draws the inspector; returns what it asks ([`WebhooksPanel::ui`] sends it).
    pub fn draw(&mut self, ui: &mut egui::Ui) -> Option<WebhooksIntent> {
        if let Some(text) = self.copy.take() {
            ui.ctx().copy_text(text);
        }
        let mut intent = None;
        self.listener_ui(ui, &mut intent);
        ui.separator();
        self.toolbar_ui(ui, &mut intent);
        egui::Panel::right("delivery-detail").resizable(true).default_size(520.0).min_size(320.0).show(ui, |ui| {
            self.detail_ui(ui, &mut intent);
        });
        egui::CentralPanel::default().show(ui, |ui| {
            if self.list.rows().is_empty() {
                ui.weak(self.empty_text());
                return;
            }
            self.timeline.ui(ui, &mut self.list);
            ui.separator();
            if let Some(id) = self.list.ui(ui, self.selected, self.tunnel.relay_alters())
                && self.selected != Some(id)
            {
                self.selected = Some(id);
                self.detail = None;
                self.replay = None;
                intent = Some(WebhooksIntent::Select(id));
            }
        });
        intent
    }

    fn empty_text(&self) -> String {
        match &self.status {
            ListenerStatus::Listening(addr) => format!(
                "No deliveries yet. Send webhooks to http://{addr}/ — or run a mutation such as createUser \
                 against the Sandbox connection: its webhooks come here."
            ),
            _ => "No deliveries stored. Start the listener to receive webhooks.".to_owned(),
        }
    }

    fn listener_ui(&mut self, ui: &mut egui::Ui, intent: &mut Option<WebhooksIntent>) {
        ui.horizontal_wrapped(|ui| {
            ui.heading("Webhooks");
            match &self.status {
                ListenerStatus::Listening(addr) => {
                    ui.colored_label(egui::Color32::from_rgb(0x2e, 0xa0, 0x43), "● Listening on");
                    let url = format!("http://{addr}/");
                    ui.monospace(&url);
                    if ui.small_button("Copy URL").clicked() {
                        self.copy = Some(url);
                    }
                    if ui.button("Stop listener").clicked() {
                        *intent = Some(WebhooksIntent::Stop);
                    }
                }
                ListenerStatus::Starting => {
                    ui.spinner();
                    ui.label("Starting the listener…");
                }
                ListenerStatus::Stopped(why) => {
                    ui.weak("○ Stopped");
                    if let Some(why) = why {
                        ui.colored_label(ui.visuals().error_fg_color, why);
                    }
                }
            }
        });
        if let Some(notice) = &self.notice {
            ui.colored_label(ui.visuals().warn_fg_color, notice);
        }
        let running = !matches!(self.status, ListenerStatus::Stopped(_));
        egui::CollapsingHeader::new("Listener settings").default_open(!running).show(ui, |ui| {
            if let Some(settings) = self.form.ui(ui, running) {
                *intent = Some(WebhooksIntent::Start(settings));
            }
        });
        egui::CollapsingHeader::new("Remote listener").show(ui, |ui| {
            if let Some(asked) = self.remote.ui(ui) {
                *intent = Some(WebhooksIntent::Remote(asked));
            }
        });
        let listening = matches!(self.status, ListenerStatus::Listening(_));
        egui::CollapsingHeader::new("Public address").show(ui, |ui| {
            if let Some(asked) = self.tunnel.ui(ui, listening, &mut self.copy) {
                *intent = Some(WebhooksIntent::Tunnel(asked));
            }
        });
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, intent: &mut Option<WebhooksIntent>) {
        ui.horizontal_wrapped(|ui| {
            self.list.filter_ui(ui);
            let total = self.list.rows().len();
            let shown = self.list.shown_len();
            let count = if shown == total {
                format!("{} deliveries", crate::ui::widgets::numbers::thousands(total as u64))
            } else {
                format!("{} of {} deliveries", crate::ui::widgets::numbers::thousands(shown as u64), total)
            };
            ui.label(count);
            ui.separator();
            if self.confirm_clear {
                ui.colored_label(ui.visuals().warn_fg_color, format!("Delete all {total} stored deliveries?"));
                if ui.button("Delete all").clicked() {
                    self.confirm_clear = false;
                    *intent = Some(WebhooksIntent::Clear);
                }
                if ui.button("Keep them").clicked() {
                    self.confirm_clear = false;
                }
            } else if ui.add_enabled(total > 0, egui::Button::new("Clear…")).clicked() {
                self.confirm_clear = true;
            }
        });
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Export to");
            ui.add(egui::TextEdit::singleline(&mut self.export_path).desired_width(280.0)).labelled_by(label.id);
            let ready = !self.exporting && !self.export_path.trim().is_empty() && self.list.shown_len() > 0;
            if ui.add_enabled(ready, egui::Button::new("Export JSONL")).on_hover_text("The deliveries listed").clicked()
            {
                self.exporting = true;
                self.export = None;
                let path = PathBuf::from(self.export_path.trim());
                *intent = Some(WebhooksIntent::Export { filter: self.list.filter().clone(), path });
            }
            if self.exporting {
                ui.spinner();
            }
            match &self.export {
                Some(Ok((path, n))) => {
                    ui.label(format!("Exported {n} deliveries to {}", path.display()));
                }
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                None => {}
            }
        });
    }

    fn detail_ui(&mut self, ui: &mut egui::Ui, intent: &mut Option<WebhooksIntent>) {
        let base = match &self.status {
            ListenerStatus::Listening(addr) => format!("http://{addr}"),
            _ => format!("http://127.0.0.1:{}", self.form.port),
        };
        let Some(detail) = self.detail.as_mut() else {
            ui.weak(if self.selected.is_some() { "Loading…" } else { "Select a delivery to see it whole." });
            return;
        };
        let curl = |d: &Delivery| crate::webhooks::curl::to_curl(&d.delivery, &base);
        match detail.ui(ui, &curl, &mut self.replay_url, self.replay.as_ref(), self.replaying) {
            Some(DetailIntent::Copy(text)) => self.copy = Some(text),
            Some(DetailIntent::Replay(url)) => {
                self.replaying = true;
                self.replay = None;
                *intent = Some(WebhooksIntent::Replay { id: detail.delivery.id, url });
            }
            None => {}
        }
    }
}
