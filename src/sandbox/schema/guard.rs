//! Scope checks inside a query: a field that needs a scope the token lacks resolves to null with
//! an error naming the scope (the root fields are checked before execution, with HTTP 403).

use async_graphql::{Context, Guard, Result};

use crate::scopes::{Scope, ScopeSet};

/// The scopes granted to the request's token, put into each request's data.
#[derive(Debug, Clone, Copy)]
pub struct Granted(pub ScopeSet);

/// Lets a field resolve only when the token has a scope.
pub struct ScopeGuard(pub Scope);

impl Guard for ScopeGuard {
    async fn check(&self, ctx: &Context<'_>) -> Result<()> {
        let granted = ctx.data_opt::<Granted>().map_or(ScopeSet::empty(), |g| g.0);
        if granted.contains(self.0) {
            Ok(())
        } else {
            Err(format!(
                "Insufficient scope: the field '{}' requires '{}'; request a token with that scope",
                ctx.item.node.name.node, self.0
            )
            .into())
        }
    }
}
