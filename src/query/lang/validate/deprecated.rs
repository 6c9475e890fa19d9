//! The uses of deprecated schema elements in a document (apollo-compiler does not warn about
//! them): fields, arguments, input object fields and enum values, wherever they are written.

use std::ops::Range;

use apollo_compiler::Node;
use apollo_compiler::Schema;
use apollo_compiler::ast::{Type, Value};
use apollo_compiler::executable::{ExecutableDocument, Selection, SelectionSet};
use apollo_compiler::parser::{FileId, SourceSpan};

use super::super::schema_info::deprecation;

/// What kind of element a deprecated use is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeprecatedKind {
    /// A field selected.
    Field,
    /// An argument given.
    Argument,
    /// A field of an input object value.
    InputField,
    /// An enum value written.
    EnumValue,
}

/// One use of a deprecated element in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeprecatedUse {
    /// The bytes of its name in the document (empty when it is about no place in it).
    pub range: Range<usize>,
    /// What kind of element it is.
    pub kind: DeprecatedKind,
    /// The type it belongs to (the field's parent type; for an argument, its field's parent type;
    /// the input object; the enum).
    pub parent: String,
    /// For an argument, the field it is given to.
    pub field: Option<String>,
    /// Its name.
    pub name: String,
    /// Whether the field is written with an alias (`fullName: name`).
    pub aliased: bool,
    /// The schema's reason.
    pub reason: String,
    /// The sentence the editor shows.
    pub message: String,
}

/// Each use of a deprecated element in `document` (of the source `file`).
pub(super) fn uses(schema: &Schema, document: &ExecutableDocument, file: Option<FileId>) -> Vec<DeprecatedUse> {
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
    out: Vec<DeprecatedUse>,
}

impl Walk<'_> {
    fn selection_set(&mut self, set: &SelectionSet) {
        for selection in &set.selections {
            match selection {
                Selection::Field(field) => {
                    let definition = &field.definition;
                    if let Some(reason) = deprecation(&definition.directives) {
                        let message = format!("the field `{}.{}` is deprecated: {reason}", set.ty, field.name);
                        let what = What {
                            kind: DeprecatedKind::Field,
                            parent: set.ty.to_string(),
                            field: None,
                            name: field.name.to_string(),
                            aliased: field.alias.is_some(),
                        };
                        self.push(field.name.location(), what, reason, message);
                    }
                    for argument in &field.arguments {
                        let Some(argument_definition) = definition.argument_by_name(&argument.name) else { continue };
                        if let Some(reason) = deprecation(&argument_definition.directives) {
                            let message = format!(
                                "the argument `{}` of `{}.{}` is deprecated: {reason}",
                                argument.name, set.ty, field.name
                            );
                            let what = What {
                                kind: DeprecatedKind::Argument,
                                parent: set.ty.to_string(),
                                field: Some(field.name.to_string()),
                                name: argument.name.to_string(),
                                aliased: false,
                            };
                            self.push(argument.name.location(), what, reason, message);
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
                    let what = What {
                        kind: DeprecatedKind::EnumValue,
                        parent: ty.inner_named_type().to_string(),
                        field: None,
                        name: name.to_string(),
                        aliased: false,
                    };
                    self.push(value.location(), what, reason, message);
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
                        let what = What {
                            kind: DeprecatedKind::InputField,
                            parent: input.name.to_string(),
                            field: None,
                            name: name.to_string(),
                            aliased: false,
                        };
                        self.push(name.location(), what, reason, message);
                    }
                    self.value(field_value, &definition.ty);
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, location: Option<SourceSpan>, what: What, reason: String, message: String) {
        let location = location.filter(|location| Some(location.file_id()) == self.file);
        let range = location.map_or(0..0, |location| location.offset()..location.end_offset());
        let What { kind, parent, field, name, aliased } = what;
        self.out.push(DeprecatedUse { range, kind, parent, field, name, aliased, reason, message });
    }
}

/// The element a use is of.
struct What {
    kind: DeprecatedKind,
    parent: String,
    field: Option<String>,
    name: String,
    aliased: bool,
}
