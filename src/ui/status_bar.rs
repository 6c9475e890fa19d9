//! The status bar: the token of the current connection (valid for 23 h 12 min, with its
//! scopes), the last request (HTTP status, time, size, count) and the sandbox's address.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::results::thousands;
use crate::api::TokenState;

/// What the status bar shows.
#[derive(Default)]
pub struct StatusBar {
    /// The token of each connection, and when it was reported.
    pub tokens: HashMap<String, (TokenState, Instant)>,
    /// HTTP status, time, size and `count` of the last request.
    pub last: Option<(u16, Duration, usize, Option<u64>)>,
    /// The in-process sandbox's base URL, once started.
    pub sandbox: Option<String>,
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
    /// Draws the bar for the connection named `connection`.
    pub fn ui(&self, ui: &mut egui::Ui, connection: &str) {
        ui.horizontal(|ui| {
            match self.tokens.get(connection) {
                Some((TokenState::Valid { remaining, scopes }, at)) => {
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
}
