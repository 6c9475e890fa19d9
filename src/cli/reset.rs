//! `orgql --reset [--yes]`: removes orgql's folders (settings, data, cache, logs) and its keyring
//! entries (profile secrets, cached tokens, the webhook secret), after listing them and asking.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use super::Failure;
use super::connection::secret_store;
use super::places::Places;
use crate::profiles::{KeptEntry, ProfileFile, SecretStore};
use crate::secret::Secret;

/// What a reset would remove.
struct Plan {
    /// Existing folders, with what each holds.
    folders: Vec<(&'static str, PathBuf)>,
    /// Existing keyring entries.
    entries: Vec<KeptEntry>,
    /// Why the keyring is left alone, when it is.
    keyring_note: Option<String>,
}

/// Runs `orgql --reset`; `yes` skips the question.
pub fn run(yes: bool) -> Result<(), Failure> {
    let places = Places::of_this_user().ok_or_else(|| {
        Failure::usage("no home folder is known for this user, so orgql has nothing there (set HOME)")
    })?;
    let store = secret_store();
    let plan = plan(&places, &store)?;
    let mut err = std::io::stderr().lock();
    let say = |err: &mut std::io::StderrLock, line: String| {
        // stderr is where the terminal is; a closed one leaves nothing to tell.
        drop(writeln!(err, "{line}"));
    };
    if let Some(note) = &plan.keyring_note {
        say(&mut err, format!("orgql: the OS keyring is left alone: {note}"));
    }
    if plan.folders.is_empty() && plan.entries.is_empty() {
        say(&mut err, "orgql: nothing to remove".to_owned());
        return Ok(());
    }
    say(&mut err, "orgql --reset removes:".to_owned());
    for (what, path) in &plan.folders {
        say(&mut err, format!("  {} ({what})", path.display()));
    }
    for entry in &plan.entries {
        say(&mut err, format!("  {} (OS keyring)", entry.what));
    }
    if !yes {
        drop(write!(err, "Delete these {} items? [y/N] ", plan.folders.len() + plan.entries.len()));
        drop(err.flush());
        if !confirmed()? {
            say(&mut err, "orgql: nothing was removed".to_owned());
            return Ok(());
        }
    }
    remove(&plan, &store)?;
    say(&mut err, "orgql: removed; the next start begins afresh".to_owned());
    Ok(())
}

/// The answer on standard input: yes only for `y` or `yes`; no answer is no.
fn confirmed() -> Result<bool, Failure> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Failure::usage(format!("cannot read the answer ({e}); run with --yes to skip the question")))?;
    Ok(matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}

fn plan(places: &Places, store: &SecretStore) -> Result<Plan, Failure> {
    let folders = places
        .folders()
        .into_iter()
        .filter(|(_, path)| path.exists())
        .map(|(what, path)| (what, path.to_path_buf()))
        .collect();
    if let Some(why) = store.unavailable_reason() {
        return Ok(Plan { folders, entries: Vec::new(), keyring_note: Some(why.to_owned()) });
    }
    // The profiles name their secrets and cached tokens; an unreadable file names none, and
    // the keyring's own search still finds what it can.
    let profiles = ProfileFile::default_location().and_then(|file| file.load()).unwrap_or_default();
    let names: Vec<String> = profiles.iter().map(|p| p.name.clone()).collect();
    let token_keys: Vec<String> = profiles
        .iter()
        .filter_map(|p| p.credentials(Secret::default()).ok())
        .map(|credentials| crate::api::token_store_key(&credentials))
        .collect();
    let entries = store
        .kept_entries(&names, &token_keys)
        .map_err(|e| Failure::usage(format!("cannot list orgql's keyring entries: {e}")))?;
    Ok(Plan { folders, entries, keyring_note: None })
}

fn remove(plan: &Plan, store: &SecretStore) -> Result<(), Failure> {
    for (_, path) in &plan.folders {
        match std::fs::remove_dir_all(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Failure::usage(format!("cannot remove {} ({e}); check its permissions", path.display())));
            }
        }
    }
    for entry in &plan.entries {
        store.delete_kept(entry).map_err(|e| Failure::usage(format!("cannot remove {}: {e}", entry.what)))?;
    }
    Ok(())
}
