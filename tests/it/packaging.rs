//! What the packages and a person's machine rely on: `orgql --reset` (lists, asks, removes the
//! platform's folders), `--log-file` at trace level without a secret or token in it, `--help`
//! naming the places, and the packaging files (desktop entry, icons, the `.deb`'s assets).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::IntoResponse;
use orgql::sandbox::Config;

use crate::harness::sandbox_with;

/// A home of its own: every XDG folder in a temporary directory, and no keyring.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home { dir: tempfile::tempdir().expect("a temporary directory") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn orgql(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_orgql"));
        command
            .args(args)
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env("ORGQL_NO_KEYRING", "1")
            .env_remove("ORGQL_LOG")
            .env_remove("ORGQL_CLIENT_SECRET");
        command
    }

    /// Runs `orgql args` with `answer` on standard input.
    fn run(&self, args: &[&str], answer: &str) -> Output {
        let mut child = self
            .orgql(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("orgql starts");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(answer.as_bytes()).expect("the answer is written");
        drop(stdin);
        child.wait_with_output().expect("orgql ends")
    }

    /// orgql's four folders, each with a file in it, and a neighbour that must survive.
    fn fill(&self) -> Vec<PathBuf> {
        let files = [
            "config/orgql/profiles.toml",
            "data/orgql/orgql.sqlite3",
            "cache/orgql/schema.bin",
            "state/orgql/orgql.log",
            "config/other-app/keep.toml",
        ];
        for file in files {
            let path = self.path(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
        }
        ["config", "data", "cache", "state"].iter().map(|root| self.path(root).join("orgql")).collect()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn reset_lists_the_folders_asks_and_removes_only_on_yes() {
    let home = Home::new();
    let folders = home.fill();

    for answer in ["n\n", "", "maybe\n"] {
        let output = home.run(&["--reset"], answer);
        let text = stderr(&output);
        assert!(output.status.success(), "{text}");
        for folder in &folders {
            assert!(text.contains(&folder.display().to_string()), "{folder:?} not listed:\n{text}");
            assert!(folder.exists(), "{folder:?} removed without a yes");
        }
        assert!(text.contains("Delete these 4 items? [y/N]"), "{text}");
        assert!(text.contains("the OS keyring is left alone: ORGQL_NO_KEYRING is set"), "{text}");
        assert!(text.contains("nothing was removed"), "{text}");
    }

    let output = home.run(&["--reset"], "y\n");
    assert!(output.status.success(), "{}", stderr(&output));
    for folder in &folders {
        assert!(!folder.exists(), "{folder:?} is still there");
    }
    assert!(home.path("config/other-app/keep.toml").exists(), "a neighbour was removed");

    let output = home.run(&["--reset", "--yes"], "");
    assert!(output.status.success() && stderr(&output).contains("nothing to remove"), "{}", stderr(&output));
}

#[test]
fn reset_with_yes_removes_without_asking() {
    let home = Home::new();
    let folders = home.fill();
    let output = home.orgql(&["--reset", "--yes"]).stdin(Stdio::null()).output().unwrap();
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("[y/N]"), "{text}");
    assert!(folders.iter().all(|folder| !folder.exists()), "{text}");
}

#[test]
fn reset_runs_alone_and_yes_needs_it() {
    let home = Home::new();
    let folders = home.fill();
    for args in [&["--reset", "profile", "list"][..], &["--yes"][..]] {
        let output = home.orgql(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).starts_with("orgql: "), "{}", stderr(&output));
    }
    assert!(folders.iter().all(|folder| folder.exists()));
}

#[test]
fn help_names_the_folders_and_the_default_log_file() {
    let home = Home::new();
    let output = home.orgql(&["--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", stderr(&output));
    for place in ["config/orgql", "data/orgql", "cache/orgql", "state/orgql/orgql.log"] {
        assert!(text.contains(&home.path(place).display().to_string()), "{place} not in:\n{text}");
    }
    assert!(text.contains("--reset") && text.contains("--log-file <PATH>"), "{text}");
}

/// A pass-through in front of the sandbox that remembers every access token it hands out, so
/// that the test knows what must not appear in the log.
#[derive(Clone)]
struct Recorder {
    upstream: String,
    tokens: Arc<Mutex<Vec<String>>>,
}

async fn pass_through(
    State(recorder): State<Recorder>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let mut request = reqwest::Client::new().post(format!("{}{}", recorder.upstream, uri.path())).body(body);
    for name in [header::CONTENT_TYPE, header::AUTHORIZATION] {
        if let Some(value) = headers.get(&name) {
            request = request.header(name.as_str(), value.as_bytes());
        }
    }
    let response = request.send().await.expect("the sandbox answers");
    let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
    let content_type = response.headers().get(reqwest::header::CONTENT_TYPE).map(|v| v.as_bytes().to_vec());
    let bytes = response.bytes().await.expect("a body");
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && let Some(token) = json["access_token"].as_str()
    {
        recorder.tokens.lock().unwrap().push(token.to_owned());
    }
    let mut answer = (status, bytes.to_vec()).into_response();
    if let Some(value) = content_type.and_then(|v| header::HeaderValue::from_bytes(&v).ok()) {
        answer.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    answer
}

#[tokio::test]
async fn a_query_logged_at_trace_level_leaves_no_secret_or_token_in_the_log_file() {
    const SECRET: &str = "s3cret-that-must-never-be-logged-4711";
    let server = sandbox_with(Config { users: 60, secret: SECRET.to_owned(), ..Config::default() }).await;
    let recorder = Recorder { upstream: server.base_url().to_owned(), tokens: Arc::default() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().fallback(pass_through).with_state(recorder.clone());
    let proxy = tokio::spawn(async move { axum::serve(listener, app).await });

    let home = Home::new();
    let log = home.path("logs/trace.log");
    let log_text = log.display().to_string();
    let mut command = home.orgql(&[
        "query",
        "-e",
        "{ paginatedUsers(first: 3) { count edges { node { ref name email } } } }",
        "--base-url",
        &base_url,
        "--client-id",
        "sandbox-reader",
        "--scope",
        "users.read",
        "--log-file",
        &log_text,
    ]);
    command.env("ORGQL_LOG", "trace").env("ORGQL_CLIENT_SECRET", SECRET);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap();
    proxy.abort();
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("u00001"));

    let tokens = recorder.tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 1, "one token was handed out");
    let written = std::fs::read_to_string(&log).expect("the log file was written");
    // The log did record the run at trace level: the start, the token's arrival, HTTP traffic.
    assert!(written.contains("orgql started") && written.contains("new access token"), "{written}");
    assert!(written.contains("TRACE"), "nothing at trace level:\n{written}");
    for (what, secret) in [("client secret", SECRET), ("access token", tokens[0].as_str())] {
        assert!(!written.contains(secret), "the {what} is in the log file");
        assert!(!err.contains(secret), "the {what} is on stderr");
    }
}

#[test]
fn an_unwritable_log_file_is_a_usage_error() {
    let home = Home::new();
    std::fs::write(home.path("a-file"), "x").unwrap();
    let path = home.path("a-file/orgql.log");
    let output = home.orgql(&["profile", "list", "--log-file", path.to_str().unwrap()]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("cannot write the log file"), "{}", stderr(&output));
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn the_desktop_entry_names_the_binary_the_icon_and_the_window_class() {
    let text = std::fs::read_to_string(repo("packaging/orgql.desktop")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "[Desktop Entry]");
    for line in [
        "Type=Application",
        "Name=orgql",
        "Exec=orgql",
        "Icon=orgql",
        "Categories=Development;Network;",
        "StartupWMClass=orgql",
    ] {
        assert!(lines.contains(&line), "{line} is missing");
    }
    assert!(lines.iter().any(|line| line.starts_with("Comment=")));
}

#[test]
fn every_icon_size_decodes_at_its_size() {
    for size in [16, 24, 32, 48, 64, 128, 256, 512] {
        let bytes = std::fs::read(repo(&format!("packaging/icons/hicolor/{size}x{size}/apps/orgql.png"))).unwrap();
        let icon = eframe::icon_data::from_png_bytes(&bytes).expect("a PNG");
        assert_eq!((icon.width, icon.height), (size, size));
        assert!(icon.rgba.chunks(4).any(|px| px[3] == 255), "{size}: fully transparent");
    }
    let svg = std::fs::read_to_string(repo("packaging/icons/orgql.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("viewBox=\"0 0 512 512\""));
}

#[test]
fn the_debian_package_assets_exist() {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(repo("Cargo.toml")).unwrap()).unwrap();
    let deb = &manifest["package"]["metadata"]["deb"];
    let assets = deb["assets"].as_array().expect("assets");
    let mut destinations = Vec::new();
    for asset in assets {
        let [source, dest, _mode] = asset.as_array().unwrap().as_slice() else { panic!("{asset}") };
        let (source, dest) = (source.as_str().unwrap(), dest.as_str().unwrap());
        destinations.push(dest);
        if source.starts_with("target/") {
            continue;
        }
        let found = if let Some((dir, extension)) = source.split_once("/*.") {
            std::fs::read_dir(repo(dir)).unwrap().any(|e| e.unwrap().path().extension().is_some_and(|x| x == extension))
        } else {
            repo(source).is_file()
        };
        assert!(found, "{source} is not in the repository");
    }
    for dest in ["usr/bin/", "usr/share/applications/", "usr/share/icons/hicolor/256x256/apps/", "usr/share/doc/orgql/"]
    {
        assert!(destinations.contains(&dest), "nothing goes to {dest}");
    }
    let depends = deb["depends"].as_str().unwrap();
    for library in ["libegl1", "libgl1-mesa-dri", "libxkbcommon-x11-0", "libfontconfig1"] {
        assert!(depends.contains(library), "{library} is not a dependency");
    }
    // A binary linked with packed relocations (build.rs) asks for glibc's GLIBC_ABI_DT_RELR,
    // which dpkg-shlibdeps does not count: the package must name glibc 2.36 itself.
    let binary = std::fs::read(env!("CARGO_BIN_EXE_orgql")).unwrap();
    let needle = b"GLIBC_ABI_DT_RELR";
    if binary.windows(needle.len()).any(|w| w == needle) {
        assert!(depends.contains("libc6 (>= 2.36)"), "the packed relocations need glibc 2.36: {depends}");
    }
}
