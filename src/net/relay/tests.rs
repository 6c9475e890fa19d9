use super::*;
use crate::secret::Secret;
use tokio::net::TcpListener;

fn quick() -> Limits {
    Limits {
        head: Duration::from_millis(300),
        connect: Duration::from_secs(5),
        idle: Duration::from_millis(300),
        max_head: 1024,
        max_body: 256,
        connections: 2,
        legs: 5,
    }
}

/// A proxy that answers each `CONNECT` with `answers` in turn (one per request head read on
/// one connection), then, after a 200, echoes.
async fn scripted_proxy(answers: Vec<&'static str>) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        let mut answers = answers.into_iter();
        while let Ok((stream, _)) = listener.accept().await {
            let mut conn = Conn::new(stream);
            while let Ok(head) = conn.read_head(&Limits::default()).await {
                log.lock().unwrap().push(String::from_utf8_lossy(&head).into_owned());
                let Some(answer) = answers.next() else { return };
                conn.stream.write_all(answer.as_bytes()).await.unwrap();
                if answer.starts_with("HTTP/1.1 200") {
                    let mut buf = [0u8; 64];
                    while let Ok(n) = conn.stream.read(&mut buf).await {
                        if n == 0 || conn.stream.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    break;
                }
                if answer.contains("Connection: close") {
                    break;
                }
            }
        }
    });
    (port, seen)
}

fn relay(port: u16, password: Option<&str>, limits: Limits) -> Relay {
    let credentials = Credentials {
        user: Some("alice".to_owned()),
        password: password.map(Secret::new),
        proxy_host: "127.0.0.1".to_owned(),
    };
    Relay::start(("127.0.0.1".to_owned(), port), credentials, limits).unwrap()
}

fn connect_request(relay: &Relay, target: &str) -> String {
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{RELAY_USER}:{}", relay.key()));
    format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\nProxy-Authorization: Basic {auth}\r\n\r\n")
}

async fn read_all(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn basic_after_a_407_then_the_tunnel_carries_bytes_both_ways() {
    let (port, seen) = scripted_proxy(vec![
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 5\r\n\r\nnope!",
        "HTTP/1.1 200 Connection established\r\n\r\n",
        "HTTP/1.1 200 Connection established\r\n\r\n",
    ])
    .await;
    let relay = relay(port, Some("pw"), Limits::default());
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    let mut head = [0u8; 39];
    client.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 Connection established\r\n\r\n");
    client.write_all(b"ping").await.unwrap();
    let mut echo = [0u8; 4];
    client.read_exact(&mut echo).await.unwrap();
    assert_eq!(&echo, b"ping");
    drop(client);
    // The next tunnel starts signed in: the scheme the proxy took is remembered.
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    client.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 Connection established\r\n\r\n");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(!seen[0].contains("Proxy-Authorization"), "{}", seen[0]);
    assert!(seen[1].contains("Proxy-Authorization: Basic YWxpY2U6cHc="), "{}", seen[1]);
    assert!(seen[2].contains("Proxy-Authorization: Basic YWxpY2U6cHc="), "{}", seen[2]);
}

#[tokio::test]
async fn a_407_it_cannot_answer_is_handed_to_reqwest_with_its_schemes() {
    let (port, _) = scripted_proxy(vec![
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Digest realm=\"x\", nonce=\"1\"\r\nProxy-Authenticate: Negotiate\r\nContent-Length: 0\r\n\r\n",
    ])
    .await;
    let relay = relay(port, Some("pw"), Limits::default());
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    let text = read_all(&mut client).await;
    assert!(text.starts_with("HTTP/1.1 407 "), "{text}");
    assert!(text.contains("Proxy-Authenticate: Digest\r\n") && text.contains("Proxy-Authenticate: Negotiate\r\n"));
    assert!(!text.contains("nonce"), "{text}");
}

#[tokio::test]
async fn a_wrong_password_is_a_407_and_the_proxy_is_asked_twice_only() {
    let (port, seen) = scripted_proxy(vec![
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n",
    ])
    .await;
    let relay = relay(port, Some("wrong"), Limits::default());
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    assert!(read_all(&mut client).await.starts_with("HTTP/1.1 407 "));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn without_its_key_or_for_loopback_or_not_connect_the_relay_refuses() {
    let (port, seen) = scripted_proxy(vec![]).await;
    let relay = relay(port, Some("pw"), Limits::default());
    for (request, status) in [
        ("CONNECT orgql.test:443 HTTP/1.1\r\nHost: orgql.test:443\r\n\r\n".to_owned(), "403"),
        (
            "CONNECT orgql.test:443 HTTP/1.1\r\nProxy-Authorization: Basic b3JncWwtcmVsYXk6d3Jvbmc=\r\n\r\n".to_owned(),
            "403",
        ),
        (connect_request(&relay, "127.0.0.1:8080"), "403"),
        (connect_request(&relay, "localhost:8080"), "403"),
        ("GET http://orgql.test/ HTTP/1.1\r\nHost: orgql.test\r\n\r\n".to_owned(), "405"),
    ] {
        let mut client = TcpStream::connect(relay.address).await.unwrap();
        client.write_all(request.as_bytes()).await.unwrap();
        let text = read_all(&mut client).await;
        assert!(text.starts_with(&format!("HTTP/1.1 {status} ")), "{request}: {text}");
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_head_too_long_or_too_slow_ends_the_connection() {
    let relay = relay(1, Some("pw"), quick());
    // Too long: refused without waiting for more.
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(&[b'a'; 2048]).await.unwrap();
    assert!(read_all(&mut client).await.starts_with("HTTP/1.1 431 "));
    // Never finished: closed after the head's time, without an answer.
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(b"CONNECT orgql.test:443 HTTP/1.1\r\n").await.unwrap();
    assert_eq!(read_all(&mut client).await, "");
}

#[tokio::test]
async fn a_proxy_that_cannot_be_reached_is_a_502() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let relay = relay(closed, Some("pw"), quick());
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    assert!(read_all(&mut client).await.starts_with("HTTP/1.1 502 "));
}

#[tokio::test]
async fn a_407_body_past_its_bound_is_not_read_and_a_silent_tunnel_is_closed() {
    let (port, seen) = scripted_proxy(vec![
        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 100000\r\n\r\n",
        "HTTP/1.1 200 Connection established\r\n\r\n",
    ])
    .await;
    let relay = relay(port, Some("pw"), quick());
    let mut client = TcpStream::connect(relay.address).await.unwrap();
    client.write_all(connect_request(&relay, "orgql.test:443").as_bytes()).await.unwrap();
    // The body is too long to read: a new connection carries the sign-in (the scripted
    // proxy's next connection answers 200), and the tunnel, silent, is closed.
    let text = read_all(&mut client).await;
    assert_eq!(text, "HTTP/1.1 200 Connection established\r\n\r\n");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn dropping_the_relay_stops_it() {
    let relay = relay(1, Some("pw"), quick());
    let address = relay.address;
    drop(relay);
    // Its listener closes with its task: connecting is refused (waited for, bounded).
    for _ in 0..500 {
        if TcpStream::connect(address).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the relay still listens");
}
