//! `orgql doctor`: the route a request of the connection takes, as lines a person can hand to
//! IT — which settings file each setting came from, the proxy and where that came from (or
//! direct), the service's certificate (subject, issuer, the store that trusted it), revocation,
//! the client certificate, the token (the scopes granted) and the schema — and exit 0 when a
//! query would work; else the one sentence naming what stands in the way, and its exit status.
//!
//! The report is a list of sections, each a function giving lines, so that other parts of the
//! program add theirs (the desktop's renderer, issue 45) without this file knowing their insides.

use clap::Args;

use super::connection::{ConnectionArgs, secret_store};
use super::{Failure, cancel_on_ctrl_c};

/// Options of `orgql doctor`.
#[derive(Args, Debug)]
pub struct DoctorArgs {
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// Runs `orgql doctor`: prints the lines on stdout as they are known.
pub async fn run(args: DoctorArgs) -> Result<(), Failure> {
    let out = |line: &str| println!("{}", crate::platform::terminal::printable(line));
    // The window's lines first: they hold whatever the connection does.
    for section in SECTIONS {
        for line in section() {
            out(&line);
        }
    }
    let store = secret_store();
    let network = args.connection.network(&store)?;
    for line in network.origin_lines() {
        out(&line);
    }
    let client = args.connection.client()?;
    let cancel = cancel_on_ctrl_c();
    // The token request is the first that goes out: its handshake fills the certificate lines.
    let token = tokio::select! {
        _ = cancel.cancelled() => return Err(Failure::new(130, "cancelled")),
        token = client.tokens().get() => token,
    };
    for line in client.route().lines() {
        out(&line);
    }
    let token = match token {
        Ok(token) => token,
        Err(err) => {
            out(&format!("token: not obtained: {err}"));
            return Err(Failure::from(err));
        }
    };
    out(&format!(
        "token: granted {}; valid for {}",
        if token.scopes.is_empty() { "no scope".to_owned() } else { token.scopes.to_string() },
        crate::api::wait_text(token.remaining())
    ));
    match client.introspect(&cancel).await {
        Ok(introspection) => {
            let types = introspection.schema.types.len();
            let query = introspection.schema.schema_definition.query.as_ref().map(|q| q.name.to_string());
            out(&format!("schema: {types} types, queries on {}", query.unwrap_or_else(|| "no query type".to_owned())));
            if let Some(skipped) = introspection.summary() {
                out(&format!("note: {skipped}"));
            }
        }
        Err(err) => {
            out(&format!("schema: not read: {err}"));
            return Err(Failure::from(err));
        }
    }
    out("result: a query would work");
    Ok(())
}

/// Further sections of the report, each a function giving its lines: the desktop's renderer
/// (what drew the window at its last start, "drawn in software (…)" with what to try, and the
/// order of the next start).
const SECTIONS: &[fn() -> Vec<String>] = &[crate::ui::renderer::choice::doctor_lines];
