//! Files and folders that hold personal data (the database: history, webhook bodies, workspace;
//! the log file; an import's plan, results and undo file; a partial export) private to the person.
//!
//! On Unix they are created readable by their owner only: folders 0700, files 0600, from the
//! moment they exist (not made private after being created with the umask's 0644/0755). Folders
//! and files that already exist are left as they are, except through [`make_private`].
//!
//! On Windows a new file or folder inherits the access list of the folder it is made in, and the
//! person's own folders (`AppData`, `Documents`) grant access to that person, the system and the
//! administrators only: nothing is changed there, and [`make_private`] does nothing.

use std::io;
use std::path::Path;

use super::os;

/// Creates `dir` and its missing parents, each new one owner-only (0700 on Unix).
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    os::private_folder(&mut builder);
    builder.create(dir)
}

/// Opens `path` for appending, creating it owner-only (0600 on Unix) when it does not exist.
pub fn open_append(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    os::private_file(&mut options);
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
    os::private_file(&mut options);
    match options.open(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Creates (or empties) `path` for writing, owner-only (0600 on Unix, also when it existed).
pub fn create_truncated(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).write(true).truncate(true);
    os::private_file(&mut options);
    let file = options.open(path)?;
    os::make_private(path)?;
    Ok(file)
}

/// Makes the existing file `path` owner-only (0600 on Unix; nothing on Windows, see the module).
pub fn make_private(path: &Path) -> io::Result<()> {
    os::make_private(path)
}

/// Whether a file of this type is written where it is rather than replaced by a finished
/// temporary file: a pipe or a device on Unix (`/dev/stdout`, a FIFO); nothing on Windows, which
/// has neither FIFOs in the file system nor character devices by path.
pub fn written_in_place(kind: &std::fs::FileType) -> bool {
    os::written_in_place(kind)
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
        let old = dir.join("h");
        std::fs::write(&old, "x").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
        super::create_truncated(&old).unwrap();
        assert_eq!(std::fs::read(&old).unwrap(), b"");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&new), 0o600);
        assert_eq!(mode(&old), 0o600);
        assert_eq!(mode(&root.path().join("a")), 0o700);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
}
