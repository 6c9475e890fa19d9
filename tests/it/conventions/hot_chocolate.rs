//! Hot Chocolate's mutation conventions: each mutation takes one `input` (the key inside it) and
//! answers a payload with the user and `errors: [UpdateUserError!]`, the error a union of types
//! implementing `Error { message }`. Users are found by `where: { email: { eq: … } }`.

use async_graphql::{
    Context, EmptySubscription, ID, InputObject, Interface, MaybeUndefined, Object, Result, Schema, SimpleObject, Union,
};

use super::server::{Convention, UserConnection, UserFilter, page, user};
use super::store::{Changes, Refused, Shared, Store, User, by_id, by_ref};

/// A value the service refuses.
#[derive(SimpleObject, Clone)]
pub struct InvalidValueError {
    pub message: String,
    pub field: String,
}

/// No such user.
#[derive(SimpleObject, Clone)]
pub struct UserNotFoundError {
    pub message: String,
}

/// What every error type has.
#[derive(Interface)]
#[graphql(field(name = "message", ty = "&String"))]
pub enum Error {
    InvalidValueError(InvalidValueError),
    UserNotFoundError(UserNotFoundError),
}

#[derive(Union)]
pub enum CreateUserError {
    InvalidValueError(InvalidValueError),
}

#[derive(Union)]
pub enum UpdateUserError {
    InvalidValueError(InvalidValueError),
    UserNotFoundError(UserNotFoundError),
}

#[derive(Union)]
pub enum ArchiveUserError {
    UserNotFoundError(UserNotFoundError),
}

#[derive(SimpleObject)]
pub struct CreateUserPayload {
    pub user: Option<User>,
    pub errors: Option<Vec<CreateUserError>>,
}

#[derive(SimpleObject)]
pub struct UpdateUserPayload {
    pub user: Option<User>,
    pub errors: Option<Vec<UpdateUserError>>,
}

#[derive(SimpleObject)]
pub struct ArchiveUserPayload {
    pub user: Option<User>,
    pub errors: Option<Vec<ArchiveUserError>>,
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
    pub id: ID,
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

#[derive(InputObject)]
pub struct ArchiveUserInput {
    #[graphql(name = "ref")]
    pub ref_: String,
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
        #[graphql(name = "where")] filter: Option<UserFilter>,
    ) -> Result<UserConnection> {
        let filter = filter.unwrap_or_default();
        page(ctx.data()?, first, after, |u| filter.accepts(u))
    }
}

fn invalid(refusal: Refused) -> InvalidValueError {
    match refusal {
        Refused::Invalid(field, message) => InvalidValueError { message, field: field.to_owned() },
        Refused::NotFound(message) => InvalidValueError { message, field: String::new() },
    }
}

pub struct Mutation;

#[Object]
impl Mutation {
    async fn create_user(&self, ctx: &Context<'_>, input: CreateUserInput) -> Result<CreateUserPayload> {
        let store: &Shared = ctx.data()?;
        let changes = Changes {
            ref_: Some(input.ref_),
            name: Some(input.name),
            email: Some(input.email),
            is_active: input.is_active,
            department: input.department,
        };
        Ok(match store.create(changes) {
            Ok(user) => CreateUserPayload { user: Some(user), errors: None },
            Err(refusal) => CreateUserPayload {
                user: None,
                errors: Some(vec![CreateUserError::InvalidValueError(invalid(refusal))]),
            },
        })
    }

    async fn update_user(&self, ctx: &Context<'_>, input: UpdateUserInput) -> Result<UpdateUserPayload> {
        let store: &Shared = ctx.data()?;
        let changes = Changes {
            ref_: None,
            name: input.name,
            email: input.email,
            is_active: input.is_active,
            department: input.department,
        };
        Ok(match store.update(by_id(&input.id), changes) {
            Ok(user) => UpdateUserPayload { user: Some(user), errors: None },
            Err(Refused::NotFound(message)) => UpdateUserPayload {
                user: None,
                errors: Some(vec![UpdateUserError::UserNotFoundError(UserNotFoundError { message })]),
            },
            Err(refusal) => UpdateUserPayload {
                user: None,
                errors: Some(vec![UpdateUserError::InvalidValueError(invalid(refusal))]),
            },
        })
    }

    async fn archive_user(&self, ctx: &Context<'_>, input: ArchiveUserInput) -> Result<ArchiveUserPayload> {
        let store: &Shared = ctx.data()?;
        let changes = Changes { is_active: Some(false), ..Changes::default() };
        Ok(match store.update(by_ref(&input.ref_), changes) {
            Ok(user) => ArchiveUserPayload { user: Some(user), errors: None },
            Err(refusal) => ArchiveUserPayload {
                user: None,
                errors: Some(vec![ArchiveUserError::UserNotFoundError(UserNotFoundError {
                    message: refusal.sentence(),
                })]),
            },
        })
    }
}

/// The Hot Chocolate-style service with `users` learners.
pub fn start(users: usize) -> Convention {
    let store = Store::seeded(users);
    let schema =
        Schema::build(Query, Mutation, EmptySubscription).register_output_type::<Error>().data(store.clone()).finish();
    Convention::start(schema)
}
