//! The one way long-running commands hear that they should stop (`orgql sandbox`, `orgql
//! webhooks listen`, `orgql export`, `orgql import`, `orgql query`): on Unix SIGINT (Ctrl+C) and
//! SIGTERM (what `kill`, systemd and container runtimes send); on Windows, which has no SIGTERM,
//! Ctrl+C, Ctrl+Break and the console window closed (listened for in `unix.rs` and `windows.rs`).

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

/// A token cancelled by the first stop signal, which remembers which one came, for the exit
/// status of a command stopped by it (128 + the signal's number, as a shell reports it).
#[derive(Clone)]
pub struct Interrupt {
    cancel: CancellationToken,
    signal: Arc<OnceLock<(&'static str, u8)>>,
}

impl Interrupt {
    /// Starts listening (in a runtime); a signal that cannot be listened for is logged and the
    /// others still are.
    pub fn listen() -> Interrupt {
        let this = Interrupt { cancel: CancellationToken::new(), signal: Default::default() };
        super::os::listen_for_stop(&this);
        this
    }

    pub(super) fn received_signal(&self, name: &'static str, number: u8) {
        let _first_wins = self.signal.set((name, 128 + number));
        self.cancel.cancel();
    }

    /// The token the signal cancels.
    pub fn token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The signal that came, and the exit status it calls for.
    pub fn received(&self) -> Option<(&'static str, u8)> {
        self.signal.get().copied()
    }
}
