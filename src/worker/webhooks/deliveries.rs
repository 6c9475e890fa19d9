//! The deliveries as the list shows them: every stored summary, one delivery whole (its body
//! parsed off the UI thread), clearing them, and the JSONL export of those that pass a filter.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::WebhooksEvent;
use crate::store::Delivery;
use crate::webhooks::DeliveryFilter;
use crate::worker::{Event, JobId, Shared};
use serde_json::Value;

/// How long arrivals are gathered into one batch for the UI.
pub(super) const BATCH_WINDOW: Duration = Duration::from_millis(20);
/// The most summaries in one batch.
pub(super) const BATCH_MAX: usize = 5000;

/// Sends every stored delivery's summary as the whole list; returns the newest id sent.
pub(super) async fn load_all(shared: &Arc<Shared>) -> i64 {
    let loaded = shared
        .with_store(|s| {
            let through = s.last_delivery_id()?;
            Ok((s.summaries_after(0)?, through))
        })
        .await;
    match loaded {
        Some(Ok((rows, through))) => {
            let newest = rows.last().map_or(through, |d| d.id.max(through));
            shared.emit(WebhooksEvent::Deliveries { rows, through: Some(through) }).await;
            newest
        }
        Some(Err(e)) => {
            shared.emit(Event::Problem(e)).await;
            0
        }
        None => 0,
    }
}

/// Sends every stored delivery's summary as the whole list.
pub(super) async fn load_deliveries(shared: Arc<Shared>) {
    load_all(&shared).await;
}

/// Sends one delivery whole.
pub(super) async fn load_delivery(shared: Arc<Shared>, id: i64) {
    // The body is parsed here, on the blocking thread that read it, not on the UI thread.
    match shared.with_store(move |s| Ok(s.delivery(id)?.map(|d| Box::new(super::LoadedDelivery::new(d))))).await {
        Some(Ok(delivery)) => shared.emit(WebhooksEvent::DeliveryLoaded(id, delivery)).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Deletes every stored delivery.
pub(super) async fn clear_deliveries(shared: Arc<Shared>) {
    let cleared = shared
        .with_store(|s| {
            let through = s.last_delivery_id()?;
            s.delete_deliveries_through(through)?;
            Ok(through)
        })
        .await;
    match cleared {
        Some(Ok(through)) => shared.emit(WebhooksEvent::Deliveries { rows: Vec::new(), through: Some(through) }).await,
        Some(Err(e)) => shared.emit(Event::Problem(e)).await,
        None => {}
    }
}

/// Writes the deliveries that pass `filter` to a JSONL file, which appears only when complete.
pub(super) async fn export(shared: Arc<Shared>, job: JobId, filter: DeliveryFilter, path: PathBuf) {
    let target = path.clone();
    let written = shared
        .with_store(move |s| Ok(write_jsonl(s, &filter, &target)))
        .await
        .unwrap_or_else(|| Err("there is no local database to export from".to_owned()))
        .and_then(|inner| inner);
    shared.emit(WebhooksEvent::Exported { job, result: written.map(|n| (path, n)) }).await;
}

fn write_jsonl(store: &crate::store::Store, filter: &DeliveryFilter, path: &std::path::Path) -> Result<u64, String> {
    let cannot = |e: &dyn std::fmt::Display| {
        format!("cannot write {} ({e}); choose another folder or free some space", path.display())
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| cannot(&e))?;
    let mut out = std::io::BufWriter::new(file.as_file_mut());
    let written = crate::webhooks::export::export_matching(store, &mut out, filter).map_err(|e| e.to_string())?;
    drop(out);
    file.persist(path).map_err(|e| cannot(&e.error))?;
    Ok(written)
}

/// A stored delivery whole, with its body parsed for display off the UI thread (bodies reach 1 MiB).
#[derive(Debug, Clone)]
pub struct LoadedDelivery {
    /// The delivery.
    pub delivery: Delivery,
    /// Its body, parsed.
    pub body: DeliveryBody,
}

impl LoadedDelivery {
    /// Parses the body of `delivery`.
    pub fn new(delivery: Delivery) -> Self {
        let body = DeliveryBody::of(&delivery.delivery.body);
        LoadedDelivery { delivery, body }
    }
}

/// A delivery's body as shown.
#[derive(Debug, Clone, PartialEq)]
pub enum DeliveryBody {
    /// JSON.
    Json(Value),
    /// Text that is not JSON.
    Text,
    /// Bytes that are not UTF-8 (a hex dump of the start).
    Binary(String),
}

impl DeliveryBody {
    /// Parses a body for display.
    pub fn of(bytes: &[u8]) -> DeliveryBody {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
            return DeliveryBody::Json(value);
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => DeliveryBody::Text,
            Err(_) => DeliveryBody::Binary(hex_dump(&bytes[..bytes.len().min(4096)])),
        }
    }
}

fn hex_dump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let text: String = chunk.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
            format!("{:06x}  {:<47}  {text}", i * 16, hex.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_shown_as_json_text_or_bytes() {
        assert!(matches!(DeliveryBody::of(br#"{"a":1}"#), DeliveryBody::Json(_)));
        assert!(matches!(DeliveryBody::of(b"plain words"), DeliveryBody::Text));
        match DeliveryBody::of(&[0xff, b'A', 0x00]) {
            DeliveryBody::Binary(dump) => assert_eq!(dump, format!("000000  {:<47}  .A.", "ff 41 00")),
            _ => panic!("not binary"),
        }
    }
}
