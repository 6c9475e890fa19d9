//! Two shapes compared, each difference classified as graphql-js's `findBreakingChanges` and
//! `findDangerousChanges` and GraphQL Inspector do.

use std::collections::{BTreeMap, BTreeSet};

use super::alternative::alternative_in;
use super::shape::{
    FieldShape, InputShape, SchemaShape, TypeKind, TypeShape, input_change_is_safe, output_change_is_safe,
};
use super::{Change, Code, Level, Site};

/// Where an input value is: an argument of a field or directive, or an input object's field.
#[derive(Clone, Copy)]
enum InputPlace<'a> {
    /// An argument of `parent` (`Type.field` or `@directive`).
    Argument { parent: &'a str },
    /// A field of the input object `parent`.
    InputField { parent: &'a str },
}

/// Every difference from `old` to `new`, classified, ordered by level then path.
pub fn compare(old: &SchemaShape, new: &SchemaShape) -> Vec<Change> {
    let mut out = Out { changes: Vec::new(), new };
    for (operation, name) in ["query", "mutation", "subscription"].iter().enumerate() {
        match (old.root(operation), new.root(operation)) {
            (Some(before), Some(after)) if before != after => out.push(
                Level::Breaking,
                Code::RootChanged,
                Site::root(name),
                format!("the {name} root type changed from {before} to {after}"),
            ),
            (Some(before), None) => out.push(
                Level::Breaking,
                Code::RootChanged,
                Site::root(name),
                format!("the {name} root type {before} removed"),
            ),
            _ => {}
        }
    }
    for (name, before) in &old.types {
        match new.types.get(name) {
            None => out.push(Level::Breaking, Code::TypeRemoved, Site::ty(name), format!("type {name} removed")),
            Some(after) if after.kind != before.kind => out.push(
                Level::Breaking,
                Code::TypeChangedKind,
                Site::ty(name),
                format!("type {name} changed from {} to {}", before.kind.described(), after.kind.described()),
            ),
            Some(after) => out.type_changes(name, before, after),
        }
    }
    for name in new.types.keys().filter(|name| !old.types.contains_key(*name)) {
        out.push(Level::Safe, Code::TypeAdded, Site::ty(name), format!("type {name} added"));
    }
    for (name, before) in &old.directives {
        let site = || Site::directive(name);
        let Some(after) = new.directives.get(name) else {
            out.push(Level::Breaking, Code::DirectiveRemoved, site(), format!("directive @{name} removed"));
            continue;
        };
        for location in before.locations.difference(&after.locations) {
            let message = format!("location {location} removed from directive @{name}");
            out.push(Level::Breaking, Code::DirectiveLocationRemoved, site(), message);
        }
        for location in after.locations.difference(&before.locations) {
            let message = format!("location {location} added to directive @{name}");
            out.push(Level::Safe, Code::DirectiveLocationAdded, site(), message);
        }
        if before.repeatable && !after.repeatable {
            out.push(
                Level::Breaking,
                Code::DirectiveChanged,
                site(),
                format!("directive @{name} is no longer repeatable"),
            );
        }
        out.inputs(&before.args, &after.args, InputPlace::Argument { parent: &format!("@{name}") });
    }
    for name in new.directives.keys().filter(|name| !old.directives.contains_key(*name)) {
        let site = Site::directive(name);
        out.push(Level::Safe, Code::DirectiveAdded, site, format!("directive @{name} added"));
    }
    let mut changes = out.changes;
    changes.sort_by(|a, b| (a.level, &a.site.path, &a.message).cmp(&(b.level, &b.site.path, &b.message)));
    changes
}

struct Out<'a> {
    changes: Vec<Change>,
    new: &'a SchemaShape,
}

impl Out<'_> {
    fn push(&mut self, level: Level, code: Code, site: Site, message: String) {
        self.changes.push(Change { level, code, site, message, reason: None, alternative: None });
    }

    fn described(&mut self, path: &str, before: &str, after: &str, site: impl FnOnce() -> Site) {
        if before != after {
            let message = match (before.is_empty(), after.is_empty()) {
                (true, _) => format!("description of {path} added"),
                (_, true) => format!("description of {path} removed"),
                _ => format!("description of {path} changed"),
            };
            self.push(Level::Safe, Code::DescriptionChanged, site(), message);
        }
    }

    /// A deprecation added, changed or removed on the element at `site`.
    fn deprecation(&mut self, site: Site, before: Option<&String>, after: Option<&String>) {
        match (before, after) {
            (None, Some(reason)) | (Some(_), Some(reason)) if before != after => {
                let alternative = alternative_in(self.new, &site, reason);
                let message = format!("{} — {reason}", site.path);
                let code = if before.is_none() { Code::Deprecated } else { Code::DeprecationReasonChanged };
                self.changes.push(Change {
                    level: Level::Deprecated,
                    code,
                    site,
                    message,
                    reason: Some(reason.clone()),
                    alternative,
                });
            }
            (Some(_), None) => {
                let message = format!("{} is no longer deprecated", site.path);
                self.push(Level::Safe, Code::DeprecationRemoved, site, message);
            }
            _ => {}
        }
    }

    fn type_changes(&mut self, name: &str, before: &TypeShape, after: &TypeShape) {
        self.described(name, &before.description, &after.description, || Site::ty(name));
        for interface in before.interfaces.difference(&after.interfaces) {
            let message = format!("{name} no longer implements {interface}");
            self.push(Level::Breaking, Code::InterfaceRemoved, Site::ty(name), message);
        }
        for interface in after.interfaces.difference(&before.interfaces) {
            let message = format!("{name} now implements {interface}");
            self.push(Level::Dangerous, Code::InterfaceAdded, Site::ty(name), message);
        }
        self.members(name, &before.members, &after.members);
        match before.kind {
            TypeKind::Object | TypeKind::Interface => self.fields(name, &before.fields, &after.fields),
            TypeKind::InputObject => {
                self.inputs(&before.input_fields, &after.input_fields, InputPlace::InputField { parent: name })
            }
            TypeKind::Enum => {
                for (value, old) in &before.values {
                    let site = Site::value(name, value);
                    match after.values.get(value) {
                        None => {
                            let message = format!("enum value {name}.{value} removed");
                            self.push(Level::Breaking, Code::EnumValueRemoved, site, message);
                        }
                        Some(new) => {
                            self.described(&site.path.clone(), &old.description, &new.description, || site.clone());
                            self.deprecation(site, old.deprecated.as_ref(), new.deprecated.as_ref());
                        }
                    }
                }
                for value in after.values.keys().filter(|value| !before.values.contains_key(*value)) {
                    let message = format!("enum value {name}.{value} added");
                    self.push(Level::Dangerous, Code::EnumValueAdded, Site::value(name, value), message);
                }
            }
            TypeKind::Scalar | TypeKind::Union => {}
        }
    }

    fn members(&mut self, name: &str, before: &BTreeSet<String>, after: &BTreeSet<String>) {
        for member in before.difference(after) {
            let message = format!("{member} removed from union {name}");
            self.push(Level::Breaking, Code::UnionMemberRemoved, Site::ty(name), message);
        }
        for member in after.difference(before) {
            let message = format!("{member} added to union {name}");
            self.push(Level::Dangerous, Code::UnionMemberAdded, Site::ty(name), message);
        }
    }

    fn fields(&mut self, parent: &str, before: &BTreeMap<String, FieldShape>, after: &BTreeMap<String, FieldShape>) {
        for (name, old) in before {
            let site = Site::field(parent, name);
            let Some(new) = after.get(name) else {
                self.push(Level::Breaking, Code::FieldRemoved, site, format!("field {parent}.{name} removed"));
                continue;
            };
            if old.ty != new.ty {
                let (level, code) = if output_change_is_safe(&old.ty, &new.ty) {
                    (Level::Safe, Code::FieldTypeChanged)
                } else {
                    (Level::Breaking, Code::FieldChangedKind)
                };
                let message = format!("field {parent}.{name} changed type from {} to {}", old.ty, new.ty);
                self.push(level, code, site.clone(), message);
            }
            self.described(&site.path, &old.description, &new.description, || site.clone());
            self.deprecation(site.clone(), old.deprecated.as_ref(), new.deprecated.as_ref());
            self.inputs(&old.args, &new.args, InputPlace::Argument { parent: &site.path });
        }
        for name in after.keys().filter(|name| !before.contains_key(*name)) {
            let message = format!("field {parent}.{name} added");
            self.push(Level::Safe, Code::FieldAdded, Site::field(parent, name), message);
        }
    }

    fn inputs(
        &mut self,
        before: &BTreeMap<String, InputShape>,
        after: &BTreeMap<String, InputShape>,
        place: InputPlace,
    ) {
        let (parent, what, site_of): (&str, &str, fn(&str, &str) -> Site) = match place {
            InputPlace::Argument { parent } => (parent, "argument", Site::argument),
            InputPlace::InputField { parent } => (parent, "input field", Site::input_field),
        };
        let path = |name: &str| site_of(parent, name).path;
        for (name, old) in before {
            let site = site_of(parent, name);
            let Some(new) = after.get(name) else {
                let (code, message) = match place {
                    InputPlace::Argument { .. } => {
                        (Code::ArgumentRemoved, format!("argument {name} removed from {parent}"))
                    }
                    InputPlace::InputField { .. } => {
                        (Code::InputFieldRemoved, format!("input field {parent}.{name} removed"))
                    }
                };
                self.push(Level::Breaking, code, site, message);
                continue;
            };
            if old.ty != new.ty {
                let p = path(name);
                let (level, code, message) = if new.ty.is_non_null() && old.ty == *new.ty.nullable() {
                    (Level::Breaking, Code::MadeRequired, format!("{what} {p} made required ({} → {})", old.ty, new.ty))
                } else if old.ty.is_non_null() && *old.ty.nullable() == new.ty {
                    (
                        Level::Dangerous,
                        Code::MadeOptional,
                        format!("{what} {p} made optional ({} → {})", old.ty, new.ty),
                    )
                } else if input_change_is_safe(&old.ty, &new.ty) {
                    (
                        Level::Dangerous,
                        Code::InputTypeLoosened,
                        format!("{what} {p} loosened from {} to {}", old.ty, new.ty),
                    )
                } else {
                    (
                        Level::Breaking,
                        Code::InputTypeChanged,
                        format!("{what} {p} changed type from {} to {}", old.ty, new.ty),
                    )
                };
                self.push(level, code, site.clone(), message);
            }
            if old.default != new.default {
                let shown = |value: &Option<String>| value.clone().unwrap_or_else(|| "none".to_owned());
                let message = format!(
                    "default of {what} {} changed from {} to {}",
                    path(name),
                    shown(&old.default),
                    shown(&new.default)
                );
                self.push(Level::Dangerous, Code::DefaultChanged, site.clone(), message);
            }
            self.described(&site.path, &old.description, &new.description, || site.clone());
            self.deprecation(site, old.deprecated.as_ref(), new.deprecated.as_ref());
        }
        for (name, new) in after.iter().filter(|(name, _)| !before.contains_key(*name)) {
            let site = site_of(parent, name);
            let p = path(name);
            let (level, code, message) = match (place, new.is_required()) {
                (_, true) => (Level::Breaking, Code::RequiredInputAdded, format!("required {what} {p} added")),
                (InputPlace::Argument { .. }, false) => {
                    (Level::Safe, Code::OptionalArgumentAdded, format!("optional {what} {p} added"))
                }
                (InputPlace::InputField { .. }, false) => {
                    (Level::Dangerous, Code::OptionalInputFieldAdded, format!("optional {what} {p} added"))
                }
            };
            self.push(level, code, site, message);
        }
    }
}
