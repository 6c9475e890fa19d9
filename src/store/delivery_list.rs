//! What the webhook inspector lists: a compact summary of each stored delivery (no headers, no
//! body), read in id order so that a list can be extended with what arrived since.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{Delivery, Store, StoreError, delivery_row};

/// One line of the inspector's list.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliverySummary {
    /// The row id (grows with arrival).
    pub id: i64,
    /// When it arrived.
    pub received_at: DateTime<Utc>,
    /// The request method.
    pub method: String,
    /// The request path.
    pub path: String,
    /// The body's top-level `type` (for example `user.created`), when the body is a JSON object with one.
    pub event_type: Option<String>,
    /// Verified (true), failed (false) or not checked (none).
    pub verified: Option<bool>,
    /// Why it failed.
    pub reason: String,
    /// The body's size in bytes.
    pub size: u64,
}

impl DeliverySummary {
    /// The summary of a delivery.
    pub fn of(delivery: &Delivery) -> Self {
        let d = &delivery.delivery;
        DeliverySummary {
            id: delivery.id,
            received_at: d.received_at,
            method: d.method.clone(),
            path: d.path.clone(),
            event_type: event_type(&d.body),
            verified: d.verified,
            reason: d.reason.clone(),
            size: d.size,
        }
    }
}

/// The top-level `type` of a JSON object body; none for anything else (including non-UTF-8 bytes).
pub fn event_type(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Typed {
        #[serde(rename = "type")]
        kind: Option<serde_json::Value>,
    }
    let typed: Typed = serde_json::from_slice(body).ok()?;
    match typed.kind? {
        serde_json::Value::String(kind) => Some(kind),
        _ => None,
    }
}

const COLUMNS: &str = "id, received_at, method, path, query, headers, body, verified, reason, size, sender, sender_via";

impl Store {
    /// One stored delivery, whole.
    pub fn delivery(&self, id: i64) -> Result<Option<Delivery>, StoreError> {
        self.conn()
            .query_row(&format!("SELECT {COLUMNS} FROM deliveries WHERE id = ?1"), params![id], delivery_row)
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Up to `limit` deliveries with an id above `after`, oldest first.
    pub fn deliveries_after(&self, after: i64, limit: usize) -> Result<Vec<Delivery>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(&format!("SELECT {COLUMNS} FROM deliveries WHERE id > ?1 ORDER BY id LIMIT ?2"))
            .map_err(|e| self.error(e))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![after, limit], delivery_row).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// The newest delivery's id (0 when there is none).
    pub fn last_delivery_id(&self) -> Result<i64, StoreError> {
        self.conn()
            .query_row("SELECT COALESCE(MAX(id), 0) FROM deliveries", [], |row| row.get(0))
            .map_err(|e| self.error(e))
    }

    /// Deletes the deliveries up to and including `id`; returns how many.
    pub fn delete_deliveries_through(&self, id: i64) -> Result<usize, StoreError> {
        self.conn().execute("DELETE FROM deliveries WHERE id <= ?1", params![id]).map_err(|e| self.error(e))
    }

    /// Summaries of every delivery with an id above `after`, oldest first, read `page` rows at a time.
    pub fn summaries_after(&self, after: i64) -> Result<Vec<DeliverySummary>, StoreError> {
        const PAGE: usize = 2000;
        let mut summaries = Vec::new();
        let mut last = after;
        loop {
            let page = self.deliveries_after(last, PAGE)?;
            summaries.extend(page.iter().map(DeliverySummary::of));
            match page.last() {
                Some(d) if page.len() == PAGE => last = d.id,
                _ => return Ok(summaries),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewDelivery;

    fn new(body: &[u8], verified: Option<bool>) -> NewDelivery {
        NewDelivery {
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/hooks".into(),
            query: String::new(),
            headers: vec![("content-type".into(), b"application/json".to_vec())],
            body: body.to_vec(),
            verified,
            reason: String::new(),
            size: body.len() as u64,
            sender: None,
        }
    }

    #[test]
    fn the_event_type_is_the_bodys_top_level_type_string() {
        assert_eq!(event_type(br#"{"type":"user.created","data":{"type":"x"}}"#).as_deref(), Some("user.created"));
        assert_eq!(event_type(br#"{"data":{}}"#), None);
        assert_eq!(event_type(br#"{"type":7}"#), None);
        assert_eq!(event_type(b"[1,2]"), None);
        assert_eq!(event_type(&[0xff, 0xfe]), None);
        assert_eq!(event_type(b""), None);
    }

    #[test]
    fn summaries_continue_after_the_last_id_seen() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        let first = store.add_delivery(&new(br#"{"type":"user.created"}"#, Some(true))).unwrap();
        let second = store.add_delivery(&new(&[0xff], None)).unwrap();
        let all = store.summaries_after(0).unwrap();
        assert_eq!(all.iter().map(|s| s.id).collect::<Vec<_>>(), [first, second]);
        assert_eq!(all[0].event_type.as_deref(), Some("user.created"));
        assert_eq!(all[0].verified, Some(true));
        assert_eq!(all[1].size, 1);
        let since = store.summaries_after(first).unwrap();
        assert_eq!(since.len(), 1);
        assert_eq!(since[0].id, second);
        assert_eq!(store.delivery(second).unwrap().unwrap().delivery.body, [0xff]);
        assert!(store.delivery(second + 10).unwrap().is_none());
        assert_eq!(store.last_delivery_id().unwrap(), second);
        assert_eq!(store.delete_deliveries_through(first).unwrap(), 1);
        assert_eq!(store.summaries_after(0).unwrap()[0].id, second);
    }
}
