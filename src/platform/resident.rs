//! Gives back the memory that only the start needed, once the desktop app is up (issue 33).
//!
//! Starting the window touches code all over the binary (about 30 MB of its 40 MB of code and
//! read-only data are resident after a start, because the kernel maps the 64 KB around every page
//! fault), and little of it runs again: a frame, a Run and its rows need a fraction. So a few
//! seconds after the window is up, [`release_startup_pages`] tells the kernel that the binary's
//! read-only pages are not needed (`madvise(MADV_DONTNEED)`) and glibc's `malloc_trim` gives
//! back the free pages of the C heap (Mesa's and fontconfig's allocations).
//!
//! # Why `MADV_DONTNEED`, and why it is safe here
//!
//! Only mappings of the executable file itself that are not writable and of which no page was
//! ever written are advised: `Anonymous: 0 kB` in `/proc/self/smaps` (the RELRO part that the
//! loader relocated, a page a debugger wrote a breakpoint into, or a uprobe's page have
//! anonymous copies and are left alone). Such a page is a clean page of the page cache: dropping
//! it from the process changes nothing it reads; the next access maps the same page of the file
//! again (a minor fault while the page cache still holds it, as for any other page of the file).
//! `MADV_PAGEOUT` would also evict the pages from the page cache (each later access then reads
//! the disk, with this machine's 8 MB read-ahead), and `MADV_COLD` leaves the pages resident
//! until memory runs short, so neither lowers what the process holds now at a lower cost
//! (measured: benches/README.md, "orgql's own memory").
//!
//! # mimalloc's freed pages
//!
//! mimalloc (the binary's allocator, v3) gives pages that became free back to the system a second
//! later (`purge_delay`, 1000 ms), and only when the thread that freed them allocates again: a
//! thread that goes quiet (a frame's, a finished job's) keeps them. The desktop app asks for them to be given back at
//! once ([`return_freed_memory_at_once`]): 5–12 MB less after a 100,000-row Fetch all, the
//! fetch no slower (benches/README.md). The command line keeps the default (an export's speed
//! was tuned with it).
//!
//! What it costs: the first use of code after it faults that code in again (a frame, a Run, the
//! first Export or Import after it); measured in benches/README.md. `ORGQL_KEEP_PAGES=1` turns
//! it off. Linux only; elsewhere [`release_startup_pages`] does nothing.

use std::time::Duration;

/// How long after the window is up [`release_startup_pages`] runs: the start's own work (the
/// schema, the system fonts, the first frames) is over by then.
pub const AFTER_START: Duration = Duration::from_secs(4);

/// What [`release_startup_pages`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// Bytes of the binary's read-only mappings advised (resident or not).
    pub advised: u64,
    /// Bytes of them resident before.
    pub resident_before: u64,
    /// Mappings left alone because a page of them was written.
    pub skipped: usize,
}

/// mimalloc's `mi_option_purge_delay` (mimalloc.h: the 16th option, in v2 and v3 alike).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc to give pages back to the system as soon as they are free (see the module's
/// documentation). Harmless when mimalloc is not the allocator (tests): it only sets an option.
pub fn return_freed_memory_at_once() {
    // SAFETY: mi_option_set only stores a number in mimalloc's option table; any value is valid
    // for this option (0: purge at once).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

/// Whether `ORGQL_KEEP_PAGES` asks to keep the pages.
pub fn turned_off() -> bool {
    std::env::var_os("ORGQL_KEEP_PAGES").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Drops the binary's clean read-only pages from the process and trims the C heap (see the
/// module's documentation). Blocking (it reads `/proc/self/smaps`): call it off the UI thread.
/// Does nothing off Linux.
pub fn release_startup_pages() -> std::io::Result<Released> {
    crate::platform::ui_thread::check("resident::release_startup_pages");
    super::os::release_startup_pages()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_mimallocs_option_15() {
        // mimalloc v3's default (1000 ms) unless the environment sets it: the index is the right
        // option.
        // SAFETY: reads mimalloc's option table.
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(delay, 1000);
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn releasing_keeps_the_process_working() {
        // The test binary's own code is dropped from memory and read again on use.
        let released = release_startup_pages().expect("madvise over the test binary");
        assert!(released.advised > 0, "{released:?}");
        let text: String = (0..1000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        assert_eq!(text.len(), 1000);
        assert!(format!("{released:?}").contains("advised"));
    }
}
