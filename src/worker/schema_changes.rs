//! What the Schema changes window asks of the worker (issue 30): two kept schema versions of a
//! connection compared (by default its last two), what uses what changed among the saved
//! operations, the history's runs and the recorded exports of that connection (with the line),
//! and the fix of a saved operation's deprecated uses, applied to the store and undone.
//!
//! The comparison and the checks are the pure modules' ([`crate::schema_diff`],
//! [`crate::operation_check`]); this module reads the store and says what they found.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::Shared;
use crate::operation_check::{Finding, Fixed, check, fix};
use crate::schema_diff::{Change, SchemaShape, compare};
use crate::store::Store;

/// A kept version of a connection's schema, as the window lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    /// Its id in the store.
    pub id: i64,
    /// When it was first fetched.
    pub first_seen: DateTime<Utc>,
}

/// What uses something that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A saved operation (its id).
    Saved(i64),
    /// Runs of the history with the same document: the newest's id and how many.
    History {
        /// The newest run's id.
        id: i64,
        /// How many runs of the connection had this document.
        runs: usize,
    },
    /// A recorded export (its id).
    Export(i64),
}

/// A document that uses something that changed between the two versions compared.
#[derive(Debug, Clone)]
pub struct Affected {
    /// Where it is kept.
    pub source: Source,
    /// How the window names it: the saved operation's `collection/name`, the run's date and
    /// operation, the export's file.
    pub label: String,
    /// What the newer version finds in it that the older did not: `line:column: kind: message`.
    pub findings: Vec<String>,
    /// For a saved operation checked against the connection's current version, the rewrite of
    /// its deprecated uses that have a named, type-compatible alternative.
    pub fix: Option<Rewrite>,
}

/// The rewrite of a saved operation's deprecated uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// The operation's id.
    pub operation: i64,
    /// Its `collection/name`.
    pub path: String,
    /// Its document as it is.
    pub before: String,
    /// Its document rewritten.
    pub after: String,
    /// The rewrites made, in document order.
    pub made: Vec<Fixed>,
}

impl Rewrite {
    /// The lines that differ: `(line from 1, old, new)`. A fix rewrites names within their
    /// lines, so the two texts have the same lines; otherwise the whole text is one change.
    pub fn diff(&self) -> Vec<(usize, String, String)> {
        let (old, new): (Vec<&str>, Vec<&str>) = (self.before.lines().collect(), self.after.lines().collect());
        if old.len() != new.len() {
            return vec![(1, self.before.clone(), self.after.clone())];
        }
        old.iter()
            .zip(&new)
            .enumerate()
            .filter(|(_, (old, new))| old != new)
            .map(|(i, (old, new))| (i + 1, (*old).to_owned(), (*new).to_owned()))
            .collect()
    }
}

/// Two versions of a connection's schema compared, for the Schema changes window.
#[derive(Debug, Clone, Default)]
pub struct SchemaChanges {
    /// Every kept version, oldest (the baseline) first.
    pub versions: Vec<VersionInfo>,
    /// The two compared (ids): from, to; `None` with fewer than two versions.
    pub compared: Option<(i64, i64)>,
    /// What changed from the one to the other, classified.
    pub changes: Vec<Change>,
    /// The saved operations that use what changed.
    pub saved: Vec<Affected>,
    /// The history's runs on the connection that use what changed (one entry a document).
    pub history: Vec<Affected>,
    /// The recorded exports of the connection that use what changed (the newest of each query).
    pub exports: Vec<Affected>,
}

/// A fix applied or undone.
#[derive(Debug, Clone)]
pub struct FixDone {
    /// The rewrite.
    pub rewrite: Rewrite,
    /// Whether it was undone (the document is `rewrite.before` again).
    pub undone: bool,
}

/// How many of the newest runs of the history are looked through.
const HISTORY_LOOKED_AT: usize = 1000;

/// Compares versions `from` and `to` of `key`'s schema (by default the last two) and finds
/// what uses what changed; `connection` is the name the history and the exports know.
pub(super) fn changes_of(
    store: &Store,
    key: &str,
    connection: &str,
    from: Option<i64>,
    to: Option<i64>,
) -> Result<SchemaChanges, String> {
    let kept = store.schema_versions(key).map_err(|e| e.to_string())?;
    let versions: Vec<VersionInfo> = kept.iter().map(|v| VersionInfo { id: v.id, first_seen: v.first_seen }).collect();
    let Some(latest) = kept.last() else { return Ok(SchemaChanges::default()) };
    let to = to.filter(|id| kept.iter().any(|v| v.id == *id)).unwrap_or(latest.id);
    let from = from.filter(|id| kept.iter().any(|v| v.id == *id)).or_else(|| {
        let at = kept.iter().position(|v| v.id == to)?;
        Some(kept.get(at.checked_sub(1)?)?.id)
    });
    let Some(from) = from.filter(|from| *from != to) else {
        return Ok(SchemaChanges { versions, ..SchemaChanges::default() });
    };
    let sdl_of = |id: i64| store.schema_version_sdl(id).map_err(|e| e.to_string()).map(Option::unwrap_or_default);
    let (before, after) = (sdl_of(from)?, sdl_of(to)?);
    let ((old_shape, old_schema), (new_shape, new_schema)) =
        (SchemaShape::with_schema(&before)?, SchemaShape::with_schema(&after)?);
    let changes = compare(&old_shape, &new_shape);
    let mut found = SchemaChanges { versions, compared: Some((from, to)), changes, ..SchemaChanges::default() };
    let Some(new_schema) = new_schema else {
        return Ok(found);
    };
    // What the newer version finds that the older did not: the uses of what changed.
    let new_findings = |text: &str| -> Vec<String> {
        let old: Vec<Finding> = old_schema.as_ref().map(|s| check(s, &old_shape, text)).unwrap_or_default();
        check(&new_schema, &new_shape, text)
            .into_iter()
            .filter(|f| !old.iter().any(|o| o.kind == f.kind && o.range == f.range && o.message == f.message))
            .map(|f| f.located())
            .collect()
    };
    let current = to == latest.id;
    for operation in store.operations().map_err(|e| e.to_string())? {
        let findings = new_findings(&operation.query);
        if findings.is_empty() {
            continue;
        }
        let fix = current
            .then(|| fix(&new_schema, &new_shape, &operation.query))
            .filter(|(_, made)| !made.is_empty())
            .map(|(after, made)| Rewrite {
                operation: operation.id,
                path: operation.path(),
                before: operation.query.clone(),
                after,
                made,
            });
        found.saved.push(Affected { source: Source::Saved(operation.id), label: operation.path(), findings, fix });
    }
    // The connection's runs, one a document: the newest, and how many there were.
    let runs = store.history(HISTORY_LOOKED_AT).map_err(|e| e.to_string())?;
    let mut documents: Vec<(&crate::store::HistoryEntry, usize)> = Vec::new();
    for run in runs.iter().filter(|run| run.profile == connection) {
        match documents.iter_mut().find(|(newest, _)| newest.query == run.query) {
            Some((_, count)) => *count += 1,
            None => documents.push((run, 1)),
        }
    }
    for (run, count) in documents {
        let findings = new_findings(&run.query);
        if findings.is_empty() {
            continue;
        }
        let day = run.ran_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M");
        let label = match run.operation.as_str() {
            "" => format!("run of {day}"),
            name => format!("{name}, run of {day}"),
        };
        let source = Source::History { id: run.id, runs: count };
        found.history.push(Affected { source, label, findings, fix: None });
    }
    let mut queries: Vec<String> = Vec::new();
    for (export, query) in store.exports_on(connection).map_err(|e| e.to_string())? {
        if queries.contains(&query) {
            continue;
        }
        queries.push(query.clone());
        let findings = new_findings(&query);
        if findings.is_empty() {
            continue;
        }
        let rows = crate::import::plan::counted(export.rows, "row", "rows");
        let by = if export.by_position() { ", rows by position: the query has no ref or id" } else { "" };
        let label = format!("{} ({rows}{by}, {})", export.file, export.at.format("%Y-%m-%d %H:%M"));
        found.exports.push(Affected { source: Source::Export(export.id), label, findings, fix: None });
    }
    Ok(found)
}

/// Applies `rewrite` to the saved operation (or, `undo`, puts its document back) when the
/// operation still reads as it did; says why not otherwise.
pub(super) async fn apply_fix(shared: &Arc<Shared>, rewrite: Rewrite, undo: bool) -> Result<FixDone, String> {
    let (from, to) = match undo {
        false => (rewrite.before.clone(), rewrite.after.clone()),
        true => (rewrite.after.clone(), rewrite.before.clone()),
    };
    let id = rewrite.operation;
    let written = shared
        .with_store(move |store| store.rewrite_operation(id, &from, &to))
        .await
        .ok_or_else(|| "there is no database this session, so the operation cannot be rewritten".to_owned())??;
    match written {
        Some(_) => Ok(FixDone { rewrite, undone: undo }),
        None => Err(format!("{} changed since it was checked; nothing was written", rewrite.path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewExport, NewRun, RunStatus};

    const BEFORE: &str = "type Query { user(ref: String!): User users(email: String): [User!]! }\n\
                          type User { ref: String! name: String! }";
    const AFTER: &str = "type Query { user(ref: String!): User users: [User!]! }\n\
                         type User { ref: String! name: String! @deprecated(reason: \"Use `fullName`.\") fullName: String! }";
    const USES_NAME: &str = "query Who {\n  user(ref: \"u1\") {\n    name\n  }\n}\n";
    const USES_EMAIL: &str = "query ByEmail { users(email: \"a@b\") { ref } }";

    fn record(store: &Store, sdl: &str, day: u32) -> i64 {
        let at = DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T10:00:00+00:00")).unwrap().to_utc();
        let shape = SchemaShape::from_sdl(sdl).unwrap();
        store.record_schema_version("Acme key", &shape.fingerprint(), sdl, at).unwrap().current().id
    }

    #[test]
    fn two_versions_compared_with_the_saved_operations_runs_and_exports_that_use_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        let first = record(&store, BEFORE, 1);
        let saved = store.save_operation("HR", "Who", USES_NAME, "").unwrap();
        store.save_operation("", "Fine", "{ users { ref } }", "").unwrap();
        let run = |query: &'static str, profile: &'static str| NewRun {
            profile,
            query,
            variables: "",
            outcome: "200 OK",
            operation: "",
            status: RunStatus::Ok,
            rows: None,
            duration: None,
        };
        for _ in 0..3 {
            store.add_run(&run(USES_EMAIL, "Acme")).unwrap();
        }
        store.add_run(&run(USES_EMAIL, "Other")).unwrap();
        let export = NewExport { identity: "i", query: USES_NAME, connection: "Acme", file: "who.csv", rows: 2 };
        store.record_export(&export, &crate::export::changes::Snapshot::default()).unwrap();

        // One version: nothing to compare.
        let one = changes_of(&store, "Acme key", "Acme", None, None).unwrap();
        assert_eq!((one.versions.len(), one.compared), (1, None));

        let second = record(&store, AFTER, 12);
        let found = changes_of(&store, "Acme key", "Acme", None, None).unwrap();
        assert_eq!(found.compared, Some((first, second)), "the last two by default");
        let lines: Vec<String> = found.changes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "breaking: argument email removed from Query.users",
                "safe: field User.fullName added",
                "deprecated: User.name — Use `fullName`."
            ]
        );
        assert_eq!(found.saved.len(), 1, "{:?}", found.saved);
        assert_eq!(found.saved[0].label, "HR/Who");
        assert_eq!(
            found.saved[0].findings,
            ["3:5: deprecated: User.name — Use `fullName`.; --fix writes `name: fullName`"]
        );
        let fix = found.saved[0].fix.clone().expect("a fix");
        assert_eq!(fix.diff(), [(3, "    name".to_owned(), "    name: fullName".to_owned())]);
        assert_eq!(found.history.len(), 1, "one entry a document, of this connection only");
        assert!(matches!(found.history[0].source, Source::History { runs: 3, .. }), "{:?}", found.history);
        assert!(found.history[0].label.starts_with("ByEmail, run of 20"), "{}", found.history[0].label);
        assert!(found.history[0].findings[0].starts_with("1:23: error: "), "{:?}", found.history[0].findings);
        assert_eq!(found.exports.len(), 1);
        assert!(found.exports[0].label.starts_with("who.csv (2 rows, "), "{}", found.exports[0].label);

        // Compared the other way round: no fix is offered for a version that is not current.
        let back = changes_of(&store, "Acme key", "Acme", Some(second), Some(first)).unwrap();
        assert_eq!(back.compared, Some((second, first)));
        assert!(back.saved.iter().all(|a| a.fix.is_none()));

        // Fixed, the operation no longer uses what changed.
        store.rewrite_operation(saved.id, &fix.before, &fix.after).unwrap().expect("written");
        let after_fix = changes_of(&store, "Acme key", "Acme", None, None).unwrap();
        assert!(after_fix.saved.is_empty(), "{:?}", after_fix.saved);
        // Written for good: another connection reads it; undone likewise.
        let other = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        assert_eq!(other.operation_in("HR", "Who").unwrap().unwrap().query, fix.after);
        store.rewrite_operation(saved.id, &fix.after, &fix.before).unwrap().expect("put back");
        changes_of(&store, "Acme key", "Acme", None, None).unwrap();
        assert_eq!(other.operation_in("HR", "Who").unwrap().unwrap().query, fix.before);
    }
}
