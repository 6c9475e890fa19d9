//! The shutdown signal of every long-running command (`orgql sandbox`, `orgql webhooks listen`,
//! `orgql export`): Ctrl+C, or on Unix SIGTERM (what `kill`, systemd and container runtimes send).

/// Waits for Ctrl+C or (on Unix) SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => {
                if let Err(err) = ctrl_c.await {
                    tracing::warn!("cannot wait for Ctrl+C: {err}");
                }
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    if let Err(err) = ctrl_c.await {
        tracing::warn!("cannot wait for Ctrl+C: {err}");
    }
}
