//! Fetching a connection's schema: introspection through the API client (read leniently, parts
//! it cannot read left out and listed), then the model built on a blocking thread (root paths
//! and the search index of a large schema take tens of milliseconds).

use tokio_util::sync::CancellationToken;

use super::SchemaModel;
use crate::api::{ApiError, Client};

/// Introspects the service and builds the model; returns it with the schema's SDL (to cache).
/// What was left out is in [`SchemaModel::skipped`].
pub async fn fetch(client: &Client, cancel: &CancellationToken) -> Result<(SchemaModel, String), ApiError> {
    let introspection = client.introspect(cancel).await?;
    crate::timing::mark("introspection_answer");
    let build = tokio::task::spawn_blocking(move || {
        let sdl = introspection.sdl.clone();
        (SchemaModel::from_introspection(introspection), sdl)
    });
    tokio::select! {
        () = cancel.cancelled() => Err(ApiError::Cancelled),
        built = build => {
            crate::timing::mark("schema_model");
            built.map_err(|e| ApiError::BadResponse(format!("building the schema model failed ({e})")))
        }
    }
}
