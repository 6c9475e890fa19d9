//! The nine OAuth scopes of the service (spec, "Scopes").

use std::fmt;
use std::str::FromStr;

/// The scopes an operation of `kind` with the root fields `fields` needs, by the spec's table of
/// areas (users, trainings, groups, events, extra categories): read for a query, write for a
/// mutation. A field whose area cannot be told from its name needs nothing this can name.
pub fn needed_by(kind: crate::query::OperationKind, fields: &[String]) -> ScopeSet {
    let write = kind == crate::query::OperationKind::Mutation;
    let mut needed = ScopeSet::default();
    for name in fields {
        let plain: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        let has = |words: &[&str]| words.iter().any(|w| plain.contains(w));
        // Extra categories before users (an extra field is a user's), events before trainings
        // (an enrollment's offer belongs to a module group).
        let scope = if has(&["extracategor"]) {
            if write { Some(Scope::ExtraCategoriesWrite) } else { Some(Scope::UsersRead) }
        } else if has(&["enrollment", "offer", "modulegroup", "session", "event"]) {
            Some(if write { Scope::EventsWrite } else { Scope::EventsRead })
        } else if has(&["training", "module", "progress", "journey", "course", "certificate", "portfolio"]) {
            Some(if write { Scope::TrainingsWrite } else { Scope::TrainingsRead })
        } else if has(&["group"]) {
            Some(if write { Scope::GroupsWrite } else { Scope::GroupsRead })
        } else if has(&["user", "learner", "person", "people", "employee", "node"]) {
            Some(if write { Scope::UsersWrite } else { Scope::UsersRead })
        } else {
            None
        };
        if let Some(scope) = scope {
            needed.insert(scope);
        }
    }
    needed
}

/// The `scope="…"` and `error="…"` of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3):
/// the scopes it names (known ones only) and its error code.
pub fn read_challenge(header: &str) -> (Vec<String>, Option<String>) {
    let Some(rest) = header.trim_start().strip_prefix("Bearer").or_else(|| header.trim_start().strip_prefix("bearer"))
    else {
        return (Vec::new(), None);
    };
    let mut scopes = Vec::new();
    let mut error = None;
    let mut text = rest;
    // key="quoted value" or key=token, separated by commas.
    while let Some(eq) = text.find('=') {
        let key = text[..eq].trim().trim_start_matches(',').trim().to_ascii_lowercase();
        let after = text[eq + 1..].trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            (value, &quoted[end.min(quoted.len())..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_owned(), &after[end..])
        };
        match key.as_str() {
            "scope" => {
                scopes.extend(value.split_whitespace().filter(|s| s.parse::<Scope>().is_ok()).map(str::to_owned))
            }
            "error" => error = Some(value),
            _ => {}
        }
        text = next;
    }
    (scopes, error)
}

/// One OAuth scope of the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// View user profiles, roles, groups, extra fields.
    UsersRead,
    /// Create, update, archive users.
    UsersWrite,
    /// View learning journeys, modules, progress.
    TrainingsRead,
    /// Create, update, archive trainings.
    TrainingsWrite,
    /// View groups, members, managers.
    GroupsRead,
    /// Create, update, delete groups and memberships.
    GroupsWrite,
    /// View module groups, offers, enrollments.
    EventsRead,
    /// Create, update, manage offers and enrollments.
    EventsWrite,
    /// Create and update custom categorization fields.
    ExtraCategoriesWrite,
}

impl Scope {
    /// Every scope, in the order of the spec's table.
    pub const ALL: [Scope; 9] = [
        Scope::UsersRead,
        Scope::UsersWrite,
        Scope::TrainingsRead,
        Scope::TrainingsWrite,
        Scope::GroupsRead,
        Scope::GroupsWrite,
        Scope::EventsRead,
        Scope::EventsWrite,
        Scope::ExtraCategoriesWrite,
    ];

    /// The scope's name on the wire, e.g. `users.read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::UsersRead => "users.read",
            Scope::UsersWrite => "users.write",
            Scope::TrainingsRead => "trainings.read",
            Scope::TrainingsWrite => "trainings.write",
            Scope::GroupsRead => "groups.read",
            Scope::GroupsWrite => "groups.write",
            Scope::EventsRead => "events.read",
            Scope::EventsWrite => "events.write",
            Scope::ExtraCategoriesWrite => "extra_categories.write",
        }
    }

    /// What the scope grants, in the spec's words.
    pub fn description(self) -> &'static str {
        match self {
            Scope::UsersRead => "view user profiles, roles, groups, extra fields",
            Scope::UsersWrite => "create, update, archive users",
            Scope::TrainingsRead => "view learning journeys, modules, progress",
            Scope::TrainingsWrite => "create, update, archive trainings",
            Scope::GroupsRead => "view groups, members, managers",
            Scope::GroupsWrite => "create, update, delete groups and memberships",
            Scope::EventsRead => "view module groups, offers, enrollments",
            Scope::EventsWrite => "create, update, manage offers and enrollments",
            Scope::ExtraCategoriesWrite => "create and update custom categorization fields",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name that the service does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope '{0}'; the scopes are {list}", list = ScopeSet::all())]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == s).ok_or_else(|| UnknownScope(s.to_owned()))
    }
}

/// A set of scopes, written on the wire as a space-separated list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(u16);

impl ScopeSet {
    /// No scope.
    pub const fn empty() -> Self {
        ScopeSet(0)
    }

    /// All nine scopes.
    pub fn all() -> Self {
        Scope::ALL.into_iter().collect()
    }

    fn bit(scope: Scope) -> u16 {
        1 << (scope as u16)
    }

    /// Adds a scope.
    pub fn insert(&mut self, scope: Scope) {
        self.0 |= Self::bit(scope);
    }

    /// Whether the set holds `scope`.
    pub fn contains(self, scope: Scope) -> bool {
        self.0 & Self::bit(scope) != 0
    }

    /// Whether every scope of `other` is in this set.
    pub fn is_superset(self, other: ScopeSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The scopes of `self` that `other` lacks.
    pub fn difference(self, other: ScopeSet) -> ScopeSet {
        ScopeSet(self.0 & !other.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes in the spec's order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// Parses a space-separated list such as `"users.read groups.read"`.
    pub fn parse(list: &str) -> Result<Self, UnknownScope> {
        list.split_whitespace().map(str::parse::<Scope>).collect()
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        let mut set = ScopeSet::empty();
        for scope in iter {
            set.insert(scope);
        }
        set
    }
}

impl FromStr for ScopeSet {
    type Err = UnknownScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ScopeSet::parse(s)
    }
}

impl fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for scope in self.iter() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            f.write_str(scope.as_str())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_wire_form() {
        let set: ScopeSet = "groups.read  users.read".parse().unwrap();
        assert_eq!(set.to_string(), "users.read groups.read");
        assert_eq!(ScopeSet::all().iter().count(), 9);
        assert_eq!(ScopeSet::parse("").unwrap(), ScopeSet::empty());
    }

    #[test]
    fn rejects_an_unknown_scope_by_name() {
        let err = ScopeSet::parse("users.read users.admin").unwrap_err();
        assert!(err.to_string().contains("'users.admin'"), "{err}");
    }

    #[test]
    fn reads_the_scope_a_bearer_challenge_names() {
        let dot = r#"Bearer error="insufficient_scope",error_description="The access token is valid but does not have enough scope.",resource_metadata="http://127.0.0.1/x""#;
        assert_eq!(read_challenge(dot), (Vec::new(), Some("insufficient_scope".to_owned())));
        let named = r#"Bearer realm="api", error="insufficient_scope", scope="users.read users.write""#;
        assert_eq!(read_challenge(named).0, ["users.read", "users.write"]);
        assert_eq!(read_challenge("Bearer scope=users.read").0, ["users.read"]);
        assert_eq!(read_challenge(r#"Bearer scope="users.admin openid""#).0, Vec::<String>::new());
        assert_eq!(read_challenge("Basic realm=x"), (Vec::new(), None));
        assert_eq!(read_challenge(r#"Bearer error="a\"b""#).1.as_deref(), Some("a\"b"));
    }

    #[test]
    fn an_operation_needs_its_areas_scope() {
        use crate::query::OperationKind::{Mutation, Query};
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let needed = |kind, list: &[&str]| needed_by(kind, &names(list)).to_string();
        assert_eq!(needed(Query, &["user", "paginatedUsers"]), "users.read");
        assert_eq!(needed(Mutation, &["updateUser"]), "users.write");
        assert_eq!(needed(Query, &["paginatedEnrollments", "paginatedTrainings"]), "trainings.read events.read");
        assert_eq!(needed(Mutation, &["addUsersToGroup"]), "groups.write");
        assert_eq!(needed(Mutation, &["groupCreate"]), "groups.write");
        assert_eq!(needed(Query, &["whatever"]), "");
    }
}
