//! One way out of the machine (issue 44): every request orgql sends to a service — the token
//! endpoint, GraphQL, schema fetches, webhook pulls, test sends — goes through a client built here
//! from the connection's network settings: the proxy (the connection's own setting, then
//! `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`/`NO_PROXY`, then the system's), the trust (the system's
//! store with the bundled roots, extra roots added, or a pinned certificate), a client
//! certificate, and proxy sign-in. Loopback is never proxied. What stands in the way is named in
//! one sentence ([`Obstacle`]), and [`Route::lines`] says which way a request goes.

pub mod bypass;
mod client_cert;
mod obstacle;
mod proxy;
mod relay;
mod settings;
mod sign_in;
pub mod system_proxy;
mod trust;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub use bypass::is_loopback;
pub use obstacle::Obstacle;
pub use proxy::ProxyChoice;
pub use settings::{
    CLIENT_CERT_PASSWORD_ENV, Network, NetworkSettings, Origin, PROXY_PASSWORD_ENV, ProxySetting,
    machine_settings_path, person_settings_path,
};
pub use system_proxy::SystemProxy;
pub use trust::{SeenCertificate, Untrusted, UntrustedKind, fingerprint, names, normalize_fingerprint};

/// Why a client could not be set up: one sentence (a file that cannot be read, a bad proxy URL).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

/// The route of a client's requests: what `orgql doctor` and Test connection show.
#[derive(Debug)]
pub struct Route {
    /// The host and port requests go to.
    pub target: String,
    /// Whether the target is `https`.
    pub tls: bool,
    /// The proxy, or direct, and where that came from.
    pub proxy: ProxyChoice,
    /// The extra roots trusted besides the system's, with where each was set.
    pub extra_roots: Vec<String>,
    /// The client certificate, as "SUBJECT (FILE, from ORIGIN)".
    pub client_cert: Option<String>,
    /// The pinned fingerprint and where it was pinned.
    pub pinned: Option<String>,
    /// Whether requests sign in to the proxy (a user and a password are known).
    pub proxy_signs_in: bool,
    /// Whether requests to `https` services sign in to the proxy with the Windows account of the
    /// person (NTLM, Negotiate) when it asks: on Windows, without a password.
    pub proxy_windows_account: bool,
    /// The certificate of the last handshake.
    seen: Arc<Mutex<Option<SeenCertificate>>>,
    /// Whether a server asked for a client certificate.
    cert_asked: Arc<AtomicBool>,
}

impl Route {
    /// The certificate the last handshake presented, and who trusted it.
    pub fn seen_certificate(&self) -> Option<SeenCertificate> {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Whether a server asked this client for a certificate.
    pub fn client_cert_asked(&self) -> bool {
        self.cert_asked.load(Ordering::Relaxed)
    }

    /// The proxy line: "proxy: http://10.0.0.8:3128 (HTTPS_PROXY)" or "proxy: direct (…)".
    pub fn proxy_line(&self) -> String {
        match &self.proxy.proxy {
            Some(proxy) => {
                let user = match &proxy.user {
                    Some(user) if self.proxy_signs_in => format!(", signing in as {user}"),
                    Some(user) => format!(", user {user} without a password"),
                    None if self.proxy_windows_account => {
                        ", signing in with this Windows account if it asks".to_owned()
                    }
                    None => String::new(),
                };
                format!("proxy: {} ({}{user})", proxy.shown, self.proxy.source)
            }
            None => format!("proxy: direct ({})", self.proxy.source),
        }
    }

    /// The route as lines, as far as it is known before (and after) a request: the proxy and its
    /// source, the system's note, extra roots, the client certificate, and the certificate seen.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!("service: {}{}", self.target, if self.tls { " (HTTPS)" } else { " (HTTP)" })];
        lines.push(self.proxy_line());
        if let Some(note) = &self.proxy.note {
            lines.push(format!("note: {note}"));
        }
        if self.tls {
            let system = trust::system_roots();
            let mut stores = vec![system.name.clone()];
            stores.extend(system.also.iter().map(|(name, _)| name.clone()));
            stores.extend(self.extra_roots.iter().cloned());
            stores.push(trust::BUNDLED.to_owned());
            lines.push(format!("trusted roots: {}", stores.join("; ")));
            for error in &system.errors {
                lines.push(format!("note: the system's store: {error}"));
            }
            if let Some(pinned) = &self.pinned {
                lines.push(format!("pinned certificate: {pinned}"));
            }
            lines.push(format!("client certificate: {}", self.client_cert.as_deref().unwrap_or("none")));
            if let Some(seen) = self.seen_certificate() {
                lines.push(format!(
                    "certificate: {} issued by {}; trusted by {}",
                    seen.subject, seen.issuer, seen.trusted_by
                ));
                lines.push(format!("certificate SHA-256: {}", seen.sha256));
                lines.push(REVOCATION.to_owned());
            }
        }
        lines
    }

    /// The status bar's words for the proxy: "via proxy 10.0.0.8:3128 (Windows settings)", or
    /// none when the route is direct.
    pub fn status_text(&self) -> Option<String> {
        let proxy = self.proxy.proxy.as_ref()?;
        let shown = proxy.shown.trim_start_matches("http://").trim_start_matches("https://").trim_end_matches('/');
        Some(format!("via proxy {shown} ({})", self.proxy.source))
    }
}

/// What orgql does about revocation, said in `orgql doctor`: on Windows it asks Windows' chain
/// engine (best effort: an answer that cannot be had does not stop the connection); Linux and
/// macOS give it nothing to ask.
pub const REVOCATION: &str = if crate::platform::CHECKS_REVOCATION {
    "revocation: best effort — Windows is asked (its CRLs and OCSP answers, at most 5 s, and its Disallowed certificates): a revoked or distrusted certificate stops the connection, a revocation server that a proxy blocks does not"
} else {
    "revocation: not checked on this system (orgql fetches no CRL or OCSP answer itself), so a revocation server that a proxy blocks never stops a connection; on Windows orgql asks Windows"
};

/// A client of one service, built from its network settings, and its route.
#[derive(Clone, Debug)]
pub struct HttpClient {
    client: reqwest::Client,
    route: Arc<Route>,
    /// The proxy sign-in relay its `https` requests go through, when it may have to sign in
    /// (NTLM, Negotiate, Basic); it stops when the last clone of the client is dropped.
    _relay: Option<Arc<relay::Relay>>,
}

impl HttpClient {
    /// A client for requests to `url` (its host: a connection's base URL, a remote listener), with
    /// `network`'s settings; `configure` adds the caller's timeouts and redirect policy. Blocking:
    /// it may read the system's proxy settings and certificate store (never on the UI thread).
    pub fn build(
        network: &Network,
        url: &str,
        configure: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder,
    ) -> Result<Self, SetupError> {
        crate::platform::ui_thread::check("network settings");
        let parsed = reqwest::Url::parse(url).map_err(|e| SetupError(format!("'{url}' is not a URL ({e})")))?;
        let tls = parsed.scheme() == "https";
        let host = parsed.host_str().unwrap_or_default().to_owned();
        let target = format!("{host}:{}", parsed.port_or_known_default().unwrap_or(443));
        let choice = proxy::choose(network, &parsed);
        let seen = Arc::new(Mutex::new(None));
        let cert_asked = Arc::new(AtomicBool::new(false));

        let mut extra = Vec::new();
        let mut extra_roots = Vec::new();
        for (origin, path) in network.ca_files() {
            let certs = trust::read_roots(&path).map_err(SetupError)?;
            let name = format!("the extra roots of {} (from {origin})", path.display());
            extra_roots.push(format!(
                "{} ({} certificate{})",
                name,
                certs.len(),
                if certs.len() == 1 { "" } else { "s" }
            ));
            extra.push((name, certs));
        }
        let pinned = network.pinned().map(|(origin, hex)| (hex, origin.to_string()));
        let pinned_line =
            pinned.as_ref().map(|(hex, origin)| format!("SHA-256 {} (from {origin})", normalize_fingerprint(hex)));
        let verifier = trust::Verifier::new(extra, pinned, seen.clone()).map_err(SetupError)?;
        if tls {
            // Read here, on this blocking thread, rather than in the first handshake.
            trust::system_roots();
        }
        let (resolver, client_cert) = client_cert::resolver(network, cert_asked.clone())?;
        let config = rustls::ClientConfig::builder_with_provider(trust::provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| SetupError(format!("TLS could not be set up ({e})")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_client_cert_resolver(resolver);

        let mut builder = reqwest::Client::builder().use_preconfigured_tls(config).no_proxy();
        let mut proxy_signs_in = false;
        let mut proxy_windows_account = false;
        let mut relay = None;
        if let Some(proxy) = &choice.proxy {
            let password = proxy.password.as_ref().or(network.proxy_password.as_ref());
            proxy_signs_in = proxy.user.is_some() && password.is_some();
            let credentials = sign_in::Credentials {
                user: proxy.user.clone(),
                password: password.cloned(),
                proxy_host: proxy.url.host_str().unwrap_or_default().to_owned(),
            };
            // `https` services through the relay, which signs in on the tunnel's own connection
            // as the proxy asks (NTLM and Negotiate need that); an `https://` proxy is not
            // relayed (the relay speaks plain HTTP to the proxy).
            if credentials.can_sign_in() && proxy.url.scheme() == "http" {
                let address = (credentials.proxy_host.clone(), proxy.url.port_or_known_default().unwrap_or(80));
                let started = relay::Relay::start(address, credentials, relay::Limits::default())
                    .map_err(|e| SetupError(format!("the proxy sign-in could not start ({e})")))?;
                let relay_url = started.url();
                let relayed = reqwest::Proxy::custom(move |url| {
                    (url.scheme() == "https" && !is_loopback(url)).then(|| relay_url.clone())
                })
                .basic_auth(relay::RELAY_USER, started.key());
                builder = builder.proxy(relayed);
                proxy_windows_account = crate::platform::SYSTEM_SIGN_IN && !proxy_signs_in;
                relay = Some(Arc::new(started));
            }
            // Plain `http` services (and `https` ones without the relay) straight to the proxy,
            // with Basic sign-in when a password is known: without one the proxy's 407 is
            // named, with the scheme it asks for.
            let target_url = proxy.url.clone();
            let mut reqwest_proxy =
                reqwest::Proxy::custom(move |url| if is_loopback(url) { None } else { Some(target_url.clone()) });
            if let (Some(user), Some(password)) = (&proxy.user, password) {
                reqwest_proxy = reqwest_proxy.basic_auth(user, password.expose());
            }
            builder = builder.proxy(reqwest_proxy);
        }
        let client =
            configure(builder).build().map_err(|e| SetupError(format!("the HTTP client could not be set up ({e})")))?;
        let route = Route {
            target,
            tls,
            proxy: choice,
            extra_roots,
            client_cert,
            pinned: pinned_line,
            proxy_signs_in,
            proxy_windows_account,
            seen,
            cert_asked,
        };
        Ok(HttpClient { client, route: Arc::new(route), _relay: relay })
    }

    /// A client for `url` with the settings files' network settings (no profile), built on a
    /// blocking thread: for requests that belong to no connection (a webhook pull, a test
    /// delivery, a replay).
    pub async fn for_url(
        url: &str,
        configure: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder + Send + 'static,
    ) -> Result<Self, SetupError> {
        let url = url.to_owned();
        tokio::task::spawn_blocking(move || HttpClient::build(&Network::from_files()?, &url, configure))
            .await
            .map_err(|e| SetupError(format!("the network settings could not be read ({e})")))?
    }

    /// The reqwest client.
    pub fn reqwest(&self) -> &reqwest::Client {
        &self.client
    }

    /// The route its requests take.
    pub fn route(&self) -> &Arc<Route> {
        &self.route
    }

    /// What stands in the way when `err` ended a request, in one sentence; `None` when it is not
    /// one of the network's obstacles (a timeout, a broken answer). May ask the proxy again to
    /// learn which sign-in it asks for.
    pub async fn obstacle(&self, err: &reqwest::Error) -> Option<Obstacle> {
        obstacle::classify(err, &self.route).await
    }

    /// The obstacle an answer's status is, when it is one: a proxy's 407 to a plain-HTTP request.
    pub fn obstacle_of_answer(&self, status: u16, headers: &reqwest::header::HeaderMap) -> Option<Obstacle> {
        obstacle::of_answer(status, headers, &self.route)
    }
}
