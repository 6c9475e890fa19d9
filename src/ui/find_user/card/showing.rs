//! What the card shows: the user's details (with their fields to edit where a change is offered),
//! and the learning sections, each with its count, its rows, "Show all" and "Open as a query".

use super::changing::{edit_pending, enroll_ui, refusals_ui};
use super::{CardEditor, Changed, StateChoice};
use crate::scopes::{Scope, ScopeSet};
use crate::support::{
    RefusedField, SectionInfo, SectionRow, SupportAction, SupportRequest, UserCard, UserEdit, UserState, one_line,
};

impl CardEditor {
    pub(super) fn details_ui(&mut self, ui: &mut egui::Ui, user: &UserCard, can_write: bool) {
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
}

impl CardEditor {
    /// The learning sections, each in its place: a heading with its count, its rows, "Show all"
    /// when more follow, "Open as a query", or why it could not be read. Returns "Show all"'s
    /// request.
    pub(super) fn sections_ui(
        &mut self,
        ui: &mut egui::Ui,
        user: &UserCard,
        scopes: ScopeSet,
    ) -> Option<SupportRequest> {
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

/// `LEARNER` → `Learner`.
fn title_case(word: &str) -> String {
    let lower = word.to_lowercase().replace('_', " ");
    let mut chars = lower.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
