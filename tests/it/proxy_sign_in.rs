//! Proxy sign-in with NTLM (issue 44): a proxy of the tests' own, on 127.0.0.1, that asks for
//! Negotiate or NTLM, sends an NTLM challenge and checks the answer's NTLMv2 proof against a known
//! password (MD4, HMAC-MD5, computed here, apart from orgql's `sspi`), in front of the sandbox over
//! HTTPS (the private root and TLS front of `networks.rs`). The service is `orgql.test`, which
//! only the proxy resolves: a request that worked went through it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use hmac_md5::{Hmac, KeyInit as _, Mac as _};
use md4::Digest as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::harness::sandbox;
use crate::networks::{EXPORT, Pki, QUERY, Seen, args, connection, orgql, tls_front_seeing, walk};

/// The proxy's domain and its one user.
const DOMAIN: &str = "CORP";
const USER: &str = "alice";

/// What the NTLM proxy counted.
#[derive(Default)]
struct Counts {
    /// Challenges sent (type 2 messages).
    challenges: AtomicUsize,
    /// Answers whose NTLMv2 proof matched the password: tunnels opened.
    signed_in: AtomicUsize,
    /// Answers whose proof did not match, or that came on another connection than their
    /// challenge.
    refused: AtomicUsize,
}

fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn hmac_md5(key: &[u8], parts: &[&[u8]]) -> [u8; 16] {
    let mut mac = Hmac::<md5::Md5>::new_from_slice(key).unwrap();
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().as_slice().try_into().unwrap()
}

/// An AV pair of a challenge's target information.
fn av_pair(out: &mut Vec<u8>, id: u16, value: &[u8]) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
}

/// An NTLM CHALLENGE message (MS-NLMP 2.2.1.2) with `server_challenge`.
fn challenge_message(server_challenge: [u8; 8]) -> Vec<u8> {
    let target_name = utf16(DOMAIN);
    let mut info = Vec::new();
    av_pair(&mut info, 2, &utf16(DOMAIN)); // MsvAvNbDomainName
    av_pair(&mut info, 1, &utf16("PROXY")); // MsvAvNbComputerName
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let filetime = (now.as_secs() + 11_644_473_600) * 10_000_000;
    av_pair(&mut info, 7, &filetime.to_le_bytes()); // MsvAvTimestamp
    av_pair(&mut info, 0, &[]); // MsvAvEOL
    // UNICODE, REQUEST_TARGET, NTLM, ALWAYS_SIGN, TARGET_TYPE_DOMAIN, EXTENDED_SESSIONSECURITY,
    // TARGET_INFO, VERSION, 128, KEY_EXCH, 56.
    let flags: u32 = 0x1
        | 0x4
        | 0x200
        | 0x8000
        | 0x10000
        | 0x80000
        | 0x80_0000
        | 0x200_0000
        | 0x2000_0000
        | 0x4000_0000
        | 0x8000_0000;
    let header = 56u32;
    let mut message = b"NTLMSSP\0".to_vec();
    message.extend_from_slice(&2u32.to_le_bytes());
    message.extend_from_slice(&(target_name.len() as u16).to_le_bytes());
    message.extend_from_slice(&(target_name.len() as u16).to_le_bytes());
    message.extend_from_slice(&header.to_le_bytes());
    message.extend_from_slice(&flags.to_le_bytes());
    message.extend_from_slice(&server_challenge);
    message.extend_from_slice(&[0; 8]);
    message.extend_from_slice(&(info.len() as u16).to_le_bytes());
    message.extend_from_slice(&(info.len() as u16).to_le_bytes());
    message.extend_from_slice(&(header + target_name.len() as u32).to_le_bytes());
    message.extend_from_slice(&[10, 0, 0x63, 0x45, 0, 0, 0, 15]);
    message.extend_from_slice(&target_name);
    message.extend_from_slice(&info);
    message
}

/// A field (length, length, offset) of an NTLM message at `at`.
fn field(message: &[u8], at: usize) -> Option<&[u8]> {
    let len = u16::from_le_bytes(message.get(at..at + 2)?.try_into().ok()?) as usize;
    let offset = u32::from_le_bytes(message.get(at + 4..at + 8)?.try_into().ok()?) as usize;
    message.get(offset..offset + len)
}

fn text(utf16le: &[u8]) -> String {
    let units: Vec<u16> = utf16le.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    String::from_utf16_lossy(&units)
}

/// Whether an AUTHENTICATE message (MS-NLMP 2.2.1.3) proves `password` for alice of CORP against
/// `server_challenge`: its NTProofStr is HMAC-MD5(NTOWFv2, challenge ‖ blob), NTOWFv2 being
/// HMAC-MD5(MD4(UTF-16 password), UTF-16(uppercase user ‖ domain)).
fn proves(message: &[u8], server_challenge: [u8; 8], password: &str) -> bool {
    if message.get(..12) != Some(b"NTLMSSP\0\x03\0\0\0".as_slice()) {
        return false;
    }
    let (Some(nt), Some(domain), Some(user)) = (field(message, 20), field(message, 28), field(message, 36)) else {
        return false;
    };
    let (domain, user) = (text(domain), text(user));
    if nt.len() <= 16 || !user.eq_ignore_ascii_case(USER) || !domain.eq_ignore_ascii_case(DOMAIN) {
        return false;
    }
    let (proof, blob) = nt.split_at(16);
    let nt_hash = md4::Md4::digest(utf16(password));
    let ntowf_v2 = hmac_md5(&nt_hash, &[&utf16(&(user.to_uppercase() + &domain))]);
    hmac_md5(&ntowf_v2, &[&server_challenge, blob]) == proof
}

/// An HTTP proxy asking for Negotiate or NTLM, checking NTLM answers against `password`, then
/// opening CONNECT tunnels (to 127.0.0.1 for `orgql.test`). Both legs must come on one
/// connection: a challenge is only good on the connection it was sent on.
async fn ntlm_proxy(password: &'static str) -> (SocketAddr, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let counts = Arc::new(Counts::default());
    let counted = counts.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let counts = counted.clone();
            tokio::spawn(async move { ntlm_connection(stream, password, &counts).await });
        }
    });
    (address, counts)
}

const ASK: &[u8] = b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Negotiate\r\nProxy-Authenticate: NTLM\r\nContent-Length: 0\r\n\r\n";

async fn ntlm_connection(mut stream: TcpStream, password: &str, counts: &Counts) {
    let mut challenge: Option<[u8; 8]> = None;
    let mut buf = Vec::new();
    loop {
        // One request head (a CONNECT carries no body).
        let head = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let rest = buf.split_off(end + 4);
                break std::mem::replace(&mut buf, rest);
            }
            let mut chunk = [0u8; 2048];
            match tokio::time::timeout(std::time::Duration::from_secs(30), stream.read(&mut chunk)).await {
                Ok(Ok(n)) if n > 0 && buf.len() < 65536 => buf.extend_from_slice(&chunk[..n]),
                _ => return,
            }
        };
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut request = httparse::Request::new(&mut headers);
        if request.parse(&head).is_err() || request.method != Some("CONNECT") {
            let _ = stream.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n").await;
            return;
        }
        let target = request.path.unwrap_or_default().replace("orgql.test:", "127.0.0.1:");
        let token = request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("proxy-authorization"))
            .and_then(|h| std::str::from_utf8(h.value).ok())
            .and_then(|v| v.strip_prefix("NTLM "))
            .and_then(|t| base64::engine::general_purpose::STANDARD.decode(t.trim()).ok());
        match token {
            None => {
                if stream.write_all(ASK).await.is_err() {
                    return;
                }
            }
            Some(message) if message.get(8) == Some(&1) => {
                let server_challenge: [u8; 8] = rand::random();
                challenge = Some(server_challenge);
                counts.challenges.fetch_add(1, Ordering::SeqCst);
                let answer = format!(
                    "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: NTLM {}\r\nContent-Length: 0\r\n\r\n",
                    base64::engine::general_purpose::STANDARD.encode(challenge_message(server_challenge))
                );
                if stream.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
            }
            Some(message) => {
                if !challenge.take().is_some_and(|c| proves(&message, c, password)) {
                    counts.refused.fetch_add(1, Ordering::SeqCst);
                    let _ = stream.write_all(ASK).await;
                    return;
                }
                let Ok(mut upstream) = TcpStream::connect(&target).await else {
                    let _ = stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n").await;
                    return;
                };
                counts.signed_in.fetch_add(1, Ordering::SeqCst);
                if stream.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await.is_ok() {
                    if !buf.is_empty() {
                        let _ = upstream.write_all(&buf).await;
                    }
                    let _ = tokio::io::copy_bidirectional(&mut stream, &mut upstream).await;
                }
                return;
            }
        }
    }
}

#[test]
fn the_proof_checked_here_is_ms_nlmp_s_own_example() {
    // MS-NLMP 4.2.4: User "User", domain "Domain", password "Password", server challenge
    // 0123456789abcdef; NTOWFv2 is 0c868a403bfd7a93a3001ef22ef02e3f.
    let nt_hash = md4::Md4::digest(utf16("Password"));
    let ntowf_v2 = hmac_md5(&nt_hash, &[&utf16("USERDomain")]);
    assert_eq!(
        ntowf_v2,
        [0x0c, 0x86, 0x8a, 0x40, 0x3b, 0xfd, 0x7a, 0x93, 0xa3, 0x00, 0x1e, 0xf2, 0x2e, 0xf0, 0x2e, 0x3f]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_asking_for_ntlm_is_named_then_signed_in_on_one_connection_and_the_password_is_nowhere() {
    const PASSWORD: &str = "Ntlm-Secret-7734";
    let server = sandbox(120).await;
    let pki = Pki::new();
    let home = tempfile::tempdir().unwrap();
    let upstream: SocketAddr = server.base_url().trim_start_matches("http://").parse().unwrap();
    let seen = Seen::default();
    let front = tls_front_seeing(&pki, upstream, false, seen.clone()).await;
    let (proxy, counts) = ntlm_proxy(PASSWORD).await;
    let https = connection(&format!("https://orgql.test:{}", front.port()));
    let root = ("SSL_CERT_FILE", pki.root.to_str().unwrap());
    // DOMAIN\user, its backslash written %5C in a URL.
    let with_user = format!("http://{DOMAIN}%5C{USER}@{proxy}");
    let shown = format!("http://{proxy}");

    // Without a password: exit 6, one sentence naming the proxy and the schemes it asks for.
    let (code, out, err) =
        orgql(home.path(), &args(&["query", "-e", QUERY], &https), &[root, ("HTTPS_PROXY", &with_user)]).await;
    assert_eq!(code, 6, "{out}{err}");
    assert!(
        err.contains(&format!(
            "the proxy {shown} (from HTTPS_PROXY) asks for Negotiate or NTLM sign-in; give the user"
        )),
        "{err}"
    );
    assert!(err.contains("ORGQL_PROXY_PASSWORD") && err.trim().lines().count() == 1, "{err}");

    // A wrong password: the proxy checks the proof and refuses it; named, exit 6.
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--proxy", &with_user], &https),
        &[root, ("ORGQL_PROXY_PASSWORD", "not-the-password")],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!(
            "the proxy {shown} (from the command line) refused the sign-in of {DOMAIN}\\{USER} (it asks for Negotiate or NTLM sign-in)"
        )),
        "{err}"
    );
    assert!(counts.refused.load(Ordering::SeqCst) >= 1);
    assert_eq!(counts.signed_in.load(Ordering::SeqCst), 0);
    assert_eq!(seen.connections(), 0);

    // The password from the environment: the query works, signed in with NTLM.
    let password = ("ORGQL_PROXY_PASSWORD", PASSWORD);
    let log = home.path().join("orgql.log");
    let (code, out, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--log-file", log.to_str().unwrap()], &https),
        &[root, ("HTTPS_PROXY", &with_user), password, ("ORGQL_LOG", "debug")],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"count\": 120") || out.contains("\"count\":120"), "{out}");
    let mut outputs = vec![out, err];

    // An export: the token request and every page went through the proxy, and it equals the
    // export of the sandbox's own HTTP byte for byte.
    let (requests_before, tokens_before) = (seen.requests("POST /graphql/"), seen.requests("POST /oauth/token/"));
    let (code, out, err) = orgql(
        home.path(),
        &args(&["export", "-e", EXPORT, "--out", "ntlm.csv", "--proxy", &with_user], &https),
        &[root, password],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    outputs.extend([out, err]);
    assert_eq!(seen.requests("POST /oauth/token/") - tokens_before, 1);
    // Three pages of 40 (the schema is known from the query before).
    let pages = seen.requests("POST /graphql/") - requests_before;
    assert!(pages >= 3, "{pages}");
    // Every connection the service saw came through a tunnel the proxy opened after checking
    // the NTLM proof, and each sign-in took one challenge on its own connection.
    assert_eq!(seen.connections(), counts.signed_in.load(Ordering::SeqCst));
    assert!(counts.signed_in.load(Ordering::SeqCst) >= 2);
    assert!(counts.challenges.load(Ordering::SeqCst) >= counts.signed_in.load(Ordering::SeqCst));
    let direct = connection(server.base_url());
    let (code, _, err) =
        orgql(home.path(), &args(&["export", "-e", EXPORT, "--out", "direct.csv"], &direct), &[]).await;
    assert_eq!(code, 0, "{err}");
    let direct = std::fs::read(home.path().join("direct.csv")).unwrap();
    assert!(direct.len() > 1000);
    assert_eq!(std::fs::read(home.path().join("ntlm.csv")).unwrap(), direct);

    // orgql doctor says how it signs in.
    let (code, out, err) =
        orgql(home.path(), &args(&["doctor", "--proxy", &with_user], &https), &[root, password]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("proxy: {shown} (the command line, signing in as {DOMAIN}\\{USER})")), "{out}");
    outputs.extend([out, err]);

    // The password is in no output, log or file orgql wrote.
    assert!(log.is_file());
    for output in &outputs {
        assert!(!output.contains(PASSWORD), "{output}");
    }
    for entry in walk(home.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains(PASSWORD), "{}", entry.display());
        assert!(!String::from_utf8_lossy(&bytes).contains(&String::from_utf8_lossy(&utf16(PASSWORD)).into_owned()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_asking_only_for_negotiate_is_named_as_one_orgql_cannot_answer_here() {
    if cfg!(windows) {
        return;
    }
    // Negotiate alone (Kerberos): answered on Windows only.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let _ = stream
                    .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Negotiate\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    let home = tempfile::tempdir().unwrap();
    let https = connection("https://orgql.test:4443");
    let (code, _, err) = orgql(
        home.path(),
        &args(&["query", "-e", QUERY, "--proxy", &format!("http://{DOMAIN}%5C{USER}@{proxy}")], &https),
        &[("ORGQL_PROXY_PASSWORD", "whatever-it-is")],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    assert!(
        err.contains(&format!(
            "the proxy http://{proxy} (from the command line) asks for Negotiate sign-in, which orgql cannot answer on this computer"
        )),
        "{err}"
    );
    assert!(!err.contains("whatever-it-is"));
}
