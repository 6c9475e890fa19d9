//! The sandbox's GraphQL schema (`../shared/contract/sandbox.graphql`), with async-graphql.

mod guard;
mod mutation;
mod query;
mod types;

use std::sync::Arc;

use async_graphql::{EmptySubscription, Schema};

pub use guard::Granted;
pub use mutation::MutationRoot;
pub use query::QueryRoot;

use super::data::SharedDb;
use super::deliveries::Outbox;

/// The schema type.
pub type SandboxSchema = Schema<QueryRoot, MutationRoot, EmptySubscription>;

/// The deepest nesting of fields a query may have (the standard introspection query needs 13).
pub const MAX_DEPTH: usize = 16;
/// The largest complexity a query may have: each field counts 1, a page multiplies its fields
/// by its size.
pub const MAX_COMPLEXITY: usize = 20_000;

/// Builds the schema over a database, sending mutations' webhook events to `outbox`.
pub fn build(db: Arc<SharedDb>, outbox: Outbox) -> SandboxSchema {
    Schema::build(QueryRoot, MutationRoot, EmptySubscription)
        .data(db)
        .data(outbox)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(64)
        .finish()
}

/// The schema in SDL, as the sandbox serves it.
pub fn sdl() -> String {
    Schema::build(QueryRoot, MutationRoot, EmptySubscription).finish().sdl()
}
