//! The sandbox's request bodies read under a [`BodyBudget`] (`crate::serve::inflight`) before any
//! handler sees them: 800 unfinished 1 MiB bodies no longer hold 800 MiB, and one address's
//! flood does not keep a token request or another client's query waiting, even from its own
//! address (each body's share is read at once); a body that falls behind its pace is answered 408
//! and its connection closed.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::serve::inflight::{BodyBudget, BodyError, announced_length};

/// The middleware: the body read whole under the budget, then the request handed on.
pub(super) async fn read_under_budget(
    State((budget, limit)): State<(BodyBudget, usize)>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let announced = announced_length(&parts.headers);
    if announced.is_some_and(|n| n > limit as u64) {
        // The handlers' own limit refuses it before reading a byte, in the spec's shape.
        return next.run(Request::from_parts(parts, body)).await;
    }
    let sender = match parts.extensions.get::<crate::serve::forwarded::Connection>() {
        Some(connection) => connection.sender(&parts.headers).await.address,
        None => std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
    };
    let (status, message) = match budget.read(sender, body, limit, announced).await {
        Ok(bytes) => return next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(BodyError::OverLimit) => {
            (StatusCode::PAYLOAD_TOO_LARGE, "The request body is too large; send a smaller query".to_owned())
        }
        Err(BodyError::TooMany) => {
            (StatusCode::TOO_MANY_REQUESTS, "Too many requests from your address at once; send it again".to_owned())
        }
        Err(BodyError::Busy | BodyError::Shed) => {
            (StatusCode::SERVICE_UNAVAILABLE, "The service is busy; send the request again".to_owned())
        }
        Err(BodyError::Slow(reason)) => {
            let mut response = super::http::graphql_error(
                StatusCode::REQUEST_TIMEOUT,
                &format!("The request body arrived too slowly ({reason}); send it again"),
            );
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return response;
        }
        Err(BodyError::Read(reason)) => {
            (StatusCode::BAD_REQUEST, format!("The request body could not be read ({reason}); send it again"))
        }
    };
    let mut response = super::http::graphql_error(status, &message);
    if matches!(status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE) {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}
