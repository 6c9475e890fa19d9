//! The sandbox's HTTP surface: `POST /oauth/token/`, `POST /graphql/`, 301 for either path
//! without its trailing slash, and every refusal in the spec's error shapes. The token endpoint,
//! the token check, the rate limit and the 301s are the same for every variant; what answers a
//! GraphQL request is chosen by the variant ([`Executor`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::{Value, json};

use super::access::insufficient_scope_message;
use super::auth::{Tokens, client_scopes, secret_matches};
use super::minimal::MinimalSchema;
use super::response::json_response;
use super::schema::{Granted, MAX_COMPLEXITY, MAX_DEPTH, SandboxSchema};
use crate::scopes::ScopeSet;

/// The token endpoint's path.
pub const TOKEN_PATH: &str = "/oauth/token/";
/// The GraphQL endpoint's path.
pub const GRAPHQL_PATH: &str = "/graphql/";

/// What answers `POST /graphql/` once the token and the rate limit were checked.
pub enum Executor {
    /// The full sandbox: the contract's schema, mutations and webhooks.
    Full(SandboxSchema),
    /// The minimal variant (`sandbox::minimal`): users only, its own wording.
    Minimal(MinimalSchema),
    /// The nested variant (`sandbox::nested`): learning data on the user, noun-first mutations.
    Nested(super::nested::NestedSchema),
}

/// What the handlers share.
pub struct AppState {
    pub executor: Executor,
    pub tokens: Tokens,
    pub secret: String,
    pub limiter: Option<DefaultKeyedRateLimiter<String>>,
    pub latency: Duration,
    /// The documents parsed, kept by their text (the full variant's).
    pub documents: super::documents::Documents,
}

impl AppState {
    /// A rate limiter of `per_second` requests a second per client, or none for 0.
    pub fn limiter(per_second: u32) -> Option<DefaultKeyedRateLimiter<String>> {
        std::num::NonZeroU32::new(per_second).map(|n| RateLimiter::keyed(Quota::per_second(n)))
    }
}

/// The router over the shared state. `body_limit` caps request bodies, `budget` shares and paces
/// them (`crate::serve::inflight`).
pub fn router(state: Arc<AppState>, body_limit: usize, budget: crate::serve::inflight::BudgetLimits) -> Router {
    Router::new()
        .route(TOKEN_PATH, post(token).fallback(method_not_allowed))
        .route(GRAPHQL_PATH, post(graphql).fallback(method_not_allowed))
        .route("/oauth/token", any(add_slash))
        .route("/graphql", any(add_slash))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn_with_state(
            (crate::serve::inflight::BodyBudget::new(budget), body_limit),
            super::bodies::read_under_budget,
        ))
        .with_state(state)
}

/// A response in the spec's GraphQL error shape.
pub(super) fn graphql_error(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({ "data": null, "errors": [{ "message": message }] }))
}

/// A response in RFC 6749's error shape.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let mut response = json_response(status, &json!({ "error": error, "error_description": description }));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn add_slash(uri: Uri) -> Response {
    let location = match uri.query() {
        Some(query) => format!("{}/?{query}", uri.path()),
        None => format!("{}/", uri.path()),
    };
    let mut response = StatusCode::MOVED_PERMANENTLY.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

async fn not_found(uri: Uri) -> Response {
    graphql_error(
        StatusCode::NOT_FOUND,
        &format!("No such endpoint '{}'; the service has POST {TOKEN_PATH} and POST {GRAPHQL_PATH}", uri.path()),
    )
}

async fn method_not_allowed(uri: Uri) -> Response {
    let mut response = graphql_error(StatusCode::METHOD_NOT_ALLOWED, &format!("Use POST for {}", uri.path()));
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

fn body_error(rejection: &BytesRejection) -> (StatusCode, String) {
    let status = rejection.status();
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        (status, "The request body is too large; send a smaller query".to_owned())
    } else {
        (status, format!("The request body could not be read ({rejection}); send it again"))
    }
}

async fn token(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let (status, message) = body_error(&rejection);
            return oauth_error(status, "invalid_request", &message);
        }
    };
    let form_encoded = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/x-www-form-urlencoded"));
    if !form_encoded {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "The token request must be sent as Content-Type: application/x-www-form-urlencoded",
        );
    }
    let Ok(pairs) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "The form body could not be decoded; send name=value pairs joined by '&'",
        );
    };
    let mut form: HashMap<String, String> = HashMap::new();
    for (name, value) in pairs {
        if form.insert(name.clone(), value).is_some() {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!("The parameter '{name}' is given twice; send it once"),
            );
        }
    }
    for name in ["grant_type", "client_id", "client_secret", "scope"] {
        if !form.contains_key(name) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!("The parameter '{name}' is missing; add it to the form body"),
            );
        }
    }
    if form["grant_type"] != "client_credentials" {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "Only grant_type=client_credentials is supported",
        );
    }
    let allowed = match client_scopes(&form["client_id"]) {
        Some(allowed) if secret_matches(&state.secret, &form["client_secret"]) => allowed,
        _ => {
            let mut response = oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client authentication failed; check the client ID and secret",
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"orgql-sandbox\""));
            return response;
        }
    };
    let requested = match ScopeSet::parse(&form["scope"]) {
        Ok(set) if set.is_empty() => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_scope",
                "No scope was requested; ask for the scopes the calls need, separated by spaces",
            );
        }
        Ok(set) => set,
        Err(unknown) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_scope",
                &format!("The scope '{}' does not exist", unknown.0),
            );
        }
    };
    let refused = requested.difference(allowed);
    if !refused.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            &format!("The client '{}' may not request '{}'", form["client_id"], refused),
        );
    }
    let access_token = state.tokens.issue(&form["client_id"], requested);
    let mut response = json_response(
        StatusCode::OK,
        &json!({
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": state.tokens.ttl().as_secs(),
            "scope": requested.to_string(),
        }),
    );
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response.headers_mut().insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

fn unauthorized(message: &str) -> Response {
    let mut response = graphql_error(StatusCode::UNAUTHORIZED, message);
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer error=\"invalid_token\""));
    response
}

/// A JSON request body checked field by field: `{query, variables?, operationName?}`.
pub(super) fn parse_request(body: &[u8]) -> Result<async_graphql::Request, String> {
    const SHAPE: &str = "send {\"query\": \"...\", \"variables\": {...}} with Content-Type: application/json";
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("The request body is not valid JSON ({e}); {SHAPE}"))?;
    let Value::Object(mut object) = value else {
        return Err(format!("The request body must be a JSON object; {SHAPE}"));
    };
    let query = match object.remove("query") {
        Some(Value::String(query)) => query,
        None | Some(Value::Null) => return Err(format!("The request body has no 'query'; {SHAPE}")),
        Some(_) => return Err(format!("'query' must be a string holding the GraphQL document; {SHAPE}")),
    };
    let mut request = async_graphql::Request::new(query);
    match object.remove("variables") {
        None | Some(Value::Null) => {}
        Some(variables @ Value::Object(_)) => {
            request = request.variables(async_graphql::Variables::from_json(variables))
        }
        Some(_) => return Err("'variables' must be a JSON object of name -> value".to_owned()),
    }
    match object.remove("operationName") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => request = request.operation_name(name),
        Some(_) => return Err("'operationName' must be a string naming an operation of the document".to_owned()),
    }
    Ok(request)
}

async fn graphql(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Some(authorization) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return unauthorized(
            "No access token; send 'Authorization: Bearer <token>' with a token from POST /oauth/token/",
        );
    };
    let token = match authorization.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => return unauthorized("The Authorization header must be 'Bearer <token>'"),
    };
    let Some(grant) = state.tokens.check(token) else {
        return unauthorized("The access token is invalid or expired; request a new one at POST /oauth/token/");
    };
    if let Some(limiter) = &state.limiter
        && let Err(not_until) = limiter.check_key(&grant.client_id)
    {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let mut response = graphql_error(
            StatusCode::TOO_MANY_REQUESTS,
            &format!("Too many requests for this API client; wait {}s and try again", seconds.max(1)),
        );
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        return response;
    }
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let (status, message) = body_error(&rejection);
            return graphql_error(status, &message);
        }
    };
    match &state.executor {
        Executor::Full(schema) => execute_full(schema, &state.documents, grant.scopes, &body, state.latency).await,
        Executor::Minimal(schema) => super::minimal::respond(schema, grant.scopes, &body, state.latency).await,
        Executor::Nested(schema) => super::nested::respond(schema, grant.scopes, &body, state.latency).await,
    }
}

/// The full sandbox's answer to an authorized request.
async fn execute_full(
    schema: &SandboxSchema,
    documents: &super::documents::Documents,
    granted: ScopeSet,
    body: &[u8],
    latency: Duration,
) -> Response {
    let mut request = match parse_request(body) {
        Ok(request) => request.data(Granted(granted)),
        Err(message) => return graphql_error(StatusCode::BAD_REQUEST, &message),
    };
    // A document that does not parse is left to async-graphql, which says why.
    if let Some(prepared) = documents.prepared(&request.query, request.operation_name.as_deref()) {
        if prepared.expanded_fields > super::limits::MAX_EXPANDED_FIELDS {
            return graphql_error(StatusCode::BAD_REQUEST, &super::limits::too_many_fields_message());
        }
        let missing = prepared.required.difference(granted);
        if !missing.is_empty() {
            return graphql_error(StatusCode::FORBIDDEN, &insufficient_scope_message(missing));
        }
        request.set_parsed_query(prepared.doc.clone());
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let mut response = schema.execute(request).await;
    null_failed_fields(&mut response.data, &response.errors);
    for error in &mut response.errors {
        explain_limit(&mut error.message);
    }
    graphql_response(&response)
}

/// A GraphQL response as HTTP 200 with its JSON (a response that cannot be encoded: 500 with
/// why, as a GraphQL error).
pub(super) fn graphql_response(response: &async_graphql::Response) -> Response {
    match serde_json::to_vec(response) {
        Ok(bytes) => {
            let mut http = (StatusCode::OK, bytes).into_response();
            http.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            http
        }
        Err(e) => graphql_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("The response could not be encoded ({e})")),
    }
}

/// async-graphql leaves a field whose resolver failed out of its object; the contract wants it
/// present as null next to its entry in `errors` (e.g. `Group.members` without users.read). A
/// parent that is null itself (all of its fields failed) stays null.
fn null_failed_fields(data: &mut async_graphql::Value, errors: &[async_graphql::ServerError]) {
    use async_graphql::{Name, PathSegment, Value as Gql};
    'errors: for error in errors {
        let Some((PathSegment::Field(last), parents)) = error.path.split_last() else { continue };
        let mut node = &mut *data;
        for segment in parents {
            node = match (segment, node) {
                (PathSegment::Field(name), Gql::Object(map)) => match map.get_mut(name.as_str()) {
                    Some(child) => child,
                    None => continue 'errors,
                },
                (PathSegment::Index(i), Gql::List(list)) => match list.get_mut(*i) {
                    Some(child) => child,
                    None => continue 'errors,
                },
                _ => continue 'errors,
            };
        }
        if let Gql::Object(map) = node {
            map.entry(Name::new(last)).or_insert(Gql::Null);
        }
    }
}

/// Turns async-graphql's terse limit messages into ones that say the limit and what to do.
fn explain_limit(message: &mut String) {
    match message.as_str() {
        "Query is nested too deep." => {
            *message = format!(
                "Query is nested too deep: at most {MAX_DEPTH} levels of fields are allowed; split it into smaller queries"
            )
        }
        "Query is too complex." => {
            *message = format!(
                "Query is too complex: its cost is above {MAX_COMPLEXITY} (each field counts once per item of its page); ask for smaller pages or fewer fields"
            )
        }
        // The parser's own limit (64 nested selections or values), hit before the schema's.
        "recursion limit exceeded." => {
            *message =
                "Query is nested too deep: at most 64 levels of nesting can be parsed (recursion limit exceeded); split it into smaller queries".to_owned()
        }
        other if other.starts_with("The recursion depth of the query cannot be greater than") => {
            *message = format!("{other}; the query is nested too deep, split it into smaller queries")
        }
        _ => {}
    }
}
