//! The native file dialogs (rfd), each on a thread of its own, so that the UI never waits for
//! one: the choice lands in a shared slot that the window takes at its next frame.
//!
//! A dialog that cannot open is never silent: rfd returns "nothing chosen" within milliseconds
//! when no desktop portal (or zenity) answers, faster than a person can cancel one, so an answer
//! that quick is taken as "could not open" and the window says so beside the path field
//! ([`failure`]), where the path can be typed instead.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// An answer of "nothing chosen" quicker than this is a dialog that never showed.
const TOO_QUICK: Duration = Duration::from_millis(400);

/// What a dialog left: the file chosen, or why no dialog could be shown.
#[derive(Debug, Default)]
pub struct Slot {
    file: Option<PathBuf>,
    failure: Option<String>,
}

/// Where a dialog leaves the file chosen.
pub type Picked = Arc<Mutex<Slot>>;

/// The sentence shown when no file dialog could be opened.
pub const NO_DIALOG: &str =
    "The file dialog could not be opened (no desktop portal or zenity answered): type the path in the field instead.";

/// Shows a dialog (`show`, e.g. `move || dialog.save_file()`) on its own thread; the file
/// chosen goes to `picked` and wakes the window, and so does a dialog that could not open.
pub fn spawn(ctx: &egui::Context, picked: &Picked, show: impl FnOnce() -> Option<PathBuf> + Send + 'static) {
    let slot = picked.clone();
    let ctx = ctx.clone();
    picked.lock().unwrap_or_else(PoisonError::into_inner).failure = None;
    let spawned = std::thread::Builder::new().name("orgql-file-dialog".into()).spawn(move || {
        let started = Instant::now();
        let chosen = show();
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        match chosen {
            Some(file) => slot.file = Some(file),
            None if started.elapsed() < TOO_QUICK => {
                tracing::warn!("the file dialog answered at once with nothing: no portal or zenity");
                slot.failure = Some(NO_DIALOG.to_owned());
            }
            None => {}
        }
        ctx.request_repaint();
    });
    if let Err(e) = spawned {
        tracing::warn!("the file dialog could not be opened: {e}");
        picked.lock().unwrap_or_else(PoisonError::into_inner).failure =
            Some(format!("The file dialog could not be opened ({e}): type the path in the field instead."));
    }
}

/// The file chosen since the last call, if any.
pub fn take(picked: &Picked) -> Option<PathBuf> {
    let mut slot = picked.lock().unwrap_or_else(PoisonError::into_inner);
    let file = slot.file.take();
    if file.is_some() {
        slot.failure = None;
    }
    file
}

/// Why the last dialog could not be shown, while that is so (a chosen file or a new dialog
/// clears it).
pub fn failure(picked: &Picked) -> Option<String> {
    picked.lock().unwrap_or_else(PoisonError::into_inner).failure.clone()
}
