//! The client certificate of a connection (`--client-cert FILE`): PEM with its key, or PKCS#12
//! (`.p12`/`.pfx`) whose password is in the keyring or `ORGQL_CLIENT_CERT_PASSWORD`. Whether a
//! server asked for one is remembered, so that a refusal can be named.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustls::SignatureScheme;
use rustls::client::ResolvesClientCert;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::sign::CertifiedKey;

use super::SetupError;
use super::settings::{CLIENT_CERT_PASSWORD_ENV, Network};

/// Gives the certificate (when there is one) to a server that asks, and remembers that it asked.
#[derive(Debug)]
struct Resolver {
    key: Option<Arc<CertifiedKey>>,
    asked: Arc<AtomicBool>,
}

impl ResolvesClientCert for Resolver {
    fn resolve(&self, _hints: &[&[u8]], _schemes: &[SignatureScheme]) -> Option<Arc<CertifiedKey>> {
        self.asked.store(true, Ordering::Relaxed);
        self.key.clone()
    }

    fn has_certs(&self) -> bool {
        // Asked either way, so that a server asking for one is known even without one.
        true
    }
}

/// The resolver of `network`'s client certificate, and how `orgql doctor` names it.
pub(crate) fn resolver(
    network: &Network,
    asked: Arc<AtomicBool>,
) -> Result<(Arc<dyn ResolvesClientCert>, Option<String>), SetupError> {
    let Some((origin, path)) = network.client_cert() else {
        return Ok((Arc::new(Resolver { key: None, asked }), None));
    };
    let (certs, key) = read(path, network.client_cert_password.as_ref().map(|s| s.expose()))?;
    let (subject, _) = super::trust::names(&certs[0]);
    let key = CertifiedKey::from_der(certs, key, &super::trust::provider()).map_err(|e| {
        SetupError(format!("the client certificate {} and its key do not go together ({e})", path.display()))
    })?;
    let named = format!("{subject} ({}, from {origin})", path.display());
    Ok((Arc::new(Resolver { key: Some(Arc::new(key)), asked }), Some(named)))
}

/// The certificate chain and key of a PEM or PKCS#12 file.
fn read(
    path: &Path,
    password: Option<&str>,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), SetupError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SetupError(format!("the client certificate {} cannot be read ({e})", path.display())))?;
    let pkcs12 = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("p12") || e.eq_ignore_ascii_case("pfx"))
        || !bytes.starts_with(b"-----");
    if pkcs12 {
        return read_pkcs12(path, &bytes, password);
    }
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes).filter_map(Result::ok).collect();
    if certs.is_empty() {
        return Err(SetupError(format!(
            "the client certificate {} holds no PEM certificate; give PEM with its key, or a .p12/.pfx file",
            path.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_slice(&bytes).map_err(|_| {
        SetupError(format!(
            "the client certificate {} holds no private key (unencrypted PEM); put the key in the same file, or give a .p12/.pfx file",
            path.display()
        ))
    })?;
    Ok((certs, key))
}

fn read_pkcs12(
    path: &Path,
    bytes: &[u8],
    password: Option<&str>,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), SetupError> {
    let store =
        p12_keystore::KeyStore::from_pkcs12(bytes, password.unwrap_or_default(), Default::default()).map_err(|e| {
            let hint = if password.is_none() {
                format!("; if it has a password, put it in {CLIENT_CERT_PASSWORD_ENV} or the profile's keyring entry")
            } else {
                "; check its password".to_owned()
            };
            SetupError(format!("the client certificate {} cannot be opened as PKCS#12 ({e}){hint}", path.display()))
        })?;
    let Some((_, chain)) = store.private_key_chain() else {
        return Err(SetupError(format!(
            "the client certificate {} holds no private key with its certificate; export it again with its key",
            path.display()
        )));
    };
    let certs: Vec<CertificateDer<'static>> =
        chain.certs().iter().map(|c| CertificateDer::from(c.as_der().to_vec())).collect();
    if certs.is_empty() {
        return Err(SetupError(format!("the client certificate {} holds a key but no certificate", path.display())));
    }
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.key().as_der().to_vec()));
    Ok((certs, key))
}
