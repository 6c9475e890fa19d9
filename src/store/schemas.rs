//! The schema cache: the SDL of each profile's schema with the time it was fetched, so that the
//! explorer opens at once and is refreshed on demand.

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
}
