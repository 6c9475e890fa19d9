//! Standard Webhooks signatures (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
//! `webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`, where the key is
//! the base64-decoded part of the secret after `whsec_`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header that carries the message id.
pub const HEADER_ID: &str = "webhook-id";
/// The header that carries the Unix timestamp in seconds.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// The header that carries the signatures.
pub const HEADER_SIGNATURE: &str = "webhook-signature";

const PREFIX: &str = "whsec_";

/// A Standard Webhooks signing secret. Its `Debug` form never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    key: Vec<u8>,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Why a secret could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The text after `whsec_` is not base64.
    #[error("the webhook secret is not valid base64 after 'whsec_'; copy it again from its source")]
    NotBase64,
    /// The key is empty.
    #[error("the webhook secret is empty; give a secret of the form whsec_<base64>")]
    Empty,
}

impl Secret {
    /// Reads `whsec_<base64>` (the prefix is optional, as in the reference libraries).
    pub fn parse(text: &str) -> Result<Self, SecretError> {
        let encoded = text.trim().strip_prefix(PREFIX).unwrap_or(text.trim());
        let key = B64.decode(encoded).map_err(|_| SecretError::NotBase64)?;
        if key.is_empty() {
            return Err(SecretError::Empty);
        }
        Ok(Secret { key })
    }

    /// A secret from raw key bytes.
    pub fn from_key(key: Vec<u8>) -> Self {
        Secret { key }
    }

    /// The `whsec_<base64>` text form.
    pub fn to_text(&self) -> String {
        format!("{PREFIX}{}", B64.encode(&self.key))
    }

    /// The value of the `webhook-signature` header for one message.
    pub fn sign(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
        format!("v1,{}", B64.encode(self.mac(msg_id, timestamp, body)))
    }

    /// An HMAC-SHA256 keyed with this secret, before any content (for verifying deliveries).
    pub(super) fn keyed_mac(&self) -> Hmac<Sha256> {
        super::hmac_sha256(&self.key)
    }

    fn mac(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
        let mut mac = self.keyed_mac();
        mac.update(msg_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.finalize().into_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vector() {
        // The example of the Standard Webhooks specification.
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn round_trips_its_text_form_and_hides_the_key() {
        let secret = Secret::from_key(vec![1, 2, 3]);
        assert_eq!(Secret::parse(&secret.to_text()).unwrap(), secret);
        assert_eq!(format!("{secret:?}"), "Secret(…)");
        assert_eq!(Secret::parse("whsec_%%%"), Err(SecretError::NotBase64));
    }
}
