//! Whom orgql trusts: the operating system's roots (the Windows certificate store with the roots
//! IT pushed, the macOS keychain, Linux's CA files honouring `SSL_CERT_FILE`/`SSL_CERT_DIR`), then
//! the extra roots of the connection (`--ca-file`, the profile, the settings files), then the
//! roots bundled with orgql (Mozilla's); or one certificate pinned by its SHA-256 fingerprint.
//! Extra roots are added to the system's, never replace them; verification is never turned off.
//!
//! The verifier remembers the last certificate it saw (subject, issuer, which store trusted it)
//! for `orgql doctor` and Test connection, and a certificate that none trusts fails with an
//! [`Untrusted`] error naming its issuer, which [`super::obstacle`] turns into one sentence.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error as TlsError, RootCertStore, SignatureScheme};

use crate::platform::Revocation;

/// The crypto of every connection: rustls's ring provider.
pub(crate) fn provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    PROVIDER.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())).clone()
}

/// A certificate a handshake presented, and who trusted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenCertificate {
    /// The server's certificate's subject (its common name, else the whole name).
    pub subject: String,
    /// Its issuer, likewise.
    pub issuer: String,
    /// The store that trusted it: "the system's store (…)", "orgql's bundled roots", "the extra
    /// roots of …", "the fingerprint pinned in …".
    pub trusted_by: String,
    /// The SHA-256 fingerprint of the server's certificate, hex.
    pub sha256: String,
}

/// Why no store trusted a certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UntrustedKind {
    /// Its issuer is in none of the stores.
    UnknownIssuer,
    /// It has expired (or is not valid yet).
    Expired,
    /// It was issued for other names.
    WrongName,
    /// It was revoked.
    Revoked,
    /// The system explicitly distrusts it or a certificate of its chain (Windows' Disallowed store).
    Distrusted,
    /// Another reason, in rustls's words.
    Other(String),
}

/// A certificate that none of the stores trusts.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the certificate of {subject}, issued by {issuer}, is not trusted ({kind:?})")]
pub struct Untrusted {
    /// Why.
    pub kind: UntrustedKind,
    /// The server's certificate's subject.
    pub subject: String,
    /// The issuer to ask IT for: that of the last certificate the server sent (the root it chains to).
    pub issuer: String,
    /// The SHA-256 fingerprint of the server's certificate, hex (what pinning takes).
    pub sha256: String,
}

/// One set of roots and what to call it.
struct Layer {
    name: String,
    verifier: Arc<WebPkiServerVerifier>,
}

/// The verifier of src/net: every layer in order, or the pinned fingerprint. The layers are made
/// at the first handshake: a client that never speaks TLS (the sandbox on loopback, a plain `http`
/// service) never reads the system's store.
pub(crate) struct Verifier {
    layers: OnceLock<Vec<Layer>>,
    extra: Vec<(String, Arc<RootCertStore>)>,
    pinned: Option<(String, String)>,
    provider: Arc<CryptoProvider>,
    seen: Arc<Mutex<Option<SeenCertificate>>>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.extra.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Verifier").field("extra", &names).field("pinned", &self.pinned).finish_non_exhaustive()
    }
}

/// The roots the operating system trusts, read once a process, and what to call them.
pub(crate) struct SystemRoots {
    /// The store's name for a person.
    pub name: String,
    /// The roots (possibly none).
    pub roots: Arc<RootCertStore>,
    /// Where the system's store is read by orgql itself (Windows), the roots of the files
    /// `SSL_CERT_FILE`/`SSL_CERT_DIR` name, added after it (named), never in its place.
    pub also: Option<(String, Arc<RootCertStore>)>,
    /// How many certificates could not be read (named in `orgql doctor`).
    pub errors: Vec<String>,
}

/// The system's roots, read on first use (the files of Linux, the Windows store, the keychain).
pub(crate) fn system_roots() -> &'static SystemRoots {
    static ROOTS: OnceLock<SystemRoots> = OnceLock::new();
    ROOTS.get_or_init(|| {
        crate::platform::ui_thread::check("system certificate store");
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let (certs, mut errors, also) = match crate::platform::system_store_roots() {
            Some((store, errors)) => {
                let certs = store.into_iter().map(CertificateDer::from).collect();
                (certs, errors, environment_roots(var("SSL_CERT_FILE"), var("SSL_CERT_DIR")))
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                (found.certs, found.errors.iter().map(ToString::to_string).collect(), None)
            }
        };
        let mut roots = RootCertStore::empty();
        let (_, ignored) = roots.add_parsable_certificates(certs);
        if ignored > 0 {
            errors.push(format!("{ignored} certificates of the store could not be read"));
        }
        SystemRoots { name: system_store_name(), roots: Arc::new(roots), also, errors }
    })
}

/// The roots of the files `SSL_CERT_FILE` names and of the folders `SSL_CERT_DIR` lists, with the
/// name they are shown by; `None` when neither is set or they hold no root.
fn environment_roots(
    file: Option<std::ffi::OsString>,
    dirs: Option<std::ffi::OsString>,
) -> Option<(String, Arc<RootCertStore>)> {
    let mut certs = Vec::new();
    let mut named = Vec::new();
    if let Some(file) = file {
        certs.extend(rustls_native_certs::load_certs_from_paths(Some(Path::new(&file)), None).certs);
        named.push(format!("SSL_CERT_FILE={}", Path::new(&file).display()));
    }
    if let Some(dirs) = dirs {
        for dir in std::env::split_paths(&dirs) {
            certs.extend(rustls_native_certs::load_certs_from_paths(None, Some(&dir)).certs);
        }
        named.push(format!("SSL_CERT_DIR={}", dirs.to_string_lossy()));
    }
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(certs);
    (!roots.is_empty()).then(|| (format!("the roots of {}", named.join(" and ")), Arc::new(roots)))
}

/// What the system's store is called here: on Linux with the file or folder it was read from.
pub(crate) fn system_store_name() -> String {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match std::env::consts::OS {
        "windows" => "the Windows certificate store".to_owned(),
        "macos" => "the macOS keychain".to_owned(),
        _ => match (var("SSL_CERT_FILE"), var("SSL_CERT_DIR")) {
            (Some(file), _) => format!("the system's store (SSL_CERT_FILE={})", file.display()),
            (None, Some(dir)) => format!("the system's store (SSL_CERT_DIR={})", dir.display()),
            (None, None) => "the system's store (/etc/ssl/certs)".to_owned(),
        },
    }
}

fn bundled_roots() -> Arc<RootCertStore> {
    static ROOTS: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    ROOTS.get_or_init(|| Arc::new(RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() })).clone()
}

/// The name given to orgql's own roots.
pub(crate) const BUNDLED: &str = "orgql's bundled roots (Mozilla's)";

/// Reads the certificates of a PEM file of extra roots; a sentence when it has none or cannot be read.
pub(crate) fn read_roots(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("the extra roots file {} cannot be read ({e})", path.display()))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes).filter_map(Result::ok).collect();
    if certs.is_empty() {
        return Err(format!(
            "the extra roots file {} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the root as PEM",
            path.display()
        ));
    }
    Ok(certs)
}

impl Verifier {
    /// The system's roots, then each set of `extra` roots (named), then the bundled ones; or the
    /// certificate whose SHA-256 is `pinned` (hex, with where it was pinned).
    pub(crate) fn new(
        extra: Vec<(String, Vec<CertificateDer<'static>>)>,
        pinned: Option<(String, String)>,
        seen: Arc<Mutex<Option<SeenCertificate>>>,
    ) -> Result<Self, String> {
        let mut roots_of = Vec::new();
        for (name, certs) in extra {
            let mut roots = RootCertStore::empty();
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(format!("{name} hold no certificate that can be a root"));
            }
            roots_of.push((name, Arc::new(roots)));
        }
        let pinned = pinned.map(|(hex, place)| (normalize_fingerprint(&hex), place));
        Ok(Verifier { layers: OnceLock::new(), extra: roots_of, pinned, provider: provider(), seen })
    }

    /// The system's roots (and, where orgql reads the store itself, the environment's files), then
    /// each set of extra roots, then the bundled ones: made once, at the first handshake.
    fn layers(&self) -> &[Layer] {
        self.layers.get_or_init(|| {
            let build = |name: &str, roots: &Arc<RootCertStore>| -> Option<Layer> {
                if roots.is_empty() {
                    return None;
                }
                WebPkiServerVerifier::builder_with_provider(roots.clone(), self.provider.clone())
                    .build()
                    .ok()
                    .map(|verifier| Layer { name: name.to_owned(), verifier })
            };
            let system = system_roots();
            let mut layers: Vec<Layer> = build(&system.name, &system.roots).into_iter().collect();
            if let Some((name, roots)) = &system.also {
                layers.extend(build(name, roots));
            }
            for (name, roots) in &self.extra {
                layers.extend(build(name, roots));
            }
            layers.extend(build(BUNDLED, &bundled_roots()));
            layers
        })
    }
}

/// What the system says of the revocation of the certificate whose SHA-256 is `sha256`, asked
/// once a process for each certificate (Windows may fetch CRLs and OCSP answers: up to 5 s).
fn revocation(sha256: &str, end_entity: &[u8], intermediates: &[CertificateDer<'_>]) -> Revocation {
    static ANSWERS: OnceLock<Mutex<std::collections::HashMap<String, Revocation>>> = OnceLock::new();
    let answers = ANSWERS.get_or_init(Default::default);
    if let Some(known) = answers.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(sha256) {
        return *known;
    }
    let chain: Vec<&[u8]> = intermediates.iter().map(|c| c.as_ref()).collect();
    let answer = crate::platform::revocation(end_entity, &chain);
    let mut answers = answers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // A bounded memory: a long session meets a few services, not thousands.
    if answers.len() >= 256 {
        answers.clear();
    }
    answers.insert(sha256.to_owned(), answer);
    answer
}

/// A fingerprint as hex digits in lower case, without `:` or spaces (as `openssl x509 -fingerprint` writes it, or not).
pub fn normalize_fingerprint(text: &str) -> String {
    text.chars().filter(char::is_ascii_hexdigit).collect::<String>().to_ascii_lowercase()
}

/// The SHA-256 fingerprint of a certificate, hex.
pub fn fingerprint(der: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(der).iter().map(|b| format!("{b:02x}")).collect()
}

/// A certificate's subject and issuer, as a person reads them (the common name, else the whole name).
pub fn names(der: &[u8]) -> (String, String) {
    match x509_parser::parse_x509_certificate(der) {
        Ok((_, cert)) => (name_text(cert.subject()), name_text(cert.issuer())),
        Err(_) => ("an unreadable certificate".to_owned(), "an unknown issuer".to_owned()),
    }
}

fn name_text(name: &x509_parser::x509::X509Name<'_>) -> String {
    let text = name
        .iter_common_name()
        .find_map(|v| v.as_str().ok().map(str::to_owned))
        .or_else(|| name.iter_organization().find_map(|v| v.as_str().ok().map(str::to_owned)))
        .unwrap_or_else(|| name.to_string());
    crate::platform::terminal::printable(&text).into_owned()
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        let sha256 = fingerprint(end_entity);
        let (subject, _) = names(end_entity);
        let remember = |trusted_by: String, issuer: String| {
            let seen = SeenCertificate { subject: subject.clone(), issuer, trusted_by, sha256: sha256.clone() };
            *self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(seen);
        };
        let (_, issuer) = names(end_entity);
        if let Some((pinned, place)) = &self.pinned
            && *pinned == sha256
        {
            remember(format!("the fingerprint pinned in {place}"), issuer);
            return Ok(ServerCertVerified::assertion());
        }
        // The issuer to ask for is that of the last certificate sent: the root the chain ends at.
        let top_issuer = intermediates.last().map(|c| names(c).1).unwrap_or_else(|| issuer.clone());
        let refuse = |kind: UntrustedKind, issuer: String| {
            let untrusted = Untrusted { kind, subject: subject.clone(), issuer, sha256: sha256.clone() };
            TlsError::InvalidCertificate(CertificateError::Other(rustls::OtherError(Arc::new(untrusted))))
        };
        let mut first_error = None;
        for layer in self.layers() {
            match layer.verifier.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
                Ok(verified) => {
                    // Trusted by a store; now whether the system knows it revoked (best effort).
                    return match revocation(&sha256, end_entity, intermediates) {
                        Revocation::Revoked => Err(refuse(UntrustedKind::Revoked, issuer)),
                        Revocation::Distrusted => Err(refuse(UntrustedKind::Distrusted, issuer)),
                        Revocation::NotRevoked | Revocation::NotChecked => {
                            remember(layer.name.clone(), issuer);
                            Ok(verified)
                        }
                    };
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        let kind = match first_error {
            Some(TlsError::InvalidCertificate(e)) => match e {
                CertificateError::UnknownIssuer => UntrustedKind::UnknownIssuer,
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. } => UntrustedKind::Expired,
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                    UntrustedKind::WrongName
                }
                CertificateError::Revoked => UntrustedKind::Revoked,
                other => UntrustedKind::Other(format!("{other:?}")),
            },
            Some(other) => UntrustedKind::Other(other.to_string()),
            None => UntrustedKind::UnknownIssuer,
        };
        Err(refuse(kind, top_issuer))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_compared_as_hex_digits() {
        assert_eq!(normalize_fingerprint("AB:cd 01"), "abcd01");
        assert_eq!(fingerprint(b"").len(), 64);
    }

    /// Where orgql reads the system's store itself (Windows), the files `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` name are a layer of their own, named, added after the store.
    #[test]
    fn the_environment_s_root_files_are_a_named_layer_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let root = |name: &str| {
            let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
            params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
            params.distinguished_name.push(rcgen::DnType::CommonName, name);
            params.self_signed(&rcgen::KeyPair::generate().unwrap()).unwrap().pem()
        };
        let file = dir.path().join("bundle.pem");
        std::fs::write(&file, root("File Root") + &root("Second File Root")).unwrap();
        let folder = dir.path().join("certs");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("a.pem"), root("Folder Root")).unwrap();

        let (name, roots) = environment_roots(Some(file.clone().into()), None).expect("the file's roots");
        assert_eq!(name, format!("the roots of SSL_CERT_FILE={}", file.display()));
        assert_eq!(roots.len(), 2);
        let dirs = std::env::join_paths([folder.as_path(), dir.path().join("missing").as_path()]).unwrap();
        let (name, roots) = environment_roots(Some(file.into()), Some(dirs.clone())).expect("both");
        assert!(name.ends_with(&format!(" and SSL_CERT_DIR={}", dirs.to_string_lossy())), "{name}");
        assert_eq!(roots.len(), 3);
        assert!(environment_roots(None, None).is_none());
        assert!(environment_roots(Some(dir.path().join("none.pem").into()), None).is_none());
    }
}
