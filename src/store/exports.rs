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
    /// The column its rows are keyed by (`ref`, `id`), or
    /// [`BY_POSITION`](crate::export::changes::BY_POSITION) when the query has neither.
    pub key_column: String,
}

impl ExportRecord {
    /// Whether its rows are kept by their position, the query having no key column.
    pub fn by_position(&self) -> bool {
        self.key_column == crate::export::changes::BY_POSITION
    }
}

/// A row's cells, serialized as the JSON list of strings the store keeps.
struct CellList<'r>(&'r Row);

impl serde::Serialize for CellList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.cells())
    }
}

/// The table of the rows of the export `id` (one table an export: issue 24).
fn rows_table(id: i64) -> String {
    format!("export_rows_{id}")
}

/// The exports `sql` selects (`id, own_rows`).
fn exports_of(
    tx: &rusqlite::Transaction<'_>,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<(i64, bool)>> {
    let mut statement = tx.prepare(sql)?;
    let rows = statement.query_map(params, |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}

/// Forgets the rows of `exports` (`id, own_rows`): their own tables are dropped whole; the rows
/// an export recorded before issue 24 kept in `export_rows` are deleted.
fn forget_rows(tx: &rusqlite::Transaction<'_>, exports: &[(i64, bool)]) -> rusqlite::Result<()> {
    for &(id, own_rows) in exports {
        match own_rows {
            true => tx.execute_batch(&format!("DROP TABLE IF EXISTS {}", rows_table(id)))?,
            false => {
                tx.execute("DELETE FROM export_rows WHERE export = ?1", params![id])?;
            }
        }
    }
    Ok(())
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
            let unfinished = "SELECT id, own_rows FROM exports WHERE identity = ?1 AND connection = ?2 AND file = ''";
            forget_rows(&tx, &exports_of(&tx, unfinished, params![identity, connection])?)?;
            tx.execute(
                "DELETE FROM exports WHERE identity = ?1 AND connection = ?2 AND file = ''",
                params![identity, connection],
            )?;
            let columns = serde_json::to_string(columns).unwrap_or_default();
            tx.execute(
                "INSERT INTO exports (identity, query, connection, file, at, rows, key_column, columns, kept, own_rows)
                 VALUES (?1, ?2, ?3, '', ?4, 0, ?5, ?6, 0, 1)",
                params![identity, query, connection, Local::now().to_rfc3339(), key_column, columns],
            )?;
            let id = tx.last_insert_rowid();
            let table = rows_table(id);
            // A table of that name left by an export whose record was removed some other way.
            tx.execute_batch(&format!(
                "DROP TABLE IF EXISTS {table};
                 CREATE TABLE {table} (
                     position INTEGER PRIMARY KEY,
                     key TEXT NOT NULL,
                     digest BLOB NOT NULL,
                     cells TEXT NOT NULL
                 );"
            ))?;
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
                let mut insert = tx.prepare_cached(&format!(
                    "INSERT INTO {} (position, key, digest, cells) VALUES (?1, ?2, ?3, ?4)",
                    rows_table(id)
                ))?;
                // One buffer for every row's cells as a JSON list of strings.
                let mut cells = Vec::new();
                for (offset, (key, digest, row)) in rows.iter().enumerate() {
                    cells.clear();
                    let list = serde_json::to_writer(&mut cells, &CellList(row));
                    let text = list.ok().and_then(|()| std::str::from_utf8(&cells).ok()).unwrap_or_default();
                    insert.execute(params![first + offset as i64, key, &digest[..], text])?;
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
            // Only the kept and the unfinished ones have rows left.
            let with_rows =
                format!("SELECT id, own_rows FROM exports WHERE id IN ({others}) AND (kept = 1 OR file = '')");
            forget_rows(&tx, &exports_of(&tx, &with_rows, params![id])?)?;
            tx.execute(&format!("UPDATE exports SET kept = 0 WHERE id IN ({others})"), params![id])?;
            tx.execute(
                "UPDATE exports SET kept = 1, file = ?2, rows = ?3, at = ?4 WHERE id = ?1",
                params![id, file, i64::try_from(rows).unwrap_or(i64::MAX), Local::now().to_rfc3339()],
            )?;
            tx.commit()
        };
        write().map_err(|e| self.error(e))
    }

    /// The finished exports made on `connection`, newest first: their query and file.
    pub fn exports_on(&self, connection: &str) -> Result<Vec<(ExportRecord, String)>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(
                "SELECT id, file, at, rows, key_column, query FROM exports
                 WHERE connection = ?1 AND file <> '' ORDER BY id DESC",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map(params![connection], |row| Ok((export_record(row)?, row.get::<_, String>(5)?)))
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// The latest export of the query `identity` on `connection` that kept its rows, without
    /// them.
    pub fn last_export_record(&self, identity: &str, connection: &str) -> Result<Option<ExportRecord>, StoreError> {
        self.conn()
            .query_row(
                "SELECT id, file, at, rows, key_column FROM exports
                 WHERE identity = ?1 AND connection = ?2 AND kept = 1 ORDER BY id DESC LIMIT 1",
                params![identity, connection],
                export_record,
            )
            .optional()
            .map_err(|e| self.error(e))
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
                    "SELECT id, file, at, rows, key_column, columns, own_rows FROM exports
                     WHERE identity = ?1 AND connection = ?2 AND kept = 1 ORDER BY id DESC LIMIT 1",
                    params![identity, connection],
                    |row| {
                        let columns: String = row.get(5)?;
                        Ok((export_record(row)?, row.get::<_, String>(4)?, columns, row.get::<_, bool>(6)?))
                    },
                )
                .optional()?;
            let Some((record, key_column, columns, own_rows)) = found else {
                return Ok(None);
            };
            let columns: Vec<String> = serde_json::from_str(&columns).unwrap_or_default();
            // An export recorded before issue 24 has its rows in the shared table.
            let (sql, shared) = match own_rows {
                true => (format!("SELECT key, digest, cells FROM {} ORDER BY position", rows_table(record.id)), None),
                false => (
                    "SELECT key, digest, cells FROM export_rows WHERE export = ?1 ORDER BY position".to_owned(),
                    Some(record.id),
                ),
            };
            let mut statement = self.conn().prepare(&sql)?;
            let rows = statement
                .query_map(rusqlite::params_from_iter(shared), |row| {
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

/// An export's record from a row whose first columns are `id, file, at, rows, key_column` (an
/// unreadable date or count reads as the default: the record is still listed).
fn export_record(row: &rusqlite::Row<'_>) -> rusqlite::Result<ExportRecord> {
    let at: String = row.get(2)?;
    Ok(ExportRecord {
        id: row.get(0)?,
        file: row.get(1)?,
        at: DateTime::parse_from_rfc3339(&at).map(|t| t.with_timezone(&Local)).unwrap_or_default(),
        rows: row.get::<_, i64>(3)?.try_into().unwrap_or_default(),
        key_column: row.get(4)?,
    })
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

    /// Rows in every export's own table and in the shared table of exports recorded before.
    fn kept_rows(store: &Store) -> i64 {
        let mut tables = store
            .conn()
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'export_rows%'")
            .expect("tables");
        let names: Vec<String> =
            tables.query_map([], |r| r.get(0)).expect("names").collect::<Result<_, _>>().expect("names");
        names
            .iter()
            .map(|name| {
                store
                    .conn()
                    .query_row(&format!("SELECT COUNT(*) FROM {name}"), [], |r| r.get::<_, i64>(0))
                    .expect("count")
            })
            .sum()
    }

    #[test]
    fn an_export_recorded_in_the_shared_table_is_read_and_replaced() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&dir.path().join("orgql.sqlite3")).expect("the store");
        let before = snapshot(&["u1", "u2"]);
        // As an export recorded before its rows had a table of their own.
        store
            .conn()
            .execute(
                "INSERT INTO exports (identity, query, connection, file, at, rows, key_column, columns, kept)
                 VALUES ('q1', '{ q }', 'acme', 'a.csv', ?1, 2, 'ref', '[\"ref\",\"name\"]', 1)",
                params![Local::now().to_rfc3339()],
            )
            .expect("an export");
        let id = store.conn().last_insert_rowid();
        for (position, (key, digest, row)) in before.rows.iter().enumerate() {
            let cells = serde_json::to_string(&CellList(row)).expect("cells");
            store
                .conn()
                .execute(
                    "INSERT INTO export_rows (export, position, key, digest, cells) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, position as i64, key, &digest[..], cells],
                )
                .expect("a row");
        }
        let (record, kept) = store.last_export("q1", "acme").expect("read").expect("an export");
        assert_eq!((record.file.as_str(), kept), ("a.csv", before));
        let export = NewExport { identity: "q1", query: "{ q }", connection: "acme", file: "b.csv", rows: 1 };
        store.record_export(&export, &snapshot(&["u3"])).expect("recorded");
        let (record, kept) = store.last_export("q1", "acme").expect("read").expect("an export");
        assert_eq!((record.file.as_str(), kept), ("b.csv", snapshot(&["u3"])));
        assert_eq!(kept_rows(&store), 1, "the rows in the shared table are gone");
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
        assert_eq!(kept_rows(&store), 4, "the rows of a.csv are gone; b.csv's and c.csv's are kept");
        let tables: i64 = store
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'export_rows_%' AND type = 'table'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(tables, 2, "a.csv's table is dropped");
        let exports: i64 = store.conn().query_row("SELECT COUNT(*) FROM exports", [], |r| r.get(0)).expect("count");
        assert_eq!(exports, 3, "every export stays in the history");
        let on_acme: Vec<(String, String)> =
            store.exports_on("acme").expect("read").into_iter().map(|(r, query)| (r.file, query)).collect();
        assert_eq!(on_acme, [("b.csv".to_owned(), "{ q }".to_owned()), ("a.csv".to_owned(), "{ q }".to_owned())]);
    }
}
