//! From the lenient introspection types to SDL that apollo-compiler validates: what cannot be
//! read (an unknown kind, a field whose type is missing, a directive with no known location, an
//! invalid name, a default value that does not parse, …) is left out with a short phrase saying
//! so, and the cleaning is repeated until what is left is consistent.
//!
//! This file holds the document's model and the loop ([`build`]: read, clean, write, validate);
//! its parts are `from_raw.rs` (reading the raw types), `clean.rs` (removing what is unfit) and
//! `write.rs` (the SDL and what each line declares).

mod clean;
mod from_raw;
mod write;

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;

use super::read::{RawSchema, RawTypeRef};

/// Scalars every schema has; never declared again.
const BUILT_IN_SCALARS: [&str; 5] = ["String", "Int", "Float", "Boolean", "ID"];

/// Directives apollo-compiler declares itself (`@oneOf` is declared by [`write`] when used).
const BUILT_IN_DIRECTIVES: [&str; 5] = ["skip", "include", "deprecated", "specifiedBy", "oneOf"];

/// The directive locations of the spec (October 2021); others are dropped.
const LOCATIONS: [&str; 19] = [
    "QUERY",
    "MUTATION",
    "SUBSCRIPTION",
    "FIELD",
    "FRAGMENT_DEFINITION",
    "FRAGMENT_SPREAD",
    "INLINE_FRAGMENT",
    "VARIABLE_DEFINITION",
    "SCHEMA",
    "SCALAR",
    "OBJECT",
    "FIELD_DEFINITION",
    "ARGUMENT_DEFINITION",
    "INTERFACE",
    "UNION",
    "ENUM",
    "ENUM_VALUE",
    "INPUT_OBJECT",
    "INPUT_FIELD_DEFINITION",
];

/// How many times the SDL is validated and the parts apollo-compiler points at removed.
const VALIDATION_ROUNDS: usize = 12;

/// The kind of a named type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    Object,
    Interface,
    Union,
    Enum,
    InputObject,
}

impl Kind {
    fn parse(kind: &str) -> Option<Self> {
        Some(match kind {
            "SCALAR" => Kind::Scalar,
            "OBJECT" => Kind::Object,
            "INTERFACE" => Kind::Interface,
            "UNION" => Kind::Union,
            "ENUM" => Kind::Enum,
            "INPUT_OBJECT" => Kind::InputObject,
            _ => return None,
        })
    }

    fn is_output(self) -> bool {
        self != Kind::InputObject
    }

    fn is_input(self) -> bool {
        matches!(self, Kind::Scalar | Kind::Enum | Kind::InputObject)
    }
}

/// A type reference: `[User!]!`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypeRef {
    Named(String),
    List(Box<TypeRef>),
    NonNull(Box<TypeRef>),
}

impl TypeRef {
    /// Reads a reference; `None` when it is not a well-formed one.
    fn read(raw: &RawTypeRef, depth: usize) -> Option<Self> {
        if depth > 32 {
            return None;
        }
        let inner = || raw.of_type.as_deref().and_then(|of| TypeRef::read(of, depth + 1));
        match raw.kind.as_deref() {
            Some("NON_NULL") => match inner()? {
                TypeRef::NonNull(_) => None,
                of => Some(TypeRef::NonNull(Box::new(of))),
            },
            Some("LIST") => Some(TypeRef::List(Box::new(inner()?))),
            _ => raw.name.as_deref().filter(|name| is_name(name)).map(|name| TypeRef::Named(name.to_owned())),
        }
    }

    fn named(&self) -> &str {
        match self {
            TypeRef::Named(name) => name,
            TypeRef::List(of) | TypeRef::NonNull(of) => of.named(),
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            TypeRef::Named(name) => out.push_str(name),
            TypeRef::List(of) => {
                out.push('[');
                of.write(out);
                out.push(']');
            }
            TypeRef::NonNull(of) => {
                of.write(out);
                out.push('!');
            }
        }
    }
}

#[derive(Debug)]
struct InputValue {
    name: String,
    description: Option<String>,
    ty: TypeRef,
    default: Option<String>,
    deprecation: Option<Option<String>>,
    gone: bool,
}

impl InputValue {
    fn is_required(&self) -> bool {
        matches!(self.ty, TypeRef::NonNull(_)) && self.default.is_none()
    }
}

#[derive(Debug)]
struct Field {
    name: String,
    description: Option<String>,
    args: Vec<InputValue>,
    ty: TypeRef,
    deprecation: Option<Option<String>>,
    gone: bool,
}

#[derive(Debug)]
struct EnumValue {
    name: String,
    description: Option<String>,
    deprecation: Option<Option<String>>,
    gone: bool,
}

#[derive(Debug)]
struct TypeDef {
    name: String,
    kind: Kind,
    description: Option<String>,
    specified_by: Option<String>,
    one_of: bool,
    fields: Vec<Field>,
    input_fields: Vec<InputValue>,
    interfaces: Vec<String>,
    members: Vec<String>,
    values: Vec<EnumValue>,
    gone: bool,
}

#[derive(Debug)]
struct Directive {
    name: String,
    description: Option<String>,
    args: Vec<InputValue>,
    repeatable: bool,
    locations: Vec<&'static str>,
    gone: bool,
}

/// The schema being cleaned, and the phrases for what was left out.
struct Doc {
    description: Option<String>,
    query: Option<String>,
    mutation: Option<String>,
    subscription: Option<String>,
    types: Vec<TypeDef>,
    directives: Vec<Directive>,
    skipped: Vec<String>,
}

/// A GraphQL name: `/[_A-Za-z][_0-9A-Za-z]*/`.
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The result of reading an introspected schema.
pub(super) struct Built {
    pub sdl: String,
    pub schema: Valid<Schema>,
    pub skipped: Vec<String>,
}

/// Reads, cleans, writes and validates; an error only when no query type is left.
pub(super) fn build(raw: RawSchema) -> Result<Built, String> {
    let mut doc = Doc::read(raw);
    let mut rounds = 0;
    loop {
        doc.clean();
        if doc.query.is_none() {
            return Err("the introspection result has no usable query type".to_owned());
        }
        let (sdl, lines) = doc.write();
        let errors = match Schema::parse_and_validate(&sdl, "introspection.graphql") {
            Ok(schema) => return Ok(Built { sdl, schema, skipped: doc.skipped }),
            Err(errors) => errors,
        };
        rounds += 1;
        let mut removed = false;
        if rounds <= VALIDATION_ROUNDS {
            // After a syntax error (a default value that does not parse) the parser's other
            // complaints may only follow from it: that one alone is handled in this round.
            let syntax = errors.errors.iter().find(|d| d.error.to_string().starts_with("syntax error"));
            let diagnostics: Vec<_> = match syntax {
                Some(first) => vec![first],
                None => errors.errors.iter().collect(),
            };
            for diagnostic in diagnostics {
                let Some(range) = diagnostic.line_column_range() else { continue };
                let Some(item) = range.start.line.checked_sub(1).and_then(|line| lines.get(line)) else { continue };
                let reason = short(&diagnostic.error.to_string());
                removed |= doc.remove(*item, &reason);
            }
        }
        if !removed {
            let first = errors.errors.iter().next().map(|d| short(&d.error.to_string())).unwrap_or_default();
            return Err(format!("the introspected schema could not be made valid ({first})"));
        }
    }
}

/// A message cut to one short line.
fn short(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// What one line of the written SDL declares, to find what a diagnostic points at.
#[derive(Debug, Clone, Copy)]
enum Item {
    None,
    Type(usize),
    Field(usize, usize),
    Arg(usize, usize, usize),
    InputField(usize, usize),
    EnumValue(usize, usize),
    Directive(usize),
    DirectiveArg(usize, usize),
}
