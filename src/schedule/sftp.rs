//! STUB
use std::path::{Path, PathBuf};
use std::time::Duration;
pub struct SftpTarget {
    pub user: String,
    pub host: String,
    pub port: u16,
    pub dir: String,
}
impl SftpTarget {
    pub fn parse(_url: &str) -> Result<SftpTarget, String> {
        Err(String::new())
    }
    pub fn url(&self) -> String {
        String::new()
    }
}
pub enum SshAuth {
    KeyFile(PathBuf),
    Agent,
}
impl SshAuth {
    pub fn default_for_person() -> Option<SshAuth> {
        None
    }
}
pub struct HostKey {
    pub algorithm: String,
    pub fingerprint: String,
}
#[derive(Debug)]
pub enum SftpError {
    Network(String),
}
impl std::fmt::Display for SftpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "x")
    }
}
impl SftpError {
    pub fn exit_code(&self) -> u8 {
        6
    }
}
pub async fn host_key(_t: &SftpTarget, _d: Duration) -> Result<HostKey, SftpError> {
    Err(SftpError::Network(String::new()))
}
pub async fn upload(
    _t: &SftpTarget,
    _a: &SshAuth,
    _p: &str,
    _l: &Path,
    _n: &str,
    _d: Duration,
    _c: &tokio_util::sync::CancellationToken,
) -> Result<u64, SftpError> {
    Ok(0)
}
pub async fn remove(_t: &SftpTarget, _a: &SshAuth, _p: &str, _n: &[String], _d: Duration) -> Result<(), SftpError> {
    Ok(())
}
pub async fn list(_t: &SftpTarget, _a: &SshAuth, _p: &str, _d: Duration) -> Result<Vec<String>, SftpError> {
    Ok(vec![])
}
