//! The whitespace around what the explorer inserts and removes: lines, indentation, and the
//! ranges that take an item out of a list so that putting it back gives the same text.

use std::ops::Range;

/// The document's line ending: `\r\n` when it uses it, else `\n`.
pub(super) fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// One level of indentation in `text`: a tab when a line is indented with tabs, else the
/// smallest indentation of a line in spaces (two when no line is indented).
pub(super) fn indent_unit(text: &str) -> String {
    let mut smallest: Option<usize> = None;
    for line in text.lines() {
        let indent: &str = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        if indent.starts_with('\t') {
            return "\t".to_string();
        }
        if !indent.is_empty() && indent.len() < line.len() {
            smallest = Some(smallest.map_or(indent.len(), |known| known.min(indent.len())));
        }
    }
    " ".repeat(smallest.unwrap_or(2).clamp(1, 8))
}

/// Whether `text` has a line break.
pub(super) fn has_break(text: &str) -> bool {
    text.contains(['\n', '\r'])
}

/// The byte where the line holding byte `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind(['\n', '\r']).map_or(0, |index| index + 1)
}

/// Whether only spaces and tabs come before byte `at` on its line.
pub(super) fn starts_line(text: &str, at: usize) -> bool {
    text[line_start(text, at)..at].chars().all(|c| c == ' ' || c == '\t')
}

/// The indentation for a new item on a line of its own next to the item starting at `at`: that
/// line's indentation, one `unit` deeper when something else starts the line.
pub(super) fn item_indent(text: &str, at: usize, unit: &str) -> String {
    let line = &text[line_start(text, at)..at];
    let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    if indent.len() == line.len() { indent } else { format!("{indent}{unit}") }
}

/// The first byte of the spaces and tabs that end at `at`.
pub(super) fn spaces_before(text: &str, at: usize) -> usize {
    text[..at].trim_end_matches([' ', '\t']).len()
}

/// Where the line break that ends the line before byte `at` starts (the `\r` of `\r\n`).
fn break_before(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    let before = &text[..start];
    before.strip_suffix("\r\n").or_else(|| before.strip_suffix(['\n', '\r'])).map_or(start, str::len)
}

/// The end of what follows byte `at` on its line and belongs to the item ending there: spaces,
/// tabs, commas and a comment, up to (not including) the line break.
fn rest_of_line(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    let after_spaces = rest.trim_start_matches([' ', '\t', ',']);
    let skipped = rest.len() - after_spaces.len();
    if after_spaces.starts_with('#') {
        at + skipped + after_spaces.find(['\n', '\r']).unwrap_or(after_spaces.len())
    } else if after_spaces.is_empty() || after_spaces.starts_with(['\n', '\r']) {
        at + skipped
    } else {
        at
    }
}

/// The bytes that take the items `start..end` (one or several side by side) out of a list whose
/// item before ends at `previous` and whose item after starts at `next`, the inverse of how
/// the explorer appends: `" item"` after an item on the same line, or a line break, the
/// indentation and the item on a line of its own.
///
/// In order: after an item on the same line, from that item's end (with the commas between);
/// before an item on the same line, up to that item; on lines of their own, from the line
/// break before them to the end of their last line (with a comment there); else with the spaces
/// before them.
pub(super) fn list_removal(
    text: &str,
    previous: Option<usize>,
    range: Range<usize>,
    next: Option<usize>,
) -> Range<usize> {
    let Range { start, end } = range;
    if let Some(previous) = previous.filter(|previous| !has_break(&text[*previous..start])) {
        return previous..end;
    }
    if let Some(next) = next.filter(|next| !has_break(&text[end..*next])) {
        return start..next;
    }
    let line_end = rest_of_line(text, end);
    if starts_line(text, start) && (line_end == text.len() || text[line_end..].starts_with(['\n', '\r'])) {
        return break_before(text, start)..line_end;
    }
    spaces_before(text, start)..end
}

/// The bytes that take the top-level definitions `start..end` out of the document: with the
/// whitespace before them, or after them when they start the document.
pub(super) fn definition_removal(text: &str, range: Range<usize>) -> Range<usize> {
    let before = text[..range.start].trim_end().len();
    if before > 0 {
        return before..range.end;
    }
    let after = text.len() - text[range.end..].trim_start().len();
    range.start..after
}

/// Where a new top-level definition goes and the whitespace that separates it from what is
/// there: after the last non-blank text (a blank line after a definition, a line break after a
/// comment), or at the end of a blank document. [`definition_removal`] takes exactly that out.
pub(super) fn definition_insertion(text: &str, after_definition: bool) -> (usize, &'static str) {
    let end = text.trim_end().len();
    if end == 0 {
        return (text.len(), "");
    }
    let separator = match (after_definition, newline(text)) {
        (true, "\r\n") => "\r\n\r\n",
        (true, _) => "\n\n",
        (false, "\r\n") => "\r\n",
        (false, _) => "\n",
    };
    (end, separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remove(text: &str, previous: Option<&str>, item: &str, next: Option<&str>) -> String {
        let start = text.find(item).unwrap_or_default();
        let previous = previous.map(|p| text.find(p).unwrap_or_default() + p.len());
        let next = next.map(|n| text.rfind(n).unwrap_or_default());
        let range = list_removal(text, previous, start..start + item.len(), next);
        format!("{}{}", &text[..range.start], &text[range.end..])
    }

    #[test]
    fn removes_items_the_way_they_were_appended() {
        assert_eq!(remove("{ a b c }", Some("a"), "b", Some("c")), "{ a c }");
        assert_eq!(remove("{ a b }", None, "a", Some("b")), "{ b }");
        assert_eq!(remove("(x: 1, y: 2)", Some("x: 1"), "y: 2", None), "(x: 1)");
        assert_eq!(remove("{\n  a # one\n  b # two\n}", Some("a"), "b", None), "{\n  a # one\n}");
        assert_eq!(remove("{\r\n  a\r\n  b\r\n}", None, "a", Some("b")), "{\r\n  b\r\n}");
        assert_eq!(remove("x { a\n  b }", None, "a", Some("b")), "x {\n  b }");
    }

    #[test]
    fn finds_the_indentation() {
        assert_eq!(indent_unit("{\n    a\n}"), "    ");
        assert_eq!(indent_unit("{\n\ta\n}"), "\t");
        assert_eq!(indent_unit("{ a }"), "  ");
        assert_eq!(item_indent("{\n    a b", 6, "  "), "    ");
        assert_eq!(item_indent("{\n    a b", 8, "  "), "      ");
    }

    #[test]
    fn definitions_go_and_come_back() {
        for text in ["", "  ", "# notes", "# notes\n", "query { a }\n", "fragment F on X { a }"] {
            let (at, separator) = definition_insertion(text, text.contains('{'));
            let inserted = format!("{}{separator}query {{ b }}{}", &text[..at], &text[at..]);
            let start = at + separator.len();
            let range = definition_removal(&inserted, start..start + "query { b }".len());
            assert_eq!(format!("{}{}", &inserted[..range.start], &inserted[range.end..]), text, "{text:?}");
        }
    }
}
