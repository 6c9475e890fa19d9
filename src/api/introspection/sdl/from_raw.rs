//! Reading the lenient introspection types into the document to be cleaned: what cannot be read
//! (a type without a name or of an unknown kind, a field whose type cannot be read, an invalid
//! name, a directive with no known location) is left out with a short phrase saying so.

use std::collections::HashSet;

use super::{
    BUILT_IN_DIRECTIVES, BUILT_IN_SCALARS, Directive, Doc, EnumValue, Field, InputValue, Kind, LOCATIONS, TypeDef,
    TypeRef, is_name,
};
use crate::api::introspection::read::{
    RawDirective, RawEnumValue, RawField, RawInputValue, RawSchema, RawType, deprecation,
};

impl Doc {
    pub(super) fn read(raw: RawSchema) -> Self {
        let mut doc = Doc {
            description: raw.description,
            query: None,
            mutation: None,
            subscription: None,
            types: Vec::with_capacity(raw.types.len()),
            directives: Vec::new(),
            skipped: Vec::new(),
        };
        let root = |name: Option<crate::api::introspection::read::RawName>| name.and_then(|n| n.name);
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
}
