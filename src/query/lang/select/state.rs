//! Which fields a document selects: the explorer's ticks.

use std::ops::Range;

use apollo_parser::cst::{self, CstNode};

use super::super::super::OperationKind;
use super::Target;
use super::tree::{Tree, enclosing_fragment};

/// One place in the document that selects a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldUse {
    /// The field's alias, when it has one.
    pub alias: Option<String>,
    /// The named fragment the field is written in, when it is not written in the operation.
    pub fragment: Option<String>,
    /// Whether the field or one of the fields on its path has an alias. Unticking removes the
    /// uses without one first (see [`toggle_field`](super::toggle_field)).
    pub aliased_path: bool,
    /// The field's bytes in the document (alias, name, arguments, directives, selection set).
    pub range: Range<usize>,
}

/// A field of the selection tree and the fields selected under it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectedField {
    uses: Vec<FieldUse>,
    children: Vec<(String, SelectedField)>,
}

impl SelectedField {
    /// The places that select this field, in document order (empty for an operation's root).
    pub fn uses(&self) -> &[FieldUse] {
        &self.uses
    }

    /// The fields selected under this one, by field name, in the order they first appear.
    pub fn children(&self) -> impl Iterator<Item = (&str, &SelectedField)> {
        self.children.iter().map(|(name, field)| (name.as_str(), field))
    }

    /// The selected field named `name` directly under this one.
    pub fn child(&self, name: &str) -> Option<&SelectedField> {
        self.children.iter().find(|(child, _)| child == name).map(|(_, field)| field)
    }

    /// The selected field at `path` (field names) under this one.
    pub fn descendant(&self, path: &[impl AsRef<str>]) -> Option<&SelectedField> {
        path.iter().try_fold(self, |field, name| field.child(name.as_ref()))
    }

    fn child_mut(&mut self, name: &str) -> &mut SelectedField {
        let index = match self.children.iter().position(|(child, _)| child == name) {
            Some(index) => index,
            None => {
                self.children.push((name.to_string(), SelectedField::default()));
                self.children.len() - 1
            }
        };
        &mut self.children[index].1
    }

    fn push_paths(&self, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        for (name, child) in &self.children {
            prefix.push(name.clone());
            out.push(prefix.clone());
            child.push_paths(prefix, out);
            prefix.pop();
        }
    }
}

/// The fields a document selects, for each kind of operation: the explorer's ticks.
///
/// A path is a list of field *names* from the operation's root (`["users", "edges", "node",
/// "email"]`), the same whatever the response keys: an aliased field counts under its name, and
/// a field selected through an inline fragment or a fragment spread counts where the fragment
/// is used. A path is selected when at least one place selects it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionState {
    query: Option<SelectedField>,
    mutation: Option<SelectedField>,
    subscription: Option<SelectedField>,
}

impl SelectionState {
    /// The root of the operation of `kind` the explorer edits, or `None` when the document has
    /// no operation of that kind.
    pub fn root(&self, kind: OperationKind) -> Option<&SelectedField> {
        match kind {
            OperationKind::Query => self.query.as_ref(),
            OperationKind::Mutation => self.mutation.as_ref(),
            OperationKind::Subscription => self.subscription.as_ref(),
        }
    }

    /// The selected field at `path` in the operation of `kind`.
    pub fn field(&self, kind: OperationKind, path: &[impl AsRef<str>]) -> Option<&SelectedField> {
        if path.is_empty() {
            return None;
        }
        self.root(kind)?.descendant(path)
    }

    /// Whether the field at `path` is selected in the operation of `kind` (its box is ticked).
    pub fn is_selected(&self, kind: OperationKind, path: &[impl AsRef<str>]) -> bool {
        self.field(kind, path).is_some()
    }

    /// Every selected path of the operation of `kind`, parents before their children.
    pub fn paths(&self, kind: OperationKind) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        if let Some(root) = self.root(kind) {
            root.push_paths(&mut Vec::new(), &mut out);
        }
        out
    }
}

/// The selection state of `text`, operation by operation kind (see [`Tree::operation`] for
/// which operation of a kind counts).
pub(super) fn collect(text: &str, operation_name: Option<&str>) -> SelectionState {
    let tree = Tree::parse(text);
    let root = |kind: OperationKind| {
        let operation = tree.operation(Target { kind, name: operation_name })?;
        let mut root = SelectedField::default();
        if let Some(set) = operation.selection_set() {
            walk(&tree, &set, &[], false, &mut root);
        }
        Some(root)
    };
    SelectionState {
        query: root(OperationKind::Query),
        mutation: root(OperationKind::Mutation),
        subscription: root(OperationKind::Subscription),
    }
}

fn walk(tree: &Tree, set: &cst::SelectionSet, via: &[String], aliased: bool, into: &mut SelectedField) {
    for reached in tree.fields_of(set, via) {
        let alias = reached.field.alias().and_then(|alias| alias.name()).map(|name| name.text().to_string());
        let aliased_path = aliased || reached.field.alias().is_some();
        let range = reached.field.syntax().text_range();
        let child = into.child_mut(&reached.name);
        child.uses.push(FieldUse {
            alias,
            fragment: enclosing_fragment(&reached.field),
            aliased_path,
            range: usize::from(range.start())..usize::from(range.end()),
        });
        if let Some(inner) = reached.field.selection_set() {
            walk(tree, &inner, &reached.via, aliased_path, child);
        }
    }
}
