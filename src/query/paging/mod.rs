//! Rewriting a query so that its connection can be walked page by page.

use std::collections::HashSet;

use serde_json::{Map, Value};

use self::rewrite::{
    append_selections, argument_edits, define_variable, field_text, first_selection_set, fresh_variable,
    operations_using, rewrite_error,
};
use super::connection::{ArgumentValue, ConnectionSite, find, locate};
use super::document::{OperationKind, Parsed, operation_kind, span};
use super::edit::{Edit, apply, original_byte, sort};
use super::{DocumentError, fields::Merged};

mod rewrite;
mod style;

pub use style::{Paging, PagingStyle, detect_paging};

/// The largest page the service serves (`first` above it is an error).
pub const PAGE_SIZE_LIMIT: i64 = 50;

/// How [`prepare_paging`] pages, and what it adds besides what paging needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PagingOptions {
    /// Select the connection's `count` (the number of nodes across all pages) when the query
    /// does not, e.g. to show progress; only where the schema has it, when `paging` is given.
    pub ensure_count: bool,
    /// The connection's paging as its schema says ([`detect_paging`]); `None` when the schema is
    /// not known: Relay's `first`/`after` and `pageInfo` are assumed then.
    pub paging: Option<Paging>,
}

/// A query rewritten to be walked page by page, and how to walk it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagedQuery {
    /// The rewritten document; the user's text, formatting and comments are kept around the edits.
    pub text: String,
    /// The variable (without `$`) that carries the cursor: set it to `null` or
    /// [`start_cursor`](Self::start_cursor) for the first page, then to each page's `endCursor`.
    pub after_variable: String,
    /// The cursor the query started from when it gave `after` as a literal string.
    pub start_cursor: Option<String>,
    /// The variable (without `$`) that carries `first`, when the query gives it one; its value
    /// must be capped at [`PAGE_SIZE_LIMIT`] (see [`cap_first_variable`](Self::cap_first_variable)).
    pub first_variable: Option<String>,
    /// What was changed that the user should know about, one sentence each.
    pub warnings: Vec<String>,
    /// The connection in the rewritten text: `pageInfo { hasNextPage endCursor }` (Relay) or the
    /// edges' `cursor` ([`PagingStyle::EdgeCursors`]) are always selected there (and `count` with
    /// [`PagingOptions::ensure_count`] where the schema has it).
    pub site: ConnectionSite,
    /// How the pages follow one another.
    pub style: PagingStyle,
    /// The user's text, and the edits that made [`text`](Self::text) of it, in the order applied.
    original: (String, Vec<Edit>),
}

impl PagedQuery {
    /// Where a line and column (from 1, in characters) of the rewritten text are in the user's
    /// text: what the service reports of an error is shown against what the user wrote. A
    /// place inside an added piece maps to where that piece went in.
    pub fn original_location(&self, line: u32, column: u32) -> (u32, u32) {
        let (original, edits) = &self.original;
        match byte_of(&self.text, line, column) {
            Some(at) => line_column(original, original_byte(edits, at)),
            None => (line, column),
        }
    }

    /// Sets the cursor variable in `variables` (`null` when `cursor` is `None`).
    pub fn set_cursor(&self, variables: &mut Map<String, Value>, cursor: Option<&str>) {
        let value = cursor.map_or(Value::Null, |cursor| Value::String(cursor.to_string()));
        variables.insert(self.after_variable.clone(), value);
    }

    /// Caps the value of the `first` variable at [`PAGE_SIZE_LIMIT`]; returns a warning when it did.
    pub fn cap_first_variable(&self, variables: &mut Map<String, Value>) -> Option<String> {
        let name = self.first_variable.as_ref()?;
        let value = variables.get(name)?;
        let too_large = value.as_i64().map_or(value.is_u64(), |first| first > PAGE_SIZE_LIMIT);
        if !too_large {
            return None;
        }
        let warning =
            format!("${name} = {value} is above the page-size limit of {PAGE_SIZE_LIMIT}; using {PAGE_SIZE_LIMIT}");
        variables.insert(name.clone(), Value::from(PAGE_SIZE_LIMIT));
        Some(warning)
    }
}

/// Rewrites `query` so that the connection of its operation (`operation_name`, or the only
/// one) can be walked page by page.
///
/// The connection gets `first` (50 when absent, capped at 50 when a larger literal) and
/// `after: $variable` (a new `String` variable unless `after` already is a variable; a literal
/// cursor becomes [`PagedQuery::start_cursor`]), and selects `pageInfo { hasNextPage endCursor }`.
/// Edits go in at positions from the syntax tree, so the rest of the text stays as written.
///
/// # Errors
///
/// The errors of [`locate`], [`DocumentError::NotAQuery`] for a mutation or subscription, and
/// [`DocumentError::Rewrite`] should the rewritten text not check out.
pub fn prepare_paging(
    query: &str,
    operation_name: Option<&str>,
    options: PagingOptions,
) -> Result<PagedQuery, DocumentError> {
    let parsed = Parsed::new(query, operation_name)?;
    let paging = options.paging.clone().unwrap_or_else(Paging::assumed);
    let ensure_count = options.ensure_count && paging.has_count;
    match operation_kind(&parsed.operation) {
        OperationKind::Query => {}
        OperationKind::Mutation => return Err(DocumentError::NotAQuery { kind: "mutation" }),
        OperationKind::Subscription => return Err(DocumentError::NotAQuery { kind: "subscription" }),
    }
    let found = find(&parsed)?;
    let mut warnings = Vec::new();
    let mut replacements: Vec<(&str, String)> = Vec::new();
    let mut added = Vec::new();

    let mut first_variable = None;
    match &found.site.first {
        ArgumentValue::Absent => added.push(format!("first: {PAGE_SIZE_LIMIT}")),
        ArgumentValue::Int(first) if (1..=PAGE_SIZE_LIMIT).contains(first) => {}
        ArgumentValue::Variable(name) => first_variable = Some(name.clone()),
        other => {
            warnings.push(first_warning(other));
            replacements.push(("first", PAGE_SIZE_LIMIT.to_string()));
        }
    }

    let fresh = fresh_variable(&parsed.document);
    let (after_variable, start_cursor, define) = match &found.site.after {
        ArgumentValue::Absent => {
            added.push(format!("after: ${fresh}"));
            (fresh, None, true)
        }
        ArgumentValue::Variable(name) => (name.clone(), None, false),
        ArgumentValue::String(cursor) => {
            replacements.push(("after", format!("${fresh}")));
            (fresh, Some(cursor.clone()), true)
        }
        other => {
            if other != &ArgumentValue::Other("null".to_string()) {
                let written = written(other);
                warnings.push(format!("after: {written} is not a cursor; starting from the first page"));
            }
            replacements.push(("after", format!("${fresh}")));
            (fresh, None, true)
        }
    };

    let occurrences = distinct_fields(&found.connection);
    let mut edits = Vec::new();
    for field in &occurrences {
        edits.extend(argument_edits(query, field, &replacements, &added)?);
    }
    if define {
        for operation in operations_using(&parsed, &occurrences) {
            edits.push(define_variable(query, &operation, &format!("${after_variable}: {}", paging.after_type))?);
        }
    }
    edits.extend(selection_edits(query, &found, paging.style, ensure_count)?);

    sort(&mut edits);
    let text = apply(query, edits.clone()).map_err(|detail| rewrite_error(&detail))?;
    let site = locate(&text, operation_name).map_err(|error| rewrite_error(&error.to_string()))?;
    let pages_known = match paging.style {
        PagingStyle::Relay => site.has_next_page_key.is_some() && site.end_cursor_key.is_some(),
        PagingStyle::EdgeCursors => site.cursor_key.is_some(),
    };
    let complete = pages_known
        && site.after == ArgumentValue::Variable(after_variable.clone())
        && (!ensure_count || site.count_key.is_some());
    if !complete {
        return Err(rewrite_error("the rewritten query lacks its page information or the cursor variable"));
    }
    let original = (query.to_owned(), edits);
    let style = paging.style;
    Ok(PagedQuery { text, after_variable, start_cursor, first_variable, warnings, site, style, original })
}

/// The byte at a line and column (from 1, in characters) of `text`, the column clamped to its line.
fn byte_of(text: &str, line: u32, column: u32) -> Option<usize> {
    let mut start = 0;
    for (number, content) in text.split('\n').enumerate() {
        if number + 1 == line as usize {
            let skip = (column as usize).saturating_sub(1);
            let within = content.char_indices().nth(skip).map_or(content.len(), |(i, _)| i);
            return Some(start + within);
        }
        start += content.len() + 1;
    }
    None
}

/// The line and column (from 1, in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (u32, u32) {
    let before = text.get(..at.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    (u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
}

/// The edits that select `pageInfo { hasNextPage endCursor }` (Relay) or the edges' `cursor`
/// (and `count` when asked).
fn selection_edits(
    query: &str,
    found: &super::connection::Found,
    style: PagingStyle,
    ensure_count: bool,
) -> Result<Vec<Edit>, DocumentError> {
    let mut edits = Vec::new();
    let mut items = Vec::new();
    match &found.page_info {
        _ if style == PagingStyle::EdgeCursors => {
            if found.site.cursor_key.is_none() {
                let cursor = field_text(&found.edge_children, "cursor", "");
                edits.push(append_selections(query, &first_selection_set(&found.edges)?, &[cursor])?);
            }
        }
        None => items.push(field_text(&found.children, "pageInfo", " { hasNextPage endCursor }")),
        Some((page_info, fields)) => {
            let missing: Vec<String> = ["hasNextPage", "endCursor"]
                .into_iter()
                .filter(|name| !fields.iter().any(|field| field.name == *name && field.is_leaf()))
                .map(|name| field_text(fields, name, ""))
                .collect();
            if !missing.is_empty() {
                edits.push(append_selections(query, &first_selection_set(page_info)?, &missing)?);
            }
        }
    }
    if ensure_count && found.site.count_key.is_none() {
        items.push(field_text(&found.children, "count", ""));
    }
    if !items.is_empty() {
        edits.push(append_selections(query, &first_selection_set(&found.connection)?, &items)?);
    }
    Ok(edits)
}

/// The occurrences of a field, each syntax node once (a fragment spread twice gives one node twice).
fn distinct_fields(merged: &Merged) -> Vec<apollo_parser::cst::Field> {
    let mut seen = HashSet::new();
    merged.fields().filter(|field| seen.insert(span(*field))).cloned().collect()
}

fn first_warning(first: &ArgumentValue) -> String {
    let limit = PAGE_SIZE_LIMIT;
    match first {
        ArgumentValue::Int(value) if *value > limit => {
            format!("first: {value} is above the page-size limit of {limit}; using {limit}")
        }
        ArgumentValue::Other(text) if text.chars().all(|c| c.is_ascii_digit()) => {
            format!("first: {text} is above the page-size limit of {limit}; using {limit}")
        }
        ArgumentValue::Int(value) => format!("first: {value} would return no rows; using {limit}"),
        other => format!("first: {} is not a page size; using {limit}", written(other)),
    }
}

/// An argument value as the user wrote it, for messages.
fn written(value: &ArgumentValue) -> String {
    match value {
        ArgumentValue::Absent => String::new(),
        ArgumentValue::Int(value) => value.to_string(),
        ArgumentValue::String(text) => format!("{text:?}"),
        ArgumentValue::Variable(name) => format!("${name}"),
        ArgumentValue::Other(text) => text.clone(),
    }
}

#[cfg(test)]
mod tests;
