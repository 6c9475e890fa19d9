//! The service's reasons for refusing a change, one clear sentence each, placed at the field
//! they are about. The service names the failing input first: `input.email: not a valid address`.

use crate::api::GraphQlError;

/// What a refusal is about, so that it shows next to that field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusedField {
    /// The name.
    Name,
    /// The email.
    Email,
    /// The group of a membership change.
    Group,
    /// The user themself (their ref: deleted meanwhile, say).
    User,
}

impl RefusedField {
    /// The field an input path names: `input.email` → email, `groupRef` → group.
    fn of_path(path: &str) -> Option<Self> {
        let last = path.rsplit('.').next().unwrap_or(path);
        let last = last.split('[').next().unwrap_or(last);
        match last {
            "name" => Some(RefusedField::Name),
            "email" => Some(RefusedField::Email),
            "groupRef" => Some(RefusedField::Group),
            "ref" | "userRefs" => Some(RefusedField::User),
            _ => None,
        }
    }

    /// The field in words, inside a sentence.
    fn words(self) -> &'static str {
        match self {
            RefusedField::Name => "the name",
            RefusedField::Email => "the email",
            RefusedField::Group => "the group",
            RefusedField::User => "the user",
        }
    }
}

/// One reason the service gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The field it is about, when the service named one this window shows.
    pub field: Option<RefusedField>,
    /// One sentence: `The service refused the email: not a valid address.`
    pub sentence: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

/// The refusals of a response's `errors`, in order.
pub fn refusals(errors: &[GraphQlError]) -> Vec<Refusal> {
    errors.iter().map(|e| refusal(&e.message)).collect()
}

fn refusal(message: &str) -> Refusal {
    let message = message.trim();
    let named = message.split_once(": ").filter(|(path, _)| is_input_path(path));
    match named.and_then(|(path, reason)| Some((RefusedField::of_path(path)?, reason))) {
        Some((field, reason)) => Refusal {
            field: Some(field),
            sentence: sentence(&format!("The service refused {}: {}", field.words(), reason.trim())),
        },
        None => Refusal { field: None, sentence: sentence(&format!("The service refused the change: {message}")) },
    }
}

/// `input.email`, `groupRef`, `userRefs[0]`: a path, not the start of a sentence.
fn is_input_path(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '[' | ']'))
}

/// Ends with one full stop.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) { text.to_owned() } else { format!("{text}.") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(message: &str) -> GraphQlError {
        GraphQlError { message: message.into(), locations: Vec::new(), path: vec!["updateUser".into()] }
    }

    #[test]
    fn a_named_input_is_shown_at_its_field_in_one_sentence() {
        let found = refusals(&[error("input.email: not a valid address"), error("input.name: must not be empty")]);
        assert_eq!(
            found,
            [
                Refusal {
                    field: Some(RefusedField::Email),
                    sentence: "The service refused the email: not a valid address.".into()
                },
                Refusal {
                    field: Some(RefusedField::Name),
                    sentence: "The service refused the name: must not be empty.".into()
                },
            ]
        );
        assert_eq!(refusals(&[error("email: not a valid address")])[0].field, Some(RefusedField::Email));
        assert_eq!(refusals(&[error("groupRef: no group with ref 'g9'")])[0].field, Some(RefusedField::Group));
        assert_eq!(refusals(&[error("userRefs[0]: no user with ref 'u9'")])[0].field, Some(RefusedField::User));
    }

    #[test]
    fn any_other_message_is_kept_whole() {
        let found = refusals(&[error("Invalid value for argument \"input\": something. Odd")]);
        assert_eq!(found[0].field, None);
        assert_eq!(
            found[0].sentence,
            "The service refused the change: Invalid value for argument \"input\": something. Odd."
        );
        let found = refusals(&[error("input.roles: unknown role.")]);
        assert_eq!(
            (found[0].field, found[0].sentence.as_str()),
            (None, "The service refused the change: input.roles: unknown role.")
        );
    }
}
