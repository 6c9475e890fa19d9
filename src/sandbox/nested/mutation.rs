//! The nested variant's changes: noun-first mutations (`userCreate`, `userUpdate`,
//! `registrationChangeStatus`, …) answering with payloads. A refusal is data, HTTP 200 and no
//! GraphQL error: `errors { field messages }` as graphene-django words them on users and groups,
//! `userErrors { field message code }` as Shopify does on registrations.

use async_graphql::{Context, ID, InputObject, Object, Result, SimpleObject};
use chrono::Utc;

use super::Profile;
use super::types::{Group, Registration, RegistrationStatus, User, nested};
use crate::sandbox::data::Invalid;
use crate::sandbox::data::inputs::{CreateUserInput, UpdateUserInput};

/// An error about one input field, graphene-django's shape.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
#[graphql(name = "FieldError")]
pub struct FieldError {
    /// The input field at fault (`email`); none: the whole change.
    pub field: Option<String>,
    pub messages: Vec<String>,
}

/// An error about one input, Shopify's shape.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
#[graphql(name = "UserError")]
pub struct UserError {
    /// The path of the input at fault (`["sessionId"]`).
    pub field: Option<Vec<String>>,
    pub message: String,
    pub code: Option<String>,
}

/// What a change to a user answers.
#[derive(SimpleObject)]
#[graphql(name = "UserPayload")]
pub struct UserPayload {
    /// The user as changed; null when refused.
    pub user: Option<User>,
    pub errors: Vec<FieldError>,
}

/// What a change to a registration answers.
#[derive(SimpleObject)]
#[graphql(name = "RegistrationPayload")]
pub struct RegistrationPayload {
    /// The registration as changed; null when refused.
    pub registration: Option<Registration>,
    pub user_errors: Vec<UserError>,
}

/// What a change to a group's members answers.
#[derive(SimpleObject)]
#[graphql(name = "GroupPayload")]
pub struct GroupPayload {
    /// The group as changed; null when refused.
    pub group: Option<Group>,
    pub errors: Vec<FieldError>,
}

/// A new user.
#[derive(InputObject, Debug, Clone)]
#[graphql(name = "UserCreateInput")]
pub struct UserCreateInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    pub email: String,
    pub department: Option<String>,
    pub locale: Option<String>,
}

/// Changes to a user; absent fields stay as they are.
#[derive(InputObject, Debug, Clone, Default)]
#[graphql(name = "UserUpdateInput")]
pub struct UserUpdateInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: Option<String>,
    pub locale: Option<String>,
}

/// The sandbox's refusal in graphene-django's words: the field without `input.`, Django's
/// sentences where it has them.
pub fn field_error(invalid: &Invalid) -> FieldError {
    let field = invalid.field.strip_prefix("input.").unwrap_or(&invalid.field).to_owned();
    let message = match invalid.message.as_str() {
        "not a valid address" => "Enter a valid email address.".to_owned(),
        "must not be empty" => "This field is required.".to_owned(),
        other => {
            let mut chars = other.chars();
            let first: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
            let sentence = format!("{first}{}", chars.as_str());
            if sentence.ends_with('.') { sentence } else { format!("{sentence}.") }
        }
    };
    FieldError { field: Some(field), messages: vec![message] }
}

/// The refusal in Shopify's shape.
fn user_error(invalid: &Invalid, code: &str) -> UserError {
    let field = invalid.field.strip_prefix("input.").unwrap_or(&invalid.field);
    UserError { field: Some(vec![field.to_owned()]), message: invalid.message.clone(), code: Some(code.to_owned()) }
}

/// A locale as `en` or `en-GB`.
fn check_locale(locale: Option<&str>) -> Result<(), Invalid> {
    let Some(locale) = locale else { return Ok(()) };
    let mut parts = locale.split('-');
    let language = parts.next().unwrap_or_default();
    let region = parts.next();
    let valid = language.len() == 2
        && language.chars().all(|c| c.is_ascii_lowercase())
        && region.is_none_or(|r| r.len() == 2 && r.chars().all(|c| c.is_ascii_uppercase()))
        && parts.next().is_none();
    if valid {
        Ok(())
    } else {
        Err(Invalid { field: "input.locale".into(), message: format!("'{locale}' is not a locale such as en-GB") })
    }
}

/// Creates one user (`userCreate`, and each of `userBulkCreate`): the user, or the refusal.
fn create_one(state: &super::Nested, input: UserCreateInput) -> UserPayload {
    if let Err(invalid) = check_locale(input.locale.as_deref()) {
        return UserPayload { user: None, errors: vec![field_error(&invalid)] };
    }
    let profile = Profile { department: input.department.clone(), locale: input.locale.clone() };
    let create = CreateUserInput {
        ref_: input.ref_,
        name: input.name,
        email: input.email,
        is_active: Some(true),
        roles: None,
        extra_fields: None,
    };
    match state.commit(|db| db.create_user(create, Utc::now())) {
        Ok(user) => {
            state.set_profile(user.seq, |p| *p = profile);
            UserPayload { user: Some(User(user)), errors: Vec::new() }
        }
        Err(invalid) => UserPayload { user: None, errors: vec![field_error(&invalid)] },
    }
}

/// One user of a bulk creation: created, or refused with why (Saleor's `…BulkResult`).
#[derive(SimpleObject)]
#[graphql(name = "UserBulkResult")]
pub struct UserBulkResult {
    /// The user created; null when refused.
    pub user: Option<User>,
    pub errors: Vec<FieldError>,
}

/// What a bulk creation answers: a result for every input, in their order; the inputs the
/// service refuses do not stop the others.
#[derive(SimpleObject)]
#[graphql(name = "UserBulkPayload")]
pub struct UserBulkPayload {
    /// Users created.
    pub count: i32,
    pub results: Vec<UserBulkResult>,
}

/// The most users one bulk creation takes.
pub const BULK_LIMIT: usize = 100;

/// The changes.
pub struct MutationRoot;

#[Object(name = "Mutation")]
impl MutationRoot {
    /// Needs users.write.
    async fn user_create(&self, ctx: &Context<'_>, input: UserCreateInput) -> Result<UserPayload> {
        Ok(create_one(nested(ctx)?, input))
    }

    /// Needs users.write. Up to 100 users in one request, each created or refused on its own.
    async fn user_bulk_create(&self, ctx: &Context<'_>, inputs: Vec<UserCreateInput>) -> Result<UserBulkPayload> {
        let state = nested(ctx)?;
        if inputs.len() > BULK_LIMIT {
            return Err(async_graphql::Error::new(format!(
                "inputs: at most {BULK_LIMIT} users a request, not {}",
                inputs.len()
            )));
        }
        state.db.write().batches += 1;
        let results: Vec<UserBulkResult> = inputs
            .into_iter()
            .map(|input| {
                let UserPayload { user, errors } = create_one(state, input);
                UserBulkResult { user, errors }
            })
            .collect();
        let count = results.iter().filter(|r| r.user.is_some()).count() as i32;
        Ok(UserBulkPayload { count, results })
    }

    /// Needs users.write.
    async fn user_update(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UserUpdateInput,
    ) -> Result<UserPayload> {
        let state = nested(ctx)?;
        if let Err(invalid) = check_locale(input.locale.as_deref()) {
            return Ok(UserPayload { user: None, errors: vec![field_error(&invalid)] });
        }
        let update = UpdateUserInput {
            name: input.name,
            email: input.email,
            is_active: input.is_active,
            roles: None,
            extra_fields: None,
        };
        Ok(match state.commit(|db| db.update_user(&ref_, update, Utc::now())) {
            Ok(user) => {
                state.set_profile(user.seq, |p| {
                    if input.department.is_some() {
                        p.department = input.department;
                    }
                    if input.locale.is_some() {
                        p.locale = input.locale;
                    }
                });
                UserPayload { user: Some(User(user)), errors: Vec::new() }
            }
            Err(invalid) => UserPayload { user: None, errors: vec![field_error(&invalid)] },
        })
    }

    /// Needs users.write. The user can no longer sign in.
    async fn user_archive(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<UserPayload> {
        let state = nested(ctx)?;
        Ok(match state.commit(|db| db.archive_user(&ref_, Utc::now())) {
            Ok(user) => UserPayload { user: Some(User(user)), errors: Vec::new() },
            Err(invalid) => UserPayload { user: None, errors: vec![field_error(&invalid)] },
        })
    }

    /// Needs users.write. An archived user signs in again.
    async fn user_activate(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<UserPayload> {
        let state = nested(ctx)?;
        let update = UpdateUserInput { is_active: Some(true), ..UpdateUserInput::default() };
        Ok(match state.commit(|db| db.update_user(&ref_, update, Utc::now())) {
            Ok(user) => UserPayload { user: Some(User(user)), errors: Vec::new() },
            Err(invalid) => UserPayload { user: None, errors: vec![field_error(&invalid)] },
        })
    }

    /// Needs events.write. Confirmed while the session has seats, waitlisted after.
    async fn registration_create(
        &self,
        ctx: &Context<'_>,
        user_ref: String,
        session_id: ID,
    ) -> Result<RegistrationPayload> {
        let state = nested(ctx)?;
        let offer = state.db.read().offers.iter().find(|o| o.id == session_id.0).map(|o| o.ref_.clone());
        let Some(offer) = offer else {
            let invalid =
                Invalid { field: "sessionId".into(), message: format!("No session with id '{}'.", *session_id) };
            return Ok(RegistrationPayload {
                registration: None,
                user_errors: vec![user_error(&invalid, "NOT_FOUND")],
            });
        };
        Ok(match state.commit(|db| db.enroll_user(&offer, &user_ref, Utc::now())) {
            Ok(rec) => {
                let registration = Registration::of(&state.db.read(), &rec);
                RegistrationPayload { registration: Some(registration), user_errors: Vec::new() }
            }
            Err(invalid) => {
                RegistrationPayload { registration: None, user_errors: vec![user_error(&invalid, "INVALID")] }
            }
        })
    }

    /// Needs events.write.
    async fn registration_change_status(
        &self,
        ctx: &Context<'_>,
        id: ID,
        status: RegistrationStatus,
    ) -> Result<RegistrationPayload> {
        let state = nested(ctx)?;
        let found = state.db.read().enrollments.iter().find(|e| e.id == id.0).map(|e| e.ref_.clone());
        let Some(key) = found else {
            let invalid = Invalid { field: "id".into(), message: format!("No registration with id '{}'.", *id) };
            return Ok(RegistrationPayload {
                registration: None,
                user_errors: vec![user_error(&invalid, "NOT_FOUND")],
            });
        };
        Ok(match state.commit(|db| db.update_enrollment_status(&key, status.into(), Utc::now())) {
            Ok(rec) => {
                let registration = Registration::of(&state.db.read(), &rec);
                RegistrationPayload { registration: Some(registration), user_errors: Vec::new() }
            }
            Err(invalid) => {
                RegistrationPayload { registration: None, user_errors: vec![user_error(&invalid, "INVALID")] }
            }
        })
    }

    /// Needs groups.write.
    async fn group_member_add(&self, ctx: &Context<'_>, group_ref: String, user_ref: String) -> Result<GroupPayload> {
        let state = nested(ctx)?;
        Ok(match state.commit(|db| db.add_group_members(&group_ref, std::slice::from_ref(&user_ref), false)) {
            Ok(group) => GroupPayload { group: Some(Group(group)), errors: Vec::new() },
            Err(invalid) => GroupPayload { group: None, errors: vec![field_error(&invalid)] },
        })
    }

    /// Needs groups.write.
    async fn group_member_remove(
        &self,
        ctx: &Context<'_>,
        group_ref: String,
        user_ref: String,
    ) -> Result<GroupPayload> {
        let state = nested(ctx)?;
        Ok(match state.commit(|db| db.remove_group_members(&group_ref, std::slice::from_ref(&user_ref))) {
            Ok(group) => GroupPayload { group: Some(Group(group)), errors: Vec::new() },
            Err(invalid) => GroupPayload { group: None, errors: vec![field_error(&invalid)] },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_worded_as_graphene_django_words_them() {
        let bad = Invalid { field: "input.email".into(), message: "not a valid address".into() };
        assert_eq!(
            field_error(&bad),
            FieldError { field: Some("email".into()), messages: vec!["Enter a valid email address.".into()] }
        );
        let taken = Invalid { field: "input.email".into(), message: "a user with email 'a@b.c' already exists".into() };
        assert_eq!(field_error(&taken).messages, ["A user with email 'a@b.c' already exists."]);
    }

    #[test]
    fn a_locale_is_a_language_and_maybe_a_region() {
        for good in [None, Some("en"), Some("en-GB"), Some("pt-BR")] {
            assert!(check_locale(good).is_ok(), "{good:?}");
        }
        for bad in ["english", "EN", "en_GB", "en-gb", "en-GB-x", ""] {
            assert_eq!(check_locale(Some(bad)).map_err(|e| e.field), Err("input.locale".to_owned()), "{bad}");
        }
    }
}
