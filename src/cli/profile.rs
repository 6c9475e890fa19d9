//! `orgql profile add | list | remove`: named connections, their secrets in the OS keyring.

use std::io::{BufRead, IsTerminal};

use clap::{Args, Subcommand};

use super::Failure;
use super::connection::secret_store;
use crate::api::BaseUrl;
use crate::platform::terminal::printable;
use crate::profiles::{NetworkPassword, Profile, ProfileFile, SECRET_ENV};
use crate::scopes::ScopeSet;
use crate::secret::Secret;

/// The profile subcommands.
#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// Add or replace a profile; the secret is read from standard input (or a hidden prompt).
    Add(AddArgs),
    /// List the profiles.
    List,
    /// Remove a profile and its stored secret.
    Remove {
        /// The profile's name.
        name: String,
    },
    /// Keep the proxy's password, or a PKCS#12 client certificate's, in the OS keyring with the
    /// profile; read from standard input (or a hidden prompt).
    SetPassword {
        /// The profile's name.
        name: String,
        /// Which password: "proxy" or "client-cert".
        #[arg(value_parser = ["proxy", "client-cert"])]
        which: String,
    },
}

/// Options of `orgql profile add`.
#[derive(Args, Debug)]
pub struct AddArgs {
    /// The profile's name.
    name: String,
    /// The organization's base URL.
    #[arg(long)]
    base_url: String,
    /// The API client's id.
    #[arg(long)]
    client_id: String,
    /// Space-separated scopes, e.g. "users.read groups.read".
    #[arg(long)]
    scope: String,
    #[command(flatten)]
    network: super::connection::NetworkArgs,
}

/// Runs a profile subcommand.
pub fn run(command: ProfileCommand) -> Result<(), Failure> {
    let file = ProfileFile::default_location().map_err(Failure::usage)?;
    match command {
        ProfileCommand::Add(args) => add(&file, args),
        ProfileCommand::List => list(&file),
        ProfileCommand::SetPassword { name, which } => set_password(&file, &name, &which),
        ProfileCommand::Remove { name } => {
            file.remove(&name).map_err(Failure::usage)?;
            let store = secret_store();
            if store.is_available()
                && let Err(err) = store.delete_client_secret(&name)
            {
                eprintln!("orgql: the profile was removed, but its secret could not be: {err}");
            }
            for kind in [NetworkPassword::Proxy, NetworkPassword::ClientCert] {
                if store.is_available()
                    && let Err(err) = store.delete_network_password(kind, &name)
                {
                    eprintln!("orgql: the profile was removed, but its {} could not be: {err}", kind.what());
                }
            }
            eprintln!("orgql: removed the profile '{name}'");
            Ok(())
        }
    }
}

fn add(file: &ProfileFile, args: AddArgs) -> Result<(), Failure> {
    crate::profiles::check_name(&args.name).map_err(Failure::usage)?;
    let base_url = BaseUrl::parse(&args.base_url)?;
    let scopes = ScopeSet::parse(&args.scope).map_err(|e| Failure::usage(format!("--scope: {e}")))?;
    if scopes.is_empty() {
        return Err(Failure::usage("--scope is empty; give the scopes this client should request"));
    }
    let store = secret_store();
    let secret = read_secret(&args.name)?;
    file.upsert(Profile {
        name: args.name.clone(),
        base_url: base_url.as_str().to_owned(),
        client_id: args.client_id,
        scopes,
        network: args.network.settings(),
    })
    .map_err(Failure::usage)?;
    match (secret, store.is_available()) {
        (Some(secret), true) => {
            store
                .set_client_secret(&args.name, &secret)
                .map_err(|e| Failure::new(2, format!("the profile was saved, but its secret was not: {e}")))?;
            eprintln!("orgql: saved the profile '{}' with its secret in the OS keyring", args.name);
        }
        (Some(_), false) => {
            let why = store.unavailable_reason().unwrap_or_default();
            eprintln!(
                "orgql: saved the profile '{}', but not its secret: no OS keyring service is available ({why}); set {SECRET_ENV} when you use it",
                args.name
            );
        }
        (None, _) => {
            eprintln!("orgql: saved the profile '{}' without a secret; set {SECRET_ENV} when you use it", args.name)
        }
    }
    Ok(())
}

fn set_password(file: &ProfileFile, name: &str, which: &str) -> Result<(), Failure> {
    file.get(name).map_err(Failure::usage)?;
    let kind = if which == "proxy" { NetworkPassword::Proxy } else { NetworkPassword::ClientCert };
    let store = secret_store();
    if let Some(why) = store.unavailable_reason() {
        return Err(Failure::usage(format!(
            "no OS keyring service is available ({why}); set {} in the environment instead",
            if kind == NetworkPassword::Proxy {
                crate::net::PROXY_PASSWORD_ENV
            } else {
                crate::net::CLIENT_CERT_PASSWORD_ENV
            }
        )));
    }
    let label = format!("The {} of '{name}' (hidden): ", kind.what());
    match read_hidden(&label)? {
        Some(secret) => {
            store.set_network_password(kind, name, &secret).map_err(|e| Failure::new(2, e.to_string()))?;
            eprintln!("orgql: kept the {} of the profile '{name}' in the OS keyring", kind.what());
        }
        None => {
            store.delete_network_password(kind, name).map_err(|e| Failure::new(2, e.to_string()))?;
            eprintln!("orgql: removed the {} of the profile '{name}' from the OS keyring", kind.what());
        }
    }
    Ok(())
}

/// The secret from a hidden prompt on a terminal, or the first line of standard input.
fn read_secret(name: &str) -> Result<Option<Secret>, Failure> {
    read_hidden(&format!("Client secret for '{name}' (hidden): "))
}

/// A line from a hidden prompt on a terminal, or the first line of standard input.
fn read_hidden(prompt: &str) -> Result<Option<Secret>, Failure> {
    let text = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(prompt).map_err(|e| Failure::usage(format!("cannot read the secret ({e})")))?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| Failure::usage(format!("cannot read the secret from standard input ({e})")))?;
        line
    };
    let secret = text.trim_end_matches(['\r', '\n']);
    Ok((!secret.is_empty()).then(|| Secret::new(secret)))
}

fn list(file: &ProfileFile) -> Result<(), Failure> {
    let profiles = file.load().map_err(Failure::usage)?;
    if profiles.is_empty() {
        eprintln!(
            "orgql: no profiles yet; add one with 'orgql profile add NAME --base-url URL --client-id ID --scope \"…\"'"
        );
        return Ok(());
    }
    let store = secret_store();
    for profile in profiles {
        let secret = match store.client_secret(&profile.name) {
            Ok(Some(_)) => "secret in keyring",
            Ok(None) => "no stored secret",
            Err(_) => "keyring unavailable",
        };
        // The file may have been written by hand (or by someone else): shown, never obeyed.
        println!(
            "{}\t{}\t{}\t{}\t{secret}",
            printable(&profile.name),
            printable(&profile.base_url),
            printable(&profile.client_id),
            profile.scopes
        );
    }
    Ok(())
}
