//! Lexical facts about a document's text.

use apollo_parser::{Lexer, TokenKind};

/// Whether `text` holds nothing but whitespace, commas and comments (an empty editor).
pub(crate) fn is_blank(text: &str) -> bool {
    Lexer::new(text).all(|token| {
        token.is_ok_and(|token| {
            matches!(token.kind(), TokenKind::Whitespace | TokenKind::Comment | TokenKind::Comma | TokenKind::Eof)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_texts() {
        assert!(is_blank(""));
        assert!(is_blank("  # notes\n,\n"));
        assert!(!is_blank("{ a }"));
        assert!(!is_blank("\"open"));
    }
}
