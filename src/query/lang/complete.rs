//! Completion in the editor: what may be typed at the cursor, from the schema. Field names for
//! the type at the cursor (through the enclosing fields, inline fragments and fragment type
//! conditions), argument names inside `(…)` (but those given), enum values and `true`/`false`
//! after `argument:`, input object field names inside `{…}` of an input value, and type names
//! after `on`. Works on unfinished documents: apollo-parser's tree keeps what was typed.

mod context;
mod items;
#[cfg(test)]
mod tests;
mod types;

use std::ops::Range;

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;
use apollo_parser::Parser;
use apollo_parser::cst::CstNode;

use context::Place;

/// What a completion inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    /// A field of an object or interface type.
    Field,
    /// An argument of a field or directive.
    Argument,
    /// A value of an enum type.
    EnumValue,
    /// A field of an input object type.
    InputField,
    /// A literal: `true` or `false`.
    Value,
    /// A type name, after `on`.
    Type,
}

/// One thing that may be typed at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The name inserted (in place of [`Completions::replace`]).
    pub label: String,
    /// Its type as GraphQL writes it (`UserConnection!`, `[String!]`), the enum of an enum
    /// value, or what kind of type a type is.
    pub detail: String,
    /// The schema's description, when it has one.
    pub documentation: Option<String>,
    /// What it is.
    pub kind: CompletionKind,
    /// The reason given by `@deprecated`, when the schema deprecates it.
    pub deprecated: Option<String>,
}

/// The completions at a cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    /// The bytes a chosen completion replaces: the part of a name typed before the cursor
    /// (empty, at the cursor, when none is).
    pub replace: Range<usize>,
    /// The completions starting with that part (ignoring case), in schema order with the
    /// deprecated ones last.
    pub items: Vec<Completion>,
}

/// The completions at byte `cursor` of `text` (clamped to the text and moved back to a
/// character boundary) against `schema`.
pub fn complete(schema: &Valid<Schema>, text: &str, cursor: usize) -> Completions {
    let mut cursor = cursor.min(text.len());
    while !text.is_char_boundary(cursor) {
        cursor -= 1;
    }
    let tree = Parser::new(text).parse();
    let (replace, place) = context::at(tree.document().syntax(), text, cursor);
    let candidates = match place {
        Place::Fields(set) => types::set_type(schema, &set).map(|ty| items::fields(schema, ty)).unwrap_or_default(),
        Place::Arguments(list, given) => {
            items::inputs(types::argument_definitions(schema, &list).iter(), &given, CompletionKind::Argument)
        }
        Place::Value(slot) => types::slot_type(schema, &slot).map(|ty| items::values(schema, ty)).unwrap_or_default(),
        Place::InputFields(object, given) => object
            .syntax()
            .parent()
            .and_then(|slot| types::slot_type(schema, &slot))
            .map(|ty| items::input_fields(schema, ty.inner_named_type(), &given))
            .unwrap_or_default(),
        Place::Types => items::types(schema),
        Place::Nothing => Vec::new(),
    };
    let prefix = text[replace.clone()].to_ascii_lowercase();
    let (mut items, deprecated): (Vec<Completion>, Vec<Completion>) = candidates
        .into_iter()
        .filter(|item| item.label.to_ascii_lowercase().starts_with(&prefix))
        .partition(|item| item.deprecated.is_none());
    items.extend(deprecated);
    Completions { replace, items }
}
