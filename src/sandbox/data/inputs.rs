//! The input objects of the sandbox's mutations.

use async_graphql::InputObject;
use chrono::{DateTime, Utc};

use super::model::{Role, TrainingKind};

/// A new user.
#[derive(InputObject, Debug, Clone)]
pub struct CreateUserInput {
    /// The caller's own identifier; unique among users.
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    pub email: String,
    #[graphql(default_with = "Some(true)")]
    pub is_active: Option<bool>,
    #[graphql(default_with = "Some(vec![Role::Learner])")]
    pub roles: Option<Vec<Role>>,
    pub extra_fields: Option<Vec<ExtraFieldInput>>,
}

/// Changes to a user; absent fields stay as they are.
#[derive(InputObject, Debug, Clone, Default)]
pub struct UpdateUserInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub roles: Option<Vec<Role>>,
    /// Replaces the values of the categories named; others stay.
    pub extra_fields: Option<Vec<ExtraFieldInput>>,
}

/// The value of one extra category; a null value clears it.
#[derive(InputObject, Debug, Clone)]
pub struct ExtraFieldInput {
    pub category_ref: String,
    pub value: Option<String>,
}

/// A new training.
#[derive(InputObject, Debug, Clone)]
pub struct CreateTrainingInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub title: String,
    pub kind: TrainingKind,
    pub description: Option<String>,
    #[graphql(default_with = "Some(false)")]
    pub grants_certificate: Option<bool>,
}

/// Changes to a training.
#[derive(InputObject, Debug, Clone, Default)]
pub struct UpdateTrainingInput {
    pub title: Option<String>,
    pub description: Option<String>,
    pub grants_certificate: Option<bool>,
}

/// A new group.
#[derive(InputObject, Debug, Clone)]
pub struct CreateGroupInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
}

/// Changes to a group.
#[derive(InputObject, Debug, Clone, Default)]
pub struct UpdateGroupInput {
    pub name: Option<String>,
}

/// A new offer of a module group.
#[derive(InputObject, Debug, Clone)]
pub struct CreateOfferInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub module_group_ref: String,
    pub title: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub location: Option<String>,
    pub capacity: i32,
}

/// Changes to an offer.
#[derive(InputObject, Debug, Clone, Default)]
pub struct UpdateOfferInput {
    pub title: Option<String>,
    pub starts_at: Option<DateTime<Utc>>,
    pub ends_at: Option<DateTime<Utc>>,
    pub location: Option<String>,
    pub capacity: Option<i32>,
}

/// A new extra category.
#[derive(InputObject, Debug, Clone)]
pub struct CreateExtraCategoryInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    /// Allowed values; empty means free text.
    #[graphql(default_with = "Some(Vec::new())")]
    pub allowed_values: Option<Vec<String>>,
}

/// Changes to an extra category.
#[derive(InputObject, Debug, Clone, Default)]
pub struct UpdateExtraCategoryInput {
    pub name: Option<String>,
    pub allowed_values: Option<Vec<String>>,
}
