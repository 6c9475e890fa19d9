//! `orgql webhooks listen --tunnel … --send-test` with a stand-in tunnel written for the tests: a
//! shell script that tells an in-test relay the listener's port and prints the relay's address
//! the way cloudflared prints a quick tunnel's (and, after it dies and is restarted, the way ngrok
//! logs one); the second relay re-encodes JSON bodies, as smee.io's client does.
#![cfg(unix)]

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// A relay on 127.0.0.1 that forwards each request to the port written in `port_file`,
/// re-encoding JSON bodies when `alter`.
async fn relay(port_file: PathBuf, alter: bool) -> u16 {
    let app = axum::Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
        let port_file = port_file.clone();
        async move {
            let port = std::fs::read_to_string(&port_file).unwrap_or_default();
            let mut body = body.to_vec();
            if alter && let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) {
                body = serde_json::to_vec(&value).unwrap();
            }
            let mut request = reqwest::Client::new().request(method, format!("http://127.0.0.1:{}{uri}", port.trim()));
            for (name, value) in &headers {
                if !matches!(name.as_str(), "host" | "content-length") {
                    request = request.header(name, value);
                }
            }
            match request.body(body).send().await {
                Ok(response) => StatusCode::from_u16(response.status().as_u16()).unwrap(),
                Err(_) => StatusCode::BAD_GATEWAY,
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    port
}

fn stand_in(dir: &Path, faithful: u16, altering: u16) -> PathBuf {
    let script = dir.join("stand-in-tunnel.sh");
    let text = format!(
        r#"printf '%s' "$1" > "{dir}/port"
echo $$ > "{dir}/pid"
if [ ! -f "{dir}/started" ]; then
  touch "{dir}/started"
  echo "2026-11-25T05:00:00Z INF Thank you for trying Cloudflare Tunnel. See https://developers.cloudflare.com/cloudflare-one/" >&2
  echo "2026-11-25T05:00:00Z INF +----------------------------------------------------+" >&2
  echo "2026-11-25T05:00:00Z INF |  Your quick Tunnel has been created! Visit it at:  |" >&2
  echo "2026-11-25T05:00:00Z INF |  http://127.0.0.1:{faithful}                              |" >&2
  sleep 3
  exit 1
fi
echo 't=2026-11-25T05:00:05+0000 lvl=info msg="started tunnel" obj=tunnels name=command_line addr=http://localhost:'"$1"' url=http://127.0.0.1:{altering}'
exec sleep 600
"#,
        dir = dir.display()
    );
    std::fs::write(&script, text).unwrap();
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_url_shows_the_test_delivery_verifies_and_an_altering_relay_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let faithful = relay(dir.path().join("port"), false).await;
    let altering = relay(dir.path().join("port"), true).await;
    let script = stand_in(dir.path(), faithful, altering);
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "listen", "--listen", "127.0.0.1:0", "--send-test", "--store"])
        .arg(dir.path().join("s.sqlite3"))
        .arg("--tunnel")
        .arg(format!("sh {} {{port}}", script.display()))
        .env("ORGQL_WEBHOOK_SECRET", SECRET)
        .env("ORGQL_NO_KEYRING", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || for _ in std::io::BufReader::new(stderr).lines() {});
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let wanted = |lines: &[String]| lines.iter().filter(|l| l.starts_with("test delivery:")).count() >= 2;
    while !wanted(&lines) {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "two test deliveries were not reported: {lines:#?}");
        if let Ok(line) = tokio::task::block_in_place(|| rx.recv_timeout(left)) {
            lines.push(line);
        }
    }
    let first_url = format!("public URL: http://127.0.0.1:{faithful}");
    let second_url = format!("public URL: http://127.0.0.1:{altering}");
    assert!(lines.contains(&first_url), "{lines:#?}");
    assert!(lines.contains(&second_url), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("the public address changed")), "{lines:#?}");
    let tests: Vec<&String> = lines.iter().filter(|l| l.starts_with("test delivery:")).collect();
    assert!(tests[0].contains("arrived byte for byte and verified"), "{tests:?}");
    assert!(tests[1].contains("signatures cannot be verified through this relay"), "{tests:?}");

    // SIGTERM stops the listener and the stand-in's whole process group.
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap().trim().to_owned();
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "orgql still ran 15 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(&pid) {
        assert!(Instant::now() < deadline, "the tunnel program outlived the listener");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` runs (a zombie does not count).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z'))
        .unwrap_or(false)
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tunnel_program_does_not_outlive_a_listener_killed_outright() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("stand-in.sh");
    std::fs::write(
        &script,
        format!(
            "echo $$ > \"{}/pid\"\necho \"INF |  http://127.0.0.1:$1  |\" >&2\nexec sleep 600\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_orgql"))
        .args(["webhooks", "listen", "--listen", "127.0.0.1:0", "--store"])
        .arg(dir.path().join("s.sqlite3"))
        .arg("--tunnel")
        .arg(format!("sh {} {{port}}", script.display()))
        .env("ORGQL_NO_KEYRING", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut lines = stdout.lines().map_while(Result::ok);
    assert!(lines.any(|l| l.starts_with("public URL: ")), "the tunnel came up");
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap().trim().to_owned();
    assert!(alive(&pid));
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(&pid) {
        assert!(Instant::now() < deadline, "the tunnel program outlived a listener killed with SIGKILL");
        std::thread::sleep(Duration::from_millis(50));
    }
}
