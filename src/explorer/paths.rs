//! The shortest way from a root field to every output type, found by one breadth-first walk when
//! the model is built, so that a search hit can open the tree down to it.

use std::collections::VecDeque;

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use apollo_compiler::schema::ExtendedType;

/// How a type was first reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Not from any root through fields (input objects, types only behind unions, unused types).
    Unreached,
    /// It is a root operation type.
    Root,
    /// Through field number `field` of type number `parent` (indexes of `Schema::types`).
    Field { parent: u32, field: u32 },
}

/// For each type (by its index in `Schema::types`), the step that first reached it.
#[derive(Debug, Clone)]
pub(crate) struct RootPaths {
    steps: Vec<Step>,
}

impl RootPaths {
    /// Walks the fields of object types and interfaces breadth-first: all of the query root
    /// first, then what only the mutation (and subscription) roots reach.
    pub(crate) fn new(schema: &Schema) -> Self {
        let mut steps = vec![Step::Unreached; schema.types.len()];
        let mut queue = VecDeque::new();
        for operation in [OperationType::Query, OperationType::Mutation, OperationType::Subscription] {
            let Some(root) = schema.root_operation(operation).and_then(|name| schema.types.get_index_of(name)) else {
                continue;
            };
            if steps[root] != Step::Unreached {
                continue;
            }
            steps[root] = Step::Root;
            queue.push_back(root);
            while let Some(index) = queue.pop_front() {
                let fields = match schema.types.get_index(index) {
                    Some((_, ExtendedType::Object(object))) => &object.fields,
                    Some((_, ExtendedType::Interface(interface))) => &interface.fields,
                    _ => continue,
                };
                for (position, field) in fields.values().enumerate() {
                    let Some(target) = schema.types.get_index_of(field.ty.inner_named_type()) else { continue };
                    if steps[target] == Step::Unreached {
                        steps[target] = Step::Field { parent: index as u32, field: position as u32 };
                        queue.push_back(target);
                    }
                }
            }
        }
        RootPaths { steps }
    }

    /// The root type's name then the field names down to type number `index`:
    /// `["Query", "paginatedUsers", "edges", "node"]` for `User`; `None` when no root reaches it.
    pub(crate) fn path<'a>(&self, schema: &'a Schema, index: usize) -> Option<Vec<&'a str>> {
        let mut names = Vec::new();
        let mut current = index;
        loop {
            match *self.steps.get(current)? {
                Step::Unreached => return None,
                Step::Root => {
                    names.push(schema.types.get_index(current)?.0.as_str());
                    break;
                }
                Step::Field { parent, field } => {
                    let parent = parent as usize;
                    let fields = match schema.types.get_index(parent)?.1 {
                        ExtendedType::Object(object) => &object.fields,
                        ExtendedType::Interface(interface) => &interface.fields,
                        _ => return None,
                    };
                    names.push(fields.get_index(field as usize)?.0.as_str());
                    current = parent;
                }
            }
        }
        names.reverse();
        Some(names)
    }
}
