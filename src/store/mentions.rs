//! The deliveries that mention someone: what the support card shows at its foot ("what happened
//! lately"), found by the user's ref or id in the delivery's body.

use rusqlite::params;

use super::delivery_list::DeliverySummary;
use super::{Store, StoreError, delivery_row};

impl Store {
    /// The newest deliveries (at most `limit`) whose body holds one of `keys` as a JSON string
    /// (`"u00020"`, quotes included, so that `u000201` does not match), newest first.
    pub fn deliveries_mentioning(&self, keys: &[String], limit: usize) -> Result<Vec<DeliverySummary>, StoreError> {
        let quoted: Vec<Vec<u8>> =
            keys.iter().filter(|k| !k.is_empty()).map(|k| format!("\"{k}\"").into_bytes()).collect();
        let Some(first) = quoted.first() else { return Ok(Vec::new()) };
        let second = quoted.get(1).unwrap_or(first);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self
            .conn()
            .prepare_cached(
                "SELECT id, received_at, method, path, query, headers, body, verified, reason, size FROM deliveries
                 WHERE instr(body, ?1) > 0 OR instr(body, ?2) > 0 ORDER BY id DESC LIMIT ?3",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement.query_map(params![first, second, limit], delivery_row).map_err(|e| self.error(e))?;
        rows.map(|row| row.map(|delivery| DeliverySummary::of(&delivery)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use crate::store::{NewDelivery, Store};

    fn add(store: &Store, body: &str) -> i64 {
        let delivery = NewDelivery {
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/hooks".into(),
            query: String::new(),
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
            verified: Some(true),
            reason: String::new(),
            size: body.len() as u64,
            sender: None,
        };
        store.add_delivery(&delivery).expect("stored")
    }

    #[test]
    fn the_deliveries_that_name_a_user_newest_first_and_only_them() {
        let dir = tempfile::tempdir().expect("a folder");
        let store = Store::open(&dir.path().join("s.sqlite3")).expect("a store");
        let a = add(&store, r#"{"type":"user.updated","data":{"ref":"u00020"}}"#);
        add(&store, r#"{"type":"user.updated","data":{"ref":"u000201"}}"#);
        let c = add(&store, r#"{"type":"enrollment.status_changed","data":{"userId":"42","ref":"e1"}}"#);
        let keys = ["u00020".to_owned(), "42".to_owned()];
        let found: Vec<i64> = store.deliveries_mentioning(&keys, 10).expect("read").iter().map(|d| d.id).collect();
        assert_eq!(found, [c, a]);
        assert_eq!(store.deliveries_mentioning(&keys, 1).expect("read").len(), 1);
        assert!(store.deliveries_mentioning(&[], 10).expect("read").is_empty());
    }
}
