//! The schema types of places in a (possibly unfinished) document: walking up the syntax tree
//! to the operation's root type or a fragment's type condition, then down through the fields.

use apollo_compiler::Node;
use apollo_compiler::Schema;
use apollo_compiler::ast::{OperationType, Type};
use apollo_compiler::schema::{FieldDefinition, InputValueDefinition, NamedType};
use apollo_parser::cst::{self, CstNode};
use apollo_parser::{SyntaxKind, SyntaxNode};

use super::super::super::OperationKind;
use super::super::super::document::operation_kind;

/// The type whose fields `set` selects.
pub(super) fn set_type<'s>(schema: &'s Schema, set: &cst::SelectionSet) -> Option<&'s NamedType> {
    let owner = set.syntax().parent()?;
    match owner.kind() {
        SyntaxKind::FIELD => Some(field_definition(schema, &cst::Field::cast(owner)?)?.ty.inner_named_type()),
        SyntaxKind::OPERATION_DEFINITION => {
            let kind = match operation_kind(&cst::OperationDefinition::cast(owner)?) {
                OperationKind::Query => OperationType::Query,
                OperationKind::Mutation => OperationType::Mutation,
                OperationKind::Subscription => OperationType::Subscription,
            };
            schema.root_operation(kind)
        }
        SyntaxKind::INLINE_FRAGMENT => {
            let fragment = cst::InlineFragment::cast(owner)?;
            match fragment.type_condition() {
                Some(condition) => named(schema, condition),
                None => set_type(schema, &fragment.syntax().parent().and_then(cst::SelectionSet::cast)?),
            }
        }
        SyntaxKind::FRAGMENT_DEFINITION => named(schema, cst::FragmentDefinition::cast(owner)?.type_condition()?),
        _ => None,
    }
}

/// The schema's name for the type a type condition names.
fn named(schema: &Schema, condition: cst::TypeCondition) -> Option<&NamedType> {
    let name = condition.named_type()?.name()?.text().to_string();
    schema.types.get_key_value(name.as_str()).map(|(name, _)| name)
}

/// The definition of `field` in the type of the selection set it is written in.
pub(super) fn field_definition<'s>(schema: &'s Schema, field: &cst::Field) -> Option<&'s FieldDefinition> {
    let set = field.syntax().parent().and_then(cst::SelectionSet::cast)?;
    let parent = set_type(schema, &set)?;
    let name = field.name()?.text().to_string();
    schema.type_field(parent, &name).ok().map(|definition| &***definition)
}

/// The arguments the field or directive that `list` belongs to takes.
pub(super) fn argument_definitions<'s>(schema: &'s Schema, list: &cst::Arguments) -> &'s [Node<InputValueDefinition>] {
    let Some(owner) = list.syntax().parent() else { return &[] };
    let definitions = match owner.kind() {
        SyntaxKind::FIELD => {
            cst::Field::cast(owner).and_then(|field| field_definition(schema, &field)).map(|d| &d.arguments)
        }
        SyntaxKind::DIRECTIVE => cst::Directive::cast(owner)
            .and_then(|directive| Some(directive.name()?.text().to_string()))
            .and_then(|name| schema.directive_definitions.get(name.as_str()))
            .map(|definition| &definition.arguments),
        _ => None,
    };
    definitions.map_or(&[], |definitions| definitions.as_slice())
}

/// The type a value written in `slot` must have: an argument's type, an input object field's
/// type, or a list's item type.
pub(super) fn slot_type<'s>(schema: &'s Schema, slot: &SyntaxNode) -> Option<&'s Type> {
    match slot.kind() {
        SyntaxKind::ARGUMENT => {
            let argument = cst::Argument::cast(slot.clone())?;
            let name = argument.name()?.text().to_string();
            let list = slot.parent().and_then(cst::Arguments::cast)?;
            argument_definitions(schema, &list)
                .iter()
                .find(|definition| definition.name == name.as_str())
                .map(|d| &*d.ty)
        }
        SyntaxKind::OBJECT_FIELD => {
            let name = cst::ObjectField::cast(slot.clone())?.name()?.text().to_string();
            let object = slot.parent()?;
            let input = schema.get_input_object(slot_type(schema, &object.parent()?)?.inner_named_type())?;
            input.fields.get(name.as_str()).map(|definition| &*definition.ty)
        }
        SyntaxKind::LIST_VALUE => Some(slot_type(schema, &slot.parent()?)?.item_type()),
        _ => None,
    }
}
