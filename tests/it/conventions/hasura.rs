//! Hasura's generated mutations: `insert_users_one(object:)` and `update_users_by_pk(pk_columns:
//! { id }, _set: { … })`, answering the user; a refusal is a GraphQL error. Users are found by
//! `where: { email: { _eq: … } }`.

use async_graphql::{Context, EmptySubscription, ID, InputObject, MaybeUndefined, Object, Result, Schema};

use super::server::{Convention, UserConnection, page, user};
use super::store::{Changes, Shared, Store, User, by_id};

/// A comparison of a text column.
#[derive(InputObject, Default)]
#[graphql(name = "String_comparison_exp")]
pub struct StringComparison {
    #[graphql(name = "_eq")]
    pub eq: Option<String>,
    #[graphql(name = "_like")]
    pub like: Option<String>,
}

impl StringComparison {
    fn accepts(&self, value: &str) -> bool {
        let like = |pattern: &str| match pattern.strip_suffix('%') {
            Some(prefix) => value.starts_with(prefix),
            None => value == pattern,
        };
        self.eq.as_ref().is_none_or(|eq| eq == value) && self.like.as_deref().is_none_or(like)
    }
}

/// What users are kept.
#[derive(InputObject, Default)]
#[graphql(name = "users_bool_exp")]
pub struct UsersBoolExp {
    pub email: Option<StringComparison>,
    pub name: Option<StringComparison>,
}

#[derive(InputObject)]
#[graphql(name = "users_insert_input", rename_fields = "camelCase")]
pub struct UsersInsertInput {
    #[graphql(name = "ref")]
    pub ref_: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub is_active: Option<bool>,
    pub department: MaybeUndefined<String>,
}

#[derive(InputObject)]
#[graphql(name = "users_pk_columns_input")]
pub struct UsersPkColumns {
    pub id: ID,
}

#[derive(InputObject)]
#[graphql(name = "users_set_input", rename_fields = "camelCase")]
pub struct UsersSetInput {
    #[graphql(name = "ref")]
    pub ref_: Option<String>,
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
        #[graphql(name = "where")] filter: Option<UsersBoolExp>,
    ) -> Result<UserConnection> {
        let filter = filter.unwrap_or_default();
        page(ctx.data()?, first, after, |u| {
            filter.email.as_ref().is_none_or(|f| f.accepts(&u.email))
                && filter.name.as_ref().is_none_or(|f| f.accepts(&u.name))
        })
    }
}

pub struct Mutation;

#[Object(rename_fields = "snake_case")]
impl Mutation {
    async fn insert_users_one(&self, ctx: &Context<'_>, object: UsersInsertInput) -> Result<Option<User>> {
        let store: &Shared = ctx.data()?;
        let changes = Changes {
            ref_: object.ref_,
            name: object.name,
            email: object.email,
            is_active: object.is_active,
            department: object.department,
        };
        Ok(Some(store.create(changes).map_err(|refusal| refusal.sentence())?))
    }

    async fn update_users_by_pk(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "pk_columns")] pk_columns: UsersPkColumns,
        #[graphql(name = "_set")] set: Option<UsersSetInput>,
    ) -> Result<Option<User>> {
        let store: &Shared = ctx.data()?;
        let Some(set) = set else { return Ok(store.all(by_id(&pk_columns.id)).into_iter().next()) };
        let changes = Changes {
            ref_: set.ref_,
            name: set.name,
            email: set.email,
            is_active: set.is_active,
            department: set.department,
        };
        Ok(Some(store.update(by_id(&pk_columns.id), changes).map_err(|refusal| refusal.sentence())?))
    }
}

/// The Hasura-style service with `users` learners.
pub fn start(users: usize) -> Convention {
    let store = Store::seeded(users);
    let schema = Schema::build(Query, Mutation, EmptySubscription).data(store.clone()).finish();
    Convention::start(schema)
}
