//! The parsed document the explorer edits: its operations, its fragments, and the fields a
//! selection set selects once fragments are expanded.

use std::collections::HashMap;

use apollo_parser::Parser;
use apollo_parser::cst::{self, CstNode};

use super::super::super::OperationKind;
use super::super::super::document::{fragment_name, line_column, operation_kind, spread_name};
use super::super::tokens::is_blank;
use super::{EditError, Target};

/// A document parsed with apollo-parser's error recovery.
pub(super) struct Tree {
    /// The document (partial where the text has syntax errors).
    pub(super) document: cst::Document,
    /// The fragment definitions by name (the first one where a name is defined twice).
    pub(super) fragments: HashMap<String, cst::FragmentDefinition>,
    /// The first syntax error: byte offset and message.
    first_error: Option<(usize, String)>,
}

impl Tree {
    /// Parses `text`, recovering from syntax errors.
    pub(super) fn parse(text: &str) -> Self {
        let tree = Parser::new(text).parse();
        let first_error = tree.errors().next().map(|error| (error.index(), error.message().to_string()));
        let document = tree.document();
        let mut fragments = HashMap::new();
        for definition in document.definitions() {
            if let cst::Definition::FragmentDefinition(fragment) = definition
                && let Some(name) = fragment_name(&fragment)
            {
                fragments.entry(name).or_insert(fragment);
            }
        }
        let first_error = first_error.filter(|_| !is_blank(text));
        Self { document, fragments, first_error }
    }

    /// Parses `text` for an edit: a syntax error (other than a blank text) is an
    /// [`EditError::Syntax`], since an edit of a recovered tree could land in the wrong place.
    pub(super) fn parse_for_edit(text: &str) -> Result<Self, EditError> {
        let tree = Self::parse(text);
        match &tree.first_error {
            Some((index, message)) => {
                let (line, column) = line_column(text, *index);
                Err(EditError::Syntax { line, column, message: message.clone() })
            }
            None => Ok(tree),
        }
    }

    /// The operation the explorer edits for `target`: the one named `target.name` when it is of
    /// `target.kind`, else the first operation of that kind.
    pub(super) fn operation(&self, target: Target<'_>) -> Option<cst::OperationDefinition> {
        let of_kind: Vec<cst::OperationDefinition> =
            self.operations().filter(|operation| operation_kind(operation) == target.kind).collect();
        let named = target.name.and_then(|wanted| {
            of_kind.iter().find(|operation| operation.name().is_some_and(|name| name.text() == wanted))
        });
        named.or(of_kind.first()).cloned()
    }

    /// The operations, in document order.
    pub(super) fn operations(&self) -> impl Iterator<Item = cst::OperationDefinition> + use<> {
        self.document.definitions().filter_map(|definition| match definition {
            cst::Definition::OperationDefinition(operation) => Some(operation),
            _ => None,
        })
    }

    /// The fields `set` selects, in document order, with inline fragments and fragment spreads
    /// expanded in place. `via` names the fragments already expanded on the way to `set`; a
    /// spread of one of them (a cycle) or of an undefined fragment is skipped.
    pub(super) fn fields_of(&self, set: &cst::SelectionSet, via: &[String]) -> Vec<Reached> {
        let mut out = Vec::new();
        let mut via = via.to_vec();
        self.expand(set, &mut via, &mut out);
        out
    }

    fn expand(&self, set: &cst::SelectionSet, via: &mut Vec<String>, out: &mut Vec<Reached>) {
        for selection in set.selections() {
            match selection {
                cst::Selection::Field(field) => {
                    if let Some(name) = field.name() {
                        out.push(Reached { name: name.text().to_string(), field, via: via.clone() });
                    }
                }
                cst::Selection::InlineFragment(fragment) => {
                    if let Some(inner) = fragment.selection_set() {
                        self.expand(&inner, via, out);
                    }
                }
                cst::Selection::FragmentSpread(spread) => {
                    let Some(name) = spread_name(&spread) else { continue };
                    let inner = self.fragments.get(&name).and_then(cst::FragmentDefinition::selection_set);
                    if let Some(inner) = inner.filter(|_| !via.contains(&name)) {
                        via.push(name);
                        self.expand(&inner, via, out);
                        via.pop();
                    }
                }
            }
        }
    }

    /// Every field at the end of `path` (field names from `set`), with whether an alias was met
    /// on the way (the field's own included).
    pub(super) fn occurrences(&self, set: &cst::SelectionSet, path: &[String]) -> Vec<Occurrence> {
        let mut out = Vec::new();
        self.find(set, path, &[], false, &mut out);
        out
    }

    fn find(&self, set: &cst::SelectionSet, path: &[String], via: &[String], aliased: bool, out: &mut Vec<Occurrence>) {
        let Some((first, rest)) = path.split_first() else { return };
        for reached in self.fields_of(set, via) {
            if reached.name != *first {
                continue;
            }
            let aliased = aliased || reached.field.alias().is_some();
            if rest.is_empty() {
                out.push(Occurrence { field: reached.field, aliased });
            } else if let Some(inner) = reached.field.selection_set() {
                self.find(&inner, rest, &reached.via, aliased, out);
            }
        }
    }

    /// The occurrences an untick removes and an argument edit changes: those reached without
    /// an alias when there are any, else all of them.
    pub(super) fn preferred(&self, set: &cst::SelectionSet, path: &[String]) -> Vec<cst::Field> {
        let all = self.occurrences(set, path);
        let plain = all.iter().any(|occurrence| !occurrence.aliased);
        all.into_iter().filter(|occurrence| !plain || !occurrence.aliased).map(|occurrence| occurrence.field).collect()
    }
}

/// A field reached from a selection set.
pub(super) struct Reached {
    /// The field's name (not its alias).
    pub(super) name: String,
    /// The field as written.
    pub(super) field: cst::Field,
    /// The fragments expanded on the way to it, outermost first.
    pub(super) via: Vec<String>,
}

/// A field at the end of a path.
pub(super) struct Occurrence {
    /// The field as written.
    pub(super) field: cst::Field,
    /// Whether the field or one of the fields on the way has an alias.
    pub(super) aliased: bool,
}

/// The name of the fragment definition that `node` is written in, if any.
pub(super) fn enclosing_fragment(node: &impl CstNode) -> Option<String> {
    node.syntax().ancestors().find_map(cst::FragmentDefinition::cast).and_then(|fragment| fragment_name(&fragment))
}

/// The kind keyword that starts an operation of `kind`.
pub(super) fn keyword(kind: OperationKind) -> &'static str {
    match kind {
        OperationKind::Query => "query",
        OperationKind::Mutation => "mutation",
        OperationKind::Subscription => "subscription",
    }
}

/// Whether `name` is a GraphQL name: a letter or `_`, then letters, digits or `_`.
pub(super) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
