//! The one way long-running commands hear that they should stop (`orgql sandbox`, `orgql
//! webhooks listen`, `orgql export`, `orgql query`): Ctrl+C everywhere, and on Unix SIGTERM too
//! (what `kill`, systemd and container runtimes send). Windows has no SIGTERM: there Ctrl+C (and
//! Ctrl+Break through the same handler) is the signal; the `cfg` below keeps the Windows and
//! macOS builds of packaging/README.md compiling.

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
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            for (kind, name, number) in
                [(SignalKind::interrupt(), "SIGINT", 2), (SignalKind::terminate(), "SIGTERM", 15)]
            {
                match signal(kind) {
                    Ok(mut stream) => {
                        let this = this.clone();
                        tokio::spawn(async move {
                            if stream.recv().await.is_some() {
                                this.received_signal(name, number);
                            }
                        });
                    }
                    Err(e) => tracing::warn!("cannot listen for {name}: {e}"),
                }
            }
        }
        #[cfg(not(unix))]
        {
            let this = this.clone();
            tokio::spawn(async move {
                match tokio::signal::ctrl_c().await {
                    Ok(()) => this.received_signal("Ctrl+C", 2),
                    Err(e) => tracing::warn!("cannot listen for Ctrl+C: {e}"),
                }
            });
        }
        this
    }

    fn received_signal(&self, name: &'static str, number: u8) {
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
