//! The one sanitiser for text that came from outside (a service's messages, a webhook sender's
//! `type`, headers and paths, names in profiles.toml) before it is printed to a terminal: every
//! control character (C0, DEL, C1, which start escape sequences that clear the screen, set the
//! window title or move the cursor) and the bidirectional overrides that reorder what is shown are
//! written as a visible `\u{…}` escape, and a backslash that starts what reads as such an escape
//! as `\\`, so that an escape sent as text cannot pass for one that was made here (a path's
//! backslashes, `C:\Users\…`, stay single).

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as itself.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// `text` safe to print on one line: control characters and bidirectional overrides escaped
/// visibly (`\u{1b}`), and a backslash that could be read as the start of such an escape (before
/// `u{`, `x` and a hex digit, another backslash or an escaped character) doubled. Other backslashes stay as they are,
/// so that a Windows path reads `C:\Users\…`. Unchanged (borrowed) when there is nothing to escape.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) && !text.char_indices().any(|(i, c)| c == '\\' && starts_escape(&text[i + 1..])) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    escape_into(&mut out, text, false);
    Cow::Owned(out)
}

/// Whether a backslash before `rest` would read as one of the escapes made here (or as `\\`),
/// `rest` escaped as it will be.
fn starts_escape(rest: &str) -> bool {
    let mut next = rest.chars();
    match next.next() {
        Some('\\') => true,
        Some('u') => next.next() == Some('{'),
        Some('x') => next.next().is_some_and(|c| c.is_ascii_hexdigit()),
        // It is written as `\u{…}`.
        Some(c) => hidden(c),
        None => false,
    }
}

/// Appends `text` escaped to `out`; `escape_follows`: an escape is written right after it, so a
/// backslash at its end is doubled too.
fn escape_into(out: &mut String, text: &str, escape_follows: bool) {
    for (i, c) in text.char_indices() {
        if c == '\\' {
            let rest = &text[i + 1..];
            let doubled = starts_escape(rest) || (rest.is_empty() && escape_follows);
            out.push_str(if doubled { "\\\\" } else { "\\" });
        } else if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
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
        escape_into(&mut out, chunk.valid(), !chunk.invalid().is_empty());
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
        // A path as Windows writes it stays as it is; what reads as an escape is doubled.
        assert_eq!(printable(r"C:\Users\Seán\big.csv"), r"C:\Users\Seán\big.csv");
        assert!(matches!(printable(r"C:\Users\x.csv"), Cow::Borrowed(_)));
        assert_eq!(printable(r"C:\x1b\\y"), r"C:\\x1b\\\y");
        assert_eq!(printable("\\\u{1b}"), r"\\\u{1b}");
        assert_eq!(printable_bytes(b"a\\\xff"), r"a\\\xff");
        assert_eq!(printable_bytes(b"a\\b"), r"a\b");
    }
}
