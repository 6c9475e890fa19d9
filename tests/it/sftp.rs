//! SFTP deliveries (src/schedule/sftp.rs, issue 53) against a real OpenSSH server: an sshd of its
//! own started for each test as the current user (root in CI) on a free 127.0.0.1 port, with a host
//! key and a client key made by ssh-keygen in the test. Skipped where openssh-server is missing.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use orgql::schedule::sftp::{self, HostKey, SftpError, SftpTarget, SshAuth};
use rand::Rng as _;
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

const SSHD: &str = "/usr/sbin/sshd";
const STEP: Duration = Duration::from_secs(10);

/// Each test as a whole is bounded: a hang fails it instead of holding the suite.
async fn bounded(test: impl Future<Output = ()>) {
    tokio::time::timeout(Duration::from_secs(90), test).await.expect("the test finished within 90 s");
}

/// Whether there is no sshd to test with (the test is then skipped with a note, unless
/// `ORGQL_SFTP_REQUIRED` is set, as CI sets it once it has installed openssh-server).
pub(crate) fn sshd_missing() -> bool {
    if Path::new(SSHD).exists() && Path::new("/usr/bin/ssh-keygen").exists() {
        return false;
    }
    let note = format!("no {SSHD} or ssh-keygen here; install openssh-server to run the SFTP tests");
    assert!(std::env::var_os("ORGQL_SFTP_REQUIRED").is_none(), "{note}; ORGQL_SFTP_REQUIRED is set");
    eprintln!("skipped: {note}");
    true
}

/// Makes an ed25519 key pair at `path` (and `path`.pub) with `passphrase`.
pub(crate) fn keygen(path: &Path, passphrase: &str) {
    keygen_of("ed25519", path, passphrase);
}

fn keygen_of(kind: &str, path: &Path, passphrase: &str) {
    let status = Command::new("/usr/bin/ssh-keygen")
        .args(["-q", "-t", kind, "-C", "orgql-test", "-N", passphrase, "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .expect("ssh-keygen runs");
    assert!(status.success(), "ssh-keygen made {}", path.display());
}

/// The fingerprint `ssh-keygen -lf KEY.pub -E sha256` prints (its second field).
fn keygen_fingerprint(public: &Path) -> String {
    let out = Command::new("/usr/bin/ssh-keygen")
        .args(["-E", "sha256", "-lf"])
        .arg(public)
        .output()
        .expect("ssh-keygen runs");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().nth(1).expect("a fingerprint").to_owned()
}

fn command_out(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().expect("runs");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// An sshd of its own, killed on drop, with the client key `client_key` allowed in.
pub(crate) struct Sshd {
    dir: TempDir,
    child: Child,
    pub(crate) port: u16,
    host_key: PathBuf,
    pub(crate) client_key: PathBuf,
    pub(crate) user: String,
}

impl Sshd {
    /// Starts sshd with a new host key (and a new client key unless `client_key` is given); None
    /// (the test is skipped) where sshd refuses to let this account sign in at all: without PAM it
    /// refuses accounts whose password is locked, as some non-root accounts' are.
    pub(crate) async fn start(client_key: Option<&Path>) -> Option<Sshd> {
        Sshd::start_on(client_key, None).await
    }

    /// [`Sshd::start`] on `port` (a free one when `None`): another server, with another host
    /// key, where a schedule delivers.
    pub(crate) async fn start_on(client_key: Option<&Path>, port: Option<u16>) -> Option<Sshd> {
        let sshd = Sshd::spawn(client_key, port).await;
        let probe = sftp::list(&sshd.target(sshd.dir.path()), &sshd.auth(), &sshd.fingerprint(), STEP).await;
        if matches!(probe, Err(SftpError::SignIn(_))) && sshd.log().contains("not allowed because") {
            eprintln!(
                "skipped: sshd does not let {} sign in here: {}",
                sshd.user,
                sshd.log().lines().last().unwrap_or_default()
            );
            return None;
        }
        Some(sshd)
    }

    async fn spawn(client_key: Option<&Path>, port: Option<u16>) -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        let host_key = dir.path().join("host_key");
        keygen(&host_key, "");
        let client_key = match client_key {
            Some(key) => key.to_owned(),
            None => {
                let key = dir.path().join("client_key");
                keygen(&key, "");
                key
            }
        };
        let authorized = dir.path().join("authorized_keys");
        std::fs::copy(client_key.with_extension("pub"), &authorized).unwrap();
        if command_out("id", &["-u"]) == "0" {
            // As root sshd wants its privilege separation directory.
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let port =
            port.unwrap_or_else(|| std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port());
        let config = dir.path().join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\nPidFile {}\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nSubsystem sftp internal-sftp\n",
                host_key.display(),
                authorized.display(),
                dir.path().join("sshd.pid").display()
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("sshd.log")).unwrap();
        let child = Command::new(SSHD)
            .arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("sshd starts");
        let mut sshd = Sshd { child, port, host_key, client_key, user: command_out("id", &["-un"]), dir };
        let started = Instant::now();
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            if let Some(status) = sshd.child.try_wait().unwrap() {
                panic!("sshd ended ({status}): {}", sshd.log());
            }
            assert!(started.elapsed() < STEP, "sshd listened within 10 s: {}", sshd.log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        sshd
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// A folder in the temporary directory (made) and its address on this server.
    pub(crate) fn folder(&self, name: &str) -> (PathBuf, SftpTarget) {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        (path.clone(), self.target(&path))
    }

    pub(crate) fn target(&self, path: &Path) -> SftpTarget {
        SftpTarget::parse(&format!("sftp://{}@127.0.0.1:{}{}/", self.user, self.port, path.display())).unwrap()
    }

    fn auth(&self) -> SshAuth {
        SshAuth::KeyFile(self.client_key.clone())
    }

    pub(crate) fn fingerprint(&self) -> String {
        keygen_fingerprint(&self.host_key.with_extension("pub"))
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn random_file(dir: &Path, name: &str, len: usize) -> (PathBuf, Vec<u8>) {
    let mut data = vec![0u8; len];
    rand::rng().fill(&mut data[..]);
    let path = dir.join(name);
    std::fs::write(&path, &data).unwrap();
    (path, data)
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

fn target(user: &str, host: &str, port: u16, dir: &str) -> SftpTarget {
    SftpTarget { user: user.into(), host: host.into(), port, dir: dir.into() }
}

#[test]
fn parses_the_forms_and_writes_them_back() {
    let cases = [
        (
            "sftp://hr@files.example.org/srv/exports/",
            target("hr", "files.example.org", 22, "/srv/exports"),
            "sftp://hr@files.example.org/srv/exports/",
        ),
        ("SFTP://hr@h:2222/a/b", target("hr", "h", 2222, "/a/b"), "sftp://hr@h:2222/a/b/"),
        ("sftp://hr@h/~/out/", target("hr", "h", 22, "~/out"), "sftp://hr@h/~/out/"),
        ("sftp://hr@h/~/", target("hr", "h", 22, "~"), "sftp://hr@h/~/"),
        ("sftp://hr@h/", target("hr", "h", 22, "/"), "sftp://hr@h/"),
        ("sftp://hr@[::1]:2200/x/", target("hr", "::1", 2200, "/x"), "sftp://hr@[::1]:2200/x/"),
        ("sftp://a%40b@h/My%20Exports/", target("a@b", "h", 22, "/My Exports"), "sftp://a%40b@h/My%20Exports/"),
    ];
    for (url, want, back) in cases {
        let got = SftpTarget::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(got, want, "{url}");
        assert_eq!(got.url(), back);
        assert_eq!(SftpTarget::parse(&got.url()).unwrap(), got);
    }
}

#[test]
fn refuses_other_forms_with_one_sentence() {
    for url in [
        "ftp://u@h/x/",
        "sftp://h/x/",
        "sftp://@h/x/",
        "sftp://u@/x/",
        "sftp://u@h:0/x/",
        "sftp://u@h:99999/",
        "sftp://u@[::1/x/",
        "sftp://u@h:22:1/x/",
        "sftp://u@h/%zz/",
    ] {
        let error = SftpTarget::parse(url).expect_err(url);
        assert!(error.contains("sftp://user@host[:port]/folder/"), "{error}");
        assert_eq!(error.matches(". ").count(), 0, "{error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_arrives_whole_and_replaces_the_older_one() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let (remote, target) = server.folder("drop");
        let local = tempfile::tempdir().unwrap();
        let (first, first_bytes) = random_file(local.path(), "first.csv", 3 * 1024 * 1024 + 17);
        let cancel = CancellationToken::new();
        let sent =
            sftp::upload(&target, &server.auth(), &server.fingerprint(), &first, "report.csv", STEP, &cancel).await;
        assert_eq!(sent, Ok(first_bytes.len() as u64), "{}", server.log());
        assert_eq!(std::fs::read(remote.join("report.csv")).unwrap(), first_bytes, "the same bytes");
        assert_eq!(names_in(&remote), ["report.csv"], "no temporary file is left");

        // A later delivery of the same name replaces it whole.
        let (second, second_bytes) = random_file(local.path(), "second.csv", 200_001);
        let sent =
            sftp::upload(&target, &server.auth(), &server.fingerprint(), &second, "report.csv", STEP, &cancel).await;
        assert_eq!(sent, Ok(second_bytes.len() as u64));
        assert_eq!(std::fs::read(remote.join("report.csv")).unwrap(), second_bytes);
        assert_eq!(names_in(&remote), ["report.csv"]);

        // An empty file is a delivery too.
        let (empty, _) = random_file(local.path(), "empty.csv", 0);
        assert_eq!(
            sftp::upload(&target, &server.auth(), &server.fingerprint(), &empty, "empty.csv", STEP, &cancel).await,
            Ok(0)
        );
        assert_eq!(std::fs::read(remote.join("empty.csv")).unwrap(), b"");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_remove_keep_the_last_deliveries() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let (remote, target) = server.folder("kept");
        std::fs::create_dir(remote.join("a folder")).unwrap();
        let local = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        for name in ["2026-01-01.csv", "2026-01-02.csv", "2026-01-03.csv"] {
            let (file, _) = random_file(local.path(), name, 1000);
            sftp::upload(&target, &server.auth(), &server.fingerprint(), &file, name, STEP, &cancel).await.unwrap();
        }
        let listed = sftp::list(&target, &server.auth(), &server.fingerprint(), STEP).await.unwrap();
        assert_eq!(listed, ["2026-01-01.csv", "2026-01-02.csv", "2026-01-03.csv"], "files only, sorted");
        let old = vec!["2026-01-01.csv".to_owned(), "2026-01-02.csv".to_owned(), "gone-already.csv".to_owned()];
        sftp::remove(&target, &server.auth(), &server.fingerprint(), &old, STEP).await.unwrap();
        assert_eq!(sftp::list(&target, &server.auth(), &server.fingerprint(), STEP).await.unwrap(), ["2026-01-03.csv"]);
        assert_eq!(names_in(&remote), ["2026-01-03.csv", "a folder"]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_key_is_the_one_ssh_keygen_prints() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let key = sftp::host_key(&server.target(Path::new("/")), STEP).await.unwrap();
        assert_eq!(key, HostKey { algorithm: "ssh-ed25519".into(), fingerprint: server.fingerprint() });
        assert!(key.fingerprint.starts_with("SHA256:") && !key.fingerprint.ends_with('='), "{key:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_host_key_on_the_pinned_fingerprint_is_refused() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(first) = Sshd::start(None).await else { return };
        let accepted = first.fingerprint();
        let Some(second) = Sshd::start(Some(&first.client_key)).await else { return };
        let presented = second.fingerprint();
        assert_ne!(accepted, presented);
        let (remote, target) = second.folder("drop");
        let local = tempfile::tempdir().unwrap();
        let (file, _) = random_file(local.path(), "a.csv", 1000);
        let error = sftp::upload(&target, &second.auth(), &accepted, &file, "a.csv", STEP, &CancellationToken::new())
            .await
            .unwrap_err();
        let host = format!("127.0.0.1:{}", second.port);
        assert_eq!(
            error,
            SftpError::HostKeyChanged { host: host.clone(), pinned: accepted.clone(), presented: presented.clone() }
        );
        let said = error.to_string();
        assert!(
            said.contains(&format!("at {host} now shows the host key {presented}, not {accepted} that was accepted")),
            "{said}"
        );
        assert!(said.contains(&format!("--accept-host-key {presented}`")), "{said}");
        assert_eq!(error.exit_code(), 6);
        assert!(names_in(&remote).is_empty(), "nothing was sent");
        // list and remove check the key the same way.
        assert!(matches!(
            sftp::list(&target, &second.auth(), &accepted, STEP).await,
            Err(SftpError::HostKeyChanged { .. })
        ));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_the_server_does_not_know_cannot_sign_in() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let other = tempfile::tempdir().unwrap();
        let stranger = other.path().join("id_ed25519");
        keygen(&stranger, "");
        let (_, target) = server.folder("drop");
        let error =
            sftp::list(&target, &SshAuth::KeyFile(stranger.clone()), &server.fingerprint(), STEP).await.unwrap_err();
        let SftpError::SignIn(said) = &error else { panic!("a sign-in error, not {error:?}") };
        assert!(said.contains(&server.user) && said.contains("authorized_keys"), "{said}");
        assert_eq!(error.exit_code(), 6);

        // A key with a passphrase is refused before connecting, without its content.
        let locked = other.path().join("id_locked");
        keygen(&locked, "a passphrase");
        let error =
            sftp::list(&target, &SshAuth::KeyFile(locked.clone()), &server.fingerprint(), STEP).await.unwrap_err();
        let SftpError::Key(said) = &error else { panic!("a key error, not {error:?}") };
        assert!(said.contains("passphrase") && said.contains("SSH agent"), "{said}");
        let content = std::fs::read_to_string(&locked).unwrap();
        assert!(!said.contains(content.lines().nth(1).unwrap()), "no key content in {said}");
        assert_eq!(error.exit_code(), 2);

        let error = sftp::list(&target, &SshAuth::KeyFile(other.path().join("missing")), &server.fingerprint(), STEP)
            .await
            .unwrap_err();
        assert!(matches!(error, SftpError::Key(_)), "{error:?}");
        let public_half = SshAuth::KeyFile(locked.with_extension("pub"));
        let error = sftp::list(&target, &public_half, &server.fingerprint(), STEP).await.unwrap_err();
        assert!(matches!(&error, SftpError::Key(said) if said.contains("not the .pub one")), "{error:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rsa_key_signs_in_too() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let rsa = server.dir.path().join("id_rsa");
        keygen_of("rsa", &rsa, "");
        let mut authorized = std::fs::read_to_string(server.dir.path().join("authorized_keys")).unwrap();
        authorized.push_str(&std::fs::read_to_string(rsa.with_extension("pub")).unwrap());
        std::fs::write(server.dir.path().join("authorized_keys"), authorized).unwrap();
        let (remote, target) = server.folder("drop");
        let (file, bytes) = random_file(server.dir.path(), "a.csv", 70_000);
        let sent = sftp::upload(
            &target,
            &SshAuth::KeyFile(rsa),
            &server.fingerprint(),
            &file,
            "a.csv",
            STEP,
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(sent, Ok(70_000), "{}", server.log());
        assert_eq!(std::fs::read(remote.join("a.csv")).unwrap(), bytes);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_that_does_not_exist_is_named() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let missing = server.dir.path().join("no such folder");
        let target = server.target(&missing);
        let local = tempfile::tempdir().unwrap();
        let (file, _) = random_file(local.path(), "a.csv", 1000);
        let error = sftp::upload(
            &target,
            &server.auth(),
            &server.fingerprint(),
            &file,
            "a.csv",
            STEP,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
        let SftpError::Remote(said) = &error else { panic!("a remote error, not {error:?}") };
        assert!(said.contains(&format!("check that the folder {} exists", missing.display())), "{said}");
        assert!(said.contains("No such file"), "the server's words: {said}");
        let error = sftp::list(&target, &server.auth(), &server.fingerprint(), STEP).await.unwrap_err();
        assert!(matches!(&error, SftpError::Remote(said) if said.contains("exists")), "{error:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_delivery_leaves_nothing() {
    if sshd_missing() {
        return;
    }
    bounded(async {
        let Some(server) = Sshd::start(None).await else { return };
        let (remote, target) = server.folder("drop");
        let local = tempfile::tempdir().unwrap();
        let (file, _) = random_file(local.path(), "a.csv", 1000);
        let cancel = CancellationToken::new();
        cancel.cancel();
        let error = sftp::upload(&target, &server.auth(), &server.fingerprint(), &file, "a.csv", STEP, &cancel)
            .await
            .unwrap_err();
        assert_eq!((error.clone(), error.exit_code()), (SftpError::Cancelled, 130));
        assert!(names_in(&remote).is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_speaks_ends_in_a_network_error() {
    bounded(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let silent = tokio::spawn(async move {
            let mut held = Vec::new();
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                held.push(socket); // never answers
            }
        });
        let target = SftpTarget::parse(&format!("sftp://someone@127.0.0.1:{port}/srv/")).unwrap();
        let keyless = tempfile::tempdir().unwrap();
        let key = keyless.path().join("id_ed25519");
        if Path::new("/usr/bin/ssh-keygen").exists() {
            keygen(&key, "");
        }
        let limit = Duration::from_secs(2);
        let started = Instant::now();
        let error = sftp::host_key(&target, limit).await.unwrap_err();
        assert!(matches!(&error, SftpError::Network(said) if said.contains("did not answer within 2 s")), "{error:?}");
        if key.exists() {
            let local = keyless.path().join("a.csv");
            std::fs::write(&local, "a,b\n").unwrap();
            let error = sftp::upload(
                &target,
                &SshAuth::KeyFile(key),
                "SHA256:x",
                &local,
                "a.csv",
                limit,
                &CancellationToken::new(),
            )
            .await
            .unwrap_err();
            assert!(matches!(error, SftpError::Network(_)), "{error:?}");
        }
        assert!(started.elapsed() < Duration::from_secs(8), "within the time limits: {:?}", started.elapsed());
        silent.abort();
    })
    .await;
}
