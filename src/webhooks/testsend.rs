//! Send a test delivery: a sample event signed with the configured scheme and secret, sent to
//! the public address, and what arrived compared byte for byte with what was sent, so that the
//! whole path (internet, tunnel or relay, listener, verification) is checked at once. A relay that
//! changed the body or the signature headers is named for what it is: signatures cannot be
//! verified through it, rather than every delivery showing a false ✘.

use std::time::Duration;

use chrono::Utc;
use hmac::Mac as _;

use super::scheme::{Encoding, Scheme};
use super::standard::Secret as StandardSecret;
use super::verify::{Verification, verify};
use crate::store::Delivery;

/// The header that carries the test delivery's nonce (to find it among the deliveries).
pub const TEST_HEADER: &str = "x-orgql-test";

/// A signed sample event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDelivery {
    /// Its nonce (also in [`TEST_HEADER`]).
    pub nonce: String,
    /// The headers to send, signature included.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// What the end-to-end comparison found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestOutcome {
    /// Arrived byte-identical and verified.
    Verified,
    /// Arrived byte-identical, but did not verify (the secret or scheme configured differs).
    NotVerified(String),
    /// The relay changed the body or a signature header on the way.
    Altered(String),
}

impl std::fmt::Display for TestOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestOutcome::Verified => f.write_str("the test delivery arrived byte for byte and verified"),
            TestOutcome::NotVerified(reason) => write!(
                f,
                "the test delivery arrived byte for byte but did not verify ({reason}); check the scheme and secret"
            ),
            TestOutcome::Altered(what) => write!(
                f,
                "the relay altered the test delivery ({what}): signatures cannot be verified through this relay"
            ),
        }
    }
}

/// A sample event signed for `scheme` with `secret`.
pub fn sign_sample(scheme: &Scheme, secret: &str) -> Result<TestDelivery, String> {
    let nonce = format!("{:016x}", rand::random::<u64>());
    let now = Utc::now();
    // Spaces and key order a re-encoding relay would change, and a character beyond ASCII.
    let body = format!(
        "{{\"type\": \"orgql.test\",  \"data\": {{\"nonce\": \"{nonce}\", \"sent_at\": \"{}\", \"note\": \"caf\u{e9} \\u00e9\"}}}}\n",
        now.to_rfc3339()
    )
    .into_bytes();
    let mut headers =
        vec![("content-type".to_owned(), "application/json".to_owned()), (TEST_HEADER.to_owned(), nonce.clone())];
    let ts = now.timestamp();
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let mac = |message: &[u8]| {
        let mut mac = super::hmac_sha256(secret.as_bytes());
        mac.update(message);
        mac.finalize().into_bytes().to_vec()
    };
    match scheme {
        Scheme::Standard => {
            let key = StandardSecret::parse(secret).map_err(|e| e.to_string())?;
            let id = format!("msg_orgql_test_{nonce}");
            headers.push(("webhook-signature".into(), key.sign(&id, ts, &body)));
            headers.push(("webhook-id".into(), id));
            headers.push(("webhook-timestamp".into(), ts.to_string()));
        }
        Scheme::GitHub => {
            headers.push(("x-hub-signature-256".into(), format!("sha256={}", hex(&mac(&body)))));
            headers.push(("x-github-event".into(), "ping".into()));
        }
        Scheme::Stripe => {
            let mut signed = format!("{ts}.").into_bytes();
            signed.extend_from_slice(&body);
            headers.push(("stripe-signature".into(), format!("t={ts},v1={}", hex(&mac(&signed)))));
        }
        Scheme::Hmac { header, encoding } => {
            use base64::Engine as _;
            let signature = match encoding {
                Encoding::Hex => hex(&mac(&body)),
                Encoding::Base64 => base64::engine::general_purpose::STANDARD.encode(mac(&body)),
            };
            headers.push((header.to_ascii_lowercase(), signature));
        }
    }
    Ok(TestDelivery { nonce, headers, body })
}

/// Sends `test` to `url` (its path kept: the admin interface's URL); the status it got.
pub async fn send(url: &str, test: &TestDelivery) -> Result<u16, String> {
    let client = crate::net::HttpClient::for_url(url, |b| b.timeout(Duration::from_secs(30)))
        .await
        .map_err(|e| format!("cannot send the test delivery ({e})"))?;
    let mut request = client.reqwest().post(url).body(test.body.clone());
    for (name, value) in &test.headers {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => match client.obstacle(&e).await {
            Some(obstacle) => return Err(format!("the test delivery did not reach {url}: {obstacle}")),
            None => return Err(format!("the test delivery did not reach {url} ({e}); check the tunnel")),
        },
    };
    Ok(response.status().as_u16())
}

/// How long a sent test delivery may take to reach the listener (30 s).
pub const ARRIVAL_TIMEOUT: Duration = Duration::from_secs(30);

/// Signs a sample for `scheme` with `secret`, sends it to the public `url`, waits for the
/// listener (its deliveries on `arrivals`) to store it, and compares; the sentence of an error
/// says what to check.
pub async fn run(
    url: &str,
    scheme: &Scheme,
    secret: &str,
    arrivals: &tokio::sync::broadcast::Sender<Delivery>,
) -> Result<TestOutcome, String> {
    use tokio::sync::broadcast::error::RecvError;
    let test = sign_sample(scheme, secret)?;
    let mut arrivals = arrivals.subscribe();
    let status = send(url, &test).await?;
    let arrived = tokio::time::timeout(ARRIVAL_TIMEOUT, async {
        loop {
            match arrivals.recv().await {
                Ok(delivery) if is_arrival_of(&delivery, &test) => return Some(delivery),
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return None,
            }
        }
    })
    .await;
    match arrived {
        Ok(Some(delivery)) => Ok(compare(&test, &delivery, scheme, secret)),
        _ => Err(format!(
            "the test delivery was sent (answered {status}) but did not reach this listener within {} s; check that \
             the tunnel forwards to this listener's port",
            ARRIVAL_TIMEOUT.as_secs()
        )),
    }
}

/// Whether `delivery` is the arrival of `test`.
pub fn is_arrival_of(delivery: &Delivery, test: &TestDelivery) -> bool {
    delivery.delivery.headers.iter().any(|(n, v)| n.eq_ignore_ascii_case(TEST_HEADER) && v == test.nonce.as_bytes())
}

/// Compares what arrived with what was sent, and verifies it with `scheme` and `secret`.
pub fn compare(test: &TestDelivery, arrived: &Delivery, scheme: &Scheme, secret: &str) -> TestOutcome {
    let d = &arrived.delivery;
    if d.body != test.body {
        return TestOutcome::Altered(format!(
            "{} bytes sent, {} bytes arrived, not the same",
            test.body.len(),
            d.body.len()
        ));
    }
    for (name, value) in &test.headers {
        let got = d.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_slice());
        if name != "content-type" && got != Some(value.as_bytes()) {
            return TestOutcome::Altered(format!("the {name} header changed"));
        }
    }
    match verify(scheme, secret, &d.headers, &d.body, d.received_at.timestamp()) {
        Verification::Verified => TestOutcome::Verified,
        Verification::Failed(reason) => TestOutcome::NotVerified(reason.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewDelivery;

    fn arrival(test: &TestDelivery, body: Vec<u8>) -> Delivery {
        Delivery {
            id: 1,
            delivery: NewDelivery {
                received_at: Utc::now(),
                method: "POST".into(),
                path: "/".into(),
                query: String::new(),
                headers: test.headers.iter().map(|(n, v)| (n.clone(), v.as_bytes().to_vec())).collect(),
                size: body.len() as u64,
                sender: None,
                body,
                verified: None,
                reason: String::new(),
            },
        }
    }

    #[test]
    fn each_scheme_signs_a_sample_that_verifies_and_a_re_encoded_one_is_flagged() {
        for (scheme, secret) in [
            (Scheme::Standard, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
            (Scheme::GitHub, "gh-secret"),
            (Scheme::Stripe, "whsec_stripe"),
            ("hmac-sha256-base64:X-Shopify-Hmac-SHA256".parse().unwrap(), "shop"),
            ("hmac-sha256-hex:X-Sig".parse().unwrap(), "hex"),
        ] {
            let test = sign_sample(&scheme, secret).unwrap();
            let same = arrival(&test, test.body.clone());
            assert!(is_arrival_of(&same, &test));
            assert_eq!(compare(&test, &same, &scheme, secret), TestOutcome::Verified, "{scheme}");
            let value: serde_json::Value = serde_json::from_slice(&test.body).unwrap();
            let reencoded = arrival(&test, serde_json::to_vec(&value).unwrap());
            let outcome = compare(&test, &reencoded, &scheme, secret);
            assert!(matches!(outcome, TestOutcome::Altered(_)), "{scheme}: {outcome}");
            assert!(outcome.to_string().contains("signatures cannot be verified through this relay"));
        }
    }
}
