//! The scope a field needs, where its description states it first: `users.read. …`,
//! `trainings.read: …`, `Needs groups.write. …`.

use crate::scopes::Scope;

/// The scope named at the start of `description`, after an optional `Needs` or `Requires`;
/// `None` when the description does not begin with a scope's name.
pub fn scope_in_description(description: &str) -> Option<Scope> {
    let text = description.trim_start();
    let text = ["Needs ", "needs ", "Requires ", "requires "]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))
        .unwrap_or(text)
        .trim_start();
    let end = text.find(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == '.')).unwrap_or(text.len());
    text[..end].trim_end_matches('.').parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_leading_scope_in_the_forms_schemas_use() {
        assert_eq!(scope_in_description("users.read. Null when none."), Some(Scope::UsersRead));
        assert_eq!(scope_in_description("trainings.read: progress"), Some(Scope::TrainingsRead));
        assert_eq!(scope_in_description("users.read (extra categories…)"), Some(Scope::UsersRead));
        assert_eq!(scope_in_description("Needs groups.write. Sends `group.created`."), Some(Scope::GroupsWrite));
        assert_eq!(scope_in_description("  extra_categories.write"), Some(Scope::ExtraCategoriesWrite));
    }

    #[test]
    fn says_none_when_no_scope_leads() {
        assert_eq!(scope_in_description("Groups the user is a member of. Readable with users.read."), None);
        assert_eq!(scope_in_description("users.admin. Not a scope."), None);
        assert_eq!(scope_in_description(""), None);
        assert_eq!(scope_in_description("Needs nothing."), None);
    }
}
