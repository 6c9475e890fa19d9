//! Ticking a field: the edit that selects a path, creating what is missing on the way.

use std::cmp::Reverse;

use apollo_parser::cst;

use super::super::super::document::span;
use super::super::super::operations::{fresh_name, name_anonymous};
use super::layout::{definition_insertion, has_break, indent_unit, item_indent, newline, starts_line};
use super::tree::{Tree, keyword};
use super::{EditError, Target, TextEdit};

/// The edit that selects `path` in the operation of `target` (`None` when it is selected).
pub(super) fn tick(
    text: &str,
    tree: &Tree,
    target: Target<'_>,
    path: &[String],
) -> Result<Option<TextEdit>, EditError> {
    let style = Style::of(text);
    let Some(operation) = tree.operation(target) else {
        return beside_others(text, tree, target, path, &style).map(Some);
    };
    let Some(set) = operation.selection_set() else {
        return Err(EditError::Internal { detail: "the operation has no selection set".to_string() });
    };
    let spot = deepest(tree, &set, path, 0, &[], false);
    let edit = match spot.place {
        Place::Selected => return Ok(None),
        Place::Set(set) => into_set(text, &set, &path[spot.depth..], &style)?,
        Place::Leaf(field) => under_field(text, &field, &path[spot.depth..], &style),
    };
    Ok(Some(edit))
}

/// How the document lays out its lines.
struct Style {
    unit: String,
    newline: &'static str,
}

impl Style {
    fn of(text: &str) -> Self {
        Self { unit: indent_unit(text), newline: newline(text) }
    }

    /// `names` nested on one line: `a { b { c } }`.
    fn inline(names: &[String]) -> String {
        match names.split_first() {
            Some((first, [])) => first.clone(),
            Some((first, rest)) => format!("{first} {{ {} }}", Self::inline(rest)),
            None => String::new(),
        }
    }

    /// `names` nested a line each, the first on the current line at `indent`.
    fn lines(&self, names: &[String], indent: &str) -> String {
        match names.split_first() {
            Some((first, [])) => first.clone(),
            Some((first, rest)) => {
                let inner = format!("{indent}{}", self.unit);
                let Self { newline, .. } = self;
                format!("{first} {{{newline}{inner}{}{newline}{indent}}}", self.lines(rest, &inner))
            }
            None => String::new(),
        }
    }
}

/// Where the missing part of a path goes.
enum Place {
    /// The whole path is selected.
    Selected,
    /// Into this selection set (of the operation or of the field before).
    Set(cst::SelectionSet),
    /// Into a new selection set of this field, which has none.
    Leaf(cst::Field),
}

/// The deepest place a path reaches, and how it ranks among places as deep.
struct Spot {
    depth: usize,
    place: Place,
    rank: (bool, Reverse<usize>),
}

/// The deepest existing prefix of `path` from `set` (which `depth` names already lead to):
/// among places as deep, one reached without aliases, then through fewer fragments, then the
/// first in the document.
fn deepest(tree: &Tree, set: &cst::SelectionSet, path: &[String], depth: usize, via: &[String], aliased: bool) -> Spot {
    let here = Spot { depth, place: Place::Set(set.clone()), rank: (!aliased, Reverse(via.len())) };
    let Some(name) = path.get(depth) else { return Spot { place: Place::Selected, ..here } };
    let mut best: Option<Spot> = None;
    for reached in tree.fields_of(set, via).into_iter().filter(|reached| reached.name == *name) {
        let aliased = aliased || reached.field.alias().is_some();
        let rank = (!aliased, Reverse(reached.via.len()));
        let spot = if depth + 1 == path.len() {
            Spot { depth: depth + 1, place: Place::Selected, rank }
        } else {
            match reached.field.selection_set() {
                Some(inner) => deepest(tree, &inner, path, depth + 1, &reached.via, aliased),
                None => Spot { depth: depth + 1, place: Place::Leaf(reached.field), rank },
            }
        };
        if best.as_ref().is_none_or(|known| (spot.depth, spot.rank) > (known.depth, known.rank)) {
            best = Some(spot);
        }
    }
    best.unwrap_or(here)
}

/// The edit appending `names` (nested) after the last selection of `set`: on a line of its own
/// when the closing brace is on a later line, else on the same line.
fn into_set(text: &str, set: &cst::SelectionSet, names: &[String], style: &Style) -> Result<TextEdit, EditError> {
    let last = set.selections().last();
    let close = set.r_curly_token().map(|token| usize::from(token.text_range().start()));
    let (Some(last), Some(close)) = (last, close) else {
        return Err(EditError::Internal { detail: "a selection set is empty or not closed".to_string() });
    };
    let (last_start, last_end) = span(&last);
    let gap = &text[last_end..close];
    let edit = match gap.find(['\n', '\r']) {
        Some(offset) => {
            let indent = item_indent(text, last_start, &style.unit);
            let replacement = format!("{}{indent}{}", style.newline, style.lines(names, &indent));
            TextEdit { range: last_end + offset..last_end + offset, replacement }
        }
        None => TextEdit { range: last_end..last_end, replacement: format!(" {}", Style::inline(names)) },
    };
    Ok(edit)
}

/// The edit giving `field` (which has no selection set) one that selects `names`: over lines
/// when the field starts its line, else on its line.
fn under_field(text: &str, field: &cst::Field, names: &[String], style: &Style) -> TextEdit {
    let (start, end) = span(field);
    let multiline = starts_line(text, start) && has_break(text);
    let replacement = if multiline {
        let indent = item_indent(text, start, &style.unit);
        let inner = format!("{indent}{}", style.unit);
        let Style { newline, .. } = style;
        format!(" {{{newline}{inner}{}{newline}{indent}}}", style.lines(names, &inner))
    } else {
        format!(" {{ {} }}", Style::inline(names))
    };
    TextEdit { range: end..end, replacement }
}

/// The edit adding an operation of `target` that selects `path`. Beside other operations it
/// has a name (the target's, else one made from the path's first field) and the others that
/// have none are named too: a document of several operations is valid only with every one
/// named.
fn beside_others(
    text: &str,
    tree: &Tree,
    target: Target<'_>,
    path: &[String],
    style: &Style,
) -> Result<TextEdit, EditError> {
    if tree.operations().next().is_none() {
        return Ok(new_operation(text, tree, target, path, style));
    }
    let mut taken: Vec<String> =
        tree.operations().filter_map(|operation| operation.name().map(|name| name.text().to_string())).collect();
    let mut pieces: Vec<TextEdit> =
        name_anonymous(text, &tree.document, &mut taken).into_iter().map(|(edit, _, _)| edit).collect();
    let name = match target.name {
        Some(name) if !taken.iter().any(|t| t == name) => name.to_string(),
        _ => fresh_name(&taken, path.first().map_or("", String::as_str)),
    };
    pieces.push(new_operation(text, tree, Target { name: Some(&name), ..target }, path, style));
    TextEdit::merge(text, pieces)
        .map_err(|detail| EditError::Internal { detail })?
        .ok_or_else(|| EditError::Internal { detail: "adding an operation changed nothing".to_string() })
}

/// The edit adding an operation of `target` that selects `path`, after the document's last
/// definition (or in the blank document).
fn new_operation(text: &str, tree: &Tree, target: Target<'_>, path: &[String], style: &Style) -> TextEdit {
    let last_definition_end = tree.document.definitions().last().map(|definition| span(&definition).1);
    let after_definition = last_definition_end.is_some_and(|end| end == text.trim_end().len());
    let (at, separator) = definition_insertion(text, after_definition);
    let head = match target.name {
        Some(name) => format!("{} {name}", keyword(target.kind)),
        None => keyword(target.kind).to_string(),
    };
    let Style { unit, newline } = style;
    let body = style.lines(path, unit);
    TextEdit { range: at..at, replacement: format!("{separator}{head} {{{newline}{unit}{body}{newline}}}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn nests_names_inline_and_over_lines() {
        let style = Style { unit: "  ".to_string(), newline: "\n" };
        assert_eq!(Style::inline(&names(&["a", "b", "c"])), "a { b { c } }");
        assert_eq!(style.lines(&names(&["a", "b"]), "  "), "a {\n    b\n  }");
        assert_eq!(style.lines(&names(&["a"]), ""), "a");
    }
}
