//! The minimal variant of the sandbox (`orgql sandbox --variant minimal`): a second server that
//! conforms to the spec but is deliberately not orgql's own sandbox, to rehearse against.
//!
//! Its schema is `notes/minimal.graphql`: users only (`user`, `paginatedUsers`), built with
//! async-graphql's dynamic schema over the same generated data. Where the spec is silent it
//! chooses differently from the full sandbox: graphene-style offset cursors, edge cursors only
//! (no `pageInfo`: a page shorter than `first` is the last), `first` required and capped to 50
//! silently, Django-flavoured messages, and graphql-core's `@deprecated` locations
//! ([`introspection`]). The token endpoint, clients, scopes, rate limit, latency and 301s are the
//! full sandbox's (`sandbox::http`).

pub mod cursor;
pub mod introspection;

use std::sync::Arc;
use std::time::Duration;

use async_graphql::dynamic::{
    Field, FieldFuture, FieldValue, InputValue, Object, ResolverContext, Schema, SchemaError, TypeRef,
};
use async_graphql::{ServerError, Value as Gql};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::access::required_scopes;
use super::data::{MAX_PAGE_SIZE, SharedDb, UserRec};
use super::response::json_response;
use crate::scopes::ScopeSet;

/// The minimal variant's schema type.
pub type MinimalSchema = Schema;

/// The deepest nesting of fields a query may have (the standard introspection query needs 13).
pub const MAX_DEPTH: usize = 15;
/// The largest complexity a query may have: each field counts 1, whatever the page size (the
/// dynamic schema's own count).
pub const MAX_COMPLEXITY: usize = 1_000;

/// The message of a `user` that does not exist.
pub const NOT_FOUND: &str = "User matching query does not exist.";
/// The message of an `after` that names no edge.
pub const INVALID_CURSOR: &str = "Invalid cursor.";
/// The message of `first` below 1.
pub const FIRST_NOT_POSITIVE: &str = "Argument 'first' must be positive.";

/// A user as this variant serves it: only the fields of its schema.
#[derive(Debug, Clone)]
struct UserRow {
    id: String,
    ref_: String,
    name: String,
    email: String,
    is_active: bool,
}

impl From<&UserRec> for UserRow {
    fn from(u: &UserRec) -> Self {
        UserRow {
            id: u.id.clone(),
            ref_: u.ref_.clone(),
            name: u.name.clone(),
            email: u.email.clone(),
            is_active: u.is_active,
        }
    }
}

struct Edge {
    cursor: String,
    node: UserRow,
}

struct Connection {
    edges: Vec<Edge>,
    count: usize,
}

/// Records an error with the field's path and resolves the field to null.
fn null_with_error<'a>(ctx: &ResolverContext<'_>, message: &str) -> Option<FieldValue<'a>> {
    ctx.add_error(ctx.set_error_path(ServerError::new(message, Some(ctx.item.pos))));
    None
}

/// A string argument, `None` when absent or null.
fn optional_string<'a>(ctx: &'a ResolverContext<'_>, name: &str) -> async_graphql::Result<Option<&'a str>> {
    match ctx.args.get(name) {
        Some(value) if !value.is_null() => Ok(Some(value.string()?)),
        _ => Ok(None),
    }
}

fn user_field(name: &str, ty: TypeRef, read: fn(&UserRow) -> Gql) -> Field {
    Field::new(name, ty, move |ctx| {
        FieldFuture::new(async move { Ok(Some(read(ctx.parent_value.try_downcast_ref::<UserRow>()?))) })
    })
}

fn user<'a>(ctx: &ResolverContext<'_>, db: &SharedDb) -> async_graphql::Result<Option<FieldValue<'a>>> {
    let key = ctx.args.try_get("ref")?.string()?;
    let found = db.read().users.get(key).map(UserRow::from);
    Ok(match found {
        Some(row) => Some(FieldValue::owned_any(row)),
        None => null_with_error(ctx, NOT_FOUND),
    })
}

fn paginated_users<'a>(ctx: &ResolverContext<'_>, db: &SharedDb) -> async_graphql::Result<Option<FieldValue<'a>>> {
    let first = ctx.args.try_get("first")?.i64()?;
    if first < 1 {
        return Ok(null_with_error(ctx, FIRST_NOT_POSITIVE));
    }
    let first = usize::try_from(first.min(i64::from(MAX_PAGE_SIZE))).unwrap_or(1);
    let after = optional_string(ctx, "after")?;
    let ref_ = optional_string(ctx, "ref")?;
    let email = optional_string(ctx, "email")?;
    let db = db.read();
    let matching: Vec<&UserRec> = db
        .users
        .iter()
        .filter(|u| ref_.is_none_or(|r| u.ref_ == r) && email.is_none_or(|e| u.email.eq_ignore_ascii_case(e)))
        .collect();
    let start = match after {
        None => 0,
        Some(after) => match cursor::decode(after) {
            Some(offset) if offset < matching.len() => offset + 1,
            _ => return Ok(null_with_error(ctx, INVALID_CURSOR)),
        },
    };
    let edges = matching
        .iter()
        .enumerate()
        .skip(start)
        .take(first)
        .map(|(offset, u)| Edge { cursor: cursor::encode(offset), node: UserRow::from(*u) })
        .collect();
    Ok(Some(FieldValue::owned_any(Connection { edges, count: matching.len() })))
}

/// Builds the schema of `notes/minimal.graphql` over a database.
pub fn build(db: Arc<SharedDb>) -> Result<MinimalSchema, SchemaError> {
    let user_type = Object::new("User")
        .field(user_field("id", TypeRef::named_nn(TypeRef::ID), |u| Gql::from(u.id.clone())))
        .field(user_field("ref", TypeRef::named_nn(TypeRef::STRING), |u| Gql::from(u.ref_.clone())))
        .field(user_field("name", TypeRef::named_nn(TypeRef::STRING), |u| Gql::from(u.name.clone())))
        .field(user_field("email", TypeRef::named_nn(TypeRef::STRING), |u| Gql::from(u.email.clone())))
        .field(user_field("isActive", TypeRef::named_nn(TypeRef::BOOLEAN), |u| Gql::from(u.is_active)));
    let edge_type = Object::new("UserEdge")
        .field(Field::new("cursor", TypeRef::named_nn(TypeRef::STRING), |ctx| {
            FieldFuture::new(
                async move { Ok(Some(Gql::from(ctx.parent_value.try_downcast_ref::<Edge>()?.cursor.clone()))) },
            )
        }))
        .field(Field::new("node", TypeRef::named("User"), |ctx| {
            FieldFuture::new(async move {
                Ok(Some(FieldValue::borrowed_any(&ctx.parent_value.try_downcast_ref::<Edge>()?.node)))
            })
        }));
    let connection_type = Object::new("UserConnection")
        .field(Field::new("edges", TypeRef::named_list("UserEdge"), |ctx| {
            FieldFuture::new(async move {
                let connection = ctx.parent_value.try_downcast_ref::<Connection>()?;
                Ok(Some(FieldValue::list(connection.edges.iter().map(|e| FieldValue::borrowed_any(e)))))
            })
        }))
        .field(Field::new("count", TypeRef::named(TypeRef::INT), |ctx| {
            FieldFuture::new(async move {
                let count = ctx.parent_value.try_downcast_ref::<Connection>()?.count;
                Ok(Some(Gql::from(i32::try_from(count).unwrap_or(i32::MAX))))
            })
        }));
    let user_db = db.clone();
    let page_db = db;
    let query = Object::new("Query")
        .field(
            Field::new("user", TypeRef::named("User"), move |ctx| {
                let db = user_db.clone();
                FieldFuture::new(async move { user(&ctx, &db) })
            })
            .description("Null plus an entry in `errors` when no user has this ref.")
            .argument(InputValue::new("ref", TypeRef::named_nn(TypeRef::STRING))),
        )
        .field(
            Field::new("paginatedUsers", TypeRef::named("UserConnection"), move |ctx| {
                let db = page_db.clone();
                FieldFuture::new(async move { paginated_users(&ctx, &db) })
            })
            .description(
                "Cursor pagination by edge cursors only (no pageInfo). `first` is required; above 50 it is capped \
                 to 50 silently (the spec allows either). Filters: ref, email (exact, case-insensitive).",
            )
            .argument(InputValue::new("first", TypeRef::named_nn(TypeRef::INT)))
            .argument(InputValue::new("after", TypeRef::named(TypeRef::STRING)))
            .argument(InputValue::new("ref", TypeRef::named(TypeRef::STRING)))
            .argument(InputValue::new("email", TypeRef::named(TypeRef::STRING))),
        );
    Schema::build("Query", None, None)
        .register(user_type)
        .register(edge_type)
        .register(connection_type)
        .register(query)
        .limit_depth(MAX_DEPTH)
        .limit_complexity(MAX_COMPLEXITY)
        .limit_recursive_depth(64)
        .finish()
}

/// A refusal in this variant's shape: `{"errors":[{"message"}]}`, no `data`.
fn refusal(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({ "errors": [{ "message": message }] }))
}

/// A JSON request body, in graphene-django's words when it is not one.
fn parse_request(body: &[u8]) -> Result<async_graphql::Request, &'static str> {
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(body) else {
        return Err("POST body sent invalid JSON.");
    };
    let Some(Value::String(query)) = object.remove("query") else {
        return Err("Must provide query string.");
    };
    let mut request = async_graphql::Request::new(query);
    match object.remove("variables") {
        None | Some(Value::Null) => {}
        Some(variables @ Value::Object(_)) => {
            request = request.variables(async_graphql::Variables::from_json(variables))
        }
        Some(_) => return Err("Variables are invalid JSON."),
    }
    match object.remove("operationName") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => request = request.operation_name(name),
        Some(_) => return Err("Must provide a string operationName."),
    }
    Ok(request)
}

/// The 403 message when the token lacks `missing`.
pub fn permission_message(missing: ScopeSet) -> String {
    let (noun, verb) = if missing.iter().count() == 1 { ("scope", "is") } else { ("scopes", "are") };
    format!("You do not have permission to perform this action ({noun} {missing} {verb} required).")
}

/// Answers one authorized GraphQL request (`POST /graphql/` after the token and the rate limit
/// were checked): 400 for a malformed body, 403 for a missing scope, otherwise HTTP 200 with
/// `data` and `errors`.
pub async fn respond(schema: &MinimalSchema, granted: ScopeSet, body: &[u8], latency: Duration) -> Response {
    let mut request = match parse_request(body) {
        Ok(request) => request,
        Err(message) => return refusal(StatusCode::BAD_REQUEST, message),
    };
    let operation_name = request.operation_name.clone();
    let mut paths = Vec::new();
    if let Ok(doc) = request.parsed_query() {
        if crate::sandbox::limits::expanded_fields(doc) > crate::sandbox::limits::MAX_EXPANDED_FIELDS {
            return refusal(StatusCode::BAD_REQUEST, &crate::sandbox::limits::too_many_fields_message());
        }
        let missing = required_scopes(doc, operation_name.as_deref()).difference(granted);
        if !missing.is_empty() {
            return refusal(StatusCode::FORBIDDEN, &permission_message(missing));
        }
        paths = introspection::locations_paths(doc);
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let mut response = schema.execute(request).await;
    if !paths.is_empty() {
        introspection::add_extra_location(&mut response.data, &paths);
    }
    match serde_json::to_vec(&response) {
        Ok(bytes) => {
            let mut http = (StatusCode::OK, bytes).into_response();
            http.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            http
        }
        Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &format!("The response could not be encoded ({e}).")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scopes::Scope;

    #[test]
    fn the_schema_is_the_agreed_one() {
        let db = Arc::new(SharedDb::new(crate::sandbox::data::generate(3, 1)));
        let sdl = build(db).expect("the schema builds").sdl();
        for line in [
            "user(ref: String!): User",
            "paginatedUsers(first: Int!, after: String, ref: String, email: String): UserConnection",
            "id: ID!",
            "ref: String!",
            "name: String!",
            "email: String!",
            "isActive: Boolean!",
            "edges: [UserEdge]",
            "count: Int",
            "cursor: String!",
            "node: User",
        ] {
            assert!(sdl.contains(line), "missing '{line}' in:\n{sdl}");
        }
        for absent in ["pageInfo:", "PageInfo", "Mutation", "Group", "roles", "createdAt"] {
            assert!(!sdl.contains(absent), "unexpected '{absent}' in:\n{sdl}");
        }
    }

    #[test]
    fn the_permission_message_names_the_scope() {
        assert_eq!(
            permission_message([Scope::UsersRead].into_iter().collect()),
            "You do not have permission to perform this action (scope users.read is required)."
        );
    }

    #[test]
    fn malformed_bodies_are_refused_in_graphene_words() {
        assert_eq!(parse_request(b"{").unwrap_err(), "POST body sent invalid JSON.");
        assert_eq!(parse_request(b"[]").unwrap_err(), "POST body sent invalid JSON.");
        assert_eq!(parse_request(b"{\"query\": 3}").unwrap_err(), "Must provide query string.");
        assert_eq!(
            parse_request(b"{\"query\": \"{ x }\", \"variables\": 1}").unwrap_err(),
            "Variables are invalid JSON."
        );
        assert!(parse_request(b"{\"query\": \"{ x }\", \"variables\": null, \"operationName\": \"A\"}").is_ok());
    }
}
