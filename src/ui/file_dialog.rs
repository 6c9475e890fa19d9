//! The native file dialogs (rfd), each on a thread of its own, so that the UI never waits for
//! one: the choice lands in a shared slot that the window takes at its next frame.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// Where a dialog leaves the file chosen.
pub type Picked = Arc<Mutex<Option<PathBuf>>>;

/// Shows a dialog (`show`, e.g. `move || dialog.save_file()`) on its own thread; the file
/// chosen goes to `picked` and wakes the window.
pub fn spawn(ctx: &egui::Context, picked: &Picked, show: impl FnOnce() -> Option<PathBuf> + Send + 'static) {
    let picked = picked.clone();
    let ctx = ctx.clone();
    std::thread::Builder::new()
        .name("orgql-file-dialog".into())
        .spawn(move || {
            if let Some(file) = show() {
                *picked.lock().unwrap_or_else(PoisonError::into_inner) = Some(file);
                ctx.request_repaint();
            }
        })
        .map(drop)
        .unwrap_or_else(|e| tracing::warn!("the file dialog could not be opened: {e}"));
}

/// The file chosen since the last call, if any.
pub fn take(picked: &Picked) -> Option<PathBuf> {
    picked.lock().unwrap_or_else(PoisonError::into_inner).take()
}
