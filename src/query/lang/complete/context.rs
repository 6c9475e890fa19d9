//! What the cursor is on: the prefix typed so far and the kind of name that may go there, read
//! from apollo-parser's syntax tree (which keeps unfinished text: `users(fi` is an argument
//! `fi` of `users`, `node { em` a field `em` of `node`).

use std::ops::Range;

use apollo_parser::cst::{self, CstNode};
use apollo_parser::{SyntaxKind, SyntaxNode, SyntaxToken};

/// The kind of name the cursor may complete, with the syntax it belongs to.
pub(super) enum Place {
    /// A field of the type of this selection set.
    Fields(cst::SelectionSet),
    /// An argument of this list's field or directive, other than those named `given`.
    Arguments(cst::Arguments, Vec<String>),
    /// A value for this slot (an argument, an input object field or a list item).
    Value(SyntaxNode),
    /// A field of this input object value, other than those named `given`.
    InputFields(cst::ObjectValue, Vec<String>),
    /// A type name (after `on`).
    Types,
    /// Nothing to complete (a comment, a string, a number, punctuation that starts no name).
    Nothing,
}

/// The prefix at `cursor` (a byte of `text`, on a character boundary) and what it completes.
pub(super) fn at(root: &SyntaxNode, text: &str, cursor: usize) -> (Range<usize>, Place) {
    let empty = cursor..cursor;
    let Some(left) = left_token(root, cursor) else { return (empty, Place::Nothing) };
    let start = usize::from(left.text_range().start());
    match left.kind() {
        SyntaxKind::COMMENT => (empty, Place::Nothing),
        SyntaxKind::WHITESPACE | SyntaxKind::COMMA => (empty, after(&left, cursor)),
        _ if is_name(&text[start..cursor]) && usize::from(left.text_range().end()) >= cursor => {
            (start..cursor, on_name(&left))
        }
        _ if usize::from(left.text_range().end()) > cursor || is_value_token(left.kind()) => (empty, Place::Nothing),
        _ => (empty, after(&left, cursor)),
    }
}

/// The token that ends at or runs over `cursor`, starting before it.
fn left_token(root: &SyntaxNode, cursor: usize) -> Option<SyntaxToken> {
    if cursor == 0 || cursor > usize::from(root.text_range().end()) {
        return None;
    }
    let token = root.token_at_offset(u32::try_from(cursor).ok()?.into()).left_biased()?;
    (usize::from(token.text_range().start()) < cursor).then_some(token)
}

/// What a name being typed (the token `name`) completes, by where the parser put it.
fn on_name(name: &SyntaxToken) -> Place {
    let Some(holder) = name.parent() else { return Place::Nothing };
    let owner = match holder.kind() {
        SyntaxKind::NAME => holder.parent(),
        SyntaxKind::BOOLEAN_VALUE | SyntaxKind::NULL_VALUE => return value_slot(&holder),
        _ => None,
    };
    let Some(owner) = owner else { return Place::Nothing };
    match owner.kind() {
        SyntaxKind::FIELD => owner.parent().and_then(cst::SelectionSet::cast).map_or(Place::Nothing, Place::Fields),
        SyntaxKind::ARGUMENT => match owner.parent().and_then(cst::Arguments::cast) {
            Some(list) => {
                let given = argument_names(&list, Some(&owner));
                Place::Arguments(list, given)
            }
            None => Place::Nothing,
        },
        SyntaxKind::ENUM_VALUE => value_slot(&owner),
        SyntaxKind::OBJECT_FIELD => match owner.parent().and_then(cst::ObjectValue::cast) {
            Some(object) => {
                let given = input_field_names(&object, Some(&owner));
                Place::InputFields(object, given)
            }
            None => Place::Nothing,
        },
        SyntaxKind::NAMED_TYPE if owner.parent().is_some_and(|p| p.kind() == SyntaxKind::TYPE_CONDITION) => {
            Place::Types
        }
        _ => Place::Nothing,
    }
}

/// The slot a value node fills: the argument, input field or list it is written in.
fn value_slot(value: &SyntaxNode) -> Place {
    match value.parent() {
        Some(slot) if is_slot(slot.kind()) => Place::Value(slot),
        _ => Place::Nothing,
    }
}

/// What may start at `cursor`, after the significant token before it (`left` or earlier).
fn after(left: &SyntaxToken, cursor: usize) -> Place {
    let mut anchor = left.clone();
    while matches!(anchor.kind(), SyntaxKind::WHITESPACE | SyntaxKind::COMMA | SyntaxKind::COMMENT) {
        let Some(previous) = anchor.prev_token() else { return Place::Nothing };
        anchor = previous;
    }
    let Some(parent) = anchor.parent() else { return Place::Nothing };
    match (anchor.kind(), parent.kind()) {
        (SyntaxKind::COLON, kind) if is_slot(kind) => Place::Value(parent),
        (SyntaxKind::COLON, SyntaxKind::ALIAS) => enclosing(&parent, cursor),
        (SyntaxKind::L_BRACK, SyntaxKind::LIST_VALUE) => Place::Value(parent),
        (SyntaxKind::on_KW, SyntaxKind::TYPE_CONDITION) => Place::Types,
        (
            SyntaxKind::COLON
            | SyntaxKind::SPREAD
            | SyntaxKind::AT
            | SyntaxKind::DOLLAR
            | SyntaxKind::EQ
            | SyntaxKind::BANG
            | SyntaxKind::PIPE
            | SyntaxKind::AMP,
            _,
        ) => Place::Nothing,
        _ => enclosing(&parent, cursor),
    }
}

/// The innermost list-like node around `node` still open at `cursor` (its closing bracket
/// missing or after the cursor), as a place.
fn enclosing(node: &SyntaxNode, cursor: usize) -> Place {
    for ancestor in node.ancestors() {
        let closing = match ancestor.kind() {
            SyntaxKind::SELECTION_SET | SyntaxKind::OBJECT_VALUE => SyntaxKind::R_CURLY,
            SyntaxKind::ARGUMENTS => SyntaxKind::R_PAREN,
            SyntaxKind::LIST_VALUE => SyntaxKind::R_BRACK,
            SyntaxKind::OPERATION_DEFINITION | SyntaxKind::FRAGMENT_DEFINITION | SyntaxKind::DOCUMENT => {
                return Place::Nothing;
            }
            _ => continue,
        };
        let close =
            ancestor.children_with_tokens().filter_map(|element| element.into_token()).find(|t| t.kind() == closing);
        if close.is_some_and(|close| usize::from(close.text_range().start()) < cursor) {
            continue;
        }
        return match ancestor.kind() {
            SyntaxKind::SELECTION_SET => cst::SelectionSet::cast(ancestor).map_or(Place::Nothing, Place::Fields),
            SyntaxKind::ARGUMENTS => match cst::Arguments::cast(ancestor) {
                Some(list) => {
                    let given = argument_names(&list, None);
                    Place::Arguments(list, given)
                }
                None => Place::Nothing,
            },
            SyntaxKind::OBJECT_VALUE => match cst::ObjectValue::cast(ancestor) {
                Some(object) => {
                    let given = input_field_names(&object, None);
                    Place::InputFields(object, given)
                }
                None => Place::Nothing,
            },
            _ => Place::Value(ancestor),
        };
    }
    Place::Nothing
}

/// The names of the arguments written in `list`, but for the one being typed.
fn argument_names(list: &cst::Arguments, typing: Option<&SyntaxNode>) -> Vec<String> {
    list.arguments()
        .filter(|argument| Some(argument.syntax()) != typing)
        .filter_map(|argument| Some(argument.name()?.text().to_string()))
        .collect()
}

/// The names of the fields written in `object`, but for the one being typed.
fn input_field_names(object: &cst::ObjectValue, typing: Option<&SyntaxNode>) -> Vec<String> {
    object
        .object_fields()
        .filter(|field| Some(field.syntax()) != typing)
        .filter_map(|field| Some(field.name()?.text().to_string()))
        .collect()
}

/// Whether a node of `kind` holds a value: an argument, an input object field, a list.
fn is_slot(kind: SyntaxKind) -> bool {
    matches!(kind, SyntaxKind::ARGUMENT | SyntaxKind::OBJECT_FIELD | SyntaxKind::LIST_VALUE)
}

/// Whether a token of `kind` is a literal other than a name (a number or a string).
fn is_value_token(kind: SyntaxKind) -> bool {
    matches!(kind, SyntaxKind::INT | SyntaxKind::FLOAT | SyntaxKind::STRING)
}

/// Whether `text` is a GraphQL name (what a person types to be completed).
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
