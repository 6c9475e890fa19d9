//! The uses of deprecated schema elements in a document (apollo-compiler does not warn about
//! them): fields, arguments, input object fields and enum values, wherever they are written.

use std::ops::Range;

use apollo_compiler::Node;
use apollo_compiler::Schema;
use apollo_compiler::ast::{Type, Value};
use apollo_compiler::executable::{ExecutableDocument, Selection, SelectionSet};
use apollo_compiler::parser::{FileId, SourceSpan};

use super::super::schema_info::deprecation;

/// Each use of a deprecated element in `document` (of the source `file`): its bytes and the
/// sentence saying what is deprecated and why.
pub(super) fn uses(
    schema: &Schema,
    document: &ExecutableDocument,
    file: Option<FileId>,
) -> Vec<(Range<usize>, String)> {
    let mut walk = Walk { schema, file, out: Vec::new() };
    for operation in document.operations.iter() {
        for variable in &operation.variables {
            if let Some(default) = &variable.default_value {
                walk.value(default, &variable.ty);
            }
        }
        walk.selection_set(&operation.selection_set);
    }
    for fragment in document.fragments.values() {
        walk.selection_set(&fragment.selection_set);
    }
    walk.out
}

struct Walk<'a> {
    schema: &'a Schema,
    file: Option<FileId>,
    out: Vec<(Range<usize>, String)>,
}

impl Walk<'_> {
    fn selection_set(&mut self, set: &SelectionSet) {
        for selection in &set.selections {
            match selection {
                Selection::Field(field) => {
                    let definition = &field.definition;
                    if let Some(reason) = deprecation(&definition.directives) {
                        let message = format!("the field `{}.{}` is deprecated: {reason}", set.ty, field.name);
                        self.push(field.name.location(), message);
                    }
                    for argument in &field.arguments {
                        let Some(argument_definition) = definition.argument_by_name(&argument.name) else { continue };
                        if let Some(reason) = deprecation(&argument_definition.directives) {
                            let message = format!(
                                "the argument `{}` of `{}.{}` is deprecated: {reason}",
                                argument.name, set.ty, field.name
                            );
                            self.push(argument.name.location(), message);
                        }
                        self.value(&argument.value, &argument_definition.ty);
                    }
                    self.selection_set(&field.selection_set);
                }
                Selection::InlineFragment(inline) => self.selection_set(&inline.selection_set),
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    /// Walks a value of the input type `ty`.
    fn value(&mut self, value: &Node<Value>, ty: &Type) {
        match value.as_ref() {
            Value::Enum(name) => {
                let enum_type = self.schema.get_enum(ty.inner_named_type());
                let reason = enum_type.and_then(|e| e.values.get(name)).and_then(|v| deprecation(&v.directives));
                if let Some(reason) = reason {
                    let message = format!("the enum value `{}.{name}` is deprecated: {reason}", ty.inner_named_type());
                    self.push(value.location(), message);
                }
            }
            Value::List(items) => {
                for item in items {
                    self.value(item, ty.item_type());
                }
            }
            Value::Object(fields) => {
                let Some(input) = self.schema.get_input_object(ty.inner_named_type()) else { return };
                for (name, field_value) in fields {
                    let Some(definition) = input.fields.get(name) else { continue };
                    if let Some(reason) = deprecation(&definition.directives) {
                        let message = format!("the input field `{}.{name}` is deprecated: {reason}", input.name);
                        self.push(name.location(), message);
                    }
                    self.value(field_value, &definition.ty);
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, location: Option<SourceSpan>, message: String) {
        let location = location.filter(|location| Some(location.file_id()) == self.file);
        let range = location.map_or(0..0, |location| location.offset()..location.end_offset());
        self.out.push((range, message));
    }
}
