//! A stored delivery sent again to a URL.

use std::sync::Arc;

use super::WebhooksEvent;
use crate::worker::{JobId, Shared};

/// Sends a stored delivery to `url` again.
pub(super) async fn replay(shared: Arc<Shared>, job: JobId, id: i64, url: String) {
    let result = async {
        let delivery = match shared.with_store(move |s| s.delivery(id)).await {
            Some(Ok(Some(delivery))) => delivery,
            Some(Ok(None)) => return Err("that delivery is no longer stored (the list was cleared)".to_owned()),
            Some(Err(e)) => return Err(e),
            None => return Err("there is no local database to replay from".to_owned()),
        };
        let http = crate::net::HttpClient::for_url(url.trim(), |b| b).await.map_err(|e| e.to_string())?;
        crate::webhooks::replay::replay(http.reqwest(), &delivery.delivery, &url).await
    }
    .await;
    shared.emit(WebhooksEvent::Replayed { job, result }).await;
}
