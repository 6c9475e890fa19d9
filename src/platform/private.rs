//! Files and folders that hold personal data (the database: history, webhook bodies, workspace;
//! the log file) are created readable by their owner only: folders 0700, files 0600, from the
//! moment they exist (not made private after being created with the umask's 0644/0755).
//! Folders and files that already exist are left as they are.

use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents, each new one owner-only (0700 on Unix).
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Opens `path` for appending, creating it owner-only (0600 on Unix) when it does not exist.
pub fn open_append(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Creates `path` owner-only (0600 on Unix) when it does not exist; `Ok(false)` when it did.
///
/// An existing file is not opened at all. That matters for SQLite's files: closing any
/// descriptor of a file drops every POSIX lock this process holds on it, the locks of the
/// SQLite connections already open on it included; another process then believes it is the
/// last one, checkpoints and deletes the write-ahead log, and this process's later writes go
/// to a deleted file (sqlite.org/howtocorrupt.html, 2.2).
pub fn create_new(path: &Path) -> io::Result<bool> {
    let mut options = std::fs::OpenOptions::new();
    options.create_new(true).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn new_folders_and_files_are_the_owners_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        super::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        super::open_append(&file).unwrap();
        let new = dir.join("g");
        assert!(super::create_new(&new).unwrap(), "made");
        assert!(!super::create_new(&new).unwrap(), "there already");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&new), 0o600);
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
}
