//! The history of runs: recorded with what the list shows (connection, operation, status, rows,
//! duration), searched by text, deleted one by one or all at once.

use chrono::Utc;
use rusqlite::params;

use super::{HISTORY_COLUMNS, HistoryEntry, Store, StoreError, history_entry};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunStatus {
    /// An answer without errors.
    Ok,
    /// An answer with GraphQL errors.
    Errors,
    /// No usable answer (a transport, HTTP or token failure), or cancelled.
    Failed,
    /// Not recorded (runs kept before the status was).
    #[default]
    Unknown,
}

impl RunStatus {
    /// The word kept in the database.
    pub fn as_text(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Errors => "errors",
            RunStatus::Failed => "failed",
            RunStatus::Unknown => "",
        }
    }

    /// Reads the word kept in the database (anything else: unknown).
    pub fn from_text(text: &str) -> Self {
        match text {
            "ok" => RunStatus::Ok,
            "errors" => RunStatus::Errors,
            "failed" => RunStatus::Failed,
            _ => RunStatus::Unknown,
        }
    }
}

/// A run to record.
#[derive(Debug, Clone, Copy)]
pub struct NewRun<'a> {
    /// The connection's name.
    pub profile: &'a str,
    /// The document.
    pub query: &'a str,
    /// The variables as JSON text (may be empty).
    pub variables: &'a str,
    /// What came of it, in a few words.
    pub outcome: &'a str,
    /// The operation's name (empty: read from the document when listed).
    pub operation: &'a str,
    /// How it ended.
    pub status: RunStatus,
    /// The rows it showed, for a connection.
    pub rows: Option<u64>,
    /// How long it took.
    pub duration: Option<std::time::Duration>,
}

impl Store {
    /// Records a run; returns its id.
    pub fn add_run(&self, run: &NewRun<'_>) -> Result<i64, StoreError> {
        let rows = run.rows.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        let duration = run.duration.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.conn()
            .execute(
                "INSERT INTO history (ran_at, profile, query, variables, outcome, operation, status, row_count, \
                 duration_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    Utc::now().to_rfc3339(),
                    run.profile,
                    run.query,
                    run.variables,
                    run.outcome,
                    run.operation,
                    run.status.as_text(),
                    rows,
                    duration
                ],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.conn().last_insert_rowid())
    }

    /// The newest `limit` entries whose document, connection, operation name or outcome
    /// contains `text` (ignoring ASCII case; every entry for an empty text), newest first.
    pub fn search_history(&self, text: &str, limit: usize) -> Result<Vec<HistoryEntry>, StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return self.history(limit);
        }
        let pattern = format!("%{}%", text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        let mut statement = self
            .conn()
            .prepare_cached(&format!(
                "SELECT {HISTORY_COLUMNS} FROM history WHERE query LIKE ?1 ESCAPE '\\' OR profile LIKE ?1 ESCAPE '\\' \
                 OR operation LIKE ?1 ESCAPE '\\' OR outcome LIKE ?1 ESCAPE '\\' ORDER BY id DESC LIMIT ?2"
            ))
            .map_err(|e| self.error(e))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![pattern, limit], history_entry).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// Deletes one entry; whether it was there.
    pub fn delete_history(&self, id: i64) -> Result<bool, StoreError> {
        let deleted =
            self.conn().execute("DELETE FROM history WHERE id = ?1", params![id]).map_err(|e| self.error(e))?;
        Ok(deleted > 0)
    }

    /// Deletes every entry; returns how many there were.
    pub fn clear_history(&self) -> Result<usize, StoreError> {
        self.conn().execute("DELETE FROM history", []).map_err(|e| self.error(e))
    }
}

/// The name of the first operation in `document` (`None` for an unnamed one, or text that
/// does not parse that far).
pub fn operation_name_of(document: &str) -> Option<String> {
    use apollo_parser::cst::Definition;
    let tree = apollo_parser::Parser::new(document).parse();
    tree.document()
        .definitions()
        .find_map(|definition| match definition {
            Definition::OperationDefinition(operation) => {
                Some(operation.name().map(|name| name.text().to_string()).unwrap_or_default())
            }
            _ => None,
        })
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rusqlite::Connection;

    use super::*;

    fn run<'a>(profile: &'a str, query: &'a str, status: RunStatus) -> NewRun<'a> {
        NewRun {
            profile,
            query,
            variables: "",
            outcome: "200",
            operation: "",
            status,
            rows: Some(50),
            duration: Some(Duration::from_millis(1234)),
        }
    }

    #[test]
    fn runs_keep_what_the_list_shows() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("orgql.sqlite3")).unwrap();
        let id = store
            .add_run(&NewRun { operation: "Users", ..run("Production", "query Users { a }", RunStatus::Errors) })
            .unwrap();
        let entry = store.history_entry(id).unwrap().unwrap();
        assert_eq!(
            (entry.operation.as_str(), entry.status, entry.rows, entry.duration, entry.profile.as_str()),
            ("Users", RunStatus::Errors, Some(50), Some(Duration::from_millis(1234)), "Production")
        );
    }

    #[test]
    fn search_finds_by_document_connection_name_and_outcome_literally() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("orgql.sqlite3")).unwrap();
        store.add_run(&run("Sandbox", "query Users { paginatedUsers { count } }", RunStatus::Ok)).unwrap();
        store.add_run(&run("Production", "{ user(ref: \"50%_off\") { name } }", RunStatus::Ok)).unwrap();
        store
            .add_run(&NewRun { outcome: "HTTP 403 scope", ..run("Sandbox", "{ groups }", RunStatus::Failed) })
            .unwrap();
        let found = |text: &str| -> Vec<String> {
            store.search_history(text, 10).unwrap().into_iter().map(|e| e.query).collect()
        };
        assert_eq!(found("PAGINATEDusers"), ["query Users { paginatedUsers { count } }"]);
        assert_eq!(found("production").len(), 1);
        assert_eq!(found("403"), ["{ groups }"]);
        assert_eq!(found("%_"), ["{ user(ref: \"50%_off\") { name } }"], "% and _ are matched as written");
        assert_eq!(found("  ").len(), 3);
        assert!(found("nothing like this").is_empty());
    }

    #[test]
    fn entries_are_deleted_one_by_one_or_all_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("orgql.sqlite3")).unwrap();
        let first = store.add_run(&run("Sandbox", "{ a }", RunStatus::Ok)).unwrap();
        store.add_run(&run("Sandbox", "{ b }", RunStatus::Ok)).unwrap();
        store.add_run(&run("Sandbox", "{ c }", RunStatus::Ok)).unwrap();
        assert!(store.delete_history(first).unwrap());
        assert!(!store.delete_history(first).unwrap(), "a second delete finds nothing");
        assert_eq!(store.history(10).unwrap().len(), 2);
        assert_eq!(store.clear_history().unwrap(), 2);
        assert!(store.history(10).unwrap().is_empty());
    }

    #[test]
    fn a_database_of_the_previous_version_opens_with_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        {
            // The schema as the previous release left it: four migrations, history without the
            // new columns, one run in it.
            let conn = Connection::open(&path).unwrap();
            for sql in &super::super::MIGRATIONS[..4] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", 4).unwrap();
            conn.execute(
                "INSERT INTO history (ran_at, profile, query, variables, outcome) VALUES (?1, ?2, ?3, ?4, ?5)",
                params!["2026-11-20T16:25:30+00:00", "Sandbox", "query OldOne { a }", "{\"x\":1}", "200 · 3 rows"],
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let entries = store.history(10).unwrap();
        assert_eq!(entries.len(), 1);
        let old = &entries[0];
        assert_eq!(
            (old.query.as_str(), old.variables.as_str(), old.outcome.as_str()),
            ("query OldOne { a }", "{\"x\":1}", "200 · 3 rows")
        );
        assert_eq!(old.operation, "OldOne", "the name is read from the document");
        assert_eq!((old.status, old.rows, old.duration), (RunStatus::Unknown, None, None));
        assert_eq!(old.ran_at.to_rfc3339(), "2026-11-20T16:25:30+00:00");
        // New runs go in beside it, and the search sees both.
        store.add_run(&run("Sandbox", "query NewOne { a }", RunStatus::Ok)).unwrap();
        assert_eq!(store.search_history("one", 10).unwrap().len(), 2);
        drop(store);
        // Opening again migrates nothing twice.
        assert_eq!(Store::open(&path).unwrap().history(10).unwrap().len(), 2);
    }

    #[test]
    fn operation_names_are_read_from_documents() {
        assert_eq!(operation_name_of("query Users($a: Int) { a }").as_deref(), Some("Users"));
        assert_eq!(operation_name_of("fragment F on U { a } mutation Make { a }").as_deref(), Some("Make"));
        assert_eq!(operation_name_of("{ a }"), None);
        assert_eq!(operation_name_of("not graphql at all {{{"), None);
    }
}
