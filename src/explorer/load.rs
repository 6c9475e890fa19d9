//! Fetching a connection's schema: introspection through the API client, then the model built on
//! a blocking thread (parsing and validating a large schema takes tens of milliseconds).

use tokio_util::sync::CancellationToken;

use super::SchemaModel;
use crate::api::{ApiError, Client};

/// Introspects the service and builds the model; returns it with the schema's SDL (to cache).
/// A schema that cannot be modelled gives [`ApiError::BadResponse`] saying why.
pub async fn fetch(client: &Client, cancel: &CancellationToken) -> Result<(SchemaModel, String), ApiError> {
    let schema = client.introspect(cancel).await?;
    let build = tokio::task::spawn_blocking(move || {
        let sdl = schema.to_sdl();
        SchemaModel::from_sdl(&sdl).map(|model| (model, sdl))
    });
    tokio::select! {
        () = cancel.cancelled() => Err(ApiError::Cancelled),
        built = build => match built {
            Ok(Ok(built)) => Ok(built),
            Ok(Err(reason)) => Err(ApiError::BadResponse(format!("the introspected schema cannot be used: {reason}"))),
            Err(e) => Err(ApiError::BadResponse(format!("building the schema model failed ({e})"))),
        },
    }
}
