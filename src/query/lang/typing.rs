//! What the editor's keys do to the text beyond inserting what is typed: a new line indented as
//! the one before (one step more after an opening bracket, with the closing bracket put on a
//! line of its own), brackets and quotes closed as they open (a typed closer steps over the one
//! already there), and `#` comments toggled over the lines of a selection. Each function takes
//! the selection as byte offsets and returns the edit and where the selection goes after it.

use std::ops::Range;

use super::TextEdit;

/// One step of indentation.
const UNIT: &str = "  ";

/// An edit and the selection after it (bytes of the edited text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    /// The edit (none when only the cursor moves).
    pub edit: Option<TextEdit>,
    /// The selection after it.
    pub selection: Range<usize>,
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

fn closer_of(c: char) -> Option<char> {
    match c {
        '{' => Some('}'),
        '(' => Some(')'),
        '[' => Some(']'),
        _ => None,
    }
}

/// Enter: a line break, then the indentation of the line the cursor is on, one step more after
/// an opening bracket; between a pair (`{|}`) the closer goes on a line of its own.
pub fn new_line(text: &str, selection: Range<usize>) -> Typed {
    let (start, end) = (selection.start.min(text.len()), selection.end.min(text.len()));
    let here = line_start(text, start);
    let indent: String = text[here..start].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let before = text[here..start].trim_end().chars().next_back();
    let after = text[end..line_end(text, end)].trim_start().chars().next();
    let opens = before.and_then(closer_of);
    let mut replacement = format!("\n{indent}");
    if let Some(closer) = opens {
        replacement.push_str(UNIT);
        let cursor = start + replacement.len();
        if after == Some(closer) {
            // `{|}` → `{\n  |\n}`: the spaces between the cursor and the closer go.
            let closer_at = end + text[end..].find(closer).unwrap_or(0);
            replacement.push_str(&format!("\n{indent}"));
            return Typed { edit: Some(TextEdit { range: start..closer_at, replacement }), selection: cursor..cursor };
        }
        return Typed { edit: Some(TextEdit { range: start..end, replacement }), selection: cursor..cursor };
    }
    let cursor = start + replacement.len();
    Typed { edit: Some(TextEdit { range: start..end, replacement }), selection: cursor..cursor }
}

/// A character typed: brackets and quotes are closed as they open (around a selection, or where
/// nothing but space or a closer follows), and a closer or quote typed before the same character
/// steps over it. `None`: insert the character as usual.
pub fn typed(text: &str, selection: Range<usize>, c: char) -> Option<Typed> {
    let (start, end) = (selection.start.min(text.len()), selection.end.min(text.len()));
    let next = text[end..].chars().next();
    let previous = text[..start].chars().next_back();
    let in_comment = text[line_start(text, start)..start].contains('#');
    if in_comment {
        return None;
    }
    let step_over = start == end && next == Some(c);
    if step_over && matches!(c, '}' | ')' | ']' | '"') {
        return Some(Typed { edit: None, selection: start + 1..start + 1 });
    }
    let closer = match c {
        '"' if previous.is_some_and(|p| p.is_alphanumeric() || p == '"' || p == '\\') => return None,
        '"' => '"',
        c => closer_of(c)?,
    };
    let free_after = next.is_none_or(|n| n.is_whitespace() || matches!(n, '}' | ')' | ']' | ','));
    if start == end && !free_after {
        return None;
    }
    let inner = &text[start..end];
    let replacement = format!("{c}{inner}{closer}");
    let cursor = start + c.len_utf8();
    Some(Typed { edit: Some(TextEdit { range: start..end, replacement }), selection: cursor..cursor + inner.len() })
}

/// Ctrl+/: comments out the lines of the selection (`# ` at their common indentation), or
/// uncomments them when every non-blank one is a comment already.
pub fn toggle_comment(text: &str, selection: Range<usize>) -> Typed {
    let (start, end) = (selection.start.min(text.len()), selection.end.min(text.len()));
    let first = line_start(text, start);
    // A selection ending at the start of a line does not take that line.
    let last_end = if end > start && end > 0 && text[..end].ends_with('\n') { end - 1 } else { end };
    let last = line_end(text, last_end.max(first));
    let block = &text[first..last];
    let lines: Vec<&str> = block.split('\n').collect();
    let filled = || lines.iter().filter(|l| !l.trim().is_empty());
    let commented = filled().count() > 0 && filled().all(|l| l.trim_start().starts_with('#'));
    let indent = filled().map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let changed: Vec<String> = lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                return (*line).to_string();
            }
            if commented {
                let at = line.len() - line.trim_start().len();
                let rest = &line[at + 1..];
                format!("{}{}", &line[..at], rest.strip_prefix(' ').unwrap_or(rest))
            } else {
                format!("{}# {}", &line[..indent], &line[indent..])
            }
        })
        .collect();
    let replacement = changed.join("\n");
    let new_last = first + replacement.len();
    let selection = if start == end {
        // The cursor keeps its place in its line's text.
        let shift = replacement.len() as isize - block.len() as isize;
        let at = (start as isize + shift).clamp(first as isize, new_last as isize) as usize;
        at..at
    } else {
        first..new_last
    };
    Typed { edit: Some(TextEdit { range: first..last, replacement }), selection }
}

/// The matches of `needle` in `text` (byte ranges), without regard to ASCII case.
pub fn find_all(text: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    let (hay, pin) = (text.to_ascii_lowercase(), needle.to_ascii_lowercase());
    hay.match_indices(&pin).map(|(at, m)| at..at + m.len()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, typed: &Typed) -> String {
        typed.edit.as_ref().map_or(text.to_string(), |e| e.apply(text))
    }

    #[test]
    fn enter_keeps_the_indentation_and_opens_a_bracket() {
        let text = "query {\n  users {}\n}";
        let at = text.find("{}").unwrap() + 1;
        let typed = new_line(text, at..at);
        assert_eq!(apply(text, &typed), "query {\n  users {\n    \n  }\n}");
        assert_eq!(typed.selection, at + 5..at + 5);
        let at = text.find("users").unwrap() + 5;
        assert_eq!(apply(text, &new_line(text, at..at)), "query {\n  users\n   {}\n}");
    }

    #[test]
    fn brackets_and_quotes_close_and_step_over() {
        let typed_open = typed("a ", 2..2, '(').unwrap();
        assert_eq!(apply("a ", &typed_open), "a ()");
        assert_eq!(typed_open.selection, 3..3);
        assert_eq!(typed("a()", 2..2, ')').unwrap(), Typed { edit: None, selection: 3..3 });
        assert_eq!(apply("x: ", &typed("x: ", 3..3, '"').unwrap()), "x: \"\"");
        assert_eq!(typed("ab", 1..1, '('), None, "not before a word");
        assert_eq!(typed("don", 3..3, '"'), None, "not after a word");
        assert_eq!(apply("a b", &typed("a b", 2..3, '{').unwrap()), "a {b}", "around a selection");
        assert_eq!(typed("# a", 3..3, '('), None, "not in a comment");
    }

    #[test]
    fn comments_toggle_over_the_selected_lines() {
        let text = "{\n  a\n  b {\n    c\n  }\n}";
        let from = text.find("a").unwrap();
        let to = text.find("c").unwrap();
        let once = toggle_comment(text, from..to);
        let commented = apply(text, &once);
        assert_eq!(commented, "{\n  # a\n  # b {\n  #   c\n  }\n}");
        let twice = apply(&commented, &toggle_comment(&commented, once.selection.clone()));
        assert_eq!(twice, text);
        let cursor = text.find('a').unwrap();
        let single = toggle_comment(text, cursor..cursor);
        assert_eq!(apply(text, &single), "{\n  # a\n  b {\n    c\n  }\n}");
        assert_eq!(single.selection, cursor + 2..cursor + 2);
    }

    #[test]
    fn finds_without_regard_to_case() {
        assert_eq!(find_all("Email email", "EMAIL"), vec![0..5, 6..11]);
        assert!(find_all("a", "").is_empty());
    }
}
