//! `orgql webhooks export`: every stored delivery as one JSON line (contract section 2).

use std::io::Write;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde_json::{Map, Value, json};

use super::DeliveryFilter;
use crate::store::{Delivery, DeliverySummary, Store, StoreError};

/// How many rows are read from the store at a time.
const PAGE: usize = 500;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing the output.
    #[error("cannot write the deliveries ({0}); check the output path and the disk")]
    Write(#[from] std::io::Error),
}

/// One delivery as the contract's JSON object: `received_at`, `method`, `path`, `query`, `headers`
/// (name -> value, repeated headers joined with `, `), `body` (UTF-8) or `body_base64`, `verified`
/// and `reason`. A header whose value is not UTF-8 is also in `headers_base64` (name -> the exact
/// bytes, repeated values joined with `, `), so that nothing the sender sent is lost (its value in
/// `headers` has U+FFFD where the bytes were not UTF-8).
pub fn delivery_json(delivery: &Delivery) -> Value {
    let d = &delivery.delivery;
    let mut headers = Map::new();
    let mut raw: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, value) in &d.headers {
        match raw.iter_mut().find(|(n, _)| n == name) {
            Some((_, joined)) => {
                joined.extend_from_slice(b", ");
                joined.extend_from_slice(value);
            }
            None => raw.push((name.clone(), value.clone())),
        }
        let value = String::from_utf8_lossy(value);
        match headers.get_mut(name) {
            Some(Value::String(joined)) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            _ => {
                headers.insert(name.clone(), Value::String(value.into_owned()));
            }
        }
    }
    let mut object = json!({
        "received_at": d.received_at.to_rfc3339(),
        "method": d.method,
        "path": d.path,
        "query": d.query,
        "headers": headers,
        "verified": d.verified,
        "reason": d.reason,
    });
    let not_utf8: Map<String, Value> = raw
        .into_iter()
        .filter(|(_, value)| std::str::from_utf8(value).is_err())
        .map(|(name, value)| (name, Value::String(B64.encode(value))))
        .collect();
    if !not_utf8.is_empty() {
        object["headers_base64"] = Value::Object(not_utf8);
    }
    match std::str::from_utf8(&d.body) {
        Ok(text) => object["body"] = Value::String(text.to_owned()),
        Err(_) => object["body_base64"] = Value::String(B64.encode(&d.body)),
    }
    object
}

/// Writes every stored delivery, oldest first, one JSON line each; returns how many.
pub fn export_jsonl(store: &Store, out: &mut dyn Write) -> Result<u64, ExportError> {
    export_matching(store, out, &DeliveryFilter::default())
}

/// Writes the stored deliveries that pass `filter`, oldest first, one JSON line each; returns how many.
pub fn export_matching(store: &Store, out: &mut dyn Write, filter: &DeliveryFilter) -> Result<u64, ExportError> {
    crate::platform::ui_thread::check("export file");
    let mut written = 0;
    let mut last = 0;
    loop {
        let page = store.deliveries_after(last, PAGE)?;
        for delivery in &page {
            if !filter.is_empty() && !filter.matches(&DeliverySummary::of(delivery)) {
                continue;
            }
            serde_json::to_writer(&mut *out, &delivery_json(delivery)).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
            written += 1;
        }
        match page.last() {
            Some(delivery) if page.len() == PAGE => last = delivery.id,
            _ => break,
        }
    }
    out.flush()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::store::NewDelivery;

    #[test]
    fn writes_one_line_per_delivery_in_the_contract_shape() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite3")).unwrap();
        let base = NewDelivery {
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/hook".into(),
            query: "x=1".into(),
            headers: vec![("accept".into(), b"a".to_vec()), ("accept".into(), b"b".to_vec())],
            body: b"{\"type\":\"user.created\"}".to_vec(),
            verified: Some(true),
            reason: String::new(),
            size: 23,
            sender: None,
        };
        store.add_delivery(&base).unwrap();
        let binary = NewDelivery { body: vec![0xff, 0x00], verified: None, ..base };
        store.add_delivery(&binary).unwrap();
        let mut out = Vec::new();
        assert_eq!(export_jsonl(&store, &mut out).unwrap(), 2);
        let lines: Vec<Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["headers"], json!({ "accept": "a, b" }));
        assert_eq!(lines[0]["body"], "{\"type\":\"user.created\"}");
        assert_eq!(lines[0]["verified"], true);
        assert_eq!(lines[0]["path"], "/hook");
        assert_eq!(lines[0]["query"], "x=1");
        assert_eq!(lines[1]["body_base64"], "/wA=");
        assert!(lines[1].get("body").is_none());
        assert_eq!(lines[1]["verified"], Value::Null);
        let mut out = Vec::new();
        let verified =
            DeliveryFilter { verification: super::super::VerificationFilter::Verified, ..DeliveryFilter::default() };
        assert_eq!(export_matching(&store, &mut out, &verified).unwrap(), 1);
        assert!(String::from_utf8(out).unwrap().contains("user.created"));
    }

    #[test]
    fn header_bytes_that_are_not_utf8_are_kept_in_base64() {
        let delivery = Delivery {
            id: 1,
            delivery: NewDelivery {
                received_at: Utc::now(),
                method: "POST".into(),
                path: "/".into(),
                query: String::new(),
                headers: vec![
                    ("x-raw".into(), vec![b'a', 0xff, 0xfe]),
                    ("x-raw".into(), b"b".to_vec()),
                    ("accept".into(), b"*/*".to_vec()),
                ],
                body: Vec::new(),
                verified: None,
                reason: String::new(),
                size: 0,
                sender: None,
            },
        };
        let json = delivery_json(&delivery);
        assert_eq!(json["headers_base64"], json!({ "x-raw": B64.encode(b"a\xff\xfe, b") }));
        assert_eq!(json["headers"]["accept"], "*/*");
    }
}
