//! The client of a remote listener's read API (`crate::webhooks::share`) or of a gosmee relay's
//! event stream: a remote named by its URL ([`Remote`]), an orgql listener's pages, and either
//! one's events as a stream ([`RemoteStream`]), read byte for byte and capped.
//!
//! gosmee (github.com/chmouel/gosmee) relays each webhook as an SSE `data:` line holding a JSON
//! object: the request's headers (lower-cased names, first value only), `timestamp` (Unix
//! milliseconds, a string) and `bodyB` (the body in standard base64). With its Redis store each
//! event has an `id:` (a Redis stream id) and a client resumes with `Last-Event-ID`; when the
//! relay no longer has the events after that id it sends `event: gosmee-gap` with
//! `{"error":"missed_history","requested_id":…,"oldest_id":…}`, told here as a hole.

use std::collections::VecDeque;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use chrono::{TimeZone, Utc};
use reqwest::StatusCode;
use sha2::{Digest, Sha256};

use crate::platform::terminal::printable;
use crate::secret::Secret;
use crate::store::{NewDelivery, StoreError};
use crate::webhooks::sse::{SseEvent, SseParser};
use crate::webhooks::wire::{WireDelivery, WirePage};

/// The largest event or page read from a remote (64 MiB; a page holds at most 8 MiB of bodies,
/// 11 MiB in base64).
pub const MAX_READ: usize = 64 * 1024 * 1024;
/// How long to wait for a connection and for each answer's headers.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// What kind of remote a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteKind {
    /// An `orgql webhooks listen --share-token-file` (its root URL).
    Orgql,
    /// A gosmee relay's event stream (`…/events/CHANNEL`).
    Gosmee,
}

/// Why a pull failed; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// Not a URL orgql can use.
    #[error("'{0}' is not an http(s) URL; give the listener's address (http://host:9000) or a gosmee events URL")]
    BadUrl(String),
    /// 401 or 403.
    #[error("{0} refused the token; check the token file against the listener's --share-token-file")]
    Unauthorized(String),
    /// The listener does not share.
    #[error("{0} does not share its deliveries; start it with --share-token-file FILE")]
    NotSharing(String),
    /// Could not connect or read.
    #[error("cannot reach {url} ({reason}); check the address and that the listener or relay runs")]
    Unreachable {
        /// The remote.
        url: String,
        reason: String,
    },
    /// Any other status.
    #[error("{url} answered {status}: {text}")]
    Status {
        /// The remote.
        url: String,
        /// The status.
        status: u16,
        /// The start of its body, printable.
        text: String,
    },
    /// Not what the read API sends.
    #[error(
        "{url} sent something that is not a delivery ({reason}); check that it is an orgql listener or a gosmee relay"
    )]
    BadData {
        /// The remote.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// The local store.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A remote listener or relay.
#[derive(Clone)]
pub struct Remote {
    kind: RemoteKind,
    url: reqwest::Url,
    token: Option<Secret>,
    client: crate::net::HttpClient,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("kind", &self.kind).field("url", &self.url.as_str()).finish_non_exhaustive()
    }
}

/// One thing a remote's stream said.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteEvent {
    /// A delivery, with the remote's id for it (for gosmee without Redis, which gives none, a
    /// digest of the event, so that it is copied once) and whether that id can be resumed after.
    Delivery {
        /// The remote's id.
        remote_id: String,
        /// Whether the remote accepts it as `Last-Event-ID`.
        resumable: bool,
        /// The delivery as the remote received it.
        delivery: NewDelivery,
    },
    /// The relay no longer has the deliveries after `after` up to `oldest`.
    Gap {
        /// The id asked to resume after.
        after: String,
        /// The oldest id the relay still has.
        oldest: String,
    },
    /// The relay said it is connected and ready (gosmee).
    Ready,
    /// An event that is not a delivery orgql can read (for example an encrypted gosmee channel).
    Unreadable(String),
}

impl Remote {
    /// A remote at `url`: a gosmee relay when its path has `/events/`, else an orgql listener.
    pub fn new(url: &str, token: Option<Secret>) -> Result<Self, PullError> {
        let parsed = reqwest::Url::parse(url.trim()).map_err(|_| PullError::BadUrl(printable(url).into_owned()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(PullError::BadUrl(printable(url).into_owned()));
        }
        let kind = if parsed.path().contains("/events/") { RemoteKind::Gosmee } else { RemoteKind::Orgql };
        let network = crate::net::Network::from_files()
            .map_err(|e| PullError::Unreachable { url: url.to_owned(), reason: e.to_string() })?;
        let client = crate::net::HttpClient::build(&network, parsed.as_str(), |b| b.connect_timeout(CONNECT_TIMEOUT))
            .map_err(|e| PullError::Unreachable { url: url.to_owned(), reason: e.to_string() })?;
        Ok(Remote { kind, url: parsed, token, client })
    }

    /// Its kind.
    pub fn kind(&self) -> RemoteKind {
        self.kind
    }

    /// The key its checkpoint and copies are kept under in the local store: its URL without a
    /// trailing `/`.
    pub fn source(&self) -> String {
        self.url.as_str().trim_end_matches('/').to_owned()
    }

    fn endpoint(&self, path: &str) -> String {
        format!("{}{path}", self.source())
    }

    fn get(&self, url: &str) -> reqwest::RequestBuilder {
        let request = self.client.reqwest().get(url);
        match &self.token {
            Some(token) => request.bearer_auth(token.expose()),
            None => request,
        }
    }

    fn unreachable(&self, err: impl std::fmt::Display) -> PullError {
        PullError::Unreachable { url: self.source(), reason: err.to_string() }
    }

    pub(super) fn bad_data(&self, reason: impl std::fmt::Display) -> PullError {
        PullError::BadData { url: self.source(), reason: reason.to_string() }
    }

    async fn checked(&self, response: reqwest::Response) -> Result<reqwest::Response, PullError> {
        match response.status() {
            status if status.is_success() && status != StatusCode::NO_CONTENT => Ok(response),
            StatusCode::NO_CONTENT => Err(PullError::NotSharing(self.source())),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(PullError::Unauthorized(self.source())),
            status => {
                let text = read_capped(response, 4096).await.unwrap_or_default();
                let text = String::from_utf8_lossy(&text);
                let text: String = text.chars().take(200).collect();
                Err(PullError::Status {
                    url: self.source(),
                    status: status.as_u16(),
                    text: printable(text.trim()).into_owned(),
                })
            }
        }
    }

    /// A page of up to `limit` deliveries after the remote id `after` (orgql listeners only).
    pub async fn page_after(&self, after: i64, limit: usize) -> Result<WirePage, PullError> {
        let url = self.endpoint(&format!("/_orgql/v1/deliveries?after={after}&limit={limit}"));
        let response = self.get(&url).send().await.map_err(|e| self.unreachable(e))?;
        let response = self.checked(response).await?;
        let bytes = read_capped(response, MAX_READ).await.map_err(|e| self.unreachable(e))?;
        serde_json::from_slice(&bytes).map_err(|e| self.bad_data(e))
    }

    /// Opens the event stream after the remote id `after` (none: from the start for an orgql
    /// listener, from now for gosmee).
    pub async fn open_stream(&self, after: Option<&str>) -> Result<RemoteStream, PullError> {
        let url = match self.kind {
            RemoteKind::Orgql => self.endpoint("/_orgql/v1/stream"),
            RemoteKind::Gosmee => self.url.to_string(),
        };
        let mut request = self.get(&url).header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(after) = after {
            request = request.header("Last-Event-ID", after);
        }
        let response = request.send().await.map_err(|e| self.unreachable(e))?;
        let response = self.checked(response).await?;
        let channel_path = self.url.path().replace("/events/", "/");
        Ok(RemoteStream {
            remote: self.clone(),
            response,
            parser: SseParser::new(MAX_READ),
            pending: VecDeque::new(),
            after: after.map(str::to_owned),
            channel_path,
        })
    }
}

/// An open event stream.
pub struct RemoteStream {
    remote: Remote,
    response: reqwest::Response,
    parser: SseParser,
    pending: VecDeque<SseEvent>,
    after: Option<String>,
    channel_path: String,
}

impl RemoteStream {
    /// The next event; `None` when the remote closed the stream.
    pub async fn next(&mut self) -> Option<Result<RemoteEvent, PullError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if let Some(event) = self.read(event) {
                    return Some(Ok(event));
                }
                continue;
            }
            match self.response.chunk().await {
                Ok(Some(chunk)) => {
                    let mut out = Vec::new();
                    if let Err(err) = self.parser.push(&chunk, &mut out) {
                        return Some(Err(self.remote.bad_data(err)));
                    }
                    self.pending.extend(out);
                }
                Ok(None) => return None,
                Err(err) => return Some(Err(self.remote.unreachable(err))),
            }
        }
    }

    fn read(&mut self, event: SseEvent) -> Option<RemoteEvent> {
        let read = match self.remote.kind {
            RemoteKind::Orgql => read_orgql(&event),
            RemoteKind::Gosmee => read_gosmee(&event, self.after.as_deref(), &self.channel_path),
        };
        if let Some(RemoteEvent::Delivery { remote_id, resumable: true, .. }) = &read {
            self.after = Some(remote_id.clone());
        }
        read
    }
}

fn read_orgql(event: &SseEvent) -> Option<RemoteEvent> {
    if event.event != "delivery" {
        return None;
    }
    let wire: WireDelivery = match serde_json::from_str(&event.data) {
        Ok(wire) => wire,
        Err(err) => return Some(RemoteEvent::Unreadable(format!("an event is not a delivery ({err})"))),
    };
    let remote_id = wire.id.to_string();
    match wire.into_delivery() {
        Ok(delivery) => Some(RemoteEvent::Delivery { remote_id, resumable: true, delivery }),
        Err(reason) => Some(RemoteEvent::Unreadable(format!("delivery {remote_id}: {reason}"))),
    }
}

fn read_gosmee(event: &SseEvent, after: Option<&str>, channel_path: &str) -> Option<RemoteEvent> {
    let value: serde_json::Value = match serde_json::from_str(&event.data) {
        Ok(value) => value,
        // gosmee's keep-alive and "ready" may come as bare words.
        Err(_) if matches!(event.data.trim(), "" | "ready" | "ping") => return None,
        Err(_) => {
            return Some(RemoteEvent::Unreadable(
                "an event is not JSON (an encrypted gosmee channel? orgql reads unencrypted ones)".into(),
            ));
        }
    };
    if event.event == "gosmee-gap" {
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let requested = text("requested_id");
        return Some(RemoteEvent::Gap {
            after: if requested.is_empty() { after.unwrap_or_default().to_owned() } else { requested },
            oldest: text("oldest_id"),
        });
    }
    let serde_json::Value::Object(object) = value else {
        return Some(RemoteEvent::Unreadable("an event is not a JSON object".into()));
    };
    if let Some(message) = object.get("message").and_then(|m| m.as_str())
        && object.len() == 1
    {
        return matches!(message, "connected" | "ready").then_some(RemoteEvent::Ready);
    }
    let body = match object.get("bodyB").and_then(|b| b.as_str()) {
        Some(encoded) => match B64.decode(encoded) {
            Ok(body) => body,
            Err(err) => return Some(RemoteEvent::Unreadable(format!("an event's bodyB is not base64 ({err})"))),
        },
        None => {
            return Some(RemoteEvent::Unreadable(
                "an event has no bodyB (a smee.io-style relay re-encodes bodies, so signatures cannot be verified through \
                 this relay)"
                    .into(),
            ));
        }
    };
    let received_at = object
        .get("timestamp")
        .and_then(|t| t.as_str().and_then(|t| t.parse::<i64>().ok()).or_else(|| t.as_i64()))
        .and_then(|ms| Utc.timestamp_millis_opt(ms).single())
        .unwrap_or_else(Utc::now);
    let headers: Vec<(String, Vec<u8>)> = object
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "bodyB" | "body" | "timestamp"))
        .filter_map(|(key, value)| value.as_str().map(|v| (key.clone(), v.as_bytes().to_vec())))
        .collect();
    let (remote_id, resumable) = match &event.id {
        Some(id) if !id.is_empty() => (id.clone(), true),
        _ => (format!("sha256:{:x}", Sha256::digest(event.data.as_bytes())), false),
    };
    Some(RemoteEvent::Delivery {
        remote_id,
        resumable,
        delivery: NewDelivery {
            received_at,
            method: "POST".into(),
            path: channel_path.to_owned(),
            query: String::new(),
            headers,
            size: body.len() as u64,
            sender: None,
            body,
            verified: None,
            reason: String::new(),
        },
    })
}

/// Reads at most `cap` bytes of a response's body.
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if bytes.len() + chunk.len() > cap {
            return Err(format!("the answer is larger than {cap} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: Option<&str>, name: &str, data: &str) -> SseEvent {
        SseEvent { id: id.map(str::to_owned), event: name.to_owned(), data: data.to_owned() }
    }

    #[test]
    fn reads_gosmee_events_byte_for_byte() {
        let body = [0xffu8, b'{', b'}', b'\n'];
        let data = format!(
            r#"{{"content-type":"application/json","x-hub-signature-256":"sha256=ab","timestamp":"1700000000123","bodyB":"{}"}}"#,
            B64.encode(body)
        );
        let Some(RemoteEvent::Delivery { remote_id, resumable, delivery }) =
            read_gosmee(&event(Some("1700000000123-0"), "message", &data), None, "/chan")
        else {
            panic!("a delivery")
        };
        assert_eq!((remote_id.as_str(), resumable), ("1700000000123-0", true));
        assert_eq!(delivery.body, body);
        assert_eq!(delivery.path, "/chan");
        assert_eq!(delivery.received_at.timestamp_millis(), 1_700_000_000_123);
        assert!(delivery.headers.contains(&("x-hub-signature-256".into(), b"sha256=ab".to_vec())));
        assert!(!delivery.headers.iter().any(|(n, _)| n == "bodyB" || n == "timestamp"));
    }

    #[test]
    fn reads_gosmee_gaps_and_greetings() {
        assert_eq!(
            read_gosmee(&event(None, "message", r#"{"message":"ready"}"#), None, "/c"),
            Some(RemoteEvent::Ready)
        );
        assert_eq!(
            read_gosmee(
                &event(None, "gosmee-gap", r#"{"error":"missed_history","requested_id":"1-0","oldest_id":"5-0"}"#),
                Some("1-0"),
                "/c"
            ),
            Some(RemoteEvent::Gap { after: "1-0".into(), oldest: "5-0".into() })
        );
        assert!(matches!(
            read_gosmee(&event(None, "message", r#"{"content-type":"x","body":{"a":1}}"#), None, "/c"),
            Some(RemoteEvent::Unreadable(_))
        ));
        let Some(RemoteEvent::Delivery { resumable: false, remote_id, .. }) =
            read_gosmee(&event(None, "message", r#"{"bodyB":"e30="}"#), None, "/c")
        else {
            panic!("a delivery without an id")
        };
        assert!(remote_id.starts_with("sha256:"));
    }

    #[test]
    fn a_url_names_its_kind() {
        assert_eq!(Remote::new("https://relay.example/events/abc", None).unwrap().kind(), RemoteKind::Gosmee);
        assert_eq!(Remote::new("http://127.0.0.1:9000/", None).unwrap().kind(), RemoteKind::Orgql);
        assert_eq!(Remote::new("http://127.0.0.1:9000/", None).unwrap().source(), "http://127.0.0.1:9000");
        assert!(matches!(Remote::new("ftp://x", None), Err(PullError::BadUrl(_))));
    }
}
