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
#[cfg(target_os = "linux")]
pub fn release_startup_pages() -> std::io::Result<Released> {
    crate::platform::ui_thread::check("resident::release_startup_pages");
    let exe = std::fs::read_link("/proc/self/exe")?;
    let smaps = std::fs::read_to_string("/proc/self/smaps")?;
    let mut released = Released::default();
    for mapping in clean_read_only_mappings(&smaps, &exe.to_string_lossy()) {
        let Mapping { start, end, rss_kb, anonymous_kb } = mapping;
        if anonymous_kb > 0 {
            released.skipped += 1;
            continue;
        }
        // SAFETY: [start, end) is a whole mapping of this process (page-aligned, as the kernel
        // lists it) of the executable's file, neither writable nor holding a written page: the
        // advice only drops clean page-cache pages, which the next access maps again unchanged.
        // No Rust reference is invalidated: the contents stay what they were.
        let done = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
        if done != 0 {
            return Err(std::io::Error::last_os_error());
        }
        released.advised += (end - start) as u64;
        released.resident_before += rss_kb * 1024;
    }
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim has no preconditions; it only returns free memory of glibc's arenas.
    unsafe {
        libc::malloc_trim(0);
    }
    Ok(released)
}

/// Does nothing off Linux.
#[cfg(not(target_os = "linux"))]
pub fn release_startup_pages() -> std::io::Result<Released> {
    Ok(Released::default())
}

/// One mapping of `/proc/self/smaps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapping {
    start: usize,
    end: usize,
    rss_kb: u64,
    anonymous_kb: u64,
}

/// The mappings of file `path` in `smaps` that are not writable (`r--p`, `r-xp`), with their
/// resident and anonymous (written) sizes.
fn clean_read_only_mappings(smaps: &str, path: &str) -> Vec<Mapping> {
    let mut found = Vec::new();
    let mut current: Option<Mapping> = None;
    for line in smaps.lines() {
        if let Some((range, rest)) = header(line) {
            found.extend(current.take());
            let mut fields = rest.split_whitespace();
            let perms = fields.next().unwrap_or("");
            // offset, device, inode, then the path (which may hold spaces).
            let name = rest.splitn(5, char::is_whitespace).nth(4).unwrap_or("").trim();
            if name == path && !perms.contains('w') && perms.starts_with('r') {
                current = Some(Mapping { start: range.0, end: range.1, rss_kb: 0, anonymous_kb: 0 });
            }
        } else if let Some(mapping) = current.as_mut() {
            if let Some(kb) = field(line, "Rss:") {
                mapping.rss_kb = kb;
            } else if let Some(kb) = field(line, "Anonymous:") {
                mapping.anonymous_kb = kb;
            }
        }
    }
    found.extend(current);
    found
}

/// A mapping's first line: its address range and the rest of the line.
fn header(line: &str) -> Option<((usize, usize), &str)> {
    let (range, rest) = line.split_once(' ')?;
    let (start, end) = range.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    (end > start).then_some(((start, end), rest))
}

/// The kB of a `Name:   123 kB` line.
fn field(line: &str, name: &str) -> Option<u64> {
    line.strip_prefix(name)?.trim().strip_suffix("kB")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0a0000000-55d0a0300000 r--p 00000000 fe:00 42          /opt/orgql/bin/orgql
Size:               3072 kB
Rss:                2816 kB
Anonymous:             0 kB
55d0a0300000-55d0a2700000 r-xp 00300000 fe:00 42          /opt/orgql/bin/orgql
Size:              36864 kB
Rss:               27418 kB
Anonymous:             0 kB
55d0a2700000-55d0a2800000 r--p 02700000 fe:00 42          /opt/orgql/bin/orgql
Size:               1024 kB
Rss:                 930 kB
Anonymous:           900 kB
55d0a2800000-55d0a2810000 rw-p 02800000 fe:00 42          /opt/orgql/bin/orgql
Size:                 64 kB
Rss:                  64 kB
Anonymous:            64 kB
7f00a0000000-7f00a0100000 r-xp 00000000 fe:00 7           /usr/lib/x86_64-linux-gnu/libc.so.6
Size:               1024 kB
Rss:                 512 kB
Anonymous:             0 kB
7f00b0000000-7f00b0100000 r-xp 00000000 fe:00 8           /opt/orgql/bin/orgql with space
Size:               1024 kB
Rss:                 512 kB
Anonymous:             0 kB
";

    #[test]
    fn finds_the_executables_read_only_mappings_and_their_written_pages() {
        let found = clean_read_only_mappings(SMAPS, "/opt/orgql/bin/orgql");
        assert_eq!(
            found,
            [
                Mapping { start: 0x55d0a0000000, end: 0x55d0a0300000, rss_kb: 2816, anonymous_kb: 0 },
                Mapping { start: 0x55d0a0300000, end: 0x55d0a2700000, rss_kb: 27418, anonymous_kb: 0 },
                // The relocated (RELRO) part: found, and left alone by its written pages.
                Mapping { start: 0x55d0a2700000, end: 0x55d0a2800000, rss_kb: 930, anonymous_kb: 900 },
            ]
        );
        assert_eq!(clean_read_only_mappings(SMAPS, "/opt/orgql/bin/orgql with space").len(), 1);
        assert!(clean_read_only_mappings("garbage\n\n", "/x").is_empty());
    }

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
