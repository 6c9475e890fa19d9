//! Proxy sign-in as the system does it: the NTLM and Negotiate handshakes that `crate::net`'s
//! relay answers a proxy's challenges with (Basic is net's own, the same everywhere). On Windows
//! they are Windows' own (SSPI): with the signed-in person's account, or with the user of the
//! proxy URL and the password when both are given. Elsewhere NTLM is computed by the `sspi` crate
//! (built on every system but Windows: Cargo.toml) with the user of the proxy URL (`DOMAIN\user`
//! or `user@domain`) and the password; Negotiate (Kerberos) is answered on Windows only. Both
//! halves are kept in this one file, as `system_proxy.rs`'s are: one job, told side by side.

use crate::secret::Secret;

/// Whether the system itself signs in to a proxy (Windows' SSPI): NTLM and Negotiate with the
/// account of the person signed in, no password needed. Elsewhere NTLM needs a user and a
/// password (computed by orgql), and Negotiate is not answered.
pub const SYSTEM_SIGN_IN: bool = cfg!(windows);

/// One side of an NTLM or Negotiate handshake with a proxy, as the system answers it.
pub struct ProxyHandshake(Inner);

#[cfg(windows)]
type Inner = windows_sspi::Sspi;
#[cfg(not(windows))]
type Inner = ntlm::Ntlm;

impl std::fmt::Debug for ProxyHandshake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyHandshake").finish_non_exhaustive()
    }
}

impl ProxyHandshake {
    /// The next token to send, from the proxy's `challenge` (`None` for the first leg).
    pub fn next_token(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
        self.0.step(challenge)
    }
}

/// A new handshake of `scheme` (`NTLM` or `Negotiate`, as the proxy names it) with the proxy
/// `proxy_host` (Kerberos asks a ticket for `HTTP/proxy_host`), as `identity` (the user of the
/// proxy URL and its password) or, on Windows, as the person signed in when there is none.
pub fn proxy_handshake(
    scheme: &str,
    proxy_host: &str,
    identity: Option<(&str, &Secret)>,
) -> Result<ProxyHandshake, String> {
    #[cfg(windows)]
    {
        windows_sspi::Sspi::new(scheme, proxy_host, identity).map(ProxyHandshake)
    }
    #[cfg(not(windows))]
    {
        match identity {
            _ if !scheme.eq_ignore_ascii_case("NTLM") => Err(format!("{scheme} sign-in is answered on Windows only")),
            Some((user, password)) => ntlm::Ntlm::new(user, password, proxy_host).map(ProxyHandshake),
            None => Err("NTLM sign-in needs a user and a password".to_owned()),
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

    impl Ntlm {
        pub(super) fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
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
mod windows_sspi {
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
        pub(super) fn new(scheme: &str, proxy_host: &str, identity: Option<(&str, &Secret)>) -> Result<Self, String> {
            let package = wide(scheme);
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
                return Err(format!("Windows gave no {} sign-in for this account (0x{:08X})", scheme, status as u32));
            }
            Ok(Sspi { credentials, context: None, target: wide(&format!("HTTP/{proxy_host}")), done: false })
        }
    }

    impl Sspi {
        pub(super) fn step(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
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
    #[cfg(not(windows))]
    #[test]
    fn ntlm_starts_with_a_negotiate_message() {
        let password = crate::secret::Secret::new("pw");
        let mut ntlm = super::proxy_handshake("NTLM", "proxy.corp", Some(("CORP\\alice", &password))).unwrap();
        let first = ntlm.next_token(None).unwrap();
        assert_eq!(&first[..8], b"NTLMSSP\0");
        assert_eq!(first[8], 1, "type 1");
        assert!(ntlm.next_token(Some(b"not a challenge")).is_err());
        assert!(super::proxy_handshake("Negotiate", "proxy.corp", Some(("alice", &password))).is_err());
    }
}
