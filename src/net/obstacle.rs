//! What stands in the way of a request, in one sentence that says what to ask IT for or what to
//! do: a certificate this computer does not trust (its issuer named), a proxy that asks for a
//! sign-in (its address and scheme), a proxy that cannot be reached, a service that asks for a
//! client certificate, a name that does not resolve, a connection refused or reset.

use std::time::Duration;

use super::Route;
use super::trust::{Untrusted, UntrustedKind};

/// One obstacle; its `Display` is the sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Obstacle {
    /// No store trusts the service's certificate.
    Untrusted {
        /// The service's host.
        host: String,
        /// What the verifier found.
        certificate: UntrustedCertificate,
        /// Whether requests go through a proxy (which may be the one re-signing).
        proxied: bool,
    },
    /// The proxy asks for a sign-in orgql did not give, or refused the one it gave.
    ProxySignIn {
        /// The proxy (no password).
        proxy: String,
        /// Where the proxy setting came from.
        source: String,
        /// The schemes it asks for (`Basic`, `NTLM`, `Negotiate`, …).
        schemes: Vec<String>,
        /// The user orgql signed in as, when it tried with a password.
        user: Option<String>,
        /// Whether orgql tried the Windows account of the person (NTLM, Negotiate on Windows).
        windows_account: bool,
    },
    /// The proxy could not be reached.
    ProxyUnreachable {
        /// The proxy.
        proxy: String,
        /// Where the proxy setting came from.
        source: String,
        /// Why, in a few words.
        reason: String,
    },
    /// The proxy would not open a tunnel to the service.
    ProxyRefused {
        /// The proxy.
        proxy: String,
        /// The service's host and port.
        target: String,
        /// The proxy's answer, when known.
        status: Option<u16>,
    },
    /// The service asks for a client certificate and none was given.
    ClientCertificateRequired {
        /// The service's host.
        host: String,
    },
    /// The service refused the client certificate given.
    ClientCertificateRefused {
        /// The service's host.
        host: String,
        /// The certificate given.
        certificate: String,
    },
    /// The service's name does not resolve.
    NameNotResolved {
        /// The name.
        host: String,
    },
    /// Nothing listens at the service's address.
    Refused {
        /// Host and port.
        target: String,
    },
    /// The connection was cut.
    Reset {
        /// Host and port.
        target: String,
    },
}

/// A certificate nobody trusts, as the sentence needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedCertificate {
    /// Why.
    pub kind: UntrustedKind,
    /// Its subject.
    pub subject: String,
    /// Its issuer.
    pub issuer: String,
    /// Its SHA-256 fingerprint, hex.
    pub sha256: String,
}

impl From<&Untrusted> for UntrustedCertificate {
    fn from(u: &Untrusted) -> Self {
        UntrustedCertificate {
            kind: u.kind.clone(),
            subject: u.subject.clone(),
            issuer: u.issuer.clone(),
            sha256: u.sha256.clone(),
        }
    }
}

impl std::fmt::Display for Obstacle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Obstacle::Untrusted { host, certificate: c, proxied } => match &c.kind {
                UntrustedKind::UnknownIssuer if c.subject == c.issuer && !proxied => write!(
                    f,
                    "the certificate of {host} is self-signed ({}), and this computer does not trust it; if it is your development server, pin it in the profile (SHA-256 {}) or add it with --ca-file",
                    c.subject, c.sha256
                ),
                UntrustedKind::UnknownIssuer => write!(
                    f,
                    "the certificate of {host} is issued by {}, which this computer does not trust — your network may inspect HTTPS: ask IT for that root, or add it with --ca-file",
                    c.issuer
                ),
                UntrustedKind::Expired => write!(
                    f,
                    "the certificate of {host} ({}, issued by {}) has expired or is not valid yet; check this computer's date and time, or tell the service's administrator",
                    c.subject, c.issuer
                ),
                UntrustedKind::WrongName => write!(
                    f,
                    "the certificate {host} presented is for {}, not for {host}; check the base URL's host name (issued by {})",
                    c.subject, c.issuer
                ),
                UntrustedKind::Revoked => write!(
                    f,
                    "the certificate of {host} ({}) was revoked by its issuer {}; tell the service's administrator",
                    c.subject, c.issuer
                ),
                UntrustedKind::Distrusted => write!(
                    f,
                    "the certificate of {host} ({}, issued by {}) is one this computer explicitly distrusts (Windows' Disallowed certificates); tell the service's administrator, or IT if this is your network's inspection",
                    c.subject, c.issuer
                ),
                UntrustedKind::Other(why) => write!(
                    f,
                    "the certificate of {host} ({}, issued by {}) is refused ({why}); tell the service's administrator",
                    c.subject, c.issuer
                ),
            },
            Obstacle::ProxySignIn { proxy, source, schemes, user, windows_account } => {
                let asked = if schemes.is_empty() {
                    "a sign-in".to_owned()
                } else {
                    format!("{} sign-in", schemes.join(" or "))
                };
                let answerable = schemes.is_empty() || schemes.iter().any(|s| super::sign_in::answered_here(s));
                let ntlm = schemes.iter().any(|s| s.eq_ignore_ascii_case("ntlm"));
                let handshake = ntlm || schemes.iter().any(|s| s.eq_ignore_ascii_case("negotiate"));
                match user {
                    _ if !answerable => write!(
                        f,
                        "the proxy {proxy} (from {source}) asks for {asked}, which orgql cannot answer on this computer ({}); ask IT for {} sign-in for orgql or to let it through",
                        if crate::platform::SYSTEM_SIGN_IN {
                            "it answers Negotiate, NTLM and Basic"
                        } else {
                            "it answers NTLM and Basic here, Negotiate only on Windows"
                        },
                        if crate::platform::SYSTEM_SIGN_IN { "NTLM" } else { "NTLM or Basic" }
                    ),
                    Some(user) => write!(
                        f,
                        "the proxy {proxy} (from {source}) refused the sign-in of {user} (it asks for {asked}); check the user{} and the password in {} or the profile's keyring entry",
                        if ntlm { " (DOMAIN\\USER or USER@DOMAIN for NTLM)" } else { "" },
                        super::PROXY_PASSWORD_ENV
                    ),
                    None if *windows_account && handshake => write!(
                        f,
                        "the proxy {proxy} (from {source}) refused the sign-in of this Windows account (it asks for {asked}); ask IT whether your account may use the proxy, or give another user in the proxy URL (--proxy http://DOMAIN%5CUSER@host:port) and the password in {}",
                        super::PROXY_PASSWORD_ENV
                    ),
                    None => write!(
                        f,
                        "the proxy {proxy} (from {source}) asks for {asked}; give the user in the proxy URL (--proxy http://USER@host:port) and the password in {} or the profile's keyring entry",
                        super::PROXY_PASSWORD_ENV
                    ),
                }
            }
            Obstacle::ProxyUnreachable { proxy, source, reason } => write!(
                f,
                "the proxy {proxy} (from {source}) cannot be reached ({reason}); check the proxy setting, or give --proxy none if this network needs none"
            ),
            Obstacle::ProxyRefused { proxy, target, status } => write!(
                f,
                "the proxy {proxy} refused to connect to {target}{}; ask IT to allow that address through the proxy",
                status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
            ),
            Obstacle::ClientCertificateRequired { host } => write!(
                f,
                "{host} asks for a client certificate; give one with --client-cert FILE (PEM with its key, or .p12/.pfx)"
            ),
            Obstacle::ClientCertificateRefused { host, certificate } => write!(
                f,
                "{host} refused the client certificate {certificate}; check that it is the one this service expects and still valid"
            ),
            Obstacle::NameNotResolved { host } => write!(
                f,
                "the name {host} does not resolve; check the base URL's host name, or whether this network needs a proxy (--proxy http://host:port)"
            ),
            Obstacle::Refused { target } => write!(
                f,
                "the connection to {target} was refused: nothing listens there; check the base URL's port, or whether the service runs"
            ),
            Obstacle::Reset { target } => write!(
                f,
                "the connection to {target} was cut before an answer; a firewall or proxy may be stopping it: try again, or ask IT"
            ),
        }
    }
}

impl Obstacle {
    /// Whether waiting and trying again may help (a connection refused or cut).
    pub fn is_transient(&self) -> bool {
        matches!(self, Obstacle::Refused { .. } | Obstacle::Reset { .. })
    }

    /// The SHA-256 of a certificate that may be pinned (a self-signed one), for the app's question.
    pub fn pinnable(&self) -> Option<&str> {
        match self {
            Obstacle::Untrusted { certificate, proxied: false, .. }
                if certificate.kind == UntrustedKind::UnknownIssuer =>
            {
                Some(&certificate.sha256)
            }
            _ => None,
        }
    }
}

/// What the errors of a failed request say, read along the whole chain (an `io::Error` hides the
/// error it wraps from `source()`: its inner error is looked at too).
struct Chain {
    untrusted: Option<Untrusted>,
    alert: Option<rustls::AlertDescription>,
    io: Option<std::io::ErrorKind>,
    text: String,
}

fn read_chain(err: &(dyn std::error::Error + 'static)) -> Chain {
    let mut chain = Chain { untrusted: None, alert: None, io: None, text: String::new() };
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    let mut steps = 0;
    while let Some(e) = current {
        steps += 1;
        if steps > 32 {
            break;
        }
        chain.text.push_str(&e.to_string().to_ascii_lowercase());
        chain.text.push_str(": ");
        let mut look = |e: &(dyn std::error::Error + 'static)| {
            if let Some(tls) = e.downcast_ref::<rustls::Error>() {
                match tls {
                    rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
                        if let Some(u) = other.0.downcast_ref::<Untrusted>() {
                            chain.untrusted = Some(u.clone());
                        }
                    }
                    rustls::Error::AlertReceived(alert) => chain.alert = Some(*alert),
                    _ => {}
                }
            }
        };
        look(e);
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() != std::io::ErrorKind::Other {
                chain.io.get_or_insert(io.kind());
            }
            // Its own `source()` skips the error it wraps (which may be an `io::Error` again).
            if let Some(inner) = io.get_ref() {
                current = Some(inner);
                continue;
            }
        }
        current = e.source();
    }
    chain
}

/// The obstacle a failed request met, if it is one.
pub(crate) async fn classify(err: &reqwest::Error, route: &Route) -> Option<Obstacle> {
    let chain = read_chain(err);
    let host = route.target.rsplit_once(':').map(|(h, _)| h.to_owned()).unwrap_or_else(|| route.target.clone());
    let proxy = route.proxy.proxy.as_ref();
    if let Some(untrusted) = &chain.untrusted {
        return Some(Obstacle::Untrusted { host, certificate: untrusted.into(), proxied: proxy.is_some() });
    }
    if let Some(alert) = chain.alert {
        use rustls::AlertDescription as A;
        let about_certificate = matches!(
            alert,
            A::CertificateRequired
                | A::HandshakeFailure
                | A::BadCertificate
                | A::UnknownCA
                | A::AccessDenied
                | A::CertificateUnknown
                | A::CertificateExpired
                | A::CertificateRevoked
        );
        if about_certificate && route.client_cert_asked() {
            return Some(match &route.client_cert {
                None => Obstacle::ClientCertificateRequired { host },
                Some(certificate) => Obstacle::ClientCertificateRefused { host, certificate: certificate.clone() },
            });
        }
    }
    if let Some(proxy) = proxy {
        let shown = proxy.shown.clone();
        let source = route.proxy.source.clone();
        let user = proxy.user.clone().filter(|_| route.proxy_signs_in);
        let windows_account = route.proxy_windows_account;
        if chain.text.contains("proxy authorization required") || chain.text.contains("proxy authentication required") {
            let schemes = probe(&proxy.url, &route.target).await.map(|p| p.schemes).unwrap_or_default();
            return Some(Obstacle::ProxySignIn { proxy: shown, source, schemes, user, windows_account });
        }
        if chain.text.contains("tunnel") && chain.text.contains("unsuccessful") {
            // The proxy's own answer (the sign-in relay hands its refusals on; a 502 of the
            // relay is a proxy it could not reach).
            return Some(match probe(&proxy.url, &route.target).await {
                Ok(Probe { status: 407, schemes }) => {
                    Obstacle::ProxySignIn { proxy: shown, source, schemes, user, windows_account }
                }
                Ok(Probe { status, .. }) => {
                    Obstacle::ProxyRefused { proxy: shown, target: route.target.clone(), status: Some(status) }
                }
                Err(ProbeError::Unreachable(reason)) => {
                    Obstacle::ProxyUnreachable { proxy: shown, source, reason: reason.to_owned() }
                }
                Err(ProbeError::NoAnswer) => {
                    Obstacle::ProxyRefused { proxy: shown, target: route.target.clone(), status: None }
                }
            });
        }
        // Through a proxy, the name orgql resolves and the address it connects to are the
        // proxy's (the proxy resolves the service's name).
        let reason = if chain.text.contains("dns error") || chain.text.contains("failed to lookup address") {
            Some("its name does not resolve")
        } else {
            match chain.io {
                Some(std::io::ErrorKind::ConnectionRefused) => Some("connection refused"),
                Some(std::io::ErrorKind::TimedOut) => Some("no answer"),
                _ if chain.text.contains("failed to create underlying connection") => Some("the connection failed"),
                _ => None,
            }
        };
        if let Some(reason) = reason
            && err.is_connect()
        {
            return Some(Obstacle::ProxyUnreachable { proxy: shown, source, reason: reason.to_owned() });
        }
    }
    if chain.text.contains("dns error") || chain.text.contains("failed to lookup address") {
        return Some(Obstacle::NameNotResolved { host });
    }
    match chain.io {
        Some(std::io::ErrorKind::ConnectionRefused) => Some(Obstacle::Refused { target: route.target.clone() }),
        Some(
            std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe,
        ) => Some(Obstacle::Reset { target: route.target.clone() }),
        _ if route.client_cert_asked() && route.client_cert.is_none() && route.tls => {
            Some(Obstacle::ClientCertificateRequired { host })
        }
        _ => None,
    }
}

/// A proxy's 407 to a plain-HTTP request.
pub(crate) fn of_answer(status: u16, headers: &reqwest::header::HeaderMap, route: &Route) -> Option<Obstacle> {
    if status != 407 {
        return None;
    }
    let schemes = headers
        .get_all(reqwest::header::PROXY_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split_whitespace().next().map(|s| s.trim_end_matches(',').to_owned()))
        .collect();
    let (proxy, user) = match &route.proxy.proxy {
        Some(p) => (p.shown.clone(), p.user.clone().filter(|_| route.proxy_signs_in)),
        None => ("in front of the service".to_owned(), None),
    };
    // Plain-HTTP requests go straight to the proxy (Basic only), never with the Windows account.
    Some(Obstacle::ProxySignIn { proxy, source: route.proxy.source.clone(), schemes, user, windows_account: false })
}

/// What a proxy answers a `CONNECT` without sign-in.
pub(crate) struct Probe {
    /// The status.
    pub status: u16,
    /// The schemes of its `Proxy-Authenticate` headers.
    pub schemes: Vec<String>,
}

/// Why a probe got no answer.
pub(crate) enum ProbeError {
    /// The proxy could not be reached (why, in a few words).
    Unreachable(&'static str),
    /// It was reached but gave no readable answer.
    NoAnswer,
}

/// Asks the proxy at `proxy` for a tunnel to `target` without signing in and reads its answer's
/// head (bounded: 10 seconds, 16 KiB).
pub(crate) async fn probe(proxy: &reqwest::Url, target: &str) -> Result<Probe, ProbeError> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let (Some(host), Some(port)) = (proxy.host_str(), proxy.port_or_known_default()) else {
        return Err(ProbeError::NoAnswer);
    };
    let connect = tokio::time::timeout(Duration::from_secs(10), tokio::net::TcpStream::connect((host, port))).await;
    let mut stream = match connect {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => {
            return Err(ProbeError::Unreachable(match e.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused",
                _ if e.to_string().to_ascii_lowercase().contains("lookup") => "its name does not resolve",
                _ => "the connection failed",
            }));
        }
        Err(_) => return Err(ProbeError::Unreachable("no answer")),
    };
    let talk = async {
        stream.write_all(format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").as_bytes()).await.ok()?;
        let mut head = Vec::new();
        let mut buf = [0u8; 2048];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Some(head)
    };
    let head = tokio::time::timeout(Duration::from_secs(10), talk).await.ok().flatten().ok_or(ProbeError::NoAnswer)?;
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    response.parse(&head).map_err(|_| ProbeError::NoAnswer)?;
    let status = response.code.ok_or(ProbeError::NoAnswer)?;
    let schemes = response
        .headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("proxy-authenticate"))
        .filter_map(|h| std::str::from_utf8(h.value).ok())
        .filter_map(|v| v.split_whitespace().next().map(|s| s.trim_end_matches(',').to_owned()))
        .collect();
    Ok(Probe { status, schemes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign_in(schemes: &[&str], user: Option<&str>, windows_account: bool) -> String {
        Obstacle::ProxySignIn {
            proxy: "http://10.0.0.8:3128".to_owned(),
            source: "HTTPS_PROXY".to_owned(),
            schemes: schemes.iter().map(|s| (*s).to_owned()).collect(),
            user: user.map(str::to_owned),
            windows_account,
        }
        .to_string()
    }

    #[test]
    fn a_proxy_sign_in_is_named_with_what_to_do() {
        let text = sign_in(&["Negotiate", "NTLM"], None, false);
        assert!(text.starts_with("the proxy http://10.0.0.8:3128 (from HTTPS_PROXY) asks for Negotiate or NTLM sign-in; give the user in the proxy URL"), "{text}");
        let text = sign_in(&["NTLM"], Some("CORP\\alice"), false);
        assert!(text.contains("refused the sign-in of CORP\\alice (it asks for NTLM sign-in); check the user (DOMAIN\\USER or USER@DOMAIN for NTLM) and the password in ORGQL_PROXY_PASSWORD"), "{text}");
        let text = sign_in(&["Negotiate", "NTLM"], None, true);
        assert!(
            text.contains("refused the sign-in of this Windows account (it asks for Negotiate or NTLM sign-in)"),
            "{text}"
        );
        // Basic alone was not tried with the Windows account: the user and the password are asked for.
        let text = sign_in(&["Basic"], None, true);
        assert!(text.contains("asks for Basic sign-in; give the user"), "{text}");
        let text = sign_in(&["Digest"], Some("alice"), false);
        assert!(text.contains("asks for Digest sign-in, which orgql cannot answer on this computer"), "{text}");
        if !crate::platform::SYSTEM_SIGN_IN {
            let text = sign_in(&["Negotiate"], Some("alice"), false);
            assert!(text.contains("which orgql cannot answer on this computer (it answers NTLM and Basic here, Negotiate only on Windows)"), "{text}");
        }
        for text in [sign_in(&["NTLM"], None, false), sign_in(&["Negotiate"], None, false)] {
            assert_eq!(text.lines().count(), 1);
        }
    }
}
