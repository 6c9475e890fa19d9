//! The proxy settings of the systems orgql runs on, read from their text: Windows' manual
//! setting (`ProxyServer` in every form, `ProxyOverride`) and what WinHTTP's auto-proxy answers
//! for a PAC file or WPAD, GNOME's settings as `gsettings get` prints them, macOS's system
//! configuration as `scutil --proxy` prints it. Plain functions of text, the same on every
//! system, so that Linux tests check the Windows and macOS forms too; reading the system (the
//! registry, WinHTTP, `gsettings`, `scutil`) is `crate::platform::system_proxy`'s, which calls
//! these. What orgql does with the answer is `super::proxy`'s.

use super::bypass::{Bypass, NameMatch, Target, with_scheme};

/// What the system says about the proxy for one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemProxy {
    /// The proxy's URL (`http://10.0.0.8:3128`, `socks5://…`), or `None`: go direct (the URL's
    /// host is on the system's bypass list, or its PAC file answered `DIRECT`).
    pub proxy: Option<String>,
    /// Where the answer came from, as the person is told: "Windows settings", "PAC
    /// http://wpad.corp/proxy.pac", "WPAD", "GNOME settings", "macOS settings".
    pub source: String,
    /// One sentence when the system names something orgql could not use (a PAC file on Linux, a
    /// PAC file that could not be read): what happened and what to set instead.
    pub note: Option<String>,
}

/// The proxy `ProxyServer` (Windows' manual setting) names for `scheme`: the one address of the
/// `host:port` form for every scheme, or in the `http=…;https=…;socks=…` form the scheme's own
/// entry, then `socks=` (SOCKS 4, as WinINet uses it), else none — Windows then goes direct.
pub fn windows_proxy_server_for(server: &str, scheme: &str) -> Option<String> {
    let entries: Vec<&str> = server.split([';', ' ', '\t', '\n']).map(str::trim).filter(|e| !e.is_empty()).collect();
    if !entries.iter().any(|entry| entry.contains('=')) {
        return entries.first().map(|address| with_scheme(address, "http"));
    }
    let named = |name: &str| {
        entries.iter().find_map(|entry| {
            let (key, value) = entry.split_once('=')?;
            (key.trim().eq_ignore_ascii_case(name) && !value.trim().is_empty()).then(|| value.trim())
        })
    };
    if let Some(address) = named(scheme) {
        return Some(with_scheme(address, "http"));
    }
    named("socks").map(|address| with_scheme(address, "socks4"))
}

/// The sentence for a PAC file or WPAD where orgql cannot run one (Linux, macOS).
pub fn pac_not_read(system: &str, pac: Option<&str>) -> String {
    let what = match pac {
        Some(url) if !url.is_empty() => format!("a PAC file ({url})"),
        _ => "automatic proxy detection (WPAD)".to_owned(),
    };
    format!(
        "{system} name {what}, which orgql does not read on this system: set HTTPS_PROXY (and NO_PROXY) to the \
         proxy it gives, or choose the proxy in the connection's Network settings."
    )
}

/// GNOME's proxy for `target`, from `get(schema, key)` answering as `gsettings get` prints
/// (`'manual'`, `8080`, `['localhost', '127.0.0.0/8']`).
pub fn gnome_proxy(target: &Target, get: impl Fn(&str, &str) -> Option<String>) -> Option<SystemProxy> {
    const ROOT: &str = "org.gnome.system.proxy";
    let text = |schema: &str, key: &str| get(schema, key).map(|v| gvariant_string(&v)).unwrap_or_default();
    let source = "GNOME settings".to_owned();
    match text(ROOT, "mode").as_str() {
        "manual" => {}
        "auto" => {
            let pac = text(ROOT, "autoconfig-url");
            let note = pac_not_read("GNOME's proxy settings", Some(&pac));
            return Some(SystemProxy { proxy: None, source, note: Some(note) });
        }
        _ => return None,
    }
    let ignored = get(ROOT, "ignore-hosts").map(|v| gvariant_strings(&v)).unwrap_or_default();
    let bypass = Bypass::from_entries(ignored.iter().map(String::as_str), NameMatch::WithSubdomains);
    if bypass.matches(target) {
        return Some(SystemProxy { proxy: None, source: format!("{source} (ignored hosts)"), note: None });
    }
    let address = |kind: &str| {
        let schema = format!("{ROOT}.{kind}");
        let host = text(&schema, "host");
        let port: u16 = get(&schema, "port").and_then(|p| gvariant_number(&p)).unwrap_or(0);
        (!host.is_empty() && port != 0).then(|| format!("{host}:{port}"))
    };
    let same = get(ROOT, "use-same-proxy").is_some_and(|v| v.trim() == "true");
    let chosen = match target.scheme.as_str() {
        "https" => {
            address("https").or_else(|| same.then(|| address("http")).flatten()).map(|a| with_scheme(&a, "http"))
        }
        "http" => address("http").map(|a| with_scheme(&a, "http")),
        _ => None,
    };
    let chosen = chosen.or_else(|| address("socks").map(|a| with_scheme(&a, "socks5")));
    chosen.map(|proxy| SystemProxy { proxy: Some(proxy), source, note: None })
}

/// A GVariant string as `gsettings` prints it (`'manual'`), unquoted.
fn gvariant_string(value: &str) -> String {
    let value = value.trim();
    let inner = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(value);
    inner.replace("\\'", "'")
}

/// A GVariant number (`8080`, `uint32 8080`).
fn gvariant_number(value: &str) -> Option<u16> {
    value.split_whitespace().last()?.parse().ok()
}

/// A GVariant list of strings (`['localhost', '127.0.0.0/8']`, `@as []`).
fn gvariant_strings(value: &str) -> Vec<String> {
    let value = value.trim().trim_start_matches("@as").trim();
    let inner = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')).unwrap_or("");
    inner.split(',').map(gvariant_string).filter(|s| !s.is_empty()).collect()
}

/// The proxy macOS's system configuration sets for `target`, from `scutil --proxy`'s output.
pub fn macos_proxy(target: &Target, scutil: &str) -> Option<SystemProxy> {
    let mut values = std::collections::HashMap::new();
    let mut exceptions = Vec::new();
    let mut in_exceptions = false;
    for line in scutil.lines().map(str::trim) {
        if line.starts_with("ExceptionsList") {
            in_exceptions = true;
            continue;
        }
        if in_exceptions {
            if line.starts_with('}') {
                in_exceptions = false;
            } else if let Some((_, host)) = line.split_once(" : ") {
                exceptions.push(host.trim().to_owned());
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(" : ") {
            values.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    let on = |key: &str| values.get(key).is_some_and(|v| v == "1");
    let source = "macOS settings".to_owned();
    let bypass = Bypass::from_entries(exceptions.iter().map(String::as_str), NameMatch::Exact);
    let local = on("ExcludeSimpleHostnames") && !target.host.contains('.') && target.ip().is_none();
    if bypass.matches(target) || local {
        let any = ["HTTPEnable", "HTTPSEnable", "SOCKSEnable", "ProxyAutoConfigEnable"].iter().any(|k| on(k));
        return any.then(|| SystemProxy { proxy: None, source: format!("{source} (exceptions)"), note: None });
    }
    let address = |kind: &str| {
        let host = values.get(&format!("{kind}Proxy"))?;
        let port = values.get(&format!("{kind}Port"))?;
        on(&format!("{kind}Enable")).then(|| format!("{host}:{port}"))
    };
    let chosen = match target.scheme.as_str() {
        "https" => address("HTTPS").map(|a| with_scheme(&a, "http")),
        "http" => address("HTTP").map(|a| with_scheme(&a, "http")),
        _ => None,
    };
    if let Some(proxy) = chosen.or_else(|| address("SOCKS").map(|a| with_scheme(&a, "socks5"))) {
        return Some(SystemProxy { proxy: Some(proxy), source, note: None });
    }
    if on("ProxyAutoConfigEnable") || on("ProxyAutoDiscoveryEnable") {
        let pac = values.get("ProxyAutoConfigURLString").map(String::as_str);
        return Some(SystemProxy { proxy: None, source, note: Some(pac_not_read("macOS's proxy settings", pac)) });
    }
    None
}

/// Windows' manual settings (Internet Options → LAN settings → Proxy server), read from the registry.
#[derive(Debug, Clone, Default)]
pub struct WindowsManual {
    /// `ProxyEnable`.
    pub enabled: bool,
    /// `ProxyServer`.
    pub server: String,
    /// `ProxyOverride`.
    pub bypass: String,
}

/// The manual proxy of Windows' settings for `target`, or `None` when it is off or names nothing for
/// this scheme. `source` says where the settings were read.
pub fn windows_manual_proxy(target: &Target, manual: &WindowsManual, source: &str) -> Option<SystemProxy> {
    if !manual.enabled || manual.server.trim().is_empty() {
        return None;
    }
    let source = source.to_owned();
    if Bypass::parse(&manual.bypass, NameMatch::Exact).matches(target) {
        return Some(SystemProxy { proxy: None, source: format!("{source} (bypass list)"), note: None });
    }
    let proxy = windows_proxy_server_for(&manual.server, &target.scheme);
    Some(SystemProxy { proxy, source, note: None })
}

/// What WinHTTP's auto-proxy answered (`WINHTTP_PROXY_INFO`): its proxy list (`host:port`, several
/// separated by `;`, maybe per scheme) and bypass list; `None` for `DIRECT`.
pub fn winhttp_answer(target: &Target, proxy: Option<&str>, bypass: Option<&str>, source: String) -> SystemProxy {
    let bypassed = bypass.is_some_and(|list| Bypass::parse(list, NameMatch::Exact).matches(target));
    let proxy = proxy.filter(|_| !bypassed).and_then(|list| {
        if list.contains('=') {
            windows_proxy_server_for(list, &target.scheme)
        } else {
            list.split([';', ' ']).map(str::trim).find(|e| !e.is_empty()).map(|a| with_scheme(a, "http"))
        }
    });
    SystemProxy { proxy, source, note: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Target {
        Target::parse(url).unwrap()
    }

    #[test]
    fn windows_proxy_server_in_every_form() {
        assert_eq!(windows_proxy_server_for("10.0.0.8:3128", "https").as_deref(), Some("http://10.0.0.8:3128"));
        assert_eq!(windows_proxy_server_for("10.0.0.8:3128", "http").as_deref(), Some("http://10.0.0.8:3128"));
        let split = "http=web.corp:80;https=secure.corp:8443;ftp=ftp.corp:21";
        assert_eq!(windows_proxy_server_for(split, "https").as_deref(), Some("http://secure.corp:8443"));
        assert_eq!(windows_proxy_server_for(split, "http").as_deref(), Some("http://web.corp:80"));
        // Only http= named: https goes direct, as Windows does.
        assert_eq!(windows_proxy_server_for("http=web.corp:80", "https"), None);
        assert_eq!(
            windows_proxy_server_for("HTTP=web.corp:80;socks=s.corp:1080", "https").as_deref(),
            Some("socks4://s.corp:1080")
        );
        assert_eq!(
            windows_proxy_server_for("https=https://tls.corp:443", "https").as_deref(),
            Some("https://tls.corp:443")
        );
        assert_eq!(windows_proxy_server_for("  ", "https"), None);
    }

    #[test]
    fn windows_manual_settings() {
        let manual = WindowsManual {
            enabled: true,
            server: "http=web.corp:80;https=secure.corp:8443".into(),
            bypass: "<local>".into(),
        };
        let via = windows_manual_proxy(&target("https://api.example.com/"), &manual, "Windows settings").unwrap();
        assert_eq!(via.proxy.as_deref(), Some("http://secure.corp:8443"));
        assert_eq!(via.source, "Windows settings");
        let direct = windows_manual_proxy(&target("https://intranet/"), &manual, "Windows settings").unwrap();
        assert_eq!((direct.proxy, direct.source.as_str()), (None, "Windows settings (bypass list)"));
        let off = WindowsManual { enabled: false, ..manual };
        assert_eq!(windows_manual_proxy(&target("https://api.example.com/"), &off, "Windows settings"), None);
    }

    #[test]
    fn winhttp_answers() {
        let t = target("https://api.example.com/");
        let answer = winhttp_answer(&t, Some("p1.corp:8080; p2.corp:8080"), None, "PAC http://pac/p.pac".into());
        assert_eq!(answer.proxy.as_deref(), Some("http://p1.corp:8080"));
        assert_eq!(winhttp_answer(&t, None, None, "WPAD".into()).proxy, None);
        assert_eq!(winhttp_answer(&t, Some("p1:1"), Some("*.example.com"), "WPAD".into()).proxy, None);
    }

    #[test]
    fn gnome_settings() {
        let settings = |mode: &'static str| {
            move |schema: &str, key: &str| -> Option<String> {
                let value = match (schema, key) {
                    ("org.gnome.system.proxy", "mode") => mode,
                    ("org.gnome.system.proxy", "ignore-hosts") => "['localhost', '127.0.0.0/8', '::1', 'corp.example']",
                    ("org.gnome.system.proxy", "autoconfig-url") => "'http://wpad.corp/proxy.pac'",
                    ("org.gnome.system.proxy.https", "host") => "'proxy.corp'",
                    ("org.gnome.system.proxy.https", "port") => "3128",
                    ("org.gnome.system.proxy.http", "host") => "'web.corp'",
                    ("org.gnome.system.proxy.http", "port") => "uint32 80",
                    ("org.gnome.system.proxy.socks", "host") => "''",
                    ("org.gnome.system.proxy.socks", "port") => "0",
                    _ => return None,
                };
                Some(value.to_owned())
            }
        };
        let via = gnome_proxy(&target("https://api.example.com/"), settings("'manual'")).unwrap();
        assert_eq!(via.proxy.as_deref(), Some("http://proxy.corp:3128"));
        assert_eq!(via.source, "GNOME settings");
        let plain = gnome_proxy(&target("http://api.example.com/"), settings("'manual'")).unwrap();
        assert_eq!(plain.proxy.as_deref(), Some("http://web.corp:80"));
        let ignored = gnome_proxy(&target("https://api.corp.example/"), settings("'manual'")).unwrap();
        assert_eq!(ignored.proxy, None, "ignore-hosts covers the name and its subdomains");
        assert_eq!(gnome_proxy(&target("https://api.example.com/"), settings("'none'")), None);
        let auto = gnome_proxy(&target("https://api.example.com/"), settings("'auto'")).unwrap();
        assert_eq!(auto.proxy, None);
        let note = auto.note.unwrap();
        assert!(note.contains("http://wpad.corp/proxy.pac") && note.contains("HTTPS_PROXY"), "{note}");
        assert_eq!(gnome_proxy(&target("https://api.example.com/"), |_: &str, _: &str| None), None);
    }

    #[test]
    fn macos_settings() {
        let scutil = "<dictionary> {\n  ExceptionsList : <array> {\n    0 : *.local\n    1 : 169.254/16\n  }\n  \
                      ExcludeSimpleHostnames : 1\n  HTTPEnable : 1\n  HTTPPort : 3128\n  HTTPProxy : proxy.corp\n  \
                      HTTPSEnable : 1\n  HTTPSPort : 3129\n  HTTPSProxy : proxy.corp\n}\n";
        let via = macos_proxy(&target("https://api.example.com/"), scutil).unwrap();
        assert_eq!(via.proxy.as_deref(), Some("http://proxy.corp:3129"));
        assert_eq!(macos_proxy(&target("http://printer.local/"), scutil).unwrap().proxy, None);
        assert_eq!(macos_proxy(&target("http://169.254.1.1/"), scutil).unwrap().proxy, None);
        assert_eq!(macos_proxy(&target("http://intranet/"), scutil).unwrap().proxy, None);
        let pac =
            "<dictionary> {\n  ProxyAutoConfigEnable : 1\n  ProxyAutoConfigURLString : http://pac.corp/p.pac\n}\n";
        let note = macos_proxy(&target("https://api.example.com/"), pac).unwrap().note.unwrap();
        assert!(note.contains("http://pac.corp/p.pac"), "{note}");
        assert_eq!(macos_proxy(&target("https://api.example.com/"), "<dictionary> {\n}\n"), None);
    }
}
