//! What changed since the last export: joiners, leavers and changed rows.
//!
//! Every finished export of every page keeps a [`Snapshot`] of its rows in the store: each row's
//! key (the `ref` column where the query selects it, else `id`), a digest of its cells and the
//! cells themselves (as text, before any formula guard). Only the latest export of a query on a
//! connection keeps its rows (`store::exports`), so the store stays as large as one export.
//!
//! An export "with changes since" compares each row as it arrives with a [`Baseline`] — that
//! snapshot, or a CSV file orgql wrote — and writes only the rows that were added or changed
//! (with which fields), then, at the end, those that were removed, under two more columns
//! `change` and `changed fields`. Memory: the baseline's and the new snapshot's rows, never the
//! pages' JSON (100,000 rows of 7 short columns: about 40 MB at the peak).

use std::collections::HashMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::query::Column;
use crate::store::{Store, StoreError};
use crate::table::{Row, guard_formula};

/// The key column an export is recorded with when its query selects no `ref` or `id` on the
/// node: its rows are kept keyed by their position (1, 2, …) — a name no GraphQL field can have,
/// so the record says so itself. Such rows cannot be compared by key ([`cannot_compare`]).
pub const BY_POSITION: &str = "(row number)";

/// The first column of a changes file.
pub const CHANGE: &str = "change";
/// The second: the fields of a changed row that differ, joined with `; `.
pub const CHANGED_FIELDS: &str = "changed fields";

/// A digest of a row's cells (the first 16 bytes of SHA-256 over each cell's length and text).
pub type RowDigest = [u8; 16];

/// The digest of `cells`.
pub fn digest<'c>(cells: impl IntoIterator<Item = &'c str>) -> RowDigest {
    let mut hasher = Sha256::new();
    for cell in cells {
        hasher.update((cell.len() as u64).to_le_bytes());
        hasher.update(cell.as_bytes());
    }
    let full = hasher.finalize();
    let mut digest = [0; 16];
    digest.copy_from_slice(&full[..16]);
    digest
}

/// The column that identifies a row: `ref` where the query selects it on the node itself, else
/// `id`; `None` when it selects neither.
pub fn key_column(columns: &[Column]) -> Option<usize> {
    ["ref", "id"]
        .into_iter()
        .find_map(|key| columns.iter().position(|column| column.keys.len() == 1 && column.keys[0] == key))
}

/// What makes two exports "the same query": the document with its whitespace collapsed, the
/// operation and the variables (hex SHA-256).
pub fn identity(query: &str, operation: Option<&str>, variables: Option<&serde_json::Value>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(query.split_whitespace().collect::<Vec<_>>().join(" "));
    hasher.update([0]);
    hasher.update(operation.unwrap_or_default());
    hasher.update([0]);
    hasher.update(variables.filter(|v| !v.is_null()).map(serde_json::Value::to_string).unwrap_or_default());
    hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The rows of the latest export of the query `identity` on `connection`, to compare with;
/// `None` when there is none (a first export writes every row).
pub fn since_last(store: &Store, identity: &str, connection: &str) -> Result<Option<Baseline>, StoreError> {
    Ok(store.last_export(identity, connection)?.map(|(record, snapshot)| {
        let described = format!("the export of {} to {}", record.at.format("%Y-%m-%d %H:%M"), record.file);
        Baseline::from_snapshot(snapshot, described)
    }))
}

/// The sentence of a first export with changes asked for.
pub fn no_earlier_export(connection: &str) -> String {
    format!("no earlier export of this query on {connection}: writing every row")
}

/// A way to reach the store from a recorder: runs the work given with the store.
pub type StoreAccess = Box<dyn FnMut(&mut dyn FnMut(&Store) -> Result<(), StoreError>) -> Result<(), String> + Send>;

/// Keeps an export's rows in the store page by page while it runs (never all of them in memory),
/// and marks the export the latest of its query once it is complete ([`RowRecorder::finish`]).
/// Keeping is a record, not the export: a failure is logged once and said by `finish`.
pub struct RowRecorder {
    access: StoreAccess,
    identity: String,
    query: String,
    connection: String,
    id: Option<i64>,
    kept: i64,
    failed: Option<String>,
    /// The columns and key column of the rows waiting.
    shape: Option<(Vec<String>, String)>,
    /// Rows waiting to be written with the next batch (at most [`RECORD_BATCH`]).
    waiting: Vec<(String, RowDigest, Row)>,
}

/// Rows written to the store in one transaction: a hundred transactions for 100,000 rows
/// instead of two thousand (one a page), with at most this many rows (a few hundred KB) held meanwhile.
const RECORD_BATCH: usize = 1_000;

impl std::fmt::Debug for RowRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowRecorder").field("identity", &self.identity).field("kept", &self.kept).finish()
    }
}

impl RowRecorder {
    /// A recorder of the export of `query` (`identity`) on `connection`, through `access`.
    pub fn new(access: StoreAccess, identity: &str, query: &str, connection: &str) -> Self {
        RowRecorder {
            access,
            identity: identity.to_owned(),
            query: query.to_owned(),
            connection: connection.to_owned(),
            id: None,
            kept: 0,
            failed: None,
            shape: None,
            waiting: Vec::new(),
        }
    }

    /// Keeps a page's rows (`columns` named, keyed by `key_column`): they are written with the
    /// next batch.
    pub fn keep(&mut self, columns: &[String], key_column: &str, rows: Vec<(String, RowDigest, Row)>) {
        if self.failed.is_some() {
            return;
        }
        if self.shape.is_none() {
            self.shape = Some((columns.to_vec(), key_column.to_owned()));
        }
        if self.waiting.is_empty() {
            self.waiting = rows;
            self.waiting.reserve(RECORD_BATCH.saturating_sub(self.waiting.len()));
        } else {
            self.waiting.extend(rows);
        }
        if self.waiting.len() >= RECORD_BATCH {
            self.write_waiting();
        }
    }

    /// Writes the rows waiting, in one transaction.
    fn write_waiting(&mut self) {
        let rows = std::mem::take(&mut self.waiting);
        let Some((columns, key_column)) = self.shape.as_ref().filter(|_| self.failed.is_none()) else { return };
        let (identity, query, connection) = (&self.identity, &self.query, &self.connection);
        let (id, first, rows) = (&mut self.id, self.kept, &rows);
        let result = (self.access)(&mut |store: &Store| {
            let export = match *id {
                Some(export) => export,
                None => {
                    let export = store.begin_export(identity, query, connection, key_column, columns)?;
                    *id = Some(export);
                    export
                }
            };
            store.add_export_rows(export, first, rows)
        });
        match result {
            Ok(()) => self.kept += rows.len() as i64,
            Err(e) => {
                tracing::warn!("the export's rows are not kept for a later comparison: {e}");
                self.failed = Some(e);
            }
        }
    }

    /// The export is complete in `file` with `rows` rows: it becomes the latest of its query.
    pub fn finish(mut self, file: &str, rows: u64) -> Result<(), String> {
        self.write_waiting();
        if let Some(failed) = self.failed.take() {
            return Err(failed);
        }
        let Some(id) = self.id else {
            // No page came (an empty connection): an empty export is still the latest.
            let (identity, query, connection) = (self.identity.clone(), self.query.clone(), self.connection.clone());
            return (self.access)(&mut |store: &Store| {
                let id = store.begin_export(&identity, &query, &connection, "", &[])?;
                store.finish_export(id, file, rows)
            });
        };
        (self.access)(&mut |store: &Store| store.finish_export(id, file, rows))
    }
}

/// What an export is recorded as: the query's identity ([`identity`]), the query as given, and
/// the connection's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// [`identity`] of the query, its operation and variables.
    pub identity: String,
    /// The query as the user gave it.
    pub query: String,
    /// The connection's name.
    pub connection: String,
}

/// Records an export of rows already in hand (the app's "The rows shown") as `orgql export`
/// records its own: the query, connection, columns, file and rows written, with the rows keyed
/// by the `ref` (else `id`) column for a later export of what changed since; without such a
/// column, by their position ([`BY_POSITION`]).
pub fn record_rows(
    access: StoreAccess,
    export: &Recorded,
    columns: &[String],
    rows: &[Row],
    file: &str,
    written: u64,
) -> Result<(), String> {
    let mut recorder = RowRecorder::new(access, &export.identity, &export.query, &export.connection);
    let key = ["ref", "id"].into_iter().find_map(|key| columns.iter().position(|c| c == key));
    let key_column = key.map_or(BY_POSITION, |key| columns[key].as_str());
    if rows.is_empty() {
        recorder.keep(columns, key_column, Vec::new());
    }
    for (n, chunk) in rows.chunks(RECORD_BATCH).enumerate() {
        let keyed = chunk
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let key = match key {
                    Some(key) => row.cell(key).unwrap_or_default().to_owned(),
                    None => (n * RECORD_BATCH + i + 1).to_string(),
                };
                (key, digest(row.cells()), row.clone())
            })
            .collect();
        recorder.keep(columns, key_column, keyed);
    }
    recorder.finish(file, written)
}

/// The one sentence when a query has no key.
pub fn no_key_column() -> String {
    "comparing with an earlier export needs each row's ref or id: add ref (or id) to the query's node".to_owned()
}

/// The one sentence when changes since the last export are asked of the query `identity`,
/// which has no key column, on `connection`: its last export, when there is one, was kept by
/// position, and rows cannot be compared by key (rather than nothing said of it).
pub fn cannot_compare(store: &Store, identity: &str, connection: &str) -> String {
    match store.last_export_record(identity, connection) {
        Ok(Some(last)) => format!(
            "the last export of this query on {connection} ({} to {}, {}) kept its rows by their position, as the \
             query selects no ref or id, so rows cannot be compared by key: add ref (or id) to the query's node",
            last.at.format("%Y-%m-%d %H:%M"),
            last.file,
            crate::import::plan::counted(last.rows, "row", "rows")
        ),
        Ok(None) => no_key_column(),
        Err(e) => format!("{} ({e})", no_key_column()),
    }
}

/// The rows of one export, as kept to compare a later one with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// The key column's name.
    pub key_column: String,
    /// Every column's name, in order.
    pub columns: Vec<String>,
    /// The rows in the order they came: key, digest, cells.
    pub rows: Vec<(String, RowDigest, Row)>,
}

/// What an export with changes wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Rows whose key the baseline lacks.
    pub added: u64,
    /// Rows whose cells differ.
    pub changed: u64,
    /// Baseline rows no longer there.
    pub removed: u64,
    /// Rows as they were (not written).
    pub unchanged: u64,
    /// Rows whose key came again in the same export (compared once, the first time).
    pub repeated: u64,
}

impl Counts {
    /// "2 added, 3 changed, 1 removed".
    pub fn summary(&self) -> String {
        format!("{} added, {} changed, {} removed", self.added, self.changed, self.removed)
    }
}

/// What rows are compared with.
#[derive(Debug)]
pub struct Baseline {
    /// "the export of 2026-11-23 10:02 to users.csv", "users-monday.csv".
    pub described: String,
    columns: Vec<String>,
    rows: Vec<(String, RowDigest, Row)>,
    index: HashMap<String, usize>,
    seen: Vec<bool>,
    /// Its cells carry the formula guard (a CSV file written without `--raw`).
    guarded: bool,
}

/// How a row compares with the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Its key is new.
    Added,
    /// These fields differ (`email; name`).
    Changed(String),
    /// As it was.
    Same,
}

impl Change {
    /// The `change` cell.
    pub fn label(&self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Changed(_) => "changed",
            Change::Same => "unchanged",
        }
    }
}

impl Baseline {
    /// The rows of an earlier export.
    pub fn from_snapshot(snapshot: Snapshot, described: String) -> Self {
        let index = snapshot.rows.iter().enumerate().map(|(i, (key, ..))| (key.clone(), i)).rev().collect();
        let seen = vec![false; snapshot.rows.len()];
        Baseline { described, columns: snapshot.columns, rows: snapshot.rows, index, seen, guarded: false }
    }

    /// The rows of a CSV file orgql wrote (its header the query's columns; a BOM, a formula
    /// guard and `; `-joined lists as the export writes them): `guarded` says the export being
    /// made guards formulas, so that the file's cells are compared with the cells as written.
    pub fn from_csv_file(path: &Path, columns: &[String], key_column: usize, guarded: bool) -> Result<Self, String> {
        crate::platform::ui_thread::check("changes baseline");
        let unreadable = |e: &dyn std::fmt::Display| format!("{} cannot be read as CSV ({e})", path.display());
        let bytes = std::fs::read(path).map_err(|e| unreadable(&e))?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
        let header: Vec<String> = reader.headers().map_err(|e| unreadable(&e))?.iter().map(str::to_owned).collect();
        if header != columns {
            return Err(format!(
                "{} has other columns ({}) than the query's ({}); compare with an export of the same query",
                path.display(),
                header.join(", "),
                columns.join(", ")
            ));
        }
        let mut snapshot = Snapshot { key_column: columns[key_column].clone(), columns: header, rows: Vec::new() };
        for record in reader.records() {
            let record = record.map_err(|e| unreadable(&e))?;
            let cells: Vec<&str> = record.iter().collect();
            let key = cells.get(key_column).copied().unwrap_or_default();
            snapshot.rows.push((key.to_owned(), digest(cells.iter().copied()), Row::new(&cells)));
        }
        let mut baseline = Baseline::from_snapshot(snapshot, path.display().to_string());
        baseline.guarded = guarded;
        Ok(baseline)
    }

    /// Compares the row keyed `key` (its cells as the export takes them, before any guard) with
    /// the baseline's row of that key, which then counts as seen.
    pub fn compare(&mut self, key: &str, cells: &Row) -> Change {
        let guarded;
        let (key, cells) = if self.guarded {
            guarded = Row::new(cells.cells().map(guard_formula));
            (guard_formula(key), &guarded)
        } else {
            (std::borrow::Cow::Borrowed(key), cells)
        };
        let Some(&at) = self.index.get(key.as_ref()) else {
            return Change::Added;
        };
        self.seen[at] = true;
        let (_, was_digest, was) = &self.rows[at];
        if digest(cells.cells()) == *was_digest {
            return Change::Same;
        }
        let fields: Vec<&str> = self
            .columns
            .iter()
            .enumerate()
            .filter(|(i, _)| cells.cell(*i) != was.cell(*i))
            .map(|(_, name)| name.as_str())
            .collect();
        Change::Changed(fields.join("; "))
    }

    /// The rows no compared row had the key of, in the baseline's order.
    pub fn removed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().zip(&self.seen).filter(|(_, seen)| !**seen).map(|((_, _, row), _)| row)
    }

    /// Its columns' names.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The baseline's rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it has no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Row {
        Row::new(cells)
    }

    fn snapshot(rows: &[&[&str]]) -> Snapshot {
        Snapshot {
            key_column: "ref".into(),
            columns: vec!["ref".into(), "name".into(), "email".into()],
            rows: rows.iter().map(|cells| (cells[0].to_owned(), digest(cells.iter().copied()), row(cells))).collect(),
        }
    }

    #[test]
    fn joiners_leavers_and_changed_fields() {
        let before = snapshot(&[&["u1", "Ada", "ada@x"], &["u2", "Bo", "bo@x"], &["u3", "Cy", "cy@x"]]);
        let mut baseline = Baseline::from_snapshot(before, "the last export".into());
        assert_eq!(baseline.compare("u1", &row(&["u1", "Ada", "ada@x"])), Change::Same);
        assert_eq!(baseline.compare("u2", &row(&["u2", "Bob", "bob@x"])), Change::Changed("name; email".into()));
        assert_eq!(baseline.compare("u4", &row(&["u4", "Di", "di@x"])), Change::Added);
        let removed: Vec<&Row> = baseline.removed().collect();
        assert_eq!(removed, [&row(&["u3", "Cy", "cy@x"])]);
    }

    #[test]
    fn a_guarded_file_compares_with_the_cells_as_written() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("before.csv");
        std::fs::write(&path, "\u{feff}ref,name\r\nu1,'=SUM(A1)\r\nu2,Bo\r\n").expect("a file");
        let columns = vec!["ref".to_owned(), "name".to_owned()];
        let mut baseline = Baseline::from_csv_file(&path, &columns, 0, true).expect("read");
        assert_eq!(baseline.len(), 2);
        assert_eq!(baseline.compare("u1", &row(&["u1", "=SUM(A1)"])), Change::Same, "the guard is the export's");
        assert_eq!(baseline.compare("u2", &row(&["u2", "Bob"])), Change::Changed("name".into()));
        let other = vec!["ref".to_owned(), "email".to_owned()];
        let refused = Baseline::from_csv_file(&path, &other, 0, true).expect_err("other columns");
        assert!(refused.contains("other columns (ref, name)"), "{refused}");
    }

    #[test]
    fn the_key_is_ref_else_id_on_the_node_itself() {
        let column =
            |keys: &[&str]| Column { name: keys.join("."), keys: keys.iter().map(|k| (*k).to_owned()).collect() };
        assert_eq!(key_column(&[column(&["id"]), column(&["ref"])]), Some(1));
        assert_eq!(key_column(&[column(&["name"]), column(&["id"])]), Some(1));
        assert_eq!(key_column(&[column(&["groups", "ref"]), column(&["name"])]), None);
    }
}
