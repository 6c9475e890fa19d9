//! Text edits at byte positions taken from the syntax tree, so that a rewrite keeps the rest of
//! the user's text (formatting, comments) exactly as written.

/// Replace the bytes `start..end` of the text with `text` (an insertion when `start == end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    start: usize,
    end: usize,
    text: String,
}

impl Edit {
    /// Inserts `text` at byte `at`.
    pub(crate) fn insert(at: usize, text: impl Into<String>) -> Self {
        Self { start: at, end: at, text: text.into() }
    }

    /// Replaces the bytes `start..end` with `text`.
    pub(crate) fn replace(start: usize, end: usize, text: impl Into<String>) -> Self {
        Self { start, end, text: text.into() }
    }
}

/// Puts `edits` in the order [`apply`] applies them (stable: insertions at one place keep theirs).
pub(crate) fn sort(edits: &mut [Edit]) {
    edits.sort_by_key(|edit| (edit.start, edit.end));
}

/// Applies `edits` to `text`. Edits must not overlap; insertions at the same position keep the
/// order of `edits`. An edit outside the text or overlapping another is an `Err` naming it.
pub(crate) fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, String> {
    sort(&mut edits);
    let mut out = String::with_capacity(text.len() + edits.iter().map(|edit| edit.text.len()).sum::<usize>());
    let mut position = 0;
    for edit in &edits {
        if edit.start < position || edit.end < edit.start {
            return Err(format!("overlapping edit at byte {}", edit.start));
        }
        let (Some(kept), true) = (text.get(position..edit.start), text.is_char_boundary(edit.end)) else {
            return Err(format!("edit outside the text at byte {}", edit.start));
        };
        out.push_str(kept);
        out.push_str(&edit.text);
        position = edit.end;
    }
    out.push_str(text.get(position..).unwrap_or_default());
    Ok(out)
}

/// Where byte `at` of the text that [`apply`] made with `edits` (sorted as it sorts them) was in
/// the text before; a byte of an inserted or replacing piece maps to where that piece went in.
pub(crate) fn original_byte(edits: &[Edit], at: usize) -> usize {
    // How much longer the new text is than the old one, before the edit looked at.
    let mut shift = 0isize;
    for edit in edits {
        let start = edit.start.saturating_add_signed(shift);
        if at < start {
            break;
        }
        if at < start + edit.text.len() {
            return edit.start;
        }
        shift += edit.text.len() as isize - (edit.end - edit.start) as isize;
    }
    at.saturating_add_signed(-shift)
}

/// An edit that appends `items` to a list (arguments, variable definitions, selections) whose
/// last item spans `last_start..last_end` and whose closing bracket starts at `close`.
///
/// When the bracket is on a later line, each item goes on a line of its own with the last
/// item's indentation, after any comment that ends the last item's line; otherwise the items
/// follow the last item on its line, separated by `", "` (`commas`) or `" "`.
pub(crate) fn append(
    text: &str,
    last_start: usize,
    last_end: usize,
    close: usize,
    items: &[String],
    commas: bool,
) -> Edit {
    let between = text.get(last_end..close).unwrap_or_default();
    match between.find(['\n', '\r']) {
        Some(offset) => {
            let indent = indentation(text, last_start);
            let newline = line_ending(text);
            let inserted: String = items.iter().map(|item| format!("{newline}{indent}{item}")).collect();
            Edit::insert(last_end + offset, inserted)
        }
        None => {
            let separator = if commas { ", " } else { " " };
            let inserted: String = items.iter().map(|item| format!("{separator}{item}")).collect();
            Edit::insert(last_end, inserted)
        }
    }
}

/// The indentation for a new item on its own line next to the item starting at `at`: that
/// line's indentation, one level deeper when something else starts the line.
fn indentation(text: &str, at: usize) -> String {
    let before = text.get(..at).unwrap_or_default();
    let line_start = before.rfind(['\n', '\r']).map_or(0, |index| index + 1);
    let line = &before[line_start..];
    let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    if indent.len() == line.len() {
        indent
    } else if indent.contains('\t') {
        format!("{indent}\t")
    } else {
        format!("{indent}  ")
    }
}

/// The text's line ending: `\r\n` when it uses it, else `\n`.
fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(list: &[&str]) -> Vec<String> {
        list.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn applies_edits_in_position_order() {
        let text = "abcdef";
        let edits = vec![Edit::insert(6, "!"), Edit::replace(1, 3, "XY"), Edit::insert(0, "<"), Edit::insert(0, "<<")];
        assert_eq!(apply(text, edits), Ok("<<<aXYdef!".to_string()));
    }

    #[test]
    fn rejects_overlapping_edits() {
        let edits = vec![Edit::replace(1, 4, "x"), Edit::replace(2, 5, "y")];
        assert!(apply("abcdef", edits).is_err());
        assert!(apply("abc", vec![Edit::insert(9, "x")]).is_err());
    }

    #[test]
    fn appends_on_the_same_line() {
        let text = "(first: 10)";
        let edit = append(text, 1, 10, 10, &items(&["after: $a"]), true);
        assert_eq!(apply(text, vec![edit]), Ok("(first: 10, after: $a)".to_string()));
        let text = "{ a b }";
        let edit = append(text, 4, 5, 6, &items(&["c", "d"]), false);
        assert_eq!(apply(text, vec![edit]), Ok("{ a b c d }".to_string()));
    }

    #[test]
    fn appends_on_new_lines_after_a_trailing_comment() {
        let text = "{\n    a\n    b # last\n  }";
        let b = text.find('b').unwrap_or_default();
        let close = text.rfind('}').unwrap_or_default();
        let edit = append(text, b, b + 1, close, &items(&["c"]), false);
        assert_eq!(apply(text, vec![edit]), Ok("{\n    a\n    b # last\n    c\n  }".to_string()));
    }

    #[test]
    fn keeps_crlf_and_indents_deeper_when_the_line_starts_elsewhere() {
        let text = "x { a\r\n}";
        let edit = append(text, 4, 5, 7, &items(&["b"]), false);
        assert_eq!(apply(text, vec![edit]), Ok("x { a\r\n  b\r\n}".to_string()));
    }

    #[test]
    fn maps_bytes_of_the_new_text_back() {
        let edits = vec![Edit::insert(1, "xy"), Edit::replace(3, 5, "Z")];
        assert_eq!(apply("abcdef", edits.clone()), Ok("axybcZf".to_string()));
        let back: Vec<usize> = (0..7).map(|at| original_byte(&edits, at)).collect();
        assert_eq!(back, [0, 1, 1, 1, 2, 3, 5]);
    }
}
