//! Access tokens: requested with client credentials (through the `oauth2` crate, client id and
//! secret in the form body as the spec does), cached with their expiry, renewed before they
//! expire and after a 401, shared by concurrent requests, and optionally kept between runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use oauth2::basic::{BasicClient, BasicErrorResponseType};
use oauth2::{
    AuthType, ClientId, ClientSecret, EndpointNotSet, EndpointSet, RequestTokenError, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::token_http::TokenHttpError;
use super::{BaseUrl, Credentials};
use crate::scopes::ScopeSet;
use crate::secret::Secret;

/// The token lifetime the spec gives, used when a response has no `expires_in`.
const SPEC_LIFETIME: Duration = Duration::from_secs(86_400);

type OAuthClient = BasicClient<EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// An access token and what it grants.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Token {
    /// The token.
    #[serde(with = "secret_text")]
    pub access_token: Secret,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
    /// Its lifetime when issued.
    pub lifetime_secs: u64,
    /// The scopes granted.
    #[serde(with = "scope_text")]
    pub scopes: ScopeSet,
}

impl Token {
    /// The time left before it expires (zero when expired).
    pub fn remaining(&self) -> Duration {
        (self.expires_at - Utc::now()).to_std().unwrap_or_default()
    }

    /// Whether it should be renewed now: less than `margin` is left, where the margin is at most
    /// a 24th of the lifetime (one hour of the spec's 24; a fraction of a second of a 2-second test token).
    pub fn needs_renewal(&self, margin: Duration) -> bool {
        let margin = margin.min(Duration::from_secs(self.lifetime_secs) / 24);
        self.remaining() <= margin
    }
}

mod secret_text {
    use crate::secret::Secret;

    pub fn serialize<S: serde::Serializer>(secret: &Secret, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(secret.expose())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Secret, D::Error> {
        <String as serde::Deserialize>::deserialize(d).map(Secret::new)
    }
}

mod scope_text {
    use crate::scopes::ScopeSet;

    pub fn serialize<S: serde::Serializer>(scopes: &ScopeSet, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&scopes.to_string())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ScopeSet, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        ScopeSet::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Keeps tokens between runs (the OS keyring, for the command line). Keys name the base URL,
/// client and scopes; they are not secret.
pub trait TokenStore: Send + Sync {
    /// The token kept under `key`, if any.
    fn load(&self, key: &str) -> Option<Token>;
    /// Keeps a token under `key`.
    fn save(&self, key: &str, token: &Token);
    /// Forgets the token under `key`.
    fn forget(&self, key: &str);
}

/// What the status bar shows of the token.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenState {
    /// None requested yet.
    None,
    /// Valid for this long, with these scopes.
    Valid {
        /// Time left.
        remaining: Duration,
        /// Scopes granted.
        scopes: ScopeSet,
    },
}

/// Where [`Tokens::get_reporting`] found its token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Obtained {
    /// The cached (or kept) one, still valid by its expiry.
    Cached,
    /// Requested now: there was none before.
    First,
    /// Requested now, replacing one that expired or was about to.
    Renewed,
}

/// The token of one connection.
pub struct Tokens {
    credentials: Credentials,
    oauth: OAuthClient,
    http: crate::net::HttpClient,
    current: tokio::sync::Mutex<Option<Token>>,
    margin: Duration,
    store: Option<Arc<dyn TokenStore>>,
    requested: AtomicU64,
    /// The HTTP client's timeout, named when a token request runs out of it.
    timeout: Duration,
}

impl Tokens {
    /// Tokens for `credentials`, renewed when less than `margin` is left.
    pub fn new(
        credentials: Credentials,
        http: crate::net::HttpClient,
        margin: Duration,
        store: Option<Arc<dyn TokenStore>>,
    ) -> Result<Self, ApiError> {
        let token_url = TokenUrl::new(credentials.base_url.token_url())
            .map_err(|e| ApiError::Config(format!("the token URL is not valid ({e}); check the base URL")))?;
        let oauth = BasicClient::new(ClientId::new(credentials.client_id.clone()))
            .set_client_secret(ClientSecret::new(credentials.client_secret.expose().to_owned()))
            .set_auth_type(AuthType::RequestBody)
            .set_token_uri(token_url);
        Ok(Tokens {
            credentials,
            oauth,
            http,
            current: tokio::sync::Mutex::new(None),
            margin,
            store,
            requested: AtomicU64::new(0),
            timeout: Duration::ZERO,
        })
    }

    /// Names `timeout` (the HTTP client's) in the [`ApiError::Timeout`] of a token request that
    /// got no answer in time.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The key of this connection's token in a [`TokenStore`].
    pub fn store_key(&self) -> String {
        store_key(&self.credentials)
    }

    /// A valid token: the cached one, or a new one when it is missing or about to expire.
    /// Concurrent callers wait for one token request.
    pub async fn get(&self) -> Result<Token, ApiError> {
        self.get_reporting(|| {}).await.map(|(token, _)| token)
    }

    /// Like [`Tokens::get`], saying where the token came from; `renewing` is called just before a
    /// token that expired (or is about to) is replaced.
    pub(crate) async fn get_reporting(&self, renewing: impl FnOnce()) -> Result<(Token, Obtained), ApiError> {
        let mut current = self.current.lock().await;
        if current.is_none()
            && let Some(store) = &self.store
        {
            *current = store.load(&self.store_key());
        }
        match current.as_ref() {
            Some(token) if !token.needs_renewal(self.margin) => Ok((token.clone(), Obtained::Cached)),
            previous => {
                let obtained = if previous.is_some() {
                    renewing();
                    Obtained::Renewed
                } else {
                    Obtained::First
                };
                let token = self.request().await?;
                *current = Some(token.clone());
                Ok((token, obtained))
            }
        }
    }

    /// A new token after `rejected` was answered 401, unless another request renewed it already.
    pub async fn renew_after_401(&self, rejected: &Token) -> Result<Token, ApiError> {
        self.renew_after_401_reporting(rejected, || {}).await
    }

    /// Like [`Tokens::renew_after_401`]; `renewing` is called just before a new token is requested.
    pub(crate) async fn renew_after_401_reporting(
        &self,
        rejected: &Token,
        renewing: impl FnOnce(),
    ) -> Result<Token, ApiError> {
        let mut current = self.current.lock().await;
        if let Some(token) = current.as_ref()
            && token.access_token != rejected.access_token
            && !token.needs_renewal(self.margin)
        {
            return Ok(token.clone());
        }
        renewing();
        if let Some(store) = &self.store {
            store.forget(&self.store_key());
        }
        let token = self.request().await?;
        *current = Some(token.clone());
        Ok(token)
    }

    /// How many tokens were requested from the service.
    pub fn requests_made(&self) -> u64 {
        self.requested.load(Ordering::Relaxed)
    }

    /// The state of the cached token.
    pub async fn state(&self) -> TokenState {
        match self.current.lock().await.as_ref() {
            Some(token) if token.remaining() > Duration::ZERO => {
                TokenState::Valid { remaining: token.remaining(), scopes: token.scopes }
            }
            _ => TokenState::None,
        }
    }

    async fn request(&self) -> Result<Token, ApiError> {
        crate::platform::ui_thread::check("HTTP");
        self.requested.fetch_add(1, Ordering::Relaxed);
        let scopes = self.credentials.scopes.iter().map(|s| oauth2::Scope::new(s.as_str().to_owned()));
        let request = self.oauth.exchange_client_credentials().add_scopes(scopes);
        // The future owns its client (cheap to clone), so the task running it stays `Send`.
        let http = self.http.clone();
        let send = move |request| {
            let http = http.clone();
            async move { super::token_http::send(&http, request).await }
        };
        let response = request.request_async(&send).await.map_err(|e| token_error(e, self.timeout))?;
        let length = response.access_token().secret().len();
        if length > super::body::MAX_ACCESS_TOKEN {
            return Err(ApiError::TokenTooLarge(length));
        }
        let lifetime = response.expires_in().unwrap_or(SPEC_LIFETIME);
        let scopes = match response.scopes() {
            Some(granted) => granted.iter().filter_map(|s| s.as_str().parse().ok()).collect(),
            None => self.credentials.scopes,
        };
        let token = Token {
            access_token: Secret::new(response.access_token().secret().clone()),
            expires_at: Utc::now() + chrono::Duration::from_std(lifetime).unwrap_or(chrono::Duration::hours(24)),
            lifetime_secs: lifetime.as_secs(),
            scopes,
        };
        if let Some(store) = &self.store {
            store.save(&self.store_key(), &token);
        }
        tracing::debug!(scopes = %token.scopes, lifetime = token.lifetime_secs, "new access token");
        crate::timing::mark("token");
        Ok(token)
    }

    /// The base URL of the connection.
    pub fn base_url(&self) -> &BaseUrl {
        &self.credentials.base_url
    }
}

/// The key of the token of `credentials` in a [`TokenStore`].
pub fn store_key(c: &Credentials) -> String {
    format!("token {} {} {}", c.base_url.as_str(), c.client_id, c.scopes)
}

type OAuthError = RequestTokenError<TokenHttpError, oauth2::StandardErrorResponse<BasicErrorResponseType>>;

fn token_error(err: OAuthError, timeout: Duration) -> ApiError {
    match err {
        RequestTokenError::ServerResponse(response) => {
            let description =
                response.error_description().map(|d| crate::platform::terminal::printable(d).into_owned());
            match response.error() {
                BasicErrorResponseType::InvalidClient => ApiError::InvalidClient,
                BasicErrorResponseType::InvalidScope => ApiError::TokenRefused {
                    code: "invalid_scope".into(),
                    description,
                    hint: "request only scopes this API client may have",
                },
                other => ApiError::TokenRefused {
                    code: other.as_ref().to_owned(),
                    description,
                    hint: "check the profile's base URL, client ID and scopes",
                },
            }
        }
        RequestTokenError::Request(err) => match err {
            TokenHttpError::Reqwest(e) if e.is_timeout() => ApiError::Timeout(timeout),
            TokenHttpError::Reqwest(e) => ApiError::Network(super::client::describe(&e)),
            TokenHttpError::Redirected { status, location } => ApiError::Redirected { status, location },
            TokenHttpError::Blocked(obstacle) => ApiError::Blocked(obstacle),
            TokenHttpError::Response(message) => ApiError::BadResponse(message),
            TokenHttpError::TooLarge { limit } => ApiError::TooLarge { limit, announced: None },
            TokenHttpError::Status { status: 401 | 403, .. } => ApiError::InvalidClient,
            TokenHttpError::Status { status, message } => ApiError::Server { status, message },
        },
        // Never the body: it may hold the access token. Only where it differs from a token answer.
        RequestTokenError::Parse(err, _) => {
            let path = err.path().to_string();
            let place = if path.is_empty() || path == "." { String::new() } else { format!(" (at '{path}')") };
            ApiError::BadResponse(format!(
                "the token endpoint answered with something that is not an OAuth token answer{place}"
            ))
        }
        RequestTokenError::Other(message) => ApiError::BadResponse(message),
    }
}

impl BaseUrl {
    /// Checks and normalizes a base URL: scheme http or https, no trailing slash; a URL that
    /// already ends in one of the spec's paths loses it.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let trimmed = text.trim();
        let url = reqwest::Url::parse(trimmed).map_err(|e| {
            ApiError::Config(format!("the base URL '{trimmed}' is not a URL ({e}); give it as https://host[/path]"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ApiError::Config(format!(
                "the base URL must start with https:// or http:// (got '{trimmed}')"
            )));
        }
        let mut root = url.as_str().trim_end_matches('/').to_owned();
        for suffix in ["/graphql", "/oauth/token"] {
            if let Some(stripped) = root.strip_suffix(suffix) {
                root = stripped.to_owned();
            }
        }
        Ok(BaseUrl(root))
    }

    /// The base URL, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `{base}/oauth/token/`.
    pub fn token_url(&self) -> String {
        format!("{}/oauth/token/", self.0)
    }

    /// `{base}/graphql/`.
    pub fn graphql_url(&self) -> String {
        format!("{}/graphql/", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_get_both_trailing_slashes() {
        for text in ["https://org.example.com", "https://org.example.com/", "https://org.example.com/graphql/"] {
            let base = BaseUrl::parse(text).unwrap();
            assert_eq!(base.graphql_url(), "https://org.example.com/graphql/");
            assert_eq!(base.token_url(), "https://org.example.com/oauth/token/");
        }
        assert!(BaseUrl::parse("org.example.com").is_err());
        assert!(BaseUrl::parse("ftp://org.example.com").is_err());
    }

    #[test]
    fn renews_an_hour_early_or_a_24th_of_a_short_lifetime() {
        let token = |secs_left: i64, lifetime_secs: u64| Token {
            access_token: Secret::new("t"),
            expires_at: Utc::now() + chrono::Duration::seconds(secs_left),
            lifetime_secs,
            scopes: ScopeSet::empty(),
        };
        let hour = Duration::from_secs(3600);
        assert!(!token(23 * 3600, 86_400).needs_renewal(hour));
        assert!(token(3500, 86_400).needs_renewal(hour));
        assert!(!token(2, 2).needs_renewal(hour));
        assert!(token(0, 2).needs_renewal(hour));
    }

    #[test]
    fn a_token_of_one_second_is_used_until_the_last_24th_of_it() {
        // `expires_in` is whole seconds: a token that lives 1.5 s comes as 1 (or 2, when rounded
        // up; then a 401 after its real end renews it).
        let token = |millis_left: i64| Token {
            access_token: Secret::new("t"),
            expires_at: Utc::now() + chrono::Duration::milliseconds(millis_left),
            lifetime_secs: 1,
            scopes: ScopeSet::empty(),
        };
        let hour = Duration::from_secs(3600);
        assert!(!token(1_000).needs_renewal(hour));
        assert!(!token(100).needs_renewal(hour));
        assert!(token(30).needs_renewal(hour));
        assert!(token(-500).needs_renewal(hour));
        // A token the service says is already expired is never taken for valid.
        let instant = Token { lifetime_secs: 0, ..token(0) };
        assert!(instant.needs_renewal(hour));
    }

    #[test]
    fn a_token_serializes_for_the_store_without_debug_leaks() {
        let token = Token {
            access_token: Secret::new("abc"),
            expires_at: Utc::now(),
            lifetime_secs: 86_400,
            scopes: "users.read".parse().unwrap(),
        };
        let json = serde_json::to_string(&token).unwrap();
        let back: Token = serde_json::from_str(&json).unwrap();
        assert_eq!(back.access_token.expose(), "abc");
        assert!(!format!("{token:?}").contains("abc"));
    }
}
