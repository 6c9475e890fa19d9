//! GraphQL over HTTP for one connection: the token on every request, renewed after a 401 unless it
//! was obtained for that very try, `Retry-After` honoured on 429, retries with backoff for queries
//! (never for mutations) on server and network failures, redirects reported rather than followed,
//! cancellation, and what it is doing meanwhile told as [`Activity`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Credentials;
use super::activity::{Activity, ActivitySender, RequestActivity, RetryCause};
use super::body::BodyError;
use super::error::{ApiError, GraphQlError, scopes_in_message};
use super::token::{Obtained, Token, TokenStore, Tokens};
use crate::query::{OperationKind, kind_of};

/// How a client behaves.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The longest wait for one HTTP answer.
    pub timeout: Duration,
    /// Renew a token when less than this is left (at most a 24th of its lifetime).
    pub renew_margin: Duration,
    /// Retries after 429 or (for queries) a server or network failure.
    pub max_retries: u32,
    /// The first backoff delay; it doubles, with jitter.
    pub retry_base: Duration,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    /// The largest answer read, in bytes (`api::body`; `ORGQL_MAX_RESPONSE_MIB` sets the default).
    pub max_response: usize,
    /// The network settings: proxy, extra roots, client certificate, pinned certificate
    /// (`crate::net`; by default the environment's and the system's proxy, the system's roots).
    pub network: crate::net::Network,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(30),
            renew_margin: Duration::from_secs(3600),
            max_retries: 5,
            retry_base: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(60),
            max_response: super::body::max_response_from_env(),
            network: crate::net::Network::default(),
        }
    }
}

/// Throttling longer than this is logged at the default level (`warn`).
const LONG_THROTTLING: Duration = Duration::from_secs(5);

/// A GraphQL request body.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GraphQlRequest {
    /// The document.
    pub query: String,
    /// Variable values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variables: Option<Value>,
    /// The operation to run, when the document has several.
    #[serde(rename = "operationName", skip_serializing_if = "Option::is_none")]
    pub operation_name: Option<String>,
}

impl GraphQlRequest {
    /// A request for `query` with no variables.
    pub fn new(query: impl Into<String>) -> Self {
        GraphQlRequest { query: query.into(), ..Default::default() }
    }
}

/// A GraphQL response body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphQlResponse {
    /// The data (null when nothing could be resolved).
    #[serde(default)]
    pub data: Option<Value>,
    /// The errors; the spec says to check them even on HTTP 200.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<GraphQlError>,
}

impl GraphQlResponse {
    /// The data, or the errors as an [`ApiError::GraphQl`] (with the partial data).
    pub fn into_data(self) -> Result<Value, ApiError> {
        if self.errors.is_empty() {
            Ok(self.data.unwrap_or(Value::Null))
        } else {
            Err(ApiError::GraphQl { errors: self.errors, data: self.data })
        }
    }
}

/// An answer as [`Client::execute_answer`] gives it.
#[derive(Debug)]
pub(crate) enum Answer {
    /// Read into a GraphQL response.
    Parsed(GraphQlResponse),
    /// The body of a successful answer, unread.
    Body(Vec<u8>),
}

/// One answered request, as [`Client::execute_answer`] gives it.
#[derive(Debug)]
pub(crate) struct AnswerExchange {
    /// The answer.
    pub answer: Answer,
    /// HTTP status.
    pub status: u16,
    /// Time from the first try to the answer.
    pub elapsed: Duration,
    /// Size of the response body in bytes.
    pub bytes: usize,
    /// Tries made.
    pub tries: u32,
}

/// One answered request, with what the status bar shows.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The response body.
    pub response: GraphQlResponse,
    /// The HTTP status of the last try.
    pub status: u16,
    /// Time from the first try to the answer.
    pub elapsed: Duration,
    /// Size of the response body in bytes.
    pub bytes: usize,
    /// Tries made (1 when the first succeeded).
    pub tries: u32,
}

/// A client of one connection. Cheap to share behind an `Arc`.
pub struct Client {
    http: crate::net::HttpClient,
    tokens: Tokens,
    graphql_url: String,
    options: ClientOptions,
    activity: ActivitySender,
    /// The last document sent and whether it may be retried (a query), so that a walk that sends
    /// one document page after page parses it once.
    last_kind: std::sync::Mutex<Option<(String, Option<String>, bool)>>,
}

/// What one try gave.
enum Try {
    Answered(Answer, u16, usize),
    Unauthorized,
    Throttled(Option<Duration>),
    Failed(ApiError),
}

impl Client {
    /// A client for `credentials`; tokens are kept in `store` between runs when one is given.
    /// Blocking: it reads the network settings (the system's proxy and certificate store) once.
    pub fn new(
        credentials: Credentials,
        options: ClientOptions,
        store: Option<Arc<dyn TokenStore>>,
    ) -> Result<Self, ApiError> {
        let graphql_url = credentials.base_url.graphql_url();
        let http = crate::net::HttpClient::build(&options.network, &graphql_url, |builder| {
            builder
                .timeout(options.timeout)
                .connect_timeout(options.timeout.min(Duration::from_secs(10)))
                // A 301 on a POST must never silently turn into a GET or lose the body: report it.
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("orgql/", env!("CARGO_PKG_VERSION")))
        })
        .map_err(|e| ApiError::Config(e.to_string()))?;
        let tokens = Tokens::new(credentials, http.clone(), options.renew_margin, store)?.with_timeout(options.timeout);
        Ok(Client {
            http,
            tokens,
            graphql_url,
            options,
            activity: ActivitySender::new(),
            last_kind: Default::default(),
        })
    }

    /// What this client's requests are doing from now on (throttled, backing off, renewing the
    /// token), as it happens. The channel is bounded: a listener that falls behind skips the
    /// oldest ([`tokio::sync::broadcast::error::RecvError::Lagged`]); it closes when the client
    /// is dropped.
    pub fn activity(&self) -> tokio::sync::broadcast::Receiver<Activity> {
        self.activity.subscribe()
    }

    /// Where its GraphQL requests go (the schema of that address is kept under it).
    pub fn graphql_url(&self) -> &str {
        &self.graphql_url
    }

    /// The way its requests take: proxy, trust, the certificate last seen.
    pub fn route(&self) -> &Arc<crate::net::Route> {
        self.http.route()
    }

    /// The token cache and its credentials.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// The options.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Sends a request and returns the answer, with its GraphQL `errors` unexamined (see
    /// [`GraphQlResponse::into_data`]). Stops with [`ApiError::Cancelled`] when `cancel` fires.
    pub async fn execute(&self, request: &GraphQlRequest, cancel: &CancellationToken) -> Result<Exchange, ApiError> {
        let AnswerExchange { answer, status, elapsed, bytes, tries } =
            self.execute_answer(request, false, cancel).await?;
        let response = match answer {
            Answer::Parsed(response) => response,
            // Not asked for; read as every other answer is.
            Answer::Body(body) => serde_json::from_slice(&body)
                .map_err(|e| ApiError::BadResponse(format!("the body is not a GraphQL response: {e}")))?,
        };
        Ok(Exchange { response, status, elapsed, bytes, tries })
    }

    /// Like [`execute`](Self::execute), but with `raw` a successful answer (HTTP 2xx) is handed
    /// back as its bytes, unread: a walk reads what it needs of it and leaves the rest to be read
    /// off its critical path ([`super::outline`]).
    pub(crate) async fn execute_answer(
        &self,
        request: &GraphQlRequest,
        raw: bool,
        cancel: &CancellationToken,
    ) -> Result<AnswerExchange, ApiError> {
        crate::platform::ui_thread::check("HTTP");
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ApiError::Cancelled),
            result = self.execute_with_retries(request, raw, cancel) => result,
        }
    }

    async fn execute_with_retries(
        &self,
        request: &GraphQlRequest,
        raw: bool,
        cancel: &CancellationToken,
    ) -> Result<AnswerExchange, ApiError> {
        let retry_failures = self.retry_failures(request);
        let mut backoff = ExponentialBuilder::default()
            .with_min_delay(self.options.retry_base)
            .with_max_delay(self.options.max_retry_after)
            .with_max_times(self.options.max_retries as usize)
            .with_jitter()
            .build();
        let started = Instant::now();
        let activity = RequestActivity::new(&self.activity);
        // `fresh`: the token was obtained for the coming try, with no wait since. Only such a
        // token's 401 means the service refuses this client; any other token may have died since
        // it was obtained (during a wait, or sooner than its `expires_in` said), so it is renewed
        // and the request tried again with the new one. A renewal makes the token fresh, so 401s
        // never loop: each renewal follows a try, and the tries are bounded by the budgets below.
        let (mut token, mut fresh) = self.token_for_a_try(&activity).await?;
        let mut tries = 0;
        let mut throttled = 0;
        loop {
            tries += 1;
            match self.try_once(request, &token, raw).await {
                Try::Answered(answer, status, bytes) => {
                    return Ok(AnswerExchange { answer, status, elapsed: started.elapsed(), bytes, tries });
                }
                Try::Unauthorized if fresh => return Err(ApiError::Unauthorized),
                Try::Unauthorized => {
                    token = self
                        .tokens
                        .renew_after_401_reporting(&token, || activity.report(Activity::RenewingToken))
                        .await?;
                    fresh = true;
                }
                Try::Throttled(retry_after) => {
                    // Throttling has its own budget (twice the retries): the service has not run
                    // the request, so waiting as told is always right.
                    throttled += 1;
                    if throttled > self.options.max_retries * 2 {
                        return Err(ApiError::Throttled { retries: throttled - 1, retry_after });
                    }
                    let wait = match retry_after {
                        // Spread the clients that were told the same time over the next second,
                        // so that they do not all come back at once.
                        Some(after) => after.min(self.options.max_retry_after) + spread(Duration::from_secs(1)),
                        None => {
                            self.options.retry_base * 2u32.saturating_pow(throttled.min(8))
                                + spread(self.options.retry_base)
                        }
                    };
                    // Each wait is told as activity (the command line's stderr, the app's status
                    // bar); a long run of them is also logged at the default level, with the time
                    // spent, so that minutes of waiting never look like a hang in any log.
                    if started.elapsed() >= LONG_THROTTLING {
                        tracing::warn!(
                            "the service has been throttling this API client (HTTP 429) for {}; waiting {} more",
                            super::body::seconds_text(started.elapsed()),
                            super::body::seconds_text(wait)
                        );
                    }
                    activity.report(Activity::Throttled { wait });
                    pause(wait, cancel).await?;
                    (token, fresh) = self.token_for_a_try(&activity).await?;
                }
                Try::Failed(err) if retry_failures && err.is_transient() => match backoff.next() {
                    Some(wait) => {
                        let cause = match &err {
                            ApiError::Server { status, .. } => RetryCause::Server(*status),
                            ApiError::Timeout(_) => RetryCause::Timeout,
                            _ => RetryCause::Network,
                        };
                        tracing::info!("{err}");
                        activity.report(Activity::BackingOff { cause, wait });
                        pause(wait, cancel).await?;
                        (token, fresh) = self.token_for_a_try(&activity).await?;
                    }
                    None if tries > 1 => {
                        return Err(ApiError::GaveUp { tries, elapsed: started.elapsed(), last: Box::new(err) });
                    }
                    None => return Err(err),
                },
                Try::Failed(err) => return Err(err),
            }
        }
    }

    /// Whether `request` may be sent again after a failure: only a query is. A document that
    /// cannot be read counts as a mutation (never sent twice).
    fn retry_failures(&self, request: &GraphQlRequest) -> bool {
        let mut last = self.last_kind.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((query, operation, retry)) = last.as_ref()
            && *query == request.query
            && *operation == request.operation_name
        {
            return *retry;
        }
        let retry =
            kind_of(&request.query, request.operation_name.as_deref()).is_ok_and(|kind| kind == OperationKind::Query);
        *last = Some((request.query.clone(), request.operation_name.clone(), retry));
        retry
    }

    /// The token for the next try, and whether it was obtained for it (not cached).
    async fn token_for_a_try(&self, activity: &RequestActivity<'_>) -> Result<(Token, bool), ApiError> {
        let (token, obtained) = self.tokens.get_reporting(|| activity.report(Activity::RenewingToken)).await?;
        Ok((token, obtained != Obtained::Cached))
    }

    async fn try_once(&self, request: &GraphQlRequest, token: &Token, raw: bool) -> Try {
        crate::timing::mark("request_sent");
        let sent = self
            .http
            .reqwest()
            .post(&self.graphql_url)
            .bearer_auth(token.access_token.expose())
            .json(request)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(e) if e.is_timeout() => return Try::Failed(ApiError::Timeout(self.options.timeout)),
            Err(e) => return Try::Failed(self.failure(&e).await),
        };
        let status = response.status();
        if let Some(obstacle) = self.http.obstacle_of_answer(status.as_u16(), response.headers()) {
            return Try::Failed(ApiError::Blocked(Box::new(obstacle)));
        }
        let retry_after =
            response.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(retry_after);
        let location =
            response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let challenge = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(crate::scopes::read_challenge);
        let body = match super::body::read_capped(response, self.options.max_response).await {
            Ok(body) => body,
            Err(BodyError::TooLarge { limit, announced }) => {
                return Try::Failed(ApiError::TooLarge { limit, announced });
            }
            Err(BodyError::Http(e)) if e.is_timeout() => return Try::Failed(ApiError::Timeout(self.options.timeout)),
            Err(BodyError::Http(e)) => return Try::Failed(self.failure(&e).await),
        };
        if raw && status.is_success() {
            let bytes = body.len();
            return Try::Answered(Answer::Body(body), status.as_u16(), bytes);
        }
        let parsed = serde_json::from_slice::<GraphQlResponse>(&body);
        crate::timing::mark("answer_parsed");
        match status {
            StatusCode::UNAUTHORIZED => Try::Unauthorized,
            StatusCode::TOO_MANY_REQUESTS => Try::Throttled(retry_after),
            StatusCode::FORBIDDEN => {
                let message =
                    parsed.ok().and_then(|r| r.errors.into_iter().next()).map(|e| e.message).unwrap_or_default();
                Try::Failed(ApiError::MissingScope {
                    scopes: missing_scopes(challenge, &message, request, token),
                    message,
                })
            }
            s if s.is_redirection() => Try::Failed(ApiError::Redirected {
                status: s.as_u16(),
                location: location.unwrap_or_else(|| "an unnamed location".to_owned()),
            }),
            s if s.is_success() => match parsed {
                Ok(response) => Try::Answered(Answer::Parsed(response), s.as_u16(), body.len()),
                Err(e) => Try::Failed(ApiError::BadResponse(format!("the body is not a GraphQL response: {e}"))),
            },
            s if s.is_client_error() => match parsed {
                Ok(response) if !response.errors.is_empty() => {
                    Try::Answered(Answer::Parsed(response), s.as_u16(), body.len())
                }
                _ => Try::Failed(ApiError::Server { status: s.as_u16(), message: excerpt(&body) }),
            },
            s => {
                let message = parsed.ok().and_then(|r| r.errors.into_iter().next()).map(|e| e.message);
                Try::Failed(ApiError::Server { status: s.as_u16(), message: message.unwrap_or_else(|| excerpt(&body)) })
            }
        }
    }
}

impl Client {
    /// A failed request as an error: the network's obstacle in one sentence when it is one.
    async fn failure(&self, e: &reqwest::Error) -> ApiError {
        match self.http.obstacle(e).await {
            Some(obstacle) => ApiError::Blocked(Box::new(obstacle)),
            None => ApiError::Network(describe(e)),
        }
    }
}

/// A random duration up to `max`.
fn spread(max: Duration) -> Duration {
    max.mul_f64(rand::random::<f64>())
}

async fn pause(wait: Duration, cancel: &CancellationToken) -> Result<(), ApiError> {
    tokio::select! {
        _ = cancel.cancelled() => Err(ApiError::Cancelled),
        _ = tokio::time::sleep(wait) => Ok(()),
    }
}

/// What a body that is not a GraphQL response says, for an error: an HTML page's title (a proxy's
/// error page), else its first 160 characters; control characters escaped.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start();
    let text = if trimmed.starts_with('<') {
        let lower = trimmed.to_ascii_lowercase();
        match (lower.find("<title>"), lower.find("</title>")) {
            (Some(start), Some(end)) if start + 7 <= end => trimmed[start + 7..end].trim().to_owned(),
            _ => "an HTML page".to_owned(),
        }
    } else {
        trimmed.chars().take(160).collect::<String>().trim().to_owned()
    };
    crate::platform::terminal::printable(&text).into_owned()
}

/// A `Retry-After` value: seconds, or an HTTP date (RFC 9110), as the time left from now.
pub(crate) fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some((date.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std().unwrap_or_default())
}

/// A reqwest error in words, without the URL's query or any header.
pub(crate) fn describe(err: &reqwest::Error) -> String {
    let mut text = if err.is_connect() {
        "connection refused or unreachable".to_owned()
    } else if err.is_request() {
        "the request could not be sent".to_owned()
    } else if err.is_body() || err.is_decode() {
        "the answer broke off".to_owned()
    } else {
        "HTTP failure".to_owned()
    };
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// The scopes a 403 says are missing: those the `WWW-Authenticate` challenge names (RFC 6750
/// `scope="…"`), else those the message quotes, else those the operation needs by its root
/// fields that the token was not granted (a django-oauth-toolkit 403 has an empty body and a
/// challenge naming no scope).
fn missing_scopes(
    challenge: Option<(Vec<String>, Option<String>)>,
    message: &str,
    request: &GraphQlRequest,
    token: &Token,
) -> Vec<String> {
    if let Some((scopes, _)) = challenge.filter(|(scopes, _)| !scopes.is_empty()) {
        // Those named that the token lacks; all named when it seems to have them (a service
        // naming every scope the resource takes).
        let lacking: Vec<String> = scopes
            .iter()
            .filter(|s| s.parse::<crate::scopes::Scope>().is_ok_and(|s| !token.scopes.contains(s)))
            .cloned()
            .collect();
        return if lacking.is_empty() { scopes } else { lacking };
    }
    let quoted = scopes_in_message(message);
    if !quoted.is_empty() {
        return quoted;
    }
    match crate::query::root_fields(&request.query, request.operation_name.as_deref()) {
        Ok((kind, fields)) => crate::scopes::needed_by(kind, &fields)
            .difference(token.scopes)
            .iter()
            .map(|s| s.as_str().to_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        assert_eq!(retry_after(" 7 "), Some(Duration::from_secs(7)));
        let in_a_minute = (chrono::Utc::now() + chrono::Duration::seconds(60)).to_rfc2822().replace("+0000", "GMT");
        let wait = retry_after(&in_a_minute).expect("an HTTP date");
        assert!(wait > Duration::from_secs(55) && wait <= Duration::from_secs(60), "{wait:?}");
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(retry_after("soon"), None);
    }

    #[test]
    fn an_html_error_page_is_named_by_its_title() {
        let page = b"<html><head><title>502 Bad Gateway</title></head><body>\x1b[2J</body></html>";
        assert_eq!(excerpt(page), "502 Bad Gateway");
        assert_eq!(excerpt(b"oops \x1b]0;owned\x07"), "oops \\u{1b}]0;owned\\u{7}");
    }
}
