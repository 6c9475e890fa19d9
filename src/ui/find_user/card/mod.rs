//! The card of one user in the "Find user" window: names, email, state, and the roles, dates,
//! groups and extra fields the connection's schema has (nothing it does not have); and, where
//! its schema offers a mutation and the connection's scopes allow, the changes support staff
//! make there, each confirmed in a modal that names what will change, then reported with the
//! service's outcome or its reasons for refusing, next to the field they are about.

mod changing;
mod showing;

use crate::scopes::{Scope, ScopeSet};
use crate::support::{
    Choice, GroupRef, Offers, SectionInfo, SectionPage, SupportAction, SupportError, SupportReply, SupportRequest,
    UserCard, one_line,
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
