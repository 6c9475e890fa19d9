//! The Unix half of [`crate::platform`] (Linux and macOS; the parts that read `/proc` or call
//! Linux's `prctl` and `madvise` are Linux-only).

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command};

pub(super) fn program_file_name(program: &str) -> String {
    program.to_owned()
}

pub(super) fn shell_command(text: &str) -> Command {
    let compound = text.contains([';', '&', '|', '\n', '`', '(']);
    let text = if compound { text.to_owned() } else { format!("exec {text}") };
    let mut command = Command::new("sh");
    command.args(["-c", &text]);
    command
}

pub(super) fn in_own_group(command: &mut Command) {
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
}

pub(super) fn stop_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is touched.
        unsafe {
            libc::kill(-pid, libc::SIGTERM);
        }
    }
}

pub(super) fn attach_console() {}

pub(super) fn work_area() -> Option<[f32; 2]> {
    None
}

pub(super) fn system_font_files() -> Option<Vec<PathBuf>> {
    None
}

pub(super) fn shell_example(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Listens for SIGINT and SIGTERM (what `kill`, systemd and container runtimes send).
pub(super) fn listen_for_stop(interrupt: &super::signal::Interrupt) {
    use tokio::signal::unix::{SignalKind, signal};
    for (kind, name, number) in [(SignalKind::interrupt(), "SIGINT", 2), (SignalKind::terminate(), "SIGTERM", 15)] {
        match signal(kind) {
            Ok(mut stream) => {
                let interrupt = interrupt.clone();
                tokio::spawn(async move {
                    if stream.recv().await.is_some() {
                        interrupt.received_signal(name, number);
                    }
                });
            }
            Err(e) => tracing::warn!("cannot listen for {name}: {e}"),
        }
    }
}

/// New folders owner-only (0700).
pub(super) fn private_folder(builder: &mut std::fs::DirBuilder) {
    std::os::unix::fs::DirBuilderExt::mode(builder, 0o700);
}

/// New files owner-only (0600).
pub(super) fn private_file(options: &mut std::fs::OpenOptions) {
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
}

/// An existing file made owner-only (0600).
pub(super) fn make_private(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// A pipe or a device (`/dev/stdout`, a FIFO): written where it is, never replaced.
pub(super) fn written_in_place(kind: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_fifo() || kind.is_char_device()
}

#[cfg(target_os = "linux")]
pub(super) use linux::{connection_held_by_group, release_startup_pages};

/// Without `/proc`: every loopback connection counts as the tunnel's while it runs.
#[cfg(not(target_os = "linux"))]
pub(super) fn connection_held_by_group(_peer: std::net::SocketAddr, _local: std::net::SocketAddr, _pgid: u32) -> bool {
    true
}

/// Does nothing off Linux.
#[cfg(not(target_os = "linux"))]
pub(super) fn release_startup_pages() -> std::io::Result<super::resident::Released> {
    Ok(super::resident::Released::default())
}

#[cfg(target_os = "linux")]
mod linux {
    use std::net::{IpAddr, SocketAddr};

    use crate::platform::resident::Released;

    /// Whether the client end of the connection `peer` → `local` is held by a process of group `pgid`.
    pub(in crate::platform) fn connection_held_by_group(peer: SocketAddr, local: SocketAddr, pgid: u32) -> bool {
        let Some(inode) = socket_inode(peer, local) else { return false };
        let wanted = format!("socket:[{inode}]");
        let Ok(processes) = std::fs::read_dir("/proc") else { return false };
        for process in processes.flatten() {
            let name = process.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            if process_group(pid) != Some(pgid) {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
            if fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == wanted.as_str())) {
                return true;
            }
        }
        false
    }

    /// The process group of `pid` (the fifth field of `/proc/PID/stat`, after the parenthesised name).
    fn process_group(pid: u32) -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(2)?.parse().ok()
    }

    /// The inode of the socket whose own address is `peer` and whose remote is `local`.
    fn socket_inode(peer: SocketAddr, local: SocketAddr) -> Option<u64> {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let Ok(text) = std::fs::read_to_string(table) else { continue };
            for line in text.lines().skip(1) {
                let fields: Vec<&str> = line.split_whitespace().collect();
                if fields.len() < 10 {
                    continue;
                }
                if same_address(fields[1], peer) && same_address(fields[2], local) {
                    return fields[9].parse().ok();
                }
            }
        }
        None
    }

    /// Whether `/proc/net/tcp`'s `HEXADDR:HEXPORT` is `addr` (an IPv4 address also matches its
    /// IPv4-mapped IPv6 form).
    fn same_address(field: &str, addr: SocketAddr) -> bool {
        let Some((ip, port)) = field.split_once(':') else { return false };
        if u16::from_str_radix(port, 16).ok() != Some(addr.port()) {
            return false;
        }
        // Each 32-bit word is printed as the host reads it.
        let words: Option<Vec<[u8; 4]>> = (0..ip.len() / 8)
            .map(|i| u32::from_str_radix(&ip[i * 8..i * 8 + 8], 16).ok().map(u32::to_ne_bytes))
            .collect();
        let Some(words) = words else { return false };
        let parsed = match words.as_slice() {
            [v4] => IpAddr::from(*v4),
            [a, b, c, d] => {
                let mut bytes = [0u8; 16];
                for (i, word) in [a, b, c, d].into_iter().enumerate() {
                    bytes[i * 4..i * 4 + 4].copy_from_slice(word);
                }
                IpAddr::from(bytes)
            }
            _ => return false,
        };
        let canonical = |ip: IpAddr| match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        canonical(parsed) == canonical(addr.ip())
    }

    /// Drops the binary's clean read-only pages from the process and trims the C heap (see
    /// [`crate::platform::resident`]). Blocking (it reads `/proc/self/smaps`).
    pub(in crate::platform) fn release_startup_pages() -> std::io::Result<Released> {
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
        fn a_loopback_connection_is_found_held_by_its_own_process_group_only() {
            let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let local = server.local_addr().unwrap();
            let client = std::net::TcpStream::connect(local).unwrap();
            let (_accepted, peer) = server.accept().unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            let own_group = process_group(std::process::id()).unwrap();
            assert!(connection_held_by_group(peer, local, own_group));
            assert!(!connection_held_by_group(peer, local, own_group + 1_000_000));
        }
    }
}

/// See [`super::revocation`]: neither Linux nor macOS has a revocation check to ask.
pub(super) fn revocation(_end_entity: &[u8], _intermediates: &[&[u8]]) -> super::Revocation {
    super::Revocation::NotChecked
}

/// See [`super::system_store_roots`]: rustls-native-certs reads them here.
pub(super) fn system_store_roots() -> Option<(Vec<Vec<u8>>, Vec<String>)> {
    None
}

/// See [`super::renderer_order`].
pub(super) fn renderer_order() -> &'static [&'static str] {
    if cfg!(target_os = "macos") { &["glow", "wgpu-metal"] } else { &["glow", "wgpu-vulkan"] }
}

/// The system's proxy: macOS's system configuration (`scutil --proxy`), elsewhere GNOME's
/// settings (`gsettings`); see [`super::system_proxy`].
pub(super) fn system_proxy(
    _url: &str,
    target: &crate::net::bypass::Target,
) -> Option<crate::net::system_proxy::SystemProxy> {
    if cfg!(target_os = "macos") {
        let printed = bounded_output("scutil", &["--proxy"], &[])?;
        return crate::net::system_proxy::macos_proxy(target, &printed);
    }
    gnome_system_proxy(target, &[])
}

/// GNOME's proxy settings for `target`, `gsettings` run with `env` added (tests point it at a
/// settings file of their own).
fn gnome_system_proxy(
    target: &crate::net::bypass::Target,
    env: &[(&str, &std::ffi::OsStr)],
) -> Option<crate::net::system_proxy::SystemProxy> {
    // One run for every key: `org.gnome.system.proxy.http host 'web.corp'` a line.
    let printed = bounded_output("gsettings", &["list-recursively", "org.gnome.system.proxy"], env)?;
    let mut settings = std::collections::HashMap::new();
    for line in printed.lines() {
        let mut parts = line.splitn(3, ' ');
        if let (Some(schema), Some(key), Some(value)) = (parts.next(), parts.next(), parts.next()) {
            settings.insert((schema.to_owned(), key.to_owned()), value.to_owned());
        }
    }
    crate::net::system_proxy::gnome_proxy(target, |schema, key| {
        settings.get(&(schema.to_owned(), key.to_owned())).cloned()
    })
}

/// What `program args` prints, if it exists, succeeds within two seconds and prints text.
fn bounded_output(program: &str, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Option<String> {
    use std::io::Read as _;
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if std::time::Instant::now() < deadline => std::thread::sleep(std::time::Duration::from_millis(5)),
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) => {
                tracing::debug!("{program} did not answer within 2 s: the system's proxy settings are not read");
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut printed = String::new();
    child.stdout.take()?.read_to_string(&mut printed).ok()?;
    Some(printed)
}

#[cfg(test)]
mod tests {
    use crate::net::bypass::Target;

    /// GNOME's settings read through the real `gsettings`, from a settings file of the test's own
    /// (GLib's keyfile backend); skipped with a note where `gsettings` or GNOME's schemas are missing.
    #[test]
    fn gnome_settings_through_gsettings() {
        if cfg!(target_os = "macos") {
            return;
        }
        let schemas = std::process::Command::new("gsettings").args(["list-keys", "org.gnome.system.proxy"]).output();
        if !schemas.is_ok_and(|out| out.status.success()) {
            eprintln!("note: gsettings or gsettings-desktop-schemas missing: GNOME's proxy settings not tried");
            return;
        }
        let home = tempfile::tempdir().unwrap();
        let folder = home.path().join("glib-2.0/settings");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("keyfile"),
            "[system/proxy]\nmode='manual'\nignore-hosts=['localhost', '127.0.0.0/8', '::1', '.corp.example']\n\n\
             [system/proxy/https]\nhost='proxy.corp'\nport=3128\n",
        )
        .unwrap();
        let env =
            [("GSETTINGS_BACKEND", std::ffi::OsStr::new("keyfile")), ("XDG_CONFIG_HOME", home.path().as_os_str())];
        let target = Target::parse("https://api.example.com/graphql").unwrap();
        let via = super::gnome_system_proxy(&target, &env).unwrap();
        assert_eq!(via.proxy.as_deref(), Some("http://proxy.corp:3128"));
        assert_eq!(via.source, "GNOME settings");
        let inside = Target::parse("https://api.corp.example/graphql").unwrap();
        assert_eq!(super::gnome_system_proxy(&inside, &env).unwrap().proxy, None);
        std::fs::write(
            folder.join("keyfile"),
            "[system/proxy]\nmode='auto'\nautoconfig-url='http://wpad.corp/wpad.dat'\n",
        )
        .unwrap();
        let auto = super::gnome_system_proxy(&target, &env).unwrap();
        assert!(auto.note.is_some_and(|note| note.contains("http://wpad.corp/wpad.dat")));
    }
}
