//! The schema cache: the SDL of each profile's schema with the time it was fetched, so that the
//! explorer opens at once and is refreshed on demand; and every version of a connection's schema
//! (issue 30): each fetch that differs from the last version is kept with its date, the first
//! being the baseline; a fetch that did not change only moves the last version's `last_seen`.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

impl Store {
    /// Stores `profile`'s schema, replacing the one cached before.
    pub fn save_schema(&self, profile: &str, sdl: &str, fetched_at: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO schemas (profile, sdl, fetched_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (profile) DO UPDATE SET sdl = excluded.sdl, fetched_at = excluded.fetched_at",
                params![profile, sdl, fetched_at.to_rfc3339()],
            )
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// `profile`'s cached schema and when it was fetched; `None` when none is cached.
    pub fn cached_schema(&self, profile: &str) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        let row = self
            .conn()
            .query_row("SELECT sdl, fetched_at FROM schemas WHERE profile = ?1", params![profile], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .optional()
            .map_err(|e| self.error(e))?;
        Ok(row.map(|(sdl, fetched_at)| {
            let fetched_at =
                DateTime::parse_from_rfc3339(&fetched_at).map(|t| t.with_timezone(&Utc)).unwrap_or_default();
            (sdl, fetched_at)
        }))
    }
}

/// A version of a connection's schema (without its SDL; [`Store::schema_version_sdl`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaVersion {
    /// Its row id.
    pub id: i64,
    /// The connection's key.
    pub connection: String,
    /// The fingerprint of its shape (`schema_diff::SchemaShape::fingerprint`).
    pub fingerprint: String,
    /// When it was first fetched: the date of the change.
    pub first_seen: DateTime<Utc>,
    /// When it was last fetched unchanged.
    pub last_seen: DateTime<Utc>,
    /// Whether `orgql schema changes` has shown it.
    pub reported: bool,
}

/// What recording a fetched schema did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The connection's first schema: the baseline.
    Baseline(SchemaVersion),
    /// A schema that differs from the last version, kept as a new one.
    Changed {
        /// The version before.
        previous: SchemaVersion,
        /// The new one.
        current: SchemaVersion,
    },
    /// The same as the last version (its `last_seen` moved).
    Unchanged(SchemaVersion),
}

impl Recorded {
    /// The connection's current version.
    pub fn current(&self) -> &SchemaVersion {
        match self {
            Recorded::Baseline(current) | Recorded::Changed { current, .. } | Recorded::Unchanged(current) => current,
        }
    }
}

fn time(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc)).unwrap_or_default()
}

fn version_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SchemaVersion> {
    Ok(SchemaVersion {
        id: row.get(0)?,
        connection: row.get(1)?,
        fingerprint: row.get(2)?,
        first_seen: time(&row.get::<_, String>(3)?),
        last_seen: time(&row.get::<_, String>(4)?),
        reported: row.get(5)?,
    })
}

const VERSION_COLUMNS: &str = "id, connection, fingerprint, first_seen, last_seen, reported";

impl Store {
    /// Records a schema of `connection` fetched `at`: kept as a new version when its
    /// `fingerprint` differs from the last version's, else only the last version's `last_seen`
    /// moves (one comparison of fingerprints, one small update).
    pub fn record_schema_version(
        &self,
        connection: &str,
        fingerprint: &str,
        sdl: &str,
        at: DateTime<Utc>,
    ) -> Result<Recorded, StoreError> {
        let conn = self.conn();
        let tx = conn.unchecked_transaction().map_err(|e| self.error(e))?;
        let last = tx
            .query_row(
                &format!(
                    "SELECT {VERSION_COLUMNS} FROM schema_versions WHERE connection = ?1 ORDER BY id DESC LIMIT 1"
                ),
                params![connection],
                version_row,
            )
            .optional()
            .map_err(|e| self.error(e))?;
        let recorded = match last {
            Some(mut last) if last.fingerprint == fingerprint => {
                tx.execute(
                    "UPDATE schema_versions SET last_seen = ?1 WHERE id = ?2",
                    params![at.to_rfc3339(), last.id],
                )
                .map_err(|e| self.error(e))?;
                last.last_seen = at;
                Recorded::Unchanged(last)
            }
            last => {
                tx.execute(
                    "INSERT INTO schema_versions (connection, fingerprint, sdl, first_seen, last_seen) \
                     VALUES (?1, ?2, ?3, ?4, ?4)",
                    params![connection, fingerprint, sdl, at.to_rfc3339()],
                )
                .map_err(|e| self.error(e))?;
                let current = SchemaVersion {
                    id: tx.last_insert_rowid(),
                    connection: connection.to_owned(),
                    fingerprint: fingerprint.to_owned(),
                    first_seen: at,
                    last_seen: at,
                    reported: false,
                };
                match last {
                    Some(previous) => Recorded::Changed { previous, current },
                    None => Recorded::Baseline(current),
                }
            }
        };
        tx.commit().map_err(|e| self.error(e))?;
        Ok(recorded)
    }

    /// Every version of `connection`'s schema, oldest (the baseline) first.
    pub fn schema_versions(&self, connection: &str) -> Result<Vec<SchemaVersion>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(&format!("SELECT {VERSION_COLUMNS} FROM schema_versions WHERE connection = ?1 ORDER BY id"))
            .map_err(|e| self.error(e))?;
        let rows = statement.query_map(params![connection], version_row).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// Marks a version as shown by `orgql schema changes`.
    pub fn mark_schema_version_reported(&self, id: i64) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE schema_versions SET reported = 1 WHERE id = ?1", params![id])
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// The SDL of a version; `None` when there is no such version.
    pub fn schema_version_sdl(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row("SELECT sdl FROM schema_versions WHERE id = ?1", params![id], |row| row.get(0))
            .optional()
            .map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_one_schema_a_profile_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orgql.sqlite3");
        let first = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.123456+00:00").unwrap().with_timezone(&Utc);
        let second = first + chrono::Duration::minutes(5);
        {
            let store = Store::open(&path).unwrap();
            assert_eq!(store.cached_schema("Sandbox").unwrap(), None);
            store.save_schema("Sandbox", "type Query { a: Int }", first).unwrap();
            store.save_schema("Acme", "type Query { b: Int }", first).unwrap();
            store.save_schema("Sandbox", "type Query { c: Int }", second).unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.cached_schema("Sandbox").unwrap(), Some(("type Query { c: Int }".to_owned(), second)));
        assert_eq!(store.cached_schema("Acme").unwrap(), Some(("type Query { b: Int }".to_owned(), first)));
        assert_eq!(store.cached_schema("Other").unwrap(), None);
    }

    #[test]
    fn keeps_each_differing_version_and_only_touches_the_last_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("orgql.sqlite3")).unwrap();
        let day = |d: u32| DateTime::parse_from_rfc3339(&format!("2026-11-{d:02}T10:00:00+00:00")).unwrap().to_utc();
        let first = store.record_schema_version("Sandbox", "aaa", "type Query { a: Int }", day(1)).unwrap();
        assert!(matches!(&first, Recorded::Baseline(v) if v.first_seen == day(1)));
        let same = store.record_schema_version("Sandbox", "aaa", "type Query { a: Int }", day(2)).unwrap();
        assert!(matches!(&same, Recorded::Unchanged(v) if v.first_seen == day(1) && v.last_seen == day(2)));
        let other = store.record_schema_version("Acme", "aaa", "type Query { a: Int }", day(2)).unwrap();
        assert!(matches!(other, Recorded::Baseline(_)));
        let next = store.record_schema_version("Sandbox", "bbb", "type Query { b: Int }", day(12)).unwrap();
        let Recorded::Changed { previous, current } = &next else { panic!("{next:?}") };
        assert_eq!((previous.fingerprint.as_str(), previous.last_seen), ("aaa", day(2)));
        assert_eq!((current.fingerprint.as_str(), current.first_seen), ("bbb", day(12)));
        let versions = store.schema_versions("Sandbox").unwrap();
        assert_eq!(versions.iter().map(|v| v.fingerprint.as_str()).collect::<Vec<_>>(), ["aaa", "bbb"]);
        assert_eq!(store.schema_version_sdl(current.id).unwrap().as_deref(), Some("type Query { b: Int }"));
        assert_eq!(store.schema_version_sdl(9999).unwrap(), None);
        store.mark_schema_version_reported(current.id).unwrap();
        let reported: Vec<bool> = store.schema_versions("Sandbox").unwrap().iter().map(|v| v.reported).collect();
        assert_eq!(reported, [false, true]);
    }
}
