//! A check that blocking work stays off the UI thread, deterministically: the app marks the
//! thread that runs its frames ([`mark`]), and every blocking entry point of the crate (the
//! keyring, the profiles file, the local database, export files, HTTP) calls [`check`] first. In
//! debug builds a call on the marked thread panics with the entry point's name, so any UI test
//! that reaches one fails saying which; release builds do nothing. No egui here.

use std::cell::Cell;

thread_local! {
    /// Whether this thread runs the UI's frames.
    static UI_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Marks the current thread as the UI thread (the app does it when it is made: in eframe and in
/// egui_kittest that is the thread that runs the frames). It stays marked until it ends.
pub fn mark() {
    UI_THREAD.with(|marked| marked.set(true));
}

/// Whether the current thread is the UI thread.
pub fn is_marked() -> bool {
    UI_THREAD.with(Cell::get)
}

/// Called by a blocking entry point, named `entry`: in debug builds it panics when the current
/// thread is the UI thread; in release builds it does nothing.
#[track_caller]
pub fn check(entry: &'static str) {
    #[cfg(debug_assertions)]
    if is_marked() {
        panic!("`{entry}` was called on the UI thread; send a worker command instead");
    }
    #[cfg(not(debug_assertions))]
    let _ = entry;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `work` on a thread of its own (so that no mark outlives the test); returns what it
    /// panicked with, if it did.
    fn panic_on_own_thread(work: impl FnOnce() + Send + 'static) -> Option<String> {
        let joined = std::thread::spawn(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).err().map(|payload| {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default()
            })
        })
        .join();
        joined.expect("the thread itself does not panic outside catch_unwind")
    }

    #[test]
    fn an_unmarked_thread_may_block() {
        assert_eq!(panic_on_own_thread(|| check("keyring")), None);
        assert_eq!(
            panic_on_own_thread(|| {
                assert!(!is_marked());
                check("the local database");
            }),
            None
        );
    }

    #[cfg(debug_assertions)]
    #[test]
    fn the_marked_thread_panics_naming_the_entry_point() {
        let message = panic_on_own_thread(|| {
            mark();
            assert!(is_marked());
            check("keyring");
        });
        assert_eq!(
            message.as_deref(),
            Some("`keyring` was called on the UI thread; send a worker command instead"),
            "the guard bites on the marked thread"
        );
        // Another thread is not marked by it.
        assert_eq!(panic_on_own_thread(|| check("keyring")), None);
    }
}
