//! The job of the quick find for support staff: one support request against the connection,
//! answered with one event (the work itself is `crate::support`'s). The find builds its
//! documents from the connection's schema, introspected once per connection and kept here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

use super::{Connection, Event, JobId, Shared};
use crate::api::{ApiError, Client};
use crate::explorer::SchemaModel;
use crate::support::{Capabilities, SupportError, SupportRequest, answer};

/// The schemas introspected for the find, by connection (see [`cache_key`]).
pub(super) type Schemas = Mutex<HashMap<String, Arc<SchemaModel>>>;

/// Runs `request` and reports its answer (a cancelled request reports `cancelled`), then the
/// connection's token.
pub(super) async fn run(
    shared: Arc<Shared>,
    job: JobId,
    connection: Connection,
    request: SupportRequest,
    cancel: CancellationToken,
) {
    let result = match shared.client(&connection).await {
        Ok(client) => match capabilities(&shared, &connection, &client, &cancel).await {
            Ok(capabilities) => {
                let result = answer(client, &capabilities, request, &cancel).await;
                if result.as_ref().is_err_and(outdated) {
                    // The service's schema changed since it was read: read it again next time.
                    forget(&shared, &connection);
                }
                result
            }
            Err(e) => Err(SupportError::Api(e)),
        },
        Err(e) => Err(SupportError::Api(e)),
    };
    shared.end_job(job);
    shared.emit(Event::Support { job, result }).await;
    // The status bar shows the connection's token, which the request may have fetched.
    super::jobs::report_token(&shared, &connection).await;
}

/// The cache key of a connection, as the explorer's schema cache makes it: its name and, for a
/// profile, its address (a profile pointed elsewhere is another schema).
fn cache_key(connection: &Connection) -> String {
    match connection {
        Connection::Sandbox => "Sandbox".to_owned(),
        Connection::Remote { name, credentials } => format!("{name} {}", credentials.base_url.as_str()),
    }
}

/// What the connection's schema offers the find: from the kept schema, else introspected (and
/// kept). A schema that cannot be read gives the spec's guaranteed fields with a notice; a
/// failure that would fail the find too (credentials, network, cancel) is returned.
async fn capabilities(
    shared: &Shared,
    connection: &Connection,
    client: &Client,
    cancel: &CancellationToken,
) -> Result<Capabilities, ApiError> {
    let key = cache_key(connection);
    let kept = shared.support_schemas.lock().unwrap_or_else(PoisonError::into_inner).get(&key).cloned();
    let model = match kept {
        Some(model) => model,
        None => match crate::explorer::load::fetch(client, cancel).await {
            Ok((model, _sdl)) => {
                let model = Arc::new(model);
                shared.support_schemas.lock().unwrap_or_else(PoisonError::into_inner).insert(key, model.clone());
                model
            }
            Err(e) if fails_the_find_too(&e) => return Err(e),
            Err(e) => {
                tracing::warn!("the schema of {} could not be read for the find: {e}", connection.name());
                return Ok(Capabilities::guaranteed(format!(
                    "The service's schema could not be read ({e}), so only the fields every service has are shown."
                )));
            }
        },
    };
    Ok(Capabilities::from_schema(model.schema()).unwrap_or_else(|reason| {
        Capabilities::guaranteed(format!(
            "The service's schema cannot be used for the find ({reason}), so only the fields every service has are shown."
        ))
    }))
}

/// Failures of introspection that the find itself would meet as well.
fn fails_the_find_too(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::Cancelled
            | ApiError::Config(_)
            | ApiError::InvalidClient
            | ApiError::TokenRefused { .. }
            | ApiError::Unauthorized
            | ApiError::Throttled { .. }
            | ApiError::Redirected { .. }
            | ApiError::Network(_)
            | ApiError::Timeout(_)
    )
}

/// Whether the service refused a document for naming what its schema does not have.
fn outdated(error: &SupportError) -> bool {
    let SupportError::Api(ApiError::GraphQl { errors, .. }) = error else { return false };
    errors.iter().any(|e| ["Cannot query field", "Unknown argument", "Unknown type"].iter().any(|m| e.message.contains(m)))
}

fn forget(shared: &Shared, connection: &Connection) {
    shared.support_schemas.lock().unwrap_or_else(PoisonError::into_inner).remove(&cache_key(connection));
}
