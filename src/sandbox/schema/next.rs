//! The sandbox's next schema (`orgql sandbox --schema next`, issue 30): the same data and
//! service, with the four kinds of change a service makes between versions, so that
//! `orgql schema changes` and `orgql operations check` can be tried without the organisation's
//! service:
//!
//! - a field added: `User.displayName` (the user's name);
//! - a field deprecated with a reason naming its alternative: `User.name`, "Use `displayName`.";
//! - an argument removed: `Query.paginatedUsers(email:)` (hidden from introspection and refused
//!   as GraphQL validation would refuse it);
//! - an enum value added, a dangerous change: `Role.REVIEWER`, which no user has.
//!
//! The added field and the removed argument are chosen by async-graphql's `visible` ([`is_next`],
//! [`is_current`]); `@deprecated` is fixed at compile time in async-graphql, so the deprecation
//! is written into introspection answers ([`NextDeprecations`]): any `__Type` named `User`
//! answered lists its field `name` as deprecated. Asked with `includeDeprecated: false`, the
//! field is still listed (orgql asks with `true`).

use std::sync::Arc;

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextExecute};
use async_graphql::{Context, Name, Response, Value};

/// Which version of its schema the full sandbox serves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Edition {
    /// The contract's schema.
    #[default]
    Current,
    /// The next one: a field added, one deprecated, an argument removed, an enum value added.
    Next,
}

impl Edition {
    /// Its name on the command line: `current` or `next`.
    pub fn name(self) -> &'static str {
        match self {
            Edition::Current => "current",
            Edition::Next => "next",
        }
    }
}

/// The field the next schema deprecates, on `User`.
pub const DEPRECATED_FIELD: &str = "name";
/// Its reason, naming the field added.
pub const DEPRECATION_REASON: &str = "Use `displayName`.";

/// Whether the schema served is the next one (async-graphql's `visible`).
pub fn is_next(ctx: &Context<'_>) -> bool {
    ctx.data_opt::<Edition>() == Some(&Edition::Next)
}

/// Whether the schema served is the current one (async-graphql's `visible`).
pub fn is_current(ctx: &Context<'_>) -> bool {
    !is_next(ctx)
}

/// Writes the next schema's deprecation of `User.name` into introspection answers.
pub struct NextDeprecations;

impl ExtensionFactory for NextDeprecations {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(NextDeprecations)
    }
}

#[async_graphql::async_trait::async_trait]
impl Extension for NextDeprecations {
    async fn execute(
        &self,
        ctx: &ExtensionContext<'_>,
        operation_name: Option<&str>,
        next: NextExecute<'_>,
    ) -> Response {
        let mut response = next.run(ctx, operation_name).await;
        deprecate(&mut response.data);
        response
    }
}

/// Marks `User.name` deprecated wherever `value` holds the introspection of the type `User`
/// with its fields.
fn deprecate(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let is_user = matches!(map.get("name"), Some(Value::String(name)) if name == "User");
            if is_user && let Some(Value::List(fields)) = map.get_mut("fields") {
                for field in fields {
                    let Value::Object(field) = field else { continue };
                    if matches!(field.get("name"), Some(Value::String(name)) if name == DEPRECATED_FIELD) {
                        if field.contains_key("isDeprecated") {
                            field.insert(Name::new("isDeprecated"), Value::Boolean(true));
                        }
                        if field.contains_key("deprecationReason") {
                            field.insert(Name::new("deprecationReason"), Value::String(DEPRECATION_REASON.to_owned()));
                        }
                    }
                }
            }
            for child in map.values_mut() {
                deprecate(child);
            }
        }
        Value::List(items) => items.iter_mut().for_each(deprecate),
        _ => {}
    }
}
