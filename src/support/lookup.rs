//! What a person typed into the find box: a ref, an email or a name.
//!
//! The rules, in order: a leading `ref:`, `email:` or `name:` says which; text with an `@` and
//! no space is an email; text with a space is a name; one word with a digit is a ref; any other
//! single word is tried as a ref, then as a name (`Müller` is no user's ref, but may be a name).

/// One way of looking a user up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The user with this ref (`user(ref:)`).
    Ref(String),
    /// Users with this email, ignoring case (`paginatedUsers(email:)`).
    Email(String),
    /// Users whose name holds every word of this text, ignoring case.
    Name(String),
}

impl Lookup {
    /// The lookups `typed` asks for, in the order to try them; empty when nothing was typed.
    pub fn recognise(typed: &str) -> Vec<Lookup> {
        let text = typed.trim();
        if text.is_empty() {
            return Vec::new();
        }
        if let Some(lookup) = prefixed(text) {
            return lookup.into_iter().collect();
        }
        let one_word = !text.chars().any(char::is_whitespace);
        if one_word && text.contains('@') {
            vec![Lookup::Email(text.to_owned())]
        } else if !one_word {
            vec![Lookup::Name(text.to_owned())]
        } else if text.chars().any(|c| c.is_ascii_digit()) {
            vec![Lookup::Ref(text.to_owned())]
        } else {
            vec![Lookup::Ref(text.to_owned()), Lookup::Name(text.to_owned())]
        }
    }

    /// The text looked for.
    pub fn text(&self) -> &str {
        match self {
            Lookup::Ref(text) | Lookup::Email(text) | Lookup::Name(text) => text,
        }
    }

    /// What was looked for, as the end of "No user …": `has the ref 'u9'`.
    pub fn missing(&self) -> String {
        match self {
            Lookup::Ref(r) => format!("has the ref '{r}'"),
            Lookup::Email(e) => format!("has the email '{e}'"),
            Lookup::Name(n) => format!("matches the name '{n}'"),
        }
    }
}

/// The sentence for lookups that found nobody: `No user has the ref 'x'.`, or with a name tried
/// after the ref, `No user has the ref 'x' or matches the name 'x'.`
pub fn nobody(lookups: &[Lookup]) -> String {
    let parts: Vec<String> = lookups.iter().map(Lookup::missing).collect();
    if parts.is_empty() {
        "Type a ref, an email or a name to find a user.".to_owned()
    } else {
        format!("No user {}.", parts.join(" or "))
    }
}

/// `ref:…`, `email:…` or `name:…`: `Some(None)` for a prefix with nothing after it.
fn prefixed(text: &str) -> Option<Option<Lookup>> {
    let (prefix, rest) = text.split_once(':')?;
    let rest = rest.trim();
    let make = match prefix.trim().to_ascii_lowercase().as_str() {
        "ref" => Lookup::Ref,
        "email" => Lookup::Email,
        "name" => Lookup::Name,
        _ => return None,
    };
    Some((!rest.is_empty()).then(|| make(rest.to_owned())))
}

/// Whether `name` holds every word of `typed`, ignoring case; line breaks and tabs in the name
/// count as spaces.
pub fn name_matches(name: &str, typed: &str) -> bool {
    let name = name.to_lowercase();
    let mut words = typed.split_whitespace().peekable();
    words.peek().is_some() && words.all(|word| name.contains(&word.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::Lookup::{Email, Name, Ref};
    use super::*;

    fn recognised(typed: &str) -> Vec<Lookup> {
        Lookup::recognise(typed)
    }

    #[test]
    fn an_at_sign_without_spaces_is_an_email() {
        assert_eq!(recognised("  anna.smith.1@example.com "), [Email("anna.smith.1@example.com".into())]);
        assert_eq!(recognised("ANNA@Example.COM"), [Email("ANNA@Example.COM".into())]);
        // A name may begin with '@': with a space it is a name, not an address.
        assert_eq!(recognised("@mention Handle"), [Name("@mention Handle".into())]);
    }

    #[test]
    fn a_word_with_a_digit_is_a_ref_and_a_plain_word_is_a_ref_then_a_name() {
        assert_eq!(recognised("u00042"), [Ref("u00042".into())]);
        assert_eq!(recognised("EMP-7"), [Ref("EMP-7".into())]);
        assert_eq!(recognised("Müller"), [Ref("Müller".into()), Name("Müller".into())]);
        assert_eq!(recognised("张伟"), [Ref("张伟".into()), Name("张伟".into())]);
    }

    #[test]
    fn words_with_spaces_are_a_name() {
        assert_eq!(recognised("Anna  Smith"), [Name("Anna  Smith".into())]);
        assert_eq!(recognised("O'Brien, Seán"), [Name("O'Brien, Seán".into())]);
    }

    #[test]
    fn a_prefix_says_which() {
        assert_eq!(recognised("ref: a ref with spaces"), [Ref("a ref with spaces".into())]);
        assert_eq!(recognised("Email:x@y.org"), [Email("x@y.org".into())]);
        assert_eq!(recognised("name: Zoë"), [Name("Zoë".into())]);
        assert_eq!(recognised("ref:"), []);
        // Only the three prefixes: anything else with a colon is taken as typed.
        assert_eq!(recognised("EMP:7"), [Ref("EMP:7".into())]);
    }

    #[test]
    fn nothing_typed_is_nothing_to_find() {
        assert!(recognised("").is_empty());
        assert!(recognised(" \t\n").is_empty());
        assert_eq!(nobody(&[]), "Type a ref, an email or a name to find a user.");
    }

    #[test]
    fn says_clearly_that_nobody_matched() {
        assert_eq!(nobody(&recognised("u99999")), "No user has the ref 'u99999'.");
        assert_eq!(nobody(&recognised("x@y.org")), "No user has the email 'x@y.org'.");
        assert_eq!(nobody(&recognised("Zed")), "No user has the ref 'Zed' or matches the name 'Zed'.");
    }

    #[test]
    fn a_name_matches_when_it_holds_every_word() {
        assert!(name_matches("Anna Smith", "smith anna"));
        assert!(name_matches("Jordan\nLee", "jordan lee"));
        assert!(name_matches("Дмитрий Иванов", "иванов"));
        assert!(!name_matches("Anna Smith", "anna schmidt"));
        assert!(!name_matches("Anna Smith", "  "));
    }
}
