//! Which proxy a request takes, in this order: loopback never through one; the connection's own
//! setting (the command line, the profile, the person's and then the machine's settings file);
//! then `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY`, in either case (curl's rules, as
//! hyper-util's matcher reads them); then the system's settings (`crate::platform::system_proxy`:
//! Windows Internet Options, PAC/WPAD through WinHTTP, GNOME's settings).

use super::bypass::{is_loopback, with_scheme};
use super::settings::{Network, ProxySetting};
use crate::secret::Secret;

/// The proxy a client uses, and where that came from.
#[derive(Debug, Clone)]
pub struct ProxyChoice {
    /// The proxy, or `None` for direct.
    pub proxy: Option<ProxyUse>,
    /// Where the choice came from: "HTTPS_PROXY", "Windows settings", "the profile 'acme'",
    /// "NO_PROXY", "loopback", …
    pub source: String,
    /// A sentence from the system when it names what orgql cannot read (a PAC file on Linux).
    pub note: Option<String>,
}

/// A proxy to go through.
#[derive(Clone)]
pub struct ProxyUse {
    /// Its URL without user or password.
    pub url: reqwest::Url,
    /// As shown to a person: `http://host:port`.
    pub shown: String,
    /// The user to sign in as (Basic), when the URL names one.
    pub user: Option<String>,
    /// A password the URL itself carried (an `HTTPS_PROXY` of `http://user:pw@…`); never shown.
    pub password: Option<Secret>,
}

impl std::fmt::Debug for ProxyUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyUse").field("shown", &self.shown).field("user", &self.user).finish_non_exhaustive()
    }
}

/// A proxy URL as it may be shown: without a password.
pub(crate) fn without_password(text: &str) -> String {
    match reqwest::Url::parse(text) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(None);
            url.to_string()
        }
        _ => text.to_owned(),
    }
}

fn proxy_use(text: &str) -> Option<ProxyUse> {
    let mut url = reqwest::Url::parse(&with_scheme(text, "http")).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    let decode = |s: &str| percent_decode(s);
    let user = (!url.username().is_empty()).then(|| decode(url.username()));
    let password = url.password().map(|p| Secret::new(decode(p)));
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let shown = format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default())
        + &url.port().map(|p| format!(":{p}")).unwrap_or_default();
    Some(ProxyUse { url, shown, user, password })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = bytes.get(i + 1..i + 3)
            && let Some(byte) = std::str::from_utf8(hex).ok().and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The proxy for requests to `url` under `network`.
pub(crate) fn choose(network: &Network, url: &reqwest::Url) -> ProxyChoice {
    let direct = |source: String| ProxyChoice { proxy: None, source, note: None };
    if is_loopback(url) {
        return direct("loopback: never through a proxy".to_owned());
    }
    match network.proxy() {
        Some((origin, ProxySetting::None)) => return direct(format!("no proxy, as {origin} says")),
        Some((origin, ProxySetting::Url(text))) => {
            if let Some(proxy) = proxy_use(text) {
                return ProxyChoice { proxy: Some(proxy), source: origin.to_string(), note: None };
            }
        }
        Some((_, ProxySetting::System)) | None => {}
    }
    if let Some(choice) = from_env(url) {
        return choice;
    }
    match crate::platform::system_proxy(url.as_str()) {
        Some(system) => match (system.proxy.as_deref(), system.proxy.as_deref().and_then(proxy_use)) {
            (_, Some(proxy)) => ProxyChoice { proxy: Some(proxy), source: system.source, note: system.note },
            (None, None) => ProxyChoice { proxy: None, source: format!("{}: direct", system.source), note: system.note },
            (Some(unusable), None) => ProxyChoice {
                proxy: None,
                note: Some(system.note.unwrap_or_else(|| {
                    format!(
                        "{} name the proxy {}, which orgql cannot use (only HTTP proxies); set HTTPS_PROXY to an HTTP proxy, or --proxy",
                        system.source,
                        without_password(unusable)
                    )
                })),
                source: format!("{}: direct", system.source),
            },
        },
        None => direct("no proxy set in the environment or the system".to_owned()),
    }
}

/// The first of the variables set, with its name.
fn env_first(names: &[&'static str]) -> Option<(&'static str, String)> {
    names.iter().find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()).map(|v| (*name, v)))
}

/// The environment's choice for `url`, when the environment names a proxy.
fn from_env(url: &reqwest::Url) -> Option<ProxyChoice> {
    let https = env_first(&["HTTPS_PROXY", "https_proxy"]);
    // `HTTP_PROXY` (upper case) is not read for http:// URLs where a CGI program runs (httpoxy);
    // hyper-util's matcher applies that rule itself.
    let http = env_first(&["HTTP_PROXY", "http_proxy"]);
    let all = env_first(&["ALL_PROXY", "all_proxy"]);
    let no = env_first(&["NO_PROXY", "no_proxy"]);
    let (name, value) = match url.scheme() {
        "https" => https.clone().or(all.clone())?,
        _ => http.clone().or(all.clone())?,
    };
    let uri: hyper::Uri = url.as_str().parse().ok()?;
    let mut builder = hyper_util::client::proxy::matcher::Matcher::builder();
    if let Some((_, v)) = &https {
        builder = builder.https(v.clone());
    }
    if let Some((_, v)) = &http {
        builder = builder.http(v.clone());
    }
    if let Some((_, v)) = &all {
        builder = builder.all(v.clone());
    }
    if let Some((no_name, v)) = &no {
        let matcher = builder.no(v.clone()).build();
        if matcher.intercept(&uri).is_none() {
            return Some(ProxyChoice { proxy: None, source: format!("{no_name} names this host"), note: None });
        }
    }
    let proxy = proxy_use(value.trim())?;
    Some(ProxyChoice { proxy: Some(proxy), source: name.to_owned(), note: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_url_loses_its_credentials_where_shown() {
        let proxy = proxy_use("http://me%40corp:p%3Aw@proxy.corp:3128").unwrap();
        assert_eq!(proxy.shown, "http://proxy.corp:3128");
        assert_eq!(proxy.user.as_deref(), Some("me@corp"));
        assert_eq!(proxy.password.unwrap().expose(), "p:w");
        assert_eq!(proxy.url.as_str(), "http://proxy.corp:3128/");
        assert_eq!(without_password("http://me:pw@proxy:1/"), "http://me@proxy:1/");
        assert_eq!(proxy_use("10.0.0.8:3128").unwrap().shown, "http://10.0.0.8:3128");
    }
}
