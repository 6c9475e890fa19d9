//! The exports made of every page of a query: what, on which connection, to which file, when and
//! how many rows, and — for the latest export of each query on each connection only, so that the
//! database stays as large as one export — its rows keyed, to say what changed since
//! ([`crate::export::changes`]).

use chrono::{DateTime, Local};
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use crate::export::changes::{RowDigest, Snapshot};
use crate::table::Row;

/// An export to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewExport<'a> {
    /// What identifies "this query" ([`crate::export::changes::identity`]).
    pub identity: &'a str,
    /// The query as the user gave it.
    pub query: &'a str,
    /// The connection's name.
    pub connection: &'a str,
    /// The file written.
    pub file: &'a str,
    /// Rows written to it.
    pub rows: u64,
}

/// An export recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRecord {
    /// Its row id.
    pub id: i64,
    /// The file written.
    pub file: String,
    /// When.
    pub at: DateTime<Local>,
    /// Rows written to it.
    pub rows: u64,
}

/// A row's cells, serialized as the JSON list of strings the store keeps.
struct CellList<'r>(&'r Row);

impl serde::Serialize for CellList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.cells())
    }
}

impl Store {
    /// Records a finished export with every row it fetched (`snapshot`), and forgets the rows of
    /// the earlier exports of the same query on the same connection; returns its id.
    pub fn record_export(&self, export: &NewExport<'_>, snapshot: &Snapshot) -> Result<i64, StoreError> {
        let id = self.begin_export(
            export.identity,
            export.query,
            export.connection,
            &snapshot.key_column,
            &snapshot.columns,
        )?;
        self.add_export_rows(id, 0, &snapshot.rows)?;
        self.finish_export(id, export.file, export.rows)?;
        Ok(id)
    }

    /// Starts recording an export whose rows come page by page ([`Store::add_export_rows`]);
    /// what an earlier unfinished one left is removed. Returns its id.
    pub fn begin_export(
        &self,
        identity: &str,
        query: &str,
        connection: &str,
        key_column: &str,
        columns: &[String],
    ) -> Result<i64, StoreError> {
        let write = || -> rusqlite::Result<i64> {
            let tx = self.conn().unchecked_transaction()?;
            let unfinished = "SELECT id FROM exports WHERE identity = ?1 AND connection = ?2 AND file = ''";
            tx.execute(
                &format!("DELETE FROM export_rows WHERE export IN ({unfinished})"),
                params![identity, connection],
            )?;
            tx.execute(&format!("DELETE FROM exports WHERE id IN ({unfinished})"), params![identity, connection])?;
            let columns = serde_json::to_string(columns).unwrap_or_default();
            tx.execute(
                "INSERT INTO exports (identity, query, connection, file, at, rows, key_column, columns, kept)
                 VALUES (?1, ?2, ?3, '', ?4, 0, ?5, ?6, 0)",
                params![identity, query, connection, Local::now().to_rfc3339(), key_column, columns],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            Ok(id)
        };
        write().map_err(|e| self.error(e))
    }

    /// Adds rows to the export `id`, the first at `first` (its position among them all).
    pub fn add_export_rows(&self, id: i64, first: i64, rows: &[(String, RowDigest, Row)]) -> Result<(), StoreError> {
        let write = || -> rusqlite::Result<()> {
            let tx = self.conn().unchecked_transaction()?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO export_rows (export, position, key, digest, cells) VALUES (?1, ?2, ?3, ?4, ?5)",
                )?;
                // One buffer for every row's cells as a JSON list of strings.
                let mut cells = Vec::new();
                for (offset, (key, digest, row)) in rows.iter().enumerate() {
                    cells.clear();
                    let list = serde_json::to_writer(&mut cells, &CellList(row));
                    let text = list.ok().and_then(|()| std::str::from_utf8(&cells).ok()).unwrap_or_default();
                    insert.execute(params![id, first + offset as i64, key, &digest[..], text])?;
                }
            }
            tx.commit()
        };
        write().map_err(|e| self.error(e))
    }

    /// Marks the export `id` finished (its file and rows written): the latest of its query on
    /// its connection, which alone keeps its rows from now on.
    pub fn finish_export(&self, id: i64, file: &str, rows: u64) -> Result<(), StoreError> {
        let write = || -> rusqlite::Result<()> {
            let tx = self.conn().unchecked_transaction()?;
            let others = "SELECT o.id FROM exports o, exports e
                          WHERE e.id = ?1 AND o.identity = e.identity AND o.connection = e.connection AND o.id <> ?1";
            tx.execute(&format!("DELETE FROM export_rows WHERE export IN ({others})"), params![id])?;
            tx.execute(&format!("UPDATE exports SET kept = 0 WHERE id IN ({others})"), params![id])?;
            tx.execute(
                "UPDATE exports SET kept = 1, file = ?2, rows = ?3, at = ?4 WHERE id = ?1",
                params![id, file, i64::try_from(rows).unwrap_or(i64::MAX), Local::now().to_rfc3339()],
            )?;
            tx.commit()
        };
        write().map_err(|e| self.error(e))
    }

    /// The latest export of the query `identity` on `connection` that kept its rows, with them.
    pub fn last_export(
        &self,
        identity: &str,
        connection: &str,
    ) -> Result<Option<(ExportRecord, Snapshot)>, StoreError> {
        let read = || -> rusqlite::Result<Option<(ExportRecord, Snapshot)>> {
            let found = self
                .conn()
                .query_row(
                    "SELECT id, file, at, rows, key_column, columns FROM exports
                     WHERE identity = ?1 AND connection = ?2 AND kept = 1 ORDER BY id DESC LIMIT 1",
                    params![identity, connection],
                    |row| {
                        let at: String = row.get(2)?;
                        let record = ExportRecord {
                            id: row.get(0)?,
                            file: row.get(1)?,
                            at: DateTime::parse_from_rfc3339(&at).map(|t| t.with_timezone(&Local)).unwrap_or_default(),
                            rows: row.get::<_, i64>(3)?.try_into().unwrap_or_default(),
                        };
                        let columns: String = row.get(5)?;
                        Ok((record, row.get::<_, String>(4)?, columns))
                    },
                )
                .optional()?;
            let Some((record, key_column, columns)) = found else {
                return Ok(None);
            };
            let columns: Vec<String> = serde_json::from_str(&columns).unwrap_or_default();
            let mut statement = self
                .conn()
                .prepare("SELECT key, digest, cells FROM export_rows WHERE export = ?1 ORDER BY position")?;
            let rows = statement
                .query_map(params![record.id], |row| {
                    let digest: Vec<u8> = row.get(1)?;
                    let cells: String = row.get(2)?;
                    let cells: Vec<String> = serde_json::from_str(&cells).unwrap_or_default();
                    let mut fixed: RowDigest = [0; 16];
                    if digest.len() == fixed.len() {
                        fixed.copy_from_slice(&digest);
                    }
                    Ok((row.get::<_, String>(0)?, fixed, Row::new(cells)))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some((record, Snapshot { key_column, columns, rows })))
        };
        read().map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::changes::digest;

    fn snapshot(refs: &[&str]) -> Snapshot {
        Snapshot {
            key_column: "ref".into(),
            columns: vec!["ref".into(), "name".into()],
            rows: refs
                .iter()
                .map(|r| {
                    let row = Row::new([*r, "Name"]);
                    ((*r).to_owned(), digest(row.cells()), row)
                })
                .collect(),
        }
    }

    #[test]
    fn only_the_latest_export_of_a_query_on_a_connection_keeps_its_rows() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&dir.path().join("orgql.sqlite3")).expect("the store");
        let export = |file: &'static str, rows: u64| NewExport {
            identity: "q1",
            query: "{ q }",
            connection: "acme",
            file,
            rows,
        };
        assert_eq!(store.last_export("q1", "acme").expect("read"), None);
        store.record_export(&export("a.csv", 2), &snapshot(&["u1", "u2"])).expect("recorded");
        store.record_export(&export("b.csv", 3), &snapshot(&["u1", "u2", "u3"])).expect("recorded");
        let other = NewExport { connection: "sandbox", ..export("c.csv", 1) };
        store.record_export(&other, &snapshot(&["x"])).expect("recorded");
        let (record, kept) = store.last_export("q1", "acme").expect("read").expect("an export");
        assert_eq!((record.file.as_str(), record.rows), ("b.csv", 3));
        assert_eq!(kept, snapshot(&["u1", "u2", "u3"]));
        let rows: i64 = store.conn().query_row("SELECT COUNT(*) FROM export_rows", [], |r| r.get(0)).expect("count");
        assert_eq!(rows, 4, "the rows of a.csv are gone; b.csv's and c.csv's are kept");
        let exports: i64 = store.conn().query_row("SELECT COUNT(*) FROM exports", [], |r| r.get(0)).expect("count");
        assert_eq!(exports, 3, "every export stays in the history");
    }
}
