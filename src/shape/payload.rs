//! What a mutation answers: the object itself, or a payload object holding it in a field, often
//! beside a list of errors returned as data (`errors { field messages }` of graphene-django,
//! `userErrors { field message }` of Shopify, `errors { field message code }` of Saleor). Those
//! errors are the other error channel: HTTP 200, no GraphQL error, and the change not made.

use apollo_compiler::Schema;
use apollo_compiler::schema::FieldDefinition;
use serde_json::Value;

use super::{field, is_composite, object_fields, plain};

/// A payload's list of errors and the fields of its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorList {
    /// The payload's field (`errors`, `userErrors`).
    pub field: String,
    /// The item's field naming the input at fault (`field`, a string or a path list), if any.
    pub at: Option<String>,
    /// The item's message field (`message`, or `messages` as a list).
    pub message: String,
    /// The item's code field (`code`), if any.
    pub code: Option<String>,
}

impl ErrorList {
    /// `errors { field messages }`.
    pub fn selection(&self) -> String {
        let parts: Vec<&str> =
            self.at.iter().map(String::as_str).chain([self.message.as_str()]).chain(self.code.as_deref()).collect();
        format!("{} {{ {} }}", self.field, parts.join(" "))
    }
}

/// How a mutation answers about its target type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Returns {
    /// The target itself.
    Object,
    /// A payload: the field holding the target (none: the payload only says whether it worked),
    /// and its error list.
    Payload {
        /// The field holding the target.
        object: Option<String>,
        /// The errors returned as data.
        errors: Option<ErrorList>,
    },
    /// A scalar (`Boolean`, an id).
    Scalar,
}

impl Returns {
    /// The selection of the answer, with `object` selecting the target (`{ id ref name }`).
    pub fn selection(&self, object: &str) -> String {
        match self {
            Returns::Object => object.to_owned(),
            Returns::Payload { object: holder, errors } => {
                let parts: Vec<String> = holder
                    .iter()
                    .map(|name| format!("{name} {object}"))
                    .chain(errors.iter().map(ErrorList::selection))
                    .collect();
                if parts.is_empty() { "{ __typename }".to_owned() } else { format!("{{ {} }}", parts.join(" ")) }
            }
            Returns::Scalar => String::new(),
        }
    }

    /// The target in the answer `value` of the mutation's field.
    pub fn object<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        match self {
            Returns::Object => Some(value).filter(|v| v.is_object()),
            Returns::Payload { object: Some(holder), .. } => value.get(holder).filter(|v| v.is_object()),
            _ => None,
        }
    }

    /// The errors the answer `value` returns as data.
    pub fn errors(&self, value: &Value) -> Vec<PayloadError> {
        match self {
            Returns::Payload { errors: Some(list), .. } => payload_errors(value, list),
            _ => Vec::new(),
        }
    }
}

/// An error returned as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadError {
    /// The input it is about, as a path (`input.email`, `email`), when the service named one.
    pub field: Option<String>,
    /// What the service said.
    pub message: String,
}

impl PayloadError {
    /// As a GraphQL error message would say it: `email: not a valid address`.
    pub fn sentence(&self) -> String {
        match &self.field {
            Some(field) => format!("{field}: {}", self.message),
            None => self.message.clone(),
        }
    }
}

/// How `f` answers about `target` (an object type); `None` when it answers about something else.
pub fn returns(schema: &Schema, f: &FieldDefinition, target: &str) -> Option<Returns> {
    let named = f.ty.inner_named_type().as_str();
    if named == target {
        return Some(Returns::Object);
    }
    if !is_composite(schema, named) {
        return Some(Returns::Scalar);
    }
    let fields = object_fields(schema, named)?;
    let holder = fields.iter().find(|p| p.ty.inner_named_type() == target && !p.ty.is_list());
    let errors = error_list(schema, named);
    if holder.is_none() && errors.is_none() {
        return None;
    }
    Some(Returns::Payload { object: holder.map(|h| h.name.to_string()), errors })
}

/// The error list of the payload type `payload`: a list of objects with a message (or messages).
pub fn error_list(schema: &Schema, payload: &str) -> Option<ErrorList> {
    object_fields(schema, payload)?.into_iter().filter(|f| f.ty.is_list()).find_map(|f| {
        let item = f.ty.inner_named_type().as_str();
        let fields = object_fields(schema, item)?;
        let text_field = |wanted: &dyn Fn(&str) -> bool| {
            fields
                .iter()
                .find(|i| wanted(&plain(&i.name)) && matches!(i.ty.inner_named_type().as_str(), "String"))
                .map(|i| i.name.to_string())
        };
        let message = text_field(&|n| n == "message" || n == "messages" || n == "msg")?;
        let at = text_field(&|n| n == "field" || n == "path" || n == "fields");
        let code = fields
            .iter()
            .find(|i| plain(&i.name) == "code" && !i.ty.is_list())
            .filter(|i| field(schema, item, &i.name).is_some())
            .map(|i| i.name.to_string());
        Some(ErrorList { field: f.name.to_string(), at, message, code })
    })
}

/// The errors a payload value returns as data (`value` is the mutation's answer: the payload).
pub fn payload_errors(value: &Value, list: &ErrorList) -> Vec<PayloadError> {
    let Some(items) = value.get(&list.field).and_then(Value::as_array) else { return Vec::new() };
    items
        .iter()
        .map(|item| {
            let field = list.at.as_ref().and_then(|at| match item.get(at) {
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Array(parts)) => {
                    let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                    (!parts.is_empty()).then(|| parts.join("."))
                }
                _ => None,
            });
            let message = match item.get(&list.message) {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Array(texts)) => texts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "),
                _ => "the service refused the change without saying why".to_owned(),
            };
            PayloadError { field: field.filter(|f| !f.is_empty() && f != "__all__"), message }
        })
        .collect()
}
