//! Connection profiles: named (base URL, client id, scopes) in a TOML file in the platform's
//! config directory; their secrets in the OS keyring and nowhere else.

mod secrets;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use secrets::{KeptEntry, NetworkPassword, SECRET_ENV, SecretStore};

use crate::api::{ApiError, BaseUrl, Credentials};
use crate::scopes::ScopeSet;
use crate::secret::Secret;

/// A named connection, without its secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// The name, e.g. `acme-test`.
    #[serde(skip)]
    pub name: String,
    /// The organization's base URL.
    pub base_url: String,
    /// The API client's id.
    pub client_id: String,
    /// The scopes to request, space-separated on disk.
    #[serde(with = "scope_list")]
    pub scopes: ScopeSet,
    /// Its network settings (proxy, extra roots, client certificate, pinned certificate); the
    /// passwords are in the keyring.
    #[serde(default, flatten)]
    pub network: crate::net::NetworkSettings,
}

mod scope_list {
    use crate::scopes::ScopeSet;

    pub fn serialize<S: serde::Serializer>(scopes: &ScopeSet, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&scopes.to_string())
    }

    /// Lenient: a scope orgql does not know (a newer service's, a typo) is left out with a
    /// warning, so that one word does not make every profile of the file unusable.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ScopeSet, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        Ok(text
            .split_whitespace()
            .filter_map(|word| match word.parse::<crate::scopes::Scope>() {
                Ok(scope) => Some(scope),
                Err(_) => {
                    tracing::warn!(
                        "profiles.toml names the scope '{}', which orgql does not know; it is left out",
                        crate::platform::terminal::printable(word)
                    );
                    None
                }
            })
            .collect())
    }
}

impl Profile {
    /// The credentials of this profile with `secret`.
    pub fn credentials(&self, secret: Secret) -> Result<Credentials, ApiError> {
        Ok(Credentials {
            base_url: BaseUrl::parse(&self.base_url)?,
            client_id: self.client_id.clone(),
            client_secret: secret,
            scopes: self.scopes,
        })
    }
}

/// Why profiles could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// No home or config directory is known.
    #[error("no config directory is known for this user; set XDG_CONFIG_HOME (or HOME)")]
    NoConfigDir,
    /// The file could not be read or written.
    #[error("cannot {action} {path} ({source}); check its permissions")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not valid TOML of profiles.
    #[error("{path} is not a valid profiles file ({message}); fix it or remove it")]
    Format {
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A name that cannot be a profile's.
    #[error("'{0}' cannot be a profile name; use letters, digits, '.', '_' or '-'")]
    BadName(String),
    /// No profile has this name.
    #[error("there is no profile '{0}'; list them with 'orgql profile list'")]
    NotFound(String),
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileContents {
    #[serde(default)]
    profiles: std::collections::BTreeMap<String, Profile>,
}

/// The profiles of a profiles file's bytes, sorted by name, or what is wrong with them (one
/// sentence, never a panic, whatever the bytes).
pub fn parse(bytes: &[u8]) -> Result<Vec<Profile>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!("it is not UTF-8 text: the byte at offset {} is not UTF-8 (save it as UTF-8)", e.valid_up_to())
    })?;
    let contents: FileContents = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    Ok(contents.profiles.into_iter().map(|(name, profile)| Profile { name, ..profile }).collect())
}

/// The profiles file.
#[derive(Debug, Clone)]
pub struct ProfileFile {
    path: PathBuf,
}

impl ProfileFile {
    /// The file in the platform's config directory (`$XDG_CONFIG_HOME/orgql/profiles.toml`).
    pub fn default_location() -> Result<Self, ProfileError> {
        let dirs = directories::ProjectDirs::from("", "", "orgql").ok_or(ProfileError::NoConfigDir)?;
        Ok(ProfileFile { path: dirs.config_dir().join("profiles.toml") })
    }

    /// A file at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        ProfileFile { path: path.into() }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every profile, sorted by name; none when the file does not exist yet.
    pub fn load(&self) -> Result<Vec<Profile>, ProfileError> {
        crate::platform::ui_thread::check("profiles file");
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(ProfileError::Io { action: "read", path: self.path.clone(), source }),
        };
        parse(&bytes).map_err(|message| ProfileError::Format { path: self.path.clone(), message })
    }

    /// The profile named `name`.
    pub fn get(&self, name: &str) -> Result<Profile, ProfileError> {
        self.load()?.into_iter().find(|p| p.name == name).ok_or_else(|| ProfileError::NotFound(name.to_owned()))
    }

    /// Adds or replaces a profile.
    pub fn upsert(&self, profile: Profile) -> Result<(), ProfileError> {
        check_name(&profile.name)?;
        let mut profiles = self.load()?;
        profiles.retain(|p| p.name != profile.name);
        profiles.push(profile);
        self.save(profiles)
    }

    /// Removes a profile; an error when there is none of that name.
    pub fn remove(&self, name: &str) -> Result<(), ProfileError> {
        let mut profiles = self.load()?;
        let before = profiles.len();
        profiles.retain(|p| p.name != name);
        if profiles.len() == before {
            return Err(ProfileError::NotFound(name.to_owned()));
        }
        self.save(profiles)
    }

    /// Writes the file whole, through a temporary file and a rename, so that it is never half written.
    fn save(&self, profiles: Vec<Profile>) -> Result<(), ProfileError> {
        crate::platform::ui_thread::check("profiles file");
        let contents = FileContents { profiles: profiles.into_iter().map(|p| (p.name.clone(), p)).collect() };
        let text = toml::to_string_pretty(&contents)
            .map_err(|e| ProfileError::Format { path: self.path.clone(), message: e.to_string() })?;
        let io = |source| ProfileError::Io { action: "write", path: self.path.clone(), source };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io)?;
        file.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

/// Checks that a profile name is made of letters, digits, `.`, `_` and `-`.
pub fn check_name(name: &str) -> Result<(), ProfileError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok { Ok(()) } else { Err(ProfileError::BadName(name.to_owned())) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str) -> Profile {
        Profile {
            name: name.into(),
            base_url: "https://acme.example.com".into(),
            client_id: "cid".into(),
            scopes: "users.read groups.read".parse().unwrap(),
            network: Default::default(),
        }
    }

    #[test]
    fn round_trips_profiles_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProfileFile::at(dir.path().join("nested/profiles.toml"));
        assert!(file.load().unwrap().is_empty());
        file.upsert(profile("b")).unwrap();
        file.upsert(profile("a")).unwrap();
        file.upsert(Profile { client_id: "other".into(), ..profile("a") }).unwrap();
        let names: Vec<_> = file.load().unwrap().into_iter().map(|p| (p.name, p.client_id)).collect();
        assert_eq!(names, [("a".into(), "other".into()), ("b".into(), "cid".into())]);
        let text = std::fs::read_to_string(file.path()).unwrap();
        assert!(text.contains("scopes = \"users.read groups.read\""), "{text}");
        file.remove("a").unwrap();
        assert!(matches!(file.remove("a"), Err(ProfileError::NotFound(_))));
    }

    #[test]
    fn network_settings_are_kept_with_the_profile() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProfileFile::at(dir.path().join("profiles.toml"));
        let network = crate::net::NetworkSettings {
            proxy: Some(crate::net::ProxySetting::Url("http://me@10.0.0.8:3128".into())),
            ca_files: vec!["/etc/acme/root.pem".into()],
            client_cert: Some("/home/me/me.p12".into()),
            pinned_sha256: Some("ab".repeat(32)),
        };
        file.upsert(Profile { network: network.clone(), ..profile("dev") }).unwrap();
        file.upsert(profile("plain")).unwrap();
        let text = std::fs::read_to_string(file.path()).unwrap();
        assert!(text.contains("proxy = \"http://me@10.0.0.8:3128\""), "{text}");
        let loaded = file.load().unwrap();
        assert_eq!(loaded[0].network, network);
        assert!(loaded[1].network.is_empty());
    }

    #[test]
    fn a_broken_file_says_where_and_what() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProfileFile::at(dir.path().join("profiles.toml"));
        std::fs::write(file.path(), "[profiles.x]\nbase_url = 3\n").unwrap();
        let err = file.load().unwrap_err().to_string();
        assert!(err.contains("profiles.toml") && err.contains("not a valid profiles file"), "{err}");
        assert!(check_name("ok-name_1.2").is_ok() && check_name("a b").is_err() && check_name("").is_err());
    }

    #[test]
    fn a_file_that_is_not_utf8_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let file = ProfileFile::at(dir.path().join("profiles.toml"));
        std::fs::write(file.path(), b"[profiles.x]\nbase_url = \"\xff\"\n").unwrap();
        let err = file.load().unwrap_err().to_string();
        assert!(err.contains("not UTF-8 text") && !err.contains("permissions"), "{err}");
    }

    #[test]
    fn an_unknown_scope_leaves_the_profiles_usable() {
        let text = "[profiles.a]\nbase_url = \"https://a.example\"\nclient_id = \"c\"\nscopes = \"users.read courses.read\"\n\
                    [profiles.b]\nbase_url = \"https://b.example\"\nclient_id = \"d\"\nscopes = \"groups.read\"\n";
        let profiles = parse(text.as_bytes()).expect("both profiles");
        assert_eq!(profiles.len(), 2);
        assert_eq!(profiles[0].scopes.to_string(), "users.read");
        assert_eq!(profiles[1].scopes.to_string(), "groups.read");
    }
}
