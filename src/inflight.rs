//! The bytes of request bodies both servers (the sandbox and the webhook listener) hold while
//! they arrive, kept under one cap per server and shared fairly between senders:
//!
//! - a body reserves its announced size (the body limit when it announces none) before a byte is
//!   read, so the bytes held never pass [`BudgetLimits::total_bytes`];
//! - each sender's address may hold at most [`BudgetLimits::per_address_bytes`] and read at most
//!   [`BudgetLimits::per_address_bodies`] bodies at once; its further requests wait their turn with
//!   their bodies unread (in the kernel's buffers, not ours), and past
//!   [`BudgetLimits::per_address_waiting`] waiting ones it is answered 429 at once. So a flood
//!   from one address cannot keep another sender's delivery, or a token request, waiting;
//! - when the whole budget is taken and a body must wait, the slowest body under way (under
//!   [`SLOW_BYTES_PER_SEC`] after [`SHED_AFTER`]) is cut off first: slow bodies are shed before
//!   anyone waits for them.
//!
//! The address is the peer's; for a peer on the loopback interface (a tunnel or a reverse proxy
//! on the same machine) the client it names in `CF-Connecting-IP`, `X-Forwarded-For` (first) or
//! `X-Real-IP`, because every sender then arrives from 127.0.0.1.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::http::HeaderMap;
use futures_util::StreamExt as _;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// A body slower than this (16 KiB/s) may be cut off to make room once it has had [`SHED_AFTER`].
pub const SLOW_BYTES_PER_SEC: f64 = 16.0 * 1024.0;
/// How long a body is given before it can be judged slow (2 s).
pub const SHED_AFTER: Duration = Duration::from_secs(2);

/// The caps of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetLimits {
    /// Body bytes held at once across all connections (default 96 MiB).
    pub total_bytes: usize,
    /// Body bytes one address may hold at once (default 16 MiB).
    pub per_address_bytes: usize,
    /// Bodies one address may be sending at once (default 16).
    pub per_address_bodies: usize,
    /// Requests of one address that may wait for their turn (default 1,024); past it, 429.
    pub per_address_waiting: usize,
}

impl Default for BudgetLimits {
    fn default() -> Self {
        BudgetLimits {
            total_bytes: 96 * 1024 * 1024,
            per_address_bytes: 16 * 1024 * 1024,
            per_address_bodies: 16,
            per_address_waiting: 1024,
        }
    }
}

/// Why a body was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// Larger than the limit (announced or on arrival).
    OverLimit,
    /// The sender's address has too many requests waiting: answer 429.
    TooMany,
    /// No room came within the wait: answer 503.
    Busy,
    /// Cut off to make room for others, being too slow: answer 503.
    Shed,
    /// The body did not arrive in time, or the connection failed.
    Read(String),
}

#[derive(Default)]
struct Address {
    bytes: usize,
    bodies: usize,
    waiting: usize,
}

struct Reader {
    address: IpAddr,
    started: Instant,
    read: usize,
    cut: CancellationToken,
}

#[derive(Default)]
struct State {
    used: usize,
    addresses: HashMap<IpAddr, Address>,
    readers: HashMap<u64, Reader>,
    next: u64,
}

struct Inner {
    limits: BudgetLimits,
    state: Mutex<State>,
    freed: Notify,
}

/// The body budget of one server (cheap to clone; clones share it).
#[derive(Clone)]
pub struct BodyBudget(Arc<Inner>);

impl BodyBudget {
    /// A budget with `limits`.
    pub fn new(limits: BudgetLimits) -> Self {
        BodyBudget(Arc::new(Inner { limits, state: Mutex::new(State::default()), freed: Notify::new() }))
    }

    /// Body bytes held now (for tests and logs).
    pub fn held(&self) -> usize {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner).used
    }

    /// Requests of `address` waiting for room (for tests).
    #[cfg(test)]
    fn waiting(&self, address: IpAddr) -> usize {
        let state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.addresses.get(&address).map_or(0, |a| a.waiting)
    }

    /// Reads `body` of at most `limit` bytes for `address`, waiting at most `wait` for room and
    /// `timeout` for the body once it is being read.
    pub async fn read(
        &self,
        address: IpAddr,
        body: Body,
        limit: usize,
        announced: Option<u64>,
        wait: Duration,
        timeout: Duration,
    ) -> Result<Vec<u8>, BodyError> {
        if announced.is_some_and(|n| n > limit as u64) {
            return Err(BodyError::OverLimit);
        }
        let reserve = announced.map_or(limit, |n| n as usize).max(1);
        let (id, cut) = self.reserve(address, reserve, wait).await?;
        let _release = Release { budget: self, id, address, reserve };
        let reading = async {
            let mut bytes = Vec::with_capacity(announced.map_or(0, |n| n as usize));
            let mut stream = body.into_data_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| BodyError::Read(e.to_string()))?;
                if bytes.len() + chunk.len() > limit {
                    return Err(BodyError::OverLimit);
                }
                bytes.extend_from_slice(&chunk);
                self.progress(id, bytes.len());
            }
            Ok(bytes)
        };
        tokio::select! {
            _ = cut.cancelled() => Err(BodyError::Shed),
            read = tokio::time::timeout(timeout, reading) => match read {
                Ok(read) => read,
                Err(_) => Err(BodyError::Read(format!("it did not arrive within {} s", timeout.as_secs()))),
            },
        }
    }

    fn progress(&self, id: u64, read: usize) {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(reader) = state.readers.get_mut(&id) {
            reader.read = read;
        }
    }

    async fn reserve(
        &self,
        address: IpAddr,
        reserve: usize,
        wait: Duration,
    ) -> Result<(u64, CancellationToken), BodyError> {
        let limits = self.0.limits;
        let deadline = Instant::now() + wait;
        let mut waiting = false;
        let result = loop {
            let notified = self.0.freed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
                let used = state.used;
                let entry = state.addresses.entry(address).or_default();
                let address_fits = entry.bodies < limits.per_address_bodies
                    && (entry.bytes == 0 || entry.bytes + reserve <= limits.per_address_bytes);
                let total_fits = used == 0 || used + reserve <= limits.total_bytes;
                if address_fits && total_fits {
                    entry.bytes += reserve;
                    entry.bodies += 1;
                    if waiting {
                        entry.waiting -= 1;
                    }
                    state.used += reserve;
                    let id = state.next;
                    state.next += 1;
                    let cut = CancellationToken::new();
                    state.readers.insert(id, Reader { address, started: Instant::now(), read: 0, cut: cut.clone() });
                    break Ok((id, cut));
                }
                if !waiting {
                    if entry.waiting >= limits.per_address_waiting {
                        break Err(BodyError::TooMany);
                    }
                    entry.waiting += 1;
                    waiting = true;
                }
                if address_fits && !total_fits {
                    shed_slowest(&state);
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                break Err(BodyError::Busy);
            }
        };
        if result.is_err() && waiting {
            let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(entry) = state.addresses.get_mut(&address) {
                entry.waiting -= 1;
            }
            forget_idle(&mut state, address);
        }
        result
    }
}

/// Cuts off the slowest body that has had its time and is under the slow rate.
fn shed_slowest(state: &State) {
    let now = Instant::now();
    let slowest = state
        .readers
        .values()
        .filter(|r| !r.cut.is_cancelled())
        .filter_map(|r| {
            let elapsed = now.duration_since(r.started);
            let rate = r.read as f64 / elapsed.as_secs_f64().max(0.001);
            (elapsed >= SHED_AFTER && rate < SLOW_BYTES_PER_SEC).then_some((rate, r))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((rate, reader)) = slowest {
        tracing::info!("cut off a body from {} arriving at {rate:.0} bytes/s to make room for others", reader.address);
        reader.cut.cancel();
    }
}

fn forget_idle(state: &mut State, address: IpAddr) {
    if state.addresses.get(&address).is_some_and(|a| a.bodies == 0 && a.waiting == 0 && a.bytes == 0) {
        state.addresses.remove(&address);
    }
}

struct Release<'a> {
    budget: &'a BodyBudget,
    id: u64,
    address: IpAddr,
    reserve: usize,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        let mut state = self.budget.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.used -= self.reserve;
        state.readers.remove(&self.id);
        if let Some(entry) = state.addresses.get_mut(&self.address) {
            entry.bytes -= self.reserve;
            entry.bodies -= 1;
        }
        forget_idle(&mut state, self.address);
        drop(state);
        self.budget.0.freed.notify_waiters();
    }
}

/// The body length a request announces: its `Content-Length`, or 0 when it has neither that nor
/// `Transfer-Encoding` (HTTP/1.1 then has no body); `None` for a chunked body.
pub fn announced_length(headers: &HeaderMap) -> Option<u64> {
    match headers.get(axum::http::header::CONTENT_LENGTH) {
        Some(value) => value.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()),
        None if headers.contains_key(axum::http::header::TRANSFER_ENCODING) => None,
        None => Some(0),
    }
}

/// The address a request counts against: the peer's, or for a loopback peer (a tunnel or proxy
/// on this machine) the client it names.
pub fn sender_address(peer: Option<SocketAddr>, headers: &HeaderMap) -> IpAddr {
    let peer = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |p| p.ip());
    if !peer.is_loopback() {
        return peer;
    }
    let named = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok())
    };
    named("cf-connecting-ip").or_else(|| named("x-forwarded-for")).or_else(|| named("x-real-ip")).unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> BudgetLimits {
        BudgetLimits { total_bytes: 100, per_address_bytes: 50, per_address_bodies: 2, per_address_waiting: 1 }
    }

    /// A body that sends `first` and then nothing until its sender is dropped.
    fn stalled(first: &'static [u8]) -> (Body, tokio::sync::mpsc::Sender<()>) {
        let (keep, mut gone) = tokio::sync::mpsc::channel::<()>(1);
        let stream = async_stream(first, async move {
            let _ = gone.recv().await;
        });
        (Body::from_stream(stream), keep)
    }

    fn async_stream(
        first: &'static [u8],
        end: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> impl futures_util::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + 'static {
        futures_util::stream::once(async move { Ok(first.to_vec()) }).chain(futures_util::stream::once(async move {
            end.await;
            Err(std::io::Error::other("gone"))
        }))
    }

    #[tokio::test]
    async fn a_flooding_address_waits_or_gets_429_while_another_is_read_at_once() {
        let budget = BodyBudget::new(limits());
        let flood: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let wait = Duration::from_secs(30);
        let mut keep = Vec::new();
        let mut tasks = Vec::new();
        for _ in 0..2 {
            let (body, k) = stalled(b"x");
            keep.push(k);
            let b = budget.clone();
            tasks.push(tokio::spawn(async move { b.read(flood, body, 25, Some(25), wait, wait).await }));
        }
        while budget.held() < 50 {
            tokio::task::yield_now().await;
        }
        // A third body of the flood waits (its place in line), a fourth is refused.
        let (body, k) = stalled(b"x");
        keep.push(k);
        let b = budget.clone();
        let third = tokio::spawn(async move { b.read(flood, body, 25, Some(25), wait, wait).await });
        while budget.waiting(flood) < 1 {
            tokio::task::yield_now().await;
        }
        assert_eq!(budget.read(flood, Body::from("y"), 25, Some(1), wait, wait).await, Err(BodyError::TooMany));
        assert_eq!(budget.read(other, Body::from("hello"), 25, Some(5), wait, wait).await.unwrap(), b"hello");
        drop(keep);
        for task in tasks {
            assert!(task.await.unwrap().is_err());
        }
        assert!(third.await.unwrap().is_err());
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_loopback_peer_counts_as_the_client_it_names() {
        let mut headers = HeaderMap::new();
        let local: SocketAddr = "127.0.0.1:5".parse().unwrap();
        let remote: SocketAddr = "192.0.2.1:5".parse().unwrap();
        headers.insert("x-forwarded-for", "198.51.100.7, 10.0.0.1".parse().unwrap());
        assert_eq!(sender_address(Some(local), &headers), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(sender_address(Some(remote), &headers), remote.ip());
        assert_eq!(sender_address(Some(local), &HeaderMap::new()), local.ip());
    }
}
