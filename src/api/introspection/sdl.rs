//! From the lenient introspection types to SDL that apollo-compiler validates: what cannot be
//! read (an unknown kind, a field whose type is missing, a directive with no known location, an
//! invalid name, a default value that does not parse, …) is left out with a short phrase saying
//! so, and the cleaning is repeated until what is left is consistent.

use std::collections::{HashMap, HashSet};

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;

use super::read::{RawDirective, RawEnumValue, RawField, RawInputValue, RawSchema, RawType, RawTypeRef, deprecation};

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

impl Doc {
    fn read(raw: RawSchema) -> Self {
        let mut doc = Doc {
            description: raw.description,
            query: None,
            mutation: None,
            subscription: None,
            types: Vec::with_capacity(raw.types.len()),
            directives: Vec::new(),
            skipped: Vec::new(),
        };
        let root = |name: Option<super::read::RawName>| name.and_then(|n| n.name);
        let roots = [root(raw.query_type), root(raw.mutation_type), root(raw.subscription_type)];
        let mut seen = HashSet::new();
        for ty in raw.types {
            if let Some(ty) = doc.read_type(ty, &mut seen) {
                doc.types.push(ty);
            }
        }
        for directive in raw.directives {
            if let Some(directive) = doc.read_directive(directive) {
                doc.directives.push(directive);
            }
        }
        let [query, mutation, subscription] = roots;
        doc.query = query;
        doc.mutation = mutation;
        doc.subscription = subscription;
        doc
    }

    fn skip(&mut self, what: String) {
        self.skipped.push(what);
    }

    fn read_type(&mut self, raw: RawType, seen: &mut HashSet<String>) -> Option<TypeDef> {
        let Some(name) = raw.name else {
            self.skip("a type without a name".to_owned());
            return None;
        };
        if name.starts_with("__") || BUILT_IN_SCALARS.contains(&name.as_str()) {
            return None;
        }
        if !is_name(&name) {
            self.skip(format!("type `{name}` (invalid name)"));
            return None;
        }
        let Some(kind) = raw.kind.as_deref().and_then(Kind::parse) else {
            let kind = raw.kind.as_deref().unwrap_or("none");
            self.skip(format!("type {name} (unknown kind {kind})"));
            return None;
        };
        if !seen.insert(name.clone()) {
            self.skip(format!("type {name} (listed twice)"));
            return None;
        }
        let mut ty = TypeDef {
            description: raw.description,
            specified_by: raw.specified_by_url.filter(|_| kind == Kind::Scalar),
            one_of: raw.is_one_of == Some(true) && kind == Kind::InputObject,
            fields: Vec::new(),
            input_fields: Vec::new(),
            interfaces: Vec::new(),
            members: Vec::new(),
            values: Vec::new(),
            gone: false,
            name,
            kind,
        };
        match kind {
            Kind::Object | Kind::Interface => {
                ty.fields = raw.fields.into_iter().filter_map(|f| self.read_field(&ty.name, f)).collect();
                ty.interfaces = raw.interfaces.iter().filter_map(|i| i.name.clone()).filter(|n| is_name(n)).collect();
            }
            Kind::Union => {
                ty.members = raw.possible_types.iter().filter_map(|i| i.name.clone()).filter(|n| is_name(n)).collect();
            }
            Kind::Enum => {
                ty.values = raw.enum_values.into_iter().filter_map(|v| self.read_enum_value(&ty.name, v)).collect()
            }
            Kind::InputObject => {
                let place = format!("input field {}.", ty.name);
                ty.input_fields = raw.input_fields.into_iter().filter_map(|v| self.read_input(&place, v)).collect();
            }
            Kind::Scalar => {}
        }
        Some(ty)
    }

    fn read_field(&mut self, owner: &str, raw: RawField) -> Option<Field> {
        let name = match raw.name {
            Some(name) if is_name(&name) => name,
            Some(name) => {
                self.skip(format!("field {owner}.`{name}` (invalid name)"));
                return None;
            }
            None => {
                self.skip(format!("a field of {owner} without a name"));
                return None;
            }
        };
        let Some(ty) = raw.ty.as_ref().and_then(|ty| TypeRef::read(ty, 0)) else {
            self.skip(format!("field {owner}.{name} (its type cannot be read)"));
            return None;
        };
        let args = self.read_args(&format!("argument {owner}.{name}("), raw.args, &format!("field {owner}.{name}"))?;
        Some(Field {
            name,
            description: raw.description,
            args,
            ty,
            deprecation: deprecation(raw.is_deprecated, raw.deprecation_reason),
            gone: false,
        })
    }

    /// An argument or input field; `place` is `argument T.f(` or `input field T.`.
    /// The arguments of a field or directive (`owner`); an optional argument that cannot be
    /// read is left out, a required one leaves out its owner (`None`).
    fn read_args(&mut self, place: &str, raw: Vec<RawInputValue>, owner: &str) -> Option<Vec<InputValue>> {
        let mut args = Vec::with_capacity(raw.len());
        for arg in raw {
            let required = arg.ty.as_ref().is_some_and(|t| t.kind.as_deref() == Some("NON_NULL"));
            match self.read_input(place, arg) {
                Some(arg) => args.push(arg),
                None if required => {
                    self.skip(format!("{owner} (a required argument cannot be read)"));
                    return None;
                }
                None => {}
            }
        }
        Some(args)
    }

    fn read_input(&mut self, place: &str, raw: RawInputValue) -> Option<InputValue> {
        let close = if place.ends_with('(') { ")" } else { "" };
        let name = match raw.name {
            Some(name) if is_name(&name) => name,
            Some(name) => {
                self.skip(format!("{place}`{name}`{close} (invalid name)"));
                return None;
            }
            None => {
                self.skip(format!("{place}…{close} (no name)"));
                return None;
            }
        };
        let Some(ty) = raw.ty.as_ref().and_then(|ty| TypeRef::read(ty, 0)) else {
            self.skip(format!("{place}{name}{close} (its type cannot be read)"));
            return None;
        };
        Some(InputValue {
            name,
            description: raw.description,
            ty,
            default: raw.default_value,
            deprecation: deprecation(raw.is_deprecated, raw.deprecation_reason),
            gone: false,
        })
    }

    fn read_enum_value(&mut self, owner: &str, raw: RawEnumValue) -> Option<EnumValue> {
        match raw.name {
            Some(name) if is_name(&name) && !matches!(name.as_str(), "true" | "false" | "null") => Some(EnumValue {
                name,
                description: raw.description,
                deprecation: deprecation(raw.is_deprecated, raw.deprecation_reason),
                gone: false,
            }),
            name => {
                self.skip(format!("enum value {owner}.`{}` (invalid name)", name.unwrap_or_default()));
                None
            }
        }
    }

    fn read_directive(&mut self, raw: RawDirective) -> Option<Directive> {
        let name = match raw.name {
            Some(name) if BUILT_IN_DIRECTIVES.contains(&name.as_str()) => return None,
            Some(name) if is_name(&name) => name,
            name => {
                self.skip(format!("directive @`{}` (invalid name)", name.unwrap_or_default()));
                return None;
            }
        };
        let mut locations = Vec::new();
        let mut unknown = Vec::new();
        for location in &raw.locations {
            match LOCATIONS.iter().find(|known| **known == location.as_str()) {
                Some(known) if !locations.contains(known) => locations.push(*known),
                Some(_) => {}
                None => unknown.push(format!("location {location} of directive @{name} (unknown)")),
            }
        }
        if locations.is_empty() {
            self.skip(format!("directive @{name} (no known location)"));
            return None;
        }
        self.skipped.append(&mut unknown);
        let args = self.read_args(&format!("argument @{name}("), raw.args, &format!("directive @{name}"))?;
        Some(Directive {
            name,
            description: raw.description,
            args,
            repeatable: raw.is_repeatable == Some(true),
            locations,
            gone: false,
        })
    }

    /// Removes what refers to missing or unfit types, then the types left empty, until nothing
    /// changes.
    fn clean(&mut self) {
        loop {
            let kinds: HashMap<String, Kind> = BUILT_IN_SCALARS
                .iter()
                .map(|name| ((*name).to_owned(), Kind::Scalar))
                .chain(self.types.iter().filter(|t| !t.gone).map(|t| (t.name.clone(), t.kind)))
                .collect();
            let mut skipped = Vec::new();
            let input_problem = |ty: &TypeRef| match kinds.get(ty.named()) {
                None => Some(format!("type {} is missing", ty.named())),
                Some(kind) if !kind.is_input() => Some(format!("type {} is not an input type", ty.named())),
                Some(_) => None,
            };
            // Arguments and input fields (a field or directive whose required argument goes, goes).
            let clean_args = |owner: &str, args: &mut Vec<InputValue>, skipped: &mut Vec<String>| -> bool {
                let mut lost_required = false;
                args.retain(|arg| match input_problem(&arg.ty) {
                    Some(problem) if !arg.gone => {
                        skipped.push(format!("argument {owner}({}) ({problem})", arg.name));
                        lost_required |= arg.is_required();
                        false
                    }
                    _ if arg.gone => {
                        lost_required |= arg.is_required();
                        false
                    }
                    _ => true,
                });
                lost_required
            };
            for ty in self.types.iter_mut().filter(|t| !t.gone) {
                match ty.kind {
                    Kind::Object | Kind::Interface => {
                        let owner = &ty.name;
                        ty.fields.retain_mut(|field| {
                            if field.gone {
                                return false;
                            }
                            let problem = match kinds.get(field.ty.named()) {
                                None => Some(format!("type {} is missing", field.ty.named())),
                                Some(kind) if !kind.is_output() => {
                                    Some(format!("type {} is not an output type", field.ty.named()))
                                }
                                Some(_) => None,
                            };
                            if let Some(problem) = problem {
                                skipped.push(format!("field {owner}.{} ({problem})", field.name));
                                return false;
                            }
                            let place = format!("{owner}.{}", field.name);
                            if clean_args(&place, &mut field.args, &mut skipped) {
                                skipped.push(format!("field {place} (a required argument was left out)"));
                                return false;
                            }
                            true
                        });
                        let name = ty.name.clone();
                        ty.interfaces.retain(|interface| match kinds.get(interface) {
                            Some(Kind::Interface) if *interface != name => true,
                            _ => {
                                skipped.push(format!("interface {interface} of {name} (missing)"));
                                false
                            }
                        });
                        if ty.fields.is_empty() {
                            skipped.push(format!("type {} (no fields left)", ty.name));
                            ty.gone = true;
                        }
                    }
                    Kind::Union => {
                        let name = ty.name.clone();
                        ty.members.retain(|member| match kinds.get(member) {
                            Some(Kind::Object) => true,
                            _ => {
                                skipped.push(format!("member {member} of union {name} (missing)"));
                                false
                            }
                        });
                        if ty.members.is_empty() {
                            skipped.push(format!("union {} (no member types left)", ty.name));
                            ty.gone = true;
                        }
                    }
                    Kind::Enum if ty.values.iter().all(|v| v.gone) => {
                        skipped.push(format!("enum {} (no values left)", ty.name));
                        ty.gone = true;
                    }
                    Kind::InputObject => {
                        let owner = ty.name.clone();
                        ty.input_fields.retain(|field| match input_problem(&field.ty) {
                            Some(problem) if !field.gone => {
                                skipped.push(format!("input field {owner}.{} ({problem})", field.name));
                                false
                            }
                            _ => !field.gone,
                        });
                        if ty.input_fields.is_empty() {
                            skipped.push(format!("input {} (no fields left)", ty.name));
                            ty.gone = true;
                        }
                    }
                    Kind::Enum => ty.values.retain(|v| !v.gone),
                    Kind::Scalar => {}
                }
            }
            for directive in self.directives.iter_mut().filter(|d| !d.gone) {
                let place = format!("@{}", directive.name);
                if clean_args(&place, &mut directive.args, &mut skipped) {
                    skipped.push(format!("directive {place} (a required argument was left out)"));
                    directive.gone = true;
                }
            }
            self.keep_interfaces_whole(&mut skipped);
            // Roots that are gone.
            let object = |name: &Option<String>| {
                name.as_ref()
                    .is_some_and(|n| self.types.iter().any(|t| !t.gone && t.kind == Kind::Object && t.name == *n))
            };
            let (query_ok, mutation_ok, subscription_ok) =
                (object(&self.query), object(&self.mutation), object(&self.subscription));
            if !query_ok {
                self.query = None;
            }
            for (root, ok, what) in [
                (&mut self.mutation, mutation_ok, "mutation"),
                (&mut self.subscription, subscription_ok, "subscription"),
            ] {
                if !ok && let Some(name) = root.take() {
                    skipped.push(format!("the {what} type {name} (missing)"));
                }
            }
            let changed = !skipped.is_empty();
            self.skipped.append(&mut skipped);
            self.types.retain(|t| !t.gone);
            self.directives.retain(|d| !d.gone);
            if !changed {
                return;
            }
        }
    }

    /// An object or interface that lacks a field of one of its interfaces no longer lists it.
    fn keep_interfaces_whole(&mut self, skipped: &mut Vec<String>) {
        let mut broken = Vec::new();
        {
            let fields: HashMap<&str, HashSet<&str>> = self
                .types
                .iter()
                .filter(|t| !t.gone && t.kind == Kind::Interface)
                .map(|t| (t.name.as_str(), t.fields.iter().map(|f| f.name.as_str()).collect()))
                .collect();
            for (index, ty) in self.types.iter().enumerate().filter(|(_, t)| !t.gone && !t.interfaces.is_empty()) {
                let own: HashSet<&str> = ty.fields.iter().map(|f| f.name.as_str()).collect();
                for interface in &ty.interfaces {
                    if let Some(missing) =
                        fields.get(interface.as_str()).and_then(|f| f.iter().find(|f| !own.contains(*f)))
                    {
                        broken.push((index, interface.clone(), (*missing).to_owned()));
                    }
                }
            }
        }
        for (index, interface, missing) in broken {
            let ty = &mut self.types[index];
            ty.interfaces.retain(|i| *i != interface);
            skipped.push(format!("interface {interface} of {} (field {missing} is left out)", ty.name));
        }
    }

    /// Removes what a validation error points at; whether anything was removed.
    fn remove(&mut self, item: Item, reason: &str) -> bool {
        let removed = match item {
            Item::None => None,
            Item::Type(t) => {
                let ty = &mut self.types[t];
                if !ty.interfaces.is_empty() {
                    ty.interfaces.clear();
                    Some(format!("the interfaces of {} ({reason})", ty.name))
                } else if !ty.gone {
                    ty.gone = true;
                    Some(format!("type {} ({reason})", ty.name))
                } else {
                    None
                }
            }
            Item::Field(t, f) => {
                let TypeDef { name: ty, fields, .. } = &mut self.types[t];
                let field = &mut fields[f];
                (!field.gone).then(|| {
                    field.gone = true;
                    format!("field {ty}.{} ({reason})", field.name)
                })
            }
            Item::Arg(t, f, a) => {
                let ty = &mut self.types[t];
                let field = &mut ty.fields[f];
                let place = format!("argument {}.{}({})", ty.name, field.name, field.args[a].name);
                remove_input(&mut field.args[a], &place, reason)
            }
            Item::InputField(t, f) => {
                let ty = &mut self.types[t];
                let place = format!("input field {}.{}", ty.name, ty.input_fields[f].name);
                remove_input(&mut ty.input_fields[f], &place, reason)
            }
            Item::EnumValue(t, v) => {
                let TypeDef { name: ty, values, .. } = &mut self.types[t];
                let value = &mut values[v];
                (!value.gone).then(|| {
                    value.gone = true;
                    format!("enum value {ty}.{} ({reason})", value.name)
                })
            }
            Item::DirectiveArg(d, a) => {
                let directive = &mut self.directives[d];
                let place = format!("argument @{}({})", directive.name, directive.args[a].name);
                remove_input(&mut directive.args[a], &place, reason)
            }
            Item::Directive(d) => {
                let directive = &mut self.directives[d];
                (!directive.gone).then(|| {
                    directive.gone = true;
                    format!("directive @{} ({reason})", directive.name)
                })
            }
        };
        match removed {
            Some(phrase) => {
                self.skipped.push(phrase);
                true
            }
            None => false,
        }
    }

    /// Writes the SDL, and for each line what it declares.
    fn write(&self) -> (String, Vec<Item>) {
        let mut out = Writer { text: String::with_capacity(self.types.len() * 400), lines: Vec::new() };
        if self.types.iter().any(|t| t.one_of) {
            out.line("directive @oneOf on INPUT_OBJECT", Item::None);
        }
        let mut schema = String::new();
        description(&mut schema, self.description.as_deref());
        schema.push_str("schema {");
        for (what, name) in [("query", &self.query), ("mutation", &self.mutation), ("subscription", &self.subscription)]
        {
            if let Some(name) = name {
                schema.push_str(&format!(" {what}: {name}"));
            }
        }
        schema.push_str(" }");
        out.line(&schema, Item::None);
        for (d, directive) in self.directives.iter().enumerate() {
            let mut head = String::new();
            description(&mut head, directive.description.as_deref());
            head.push_str("directive @");
            head.push_str(&directive.name);
            let mut tail = String::new();
            if directive.repeatable {
                tail.push_str(" repeatable");
            }
            tail.push_str(" on ");
            tail.push_str(&directive.locations.join(" | "));
            if directive.args.is_empty() {
                out.line(&format!("{head}{tail}"), Item::Directive(d));
            } else {
                out.line(&format!("{head}("), Item::Directive(d));
                for (a, arg) in directive.args.iter().enumerate() {
                    out.input_value(arg, Item::DirectiveArg(d, a));
                }
                out.line(&format!("){tail}"), Item::Directive(d));
            }
        }
        for (t, ty) in self.types.iter().enumerate() {
            out.type_def(t, ty);
        }
        (out.text, out.lines)
    }
}

/// Drops a default value first (the usual reason an input value is invalid), then the value.
fn remove_input(value: &mut InputValue, place: &str, reason: &str) -> Option<String> {
    if value.default.take().is_some() {
        Some(format!("the default value of {place} ({reason})"))
    } else if !value.gone {
        value.gone = true;
        Some(format!("{place} ({reason})"))
    } else {
        None
    }
}

/// Writes a description as a string on the same line as what it describes.
fn description(out: &mut String, text: Option<&str>) {
    if let Some(text) = text {
        string(out, text);
        out.push(' ');
    }
}

/// A GraphQL string literal.
fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn deprecated(out: &mut String, deprecation: &Option<Option<String>>) {
    match deprecation {
        None => {}
        Some(None) => out.push_str(" @deprecated"),
        Some(Some(reason)) => {
            out.push_str(" @deprecated(reason: ");
            string(out, reason);
            out.push(')');
        }
    }
}

struct Writer {
    text: String,
    lines: Vec<Item>,
}

impl Writer {
    /// One line (or more, when a default value spans lines), all declaring `item`.
    fn line(&mut self, text: &str, item: Item) {
        self.text.push_str(text);
        self.text.push('\n');
        let count = 1 + text.bytes().filter(|b| *b == b'\n').count();
        self.lines.extend(std::iter::repeat_n(item, count));
    }

    fn input_value(&mut self, value: &InputValue, item: Item) {
        let mut line = String::from("  ");
        description(&mut line, value.description.as_deref());
        line.push_str(&value.name);
        line.push_str(": ");
        value.ty.write(&mut line);
        if let Some(default) = &value.default {
            line.push_str(" = ");
            line.push_str(default);
        }
        deprecated(&mut line, &value.deprecation);
        self.line(&line, item);
    }

    fn type_def(&mut self, t: usize, ty: &TypeDef) {
        let mut head = String::new();
        description(&mut head, ty.description.as_deref());
        head.push_str(match ty.kind {
            Kind::Scalar => "scalar ",
            Kind::Object => "type ",
            Kind::Interface => "interface ",
            Kind::Union => "union ",
            Kind::Enum => "enum ",
            Kind::InputObject => "input ",
        });
        head.push_str(&ty.name);
        match ty.kind {
            Kind::Scalar => {
                if let Some(url) = &ty.specified_by {
                    head.push_str(" @specifiedBy(url: ");
                    string(&mut head, url);
                    head.push(')');
                }
                self.line(&head, Item::Type(t));
            }
            Kind::Union => {
                head.push_str(" = ");
                head.push_str(&ty.members.join(" | "));
                self.line(&head, Item::Type(t));
            }
            Kind::Object | Kind::Interface => {
                if !ty.interfaces.is_empty() {
                    head.push_str(" implements ");
                    head.push_str(&ty.interfaces.join(" & "));
                }
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (f, field) in ty.fields.iter().enumerate() {
                    let mut line = String::from("  ");
                    description(&mut line, field.description.as_deref());
                    line.push_str(&field.name);
                    if !field.args.is_empty() {
                        line.push('(');
                        self.line(&line, Item::Field(t, f));
                        for (a, arg) in field.args.iter().enumerate() {
                            self.input_value(arg, Item::Arg(t, f, a));
                        }
                        line = String::from("  )");
                    }
                    line.push_str(": ");
                    field.ty.write(&mut line);
                    deprecated(&mut line, &field.deprecation);
                    self.line(&line, Item::Field(t, f));
                }
                self.line("}", Item::Type(t));
            }
            Kind::Enum => {
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (v, value) in ty.values.iter().enumerate() {
                    let mut line = String::from("  ");
                    description(&mut line, value.description.as_deref());
                    line.push_str(&value.name);
                    deprecated(&mut line, &value.deprecation);
                    self.line(&line, Item::EnumValue(t, v));
                }
                self.line("}", Item::Type(t));
            }
            Kind::InputObject => {
                if ty.one_of {
                    head.push_str(" @oneOf");
                }
                head.push_str(" {");
                self.line(&head, Item::Type(t));
                for (f, field) in ty.input_fields.iter().enumerate() {
                    self.input_value(field, Item::InputField(t, f));
                }
                self.line("}", Item::Type(t));
            }
        }
    }
}
