//! How a command finds its connection: `--profile NAME`, or `--base-url`, `--client-id` and
//! `--scope` with the secret from `ORGQL_CLIENT_SECRET`. A secret is never an argument.

use std::sync::Arc;

use clap::Args;

use super::Failure;
use crate::api::{BaseUrl, Client, ClientOptions, Credentials, TokenStore};
use crate::profiles::{ProfileFile, SECRET_ENV, SecretStore};
use crate::scopes::ScopeSet;
use crate::secret::Secret;

/// Connection options shared by the commands that talk to a service.
#[derive(Args, Debug, Clone)]
pub struct ConnectionArgs {
    /// A saved profile (see `orgql profile add`).
    #[arg(long, conflicts_with_all = ["base_url", "client_id", "scope"])]
    pub profile: Option<String>,
    /// The organization's base URL; with --client-id and --scope, and the secret in ORGQL_CLIENT_SECRET.
    #[arg(long, requires_all = ["client_id", "scope"])]
    pub base_url: Option<String>,
    /// The API client's id.
    #[arg(long, requires = "base_url")]
    pub client_id: Option<String>,
    /// Space-separated scopes, e.g. "users.read groups.read".
    #[arg(long, requires = "base_url")]
    pub scope: Option<String>,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
}

/// The keyring, unless `ORGQL_NO_KEYRING` is set (for scripts and tests that must not touch it).
pub fn secret_store() -> SecretStore {
    if std::env::var_os("ORGQL_NO_KEYRING").is_some_and(|v| !v.is_empty()) {
        SecretStore::Unavailable("ORGQL_NO_KEYRING is set".to_owned())
    } else {
        SecretStore::system()
    }
}

fn env_secret() -> Option<Secret> {
    std::env::var(SECRET_ENV).ok().filter(|s| !s.is_empty()).map(Secret::new)
}

impl ConnectionArgs {
    /// A client for the chosen connection, with tokens kept in the keyring when there is one.
    pub fn client(&self) -> Result<Arc<Client>, Failure> {
        self.client_and_key().map(|(client, _)| client)
    }

    /// A client, and the key the connection's schema versions are kept under: for a profile
    /// the app's (its name and address), else the address.
    pub fn client_and_key(&self) -> Result<(Arc<Client>, String), Failure> {
        let store = secret_store();
        let credentials = self.credentials(&store)?;
        let key = match &self.profile {
            Some(name) => format!("{name} {}", credentials.base_url.as_str()),
            None => credentials.base_url.as_str().to_owned(),
        };
        let options =
            ClientOptions { timeout: std::time::Duration::from_secs(self.timeout.max(1)), ..Default::default() };
        let tokens: Option<Arc<dyn TokenStore>> = match &store {
            SecretStore::Keyring(_) => Some(Arc::new(store.clone())),
            SecretStore::Unavailable(_) => None,
        };
        let client = Client::new(credentials, options, tokens).map(Arc::new).map_err(Failure::from)?;
        Ok((client, key))
    }

    /// Where a program written by `--print-code` sends its requests: the connection's address,
    /// client and scopes (its secret is checked for, never written).
    pub fn code_target(&self) -> Result<crate::codegen::Target, Failure> {
        let credentials = self.credentials(&secret_store())?;
        Ok(crate::codegen::Target {
            base_url: credentials.base_url.as_str().trim_end_matches('/').to_owned(),
            client_id: credentials.client_id,
            scopes: credentials.scopes.to_string(),
        })
    }

    fn credentials(&self, store: &SecretStore) -> Result<Credentials, Failure> {
        if let Some(name) = &self.profile {
            let profile = ProfileFile::default_location().and_then(|file| file.get(name)).map_err(Failure::usage)?;
            let stored = match store.client_secret(name) {
                Ok(secret) => secret,
                Err(err) => {
                    tracing::info!("{err}");
                    None
                }
            };
            let secret = stored.or_else(env_secret).ok_or_else(|| {
                Failure::usage(format!(
                    "the profile '{name}' has no stored secret; store one with 'orgql profile add {name} …' or set {SECRET_ENV}"
                ))
            })?;
            return profile.credentials(secret).map_err(Failure::from);
        }
        let (Some(base_url), Some(client_id), Some(scope)) = (&self.base_url, &self.client_id, &self.scope) else {
            return Err(Failure::usage(
                "say which service to use: --profile NAME, or --base-url URL --client-id ID --scope \"…\" with the secret in ORGQL_CLIENT_SECRET",
            ));
        };
        let scopes = ScopeSet::parse(scope).map_err(|e| Failure::usage(format!("--scope: {e}")))?;
        if scopes.is_empty() {
            return Err(Failure::usage("--scope is empty; give the scopes the query needs, e.g. \"users.read\""));
        }
        let client_secret = env_secret()
            .ok_or_else(|| Failure::usage(format!("set the client secret in the environment variable {SECRET_ENV}")))?;
        Ok(Credentials { base_url: BaseUrl::parse(base_url)?, client_id: client_id.clone(), client_secret, scopes })
    }
}
