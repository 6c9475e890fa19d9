//! What every convention server shares: OAuth's token endpoint, the GraphQL endpoint over real
//! HTTP on 127.0.0.1, its own thread and runtime, and the spec's paged list of users.

use std::collections::HashMap;
use std::thread::JoinHandle;

use async_graphql::{Executor, Result, SimpleObject};
use axum::Router;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::json;
use tokio::sync::oneshot;

use super::store::{Shared, User};
use crate::harness::SECRET;

/// The one token the servers hand out.
const TOKEN: &str = "convention-token";
/// The largest page.
const MAX_PAGE: usize = 50;

/// A running convention server; stopped when dropped.
pub struct Convention {
    base_url: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Convention {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl crate::django::Service for Convention {
    fn base_url(&self) -> &str {
        &self.base_url
    }
}

impl Convention {
    /// Serves `schema` on 127.0.0.1 from a thread of its own.
    pub fn start<E: Executor>(schema: E) -> Convention {
        let (stop, stopped) = oneshot::channel::<()>();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("convention-server".into())
            .spawn(move || {
                let runtime =
                    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
                runtime.block_on(async move {
                    let app = Router::new()
                        .route("/oauth/token/", post(token))
                        .route("/graphql/", post(graphql::<E>))
                        .with_state(schema);
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                    tx.send(listener.local_addr().unwrap()).unwrap();
                    axum::serve(listener, app)
                        .with_graceful_shutdown(async move {
                            let _ = stopped.await;
                        })
                        .await
                        .unwrap();
                });
            })
            .unwrap();
        let address = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the server listens");
        Convention { base_url: format!("http://{address}"), stop: Some(stop), thread: Some(thread) }
    }
}

async fn token(Form(form): Form<HashMap<String, String>>) -> Response {
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    if field("grant_type") != "client_credentials" || field("client_secret") != SECRET {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": "invalid_client" }))).into_response();
    }
    axum::Json(json!({ "access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600, "scope": field("scope") }))
        .into_response()
}

async fn graphql<E: Executor>(State(schema): State<E>, headers: HeaderMap, body: String) -> Response {
    let bearer = headers.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if bearer != Some(TOKEN) {
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", "Bearer")], "").into_response();
    }
    let request: async_graphql::Request = match serde_json::from_str(&body) {
        Ok(request) => request,
        Err(e) => {
            return (StatusCode::BAD_REQUEST, axum::Json(json!({ "errors": [{ "message": e.to_string() }] })))
                .into_response();
        }
    };
    axum::Json(schema.execute(request).await).into_response()
}

/// The spec's connection of users, with its count.
#[derive(SimpleObject)]
#[graphql(name = "UserConnection")]
pub struct UserConnection {
    pub count: i32,
    pub edges: Vec<UserEdge>,
    pub page_info: PageInfo,
}

/// An edge of [`UserConnection`].
#[derive(SimpleObject)]
#[graphql(name = "UserEdge")]
pub struct UserEdge {
    pub cursor: String,
    pub node: User,
}

/// Relay's page info.
#[derive(SimpleObject)]
#[graphql(name = "PageInfo")]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

/// The page of the learners `keep` accepts after the cursor `after`, `first` of them (50 at
/// most).
pub fn page(
    store: &Shared,
    first: Option<i32>,
    after: Option<String>,
    keep: impl Fn(&User) -> bool,
) -> Result<UserConnection> {
    let first = usize::try_from(first.unwrap_or(MAX_PAGE as i32)).map_err(|_| "first must not be negative")?;
    if first > MAX_PAGE {
        return Err(format!("first must be at most {MAX_PAGE}").into());
    }
    let all = store.all(keep);
    let start = match after {
        Some(cursor) => cursor.parse::<usize>().map_err(|_| "not a cursor of this list")? + 1,
        None => 0,
    };
    let edges: Vec<UserEdge> = all
        .iter()
        .enumerate()
        .skip(start)
        .take(first)
        .map(|(i, user)| UserEdge { cursor: i.to_string(), node: user.clone() })
        .collect();
    let end = edges.last().map(|e| e.cursor.clone());
    let has_next_page = start + edges.len() < all.len();
    Ok(UserConnection { count: all.len() as i32, edges, page_info: PageInfo { has_next_page, end_cursor: end } })
}

/// `user(ref:)`: the learner, or null with an error saying there is none.
pub fn user(ctx: &async_graphql::Context<'_>, user_ref: &str) -> Result<Option<User>> {
    let store: &Shared = ctx.data()?;
    let found = store.by_ref(user_ref);
    if found.is_none() {
        let error = async_graphql::ServerError::new("Learner matching query does not exist.", Some(ctx.item.pos));
        ctx.add_error(ctx.set_error_path(error));
    }
    Ok(found)
}

/// A text comparison of a filter input (`{ eq: … }`, `{ startsWith: … }`).
#[derive(async_graphql::InputObject, Default)]
#[graphql(name = "StringFilter")]
pub struct StringFilter {
    pub eq: Option<String>,
    pub starts_with: Option<String>,
}

impl StringFilter {
    /// Whether `value` passes.
    pub fn accepts(&self, value: &str) -> bool {
        self.eq.as_ref().is_none_or(|eq| eq == value)
            && self.starts_with.as_ref().is_none_or(|s| value.starts_with(s.as_str()))
    }
}

/// A filter of users by e-mail and name (`filter: { email: { eq: … } }`).
#[derive(async_graphql::InputObject, Default)]
#[graphql(name = "UserFilter")]
pub struct UserFilter {
    pub email: Option<StringFilter>,
    pub name: Option<StringFilter>,
}

impl UserFilter {
    /// Whether `user` passes.
    pub fn accepts(&self, user: &User) -> bool {
        self.email.as_ref().is_none_or(|f| f.accepts(&user.email))
            && self.name.as_ref().is_none_or(|f| f.accepts(&user.name))
    }
}
