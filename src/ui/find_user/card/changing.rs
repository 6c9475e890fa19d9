//! What the card changes: groups (the picker, add and remove), a row's state, an enrollment, each
//! confirmed in a modal that names the change, then the service's outcome or its reasons for
//! refusing, next to the field they are about.

use super::{CardEditor, Changed, Pending};
use crate::scopes::{Scope, ScopeSet};
use crate::support::{Choice, GroupRef, RefusedField, SupportAction, SupportError, SupportRequest, UserCard, one_line};
use crate::ui::widgets::requested::Requested;

impl CardEditor {
    pub(super) fn groups_ui(&mut self, ui: &mut egui::Ui, user: &UserCard, scopes: ScopeSet) -> Option<SupportRequest> {
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
}

impl CardEditor {
    /// Search groups by name, choose one, add the user to it.
    pub(super) fn picker_ui(
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
}

impl CardEditor {
    pub(super) fn ask(&mut self, user: &UserCard, action: SupportAction) {
        let question = action.question(user);
        self.confirm = Some(Pending { user_ref: user.ref_.clone(), action, question });
    }
}

impl CardEditor {
    /// The choice of a row's new state, as a modal that names the change; returns it once
    /// confirmed.
    pub(super) fn confirm_state_ui(&mut self, ctx: &egui::Context) -> Option<SupportRequest> {
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
}

impl CardEditor {
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
}

impl CardEditor {
    pub(super) fn outcome_ui(&self, ui: &mut egui::Ui) {
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

/// Enrolling in something (an offer): a search by title, the matches, each asking first.
pub(super) fn enroll_ui(
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

/// The refusals of the last change that are about `field` (`None`: about no field shown).
pub(super) fn refusals_ui(ui: &mut egui::Ui, outcome: &Requested<String, SupportError>, field: Option<RefusedField>) {
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

pub(super) fn edit_pending(user: &UserCard, editor: &CardEditor) -> bool {
    editor.name != user.name || editor.email != user.email
}
