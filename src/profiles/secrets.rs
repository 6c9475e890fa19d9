//! Secrets of profiles, and cached tokens, in the OS keyring (Secret Service on Linux, Keychain
//! on macOS, Credential Manager on Windows). Never in a file: where no keyring service runs, the
//! secret comes from `ORGQL_CLIENT_SECRET`.

use std::sync::Arc;

use keyring_core::{CredentialStore, Error as KeyringError};

use crate::api::{Token, TokenStore};
use crate::secret::Secret;

/// The environment variable that holds a client secret.
pub const SECRET_ENV: &str = "ORGQL_CLIENT_SECRET";

const SERVICE: &str = "orgql";

/// Where secrets are kept.
#[derive(Clone)]
pub enum SecretStore {
    /// A keyring store.
    Keyring(Arc<CredentialStore>),
    /// No keyring service is running; the reason says which.
    Unavailable(String),
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretStore::Keyring(store) => write!(f, "SecretStore::Keyring({})", store.vendor()),
            SecretStore::Unavailable(why) => write!(f, "SecretStore::Unavailable({why})"),
        }
    }
}

/// Why a secret could not be stored or read.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No keyring service.
    #[error("no OS keyring service is available ({0}); set {SECRET_ENV} in the environment instead")]
    Unavailable(String),
    /// The keyring refused.
    #[error("the OS keyring refused ({0}); unlock it, or set {SECRET_ENV} in the environment instead")]
    Keyring(String),
}

impl SecretStore {
    /// The platform's keyring, or `Unavailable` with the reason (for example, no D-Bus session).
    pub fn system() -> Self {
        crate::platform::ui_thread::check("keyring");
        match keyring::Entry::store_status() {
            Ok(()) => match keyring_core::get_default_store() {
                Some(store) => SecretStore::Keyring(store),
                None => SecretStore::Unavailable("no default credential store".to_owned()),
            },
            Err(err) => SecretStore::Unavailable(describe(err)),
        }
    }

    /// Whether secrets can be kept.
    pub fn is_available(&self) -> bool {
        matches!(self, SecretStore::Keyring(_))
    }

    /// Why there is no keyring, when there is none.
    pub fn unavailable_reason(&self) -> Option<&str> {
        match self {
            SecretStore::Unavailable(why) => Some(why),
            SecretStore::Keyring(_) => None,
        }
    }

    /// The entry of `user`: every get, set and delete goes through here, so that none runs on
    /// the UI thread.
    fn entry(&self, user: &str) -> Result<keyring_core::Entry, SecretError> {
        crate::platform::ui_thread::check("keyring");
        match self {
            SecretStore::Keyring(store) => {
                store.build(SERVICE, user, None).map_err(|e| SecretError::Keyring(describe(&e)))
            }
            SecretStore::Unavailable(why) => Err(SecretError::Unavailable(why.clone())),
        }
    }

    /// The client secret of a profile, if one is stored.
    pub fn client_secret(&self, profile: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(&secret_user(profile))?.get_password() {
            Ok(secret) => Ok(Some(Secret::new(secret))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }

    /// Stores the client secret of a profile.
    pub fn set_client_secret(&self, profile: &str, secret: &Secret) -> Result<(), SecretError> {
        self.entry(&secret_user(profile))?.set_password(secret.expose()).map_err(|e| SecretError::Keyring(describe(&e)))
    }

    /// Forgets the client secret of a profile (nothing to do when there is none).
    pub fn delete_client_secret(&self, profile: &str) -> Result<(), SecretError> {
        match self.entry(&secret_user(profile))?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }
}

impl SecretStore {
    /// The webhook signing secret the inspector checks deliveries with (and the in-process
    /// sandbox signs with), if one is stored.
    pub fn webhook_secret(&self) -> Result<Option<Secret>, SecretError> {
        match self.entry(WEBHOOK_SECRET_USER)?.get_password() {
            Ok(secret) => Ok(Some(Secret::new(secret))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }

    /// Stores the webhook signing secret.
    pub fn set_webhook_secret(&self, secret: &Secret) -> Result<(), SecretError> {
        self.entry(WEBHOOK_SECRET_USER)?.set_password(secret.expose()).map_err(|e| SecretError::Keyring(describe(&e)))
    }
}

const WEBHOOK_SECRET_USER: &str = "webhook-secret";

/// A password a profile's network settings need, kept in the keyring with the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkPassword {
    /// The proxy's sign-in.
    Proxy,
    /// The PKCS#12 client certificate's.
    ClientCert,
}

impl NetworkPassword {
    fn user(self, profile: &str) -> String {
        match self {
            NetworkPassword::Proxy => format!("proxy-password:{profile}"),
            NetworkPassword::ClientCert => format!("client-cert-password:{profile}"),
        }
    }

    /// What it is, in words.
    pub fn what(self) -> &'static str {
        match self {
            NetworkPassword::Proxy => "proxy password",
            NetworkPassword::ClientCert => "client certificate's password",
        }
    }
}

impl SecretStore {
    /// A network password of `profile`, if one is stored.
    pub fn network_password(&self, kind: NetworkPassword, profile: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(&kind.user(profile))?.get_password() {
            Ok(secret) => Ok(Some(Secret::new(secret))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }

    /// Stores a network password of `profile`.
    pub fn set_network_password(
        &self,
        kind: NetworkPassword,
        profile: &str,
        secret: &Secret,
    ) -> Result<(), SecretError> {
        self.entry(&kind.user(profile))?.set_password(secret.expose()).map_err(|e| SecretError::Keyring(describe(&e)))
    }

    /// Forgets a network password of `profile` (nothing to do when there is none).
    pub fn delete_network_password(&self, kind: NetworkPassword, profile: &str) -> Result<(), SecretError> {
        match self.entry(&kind.user(profile))?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }
}

impl SecretStore {
    /// The share token of the remote listener at `url` the inspector attaches to, if one is kept.
    pub fn share_token(&self, url: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(&share_token_user(url))?.get_password() {
            Ok(token) => Ok(Some(Secret::new(token))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }

    /// Keeps the share token of the remote listener at `url`.
    pub fn set_share_token(&self, url: &str, token: &Secret) -> Result<(), SecretError> {
        self.entry(&share_token_user(url))?.set_password(token.expose()).map_err(|e| SecretError::Keyring(describe(&e)))
    }
}

/// The keyring entry of a remote listener's share token (`orgql --reset` finds these by search).
fn share_token_user(url: &str) -> String {
    format!("share-token:{}", url.trim().trim_end_matches('/'))
}

/// An entry orgql keeps in the keyring, named for a person (for `orgql --reset`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptEntry {
    /// The entry's name in the keyring (its "user"; not secret).
    pub user: String,
    /// What it is, in words: "the client secret of the profile 'acme'".
    pub what: String,
}

impl SecretStore {
    /// The entries of orgql that exist in the keyring: the client secrets of `profiles`, the
    /// tokens cached under `token_keys`, the webhook secret, and every other entry of orgql's
    /// service the keyring can list (the Secret Service, the mock and the Keychain can; the
    /// Credential Manager cannot, and then the named ones are all). None without a keyring.
    pub fn kept_entries(&self, profiles: &[String], token_keys: &[String]) -> Result<Vec<KeptEntry>, SecretError> {
        crate::platform::ui_thread::check("keyring");
        let SecretStore::Keyring(store) = self else { return Ok(Vec::new()) };
        let mut named: Vec<KeptEntry> = profiles
            .iter()
            .flat_map(|p| {
                [
                    KeptEntry { user: secret_user(p), what: format!("the client secret of the profile '{p}'") },
                    KeptEntry {
                        user: NetworkPassword::Proxy.user(p),
                        what: format!("the proxy password of the profile '{p}'"),
                    },
                    KeptEntry {
                        user: NetworkPassword::ClientCert.user(p),
                        what: format!("the client certificate's password of the profile '{p}'"),
                    },
                ]
            })
            .chain(token_keys.iter().map(|key| KeptEntry { user: key.clone(), what: format!("a cached {key}") }))
            .chain([KeptEntry {
                user: WEBHOOK_SECRET_USER.to_owned(),
                what: "the webhook inspector's secret".to_owned(),
            }])
            .collect();
        let spec = std::collections::HashMap::from([("service", SERVICE)]);
        // The Credential Manager searches by a pattern of the entry's name (`USER.orgql`) only.
        let pattern = format!(r"\.{SERVICE}$");
        let by_pattern = std::collections::HashMap::from([("pattern", pattern.as_str())]);
        // A keyring that cannot search (or refuses the query) leaves the named entries.
        let found = store.search(&spec).or_else(|_| store.search(&by_pattern)).unwrap_or_default();
        for entry in found {
            if let Some((service, user)) = entry.get_specifiers()
                && service == SERVICE
                && !named.iter().any(|kept| kept.user == user)
            {
                let what = if user.starts_with("token ") {
                    format!("a cached {user}")
                } else if let Some(url) = user.strip_prefix("share-token:") {
                    format!("the share token of the remote listener {url}")
                } else {
                    format!("the entry '{user}'")
                };
                named.push(KeptEntry { user, what });
            }
        }
        let mut kept = Vec::new();
        for entry in named {
            match self.entry(&entry.user)?.get_secret() {
                Ok(_) => kept.push(entry),
                Err(KeyringError::NoEntry) => {}
                Err(e) => return Err(SecretError::Keyring(describe(&e))),
            }
        }
        Ok(kept)
    }

    /// Deletes a kept entry (nothing to do when it is gone already).
    pub fn delete_kept(&self, kept: &KeptEntry) -> Result<(), SecretError> {
        match self.entry(&kept.user)?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(e) => Err(SecretError::Keyring(describe(&e))),
        }
    }
}

fn secret_user(profile: &str) -> String {
    format!("client-secret:{profile}")
}

/// A keyring error in words. The variants that carry stored bytes are named, never printed.
fn describe(err: &KeyringError) -> String {
    match err {
        KeyringError::BadEncoding(_) => "a stored value is not text".to_owned(),
        KeyringError::BadDataFormat(_, _) => "a stored value has an unexpected format".to_owned(),
        KeyringError::Ambiguous(_) => "several matching entries".to_owned(),
        other => other.to_string(),
    }
}

impl TokenStore for SecretStore {
    fn load(&self, key: &str) -> Option<Token> {
        let text = self.entry(key).ok()?.get_password().ok()?;
        serde_json::from_str(&text).ok()
    }

    fn save(&self, key: &str, token: &Token) {
        let Ok(entry) = self.entry(key) else { return };
        match serde_json::to_string(token) {
            Ok(text) => match entry.set_password(&text) {
                Ok(()) => {}
                // The Credential Manager keeps at most 2,560 bytes an entry; a service's long
                // token (a JWT with many claims) is then asked for again by each command.
                Err(KeyringError::TooLong(_, limit)) => {
                    static SAID: std::sync::Once = std::sync::Once::new();
                    SAID.call_once(|| {
                        tracing::info!(
                            "the access token ({} bytes) is longer than the OS keyring keeps in one entry ({limit}); \
                             it is not cached, and each command asks the service for a new one",
                            text.len()
                        );
                    });
                }
                Err(e) => tracing::debug!("the token could not be kept in the keyring: {}", describe(&e)),
            },
            Err(e) => tracing::debug!("the token could not be encoded: {e}"),
        }
    }

    fn forget(&self, key: &str) {
        if let Ok(entry) = self.entry(key)
            && let Err(e) = entry.delete_credential()
            && !matches!(e, KeyringError::NoEntry)
        {
            tracing::debug!("the token could not be removed from the keyring: {}", describe(&e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mock() -> SecretStore {
        SecretStore::Keyring(keyring_core::mock::Store::new().unwrap())
    }

    #[test]
    fn keeps_and_forgets_a_secret() {
        let store = mock();
        assert_eq!(store.client_secret("p").unwrap(), None);
        store.set_client_secret("p", &Secret::new("s3cret")).unwrap();
        assert_eq!(store.client_secret("p").unwrap().unwrap().expose(), "s3cret");
        store.delete_client_secret("p").unwrap();
        store.delete_client_secret("p").unwrap();
        assert_eq!(store.client_secret("p").unwrap(), None);
    }

    #[test]
    fn lists_and_deletes_the_kept_entries() {
        let store = mock();
        store.set_client_secret("acme", &Secret::new("s1")).unwrap();
        store.set_webhook_secret(&Secret::new("whsec_x")).unwrap();
        let token = Token {
            access_token: Secret::new("t"),
            expires_at: chrono::Utc::now(),
            lifetime_secs: 60,
            scopes: "users.read".parse().unwrap(),
        };
        store.save("token https://a.example x users.read", &token);
        // Named but absent entries are left out; the token is found by search.
        let kept = store.kept_entries(&["acme".into(), "gone".into()], &[]).unwrap();
        let users: Vec<&str> = kept.iter().map(|k| k.user.as_str()).collect();
        assert_eq!(users, ["client-secret:acme", "webhook-secret", "token https://a.example x users.read"]);
        assert_eq!(kept[0].what, "the client secret of the profile 'acme'");
        for entry in &kept {
            store.delete_kept(entry).unwrap();
        }
        assert!(store.kept_entries(&["acme".into()], &[]).unwrap().is_empty());
        assert!(SecretStore::Unavailable("none".into()).kept_entries(&["acme".into()], &[]).unwrap().is_empty());
    }

    #[test]
    fn without_a_keyring_says_what_to_do() {
        let store = SecretStore::Unavailable("no D-Bus session".into());
        let err = store.client_secret("p").unwrap_err().to_string();
        assert!(err.contains("ORGQL_CLIENT_SECRET") && err.contains("no D-Bus session"), "{err}");
    }
}
