//! Prettify: the document laid out as GraphQL is usually written (a selection a line, two
//! spaces an indent, arguments on their field's line, a blank line between definitions), with
//! every comment kept where it was: on a line of its own, or after the code of its line.
//!
//! It walks apollo-parser's tokens rather than printing a syntax tree: apollo-compiler's
//! printer drops comments, and the little structure layout needs (is a brace a selection set
//! or an input object, where does a selection start) is read from the tokens around each one.
//! Strings, numbers and names are copied byte for byte; commas, which GraphQL ignores, are
//! written as `, ` between arguments and list items only. A document with a syntax error is
//! not touched.

use apollo_parser::{Lexer, Parser, TokenKind};

use super::super::DocumentError;
use super::super::document::line_column;

const INDENT: &str = "  ";

/// What a bracket opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A selection set (or a type's fields): one item a line.
    Selections,
    /// An input object value `{ a: 1 }`: on one line.
    Object,
    /// Arguments or variable definitions `( … )`.
    Arguments,
    /// A list value or type `[ … ]`.
    List,
}

/// `text` prettified.
///
/// # Errors
///
/// [`DocumentError::Syntax`] when `text` is not valid GraphQL: nothing is changed then.
pub fn prettify(text: &str) -> Result<String, DocumentError> {
    if super::tokens::is_blank(text) {
        return Ok(text.to_string());
    }
    let tree = Parser::new(text).parse();
    if let Some(error) = tree.errors().next() {
        let (line, column) = line_column(text, error.index());
        return Err(DocumentError::Syntax { line, column, message: error.message().to_string() });
    }
    let (tokens, errors) = Lexer::new(text).lex();
    if let Some(error) = errors.first() {
        let (line, column) = line_column(text, error.index());
        return Err(DocumentError::Syntax { line, column, message: error.message().to_string() });
    }
    let mut out = Printer::default();
    for token in &tokens {
        out.token(token.kind(), token.data());
    }
    let mut text = out.text.trim_end().to_string();
    if !text.is_empty() {
        text.push('\n');
    }
    Ok(text)
}

#[derive(Default)]
struct Printer {
    text: String,
    stack: Vec<Open>,
    /// The last two significant tokens (kind, text), the latest first.
    previous: [Option<(TokenKind, String)>; 2],
    /// Line breaks in the whitespace since the last token written.
    breaks: usize,
    /// A comment ended the line: the next token starts a new one.
    after_comment: bool,
}

impl Printer {
    fn depth(&self) -> usize {
        self.stack.iter().filter(|open| **open == Open::Selections).count()
    }

    fn inside(&self) -> Option<Open> {
        self.stack.last().copied()
    }

    fn prev_kind(&self) -> Option<TokenKind> {
        self.previous[0].as_ref().map(|(kind, _)| *kind)
    }

    fn prev_is(&self, kind: TokenKind, text: &str) -> bool {
        self.previous[0].as_ref().is_some_and(|(k, t)| *k == kind && t == text)
    }

    /// Starts a new line at the current depth (`blank`: after an empty line).
    fn line(&mut self, blank: bool) {
        while self.text.ends_with([' ', '\t']) {
            self.text.pop();
        }
        if self.text.is_empty() {
            return;
        }
        self.text.push('\n');
        if blank {
            self.text.push('\n');
        }
        for _ in 0..self.depth() {
            self.text.push_str(INDENT);
        }
    }

    fn at_line_start(&self) -> bool {
        self.text.is_empty() || self.text.trim_end_matches(' ').ends_with('\n')
    }

    fn space(&mut self) {
        if !self.at_line_start() && !self.text.ends_with(' ') {
            self.text.push(' ');
        }
    }

    /// Whether the last significant token ends a value or a name (so that a name after it
    /// starts something new).
    fn ends_item(&self) -> bool {
        match &self.previous[0] {
            Some((TokenKind::Name, _)) => {
                // `... on Type`: `on` is followed by the type; `$name` and `@name` are whole.
                !(self.prev_is(TokenKind::Name, "on")
                    && self.previous[1].as_ref().is_some_and(|(k, _)| *k == TokenKind::Spread))
            }
            Some((kind, _)) => matches!(
                kind,
                TokenKind::StringValue
                    | TokenKind::Int
                    | TokenKind::Float
                    | TokenKind::RCurly
                    | TokenKind::RParen
                    | TokenKind::RBracket
                    | TokenKind::Bang
            ),
            None => false,
        }
    }

    fn token(&mut self, kind: TokenKind, data: &str) {
        match kind {
            TokenKind::Whitespace => {
                self.breaks += data.matches('\n').count();
                return;
            }
            TokenKind::Comma | TokenKind::Eof => return,
            TokenKind::Comment => {
                if self.breaks > 0 || self.after_comment || self.at_line_start() {
                    let blank = self.breaks > 1 && !self.opened_just_now();
                    self.line(blank);
                } else {
                    self.text.push(' ');
                }
                self.text.push_str(data.trim_end());
                self.after_comment = true;
                self.breaks = 0;
                return;
            }
            _ => {}
        }
        self.place(kind, data);
        self.text.push_str(data);
        self.after_comment = false;
        self.breaks = 0;
        match kind {
            TokenKind::LCurly => {
                let open = match self.inside() {
                    Some(Open::Arguments | Open::List | Open::Object) => Open::Object,
                    _ => Open::Selections,
                };
                self.stack.push(open);
            }
            TokenKind::LParen => self.stack.push(Open::Arguments),
            TokenKind::LBracket => self.stack.push(Open::List),
            _ => {}
        }
        let previous = std::mem::take(&mut self.previous[0]);
        self.previous = [Some((kind, data.to_string())), previous];
    }

    /// Whether the last token opened a selection set (no blank line right after `{`).
    fn opened_just_now(&self) -> bool {
        self.prev_kind() == Some(TokenKind::LCurly)
    }

    /// Writes what goes before a token: a line break and indent, a separator, a space or nothing.
    fn place(&mut self, kind: TokenKind, data: &str) {
        let blank = self.breaks > 1;
        match kind {
            TokenKind::RCurly => {
                let open = self.stack.pop();
                if open == Some(Open::Selections) {
                    self.line(false);
                } else {
                    self.space();
                }
                return;
            }
            TokenKind::RParen | TokenKind::RBracket => {
                self.stack.pop();
                if self.after_comment {
                    self.line(false);
                }
                return;
            }
            _ => {}
        }
        if self.after_comment {
            self.line(blank && !self.opened_just_now());
            return;
        }
        match self.inside() {
            None => {
                // A definition starts after the one before ends (its last `}`).
                if self.prev_kind() == Some(TokenKind::RCurly) {
                    self.line(true);
                    return;
                }
            }
            Some(Open::Selections) => {
                let starts_selection =
                    matches!(kind, TokenKind::Name | TokenKind::Spread) && (self.opened_just_now() || self.ends_item());
                if starts_selection {
                    self.line(blank && !self.opened_just_now());
                    return;
                }
            }
            Some(Open::Arguments | Open::List | Open::Object) => {
                let starts_item = matches!(
                    kind,
                    TokenKind::Name
                        | TokenKind::Dollar
                        | TokenKind::StringValue
                        | TokenKind::Int
                        | TokenKind::Float
                        | TokenKind::LBracket
                        | TokenKind::LCurly
                ) && self.ends_item();
                if starts_item {
                    self.text.push_str(", ");
                    return;
                }
            }
        }
        // Within a line.
        let glued_to_previous = matches!(
            self.prev_kind(),
            Some(TokenKind::LParen | TokenKind::LBracket | TokenKind::Dollar | TokenKind::At)
        ) || (self.prev_kind() == Some(TokenKind::Spread) && data != "on");
        let glued_to_next = matches!(kind, TokenKind::Colon | TokenKind::Bang | TokenKind::LParen);
        let after_open_object = self.prev_kind() == Some(TokenKind::LCurly) && self.inside() == Some(Open::Object);
        if after_open_object || !(glued_to_previous || glued_to_next || self.text.is_empty()) {
            self.space();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lays_out_selections_arguments_and_definitions() {
        let text = "query Users($first:Int=50,$status:[Status!]){paginatedUsers(first:$first,filter:{status:ACTIVE,ids:[\"a\" \"b\"]}){count edges{node{ref name ...Person ... on User @include(if:true){email}}}}}\nfragment Person on User{ name }";
        let expected = "query Users($first: Int = 50, $status: [Status!]) {
  paginatedUsers(first: $first, filter: { status: ACTIVE, ids: [\"a\", \"b\"] }) {
    count
    edges {
      node {
        ref
        name
        ...Person
        ... on User @include(if: true) {
          email
        }
      }
    }
  }
}

fragment Person on User {
  name
}
";
        assert_eq!(prettify(text).unwrap(), expected);
        assert_eq!(prettify(expected).unwrap(), expected, "prettifying twice changes nothing");
    }

    #[test]
    fn keeps_comments_on_their_lines_and_after_code() {
        let text = "# Users\nquery {\n  # the count\n  count # how many\n\n  work: email\n}\n# end";
        let expected = "# Users\nquery {\n  # the count\n  count # how many\n\n  work: email\n}\n# end\n";
        assert_eq!(prettify(text).unwrap(), expected);
    }

    #[test]
    fn mutations_aliases_and_anonymous_operations() {
        let text = "{a}mutation M{ createUser(input:{name:\"Ann\",active:true}){ref}}";
        let expected =
            "{\n  a\n}\n\nmutation M {\n  createUser(input: { name: \"Ann\", active: true }) {\n    ref\n  }\n}\n";
        assert_eq!(prettify(text).unwrap(), expected);
    }

    #[test]
    fn a_syntax_error_changes_nothing() {
        assert!(matches!(prettify("{ users { "), Err(DocumentError::Syntax { line: 1, .. })));
        assert_eq!(prettify("").unwrap(), "");
    }
}
