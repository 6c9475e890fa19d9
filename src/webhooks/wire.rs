//! The form a stored delivery travels in between a sharing listener and an inspector (the read
//! API's pages, one delivery, and each event of its stream): JSON with the exact bytes, headers
//! in the order received (a value that is not UTF-8 as `{"base64": …}`) and the body in base64,
//! so that signatures verify on the other side exactly as they did on arrival.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::store::{Delivery, NewDelivery};

/// A header value on the wire: text when it is UTF-8, else its bytes in base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireValue {
    /// A UTF-8 value.
    Text(String),
    /// Any other bytes.
    Binary {
        /// The bytes, standard base64.
        base64: String,
    },
}

/// One delivery on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireDelivery {
    /// The sharing listener's id (grows with arrival, never reused).
    pub id: i64,
    /// When the listener received it.
    pub received_at: DateTime<Utc>,
    /// The request method.
    pub method: String,
    /// The path.
    pub path: String,
    /// The query string without `?`.
    pub query: String,
    /// Name and value pairs, in the order received.
    pub headers: Vec<(String, WireValue)>,
    /// The body, standard base64.
    pub body_base64: String,
    /// The listener's verdict (`null`: it had no secret).
    pub verified: Option<bool>,
    /// Why it failed there.
    pub reason: String,
    /// The body's size as announced or received.
    pub size: u64,
}

/// A page of the read API's list.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WirePage {
    /// Up to the asked number of deliveries after the asked id, oldest first.
    pub deliveries: Vec<WireDelivery>,
    /// The newest id the listener has (0 when none).
    pub last_id: i64,
}

impl WireDelivery {
    /// The wire form of a stored delivery.
    pub fn of(delivery: &Delivery) -> Self {
        let d = &delivery.delivery;
        WireDelivery {
            id: delivery.id,
            received_at: d.received_at,
            method: d.method.clone(),
            path: d.path.clone(),
            query: d.query.clone(),
            headers: d
                .headers
                .iter()
                .map(|(name, value)| {
                    let value = match std::str::from_utf8(value) {
                        Ok(text) => WireValue::Text(text.to_owned()),
                        Err(_) => WireValue::Binary { base64: B64.encode(value) },
                    };
                    (name.clone(), value)
                })
                .collect(),
            body_base64: B64.encode(&d.body),
            verified: d.verified,
            reason: d.reason.clone(),
            size: d.size,
        }
    }

    /// The delivery as received, or why the wire form is broken.
    pub fn into_delivery(self) -> Result<NewDelivery, String> {
        let body = B64.decode(&self.body_base64).map_err(|e| format!("its body is not base64 ({e})"))?;
        let headers = self
            .headers
            .into_iter()
            .map(|(name, value)| match value {
                WireValue::Text(text) => Ok((name, text.into_bytes())),
                WireValue::Binary { base64 } => B64
                    .decode(base64)
                    .map(|bytes| (name, bytes))
                    .map_err(|e| format!("a header value is not base64 ({e})")),
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(NewDelivery {
            received_at: self.received_at,
            method: self.method,
            path: self.path,
            query: self.query,
            headers,
            body,
            verified: self.verified,
            reason: self.reason,
            size: self.size,
            sender: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_survive_the_wire_exactly() {
        let delivery = Delivery {
            id: 3,
            delivery: NewDelivery {
                received_at: Utc::now(),
                method: "POST".into(),
                path: "/h".into(),
                query: "a=1".into(),
                headers: vec![("x-bin".into(), vec![0xff, 0x00]), ("x-t".into(), b"v".to_vec())],
                body: vec![0xde, 0xad, b'\n', 0xff],
                verified: Some(false),
                reason: "r".into(),
                size: 4,
                sender: None,
            },
        };
        let text = serde_json::to_string(&WireDelivery::of(&delivery)).unwrap();
        let back: WireDelivery = serde_json::from_str(&text).unwrap();
        assert_eq!(back.id, 3);
        assert_eq!(back.into_delivery().unwrap(), delivery.delivery);
    }
}
