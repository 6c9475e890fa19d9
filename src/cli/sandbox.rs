//! `orgql sandbox`: serves the local sandbox until Ctrl+C or SIGTERM.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::sandbox::{ADMIN_CLIENT, Config, READER_CLIENT, Server, Variant, WebhookTarget};
use crate::webhooks::standard::Secret;

/// Which server `orgql sandbox` runs.
#[derive(ValueEnum, Clone, Copy, Debug, Default)]
enum VariantArg {
    /// The whole service: every resource, mutations and webhooks.
    #[default]
    Full,
    /// A different server of the spec to rehearse against: users only, edge cursors, its own
    /// wording.
    Minimal,
    /// A server of another shape to rehearse against: learning data nested on the user,
    /// noun-first mutations (userUpdate, registrationChangeStatus, …) whose payloads return
    /// refusals as data.
    Nested,
}

impl From<VariantArg> for Variant {
    fn from(arg: VariantArg) -> Self {
        match arg {
            VariantArg::Full => Variant::Full,
            VariantArg::Minimal => Variant::Minimal,
            VariantArg::Nested => Variant::Nested,
        }
    }
}

/// Which schema `orgql sandbox` serves.
#[derive(ValueEnum, Clone, Copy, Debug, Default)]
enum SchemaArg {
    /// The contract's schema.
    #[default]
    Current,
    /// The next version: `User.displayName` added, `User.name` deprecated ("Use `displayName`."),
    /// the argument `email` of `paginatedUsers` removed, the enum value `Role.REVIEWER` added
    /// (the full variant only).
    Next,
}

/// Options of `orgql sandbox`.
#[derive(Args, Debug)]
pub struct SandboxArgs {
    /// Which server to run.
    #[arg(long, value_enum, default_value_t = VariantArg::Full)]
    variant: VariantArg,
    /// Which version of the schema to serve (to try `orgql schema changes` and
    /// `orgql operations check`).
    #[arg(long, value_enum, default_value_t = SchemaArg::Current)]
    schema: SchemaArg,
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Number of users to generate.
    #[arg(long, default_value_t = 500)]
    users: usize,
    /// Seed of the generated data (same seed, same data).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Secret of the built-in API clients.
    #[arg(long, default_value = "sandbox-secret")]
    secret: String,
    /// Lifetime of access tokens, in seconds.
    #[arg(long, default_value_t = 86_400)]
    token_ttl: u64,
    /// Requests a second per API client before 429 (0: no limit).
    #[arg(long, default_value_t = 0)]
    rate_limit: u32,
    /// Milliseconds every GraphQL response waits first.
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
    /// URL to send webhooks to.
    #[arg(long, requires = "webhook_secret")]
    webhook_url: Option<String>,
    /// Signing secret of the webhooks (whsec_<base64>).
    #[arg(long, requires = "webhook_url")]
    webhook_secret: Option<String>,
}

/// Runs the sandbox until interrupted.
pub fn run(args: SandboxArgs) -> ExitCode {
    let variant = Variant::from(args.variant);
    if variant == Variant::Minimal && args.webhook_url.is_some() {
        eprintln!(
            "orgql: the minimal sandbox has no mutations and sends no webhooks; drop --webhook-url or use --variant full"
        );
        return ExitCode::from(2);
    }
    let mut webhooks = Vec::new();
    if let (Some(url), Some(secret)) = (&args.webhook_url, &args.webhook_secret) {
        match Secret::parse(secret) {
            Ok(secret) => webhooks.push(WebhookTarget { url: url.clone(), secret }),
            Err(err) => {
                eprintln!("orgql: {err}");
                return ExitCode::from(2);
            }
        }
    }
    let config = Config {
        variant,
        listen: args.listen,
        users: args.users,
        seed: args.seed,
        secret: args.secret,
        token_ttl: Duration::from_secs(args.token_ttl.max(1)),
        rate_limit: args.rate_limit,
        latency: Duration::from_millis(args.latency_ms),
        webhooks,
        schema: match args.schema {
            SchemaArg::Current => crate::sandbox::schema::Edition::Current,
            SchemaArg::Next => crate::sandbox::schema::Edition::Next,
        },
        ..Config::default()
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().thread_name("orgql-sandbox").build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("orgql: cannot start the async runtime ({err})");
            return ExitCode::from(6);
        }
    };
    runtime.block_on(async move {
        let server = match Server::start(config.clone()).await {
            Ok(server) => server,
            Err(err) => {
                eprintln!("orgql: {err}");
                return ExitCode::from(2);
            }
        };
        // Listening for the stop before saying where the sandbox is: whoever reads that line may
        // send SIGTERM at once.
        let stop = crate::platform::signal::Interrupt::listen();
        let variant = match config.variant {
            Variant::Full if config.schema == crate::sandbox::schema::Edition::Next => {
                "full, next schema: User.displayName added, User.name deprecated, paginatedUsers(email:) removed"
            }
            Variant::Full => "full",
            Variant::Minimal => "minimal: users only, edge cursors, no pageInfo",
            Variant::Nested => "nested: learning data on the user, noun-first mutations with payload errors",
        };
        println!(
            "orgql sandbox ({variant}) at {} — clients {ADMIN_CLIENT} (all scopes) and {READER_CLIENT} (read scopes), secret {}; {} users, seed {}; Ctrl+C stops",
            server.base_url(),
            server.client_secret(),
            config.users,
            config.seed,
        );
        stop.token().cancelled().await;
        server.stop().await;
        ExitCode::SUCCESS
    })
}
