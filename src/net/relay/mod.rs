//! The proxy sign-in relay: NTLM and Negotiate sign a connection in, so both legs of the
//! handshake must travel on the one TCP connection that then carries the tunnel — which reqwest's
//! own proxy support cannot do. A client of `src/net` that may have to sign in to its proxy gets
//! a relay on 127.0.0.1 (a tokio task, stopped with the client) and reqwest uses it as its proxy
//! for `https` services: for each `CONNECT` the relay opens the real proxy, asks for the tunnel
//! there, answers the proxy's `407` on the same connection (Negotiate, NTLM or Basic, as the
//! proxy asks and [`Credentials::choose`] allows), then splices bytes both ways.
//!
//! Bounds: a head (the request's, each answer's) is at most [`Limits::max_head`] bytes and
//! arrives within [`Limits::head`]; the proxy is reached within [`Limits::connect`]; a 407's body
//! is read (to keep its connection) only up to [`Limits::max_body`]; a tunnel silent both ways for
//! [`Limits::idle`] is closed; at most [`Limits::connections`] at once, each with two fixed
//! buffers. Only reqwest may use it: each `CONNECT` must carry the relay's own random key (a
//! local program cannot borrow the person's sign-in), and loopback targets are refused (never
//! proxied). When the proxy refuses, reqwest is given the proxy's status (and its schemes for a
//! 407), so the obstacle is named as without the relay.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::sign_in::{self, Credentials, Handshake, Scheme};

/// The user name reqwest gives the relay (with the relay's key as the password).
pub(crate) const RELAY_USER: &str = "orgql-relay";

/// The relay's bounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// How long a head (the request's, each of the proxy's answers) may take to arrive.
    pub head: Duration,
    /// How long reaching the proxy may take.
    pub connect: Duration,
    /// How long a tunnel may stay silent both ways before it is closed.
    pub idle: Duration,
    /// The longest head, in bytes.
    pub max_head: usize,
    /// The longest body of a `407` read to keep its connection, in bytes.
    pub max_body: usize,
    /// How many connections at once (more wait for one to end).
    pub connections: usize,
    /// How many `CONNECT`s one tunnel may take (the unsigned one, then each leg).
    pub legs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            head: Duration::from_secs(30),
            connect: Duration::from_secs(30),
            // Longer than reqwest's pool keeps an idle connection (90 s): the relay never cuts
            // one under it.
            idle: Duration::from_secs(300),
            max_head: 16 * 1024,
            max_body: 64 * 1024,
            connections: 64,
            legs: 5,
        }
    }
}

/// What one direction of a tunnel reads at a time.
const BUFFER: usize = 16 * 1024;

/// A relay running; it stops (its listener and every tunnel) when dropped.
pub(crate) struct Relay {
    address: SocketAddr,
    key: String,
    stop: CancellationToken,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay").field("address", &self.address).finish_non_exhaustive()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

struct Shared {
    /// The real proxy's host and port.
    proxy: (String, u16),
    credentials: Credentials,
    /// `Proxy-Authorization` reqwest must send.
    expected: String,
    /// The scheme the proxy took last: the next tunnel starts with it (one round trip less).
    known: Mutex<Option<Scheme>>,
    limits: Limits,
}

impl Relay {
    /// A relay to the proxy at `proxy` (host, port), signing in with `credentials`. Its task runs
    /// on the current tokio runtime, or on a thread of its own when there is none.
    pub(crate) fn start(proxy: (String, u16), credentials: Credentials, limits: Limits) -> std::io::Result<Relay> {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let key: String = rand::random::<[u8; 16]>().iter().map(|b| format!("{b:02x}")).collect();
        let expected =
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{RELAY_USER}:{key}")));
        let stop = CancellationToken::new();
        let shared = Arc::new(Shared { proxy, credentials, expected, known: Mutex::new(None), limits });
        let serve = serve(listener, shared, stop.clone());
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(serve);
            }
            Err(_) => {
                std::thread::Builder::new().name("orgql-proxy-relay".to_owned()).spawn(move || {
                    if let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
                        runtime.block_on(serve);
                    }
                })?;
            }
        }
        Ok(Relay { address, key, stop })
    }

    /// Its URL, for reqwest's proxy setting.
    pub(crate) fn url(&self) -> reqwest::Url {
        reqwest::Url::parse(&format!("http://{}", self.address)).expect("a socket address is a URL's host")
    }

    /// The key reqwest signs in to it with (as the password of [`RELAY_USER`]).
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

async fn serve(listener: std::net::TcpListener, shared: Arc<Shared>, stop: CancellationToken) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
    let slots = Arc::new(tokio::sync::Semaphore::new(shared.limits.connections));
    loop {
        let permit = tokio::select! {
            () = stop.cancelled() => return,
            permit = slots.clone().acquire_owned() => match permit { Ok(p) => p, Err(_) => return },
        };
        let stream = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors, say: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let shared = shared.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = connection(stream, &shared) => {}
            }
            drop(permit);
        });
    }
}

/// Why reading from a peer stopped.
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    Closed,
    Timeout,
    TooLarge,
}

/// A connection and what was read from it but not yet used.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn new(stream: TcpStream) -> Conn {
        Conn { stream, buf: Vec::new() }
    }

    /// Reads until `buf` holds `len` bytes (at most `len` + 4 KiB are ever held).
    async fn fill(&mut self, len: usize) -> Result<(), Failure> {
        let mut chunk = [0u8; 4096];
        while self.buf.len() < len {
            let n = self.stream.read(&mut chunk).await.map_err(|_| Failure::Closed)?;
            if n == 0 {
                return Err(Failure::Closed);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
        Ok(())
    }

    /// A head, up to its blank line, within the limits; what follows stays in `buf`.
    async fn read_head(&mut self, limits: &Limits) -> Result<Vec<u8>, Failure> {
        let read = async {
            loop {
                if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let rest = self.buf.split_off(end + 4);
                    return Ok(std::mem::replace(&mut self.buf, rest));
                }
                if self.buf.len() >= limits.max_head {
                    return Err(Failure::TooLarge);
                }
                let len = self.buf.len() + 1;
                self.fill(len).await?;
            }
        };
        tokio::time::timeout(limits.head, read).await.map_err(|_| Failure::Timeout)?
    }

    /// A line of a chunked body (a size, a trailer), without its CRLF; at most 1 KiB.
    async fn read_line(&mut self) -> Result<Vec<u8>, Failure> {
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let rest = self.buf.split_off(end + 2);
                let mut line = std::mem::replace(&mut self.buf, rest);
                line.truncate(end);
                return Ok(line);
            }
            if self.buf.len() > 1024 {
                return Err(Failure::TooLarge);
            }
            let len = self.buf.len() + 1;
            self.fill(len).await?;
        }
    }

    /// Skips `len` bytes.
    async fn skip(&mut self, mut len: usize) -> Result<(), Failure> {
        while len > 0 {
            let step = len.min(BUFFER);
            self.fill(step).await?;
            self.buf.drain(..step);
            len -= step;
        }
        Ok(())
    }

    /// Reads past the body of `answer` (bounded in time and size); whether the connection can
    /// carry the next request.
    async fn skip_body(&mut self, answer: &Answer, limits: &Limits) -> bool {
        let skip = async {
            match answer.body {
                Body::Length(len) if len <= limits.max_body => self.skip(len).await.map(|()| true),
                Body::Length(_) | Body::UntilClose => Ok(false),
                Body::Chunked => {
                    let mut total = 0usize;
                    loop {
                        let line = self.read_line().await?;
                        let size = std::str::from_utf8(&line)
                            .ok()
                            .and_then(|l| usize::from_str_radix(l.split(';').next().unwrap_or("").trim(), 16).ok())
                            .ok_or(Failure::TooLarge)?;
                        if size == 0 {
                            while !self.read_line().await?.is_empty() {}
                            return Ok(true);
                        }
                        total = total.saturating_add(size);
                        if total > limits.max_body {
                            return Ok(false);
                        }
                        self.skip(size + 2).await?;
                    }
                }
            }
        };
        answer.keep_alive && matches!(tokio::time::timeout(limits.head, skip).await, Ok(Ok(true)))
    }
}

/// How an answer's body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Length(usize),
    Chunked,
    UntilClose,
}

/// The proxy's answer to a `CONNECT`.
#[derive(Debug)]
struct Answer {
    status: u16,
    reason: String,
    /// Each `Proxy-Authenticate`: its scheme and its token, when it carries one.
    challenges: Vec<(String, Option<String>)>,
    keep_alive: bool,
    body: Body,
}

impl Answer {
    fn parse(head: &[u8]) -> Option<Answer> {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut response = httparse::Response::new(&mut headers);
        if !matches!(response.parse(head), Ok(httparse::Status::Complete(_))) {
            return None;
        }
        let status = response.code?;
        let reason = response.reason.unwrap_or("").chars().filter(|c| !c.is_control()).take(80).collect();
        let value = |h: &httparse::Header<'_>| String::from_utf8_lossy(h.value).into_owned();
        let mut challenges = Vec::new();
        let mut keep_alive = response.version == Some(1);
        let mut body = if (200..300).contains(&status) { Body::Length(0) } else { Body::UntilClose };
        for header in response.headers.iter() {
            let name = header.name.to_ascii_lowercase();
            match name.as_str() {
                "proxy-authenticate" => {
                    let value = value(header);
                    let (scheme, token) = sign_in::challenge(&value);
                    if !scheme.is_empty() {
                        challenges.push((scheme.to_owned(), token.map(str::to_owned)));
                    }
                }
                "connection" | "proxy-connection" => {
                    let value = value(header).to_ascii_lowercase();
                    if value.split(',').any(|t| t.trim() == "close") {
                        keep_alive = false;
                    } else if value.split(',').any(|t| t.trim() == "keep-alive") {
                        keep_alive = true;
                    }
                }
                "content-length" if body != Body::Chunked => {
                    body = value(header).trim().parse().map_or(Body::UntilClose, Body::Length);
                }
                "transfer-encoding" if value(header).to_ascii_lowercase().contains("chunked") => {
                    body = Body::Chunked;
                }
                _ => {}
            }
        }
        if body == Body::UntilClose {
            keep_alive = false;
        }
        Some(Answer { status, reason, challenges, keep_alive, body })
    }

    /// The answer reqwest is given when the proxy refused the tunnel: its status, and for a 407
    /// the schemes it asks for (no tokens), without a body.
    fn refusal(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, self.reason);
        for (scheme, _) in &self.challenges {
            head.push_str(&format!("Proxy-Authenticate: {scheme}\r\n"));
        }
        head.push_str("Content-Length: 0\r\nConnection: close\r\n\r\n");
        head.into_bytes()
    }
}

/// The relay's own answer (not the proxy's).
fn answer(status: u16, reason: &str) -> Vec<u8> {
    format!("HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
}

/// Whether `a` equals `b`, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// One connection from reqwest: its `CONNECT`, the tunnel through the proxy, the splice.
async fn connection(stream: TcpStream, shared: &Shared) {
    let limits = shared.limits;
    let mut inbound = Conn::new(stream);
    let checked = match inbound.read_head(&limits).await {
        Ok(head) => check_request(&head, shared),
        Err(Failure::TooLarge) => Err(answer(431, "Request Header Fields Too Large")),
        Err(_) => return,
    };
    let target = match checked {
        Ok(target) => target,
        Err(refusal) => {
            let _ = tokio::time::timeout(limits.head, inbound.stream.write_all(&refusal)).await;
            return;
        }
    };
    match open_tunnel(shared, &target).await {
        Ok(mut upstream) => {
            let greet = async {
                inbound.stream.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await?;
                // What either side sent past its head (none, as a rule) goes on first.
                upstream.stream.write_all(&inbound.buf).await?;
                inbound.stream.write_all(&upstream.buf).await
            };
            if matches!(tokio::time::timeout(limits.head, greet).await, Ok(Ok(()))) {
                splice(inbound.stream, upstream.stream, limits.idle).await;
            }
        }
        Err(refusal) => {
            let _ = tokio::time::timeout(limits.head, inbound.stream.write_all(&refusal)).await;
        }
    }
}

/// The target of reqwest's `CONNECT`, or the answer refusing it.
fn check_request(head: &[u8], shared: &Shared) -> Result<String, Vec<u8>> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    if !matches!(request.parse(head), Ok(httparse::Status::Complete(_))) {
        return Err(answer(400, "Bad Request"));
    }
    if request.method != Some("CONNECT") {
        return Err(answer(405, "Method Not Allowed"));
    }
    let authorized = request
        .headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("proxy-authorization") && same(h.value, shared.expected.as_bytes()));
    if !authorized {
        return Err(answer(403, "Forbidden"));
    }
    let target = request.path.unwrap_or_default();
    let url = reqwest::Url::parse(&format!("http://{target}/")).map_err(|_| answer(400, "Bad Request"))?;
    if super::is_loopback(&url) {
        return Err(answer(403, "Forbidden"));
    }
    Ok(target.to_owned())
}

/// Runs one step of `handshake` off the runtime's threads (Windows may ask a domain controller).
async fn step(
    handshake: Box<dyn Handshake>,
    challenge: Option<Vec<u8>>,
) -> Result<(Box<dyn Handshake>, Vec<u8>), String> {
    tokio::task::spawn_blocking(move || {
        let mut handshake = handshake;
        let token = handshake.step(challenge.as_deref())?;
        Ok((handshake, token))
    })
    .await
    .map_err(|_| "the sign-in stopped".to_owned())?
}

/// Opens the proxy, within the limits.
async fn reach(shared: &Shared) -> Result<Conn, Vec<u8>> {
    let (host, port) = &shared.proxy;
    match tokio::time::timeout(shared.limits.connect, TcpStream::connect((host.as_str(), *port))).await {
        Ok(Ok(stream)) => Ok(Conn::new(stream)),
        _ => Err(answer(502, "Bad Gateway")),
    }
}

/// A tunnel to `target` through the proxy, signed in as it asks; or the answer for reqwest.
async fn open_tunnel(shared: &Shared, target: &str) -> Result<Conn, Vec<u8>> {
    let limits = &shared.limits;
    let bad_gateway = || answer(502, "Bad Gateway");
    let remembered = *shared.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut conn = reach(shared).await?;
    // The scheme being answered, its handshake, and the token to send.
    let mut signing: Option<(Scheme, Box<dyn Handshake>, Vec<u8>)> = None;
    if let Some(scheme) = remembered {
        let handshake = shared.credentials.start(scheme).map_err(|_| bad_gateway())?;
        let (handshake, token) = step(handshake, None).await.map_err(|_| bad_gateway())?;
        signing = Some((scheme, handshake, token));
    }
    // Whether `conn` already carried a request (a proxy may close it after a 407 without saying
    // so): then a failure to send or to read the answer is retried once, on a new connection.
    let mut reused = false;
    let mut retried = false;
    for _ in 0..limits.legs {
        let authorization = signing
            .as_ref()
            .map(|(scheme, _, token)| format!("Proxy-Authorization: {}\r\n", sign_in::authorization(*scheme, token)))
            .unwrap_or_default();
        let request = format!(
            "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{authorization}Proxy-Connection: Keep-Alive\r\n\r\n"
        );
        let sent = tokio::time::timeout(limits.head, conn.stream.write_all(request.as_bytes())).await;
        let head = match sent {
            Ok(Ok(())) => conn.read_head(limits).await,
            _ => Err(Failure::Closed),
        };
        let head = match head {
            Ok(head) => head,
            Err(Failure::Closed) if reused && !retried => {
                // Again from the scheme's first leg, on a connection of its own.
                retried = true;
                reused = false;
                conn = reach(shared).await?;
                if let Some((scheme, _, _)) = signing.take() {
                    let handshake = shared.credentials.start(scheme).map_err(|_| bad_gateway())?;
                    let (handshake, token) = step(handshake, None).await.map_err(|_| bad_gateway())?;
                    signing = Some((scheme, handshake, token));
                }
                continue;
            }
            Err(_) => return Err(bad_gateway()),
        };
        reused = true;
        let reply = Answer::parse(&head).ok_or_else(bad_gateway)?;
        if (200..300).contains(&reply.status) {
            *shared.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                signing.map(|(scheme, _, _)| scheme);
            return Ok(conn);
        }
        if reply.status != 407 {
            return Err(reply.refusal());
        }
        let reusable = conn.skip_body(&reply, limits).await;
        match signing.take() {
            None => {
                let offered: Vec<&str> = reply.challenges.iter().map(|(s, _)| s.as_str()).collect();
                let scheme = shared.credentials.choose(&offered).ok_or_else(|| reply.refusal())?;
                let handshake = shared.credentials.start(scheme).map_err(|_| reply.refusal())?;
                let (handshake, token) = step(handshake, None).await.map_err(|_| reply.refusal())?;
                signing = Some((scheme, handshake, token));
                if !reusable {
                    conn = reach(shared).await?;
                    reused = false;
                }
            }
            Some((scheme, handshake, _)) => {
                // The next leg answers the proxy's challenge, on this same connection; no
                // challenge (or a closed connection) is a refusal.
                let challenge = reply
                    .challenges
                    .iter()
                    .find(|(s, t)| s.eq_ignore_ascii_case(scheme.name()) && t.is_some())
                    .and_then(|(_, t)| sign_in::decode(t.as_deref().unwrap_or_default()));
                let (Some(challenge), true, false) = (challenge, reusable, scheme == Scheme::Basic) else {
                    *shared.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
                    return Err(reply.refusal());
                };
                let (handshake, token) = step(handshake, Some(challenge)).await.map_err(|_| reply.refusal())?;
                signing = Some((scheme, handshake, token));
            }
        }
    }
    Err(answer(407, "Proxy Authentication Required"))
}

/// Copies bytes both ways until both sides have closed, or neither sent anything for `idle`.
async fn splice(a: TcpStream, b: TcpStream, idle: Duration) {
    let (mut a_read, mut a_write) = a.into_split();
    let (mut b_read, mut b_write) = b.into_split();
    let mut a_buf = vec![0u8; BUFFER];
    let mut b_buf = vec![0u8; BUFFER];
    let (mut a_open, mut b_open) = (true, true);
    while a_open || b_open {
        tokio::select! {
            read = a_read.read(&mut a_buf), if a_open => match read {
                Ok(n) if n > 0 => {
                    if !matches!(tokio::time::timeout(idle, b_write.write_all(&a_buf[..n])).await, Ok(Ok(()))) {
                        return;
                    }
                }
                Ok(_) => {
                    a_open = false;
                    let _ = b_write.shutdown().await;
                }
                Err(_) => return,
            },
            read = b_read.read(&mut b_buf), if b_open => match read {
                Ok(n) if n > 0 => {
                    if !matches!(tokio::time::timeout(idle, a_write.write_all(&b_buf[..n])).await, Ok(Ok(()))) {
                        return;
                    }
                }
                Ok(_) => {
                    b_open = false;
                    let _ = a_write.shutdown().await;
                }
                Err(_) => return,
            },
            () = tokio::time::sleep(idle) => return,
        }
    }
}

#[cfg(test)]
mod tests;
