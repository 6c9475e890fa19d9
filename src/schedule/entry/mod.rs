//! STUB
use super::when::When;
use std::path::PathBuf;
pub struct Job {
    pub name: String,
    pub when: When,
    pub program: PathBuf,
    pub arguments: Vec<String>,
    pub secret_file: Option<PathBuf>,
    pub signed_out: bool,
    pub user: String,
}
