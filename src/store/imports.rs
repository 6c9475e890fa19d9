//! The journal of imports (issue 22): each import of a file on a connection, a row per planned
//! change with its state, and the column mappings remembered by header. A row's state is
//! committed before the next row is sent: `pending` (planned), `sent` (the mutation left, no
//! answer yet: after an interruption it is re-read from the service before anything is sent
//! again), `done` or `failed` (with the service's message and the field it named), or
//! `conflict` (changed on the service since the plan; not overwritten).

use chrono::Utc;
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

/// A row's state in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState {
    /// Planned, not sent.
    Pending,
    /// Sent; its outcome not known yet.
    Sent,
    /// Applied.
    Done,
    /// Refused by the service (or it could not be sent).
    Failed,
    /// Changed on the service since the plan was made; not written.
    Conflict,
}

impl RowState {
    /// Its word in the database and in results files.
    pub fn word(self) -> &'static str {
        match self {
            RowState::Pending => "pending",
            RowState::Sent => "sent",
            RowState::Done => "done",
            RowState::Failed => "failed",
            RowState::Conflict => "conflict",
        }
    }

    fn parse(word: &str) -> RowState {
        match word {
            "sent" => RowState::Sent,
            "done" => RowState::Done,
            "failed" => RowState::Failed,
            "conflict" => RowState::Conflict,
            _ => RowState::Pending,
        }
    }
}

/// An import recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportJob {
    /// Its id.
    pub id: i64,
    /// The file, as given.
    pub file: String,
    /// The SHA-256 of the file's bytes (hex), to tell whether a resume reads the same file.
    pub digest: String,
    /// Whether every row has an outcome.
    pub finished: bool,
    /// How it began: the import whose failed rows it applies again, and whether its invalid
    /// rows are skipped by choice.
    pub origin: Origin,
}

/// How an import began (issue 46): on its own, or applying again the rows of an earlier import
/// of the same file that failed (`--failed-only`), the two making one import; and whether the
/// person chose to skip its invalid rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Origin {
    /// The import whose failed rows this one applies again.
    pub retry_of: Option<i64>,
    /// Its invalid rows were skipped by choice (the window's question, `--skip-invalid`).
    pub skip_invalid: bool,
}

/// A row of the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalRow {
    /// Its place in the plan (the order rows are applied in).
    pub position: i64,
    /// Its row number in the file (0 for a user missing from the file).
    pub row: u64,
    /// The user's key.
    pub key: String,
    /// The planned row as JSON ([`crate::import::PlannedRow`]).
    pub plan: String,
    /// Its state.
    pub state: RowState,
    /// The service's message (failed, conflict).
    pub message: String,
    /// The field or path the service named.
    pub field: String,
    /// The id of a created user.
    pub created_id: String,
}

/// The columns [`import_job`] reads.
const JOB_COLUMNS: &str = "id, file, digest, finished_at IS NOT NULL, retry_of, skip_invalid";

fn import_job(r: &rusqlite::Row<'_>) -> rusqlite::Result<ImportJob> {
    Ok(ImportJob {
        id: r.get(0)?,
        file: r.get(1)?,
        digest: r.get(2)?,
        finished: r.get(3)?,
        origin: Origin { retry_of: r.get(4)?, skip_invalid: r.get(5)? },
    })
}

impl Store {
    /// Records an import of `file` on `connection` with its planned rows, all pending; returns
    /// its id. `rows` are (row number, key, plan as JSON), in the order they are applied.
    pub fn begin_import(
        &self,
        file: &str,
        digest: &str,
        connection: &str,
        rows: impl IntoIterator<Item = (u64, String, String)>,
    ) -> Result<i64, StoreError> {
        let rows = rows.into_iter().map(|(row, key, plan)| (row, key, plan, RowState::Pending, String::new()));
        self.begin_import_with_outcomes(file, digest, connection, Origin::default(), rows)
    }

    /// Records an import as [`Store::begin_import`] does, begun as `origin` says, each row with
    /// its state and message (the rows that send nothing get their outcome at once), in one
    /// transaction.
    pub fn begin_import_with_outcomes(
        &self,
        file: &str,
        digest: &str,
        connection: &str,
        origin: Origin,
        rows: impl IntoIterator<Item = (u64, String, String, RowState, String)>,
    ) -> Result<i64, StoreError> {
        let conn = self.conn();
        let tx = conn.unchecked_transaction().map_err(|e| self.error(e))?;
        tx.execute(
            "INSERT INTO imports (file, digest, connection, started_at, retry_of, skip_invalid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![file, digest, connection, Utc::now().to_rfc3339(), origin.retry_of, origin.skip_invalid],
        )
        .map_err(|e| self.error(e))?;
        let id = tx.last_insert_rowid();
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO import_rows (import, position, row, key, plan, state, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .map_err(|e| self.error(e))?;
            for (position, (row, key, plan, state, message)) in rows.into_iter().enumerate() {
                insert
                    .execute(params![id, position as i64, row as i64, key, plan, state.word(), message])
                    .map_err(|e| self.error(e))?;
            }
        }
        tx.commit().map_err(|e| self.error(e))?;
        Ok(id)
    }

    /// Sets a row's state and outcome (committed when this returns).
    pub fn set_import_row(
        &self,
        import: i64,
        position: i64,
        state: RowState,
        message: &str,
        field: &str,
        created_id: &str,
    ) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(
                "UPDATE import_rows SET state = ?3, message = ?4, field = ?5, created_id = ?6 WHERE import = ?1 AND position = ?2",
            )
            .and_then(|mut s| s.execute(params![import, position, state.word(), message, field, created_id]))
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Replaces the planned row at `position` (JSON): a row applied with fields the service moved
    /// unasked carries them, so that its undo gives them back.
    pub fn set_import_row_plan(&self, import: i64, position: i64, plan: &str) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached("UPDATE import_rows SET plan = ?3 WHERE import = ?1 AND position = ?2")
            .and_then(|mut s| s.execute(params![import, position, plan]))
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Puts the rows at `positions` of import `import` back to pending (their outcome forgotten)
    /// and the import back to unfinished, in one transaction: a retry of those rows, which an
    /// interruption leaves to resume like any apply.
    pub fn retry_import_rows(&self, import: i64, positions: &[i64]) -> Result<(), StoreError> {
        let write = || -> rusqlite::Result<()> {
            let tx = self.conn().unchecked_transaction()?;
            {
                let mut pending = tx.prepare_cached(
                    "UPDATE import_rows SET state = ?3, message = '', field = '', created_id = ''
                     WHERE import = ?1 AND position = ?2",
                )?;
                for position in positions {
                    pending.execute(params![import, position, RowState::Pending.word()])?;
                }
            }
            tx.execute("UPDATE imports SET finished_at = NULL WHERE id = ?1", params![import])?;
            tx.commit()
        };
        write().map_err(|e| self.error(e))
    }

    /// Marks an import finished.
    pub fn finish_import(&self, import: i64) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE imports SET finished_at = ?2 WHERE id = ?1", params![import, Utc::now().to_rfc3339()])
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// Records that the invalid rows of import `import` are skipped by choice (`--resume
    /// --skip-invalid`).
    pub fn skip_invalid_of_import(&self, import: i64) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE imports SET skip_invalid = 1 WHERE id = ?1", params![import])
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The latest import of `file` on `connection`.
    pub fn last_import(&self, file: &str, connection: &str) -> Result<Option<ImportJob>, StoreError> {
        self.conn()
            .query_row(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM imports WHERE file = ?1 AND connection = ?2 ORDER BY id DESC LIMIT 1"
                ),
                params![file, connection],
                import_job,
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    /// The import `id`.
    pub fn import_job(&self, id: i64) -> Result<Option<ImportJob>, StoreError> {
        self.conn()
            .query_row(&format!("SELECT {JOB_COLUMNS} FROM imports WHERE id = ?1"), params![id], import_job)
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Every row of an import, in plan order.
    pub fn import_rows(&self, import: i64) -> Result<Vec<JournalRow>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(
                "SELECT position, row, key, plan, state, message, field, created_id FROM import_rows WHERE import = ?1 ORDER BY position",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map(params![import], |r| {
                Ok(JournalRow {
                    position: r.get(0)?,
                    row: r.get::<_, i64>(1)?.max(0) as u64,
                    key: r.get(2)?,
                    plan: r.get(3)?,
                    state: RowState::parse(&r.get::<_, String>(4)?),
                    message: r.get(5)?,
                    field: r.get(6)?,
                    created_id: r.get(7)?,
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// Remembers the column mapping (JSON) of files whose header is `header`.
    pub fn save_import_mapping(&self, header: &str, mapping: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO import_mappings (header, mapping, saved_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (header) DO UPDATE SET mapping = excluded.mapping, saved_at = excluded.saved_at",
                params![header, mapping, Utc::now().to_rfc3339()],
            )
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The mapping remembered for `header` (JSON).
    pub fn import_mapping(&self, header: &str) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row("SELECT mapping FROM import_mappings WHERE header = ?1", params![header], |r| r.get(0))
            .optional()
            .map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_state_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let store = Store::open(&path).unwrap();
        let rows = vec![(2, "u1".to_owned(), "{}".to_owned()), (3, "u2".to_owned(), "{}".to_owned())];
        let id = store.begin_import("f.csv", "abc", "sandbox", rows.clone()).unwrap();
        store.set_import_row(id, 0, RowState::Sent, "", "", "").unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        let job = store.last_import("f.csv", "sandbox").unwrap().unwrap();
        assert_eq!((job.id, job.finished), (id, false));
        let states: Vec<RowState> = store.import_rows(id).unwrap().iter().map(|r| r.state).collect();
        assert_eq!(states, [RowState::Sent, RowState::Pending]);
        store.save_import_mapping("ref\u{1f}email", "{\"a\":1}").unwrap();
        store.save_import_mapping("ref\u{1f}email", "{\"a\":2}").unwrap();
        assert_eq!(store.import_mapping("ref\u{1f}email").unwrap().as_deref(), Some("{\"a\":2}"));
    }
}
