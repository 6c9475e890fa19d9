//! The network settings of a connection, in layers: the machine-wide file IT deploys
//! (`/etc/orgql/network.toml`, `%ProgramData%\orgql\network.toml`), the person's
//! (`network.toml` beside profiles.toml), the profile, the command line. A later layer's proxy,
//! client certificate and pin win; extra roots add up. Passwords are never in these files: they
//! come from the keyring or the environment ([`PROXY_PASSWORD_ENV`], [`CLIENT_CERT_PASSWORD_ENV`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::SetupError;
use crate::secret::Secret;

/// The environment variable holding the proxy's password.
pub const PROXY_PASSWORD_ENV: &str = "ORGQL_PROXY_PASSWORD";
/// The environment variable holding the password of a PKCS#12 client certificate.
pub const CLIENT_CERT_PASSWORD_ENV: &str = "ORGQL_CLIENT_CERT_PASSWORD";

/// Which proxy a connection uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProxySetting {
    /// The environment's, else the system's (the default).
    #[default]
    System,
    /// None: always direct.
    None,
    /// This proxy (`http://[USER@]host:port`).
    Url(String),
}

impl std::str::FromStr for ProxySetting {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "" | "system" => Ok(ProxySetting::System),
            "none" | "direct" => Ok(ProxySetting::None),
            _ => {
                let with_scheme = super::bypass::with_scheme(text, "http");
                let url = reqwest::Url::parse(&with_scheme).map_err(|e| {
                    format!("'{text}' is not a proxy URL ({e}); give it as http://host:port, system or none")
                })?;
                if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                    return Err(format!("'{text}' is not an HTTP proxy; give it as http://host:port, system or none"));
                }
                if url.password().is_some() {
                    return Err(format!(
                        "the proxy URL holds a password; give only the user (http://USER@host:port) and the password in {PROXY_PASSWORD_ENV} or the profile's keyring entry"
                    ));
                }
                Ok(ProxySetting::Url(with_scheme))
            }
        }
    }
}

impl std::fmt::Display for ProxySetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxySetting::System => f.write_str("system"),
            ProxySetting::None => f.write_str("none"),
            ProxySetting::Url(url) => f.write_str(url),
        }
    }
}

impl Serialize for ProxySetting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for ProxySetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The network settings of one layer (a settings file, a profile, the command line).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkSettings {
    /// The proxy, when this layer sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxySetting>,
    /// Extra roots (PEM files) trusted besides the system's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ca_files: Vec<PathBuf>,
    /// A client certificate: PEM with its key, or PKCS#12 (`.p12`/`.pfx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<PathBuf>,
    /// The SHA-256 fingerprint of a server certificate trusted as it is (a self-signed
    /// development server), hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned_sha256: Option<String>,
}

impl NetworkSettings {
    /// Whether it sets nothing.
    pub fn is_empty(&self) -> bool {
        *self == NetworkSettings::default()
    }
}

/// Where a layer of settings came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The machine-wide file.
    MachineFile(PathBuf),
    /// The person's file.
    PersonFile(PathBuf),
    /// A profile.
    Profile(String),
    /// The command line's options.
    CommandLine,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::MachineFile(path) | Origin::PersonFile(path) => write!(f, "{}", path.display()),
            Origin::Profile(name) => write!(f, "the profile '{name}'"),
            Origin::CommandLine => f.write_str("the command line"),
        }
    }
}

/// The network settings of a connection: its layers, lowest first, and the passwords.
#[derive(Debug, Clone, Default)]
pub struct Network {
    /// The layers, lowest first (machine file, person's file, profile, command line).
    pub layers: Vec<(Origin, NetworkSettings)>,
    /// The proxy's password (keyring or environment).
    pub proxy_password: Option<Secret>,
    /// The client certificate's password (keyring or environment).
    pub client_cert_password: Option<Secret>,
}

impl Network {
    /// The settings files' layers (machine-wide, then the person's) with the passwords of the
    /// environment; a file that exists but cannot be read is an error naming it.
    pub fn from_files() -> Result<Self, SetupError> {
        let mut layers = Vec::new();
        for (path, origin) in [
            (machine_settings_path(), Origin::MachineFile as fn(PathBuf) -> Origin),
            (person_settings_path(), Origin::PersonFile),
        ] {
            if let Some(path) = path
                && let Some(settings) = read_settings(&path)?
            {
                layers.push((origin(path), settings));
            }
        }
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty()).map(Secret::new);
        Ok(Network {
            layers,
            proxy_password: env(PROXY_PASSWORD_ENV),
            client_cert_password: env(CLIENT_CERT_PASSWORD_ENV),
        })
    }

    /// Adds a layer above the others (a profile, then the command line).
    pub fn with_layer(mut self, origin: Origin, settings: NetworkSettings) -> Self {
        if !settings.is_empty() {
            self.layers.push((origin, settings));
        }
        self
    }

    /// The proxy setting that wins, and where it came from (none: the default, `system`).
    pub fn proxy(&self) -> Option<(&Origin, &ProxySetting)> {
        self.layers.iter().rev().find_map(|(origin, s)| s.proxy.as_ref().map(|p| (origin, p)))
    }

    /// Every extra roots file, with where it was set.
    pub fn ca_files(&self) -> Vec<(&Origin, PathBuf)> {
        let mut files: Vec<(&Origin, PathBuf)> = Vec::new();
        for (origin, settings) in &self.layers {
            for file in &settings.ca_files {
                if !files.iter().any(|(_, f)| f == file) {
                    files.push((origin, file.clone()));
                }
            }
        }
        files
    }

    /// The client certificate that wins, with where it was set.
    pub fn client_cert(&self) -> Option<(&Origin, &Path)> {
        self.layers.iter().rev().find_map(|(origin, s)| s.client_cert.as_deref().map(|p| (origin, p)))
    }

    /// The pinned fingerprint that wins, with where it was set.
    pub fn pinned(&self) -> Option<(&Origin, String)> {
        self.layers.iter().rev().find_map(|(origin, s)| s.pinned_sha256.clone().map(|p| (origin, p)))
    }

    /// Which file or place each setting came from, for `orgql doctor`.
    pub fn origin_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (origin, settings) in &self.layers {
            let mut set = Vec::new();
            if let Some(proxy) = &settings.proxy {
                set.push(format!("proxy {}", super::proxy::without_password(&proxy.to_string())));
            }
            for file in &settings.ca_files {
                set.push(format!("extra roots {}", file.display()));
            }
            if let Some(file) = &settings.client_cert {
                set.push(format!("client certificate {}", file.display()));
            }
            if settings.pinned_sha256.is_some() {
                set.push("a pinned certificate".to_owned());
            }
            lines.push(format!("settings: {origin}: {}", set.join(", ")));
        }
        lines
    }
}

/// The machine-wide settings file IT deploys: `/etc/orgql/network.toml`, or
/// `%ProgramData%\orgql\network.toml` on Windows (`ORGQL_MACHINE_CONFIG_DIR` names another folder).
pub fn machine_settings_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ORGQL_MACHINE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("network.toml"));
    }
    if std::env::consts::OS == "windows" {
        let data = std::env::var_os("ProgramData").filter(|d| !d.is_empty())?;
        Some(PathBuf::from(data).join("orgql").join("network.toml"))
    } else {
        Some(PathBuf::from("/etc/orgql/network.toml"))
    }
}

/// The person's settings file, beside profiles.toml.
pub fn person_settings_path() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "orgql")?;
    Some(dirs.config_dir().join("network.toml"))
}

/// A settings file's layer; `None` when it does not exist.
fn read_settings(path: &Path) -> Result<Option<NetworkSettings>, SetupError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SetupError(format!("the network settings file {} cannot be read ({e})", path.display()))),
    };
    let settings: NetworkSettings = toml::from_str(&text).map_err(|e| {
        SetupError(format!(
            "the network settings file {} is not valid ({}); fix it or ask IT",
            path.display(),
            e.message()
        ))
    })?;
    // Relative paths in a file are relative to the file's folder.
    let dir = path.parent().unwrap_or(Path::new("."));
    Ok(Some(NetworkSettings {
        ca_files: settings.ca_files.iter().map(|f| dir.join(f)).collect(),
        client_cert: settings.client_cert.map(|f| dir.join(f)),
        ..settings
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_settings_read_as_a_person_writes_them() {
        assert_eq!("system".parse::<ProxySetting>().unwrap(), ProxySetting::System);
        assert_eq!("None".parse::<ProxySetting>().unwrap(), ProxySetting::None);
        assert_eq!("10.0.0.8:3128".parse::<ProxySetting>().unwrap(), ProxySetting::Url("http://10.0.0.8:3128".into()));
        let err = "http://me:pw@proxy:3128".parse::<ProxySetting>().unwrap_err();
        assert!(err.contains(PROXY_PASSWORD_ENV) && !err.contains("pw@"), "{err}");
        assert!("socks5://proxy:1080".parse::<ProxySetting>().is_err());
    }

    #[test]
    fn later_layers_win_and_extra_roots_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let machine = dir.path().join("network.toml");
        std::fs::write(&machine, "proxy = \"http://10.0.0.8:3128\"\nca_files = [\"acme.pem\"]\n").unwrap();
        let layer = read_settings(&machine).unwrap().unwrap();
        assert_eq!(layer.ca_files, [dir.path().join("acme.pem")]);
        let network = Network::default()
            .with_layer(Origin::MachineFile(machine.clone()), layer)
            .with_layer(
                Origin::Profile("dev".into()),
                NetworkSettings { ca_files: vec!["/x/dev.pem".into()], ..Default::default() },
            )
            .with_layer(Origin::CommandLine, NetworkSettings { proxy: Some(ProxySetting::None), ..Default::default() });
        assert_eq!(network.proxy(), Some((&Origin::CommandLine, &ProxySetting::None)));
        assert_eq!(network.ca_files().len(), 2);
        let lines = network.origin_lines();
        assert!(lines[0].contains("network.toml") && lines[0].contains("proxy http://10.0.0.8:3128"), "{lines:?}");
        std::fs::write(&machine, "proxy = 3\n").unwrap();
        let err = read_settings(&machine).unwrap_err().to_string();
        assert!(err.contains("network.toml") && err.contains("not valid"), "{err}");
    }
}
