//! Which requests go straight rather than through a proxy: loopback always ([`is_loopback`], the
//! one check orgql has), and the hosts of a system's bypass list ([`Bypass`]: Windows'
//! `ProxyOverride` and WinHTTP's lists, GNOME's `ignore-hosts`, macOS's exceptions; `NO_PROXY` is
//! read by hyper-util's matcher, curl's rules). With them the one "host:port → URL" helper
//! ([`with_scheme`]). Plain functions of text, used by `super::proxy`, `super::system_proxy` and
//! `crate::platform`'s reads alike; this file uses nothing else of orgql.

use std::net::IpAddr;

/// Whether `url`'s host is this machine: `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    url.host_str().is_some_and(|host| is_loopback_host(host.trim_start_matches('[').trim_end_matches(']')))
}

/// Whether `host` (a name, or an address without brackets) is this machine: `localhost` and the
/// names under it, 127.0.0.0/8 or `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let name = host.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// A proxy address as a URL: `host:port` gets `default_scheme://` (`http`: what a setting, an
/// environment variable, Windows and GNOME mean), one that names its scheme is kept.
pub fn with_scheme(address: &str, default_scheme: &str) -> String {
    let address = address.trim();
    if address.contains("://") { address.to_owned() } else { format!("{default_scheme}://{address}") }
}

/// The parts of a URL a proxy decision looks at.
#[derive(Debug, Clone)]
pub struct Target {
    /// `http` or `https` (lower case).
    pub scheme: String,
    /// The host, lower case, without the brackets of an IPv6 address.
    pub host: String,
    /// The port, explicit or the scheme's default.
    pub port: Option<u16>,
}

impl Target {
    /// The parts of `url`, or `None` when it is not a URL with a host.
    pub fn parse(url: &str) -> Option<Self> {
        let parsed = reqwest::Url::parse(url).ok()?;
        let host = parsed.host_str()?.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        Some(Self { scheme: parsed.scheme().to_ascii_lowercase(), host, port: parsed.port_or_known_default() })
    }

    /// `localhost`, `127.0.0.0/8` and `::1`: never sent to a proxy, whatever the system says.
    fn is_loopback(&self) -> bool {
        is_loopback_host(&self.host)
    }

    /// The host as an address, when it is one.
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }
}

/// How a bypass list's host names match: Windows' `ProxyOverride` and macOS's exceptions match a
/// name exactly unless the entry has a wildcard (`*.corp.example`); GNOME's `ignore-hosts`
/// matches the name and every name under it (`corp.example` covers `api.corp.example`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// Exactly, unless the entry has a wildcard (Windows, macOS).
    Exact,
    /// The name and every name under it (GNOME).
    WithSubdomains,
}

/// A bypass list: the hosts the system sends direct.
#[derive(Debug, Clone, Default)]
pub struct Bypass {
    entries: Vec<BypassEntry>,
}

#[derive(Debug, Clone)]
enum BypassEntry {
    /// `<local>`: a name without a dot (an intranet host).
    Local,
    /// `10.0.0.0/8`, `fe80::/10`, and macOS's `169.254/16`.
    Network { base: IpAddr, prefix: u8 },
    /// A name or address, with `*` wildcards, and the port it is limited to, if any.
    Pattern { pattern: String, port: Option<u16>, names: NameMatch },
}

impl Bypass {
    /// The entries of a list separated by `;`, `,` or white space (Windows writes `;`).
    pub fn parse(list: &str, names: NameMatch) -> Self {
        Self::from_entries(list.split([';', ',', ' ', '\t', '\n']), names)
    }

    /// The list of `entries`, one host, address, network or marker (`<local>`) each.
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = &'a str>, names: NameMatch) -> Self {
        let entries =
            entries.into_iter().map(str::trim).filter(|e| !e.is_empty()).filter_map(|e| parse_entry(e, names));
        Self { entries: entries.collect() }
    }

    /// Whether `target` goes direct. Loopback always does.
    pub fn matches(&self, target: &Target) -> bool {
        target.is_loopback() || self.entries.iter().any(|entry| entry_matches(entry, target))
    }
}

fn parse_entry(entry: &str, names: NameMatch) -> Option<BypassEntry> {
    let entry = entry.to_ascii_lowercase();
    if entry == "<local>" {
        return Some(BypassEntry::Local);
    }
    if entry.starts_with('<') {
        // `<-loopback>` and other markers orgql does not act on: loopback is always direct.
        return None;
    }
    let entry = entry.strip_prefix("http://").or_else(|| entry.strip_prefix("https://")).unwrap_or(&entry).to_owned();
    if let Some((base, prefix)) = entry.split_once('/') {
        let prefix: u8 = prefix.parse().ok()?;
        return network_base(base).map(|base| BypassEntry::Network { base, prefix });
    }
    // `host:port` (not an IPv6 address, which has several colons, or one in brackets).
    let (pattern, port) = match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') || host.ends_with(']') => match port.parse() {
            Ok(port) => (host.trim_start_matches('[').trim_end_matches(']').to_owned(), Some(port)),
            Err(_) => (entry.clone(), None),
        },
        _ => (entry.trim_start_matches('[').trim_end_matches(']').to_owned(), None),
    };
    Some(BypassEntry::Pattern { pattern, port, names })
}

/// An address, where macOS and old Windows lists may leave out trailing zero parts (`169.254`).
fn network_base(text: &str) -> Option<IpAddr> {
    if let Ok(ip) = text.parse() {
        return Some(ip);
    }
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() < 4 && parts.iter().all(|p| p.parse::<u8>().is_ok()) {
        let mut full = parts.clone();
        full.resize(4, "0");
        return full.join(".").parse().ok();
    }
    None
}

fn entry_matches(entry: &BypassEntry, target: &Target) -> bool {
    match entry {
        BypassEntry::Local => !target.host.contains('.') && target.ip().is_none(),
        BypassEntry::Network { base, prefix } => target.ip().is_some_and(|ip| in_network(ip, *base, *prefix)),
        BypassEntry::Pattern { pattern, port, names } => {
            if port.is_some_and(|port| Some(port) != target.port) {
                return false;
            }
            let host = target.host.as_str();
            match names {
                NameMatch::Exact => glob(pattern, host),
                NameMatch::WithSubdomains => {
                    let bare = pattern.trim_start_matches("*.").trim_start_matches('.');
                    glob(pattern, host) || host == bare || host.ends_with(&format!(".{bare}"))
                }
            }
        }
    }
}

fn in_network(ip: IpAddr, base: IpAddr, prefix: u8) -> bool {
    match (ip, base) {
        (IpAddr::V4(ip), IpAddr::V4(base)) if prefix <= 32 => {
            let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix)) };
            u32::from(ip) & mask == u32::from(base) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(base)) if prefix <= 128 => {
            let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - u32::from(prefix)) };
            u128::from(ip) & mask == u128::from(base) & mask
        }
        _ => false,
    }
}

/// `*` matches any run of characters (none included); everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else { return pattern == text };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Target {
        Target::parse(url).unwrap()
    }

    #[test]
    fn loopback_is_this_machine() {
        for url in [
            "http://localhost:8080/",
            "http://127.0.0.1/",
            "http://127.1.2.3/",
            "http://[::1]:9/",
            "http://a.localhost/",
        ] {
            assert!(is_loopback(&url.parse().unwrap()), "{url}");
        }
        for url in ["https://orgql.test/", "http://10.0.0.8/", "http://[::2]/"] {
            assert!(!is_loopback(&url.parse().unwrap()), "{url}");
        }
    }

    #[test]
    fn windows_bypass_list_with_local_wildcards_and_ports() {
        let list = Bypass::parse("<local>;*.corp.example;10.*;intranet.example:8443;192.168.0.0/16", NameMatch::Exact);
        assert!(list.matches(&target("https://wiki/")), "<local>: a name without a dot");
        assert!(!list.matches(&target("https://api.example.com/")));
        assert!(list.matches(&target("https://api.corp.example/graphql")));
        assert!(!list.matches(&target("https://corp.example/")), "*.corp.example does not cover corp.example itself");
        assert!(list.matches(&target("http://10.1.2.3:8000/")));
        assert!(list.matches(&target("https://intranet.example:8443/")));
        assert!(!list.matches(&target("https://intranet.example/")), "the entry names port 8443 only");
        assert!(list.matches(&target("https://192.168.4.5/")));
        assert!(!list.matches(&target("https://192.169.4.5/")));
        // Loopback is never proxied, whatever the list says.
        let empty = Bypass::parse("", NameMatch::Exact);
        for url in ["http://127.0.0.1:8080/", "http://localhost:1/", "http://[::1]:9/"] {
            assert!(empty.matches(&target(url)), "{url}");
        }
        // An IP address is not a "local" name.
        assert!(!Bypass::parse("<local>", NameMatch::Exact).matches(&target("http://10.0.0.1/")));
    }

    #[test]
    fn globs() {
        assert!(glob("*.corp", "a.b.corp"));
        assert!(glob("10.*", "10.0.0.1"));
        assert!(glob("*corp*", "mycorpnet"));
        assert!(!glob("*.corp", "corp"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
    }
}
