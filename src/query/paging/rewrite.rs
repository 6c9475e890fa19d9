//! The edits that [`prepare_paging`](super::prepare_paging) makes: arguments of the connection
//! field, variable definitions of operations, and fields added to selection sets.

use std::collections::HashSet;

use apollo_parser::cst::{self, CstNode};

use super::super::DocumentError;
use super::super::document::{Parsed, span, spread_name};
use super::super::edit::{Edit, append};
use super::super::fields::Merged;

/// The edits to one occurrence of the connection field: replace the values of the named
/// arguments (`replacements`: argument name, new value text) and append `added` arguments.
pub(crate) fn argument_edits(
    text: &str,
    field: &cst::Field,
    replacements: &[(&str, String)],
    added: &[String],
) -> Result<Vec<Edit>, DocumentError> {
    let mut edits = Vec::new();
    let Some(arguments) = field.arguments() else {
        if !added.is_empty() {
            let name = field.name().ok_or_else(|| rewrite_error("a field has no name"))?;
            edits.push(Edit::insert(span(&name).1, format!("({})", added.join(", "))));
        }
        return Ok(edits);
    };
    let list: Vec<cst::Argument> = arguments.arguments().collect();
    for argument in &list {
        let name = argument.name().map(|name| name.text().to_string());
        let replacement = replacements.iter().find(|(wanted, _)| name.as_deref() == Some(*wanted));
        if let (Some((_, value_text)), Some(value)) = (replacement, argument.value()) {
            let (start, end) = span(&value);
            edits.push(Edit::replace(start, end, value_text.clone()));
        }
    }
    if added.is_empty() {
        return Ok(edits);
    }
    match append_to_list(text, &list, arguments.r_paren_token(), added) {
        Some(edit) => edits.push(edit),
        None => {
            let open = arguments.l_paren_token().ok_or_else(|| rewrite_error("an argument list has no '('"))?;
            edits.push(Edit::insert(usize::from(open.text_range().end()), added.join(", ")));
        }
    }
    Ok(edits)
}

/// The edit that appends `items` to a parenthesised list (arguments, variable definitions) after
/// its last item, separated the way the list already is (commas or not); `None` for an empty list.
fn append_to_list<N: CstNode>(
    text: &str,
    list: &[N],
    close: Option<apollo_parser::SyntaxToken>,
    items: &[String],
) -> Option<Edit> {
    let (first, last, close) = (list.first()?, list.last()?, close?);
    let commas = match list.get(1) {
        Some(second) => text.get(span(first).1..span(second).0).is_some_and(|gap| gap.contains(',')),
        None => true,
    };
    let (last_start, last_end) = span(last);
    Some(append(text, last_start, last_end, usize::from(close.text_range().start()), items, commas))
}

/// The edit that adds `definition` (`$name: Type`) to an operation's variable definitions,
/// adding the parentheses (and the `query` keyword of a shorthand `{ … }`) when absent.
pub(crate) fn define_variable(
    text: &str,
    operation: &cst::OperationDefinition,
    definition: &str,
) -> Result<Edit, DocumentError> {
    if let Some(definitions) = operation.variable_definitions() {
        let list: Vec<cst::VariableDefinition> = definitions.variable_definitions().collect();
        return match append_to_list(text, &list, definitions.r_paren_token(), &[definition.to_string()]) {
            Some(edit) => Ok(edit),
            None => {
                let open =
                    definitions.l_paren_token().ok_or_else(|| rewrite_error("variable definitions have no '('"))?;
                Ok(Edit::insert(usize::from(open.text_range().end()), definition))
            }
        };
    }
    if let Some(name) = operation.name() {
        Ok(Edit::insert(span(&name).1, format!("({definition})")))
    } else if let Some(kind) = operation.operation_type() {
        Ok(Edit::insert(span(&kind).1, format!("({definition})")))
    } else {
        Ok(Edit::insert(span(operation).0, format!("query({definition}) ")))
    }
}

/// The edit that appends `items` (field selections) at the end of `selection_set`.
pub(crate) fn append_selections(
    text: &str,
    selection_set: &cst::SelectionSet,
    items: &[String],
) -> Result<Edit, DocumentError> {
    let last = selection_set.selections().last().ok_or_else(|| rewrite_error("a selection set is empty"))?;
    let close = selection_set.r_curly_token().ok_or_else(|| rewrite_error("a selection set has no '}'"))?;
    let (last_start, last_end) = span(&last);
    Ok(append(text, last_start, last_end, usize::from(close.text_range().start()), items, false))
}

/// The first selection set among the occurrences of `merged`.
pub(crate) fn first_selection_set(merged: &Merged) -> Result<cst::SelectionSet, DocumentError> {
    merged
        .fields()
        .find_map(|field| field.selection_set())
        .ok_or_else(|| rewrite_error(&format!("the field '{}' has no selection set", merged.key)))
}

/// The text selecting the field `name` (followed by `rest`) among `siblings`: plain when its
/// response key is free, else under an alias `orgqlName` that no sibling uses.
pub(crate) fn field_text(siblings: &[Merged], name: &str, rest: &str) -> String {
    let taken = |key: &str| siblings.iter().any(|sibling| sibling.key == key);
    if !taken(name) {
        return format!("{name}{rest}");
    }
    let mut chars = name.chars();
    let capitalized: String = chars.next().map(|c| c.to_ascii_uppercase()).into_iter().chain(chars).collect();
    let base = format!("orgql{capitalized}");
    let mut key = base.clone();
    let mut suffix = 1;
    while taken(&key) {
        suffix += 1;
        key = format!("{base}{suffix}");
    }
    format!("{key}: {name}{rest}")
}

/// A variable name (without `$`) that the document does not use: `orgqlAfter`, or
/// `orgqlAfter2`, `orgqlAfter3`….
pub(crate) fn fresh_variable(document: &cst::Document) -> String {
    let used: HashSet<String> = document
        .syntax()
        .descendants()
        .filter_map(cst::Variable::cast)
        .filter_map(|variable| variable.name())
        .map(|name| name.text().to_string())
        .collect();
    let mut name = "orgqlAfter".to_string();
    let mut suffix = 1;
    while used.contains(&name) {
        suffix += 1;
        name = format!("orgqlAfter{suffix}");
    }
    name
}

/// The operations that must define a variable used in `fields`: the chosen one, and every
/// other operation that spreads (directly or not) a fragment containing one of `fields`.
pub(crate) fn operations_using(parsed: &Parsed, fields: &[cst::Field]) -> Vec<cst::OperationDefinition> {
    let containing: HashSet<String> = fields
        .iter()
        .filter_map(|field| field.syntax().ancestors().find_map(cst::FragmentDefinition::cast))
        .filter_map(|fragment| super::super::document::fragment_name(&fragment))
        .collect();
    let chosen = span(&parsed.operation);
    parsed
        .operations()
        .filter(|operation| {
            span(operation) == chosen
                || (!containing.is_empty() && !reachable_fragments(parsed, operation).is_disjoint(&containing))
        })
        .collect()
}

/// The names of the fragments an operation spreads, directly or through other fragments.
fn reachable_fragments(parsed: &Parsed, operation: &cst::OperationDefinition) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut pending = vec![operation.syntax().clone()];
    while let Some(node) = pending.pop() {
        for spread in node.descendants().filter_map(cst::FragmentSpread::cast) {
            let Some(name) = spread_name(&spread) else { continue };
            if let Some(fragment) = parsed.fragments.get(&name)
                && seen.insert(name)
            {
                pending.push(fragment.syntax().clone());
            }
        }
    }
    seen
}

/// A [`DocumentError::Rewrite`] with `detail`.
pub(crate) fn rewrite_error(detail: &str) -> DocumentError {
    DocumentError::Rewrite { detail: detail.to_string() }
}

#[cfg(test)]
mod tests {
    use super::super::super::document::Parsed;
    use super::super::super::fields::Collector;
    use super::*;

    fn parsed(text: &str) -> Parsed {
        match Parsed::new(text, None) {
            Ok(parsed) => parsed,
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn fresh_variables_avoid_names_in_use() {
        assert_eq!(fresh_variable(&parsed("{ a }").document), "orgqlAfter");
        let text = "query($orgqlAfter: String, $orgqlAfter2: Int) { a(x: $orgqlAfter, y: $orgqlAfter2) }";
        assert_eq!(fresh_variable(&parsed(text).document), "orgqlAfter3");
    }

    #[test]
    fn field_text_aliases_a_taken_key() {
        let document = parsed("{ count: name pageInfo orgqlPageInfo: ref }");
        let collector = Collector::new(&document.fragments);
        let Some(selection_set) = document.operation.selection_set() else { panic!("no selection set") };
        let Ok(siblings) = collector.collect(&selection_set) else { panic!("collect failed") };
        assert_eq!(field_text(&siblings, "count", ""), "orgqlCount: count");
        assert_eq!(field_text(&siblings, "pageInfo", " { x }"), "orgqlPageInfo2: pageInfo { x }");
        assert_eq!(field_text(&siblings, "edges", ""), "edges");
    }

    #[test]
    fn defines_variables_in_each_operation_shape() {
        let cases = [
            ("query Q($a: Int) { x }", "query Q($a: Int, $v: String) { x }"),
            ("query Q($a: Int $b: Int) { x }", "query Q($a: Int $b: Int $v: String) { x }"),
            ("query Q { x }", "query Q($v: String) { x }"),
            ("query @live { x }", "query($v: String) @live { x }"),
            ("{ x }", "query($v: String) { x }"),
        ];
        for (before, after) in cases {
            let document = parsed(before);
            let edit = define_variable(before, &document.operation, "$v: String").map_err(|e| e.to_string());
            let result = edit.and_then(|edit| super::super::super::edit::apply(before, vec![edit]));
            assert_eq!(result.as_deref(), Ok(after), "{before}");
        }
    }
}
