//! The connection limits of orgql's two servers (the sandbox and the webhook listener), as an
//! [`axum::serve::Listener`] over a TCP listener: at most [`ConnectionLimits::max_connections`]
//! connections at once (one more waits in the kernel's backlog, not accepted, so it takes no file
//! descriptor), and a connection on which nothing moves for
//! [`ConnectionLimits::idle_timeout`] (a client that opens a connection and sends nothing, sends
//! its headers or body slower than one byte per timeout, or reads nothing of its answer) is
//! closed.
//!
//! Both servers are served by [`serve`] rather than `axum::serve`: `axum::serve` exposes none of
//! hyper's own settings, and hyper's `header_read_timeout` (a slowloris that sends its headers a
//! byte at a time is closed when [`ConnectionLimits::header_timeout`] has passed, however often a
//! byte arrives) needs the timer and connection builder of hyper-util, which `serve` sets up. It
//! also hands every request its [`crate::serve::forwarded::Connection`] (the peer, and whether it is a
//! forwarder to believe). A listener of our own is the one place both servers share.
//!
//! The room of both servers' connection loop: this file, [`inflight`] (the body budget every
//! request body is read under) and [`forwarded`] (who really sent a request behind a forwarder).

pub mod forwarded;
pub mod inflight;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// How many connections a server keeps and how long an idle one lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections served at once (default 1,024: far above what the app, a sender or a test
    /// opens, far below the usual open-file limits, each connection's buffers a few KiB).
    pub max_connections: usize,
    /// How long a connection may see no byte in either direction (default 30 s: a keep-alive
    /// connection between requests, or a client too slow to matter, is closed; a request being
    /// worked on is not affected, as its connection is not read meanwhile).
    pub idle_timeout: Duration,
    /// Connections one address other than loopback may hold at once (default 128); past it a
    /// new one is answered 429 and closed. Loopback peers are not counted: a tunnel or a reverse
    /// proxy on the same machine carries every sender (their requests are counted per client by
    /// [`crate::serve::inflight`] when the forwarder is believed, [`crate::serve::forwarded`]).
    pub per_address: usize,
    /// How long a request's headers may take to arrive whole (default 5 s; hyper's
    /// `header_read_timeout`, counted from the end of the previous answer on a keep-alive
    /// connection, so it also bounds how long a kept-alive connection waits idle). Past it the
    /// connection is closed without an answer.
    pub header_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 1024,
            idle_timeout: Duration::from_secs(30),
            per_address: 128,
            header_timeout: Duration::from_secs(5),
        }
    }
}

/// The peer of a connection, for handlers (`ConnectInfo<Peer>`, set on every request by [`serve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// What a connection past its address's cap is told before it is closed.
const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-type: text/plain\r\n\
content-length: 56\r\nconnection: close\r\n\r\ntoo many connections from this address; try again later\n";

/// A TCP listener that keeps [`ConnectionLimits`].
pub struct LimitedListener {
    inner: TcpListener,
    header_timeout: Duration,
    permits: Arc<Semaphore>,
    idle_timeout: Duration,
    per_address: usize,
    addresses: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
}

impl LimitedListener {
    /// `listener` with `limits`.
    pub fn new(listener: TcpListener, limits: ConnectionLimits) -> Self {
        LimitedListener {
            inner: listener,
            header_timeout: limits.header_timeout,
            permits: Arc::new(Semaphore::new(limits.max_connections.max(1))),
            idle_timeout: limits.idle_timeout,
            per_address: limits.per_address.max(1),
            addresses: Default::default(),
        }
    }
}

/// One connection counted against its address (not for loopback peers).
struct AddressSlot {
    addresses: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
    ip: std::net::IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut addresses = self.addresses.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = addresses.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                addresses.remove(&self.ip);
            }
        }
    }
}

impl axum::serve::Listener for LimitedListener {
    type Io = LimitedIo;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // The permit first: past the cap, connections wait unaccepted.
        let permit = match self.permits.clone().acquire_owned().await {
            Ok(permit) => permit,
            // Never closed; were it, serving without the cap beats not serving.
            Err(_) => Arc::new(Semaphore::new(1)).acquire_owned().await.expect("a fresh semaphore is open"),
        };
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    // Answers go out at once, not after Nagle's wait for more bytes.
                    let _ = stream.set_nodelay(true);
                    let slot = if addr.ip().is_loopback() {
                        None
                    } else {
                        let mut addresses = self.addresses.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        let count = addresses.entry(addr.ip()).or_default();
                        if *count >= self.per_address {
                            drop(addresses);
                            tokio::spawn(async move {
                                use tokio::io::AsyncWriteExt as _;
                                let mut stream = stream;
                                let _ = tokio::time::timeout(Duration::from_secs(1), async {
                                    let _ = stream.write_all(TOO_MANY_CONNECTIONS).await;
                                    let _ = stream.shutdown().await;
                                })
                                .await;
                            });
                            continue;
                        }
                        *count += 1;
                        Some(AddressSlot { addresses: self.addresses.clone(), ip: addr.ip() })
                    };
                    let deadline = Box::pin(tokio::time::sleep(self.idle_timeout));
                    let io =
                        LimitedIo { stream, _permit: permit, _slot: slot, idle_timeout: self.idle_timeout, deadline };
                    return (io, addr);
                }
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(err) => {
                    tracing::debug!("accepting a connection failed: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// One accepted connection: its permit, and its idle deadline, moved on by every byte.
pub struct LimitedIo {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    _slot: Option<AddressSlot>,
    idle_timeout: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl LimitedIo {
    fn moved(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle_timeout);
    }

    /// After a `Pending`: an error once the connection has been idle too long.
    fn idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, "the connection was idle too long")),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for LimitedIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.moved();
                }
                Poll::Ready(result)
            }
            Poll::Pending => this.idle(cx).map(Err),
        }
    }
}

impl AsyncWrite for LimitedIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Ready(Ok(written)) => {
                if written > 0 {
                    this.moved();
                }
                Poll::Ready(Ok(written))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => this.idle(cx).map(Err),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_flush(cx) {
            Poll::Pending => this.idle(cx).map(Err),
            ready => ready,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(written)) => {
                if written > 0 {
                    this.moved();
                }
                Poll::Ready(Ok(written))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => this.idle(cx).map(Err),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The most a connection's read buffer holds (32 KiB; hyper's default is about 400 KiB): under a
/// flood of large bodies every waiting connection keeps its buffer beside its body's share, so 800
/// of them held 800 × 400 KiB. 32 KiB still takes any request head orgql's servers expect (a
/// larger head is refused with 431), and bounds the chunks a body arrives in.
pub const READ_BUFFER: usize = 32 * 1024;

/// Serves `router` on `listener` until `stop` is cancelled, then waits for the requests under
/// way (idle keep-alive connections are closed at once). Each request carries the extensions
/// `ConnectInfo<Peer>` and [`crate::serve::forwarded::Connection`] (judged against `forwarders`).
pub async fn serve(
    mut listener: LimitedListener,
    router: axum::Router,
    forwarders: crate::serve::forwarded::Forwarders,
    stop: tokio_util::sync::CancellationToken,
) {
    use axum::serve::Listener as _;
    use tower::ServiceExt as _;

    let local = match listener.local_addr() {
        Ok(local) => local,
        Err(err) => {
            tracing::error!("the server has no local address: {err}");
            return;
        }
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(listener.header_timeout)
        .max_buf_size(READ_BUFFER);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (io, peer) = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let connection = crate::serve::forwarded::Connection::new(peer, local, forwarders.clone());
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: axum::http::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(axum::extract::ConnectInfo(Peer(peer)));
            request.extensions_mut().insert(connection.clone());
            router.clone().oneshot(request.map(axum::body::Body::new))
        });
        let serving = http.serve_connection(hyper_util::rt::TokioIo::new(io), service);
        let stop = stop.clone();
        connections.spawn(async move {
            tokio::pin!(serving);
            let result = tokio::select! {
                result = serving.as_mut() => result,
                _ = stop.cancelled() => {
                    serving.as_mut().graceful_shutdown();
                    serving.await
                }
            };
            if let Err(err) = result {
                tracing::debug!("a connection from {peer} ended: {err}");
            }
        });
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}
