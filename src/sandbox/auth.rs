//! The OAuth 2.0 client-credentials side of the sandbox: its two built-in API clients and the
//! access tokens it has issued.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use rand::RngCore;
use subtle::ConstantTimeEq;

use crate::scopes::{Scope, ScopeSet};

/// The client that may request every scope.
pub const ADMIN_CLIENT: &str = "sandbox-admin";
/// The client with read scopes only (the spec's "separate API client that has limited permissions").
pub const READER_CLIENT: &str = "sandbox-reader";

/// The scopes a built-in client may request, or `None` for an unknown client.
pub fn client_scopes(client_id: &str) -> Option<ScopeSet> {
    match client_id {
        ADMIN_CLIENT => Some(ScopeSet::all()),
        READER_CLIENT => {
            Some([Scope::UsersRead, Scope::TrainingsRead, Scope::GroupsRead, Scope::EventsRead].into_iter().collect())
        }
        _ => None,
    }
}

/// Whether `secret` is the clients' secret, compared in constant time.
pub fn secret_matches(expected: &str, given: &str) -> bool {
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

/// What an access token grants.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The client it was issued to.
    pub client_id: String,
    /// Its scopes.
    pub scopes: ScopeSet,
    expires_at: Instant,
}

/// The tokens issued so far; expired ones are forgotten as new ones are issued.
#[derive(Debug)]
pub struct Tokens {
    ttl: Duration,
    issued: Mutex<HashMap<String, Grant>>,
}

impl Tokens {
    /// Tokens that live for `ttl`.
    pub fn new(ttl: Duration) -> Self {
        Tokens { ttl, issued: Mutex::new(HashMap::new()) }
    }

    /// The lifetime of new tokens.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Issues a new token.
    pub fn issue(&self, client_id: &str, scopes: ScopeSet) -> String {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        let token = B64.encode(bytes);
        let now = Instant::now();
        let mut issued = self.issued.lock().unwrap_or_else(PoisonError::into_inner);
        if issued.len() % 1024 == 1023 {
            issued.retain(|_, grant| grant.expires_at > now);
        }
        issued.insert(token.clone(), Grant { client_id: client_id.to_owned(), scopes, expires_at: now + self.ttl });
        token
    }

    /// What a token grants, if it is known and not expired.
    pub fn check(&self, token: &str) -> Option<Grant> {
        let issued = self.issued.lock().unwrap_or_else(PoisonError::into_inner);
        issued.get(token).filter(|grant| grant.expires_at > Instant::now()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_expires_after_its_ttl() {
        let tokens = Tokens::new(Duration::from_millis(30));
        let token = tokens.issue(ADMIN_CLIENT, ScopeSet::all());
        assert!(tokens.check(&token).is_some());
        assert!(tokens.check("other").is_none());
        std::thread::sleep(Duration::from_millis(40));
        assert!(tokens.check(&token).is_none());
    }

    #[test]
    fn the_reader_may_only_read() {
        let reader = client_scopes(READER_CLIENT).unwrap();
        assert_eq!(reader.to_string(), "users.read trainings.read groups.read events.read");
        assert!(client_scopes("nobody").is_none());
        assert!(secret_matches("abc", "abc") && !secret_matches("abc", "abd") && !secret_matches("abc", "ab"));
    }
}
