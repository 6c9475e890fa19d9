//! A mutation that creates many users in one request, found by its shape: it takes a list of the
//! very input the one-user creation takes (`userBulkCreate(inputs: [UserCreateInput!]!)`,
//! `createUsers(input: [CreateUserInput!]!)`) and answers with the users, or with a result for
//! each input in their order — the user created or the errors refusing it, as Saleor's bulk
//! mutations do (`results { user errors { field messages } }`).

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use serde_json::Value;

use super::payload::{Returns, error_list};
use super::{is_composite, is_deprecated, object_fields};

/// A bulk creation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The root mutation field (`userBulkCreate`).
    pub field: String,
    /// Its argument taking the list (`inputs`).
    pub argument: String,
    /// The argument's type as declared (`[UserCreateInput!]!`).
    pub argument_type: String,
    /// The answer's list of results, when the answer is an object holding one (`results`);
    /// `None` when the mutation answers with the list itself.
    pub results: Option<String>,
    /// How each result tells about its user: the user itself, or an object holding it beside
    /// the errors refusing it.
    pub item: Returns,
}

impl Batch {
    /// The selection of the answer, with `object` selecting each user (`{ id ref }`).
    pub fn selection(&self, object: &str) -> String {
        let item = self.item.selection(object);
        match &self.results {
            Some(results) => format!("{{ {results} {item} }}"),
            None => item,
        }
    }

    /// The results of the answer `value` (the mutation field's), one for each input in order.
    pub fn results<'v>(&self, value: &'v Value) -> Vec<&'v Value> {
        let list = match &self.results {
            Some(results) => value.get(results),
            None => Some(value),
        };
        list.and_then(Value::as_array).map(|items| items.iter().collect()).unwrap_or_default()
    }
}

/// The bulk creation of `user_type` taking a list of `input` (the input object the one-user
/// creation takes), if the schema has one.
pub fn batch_create(schema: &Schema, user_type: &str, input: &str) -> Option<Batch> {
    let root = schema.root_operation(OperationType::Mutation)?;
    object_fields(schema, root)?.into_iter().filter(|f| !is_deprecated(f)).find_map(|f| {
        // One required argument, a list of the input; any other optional.
        let mut required = f.arguments.iter().filter(|a| a.is_required());
        let argument = required.next()?;
        if required.next().is_some() || !argument.ty.is_list() || argument.ty.inner_named_type() != input {
            return None;
        }
        let answer = f.ty.inner_named_type().as_str();
        let (results, item) = if answer == user_type && f.ty.is_list() {
            (None, Returns::Object)
        } else if is_composite(schema, answer) && !f.ty.is_list() {
            // The answer's list of results: of users, or of objects holding one.
            object_fields(schema, answer)?.into_iter().filter(|r| r.ty.is_list()).find_map(|r| {
                let named = r.ty.inner_named_type().as_str();
                if named == user_type {
                    return Some((Some(r.name.to_string()), Returns::Object));
                }
                let holder = object_fields(schema, named)?
                    .into_iter()
                    .find(|h| h.ty.inner_named_type() == user_type && !h.ty.is_list())?;
                let errors = error_list(schema, named);
                Some((Some(r.name.to_string()), Returns::Payload { object: Some(holder.name.to_string()), errors }))
            })?
        } else {
            return None;
        };
        Some(Batch {
            field: f.name.to_string(),
            argument: argument.name.to_string(),
            argument_type: argument.ty.to_string(),
            results,
            item,
        })
    })
}
