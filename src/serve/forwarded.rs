//! Who really sent a request that came through a forwarder (issue 31).
//!
//! Behind a tunnel every sender arrives from the tunnel program's connection to 127.0.0.1, so
//! per-address limits keyed by the peer protect nothing. The tunnel programs say who the client is
//! (cloudflared `Cf-Connecting-Ip`, ngrok and most proxies `X-Forwarded-For`); anybody can send
//! those headers too, so they are believed only on connections from
//!
//! - an address given with `--trust-proxy ADDR` ([`Forwarders::new`]), or
//! - the tunnel program orgql started ([`Forwarders::trust_tunnel`]). On Linux a loopback
//!   connection counts as the tunnel's when its client socket is held by a process of the tunnel's
//!   process group (its socket inode found in `/proc/net/tcp{,6}`, then among the group's
//!   `/proc/PID/fd`), checked once per connection and only when it carries a forwarding header;
//!   another local program that sends `X-Forwarded-For` while the tunnel runs is not believed.
//!   Elsewhere (no `/proc`) every loopback connection counts as the tunnel's while it runs.
//!
//! Of `X-Forwarded-For` the rightmost address that is not itself a trusted proxy is taken: the
//! entries to its left were written by the client and prove nothing.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::http::HeaderMap;
use tokio::sync::OnceCell;

/// The process group of the tunnel program orgql runs (0: none running now); the tunnel's
/// supervisor keeps it up to date across restarts.
#[derive(Debug, Clone, Default)]
pub struct TunnelProcess(Arc<AtomicU32>);

impl TunnelProcess {
    /// The running child's process id (its own process group), if one runs.
    pub fn pid(&self) -> Option<u32> {
        Some(self.0.load(Ordering::Relaxed)).filter(|pid| *pid != 0)
    }

    /// Records the child that now runs (`None`: it stopped).
    pub fn set(&self, pid: Option<u32>) {
        self.0.store(pid.unwrap_or(0), Ordering::Relaxed);
    }
}

#[derive(Debug, Default)]
struct Inner {
    proxies: Vec<IpAddr>,
    tunnel: Mutex<Option<(String, TunnelProcess)>>,
}

/// The forwarders a server believes (cheap to clone; clones share the tunnel).
#[derive(Debug, Clone, Default)]
pub struct Forwarders(Arc<Inner>);

impl Forwarders {
    /// Believes forwarding headers from `proxies` (`--trust-proxy`).
    pub fn new(proxies: Vec<IpAddr>) -> Self {
        Forwarders(Arc::new(Inner { proxies, tunnel: Mutex::new(None) }))
    }

    /// Believes forwarding headers from the tunnel program `name` runs as `process` (until
    /// [`Forwarders::forget_tunnel`]).
    pub fn trust_tunnel(&self, name: &str, process: TunnelProcess) {
        *self.0.tunnel.lock().unwrap_or_else(PoisonError::into_inner) = Some((name.to_owned(), process));
    }

    /// The tunnel stopped: its connections are believed no more.
    pub fn forget_tunnel(&self) {
        *self.0.tunnel.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    fn tunnel(&self) -> Option<(String, u32)> {
        let tunnel = self.0.tunnel.lock().unwrap_or_else(PoisonError::into_inner);
        tunnel.as_ref().and_then(|(name, process)| process.pid().map(|pid| (name.clone(), pid)))
    }

    /// The forwarder a connection from `peer` to `local` is, if it is one (blocking: reads
    /// `/proc` for a loopback peer while a tunnel runs).
    fn forwarder_of(&self, peer: SocketAddr, local: SocketAddr) -> Option<String> {
        if self.0.proxies.contains(&peer.ip()) {
            return Some(peer.ip().to_string());
        }
        let (name, pid) = self.tunnel()?;
        if !peer.ip().is_loopback() {
            return None;
        }
        crate::platform::connection_held_by_group(peer, local, pid).then_some(name)
    }
}

/// The sender a request counts as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    /// The client's address: the peer's, or the one a trusted forwarder named.
    pub address: IpAddr,
    /// The forwarder that named it (the tunnel program's name, or the proxy's address).
    pub via: Option<String>,
}

/// One connection as the servers' handlers see it (a request extension set by
/// [`crate::serve::serve`]).
#[derive(Debug, Clone)]
pub struct Connection {
    /// The peer's address.
    pub peer: SocketAddr,
    /// The server's end of the connection.
    pub local: SocketAddr,
    forwarders: Forwarders,
    forwarder: Arc<OnceCell<Option<String>>>,
}

impl Connection {
    /// A connection from `peer` to `local`, judged against `forwarders`.
    pub fn new(peer: SocketAddr, local: SocketAddr, forwarders: Forwarders) -> Self {
        Connection { peer, local, forwarders, forwarder: Arc::new(OnceCell::new()) }
    }

    /// Who sent a request with `headers` on this connection: the client a trusted forwarder
    /// names, else the peer. Forwarding headers from anyone else are ignored.
    pub async fn sender(&self, headers: &HeaderMap) -> Sender {
        let direct = Sender { address: self.peer.ip(), via: None };
        let Some(named) = named_client(headers, &self.forwarders.0.proxies) else { return direct };
        let forwarders = self.forwarders.clone();
        let (peer, local) = (self.peer, self.local);
        let forwarder = self
            .forwarder
            .get_or_init(|| async move {
                tokio::task::spawn_blocking(move || forwarders.forwarder_of(peer, local)).await.ok().flatten()
            })
            .await;
        match forwarder {
            Some(via) => Sender { address: named, via: Some(via.clone()) },
            None => direct,
        }
    }
}

/// The client a request's forwarding headers name: `Cf-Connecting-Ip`, else the rightmost
/// `X-Forwarded-For` entry that is not one of `proxies`, else `X-Real-Ip`.
pub fn named_client(headers: &HeaderMap, proxies: &[IpAddr]) -> Option<IpAddr> {
    let one =
        |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<IpAddr>().ok());
    one("cf-connecting-ip")
        .or_else(|| {
            let entries: Vec<IpAddr> = headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|v| v.trim().parse::<IpAddr>().ok())
                .collect();
            entries.iter().rev().find(|a| !proxies.contains(a)).or(entries.first()).copied()
        })
        .or_else(|| one("x-real-ip"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rightmost_forwarded_address_not_a_proxy_is_the_client() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "6.6.6.6, 198.51.100.7, 10.0.0.1".parse().unwrap());
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(named_client(&headers, &[proxy]), Some("198.51.100.7".parse().unwrap()));
        headers.insert("cf-connecting-ip", "203.0.113.7".parse().unwrap());
        assert_eq!(named_client(&headers, &[proxy]), Some("203.0.113.7".parse().unwrap()));
        assert_eq!(named_client(&HeaderMap::new(), &[]), None);
    }
}
