//! Cleaning the document until it is consistent: what refers to a missing or unfit type, the
//! types left empty, an interface's field an implementation lacks, and what a validation error
//! points at are removed, each with a short phrase saying so.

use std::collections::{HashMap, HashSet};

use super::{BUILT_IN_SCALARS, Doc, InputValue, Item, Kind, TypeDef, TypeRef};

impl Doc {
    /// Removes what refers to missing or unfit types, then the types left empty, until nothing
    /// changes.
    pub(super) fn clean(&mut self) {
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
    pub(super) fn remove(&mut self, item: Item, reason: &str) -> bool {
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
