//! The user's workspace (tabs, queries, the chosen connection, the layout) as one JSON text,
//! written within a second of a change so that a killed app loses at most that second. A text
//! that cannot be read is set aside (kept, with why), never deleted.

use chrono::Utc;
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

impl Store {
    /// Keeps `json` as the workspace, replacing the one before.
    pub fn save_workspace(&self, json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO workspace (id, json, saved_at) VALUES (1, ?1, ?2) \
                 ON CONFLICT (id) DO UPDATE SET json = excluded.json, saved_at = excluded.saved_at",
                params![json, Utc::now().to_rfc3339()],
            )
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The workspace kept last, if any.
    pub fn workspace(&self) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT json FROM workspace WHERE id = 1", [], |row| row.get(0))
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Moves the workspace kept last aside (into `workspace_aside`, with `reason`), so that a
    /// fresh one starts and the old text is not lost; returns the id it is kept under.
    pub fn set_workspace_aside(&self, reason: &str) -> Result<Option<i64>, StoreError> {
        let Some(json) = self.workspace()? else { return Ok(None) };
        self.conn
            .execute(
                "INSERT INTO workspace_aside (json, set_aside_at, reason) VALUES (?1, ?2, ?3)",
                params![json, Utc::now().to_rfc3339(), reason],
            )
            .map_err(|e| self.error(e))?;
        let id = self.conn.last_insert_rowid();
        self.conn.execute("DELETE FROM workspace WHERE id = 1", []).map_err(|e| self.error(e))?;
        Ok(Some(id))
    }
}

impl Store {
    /// The workspaces set aside, oldest first: their text and why.
    pub fn workspace_aside(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement =
            self.conn.prepare("SELECT json, reason FROM workspace_aside ORDER BY id").map_err(|e| self.error(e))?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_database_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        let store = Store::open(&path).unwrap();
        store.save_workspace("{}").unwrap();
        for file in ["orgql.sqlite3", "orgql.sqlite3-wal"] {
            let mode = std::fs::metadata(dir.path().join(file)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
    }

    #[test]
    fn keeps_the_last_workspace_and_sets_a_bad_one_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            assert_eq!(store.workspace().unwrap(), None);
            store.save_workspace("{\"version\":1}").unwrap();
            store.save_workspace("{\"version\":2}").unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.workspace().unwrap().as_deref(), Some("{\"version\":2}"));
        assert_eq!(store.set_workspace_aside("written by a newer orgql").unwrap(), Some(1));
        assert_eq!(store.workspace().unwrap(), None);
        let (json, reason): (String, String) = store
            .conn
            .query_row("SELECT json, reason FROM workspace_aside WHERE id = 1", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .unwrap();
        assert_eq!((json.as_str(), reason.as_str()), ("{\"version\":2}", "written by a newer orgql"));
        assert_eq!(store.set_workspace_aside("again").unwrap(), None);
    }
}
