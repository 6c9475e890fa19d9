//! The local SQLite database (WAL mode), one owner-only file in the platform's data directory:
//! the history of runs, webhook deliveries, saved operations, the schema cache, the workspace
//! and the record of exports (for "changes since the last export").

mod delivery_list;
mod exports;
mod history;
mod imports;
mod mentions;
mod operations;
mod pulled;
mod retention;
mod schedules;
mod schemas;
mod workspace;

pub use delivery_list::{DeliverySummary, event_type};
pub use exports::{ExportRecord, NewExport};
pub use history::{NewRun, RunStatus, operation_name_of};
pub use imports::{ImportJob, JournalRow, Origin, RowState};
pub use operations::SavedOperation;
pub use pulled::{PullGap, Pulled};
pub use retention::Pruned;
pub use schedules::{RunEnd, RunState, ScheduleRun};
pub use schemas::{Recorded, SchemaVersion};

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
#[error("the local database {} cannot be used ({reason}); check the disk and its permissions", path.display())]
pub struct StoreError {
    /// The database file.
    pub path: PathBuf,
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
    /// The operation's name (from the document for runs recorded before names were kept;
    /// empty for an unnamed one).
    pub operation: String,
    /// Whether it succeeded ([`RunStatus::Unknown`] for runs recorded before it was kept).
    pub status: RunStatus,
    /// The rows it showed, for a connection.
    pub rows: Option<u64>,
    /// How long it took.
    pub duration: Option<std::time::Duration>,
}

/// A received webhook delivery, to be recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDelivery {
    /// When it arrived.
    pub received_at: DateTime<Utc>,
    /// The HTTP method.
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The query string (without `?`; empty when none).
    pub query: String,
    /// The header name/value pairs in the order received (values as raw bytes).
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body bytes exactly as received (empty when it was refused).
    pub body: Vec<u8>,
    /// `Some(true)` verified, `Some(false)` failed or refused, `None` not checked.
    pub verified: Option<bool>,
    /// Why it failed or was refused (empty otherwise).
    pub reason: String,
    /// The size of the body in bytes as announced or received (may exceed `body.len()` when refused).
    pub size: u64,
    /// Who sent it, as far as the listener could tell (`None`: not recorded, e.g. copied from
    /// elsewhere or stored before issue 31).
    pub sender: Option<DeliverySender>,
}

/// Who sent a delivery: the client's address, and the forwarder that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliverySender {
    /// The client's address (the peer's, or the one a trusted forwarder named).
    pub address: String,
    /// The forwarder that named it (a tunnel program's name, or a trusted proxy's address);
    /// `None` when the client connected directly.
    pub via: Option<String>,
}

impl std::fmt::Display for DeliverySender {
    /// `from 203.0.113.7 via cloudflared`, or `from 127.0.0.1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "from {}", self.address)?;
        if let Some(via) = &self.via {
            write!(f, " via {via}")?;
        }
        Ok(())
    }
}

/// A stored webhook delivery.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// Its row id.
    pub id: i64,
    /// What was received.
    pub delivery: NewDelivery,
}

/// The name the UI-thread guard gives the store's calls.
const STORE_ENTRY: &str = "Store (SQLite)";

/// The database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

const MIGRATIONS: &[&str] = &[
    "CREATE TABLE history (
        id INTEGER PRIMARY KEY,
        ran_at TEXT NOT NULL,
        profile TEXT NOT NULL,
        query TEXT NOT NULL,
        variables TEXT NOT NULL,
        outcome TEXT NOT NULL
    );
    CREATE INDEX history_ran_at ON history (ran_at);",
    "CREATE TABLE deliveries (
        id INTEGER PRIMARY KEY,
        received_at TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        query TEXT NOT NULL,
        headers TEXT NOT NULL,
        body BLOB NOT NULL,
        verified INTEGER,
        reason TEXT NOT NULL,
        size INTEGER NOT NULL
    );",
    "CREATE TABLE schemas (
        profile TEXT PRIMARY KEY,
        sdl TEXT NOT NULL,
        fetched_at TEXT NOT NULL
    );",
    "CREATE TABLE workspace (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        json TEXT NOT NULL,
        saved_at TEXT NOT NULL
    );
    CREATE TABLE workspace_aside (
        id INTEGER PRIMARY KEY,
        json TEXT NOT NULL,
        set_aside_at TEXT NOT NULL,
        reason TEXT NOT NULL
    );",
    // What the history lists of a run (older rows keep defaults; their operation name is read
    // from their document).
    "ALTER TABLE history ADD COLUMN operation TEXT NOT NULL DEFAULT '';
    ALTER TABLE history ADD COLUMN status TEXT NOT NULL DEFAULT '';
    ALTER TABLE history ADD COLUMN row_count INTEGER;
    ALTER TABLE history ADD COLUMN duration_ms INTEGER;",
    "CREATE TABLE operations (
        id INTEGER PRIMARY KEY,
        collection TEXT NOT NULL,
        name TEXT NOT NULL,
        query TEXT NOT NULL,
        variables TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        UNIQUE (collection, name)
    );",
    // Exports of every page (issue 14): the latest of each query on each connection keeps its
    // rows keyed (`kept`), to write what changed since.
    "CREATE TABLE exports (
        id INTEGER PRIMARY KEY,
        identity TEXT NOT NULL,
        query TEXT NOT NULL,
        connection TEXT NOT NULL,
        file TEXT NOT NULL,
        at TEXT NOT NULL,
        rows INTEGER NOT NULL,
        key_column TEXT NOT NULL,
        columns TEXT NOT NULL,
        kept INTEGER NOT NULL
    );
    CREATE INDEX exports_identity ON exports (identity, connection);
    CREATE TABLE export_rows (
        export INTEGER NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        key TEXT NOT NULL,
        digest BLOB NOT NULL,
        cells TEXT NOT NULL
    );
    CREATE INDEX export_rows_export ON export_rows (export, position);",
    // Issue 23: delivery ids never reused (AUTOINCREMENT), so that an inspector that pulled up to
    // an id misses nothing after a Clear; deliveries copied from a remote listener or relay
    // (`pulled`: which remote id became which local row), where each remote's copy stands
    // (`pull_checkpoints`), and the holes a relay reported (`pull_gaps`).
    "CREATE TABLE deliveries_v2 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        received_at TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        query TEXT NOT NULL,
        headers TEXT NOT NULL,
        body BLOB NOT NULL,
        verified INTEGER,
        reason TEXT NOT NULL,
        size INTEGER NOT NULL
    );
    INSERT INTO deliveries_v2 (id, received_at, method, path, query, headers, body, verified, reason, size)
        SELECT id, received_at, method, path, query, headers, body, verified, reason, size FROM deliveries;
    DROP TABLE deliveries;
    ALTER TABLE deliveries_v2 RENAME TO deliveries;
    CREATE TABLE pulled (
        source TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        delivery INTEGER NOT NULL,
        PRIMARY KEY (source, remote_id)
    );
    CREATE TABLE pull_checkpoints (
        source TEXT PRIMARY KEY,
        remote_id TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE pull_gaps (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        after_id TEXT NOT NULL,
        oldest_id TEXT NOT NULL,
        at TEXT NOT NULL
    );",
    // Issue 22: imports (bulk changes). A journal row per planned row, its state written before
    // the next row is sent (pending → sent → done/failed), so that a resumed import never sends a
    // row twice; mappings remembered by header.
    "CREATE TABLE imports (
        id INTEGER PRIMARY KEY,
        file TEXT NOT NULL,
        digest TEXT NOT NULL,
        connection TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE INDEX imports_file ON imports (file, connection);
    CREATE TABLE import_rows (
        import INTEGER NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        row INTEGER NOT NULL,
        key TEXT NOT NULL,
        plan TEXT NOT NULL,
        state TEXT NOT NULL,
        message TEXT NOT NULL DEFAULT '',
        field TEXT NOT NULL DEFAULT '',
        created_id TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (import, position)
    );
    CREATE TABLE import_mappings (
        header TEXT PRIMARY KEY,
        mapping TEXT NOT NULL,
        saved_at TEXT NOT NULL
    );",
    // Issue 24: an export's rows in a table of its own (`export_rows_<id>`, the row's position
    // its rowid, no other index), dropped whole when a later export of the same query replaces
    // it: a DROP frees the pages, where a DELETE of 100,000 rows visited each row and its index
    // entry (about 0.1 s at the end of every export). Exports recorded before keep theirs in
    // `export_rows` (`own_rows` 0) until they are replaced.
    "ALTER TABLE exports ADD COLUMN own_rows INTEGER NOT NULL DEFAULT 0;",
    // Issue 30: every schema of a connection that differed from the one before (the first is the
    // baseline), by the fingerprint of its shape (`schema_diff`), with when it was first and last
    // seen, and whether `orgql schema changes` has shown it (it shows changes since the last one
    // it showed).
    "CREATE TABLE schema_versions (
        id INTEGER PRIMARY KEY,
        connection TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        sdl TEXT NOT NULL,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        reported INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX schema_versions_connection ON schema_versions (connection, id);",
    // Issue 31: who sent a delivery (the address a trusted tunnel or proxy named, and which).
    "ALTER TABLE deliveries ADD COLUMN sender TEXT;
    ALTER TABLE deliveries ADD COLUMN sender_via TEXT;",
    // Issue 46: an import is one piece of work. `retry_of`: the import whose failed rows this one
    // applies again (`--failed-only`), so that the whole import's outcome is read along the
    // chain; `skip_invalid`: its invalid rows were skipped by choice (the window's question,
    // `--skip-invalid`), so they do not make it "not applied".
    "ALTER TABLE imports ADD COLUMN retry_of INTEGER;
    ALTER TABLE imports ADD COLUMN skip_invalid INTEGER NOT NULL DEFAULT 0;",
    // Issue 53: scheduled deliveries — each schedule's definition (JSON of
    // `crate::schedule::Schedule`, never a secret) and every run of it: when, how it ended, what
    // it delivered where, the one-sentence failure, and whether the app has shown that failure.
    "CREATE TABLE schedules (
        name TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        created TEXT NOT NULL
    );
    CREATE TABLE schedule_runs (
        id INTEGER PRIMARY KEY,
        schedule TEXT NOT NULL,
        started TEXT NOT NULL,
        ended TEXT,
        outcome TEXT NOT NULL,
        rows INTEGER,
        bytes INTEGER,
        delivered_to TEXT,
        changes_to TEXT,
        message TEXT,
        exit_code INTEGER,
        shown INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule, id);",
];

impl Store {
    /// The database in the platform's data directory (`$XDG_DATA_HOME/orgql/orgql.sqlite3`).
    pub fn default_path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "orgql").map(|dirs| dirs.data_dir().join("orgql.sqlite3"))
    }

    /// Opens (creating when needed) the database at `path` and brings its tables up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        crate::platform::ui_thread::check(STORE_ENTRY);
        let error =
            |reason: &dyn std::fmt::Display| StoreError { path: path.to_path_buf(), reason: reason.to_string() };
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            crate::platform::private::create_dir_all(dir).map_err(|e| error(&e))?;
        }
        // Created owner-only before SQLite opens it, so it is never readable by others, even
        // empty. Never opened by anything but SQLite once it exists: closing a descriptor of it
        // would drop the locks of this process's open connections (see `create_new`); one
        // opening at a time, so that no connection opened by another thread meanwhile has locks
        // on a file this one has just created and closes.
        static OPENING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let opening = OPENING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::platform::private::create_new(path).map_err(|e| error(&e))?;
        let mut conn = Connection::open(path).map_err(|e| error(&e))?;
        drop(opening);
        // Every transaction takes the write lock when it begins (waiting for it as long as the
        // busy timeout allows): a deferred one that reads, then writes, fails at once with
        // "database is locked" when another connection wrote in between (the app's worker and
        // a remote attachment's copier write to the same file).
        conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
        // The history, deliveries and workspace hold personal data: the owner's only (SQLite
        // gives its -wal and -shm files the same permissions).
        crate::platform::private::make_private(path).map_err(|e| error(&e))?;
        // First: another connection (the app's worker, an attachment's copier, a listener) may
        // hold the lock while this one switches to WAL or migrates, and must be waited for, not
        // failed with "database is locked".
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(|e| error(&e))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| error(&e))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| error(&e))?;
        let store = Store { conn, path: path.to_path_buf() };
        store.migrate().map_err(|e| error(&e))?;
        Ok(store)
    }

    /// Caps SQLite's page cache of this connection at `kib` KiB (SQLite's default: 2,000 KiB).
    /// An export appends its rows at the end of a table of their own and reads nothing back, so
    /// it needs only the few pages on the way to the end (issue 24: peak memory).
    pub fn limit_cache(&self, kib: u32) -> Result<(), StoreError> {
        self.conn().pragma_update(None, "cache_size", -i64::from(kib)).map_err(|e| self.error(e))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for every statement: blocking, so never on the UI thread.
    fn conn(&self) -> &Connection {
        crate::platform::ui_thread::check(STORE_ENTRY);
        &self.conn
    }

    fn migrate(&self) -> rusqlite::Result<()> {
        let version: i64 = self.conn().pragma_query_value(None, "user_version", |row| row.get(0))?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(usize::try_from(version).unwrap_or(0)) {
            self.conn().execute_batch(sql)?;
            self.conn().pragma_update(None, "user_version", i as i64 + 1)?;
        }
        Ok(())
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        StoreError { path: self.path.clone(), reason: e.to_string() }
    }

    /// Records a run query with only its outcome; returns its id.
    pub fn add_history(&self, profile: &str, query: &str, variables: &str, outcome: &str) -> Result<i64, StoreError> {
        self.add_run(&NewRun {
            profile,
            query,
            variables,
            outcome,
            operation: "",
            status: RunStatus::Unknown,
            rows: None,
            duration: None,
        })
    }

    /// The newest `limit` entries, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(&format!("SELECT {HISTORY_COLUMNS} FROM history ORDER BY id DESC LIMIT ?1"))
            .map_err(|e| self.error(e))?;
        let rows = statement.query_map(params![limit as i64], history_entry).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// One entry by id.
    pub fn history_entry(&self, id: i64) -> Result<Option<HistoryEntry>, StoreError> {
        self.conn()
            .query_row(&format!("SELECT {HISTORY_COLUMNS} FROM history WHERE id = ?1"), params![id], history_entry)
            .optional()
            .map_err(|e| self.error(e))
    }
}

impl Store {
    /// Records a received delivery (committed when this returns); returns its id.
    pub fn add_delivery(&self, delivery: &NewDelivery) -> Result<i64, StoreError> {
        self.conn()
            .execute(
                "INSERT INTO deliveries (received_at, method, path, query, headers, body, verified, reason, size, \
                 sender, sender_via) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    delivery.received_at.to_rfc3339(),
                    delivery.method,
                    delivery.path,
                    delivery.query,
                    headers_to_json(&delivery.headers),
                    delivery.body,
                    delivery.verified,
                    delivery.reason,
                    i64::try_from(delivery.size).unwrap_or(i64::MAX),
                    delivery.sender.as_ref().map(|s| &s.address),
                    delivery.sender.as_ref().and_then(|s| s.via.as_ref()),
                ],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.conn().last_insert_rowid())
    }

    /// Up to `limit` deliveries after skipping `offset`, oldest first.
    pub fn deliveries(&self, limit: usize, offset: usize) -> Result<Vec<Delivery>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(
                "SELECT id, received_at, method, path, query, headers, body, verified, reason, size, sender, \
                 sender_via FROM deliveries ORDER BY id LIMIT ?1 OFFSET ?2",
            )
            .map_err(|e| self.error(e))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![limit, offset], delivery_row).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// How many deliveries are stored.
    pub fn delivery_count(&self) -> Result<u64, StoreError> {
        let count: i64 = self
            .conn()
            .query_row("SELECT COUNT(*) FROM deliveries", [], |row| row.get(0))
            .map_err(|e| self.error(e))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Deletes every stored delivery; returns how many there were.
    pub fn clear_deliveries(&self) -> Result<usize, StoreError> {
        self.conn().execute("DELETE FROM deliveries", []).map_err(|e| self.error(e))
    }
}

/// Header pairs as JSON text `[[name, value], ...]`: a value is a string when it is UTF-8,
/// otherwise `{"base64": "..."}`.
pub(crate) fn headers_to_json(headers: &[(String, Vec<u8>)]) -> String {
    let pairs: Vec<Value> = headers
        .iter()
        .map(|(name, value)| {
            let value = match std::str::from_utf8(value) {
                Ok(text) => Value::String(text.to_owned()),
                Err(_) => json!({ "base64": B64.encode(value) }),
            };
            json!([name, value])
        })
        .collect();
    Value::Array(pairs).to_string()
}

fn headers_from_json(text: &str) -> Vec<(String, Vec<u8>)> {
    let Ok(Value::Array(pairs)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    pairs
        .iter()
        .filter_map(|pair| {
            let name = pair.get(0)?.as_str()?.to_owned();
            let value = match pair.get(1)? {
                Value::String(text) => text.as_bytes().to_vec(),
                other => B64.decode(other.get("base64")?.as_str()?).ok()?,
            };
            Some((name, value))
        })
        .collect()
}

pub(crate) fn delivery_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Delivery> {
    let received_at: String = row.get(1)?;
    let headers: String = row.get(5)?;
    let size: i64 = row.get(9)?;
    Ok(Delivery {
        id: row.get(0)?,
        delivery: NewDelivery {
            received_at: DateTime::parse_from_rfc3339(&received_at).map(|t| t.with_timezone(&Utc)).unwrap_or_default(),
            method: row.get(2)?,
            path: row.get(3)?,
            query: row.get(4)?,
            headers: headers_from_json(&headers),
            body: row.get(6)?,
            verified: row.get(7)?,
            reason: row.get(8)?,
            size: u64::try_from(size).unwrap_or(0),
            // Columns 10 and 11 when selected (a query that does not select them reads `None`).
            sender: row
                .get::<_, Option<String>>(10)
                .ok()
                .flatten()
                .map(|address| DeliverySender { address, via: row.get::<_, Option<String>>(11).ok().flatten() }),
        },
    })
}

const HISTORY_COLUMNS: &str =
    "id, ran_at, profile, query, variables, outcome, operation, status, row_count, duration_ms";

fn history_entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<HistoryEntry> {
    let ran_at: String = row.get(1)?;
    let query: String = row.get(3)?;
    let mut operation: String = row.get(6)?;
    if operation.is_empty() {
        operation = operation_name_of(&query).unwrap_or_default();
    }
    let status: String = row.get(7)?;
    let rows: Option<i64> = row.get(8)?;
    let duration: Option<i64> = row.get(9)?;
    Ok(HistoryEntry {
        id: row.get(0)?,
        ran_at: DateTime::parse_from_rfc3339(&ran_at).map(|t| t.with_timezone(&Utc)).unwrap_or_default(),
        profile: row.get(2)?,
        query,
        variables: row.get(4)?,
        outcome: row.get(5)?,
        operation,
        status: RunStatus::from_text(&status),
        rows: rows.and_then(|n| u64::try_from(n).ok()),
        duration: duration.and_then(|ms| u64::try_from(ms).ok()).map(std::time::Duration::from_millis),
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

    fn delivery(path: &str, body: &[u8], verified: Option<bool>) -> NewDelivery {
        NewDelivery {
            received_at: DateTime::parse_from_rfc3339("2026-01-02T03:04:05.123+00:00").unwrap().with_timezone(&Utc),
            method: "POST".into(),
            path: path.into(),
            query: "a=1&b=2".into(),
            headers: vec![
                ("content-type".into(), b"application/json".to_vec()),
                ("x-binary".into(), vec![0xff, 0x00, 0x80]),
                ("x-repeated".into(), b"one".to_vec()),
                ("x-repeated".into(), b"two".to_vec()),
            ],
            body: body.to_vec(),
            verified,
            reason: if verified == Some(false) { "the signature does not match".into() } else { String::new() },
            size: body.len() as u64,
            sender: None,
        }
    }

    #[test]
    fn stores_deliveries_byte_for_byte_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        let first = delivery("/hooks", br#"{"type":"user.created"}"#, Some(true));
        let second = delivery("/other", &[0xde, 0xad, 0xbe, 0xef, 0xff], Some(false));
        let third = delivery("/", b"", None);
        {
            let store = Store::open(&path).unwrap();
            store.add_history("Sandbox", "{ a }", "", "200 OK").unwrap();
            for d in [&first, &second, &third] {
                store.add_delivery(d).unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.delivery_count().unwrap(), 3);
        assert_eq!(store.history(10).unwrap().len(), 1, "the history survives the migration");
        let all = store.deliveries(10, 0).unwrap();
        assert_eq!(all.iter().map(|d| d.delivery.clone()).collect::<Vec<_>>(), [first, second.clone(), third]);
        let page = store.deliveries(1, 1).unwrap();
        assert_eq!(page.len(), 1);
        assert_eq!(page[0].delivery, second);
        assert!(store.deliveries(10, 3).unwrap().is_empty());
        assert_eq!(store.clear_deliveries().unwrap(), 3);
        assert_eq!(store.delivery_count().unwrap(), 0);
    }

    #[test]
    fn headers_keep_text_and_mark_binary_values() {
        let json = headers_to_json(&[("a".into(), b"text".to_vec()), ("b".into(), vec![0xff])]);
        assert_eq!(json, r#"[["a","text"],["b",{"base64":"/w=="}]]"#);
        assert_eq!(headers_from_json(&json), [("a".to_owned(), b"text".to_vec()), ("b".to_owned(), vec![0xff])]);
    }

    #[test]
    fn a_transaction_that_reads_then_writes_waits_for_another_writer_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        let (a, b) = (Store::open(&path).unwrap(), Store::open(&path).unwrap());
        let tx = a.conn().unchecked_transaction().unwrap();
        let before: i64 = tx.query_row("SELECT count(*) FROM import_mappings", [], |r| r.get(0)).unwrap();
        // Another connection writes while the transaction is open: deferred, its write would
        // commit first and the transaction's own write fail at once ("database is locked").
        let writer = std::thread::spawn(move || b.save_import_mapping("other", "{}"));
        std::thread::sleep(std::time::Duration::from_millis(200));
        tx.execute("INSERT INTO import_mappings (header, mapping, saved_at) VALUES ('mine', '{}', 'now')", [])
            .expect("the transaction writes after its read");
        tx.commit().unwrap();
        writer.join().unwrap().expect("the other connection waited for the lock");
        let after: i64 = a.conn().query_row("SELECT count(*) FROM import_mappings", [], |r| r.get(0)).unwrap();
        assert_eq!(after, before + 2);
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
