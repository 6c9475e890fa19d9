//! The proxy the operating system sets for a URL: the last step of orgql's proxy order (the
//! connection's own setting, then `HTTPS_PROXY` and its kin, then this; issue 44).
//!
//! - **Windows**: Internet Options as IT sets them (the registry values under
//!   `HKCU\Software\Microsoft\Windows\CurrentVersion\Internet Settings`, or `HKLM` when the
//!   `ProxySettingsPerUser` policy is 0): a PAC file (`AutoConfigURL`) or WPAD ("Automatically
//!   detect settings") evaluated by WinHTTP's own auto-proxy — orgql has no JavaScript engine —,
//!   then the manual proxy in every form `ProxyServer` takes (`host:port`, `http=…;https=…;socks=…`)
//!   with its bypass list (`ProxyOverride`: `<local>`, wildcards). hyper-util's matcher, which
//!   reqwest uses, reads neither the per-scheme form nor `<local>`, nor PAC and WPAD: hence this.
//! - **macOS**: the system configuration, as `scutil --proxy` prints it (HTTP/HTTPS/SOCKS proxies,
//!   the exceptions list); a PAC file is named in a note, not read.
//! - **Linux**: GNOME's settings (`gsettings`, schema `org.gnome.system.proxy`); where they say
//!   "automatic" (a PAC file or WPAD), a note says PAC is not read there and what to set instead.
//!
//! Only the reading is here (in `unix.rs` and `windows.rs`); the text it reads is parsed by plain
//! functions, the same on every system, in `crate::net::system_proxy` (so that Linux tests check
//! the Windows and macOS forms too), and the URL's bypass and loopback checks are
//! `crate::net::bypass`'s.

use crate::net::bypass::Target;
pub use crate::net::system_proxy::SystemProxy;

/// The system's proxy for `url`, or `None` when the system sets none (go direct, silently).
///
/// Blocking: it reads the registry or runs `gsettings`/`scutil`, and on Windows a PAC file or
/// WPAD may take seconds to fetch and run. Call it off the UI thread (`spawn_blocking`), once per
/// host when a client is built, not once per request.
pub fn system_proxy(url: &str) -> Option<SystemProxy> {
    let target = Target::parse(url)?;
    super::os::system_proxy(url, &target)
}
