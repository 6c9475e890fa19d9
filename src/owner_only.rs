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
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
}
