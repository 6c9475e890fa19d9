//! What a client is doing while a request waits, told as it happens: throttled by the service,
//! backing off after a failure, renewing its token. A [`Client`](super::Client) broadcasts
//! [`Activity`] to whoever subscribes ([`Client::activity`](super::Client::activity)); the
//! channel is bounded, sending never blocks the request, and nobody listening is fine.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::broadcast;

/// How many activities a slow listener may fall behind before it skips the oldest.
const ACTIVITY_QUEUE: usize = 64;

/// Something a request is doing besides being sent and answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    /// The service answered 429; the request is sent again after `wait`.
    Throttled {
        /// The wait before the next try (the service's `Retry-After`, spread a little).
        wait: Duration,
    },
    /// A query failed in a way worth another try; it is sent again after `wait`.
    BackingOff {
        /// What failed.
        cause: RetryCause,
        /// The wait before the next try.
        wait: Duration,
    },
    /// The access token is being renewed (it expired, is about to, or was refused with 401).
    RenewingToken,
    /// The request that reported the activities before this one has ended (answered, failed or
    /// cancelled): whatever was shown for it can go.
    Settled,
}

/// Why a query is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryCause {
    /// HTTP 5xx.
    Server(u16),
    /// No connection, or it broke.
    Network,
    /// No answer in time.
    Timeout,
}

impl fmt::Display for RetryCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetryCause::Server(status) => write!(f, "server error {status}"),
            RetryCause::Network => f.write_str("network failure"),
            RetryCause::Timeout => f.write_str("no answer in time"),
        }
    }
}

/// `2 s`, `2.6 s`, `250 ms`: a wait as a person says it.
pub fn wait_text(wait: Duration) -> String {
    if wait < Duration::from_secs(1) {
        return format!("{} ms", wait.as_millis());
    }
    let tenths = (wait.as_secs_f64() * 10.0).round() as u64;
    if tenths.is_multiple_of(10) { format!("{} s", tenths / 10) } else { format!("{}.{} s", tenths / 10, tenths % 10) }
}

impl fmt::Display for Activity {
    /// One line for a terminal or a log: `throttled by the service; retrying in 2 s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activity::Throttled { wait } => {
                write!(f, "throttled by the service; retrying in {}", wait_text(*wait))
            }
            Activity::BackingOff { cause, wait } => write!(f, "{cause}; retrying in {}", wait_text(*wait)),
            Activity::RenewingToken => f.write_str("renewing the access token"),
            Activity::Settled => f.write_str("the request has ended"),
        }
    }
}

/// The sending side, owned by a client.
#[derive(Debug, Clone)]
pub(crate) struct ActivitySender(broadcast::Sender<Activity>);

impl ActivitySender {
    pub(crate) fn new() -> Self {
        ActivitySender(broadcast::channel(ACTIVITY_QUEUE).0)
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Activity> {
        self.0.subscribe()
    }

    /// Tells every listener, never waiting; with none listening the activity only reaches the log.
    pub(crate) fn report(&self, activity: Activity) {
        if activity != Activity::Settled {
            tracing::info!("{activity}");
        }
        if self.0.send(activity).is_err() {
            tracing::trace!("no one listens to the client's activity");
        }
    }
}

/// The activity of one request: ends with [`Activity::Settled`] when dropped, if it reported
/// anything (so a cancelled request settles too).
pub(crate) struct RequestActivity<'a> {
    sender: &'a ActivitySender,
    reported: AtomicBool,
}

impl<'a> RequestActivity<'a> {
    pub(crate) fn new(sender: &'a ActivitySender) -> Self {
        RequestActivity { sender, reported: AtomicBool::new(false) }
    }

    pub(crate) fn report(&self, activity: Activity) {
        self.reported.store(true, Ordering::Relaxed);
        self.sender.report(activity);
    }
}

impl Drop for RequestActivity<'_> {
    fn drop(&mut self) {
        if *self.reported.get_mut() {
            self.sender.report(Activity::Settled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_sentence() {
        assert_eq!(
            Activity::Throttled { wait: Duration::from_secs(2) }.to_string(),
            "throttled by the service; retrying in 2 s"
        );
        assert_eq!(
            Activity::BackingOff { cause: RetryCause::Server(502), wait: Duration::from_millis(2_640) }.to_string(),
            "server error 502; retrying in 2.6 s"
        );
        assert_eq!(wait_text(Duration::from_millis(250)), "250 ms");
        assert_eq!(Activity::RenewingToken.to_string(), "renewing the access token");
    }

    #[test]
    fn nobody_listening_is_fine_and_a_request_settles_only_when_it_reported() {
        let sender = ActivitySender::new();
        RequestActivity::new(&sender).report(Activity::RenewingToken);
        let mut rx = sender.subscribe();
        drop(RequestActivity::new(&sender));
        {
            let request = RequestActivity::new(&sender);
            request.report(Activity::Throttled { wait: Duration::from_secs(1) });
        }
        assert_eq!(rx.try_recv().ok(), Some(Activity::Throttled { wait: Duration::from_secs(1) }));
        assert_eq!(rx.try_recv().ok(), Some(Activity::Settled));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn a_slow_listener_skips_the_oldest_and_the_sender_never_waits() {
        let sender = ActivitySender::new();
        let mut rx = sender.subscribe();
        for _ in 0..ACTIVITY_QUEUE * 2 {
            sender.report(Activity::RenewingToken);
        }
        assert!(matches!(rx.try_recv(), Err(broadcast::error::TryRecvError::Lagged(_))));
        assert_eq!(rx.try_recv().ok(), Some(Activity::RenewingToken));
    }
}
