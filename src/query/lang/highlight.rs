//! GraphQL highlighting with syntect (pure-Rust regex engine) and the project's own
//! `assets/graphql.sublime-syntax`. Incremental: the parser state at the start of every line is
//! kept, so after an edit only the lines from the first changed one are parsed again, and only
//! until the state matches what it was before.

use std::ops::Range;

use syntect::highlighting::{
    FontStyle, HighlightIterator, HighlightState, Highlighter as ThemeHighlighter, Theme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxDefinition, SyntaxSet, SyntaxSetBuilder};

/// The syntax definition, compiled into the binary.
const SYNTAX: &str = include_str!("../../../assets/graphql.sublime-syntax");

/// A run of text in one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Byte range in the document.
    pub range: Range<usize>,
    /// Foreground colour, RGBA.
    pub color: [u8; 4],
    /// Bold.
    pub bold: bool,
    /// Italic.
    pub italic: bool,
}

#[derive(Clone)]
struct Line {
    /// The line's text, with its line ending.
    text: String,
    /// States at the start of the line.
    parse: ParseState,
    highlight: HighlightState,
    /// Spans relative to the line start.
    spans: Vec<Span>,
}

/// Highlights one document as it is edited.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
    lines: Vec<Line>,
    /// The lines parsed again by the last call (for tests and benchmarks).
    reparsed: usize,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter").field("lines", &self.lines.len()).finish()
    }
}

/// The syntax could not be loaded (a broken build).
#[derive(Debug, thiserror::Error)]
#[error("the GraphQL syntax definition could not be loaded ({0})")]
pub struct SyntaxError(String);

impl Highlighter {
    /// A highlighter with a dark or light theme.
    pub fn new(dark: bool) -> Result<Self, SyntaxError> {
        let definition =
            SyntaxDefinition::load_from_str(SYNTAX, true, Some("graphql")).map_err(|e| SyntaxError(e.to_string()))?;
        let mut builder = SyntaxSetBuilder::new();
        builder.add(definition);
        let syntaxes = builder.build();
        let mut themes = ThemeSet::load_defaults();
        let name = if dark { "base16-ocean.dark" } else { "InspiredGitHub" };
        let theme = themes.themes.remove(name).ok_or_else(|| SyntaxError(format!("no theme {name}")))?;
        Ok(Highlighter { syntaxes, theme, lines: Vec::new(), reparsed: 0 })
    }

    /// How many lines the last [`Highlighter::spans`] call parsed again.
    pub fn reparsed(&self) -> usize {
        self.reparsed
    }

    /// The spans of `text`, reusing what is unchanged since the last call.
    pub fn spans(&mut self, text: &str) -> Vec<Span> {
        self.update(text);
        let mut spans = Vec::new();
        let mut offset = 0;
        for line in &self.lines {
            spans.extend(
                line.spans.iter().map(|s| Span { range: s.range.start + offset..s.range.end + offset, ..s.clone() }),
            );
            offset += line.text.len();
        }
        spans
    }

    fn update(&mut self, text: &str) {
        let new_lines: Vec<&str> = text.split_inclusive('\n').collect();
        let first_changed = self
            .lines
            .iter()
            .zip(&new_lines)
            .position(|(old, new)| old.text != *new)
            .unwrap_or(self.lines.len().min(new_lines.len()));
        // Lines after the edit keep their spans when their start state is the same as before;
        // match them from the end (an edit can add or remove lines).
        let common_tail = self
            .lines
            .iter()
            .rev()
            .zip(new_lines.iter().rev())
            .take_while(|(old, new)| old.text == **new)
            .count()
            .min(self.lines.len() - first_changed)
            .min(new_lines.len() - first_changed);
        let old_tail: Vec<Line> = self.lines.split_off(self.lines.len() - common_tail);
        self.lines.truncate(first_changed);
        let Some(syntax) = self.syntaxes.find_syntax_by_name("GraphQL") else { return };
        let highlighter = ThemeHighlighter::new(&self.theme);
        let (mut parse, mut highlight) = self
            .state_after_last(&highlighter)
            .unwrap_or_else(|| (ParseState::new(syntax), HighlightState::new(&highlighter, ScopeStack::new())));
        self.reparsed = 0;
        let tail_start = new_lines.len() - common_tail;
        for (i, line_text) in new_lines.iter().enumerate().skip(first_changed) {
            if i >= tail_start {
                let old = &old_tail[i - tail_start];
                if old.parse == parse && old.highlight == highlight {
                    self.lines.extend(old_tail[i - tail_start..].iter().cloned());
                    return;
                }
            }
            let line = self.highlight_line(line_text, &mut parse, &mut highlight, &highlighter);
            self.lines.push(line);
            self.reparsed += 1;
        }
    }

    /// The states after the last kept line (parsing it once more from its start state).
    fn state_after_last(&self, highlighter: &ThemeHighlighter<'_>) -> Option<(ParseState, HighlightState)> {
        let last = self.lines.last()?;
        let mut parse = last.parse.clone();
        let mut highlight = last.highlight.clone();
        if let Ok(ops) = parse.parse_line(&last.text, &self.syntaxes) {
            for _ in HighlightIterator::new(&mut highlight, &ops, &last.text, highlighter) {}
        }
        Some((parse, highlight))
    }

    fn highlight_line(
        &self,
        text: &str,
        parse: &mut ParseState,
        highlight: &mut HighlightState,
        highlighter: &ThemeHighlighter<'_>,
    ) -> Line {
        let start =
            Line { text: text.to_owned(), parse: parse.clone(), highlight: highlight.clone(), spans: Vec::new() };
        let Ok(ops) = parse.parse_line(text, &self.syntaxes) else {
            // A line the parser cannot read stays plain; the next line starts afresh.
            return start;
        };
        let mut spans = Vec::new();
        let mut offset = 0;
        for (style, piece) in HighlightIterator::new(highlight, &ops, text, highlighter) {
            let c = style.foreground;
            spans.push(Span {
                range: offset..offset + piece.len(),
                color: [c.r, c.g, c.b, c.a],
                bold: style.font_style.contains(FontStyle::BOLD),
                italic: style.font_style.contains(FontStyle::ITALIC),
            });
            offset += piece.len();
        }
        Line { spans, ..start }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styled(h: &mut Highlighter, text: &str) -> Vec<(String, [u8; 4])> {
        h.spans(text).into_iter().map(|s| (text[s.range.clone()].to_owned(), s.color)).collect()
    }

    #[test]
    fn colours_keywords_strings_and_comments_differently() {
        let mut h = Highlighter::new(true).unwrap();
        let text = "# users\nquery Q($n: Int) { user(ref: \"x\") { name } }\n";
        let spans = styled(&mut h, text);
        let colour = |needle: &str| spans.iter().find(|(t, _)| t.contains(needle)).map(|(_, c)| *c).unwrap();
        assert_ne!(colour("query"), colour("x"));
        assert_ne!(colour("$n"), colour("name"));
        assert_ne!(colour("users"), colour("name"));
        let covered: usize = h.spans(text).iter().map(|s| s.range.len()).sum();
        assert_eq!(covered, text.len());
    }

    #[test]
    fn an_edit_reparses_only_what_changed() {
        let mut h = Highlighter::new(false).unwrap();
        let mut text: String = (0..2000).map(|i| format!("  field{i} {{ name }}\n")).collect();
        let full = h.spans(&text);
        assert_eq!(h.reparsed(), 2000);
        text.insert(1000 * 20, 'x');
        let after = h.spans(&text);
        assert!(h.reparsed() <= 2, "reparsed {}", h.reparsed());
        assert_eq!(after.len(), full.len());
        // Opening a block string changes every following line's state: they are parsed again.
        text.insert_str(0, "\"\"\"");
        h.spans(&text);
        assert!(h.reparsed() > 1);
        // And the result equals a fresh highlight of the same text.
        let mut fresh = Highlighter::new(false).unwrap();
        assert_eq!(h.spans(&text), fresh.spans(&text));
    }
}
