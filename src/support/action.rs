//! The changes support staff make from the card, each a typed action: the scope it needs, the
//! question that confirms it, and the sentence that reports it. The mutation that does it is
//! the connection's schema's (see `Capabilities::action_request`).

use super::user::{GroupRef, UserCard, UserState, one_line};
use crate::scopes::Scope;

/// A change to one user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SupportAction {
    /// Make an archived user active again (e.g. `updateUser` with `isActive: true`).
    Activate,
    /// Archive the user (e.g. `archiveUser`).
    Archive,
    /// Change the name, the email, or both (e.g. `updateUser`).
    Edit(UserEdit),
    /// Add the user to a group (e.g. `addGroupMembers`).
    AddToGroup(GroupRef),
    /// Remove the user from a group (e.g. `removeGroupMembers`).
    RemoveFromGroup(GroupRef),
}

/// New values for a user; a field left `None` stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserEdit {
    /// The new name.
    pub name: Option<String>,
    /// The new email.
    pub email: Option<String>,
}

impl UserEdit {
    /// The changes from `card` to the values typed, or `None` when nothing changed. Spaces at
    /// either end are dropped; anything else (an empty name, an odd address) is the service's to
    /// judge, so that its own message is shown.
    pub fn between(card: &UserCard, name: &str, email: &str) -> Option<UserEdit> {
        let changed = |typed: &str, current: &str| (typed.trim() != current).then(|| typed.trim().to_owned());
        let edit = UserEdit { name: changed(name, &card.name), email: changed(email, &card.email) };
        (edit != UserEdit::default()).then_some(edit)
    }
}

impl SupportAction {
    /// The scope the action needs.
    pub fn scope(&self) -> Scope {
        match self {
            SupportAction::Activate | SupportAction::Archive | SupportAction::Edit(_) => Scope::UsersWrite,
            SupportAction::AddToGroup(_) | SupportAction::RemoveFromGroup(_) => Scope::GroupsWrite,
        }
    }

    /// The question that confirms the action, naming what will change.
    pub fn question(&self, user: &UserCard) -> String {
        let who = user.summary().named();
        match self {
            SupportAction::Activate => format!("Activate {who}? Their state changes from Archived to Active."),
            SupportAction::Archive => format!("Archive {who}? Their state changes from Active to Archived."),
            SupportAction::Edit(edit) => {
                // The first change names the user: "the name of Anna (u1) from … and the email from …".
                let mut changes = Vec::new();
                if let Some(name) = &edit.name {
                    changes.push(("name", one_line(&user.name), one_line(name)));
                }
                if let Some(email) = &edit.email {
                    changes.push(("email", user.email.clone(), email.clone()));
                }
                let words: Vec<String> = changes
                    .iter()
                    .enumerate()
                    .map(|(i, (field, from, to))| {
                        let of = if i == 0 { format!(" of {who}") } else { String::new() };
                        format!("the {field}{of} from '{from}' to '{to}'")
                    })
                    .collect();
                format!("Change {}?", words.join(" and "))
            }
            SupportAction::AddToGroup(group) => format!("Add {who} to the group {}?", group.named()),
            SupportAction::RemoveFromGroup(group) => format!("Remove {who} from the group {}?", group.named()),
        }
    }

    /// The button that confirms it: `Archive`, `Save changes`, …
    pub fn verb(&self) -> &'static str {
        match self {
            SupportAction::Activate => "Activate",
            SupportAction::Archive => "Archive",
            SupportAction::Edit(_) => "Save changes",
            SupportAction::AddToGroup(_) => "Add to group",
            SupportAction::RemoveFromGroup(_) => "Remove from group",
        }
    }

    /// What was done, once the service has answered with the user as they are now.
    pub fn done(&self, user: &UserCard) -> String {
        let who = user.summary().named();
        match self {
            SupportAction::Activate | SupportAction::Archive => match user.state() {
                UserState::Active => format!("{who} is active."),
                UserState::Archived => format!("{who} is archived."),
            },
            SupportAction::Edit(edit) => match (&edit.name, &edit.email) {
                (Some(_), Some(_)) => format!("Saved the name and email of {who}."),
                (Some(_), None) => format!("Saved the name of {who}."),
                _ => format!("Saved the email of {who}."),
            },
            SupportAction::AddToGroup(group) => format!("Added {who} to the group {}.", group.named()),
            SupportAction::RemoveFromGroup(group) => format!("Removed {who} from the group {}.", group.named()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card() -> UserCard {
        UserCard {
            sections: Vec::new(),
            more: Vec::new(),
            id: Some("VXNlcjox".into()),
            ref_: "u00001".into(),
            name: "Anna Smith".into(),
            email: "anna@example.com".into(),
            is_active: true,
            roles: Some(vec!["LEARNER".into()]),
            groups: Some(Vec::new()),
            extra_fields: None,
            dates: Vec::new(),
            offers: Default::default(),
        }
    }

    fn sales() -> GroupRef {
        GroupRef { id: "R3JvdXA6Mw==".into(), ref_: "g0003".into(), name: "Sales Berlin".into() }
    }

    #[test]
    fn each_action_needs_the_scope_the_contract_names() {
        assert_eq!(SupportAction::Archive.scope(), Scope::UsersWrite);
        assert_eq!(SupportAction::Edit(UserEdit::default()).scope(), Scope::UsersWrite);
        assert_eq!(SupportAction::AddToGroup(sales()).scope(), Scope::GroupsWrite);
    }

    #[test]
    fn an_edit_holds_only_what_changed() {
        let card = card();
        assert_eq!(UserEdit::between(&card, "Anna Smith", " anna@example.com "), None);
        let edit = UserEdit::between(&card, "Anna Smyth", "anna@example.com").unwrap();
        assert_eq!(edit, UserEdit { name: Some("Anna Smyth".into()), email: None });
        let edit = UserEdit::between(&card, "Anna Smith", "").unwrap();
        assert_eq!(edit.email.as_deref(), Some(""), "an empty email goes to the service, which refuses it");
    }

    #[test]
    fn the_question_names_what_will_change() {
        let card = card();
        let edit = SupportAction::Edit(UserEdit { name: Some("Anna\nSmyth".into()), email: Some("a@b.org".into()) });
        assert_eq!(
            edit.question(&card),
            "Change the name of Anna Smith (u00001) from 'Anna Smith' to 'Anna Smyth' and the email from 'anna@example.com' to 'a@b.org'?"
        );
        let email = SupportAction::Edit(UserEdit { name: None, email: Some("a@b.org".into()) });
        assert_eq!(
            email.question(&card),
            "Change the email of Anna Smith (u00001) from 'anna@example.com' to 'a@b.org'?"
        );
        assert_eq!(
            SupportAction::Archive.question(&card),
            "Archive Anna Smith (u00001)? Their state changes from Active to Archived."
        );
        assert_eq!(
            SupportAction::RemoveFromGroup(sales()).question(&card),
            "Remove Anna Smith (u00001) from the group Sales Berlin (g0003)?"
        );
    }
}
