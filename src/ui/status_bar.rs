//! The status bar: the token of the current connection (valid for 23 h 12 min, with its
//! scopes), what a request is doing while it waits (throttled, retrying, renewing the token), the
//! last request (HTTP status, time, size, count), the sandbox's address and the webhook listener's.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::api::{Activity, ApiError, TokenState, wait_text};
use crate::ui::widgets::numbers::{lifetime, size, thousands};
use crate::worker::{QueryResult, StatusEvent};

/// What the status bar knows of connections. What is running it does not keep: the tabs' runs
/// say it ([`crate::ui::queries::tab::Tab::running`]), and the app passes it in.
#[derive(Default)]
pub struct StatusBar {
    /// The token of each connection, and when it was reported.
    tokens: HashMap<String, (TokenState, Instant)>,
    /// HTTP status, time, size and `count` of the last request.
    last: Option<(u16, Duration, usize, Option<u64>)>,
    /// The in-process sandbox's base URL, once started.
    sandbox: Option<String>,
    /// Connections whose last request failed for want of a token, with why.
    failed: HashMap<String, String>,
    /// What a connection's request is doing while it waits, until that request ends.
    activity: HashMap<String, Activity>,
    /// The proxy each connection's requests go through ("via proxy 10.0.0.8:3128 (Windows
    /// settings)"), for those that use one.
    routes: HashMap<String, String>,
}

/// What the bar is drawn with, apart from what it keeps.
pub struct Now<'a> {
    /// The chosen connection's name.
    pub connection: &'a str,
    /// Whether a run of it is under way.
    pub waiting: bool,
    /// Where the webhook listener listens, while it does.
    pub webhooks: Option<std::net::SocketAddr>,
}

/// What the bar says of an activity: `Throttled — retrying in 2 s`, `Renewing token…`.
pub fn activity_text(activity: &Activity) -> Option<String> {
    match activity {
        Activity::Throttled { wait } => Some(format!("Throttled — retrying in {}", wait_text(*wait))),
        Activity::BackingOff { cause, wait } => {
            let cause = cause.to_string();
            let mut chars = cause.chars();
            let cause = chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default();
            Some(format!("{cause} — retrying in {}", wait_text(*wait)))
        }
        Activity::RenewingToken => Some("Renewing token…".to_owned()),
        Activity::Settled => None,
    }
}

impl StatusBar {
    /// Takes what the worker says of connections.
    pub fn on_event(&mut self, event: StatusEvent) {
        match event {
            StatusEvent::SandboxStarted { base_url } => self.sandbox = Some(base_url),
            StatusEvent::Token { connection, state } => {
                self.tokens.insert(connection, (state, Instant::now()));
            }
            StatusEvent::Activity { connection, activity } => self.activity(connection, activity),
            StatusEvent::Route { connection, via: Some(via) } => {
                self.routes.insert(connection, via);
            }
            StatusEvent::Route { connection, via: None } => {
                self.routes.remove(&connection);
            }
        }
    }

    /// The in-process sandbox's base URL, once started.
    pub fn sandbox(&self) -> Option<&str> {
        self.sandbox.as_deref()
    }

    /// Records what a connection's request is doing; [`Activity::Settled`] clears it.
    pub fn activity(&mut self, connection: String, activity: Activity) {
        match activity {
            Activity::Settled => {
                self.activity.remove(&connection);
            }
            activity => {
                self.activity.insert(connection, activity);
            }
        }
    }

    /// The sentence shown for `connection`'s request while it waits, if any.
    pub fn activity_of(&self, connection: &str) -> Option<String> {
        self.activity.get(connection).and_then(activity_text)
    }

    /// Records the end of a request of `connection` (`still_running`: another of its requests
    /// is under way): a failure to get or use a token marks its connection failed; any answer
    /// clears that. What the request was doing is over unless another request still runs.
    pub fn finished(&mut self, connection: &str, result: Result<&QueryResult, &ApiError>, still_running: bool) {
        if let Ok(r) = result {
            self.last = Some((r.status, r.elapsed, r.bytes, r.rows.as_ref().and_then(|rows| rows.total)));
        } else {
            self.last = None;
        }
        if !still_running {
            self.activity.remove(connection);
        }
        let connection = connection.to_owned();
        let error = result.err();
        match error {
            Some(e @ (ApiError::InvalidClient | ApiError::Unauthorized | ApiError::TokenRefused { .. })) => {
                self.failed.insert(connection, e.to_string());
            }
            Some(ApiError::Cancelled) => {}
            _ => {
                self.failed.remove(&connection);
            }
        }
    }

    /// Draws the bar for the chosen connection.
    pub fn ui(&self, ui: &mut egui::Ui, now: Now<'_>) {
        let Now { connection, waiting, webhooks } = now;
        // Wraps onto a second line in a narrow window (150 % on a laptop) rather than cut.
        ui.horizontal_wrapped(|ui| {
            let token = self.tokens.get(connection);
            let expired = match token {
                Some((TokenState::Valid { remaining, .. }, at)) => remaining.saturating_sub(at.elapsed()).is_zero(),
                _ => true,
            };
            match (self.failed.get(connection), token) {
                (Some(why), _) if !waiting => {
                    crate::ui::widgets::a11y::alert(ui, "Token: failed").on_hover_text(why);
                }
                _ if waiting && expired => {
                    crate::ui::widgets::a11y::polite(ui, "Token: renewing…");
                }
                (_, Some((TokenState::Valid { remaining, scopes }, at))) => {
                    let left = remaining.saturating_sub(at.elapsed());
                    if left.is_zero() {
                        crate::ui::widgets::a11y::polite(ui, "Token: expired (renewed on the next request)");
                    } else {
                        // Not a live region: its minutes would be read out every minute.
                        ui.label(format!("Token: valid for {}", lifetime(left)))
                            .on_hover_text(format!("Scopes: {scopes}"));
                    }
                }
                _ => {
                    ui.weak("Token: none yet");
                }
            }
            if let Some(via) = self.routes.get(connection) {
                ui.separator();
                ui.label(via);
            }
            if let Some(doing) = self.activity_of(connection) {
                ui.separator();
                crate::ui::widgets::a11y::polite(ui, doing);
            }
            if let Some((status, elapsed, bytes, count)) = self.last {
                ui.separator();
                let mut text = format!("HTTP {status} · {} ms", elapsed.as_millis());
                if bytes > 0 {
                    text.push_str(&format!(" · {}", size(bytes)));
                }
                if let Some(count) = count {
                    text.push_str(&format!(" · count {}", thousands(count)));
                }
                ui.label(text);
            }
            if let Some(url) = &self.sandbox {
                ui.separator();
                ui.weak(format!("Sandbox at {url}"));
            }
            if let Some(addr) = &webhooks {
                ui.separator();
                ui.weak(format!("Webhooks at http://{addr}/"));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_person_would_say_it() {
        assert_eq!(lifetime(Duration::from_secs(23 * 3600 + 12 * 60 + 5)), "23 h 12 min");
        assert_eq!(lifetime(Duration::from_secs(245)), "4 min 5 s");
        assert_eq!(size(12_600), "12.3 KB");
    }

    /// An answer without rows, as a request that succeeded brings.
    fn answer() -> QueryResult {
        QueryResult {
            data: None,
            errors: Vec::new(),
            raw: Default::default(),
            rows: None,
            position: None,
            status: 200,
            elapsed: Duration::from_millis(5),
            bytes: 10,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_refused_token_marks_its_connection_failed_until_an_answer() {
        let mut bar = StatusBar::default();
        bar.finished("acme", Err(&ApiError::InvalidClient), false);
        assert!(bar.failed.contains_key("acme"));
        bar.finished("acme", Err(&ApiError::Cancelled), false);
        assert!(bar.failed.contains_key("acme"));
        bar.finished("acme", Ok(&answer()), false);
        assert!(bar.failed.is_empty());
    }

    #[test]
    fn an_activity_shows_while_it_lasts() {
        let mut bar = StatusBar::default();
        bar.activity("acme".into(), Activity::Throttled { wait: Duration::from_secs(2) });
        assert_eq!(bar.activity_of("acme").as_deref(), Some("Throttled — retrying in 2 s"));
        assert_eq!(bar.activity_of("Sandbox"), None);
        bar.activity("acme".into(), Activity::RenewingToken);
        assert_eq!(bar.activity_of("acme").as_deref(), Some("Renewing token…"));
        bar.activity("acme".into(), Activity::Settled);
        assert_eq!(bar.activity_of("acme"), None);

        let cause = crate::api::RetryCause::Server(502);
        bar.activity("acme".into(), Activity::BackingOff { cause, wait: Duration::from_secs(1) });
        assert_eq!(bar.activity_of("acme").as_deref(), Some("Server error 502 — retrying in 1 s"));
        // The request finished (its Settled lost or not yet arrived): the sentence goes with it.
        bar.finished("acme", Ok(&answer()), true);
        assert!(bar.activity_of("acme").is_some(), "another request of the connection still runs");
        bar.finished("acme", Ok(&answer()), false);
        assert_eq!(bar.activity_of("acme"), None);
    }
}
