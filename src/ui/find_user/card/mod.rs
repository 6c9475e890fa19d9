//! The card of one user in the "Find user" window: names, email, state, and the roles, dates,
//! groups and extra fields the connection's schema has (nothing it does not have); and, where
//! its schema offers a mutation and the connection's scopes allow, the changes support staff
//! make there, each confirmed in a modal that names what will change, then reported with the
//! service's outcome or its reasons for refusing, next to the field they are about.

use crate::scopes::{Scope, ScopeSet};
use crate::support::{
    Choice, GroupRef, Offers, RefusedField, SectionInfo, SectionPage, SectionRow, SupportAction, SupportError,
    SupportReply, SupportRequest, UserCard, UserEdit, UserState, one_line,
};
use crate::ui::widgets::requested::Requested;

/// What the card says when the connection's schema has no mutation support staff could use.
pub const NO_CHANGES: &str = "This service offers no changes to users through its schema.";
use crate::worker::JobId;

/// A change waiting for the person's yes.
#[derive(Debug, Clone)]
struct Pending {
    user_ref: String,
    action: SupportAction,
    question: String,
}

/// The field of the card a change made, where the focus lands once the service has answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Changed {
    State,
    Name,
    Email,
    Groups,
}

impl Changed {
    fn of(action: &SupportAction) -> Changed {
        match action {
            SupportAction::Activate | SupportAction::Archive => Changed::State,
            SupportAction::Edit(edit) if edit.name.is_none() => Changed::Email,
            SupportAction::Edit(_) => Changed::Name,
            SupportAction::AddToGroup(_) | SupportAction::RemoveFromGroup(_) => Changed::Groups,
        }
    }
}

/// A row's new state being chosen, before the person's yes.
struct StateChoice {
    user: crate::support::UserKeys,
    index: usize,
    key: String,
    about: String,
    states: Vec<String>,
    current: String,
    chosen: String,
}

/// One learning section of the card: asked for when the card opens, on its own.
struct Section {
    info: SectionInfo,
    /// Asked for (the first page, or every row).
    asked: Option<bool>,
    rows: Requested<SectionPage, SupportError>,
    job: Option<JobId>,
}

/// The card's own state: drafts of the editable fields, the group picker, the change under way,
/// the learning sections.
#[derive(Default)]
pub struct CardEditor {
    /// The user whose sections are shown.
    sections_of: Option<String>,
    sections: Vec<Section>,
    /// A section's document to open in a new tab (taken by the app).
    open_query: Option<(String, String)>,
    /// A row's new state being chosen: the section, the row's key and title, the state chosen.
    confirm_state: Option<StateChoice>,
    /// What the user can be enrolled in, as searched.
    choices: Requested<Vec<Choice>, SupportError>,
    choices_job: Option<JobId>,
    choice_filter: String,
    /// An enrollment waiting for the person's yes: the request and the question.
    confirm_enroll: Option<(SupportRequest, String)>,
    name: String,
    email: String,
    group_filter: String,
    groups: Requested<Vec<GroupRef>, SupportError>,
    groups_job: Option<JobId>,
    group_choice: Option<GroupRef>,
    confirm: Option<Pending>,
    outcome: Requested<String, SupportError>,
    action_job: Option<JobId>,
    /// The field a change just made, for the focus to land on at the next frame.
    land: Option<Changed>,
    /// The value the focus landed on last (focusable while it keeps the focus).
    landed: Option<egui::Id>,
}

impl CardEditor {
    /// Starts over with a user just found.
    pub fn load(&mut self, user: &UserCard) {
        self.name = user.name.clone();
        self.email = user.email.clone();
        self.group_choice = None;
        self.confirm = None;
        self.outcome = Requested::Idle;
        self.action_job = None;
        let same = self.sections_of.as_deref() == Some(user.ref_.as_str())
            && self.sections.iter().map(|s| &s.info).eq(user.sections.iter());
        if !same {
            self.sections_of = Some(user.ref_.clone());
            self.sections = user
                .sections
                .iter()
                .map(|info| Section { info: info.clone(), asked: None, rows: Requested::Idle, job: None })
                .collect();
        }
    }

    /// The sections of `user` still to ask for (each once; "Show all" asks again).
    pub fn section_requests(&mut self, user: &UserCard) -> Vec<SupportRequest> {
        let mut asks = Vec::new();
        for section in &mut self.sections {
            if section.asked.is_none() {
                section.asked = Some(false);
                asks.push(SupportRequest::Section { user: user.keys(), index: section.info.index, all: false });
            }
        }
        asks
    }

    /// Whether a section, a search or a change is still being read.
    pub fn busy(&self) -> bool {
        self.sections.iter().any(|s| s.rows.is_pending() || s.asked.is_none())
            || self.choices.is_pending()
            || self.outcome.is_pending()
            || self.groups.is_pending()
    }

    /// A section's document to open as a query: its text and variables.
    pub fn take_open_query(&mut self) -> Option<(String, String)> {
        self.open_query.take()
    }

    /// Records that a group search or a change was sent as `job`; returns the job it replaces.
    pub fn sent(&mut self, job: JobId, request: &SupportRequest) -> Option<JobId> {
        match request {
            SupportRequest::Section { index, all, .. } => {
                let section = self.sections.iter_mut().find(|s| s.info.index == *index)?;
                section.asked = Some(*all);
                section.rows.start();
                section.job.replace(job)
            }
            SupportRequest::ChangeState { index, .. } => {
                let section = self.sections.iter_mut().find(|s| s.info.index == *index)?;
                section.rows.start();
                section.job.replace(job)
            }
            SupportRequest::Choices(_) => {
                self.choices.start();
                self.choices_job.replace(job)
            }
            SupportRequest::Enroll { .. } => {
                let section = self.sections.iter_mut().find(|s| s.info.enroll_in.is_some())?;
                section.rows.start();
                section.job.replace(job)
            }
            SupportRequest::Groups(_) => {
                self.groups.start();
                self.groups_job.replace(job)
            }
            _ => {
                self.outcome.start();
                self.action_job.replace(job)
            }
        }
    }

    /// Records the answer of `job`; returns the user as a change left them, for the card.
    pub fn apply(&mut self, job: JobId, result: Result<SupportReply, SupportError>) -> Option<Box<UserCard>> {
        if let Some(section) = self.sections.iter_mut().find(|s| s.job == Some(job)) {
            section.job = None;
            section.rows.finish(result.and_then(|reply| match reply {
                SupportReply::Section(page) => Ok(page),
                other => Err(SupportError::Api(crate::api::ApiError::BadResponse(format!("unexpected {other:?}")))),
            }));
            return None;
        }
        if self.choices_job == Some(job) {
            self.choices_job = None;
            self.choices.finish(result.map(|reply| match reply {
                SupportReply::Choices(choices) => choices,
                _ => Vec::new(),
            }));
            return None;
        }
        if self.groups_job == Some(job) {
            self.groups_job = None;
            self.groups.finish(result.map(|reply| match reply {
                SupportReply::Groups(groups) => groups,
                _ => Vec::new(),
            }));
            return None;
        }
        if self.action_job != Some(job) {
            return None;
        }
        self.action_job = None;
        match result {
            Ok(SupportReply::Acted { user, outcome, action }) => {
                self.load(&user);
                self.outcome.finish(Ok(outcome));
                // The focus goes to what changed; the outcome under the card is read out.
                self.land = Some(Changed::of(&action));
                Some(user)
            }
            Ok(_) => None,
            Err(error) => {
                self.outcome.finish(Err(error));
                None
            }
        }
    }

    /// Draws the card of `user`; returns a group search to run (changes go through the modal).
    pub fn ui(&mut self, ui: &mut egui::Ui, user: &UserCard, scopes: ScopeSet) -> Option<SupportRequest> {
        let offers = &user.offers;
        ui.heading(one_line(&user.name));
        if let Some(notice) = &offers.notice {
            ui.colored_label(ui.visuals().warn_fg_color, notice);
        }
        self.details_ui(ui, user, scopes.contains(Scope::UsersWrite));
        let mut search = None;
        if user.groups.is_some() {
            ui.add_space(6.0);
            search = self.groups_ui(ui, user, scopes);
        }
        if user.extra_fields.is_some() {
            ui.add_space(6.0);
            extra_fields_ui(ui, user);
        }
        if !user.more.is_empty() {
            ui.add_space(6.0);
            ui.strong("More");
            egui::Grid::new("find-user-more").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
                for (label, value) in &user.more {
                    ui.label(label);
                    ui.add(egui::Label::new(value).selectable(true));
                    ui.end_row();
                }
            });
        }
        ui.add_space(6.0);
        if let Some(more) = self.sections_ui(ui, user, scopes) {
            search = Some(more);
        }
        ui.add_space(6.0);
        self.outcome_ui(ui);
        if !offers.any() {
            ui.weak(NO_CHANGES);
        }
        let missing: Vec<&str> =
            needed_scopes(offers).into_iter().filter(|s| !scopes.contains(*s)).map(Scope::as_str).collect();
        if !missing.is_empty() {
            ui.weak(format!("Changes need {}, which this connection does not request.", missing.join(" and ")));
        }
        search
    }

    fn details_ui(&mut self, ui: &mut egui::Ui, user: &UserCard, can_write: bool) {
        let offers = &user.offers;
        let busy = self.outcome.is_pending();
        let mut ask = None;
        egui::Grid::new("find-user-card").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
            ui.label("Ref");
            ui.add(egui::Label::new(&user.ref_).selectable(true));
            ui.end_row();
            for (label, field, draft, current, offered) in [
                ("Name", RefusedField::Name, &mut self.name, &user.name, offers.edit_name),
                ("Email", RefusedField::Email, &mut self.email, &user.email, offers.edit_email),
            ] {
                let changed = if field == RefusedField::Name { Changed::Name } else { Changed::Email };
                let land = self.land.take_if(|c| *c == changed).is_some();
                let label = ui.label(label);
                ui.vertical(|ui| {
                    if can_write && offered {
                        let edit = ui.add(egui::TextEdit::singleline(draft).desired_width(300.0)).labelled_by(label.id);
                        if land {
                            edit.request_focus();
                            edit.scroll_to_me(None);
                        }
                    } else {
                        ui.add(egui::Label::new(one_line(current)).selectable(true));
                    }
                    refusals_ui(ui, &self.outcome, Some(field));
                });
                ui.end_row();
            }
            ui.label("State");
            ui.horizontal(|ui| {
                let colour = match user.state() {
                    UserState::Active => ui.visuals().widgets.noninteractive.fg_stroke.color,
                    UserState::Archived => ui.visuals().warn_fg_color,
                };
                let text = egui::RichText::new(user.state().label()).color(colour);
                let land = self.land.take_if(|c| *c == Changed::State).is_some();
                let name = format!("State: {}", user.state().label());
                let shown = crate::ui::widgets::a11y::landing(ui, text, &name, land, self.landed);
                if land {
                    self.landed = Some(shown.id);
                }
                let (action, offered) = match user.state() {
                    UserState::Active => (SupportAction::Archive, offers.archive),
                    UserState::Archived => (SupportAction::Activate, offers.activate),
                };
                // One id for Archive and Activate: the focus given back after the change finds it.
                if can_write && offered {
                    let button =
                        ui.push_id("state-action", |ui| ui.add_enabled(!busy, egui::Button::new(action.verb())));
                    if button.inner.clicked() {
                        ask = Some(action);
                    }
                }
            });
            ui.end_row();
            if let Some(roles) = &user.roles {
                ui.label("Roles");
                if roles.is_empty() {
                    ui.weak("None");
                } else {
                    ui.label(roles.iter().map(|r| title_case(r)).collect::<Vec<_>>().join(", "));
                }
                ui.end_row();
            }
            for moment in &user.dates {
                ui.label(&moment.label);
                ui.label(&moment.shown);
                ui.end_row();
            }
        });
        if can_write && (offers.edit_name || offers.edit_email) {
            let edit = UserEdit::between(user, &self.name, &self.email);
            ui.horizontal(|ui| {
                let save = ui.add_enabled(!busy && edit.is_some(), egui::Button::new("Save changes"));
                if let Some(edit) = edit.filter(|_| save.clicked()) {
                    ask = Some(SupportAction::Edit(edit));
                }
                if ui.add_enabled(!busy && edit_pending(user, self), egui::Button::new("Undo edits")).clicked() {
                    self.name = user.name.clone();
                    self.email = user.email.clone();
                }
            });
        }
        if let Some(action) = ask {
            self.ask(user, action);
        }
    }

    fn groups_ui(&mut self, ui: &mut egui::Ui, user: &UserCard, scopes: ScopeSet) -> Option<SupportRequest> {
        let can_change = scopes.contains(Scope::GroupsWrite);
        let busy = self.outcome.is_pending();
        let groups = user.groups.as_deref().unwrap_or_default();
        let land = self.land.take_if(|c| *c == Changed::Groups).is_some();
        let heading = format!("Groups ({})", groups.len());
        let text = egui::RichText::new(&heading).strong();
        let landed = ui
            .push_id("groups-heading", |ui| crate::ui::widgets::a11y::landing(ui, text, &heading, land, self.landed))
            .inner;
        if land {
            self.landed = Some(landed.id);
        }
        if groups.is_empty() {
            ui.weak("In no group.");
        }
        let mut ask = None;
        let mut open_group = None;
        egui::Grid::new("find-user-groups").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
            for group in groups {
                let open = ui.link(group.named()).on_hover_text("The group's card: its members and managers");
                if open.clicked() && !group.ref_.is_empty() {
                    open_group = Some(SupportRequest::Group(group.ref_.clone()));
                }
                let remove = egui::Button::new("Remove");
                if can_change
                    && user.offers.remove_from_group
                    && ui.add_enabled(!busy, remove).accessible_name(format!("Remove from {}", group.named())).clicked()
                {
                    ask = Some(SupportAction::RemoveFromGroup(group.clone()));
                }
                ui.end_row();
            }
        });
        refusals_ui(ui, &self.outcome, Some(RefusedField::Group));
        let mut search = None;
        let can_add = can_change && user.offers.add_to_group;
        if can_add && scopes.contains(Scope::GroupsRead) {
            search = self.picker_ui(ui, user, &mut ask);
        } else if can_add {
            ui.weak("Adding to a group needs groups.read too, to list the groups.");
        }
        if let Some(action) = ask {
            self.ask(user, action);
        }
        open_group.or(search)
    }

    /// Search groups by name, choose one, add the user to it.
    fn picker_ui(
        &mut self,
        ui: &mut egui::Ui,
        user: &UserCard,
        ask: &mut Option<SupportAction>,
    ) -> Option<SupportRequest> {
        let mut search = None;
        ui.horizontal(|ui| {
            let label = ui.label("Group name");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.group_filter).hint_text("part of a name").desired_width(160.0),
                )
                .labelled_by(label.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button("Search groups").clicked() || enter {
                search = Some(SupportRequest::Groups(self.group_filter.clone()));
            }
            if self.groups.is_pending() {
                ui.spinner();
            }
        });
        if let Some(error) = self.groups.error() {
            ui.colored_label(ui.visuals().error_fg_color, format!("{error:#}"));
        }
        let Some(groups) = self.groups.value() else { return search };
        let choices: Vec<&GroupRef> = groups.iter().filter(|g| !user.is_member_of(g)).collect();
        ui.horizontal(|ui| {
            let label = ui.label("Group to add to");
            let shown = self.group_choice.as_ref().map_or_else(|| "Choose a group".to_owned(), GroupRef::named);
            let response = egui::ComboBox::from_id_salt("find-user-group")
                .selected_text(shown)
                .width(240.0)
                .show_ui(ui, |ui| {
                    for group in &choices {
                        crate::ui::widgets::a11y::choose(
                            ui,
                            &mut self.group_choice,
                            Some((*group).clone()),
                            group.named(),
                        );
                    }
                })
                .response
                .labelled_by(label.id);
            crate::ui::widgets::a11y::say_combo_value(ui, &response);
            let choice = self.group_choice.clone().filter(|g| !user.is_member_of(g));
            let add = ui.add_enabled(!self.outcome.is_pending() && choice.is_some(), egui::Button::new("Add to group"));
            if let Some(group) = choice.filter(|_| add.clicked()) {
                *ask = Some(SupportAction::AddToGroup(group));
            }
        });
        ui.weak(match choices.len() {
            0 => "No group the user is not in matches.".to_owned(),
            1 => "1 group to choose from.".to_owned(),
            n => format!("{n} groups to choose from."),
        });
        search
    }

    fn ask(&mut self, user: &UserCard, action: SupportAction) {
        let question = action.question(user);
        self.confirm = Some(Pending { user_ref: user.ref_.clone(), action, question });
    }

    /// The choice of a row's new state, as a modal that names the change; returns it once
    /// confirmed.
    fn confirm_state_ui(&mut self, ctx: &egui::Context) -> Option<SupportRequest> {
        let choice = self.confirm_state.as_mut()?;
        let mut answer = None;
        let dialog = crate::ui::widgets::a11y::Dialog::new("find-user-confirm-state");
        let modal = egui::Modal::new(egui::Id::unique("find-user-confirm-state")).show(ctx, |ui| {
            dialog.modal_contents(ui);
            ui.set_max_width(420.0);
            ui.strong("Change the status");
            crate::ui::widgets::a11y::question(
                ui,
                &format!("{} is {}. Its new status:", choice.about, crate::shape::enum_words(&choice.current)),
            );
            for state in &choice.states {
                ui.radio_value(&mut choice.chosen, state.clone(), crate::shape::enum_words(state));
            }
            let changed = choice.chosen != choice.current;
            if changed {
                ui.label(format!(
                    "Change it to {}? The service may tell the learner.",
                    crate::shape::enum_words(&choice.chosen)
                ));
            }
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.add_enabled(changed, egui::Button::new("Confirm")).clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        if modal.should_close() {
            answer.get_or_insert(false);
        }
        let confirmed = answer?;
        dialog.after(ctx, false);
        let choice = self.confirm_state.take()?;
        confirmed.then_some(SupportRequest::ChangeState {
            user: choice.user,
            index: choice.index,
            key: choice.key,
            state: choice.chosen,
        })
    }

    /// The confirmation of a change, as a modal; returns the change once confirmed.
    pub fn confirm_ui(&mut self, ctx: &egui::Context) -> Option<SupportRequest> {
        if self.confirm_state.is_some() {
            return self.confirm_state_ui(ctx);
        }
        if let Some((_, question)) = &self.confirm_enroll {
            let mut answer = None;
            let dialog = crate::ui::widgets::a11y::Dialog::new("find-user-confirm-enroll");
            let modal = egui::Modal::new(egui::Id::unique("find-user-confirm-enroll")).show(ctx, |ui| {
                dialog.modal_contents(ui);
                ui.set_max_width(420.0);
                ui.strong("Enroll");
                crate::ui::widgets::a11y::question(ui, question);
                ui.add_space(8.0);
                ui.horizontal(|ui| {
                    if ui.button("Confirm").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(false);
                    }
                });
            });
            if modal.should_close() {
                answer.get_or_insert(false);
            }
            let confirmed = answer?;
            dialog.after(ctx, false);
            let (request, _) = self.confirm_enroll.take()?;
            return confirmed.then_some(request);
        }
        let pending = self.confirm.as_ref()?;
        let mut answer = None;
        let dialog = crate::ui::widgets::a11y::Dialog::new("find-user-confirm");
        let modal = egui::Modal::new(egui::Id::unique("find-user-confirm")).show(ctx, |ui| {
            dialog.modal_contents(ui);
            ui.set_max_width(420.0);
            ui.strong(pending.action.verb());
            crate::ui::widgets::a11y::question(ui, &pending.question);
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button("Confirm").clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        if modal.should_close() {
            answer.get_or_insert(false);
        }
        let confirmed = answer?;
        dialog.after(ctx, false);
        let pending = self.confirm.take()?;
        confirmed.then_some(SupportRequest::Act { user_ref: pending.user_ref, action: pending.action })
    }

    fn outcome_ui(&self, ui: &mut egui::Ui) {
        match &self.outcome {
            Requested::Pending { .. } => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Asking the service…");
                });
            }
            Requested::Done(outcome) => {
                crate::ui::widgets::a11y::polite(ui, outcome.as_str());
            }
            Requested::Failed { error: SupportError::Refused(_), .. } => refusals_ui(ui, &self.outcome, None),
            Requested::Failed { error, .. } => {
                crate::ui::widgets::a11y::alert(ui, format!("{error:#}"));
            }
            Requested::Idle => {}
        }
    }
}

impl CardEditor {
    /// The learning sections, each in its place: a heading with its count, its rows, "Show all"
    /// when more follow, "Open as a query", or why it could not be read. Returns "Show all"'s
    /// request.
    fn sections_ui(&mut self, ui: &mut egui::Ui, user: &UserCard, scopes: ScopeSet) -> Option<SupportRequest> {
        if user.sections.is_empty() {
            ui.weak(NO_LEARNING);
            return None;
        }
        let mut ask = None;
        for section in &mut self.sections {
            ui.add_space(4.0);
            let count = match section.rows.value() {
                Some(page) => format!(" ({})", page.total.unwrap_or(page.rows.len() as u64)),
                None => String::new(),
            };
            ui.horizontal(|ui| {
                ui.strong(format!("{}{count}", section.info.label));
                // Words, not a spinner: the answer wakes the window, and nothing repaints meanwhile.
                if section.rows.is_pending() {
                    ui.weak("reading…");
                }
                if let Some(page) = section.rows.value() {
                    let open = ui
                        .small_button("Open as a query")
                        .on_hover_text("The query that read these rows, in a new tab");
                    if open.accessible_name(format!("Open {} as a query", section.info.label)).clicked() {
                        let variables = serde_json::to_string_pretty(&page.variables).unwrap_or_default();
                        self.open_query = Some((page.query.clone(), variables));
                    }
                }
            });
            if let Some(error) = section.rows.error() {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("{} could not be read: {error:#}", section.info.label),
                );
            }
            let Some(page) = section.rows.value() else { continue };
            // An action the schema says needs a scope the connection lacks is not offered.
            let lacking = |scope: Option<Scope>| scope.filter(|s| !scopes.contains(*s));
            let may_change = lacking(section.info.change_scope).is_none();
            let may_enroll = lacking(section.info.enroll_scope).is_none();
            let mut needs: Vec<Scope> = [lacking(section.info.change_scope), lacking(section.info.enroll_scope)]
                .into_iter()
                .flatten()
                .collect();
            needs.dedup();
            for scope in needs {
                ui.weak(format!(
                    "Changes to {} need {}, which this connection does not request.",
                    section.info.label.to_lowercase(),
                    scope.as_str()
                ));
            }
            // Someone with no enrollment yet can still be enrolled: the search comes first.
            if let Some(what) = section.info.enroll_in.clone().filter(|_| may_enroll)
                && let Some(search) =
                    enroll_ui(ui, &what, &mut self.choice_filter, &self.choices, user, &mut self.confirm_enroll)
            {
                ask = Some(search);
            }
            if page.rows.is_empty() {
                ui.weak("None.");
                continue;
            }
            let busy = section.rows.is_pending();
            let mut change = None;
            ui.push_id(("find-user-section", section.info.index), |ui| {
                for row in &page.rows {
                    let offer = row.key.as_ref().filter(|_| !section.info.states.is_empty() && may_change);
                    if let Some(state) = section_row_ui(ui, &section.info, row, offer.is_some() && !busy) {
                        change = offer.map(|key| (key.clone(), row.title.clone(), state));
                    }
                }
            });
            if let Some((key, title, current)) = change {
                let about = if title.is_empty() { key.clone() } else { format!("{title} ({key})") };
                self.confirm_state = Some(StateChoice {
                    user: user.keys(),
                    index: section.info.index,
                    key,
                    about,
                    states: section.info.states.clone(),
                    chosen: current.clone(),
                    current,
                });
            }
            if page.more && !section.rows.is_pending() {
                let all = page.total.map_or_else(|| "Show all".to_owned(), |total| format!("Show all {total}"));
                let button = ui.button(&all).on_hover_text("Read every row (up to 1,000)");
                if button.accessible_name(format!("{all} {}", section.info.label)).clicked() {
                    ask = Some(SupportRequest::Section { user: user.keys(), index: section.info.index, all: true });
                }
            }
        }
        ask
    }
}

/// Enrolling in something (an offer): a search by title, the matches, each asking first.
fn enroll_ui(
    ui: &mut egui::Ui,
    what: &str,
    filter: &mut String,
    choices: &Requested<Vec<Choice>, SupportError>,
    user: &UserCard,
    confirm: &mut Option<(SupportRequest, String)>,
) -> Option<SupportRequest> {
    let mut search = None;
    ui.horizontal(|ui| {
        let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        let label = ui.label(format!("Enroll in {article} {what}"));
        let edit = ui
            .add(egui::TextEdit::singleline(filter).hint_text("part of a title").desired_width(160.0))
            .labelled_by(label.id);
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui.button(format!("Search {what}s")).clicked() || enter {
            search = Some(SupportRequest::Choices(filter.clone()));
        }
        if choices.is_pending() {
            ui.weak("reading…");
        }
    });
    if let Some(error) = choices.error() {
        ui.colored_label(ui.visuals().error_fg_color, format!("{error:#}"));
    }
    if let Some(found) = choices.value() {
        if found.is_empty() {
            ui.weak(format!("No {what} matches."));
        }
        for choice in found.iter().take(20) {
            ui.horizontal_wrapped(|ui| {
                let button = ui.small_button("Enroll").on_hover_text("Asks first");
                if button.accessible_name(format!("Enroll in {}", choice.title)).clicked() {
                    let question = format!("Enroll {} ({}) in {}?", one_line(&user.name), user.ref_, choice.title);
                    let request = SupportRequest::Enroll { user: user.keys(), key: choice.key.clone() };
                    *confirm = Some((request, question));
                }
                ui.label(&choice.title);
                ui.weak(&choice.when);
            });
        }
        if found.len() > 20 {
            ui.weak(format!("{} more: narrow the search.", found.len() - 20));
        }
    }
    search
}

/// What the card says of a service whose schema has no list related to users.
pub const NO_LEARNING: &str =
    "This service's schema offers no learning data about users (no enrollments, progress or certificates).";

/// The state a row can be given, in a list of the enum's values in words; returns the one chosen.
fn state_choice_ui(ui: &mut egui::Ui, info: &SectionInfo, row: &SectionRow) -> Option<String> {
    let name = format!("Change the status of {}", if row.title.is_empty() { "this row" } else { row.title.as_str() });
    let button = ui.small_button("Change…").on_hover_text("Give it another status (asks first)");
    let current = row.state_value.clone().or_else(|| info.states.first().cloned()).unwrap_or_default();
    button.accessible_name(name).clicked().then_some(current)
}

/// A row: what it is about on its own line; below, its state (with the choice of another when
/// `can_change`), its progress, whether it expired, and its dates. Returns the state chosen.
fn section_row_ui(ui: &mut egui::Ui, info: &SectionInfo, row: &SectionRow, can_change: bool) -> Option<String> {
    let title = if row.title.is_empty() { "—" } else { row.title.as_str() };
    ui.add(egui::Label::new(title).wrap());
    let mut chosen = None;
    ui.horizontal_wrapped(|ui| {
        ui.add_space(12.0);
        if let Some(state) = &row.state {
            ui.label(state);
        }
        if can_change {
            chosen = state_choice_ui(ui, info, row);
        }
        if let Some(percent) = row.percent {
            let bar = egui::ProgressBar::new((percent / 100.0).clamp(0.0, 1.0) as f32)
                .desired_width(90.0)
                .text(format!("{percent:.0} %"));
            ui.add(bar);
        }
        if row.expired {
            ui.colored_label(ui.visuals().warn_fg_color, "expired");
        }
        for (label, value) in &row.dates {
            ui.weak(format!("{label} {value}"));
        }
    });
    ui.add_space(2.0);
    chosen
}

/// The refusals of the last change that are about `field` (`None`: about no field shown).
fn refusals_ui(ui: &mut egui::Ui, outcome: &Requested<String, SupportError>, field: Option<RefusedField>) {
    let Some(SupportError::Refused(refusals)) = outcome.error() else { return };
    let shown_elsewhere =
        |f: Option<RefusedField>| matches!(f, Some(RefusedField::Name | RefusedField::Email | RefusedField::Group));
    for refusal in refusals {
        let here = match field {
            Some(_) => refusal.field == field,
            None => !shown_elsewhere(refusal.field),
        };
        if here {
            ui.colored_label(ui.visuals().error_fg_color, &refusal.sentence);
        }
    }
}

fn edit_pending(user: &UserCard, editor: &CardEditor) -> bool {
    editor.name != user.name || editor.email != user.email
}

/// The scopes the changes offered need (none offered: none needed).
fn needed_scopes(offers: &Offers) -> Vec<Scope> {
    let mut scopes = Vec::new();
    if offers.activate || offers.archive || offers.edit_name || offers.edit_email {
        scopes.push(Scope::UsersWrite);
    }
    if offers.add_to_group || offers.remove_from_group {
        scopes.push(Scope::GroupsWrite);
    }
    scopes
}

fn extra_fields_ui(ui: &mut egui::Ui, user: &UserCard) {
    let fields = user.extra_fields.as_deref().unwrap_or_default();
    ui.strong("Extra fields");
    if fields.is_empty() {
        ui.weak("None.");
        return;
    }
    egui::Grid::new("find-user-extra").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
        for field in fields {
            ui.label(&field.name);
            match &field.value {
                Some(value) => ui.label(one_line(value)),
                None => ui.weak("—"),
            };
            ui.end_row();
        }
    });
}

/// `LEARNER` → `Learner`.
fn title_case(word: &str) -> String {
    let lower = word.to_lowercase().replace('_', " ");
    let mut chars = lower.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
