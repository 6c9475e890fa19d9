//! The "Find user" window of support staff: a box for a ref, an email or a name; the user's card,
//! a list of matches to pick from, or a clear sentence saying nobody matched. The requests run on
//! the worker; the window only draws state and returns what to ask.

pub mod card;

use crate::scopes::{Scope, ScopeSet};
use crate::support::{Found, MatchList, SupportError, SupportReply, SupportRequest, nobody, one_line, scan_extent};
use crate::ui::commands::Commands;
use crate::ui::find_user::card::CardEditor;
use crate::ui::widgets::requested::Requested;
use crate::worker::{Connection, JobId, SupportCommand, SupportEvent};

/// What the connection chosen in the toolbar is, and may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The connection's name (results belong to the connection they came from).
    pub connection: String,
    /// The scopes its profile requests (the sandbox: all).
    pub scopes: ScopeSet,
}

/// The window.
#[derive(Default)]
pub struct FindUserWindow {
    /// Whether the window is open.
    pub open: bool,
    typed: String,
    focus_search: bool,
    /// The connection the results came from.
    connection: Option<String>,
    found: Requested<Found, SupportError>,
    find_job: Option<JobId>,
    /// The last list of matches, to go back to after opening one.
    matches: Option<MatchList>,
    card: CardEditor,
    notice: Option<String>,
    /// The stored webhook deliveries that mention the user shown, and whose they are.
    lately: Requested<Vec<crate::store::DeliverySummary>, String>,
    lately_of: Option<String>,
    lately_job: Option<JobId>,
    /// A delivery to open in the inspector (taken by the app).
    open_delivery: Option<i64>,
    /// "Refresh" was clicked at the foot of the card.
    refresh_lately: bool,
    /// A group's card, shown in place of the user's while `showing_group`.
    group: Requested<crate::support::GroupCard, SupportError>,
    group_job: Option<JobId>,
    showing_group: bool,
    /// Move the focus to the card when it is drawn next (a user was found).
    focus_card: bool,
}

impl FindUserWindow {
    /// Opens the window (or brings it forward) with the focus in the search box.
    pub fn show(&mut self) {
        self.open = true;
        self.focus_search = true;
    }

    /// Takes what the worker answers.
    pub fn on_event(&mut self, event: SupportEvent) {
        match event {
            SupportEvent::Answered { job, result } => self.apply(job, result),
            SupportEvent::Deliveries { job, result } => {
                if self.lately_job == Some(job) {
                    self.lately_job = None;
                    self.lately.finish(result);
                }
            }
        }
    }

    /// Draws the window when open, and sends what it asks to `connection` (the chosen one, or
    /// why there is none).
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        access: &Access,
        connection: impl FnOnce() -> Result<Connection, String>,
        commands: &mut Commands,
    ) {
        let mut requests: Vec<SupportRequest> = self.draw(ctx, access).into_iter().collect();
        if let Some(Found::User(user)) = self.found.value() {
            requests.extend(self.card.section_requests(user));
            if self.lately_of.as_deref() != Some(user.ref_.as_str()) || std::mem::take(&mut self.refresh_lately) {
                self.lately_of = Some(user.ref_.clone());
                self.lately = Requested::Idle;
                self.ask_lately(commands);
            }
        }
        if requests.is_empty() {
            return;
        }
        match connection() {
            Ok(connection) => {
                for request in requests {
                    let job = commands.job();
                    if let Some(replaced) = self.sent(job, &request) {
                        commands.cancel(replaced);
                    }
                    commands.send(SupportCommand::Ask { job, connection: connection.clone(), request });
                }
            }
            Err(message) => self.not_sent(message),
        }
    }

    /// Asks the store for the deliveries that mention the user shown.
    fn ask_lately(&mut self, commands: &mut Commands) {
        let Some(Found::User(user)) = self.found.value() else { return };
        let keys = [Some(user.ref_.clone()), user.id.clone()].into_iter().flatten().collect();
        let job = commands.job();
        self.lately.start();
        self.lately_job = Some(job);
        commands.send(SupportCommand::Deliveries { job, keys });
    }

    /// Whether anything the window asked is still under way (for tests: the card's sections and
    /// deliveries arrive after the card).
    pub fn busy(&self) -> bool {
        self.found.is_pending() || self.lately.is_pending() || self.group.is_pending() || self.card.busy()
    }

    /// A delivery to show in the webhook inspector, once clicked at the foot of a card.
    pub fn take_open_delivery(&mut self) -> Option<i64> {
        self.open_delivery.take()
    }

    /// A card section's query to open in a new tab (its text and variables), once asked.
    pub fn take_open_query(&mut self) -> Option<(String, String)> {
        self.card.take_open_query()
    }

    /// Records that `request` was sent as `job`; returns an older job it replaces, to cancel.
    fn sent(&mut self, job: JobId, request: &SupportRequest) -> Option<JobId> {
        self.notice = None;
        match request {
            SupportRequest::Group(_) => {
                self.showing_group = true;
                self.group.start();
                self.group_job.replace(job)
            }
            SupportRequest::Find(_) | SupportRequest::Open(_) => {
                self.showing_group = false;
                if matches!(request, SupportRequest::Find(_)) {
                    self.matches = None;
                }
                self.found.start();
                self.find_job.replace(job)
            }
            SupportRequest::Groups(_)
            | SupportRequest::Act { .. }
            | SupportRequest::Section { .. }
            | SupportRequest::ChangeState { .. }
            | SupportRequest::Choices(_)
            | SupportRequest::Enroll { .. } => self.card.sent(job, request),
        }
    }

    /// A request that could not be sent (no connection, the worker is gone).
    fn not_sent(&mut self, message: String) {
        self.notice = Some(message);
    }

    /// Records the answer of `job`; answers of replaced jobs are dropped.
    fn apply(&mut self, job: JobId, result: Result<SupportReply, SupportError>) {
        if self.group_job == Some(job) {
            self.group_job = None;
            self.group.finish(result.and_then(|reply| match reply {
                SupportReply::Group(card) => Ok(card),
                other => Err(SupportError::Api(crate::api::ApiError::BadResponse(format!("unexpected {other:?}")))),
            }));
            return;
        }
        if self.find_job == Some(job) {
            self.find_job = None;
            let found = result.and_then(|reply| match reply {
                SupportReply::Found(found) => Ok(found),
                other => Err(SupportError::Api(crate::api::ApiError::BadResponse(format!("unexpected {other:?}")))),
            });
            match &found {
                Ok(Found::User(user)) => {
                    self.card.load(user);
                    self.focus_card = true;
                }
                Ok(Found::Several(list)) => self.matches = Some(list.clone()),
                _ => {}
            }
            self.found.finish(found);
            return;
        }
        if let Some(user) = self.card.apply(job, result)
            && let Some(Found::User(shown)) = self.found.value_mut()
            && shown.ref_ == user.ref_
        {
            *shown = user;
        }
    }

    /// Draws the window when open; returns what to ask the service.
    fn draw(&mut self, ctx: &egui::Context, access: &Access) -> Option<SupportRequest> {
        if !self.open {
            return None;
        }
        self.follow(access);
        let mut request = None;
        let mut open = self.open;
        let screen = ctx.content_rect();
        let dialog = crate::ui::widgets::a11y::Dialog::new("find-user");
        let mut escaped = false;
        egui::Window::new("Find user")
            .title_bar(false)
            .default_width(480.0)
            .resizable([true, false])
            // Room to grow into: the window is as tall as its content, up to this.
            .default_height(screen.height() - 150.0)
            .pivot(egui::Align2::RIGHT_TOP)
            .default_pos(screen.right_top() + egui::vec2(-16.0, 72.0))
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Find user");
                request = self.search_ui(ui, access);
                ui.separator();
                // The window fits its content, and scrolls what does not fit on the screen.
                egui::ScrollArea::vertical().max_height(screen.height() - 240.0).auto_shrink([false, true]).show(
                    ui,
                    |ui| {
                        if let Some(r) = self.result_ui(ui, access) {
                            request = Some(r);
                        }
                        crate::ui::widgets::a11y::reveal_focus(ui);
                    },
                );
            });
        open &= !escaped;
        self.open = open;
        dialog.after(ctx, open);
        if let Some(r) = self.card.confirm_ui(ctx) {
            request = Some(r);
        }
        request
    }

    /// Results belong to one connection: choosing another one clears them.
    fn follow(&mut self, access: &Access) {
        let changed = self.connection.as_ref().is_some_and(|c| *c != access.connection);
        if changed && !matches!(self.found, Requested::Idle) {
            *self = FindUserWindow {
                open: self.open,
                typed: std::mem::take(&mut self.typed),
                notice: Some(format!("The connection is now {}: find the user again there.", access.connection)),
                ..FindUserWindow::default()
            };
        }
        self.connection = Some(access.connection.clone());
    }

    fn search_ui(&mut self, ui: &mut egui::Ui, access: &Access) -> Option<SupportRequest> {
        let can_read = access.scopes.contains(Scope::UsersRead);
        let mut go = false;
        ui.horizontal(|ui| {
            let label = ui.label("User to find");
            let edit = ui
                .add(egui::TextEdit::singleline(&mut self.typed).hint_text("ref, email or name").desired_width(260.0))
                .labelled_by(label.id);
            if std::mem::take(&mut self.focus_search) {
                edit.request_focus();
            }
            go = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            go |= ui.add_enabled(can_read, egui::Button::new("Find")).clicked();
            if self.found.is_pending() {
                ui.spinner();
            }
        });
        ui.weak("An @ makes it an email, spaces a name; or begin with ref:, email: or name:");
        if !can_read {
            let text = format!(
                "Finding users needs the scope users.read, which the connection {} does not request; add it in Profiles….",
                access.connection
            );
            ui.colored_label(ui.visuals().warn_fg_color, text);
        }
        if let Some(notice) = &self.notice {
            crate::ui::widgets::a11y::polite_colored(ui, ui.visuals().warn_fg_color, notice);
        }
        if !(go && can_read) {
            return None;
        }
        if self.typed.trim().is_empty() {
            self.found = Requested::Done(Found::Nobody(nobody(&[])));
            return None;
        }
        Some(SupportRequest::Find(self.typed.trim().to_owned()))
    }

    fn result_ui(&mut self, ui: &mut egui::Ui, access: &Access) -> Option<SupportRequest> {
        if self.showing_group {
            return group_ui(ui, &self.group, &mut self.showing_group);
        }
        let Self { found, matches, card, lately, open_delivery, refresh_lately, focus_card, .. } = self;
        if let Some(error) = found.error() {
            crate::ui::widgets::a11y::alert(ui, format!("{error:#}"));
        }
        let mut request = None;
        match found.value() {
            None if found.is_pending() => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Looking…");
                });
            }
            None => {
                ui.weak("Type a ref, an email or a name, then Find.");
            }
            Some(Found::Nobody(sentence)) => {
                crate::ui::widgets::a11y::polite(ui, sentence.as_str());
            }
            Some(Found::Several(list)) => request = list_ui(ui, list),
            Some(Found::User(user)) => {
                if let Some(list) = matches.as_ref()
                    && ui.button(format!("Back to the {} matches", list.users.len())).clicked()
                {
                    *found = Requested::Done(Found::Several(list.clone()));
                    return None;
                }
                if *focus_card && !card.busy() {
                    // After Find, the focus lands on the card (its first control) once it is in,
                    // unless the person has put it somewhere meanwhile.
                    *focus_card = false;
                    if ui.memory(|m| m.focused()).is_none() {
                        crate::ui::widgets::a11y::focus_next_drawn(ui);
                    }
                }
                request = card.ui(ui, user, access.scopes);
                ui.add_space(6.0);
                lately_ui(ui, lately, open_delivery, refresh_lately);
            }
        }
        request
    }
}

/// The users that match, each a button that opens them.
fn list_ui(ui: &mut egui::Ui, list: &MatchList) -> Option<SupportRequest> {
    let mut open = None;
    ui.label(format!("{} users match '{}'. Pick one:", list.users.len(), one_line(&list.typed)));
    if !list.complete {
        ui.weak(scan_extent(list));
    }
    egui::Grid::new("find-user-matches").num_columns(3).striped(true).show(ui, |ui| {
        for user in &list.users {
            if ui.button(one_line(&user.name)).on_hover_text(format!("Open {}", user.named())).clicked() {
                open = Some(SupportRequest::Open(user.ref_.clone()));
            }
            ui.label(&user.email);
            ui.weak(format!("{} · {}", user.ref_, user.state().label()));
            ui.end_row();
        }
    });
    open
}

/// What happened lately: the stored webhook deliveries that mention the user, newest first, each
/// opening in the inspector.
fn lately_ui(
    ui: &mut egui::Ui,
    lately: &Requested<Vec<crate::store::DeliverySummary>, String>,
    open: &mut Option<i64>,
    refresh: &mut bool,
) {
    ui.horizontal(|ui| {
        let count = lately.value().map(|rows| format!(" ({})", rows.len())).unwrap_or_default();
        ui.strong(format!("Lately{count}"));
        if lately.is_pending() {
            ui.weak("reading…");
        }
        if ui
            .small_button("Refresh")
            .on_hover_text("Look for newer deliveries")
            .accessible_name("Refresh lately")
            .clicked()
        {
            *refresh = true;
        }
    });
    if let Some(error) = lately.error() {
        ui.colored_label(ui.visuals().error_fg_color, format!("The deliveries could not be read: {error}"));
    }
    let Some(rows) = lately.value() else { return };
    if rows.is_empty() {
        ui.weak("No webhook delivery in the inspector mentions this user.");
        return;
    }
    for row in rows {
        ui.horizontal(|ui| {
            let kind = row.event_type.clone().unwrap_or_else(|| format!("{} {}", row.method, row.path));
            let verified = match row.verified {
                Some(true) => "verified",
                Some(false) => "signature failed",
                None => "not checked",
            };
            let at = row.received_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S");
            let open_it = ui.link(&kind).on_hover_text("Open in the webhook inspector");
            if open_it.accessible_name(format!("Open delivery {} ({kind})", row.id)).clicked() {
                *open = Some(row.id);
            }
            ui.weak(format!("{at} · {verified}"));
        });
    }
}

/// A group's card in place of the user's: its people, each opening their own card.
fn group_ui(
    ui: &mut egui::Ui,
    group: &Requested<crate::support::GroupCard, SupportError>,
    showing: &mut bool,
) -> Option<SupportRequest> {
    if ui.button("Back to the user").clicked() {
        *showing = false;
        return None;
    }
    if group.is_pending() {
        ui.weak("reading the group…");
    }
    if let Some(error) = group.error() {
        ui.colored_label(ui.visuals().error_fg_color, format!("The group could not be read: {error:#}"));
    }
    let card = group.value()?;
    ui.heading(format!("{} ({})", one_line(&card.name), card.key));
    let mut open = None;
    for (heading, people, total) in &card.lists {
        ui.add_space(4.0);
        let count = total.unwrap_or(people.len() as u64);
        ui.strong(format!("{heading} ({count})"));
        if people.is_empty() {
            ui.weak("None.");
        }
        for person in people {
            ui.horizontal(|ui| {
                let button = ui.link(one_line(&person.name)).on_hover_text("Open their card");
                if button.accessible_name(format!("Open {} ({})", one_line(&person.name), person.ref_)).clicked() {
                    open = Some(SupportRequest::Open(person.ref_.clone()));
                }
                ui.weak(format!("{} · {}", person.ref_, person.email));
            });
        }
        if (people.len() as u64) < count {
            ui.weak(format!("The first {} of {count}; the group's query lists them all.", people.len()));
        }
    }
    open
}
