//! Checking the signature of a received webhook delivery against a [`Scheme`] and a secret.
//!
//! Always the exact body bytes as received are checked (never re-serialized JSON), signatures are
//! compared in constant time (`hmac`'s `verify_slice`), and the secret never appears in an error.

use std::fmt;

use base64::Engine as _;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::scheme::{Encoding, Scheme};
use super::standard::{self, Secret};

/// How far (seconds) a signed timestamp may lie from the receiver's clock, either way, against replays.
pub const TOLERANCE_SECS: i64 = 5 * 60;

const GITHUB_HEADER: &str = "X-Hub-Signature-256";
const STRIPE_HEADER: &str = "Stripe-Signature";

/// Standard base64 that accepts the signature with or without its `=` padding.
const B64_LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The outcome of checking one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// The signature matches the body and the secret (and the timestamp is recent, where signed).
    Verified,
    /// It does not, for this reason.
    Failed(Reason),
}

impl Verification {
    /// Whether the delivery is authentic.
    pub fn is_verified(&self) -> bool {
        matches!(self, Verification::Verified)
    }

    /// Why it failed, if it did.
    pub fn reason(&self) -> Option<&Reason> {
        match self {
            Verification::Verified => None,
            Verification::Failed(reason) => Some(reason),
        }
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verification::Verified => f.write_str("verified"),
            Verification::Failed(reason) => write!(f, "not verified: {reason}"),
        }
    }
}

/// Why a delivery did not verify. None of these carries the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    /// A header the scheme needs is absent (the name as the scheme spells it).
    #[error("the delivery has no {0} header")]
    MissingHeader(String),
    /// A header is present but not in the scheme's format (the text says which and how).
    #[error("{0}")]
    BadEncoding(String),
    /// The signature is well-formed but does not match.
    #[error("the signature does not match the body and the secret (a different secret, or the body was changed)")]
    WrongSignature,
    /// The signature matches but its timestamp is older than the tolerance (a possible replay).
    #[error(
        "the signature is valid but was made {age_secs} seconds ago, more than the {TOLERANCE_SECS} allowed \
         against replays"
    )]
    TooOld {
        /// How long ago the delivery was signed.
        age_secs: i64,
    },
    /// The signature matches but its timestamp lies further in the future than the tolerance.
    #[error(
        "the signature is valid but its timestamp is {ahead_secs} seconds in the future, more than the \
         {TOLERANCE_SECS} allowed; check the sender's and this computer's clocks"
    )]
    TooNew {
        /// How far ahead of the receiver's clock the timestamp is.
        ahead_secs: i64,
    },
    /// The configured secret cannot be used with this scheme (the text never includes it).
    #[error("{0}")]
    BadSecret(String),
}

/// Checks one delivery: `headers` are the raw name/value pairs as received (names matched
/// case-insensitively), `body` the exact bytes received, `now` the receiver's clock in Unix seconds.
pub fn verify(scheme: &Scheme, secret: &str, headers: &[(String, Vec<u8>)], body: &[u8], now: i64) -> Verification {
    let result = match scheme {
        Scheme::Standard => verify_standard(secret, headers, body, now),
        Scheme::GitHub => verify_github(secret, headers, body),
        Scheme::Stripe => verify_stripe(secret, headers, body, now),
        Scheme::Hmac { header, encoding } => verify_hmac(secret, header, *encoding, headers, body),
    };
    match result {
        Ok(()) => Verification::Verified,
        Err(reason) => Verification::Failed(reason),
    }
}

fn verify_standard(secret: &str, headers: &[(String, Vec<u8>)], body: &[u8], now: i64) -> Result<(), Reason> {
    let secret = Secret::parse(secret).map_err(|e| Reason::BadSecret(e.to_string()))?;
    let id = first_text(headers, standard::HEADER_ID)?;
    let timestamp_text = first_text(headers, standard::HEADER_TIMESTAMP)?;
    let timestamp = parse_timestamp(timestamp_text).ok_or_else(|| {
        Reason::BadEncoding(format!("the {} header is not a Unix timestamp in seconds", standard::HEADER_TIMESTAMP))
    })?;
    let signatures = all_texts(headers, standard::HEADER_SIGNATURE)?;

    let mut mac = secret.keyed_mac();
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp_text.as_bytes());
    mac.update(b".");
    mac.update(body);
    // Space-separated `version,signature` pairs; other versions (such as `v1a`) are not ours to check.
    let candidates = signatures
        .iter()
        .flat_map(|value| value.split_ascii_whitespace())
        .filter_map(|entry| entry.split_once(','))
        .filter(|(version, _)| *version == "v1")
        .map(|(_, signature)| B64_LENIENT.decode(signature).ok());
    let format = format!("the {} header holds no signature of the form v1,<base64>", standard::HEADER_SIGNATURE);
    match_any(&mac, candidates, &format)?;
    check_age(timestamp, now)
}

fn verify_github(secret: &str, headers: &[(String, Vec<u8>)], body: &[u8]) -> Result<(), Reason> {
    let mac = plain_mac(secret)?;
    let values = all_texts(headers, GITHUB_HEADER)?;
    let candidates = values.iter().map(|value| value.strip_prefix("sha256=").and_then(decode_hex));
    let format = format!("the {GITHUB_HEADER} header is not of the form sha256=<hex>");
    match_any(&mac.chain_update(body), candidates, &format)
}

fn verify_stripe(secret: &str, headers: &[(String, Vec<u8>)], body: &[u8], now: i64) -> Result<(), Reason> {
    // Stripe keys the HMAC with the whole `whsec_…` text, not its decoded bytes.
    let mac = plain_mac(secret)?;
    let value = first_text(headers, STRIPE_HEADER)?;
    let items: Vec<(&str, &str)> =
        value.split(',').filter_map(|item| item.split_once('=')).map(|(k, v)| (k.trim(), v.trim())).collect();
    let timestamp_text = items
        .iter()
        .find(|(key, _)| *key == "t")
        .map(|(_, v)| *v)
        .ok_or_else(|| Reason::BadEncoding(format!("the {STRIPE_HEADER} header has no t=<timestamp> part")))?;
    let timestamp = parse_timestamp(timestamp_text).ok_or_else(|| {
        Reason::BadEncoding(format!("the t= part of the {STRIPE_HEADER} header is not a Unix timestamp in seconds"))
    })?;
    let mac = mac.chain_update(timestamp_text.as_bytes()).chain_update(b".").chain_update(body);
    let candidates = items.iter().filter(|(key, _)| *key == "v1").map(|(_, signature)| decode_hex(signature));
    let format = format!("the {STRIPE_HEADER} header holds no signature of the form v1=<hex>");
    match_any(&mac, candidates, &format)?;
    check_age(timestamp, now)
}

fn verify_hmac(
    secret: &str,
    header: &str,
    encoding: Encoding,
    headers: &[(String, Vec<u8>)],
    body: &[u8],
) -> Result<(), Reason> {
    let mac = plain_mac(secret)?;
    let values = all_texts(headers, header)?;
    let (candidates, format): (Vec<_>, _) = match encoding {
        Encoding::Hex => (
            values.iter().map(|value| decode_hex(value.strip_prefix("sha256=").unwrap_or(value))).collect(),
            format!("the {header} header is not a hexadecimal HMAC-SHA256 signature"),
        ),
        Encoding::Base64 => (
            values.iter().map(|value| B64_LENIENT.decode(value).ok()).collect(),
            format!("the {header} header is not a base64 HMAC-SHA256 signature"),
        ),
    };
    match_any(&mac.chain_update(body), candidates, &format)
}

/// An HMAC-SHA256 keyed with the secret's own bytes (GitHub, Stripe, generic).
fn plain_mac(secret: &str) -> Result<Hmac<Sha256>, Reason> {
    if secret.is_empty() {
        return Err(Reason::BadSecret("the webhook secret is empty; give the secret the sender signs with".into()));
    }
    Ok(super::hmac_sha256(secret.as_bytes()))
}

/// Succeeds when any candidate equals the MAC (each compared in constant time). `None` marks a
/// candidate that could not be decoded; if there is no decodable candidate at all, the header is
/// reported as badly encoded with `format`.
fn match_any(
    mac: &Hmac<Sha256>,
    candidates: impl IntoIterator<Item = Option<Vec<u8>>>,
    format: &str,
) -> Result<(), Reason> {
    let mut any_decoded = false;
    for candidate in candidates.into_iter().flatten() {
        any_decoded = true;
        if mac.clone().verify_slice(&candidate).is_ok() {
            return Ok(());
        }
    }
    Err(if any_decoded { Reason::WrongSignature } else { Reason::BadEncoding(format.to_string()) })
}

fn check_age(timestamp: i64, now: i64) -> Result<(), Reason> {
    let age_secs = now.saturating_sub(timestamp);
    if age_secs > TOLERANCE_SECS {
        Err(Reason::TooOld { age_secs })
    } else if age_secs < -TOLERANCE_SECS {
        Err(Reason::TooNew { ahead_secs: timestamp.saturating_sub(now) })
    } else {
        Ok(())
    }
}

/// Digits only (no sign, no spaces), as the senders write it.
fn parse_timestamp(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    fn nibble(b: u8) -> Option<u8> {
        (b as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = text.as_bytes();
    if bytes.is_empty() || !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes.chunks_exact(2).map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?)).collect()
}

/// Every value of the header `name`, as text with surrounding whitespace removed.
fn all_texts<'a>(headers: &'a [(String, Vec<u8>)], name: &str) -> Result<Vec<&'a str>, Reason> {
    let values: Vec<&str> = headers
        .iter()
        .filter(|(key, _)| key.trim().eq_ignore_ascii_case(name))
        .map(|(_, value)| {
            std::str::from_utf8(value)
                .map(str::trim)
                .map_err(|_| Reason::BadEncoding(format!("the {name} header is not text")))
        })
        .collect::<Result<_, _>>()?;
    if values.is_empty() {
        return Err(Reason::MissingHeader(name.to_string()));
    }
    Ok(values)
}

/// The first value of the header `name` (as an HTTP server's `get` returns it).
fn first_text<'a>(headers: &'a [(String, Vec<u8>)], name: &str) -> Result<&'a str, Reason> {
    let (_, value) = headers
        .iter()
        .find(|(key, _)| key.trim().eq_ignore_ascii_case(name))
        .ok_or_else(|| Reason::MissingHeader(name.to_string()))?;
    std::str::from_utf8(value).map(str::trim).map_err(|_| Reason::BadEncoding(format!("the {name} header is not text")))
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
