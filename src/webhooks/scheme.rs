//! The signature schemes a received delivery can be checked against, and their command-line forms
//! (`standard`, `github`, `stripe`, `hmac-sha256-hex:HEADER`, `hmac-sha256-base64:HEADER`).

use std::fmt;
use std::str::FromStr;

/// How a generic HMAC-SHA256 signature is written in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Hexadecimal digits (either case), optionally after `sha256=`.
    Hex,
    /// Standard base64 (padding optional), as in Shopify's `X-Shopify-Hmac-SHA256`.
    Base64,
}

/// A way of signing webhook deliveries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    Standard,
    /// GitHub: `X-Hub-Signature-256: sha256=<hex>` over the body.
    GitHub,
    /// Stripe: `Stripe-Signature: t=<ts>,v1=<hex>` over `{t}.{body}`.
    Stripe,
    /// HMAC-SHA256 of the body with the secret as key, in the named header.
    Hmac {
        /// The header that carries the signature (matched case-insensitively).
        header: String,
        /// How the signature is written.
        encoding: Encoding,
    },
}

/// Why a `--scheme` value could not be read; its `Display` is one sentence that says what to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseSchemeError(String);

const HEX_PREFIX: &str = "hmac-sha256-hex";
const BASE64_PREFIX: &str = "hmac-sha256-base64";
const CHOICES: &str = "standard, github, stripe, hmac-sha256-hex:HEADER or hmac-sha256-base64:HEADER";

impl FromStr for Scheme {
    type Err = ParseSchemeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (kind, header) = match text.split_once(':') {
            Some((kind, header)) => (kind.trim(), Some(header.trim())),
            None => (text, None),
        };
        let kind_lower = kind.to_ascii_lowercase();
        let encoding = match kind_lower.as_str() {
            "standard" | "github" | "stripe" if header.is_some() => {
                return Err(ParseSchemeError(format!(
                    "the signature scheme '{kind_lower}' takes no header; write just '{kind_lower}'"
                )));
            }
            "standard" => return Ok(Scheme::Standard),
            "github" => return Ok(Scheme::GitHub),
            "stripe" => return Ok(Scheme::Stripe),
            HEX_PREFIX => Encoding::Hex,
            BASE64_PREFIX => Encoding::Base64,
            _ if text.is_empty() => {
                return Err(ParseSchemeError(format!("the signature scheme is empty; use {CHOICES}")));
            }
            _ => {
                return Err(ParseSchemeError(format!("unknown signature scheme '{text}'; use {CHOICES}")));
            }
        };
        match header {
            None | Some("") => Err(ParseSchemeError(format!(
                "the scheme '{kind_lower}' needs the header that carries the signature, as in {kind_lower}:X-Signature"
            ))),
            Some(header) if !is_header_name(header) => Err(ParseSchemeError(format!(
                "'{header}' is not a valid HTTP header name; use letters, digits and '-', as in {kind_lower}:X-Signature"
            ))),
            Some(header) => Ok(Scheme::Hmac { header: header.to_string(), encoding }),
        }
    }
}

impl fmt::Display for Scheme {
    /// The command-line form, which `FromStr` reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scheme::Standard => f.write_str("standard"),
            Scheme::GitHub => f.write_str("github"),
            Scheme::Stripe => f.write_str("stripe"),
            Scheme::Hmac { header, encoding: Encoding::Hex } => write!(f, "{HEX_PREFIX}:{header}"),
            Scheme::Hmac { header, encoding: Encoding::Base64 } => write!(f, "{BASE64_PREFIX}:{header}"),
        }
    }
}

/// An HTTP field name: one or more `tchar`s (RFC 9110, section 5.6.2).
fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_command_line_forms() {
        let hex = Scheme::Hmac { header: "X-Signature".into(), encoding: Encoding::Hex };
        let shopify = Scheme::Hmac { header: "X-Shopify-Hmac-SHA256".into(), encoding: Encoding::Base64 };
        for (text, scheme) in [
            ("standard", Scheme::Standard),
            ("github", Scheme::GitHub),
            ("stripe", Scheme::Stripe),
            ("hmac-sha256-hex:X-Signature", hex),
            ("hmac-sha256-base64:X-Shopify-Hmac-SHA256", shopify),
        ] {
            assert_eq!(text.parse::<Scheme>().unwrap(), scheme);
            assert_eq!(scheme.to_string(), text);
        }
        assert_eq!(" GitHub ".parse::<Scheme>().unwrap(), Scheme::GitHub);
    }

    #[test]
    fn explains_bad_forms_in_one_sentence() {
        let error = |text: &str| text.parse::<Scheme>().unwrap_err().to_string();
        assert_eq!(
            error("gitlab"),
            "unknown signature scheme 'gitlab'; use standard, github, stripe, hmac-sha256-hex:HEADER or \
             hmac-sha256-base64:HEADER"
        );
        assert!(error("").starts_with("the signature scheme is empty"));
        assert!(error("hmac-sha256-hex").contains("needs the header"));
        assert!(error("hmac-sha256-base64:").contains("needs the header"));
        assert!(error("hmac-sha256-hex:X Sig").contains("not a valid HTTP header name"));
        assert!(error("hmac-sha1-hex:X-Sig").starts_with("unknown signature scheme"));
        assert!(error("github:X-Hub-Signature").contains("takes no header"));
        for text in ["gitlab", "", "hmac-sha256-hex", "hmac-sha256-hex:X Sig", "github:X"] {
            let message = error(text);
            assert_eq!(message.matches(". ").count(), 0, "{message}");
        }
    }
}
