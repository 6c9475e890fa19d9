use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::*;
use crate::webhooks::scheme::{Encoding, Scheme};
use crate::webhooks::standard::Secret;

// The example of the Standard Webhooks specification.
const STD_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const STD_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const STD_TS: i64 = 1614265330;
const STD_BODY: &[u8] = br#"{"test": 2432232314}"#;
const STD_SIG: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

// The example of GitHub's "Validating webhook deliveries".
const GH_SECRET: &str = "It's a Secret to Everybody";
const GH_BODY: &[u8] = b"Hello, World!";
const GH_SIG: &str = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    pairs.iter().map(|(name, value)| (name.to_string(), value.as_bytes().to_vec())).collect()
}

fn std_headers(signature: &str) -> Vec<(String, Vec<u8>)> {
    headers(&[
        ("webhook-id", STD_ID),
        ("webhook-timestamp", &STD_TS.to_string()),
        ("webhook-signature", signature),
        ("content-type", "application/json"),
    ])
}

fn failed(reason: Reason) -> Verification {
    Verification::Failed(reason)
}

fn hmac_bytes(key: &[u8], content: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256>>::new_from_slice(key).unwrap();
    mac.update(content);
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---- Standard Webhooks ----

#[test]
fn standard_verifies_the_published_test_vector() {
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(STD_SIG), STD_BODY, STD_TS);
    assert_eq!(result, Verification::Verified);
    assert!(result.is_verified());
    assert_eq!(result.to_string(), "verified");
}

#[test]
fn standard_rejects_a_tampered_body_and_a_wrong_secret() {
    // The same JSON value, re-serialized: the exact bytes count.
    let reserialized = br#"{"test":2432232314}"#;
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(STD_SIG), reserialized, STD_TS);
    assert_eq!(result, failed(Reason::WrongSignature));
    let other = Secret::from_key(b"another key".to_vec()).to_text();
    let result = verify(&Scheme::Standard, &other, &std_headers(STD_SIG), STD_BODY, STD_TS);
    assert_eq!(result, failed(Reason::WrongSignature));
    // A different id or timestamp is part of the signed content too.
    let mut moved = std_headers(STD_SIG);
    moved[1].1 = (STD_TS + 1).to_string().into_bytes();
    assert_eq!(verify(&Scheme::Standard, STD_SECRET, &moved, STD_BODY, STD_TS), failed(Reason::WrongSignature));
}

#[test]
fn standard_reports_missing_headers() {
    for missing in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        let mut list = std_headers(STD_SIG);
        list.retain(|(name, _)| name != missing);
        let result = verify(&Scheme::Standard, STD_SECRET, &list, STD_BODY, STD_TS);
        assert_eq!(result, failed(Reason::MissingHeader(missing.into())));
        assert_eq!(result.reason().unwrap().to_string(), format!("the delivery has no {missing} header"));
    }
}

#[test]
fn standard_reports_bad_encodings() {
    for signature in ["v1,not*base64!", "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", "", "garbage"] {
        let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(signature), STD_BODY, STD_TS);
        let Verification::Failed(Reason::BadEncoding(text)) = result else { panic!("{signature:?}: {result:?}") };
        assert!(text.contains("v1,<base64>"), "{text}");
    }
    // Well-formed base64 of the wrong length is a wrong signature, not a bad encoding.
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers("v1,AAAA"), STD_BODY, STD_TS);
    assert_eq!(result, failed(Reason::WrongSignature));
    for timestamp in ["yesterday", "-1614265330", "+1614265330", "", "99999999999999999999"] {
        let mut list = std_headers(STD_SIG);
        list[1].1 = timestamp.as_bytes().to_vec();
        let result = verify(&Scheme::Standard, STD_SECRET, &list, STD_BODY, STD_TS);
        let expected = "the webhook-timestamp header is not a Unix timestamp in seconds";
        assert_eq!(result, failed(Reason::BadEncoding(expected.into())), "{timestamp:?}");
    }
    let mut list = std_headers(STD_SIG);
    list[0].1 = vec![0xff, 0xfe];
    let result = verify(&Scheme::Standard, STD_SECRET, &list, STD_BODY, STD_TS);
    assert_eq!(result, failed(Reason::BadEncoding("the webhook-id header is not text".into())));
}

#[test]
fn standard_enforces_the_timestamp_tolerance_both_ways() {
    let check = |now| verify(&Scheme::Standard, STD_SECRET, &std_headers(STD_SIG), STD_BODY, now);
    assert_eq!(check(STD_TS + 300), Verification::Verified);
    assert_eq!(check(STD_TS - 300), Verification::Verified);
    assert_eq!(check(STD_TS + 301), failed(Reason::TooOld { age_secs: 301 }));
    assert_eq!(check(STD_TS - 301), failed(Reason::TooNew { ahead_secs: 301 }));
    assert_eq!(check(STD_TS + 86_400), failed(Reason::TooOld { age_secs: 86_400 }));
    assert!(check(STD_TS + 301).to_string().contains("301 seconds ago"));
    // A forged signature is reported as such even when it is also stale.
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(STD_SIG), b"{}", STD_TS + 3600);
    assert_eq!(result, failed(Reason::WrongSignature));
}

#[test]
fn standard_accepts_any_of_several_signatures() {
    let wrong = "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    for header in [
        format!("{wrong} {STD_SIG}"),
        format!("v1a,c29tZSBlZDI1NTE5 {wrong}  {STD_SIG}"),
        format!("v1,not*base64! {STD_SIG}"),
    ] {
        let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(&header), STD_BODY, STD_TS);
        assert_eq!(result, Verification::Verified, "{header}");
    }
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(wrong), STD_BODY, STD_TS);
    assert_eq!(result, failed(Reason::WrongSignature));
    // Padding is optional.
    let unpadded = STD_SIG.trim_end_matches('=');
    let result = verify(&Scheme::Standard, STD_SECRET, &std_headers(unpadded), STD_BODY, STD_TS);
    assert_eq!(result, Verification::Verified);
}

#[test]
fn standard_matches_header_names_in_any_case() {
    let list =
        headers(&[("Webhook-Id", STD_ID), ("WEBHOOK-TIMESTAMP", " 1614265330 "), ("Webhook-Signature", STD_SIG)]);
    assert_eq!(verify(&Scheme::Standard, STD_SECRET, &list, STD_BODY, STD_TS), Verification::Verified);
}

#[test]
fn standard_rejects_an_unusable_secret_without_showing_it() {
    for secret in ["whsec_%%%not-base64%%%", "", "whsec_"] {
        let result = verify(&Scheme::Standard, secret, &std_headers(STD_SIG), STD_BODY, STD_TS);
        let Verification::Failed(Reason::BadSecret(text)) = &result else { panic!("{result:?}") };
        assert!(text.starts_with("the webhook secret is"), "{text}");
        assert!(!format!("{result:?} {result}").contains("not-base64"));
    }
}

#[test]
fn standard_verifies_what_our_signer_makes() {
    let secret = Secret::from_key((0u8..32).collect());
    let body = b"\x00binary \xff body, not UTF-8";
    for ts in [0, 1, 1_700_000_000] {
        let list = headers(&[
            ("webhook-id", "msg_1"),
            ("webhook-timestamp", &ts.to_string()),
            ("webhook-signature", &secret.sign("msg_1", ts, body)),
        ]);
        assert_eq!(verify(&Scheme::Standard, &secret.to_text(), &list, body, ts + 5), Verification::Verified);
    }
}

#[test]
fn standard_agrees_with_the_reference_library() {
    let reference = standardwebhooks::Webhook::new(STD_SECRET).unwrap();
    let body = br#"{"type": "user.created", "data": {"id": "u_1", "name": "Zo\u00eb"}}"#;
    let now = chrono::Utc::now().timestamp();
    let signature = reference.sign("msg_2", now, body).unwrap();
    let list =
        headers(&[("webhook-id", "msg_2"), ("webhook-timestamp", &now.to_string()), ("webhook-signature", &signature)]);
    assert_eq!(verify(&Scheme::Standard, STD_SECRET, &list, body, now), Verification::Verified);
    assert_eq!(reference.sign(STD_ID, STD_TS, STD_BODY).unwrap(), STD_SIG);

    // And the other way: the reference library accepts what `standard::Secret` signs.
    let ours = Secret::parse(STD_SECRET).unwrap();
    let mut map = axum::http::HeaderMap::new();
    map.insert("webhook-id", "msg_3".parse().unwrap());
    map.insert("webhook-timestamp", now.to_string().parse().unwrap());
    map.insert("webhook-signature", ours.sign("msg_3", now, body).parse().unwrap());
    reference.verify(body, &map).unwrap();
}

// ---- GitHub ----

#[test]
fn github_verifies_the_documented_example() {
    let list = headers(&[("X-Hub-Signature-256", GH_SIG)]);
    assert_eq!(verify(&Scheme::GitHub, GH_SECRET, &list, GH_BODY, 0), Verification::Verified);
    let lower = headers(&[("x-hub-signature-256", &GH_SIG.to_uppercase().replacen("SHA256", "sha256", 1))]);
    assert_eq!(verify(&Scheme::GitHub, GH_SECRET, &lower, GH_BODY, 0), Verification::Verified);
}

#[test]
fn github_rejects_tampering_wrong_secrets_and_bad_headers() {
    let list = headers(&[("X-Hub-Signature-256", GH_SIG)]);
    assert_eq!(verify(&Scheme::GitHub, GH_SECRET, &list, b"Hello, World?", 0), failed(Reason::WrongSignature));
    assert_eq!(verify(&Scheme::GitHub, "It's a secret", &list, GH_BODY, 0), failed(Reason::WrongSignature));
    let only_sha1 = headers(&[("X-Hub-Signature", "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59")]);
    assert_eq!(
        verify(&Scheme::GitHub, GH_SECRET, &only_sha1, GH_BODY, 0),
        failed(Reason::MissingHeader("X-Hub-Signature-256".into()))
    );
    let expected = "the X-Hub-Signature-256 header is not of the form sha256=<hex>";
    for value in [&GH_SIG[7..], "sha1=757107ea", "sha256=75710", "sha256=zz"] {
        let list = headers(&[("X-Hub-Signature-256", value)]);
        let result = verify(&Scheme::GitHub, GH_SECRET, &list, GH_BODY, 0);
        assert_eq!(result, failed(Reason::BadEncoding(expected.into())), "{value}");
    }
    assert!(matches!(verify(&Scheme::GitHub, "", &list, GH_BODY, 0), Verification::Failed(Reason::BadSecret(_))));
}

#[test]
fn github_checks_the_exact_bytes_and_ignores_timestamps() {
    let body = b"\xff\x00{\"a\": 1}";
    let signature = format!("sha256={}", hex(&hmac_bytes(GH_SECRET.as_bytes(), body)));
    let list = headers(&[("X-Hub-Signature-256", &signature)]);
    assert_eq!(verify(&Scheme::GitHub, GH_SECRET, &list, body, i64::MAX), Verification::Verified);
    assert_eq!(verify(&Scheme::GitHub, GH_SECRET, &list, &body[1..], 0), failed(Reason::WrongSignature));
}

// ---- Stripe ----

const STRIPE_SECRET: &str = "whsec_test_secret";
const STRIPE_TS: i64 = 1_492_774_577;
const STRIPE_BODY: &[u8] = br#"{"id": "evt_test_webhook", "object": "event"}"#;

fn stripe_sig(key: &[u8], ts: i64, body: &[u8]) -> String {
    let mut content = format!("{ts}.").into_bytes();
    content.extend_from_slice(body);
    hex(&hmac_bytes(key, &content))
}

fn stripe_check(header: &str, body: &[u8], now: i64) -> Verification {
    verify(&Scheme::Stripe, STRIPE_SECRET, &headers(&[("Stripe-Signature", header)]), body, now)
}

#[test]
fn stripe_verifies_a_signature_keyed_with_the_whole_secret_text() {
    let good = stripe_sig(STRIPE_SECRET.as_bytes(), STRIPE_TS, STRIPE_BODY);
    assert_eq!(stripe_check(&format!("t={STRIPE_TS},v1={good}"), STRIPE_BODY, STRIPE_TS), Verification::Verified);
    let list = headers(&[("stripe-signature", &format!("t={STRIPE_TS}, v1={}", good.to_uppercase()))]);
    assert_eq!(verify(&Scheme::Stripe, STRIPE_SECRET, &list, STRIPE_BODY, STRIPE_TS), Verification::Verified);
    // Not the base64-decoded key, as Standard Webhooks would use.
    let decoded = B64.decode(&STD_SECRET["whsec_".len()..]).unwrap();
    let as_standard = stripe_sig(&decoded, STRIPE_TS, STRIPE_BODY);
    let header = headers(&[("Stripe-Signature", &format!("t={STRIPE_TS},v1={as_standard}"))]);
    assert_eq!(verify(&Scheme::Stripe, STD_SECRET, &header, STRIPE_BODY, STRIPE_TS), failed(Reason::WrongSignature));
    let as_stripe = stripe_sig(STD_SECRET.as_bytes(), STRIPE_TS, STRIPE_BODY);
    let header = headers(&[("Stripe-Signature", &format!("t={STRIPE_TS},v1={as_stripe}"))]);
    assert_eq!(verify(&Scheme::Stripe, STD_SECRET, &header, STRIPE_BODY, STRIPE_TS), Verification::Verified);
}

#[test]
fn stripe_accepts_any_v1_signature_and_ignores_v0() {
    let good = stripe_sig(STRIPE_SECRET.as_bytes(), STRIPE_TS, STRIPE_BODY);
    let wrong = stripe_sig(b"whsec_rolled_secret", STRIPE_TS, STRIPE_BODY);
    let header = format!("t={STRIPE_TS},v1={wrong},v1={good},v0={wrong}");
    assert_eq!(stripe_check(&header, STRIPE_BODY, STRIPE_TS), Verification::Verified);
    let header = format!("t={STRIPE_TS},v1={wrong},v0={good}");
    assert_eq!(stripe_check(&header, STRIPE_BODY, STRIPE_TS), failed(Reason::WrongSignature));
}

#[test]
fn stripe_rejects_tampering_bad_headers_and_replays() {
    let good = stripe_sig(STRIPE_SECRET.as_bytes(), STRIPE_TS, STRIPE_BODY);
    let header = format!("t={STRIPE_TS},v1={good}");
    assert_eq!(stripe_check(&header, br#"{"id": "evt_other"}"#, STRIPE_TS), failed(Reason::WrongSignature));
    let moved = format!("t={},v1={good}", STRIPE_TS + 1);
    assert_eq!(stripe_check(&moved, STRIPE_BODY, STRIPE_TS), failed(Reason::WrongSignature));
    assert_eq!(stripe_check(&header, STRIPE_BODY, STRIPE_TS + 300), Verification::Verified);
    assert_eq!(stripe_check(&header, STRIPE_BODY, STRIPE_TS + 301), failed(Reason::TooOld { age_secs: 301 }));
    assert_eq!(stripe_check(&header, STRIPE_BODY, STRIPE_TS - 301), failed(Reason::TooNew { ahead_secs: 301 }));

    let bad = |header: &str| match stripe_check(header, STRIPE_BODY, STRIPE_TS) {
        Verification::Failed(Reason::BadEncoding(text)) => text,
        other => panic!("{header}: {other:?}"),
    };
    assert!(bad(&format!("v1={good}")).contains("no t=<timestamp>"));
    assert!(bad(&format!("t=now,v1={good}")).contains("not a Unix timestamp"));
    assert!(bad(&format!("t={STRIPE_TS}")).contains("v1=<hex>"));
    assert!(bad(&format!("t={STRIPE_TS},v1=xyz")).contains("v1=<hex>"));
    assert_eq!(
        verify(&Scheme::Stripe, STRIPE_SECRET, &[], STRIPE_BODY, STRIPE_TS),
        failed(Reason::MissingHeader("Stripe-Signature".into()))
    );
}

// ---- Generic HMAC-SHA256 ----

#[test]
fn generic_hmac_in_hex_and_base64() {
    let secret = "shpss_0123456789abcdef";
    let body = br#"{"id": 820982911946154508, "email": "jon@example.com"}"#;
    let mac = hmac_bytes(secret.as_bytes(), body);
    let shopify = "hmac-sha256-base64:X-Shopify-Hmac-SHA256".parse::<Scheme>().unwrap();
    let list = headers(&[("x-shopify-hmac-sha256", &B64.encode(&mac))]);
    assert_eq!(verify(&shopify, secret, &list, body, 0), Verification::Verified);
    assert_eq!(verify(&shopify, secret, &list, &body[..10], 0), failed(Reason::WrongSignature));
    assert_eq!(verify(&shopify, "shpss_other", &list, body, 0), failed(Reason::WrongSignature));
    let list = headers(&[("X-Shopify-Hmac-SHA256", "***")]);
    let expected = "the X-Shopify-Hmac-SHA256 header is not a base64 HMAC-SHA256 signature";
    assert_eq!(verify(&shopify, secret, &list, body, 0), failed(Reason::BadEncoding(expected.into())));

    let hex_scheme = Scheme::Hmac { header: "X-Signature".into(), encoding: Encoding::Hex };
    for value in [hex(&mac), hex(&mac).to_uppercase(), format!("sha256={}", hex(&mac))] {
        let list = headers(&[("X-SIGNATURE", &value)]);
        assert_eq!(verify(&hex_scheme, secret, &list, body, 0), Verification::Verified, "{value}");
    }
    // Base64 in a hex header is a bad encoding, and an absent header is named.
    let list = headers(&[("X-Signature", &B64.encode(&mac))]);
    assert!(matches!(verify(&hex_scheme, secret, &list, body, 0), Verification::Failed(Reason::BadEncoding(_))));
    assert_eq!(verify(&hex_scheme, secret, &[], body, 0), failed(Reason::MissingHeader("X-Signature".into())));
}

#[test]
fn nothing_shows_the_secret() {
    let secret = "whsec_c2VjcmV0LXZhbHVlLTEyMzQ1";
    let cases = [
        verify(&Scheme::Standard, secret, &std_headers(STD_SIG), STD_BODY, STD_TS),
        verify(&Scheme::Standard, "whsec_c2Vj!!", &std_headers(STD_SIG), STD_BODY, STD_TS),
        verify(&Scheme::GitHub, secret, &headers(&[("X-Hub-Signature-256", GH_SIG)]), GH_BODY, 0),
        verify(&Scheme::Stripe, secret, &headers(&[("Stripe-Signature", "t=1,v1=00")]), b"", 1),
    ];
    for result in cases {
        let shown = format!("{result:?} {result}");
        assert!(!shown.contains("c2Vj"), "{shown}");
        assert!(!result.is_verified());
    }
}
