//! The bytes of request bodies both servers (the sandbox and the webhook listener) hold while
//! they arrive, kept under one cap per server, shared fairly between senders, and read at a pace
//! (issue 31):
//!
//! - **a share each**: every body's first [`BudgetLimits::share_bytes`] (64 KiB: a token form,
//!   a GraphQL query or an ordinary delivery whole) are read without asking the budget, so a small
//!   request never waits behind large ones, whoever floods. What this costs is bounded by the
//!   connection cap (`crate::serve`): 1,024 connections × 64 KiB = 64 MiB at most;
//! - **the budget for the rest**: the part above the share reserves its announced size (the body
//!   limit when it announces none) before it is read, so the bytes held beyond the shares never
//!   pass [`BudgetLimits::total_bytes`]; each sender's address may hold at most
//!   [`BudgetLimits::per_address_bytes`] and read at most [`BudgetLimits::per_address_bodies`] such
//!   rests at once; its further ones wait their turn with their bytes unread (in the kernel's
//!   buffers, not ours) for at most [`BudgetLimits::max_wait`] (then 503: who waited longest goes
//!   first), and past [`BudgetLimits::per_address_waiting`] waiting ones 429 at once;
//! - when the whole budget is taken and a body must wait, the slowest body under way (under
//!   [`SLOW_BYTES_PER_SEC`] after [`SHED_AFTER`]) is cut off first;
//! - **a pace** ([`Pace`]): a body must arrive within a deadline that grows with its length (a
//!   minimum rate after a grace) and never pause longer than a longest gap between reads; the time
//!   it waits for the budget is ours and not counted. A body that falls behind is
//!   [`BodyError::Slow`]: the servers answer 408 and close the connection, and its share of the
//!   budget is freed at once.
//!
//! The address is the sender's ([`crate::serve::forwarded`]): the peer's, or the client a trusted
//! forwarder (the tunnel orgql started, a `--trust-proxy` address) names.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::body::{Body, BodyDataStream, Bytes};
use axum::http::HeaderMap;
use futures_util::StreamExt as _;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// A body slower than this (16 KiB/s) may be cut off to make room once it has had [`SHED_AFTER`].
pub const SLOW_BYTES_PER_SEC: f64 = 16.0 * 1024.0;
/// How long a body is given before it can be judged slow (2 s).
pub const SHED_AFTER: Duration = Duration::from_secs(2);

/// The pace a body must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The slowest a body may arrive once its grace is over, in bytes a second (default 32 KiB/s:
    /// 1 MiB in 5 + 32 s; a real sender sends it in well under a second).
    pub min_rate: u64,
    /// The time every body is given before the rate counts (default 5 s).
    pub grace: Duration,
    /// The longest pause between two reads of a body (default 5 s).
    pub max_gap: Duration,
}

impl Default for Pace {
    fn default() -> Self {
        Pace { min_rate: 32 * 1024, grace: Duration::from_secs(5), max_gap: Duration::from_secs(5) }
    }
}

impl Pace {
    /// How long a body of `length` bytes may take to arrive.
    pub fn deadline_for(&self, length: usize) -> Duration {
        self.grace + Duration::from_secs_f64(length as f64 / self.min_rate.max(1) as f64)
    }
}

/// The caps of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetLimits {
    /// Body bytes above the shares held at once across all connections (default 96 MiB).
    pub total_bytes: usize,
    /// Body bytes above the shares one address may hold at once (default 16 MiB).
    pub per_address_bytes: usize,
    /// Bodies above their share one address may be reading at once (default 16).
    pub per_address_bodies: usize,
    /// Requests of one address that may wait for their turn (default 1,024); past it, 429.
    pub per_address_waiting: usize,
    /// The part of every body read without waiting for the budget (default 64 KiB).
    pub share_bytes: usize,
    /// How long a body's rest may wait for room (default 10 s); then 503.
    pub max_wait: Duration,
    /// The pace every body must keep.
    pub pace: Pace,
}

impl Default for BudgetLimits {
    fn default() -> Self {
        BudgetLimits {
            total_bytes: 96 * 1024 * 1024,
            per_address_bytes: 16 * 1024 * 1024,
            per_address_bodies: 16,
            per_address_waiting: 1024,
            share_bytes: 64 * 1024,
            max_wait: Duration::from_secs(10),
            pace: Pace::default(),
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
    /// It fell behind its pace (the sentence says how): answer 408 and close the connection.
    Slow(String),
    /// The connection failed.
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

    /// Reads `body` of at most `limit` bytes (`announced` by its headers) for `address`: its
    /// share at once, the rest under the budget, all of it at the [`Pace`].
    pub async fn read(
        &self,
        address: IpAddr,
        body: Body,
        limit: usize,
        announced: Option<u64>,
    ) -> Result<Vec<u8>, BodyError> {
        if announced.is_some_and(|n| n > limit as u64) {
            return Err(BodyError::OverLimit);
        }
        let limits = self.0.limits;
        let length = announced.map_or(limit, |n| n as usize);
        let mut pacer = Pacer::new(limits.pace, length, body.into_data_stream());
        let share = limits.share_bytes.min(length);
        let mut bytes = Vec::with_capacity(announced.map_or(0, |n| (n as usize).min(share)));
        // The share: never waits for the budget.
        // (Reading on past the announced length finds its end, or a body longer than it said.)
        while bytes.len() < share || bytes.len() >= length {
            match pacer.next().await? {
                None => return Ok(bytes),
                Some(chunk) => append(&mut bytes, &chunk, limit, true)?,
            }
        }
        // The rest: room first, then read while it keeps its pace.
        let reserve = (length - bytes.len().min(length)).max(1);
        let waiting = Instant::now();
        let (id, cut) = self.reserve(address, reserve, limits.max_wait).await?;
        pacer.paused(waiting.elapsed());
        let _release = Release { budget: self, id, address, reserve };
        bytes.reserve(announced.map_or(0, |n| n as usize).saturating_sub(bytes.len()));
        let reading = async move {
            while let Some(chunk) = pacer.next().await? {
                append(&mut bytes, &chunk, limit, false)?;
                self.progress(id, bytes.len());
            }
            Ok(bytes)
        };
        tokio::select! {
            _ = cut.cancelled() => Err(BodyError::Shed),
            read = reading => read,
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

/// Adds `chunk` to `bytes`; `exact` grows it to exactly what it holds rather than doubling it (a
/// share held while its rest waits costs what was read, not twice that).
fn append(bytes: &mut Vec<u8>, chunk: &[u8], limit: usize, exact: bool) -> Result<(), BodyError> {
    if bytes.len() + chunk.len() > limit {
        return Err(BodyError::OverLimit);
    }
    if exact {
        bytes.reserve_exact(chunk.len());
    }
    bytes.extend_from_slice(chunk);
    Ok(())
}

/// A body's stream read at its [`Pace`].
struct Pacer {
    stream: BodyDataStream,
    pace: Pace,
    length: usize,
    deadline: Instant,
}

impl Pacer {
    fn new(pace: Pace, length: usize, stream: BodyDataStream) -> Self {
        Pacer { stream, pace, length, deadline: Instant::now() + pace.deadline_for(length) }
    }

    /// The time spent waiting for the budget is not the sender's.
    fn paused(&mut self, waited: Duration) {
        self.deadline += waited;
    }

    /// The next chunk, or `Slow` when it does not come in time.
    async fn next(&mut self) -> Result<Option<Bytes>, BodyError> {
        let gap = Instant::now() + self.pace.max_gap;
        match tokio::time::timeout_at(gap.min(self.deadline), self.stream.next()).await {
            Ok(None) => Ok(None),
            Ok(Some(Ok(chunk))) => Ok(Some(chunk)),
            Ok(Some(Err(err))) => Err(BodyError::Read(err.to_string())),
            Err(_) if gap <= self.deadline => {
                Err(BodyError::Slow(format!("nothing of the body arrived for {} s", self.pace.max_gap.as_secs_f32())))
            }
            Err(_) => Err(BodyError::Slow(format!(
                "the body of {} bytes did not arrive within {:.0} s",
                self.length,
                self.pace.deadline_for(self.length).as_secs_f32()
            ))),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> BudgetLimits {
        BudgetLimits {
            total_bytes: 100,
            per_address_bytes: 50,
            per_address_bodies: 2,
            per_address_waiting: 1,
            share_bytes: 0,
            max_wait: Duration::from_secs(30),
            pace: Pace { min_rate: 1, grace: Duration::from_secs(30), max_gap: Duration::from_secs(30) },
        }
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
        let mut keep = Vec::new();
        let mut tasks = Vec::new();
        for _ in 0..2 {
            let (body, k) = stalled(b"x");
            keep.push(k);
            let b = budget.clone();
            tasks.push(tokio::spawn(async move { b.read(flood, body, 25, Some(25)).await }));
        }
        while budget.held() < 50 {
            tokio::task::yield_now().await;
        }
        // A third body of the flood waits (its place in line), a fourth is refused.
        let (body, k) = stalled(b"x");
        keep.push(k);
        let b = budget.clone();
        let third = tokio::spawn(async move { b.read(flood, body, 25, Some(25)).await });
        while budget.waiting(flood) < 1 {
            tokio::task::yield_now().await;
        }
        assert_eq!(budget.read(flood, Body::from("y"), 25, Some(1)).await, Err(BodyError::TooMany));
        assert_eq!(budget.read(other, Body::from("hello"), 25, Some(5)).await.unwrap(), b"hello");
        drop(keep);
        for task in tasks {
            assert!(task.await.unwrap().is_err());
        }
        assert!(third.await.unwrap().is_err());
        assert_eq!(budget.held(), 0);
    }

    #[tokio::test]
    async fn a_small_body_is_read_at_once_while_the_budget_is_full_and_its_address_floods() {
        let budget = BodyBudget::new(BudgetLimits {
            share_bytes: 8,
            per_address_bytes: 100,
            per_address_waiting: 0,
            ..limits()
        });
        let flood: IpAddr = "10.0.0.1".parse().unwrap();
        let mut keep = Vec::new();
        for _ in 0..2 {
            let (body, k) = stalled(b"0123456789");
            keep.push(k);
            let b = budget.clone();
            tokio::spawn(async move { b.read(flood, body, 50, Some(50)).await });
        }
        while budget.held() < 80 {
            tokio::task::yield_now().await;
        }
        // The address's line is full (none may wait), yet a body within the share is read.
        let (body, k) = stalled(b"0123456789");
        keep.push(k);
        assert_eq!(budget.read(flood, body, 50, Some(50)).await, Err(BodyError::TooMany));
        assert_eq!(budget.read(flood, Body::from("token"), 50, Some(5)).await.unwrap(), b"token");
        assert_eq!(budget.read(flood, Body::from("12345678"), 50, Some(8)).await.unwrap(), b"12345678");
    }

    #[tokio::test]
    async fn a_body_that_pauses_too_long_or_trickles_falls_behind_and_frees_its_room() {
        let pace = Pace { min_rate: 10, grace: Duration::from_millis(300), max_gap: Duration::from_millis(200) };
        let budget = BodyBudget::new(BudgetLimits { pace, ..limits() });
        let from: IpAddr = "10.0.0.1".parse().unwrap();
        let (body, _keep) = stalled(b"x");
        let read = budget.read(from, body, 25, Some(25)).await;
        assert!(matches!(&read, Err(BodyError::Slow(why)) if why.contains("nothing")), "{read:?}");
        assert_eq!(budget.held(), 0);
        // A byte every 0.15 s never pauses too long, but 25 bytes at 10 bytes/s is 0.3 + 2.5 s.
        let trickle = futures_util::stream::iter(0..25).then(|_| async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            Ok::<_, std::io::Error>(vec![b'x'])
        });
        let read = budget.read(from, Body::from_stream(trickle), 25, Some(25)).await;
        assert!(matches!(&read, Err(BodyError::Slow(why)) if why.contains("within")), "{read:?}");
        assert_eq!(budget.held(), 0);
    }
}
