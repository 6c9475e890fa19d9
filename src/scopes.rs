//! The nine OAuth scopes of the service (spec, "Scopes").

use std::fmt;
use std::str::FromStr;

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
}
