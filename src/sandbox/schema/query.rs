//! The root query type. The scope each root field needs is checked before execution
//! (`sandbox::access`); the descriptions name it for the explorer.

use async_graphql::{Context, ID, Object, Result, ServerError};
use chrono::{DateTime, Utc};

use super::types::*;
use crate::sandbox::data::{EnrollmentStatus, ProgressStatus, TrainingKind};

/// Reads of the organization's data.
#[derive(Default)]
pub struct QueryRoot;

/// Records "not found" as an entry in `errors` with the field's path, and resolves the field to
/// null (returning an error would drop the field from `data` altogether).
fn not_found<T>(ctx: &Context<'_>, what: &str, key: &str) -> Option<T> {
    let message = format!("No {what} with ref '{key}'; check the identifier");
    ctx.add_error(ctx.set_error_path(ServerError::new(message, Some(ctx.item.pos))));
    None
}

#[Object(name = "Query")]
impl QueryRoot {
    /// Needs users.read. A user by the caller's own identifier; null plus an entry in `errors`
    /// when no user has this ref.
    async fn user(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<User>> {
        let db = db(ctx)?.read();
        Ok(db.users.get_shared(&ref_).map(|u| User(u.clone())).or_else(|| not_found(ctx, "user", &ref_)))
    }

    /// Needs users.read. Users, 50 at most a page. Filters combine with AND; no match gives an
    /// empty connection and no error.
    #[allow(clippy::too_many_arguments)]
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_users(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        id: Option<ID>,
        #[graphql(name = "ref")] ref_: Option<String>,
        #[graphql(visible = "super::next::is_current")] email: Option<String>,
        is_active: Option<bool>,
        group_ref: Option<String>,
    ) -> Result<Conn<User>> {
        if email.is_some() && super::next::is_next(ctx) {
            // As GraphQL validation words it: the next schema has no such argument.
            return Err("Unknown argument \"email\" on field \"Query.paginatedUsers\".".into());
        }
        let request = page_request("User", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let group = group_ref.as_ref().map(|g| db.groups.get(g).map(|g| g.seq));
        let unfiltered = id.is_none() && ref_.is_none() && email.is_none() && is_active.is_none() && group.is_none();
        let keep = |u: &crate::sandbox::data::UserRec| {
            id.as_ref().is_none_or(|id| u.id == id.0)
                && ref_.as_ref().is_none_or(|r| &u.ref_ == r)
                && email.as_ref().is_none_or(|e| u.email.eq_ignore_ascii_case(e))
                && is_active.is_none_or(|a| u.is_active == a)
                && group.is_none_or(|g| g.is_some_and(|g| u.groups.binary_search(&g).is_ok()))
        };
        let page = db.users.page(&request, if unfiltered { None } else { Some(&keep) });
        Ok(connection(page, |u| User(u.clone())))
    }

    /// Needs trainings.read. A training by ref; null plus an entry in `errors` when none has it.
    async fn training(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<Training>> {
        let db = db(ctx)?.read();
        Ok(db.trainings.get_shared(&ref_).map(|t| Training(t.clone())).or_else(|| not_found(ctx, "training", &ref_)))
    }

    /// Needs trainings.read. Learning journeys and courses.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_trainings(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        #[graphql(name = "ref")] ref_: Option<String>,
        kind: Option<TrainingKind>,
        is_archived: Option<bool>,
    ) -> Result<Conn<Training>> {
        let request = page_request("Training", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let keep = |t: &crate::sandbox::data::TrainingRec| {
            ref_.as_ref().is_none_or(|r| &t.ref_ == r)
                && kind.is_none_or(|k| t.kind == k)
                && is_archived.is_none_or(|a| t.is_archived == a)
        };
        Ok(connection(db.trainings.page(&request, Some(&keep)), |t| Training(t.clone())))
    }

    /// Needs trainings.read. Progress of users through trainings.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_progress(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        user_ref: Option<String>,
        training_ref: Option<String>,
        status: Option<ProgressStatus>,
    ) -> Result<Conn<Progress>> {
        let request = page_request("Progress", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let user = user_ref.as_ref().map(|r| db.users.get(r).map(|u| u.seq));
        let training = training_ref.as_ref().map(|r| db.trainings.get(r).map(|t| t.seq));
        let keep = |p: &crate::sandbox::data::ProgressRec| {
            user.is_none_or(|u| u == Some(p.user))
                && training.is_none_or(|t| t == Some(p.training))
                && status.is_none_or(|s| ProgressStatus::of_percent(p.percent) == s)
        };
        Ok(connection(db.progress.page(&request, Some(&keep)), |p| Progress(p.clone())))
    }

    /// Needs trainings.read. Certificates issued for completed trainings.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_certificates(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        user_ref: Option<String>,
    ) -> Result<Conn<Certificate>> {
        let request = page_request("Certificate", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let user = user_ref.as_ref().map(|r| db.users.get(r).map(|u| u.seq));
        let keep = |c: &crate::sandbox::data::CertificateRec| user.is_none_or(|u| u == Some(c.user));
        Ok(connection(db.certificates.page(&request, Some(&keep)), |c| Certificate(c.clone())))
    }

    /// Needs groups.read. A group by ref; null plus an entry in `errors` when none has it.
    async fn group(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<Group>> {
        let db = db(ctx)?.read();
        Ok(db.groups.get_shared(&ref_).map(|g| Group(g.clone())).or_else(|| not_found(ctx, "group", &ref_)))
    }

    /// Needs groups.read. Groups; `name` matches a part of the name, ignoring case.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_groups(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        #[graphql(name = "ref")] ref_: Option<String>,
        name: Option<String>,
    ) -> Result<Conn<Group>> {
        let request = page_request("Group", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let needle = name.map(|n| n.to_lowercase());
        let keep = |g: &crate::sandbox::data::GroupRec| {
            ref_.as_ref().is_none_or(|r| &g.ref_ == r)
                && needle.as_ref().is_none_or(|n| g.name.to_lowercase().contains(n))
        };
        Ok(connection(db.groups.page(&request, Some(&keep)), |g| Group(g.clone())))
    }

    /// Needs events.read. A module group by ref; null plus an entry in `errors` when none has it.
    async fn module_group(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
    ) -> Result<Option<ModuleGroup>> {
        let db = db(ctx)?.read();
        Ok(db
            .module_groups
            .get_shared(&ref_)
            .map(|m| ModuleGroup(m.clone()))
            .or_else(|| not_found(ctx, "module group", &ref_)))
    }

    /// Needs events.read. Module groups, optionally of one training.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_module_groups(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        training_ref: Option<String>,
    ) -> Result<Conn<ModuleGroup>> {
        let request = page_request("ModuleGroup", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let training = training_ref.as_ref().map(|r| db.trainings.get(r).map(|t| t.seq));
        let keep = |m: &crate::sandbox::data::ModuleGroupRec| training.is_none_or(|t| t.is_some() && t == m.training);
        Ok(connection(db.module_groups.page(&request, Some(&keep)), |m| ModuleGroup(m.clone())))
    }

    /// Needs events.read. Dated offers, optionally of one module group or starting after a time.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_offers(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        module_group_ref: Option<String>,
        starts_after: Option<DateTime<Utc>>,
    ) -> Result<Conn<Offer>> {
        let request = page_request("Offer", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let module_group = module_group_ref.as_ref().map(|r| db.module_groups.get(r).map(|m| m.seq));
        let keep = |o: &crate::sandbox::data::OfferRec| {
            module_group.is_none_or(|m| m == Some(o.module_group)) && starts_after.is_none_or(|t| o.starts_at > t)
        };
        Ok(connection(db.offers.page(&request, Some(&keep)), |o| Offer(o.clone())))
    }

    /// Needs events.read. Enrollments of users in offers.
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_enrollments(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
        user_ref: Option<String>,
        offer_ref: Option<String>,
        status: Option<EnrollmentStatus>,
    ) -> Result<Conn<Enrollment>> {
        let request = page_request("Enrollment", first, after.as_deref())?;
        let db = db(ctx)?.read();
        let user = user_ref.as_ref().map(|r| db.users.get(r).map(|u| u.seq));
        let offer = offer_ref.as_ref().map(|r| db.offers.get(r).map(|o| o.seq));
        let keep = |e: &crate::sandbox::data::EnrollmentRec| {
            user.is_none_or(|u| u == Some(e.user))
                && offer.is_none_or(|o| o == Some(e.offer))
                && status.is_none_or(|s| e.status == s)
        };
        Ok(connection(db.enrollments.page(&request, Some(&keep)), |e| Enrollment(e.clone())))
    }

    /// Needs users.read (extra categories are read through users' extra fields).
    #[graphql(complexity = "first.unwrap_or(50).clamp(1, 50) as usize * child_complexity")]
    async fn paginated_extra_categories(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = 50)] first: Option<i32>,
        after: Option<String>,
    ) -> Result<Conn<ExtraCategory>> {
        let request = page_request("ExtraCategory", first, after.as_deref())?;
        let db = db(ctx)?.read();
        Ok(connection(db.extra_categories.page(&request, None), |c| ExtraCategory(c.clone())))
    }
}
