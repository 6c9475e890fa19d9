//! How a command finds its connection: `--profile NAME`, or `--base-url`, `--client-id` and
//! `--scope` with the secret from `ORGQL_CLIENT_SECRET`. A secret is never an argument.

use std::sync::Arc;

use clap::Args;

use std::path::PathBuf;

use super::Failure;
use crate::api::{BaseUrl, Client, ClientOptions, Credentials, TokenStore};
use crate::net::{Network, NetworkSettings, Origin, ProxySetting};
use crate::profiles::{NetworkPassword, ProfileFile, SECRET_ENV, SecretStore};
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
    #[command(flatten)]
    pub network: Box<NetworkArgs>,
    /// The profile's secret when the caller already has it (a scheduled delivery's, read with
    /// nobody signed in): asked before the keyring and the environment. Never an argument.
    #[arg(skip)]
    pub given_secret: Option<Secret>,
}

/// The network options of a connection (kept in a profile by `orgql profile add`).
#[derive(Args, Debug, Clone, Default)]
pub struct NetworkArgs {
    /// The proxy: http://[USER@]host:port, "system" (the environment's HTTPS_PROXY…, else the
    /// system's settings; the default) or "none". The password: ORGQL_PROXY_PASSWORD or the
    /// profile's keyring entry.
    #[arg(long, value_name = "URL|system|none")]
    pub proxy: Option<ProxySetting>,
    /// A PEM file of extra roots to trust besides the system's (repeatable).
    #[arg(long = "ca-file", value_name = "PEM")]
    pub ca_files: Vec<PathBuf>,
    /// A client certificate: PEM with its key, or PKCS#12 (.p12/.pfx) whose password is in
    /// ORGQL_CLIENT_CERT_PASSWORD or the profile's keyring entry.
    #[arg(long, value_name = "FILE")]
    pub client_cert: Option<PathBuf>,
    /// Trust the server certificate with this SHA-256 fingerprint as it is (a self-signed
    /// development server), instead of a root.
    #[arg(long, value_name = "HEX")]
    pub pin_sha256: Option<String>,
}

impl NetworkArgs {
    /// These options as a layer of settings, with paths made absolute (to be kept in a profile).
    pub fn settings(&self) -> NetworkSettings {
        let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
        NetworkSettings {
            proxy: self.proxy.clone(),
            ca_files: self.ca_files.iter().map(absolute).collect(),
            client_cert: self.client_cert.as_ref().map(absolute),
            pinned_sha256: self.pin_sha256.as_deref().map(crate::net::normalize_fingerprint),
        }
    }
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
        let options = ClientOptions {
            timeout: std::time::Duration::from_secs(self.timeout.max(1)),
            network: self.network(&store)?,
            ..Default::default()
        };
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

    /// The network settings of the connection: the machine's and the person's settings files,
    /// the profile's, then the command line's; passwords from the environment, else the
    /// profile's keyring entries.
    pub fn network(&self, store: &SecretStore) -> Result<Network, Failure> {
        let mut network = Network::from_files().map_err(Failure::usage)?;
        if let Some(name) = &self.profile {
            let profile = ProfileFile::default_location().and_then(|file| file.get(name)).map_err(Failure::usage)?;
            network = network.with_layer(Origin::Profile(name.clone()), profile.network);
            let kept = |kind| match store.network_password(kind, name) {
                Ok(secret) => secret,
                Err(err) => {
                    tracing::debug!("{err}");
                    None
                }
            };
            if network.proxy_password.is_none() && store.is_available() {
                network.proxy_password = kept(NetworkPassword::Proxy);
            }
            if network.client_cert_password.is_none() && store.is_available() {
                network.client_cert_password = kept(NetworkPassword::ClientCert);
            }
        }
        Ok(network.with_layer(Origin::CommandLine, self.network.settings()))
    }

    fn credentials(&self, store: &SecretStore) -> Result<Credentials, Failure> {
        if let Some(name) = &self.profile {
            let profile = ProfileFile::default_location().and_then(|file| file.get(name)).map_err(Failure::usage)?;
            let stored = match &self.given_secret {
                Some(given) => Some(given.clone()),
                None => store.client_secret(name).unwrap_or_else(|err| {
                    tracing::info!("{err}");
                    None
                }),
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
