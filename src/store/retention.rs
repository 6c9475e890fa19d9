//! How long deliveries are kept (`orgql webhooks listen --keep-days N --max-store-mb M`): the
//! oldest go first. Deleted rows' pages are reused by SQLite for new deliveries, so the file stops
//! growing at about the cap rather than shrinking (no VACUUM: it would hold the writer for the
//! whole copy).

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::{Store, StoreError};

/// What a pass of the retention policy deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Deliveries older than the age limit.
    pub by_age: usize,
    /// The oldest deliveries past the size limit.
    pub by_size: usize,
}

/// Bytes counted for a row besides its body and headers (its other columns and SQLite's overhead).
const ROW_OVERHEAD: i64 = 128;

impl Store {
    /// Deletes the deliveries received before `older_than`, then the oldest until the stored
    /// deliveries take at most `max_bytes` (bodies, headers and a small overhead a row).
    pub fn prune_deliveries(
        &self,
        older_than: Option<DateTime<Utc>>,
        max_bytes: Option<u64>,
    ) -> Result<Pruned, StoreError> {
        let mut pruned = Pruned::default();
        if let Some(cutoff) = older_than {
            // RFC 3339 in UTC with the same offset form sorts as time does; received_at is
            // written by `to_rfc3339` (always `+00:00`).
            pruned.by_age = self
                .conn()
                .execute("DELETE FROM deliveries WHERE received_at < ?1", params![cutoff.to_rfc3339()])
                .map_err(|e| self.error(e))?;
        }
        if let Some(max) = max_bytes {
            let max = i64::try_from(max).unwrap_or(i64::MAX);
            let total: i64 = self
                .conn()
                .query_row(
                    "SELECT COALESCE(SUM(length(body) + length(headers) + ?1), 0) FROM deliveries",
                    params![ROW_OVERHEAD],
                    |r| r.get(0),
                )
                .map_err(|e| self.error(e))?;
            if total > max {
                let mut excess = total - max;
                let mut through = None;
                let mut statement = self
                    .conn()
                    .prepare_cached("SELECT id, length(body) + length(headers) + ?1 FROM deliveries ORDER BY id")
                    .map_err(|e| self.error(e))?;
                let mut rows = statement.query(params![ROW_OVERHEAD]).map_err(|e| self.error(e))?;
                while let Some(row) = rows.next().map_err(|e| self.error(e))? {
                    let id: i64 = row.get(0).map_err(|e| self.error(e))?;
                    let bytes: i64 = row.get(1).map_err(|e| self.error(e))?;
                    through = Some(id);
                    excess -= bytes;
                    if excess <= 0 {
                        break;
                    }
                }
                drop(rows);
                if let Some(id) = through {
                    pruned.by_size = self.delete_deliveries_through(id)?;
                }
            }
        }
        Ok(pruned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewDelivery;

    fn at(received_at: DateTime<Utc>, body: Vec<u8>) -> NewDelivery {
        NewDelivery {
            received_at,
            method: "POST".into(),
            path: "/".into(),
            query: String::new(),
            headers: vec![],
            size: body.len() as u64,
            sender: None,
            body,
            verified: None,
            reason: String::new(),
        }
    }

    #[test]
    fn the_oldest_go_first_by_age_then_by_size() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        let now = Utc::now();
        store.add_delivery(&at(now - chrono::Duration::days(10), vec![1; 1000])).unwrap();
        let kept: Vec<i64> = (0..5).map(|_| store.add_delivery(&at(now, vec![2; 1000])).unwrap()).collect();
        let pruned = store.prune_deliveries(Some(now - chrono::Duration::days(7)), None).unwrap();
        assert_eq!(pruned, Pruned { by_age: 1, by_size: 0 });
        // 5 rows of about 1,130 bytes; at most 3,500 keeps the newest 3.
        let pruned = store.prune_deliveries(None, Some(3500)).unwrap();
        assert_eq!(pruned.by_size, 2);
        let left: Vec<i64> = store.deliveries(10, 0).unwrap().iter().map(|d| d.id).collect();
        assert_eq!(left, kept[2..]);
        assert_eq!(store.prune_deliveries(None, Some(3500)).unwrap(), Pruned::default());
    }
}
