//! The learners every convention server holds, and how they are changed and refused.

use std::sync::{Arc, Mutex, PoisonError};

use async_graphql::{ID, MaybeUndefined, SimpleObject};

/// The graphene-django service's seed (`tests/django_service/serve.py`), so that every service
/// starts with the same kinds of values: names with commas, quotes, line breaks and other
/// scripts; departments null, empty and set; every tenth learner archived.
const NAMES: [&str; 10] = [
    "Ada Lovelace",
    "Grace O'Hopper",
    "Alan \"the\" Turing",
    "Smith, Joan",
    "Zoë Ångström",
    "Иван Петров",
    "李小龙",
    "Emoji 🚀 Person",
    "=Formula Person",
    "Line\nBreak",
];
const DEPARTMENTS: [Option<&str>; 6] =
    [None, Some(""), Some("Sales"), Some("Engineering"), Some("HR"), Some("Operations")];

/// A learner as the services answer it.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
#[graphql(name = "User")]
pub struct User {
    pub id: ID,
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    pub email: String,
    pub is_active: bool,
    pub department: Option<String>,
    /// How many times the learner was saved after it was made.
    pub revision: i32,
}

/// Why a change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A field's value: the field and the service's words.
    Invalid(&'static str, String),
    /// No such learner.
    NotFound(String),
}

impl Refused {
    /// As a GraphQL error's message, the field first (`email: Enter a valid email address.`).
    pub fn sentence(&self) -> String {
        match self {
            Refused::Invalid(field, message) => format!("{field}: {message}"),
            Refused::NotFound(message) => message.clone(),
        }
    }
}

/// The fields a change sets: absent (undefined) changes nothing, null clears where it may.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub ref_: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

/// The learners, shared by a server's resolvers.
#[derive(Debug, Default)]
pub struct Store {
    users: Mutex<Vec<User>>,
}

/// The store as the schemas' data.
pub type Shared = Arc<Store>;

fn email_ok(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !email.contains("..")
        && !email.contains(char::is_whitespace)
        && domain.contains('.')
        && !domain.contains('@')
}

fn invalid_email() -> Refused {
    Refused::Invalid("email", "Enter a valid email address.".to_owned())
}

impl Store {
    /// `users` learners, `u00001`…
    pub fn seeded(users: usize) -> Shared {
        let users = (1..=users)
            .map(|i| User {
                id: ID(format!("User:{i}")),
                ref_: format!("u{i:05}"),
                name: format!("{} {i}", NAMES[i % NAMES.len()]),
                email: format!("u{i:05}@example.org"),
                is_active: i % 10 != 0,
                department: DEPARTMENTS[i % DEPARTMENTS.len()].map(str::to_owned),
                revision: 0,
            })
            .collect();
        Arc::new(Store { users: Mutex::new(users) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<User>> {
        self.users.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every learner `keep` accepts, in order.
    pub fn all(&self, keep: impl Fn(&User) -> bool) -> Vec<User> {
        self.lock().iter().filter(|u| keep(u)).cloned().collect()
    }

    /// The learner with `user_ref`.
    pub fn by_ref(&self, user_ref: &str) -> Option<User> {
        self.lock().iter().find(|u| u.ref_ == user_ref).cloned()
    }

    /// A new learner.
    pub fn create(&self, changes: Changes) -> Result<User, Refused> {
        let mut users = self.lock();
        let blank = |field: &'static str| Refused::Invalid(field, "This field cannot be blank.".to_owned());
        let ref_ = changes.ref_.filter(|r| !r.is_empty()).ok_or_else(|| blank("ref"))?;
        let name = changes.name.filter(|n| !n.is_empty()).ok_or_else(|| blank("name"))?;
        let email = changes.email.ok_or_else(|| blank("email"))?;
        if !email_ok(&email) {
            return Err(invalid_email());
        }
        if users.iter().any(|u| u.ref_ == ref_) {
            return Err(Refused::Invalid("ref", "User with this Ref already exists.".to_owned()));
        }
        let seq = users.len() + 1;
        let user = User {
            id: ID(format!("User:{seq}")),
            ref_,
            name,
            email,
            is_active: changes.is_active.unwrap_or(true),
            department: changes.department.take(),
            revision: 0,
        };
        users.push(user.clone());
        Ok(user)
    }

    /// Changes the learner `which` finds (by id or ref): one save.
    pub fn update(&self, which: impl Fn(&User) -> bool, changes: Changes) -> Result<User, Refused> {
        let mut users = self.lock();
        let Some(at) = users.iter().position(which) else {
            return Err(Refused::NotFound("No user matches the given query.".to_owned()));
        };
        let mut user = users[at].clone();
        if let Some(email) = changes.email {
            if !email_ok(&email) {
                return Err(invalid_email());
            }
            user.email = email;
        }
        if let Some(name) = changes.name {
            if name.is_empty() {
                return Err(Refused::Invalid("name", "This field cannot be blank.".to_owned()));
            }
            user.name = name;
        }
        if let Some(ref_) = changes.ref_ {
            user.ref_ = ref_;
        }
        if let Some(active) = changes.is_active {
            user.is_active = active;
        }
        match changes.department {
            MaybeUndefined::Undefined => {}
            MaybeUndefined::Null => user.department = None,
            MaybeUndefined::Value(department) => user.department = Some(department),
        }
        user.revision += 1;
        users[at] = user.clone();
        Ok(user)
    }
}

/// The learner `id` names.
pub fn by_id(id: &str) -> impl Fn(&User) -> bool + '_ {
    move |u: &User| u.id.as_str() == id
}

/// The learner `user_ref` names.
pub fn by_ref(user_ref: &str) -> impl Fn(&User) -> bool + '_ {
    move |u: &User| u.ref_ == user_ref
}
