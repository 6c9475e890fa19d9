//! "Errors as data" result unions (Shopify-style and others): every mutation answers a union of
//! its success (holding the user) and the error types, each with its own fields —
//! `updateUser(id: ID!, input:): UpdateUserResult = UpdateUserSuccess | ValidationError |
//! NotFoundError`. Users are found by `filter: { email: { eq: … } }`.

use async_graphql::{
    Context, EmptySubscription, ID, InputObject, MaybeUndefined, Object, Result, Schema, SimpleObject, Union,
};

use super::server::{Convention, UserConnection, UserFilter, page, user};
use super::store::{Changes, Refused, Shared, Store, User, by_id, by_ref};

#[derive(SimpleObject)]
pub struct CreateUserSuccess {
    pub user: User,
}

#[derive(SimpleObject)]
pub struct UpdateUserSuccess {
    pub user: User,
}

#[derive(SimpleObject)]
pub struct ArchiveUserSuccess {
    pub user: User,
}

/// A value the service refuses.
#[derive(SimpleObject)]
pub struct ValidationError {
    pub message: String,
    pub field: String,
}

/// No such user.
#[derive(SimpleObject)]
pub struct NotFoundError {
    pub message: String,
}

#[derive(Union)]
pub enum CreateUserResult {
    CreateUserSuccess(CreateUserSuccess),
    ValidationError(ValidationError),
}

#[derive(Union)]
pub enum UpdateUserResult {
    UpdateUserSuccess(UpdateUserSuccess),
    ValidationError(ValidationError),
    NotFoundError(NotFoundError),
}

#[derive(Union)]
pub enum ArchiveUserResult {
    ArchiveUserSuccess(ArchiveUserSuccess),
    NotFoundError(NotFoundError),
}

#[derive(InputObject)]
pub struct CreateUserInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    pub email: String,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

#[derive(InputObject)]
pub struct UpdateUserInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

pub struct Query;

#[Object]
impl Query {
    async fn user(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<User>> {
        user(ctx, &ref_)
    }

    async fn paginated_users(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
        filter: Option<UserFilter>,
    ) -> Result<UserConnection> {
        let filter = filter.unwrap_or_default();
        page(ctx.data()?, first, after, |u| filter.accepts(u))
    }
}

pub struct Mutation;

#[Object]
impl Mutation {
    async fn create_user(&self, ctx: &Context<'_>, input: CreateUserInput) -> Result<CreateUserResult> {
        let store: &Shared = ctx.data()?;
        let changes = Changes {
            ref_: Some(input.ref_),
            name: Some(input.name),
            email: Some(input.email),
            is_active: input.is_active,
            department: input.department,
        };
        Ok(match store.create(changes) {
            Ok(user) => CreateUserResult::CreateUserSuccess(CreateUserSuccess { user }),
            Err(Refused::Invalid(field, message)) => {
                CreateUserResult::ValidationError(ValidationError { message, field: field.to_owned() })
            }
            Err(refusal) => {
                CreateUserResult::ValidationError(ValidationError { message: refusal.sentence(), field: String::new() })
            }
        })
    }

    async fn update_user(&self, ctx: &Context<'_>, id: ID, input: UpdateUserInput) -> Result<UpdateUserResult> {
        let store: &Shared = ctx.data()?;
        let changes = Changes {
            ref_: None,
            name: input.name,
            email: input.email,
            is_active: input.is_active,
            department: input.department,
        };
        Ok(match store.update(by_id(&id), changes) {
            Ok(user) => UpdateUserResult::UpdateUserSuccess(UpdateUserSuccess { user }),
            Err(Refused::Invalid(field, message)) => {
                UpdateUserResult::ValidationError(ValidationError { message, field: field.to_owned() })
            }
            Err(Refused::NotFound(message)) => UpdateUserResult::NotFoundError(NotFoundError { message }),
        })
    }

    async fn archive_user(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "ref")] ref_: String,
    ) -> Result<ArchiveUserResult> {
        let store: &Shared = ctx.data()?;
        let changes = Changes { is_active: Some(false), ..Changes::default() };
        Ok(match store.update(by_ref(&ref_), changes) {
            Ok(user) => ArchiveUserResult::ArchiveUserSuccess(ArchiveUserSuccess { user }),
            Err(refusal) => ArchiveUserResult::NotFoundError(NotFoundError { message: refusal.sentence() }),
        })
    }
}

/// The result-union service with `users` learners.
pub fn start(users: usize) -> Convention {
    let store = Store::seeded(users);
    let schema = Schema::build(Query, Mutation, EmptySubscription).data(store.clone()).finish();
    Convention::start(schema)
}
