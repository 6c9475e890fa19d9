//! One edit of a document's text (a byte range and what replaces it), so that an editor can
//! apply it in place and keep its undo history and cursor.

use std::ops::Range;

/// Replace the bytes `range` of a text with `replacement` (an insertion when the range is empty,
/// a deletion when the replacement is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// The bytes replaced, in the text the edit was made for.
    pub range: Range<usize>,
    /// The text put in their place.
    pub replacement: String,
}

impl TextEdit {
    /// The text with this edit applied. An edit made for another text (a range outside it or
    /// not on character boundaries) leaves it unchanged.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        self.apply_in_place(&mut out);
        out
    }

    /// Applies this edit to `text` in place (see [`TextEdit::apply`]).
    pub fn apply_in_place(&self, text: &mut String) {
        if self.range.start <= self.range.end
            && self.range.end <= text.len()
            && text.is_char_boundary(self.range.start)
            && text.is_char_boundary(self.range.end)
        {
            text.replace_range(self.range.clone(), &self.replacement);
        }
    }

    /// Where byte `at` of the text before the edit is after it: bytes up to the range's start stay, bytes
    /// after it shift by the change in length, bytes inside it go to the end of the replacement.
    pub fn map_offset(&self, at: usize) -> usize {
        if at <= self.range.start {
            at
        } else if at < self.range.end {
            self.range.start + self.replacement.len()
        } else {
            at - (self.range.end - self.range.start) + self.replacement.len()
        }
    }

    /// Merges `pieces` (non-overlapping edits of `text`) into the one smallest edit that makes the
    /// same text: from the first piece to the last, less what the replacement and the replaced
    /// text have in common at either end. `Ok(None)` when nothing changes; `Err` names the first
    /// piece that overlaps another or lies outside the text.
    pub(crate) fn merge(text: &str, mut pieces: Vec<TextEdit>) -> Result<Option<TextEdit>, String> {
        pieces.sort_by_key(|piece| (piece.range.start, piece.range.end));
        let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else { return Ok(None) };
        let start = first.range.start;
        let end = pieces.iter().map(|piece| piece.range.end).max().unwrap_or(last.range.end);
        let mut replacement = String::new();
        let mut position = start;
        for piece in &pieces {
            let kept = (piece.range.start >= position && piece.range.start <= piece.range.end)
                .then(|| text.get(position..piece.range.start))
                .flatten();
            let Some(kept) = kept.filter(|_| text.is_char_boundary(piece.range.end)) else {
                return Err(format!("an edit at byte {} overlaps another or lies outside the text", piece.range.start));
            };
            replacement.push_str(kept);
            replacement.push_str(&piece.replacement);
            position = piece.range.end;
        }
        let old = text.get(start..end).unwrap_or_default();
        Ok(trim_common(old, start, &replacement))
    }
}

/// The edit replacing `old` (at byte `start` of the text) with `new`, less their common prefix and
/// suffix; `None` when they are equal.
fn trim_common(old: &str, start: usize, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    let prefix = common_len(old.chars(), new.chars());
    let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
    let suffix = common_len(old_rest.chars().rev(), new_rest.chars().rev());
    Some(TextEdit {
        range: start + prefix..start + old.len() - suffix,
        replacement: new_rest[..new_rest.len() - suffix].to_string(),
    })
}

/// The length in bytes of what two texts share, walking their characters in the order given
/// (forwards for a prefix, backwards for a suffix).
fn common_len(old: impl Iterator<Item = char>, new: impl Iterator<Item = char>) -> usize {
    old.zip(new).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(range: Range<usize>, replacement: &str) -> TextEdit {
        TextEdit { range, replacement: replacement.to_string() }
    }

    #[test]
    fn applies_and_maps_offsets() {
        let change = edit(2..4, "XYZ");
        assert_eq!(change.apply("abcdef"), "abXYZef");
        assert_eq!([0, 2, 3, 4, 6].map(|at| change.map_offset(at)), [0, 2, 5, 5, 7]);
        assert_eq!(edit(9..10, "x").apply("abc"), "abc");
    }

    #[test]
    fn merges_pieces_into_the_smallest_edit() {
        let text = "{ a b c }";
        let merged = TextEdit::merge(text, vec![edit(5..5, " x"), edit(3..3, " y")]);
        assert_eq!(merged, Ok(Some(edit(4..5, "y b x"))));
        let merged = TextEdit::merge("first: 10", vec![edit(7..9, "20")]);
        assert_eq!(merged, Ok(Some(edit(7..8, "2"))));
        assert_eq!(TextEdit::merge("abc", vec![edit(1..2, "b")]), Ok(None));
        assert!(TextEdit::merge("abcdef", vec![edit(1..4, ""), edit(2..5, "")]).is_err());
    }

    #[test]
    fn trims_on_character_boundaries() {
        let merged = TextEdit::merge("é1é", vec![edit(0..5, "é2é")]);
        assert_eq!(merged, Ok(Some(edit(2..3, "2"))));
    }
}
