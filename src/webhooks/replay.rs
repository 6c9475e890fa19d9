//! Replaying a stored delivery to a receiver of the user's: the same method, headers and bytes.

use std::time::{Duration, Instant};

use crate::store::NewDelivery;

/// How long a replay waits for the receiver.
pub const REPLAY_TIMEOUT: Duration = Duration::from_secs(15);

/// What the receiver answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The URL it went to.
    pub url: String,
    /// The HTTP status.
    pub status: u16,
    /// How long the answer took.
    pub elapsed: Duration,
    /// The start of the answer's body (for a receiver's error message).
    pub body: String,
}

/// Sends `delivery` to `url` again. Headers that describe the first connection (host, length)
/// are set anew; the signature headers go as received, so a receiver that checks timestamps
/// refuses a replay older than its tolerance — which is what it should do.
pub async fn replay(client: &reqwest::Client, delivery: &NewDelivery, url: &str) -> Result<Replayed, String> {
    let parsed = reqwest::Url::parse(url.trim())
        .map_err(|e| format!("'{url}' is not a URL ({e}); write one such as http://127.0.0.1:8080/hooks"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("'{url}' is not an http or https URL; write one such as http://127.0.0.1:8080/hooks"));
    }
    let method = reqwest::Method::from_bytes(delivery.method.as_bytes()).unwrap_or(reqwest::Method::POST);
    let mut request = client.request(method, parsed.clone()).timeout(REPLAY_TIMEOUT).body(delivery.body.clone());
    for (name, value) in &delivery.headers {
        if super::is_connection_header(name) {
            continue;
        }
        if let (Ok(name), Ok(value)) =
            (reqwest::header::HeaderName::from_bytes(name.as_bytes()), reqwest::header::HeaderValue::from_bytes(value))
        {
            request = request.header(name, value);
        }
    }
    let started = Instant::now();
    let response = request.send().await.map_err(|e| describe(url, &e))?;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.map_err(|e| describe(url, &e))?;
    let elapsed = started.elapsed();
    let body: String = String::from_utf8_lossy(&bytes).chars().take(500).collect();
    Ok(Replayed { url: parsed.to_string(), status, elapsed, body })
}

fn describe(url: &str, error: &reqwest::Error) -> String {
    if error.is_timeout() {
        format!("{url} did not answer within {} s; check that the receiver is running", REPLAY_TIMEOUT.as_secs())
    } else if error.is_connect() {
        format!("nothing answers at {url}; start the receiver or check the address")
    } else {
        format!("the replay to {url} failed ({error}); check the receiver")
    }
}
