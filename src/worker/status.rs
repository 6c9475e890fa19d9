//! What the status bar shows of connections: the in-process sandbox's address, each
//! connection's token, and what its requests are doing while they wait (throttled, backing off,
//! renewing the token).

use super::{Connection, Event, Repaint, Shared};
use crate::api::{Activity, Client, TokenState};

/// What the worker tells the status bar.
#[derive(Debug, Clone)]
pub enum StatusEvent {
    /// The in-process sandbox listens at this base URL.
    SandboxStarted {
        /// Its base URL.
        base_url: String,
    },
    /// The token of a connection, after a request.
    Token {
        /// The connection's name.
        connection: String,
        /// Its state.
        state: TokenState,
    },
    /// The proxy a connection's requests go through ("via proxy 10.0.0.8:3128 (Windows
    /// settings)"), or `None` when they go direct; told when its client is made.
    Route {
        /// The connection's name.
        connection: String,
        /// The status bar's words.
        via: Option<String>,
    },
    /// What a connection's requests are doing while they wait, as it happens;
    /// [`Activity::Settled`] when the request that reported it ended.
    Activity {
        /// The connection's name.
        connection: String,
        /// What is happening.
        activity: Activity,
    },
}

/// Reports the token of `connection` (after a request that used it).
pub(super) async fn report_token(shared: &Shared, connection: &Connection) {
    if let Ok(client) = shared.client(connection).await {
        let state = client.tokens().state().await;
        shared.emit(StatusEvent::Token { connection: connection.name().to_owned(), state }).await;
    }
}

/// Forwards what `client`'s requests are doing to the UI as [`StatusEvent::Activity`], until the client
/// is dropped (replaced by one with other credentials) or the UI is gone. The client never waits
/// for this: a UI that falls behind skips the oldest activities.
pub(super) fn forward_activity(
    client: &Client,
    connection: &str,
    events: tokio::sync::mpsc::Sender<Event>,
    repaint: Repaint,
) {
    use tokio::sync::broadcast::error::RecvError;
    let mut activity = client.activity();
    let connection = connection.to_owned();
    tokio::spawn(async move {
        loop {
            match activity.recv().await {
                Ok(activity) => {
                    if events
                        .send(StatusEvent::Activity { connection: connection.clone(), activity }.into())
                        .await
                        .is_err()
                    {
                        tracing::debug!("the UI is gone; activity no longer forwarded");
                        break;
                    }
                    repaint();
                }
                Err(RecvError::Lagged(skipped)) => tracing::debug!("{skipped} activities not shown"),
                Err(RecvError::Closed) => break,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::api::{BaseUrl, ClientOptions, Credentials, GraphQlRequest};
    use crate::sandbox::{ADMIN_CLIENT, Config, Server};

    #[tokio::test]
    async fn a_clients_activity_reaches_the_ui_as_events_of_its_connection_until_it_is_dropped() {
        let server = Server::start(Config { users: 5, rate_limit: 1, ..Config::default() }).await.expect("a sandbox");
        let credentials = Credentials {
            base_url: BaseUrl::parse(server.base_url()).expect("a base URL"),
            client_id: ADMIN_CLIENT.to_owned(),
            client_secret: crate::secret::Secret::new(server.client_secret()),
            scopes: crate::scopes::ScopeSet::all(),
        };
        let client = Client::new(credentials, ClientOptions::default(), None).expect("a client");
        let (events, mut received) = tokio::sync::mpsc::channel(8);
        let repaints = Arc::new(AtomicUsize::new(0));
        let counted = repaints.clone();
        forward_activity(
            &client,
            "Sandbox",
            events,
            Arc::new(move || {
                counted.fetch_add(1, Ordering::Relaxed);
            }),
        );
        // One request a second: the second waits out the rate limit.
        let request = GraphQlRequest::new("{ paginatedUsers(first: 1) { count } }");
        let cancel = CancellationToken::new();
        for _ in 0..2 {
            let answer = tokio::time::timeout(Duration::from_secs(10), client.execute(&request, &cancel));
            assert_eq!(answer.await.expect("in time").expect("an answer").status, 200);
        }
        drop(client);
        let mut seen = Vec::new();
        // The forwarder stops when the client is gone, so the channel ends.
        while let Some(event) = tokio::time::timeout(Duration::from_secs(5), received.recv()).await.expect("in time") {
            let Event::Status(StatusEvent::Activity { connection, activity }) = event else {
                panic!("not an activity: {event:?}")
            };
            assert_eq!(connection, "Sandbox");
            seen.push(activity);
        }
        assert!(matches!(seen.as_slice(), [Activity::Throttled { .. }, Activity::Settled]), "{seen:?}");
        assert_eq!(repaints.load(Ordering::Relaxed), 2, "the UI is woken for each");
        server.stop().await;
    }
}
