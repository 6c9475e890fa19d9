//! A field's arguments as the explorer's inputs: read them, and add, replace or remove one.

use apollo_parser::Parser;
use apollo_parser::cst::{self, CstNode};

use super::super::super::document::span;
use super::layout::{item_indent, list_removal, newline, spaces_before};
use super::remove::{cut, range, runs};
use super::{EditError, TextEdit};

/// The arguments written on `field`: name and value as written.
pub(super) fn values(text: &str, field: &cst::Field) -> Vec<(String, String)> {
    let Some(arguments) = field.arguments() else { return Vec::new() };
    arguments
        .arguments()
        .filter_map(|argument| {
            let name = argument.name()?.text().to_string();
            let value = argument.value().map(|value| text[range(&value)].to_string()).unwrap_or_default();
            Some((name, value))
        })
        .collect()
}

/// The pieces that give `field` the argument `name` with `value` (a checked literal), or
/// remove it when `value` is `None`.
pub(super) fn pieces(text: &str, field: &cst::Field, name: &str, value: Option<&str>) -> Vec<TextEdit> {
    let written = field.arguments();
    let list: Vec<cst::Argument> = written.iter().flat_map(cst::Arguments::arguments).collect();
    let position = list.iter().position(|argument| argument.name().is_some_and(|n| n.text() == name));
    match (value, position) {
        (Some(value), Some(index)) => match list[index].value() {
            Some(old) => vec![TextEdit { range: range(&old), replacement: value.to_string() }],
            None => vec![TextEdit { range: range(&list[index]), replacement: format!("{name}: {value}") }],
        },
        (Some(value), None) => vec![append(text, field, &list, &format!("{name}: {value}"))],
        (None, Some(_)) if list.len() == 1 => {
            let Some(arguments) = written else { return Vec::new() };
            let (start, end) = span(&arguments);
            vec![cut(spaces_before(text, start)..end)]
        }
        (None, Some(index)) => {
            let items: Vec<_> = list.iter().map(range).collect();
            let gone: Vec<bool> = (0..list.len()).map(|at| at == index).collect();
            runs(&items, &gone)
                .into_iter()
                .map(|run| cut(list_removal(text, run.previous, run.range, run.next)))
                .collect()
        }
        (None, None) => Vec::new(),
    }
}

/// The piece appending `argument` to `field`'s arguments, adding the parentheses when it has
/// none: on a line of its own when the closing parenthesis is on a later line, else after a
/// comma (or a space, when the list separates its items without commas).
fn append(text: &str, field: &cst::Field, list: &[cst::Argument], argument: &str) -> TextEdit {
    let close = field.arguments().and_then(|arguments| arguments.r_paren_token());
    let (Some(first), Some(last), Some(close)) = (list.first(), list.last(), close) else {
        let end = field.name().map_or_else(|| span(field).1, |name| span(&name).1);
        return TextEdit { range: end..end, replacement: format!("({argument})") };
    };
    let (last_start, last_end) = span(last);
    let close = usize::from(close.text_range().start());
    if let Some(offset) = text[last_end..close].find(['\n', '\r']) {
        let indent = item_indent(text, last_start, "  ");
        let at = last_end + offset;
        return TextEdit { range: at..at, replacement: format!("{}{indent}{argument}", newline(text)) };
    }
    let commas = list.get(1).is_none_or(|second| text[span(first).1..span(second).0].contains(','));
    let separator = if commas { ", " } else { " " };
    TextEdit { range: last_end..last_end, replacement: format!("{separator}{argument}") }
}

/// `value` trimmed when it is exactly one GraphQL value (`10`, `"a"`, `ACTIVE`, `$first`,
/// `[1, 2]`, `{ a: 1 }`…).
pub(super) fn checked_value(value: &str) -> Result<&str, EditError> {
    let trimmed = value.trim();
    let invalid = || EditError::InvalidValue { value: value.to_string() };
    const BEFORE: &str = "{ f(a: ";
    let probe = format!("{BEFORE}{trimmed}) }}");
    let tree = Parser::new(&probe).parse();
    if tree.errors().next().is_some() {
        return Err(invalid());
    }
    let written = tree.document().syntax().descendants().find_map(cst::Argument::cast).and_then(|a| a.value());
    match written {
        Some(written) if range(&written) == (BEFORE.len()..BEFORE.len() + trimmed.len()) => Ok(trimmed),
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_literals() {
        for good in ["10", " \"a b\" ", "ACTIVE", "$first", "[1, 2]", "{ a: 1, b: [X] }", "null", "-1.5e3"] {
            assert_eq!(checked_value(good), Ok(good.trim()), "{good}");
        }
        for bad in ["", "1 2", "(", "a: 1", "\"open", "10) { x } #"] {
            assert!(checked_value(bad).is_err(), "{bad}");
        }
    }
}
