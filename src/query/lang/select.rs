//! The explorer's checkboxes and argument inputs as edits of the document, which stays the one
//! source of truth: [`selected_paths`] reads the ticks from the text, [`toggle_field`] and
//! [`set_argument`] return the one [`TextEdit`] that ticks, unticks or sets an argument, leaving
//! the rest of the text (formatting, comments) byte for byte.
//!
//! # Which operation
//!
//! The explorer shows one tree a kind of operation (query, mutation). For a [`Target`] of kind
//! `K` and name `N`, the operation edited is the one named `N` when it is of kind `K`, else the
//! first operation of kind `K`; ticking a field when there is none adds one (`query { … }`) after
//! the document's last definition.
//!
//! # Paths, aliases and fragments
//!
//! A path is a list of field names from the operation's root: `["users", "edges", "node",
//! "email"]`. Aliases do not change it (`work: email` is `email`), and fragments are followed:
//! a field selected in a fragment counts where the fragment is spread or written inline.
//!
//! - **Ticking** a selected path changes nothing. Otherwise the missing fields go under the
//!   deepest field of the path already selected (preferring one reached without an alias, then
//!   through fewer fragments, then the first): in its selection set after the last selection,
//!   on a line of their own with its indentation when the closing brace is on a later line, else
//!   on the same line; inside a named fragment when that field is written there.
//! - **Unticking** removes the path's fields that are reached without any alias on the way;
//!   only when every one has an alias (`a: email b: email`) are the aliased ones removed. So a
//!   field selected both plainly and under an alias stays ticked after one untick (the aliased
//!   one is kept, as the person wrote it on purpose) and a second untick removes it. A field
//!   written in a named fragment is removed from the fragment's definition. Removing goes with
//!   the field's arguments and selection set, and with the line it stood on when it had one of
//!   its own; a selection set left empty takes its field (or inline fragment) with it, a fragment
//!   left empty is removed with its spreads, and an operation left empty is removed.
//! - **Arguments** are set on the same fields an untick would remove, so that fields that merge
//!   in the response keep the same arguments.
//!
//! Reading works on documents with syntax errors, as far as apollo-parser recovers; an edit of a
//! document with a syntax error is refused ([`EditError::Syntax`]), since the recovered tree
//! may not be where the person's text is.

mod arguments;
mod error;
mod insert;
mod layout;
mod remove;
mod state;
mod tree;

#[cfg(test)]
mod tests_arguments;
#[cfg(test)]
mod tests_state;
#[cfg(test)]
mod tests_toggle;

pub use error::EditError;
pub use state::{FieldUse, SelectedField, SelectionState};

use super::super::OperationKind;
use super::text_edit::TextEdit;
use tree::{Tree, is_name};

/// The operation the explorer edits: the one named `name` when it is of kind `kind`, else the
/// first operation of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// The kind of operation (the explorer's tree: query or mutation).
    pub kind: OperationKind,
    /// The name of the operation chosen in the editor, if any.
    pub name: Option<&'a str>,
}

impl From<OperationKind> for Target<'_> {
    fn from(kind: OperationKind) -> Self {
        Self { kind, name: None }
    }
}

/// The fields `text` selects, for each kind of operation: in the operation named
/// `operation_name` where it is of that kind, else in the first operation of that kind.
/// Works on text with syntax errors as far as the parser recovers.
pub fn selected_paths(text: &str, operation_name: Option<&str>) -> SelectionState {
    state::collect(text, operation_name)
}

/// The edit that ticks (`on`) or unticks the field at `path` in the operation of `target`;
/// `Ok(None)` when the box already is that way. See the [module docs](self) for where fields go
/// and which ones an untick removes.
///
/// # Errors
///
/// [`EditError::Syntax`] when the text has a syntax error, [`EditError::InvalidPath`] for an
/// empty path or one with something other than names.
pub fn toggle_field<'a>(
    text: &str,
    target: impl Into<Target<'a>>,
    path: &[impl AsRef<str>],
    on: bool,
) -> Result<Option<TextEdit>, EditError> {
    let (target, path) = (target.into(), checked_path(path)?);
    let tree = Tree::parse_for_edit(text)?;
    if on {
        return insert::tick(text, &tree, target, &path);
    }
    let Some(set) = tree.operation(target).and_then(|operation| operation.selection_set()) else { return Ok(None) };
    let fields = tree.preferred(&set, &path);
    merge(text, remove::removal(text, &tree, &fields))
}

/// The edit that gives the field at `path` the argument `name` with `value` (a GraphQL literal
/// as it would be written: `10`, `"text"`, `ACTIVE`, `$first`, `{ status: ACTIVE }`), replacing
/// a value it has and adding the parentheses it lacks; or that removes the argument when `value`
/// is `None` (with the parentheses when it was the only one). `Ok(None)` when nothing changes.
///
/// # Errors
///
/// [`EditError::NotSelected`] when the field is not in the query, [`EditError::InvalidValue`]
/// when `value` is not one GraphQL value, and as for [`toggle_field`].
pub fn set_argument<'a>(
    text: &str,
    target: impl Into<Target<'a>>,
    path: &[impl AsRef<str>],
    name: &str,
    value: Option<&str>,
) -> Result<Option<TextEdit>, EditError> {
    let (target, path) = (target.into(), checked_path(path)?);
    if !is_name(name) {
        return Err(EditError::InvalidArgumentName { name: name.to_string() });
    }
    let value = value.map(arguments::checked_value).transpose()?;
    let tree = Tree::parse_for_edit(text)?;
    let set = tree.operation(target).and_then(|operation| operation.selection_set());
    let fields = set.map(|set| tree.preferred(&set, &path)).unwrap_or_default();
    if fields.is_empty() {
        return Err(EditError::NotSelected { path: path.join(".") });
    }
    let pieces = fields.iter().flat_map(|field| arguments::pieces(text, field, name, value)).collect();
    merge(text, pieces)
}

/// The arguments written on the field at `path` (the first of those [`set_argument`] edits), as
/// name and value text; empty when the field is not selected. Works on text with syntax errors
/// as far as the parser recovers.
pub fn argument_values<'a>(
    text: &str,
    target: impl Into<Target<'a>>,
    path: &[impl AsRef<str>],
) -> Vec<(String, String)> {
    let Ok(path) = checked_path(path) else { return Vec::new() };
    let tree = Tree::parse(text);
    let Some(set) = tree.operation(target.into()).and_then(|operation| operation.selection_set()) else {
        return Vec::new();
    };
    tree.preferred(&set, &path).first().map(|field| arguments::values(text, field)).unwrap_or_default()
}

/// `path` as owned names, when it is a non-empty list of GraphQL names.
fn checked_path(path: &[impl AsRef<str>]) -> Result<Vec<String>, EditError> {
    let names: Vec<String> = path.iter().map(|name| name.as_ref().to_string()).collect();
    if names.is_empty() || !names.iter().all(|name| is_name(name)) {
        return Err(EditError::InvalidPath { path: names.join(".") });
    }
    Ok(names)
}

fn merge(text: &str, pieces: Vec<TextEdit>) -> Result<Option<TextEdit>, EditError> {
    TextEdit::merge(text, pieces).map_err(|detail| EditError::Internal { detail })
}
