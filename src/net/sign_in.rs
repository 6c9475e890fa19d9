//! Proxy sign-in schemes and their handshakes: Basic (a user and a password), NTLM and Negotiate.
//! On Windows NTLM and Negotiate are Windows' own (SSPI): with the signed-in person's account, or
//! with the user of the proxy URL and the password when both are given. Elsewhere NTLM is
//! computed by the `sspi` crate with the user of the proxy URL (`DOMAIN\user` or `user@domain`)
//! and the password; Negotiate (Kerberos) is answered on Windows only.
//!
//! A handshake turns the proxy's challenge (none for the first leg) into the next token; the relay
//! (`super::relay`) sends each token as `Proxy-Authorization: SCHEME BASE64` on one connection.

use base64::Engine as _;

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
        Some(Scheme::Negotiate) => cfg!(windows),
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
        cfg!(windows) || self.with_password().is_some()
    }

    /// The scheme to answer among the `offered` ones (the first words of the proxy's
    /// `Proxy-Authenticate` headers): Negotiate (Windows), then NTLM, then Basic — never the
    /// password in the clear when the proxy takes a handshake.
    pub(crate) fn choose(&self, offered: &[&str]) -> Option<Scheme> {
        let offers = |scheme: Scheme| offered.iter().any(|o| o.eq_ignore_ascii_case(scheme.name()));
        let password = self.with_password().is_some();
        if cfg!(windows) && offers(Scheme::Negotiate) {
            return Some(Scheme::Negotiate);
        }
        if offers(Scheme::Ntlm) && (cfg!(windows) || password) {
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
            #[cfg(windows)]
            Scheme::Ntlm | Scheme::Negotiate => {
                let identity = self.with_password().map(|(user, password)| (user.to_owned(), password.clone()));
                Ok(Box::new(windows::Sspi::new(scheme, &self.proxy_host, identity)?))
            }
            #[cfg(not(windows))]
            Scheme::Ntlm => {
                let (user, password) = self.with_password().ok_or("NTLM sign-in needs a user and a password")?;
                Ok(Box::new(ntlm::Ntlm::new(user, password, &self.proxy_host)?))
            }
            #[cfg(not(windows))]
            Scheme::Negotiate => Err("Negotiate sign-in is answered on Windows only".to_owned()),
        }
    }
}

/// One side of a sign-in handshake.
pub(crate) trait Handshake: Send {
    /// The next token to send, from the proxy's `challenge` (`None` for the first leg).
    fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String>;
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

#[cfg(not(windows))]
mod ntlm {
    //! NTLMv2 by the `sspi` crate (Devolutions), client side.

    use sspi::{
        AuthIdentity, AuthIdentityBuffers, BufferType, ClientRequestFlags, CredentialUse, DataRepresentation,
        SecurityBuffer, SecurityStatus, Sspi as _, SspiImpl as _, Username,
    };

    use crate::secret::Secret;

    pub(super) struct Ntlm {
        context: sspi::Ntlm,
        credentials: Option<AuthIdentityBuffers>,
        target: String,
        done: bool,
    }

    impl Ntlm {
        pub(super) fn new(user: &str, password: &Secret, proxy_host: &str) -> Result<Self, String> {
            let username = Username::parse(user)
                .map_err(|e| format!("the proxy user '{user}' is not a user name NTLM takes ({e})"))?;
            let identity = AuthIdentity { username, password: password.expose().to_owned().into() };
            let mut context = sspi::Ntlm::new();
            let credentials = context
                .acquire_credentials_handle()
                .with_credential_use(CredentialUse::Outbound)
                .with_auth_data(&identity)
                .execute(&mut context)
                .map_err(|e| format!("NTLM could not start ({})", e.kind_name()))?
                .credentials_handle;
            Ok(Ntlm { context, credentials, target: format!("HTTP/{proxy_host}"), done: false })
        }
    }

    trait KindName {
        fn kind_name(&self) -> String;
    }

    impl KindName for sspi::Error {
        /// The error's kind only: its description may quote what it was given.
        fn kind_name(&self) -> String {
            format!("{:?}", self.error_type)
        }
    }

    impl super::Handshake for Ntlm {
        fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
            if self.done {
                return Err("the NTLM handshake is over".to_owned());
            }
            let mut output = vec![SecurityBuffer::new(Vec::new(), BufferType::Token)];
            let mut input = challenge.map(|c| vec![SecurityBuffer::new(c.to_vec(), BufferType::Token)]);
            let mut builder = self
                .context
                .initialize_security_context()
                .with_credentials_handle(&mut self.credentials)
                .with_context_requirements(ClientRequestFlags::ALLOCATE_MEMORY)
                .with_target_data_representation(DataRepresentation::Native)
                .with_target_name(&self.target)
                .with_output(&mut output);
            if let Some(input) = input.as_mut() {
                builder = builder.with_input(input);
            }
            let result = self
                .context
                .initialize_security_context_impl(&mut builder)
                .and_then(|mut generator| generator.resolve_to_result())
                .map_err(|e| format!("the proxy's NTLM challenge could not be answered ({})", e.kind_name()))?;
            if matches!(result.status, SecurityStatus::CompleteAndContinue | SecurityStatus::CompleteNeeded) {
                self.context
                    .complete_auth_token(&mut output)
                    .map_err(|e| format!("NTLM could not complete its answer ({})", e.kind_name()))?;
            }
            if !matches!(result.status, SecurityStatus::ContinueNeeded | SecurityStatus::CompleteAndContinue) {
                self.done = true;
            }
            Ok(std::mem::take(&mut output[0].buffer))
        }
    }
}

#[cfg(windows)]
mod windows {
    //! Windows' own NTLM and Negotiate (SSPI): `AcquireCredentialsHandleW` with no identity signs
    //! in as the person signed in to Windows; with one, as that user.

    use std::ptr::{null, null_mut};

    use windows_sys::Win32::Foundation::{SEC_E_OK, SEC_I_COMPLETE_AND_CONTINUE, SEC_I_COMPLETE_NEEDED};
    use windows_sys::Win32::Security::Authentication::Identity::{
        AcquireCredentialsHandleW, CompleteAuthToken, DeleteSecurityContext, FreeContextBuffer, FreeCredentialsHandle,
        ISC_REQ_ALLOCATE_MEMORY, ISC_REQ_CONNECTION, InitializeSecurityContextW, SECBUFFER_TOKEN, SECBUFFER_VERSION,
        SECPKG_CRED_OUTBOUND, SECURITY_NATIVE_DREP, SecBuffer, SecBufferDesc,
    };
    use windows_sys::Win32::Security::Credentials::SecHandle;
    use windows_sys::Win32::System::Rpc::{SEC_WINNT_AUTH_IDENTITY_UNICODE, SEC_WINNT_AUTH_IDENTITY_W};

    use super::Scheme;
    use crate::secret::Secret;

    pub(super) struct Sspi {
        credentials: SecHandle,
        context: Option<SecHandle>,
        target: Vec<u16>,
        done: bool,
    }

    // SAFETY: SSPI handles are not tied to the thread that made them; one handshake is used by
    // one task at a time (the relay moves it, never shares it).
    unsafe impl Send for Sspi {}

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(std::iter::once(0)).collect()
    }

    impl Sspi {
        pub(super) fn new(
            scheme: Scheme,
            proxy_host: &str,
            identity: Option<(String, Secret)>,
        ) -> Result<Self, String> {
            let package = wide(scheme.name());
            // `DOMAIN\user` or `user@domain` (the latter whole as the user, as Windows takes it).
            let (mut user, mut domain, mut password) = match &identity {
                Some((user, password)) => {
                    let (domain, user) = user.split_once('\\').unwrap_or(("", user));
                    (wide(user), wide(domain), wide(password.expose()))
                }
                None => (Vec::new(), Vec::new(), Vec::new()),
            };
            let auth = SEC_WINNT_AUTH_IDENTITY_W {
                User: user.as_mut_ptr(),
                UserLength: user.len().saturating_sub(1) as u32,
                Domain: domain.as_mut_ptr(),
                DomainLength: domain.len().saturating_sub(1) as u32,
                Password: password.as_mut_ptr(),
                PasswordLength: password.len().saturating_sub(1) as u32,
                Flags: SEC_WINNT_AUTH_IDENTITY_UNICODE,
            };
            let auth_data = if identity.is_some() { (&raw const auth).cast() } else { null() };
            let mut credentials = SecHandle::default();
            let mut expiry = 0i64;
            // SAFETY: every pointer is valid for the call; the identity's buffers outlive it
            // (SSPI copies them).
            let status = unsafe {
                AcquireCredentialsHandleW(
                    null(),
                    package.as_ptr(),
                    SECPKG_CRED_OUTBOUND,
                    null(),
                    auth_data,
                    None,
                    null(),
                    &mut credentials,
                    &mut expiry,
                )
            };
            password.iter_mut().for_each(|c| *c = 0);
            if status != SEC_E_OK {
                return Err(format!(
                    "Windows gave no {} sign-in for this account (0x{:08X})",
                    scheme.name(),
                    status as u32
                ));
            }
            Ok(Sspi { credentials, context: None, target: wide(&format!("HTTP/{proxy_host}")), done: false })
        }
    }

    impl super::Handshake for Sspi {
        fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
            if self.done {
                return Err("the sign-in handshake is over".to_owned());
            }
            let mut input_bytes = challenge.map(<[u8]>::to_vec).unwrap_or_default();
            let mut input_buffer = SecBuffer {
                cbBuffer: input_bytes.len() as u32,
                BufferType: SECBUFFER_TOKEN,
                pvBuffer: input_bytes.as_mut_ptr().cast(),
            };
            let input = SecBufferDesc { ulVersion: SECBUFFER_VERSION, cBuffers: 1, pBuffers: &mut input_buffer };
            let mut output_buffer = SecBuffer { cbBuffer: 0, BufferType: SECBUFFER_TOKEN, pvBuffer: null_mut() };
            let mut output = SecBufferDesc { ulVersion: SECBUFFER_VERSION, cBuffers: 1, pBuffers: &mut output_buffer };
            let mut context = self.context.unwrap_or_default();
            let mut attributes = 0u32;
            let mut expiry = 0i64;
            // SAFETY: the handles are live, the buffers valid for the call; SSPI allocates the
            // output token (ISC_REQ_ALLOCATE_MEMORY), freed below.
            let status = unsafe {
                InitializeSecurityContextW(
                    &self.credentials,
                    self.context.as_ref().map_or(null(), |c| c as *const SecHandle),
                    self.target.as_ptr(),
                    ISC_REQ_ALLOCATE_MEMORY | ISC_REQ_CONNECTION,
                    0,
                    SECURITY_NATIVE_DREP,
                    if challenge.is_some() { &raw const input } else { null() },
                    0,
                    &mut context,
                    &mut output,
                    &mut attributes,
                    &mut expiry,
                )
            };
            if status >= 0 {
                self.context = Some(context);
            }
            if status == SEC_I_COMPLETE_NEEDED || status == SEC_I_COMPLETE_AND_CONTINUE {
                // SAFETY: the context was just made; `output` holds its token.
                unsafe { CompleteAuthToken(&context, &output) };
            }
            let token = if output_buffer.pvBuffer.is_null() {
                Vec::new()
            } else {
                // SAFETY: SSPI wrote `cbBuffer` bytes at `pvBuffer`, which it allocated.
                let bytes = unsafe {
                    std::slice::from_raw_parts(output_buffer.pvBuffer.cast::<u8>(), output_buffer.cbBuffer as usize)
                }
                .to_vec();
                // SAFETY: allocated by SSPI for this call.
                unsafe { FreeContextBuffer(output_buffer.pvBuffer) };
                bytes
            };
            if status < 0 {
                return Err(format!("Windows could not answer the proxy's challenge (0x{:08X})", status as u32));
            }
            if status == SEC_E_OK || status == SEC_I_COMPLETE_NEEDED {
                self.done = true;
            }
            Ok(token)
        }
    }

    impl Drop for Sspi {
        fn drop(&mut self) {
            // SAFETY: handles made by this struct, freed once.
            unsafe {
                if let Some(context) = &self.context {
                    DeleteSecurityContext(context);
                }
                FreeCredentialsHandle(&self.credentials);
            }
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
        if cfg!(windows) {
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

    #[cfg(not(windows))]
    #[test]
    fn ntlm_starts_with_a_negotiate_message() {
        let mut ntlm = credentials(Some("CORP\\alice"), Some("pw")).start(Scheme::Ntlm).unwrap();
        let first = ntlm.step(None).unwrap();
        assert_eq!(&first[..8], b"NTLMSSP\0");
        assert_eq!(first[8], 1, "type 1");
        assert!(ntlm.step(Some(b"not a challenge")).is_err());
    }
}
