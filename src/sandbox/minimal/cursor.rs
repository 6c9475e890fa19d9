//! Graphene-style cursors: base64 of `arrayconnection:<offset>`, the offset of an edge in the
//! (filtered) list, counted from 0.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

const PREFIX: &str = "arrayconnection:";

/// The cursor of the edge at `offset`.
pub fn encode(offset: usize) -> String {
    B64.encode(format!("{PREFIX}{offset}"))
}

/// The offset a cursor names, or `None` when it is not one of ours.
pub fn decode(cursor: &str) -> Option<usize> {
    let bytes = B64.decode(cursor.trim()).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let digits = text.strip_prefix(PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_graphene_array_connection_offsets() {
        assert_eq!(encode(0), "YXJyYXljb25uZWN0aW9uOjA=");
        assert_eq!(encode(49), "YXJyYXljb25uZWN0aW9uOjQ5");
        for offset in [0, 1, 49, 50, 12_345] {
            assert_eq!(decode(&encode(offset)), Some(offset));
        }
    }

    #[test]
    fn other_strings_are_not_cursors() {
        for bad in ["", "nope", "YXJyYXljb25uZWN0aW9uOg==", "VXNlcjox", B64.encode("arrayconnection:-1").as_str()] {
            assert_eq!(decode(bad), None, "{bad}");
        }
        assert_eq!(decode(&B64.encode("arrayconnection:+3")), None);
    }
}
