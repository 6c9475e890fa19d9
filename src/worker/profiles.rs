//! Profiles off the UI thread: the profiles file read at start-up, saves and deletes (the file
//! and the keyring) one after another in the order the UI asked, and the client secret of a
//! profile read from the keyring when a request needs it.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use tokio::sync::mpsc;

use super::{Connection, JobId, Shared};
use crate::api::{ApiError, Client, TokenState};
use crate::profiles::{NetworkPassword, Profile, ProfileFile, SECRET_ENV};
use crate::secret::Secret;

/// What the profiles window asks.
#[derive(Debug, Clone)]
pub enum ProfilesCommand {
    /// Write a profile to the profiles file (in place of `original` when renamed) and its
    /// secret, when one was typed, to the keyring; answered by [`ProfilesEvent::Saved`].
    Save {
        /// The profile.
        profile: Profile,
        /// Its name before this edit, when it was saved before.
        original: Option<String>,
        /// The secret typed (none: the one kept stays).
        secret: Option<Secret>,
        /// The network passwords typed (none: the kept ones stay).
        passwords: NetworkPasswords,
    },
    /// Remove a profile from the profiles file and its secret from the keyring; answered by
    /// [`ProfilesEvent::Deleted`].
    Delete(Profile),
    /// Request a fresh token and report what it grants ([`ProfilesEvent::Tested`]).
    Test {
        /// The test (its event carries it).
        job: JobId,
        connection: Connection,
        /// The network passwords typed in the form, for this test.
        passwords: NetworkPasswords,
    },
}

/// The passwords a profile's network settings may need, as typed in the form: kept in the
/// keyring with the profile, and in memory for this session.
#[derive(Debug, Clone, Default)]
pub struct NetworkPasswords {
    /// The proxy's.
    pub proxy: Option<Secret>,
    /// The PKCS#12 client certificate's.
    pub client_cert: Option<Secret>,
}

/// What comes back to the profiles window.
#[derive(Debug, Clone)]
pub enum ProfilesEvent {
    /// The profiles of the profiles file, read at start-up, or why they could not be (one sentence).
    Loaded(Result<Vec<Profile>, String>),
    /// A save ended: `Ok(None)` all done, `Ok(Some(notice))` saved with something the user
    /// should know, `Err` not written to the file.
    Saved {
        /// The profile's name.
        name: String,
        /// What came of it.
        result: Result<Option<String>, String>,
    },
    /// A deletion ended: `Ok(None)` all done, `Ok(Some(notice))` deleted with something the
    /// user should know, `Err` not deleted from the file.
    Deleted {
        /// The profile (to be listed again when it was not deleted).
        profile: Profile,
        /// What came of it.
        result: Result<Option<String>, String>,
    },
    /// A connection test ended.
    Tested {
        /// The test.
        job: JobId,
        /// What the new token grants, or why there is none.
        result: Result<TokenState, ApiError>,
        /// The route the token request took, as `orgql doctor` prints it (proxy and its source,
        /// the certificate and the store that trusted it); empty when no client could be made.
        route: Vec<String>,
    },
}

/// Hands `command` to the profiles task (saves and deletes keep their order) or starts a test.
pub(super) async fn handle(shared: &Arc<Shared>, command: ProfilesCommand, changes: &mpsc::Sender<Change>) {
    match command {
        ProfilesCommand::Save { profile, original, secret, passwords } => {
            shared.forget_secrets([profile.name.as_str()].into_iter().chain(original.as_deref()));
            shared.keep_network_passwords(&profile.name, &passwords);
            let name = profile.name.clone();
            if changes.send(Change::Save { profile, original, secret, passwords }).await.is_err() {
                let result = Err(STOPPED.to_owned());
                shared.emit(ProfilesEvent::Saved { name, result }).await;
            }
        }
        ProfilesCommand::Delete(profile) => {
            shared.forget_secrets([profile.name.as_str()]);
            if changes.send(Change::Delete(profile.clone())).await.is_err() {
                let result = Err(STOPPED.to_owned());
                shared.emit(ProfilesEvent::Deleted { profile, result }).await;
            }
        }
        ProfilesCommand::Test { job, connection, passwords } => {
            shared.keep_network_passwords(connection.name(), &passwords);
            tokio::spawn(test_connection(shared.clone(), job, connection));
        }
    }
}

/// Why a profile change was not made: the task that makes them is gone (it ends only with the worker).
const STOPPED: &str = "the profiles task has stopped; close orgql and open it again";

/// Profile changes waiting for the profiles task.
pub(super) const QUEUE: usize = 32;

/// A change of the profiles, as the UI asked for it.
pub(super) enum Change {
    /// See [`ProfilesCommand::Save`].
    Save { profile: Profile, original: Option<String>, secret: Option<Secret>, passwords: NetworkPasswords },
    /// See [`ProfilesCommand::Delete`].
    Delete(Profile),
}

/// Secrets read from the keyring, by profile name. `epoch` grows with every change of a
/// profile, so that a read that began before the change is not kept after it.
#[derive(Default)]
pub(super) struct SecretCache {
    epoch: u64,
    known: HashMap<String, Secret>,
}

impl Shared {
    /// Keeps the network passwords typed for `name` in memory for this session (a typed one
    /// replaces the one kept; none typed leaves it).
    pub(super) fn keep_network_passwords(&self, name: &str, typed: &NetworkPasswords) {
        let mut kept = self.network_passwords.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = kept.entry(name.to_owned()).or_default();
        if typed.proxy.is_some() {
            entry.proxy = typed.proxy.clone();
        }
        if typed.client_cert.is_some() {
            entry.client_cert = typed.client_cert.clone();
        }
    }

    /// The network passwords typed for `name` this session.
    pub(super) fn typed_network_passwords(&self, name: &str) -> NetworkPasswords {
        self.network_passwords.lock().unwrap_or_else(PoisonError::into_inner).get(name).cloned().unwrap_or_default()
    }

    /// Forgets what was read of these profiles' secrets (before their change is sent on, so
    /// that every later request reads the changed one).
    pub(super) fn forget_secrets<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let mut cache = self.profile_secrets.lock().unwrap_or_else(PoisonError::into_inner);
        cache.epoch += 1;
        for name in names {
            cache.known.remove(name);
        }
    }

    /// The client secret of the profile `name`: read once from the keyring (off the async
    /// threads), else `ORGQL_CLIENT_SECRET`.
    pub(super) async fn profile_secret(&self, name: &str) -> Result<Secret, ApiError> {
        let epoch = {
            let cache = self.profile_secrets.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(secret) = cache.known.get(name) {
                return Ok(secret.clone());
            }
            cache.epoch
        };
        let secrets = self.secrets.clone();
        let profile = name.to_owned();
        let stored = tokio::task::spawn_blocking(move || secrets.client_secret(&profile))
            .await
            .map_err(|e| ApiError::Config(format!("the keyring could not be read ({e}); run the query again")))?
            // No keyring, or one that refused: the environment may still have it.
            .ok()
            .flatten();
        if let Some(secret) = &stored {
            let mut cache = self.profile_secrets.lock().unwrap_or_else(PoisonError::into_inner);
            if cache.epoch == epoch {
                cache.known.insert(name.to_owned(), secret.clone());
            }
        }
        stored
            .or_else(|| std::env::var(SECRET_ENV).ok().filter(|s| !s.is_empty()).map(Secret::new))
            .ok_or_else(|| ApiError::Config(format!("the profile '{name}' has no secret; enter it in Profiles…")))
    }
}

/// Reads the profiles file (when there is one) and reports it, then applies the changes the UI
/// sends, one at a time, reporting each.
pub(super) async fn run(shared: Arc<Shared>, file: Option<ProfileFile>, mut changes: mpsc::Receiver<Change>) {
    if let Some(file) = file.clone() {
        let loaded = blocking(move || file.load().map_err(|e| e.to_string())).await;
        shared.emit(ProfilesEvent::Loaded(loaded)).await;
    }
    while let Some(change) = changes.recv().await {
        let event = match change {
            Change::Save { profile, original, secret, passwords } => {
                let name = profile.name.clone();
                let (file, secrets) = (file.clone(), shared.secrets.clone());
                let result = blocking(move || {
                    if let Some(file) = &file {
                        if let Some(original) = original.as_ref().filter(|o| **o != profile.name) {
                            file.remove(original).map_err(|e| e.to_string())?;
                        }
                        file.upsert(profile.clone()).map_err(|e| e.to_string())?;
                    }
                    for (kind, password) in [
                        (NetworkPassword::Proxy, &passwords.proxy),
                        (NetworkPassword::ClientCert, &passwords.client_cert),
                    ] {
                        if let Some(password) = password
                            && secrets.is_available()
                            && let Err(e) = secrets.set_network_password(kind, &profile.name, password)
                        {
                            return Ok(Some(format!(
                                "the profile '{}' was saved, but its {} is kept for this session only: {e}",
                                profile.name,
                                kind.what()
                            )));
                        }
                    }
                    Ok(match secret.filter(|s| !s.is_empty()) {
                        Some(secret) if secrets.is_available() => {
                            secrets.set_client_secret(&profile.name, &secret).err().map(|e| {
                                format!(
                                    "the profile '{}' was saved, but its secret is kept for this session only: {e}",
                                    profile.name
                                )
                            })
                        }
                        _ => None,
                    })
                })
                .await;
                ProfilesEvent::Saved { name, result }
            }
            Change::Delete(profile) => {
                let (file, secrets, name) = (file.clone(), shared.secrets.clone(), profile.name.clone());
                let result = blocking(move || {
                    if let Some(file) = &file {
                        file.remove(&name).map_err(|e| e.to_string())?;
                    }
                    if secrets.is_available() {
                        for kind in [NetworkPassword::Proxy, NetworkPassword::ClientCert] {
                            if let Err(e) = secrets.delete_network_password(kind, &name) {
                                return Ok(Some(format!(
                                    "the profile '{name}' was deleted, but not its {}: {e}",
                                    kind.what()
                                )));
                            }
                        }
                    }
                    Ok(secrets
                        .is_available()
                        .then(|| secrets.delete_client_secret(&name).err())
                        .flatten()
                        .map(|e| format!("the profile '{name}' was deleted, but not its secret: {e}")))
                })
                .await;
                ProfilesEvent::Deleted { profile, result }
            }
        };
        shared.emit(event).await;
    }
}

/// Runs file and keyring work on the blocking threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, String> + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(format!("the profiles task failed ({e}); try again")))
}

/// Requests a fresh token (not the cached one) and reports what it grants, with the route it took.
async fn test_connection(shared: Arc<Shared>, job: JobId, connection: Connection) {
    let mut route = Vec::new();
    let result = async {
        let credentials = client_credentials(&shared, &connection).await?;
        let fresh: Client = shared.new_client(&connection, credentials).await?;
        let token = fresh.tokens().get().await;
        route = fresh.route().lines();
        let token = token?;
        Ok(TokenState::Valid { remaining: token.remaining(), scopes: token.scopes })
    }
    .await;
    shared.emit(ProfilesEvent::Tested { job, result, route }).await;
}

async fn client_credentials(shared: &Shared, connection: &Connection) -> Result<crate::api::Credentials, ApiError> {
    match connection {
        Connection::Remote { credentials, .. } => Ok(credentials.clone()),
        Connection::Sandbox => shared.sandbox_credentials().await,
    }
}
