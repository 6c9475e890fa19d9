//! What changed between two versions of a service's schema (issue 30). The API carries no
//! version number: orgql keeps each schema that differs from the last (by
//! [`SchemaShape::fingerprint`], which ignores the order things are listed in) and compares
//! neighbours. Each difference is classified as graphql-js's `findBreakingChanges` /
//! `findDangerousChanges` and GraphQL Inspector do:
//!
//! - *breaking*: a type, field, argument, input field or enum value removed; a type changed
//!   kind; a field's type changed so that a reader of the old one fails; an argument or input
//!   field made required or added as required; a union member or an interface removed;
//! - *dangerous*: an enum value, union member, interface or optional input field added; a default
//!   changed; an input loosened (`Int!` → `Int`): old documents still run but may mean something
//!   else;
//! - *safe*: types, fields and optional arguments added, an output made non-null, descriptions,
//!   a deprecation lifted;
//! - *deprecated*: newly deprecated (or its reason changed), with the reason and the alternative
//!   it names when that alternative exists on the same parent with a compatible type
//!   ([`alternative_in`]), which is what a fix may rewrite to.
//!
//! Pure: no I/O, no egui.

mod alternative;
mod compare;
mod shape;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use alternative::{alternative_in, named_in_reason};
pub use compare::compare;
pub use shape::{
    DEFAULT_REASON, DirectiveShape, FieldShape, InputShape, SchemaShape, TypeKind, TypeRef, TypeShape, ValueShape,
};

/// How a change affects clients, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Documents that worked may now fail.
    Breaking,
    /// Documents still run but may behave differently.
    Dangerous,
    /// Nothing a client wrote is affected.
    Safe,
    /// Still works, but the service asks clients to move away from it.
    Deprecated,
}

impl Level {
    /// Its name as printed: `breaking`, `dangerous`, `safe`, `deprecated`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Breaking => "breaking",
            Level::Dangerous => "dangerous",
            Level::Safe => "safe",
            Level::Deprecated => "deprecated",
        }
    }
}

/// What changed, as graphql-js and GraphQL Inspector name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(missing_docs)]
pub enum Code {
    RootChanged,
    TypeRemoved,
    TypeAdded,
    TypeChangedKind,
    InterfaceRemoved,
    InterfaceAdded,
    UnionMemberRemoved,
    UnionMemberAdded,
    FieldRemoved,
    FieldAdded,
    /// A field's type changed so that readers of the old type fail.
    FieldChangedKind,
    /// A field's type changed safely (made non-null).
    FieldTypeChanged,
    ArgumentRemoved,
    InputFieldRemoved,
    RequiredInputAdded,
    OptionalArgumentAdded,
    OptionalInputFieldAdded,
    MadeRequired,
    MadeOptional,
    InputTypeLoosened,
    InputTypeChanged,
    DefaultChanged,
    EnumValueRemoved,
    EnumValueAdded,
    DescriptionChanged,
    Deprecated,
    DeprecationReasonChanged,
    DeprecationRemoved,
    DirectiveRemoved,
    DirectiveAdded,
    DirectiveLocationRemoved,
    DirectiveLocationAdded,
    DirectiveChanged,
}

impl Code {
    /// Whether the change adds something (a type, field, argument, value, member…).
    pub fn is_addition(self) -> bool {
        matches!(
            self,
            Code::TypeAdded
                | Code::InterfaceAdded
                | Code::UnionMemberAdded
                | Code::FieldAdded
                | Code::RequiredInputAdded
                | Code::OptionalArgumentAdded
                | Code::OptionalInputFieldAdded
                | Code::EnumValueAdded
                | Code::DirectiveAdded
                | Code::DirectiveLocationAdded
        )
    }

    /// Whether the change removes something.
    pub fn is_removal(self) -> bool {
        matches!(
            self,
            Code::RootChanged
                | Code::TypeRemoved
                | Code::InterfaceRemoved
                | Code::UnionMemberRemoved
                | Code::FieldRemoved
                | Code::ArgumentRemoved
                | Code::InputFieldRemoved
                | Code::EnumValueRemoved
                | Code::DirectiveRemoved
                | Code::DirectiveLocationRemoved
        )
    }
}

/// What kind of schema element a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// A root operation type.
    Root,
    /// A named type.
    Type,
    /// A field of an object or interface.
    Field,
    /// An argument of a field or directive.
    Argument,
    /// A field of an input object.
    InputField,
    /// An enum value.
    EnumValue,
    /// A directive.
    Directive,
}

/// Where a change is: `User`, `User.name`, `Query.paginatedUsers(email:)`, `Status.ACTIVE`, `@auth`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Site {
    /// The element as text (what the explorer and the printed line show).
    pub path: String,
    /// What kind of element it is.
    pub element: Element,
    /// The type it belongs to (`User` for `User.name`; for an argument, the type of its field),
    /// `None` for types, roots and directives.
    pub parent: Option<String>,
    /// For an argument, the field it is an argument of.
    pub field: Option<String>,
    /// Its own name (`name`, `email`, `ACTIVE`, `User`).
    pub member: String,
}

impl Site {
    /// The site of `member`, an element of kind `element` of the type `parent` (for an
    /// argument, of its `field` there).
    pub fn new(element: Element, parent: &str, field: Option<&str>, member: &str) -> Self {
        match (element, field) {
            (Element::Argument, Some(field)) => Site::argument(&format!("{parent}.{field}"), member),
            (Element::Type | Element::Root, _) => Site::ty(member),
            (Element::Directive, _) => Site::directive(member),
            _ => Site { element, ..Site::field(parent, member) },
        }
    }

    fn root(operation: &str) -> Self {
        Site {
            path: format!("schema.{operation}"),
            element: Element::Root,
            parent: None,
            field: None,
            member: operation.into(),
        }
    }

    fn ty(name: &str) -> Self {
        Site { path: name.to_owned(), element: Element::Type, parent: None, field: None, member: name.to_owned() }
    }

    fn field(parent: &str, name: &str) -> Self {
        Site {
            path: format!("{parent}.{name}"),
            element: Element::Field,
            parent: Some(parent.to_owned()),
            field: None,
            member: name.to_owned(),
        }
    }

    fn input_field(parent: &str, name: &str) -> Self {
        Site { element: Element::InputField, ..Site::field(parent, name) }
    }

    fn value(parent: &str, name: &str) -> Self {
        Site { element: Element::EnumValue, ..Site::field(parent, name) }
    }

    fn directive(name: &str) -> Self {
        Site {
            path: format!("@{name}"),
            element: Element::Directive,
            parent: None,
            field: None,
            member: name.to_owned(),
        }
    }

    /// An argument `name` of `owner`, which is `Type.field` or `@directive`.
    fn argument(owner: &str, name: &str) -> Self {
        let (parent, field) = match owner.split_once('.') {
            Some((parent, field)) => (Some(parent.to_owned()), Some(field.to_owned())),
            None => (None, Some(owner.to_owned())),
        };
        Site { path: format!("{owner}({name}:)"), element: Element::Argument, parent, field, member: name.to_owned() }
    }
}

/// One difference between two schemas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// How it affects clients.
    pub level: Level,
    /// What changed.
    pub code: Code,
    /// Where.
    #[serde(flatten)]
    pub site: Site,
    /// One line: `argument email removed from Query.paginatedUsers`, `User.name — Use \`fullName\`.`.
    pub message: String,
    /// For a deprecation, its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a deprecation, the alternative its reason names when it exists on the same parent
    /// with a compatible type: its name (`fullName`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternative: Option<String>,
}

impl std::fmt::Display for Change {
    /// `breaking: field User.name removed`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.level.name(), self.message)
    }
}

/// How many changes of each kind, for a one-line notice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Things added (types, fields, arguments, values…).
    pub added: usize,
    /// Things removed.
    pub removed: usize,
    /// Things newly deprecated.
    pub deprecated: usize,
    /// Other changes (types changed, defaults, descriptions…).
    pub changed: usize,
    /// The breaking ones among all.
    pub breaking: usize,
}

impl Summary {
    /// Counts `changes`.
    pub fn of(changes: &[Change]) -> Self {
        let mut summary = Summary::default();
        for change in changes {
            match change.code {
                _ if change.level == Level::Deprecated => summary.deprecated += 1,
                code if code.is_addition() => summary.added += 1,
                code if code.is_removal() => summary.removed += 1,
                _ => summary.changed += 1,
            }
            summary.breaking += usize::from(change.level == Level::Breaking);
        }
        summary
    }

    /// `2 added, 1 deprecated, 1 removed` (the kinds there are), or `no changes`.
    pub fn phrase(&self) -> String {
        let parts: Vec<String> = [
            (self.added, "added"),
            (self.changed, "changed"),
            (self.deprecated, "deprecated"),
            (self.removed, "removed"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() { "no changes".to_owned() } else { parts.join(", ") }
    }
}
