//! Unticking a field: the edits that remove fields, and the selections, fragments and
//! operation that become empty because of it.

use std::collections::HashSet;
use std::ops::Range;

use apollo_parser::SyntaxNode;
use apollo_parser::cst::{self, CstNode};

use super::super::super::document::{fragment_name, span, spread_name};
use super::TextEdit;
use super::layout::{definition_removal, list_removal};
use super::tree::Tree;

/// The pieces of text that remove `fields`, and with them every selection set, fragment
/// definition (with its spreads) and operation left empty.
pub(super) fn removal(text: &str, tree: &Tree, fields: &[cst::Field]) -> Vec<TextEdit> {
    let mut deleted: HashSet<SyntaxNode> = HashSet::new();
    let mut pending: Vec<SyntaxNode> = fields.iter().map(|field| field.syntax().clone()).collect();
    deleted.extend(pending.iter().cloned());
    while let Some(node) = pending.pop() {
        let Some(set) = node.parent().and_then(cst::SelectionSet::cast) else { continue };
        if !set.selections().all(|selection| deleted.contains(selection.syntax())) {
            continue;
        }
        let Some(owner) = set.syntax().parent() else { continue };
        if let Some(fragment) = cst::FragmentDefinition::cast(owner.clone()) {
            if deleted.insert(owner) {
                for spread in spreads_of(tree, &fragment) {
                    if deleted.insert(spread.clone()) {
                        pending.push(spread);
                    }
                }
            }
        } else if cst::OperationDefinition::can_cast(owner.kind()) {
            deleted.insert(owner);
        } else if deleted.insert(owner.clone()) {
            pending.push(owner);
        }
    }
    pieces(text, tree, &deleted)
}

/// The spreads of `fragment` anywhere in the document.
fn spreads_of(tree: &Tree, fragment: &cst::FragmentDefinition) -> Vec<SyntaxNode> {
    let Some(name) = fragment_name(fragment) else { return Vec::new() };
    tree.document
        .syntax()
        .descendants()
        .filter_map(cst::FragmentSpread::cast)
        .filter(|spread| spread_name(spread).as_deref() == Some(name.as_str()))
        .map(|spread| spread.syntax().clone())
        .collect()
}

/// The text pieces that remove the `deleted` nodes whose ancestors stay: runs of side-by-side
/// selections in each selection set, runs of side-by-side definitions in the document.
fn pieces(text: &str, tree: &Tree, deleted: &HashSet<SyntaxNode>) -> Vec<TextEdit> {
    let outermost = |node: &SyntaxNode| node.ancestors().skip(1).all(|ancestor| !deleted.contains(&ancestor));
    let mut sets: Vec<cst::SelectionSet> = Vec::new();
    for node in deleted.iter().filter(|node| outermost(node)) {
        if let Some(set) = node.parent().and_then(cst::SelectionSet::cast)
            && !sets.iter().any(|known| known.syntax() == set.syntax())
        {
            sets.push(set);
        }
    }
    let mut out = Vec::new();
    for set in sets {
        let items: Vec<Range<usize>> = set.selections().map(|selection| range(&selection)).collect();
        let gone: Vec<bool> = set.selections().map(|selection| deleted.contains(selection.syntax())).collect();
        for run in runs(&items, &gone) {
            out.push(cut(list_removal(text, run.previous, run.range, run.next)));
        }
    }
    let definitions: Vec<cst::Definition> = tree.document.definitions().collect();
    let items: Vec<Range<usize>> = definitions.iter().map(range).collect();
    let gone: Vec<bool> = definitions.iter().map(|definition| deleted.contains(definition.syntax())).collect();
    for run in runs(&items, &gone) {
        out.push(cut(definition_removal(text, run.range)));
    }
    out
}

/// Side-by-side removed items of a list.
pub(super) struct Run {
    /// Where the kept item before the run ends.
    pub(super) previous: Option<usize>,
    /// From the first removed item's start to the last one's end.
    pub(super) range: Range<usize>,
    /// Where the kept item after the run starts.
    pub(super) next: Option<usize>,
}

/// The runs of consecutive `gone` items among `items` (byte ranges in document order).
pub(super) fn runs(items: &[Range<usize>], gone: &[bool]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut index = 0;
    while index < items.len() {
        if !gone[index] {
            index += 1;
            continue;
        }
        let first = index;
        while index < items.len() && gone[index] {
            index += 1;
        }
        out.push(Run {
            previous: first.checked_sub(1).map(|before| items[before].end),
            range: items[first].start..items[index - 1].end,
            next: items.get(index).map(|after| after.start),
        });
    }
    out
}

/// The byte range of a node.
pub(super) fn range(node: &impl CstNode) -> Range<usize> {
    let (start, end) = span(node);
    start..end
}

/// The piece deleting `range`.
pub(super) fn cut(range: Range<usize>) -> TextEdit {
    TextEdit { range, replacement: String::new() }
}
