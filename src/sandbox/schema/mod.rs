//! The sandbox's GraphQL schema (`../shared/contract/sandbox.graphql`), with async-graphql.

mod guard;
mod mutation;
pub mod next;
mod query;
mod types;

use std::sync::Arc;

use async_graphql::{EmptySubscription, Schema};

pub use guard::Granted;
pub use mutation::MutationRoot;
pub use next::Edition;
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
    build_edition(db, outbox, Edition::Current)
}

/// [`build`], serving the `edition` of the schema ([`next`]).
pub fn build_edition(db: Arc<SharedDb>, outbox: Outbox, edition: Edition) -> SandboxSchema {
    let builder = Schema::build(QueryRoot, MutationRoot, EmptySubscription)
        .data(db)
        .data(outbox)
        .data(edition)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(64);
    match edition {
        Edition::Current => builder.finish(),
        Edition::Next => builder.extension(next::NextDeprecations).finish(),
    }
}

/// The schema in SDL, as the sandbox serves it.
pub fn sdl() -> String {
    Schema::build(QueryRoot, MutationRoot, EmptySubscription).finish().sdl()
}
