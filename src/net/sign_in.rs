//! Proxy sign-in schemes and their handshakes: Basic (a user and a password), NTLM and Negotiate.
//! Basic is here; NTLM and Negotiate are the system's ([`crate::platform::proxy_handshake`]: on
//! Windows its own SSPI, with the signed-in person's account or the user of the proxy URL and
//! the password; elsewhere NTLM from the user and the password, and no Negotiate).
//!
//! A handshake turns the proxy's challenge (none for the first leg) into the next token; the relay
//! (`super::relay`) sends each token as `Proxy-Authorization: SCHEME BASE64` on one connection.

use base64::Engine as _;

use crate::platform;
use crate::secret::Secret;

/// A sign-in scheme orgql can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// Kerberos or NTLM, as Windows chooses (SPNEGO).
    Negotiate,
    /// NTLM (v2).
    Ntlm,
    /// A user and a password in the clear (base64).
    Basic,
}

impl Scheme {
    /// Its name in `Proxy-Authenticate` and `Proxy-Authorization`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scheme::Negotiate => "Negotiate",
            Scheme::Ntlm => "NTLM",
            Scheme::Basic => "Basic",
        }
    }

    fn parse(word: &str) -> Option<Scheme> {
        [Scheme::Negotiate, Scheme::Ntlm, Scheme::Basic].into_iter().find(|s| s.name().eq_ignore_ascii_case(word))
    }
}

/// Whether orgql answers the scheme named `word` on this computer (with what it may be given).
pub(crate) fn answered_here(word: &str) -> bool {
    match Scheme::parse(word) {
        Some(Scheme::Negotiate) => platform::SYSTEM_SIGN_IN,
        Some(_) => true,
        None => false,
    }
}

/// The scheme of a `Proxy-Authenticate` value (`NTLM`, `Basic realm="corp"`) and its token, when
/// it carries one (`NTLM TlRMTVNTUAACAAAA…`).
pub(crate) fn challenge(value: &str) -> (&str, Option<&str>) {
    let value = value.trim();
    match value.split_once(char::is_whitespace) {
        Some((scheme, rest)) => {
            let rest = rest.trim();
            // A token is base64 alone; `realm="…"` and other parameters are not one.
            let core = rest.trim_end_matches('=');
            let token = (!core.is_empty() && core.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'))
                .then_some(rest);
            (scheme.trim_end_matches(','), token)
        }
        None => (value.trim_end_matches(','), None),
    }
}

/// Who the relay signs in as.
#[derive(Clone)]
pub(crate) struct Credentials {
    /// The user of the proxy URL (`alice`, `CORP\alice`, `alice@corp.example`).
    pub user: Option<String>,
    /// Its password (the keyring's, `ORGQL_PROXY_PASSWORD`, the URL's); never shown.
    pub password: Option<Secret>,
    /// The proxy's host name (the service name Kerberos asks a ticket for: `HTTP/host`).
    pub proxy_host: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("user", &self.user).field("proxy_host", &self.proxy_host).finish()
    }
}

impl Credentials {
    /// The user and the password, when both are known.
    fn with_password(&self) -> Option<(&str, &Secret)> {
        match (&self.user, &self.password) {
            (Some(user), Some(password)) => Some((user, password)),
            _ => None,
        }
    }

    /// Whether a relay is worth running: on Windows always (the person's account needs nothing
    /// typed), elsewhere when a user and a password are known.
    pub(crate) fn can_sign_in(&self) -> bool {
        platform::SYSTEM_SIGN_IN || self.with_password().is_some()
    }

    /// The scheme to answer among the `offered` ones (the first words of the proxy's
    /// `Proxy-Authenticate` headers): Negotiate (Windows), then NTLM, then Basic — never the
    /// password in the clear when the proxy takes a handshake.
    pub(crate) fn choose(&self, offered: &[&str]) -> Option<Scheme> {
        let offers = |scheme: Scheme| offered.iter().any(|o| o.eq_ignore_ascii_case(scheme.name()));
        let password = self.with_password().is_some();
        if platform::SYSTEM_SIGN_IN && offers(Scheme::Negotiate) {
            return Some(Scheme::Negotiate);
        }
        if offers(Scheme::Ntlm) && (platform::SYSTEM_SIGN_IN || password) {
            return Some(Scheme::Ntlm);
        }
        (offers(Scheme::Basic) && password).then_some(Scheme::Basic)
    }

    /// A new handshake of `scheme`.
    pub(crate) fn start(&self, scheme: Scheme) -> Result<Box<dyn Handshake>, String> {
        match scheme {
            Scheme::Basic => {
                let (user, password) = self.with_password().ok_or("Basic sign-in needs a user and a password")?;
                Ok(Box::new(Basic(Some(format!("{user}:{}", password.expose()).into_bytes()))))
            }
            Scheme::Ntlm | Scheme::Negotiate => {
                Ok(Box::new(platform::proxy_handshake(scheme.name(), &self.proxy_host, self.with_password())?))
            }
        }
    }
}

/// One side of a sign-in handshake.
pub(crate) trait Handshake: Send {
    /// The next token to send, from the proxy's `challenge` (`None` for the first leg).
    fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String>;
}

impl Handshake for platform::ProxyHandshake {
    fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
        self.next_token(challenge)
    }
}

/// The header value carrying `token` for `scheme`.
pub(crate) fn authorization(scheme: Scheme, token: &[u8]) -> String {
    format!("{} {}", scheme.name(), base64::engine::general_purpose::STANDARD.encode(token))
}

/// A token from its base64 in a challenge.
pub(crate) fn decode(token: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(token.trim()).ok()
}

/// Basic: one leg, `user:password`.
struct Basic(Option<Vec<u8>>);

impl Handshake for Basic {
    fn step(&mut self, _: Option<&[u8]>) -> Result<Vec<u8>, String> {
        self.0.take().ok_or_else(|| "Basic sign-in has one step".to_owned())
    }
}

impl Drop for Basic {
    fn drop(&mut self) {
        if let Some(bytes) = &mut self.0 {
            bytes.iter_mut().for_each(|b| *b = 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(user: Option<&str>, password: Option<&str>) -> Credentials {
        Credentials {
            user: user.map(str::to_owned),
            password: password.map(Secret::new),
            proxy_host: "proxy.corp".to_owned(),
        }
    }

    #[test]
    fn a_challenge_is_split_into_scheme_and_token() {
        assert_eq!(challenge("NTLM"), ("NTLM", None));
        assert_eq!(challenge("NTLM TlRMTVNTUAACAAAA"), ("NTLM", Some("TlRMTVNTUAACAAAA")));
        assert_eq!(challenge("Negotiate YII="), ("Negotiate", Some("YII=")));
        assert_eq!(challenge("Basic realm=\"corp\""), ("Basic", None));
        assert_eq!(challenge("Basic, "), ("Basic", None));
    }

    #[test]
    fn the_handshake_is_preferred_to_the_password_in_the_clear() {
        let with = credentials(Some("CORP\\alice"), Some("pw"));
        assert_eq!(with.choose(&["Basic", "NTLM"]), Some(Scheme::Ntlm));
        assert_eq!(with.choose(&["basic"]), Some(Scheme::Basic));
        assert_eq!(with.choose(&["Digest"]), None);
        let without = credentials(Some("alice"), None);
        assert_eq!(without.choose(&["Basic"]), None);
        if platform::SYSTEM_SIGN_IN {
            assert_eq!(without.choose(&["NTLM", "Negotiate"]), Some(Scheme::Negotiate));
        } else {
            assert_eq!(without.choose(&["NTLM", "Negotiate"]), None);
            assert_eq!(with.choose(&["Negotiate"]), None);
            assert_eq!(with.choose(&["Negotiate", "NTLM"]), Some(Scheme::Ntlm));
            assert!(!answered_here("Negotiate") && answered_here("ntlm") && !answered_here("Digest"));
        }
    }

    #[test]
    fn basic_is_the_user_and_the_password() {
        let mut basic = credentials(Some("alice"), Some("pw")).start(Scheme::Basic).unwrap();
        assert_eq!(authorization(Scheme::Basic, &basic.step(None).unwrap()), "Basic YWxpY2U6cHc=");
        assert!(basic.step(None).is_err());
    }
}
