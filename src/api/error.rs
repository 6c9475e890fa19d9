//! The errors of the API client: each says what happened and what to do, in one sentence, and
//! none carries a secret.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One entry of a GraphQL response's `errors` array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphQlError {
    /// What went wrong.
    pub message: String,
    /// Where in the document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// The response path of the field (names and list indexes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<serde_json::Value>,
}

/// A line and column of the document, from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

impl GraphQlError {
    /// `path` written as `a.b.0.c`.
    pub fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|p| match p {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    }
}

impl std::fmt::Display for GraphQlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " (at {})", self.path_text())?;
        }
        if let Some(location) = self.locations.first() {
            write!(f, " [line {}, column {}]", location.line, location.column)?;
        }
        Ok(())
    }
}

/// Why a call to the service failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The connection settings are unusable.
    #[error("{0}")]
    Config(String),
    /// The query cannot be used as asked (no connection to walk, bad variables).
    #[error("{0}")]
    Document(String),
    /// The token endpoint refused the client id or secret.
    #[error(
        "the service refused the client credentials (invalid_client); check the client ID and secret of the profile"
    )]
    InvalidClient,
    /// The token endpoint refused the request for another reason (RFC 6749 error).
    #[error("the token request was refused ({code}{}); {hint}", description.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    TokenRefused {
        /// The RFC 6749 error code, e.g. `invalid_scope`.
        code: String,
        /// The server's description.
        description: Option<String>,
        /// What to do.
        hint: &'static str,
    },
    /// HTTP 401 to a token obtained for that very try (renewed right before it, no wait between):
    /// the service refuses this client's tokens.
    #[error(
        "the service answered 401 Unauthorized even with a fresh token obtained just before; check that the profile's base URL and client belong together"
    )]
    Unauthorized,
    /// HTTP 403: the token lacks a scope.
    #[error("the token lacks the scope {}; add it to the profile's scopes and run again", if scopes.is_empty() { "this operation needs".to_owned() } else { scopes.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(" and ") })]
    MissingScope {
        /// The scopes named by the service.
        scopes: Vec<String>,
        /// The service's message.
        message: String,
    },
    /// The response carried GraphQL `errors`.
    #[error("the service reported {} error{}: {}", errors.len(), if errors.len() == 1 { "" } else { "s" }, errors.first().map(ToString::to_string).unwrap_or_default())]
    GraphQl {
        /// The errors.
        errors: Vec<GraphQlError>,
        /// Partial data, when there is some.
        data: Option<serde_json::Value>,
    },
    /// HTTP 429 beyond the retries.
    #[error(
        "the service is throttling this API client (HTTP 429) and kept doing so after {retries} retries; wait a minute, or arrange higher limits with the service's support"
    )]
    Throttled {
        /// The retries made.
        retries: u32,
        /// The last `Retry-After`.
        retry_after: Option<Duration>,
    },
    /// A redirect, which a POST must not follow.
    #[error(
        "the service redirected the request (HTTP {status}) to {location}; use that address as the base URL (the spec's paths end in '/')"
    )]
    Redirected {
        /// 301, 302, 307 or 308.
        status: u16,
        /// Where to.
        location: String,
    },
    /// HTTP 5xx or another unexpected status; 502, 503 and 504 are named gateway failures (what a
    /// proxy in front of the service answers when the service does not).
    #[error("{}", server_text(*status, message))]
    Server {
        /// The status.
        status: u16,
        /// The service's message, if it gave one.
        message: String,
    },
    /// What stands in the way on the network, in one sentence (a certificate, a proxy, a client
    /// certificate, a name, a refused or cut connection).
    #[error("{0}")]
    Blocked(Box<crate::net::Obstacle>),
    /// No connection, or the connection broke.
    #[error("could not reach the service ({0}); check the base URL and the network")]
    Network(String),
    /// No answer in time.
    #[error("the service did not answer within {0:?}; try again, or raise the timeout")]
    Timeout(Duration),
    /// The service refused the introspection query (turned off, or not allowed for this client).
    #[error(
        "the service refused to describe its schema ({0}); introspection may be turned off there: ask the service's administrator to allow it for this API client, or keep using a schema loaded earlier"
    )]
    IntrospectionRefused(String),
    /// An answer that is not what the spec describes.
    #[error("the service's answer could not be read ({0}); check that the base URL points at the GraphQL service")]
    BadResponse(String),
    /// The request was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The paging guard stopped a walk whose pages do not end (see `api::guard`).
    #[error("stopped walking the pages: {0}; report it to the service's administrator")]
    Paging(String),
    /// An answer over the size cap (`api::body`).
    #[error(
        "the service's answer is larger than the {} orgql reads{}; if such an answer is expected, set ORGQL_MAX_RESPONSE_MIB to a larger number of MiB, else ask for smaller pages",
        super::body::size_text(*limit as u64),
        announced.map(|n| format!(" (it announced {})", super::body::size_text(n))).unwrap_or_default()
    )]
    TooLarge {
        /// The cap.
        limit: usize,
        /// The `Content-Length`, when given.
        announced: Option<u64>,
    },
    /// An access token too long to send as a header.
    #[error(
        "the token endpoint gave an access token of {0} bytes, more than the 16 KiB orgql sends as a header; check that the base URL points at the service"
    )]
    TokenTooLarge(usize),
    /// A query tried again after transient failures until the retries ran out.
    #[error("{}", gave_up_text(last, *tries, *elapsed))]
    GaveUp {
        /// Tries made.
        tries: u32,
        /// Time from the first try to giving up.
        elapsed: Duration,
        /// The last try's failure.
        last: Box<ApiError>,
    },
}

/// The sentence of [`ApiError::Server`].
fn server_text(status: u16, message: &str) -> String {
    let said = if message.is_empty() { String::new() } else { format!(" ({message})") };
    match status {
        502 | 504 => format!(
            "a gateway or proxy in front of the service answered HTTP {status} ({}): the service itself did not answer it{said}; try again later, and tell the service's administrator if it lasts",
            if status == 502 { "Bad Gateway" } else { "Gateway Timeout" }
        ),
        503 => format!("the service is unavailable (HTTP 503){said}; try again later"),
        _ => format!("the service failed with HTTP {status}{said}; try again later"),
    }
}

/// The sentence of [`ApiError::GaveUp`]: the true time spent, not one try's.
fn gave_up_text(last: &ApiError, tries: u32, elapsed: Duration) -> String {
    let spent = super::body::seconds_text(elapsed);
    match last {
        ApiError::Timeout(each) => format!(
            "the service did not answer: {tries} tries over {spent}, each waiting up to {}; try again later, or raise the timeout",
            super::body::seconds_text(*each)
        ),
        other => format!("{other} (gave up after {tries} tries over {spent})"),
    }
}

impl ApiError {
    /// Whether a query (never a mutation) may be tried again after this error.
    pub fn is_transient(&self) -> bool {
        match self {
            ApiError::Blocked(obstacle) => obstacle.is_transient(),
            other => {
                matches!(
                    other,
                    ApiError::Server { status: 500..=599, .. } | ApiError::Network(_) | ApiError::Timeout(_)
                )
            }
        }
    }

    /// The exit status of the command line (contract section 2).
    pub fn exit_code(&self) -> u8 {
        match self {
            ApiError::Config(_) | ApiError::Document(_) => 2,
            ApiError::InvalidClient | ApiError::Unauthorized | ApiError::TokenTooLarge(_) => 3,
            ApiError::GaveUp { last, .. } => last.exit_code(),
            ApiError::TokenRefused { code, .. } if code == "invalid_scope" => 4,
            ApiError::TokenRefused { .. } => 3,
            ApiError::MissingScope { .. } => 4,
            ApiError::GraphQl { .. } => 5,
            ApiError::Cancelled => 130,
            _ => 6,
        }
    }
}

/// The scope names quoted in a 403 message: `… requires 'users.read' and 'groups.read'`.
pub fn scopes_in_message(message: &str) -> Vec<String> {
    let mut scopes = Vec::new();
    let mut rest = message;
    while let Some(start) = rest.find('\'') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('\'') else { break };
        let candidate = &after[..end];
        if candidate.parse::<crate::scopes::Scope>().is_ok() && !scopes.iter().any(|s| s == candidate) {
            scopes.push(candidate.to_owned());
        }
        rest = &after[end + 1..];
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_scope_names_from_a_403_message() {
        assert_eq!(
            scopes_in_message("Insufficient scope: this operation requires 'users.read' and 'groups.read'"),
            ["users.read", "groups.read"]
        );
        assert!(scopes_in_message("Insufficient scope: 'nope'").is_empty());
    }

    #[test]
    fn messages_say_what_to_do() {
        let err = ApiError::MissingScope { scopes: vec!["events.read".into()], message: String::new() };
        assert_eq!(
            err.to_string(),
            "the token lacks the scope 'events.read'; add it to the profile's scopes and run again"
        );
        assert_eq!(err.exit_code(), 4);
        let err = ApiError::GraphQl {
            errors: vec![GraphQlError {
                message: "boom".into(),
                locations: vec![Location { line: 2, column: 3 }],
                path: vec!["user".into()],
            }],
            data: None,
        };
        assert_eq!(err.to_string(), "the service reported 1 error: boom (at user) [line 2, column 3]");
    }
}
