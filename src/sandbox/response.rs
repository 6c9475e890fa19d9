//! A response with a JSON body: the shape of the HTTP front's answers (`http.rs`) and of the
//! minimal variant's refusals (`minimal/`), kept here so that each reaches it without the other.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use serde_json::Value;

/// A response with a JSON body.
pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = (status, serde_json::to_vec(body).unwrap_or_default()).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
