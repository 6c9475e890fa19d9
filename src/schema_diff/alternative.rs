//! The alternative a deprecation's reason names ("Use `fullName`.", "Use displayName instead",
//! "Replaced by `Status.ACTIVE`"), kept only when it exists beside the deprecated element and a
//! document using the one can use the other instead: what a fix may rewrite to.

use super::shape::{InputShape, SchemaShape, input_change_is_safe, output_change_is_safe};
use super::{Element, Site};

/// Words after which a reason names its alternative when it does not quote it.
const LEADS: [&str; 8] = ["use", "using", "by", "see", "with", "to", "favor", "favour"];

/// The names a deprecation reason points to: the ones it quotes in backticks, else the word
/// after "use", "by", "see", … (`Type.member` kept whole).
pub fn named_in_reason(reason: &str) -> Vec<String> {
    let is_name = |word: &str| {
        let mut chars = word.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    let clean = |word: &str| -> String {
        word.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).trim_end_matches("()").to_owned()
    };
    let quoted: Vec<String> = reason
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|part| clean(part.split(['(', ' ', ':']).next().unwrap_or_default()))
        .filter(|word| is_name(word))
        .collect();
    if !quoted.is_empty() {
        return quoted;
    }
    let words: Vec<&str> = reason.split_whitespace().collect();
    let mut named = Vec::new();
    for (i, pair) in words.windows(2).enumerate() {
        let lead = pair[0].to_ascii_lowercase();
        if !LEADS.contains(&lead.trim_matches(|c: char| !c.is_ascii_alphabetic())) {
            continue;
        }
        let word = clean(pair[1]);
        if !is_name(&word) || matches!(word.as_str(), "the" | "a" | "an" | "it" | "this") {
            continue;
        }
        named.push(word);
        // "Use firstName and lastName": two names, so no one alternative.
        if pair[1].ends_with(',') || words.get(i + 2).is_some_and(|w| matches!(*w, "and" | "or" | "&")) {
            named.push(words.get(i + 3).map(|w| clean(w)).unwrap_or_default());
        }
    }
    named
}

/// The alternative `reason` names for the deprecated element at `site` in `schema` (the schema
/// that deprecates it): its name, when exactly one of the names the reason gives exists on the
/// same parent, is not deprecated itself, and fits where the deprecated one was written — a
/// field whose type reads as the old one's and that needs no argument the old one lacked; an
/// argument or input field that takes every value the old one took; a value of the same enum.
pub fn alternative_in(schema: &SchemaShape, site: &Site, reason: &str) -> Option<String> {
    let parent = site.parent.as_deref()?;
    let ty = schema.types.get(parent)?;
    let local = |name: &str| -> Option<String> {
        let name = match name.split_once('.') {
            Some((owner, member)) if owner == parent || Some(owner) == site.field.as_deref() => member,
            Some(_) => return None,
            None => name,
        };
        (name != site.member).then(|| name.to_owned())
    };
    let fits = |name: &str| -> bool {
        match site.element {
            Element::Field => {
                let (Some(old), Some(new)) = (ty.fields.get(&site.member), ty.fields.get(name)) else { return false };
                new.deprecated.is_none()
                    && output_change_is_safe(&old.ty, &new.ty)
                    && new.args.iter().filter(|(_, arg)| arg.is_required()).all(|(arg_name, arg)| {
                        old.args.get(arg_name).is_some_and(|old_arg| input_change_is_safe(&old_arg.ty, &arg.ty))
                    })
            }
            Element::Argument => {
                let Some(field) = site.field.as_deref().and_then(|f| ty.fields.get(f)) else { return false };
                input_fits(field.args.get(&site.member), field.args.get(name))
            }
            Element::InputField => input_fits(ty.input_fields.get(&site.member), ty.input_fields.get(name)),
            Element::EnumValue => ty.values.get(name).is_some_and(|value| value.deprecated.is_none()),
            Element::Root | Element::Type | Element::Directive => false,
        }
    };
    let mut found: Vec<String> = named_in_reason(reason).iter().filter_map(|name| local(name)).collect();
    found.sort();
    found.dedup();
    match found.as_slice() {
        [only] if fits(only) => Some(only.clone()),
        _ => None,
    }
}

fn input_fits(old: Option<&InputShape>, new: Option<&InputShape>) -> bool {
    let (Some(old), Some(new)) = (old, new) else { return false };
    new.deprecated.is_none() && input_change_is_safe(&old.ty, &new.ty)
}
