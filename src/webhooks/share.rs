//! Sharing (`orgql webhooks listen --share-token-file FILE`): the listener's stored deliveries
//! served to inspectors on the same port under [`PREFIX`], behind a bearer token. Never served
//! without the flag (the paths are then ordinary delivery paths).
//!
//! - `GET /_orgql/v1/deliveries?after=ID&limit=N`: a [`WirePage`] of up to N (at most
//!   [`MAX_PAGE`]) deliveries after ID, oldest first;
//! - `GET /_orgql/v1/deliveries/ID`: one [`WireDelivery`] with its exact bytes;
//! - `GET /_orgql/v1/stream?after=ID` (or `Last-Event-ID: ID`): Server-Sent Events, one
//!   `delivery` event a delivery after ID (`id:` its id, `data:` its [`WireDelivery`]), first the
//!   stored ones and then each as it is stored.
//!
//! The token is compared in constant time (SHA-256 digests of both, so not even its length
//! shows), never logged; a wrong or missing one gets 401 and a sentence, nothing else.

use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::Stream;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::wire::{WireDelivery, WirePage};
use crate::secret::Secret;
use crate::store::{Delivery, Store};

/// The reserved path prefix of the read API (and of the health check).
pub const PREFIX: &str = "/_orgql";
/// The health check, answered `ok` whether or not sharing is on (for container health checks).
pub const HEALTH_PATH: &str = "/_orgql/health";
/// The most deliveries a page holds.
pub const MAX_PAGE: usize = 500;
/// The most body bytes a page holds (8 MiB; a page has at least one delivery).
pub const PAGE_BYTES: usize = 8 * 1024 * 1024;
/// Deliveries read from the store at a time for a stream (bodies up to the body limit each, so a
/// stream holds at most this many bodies).
const STREAM_PAGE: usize = 32;
/// The shortest token accepted (16 characters).
pub const MIN_TOKEN_LEN: usize = 16;

/// Reads a share token from the file a user gave: its first line, trimmed. The sentence of an
/// error names the file, never the token.
pub fn read_token_file(path: &Path) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!("cannot read the token file {} ({e}); give a file holding one line with the token", path.display())
    })?;
    let token = text.lines().next().unwrap_or_default().trim();
    if token.chars().count() < MIN_TOKEN_LEN {
        return Err(format!(
            "the token in {} is shorter than {MIN_TOKEN_LEN} characters; put a long random one in it (for example \
             `openssl rand -hex 32 > {}`)",
            path.display(),
            path.display()
        ));
    }
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(format!(
            "the token in {} has spaces or characters other than printable ASCII; use letters and digits (for \
             example `openssl rand -hex 32`)",
            path.display()
        ));
    }
    Ok(Secret::new(token))
}

/// What the read API needs: the token's digest, its own read connection to the store (readers do
/// not wait for the writer in WAL mode), the newest stored id, and the listener's stop.
pub(crate) struct Sharing {
    digest: [u8; 32],
    reader: Mutex<Store>,
    newest: watch::Receiver<i64>,
    stop: CancellationToken,
}

impl Sharing {
    pub(crate) fn new(token: &Secret, reader: Store, newest: watch::Receiver<i64>, stop: CancellationToken) -> Self {
        Sharing { digest: Sha256::digest(token.expose().as_bytes()).into(), reader: Mutex::new(reader), newest, stop }
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
            .map(|t| t.trim_ascii())
            .unwrap_or_default();
        let digest: [u8; 32] = Sha256::digest(given).into();
        bool::from(digest.ct_eq(&self.digest))
    }

    async fn read<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Store) -> Result<T, crate::store::StoreError> + Send + 'static,
    ) -> Result<T, Response> {
        let this = self.clone();
        match tokio::task::spawn_blocking(move || work(&this.reader.lock().unwrap_or_else(PoisonError::into_inner)))
            .await
        {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => {
                tracing::error!("the read API cannot read the store: {err}");
                Err((StatusCode::INTERNAL_SERVER_ERROR, "the listener cannot read its store; try again")
                    .into_response())
            }
            Err(err) => {
                tracing::error!("the read API's store task failed: {err}");
                Err((StatusCode::INTERNAL_SERVER_ERROR, "the listener cannot read its store; try again")
                    .into_response())
            }
        }
    }
}

/// The read API's routes (state: the [`Sharing`]).
pub(crate) fn routes(sharing: Arc<Sharing>) -> Router {
    Router::new()
        .route("/_orgql/v1/deliveries", get(list))
        .route("/_orgql/v1/deliveries/{id}", get(one))
        .route("/_orgql/v1/stream", get(stream))
        .route_layer(axum::middleware::from_fn_with_state(sharing.clone(), authorize))
        .with_state(sharing)
}

/// `GET /_orgql/health`.
pub(crate) async fn health() -> &'static str {
    "ok\n"
}

async fn authorize(State(sharing): State<Arc<Sharing>>, request: Request, next: Next) -> Response {
    if sharing.authorized(request.headers()) {
        return next.run(request).await;
    }
    let mut response =
        (StatusCode::UNAUTHORIZED, "this listener's read API needs its share token as `Authorization: Bearer TOKEN`\n")
            .into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

#[derive(serde::Deserialize)]
struct ListQuery {
    #[serde(default)]
    after: i64,
    limit: Option<usize>,
}

async fn list(State(sharing): State<Arc<Sharing>>, Query(query): Query<ListQuery>) -> Response {
    let limit = query.limit.unwrap_or(100).clamp(1, MAX_PAGE);
    let after = query.after;
    match sharing.read(move |store| Ok((store.deliveries_after(after, limit)?, store.last_delivery_id()?))).await {
        Ok((mut deliveries, last_id)) => {
            // A page's bodies stay under PAGE_BYTES (at least one delivery a page).
            let mut bytes = 0;
            let keep = deliveries
                .iter()
                .position(|d| {
                    bytes += d.delivery.body.len();
                    bytes > PAGE_BYTES
                })
                .unwrap_or(deliveries.len())
                .max(1);
            deliveries.truncate(keep);
            Json(WirePage { deliveries: deliveries.iter().map(WireDelivery::of).collect(), last_id }).into_response()
        }
        Err(response) => response,
    }
}

async fn one(State(sharing): State<Arc<Sharing>>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return (StatusCode::BAD_REQUEST, "a delivery id is a whole number\n").into_response();
    };
    match sharing.read(move |store| store.delivery(id)).await {
        Ok(Some(delivery)) => Json(WireDelivery::of(&delivery)).into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "no delivery with this id (never stored, or removed by retention)\n")
            .into_response(),
        Err(response) => response,
    }
}

#[derive(serde::Deserialize)]
struct StreamQuery {
    after: Option<i64>,
}

async fn stream(State(sharing): State<Arc<Sharing>>, headers: HeaderMap, Query(query): Query<StreamQuery>) -> Response {
    let from_header = headers.get("last-event-id").and_then(|v| v.to_str().ok()).map(|v| v.trim().parse::<i64>());
    let after = match (from_header, query.after) {
        (Some(Ok(id)), _) => id,
        (Some(Err(_)), _) => {
            return (StatusCode::BAD_REQUEST, "Last-Event-ID is a delivery id (a whole number)\n").into_response();
        }
        (None, Some(id)) => id,
        (None, None) => 0,
    };
    Sse::new(deliveries_after(sharing, after)).keep_alive(KeepAlive::default()).into_response()
}

/// The stream's events: pages from the store, then a wait for the newest id to move.
fn deliveries_after(sharing: Arc<Sharing>, after: i64) -> impl Stream<Item = Result<Event, Infallible>> {
    struct State {
        sharing: Arc<Sharing>,
        after: i64,
        page: std::collections::VecDeque<Delivery>,
        newest: watch::Receiver<i64>,
    }
    let newest = sharing.newest.clone();
    let state = State { sharing, after, page: Default::default(), newest };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(delivery) = state.page.pop_front() {
                state.after = delivery.id;
                let data = serde_json::to_string(&WireDelivery::of(&delivery)).unwrap_or_default();
                let event = Event::default().id(delivery.id.to_string()).event("delivery").data(data);
                return Some((Ok(event), state));
            }
            let after = state.after;
            match state.sharing.read(move |store| store.deliveries_after(after, STREAM_PAGE)).await {
                Ok(page) if !page.is_empty() => {
                    state.page = page.into();
                    continue;
                }
                Ok(_) => {}
                // Said in the log; the client reconnects with its Last-Event-ID.
                Err(_) => return None,
            }
            // Caught up: wait for a newer delivery, or the listener's stop.
            let stop = state.sharing.stop.clone();
            tokio::select! {
                _ = stop.cancelled() => return None,
                changed = state.newest.wait_for(|newest| *newest > after) => {
                    if changed.is_err() {
                        return None;
                    }
                }
            }
        }
    })
}
