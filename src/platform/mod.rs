//! What differs between the systems orgql runs on, behind one small API, so that no feature
//! module carries `cfg` branches of its own (issue 38). The Unix half is `unix.rs` (Linux and
//! macOS; a few Linux-only parts inside it), the Windows half `windows.rs`; this file only says
//! which one is compiled and what each function does.
//!
//! - stop signals: SIGINT and SIGTERM on Unix, Ctrl+C, Ctrl+Break and a closed console on Windows
//!   ([`signal`]);
//! - files that hold personal data, private to the person ([`private`]);
//! - giving back the memory only the start needed ([`resident`]);
//! - text from outside made safe for a terminal ([`terminal`]) and the UI-thread check
//!   ([`ui_thread`]) — the same on every system, kept here with the rest of the process's plumbing;
//! - the process group of a tunnel program and who holds a loopback connection;
//! - the console of the Windows-GUI program ([`attach_console`]);
//! - where the system's fonts are ([`system_font_files`]);
//! - the proxy the system sets for a URL ([`system_proxy`]: Windows' Internet Options with PAC
//!   and WPAD through WinHTTP, macOS's system configuration, GNOME's settings);
//! - signing in to a proxy with NTLM and Negotiate ([`proxy_handshake`]: Windows' own SSPI, with
//!   the person's account; elsewhere NTLM from a user and a password);
//! - the window's renderers in the order they are tried ([`renderer_order`]);
//! - whether the system knows a server's certificate to be revoked or distrusted ([`revocation`]);
//! - paths as a person writes them ([`shown_path`]) and the shell's quoting ([`shell_example`]);
//! - the system's own scheduler ([`system_scheduler`]), the person's user id ([`user_id`]) and
//!   files every account may read ([`make_readable_by_all`]), for `orgql schedule`.

pub mod private;
mod proxy_sign_in;
pub mod resident;
pub mod signal;
pub mod system_proxy;
pub mod terminal;
pub mod ui_thread;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

pub use proxy_sign_in::{ProxyHandshake, SYSTEM_SIGN_IN, proxy_handshake};
pub use system_proxy::{SystemProxy, system_proxy};

/// The file a program named `program` has on `PATH` (`cloudflared`, `cloudflared.exe` on Windows).
pub fn program_file_name(program: &str) -> String {
    os::program_file_name(program)
}

/// A command line of the person's own run by the system's shell (`sh -c`, `cmd /C`). A simple
/// command replaces the Unix shell (`exec`), so that the program itself is the child that is told
/// when orgql dies; a list or a pipeline keeps its shell.
pub fn shell_command(text: &str) -> Command {
    os::shell_command(text)
}

/// Starts `command` in a process group of its own, with no console window of its own on Windows:
/// a terminal's Ctrl+C then does not reach it before orgql stops it; on Linux it is also sent
/// SIGTERM when orgql dies (killed outright, a window closed by the system).
pub fn in_own_group(command: &mut Command) {
    os::in_own_group(command);
}

/// Stops the whole process group of `child` (started with [`in_own_group`]): a shell's children
/// and the program's own. The caller then kills and reaps `child` itself.
pub fn stop_group(child: &Child) {
    os::stop_group(child);
}

/// Whether the client end of the loopback connection `peer` → `local` is held by a process of the
/// group led by `pid`. Found through `/proc` on Linux; elsewhere every loopback connection counts
/// as the group's while it runs (true).
pub fn connection_held_by_group(peer: SocketAddr, local: SocketAddr, pid: u32) -> bool {
    os::connection_held_by_group(peer, local, pid)
}

/// Gives a Windows-GUI program started for a command the console of the one that started it
/// (Command Prompt, PowerShell or `orgql.com`), so that it prints there, reads its standard input
/// and its Ctrl+C. Nothing on Unix, where every program has its terminal's standard streams.
pub fn attach_console() {
    os::attach_console();
}

/// The font files to draw the scripts egui's own fonts lack, in the order to try them, or `None`
/// where the system's own fallback is asked instead (fontconfig on Linux, CoreText on macOS). On
/// Windows: Segoe UI, the CJK, Arabic, Hebrew, Indic, Thai and emoji fonts Windows ships in
/// `%WINDIR%\Fonts`, then every other font there.
pub fn system_font_files() -> Option<Vec<PathBuf>> {
    os::system_font_files()
}

/// The size of the primary screen's work area (without the taskbar) in points, where the system
/// says it before a window exists (Windows); `None` elsewhere, where the window manager fits a
/// new window to the screen itself.
pub fn work_area() -> Option<[f32; 2]> {
    os::work_area()
}

/// The window's renderers in the order they are tried when nothing else is asked (issue 45), as
/// the names of `ORGQL_RENDERER` (`crate::ui::renderer`): on Windows wgpu on Direct3D 12 first
/// (WARP where there is no GPU: Remote Desktop, VMs), then Vulkan, then OpenGL (glow); on Linux
/// glow first (quicker to start and smaller than wgpu on the same Mesa: benches/README.md), then
/// wgpu on Vulkan where OpenGL cannot open a window; on macOS glow, then Metal.
pub fn renderer_order() -> &'static [&'static str] {
    os::renderer_order()
}

/// What the system says of a server's certificate chain's revocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revocation {
    /// Not revoked, or the answer could not be had (a revocation server a proxy blocks, no CRL
    /// or OCSP address in the certificate): best effort, the connection goes on.
    NotRevoked,
    /// Its issuer revoked a certificate of the chain (CRL or OCSP as the system fetches them).
    Revoked,
    /// The system explicitly distrusts a certificate of the chain (Windows' Disallowed store).
    Distrusted,
    /// This system has no revocation check orgql can ask (Linux, macOS).
    NotChecked,
}

/// Whether [`revocation`] asks the system (Windows); elsewhere it answers
/// [`Revocation::NotChecked`].
pub const CHECKS_REVOCATION: bool = cfg!(windows);

/// Asks the system whether the chain of `end_entity` (with the `intermediates` the server sent)
/// is revoked: on Windows through its chain engine (CRLs and OCSP as Windows fetches and caches
/// them, at most 5 seconds for all of them, and its Disallowed store); elsewhere not checked.
/// Blocks while Windows fetches: callers cache the answer per certificate.
pub fn revocation(end_entity: &[u8], intermediates: &[&[u8]]) -> Revocation {
    os::revocation(end_entity, intermediates)
}

/// The roots of the operating system's own store where orgql reads it itself, with what could not
/// be read: on Windows the person's Root store (which holds the machine's roots, the ones group
/// policy and the enterprise push, and the person's own), whatever `SSL_CERT_FILE` says. `None`
/// where rustls-native-certs reads the system's roots (Linux's files, the macOS keychain).
pub fn system_store_roots() -> Option<(Vec<Vec<u8>>, Vec<String>)> {
    os::system_store_roots()
}

/// `path` made absolute, as a person writes it: `C:\Users\…` on Windows, never the `\\?\C:\…`
/// that the system's canonical form is; the path itself when it cannot be resolved.
pub fn shown_path(path: &Path) -> PathBuf {
    dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `text` (which may hold double quotes, as JSON does) quoted as one argument for the system's
/// shells, for examples in `--help`: single quotes for a Unix shell; on Windows the form of
/// Command Prompt (`"{\"ref\": …}"`), then that of PowerShell (`'{\"ref\": …}'`), which the
/// program's own parser reads back to the same text.
pub fn shell_example(text: &str) -> String {
    os::shell_example(text)
}

/// The kind of scheduler a system has of its own, as far as the system's kind alone says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemScheduler {
    /// Windows' Task Scheduler (`schtasks`).
    TaskScheduler,
    /// macOS's launchd (`launchctl`).
    Launchd,
    /// Any other Unix: a user systemd manager where one answers, cron otherwise (asked at run
    /// time by `crate::schedule::register`).
    SystemdOrCron,
}

/// The scheduler this system has of its own: Task Scheduler on Windows, launchd on macOS, systemd
/// or cron elsewhere.
pub fn system_scheduler() -> SystemScheduler {
    if cfg!(windows) {
        SystemScheduler::TaskScheduler
    } else if cfg!(target_os = "macos") {
        SystemScheduler::Launchd
    } else {
        SystemScheduler::SystemdOrCron
    }
}

/// The numeric id of the user running orgql on Unix (launchd's `gui/<uid>` domain); `None` on
/// Windows, which has no such number.
pub fn user_id() -> Option<u32> {
    #[cfg(unix)]
    // SAFETY: getuid(2) always succeeds and touches no memory.
    let id = Some(unsafe { libc::getuid() });
    #[cfg(not(unix))]
    let id = None;
    id
}

/// Makes the existing file `path` readable by every account and writable by its owner (0644 on
/// Unix, whatever the umask made it: what systemd and launchd expect of the units and agents
/// orgql writes); nothing on Windows, where a file inherits its folder's access list.
pub fn make_readable_by_all(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_are_shown_absolute_and_as_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("in.csv"), "ref\n").unwrap();
        let shown = super::shown_path(&dir.path().join(".").join("in.csv"));
        assert!(shown.is_absolute());
        assert!(!shown.to_string_lossy().starts_with(r"\\?\"), "{}", shown.display());
        assert_eq!(shown.file_name().unwrap(), "in.csv");
        assert!(!shown.to_string_lossy().contains("/./"));
        // A path that is not there is shown as given.
        assert_eq!(super::shown_path(std::path::Path::new("gone/x.csv")), std::path::Path::new("gone/x.csv"));
    }

    #[test]
    fn examples_are_quoted_for_the_system_s_shell() {
        let example = super::shell_example(r#"{"ref": "u00001"}"#);
        if cfg!(windows) {
            assert_eq!(example, r#""{\"ref\": \"u00001\"}" (Command Prompt) or '{\"ref\": \"u00001\"}' (PowerShell)"#);
            assert_eq!(super::program_file_name("ngrok"), "ngrok.exe");
        } else {
            assert_eq!(example, r#"'{"ref": "u00001"}'"#);
            assert_eq!(super::shell_example("it's"), r"'it'\''s'");
            assert_eq!(super::program_file_name("ngrok"), "ngrok");
        }
    }
}
