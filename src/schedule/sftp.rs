//! SFTP deliveries (issue 53): a finished local file sent whole or not at all to
//! `sftp://user@host[:port]/dir/`, over russh (SSH in Rust on tokio) and russh-sftp's raw client.
//!
//! A delivery is written as `.NAME.orgql-partial` in the destination folder, its size checked,
//! then renamed to NAME (replacing an older NAME: `posix-rename@openssh.com` where the server
//! offers it, else remove and rename), so nobody ever opens half a file. The server's host key
//! must match the fingerprint accepted when the schedule was added ([`host_key`]); every network
//! step (connecting, signing in, each write) has its own time limit, so a server that stops
//! answering ends in [`SftpError::Network`], never in a hang.
//!
//! Folders: `sftp://u@h/srv/exports/` is the absolute folder `/srv/exports`; `sftp://u@h/~/out/`
//! is `out` in the user's home folder (`sftp://u@h/~/` the home folder itself). Characters such as
//! spaces are written percent-encoded (`%20`).

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use russh::client;
use russh::keys::{HashAlg, PrivateKeyWithHashAlg, PublicKeyOrCertificate};
use russh_sftp::client::RawSftpSession;
use russh_sftp::client::error::Error as RawError;
use russh_sftp::protocol::{FileAttributes, OpenFlags, Packet, StatusCode};
use tokio_util::sync::CancellationToken;

/// Bytes per SFTP write (what OpenSSH's own client sends) and writes in flight at once.
const CHUNK: usize = 32 * 1024;
const IN_FLIGHT: usize = 16;
/// Where a delivery is written before it is renamed: `.NAME` + this.
pub const PARTIAL_SUFFIX: &str = ".orgql-partial";

/// `sftp://user@host[:port]/dir/`: port 22 unless given; `dir` is `/abs/path`, `~` (the home
/// folder) or `~/path` (under the home folder), without a trailing slash (but `/` itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SftpTarget {
    pub user: String,
    pub host: String,
    pub port: u16,
    pub dir: String,
}

const FORM: &str =
    "write it as sftp://user@host[:port]/folder/ (or sftp://user@host/~/folder/ for a folder in the user's home)";

impl SftpTarget {
    /// Parses `sftp://user@host[:port]/dir/` (IPv6 hosts in brackets: `sftp://u@[::1]:2222/x/`).
    pub fn parse(url: &str) -> Result<SftpTarget, String> {
        let bad = |why: &str| format!("“{url}” is not an SFTP address ({why}); {FORM}.");
        let rest = match url.trim().split_at_checked(7) {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("sftp://") => rest,
            _ => return Err(bad("it does not start with sftp://")),
        };
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let Some((user, hostport)) = authority.rsplit_once('@') else {
            return Err(bad("the user name and @ are missing"));
        };
        let user = decode(user).ok_or_else(|| bad("the user name is badly percent-encoded"))?;
        if user.is_empty() {
            return Err(bad("the user name is empty"));
        }
        let (host, port) = if let Some(inner) = hostport.strip_prefix('[') {
            let (host, after) = inner.split_once(']').ok_or_else(|| bad("a ] is missing after the IPv6 address"))?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(bad("the address in brackets is not IPv6"));
            }
            match after {
                "" => (host, None),
                _ => (host, Some(after.strip_prefix(':').ok_or_else(|| bad("a : must come before the port"))?)),
            }
        } else {
            let (host, port) = hostport.split_once(':').map_or((hostport, None), |(h, p)| (h, Some(p)));
            if host.is_empty() || host.contains(|c: char| c.is_whitespace() || "[]@%".contains(c)) {
                return Err(bad("the host name is missing or not valid"));
            }
            (host, port)
        };
        let port = match port {
            None => 22,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
        };
        let path = decode(path).ok_or_else(|| bad("the folder is badly percent-encoded"))?;
        if path.contains(['\0', '\n', '\r', '?', '#']) {
            return Err(bad("the folder holds a character a path cannot"));
        }
        let path = path.trim_end_matches('/');
        let dir = if path == "~" || path.is_empty() && !url.trim().ends_with('/') {
            "~".to_owned()
        } else if let Some(under) = path.strip_prefix("~/") {
            format!("~/{}", under.trim_start_matches('/'))
        } else {
            format!("/{path}")
        };
        Ok(SftpTarget { user, host: host.to_owned(), port, dir })
    }

    /// The address written back as [`parse`](Self::parse) reads it.
    pub fn url(&self) -> String {
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        let port = if self.port == 22 { String::new() } else { format!(":{}", self.port) };
        let path = match self.dir.as_str() {
            "/" => "/".to_owned(),
            dir => format!("/{}/", dir.trim_start_matches('/')),
        };
        format!("sftp://{}@{host}{port}{}", encode(&self.user, false), encode(&path, true))
    }

    /// `host:port` (`[::1]:port`), as messages name the server.
    fn server(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The folder as an SFTP path: relative paths are resolved from the home folder by the server.
    fn sftp_dir(&self) -> String {
        match self.dir.as_str() {
            "~" => ".".to_owned(),
            dir => dir.strip_prefix("~/").unwrap_or(dir).to_owned(),
        }
    }

    fn path_of(&self, name: &str) -> String {
        match self.dir.as_str() {
            "~" => name.to_owned(),
            "/" => format!("/{name}"),
            dir => format!("{}/{name}", dir.strip_prefix("~/").unwrap_or(dir)),
        }
    }
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || keep_slash && b == b'/' {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// How to sign in: a private key file (OpenSSH format, ed25519 or RSA, without a passphrase), or
/// the SSH agent (`$SSH_AUTH_SOCK`; on Windows that pipe or else OpenSSH's agent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SshAuth {
    KeyFile(PathBuf),
    Agent,
}

impl SshAuth {
    /// `~/.ssh/id_ed25519`, else `~/.ssh/id_rsa`, else the agent when `SSH_AUTH_SOCK` is set.
    pub fn default_for_person() -> Option<SshAuth> {
        let ssh = std::env::home_dir().map(|home| home.join(".ssh"));
        let key = ssh
            .into_iter()
            .flat_map(|dir| ["id_ed25519", "id_rsa"].map(|name| dir.join(name)))
            .find(|path| path.is_file());
        key.map(SshAuth::KeyFile)
            .or_else(|| std::env::var_os("SSH_AUTH_SOCK").filter(|v| !v.is_empty()).map(|_| SshAuth::Agent))
    }
}

/// The server's host key: its algorithm (`ssh-ed25519`) and fingerprint as OpenSSH prints it
/// (`SHA256:` and base64 without padding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostKey {
    pub algorithm: String,
    pub fingerprint: String,
}

/// Why a delivery failed: each one sentence saying what to do, with no secret in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SftpError {
    #[error(
        "The SFTP server at {host} now shows the host key {presented}, not {pinned} that was accepted, so nothing was sent (someone may be intercepting the connection); if the server's key really changed, accept the new one with `orgql schedule add … --accept-host-key {presented}`."
    )]
    HostKeyChanged { host: String, pinned: String, presented: String },
    #[error("{0}")]
    SignIn(String),
    #[error("{0}")]
    Network(String),
    #[error("{0}")]
    Remote(String),
    #[error("{0}")]
    Key(String),
    /// The local file to deliver cannot be read.
    #[error("{0}")]
    Local(String),
    #[error("The delivery was cancelled before it finished; no half-written file was left under its final name.")]
    Cancelled,
}

impl SftpError {
    /// The process exit code: 2 for a key file that cannot be used, 130 when cancelled, 6 else.
    pub fn exit_code(&self) -> u8 {
        match self {
            SftpError::Key(_) => 2,
            SftpError::Cancelled => 130,
            _ => 6,
        }
    }
}

/// Checks the server's key against the pinned fingerprint (none: accept and record it).
struct Checker {
    pinned: Option<String>,
    seen: Arc<Mutex<Option<HostKey>>>,
}

impl client::Handler for Checker {
    type Error = russh::Error;

    async fn check_server_key(&mut self, key: &PublicKeyOrCertificate) -> Result<bool, Self::Error> {
        let data = match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key.key_data(),
            PublicKeyOrCertificate::Certificate(cert) => cert.public_key(),
        };
        let seen = HostKey {
            algorithm: data.algorithm().as_str().to_owned(),
            fingerprint: data.fingerprint(HashAlg::Sha256).to_string(),
        };
        let ok = self.pinned.as_deref().is_none_or(|pinned| pinned.trim() == seen.fingerprint);
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = Some(seen);
        Ok(ok)
    }
}

/// Runs one network step within `limit`; a step that takes longer is a network error.
async fn step<T>(
    target: &SftpTarget,
    limit: Duration,
    doing: &str,
    fut: impl Future<Output = T>,
) -> Result<T, SftpError> {
    tokio::time::timeout(limit, fut).await.map_err(|_| too_slow(target, limit, doing))
}

fn too_slow(target: &SftpTarget, limit: Duration, doing: &str) -> SftpError {
    SftpError::Network(format!(
        "The SFTP server at {} did not answer within {} s while {doing}; check that it is up and reachable from here, or try again later.",
        target.server(),
        limit.as_secs_f32()
    ))
}

fn network(target: &SftpTarget, doing: &str, error: impl std::fmt::Display) -> SftpError {
    SftpError::Network(format!(
        "The connection to the SFTP server at {} failed while {doing} ({error}); check the host and port and that the server is reachable, then try again.",
        target.server()
    ))
}

/// One network step within `limit` whose own error is a network error too.
async fn net<T, E: std::fmt::Display>(
    target: &SftpTarget,
    limit: Duration,
    doing: &str,
    fut: impl Future<Output = Result<T, E>>,
) -> Result<T, SftpError> {
    step(target, limit, doing, fut).await?.map_err(|e| network(target, doing, e))
}

/// One SFTP request to `verb` `path` within `limit`, its error said by [`remote`].
async fn on<T>(
    target: &SftpTarget,
    limit: Duration,
    verb: &str,
    path: &str,
    fut: impl Future<Output = Result<T, RawError>>,
) -> Result<T, SftpError> {
    step(target, limit, &format!("trying to {verb} {path}"), fut).await?.map_err(|e| remote(target, verb, path, e))
}

/// Ok for a file that is not there (any more): removing it was the point.
async fn gone(fut: impl Future<Output = Result<russh_sftp::protocol::Status, RawError>>) -> Result<(), RawError> {
    match fut.await {
        Err(RawError::Status(status)) if status.status_code != StatusCode::NoSuchFile => Err(RawError::Status(status)),
        Err(RawError::Status(_)) | Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// A russh-sftp error while `doing` on `path` as one sentence: the server's own words for a status.
fn remote(target: &SftpTarget, doing: &str, path: &str, error: RawError) -> SftpError {
    match error {
        RawError::Status(status) => {
            let words =
                if status.error_message.is_empty() { status.status_code.to_string() } else { status.error_message };
            let what = match status.status_code {
                StatusCode::NoSuchFile => {
                    format!("check that the folder {} exists there or correct the address", target.dir)
                }
                StatusCode::PermissionDenied => {
                    format!("ask its administrator to let {} write in {}", target.user, target.dir)
                }
                _ => "check the space and permissions there (the server's words are above)".to_owned(),
            };
            SftpError::Remote(format!(
                "The SFTP server at {} could not {doing} {path}: “{words}”; {what}.",
                target.server()
            ))
        }
        RawError::Timeout => SftpError::Network(format!(
            "The SFTP server at {} did not answer in time while trying to {doing} {path}; check that it is up and reachable, or try again later.",
            target.server()
        )),
        other => network(target, &format!("trying to {doing} {path}"), other),
    }
}

/// A signed-in SFTP session.
struct Connection {
    ssh: client::Handle<Checker>,
    sftp: RawSftpSession,
    posix_rename: bool,
}

impl Connection {
    async fn close(self, target: &SftpTarget) {
        let _ = self.sftp.close_session();
        hang_up(target, &self.ssh).await;
    }
}

async fn hang_up(target: &SftpTarget, ssh: &client::Handle<Checker>) {
    let bye = ssh.disconnect(russh::Disconnect::ByApplication, "", "en");
    let _ = step(target, Duration::from_secs(2), "closing", bye).await;
}

/// Connects and checks the host key (`pinned` None: any key, recorded in the returned HostKey).
async fn connect(
    target: &SftpTarget,
    pinned: Option<&str>,
    limit: Duration,
) -> Result<(client::Handle<Checker>, HostKey), SftpError> {
    let seen = Arc::new(Mutex::new(None));
    let checker = Checker { pinned: pinned.map(str::to_owned), seen: seen.clone() };
    let config = Arc::new(client::Config { inactivity_timeout: None, ..Default::default() });
    let result =
        step(target, limit, "connecting", client::connect(config, (target.host.as_str(), target.port), checker))
            .await?;
    let presented = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match (result, presented) {
        (Ok(handle), Some(key)) => Ok((handle, key)),
        (Err(russh::Error::UnknownKey), Some(key)) => Err(SftpError::HostKeyChanged {
            host: target.server(),
            pinned: pinned.unwrap_or_default().trim().to_owned(),
            presented: key.fingerprint,
        }),
        (Ok(_), None) => Err(network(target, "connecting", "no host key was shown")),
        (Err(error), _) => Err(network(target, "connecting", error)),
    }
}

/// The key file's private key, or a sentence saying why it cannot be used (never its content).
fn load_key(path: &Path) -> Result<russh::keys::PrivateKey, SftpError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| {
        SftpError::Key(format!(
            "The SSH key file {shown} cannot be read ({e}); check the path and that this account may read it."
        ))
    })?;
    russh::keys::decode_secret_key(&text, None).map_err(|error| match error {
        russh::keys::Error::KeyIsEncrypted => SftpError::Key(format!(
            "The SSH key {shown} is protected by a passphrase, which nobody is there to type for a scheduled delivery; use a key made without one for deliveries (ssh-keygen -t ed25519 -N '') or the SSH agent."
        )),
        _ => SftpError::Key(format!("The file {shown} is not an OpenSSH private key (ed25519 or RSA) that orgql can read; give the private key file, not the .pub one.")),
    })
}

/// Connects, checks the host key against `pinned`, signs in and starts the SFTP subsystem.
async fn open(target: &SftpTarget, auth: &SshAuth, pinned: &str, limit: Duration) -> Result<Connection, SftpError> {
    let key = match auth {
        SshAuth::KeyFile(path) => Some(load_key(path)?),
        SshAuth::Agent => None,
    };
    let (mut ssh, _) = connect(target, Some(pinned), limit).await?;
    let rsa_hash = net(target, limit, "signing in", ssh.best_supported_rsa_hash()).await?.flatten();
    let refused = match (key, auth) {
        (Some(key), SshAuth::KeyFile(path)) => {
            let key = PrivateKeyWithHashAlg::new(Arc::new(key), rsa_hash);
            let result =
                net(target, limit, "signing in", ssh.authenticate_publickey(target.user.as_str(), key)).await?;
            (!result.success()).then(|| format!("the key {} (public half: its .pub file)", path.display()))
        }
        _ => {
            (!sign_in_with_agent(&mut ssh, target, limit, rsa_hash).await?).then(|| "every key of the SSH agent".into())
        }
    };
    if let Some(how) = refused {
        return Err(SftpError::SignIn(format!(
            "The SFTP server at {} refused {how} for the user {}; add the public key to ~{}/.ssh/authorized_keys on the server, or check the user name.",
            target.server(),
            target.user,
            target.user
        )));
    }
    let channel = net(target, limit, "opening a channel", ssh.channel_open_session()).await?;
    net(target, limit, "starting SFTP", channel.request_subsystem(true, "sftp")).await?;
    let config = russh_sftp::client::Config {
        request_timeout_secs: limit.as_secs_f64().ceil().max(1.0) as u64,
        ..Default::default()
    };
    let sftp = RawSftpSession::new_with_config(channel.into_stream(), config);
    let version = step(target, limit, "starting SFTP", sftp.init()).await?.map_err(|e| {
        SftpError::Remote(format!(
            "The server at {} did not start SFTP ({e}); ask its administrator to enable the SFTP subsystem for {}.",
            target.server(),
            target.user
        ))
    })?;
    let posix_rename = version.extensions.get("posix-rename@openssh.com").is_some_and(|v| v == "1");
    Ok(Connection { ssh, sftp, posix_rename })
}

/// Tries each identity of the agent; Ok(false) when the server accepted none.
async fn sign_in_with_agent(
    ssh: &mut client::Handle<Checker>,
    target: &SftpTarget,
    limit: Duration,
    rsa_hash: Option<HashAlg>,
) -> Result<bool, SftpError> {
    use russh::keys::agent::client::AgentClient;
    let unreachable = |e: russh::keys::Error| {
        SftpError::SignIn(format!(
            "The SSH agent cannot be reached ({e}); start it and add a key (ssh-add), or give a key file for the deliveries."
        ))
    };
    #[cfg(unix)]
    let agent = AgentClient::connect_env().await.map_err(unreachable)?.dynamic();
    #[cfg(windows)]
    let agent = {
        let pipe = std::env::var("SSH_AUTH_SOCK").unwrap_or_else(|_| r"\\.\pipe\openssh-ssh-agent".to_owned());
        AgentClient::connect_named_pipe(pipe).await.map_err(unreachable)?.dynamic()
    };
    let mut agent = agent;
    let identities =
        step(target, limit, "asking the SSH agent for keys", agent.request_identities()).await?.map_err(unreachable)?;
    for identity in identities {
        let key = identity.public_key().into_owned();
        let hash = if key.algorithm().is_rsa() { rsa_hash } else { None };
        let result = step(
            target,
            limit,
            "signing in",
            ssh.authenticate_publickey_with(target.user.as_str(), key, hash, &mut agent),
        )
        .await?;
        match result {
            Ok(outcome) if outcome.success() => return Ok(true),
            Ok(_) => {}
            Err(e) => {
                return Err(SftpError::SignIn(format!(
                    "The SSH agent did not sign the sign-in ({e}); check that it still holds the key, or give a key file."
                )));
            }
        }
    }
    Ok(false)
}

/// The server's host key, for `orgql schedule add` to show (or compare with `--accept-host-key`).
pub async fn host_key(target: &SftpTarget, timeout: Duration) -> Result<HostKey, SftpError> {
    let (ssh, key) = connect(target, None, timeout).await?;
    hang_up(target, &ssh).await;
    Ok(key)
}

fn check_name(name: &str) -> Result<(), SftpError> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(SftpError::Local(format!(
            "“{name}” cannot be the name of a delivered file; give a plain file name without folders."
        )));
    }
    Ok(())
}

/// Sends `local` to the target's folder as `final_name`, whole or not at all: written as
/// `.final_name.orgql-partial`, then renamed over any existing `final_name`. Returns the bytes sent.
/// `timeout` bounds each network step; `cancel` stops the delivery (the partial file is removed).
pub async fn upload(
    target: &SftpTarget,
    auth: &SshAuth,
    pinned: &str,
    local: &Path,
    final_name: &str,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<u64, SftpError> {
    check_name(final_name)?;
    let file = std::fs::File::open(local)
        .map_err(|e| SftpError::Local(format!("The file to deliver, {}, cannot be read ({e}).", local.display())))?;
    let conn = tokio::select! {
        conn = open(target, auth, pinned, timeout) => conn?,
        () = cancel.cancelled() => return Err(SftpError::Cancelled),
    };
    let partial = target.path_of(&format!(".{final_name}{PARTIAL_SUFFIX}"));
    let final_path = target.path_of(final_name);
    let result = tokio::select! {
        result = send(&conn, target, file, local, &partial, &final_path, timeout) => result,
        () = cancel.cancelled() => Err(SftpError::Cancelled),
    };
    if result.is_err() {
        // The partial file is removed when the server still answers; a later delivery overwrites it.
        let _ = step(target, timeout.min(Duration::from_secs(5)), "cleaning up", conn.sftp.remove(&*partial)).await;
    }
    conn.close(target).await;
    result
}

async fn send(
    conn: &Connection,
    target: &SftpTarget,
    file: std::fs::File,
    local: &Path,
    partial: &str,
    final_path: &str,
    limit: Duration,
) -> Result<u64, SftpError> {
    let sftp = &conn.sftp;
    let flags = OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::TRUNCATE;
    let handle = on(target, limit, "create", partial, sftp.open(partial, flags, FileAttributes::empty())).await?.handle;
    let mut file = Some(file);
    let mut offset = 0u64;
    let mut done = false;
    let mut writes = FuturesUnordered::new();
    loop {
        while !done && writes.len() < IN_FLIGHT {
            let chunk = read_chunk(&mut file, local).await?;
            if chunk.is_empty() {
                done = true;
                break;
            }
            let at = offset;
            offset += chunk.len() as u64;
            let handle = handle.as_str();
            writes.push(async move { (at, tokio::time::timeout(limit, sftp.write(handle, at, chunk)).await) });
        }
        let Some((at, result)) = writes.next().await else { break };
        match result {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(remote(target, &format!("write (at byte {at})"), partial, e)),
            Err(_) => return Err(too_slow(target, limit, "writing")),
        }
    }
    drop(writes);
    on(target, limit, "finish writing", partial, sftp.close(handle.as_str())).await?;
    let size = on(target, limit, "check", partial, sftp.stat(partial)).await?.attrs.size;
    if size.is_some_and(|size| size != offset) {
        return Err(SftpError::Remote(format!(
            "The SFTP server at {} kept {} of the {offset} bytes sent to {partial}; check the space left there, then deliver again.",
            target.server(),
            size.unwrap_or_default()
        )));
    }
    rename_over(conn, target, partial, final_path, limit).await?;
    Ok(offset)
}

/// The next chunk of the local file (empty at its end), read on the blocking pool.
async fn read_chunk(file: &mut Option<std::fs::File>, local: &Path) -> Result<Vec<u8>, SftpError> {
    let unreadable = |e: std::io::Error| {
        SftpError::Local(format!("The file to deliver, {}, cannot be read ({e}).", local.display()))
    };
    let Some(mut f) = file.take() else { return Ok(Vec::new()) };
    let (f, chunk) = tokio::task::spawn_blocking(move || {
        let mut chunk = Vec::with_capacity(CHUNK);
        (&mut f).take(CHUNK as u64).read_to_end(&mut chunk).map(|_| (f, chunk))
    })
    .await
    .map_err(|e| unreadable(std::io::Error::other(e)))?
    .map_err(unreadable)?;
    *file = Some(f);
    Ok(chunk)
}

/// Renames `from` to `to`, replacing `to`: atomically with posix-rename@openssh.com, else (SFTP v3's
/// rename refuses an existing target) by removing `to` first.
async fn rename_over(
    conn: &Connection,
    target: &SftpTarget,
    from: &str,
    to: &str,
    limit: Duration,
) -> Result<(), SftpError> {
    let sftp = &conn.sftp;
    if conn.posix_rename {
        let mut data = Vec::new();
        for path in [from, to] {
            data.extend_from_slice(&(path.len() as u32).to_be_bytes());
            data.extend_from_slice(path.as_bytes());
        }
        let verb = format!("rename {from} to");
        return match on(target, limit, &verb, to, sftp.extended("posix-rename@openssh.com", data)).await? {
            Packet::Status(status) if status.status_code == StatusCode::Ok => Ok(()),
            Packet::Status(status) => Err(remote(target, &verb, to, RawError::Status(status))),
            _ => Err(network(target, "renaming", "an unexpected answer")),
        };
    }
    on(target, limit, "replace", to, gone(sftp.remove(to))).await?;
    on(target, limit, &format!("rename {from} to"), to, sftp.rename(from, to)).await.map(drop)
}

/// Removes `names` from the target's folder (keeping the last N deliveries); names already gone
/// are not an error.
pub async fn remove(
    target: &SftpTarget,
    auth: &SshAuth,
    pinned: &str,
    names: &[String],
    timeout: Duration,
) -> Result<(), SftpError> {
    for name in names {
        check_name(name)?;
    }
    let conn = open(target, auth, pinned, timeout).await?;
    let mut result = Ok(());
    for path in names.iter().map(|name| target.path_of(name)) {
        result = on(target, timeout, "remove", &path, gone(conn.sftp.remove(path.as_str()))).await;
        if result.is_err() {
            break;
        }
    }
    conn.close(target).await;
    result
}

/// The names of the files (not folders) in the target's folder, sorted.
pub async fn list(
    target: &SftpTarget,
    auth: &SshAuth,
    pinned: &str,
    timeout: Duration,
) -> Result<Vec<String>, SftpError> {
    let conn = open(target, auth, pinned, timeout).await?;
    let result = list_dir(&conn, target, timeout).await;
    conn.close(target).await;
    result
}

async fn list_dir(conn: &Connection, target: &SftpTarget, limit: Duration) -> Result<Vec<String>, SftpError> {
    let dir = target.sftp_dir();
    let handle = on(target, limit, "open the folder", &dir, conn.sftp.opendir(dir.as_str())).await?.handle;
    let mut names = Vec::new();
    let outcome = loop {
        let batch = step(target, limit, "listing the folder", conn.sftp.readdir(handle.as_str())).await;
        match batch {
            Ok(Ok(batch)) => names.extend(batch.files.into_iter().filter(|f| !f.attrs.is_dir()).map(|f| f.filename)),
            Ok(Err(RawError::Status(status))) if status.status_code == StatusCode::Eof => break Ok(()),
            Ok(Err(e)) => break Err(remote(target, "list the folder", &dir, e)),
            Err(e) => break Err(e),
        }
    };
    let _ = step(target, limit, "closing the folder", conn.sftp.close(handle.as_str())).await;
    outcome?;
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_in_the_folder() {
        let at = |dir: &str| super::SftpTarget { user: "u".into(), host: "h".into(), port: 22, dir: dir.into() };
        assert_eq!(at("~/out").path_of("a.csv"), "out/a.csv");
        assert_eq!((at("~").path_of("a.csv"), at("~").sftp_dir()), ("a.csv".into(), ".".into()));
        assert_eq!((at("/").path_of("a.csv"), at("/srv/x").path_of("a.csv")), ("/a.csv".into(), "/srv/x/a.csv".into()));
    }
}
