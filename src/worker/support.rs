//! The job of the quick find for support staff: one support request against the connection,
//! answered with one event (the work itself is `crate::support`'s).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Connection, Event, JobId, Shared};
use crate::support::{SupportError, SupportRequest, answer};

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
        Ok(client) => answer(client, request, &cancel).await,
        Err(e) => Err(SupportError::Api(e)),
    };
    shared.end_job(job);
    shared.emit(Event::Support { job, result }).await;
    // The status bar shows the connection's token, which the request may have fetched.
    super::jobs::report_token(&shared, &connection).await;
}
