//! Checking a document against the schema before it is sent: apollo-compiler's validation
//! (syntax, unknown fields, argument types, required arguments, variables…) and warnings for
//! what the document uses that the schema deprecates.

mod deprecated;
#[cfg(test)]
mod tests;

pub use deprecated::{DeprecatedKind, DeprecatedUse};

use std::ops::Range;

use apollo_compiler::diagnostic::ToCliReport;
use apollo_compiler::validation::{Valid, WithErrors};
use apollo_compiler::{ExecutableDocument, Schema};

use super::super::document::line_column;
use super::tokens::is_blank;

/// How serious a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The server will refuse the document (it may still be run: the server has the last word).
    Error,
    /// The document works but uses something the schema deprecates.
    Warning,
}

/// Something wrong with a document, where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The bytes of the document it is about (empty at the start when it is about no place).
    pub range: Range<usize>,
    /// The line of the range's start, from 1.
    pub line: usize,
    /// The column of the range's start, from 1, counted in characters.
    pub column: usize,
    /// What is wrong, in one sentence (the validator's own words for errors).
    pub message: String,
    /// Whether it is an error or a warning.
    pub severity: Severity,
}

/// The problems of `text` against `schema`, in document order: apollo-compiler's errors and a
/// warning for each use of a deprecated field, argument, input field or enum value, with the
/// schema's reason. A blank text (an empty editor) has none.
pub fn validate(schema: &Valid<Schema>, text: &str) -> Vec<Problem> {
    if is_blank(text) {
        return Vec::new();
    }
    let (document, errors) = match ExecutableDocument::parse_and_validate(schema, text, "query.graphql") {
        Ok(valid) => (valid.into_inner(), None),
        Err(WithErrors { partial, errors }) => (partial, Some(errors)),
    };
    let file = document.sources.keys().next().copied();
    let mut problems: Vec<Problem> = Vec::new();
    for diagnostic in errors.iter().flat_map(|errors| errors.iter()) {
        let location = diagnostic.error.location().filter(|location| Some(location.file_id()) == file);
        let range = location.map_or(0..0, |location| location.offset()..location.end_offset());
        if consequence(text, &range, diagnostic.error.unstable_error_name()) {
            continue;
        }
        problems.push(problem(text, range, one_line(&diagnostic.error.to_string()), Severity::Error));
    }
    for used in deprecated::uses(schema, &document, file) {
        problems.push(problem(text, used.range, used.message, Severity::Warning));
    }
    problems.sort_by_key(|problem| (problem.range.start, problem.severity, problem.range.end));
    problems.dedup();
    problems
}

/// Each use in `text` of something `schema` deprecates, in document order (none when the text
/// does not parse far enough to tell).
pub fn deprecated_uses(schema: &Valid<Schema>, text: &str) -> Vec<DeprecatedUse> {
    if is_blank(text) {
        return Vec::new();
    }
    let document = match ExecutableDocument::parse_and_validate(schema, text, "query.graphql") {
        Ok(valid) => valid.into_inner(),
        Err(WithErrors { partial, .. }) => partial,
    };
    let file = document.sources.keys().next().copied();
    let mut uses = deprecated::uses(schema, &document, file);
    uses.sort_by_key(|used| (used.range.start, used.range.end));
    uses.dedup();
    uses
}

fn problem(text: &str, range: Range<usize>, message: String, severity: Severity) -> Problem {
    let (line, column) = line_column(text, range.start);
    Problem { range, line, column, message, severity }
}

/// Whether an error only follows from others: apollo-compiler drops unknown fields, so a
/// selection set written with only unknown fields is reported empty as well ("must have a
/// subselection set") although the person wrote one; the unknown fields are reported already.
fn consequence(text: &str, range: &Range<usize>, name: Option<&str>) -> bool {
    name == Some("MissingSubselection") && text.get(range.clone()).is_some_and(|about| about.contains('{'))
}

/// `message` on one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}
