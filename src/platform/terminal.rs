//! The one sanitiser for text that came from outside (a service's messages, a webhook sender's
//! `type`, headers and paths, names in profiles.toml) before it is printed to a terminal: every
//! control character (C0, DEL, C1, which start escape sequences that clear the screen, set the
//! window title or move the cursor) and the bidirectional overrides that reorder what is shown are
//! written as a visible `\u{…}` escape, and a backslash as `\\` so that an escape sent as text
//! cannot pass for one that was made here.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as itself.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// `text` safe to print on one line: control characters and bidirectional overrides escaped
/// visibly (`\u{1b}`), backslashes doubled. Unchanged (borrowed) when there is nothing to escape.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| hidden(c) || c == '\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`printable`] for text of several lines (an error that lists things): newlines and tabs
/// kept, every other control character escaped.
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    if !text.contains(['\n', '\t']) {
        return printable(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| line.split('\t').map(|p| printable(p).into_owned()).collect::<Vec<_>>().join("\t"))
        .collect();
    Cow::Owned(lines.join("\n"))
}

/// Bytes from outside (a header value) as printable text: invalid UTF-8 as `\x..` escapes.
pub fn printable_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&printable(chunk.valid()));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(printable("user.created"), "user.created");
        assert!(matches!(printable("plain"), Cow::Borrowed(_)));
        assert_eq!(printable("\x1b[2J\x1b]0;title\x07x"), "\\u{1b}[2J\\u{1b}]0;title\\u{7}x");
        assert_eq!(printable("a\rb\nc\u{9b}d\u{7f}"), "a\\u{d}b\\u{a}c\\u{9b}d\\u{7f}");
        assert_eq!(printable("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(printable("a\\u{1b}"), "a\\\\u{1b}");
        assert_eq!(printable_bytes(b"ok\xff\x1b"), "ok\\xff\\u{1b}");
    }
}
