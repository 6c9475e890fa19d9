//! A flood of unfinished bodies from one address (issue 23): the listener and the sandbox keep
//! answering other senders while it is on, and answer the flood's overflow 429 at once.

use std::net::SocketAddr;
use std::time::Duration;

use orgql::serve::inflight::BudgetLimits;
use orgql::webhooks::standard::Secret;
use orgql::webhooks::{Listener, ListenerConfig, Scheme};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::{SECRET as CLIENT_SECRET, sandbox};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const FLOOD: usize = 200;

/// A client whose connections come from 127.0.0.2: another sender than the flood's 127.0.0.1.
fn other_sender() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// `FLOOD` connections from 127.0.0.1, each announcing a 1 MiB body and sending 100 KiB of it:
/// more than the share every body reads at once (issue 31), so that the rest waits its turn.
async fn flood(addr: SocketAddr, path: &str) -> Vec<TcpStream> {
    let mut streams = Vec::new();
    for _ in 0..FLOOD {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&[b'a'; 100 * 1024]).await.unwrap();
        streams.push(stream);
    }
    streams
}

/// How many of the flood's connections were answered 429 (each read for at most 5 s).
async fn answered_429(streams: Vec<TcpStream>) -> usize {
    let reads = streams.into_iter().map(|mut stream| {
        tokio::spawn(async move {
            let mut head = [0u8; 12];
            matches!(tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut head)).await, Ok(Ok(_)))
                && head.ends_with(b"429")
        })
    });
    let mut count = 0;
    for read in reads.collect::<Vec<_>>() {
        count += usize::from(read.await.unwrap());
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_senders_delivery_is_answered_while_one_address_floods_the_listener() {
    let dir = tempfile::tempdir().unwrap();
    let listener = Listener::start(ListenerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        scheme: Some(Scheme::Standard),
        secret: Some(SECRET.to_owned()),
        budget: BudgetLimits { per_address_waiting: 50, ..BudgetLimits::default() },
        ..ListenerConfig::new(dir.path().join("s.sqlite3"))
    })
    .await
    .unwrap();
    let streams = flood(listener.addr(), "/flood").await;
    let body = br#"{"type":"user.created"}"#.to_vec();
    let now = chrono::Utc::now().timestamp();
    let response = other_sender()
        .post(format!("http://{}/hooks", listener.addr()))
        .header("webhook-id", "msg_other")
        .header("webhook-timestamp", now.to_string())
        .header("webhook-signature", Secret::parse(SECRET).unwrap().sign("msg_other", now, &body))
        .body(body)
        .send()
        .await
        .expect("the other sender is answered while the flood is on");
    assert_eq!(response.status().as_u16(), 204);
    // 16 bodies read, 50 waiting: the rest of the flood was told 429 at once.
    assert!(answered_429(streams).await >= FLOOD - 16 - 50 - 5);
    listener.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_issued_to_another_address_while_one_floods_the_sandbox() {
    let server = sandbox(5).await;
    let streams = flood(server.addr(), "/graphql/").await;
    let response = other_sender()
        .post(format!("{}/oauth/token/", server.base_url()))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", "sandbox-admin"),
            ("client_secret", CLIENT_SECRET),
            ("scope", "users.read"),
        ])
        .send()
        .await
        .expect("the token request is answered while the flood is on");
    assert_eq!(response.status().as_u16(), 200);
    drop(streams);
}
