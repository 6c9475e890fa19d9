//! PostGraphile's CRUD mutations: `createUser(input: { clientMutationId, user: { … } })` and
//! `updateUser(input: { clientMutationId, id, patch: { … } })` answering payloads that hold the
//! user; a refusal is a GraphQL error. Users are found by `condition: { email: … }` (and by
//! `filter`, the connection-filter plugin's).

use async_graphql::{
    Context, EmptySubscription, ID, InputObject, MaybeUndefined, Object, Result, Schema, SimpleObject,
};

use super::server::{Convention, UserConnection, UserFilter, page, user};
use super::store::{Changes, Shared, Store, User, by_id};

/// Equality conditions on the users' columns.
#[derive(InputObject, Default)]
pub struct UserCondition {
    #[graphql(name = "ref")]
    pub ref_: Option<String>,
    pub email: Option<String>,
}

#[derive(InputObject)]
pub struct UserInput {
    #[graphql(name = "ref")]
    pub ref_: String,
    pub name: String,
    pub email: String,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

#[derive(InputObject)]
pub struct CreateUserInput {
    pub client_mutation_id: Option<String>,
    pub user: UserInput,
}

/// The changes: every field optional.
#[derive(InputObject)]
pub struct UserPatch {
    #[graphql(name = "ref")]
    pub ref_: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

#[derive(InputObject)]
pub struct UpdateUserInput {
    pub client_mutation_id: Option<String>,
    pub id: ID,
    pub patch: UserPatch,
}

#[derive(SimpleObject)]
pub struct CreateUserPayload {
    pub client_mutation_id: Option<String>,
    pub user: Option<User>,
}

#[derive(SimpleObject)]
pub struct UpdateUserPayload {
    pub client_mutation_id: Option<String>,
    pub user: Option<User>,
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
        condition: Option<UserCondition>,
        filter: Option<UserFilter>,
    ) -> Result<UserConnection> {
        let (condition, filter) = (condition.unwrap_or_default(), filter.unwrap_or_default());
        page(ctx.data()?, first, after, |u| {
            condition.ref_.as_ref().is_none_or(|r| *r == u.ref_)
                && condition.email.as_ref().is_none_or(|e| *e == u.email)
                && filter.accepts(u)
        })
    }
}

pub struct Mutation;

#[Object]
impl Mutation {
    async fn create_user(&self, ctx: &Context<'_>, input: CreateUserInput) -> Result<CreateUserPayload> {
        let store: &Shared = ctx.data()?;
        let new = input.user;
        let changes = Changes {
            ref_: Some(new.ref_),
            name: Some(new.name),
            email: Some(new.email),
            is_active: new.is_active,
            department: new.department,
        };
        let user = store.create(changes).map_err(|refusal| refusal.sentence())?;
        Ok(CreateUserPayload { client_mutation_id: input.client_mutation_id, user: Some(user) })
    }

    async fn update_user(&self, ctx: &Context<'_>, input: UpdateUserInput) -> Result<UpdateUserPayload> {
        let store: &Shared = ctx.data()?;
        let patch = input.patch;
        let changes = Changes {
            ref_: patch.ref_,
            name: patch.name,
            email: patch.email,
            is_active: patch.is_active,
            department: patch.department,
        };
        let user = store.update(by_id(&input.id), changes).map_err(|refusal| refusal.sentence())?;
        Ok(UpdateUserPayload { client_mutation_id: input.client_mutation_id, user: Some(user) })
    }
}

/// The PostGraphile-style service with `users` learners.
pub fn start(users: usize) -> Convention {
    let store = Store::seeded(users);
    let schema = Schema::build(Query, Mutation, EmptySubscription).data(store.clone()).finish();
    Convention::start(schema)
}
