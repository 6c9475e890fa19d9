//! orgql on a company network (issue 44), as real as this machine allows: the sandbox behind a TLS
//! endpoint whose certificate comes from a private root (made here with rcgen), one that asks for
//! a client certificate, a proxy of our own that asks for Basic sign-in, and mitmproxy as the
//! inspecting proxy that re-signs every certificate with "Acme Corp TLS Inspection CA".
//!
//! The service is addressed as `orgql.test` (a name that never resolves: RFC 2606) wherever a
//! proxy is in the way: loopback is never proxied, and the proxies here send `orgql.test` to
//! 127.0.0.1. mitmproxy comes from the venv `.ci/run` makes (tests/mitmproxy/requirements.txt);
//! where it is missing, its test says so and passes without running, unless
//! `ORGQL_MITMPROXY_REQUIRED=1` (set by `.ci/run`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::harness::{ALL_SCOPES, SECRET, sandbox};

pub(crate) const ROOT_NAME: &str = "orgql Test Root CA";
const INSPECTION_NAME: &str = "Acme Corp TLS Inspection CA";
pub(crate) const QUERY: &str = "{ paginatedUsers(first: 3) { count edges { node { ref } } } }";
pub(crate) const EXPORT: &str = "{ paginatedUsers(first: 40) { edges { node { ref name email isActive } } } }";

/// The certificates of a test, as files.
pub(crate) struct Pki {
    dir: TempDir,
    /// The private root (PEM).
    pub(crate) root: PathBuf,
    /// The inspection CA's certificate (PEM) and mitmproxy's confdir with its key.
    inspection: PathBuf,
    confdir: PathBuf,
    /// The service's chain and key.
    server_chain: Vec<CertificateDer<'static>>,
    server_key: String,
    /// The client CA (DER) and a client certificate: PEM with its key, and PKCS#12.
    client_ca: CertificateDer<'static>,
    client_pem: PathBuf,
    client_p12: PathBuf,
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, name);
    params.distinguished_name.push(DnType::OrganizationName, "orgql tests");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

impl Pki {
    pub(crate) fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let root = ca(ROOT_NAME);
        let mut params =
            CertificateParams::new(vec!["orgql.test".to_owned(), "localhost".to_owned(), "127.0.0.1".to_owned()])
                .unwrap();
        params.distinguished_name.push(DnType::CommonName, "orgql.test");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_key = KeyPair::generate().unwrap();
        let server = params.signed_by(&server_key, &root).unwrap();

        let inspection = ca(INSPECTION_NAME);
        let confdir = dir.path().join("mitmproxy");
        std::fs::create_dir_all(&confdir).unwrap();
        std::fs::write(
            confdir.join("mitmproxy-ca.pem"),
            format!("{}{}", inspection.key().serialize_pem(), inspection.pem()),
        )
        .unwrap();

        let client_ca = ca("orgql Test Client CA");
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, "alice@orgql.test");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_key = KeyPair::generate().unwrap();
        let client = params.signed_by(&client_key, &client_ca).unwrap();
        let client_pem = write("alice.pem", format!("{}{}", client.pem(), client_key.serialize_pem()).as_bytes());
        let mut store = p12_keystore::KeyStore::new();
        let chain = p12_keystore::PrivateKeyChain::new(
            vec![1u8; 20],
            p12_keystore::PrivateKey::from_der(&client_key.serialize_der()).unwrap(),
            [p12_keystore::Certificate::from_der(client.der()).unwrap()],
        );
        store.add_entry("alice", p12_keystore::KeyStoreEntry::PrivateKeyChain(chain));
        let client_p12 = write("alice.p12", &store.writer("p12-password").write().unwrap());

        Pki {
            root: write("root.pem", root.pem().as_bytes()),
            inspection: write("inspection.pem", inspection.pem().as_bytes()),
            confdir,
            server_chain: vec![server.der().clone(), root.der().clone()],
            server_key: server_key.serialize_pem(),
            client_ca: client_ca.der().clone(),
            client_pem,
            client_p12,
            dir,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// A TLS endpoint in front of `upstream` (the sandbox's plain HTTP): every connection's bytes
/// relayed after the handshake; with `client_ca`, a client certificate of that CA is required.
pub(crate) async fn tls_front(pki: &Pki, upstream: SocketAddr, client_ca: bool) -> SocketAddr {
    tls_front_seeing(pki, upstream, client_ca, Seen::default()).await
}

/// What a TLS front was sent, decrypted: each connection's bytes from the client.
#[derive(Clone, Default)]
pub(crate) struct Seen(Arc<std::sync::Mutex<Vec<Vec<u8>>>>);

impl Seen {
    /// How many connections it served.
    pub(crate) fn connections(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    /// How many requests `METHOD PATH` (`POST /graphql/`) it was sent (their request lines; a
    /// request follows the body of the one before, which ends without a line break).
    pub(crate) fn requests(&self, request: &str) -> usize {
        let line = format!("{request} HTTP/1.1\r\n");
        let connections = self.0.lock().unwrap();
        connections.iter().map(|bytes| String::from_utf8_lossy(bytes).matches(&line).count()).sum()
    }
}

/// [`tls_front`], keeping in `seen` what each connection's client sent (decrypted).
pub(crate) async fn tls_front_seeing(pki: &Pki, upstream: SocketAddr, client_ca: bool, seen: Seen) -> SocketAddr {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder =
        rustls::ServerConfig::builder_with_provider(provider.clone()).with_safe_default_protocol_versions().unwrap();
    let builder = if client_ca {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(pki.client_ca.clone()).unwrap();
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider).build().unwrap();
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let key = PrivateKeyDer::from_pem_slice(pki.server_key.as_bytes()).unwrap();
    let config = builder.with_single_cert(pki.server_chain.clone(), key).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                let Ok(Ok(tls)) = tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream)).await else {
                    return;
                };
                let Ok(plain) = TcpStream::connect(upstream).await else { return };
                let slot = {
                    let mut connections = seen.0.lock().unwrap();
                    connections.push(Vec::new());
                    connections.len() - 1
                };
                let (mut from_client, mut to_client) = tokio::io::split(tls);
                let (mut from_service, mut to_service) = plain.into_split();
                let up = async {
                    let mut buf = [0u8; 8192];
                    while let Ok(n) = from_client.read(&mut buf).await {
                        if n == 0 {
                            break;
                        }
                        seen.0.lock().unwrap()[slot].extend_from_slice(&buf[..n]);
                        if to_service.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_service.shutdown().await;
                };
                let down = async {
                    let _ = tokio::io::copy(&mut from_service, &mut to_client).await;
                    let _ = to_client.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    address
}

/// An HTTP proxy of our own that asks for Basic sign-in (`Proxy-Authorization: Basic
/// alice:PASSWORD`) and then opens CONNECT tunnels (to 127.0.0.1 for `orgql.test`), counting them.
async fn basic_proxy(password: &'static str) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let tunnels = Arc::new(AtomicUsize::new(0));
    let counted = tunnels.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16384 {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let mut headers = [httparse::EMPTY_HEADER; 32];
                let mut request = httparse::Request::new(&mut headers);
                if request.parse(&head).is_err() || request.method != Some("CONNECT") {
                    let _ = stream.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n").await;
                    return;
                }
                let target = request.path.unwrap_or_default().to_owned();
                let authorization = request
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("proxy-authorization"))
                    .map(|h| String::from_utf8_lossy(h.value).into_owned());
                use base64::Engine as _;
                let expected =
                    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("alice:{password}")));
                if authorization.as_deref() != Some(expected.as_str()) {
                    let _ = stream
                        .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\nContent-Length: 0\r\n\r\n")
                        .await;
                    return;
                }
                let target = target.replace("orgql.test:", "127.0.0.1:");
                let Ok(mut upstream) = TcpStream::connect(&target).await else {
                    let _ = stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n").await;
                    return;
                };
                counted.fetch_add(1, Ordering::SeqCst);
                if stream.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut stream, &mut upstream).await;
                }
            });
        }
    });
    (address, tunnels)
}

/// `orgql ARGS` with a clean environment (its files under `home`, no keyring, the sandbox's
/// secret, no machine-wide settings) plus `env`; run off the runtime. Exit code, stdout, stderr.
pub(crate) async fn orgql(home: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orgql"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ORGQL_NO_KEYRING", "1")
        .env("ORGQL_CLIENT_SECRET", SECRET)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("ORGQL_MACHINE_CONFIG_DIR", home.join("etc"))
        .current_dir(home)
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = tokio::task::spawn_blocking(move || command.output().expect("orgql runs")).await.unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// The connection options for `base_url`.
pub(crate) fn connection(base_url: &str) -> Vec<String> {
    ["--base-url", base_url, "--client-id", "sandbox-admin", "--scope", ALL_SCOPES].map(str::to_owned).to_vec()
}

pub(crate) fn args<'a>(command: &[&'a str], connection: &'a [String]) -> Vec<&'a str> {
    command.iter().copied().chain(connection.iter().map(String::as_str)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_root_is_trusted_from_the_system_store_or_ca_file_and_its_issuer_named_without() {
    let server = sandbox(120).await;
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
    let front = tls_front(&pki, upstream, false).await;
    let https = connection(&format!("https://localhost:{}", front.port()));
    let root = pki.root.to_str().unwrap();
    let empty = pki.path("empty.pem");
    std::fs::write(&empty, "").unwrap();

    // The root in the system's store (on Linux, the file SSL_CERT_FILE names): it works.
    let (code, out, err) = orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[("SSL_CERT_FILE", root)]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"count\": 120") || out.contains("\"count\":120"), "{out}");

    // Without it: exit 6 and one sentence naming the issuer.
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[("SSL_CERT_FILE", empty.to_str().unwrap())]).await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains(&format!("issued by {ROOT_NAME}, which this computer does not trust")), "{err}");
    assert!(err.contains("--ca-file") && err.lines().count() == 1, "{err}");

    // --ca-file adds it to the system's store: it works again.
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--ca-file", root], &https),
        &[("SSL_CERT_FILE", empty.to_str().unwrap())],
    )
    .await;
    assert_eq!(code, 0, "{err}");

    // An export over HTTPS equals the one over the sandbox's own HTTP, byte for byte.
    let direct = connection(server.base_url());
    let (code, _, err) =
        orgql(home.path(), &args(&["export", "-e", EXPORT, "--out", "direct.csv"], &direct), &[]).await;
    assert_eq!(code, 0, "{err}");
    let (code, _, err) =
        orgql(home.path(), &args(&["export", "-e", EXPORT, "--out", "https.csv"], &https), &[("SSL_CERT_FILE", root)])
            .await;
    assert_eq!(code, 0, "{err}");
    let direct = std::fs::read(home.path().join("direct.csv")).unwrap();
    assert!(direct.len() > 1000);
    assert_eq!(std::fs::read(home.path().join("https.csv")).unwrap(), direct);

    // A self-signed certificate's fingerprint pinned: trusted as it is, nothing else.
    let (code, out, err) = orgql(
        home.path(),
        &args(&["doctor", "--ca-file", root], &https),
        &[("SSL_CERT_FILE", empty.to_str().unwrap())],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    for line in [
        "proxy: direct (loopback: never through a proxy)",
        &format!(
            "certificate: orgql.test issued by {ROOT_NAME}; trusted by the extra roots of {root} (from the command line)"
        ),
        orgql::net::REVOCATION,
        "token: granted ",
        "schema: ",
        "result: a query would work",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    let sha = out.lines().find_map(|l| l.strip_prefix("certificate SHA-256: ")).expect("the fingerprint").to_owned();
    let (code, out, err) = orgql(
        home.path(),
        &args(&["doctor", "--pin-sha256", &sha], &https),
        &[("SSL_CERT_FILE", empty.to_str().unwrap())],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("trusted by the fingerprint pinned in the command line"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_asking_for_a_client_certificate_is_named_and_served_with_pem_or_pkcs12() {
    let server = sandbox(30).await;
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
    let front = tls_front(&pki, upstream, true).await;
    let https = connection(&format!("https://localhost:{}", front.port()));
    let root = ("SSL_CERT_FILE", pki.root.to_str().unwrap());

    let (code, _, err) = orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root]).await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("asks for a client certificate; give one with --client-cert"), "{err}");

    let pem = pki.client_pem.to_str().unwrap();
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY, "--client-cert", pem], &https), &[root]).await;
    assert_eq!(code, 0, "{err}");

    let p12 = pki.client_p12.to_str().unwrap();
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY, "--client-cert", p12], &https), &[root]).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ORGQL_CLIENT_CERT_PASSWORD"), "{err}");
    let (code, out, err) = orgql(
        home.path(),
        &args(&["doctor", "--client-cert", p12], &https),
        &[root, ("ORGQL_CLIENT_CERT_PASSWORD", "p12-password")],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("client certificate: alice@orgql.test"), "{out}");
    assert!(!out.contains("p12-password") && !err.contains("p12-password"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_asking_for_basic_sign_in_is_named_then_used_and_the_password_is_nowhere() {
    const PASSWORD: &str = "wonder-land-42";
    let server = sandbox(30).await;
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
    let front = tls_front(&pki, upstream, false).await;
    let (proxy_address, tunnels) = basic_proxy(PASSWORD).await;
    let https = connection(&format!("https://orgql.test:{}", front.port()));
    let root = ("SSL_CERT_FILE", pki.root.to_str().unwrap());
    let with_user = format!("http://alice@{proxy_address}");
    let without_user = format!("http://{proxy_address}");

    // No user: the proxy's address, where it came from and the scheme it asks for.
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root, ("HTTPS_PROXY", &without_user)]).await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!("the proxy {without_user} (from HTTPS_PROXY) asks for Basic sign-in; give the user")),
        "{err}"
    );
    // A user without a password: the same, pointing at the password.
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root, ("https_proxy", &with_user)]).await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("(from https_proxy) asks for Basic sign-in") && err.contains("ORGQL_PROXY_PASSWORD"), "{err}");
    // A wrong password: refused, named.
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--proxy", &with_user], &https),
        &[root, ("ORGQL_PROXY_PASSWORD", "wrong")],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("refused the sign-in of alice"), "{err}");
    assert_eq!(tunnels.load(Ordering::SeqCst), 0);

    // The password from the environment: it works, through the proxy, logged at debug level.
    let log = home.path().join("orgql.log");
    let (code, out, err) = orgql(
        home.path(),
        &args(&["doctor", "--proxy", &with_user, "--log-file", log.to_str().unwrap()], &https),
        &[root, ("ORGQL_PROXY_PASSWORD", PASSWORD), ("ORGQL_LOG", "debug")],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("proxy: {without_user} (the command line, signing in as alice)")), "{out}");
    assert!(tunnels.load(Ordering::SeqCst) >= 1);
    // The password is in no output, log or file orgql wrote.
    assert!(!out.contains(PASSWORD) && !err.contains(PASSWORD));
    for entry in walk(home.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(PASSWORD), "{}", entry.display());
    }

    // NO_PROXY and --proxy none go direct (and `orgql.test` does not resolve there).
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY], &https),
        &[root, ("HTTPS_PROXY", &with_user), ("NO_PROXY", "localhost,orgql.test")],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("the name orgql.test does not resolve"), "{err}");
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--proxy", "none"], &https),
        &[root, ("HTTPS_PROXY", &with_user)],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("the name orgql.test does not resolve"), "{err}");

    // A proxy nobody listens at.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY], &https),
        &[root, ("HTTPS_PROXY", &format!("http://{closed}"))],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!("the proxy http://{closed} (from HTTPS_PROXY) cannot be reached (connection refused)")),
        "{err}"
    );
}

/// Every file under `dir`.
pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    files
}

/// `mitmdump`: the variable `.ci/run` sets, else the venv it makes; `None` with why.
fn mitmdump() -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = std::env::var_os("ORGQL_MITMPROXY")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/var/tmp/orgql-mitmproxy-venv/bin/mitmdump")])
        .collect();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        format!(
            "no mitmdump (tried {}); `.ci/run` installs it (pip install -r tests/mitmproxy/requirements.txt into /var/tmp/orgql-mitmproxy-venv)",
            candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    })
}

/// mitmdump, running; stopped when dropped. Its output (one line a request) is in `log`.
struct Mitmproxy {
    child: std::process::Child,
    port: u16,
    log: PathBuf,
}

impl Drop for Mitmproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mitmproxy {
    fn start(program: &Path, pki: &Pki, extra: &[&str]) -> Mitmproxy {
        let log = pki.path(&format!("mitmdump-{}.log", extra.len()));
        let file = std::fs::File::create(&log).unwrap();
        let route = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mitmproxy/route.py");
        let child = Command::new(program)
            .args(["--listen-host", "127.0.0.1", "--listen-port", "0", "-s"])
            .arg(route)
            .args(["--set", &format!("confdir={}", pki.confdir.display())])
            .args(["--set", &format!("ssl_verify_upstream_trusted_ca={}", pki.root.display())])
            .args(extra)
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .expect("mitmdump starts");
        let mut proxy = Mitmproxy { child, port: 0, log };
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while proxy.port == 0 {
            let text = proxy.output();
            if let Some(at) = text.find("proxy listening at 127.0.0.1:") {
                let rest = &text[at + "proxy listening at 127.0.0.1:".len()..];
                proxy.port = rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
            }
            assert!(std::time::Instant::now() < deadline, "mitmdump did not start:\n{text}");
            assert!(proxy.child.try_wait().unwrap().is_none(), "mitmdump stopped:\n{text}");
            std::thread::sleep(Duration::from_millis(100));
        }
        proxy
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// How many requests it logged of `method` to a path ending in `path`
    /// (`127.0.0.1:60012: POST https://127.0.0.1:4207/graphql/`).
    fn requests(&self, method: &str, path: &str) -> usize {
        let method = format!(": {method} https://");
        self.output().lines().filter(|l| l.contains(&method) && l.trim_end().ends_with(path)).count()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_an_inspecting_proxy_the_inspection_root_is_named_then_every_request_goes_through_it() {
    let program = match mitmdump() {
        Ok(program) => program,
        Err(why) => {
            assert!(std::env::var("ORGQL_MITMPROXY_REQUIRED").is_err(), "ORGQL_MITMPROXY_REQUIRED is set but {why}");
            eprintln!("skipped: {why}");
            return;
        }
    };
    let server = sandbox(120).await;
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
    let front = tls_front(&pki, upstream, false).await;
    let mitm = Mitmproxy::start(&program, &pki, &[]);
    let proxy_url = format!("http://127.0.0.1:{}", mitm.port);
    let https = connection(&format!("https://orgql.test:{}", front.port()));
    let root = ("SSL_CERT_FILE", pki.root.to_str().unwrap());
    let via = ("HTTPS_PROXY", proxy_url.as_str());

    // The system trusts the service's root, not the inspection root: named, exit 6.
    let (code, _, err) = orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root, via]).await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!(
            "issued by {INSPECTION_NAME}, which this computer does not trust — your network may inspect HTTPS: ask IT for that root, or add it with --ca-file"
        )),
        "{err}"
    );

    // With the inspection root added: the export goes through the proxy, token and every page,
    // and equals the direct one byte for byte.
    let inspection = pki.inspection.to_str().unwrap();
    let (code, _, err) = orgql(
        home.path(),
        &args(&["export", "-e", EXPORT, "--out", "inspected.csv", "--ca-file", inspection], &https),
        &[root, via],
    )
    .await;
    assert_eq!(code, 0, "{err}\n{}", mitm.output());
    assert_eq!(mitm.requests("POST", "/oauth/token/"), 1, "{}", mitm.output());
    // The schema's two requests, then three pages of 40 (the last one short).
    assert!(mitm.requests("POST", "/graphql/") >= 4, "{}", mitm.output());
    let direct = connection(server.base_url());
    let (code, _, err) =
        orgql(home.path(), &args(&["export", "-e", EXPORT, "--out", "direct.csv"], &direct), &[]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(home.path().join("inspected.csv")).unwrap(),
        std::fs::read(home.path().join("direct.csv")).unwrap()
    );

    // orgql doctor: the proxy and its source, the issuer and the store that trusted it.
    let (code, out, err) = orgql(home.path(), &args(&["doctor", "--ca-file", inspection], &https), &[root, via]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("proxy: {proxy_url} (HTTPS_PROXY)")), "{out}");
    assert!(out.contains(&format!("issued by {INSPECTION_NAME}; trusted by the extra roots of {inspection}")), "{out}");

    // NO_PROXY and --proxy none go direct: `orgql.test` does not resolve there, and the proxy
    // sees nothing more.
    let before = mitm.requests("POST", "/oauth/token/");
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root, via, ("no_proxy", ".test")]).await;
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("the name orgql.test does not resolve"), "{err}");
    let (code, _, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY, "--proxy", "none"], &https), &[root, via]).await;
    assert_eq!(code, 6, "{err}");
    assert_eq!(mitm.requests("POST", "/oauth/token/"), before);

    // mitmproxy asking for Basic sign-in (--proxyauth): named, then answered.
    let asking = Mitmproxy::start(&program, &pki, &["--proxyauth", "alice:s3cret-pw"]);
    let asking_url = format!("http://alice@127.0.0.1:{}", asking.port);
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--ca-file", inspection, "--proxy", &asking_url], &https),
        &[root],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!(
            "the proxy http://127.0.0.1:{} (from the command line) asks for Basic sign-in",
            asking.port
        )),
        "{err}"
    );
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--ca-file", inspection, "--proxy", &asking_url], &https),
        &[root, ("ORGQL_PROXY_PASSWORD", "s3cret-pw")],
    )
    .await;
    assert_eq!(code, 0, "{err}\n{}", asking.output());
}
