//! `orgql webhooks listen` and `orgql webhooks export` (contract section 2).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::Failure;
use crate::platform::terminal::printable;
use crate::store::{Delivery, Store};
use crate::webhooks::Scheme;
use crate::webhooks::export::export_jsonl;
use crate::webhooks::listener::{DEFAULT_BODY_LIMIT, Listener, ListenerConfig, Retention};
use crate::webhooks::pull::{LocalCheck, Remote};
use crate::webhooks::tunnel::{TunnelEvent, TunnelKind};

/// The environment variable that carries the signing secret (preferred to `--secret`).
pub const SECRET_ENV: &str = "ORGQL_WEBHOOK_SECRET";

/// The `webhooks` subcommands.
#[derive(Subcommand, Debug)]
pub enum WebhooksCommand {
    /// Receive, verify and store webhook deliveries until Ctrl+C or SIGTERM.
    Listen(ListenArgs),
    /// Write every stored delivery as one JSON line.
    Export(ExportArgs),
    /// Copy into the local store the deliveries it lacks from a sharing listener or a gosmee relay.
    Pull(PullArgs),
}

/// Options of `orgql webhooks listen`.
#[derive(Args, Debug)]
pub struct ListenArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:9000")]
    listen: SocketAddr,
    /// Signing secret; better in the environment variable ORGQL_WEBHOOK_SECRET, which wins; without
    /// either, the one the app's webhook inspector keeps in the OS keyring.
    #[arg(long)]
    secret: Option<String>,
    /// Signature scheme: standard, github, stripe, hmac-sha256-hex:HEADER or hmac-sha256-base64:HEADER.
    #[arg(long)]
    scheme: Option<Scheme>,
    /// Answer 401 to deliveries that fail verification (they are stored either way).
    #[arg(long)]
    reject_invalid: bool,
    /// Allow listening on an address other senders on the network can reach.
    #[arg(long)]
    allow_remote: bool,
    /// Largest body accepted, in bytes.
    #[arg(long, default_value_t = DEFAULT_BODY_LIMIT)]
    body_limit: usize,
    /// The database to store into (default: orgql's data directory).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Serve the stored deliveries to inspectors (`orgql webhooks pull`, the app's Attach) under
    /// /_orgql/ on the same port, to requests carrying the token in this file as a bearer token.
    #[arg(long, value_name = "FILE")]
    share_token_file: Option<PathBuf>,
    /// Remove deliveries older than this many days (checked every minute, oldest first).
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..))]
    keep_days: Option<u32>,
    /// Remove the oldest deliveries while the stored ones take more than this many megabytes.
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    max_store_mb: Option<u64>,
    /// Make the listener reachable from the internet through cloudflared, ngrok, tailscale, or a
    /// command of your own with {port} in it; prints `public URL: …` (again when it changes).
    #[arg(long, value_name = "PROGRAM")]
    tunnel: Option<TunnelKind>,
    /// Once the public URL is up, send it a signed test delivery and say whether it arrived byte
    /// for byte and verified.
    #[arg(long, requires = "tunnel")]
    send_test: bool,
    /// Believe the client address that ADDR (a reverse proxy or tunnel you run yourself) names in
    /// X-Forwarded-For or Cf-Connecting-Ip: per-sender limits then count that client, and each
    /// delivery records it. Repeatable. The tunnel started with --tunnel is believed without it;
    /// anyone else's forwarding headers are ignored.
    #[arg(long, value_name = "ADDR")]
    trust_proxy: Vec<std::net::IpAddr>,
}

/// Options of `orgql webhooks pull`.
#[derive(Args, Debug)]
pub struct PullArgs {
    /// The sharing listener's address (http://host:9000) or a gosmee relay's events URL
    /// (https://relay/events/CHANNEL).
    url: String,
    /// The file holding the listener's share token (not needed for an open gosmee channel).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The database to copy into (default: orgql's data directory).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Signature scheme to verify the copies with locally (with the secret from
    /// ORGQL_WEBHOOK_SECRET); without a secret the remote's verdict is kept.
    #[arg(long)]
    scheme: Option<Scheme>,
    /// For a gosmee relay: stop when it has sent nothing for this many seconds.
    #[arg(long, default_value_t = 2, value_name = "SECONDS")]
    idle: u64,
}

/// Options of `orgql webhooks export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The JSON Lines file to write.
    #[arg(long)]
    out: PathBuf,
    /// The database to read (default: orgql's data directory).
    #[arg(long)]
    store: Option<PathBuf>,
}

/// Runs a `webhooks` subcommand.
pub fn run(command: WebhooksCommand) -> Result<(), Failure> {
    match command {
        WebhooksCommand::Listen(args) => super::block_on(listen(args)),
        WebhooksCommand::Export(args) => export(args),
        WebhooksCommand::Pull(args) => super::block_on(pull(args)),
    }
}

fn store_path(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    given.or_else(Store::default_path).ok_or_else(|| {
        Failure::usage("this system has no data directory for orgql's database; give one with --store PATH")
    })
}

async fn listen(args: ListenArgs) -> Result<(), Failure> {
    // The environment, the option, then the secret the desktop app's inspector keeps in the keyring.
    let secret = match std::env::var(SECRET_ENV) {
        Ok(secret) if !secret.trim().is_empty() => Some(secret),
        _ => args.secret.or_else(|| {
            super::connection::secret_store().webhook_secret().ok().flatten().map(|s| s.expose().to_owned())
        }),
    };
    if let Some(kind) = &args.tunnel
        && !matches!(kind, TunnelKind::Command(_))
        && kind.find().is_none()
    {
        let found: Vec<String> = crate::webhooks::tunnel::available()
            .into_iter()
            .filter_map(|(k, path)| path.map(|_| k.name().to_owned()))
            .collect();
        let others = if found.is_empty() {
            "none of cloudflared, ngrok and tailscale is on PATH".to_owned()
        } else {
            format!("on PATH: {}", found.join(", "))
        };
        return Err(Failure::usage(format!("{} is not on PATH ({others}); {}", kind.name(), kind.how_to_get())));
    }
    let share_token = match &args.share_token_file {
        Some(path) => Some(crate::webhooks::share::read_token_file(path).map_err(Failure::usage)?),
        None => None,
    };
    let sharing = share_token.is_some();
    let config = ListenerConfig {
        listen: args.listen,
        allow_remote: args.allow_remote,
        scheme: args.scheme,
        secret,
        reject_invalid: args.reject_invalid,
        body_limit: args.body_limit,
        store_path: store_path(args.store)?,
        connections: Default::default(),
        share_token,
        retention: Retention {
            keep_days: args.keep_days,
            max_store_bytes: args.max_store_mb.map(|mb| mb.saturating_mul(1_000_000)),
        },
        budget: Default::default(),
        trusted_proxies: args.trust_proxy,
    };
    let store_path = config.store_path.clone();
    let checking = config.secret.is_some();
    let check = config.secret.clone().map(|secret| (config.scheme.clone().unwrap_or(Scheme::Standard), secret));
    if args.send_test && check.is_none() {
        return Err(Failure::usage(format!(
            "--send-test signs a sample with the webhook secret; set {SECRET_ENV} (and --scheme when not Standard Webhooks)"
        )));
    }
    let listener = Listener::start(config).await.map_err(Failure::usage)?;
    let mut events = listener.subscribe();
    // Listening for the stop before saying where: whoever reads that line may stop it at once.
    let stop = crate::platform::signal::Interrupt::listen();
    println!(
        "orgql webhooks listening at http://{} — storing into {}{}; Ctrl+C stops",
        listener.addr(),
        store_path.display(),
        if checking { "" } else { " (no secret: signatures not checked)" }
    );
    if sharing {
        println!("sharing: inspectors attach with `orgql webhooks pull http://{} --token-file FILE`", listener.addr());
    }
    let printer = tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match events.recv().await {
                Ok(delivery) => println!("{}", line(&delivery)),
                Err(RecvError::Lagged(missed)) => println!("({missed} deliveries stored but not shown)"),
                Err(RecvError::Closed) => break,
            }
        }
    });
    let tunnel = args.tunnel.map(|kind| {
        let name = kind.name().to_owned();
        let (tunnel, mut events) = crate::webhooks::tunnel::start(kind, listener.addr().port());
        listener.forwarders().trust_tunnel(&name, tunnel.process());
        let deliveries = listener.events_sender();
        let send_test = args.send_test;
        let reporter = tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    TunnelEvent::Starting { attempt } if attempt > 1 => eprintln!("orgql: starting the tunnel again"),
                    TunnelEvent::Starting { .. } => {}
                    TunnelEvent::Up { url, previous } => {
                        println!("public URL: {url}");
                        if let Some(previous) = previous {
                            println!("the public address changed (it was {previous}); paste the new one into the admin interface");
                        }
                        if send_test && let Some((scheme, secret)) = &check {
                            println!("{}", test_delivery(&url, scheme, secret, &deliveries).await);
                        }
                    }
                    TunnelEvent::Down { reason, restart_in } => {
                        eprintln!("orgql: the tunnel is down: {reason}; starting it again in {} s", restart_in.as_secs())
                    }
                }
            }
        });
        (tunnel, reporter)
    });
    stop.token().cancelled().await;
    if let Some((tunnel, reporter)) = tunnel {
        tunnel.stop().await;
        reporter.abort();
    }
    listener.stop().await;
    // The deliveries stored before the stop are printed; a connection still trickling a body (it
    // keeps the listener's channel open) does not hold the command.
    let printer_abort = printer.abort_handle();
    match tokio::time::timeout(std::time::Duration::from_secs(1), printer).await {
        Ok(Err(err)) if !err.is_cancelled() => tracing::warn!("the delivery printer ended abnormally: {err}"),
        Ok(_) => {}
        Err(_) => printer_abort.abort(),
    }
    Ok(())
}

/// One line for a stored delivery: time, method, path, size, event type, verification.
fn line(delivery: &Delivery) -> String {
    let d = &delivery.delivery;
    // Everything the sender chose is shown through the sanitiser: a `type` of escape sequences
    // must not clear the screen, set the title or print a line of its own.
    let kind = serde_json::from_slice::<serde_json::Value>(&d.body)
        .ok()
        .and_then(|body| body.get("type").and_then(|t| t.as_str()).map(|t| printable(t).into_owned()))
        .unwrap_or_else(|| "-".to_owned());
    let verdict = match d.verified {
        Some(true) => "verified".to_owned(),
        Some(false) => format!("NOT VERIFIED: {}", printable(&d.reason)),
        None => "not checked".to_owned(),
    };
    format!(
        "{} #{} {} {} {} bytes {kind} {verdict}",
        d.received_at.format("%Y-%m-%dT%H:%M:%S%.3fZ"),
        delivery.id,
        printable(&d.method),
        printable(&d.path),
        d.size
    )
}

fn export(args: ExportArgs) -> Result<(), Failure> {
    let path = store_path(args.store)?;
    let store = Store::open(&path).map_err(Failure::usage)?;
    let dir = match args.out.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let cannot_write = |e: &dyn std::fmt::Display| {
        Failure::usage(format!("cannot write {} ({e}); check the path", args.out.display()))
    };
    let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(|e| cannot_write(&e))?;
    let count = {
        let mut writer = std::io::BufWriter::new(file.as_file_mut());
        export_jsonl(&store, &mut writer).map_err(Failure::usage)?
    };
    file.persist(&args.out).map_err(|e| cannot_write(&e.error))?;
    eprintln!("orgql: wrote {count} deliveries to {}", args.out.display());
    Ok(())
}

async fn pull(args: PullArgs) -> Result<(), Failure> {
    let token = match &args.token_file {
        Some(path) => Some(crate::webhooks::share::read_token_file(path).map_err(Failure::usage)?),
        None => None,
    };
    let remote = Remote::new(&args.url, token).map_err(Failure::usage)?;
    let check = match (std::env::var(SECRET_ENV).ok().filter(|s| !s.trim().is_empty()), args.scheme) {
        (Some(secret), scheme) => {
            Some(LocalCheck { scheme: scheme.unwrap_or(Scheme::Standard), secret: crate::secret::Secret::new(secret) })
        }
        (None, Some(scheme)) => {
            return Err(Failure::usage(format!(
                "--scheme {scheme} needs the webhook secret to verify with; set {SECRET_ENV}"
            )));
        }
        (None, None) => None,
    };
    let store = store_path(args.store)?;
    let idle = std::time::Duration::from_secs(args.idle.max(1));
    let report = crate::webhooks::pull::pull(&remote, &store, check.as_ref(), idle).await.map_err(|e| {
        use crate::webhooks::pull::PullError;
        let code = match e {
            PullError::Unauthorized(_) => 3,
            PullError::BadUrl(_) | PullError::NotSharing(_) => 2,
            _ => 6,
        };
        Failure::new(code, e.to_string())
    })?;
    for (after, oldest) in &report.gaps {
        println!(
            "gap: the relay no longer has the deliveries after {} (its oldest is {})",
            printable(after),
            printable(oldest)
        );
    }
    for reason in &report.unreadable {
        println!("skipped: {}", printable(reason));
    }
    println!("pulled {} deliveries", report.pulled);
    Ok(())
}

/// Sends a signed sample to the public `url` and compares what the listener stored with it.
async fn test_delivery(
    url: &str,
    scheme: &Scheme,
    secret: &str,
    deliveries: &tokio::sync::broadcast::Sender<Delivery>,
) -> String {
    match crate::webhooks::testsend::run(url, scheme, secret, deliveries).await {
        Ok(outcome) => format!("test delivery: {outcome}"),
        Err(err) => format!("test delivery: {err}"),
    }
}
