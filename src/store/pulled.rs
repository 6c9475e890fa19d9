//! Deliveries copied from a remote listener or relay (`orgql webhooks pull`, the app's Attach):
//! each copy is committed with the remote id it came from and the remote's checkpoint in one
//! transaction, so the checkpoint never runs ahead of what is on disk and a remote id is copied
//! once however often it is offered.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{NewDelivery, Store, StoreError, headers_to_json};

/// What became of a delivery offered by a remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pulled {
    /// Stored as this local delivery id.
    Stored(i64),
    /// Already copied earlier (as this local id); only the checkpoint moved.
    AlreadyHad(i64),
}

/// A hole a relay reported: it no longer keeps the deliveries after `after_id` up to `oldest_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullGap {
    /// The remote the hole is in (its URL).
    pub source: String,
    /// The last remote id this store had when it asked.
    pub after_id: String,
    /// The oldest remote id the relay still had.
    pub oldest_id: String,
    /// When the hole was reported.
    pub at: DateTime<Utc>,
}

impl Store {
    /// Stores `delivery`, copied from `source` where it had id `remote_id`, and (with
    /// `checkpoint`) moves `source`'s checkpoint to `remote_id`, in one transaction.
    pub fn add_pulled_delivery(
        &self,
        source: &str,
        remote_id: &str,
        delivery: &NewDelivery,
        checkpoint: bool,
    ) -> Result<Pulled, StoreError> {
        let mut outcomes =
            self.add_pulled_deliveries(source, &[(remote_id.to_owned(), delivery.clone())], checkpoint)?;
        Ok(outcomes.pop().unwrap_or(Pulled::AlreadyHad(0)))
    }

    /// [`Store::add_pulled_delivery`] for several in one transaction (the checkpoint moves to the
    /// last one's id).
    pub fn add_pulled_deliveries(
        &self,
        source: &str,
        deliveries: &[(String, NewDelivery)],
        checkpoint: bool,
    ) -> Result<Vec<Pulled>, StoreError> {
        let conn = self.conn();
        let tx = conn.unchecked_transaction().map_err(|e| self.error(e))?;
        let mut outcomes = Vec::with_capacity(deliveries.len());
        for (remote_id, delivery) in deliveries {
            let had: Option<i64> = tx
                .query_row(
                    "SELECT delivery FROM pulled WHERE source = ?1 AND remote_id = ?2",
                    params![source, remote_id],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| self.error(e))?;
            let outcome = match had {
                Some(local) => Pulled::AlreadyHad(local),
                None => {
                    tx.execute(
                        "INSERT INTO deliveries (received_at, method, path, query, headers, body, verified, reason, \
                         size, sender, sender_via) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
                    let local = tx.last_insert_rowid();
                    tx.execute(
                        "INSERT INTO pulled (source, remote_id, delivery) VALUES (?1, ?2, ?3)",
                        params![source, remote_id, local],
                    )
                    .map_err(|e| self.error(e))?;
                    Pulled::Stored(local)
                }
            };
            outcomes.push(outcome);
        }
        if let (true, Some((last, _))) = (checkpoint, deliveries.last()) {
            set_checkpoint(&tx, source, last).map_err(|e| self.error(e))?;
        }
        tx.commit().map_err(|e| self.error(e))?;
        Ok(outcomes)
    }

    /// Moves `source`'s checkpoint without a delivery (a relay's event that is not one).
    pub fn set_pull_checkpoint(&self, source: &str, remote_id: &str) -> Result<(), StoreError> {
        set_checkpoint(self.conn(), source, remote_id).map_err(|e| self.error(e))
    }

    /// The last remote id copied from `source`, if any.
    pub fn pull_checkpoint(&self, source: &str) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row("SELECT remote_id FROM pull_checkpoints WHERE source = ?1", params![source], |r| r.get(0))
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Records a hole `source` reported.
    pub fn add_pull_gap(&self, source: &str, after_id: &str, oldest_id: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO pull_gaps (source, after_id, oldest_id, at) VALUES (?1, ?2, ?3, ?4)",
                params![source, after_id, oldest_id, Utc::now().to_rfc3339()],
            )
            .map(|_| ())
            .map_err(|e| self.error(e))
    }

    /// The holes `source` reported, oldest first.
    pub fn pull_gaps(&self, source: &str) -> Result<Vec<PullGap>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT source, after_id, oldest_id, at FROM pull_gaps WHERE source = ?1 ORDER BY id")
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map(params![source], |r| {
                let at: String = r.get(3)?;
                Ok(PullGap {
                    source: r.get(0)?,
                    after_id: r.get(1)?,
                    oldest_id: r.get(2)?,
                    at: DateTime::parse_from_rfc3339(&at).map(|t| t.with_timezone(&Utc)).unwrap_or_default(),
                })
            })
            .map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }
}

fn set_checkpoint(conn: &rusqlite::Connection, source: &str, remote_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO pull_checkpoints (source, remote_id, at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (source) DO UPDATE SET remote_id = excluded.remote_id, at = excluded.at",
        params![source, remote_id, Utc::now().to_rfc3339()],
    )
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(body: &[u8]) -> NewDelivery {
        NewDelivery {
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/hooks".into(),
            query: String::new(),
            headers: vec![("content-type".into(), b"application/json".to_vec())],
            body: body.to_vec(),
            verified: None,
            reason: String::new(),
            size: body.len() as u64,
            sender: None,
        }
    }

    #[test]
    fn a_remote_id_is_copied_once_and_the_checkpoint_follows() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        assert_eq!(store.pull_checkpoint("http://a").unwrap(), None);
        let Pulled::Stored(first) = store.add_pulled_delivery("http://a", "7", &new(b"{}"), true).unwrap() else {
            panic!("stored the first time")
        };
        assert_eq!(store.add_pulled_delivery("http://a", "7", &new(b"{}"), true).unwrap(), Pulled::AlreadyHad(first));
        assert_eq!(store.pull_checkpoint("http://a").unwrap().as_deref(), Some("7"));
        assert!(matches!(store.add_pulled_delivery("http://b", "7", &new(b"[]"), true).unwrap(), Pulled::Stored(_)));
        assert_eq!(store.delivery_count().unwrap(), 2);
        store.add_pull_gap("http://a", "7", "12").unwrap();
        assert_eq!(store.pull_gaps("http://a").unwrap()[0].oldest_id, "12");
    }

    #[test]
    fn delivery_ids_are_not_reused_after_a_clear() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        let first = store.add_delivery(&new(b"1")).unwrap();
        store.clear_deliveries().unwrap();
        assert!(store.add_delivery(&new(b"2")).unwrap() > first);
    }
}
