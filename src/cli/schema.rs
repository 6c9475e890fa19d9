//! `orgql schema`: what changed in the service's schema (issue 30). The API has no version
//! number, so each fetch is kept in the store when it differs from the last
//! ([`crate::store::Store::record_schema_version`]); `changes` prints the differences since the
//! version it showed last (or since a date), classified by [`crate::schema_diff`]; `save`
//! writes the current schema as SDL.

use std::path::PathBuf;

use chrono::{DateTime, Local, NaiveDate, TimeZone, Utc};
use clap::{Args, Subcommand};
use serde_json::json;

use super::connection::ConnectionArgs;
use super::operations::{StoreArg, open_store};
use super::{Failure, cancel_on_ctrl_c};
use crate::api::Introspection;
use crate::schema_diff::{Change, SchemaShape, Summary, compare};
use crate::store::{Recorded, SchemaVersion, Store};

/// The `schema` subcommands.
#[derive(Subcommand, Debug)]
pub enum SchemaCommand {
    /// Fetch the connection's schema, keep it when it changed, and print the changes since the
    /// version shown last (or since --since DATE), one a line: breaking, dangerous, safe,
    /// deprecated.
    Changes(ChangesArgs),
    /// Write the connection's current schema as SDL.
    Save(SaveArgs),
}

/// Options of `orgql schema changes`.
#[derive(Args, Debug)]
pub struct ChangesArgs {
    /// The changes since this date (YYYY-MM-DD, or an RFC 3339 time) instead of since the
    /// version shown last.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// Options of `orgql schema save`.
#[derive(Args, Debug)]
pub struct SaveArgs {
    /// The file to write (SDL).
    file: PathBuf,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// Runs a `schema` subcommand.
pub async fn run(command: SchemaCommand) -> Result<(), Failure> {
    match command {
        SchemaCommand::Changes(args) => changes(args).await,
        SchemaCommand::Save(args) => save(args).await,
    }
}

/// The connection's schema, fetched, and how it was recorded among its versions.
pub(super) struct Fetched {
    /// What introspection gave.
    pub introspection: Introspection,
    /// Its shape.
    pub shape: SchemaShape,
    /// How the store took it (`None` when the store could not be used: said on stderr).
    pub recorded: Option<Recorded>,
    /// The store, when it could be opened.
    pub store: Option<Store>,
    /// The connection's key in the store.
    pub key: String,
}

/// Fetches the connection's schema and records it as a version.
pub(super) async fn fetch(connection: &ConnectionArgs, store: StoreArg) -> Result<Fetched, Failure> {
    let (client, key) = connection.client_and_key()?;
    let introspection = client.introspect(&cancel_on_ctrl_c()).await?;
    if let Some(skipped) = introspection.summary() {
        eprintln!("orgql: {skipped}");
    }
    let shape = SchemaShape::of(&introspection.schema);
    let store = match open_store(store) {
        Ok(store) => Some(store),
        Err(failure) => {
            eprintln!("orgql: {}; the schema's versions are not kept", failure.message);
            None
        }
    };
    let recorded = store.as_ref().and_then(|store| {
        match store.record_schema_version(&key, &shape.fingerprint(), &introspection.sdl, Utc::now()) {
            Ok(recorded) => Some(recorded),
            Err(e) => {
                eprintln!("orgql: {e}; the schema's versions are not kept");
                None
            }
        }
    });
    Ok(Fetched { introspection, shape, recorded, store, key })
}

/// A date as the lines say it: `2026-11-12` (local time).
pub(super) fn day(at: DateTime<Utc>) -> String {
    at.with_timezone(&Local).format("%Y-%m-%d").to_string()
}

/// `--since`: a day (from its start, local time) or an RFC 3339 time.
fn parse_since(text: &str) -> Result<DateTime<Utc>, Failure> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.to_utc());
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| Failure::usage(format!("--since {text}: give a date as YYYY-MM-DD or an RFC 3339 time")))?;
    let start = date.and_hms_opt(0, 0, 0).unwrap_or_default();
    Ok(Local.from_local_datetime(&start).earliest().map(|t| t.to_utc()).unwrap_or_else(|| start.and_utc()))
}

/// The version to compare the current one with: the one in effect at `since` (the baseline when
/// `since` is before it), else the last one `schema changes` showed, else the one before the
/// current.
fn base_version(versions: &[SchemaVersion], since: Option<DateTime<Utc>>) -> Option<&SchemaVersion> {
    let current = versions.last()?;
    match since {
        Some(since) => versions.iter().rev().find(|v| v.first_seen <= since).or(versions.first()),
        None => versions
            .iter()
            .rev()
            .find(|v| v.reported)
            .or_else(|| versions.len().checked_sub(2).and_then(|i| versions.get(i)))
            .or(Some(current)),
    }
}

async fn changes(args: ChangesArgs) -> Result<(), Failure> {
    let since = args.since.as_deref().map(parse_since).transpose()?;
    let fetched = fetch(&args.connection, args.store).await?;
    let (Some(store), Some(recorded)) = (&fetched.store, &fetched.recorded) else {
        return Err(Failure::new(
            6,
            "the local database could not be used, so there is no earlier version to compare with",
        ));
    };
    let store_failed = |e: crate::store::StoreError| Failure::new(6, e.to_string());
    let versions = store.schema_versions(&fetched.key).map_err(store_failed)?;
    let current = recorded.current().clone();
    let base = base_version(&versions, since).cloned().unwrap_or_else(|| current.clone());
    let changes: Vec<Change> = if base.id == current.id {
        Vec::new()
    } else {
        let sdl = store.schema_version_sdl(base.id).map_err(store_failed)?.unwrap_or_default();
        let before = SchemaShape::from_sdl(&sdl).map_err(|e| {
            Failure::new(6, format!("the kept version of {} does not read ({e})", day(base.first_seen)))
        })?;
        compare(&before, &fetched.shape)
    };
    store.mark_schema_version_reported(current.id).map_err(store_failed)?;
    // Nothing to say since: the date of the last change (or the date asked, when later).
    let quiet_since = since.map_or(current.first_seen, |since| since.max(current.first_seen));
    if args.json {
        let version =
            |v: &SchemaVersion| json!({ "fingerprint": v.fingerprint, "first_seen": v.first_seen.to_rfc3339() });
        let out = json!({
            "connection": fetched.key,
            "current": version(&current),
            "since": (base.id != current.id).then(|| version(&base)),
            "summary": Summary::of(&changes),
            "changes": changes,
            "no_changes_since": changes.is_empty().then(|| day(quiet_since)),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    if changes.is_empty() {
        println!("no changes since {}", day(quiet_since));
        return Ok(());
    }
    eprintln!(
        "orgql: the schema changed on {} since the version of {}: {}",
        day(current.first_seen),
        day(base.first_seen),
        Summary::of(&changes).phrase()
    );
    for change in &changes {
        println!("{}", crate::platform::terminal::printable(&change.to_string()));
    }
    Ok(())
}

async fn save(args: SaveArgs) -> Result<(), Failure> {
    let fetched = fetch(&args.connection, args.store).await?;
    // Printed as graphql-js prints a schema (one definition a block, a description on its own
    // line above what it describes), not in the compact form orgql keeps it in.
    let mut sdl = match apollo_compiler::Schema::parse(&fetched.introspection.sdl, "schema.graphql") {
        Ok(schema) => schema.to_string(),
        Err(_) => fetched.introspection.sdl.clone(),
    };
    if !sdl.ends_with('\n') {
        sdl.push('\n');
    }
    std::fs::write(&args.file, sdl)
        .map_err(|e| Failure::usage(format!("cannot write {} ({e}); choose another file", args.file.display())))?;
    eprintln!("orgql: the schema ({} types) written to {}", fetched.shape.types.len(), args.file.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(id: i64, day: u32, reported: bool) -> SchemaVersion {
        let at = DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T12:00:00+00:00")).unwrap().to_utc();
        SchemaVersion {
            id,
            connection: "c".into(),
            fingerprint: id.to_string(),
            first_seen: at,
            last_seen: at,
            reported,
        }
    }

    #[test]
    fn compares_with_the_version_shown_last_or_in_effect_at_the_date() {
        let versions = [version(1, 1, true), version(2, 5, false), version(3, 9, false)];
        assert_eq!(base_version(&versions, None).map(|v| v.id), Some(1));
        let unreported = [version(1, 1, false), version(2, 5, false)];
        assert_eq!(base_version(&unreported, None).map(|v| v.id), Some(1));
        assert_eq!(base_version(&unreported[..1], None).map(|v| v.id), Some(1));
        let at = |d: u32| version(0, d, false).first_seen;
        assert_eq!(base_version(&versions, Some(at(6))).map(|v| v.id), Some(2));
        assert_eq!(base_version(&versions, Some(at(1))).map(|v| v.id), Some(1));
        assert_eq!(base_version(&versions, Some(at(10))).map(|v| v.id), Some(3));
        assert!(parse_since("2026-11-12").is_ok());
        assert!(parse_since("2026-11-12T10:00:00Z").is_ok());
        assert_eq!(parse_since("last week").map_err(|f| f.code).err(), Some(2));
    }
}
