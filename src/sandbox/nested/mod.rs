//! The nested variant of the sandbox (`orgql sandbox --variant nested`): a second server of the
//! spec whose *shape* is deliberately unlike the sandbox's, for the features that read shapes
//! rather than names (issues 21 and 22; `crate::shape`):
//!
//! - learning data hangs off the user: `User.registrations(first:, after:)` (a Relay connection
//!   counted by `totalCount`, each registration pointing to a session and its course, with an
//!   enum status), `User.trainingStatus` (a plain list with a percentage), `User.certificates`
//!   (a plain list; some expired); scalars the card has no fixed place for (`department`,
//!   `locale`, `hiredOn: Date`);
//! - mutations are named noun-first (`userCreate`, `userUpdate(ref:, input:)`, `userArchive`,
//!   `userActivate`, `registrationCreate`, `registrationChangeStatus`, `groupMemberAdd`,
//!   `groupMemberRemove`) and answer with payloads; refusals are data with HTTP 200
//!   (`errors { field messages }` or `userErrors { field message code }`, see [`mutation`]);
//! - `sessions(search:)` lists sessions by title, to enroll in one; offset cursors.
//!
//! The data is the full sandbox's, generated from the same seed; the token endpoint, clients,
//! scopes, rate limit and 301s are the full sandbox's (`sandbox::http`).

pub mod mutation;
pub mod types;

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use async_graphql::parser::types::OperationType;
use async_graphql::{EmptySubscription, Schema};
use axum::http::StatusCode;
use axum::response::Response;

use super::access::{insufficient_scope_message, required_scopes_by};
use super::data::{Change, Db, Invalid, Seq, SharedDb, UserRec};
use super::deliveries::Outbox;
use super::http::graphql_error;
use crate::scopes::{Scope, ScopeSet};

/// The nested variant's schema type.
pub type NestedSchema = Schema<types::QueryRoot, mutation::MutationRoot, EmptySubscription>;

/// The deepest nesting of fields a query may have (the standard introspection query needs 13).
pub const MAX_DEPTH: usize = 16;
/// The largest complexity a query may have (each field counts 1).
pub const MAX_COMPLEXITY: usize = 5_000;

/// What the variant keeps of a user beyond the sandbox's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// `department`.
    pub department: Option<String>,
    /// `locale`.
    pub locale: Option<String>,
}

const LOCALES: [&str; 5] = ["en-GB", "fr-FR", "de-DE", "pt-BR", "ja-JP"];
const DEPARTMENTS: [&str; 6] = ["Sales", "Engineering", "HR", "Finance", "Support", "Operations"];

/// The variant's state: the sandbox's data, the profiles changed so far, and the outbox.
pub struct Nested {
    /// The data, shared with the running server's handle (tests read it).
    pub db: Arc<SharedDb>,
    profiles: RwLock<HashMap<Seq, Profile>>,
    outbox: Outbox,
}

impl Nested {
    /// A user's department and locale: as changed, else as generated from their number.
    pub fn profile(&self, user: &UserRec) -> Profile {
        let changed = self.profiles.read().unwrap_or_else(PoisonError::into_inner).get(&user.seq).cloned();
        changed.unwrap_or_else(|| {
            let n = usize::try_from(user.seq).unwrap_or_default();
            Profile {
                department: (n % 7 != 0).then(|| DEPARTMENTS[n % DEPARTMENTS.len()].to_owned()),
                locale: Some(LOCALES[n % LOCALES.len()].to_owned()),
            }
        })
    }

    /// Changes a user's profile.
    pub fn set_profile(&self, seq: Seq, change: impl FnOnce(&mut Profile)) {
        let current = self.db.read().users.by_seq(seq).map(|u| self.profile(u)).unwrap_or_default();
        let mut profiles = self.profiles.write().unwrap_or_else(PoisonError::into_inner);
        change(profiles.entry(seq).or_insert(current));
    }

    /// Runs one change under the write lock; counts it and queues its webhooks when made.
    pub fn commit<T>(&self, change: impl FnOnce(&mut Db) -> Result<(T, Vec<Change>), Invalid>) -> Result<T, Invalid> {
        let mut db = self.db.write();
        let (record, events) = change(&mut db)?;
        db.commits += 1;
        self.outbox.send(events);
        Ok(record)
    }
}

/// Builds the schema over a database, sending the changes' webhooks to `outbox`.
pub fn build(db: Arc<SharedDb>, outbox: Outbox) -> NestedSchema {
    let state = Arc::new(Nested { db, profiles: RwLock::new(HashMap::new()), outbox });
    Schema::build(types::QueryRoot, mutation::MutationRoot, EmptySubscription)
        .data(state)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(64)
        .finish()
}

/// The schema in SDL, as the variant serves it.
pub fn sdl() -> String {
    Schema::build(types::QueryRoot, mutation::MutationRoot, EmptySubscription).finish().sdl()
}

/// The scope a root field of this variant needs.
pub fn root_field_scope(operation: OperationType, field: &str) -> Option<Scope> {
    use Scope::*;
    match operation {
        OperationType::Query => match field {
            "user" | "paginatedUsers" => Some(UsersRead),
            "sessions" => Some(EventsRead),
            "group" | "groups" => Some(GroupsRead),
            _ => None,
        },
        OperationType::Mutation => match field {
            "userCreate" | "userBulkCreate" | "userUpdate" | "userArchive" | "userActivate" => Some(UsersWrite),
            "registrationCreate" | "registrationChangeStatus" => Some(EventsWrite),
            "groupMemberAdd" | "groupMemberRemove" => Some(GroupsWrite),
            _ => None,
        },
        OperationType::Subscription => None,
    }
}

/// Answers one authorized GraphQL request: 400 for a malformed body, 403 for a missing scope,
/// otherwise HTTP 200 with `data` and `errors` (refused changes are data).
pub async fn respond(schema: &NestedSchema, granted: ScopeSet, body: &[u8], latency: Duration) -> Response {
    let mut request = match super::http::parse_request(body) {
        Ok(request) => request,
        Err(message) => return graphql_error(StatusCode::BAD_REQUEST, &message),
    };
    let operation_name = request.operation_name.clone();
    if let Ok(doc) = request.parsed_query() {
        if super::limits::expanded_fields(doc) > super::limits::MAX_EXPANDED_FIELDS {
            return graphql_error(StatusCode::BAD_REQUEST, &super::limits::too_many_fields_message());
        }
        let missing = required_scopes_by(doc, operation_name.as_deref(), root_field_scope).difference(granted);
        if !missing.is_empty() {
            return graphql_error(StatusCode::FORBIDDEN, &insufficient_scope_message(missing));
        }
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let response = schema.execute(request).await;
    super::http::graphql_response(&response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_has_the_nested_noun_first_shape() {
        let sdl = sdl();
        for line in [
            "user(ref: String!): User",
            "paginatedUsers(first: Int!, after: String, ref: String): UserConnection!",
            "sessions(search: String, first: Int, after: String): SessionConnection!",
            "groups(search: String, first: Int): [Group!]!",
            "registrations(first: Int, after: String): RegistrationConnection!",
            "trainingStatus: [TrainingStatus!]!",
            "certificates: [Certificate!]!",
            "expiresOn: Date",
            "progressPercent: Float!",
            "totalCount: Int!",
            "count: Int!",
            "userUpdate(ref: String!, input: UserUpdateInput!): UserPayload!",
            "registrationChangeStatus(id: ID!, status: RegistrationStatus!): RegistrationPayload!",
            "registrationCreate(userRef: String!, sessionId: ID!): RegistrationPayload!",
            "userErrors: [UserError!]!",
            "messages: [String!]!",
            "NO_SHOW",
        ] {
            assert!(sdl.contains(line), "missing '{line}' in:\n{sdl}");
        }
        for absent in ["paginatedEnrollments", "updateUser", "createUser", "extraFields"] {
            assert!(!sdl.contains(absent), "unexpected '{absent}'");
        }
    }

    #[test]
    fn each_root_field_needs_its_scope() {
        assert_eq!(root_field_scope(OperationType::Query, "sessions"), Some(Scope::EventsRead));
        assert_eq!(root_field_scope(OperationType::Mutation, "userUpdate"), Some(Scope::UsersWrite));
        assert_eq!(root_field_scope(OperationType::Mutation, "groupMemberAdd"), Some(Scope::GroupsWrite));
        assert_eq!(root_field_scope(OperationType::Mutation, "updateUser"), None);
    }
}
