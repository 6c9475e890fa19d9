//! How the token request is sent: reqwest without following redirects, a redirect reported as
//! itself (an `http://` base URL of an `https://` service is the usual cause) rather than as an
//! empty error answer.

/// Why the token request got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum TokenHttpError {
    /// The request failed.
    #[error(transparent)]
    Reqwest(#[from] reqwest::Error),
    /// The token endpoint answered with a redirect.
    #[error("redirected (HTTP {status}) to {location}")]
    Redirected {
        /// The status.
        status: u16,
        /// The `Location` header.
        location: String,
    },
    /// The answer could not be handed to the OAuth client.
    #[error("{0}")]
    Response(String),
}

/// Sends one request of the OAuth client with `http` (which must not follow redirects).
pub async fn send(
    http: &reqwest::Client,
    request: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, TokenHttpError> {
    let (parts, body) = request.into_parts();
    let response = http.request(parts.method, parts.uri.to_string()).headers(parts.headers).body(body).send().await?;
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("an unnamed location")
            .to_owned();
        return Err(TokenHttpError::Redirected { status: status.as_u16(), location });
    }
    let headers = response.headers().clone();
    let body = response.bytes().await?.to_vec();
    let mut answer = oauth2::http::Response::builder().status(status);
    if let Some(map) = answer.headers_mut() {
        *map = headers;
    }
    answer.body(body).map_err(|e| TokenHttpError::Response(e.to_string()))
}
