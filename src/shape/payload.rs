//! What a mutation answers: the object itself; a payload object holding it in a field, often
//! beside a list of errors returned as data (`errors { field messages }` of graphene-django,
//! `userErrors { field message }` of Shopify, `errors { field message code }` of Saleor, Hot
//! Chocolate's `errors: [UpdateUserError!]`, a union of error types); or a **union** whose
//! members are the success (the object, or a type holding it) and the refusals (Strawberry-Django's
//! `User | OperationInfo` with `messages { kind message field code }`, the "errors as data"
//! result unions `UpdateUserSuccess | ValidationError | NotFoundError`). Those errors are the
//! other error channel: HTTP 200, no GraphQL error, and the change not made.
//!
//! A union member that is neither the success nor a refusal cannot be read: the change is
//! refused before anything is sent ([`Returns::unreadable`]).

use apollo_compiler::Schema;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use serde_json::Value;

use super::{field, is_composite, object_fields, plain};

/// The fields of one error object that orgql reads: where, what, which code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorItem {
    /// The field naming the input at fault (`field`, a string or a path list), if any.
    pub at: Option<String>,
    /// The message field (`message`, or `messages` as a list of strings).
    pub message: String,
    /// The code field (`code`), if any.
    pub code: Option<String>,
    /// The kind field (`kind`: `VALIDATION`, `PERMISSION`), if any.
    pub kind: Option<String>,
}

impl ErrorItem {
    /// The fields of the error object type `item` that orgql reads, when it has a message.
    pub fn of(schema: &Schema, item: &str) -> Option<ErrorItem> {
        let fields = object_fields(schema, item)?;
        let text_field = |wanted: &dyn Fn(&str) -> bool| {
            fields
                .iter()
                .find(|i| wanted(&plain(&i.name)) && matches!(i.ty.inner_named_type().as_str(), "String"))
                .map(|i| i.name.to_string())
        };
        let message = text_field(&|n| n == "message" || n == "messages" || n == "msg")?;
        let at = text_field(&|n| n == "field" || n == "path" || n == "fields");
        let leaf = |wanted: &str| {
            fields
                .iter()
                .find(|i| {
                    plain(&i.name) == wanted && !i.ty.is_list() && super::is_leaf(schema, i.ty.inner_named_type())
                })
                .filter(|i| field(schema, item, &i.name).is_some())
                .map(|i| i.name.to_string())
        };
        Some(ErrorItem { at, message, code: leaf("code"), kind: leaf("kind") })
    }

    /// `field messages code`: the fields selected.
    fn fields(&self) -> String {
        let parts: Vec<&str> = self
            .kind
            .iter()
            .map(String::as_str)
            .chain(self.at.as_deref())
            .chain([self.message.as_str()])
            .chain(self.code.as_deref())
            .collect();
        parts.join(" ")
    }

    /// The error `item` (an answer's object) as a refusal.
    fn read(&self, item: &Value) -> PayloadError {
        let field = self.at.as_ref().and_then(|at| match item.get(at) {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(parts)) => {
                let parts: Vec<String> = parts
                    .iter()
                    .filter_map(|p| p.as_str().map(str::to_owned).or_else(|| p.as_u64().map(|n| n.to_string())))
                    .collect();
                (!parts.is_empty()).then(|| parts.join("."))
            }
            _ => None,
        });
        let message = match item.get(&self.message) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Array(texts)) => texts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "),
            _ => "the service refused the change without saying why".to_owned(),
        };
        PayloadError { field: field.filter(|f| !f.is_empty() && f != "__all__"), message }
    }
}

/// A payload's list of errors and the fields of its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorList {
    /// The payload's field (`errors`, `userErrors`, `messages`).
    pub field: String,
    /// The item's fields, when the items are objects of one type.
    pub item: Option<ErrorItem>,
    /// The item's types and their fields, when the items are a union or an interface (Hot
    /// Chocolate's `UpdateUserError = InvalidEmailError | NotFoundError`): one inline fragment
    /// each.
    pub members: Vec<(String, ErrorItem)>,
}

impl ErrorList {
    /// `errors { field messages }`, or `errors { __typename ... on A { message field } }`.
    pub fn selection(&self) -> String {
        match &self.item {
            Some(item) => format!("{} {{ {} }}", self.field, item.fields()),
            None => {
                let fragments: Vec<String> =
                    self.members.iter().map(|(t, item)| format!("... on {t} {{ {} }}", item.fields())).collect();
                format!("{} {{ __typename {} }}", self.field, fragments.join(" "))
            }
        }
    }

    /// How the item `value` is read.
    fn item_of(&self, value: &Value) -> Option<&ErrorItem> {
        self.item.as_ref().or_else(|| {
            let typename = value.get("__typename").and_then(Value::as_str);
            self.members.iter().find(|(t, _)| Some(t.as_str()) == typename).map(|(_, item)| item)
        })
    }
}

/// How a union member that refuses says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It holds a list of errors (`OperationInfo { messages { kind message field code } }`).
    List(ErrorList),
    /// It is one error (`ValidationError { message field }`, `NotFoundError { message }`).
    Itself(ErrorItem),
}

/// A union answer: its members as success and refusals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Union {
    /// The member that is or holds the target (`User`, `UpdateUserSuccess`).
    pub success: String,
    /// The success member's field holding the target (`user`); `None` when it is the target.
    pub holder: Option<String>,
    /// The members that refuse, and how each says why.
    pub refusals: Vec<(String, Refusal)>,
    /// The members orgql can tell as neither (no target, no message).
    pub unknown: Vec<String>,
    /// The union's name (`UpdateUserPayload`).
    pub name: String,
}

impl Union {
    /// The members of the union (or interface) `named`, read as success and refusals about
    /// `target`; `None` when no member is or holds the target.
    fn of(schema: &Schema, named: &str, target: &str) -> Option<Union> {
        let members: Vec<String> = match schema.types.get(named)? {
            ExtendedType::Union(union) => union.members.iter().map(|m| m.to_string()).collect(),
            ExtendedType::Interface(_) => {
                schema.implementers_map().get(named)?.objects.iter().map(|o| o.to_string()).collect()
            }
            _ => return None,
        };
        let mut success = None;
        let mut refusals = Vec::new();
        let mut unknown = Vec::new();
        for member in members {
            if success.is_none() {
                if member == target {
                    success = Some((member, None));
                    continue;
                }
                if let Some(holder) = object_fields(schema, &member)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|h| h.ty.inner_named_type() == target && !h.ty.is_list())
                {
                    success = Some((member, Some(holder.name.to_string())));
                    continue;
                }
            }
            if let Some(list) = error_list(schema, &member) {
                refusals.push((member, Refusal::List(list)));
            } else if let Some(item) = ErrorItem::of(schema, &member) {
                refusals.push((member, Refusal::Itself(item)));
            } else {
                unknown.push(member);
            }
        }
        let (success, holder) = success?;
        Some(Union { success, holder, refusals, unknown, name: named.to_owned() })
    }

    fn selection(&self, object: &str) -> String {
        let mut parts = vec!["__typename".to_owned()];
        parts.push(match &self.holder {
            Some(holder) => format!("... on {} {{ {holder} {object} }}", self.success),
            None => format!("... on {} {object}", self.success),
        });
        for (member, refusal) in &self.refusals {
            parts.push(match refusal {
                Refusal::List(list) => format!("... on {member} {{ {} }}", list.selection()),
                Refusal::Itself(item) => format!("... on {member} {{ {} }}", item.fields()),
            });
        }
        format!("{{ {} }}", parts.join(" "))
    }

    fn typename(value: &Value) -> Option<&str> {
        value.get("__typename").and_then(Value::as_str)
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
    /// A union (or a list of one): a member is or holds the target, the others refuse.
    Union(Box<Union>),
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
            Returns::Union(union) => union.selection(object),
            Returns::Scalar => String::new(),
        }
    }

    /// Why an answer of this shape cannot be read, before anything is sent: a union member that
    /// is neither the target (nor holds it) nor says why it refused.
    pub fn unreadable(&self, mutation: &str) -> Option<String> {
        let Returns::Union(union) = self else { return None };
        let first = union.unknown.first()?;
        Some(format!(
            "the service's {mutation} may answer {first} (of its {}), which is neither the record nor an error with a \
             message, so orgql could not tell whether the change was made; nothing was sent — make this change in the \
             service's own interface",
            union.name
        ))
    }

    /// The target in the answer `value` of the mutation's field.
    pub fn object<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        match self {
            Returns::Object => Some(value).filter(|v| v.is_object()),
            Returns::Payload { object: Some(holder), .. } => value.get(holder).filter(|v| v.is_object()),
            Returns::Union(union) => {
                let member = answers(value).find(|v| Union::typename(v) == Some(union.success.as_str()))?;
                match &union.holder {
                    Some(holder) => member.get(holder).filter(|v| v.is_object()),
                    None => Some(member),
                }
            }
            _ => None,
        }
    }

    /// The errors the answer `value` returns as data.
    pub fn errors(&self, value: &Value) -> Vec<PayloadError> {
        match self {
            Returns::Payload { errors: Some(list), .. } => payload_errors(value, list),
            Returns::Union(union) => answers(value)
                .flat_map(|member| {
                    let typename = Union::typename(member);
                    let refusal = union.refusals.iter().find(|(t, _)| Some(t.as_str()) == typename);
                    match refusal {
                        Some((_, Refusal::List(list))) => {
                            let errors = payload_errors(member, list);
                            if errors.is_empty() { vec![nothing_said()] } else { errors }
                        }
                        Some((_, Refusal::Itself(item))) => vec![item.read(member)],
                        None if typename.is_some_and(|t| t != union.success) => vec![PayloadError {
                            field: None,
                            message: format!(
                                "the service answered {}, which orgql cannot tell as done or refused",
                                typename.unwrap_or_default()
                            ),
                        }],
                        None => Vec::new(),
                    }
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The answers in `value`: its items when it is a list (a list of a union), else itself.
fn answers(value: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match value {
        Value::Array(items) => Box::new(items.iter()),
        Value::Null => Box::new(std::iter::empty()),
        other => Box::new(std::iter::once(other)),
    }
}

fn nothing_said() -> PayloadError {
    PayloadError { field: None, message: "the service refused the change without saying why".to_owned() }
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
    if let Some(ExtendedType::Union(_)) = schema.types.get(named) {
        return Union::of(schema, named, target).map(|union| Returns::Union(Box::new(union)));
    }
    if !is_composite(schema, named) {
        return Some(Returns::Scalar);
    }
    let fields = object_fields(schema, named)?;
    let holder = fields.iter().find(|p| p.ty.inner_named_type() == target && !p.ty.is_list());
    let errors = error_list(schema, named);
    if holder.is_none() && errors.is_none() {
        // An interface some of whose types are or hold the target, the others errors.
        return Union::of(schema, named, target).map(|union| Returns::Union(Box::new(union)));
    }
    Some(Returns::Payload { object: holder.map(|h| h.name.to_string()), errors })
}

/// The error list of the payload type `payload`: a list of objects with a message (or
/// messages), or of a union or interface whose every type has one.
pub fn error_list(schema: &Schema, payload: &str) -> Option<ErrorList> {
    object_fields(schema, payload)?.into_iter().filter(|f| f.ty.is_list()).find_map(|f| {
        let item = f.ty.inner_named_type().as_str();
        let field = f.name.to_string();
        if let Some(item) =
            ErrorItem::of(schema, item).filter(|_| matches!(schema.types.get(item), Some(ExtendedType::Object(_))))
        {
            return Some(ErrorList { field, item: Some(item), members: Vec::new() });
        }
        let types: Vec<String> = match schema.types.get(item)? {
            ExtendedType::Union(union) => union.members.iter().map(|m| m.to_string()).collect(),
            ExtendedType::Interface(_) => {
                schema.implementers_map().get(item)?.objects.iter().map(|o| o.to_string()).collect()
            }
            _ => return None,
        };
        let members: Vec<(String, ErrorItem)> =
            types.into_iter().map(|t| ErrorItem::of(schema, &t).map(|item| (t, item))).collect::<Option<_>>()?;
        (!members.is_empty()).then_some(ErrorList { field, item: None, members })
    })
}

/// The errors a payload value returns as data (`value` is the mutation's answer: the payload).
pub fn payload_errors(value: &Value, list: &ErrorList) -> Vec<PayloadError> {
    let Some(items) = value.get(&list.field).and_then(Value::as_array) else { return Vec::new() };
    items.iter().map(|item| list.item_of(item).map_or_else(nothing_said, |how| how.read(item))).collect()
}
