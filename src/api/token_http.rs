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
    /// What stands in the way (a certificate, a proxy, a client certificate, the network).
    #[error("{0}")]
    Blocked(Box<crate::net::Obstacle>),
    /// The answer could not be handed to the OAuth client.
    #[error("{0}")]
    Response(String),
    /// The answer is over [`MAX_TOKEN_RESPONSE`](super::body::MAX_TOKEN_RESPONSE).
    #[error("the token endpoint's answer is larger than {limit} bytes")]
    TooLarge {
        /// The cap.
        limit: usize,
    },
    /// A refusal or failure whose body is not an OAuth error (a proxy's or a login page): 401 and
    /// 403 mean the client is refused, anything else that the endpoint failed.
    #[error("the token endpoint answered HTTP {status}")]
    Status {
        /// The status.
        status: u16,
        /// What the body says (an HTML page's title), control characters escaped.
        message: String,
    },
}

/// Sends one request of the OAuth client with `http` (which must not follow redirects).
pub async fn send(
    http: &crate::net::HttpClient,
    request: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, TokenHttpError> {
    let (parts, body) = request.into_parts();
    let sent =
        http.reqwest().request(parts.method, parts.uri.to_string()).headers(parts.headers).body(body).send().await;
    let response = match sent {
        Ok(response) => response,
        Err(e) if e.is_timeout() => return Err(TokenHttpError::Reqwest(e)),
        Err(e) => match http.obstacle(&e).await {
            Some(obstacle) => return Err(TokenHttpError::Blocked(Box::new(obstacle))),
            None => return Err(TokenHttpError::Reqwest(e)),
        },
    };
    let status = response.status();
    if let Some(obstacle) = http.obstacle_of_answer(status.as_u16(), response.headers()) {
        return Err(TokenHttpError::Blocked(Box::new(obstacle)));
    }
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
    let body = match super::body::read_capped(response, super::body::MAX_TOKEN_RESPONSE).await {
        Ok(body) => body,
        Err(super::body::BodyError::TooLarge { limit, .. }) => return Err(TokenHttpError::TooLarge { limit }),
        Err(super::body::BodyError::Http(e)) => match http.obstacle(&e).await {
            Some(obstacle) => return Err(TokenHttpError::Blocked(Box::new(obstacle))),
            None => return Err(TokenHttpError::Reqwest(e)),
        },
    };
    let json = serde_json::from_slice::<serde_json::Value>(&body).ok().filter(serde_json::Value::is_object);
    if !status.is_success() && json.is_none() {
        return Err(TokenHttpError::Status { status: status.as_u16(), message: super::client::excerpt(&body) });
    }
    let body = match json {
        Some(json) if status.is_success() => normalize(json).unwrap_or(body),
        _ => body,
    };
    let mut answer = oauth2::http::Response::builder().status(status);
    if let Some(map) = answer.headers_mut() {
        *map = headers;
    }
    answer.body(body).map_err(|e| TokenHttpError::Response(e.to_string()))
}

/// A token answer as the OAuth client reads it: an `expires_in` sent as a string of digits
/// (`"3600"`, as some providers do) becomes the number RFC 6749 says it is. `None` when nothing
/// needed changing.
fn normalize(mut json: serde_json::Value) -> Option<Vec<u8>> {
    let expires_in = json.get_mut("expires_in")?;
    let seconds = expires_in.as_str()?.trim().parse::<u64>().ok()?;
    *expires_in = serde_json::Value::from(seconds);
    serde_json::to_vec(&json).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn expires_in_as_a_string_becomes_a_number() {
        let body = super::normalize(serde_json::json!({ "access_token": "t", "expires_in": " 3600" })).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["expires_in"], 3600);
        assert!(super::normalize(serde_json::json!({ "expires_in": 5 })).is_none());
    }
}
