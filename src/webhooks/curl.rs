//! "Copy as cURL": a shell command that sends a stored delivery again, byte for byte.

use crate::store::NewDelivery;

/// A POSIX shell command that sends `delivery` to `base` (for example `http://127.0.0.1:9000`)
/// with its method, path, query, headers and exact body.
pub fn to_curl(delivery: &NewDelivery, base: &str) -> String {
    let mut url = format!("{}{}", base.trim_end_matches('/'), delivery.path);
    if !delivery.query.is_empty() {
        url.push('?');
        url.push_str(&delivery.query);
    }
    let mut parts = vec![format!("curl -X {} {}", quote(delivery.method.as_bytes()), quote(url.as_bytes()))];
    for (name, value) in &delivery.headers {
        if super::is_connection_header(name) {
            continue;
        }
        let mut header = format!("{name}: ").into_bytes();
        header.extend_from_slice(value);
        parts.push(format!("-H {}", quote(&header)));
    }
    if !delivery.body.is_empty() {
        // --data-raw sends the bytes as given (no '@file' reading, no newline stripping).
        parts.push(format!("--data-raw {}", quote(&delivery.body)));
    }
    parts.join(" \\\n  ")
}

/// Quotes bytes for a POSIX shell: single quotes when they are printable text, otherwise
/// ANSI-C `$'…'` quoting with `\xHH` escapes (bash, zsh and ksh read it).
pub(crate) fn quote(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') => {
            format!("'{}'", text.replace('\'', r"'\''"))
        }
        _ => {
            let mut quoted = String::from("$'");
            for &b in bytes {
                match b {
                    b'\\' => quoted.push_str(r"\\"),
                    b'\'' => quoted.push_str(r"\'"),
                    b'\n' => quoted.push_str(r"\n"),
                    0x20..=0x7e => quoted.push(b as char),
                    _ => quoted.push_str(&format!("\\x{b:02x}")),
                }
            }
            quoted.push('\'');
            quoted
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn delivery(body: &[u8]) -> NewDelivery {
        NewDelivery {
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/hooks".into(),
            query: "a=1".into(),
            headers: vec![
                ("host".into(), b"127.0.0.1:9000".to_vec()),
                ("content-type".into(), b"application/json".to_vec()),
                ("webhook-id".into(), b"msg_1".to_vec()),
                ("content-length".into(), b"17".to_vec()),
            ],
            body: body.to_vec(),
            verified: Some(true),
            reason: String::new(),
            size: body.len() as u64,
            sender: None,
        }
    }

    #[test]
    fn a_text_delivery_is_one_readable_command() {
        let curl = to_curl(&delivery(br#"{"name":"O'Hara"}"#), "http://127.0.0.1:9000/");
        assert_eq!(
            curl,
            "curl -X 'POST' 'http://127.0.0.1:9000/hooks?a=1' \\\n  \
             -H 'content-type: application/json' \\\n  \
             -H 'webhook-id: msg_1' \\\n  \
             --data-raw '{\"name\":\"O'\\''Hara\"}'"
        );
    }

    #[test]
    fn binary_bodies_use_escapes_and_empty_bodies_send_none() {
        let curl = to_curl(&delivery(&[b'{', 0xff, 0x00, b'\'', b'\\']), "http://h");
        assert!(curl.ends_with(r"--data-raw $'{\xff\x00\'\\'"), "{curl}");
        assert!(!to_curl(&delivery(b""), "http://h").contains("--data-raw"));
    }

    #[test]
    fn the_command_runs_in_a_shell_and_sends_the_exact_bytes() {
        // `printf` stands in for curl: the shell must hand over exactly the bytes quoted.
        for body in [&b"line one\nline 'two' \\ $HOME `x`"[..], &[0xde, 0xad, b'\'', 0x01]] {
            let script = format!("printf '%s' {}", quote(body));
            let out = std::process::Command::new("bash").arg("-c").arg(&script).output().unwrap();
            assert_eq!(out.stdout, body, "{script}");
        }
    }
}
