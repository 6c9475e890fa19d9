//! The status bar: the token of the current connection (valid for 23 h 12 min, with its
//! scopes), the last request (HTTP status, time, size, count), the sandbox's address and the
//! webhook listener's.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::results::thousands;
use crate::api::{ApiError, TokenState};

/// What the status bar shows.
#[derive(Default)]
pub struct StatusBar {
    /// The token of each connection, and when it was reported.
    pub tokens: HashMap<String, (TokenState, Instant)>,
    /// HTTP status, time, size and `count` of the last request.
    pub last: Option<(u16, Duration, usize, Option<u64>)>,
    /// The in-process sandbox's base URL, once started.
    pub sandbox: Option<String>,
    /// Where the webhook listener listens, while it does.
    pub webhooks: Option<std::net::SocketAddr>,
    /// Requests under way, by job, with their connection's name.
    pub running: HashMap<u64, String>,
    /// Connections whose last request failed for want of a token, with why.
    pub failed: HashMap<String, String>,
}

/// `23 h 12 min`, `4 min 5 s`, `12 s`.
pub fn lifetime(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// `12.3 KB`.
pub fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

impl StatusBar {
    /// Records the end of a request: a failure to get or use a token marks its connection failed;
    /// any answer clears that.
    pub fn finished(&mut self, job: u64, error: Option<&ApiError>) {
        let Some(connection) = self.running.remove(&job) else { return };
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

    /// Draws the bar for the connection named `connection`.
    pub fn ui(&self, ui: &mut egui::Ui, connection: &str) {
        ui.horizontal(|ui| {
            let waiting = self.running.values().any(|c| c == connection);
            let token = self.tokens.get(connection);
            let expired = match token {
                Some((TokenState::Valid { remaining, .. }, at)) => remaining.saturating_sub(at.elapsed()).is_zero(),
                _ => true,
            };
            match (self.failed.get(connection), token) {
                (Some(why), _) if !waiting => {
                    ui.colored_label(ui.visuals().error_fg_color, "Token: failed").on_hover_text(why);
                }
                _ if waiting && expired => {
                    ui.label("Token: renewing…");
                }
                (_, Some((TokenState::Valid { remaining, scopes }, at))) => {
                    let left = remaining.saturating_sub(at.elapsed());
                    if left.is_zero() {
                        ui.label("Token: expired (renewed on the next request)");
                    } else {
                        ui.label(format!("Token: valid for {}", lifetime(left)))
                            .on_hover_text(format!("Scopes: {scopes}"));
                    }
                }
                _ => {
                    ui.weak("Token: none yet");
                }
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
            if let Some(addr) = &self.webhooks {
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

    #[test]
    fn a_refused_token_marks_its_connection_failed_until_an_answer() {
        let mut bar = StatusBar::default();
        bar.running.insert(1, "acme".into());
        bar.finished(1, Some(&ApiError::InvalidClient));
        assert!(bar.failed.contains_key("acme") && bar.running.is_empty());
        bar.running.insert(2, "acme".into());
        bar.finished(2, Some(&ApiError::Cancelled));
        assert!(bar.failed.contains_key("acme"));
        bar.running.insert(3, "acme".into());
        bar.finished(3, None);
        assert!(bar.failed.is_empty());
    }
}
