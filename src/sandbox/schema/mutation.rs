//! The root mutation type. Each mutation validates its input, commits, and then hands the
//! webhook events it caused to the outbox.

use std::sync::Arc;

use async_graphql::{Context, Object, Result};
use chrono::Utc;

use super::types::*;
use crate::sandbox::data::inputs::*;
use crate::sandbox::data::{Change, Db, EnrollmentStatus, Invalid};
use crate::sandbox::deliveries::Outbox;

/// Changes to the organization's data.
#[derive(Default)]
pub struct MutationRoot;

/// Runs one change under the write lock and queues its events before the lock is released, so
/// that concurrent mutations' events leave in the order the changes committed. (Queuing does not
/// wait: the outbox sends from its own tasks.)
fn commit<T, O>(
    ctx: &Context<'_>,
    change: impl FnOnce(&mut Db) -> Result<(T, Vec<Change>), Invalid>,
    wrap: impl FnOnce(T) -> O,
) -> Result<O> {
    let mut db = db(ctx)?.write();
    let (record, events) = change(&mut db).map_err(|invalid| async_graphql::Error::new(invalid.to_string()))?;
    db.commits += 1;
    if let Some(outbox) = ctx.data_opt::<Outbox>() {
        outbox.send(events);
    }
    drop(db);
    Ok(wrap(record))
}

#[Object(name = "Mutation")]
impl MutationRoot {
    /// Needs users.write. Validation errors name the failing field, e.g.
    /// `input.email: not a valid address`. Sends `user.created`.
    async fn create_user(&self, ctx: &Context<'_>, input: CreateUserInput) -> Result<User> {
        commit(ctx, |db| db.create_user(input, Utc::now()), |r| User(Arc::new(r)))
    }

    /// Needs users.write. Sends `user.updated` (and `user.archived` when isActive turns false).
    async fn update_user(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UpdateUserInput,
    ) -> Result<User> {
        commit(ctx, |db| db.update_user(&ref_, input, Utc::now()), |r| User(Arc::new(r)))
    }

    /// Needs users.write. Sets isActive to false. Sends `user.archived`.
    async fn archive_user(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<User> {
        commit(ctx, |db| db.archive_user(&ref_, Utc::now()), |r| User(Arc::new(r)))
    }

    /// Needs users.write. Deletes the user with their memberships, progress, certificates and
    /// enrollments. Sends `user.deleted`.
    async fn delete_user(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<bool> {
        commit(ctx, |db| db.delete_user(&ref_), |done| done)
    }

    /// Needs trainings.write.
    async fn create_training(&self, ctx: &Context<'_>, input: CreateTrainingInput) -> Result<Training> {
        commit(ctx, |db| db.create_training(input), |r| Training(Arc::new(r)))
    }

    /// Needs trainings.write.
    async fn update_training(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UpdateTrainingInput,
    ) -> Result<Training> {
        commit(ctx, |db| db.update_training(&ref_, input), |r| Training(Arc::new(r)))
    }

    /// Needs trainings.write.
    async fn archive_training(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Training> {
        commit(ctx, |db| db.archive_training(&ref_), |r| Training(Arc::new(r)))
    }

    /// Needs trainings.write. Percent 100 completes the training (`training.completed` or
    /// `course.completed`, then `portfolio.updated`), with `certificate.issued` when the training
    /// grants a certificate.
    async fn record_progress(
        &self,
        ctx: &Context<'_>,
        user_ref: String,
        training_ref: String,
        percent: i32,
    ) -> Result<Progress> {
        commit(ctx, |db| db.record_progress(&user_ref, &training_ref, percent, Utc::now()), |r| Progress(Arc::new(r)))
    }

    /// Needs groups.write. Sends `group.created`.
    async fn create_group(&self, ctx: &Context<'_>, input: CreateGroupInput) -> Result<Group> {
        commit(ctx, |db| db.create_group(input), |r| Group(Arc::new(r)))
    }

    /// Needs groups.write. Sends `group.updated`.
    async fn update_group(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UpdateGroupInput,
    ) -> Result<Group> {
        commit(ctx, |db| db.update_group(&ref_, input), |r| Group(Arc::new(r)))
    }

    /// Needs groups.write. Sends `group.deleted`.
    async fn delete_group(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<bool> {
        commit(ctx, |db| db.delete_group(&ref_), |done| done)
    }

    /// Needs groups.write. Sends `group.members_changed` when anyone was added.
    async fn add_group_members(
        &self,
        ctx: &Context<'_>,
        group_ref: String,
        user_refs: Vec<String>,
        #[graphql(default_with = "Some(false)")] as_managers: Option<bool>,
    ) -> Result<Group> {
        let as_managers = as_managers.unwrap_or(false);
        commit(ctx, |db| db.add_group_members(&group_ref, &user_refs, as_managers), |r| Group(Arc::new(r)))
    }

    /// Needs groups.write. Sends `group.members_changed` when anyone was removed.
    async fn remove_group_members(
        &self,
        ctx: &Context<'_>,
        group_ref: String,
        user_refs: Vec<String>,
    ) -> Result<Group> {
        commit(ctx, |db| db.remove_group_members(&group_ref, &user_refs), |r| Group(Arc::new(r)))
    }

    /// Needs events.write.
    async fn create_offer(&self, ctx: &Context<'_>, input: CreateOfferInput) -> Result<Offer> {
        commit(ctx, |db| db.create_offer(input), |r| Offer(Arc::new(r)))
    }

    /// Needs events.write.
    async fn update_offer(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UpdateOfferInput,
    ) -> Result<Offer> {
        commit(ctx, |db| db.update_offer(&ref_, input), |r| Offer(Arc::new(r)))
    }

    /// Needs events.write. CONFIRMED while seats are free, WAITLISTED after. Sends
    /// `enrollment.status_changed`.
    async fn enroll_user(&self, ctx: &Context<'_>, offer_ref: String, user_ref: String) -> Result<Enrollment> {
        commit(ctx, |db| db.enroll_user(&offer_ref, &user_ref, Utc::now()), |r| Enrollment(Arc::new(r)))
    }

    /// Needs events.write. Sends `enrollment.status_changed`.
    async fn update_enrollment_status(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        status: EnrollmentStatus,
    ) -> Result<Enrollment> {
        commit(ctx, |db| db.update_enrollment_status(&ref_, status, Utc::now()), |r| Enrollment(Arc::new(r)))
    }

    /// Needs extra_categories.write.
    async fn create_extra_category(&self, ctx: &Context<'_>, input: CreateExtraCategoryInput) -> Result<ExtraCategory> {
        commit(ctx, |db| db.create_extra_category(input), |r| ExtraCategory(Arc::new(r)))
    }

    /// Needs extra_categories.write.
    async fn update_extra_category(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
        input: UpdateExtraCategoryInput,
    ) -> Result<ExtraCategory> {
        commit(ctx, |db| db.update_extra_category(&ref_, input), |r| ExtraCategory(Arc::new(r)))
    }
}
