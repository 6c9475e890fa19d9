//! The job of the quick find for support staff: one support request against the connection,
//! answered with one event (the work itself is `crate::support`'s). The find builds its
//! documents from the connection's schema (`Shared::schema`: kept per connection, read once).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Connection, JobId, Shared};
use crate::api::ApiError;
use crate::support::{Capabilities, SupportError, SupportReply, SupportRequest, answer};

/// What the quick find asks.
#[derive(Debug, Clone)]
pub enum SupportCommand {
    /// Find a user, list groups for the picker, or change a user.
    Ask {
        /// The request (its answer carries it; Cancel stops it).
        job: JobId,
        connection: Connection,
        /// What to ask.
        request: SupportRequest,
    },
    /// List the stored webhook deliveries that mention a user (their ref or id), newest first.
    Deliveries {
        /// The look-up (its answer carries it).
        job: JobId,
        /// The user's ref and id.
        keys: Vec<String>,
    },
}

/// What comes back to the quick find.
#[derive(Debug, Clone)]
pub enum SupportEvent {
    /// A request ended.
    Answered {
        /// The request.
        job: JobId,
        /// The service's answer, or why there is none.
        result: Result<SupportReply, SupportError>,
    },
    /// The stored deliveries that mention the user, newest first (at most 20).
    Deliveries {
        /// The look-up.
        job: JobId,
        /// What the store holds, or why it could not be read.
        result: Result<Vec<crate::store::DeliverySummary>, String>,
    },
}

/// Deliveries listed at the foot of a card.
const CARD_DELIVERIES: usize = 20;

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: SupportCommand) {
    match command {
        SupportCommand::Ask { job, connection, request } => {
            let cancel = shared.start_job(job);
            tokio::spawn(run(shared.clone(), job, connection, request, cancel));
        }
        SupportCommand::Deliveries { job, keys } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                let result = shared
                    .with_store(move |store| store.deliveries_mentioning(&keys, CARD_DELIVERIES))
                    .await
                    .unwrap_or_else(|| Ok(Vec::new()));
                shared.emit(SupportEvent::Deliveries { job, result }).await;
            });
        }
    }
}

/// Runs `request` and reports its answer (a cancelled request reports `cancelled`), then the
/// connection's token.
async fn run(
    shared: Arc<Shared>,
    job: JobId,
    connection: Connection,
    request: SupportRequest,
    cancel: CancellationToken,
) {
    let result = match shared.client(&connection).await {
        Ok(client) => match capabilities(&shared, &connection, &cancel).await {
            Ok(capabilities) => answer(client, &capabilities, request, &cancel).await,
            Err(e) => Err(SupportError::Api(e)),
        },
        Err(e) => Err(SupportError::Api(e)),
    };
    let outdated = result.as_ref().is_err_and(outdated);
    shared.end_job(job);
    shared.emit(SupportEvent::Answered { job, result }).await;
    if outdated {
        // The service refused a field or argument its schema had: the kept schema is old.
        refresh(&shared, &connection, &cancel).await;
    }
    // The status bar shows the connection's token, which the request may have fetched.
    super::status::report_token(&shared, &connection).await;
}

/// What the connection's schema offers the find. A schema that cannot be read gives the spec's
/// guaranteed fields with a notice; a failure that would fail the find too (credentials,
/// network, cancel) is returned.
async fn capabilities(
    shared: &Arc<Shared>,
    connection: &Connection,
    cancel: &CancellationToken,
) -> Result<Capabilities, ApiError> {
    let model = match shared.schema(connection, false, cancel).await {
        Ok(loaded) => loaded.model,
        Err(e) if fails_the_find_too(&e) => return Err(e),
        Err(e) => {
            tracing::warn!("the schema of {} could not be read for the find: {e}", connection.name());
            return Ok(Capabilities::guaranteed(format!(
                "The service's schema could not be read ({e}), so only the fields every service has are shown."
            )));
        }
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
    errors
        .iter()
        .any(|e| ["Cannot query field", "Unknown argument", "Unknown type"].iter().any(|m| e.message.contains(m)))
}

/// Reads the connection's schema again and keeps it, for the next request; the app shows it
/// too (its explorer and editor follow the service).
async fn refresh(shared: &Arc<Shared>, connection: &Connection, cancel: &CancellationToken) {
    match shared.schema(connection, true, cancel).await {
        Ok(loaded) => {
            let name = connection.name().to_owned();
            shared.emit(super::SchemaEvent::Loaded { connection: name, result: Ok(loaded) }).await;
        }
        Err(e) => tracing::warn!("the schema of {} could not be read again: {e}", connection.name()),
    }
}
