//! A public address for the listener through a tunnel program already on the machine
//! (`orgql webhooks listen --tunnel cloudflared|ngrok|tailscale|"COMMAND {port}"`, the app's "Make
//! reachable from the internet"; no egui here). orgql starts the program for the listener's port
//! in a process group of its own, reads the public URL from what it prints (from ngrok's local API
//! at 127.0.0.1:4040), restarts it when it dies (saying when the address changed), and stops the
//! whole group with the listener or when the [`RunningTunnel`] is dropped.
//!
//! Its one HTTP request, to ngrok's local API on 127.0.0.1:4040, is loopback only: it needs no
//! proxy, trust or sign-in (`crate::net` never proxies loopback either), so it is a plain reqwest
//! client rather than `crate::net`'s.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The longest line of a tunnel's output that is read whole (8 KiB); longer ones are cut.
const MAX_LINE: u64 = 8 * 1024;
/// How long a tunnel may take to say its address (60 s) before it is restarted.
pub const ADDRESS_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest wait between restarts (60 s).
pub const MAX_RESTART_WAIT: Duration = Duration::from_secs(60);

/// Which program makes the listener reachable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunnelKind {
    /// `cloudflared tunnel --url http://127.0.0.1:PORT` (a quick tunnel, no account).
    Cloudflared,
    /// `ngrok http PORT` (its authtoken configured); the URL from its local API.
    Ngrok,
    /// `tailscale funnel PORT` (Funnel enabled for the tailnet).
    Tailscale,
    /// Any command with `{port}` in it, run by the shell; the URL is the first it prints.
    Command(String),
}

impl TunnelKind {
    /// The three known programs.
    pub const KNOWN: [TunnelKind; 3] = [TunnelKind::Cloudflared, TunnelKind::Ngrok, TunnelKind::Tailscale];

    /// Its name (the program, or the command as given).
    pub fn name(&self) -> &str {
        match self {
            TunnelKind::Cloudflared => "cloudflared",
            TunnelKind::Ngrok => "ngrok",
            TunnelKind::Tailscale => "tailscale",
            TunnelKind::Command(command) => command,
        }
    }

    /// One sentence on how to get the program.
    pub fn how_to_get(&self) -> &'static str {
        match self {
            TunnelKind::Cloudflared => {
                "cloudflared: install Cloudflare's `cloudflared` package (Debian/Ubuntu from its apt repository, macOS \
                 `brew install cloudflared`, Windows `winget install Cloudflare.cloudflared`); quick tunnels need no account."
            }
            TunnelKind::Ngrok => {
                "ngrok: install it from ngrok's site or `brew install ngrok`, then `ngrok config add-authtoken TOKEN` \
                 with the token of a free ngrok account."
            }
            TunnelKind::Tailscale => {
                "tailscale: install Tailscale, log in with `tailscale up`, and allow Funnel for this machine in the \
                 tailnet's access controls."
            }
            TunnelKind::Command(_) => "a command of your own: give it with {port} where the listener's port goes.",
        }
    }

    /// The program to look for on `PATH`.
    fn program(&self) -> Option<&'static str> {
        match self {
            TunnelKind::Cloudflared => Some("cloudflared"),
            TunnelKind::Ngrok => Some("ngrok"),
            TunnelKind::Tailscale => Some("tailscale"),
            TunnelKind::Command(_) => None,
        }
    }

    /// Where its program is on `PATH`, if it is.
    pub fn find(&self) -> Option<PathBuf> {
        self.program().and_then(on_path)
    }

    fn command(&self, port: u16) -> Command {
        let mut command = match self {
            TunnelKind::Cloudflared => {
                let mut c = Command::new("cloudflared");
                c.args(["tunnel", "--no-autoupdate", "--url", &format!("http://127.0.0.1:{port}")]);
                c
            }
            TunnelKind::Ngrok => {
                let mut c = Command::new("ngrok");
                c.args(["http", &port.to_string(), "--log", "stdout"]);
                c
            }
            TunnelKind::Tailscale => {
                let mut c = Command::new("tailscale");
                c.args(["funnel", &port.to_string()]);
                c
            }
            TunnelKind::Command(text) => crate::platform::shell_command(&text.replace("{port}", &port.to_string())),
        };
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // Its own group keeps a terminal's Ctrl+C from reaching it before orgql stops it (and on
        // Linux it is sent SIGTERM when orgql dies).
        crate::platform::in_own_group(&mut command);
        command
    }

    /// The public URL in a line of its output, if the line has one.
    pub fn url_in(&self, line: &str) -> Option<String> {
        let urls = line
            .split(|c: char| c.is_whitespace() || matches!(c, '|' | '"' | '\'' | '<' | '>'))
            .map(|word| word.strip_prefix("url=").unwrap_or(word))
            .filter(|word| word.starts_with("https://") || word.starts_with("http://"))
            .map(|word| word.trim_end_matches(['.', ',', ';', ')']).to_owned());
        let public = |url: &String| {
            let host = url.split("://").nth(1).unwrap_or_default().split(['/', ':']).next().unwrap_or_default();
            const TUNNEL_DOMAINS: [&str; 5] =
                [".trycloudflare.com", ".ngrok-free.app", ".ngrok.app", ".ngrok.io", ".ts.net"];
            TUNNEL_DOMAINS.iter().any(|d| host.ends_with(d))
        };
        match self {
            TunnelKind::Cloudflared | TunnelKind::Ngrok | TunnelKind::Tailscale => {
                urls.filter(|u| u.starts_with("https://")).find(public)
            }
            // A command of one's own: a known tunnel domain, else any address that is not a
            // program's documentation (cloudflared and ngrok print those in their banners).
            TunnelKind::Command(_) => {
                let urls: Vec<String> = urls.collect();
                urls.iter().find(|u| public(u)).cloned().or_else(|| {
                    urls.into_iter().find(|u| {
                        !["cloudflare.com", "ngrok.com", "tailscale.com", "github.com"].iter().any(|d| u.contains(d))
                    })
                })
            }
        }
    }
}

impl FromStr for TunnelKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "cloudflared" => Ok(TunnelKind::Cloudflared),
            "ngrok" => Ok(TunnelKind::Ngrok),
            "tailscale" => Ok(TunnelKind::Tailscale),
            command if command.contains("{port}") => Ok(TunnelKind::Command(command.to_owned())),
            other => Err(format!(
                "'{other}' is not a tunnel orgql knows; give cloudflared, ngrok, tailscale or a command with {{port}} in it"
            )),
        }
    }
}

/// The known tunnel programs and where each is on `PATH` (`None`: not installed).
pub fn available() -> Vec<(TunnelKind, Option<PathBuf>)> {
    TunnelKind::KNOWN
        .into_iter()
        .map(|kind| {
            let found = kind.find();
            (kind, found)
        })
        .collect()
}

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let name = crate::platform::program_file_name(program);
    std::env::split_paths(&path).map(|dir| dir.join(&name)).find(|p| p.is_file())
}

/// What a tunnel reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunnelEvent {
    /// The program is starting (the `n`th time, from 1).
    Starting {
        /// Which start this is.
        attempt: u32,
    },
    /// The public address.
    Up {
        /// The URL to paste into the admin interface (append the path the listener should see).
        url: String,
        /// The address before a restart, when it changed.
        previous: Option<String>,
    },
    /// The program stopped or could not start; it is started again after `restart_in`.
    Down {
        /// Why, in one sentence (with the program's last line).
        reason: String,
        /// The wait before the restart.
        restart_in: Duration,
    },
}

/// A tunnel program that runs until [`RunningTunnel::stop`] or drop.
pub struct RunningTunnel {
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
    process: crate::serve::forwarded::TunnelProcess,
}

impl RunningTunnel {
    /// The program's process (group) while it runs, for believing what it forwards
    /// ([`crate::serve::forwarded::Forwarders::trust_tunnel`]).
    pub fn process(&self) -> crate::serve::forwarded::TunnelProcess {
        self.process.clone()
    }

    /// Stops the program (its whole process group) and waits for the supervisor.
    pub async fn stop(mut self) {
        self.cancel.cancel();
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningTunnel {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Starts `kind` for `port` and keeps it running; its events on the channel.
pub fn start(kind: TunnelKind, port: u16) -> (RunningTunnel, mpsc::Receiver<TunnelEvent>) {
    let (events, receiver) = mpsc::channel(64);
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let process = crate::serve::forwarded::TunnelProcess::default();
    let running = process.clone();
    let task = tokio::spawn(async move {
        supervise(kind, port, events, stop, &running).await;
        running.set(None);
    });
    (RunningTunnel { cancel, task, process }, receiver)
}

/// The child and its process group, killed when this is dropped.
struct Running {
    child: Arc<Mutex<Child>>,
}

impl Running {
    fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        // The whole group: a shell's children, and cloudflared's own.
        crate::platform::stop_group(&child);
        let _ = child.kill();
        let _ = child.wait();
    }

    fn exited(&self) -> Option<String> {
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(err) => Some(err.to_string()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn supervise(
    kind: TunnelKind,
    port: u16,
    events: mpsc::Sender<TunnelEvent>,
    stop: CancellationToken,
    process: &crate::serve::forwarded::TunnelProcess,
) {
    let mut attempt = 0;
    let mut wait = Duration::from_secs(1);
    let mut previous: Option<String> = None;
    loop {
        attempt += 1;
        if events.send(TunnelEvent::Starting { attempt }).await.is_err() {
            return;
        }
        let outcome = run_once(&kind, port, &events, &stop, &mut previous, process).await;
        process.set(None);
        let reason = match outcome {
            Outcome::Stopped => return,
            Outcome::Died { reason, was_up } => {
                if was_up {
                    wait = Duration::from_secs(1);
                }
                reason
            }
        };
        if events.send(TunnelEvent::Down { reason, restart_in: wait }).await.is_err() {
            return;
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(MAX_RESTART_WAIT);
    }
}

enum Outcome {
    Stopped,
    Died { reason: String, was_up: bool },
}

async fn run_once(
    kind: &TunnelKind,
    port: u16,
    events: &mpsc::Sender<TunnelEvent>,
    stop: &CancellationToken,
    previous: &mut Option<String>,
    process: &crate::serve::forwarded::TunnelProcess,
) -> Outcome {
    let mut command = kind.command(port);
    let mut child = match command.spawn() {
        Ok(child) => {
            // Its pid is its process group's id (`process_group(0)`).
            process.set(Some(child.id()));
            child
        }
        Err(err) => {
            let reason = match kind.program() {
                Some(program) if err.kind() == std::io::ErrorKind::NotFound => {
                    format!("{program} is not installed; {}", kind.how_to_get())
                }
                _ => format!("{} could not start ({err})", kind.name()),
            };
            return Outcome::Died { reason, was_up: false };
        }
    };
    let (lines_tx, mut lines) = mpsc::channel::<String>(256);
    for pipe in [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tx = lines_tx.clone();
        std::thread::spawn(move || read_lines(pipe, tx));
    }
    drop(lines_tx);
    let running = Running { child: Arc::new(Mutex::new(child)) };
    let mut url: Option<String> = None;
    let mut last_line = String::new();
    let started = tokio::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let mut open = true;
    loop {
        tokio::select! {
            _ = stop.cancelled() => {
                let _ = tokio::task::spawn_blocking(move || drop(running)).await;
                return Outcome::Stopped;
            }
            line = lines.recv(), if open => match line {
                Some(line) => {
                    if url.is_none() && let Some(found) = kind.url_in(&line) {
                        url = Some(found.clone());
                        announce(events, found, previous).await;
                    }
                    if !line.trim().is_empty() {
                        last_line = crate::platform::terminal::printable(line.trim()).chars().take(300).collect();
                    }
                }
                None => open = false,
            },
            _ = tick.tick() => {
                if let Some(status) = running.exited() {
                    let reason = if last_line.is_empty() {
                        format!("{} stopped ({status})", kind.name())
                    } else {
                        format!("{} stopped ({status}); it said: {last_line}", kind.name())
                    };
                    return Outcome::Died { reason, was_up: url.is_some() };
                }
                if url.is_none() && *kind == TunnelKind::Ngrok
                    && let Some(found) = ngrok_api_url(port).await
                {
                    url = Some(found.clone());
                    announce(events, found, previous).await;
                }
                if url.is_none() && started.elapsed() > ADDRESS_TIMEOUT {
                    let _ = tokio::task::spawn_blocking(move || drop(running)).await;
                    return Outcome::Died {
                        reason: format!("{} printed no public address within {} s", kind.name(), ADDRESS_TIMEOUT.as_secs()),
                        was_up: false,
                    };
                }
            }
        }
    }
}

async fn announce(events: &mpsc::Sender<TunnelEvent>, url: String, previous: &mut Option<String>) {
    let changed = previous.as_ref().filter(|p| **p != url).cloned();
    *previous = Some(url.clone());
    let _ = events.send(TunnelEvent::Up { url, previous: changed }).await;
}

/// The public URL of ngrok's tunnel to `port`, from its local API.
async fn ngrok_api_url(port: u16) -> Option<String> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().ok()?;
    let answer: serde_json::Value =
        client.get("http://127.0.0.1:4040/api/tunnels").send().await.ok()?.json().await.ok()?;
    answer["tunnels"].as_array()?.iter().find_map(|t| {
        let public = t["public_url"].as_str()?;
        let to = t["config"]["addr"].as_str().unwrap_or_default();
        (public.starts_with("https://")
            && (to.is_empty() || to.ends_with(&format!(":{port}")) || to == port.to_string()))
        .then(|| public.to_owned())
    })
}

/// Reads a pipe line by line (each at most [`MAX_LINE`] bytes) onto the channel until it closes.
fn read_lines(pipe: Box<dyn Read + Send>, tx: mpsc::Sender<String>) {
    let mut reader = BufReader::new(pipe);
    loop {
        let mut line = Vec::new();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if tx.blocking_send(String::from_utf8_lossy(&line).into_owned()).is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_public_url_the_way_each_program_prints_it() {
        let cloudflared = [
            "2026-11-25T05:00:00Z INF Thank you for trying Cloudflare Tunnel. See https://developers.cloudflare.com/cloudflare-one/",
            "2026-11-25T05:00:00Z INF |  https://seven-words-here.trycloudflare.com                                   |",
        ];
        assert_eq!(TunnelKind::Cloudflared.url_in(cloudflared[0]), None);
        assert_eq!(
            TunnelKind::Cloudflared.url_in(cloudflared[1]).as_deref(),
            Some("https://seven-words-here.trycloudflare.com")
        );
        let ngrok = r#"t=2026-11-25T05:00:00+0000 lvl=info msg="started tunnel" obj=tunnels name=command_line addr=http://localhost:9000 url=https://ab12-34.ngrok-free.app"#;
        assert_eq!(TunnelKind::Ngrok.url_in(ngrok).as_deref(), Some("https://ab12-34.ngrok-free.app"));
        assert_eq!(
            TunnelKind::Tailscale.url_in("https://box.tail1234.ts.net/").as_deref(),
            Some("https://box.tail1234.ts.net/")
        );
        let own = TunnelKind::Command("relay {port}".into());
        assert_eq!(own.url_in(cloudflared[0]), None);
        assert_eq!(own.url_in("INF |  http://127.0.0.1:4242  |").as_deref(), Some("http://127.0.0.1:4242"));
    }

    #[test]
    fn a_tunnel_is_named_or_a_command_with_its_port() {
        assert_eq!("ngrok".parse::<TunnelKind>(), Ok(TunnelKind::Ngrok));
        assert_eq!(
            "bore local {port} --to bore.pub".parse::<TunnelKind>(),
            Ok(TunnelKind::Command("bore local {port} --to bore.pub".into()))
        );
        assert!("localtunnel".parse::<TunnelKind>().unwrap_err().contains("{port}"));
    }
}
