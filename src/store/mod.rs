//! The local SQLite database (WAL mode): the history of run queries (and, later, saved queries,
//! webhook deliveries and schema caches). One file in the platform's data directory.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
#[error("the local database {} cannot be used ({reason}); check the disk and its permissions", path.display())]
pub struct StoreError {
    /// The database file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// One run query.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// Its row id.
    pub id: i64,
    /// When it ran.
    pub ran_at: DateTime<Utc>,
    /// The profile it ran against.
    pub profile: String,
    /// The document.
    pub query: String,
    /// The variables as JSON text (may be empty).
    pub variables: String,
    /// What came of it, in a few words: `200 OK, 50 rows` or the error.
    pub outcome: String,
}

/// The database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

const MIGRATIONS: &[&str] = &["CREATE TABLE history (
        id INTEGER PRIMARY KEY,
        ran_at TEXT NOT NULL,
        profile TEXT NOT NULL,
        query TEXT NOT NULL,
        variables TEXT NOT NULL,
        outcome TEXT NOT NULL
    );
    CREATE INDEX history_ran_at ON history (ran_at);"];

impl Store {
    /// The database in the platform's data directory (`$XDG_DATA_HOME/orgql/orgql.sqlite3`).
    pub fn default_path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "orgql").map(|dirs| dirs.data_dir().join("orgql.sqlite3"))
    }

    /// Opens (creating when needed) the database at `path` and brings its tables up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let error =
            |reason: &dyn std::fmt::Display| StoreError { path: path.to_path_buf(), reason: reason.to_string() };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| error(&e))?;
        }
        let conn = Connection::open(path).map_err(|e| error(&e))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| error(&e))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| error(&e))?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(|e| error(&e))?;
        let store = Store { conn, path: path.to_path_buf() };
        store.migrate().map_err(|e| error(&e))?;
        Ok(store)
    }

    fn migrate(&self) -> rusqlite::Result<()> {
        let version: i64 = self.conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(version).unwrap_or(0)) {
            self.conn.execute_batch(sql)?;
            self.conn.pragma_update(None, "user_version", i as i64 + 1)?;
        }
        Ok(())
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        StoreError { path: self.path.clone(), reason: e.to_string() }
    }

    /// Records a run query; returns its id.
    pub fn add_history(&self, profile: &str, query: &str, variables: &str, outcome: &str) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO history (ran_at, profile, query, variables, outcome) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![Utc::now().to_rfc3339(), profile, query, variables, outcome],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The newest `limit` entries, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut statement = self
            .conn
            .prepare_cached(&format!("SELECT {HISTORY_COLUMNS} FROM history ORDER BY id DESC LIMIT ?1"))
            .map_err(|e| self.error(e))?;
        let rows = statement.query_map(params![limit as i64], history_entry).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// One entry by id.
    pub fn history_entry(&self, id: i64) -> Result<Option<HistoryEntry>, StoreError> {
        self.conn
            .query_row(&format!("SELECT {HISTORY_COLUMNS} FROM history WHERE id = ?1"), params![id], history_entry)
            .optional()
            .map_err(|e| self.error(e))
    }
}

const HISTORY_COLUMNS: &str = "id, ran_at, profile, query, variables, outcome";

fn history_entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<HistoryEntry> {
    let ran_at: String = row.get(1)?;
    Ok(HistoryEntry {
        id: row.get(0)?,
        ran_at: DateTime::parse_from_rfc3339(&ran_at).map(|t| t.with_timezone(&Utc)).unwrap_or_default(),
        profile: row.get(2)?,
        query: row.get(3)?,
        variables: row.get(4)?,
        outcome: row.get(5)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_history_across_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/orgql.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            store.add_history("Sandbox", "{ a }", "", "200 OK").unwrap();
            store.add_history("Sandbox", "{ b }", "{\"x\":1}", "403 scope").unwrap();
        }
        let store = Store::open(&path).unwrap();
        let entries = store.history(10).unwrap();
        assert_eq!(entries.iter().map(|e| e.query.as_str()).collect::<Vec<_>>(), ["{ b }", "{ a }"]);
        assert_eq!(store.history_entry(entries[1].id).unwrap().unwrap().outcome, "200 OK");
        assert!(store.history_entry(999).unwrap().is_none());
    }

    #[test]
    fn a_file_that_is_not_a_database_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        std::fs::write(&path, b"this is not sqlite, just some text that is long enough to be a header").unwrap();
        let err = Store::open(&path).err().unwrap().to_string();
        assert!(err.contains("orgql.sqlite3") && err.contains("cannot be used"), "{err}");
    }
}
