//! The one reader of every HTTP answer orgql takes from a service (GraphQL, introspection, the
//! token endpoint): it streams the body and stops as soon as it is over a cap, so a hostile or
//! broken service cannot make orgql hold more than the cap (a `Content-Length` over the cap is
//! refused before any byte is read).
//!
//! The cap of GraphQL answers is [`DEFAULT_MAX_RESPONSE`] unless `ORGQL_MAX_RESPONSE_MIB` says
//! otherwise (docs/limits.md says why); the token endpoint's is [`MAX_TOKEN_RESPONSE`].

use std::time::Duration;

/// The default largest GraphQL answer (32 MiB): a page of 100 rows or the introspection of a
/// schema of thousands of types is a few MiB; read into JSON, 32 MiB takes about 120 MB.
pub const DEFAULT_MAX_RESPONSE: usize = 32 * 1024 * 1024;

/// The environment variable that sets the largest GraphQL answer, in MiB.
pub const MAX_RESPONSE_ENV: &str = "ORGQL_MAX_RESPONSE_MIB";

/// The largest answer of the token endpoint (64 KiB): a token answer is a few hundred bytes, a
/// JWT with many claims a few KiB.
pub const MAX_TOKEN_RESPONSE: usize = 64 * 1024;

/// The longest access token orgql sends (16 KiB): it travels as an HTTP header, and servers
/// commonly refuse headers past 8 to 16 KiB.
pub const MAX_ACCESS_TOKEN: usize = 16 * 1024;

/// The largest GraphQL answer: `ORGQL_MAX_RESPONSE_MIB` when it holds a whole number of MiB
/// (at least 1), else [`DEFAULT_MAX_RESPONSE`].
pub fn max_response_from_env() -> usize {
    std::env::var(MAX_RESPONSE_ENV)
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|mib| *mib >= 1)
        .map_or(DEFAULT_MAX_RESPONSE, |mib| mib.saturating_mul(1024 * 1024))
}

/// Why a body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Over the cap (the announced length, when the service announced it).
    TooLarge { limit: usize, announced: Option<u64> },
    /// The connection failed or timed out.
    Http(reqwest::Error),
}

/// The body of `response`, at most `limit` bytes.
pub(crate) async fn read_capped(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, BodyError> {
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit as u64) {
        return Err(BodyError::TooLarge { limit, announced });
    }
    let mut body = Vec::with_capacity(announced.map_or(8 * 1024, |n| n as usize).min(limit));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge { limit, announced: None });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `bytes` in words: "32 MiB", "64 KiB", "512 bytes".
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// How long a wait was, in words for a sentence: "193 s", "1.5 s".
pub(crate) fn seconds_text(elapsed: Duration) -> String {
    if elapsed >= Duration::from_secs(10) {
        format!("{} s", elapsed.as_secs())
    } else {
        format!("{:.1} s", elapsed.as_secs_f64())
    }
}
