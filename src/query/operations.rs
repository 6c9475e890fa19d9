//! The operations of a document with several: which one Run runs (the one under the cursor, or
//! one chosen by name), and the names the explorer gives operations it makes so that the
//! document stays valid (a document of several operations needs every one named).

use std::ops::Range;

use apollo_parser::Parser;
use apollo_parser::cst::{self, CstNode};

use super::OperationKind;
use super::document::{operation_kind, span};
use super::lang::TextEdit;

/// One operation of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationInfo {
    /// Its name (none for `{ … }` or `query { … }`).
    pub name: Option<String>,
    /// Query, mutation or subscription.
    pub kind: OperationKind,
    /// Its bytes in the text.
    pub range: Range<usize>,
}

/// The operations of `text`, in order (as far as the parser recovers from syntax errors).
pub fn operations(text: &str) -> Vec<OperationInfo> {
    let document = Parser::new(text).parse().document();
    document
        .definitions()
        .filter_map(|definition| match definition {
            cst::Definition::OperationDefinition(operation) => Some(info(&operation)),
            _ => None,
        })
        .collect()
}

fn info(operation: &cst::OperationDefinition) -> OperationInfo {
    let (start, end) = span(operation);
    OperationInfo {
        name: operation.name().map(|name| name.text().to_string()),
        kind: operation_kind(operation),
        range: start..end,
    }
}

/// What Run does with a document, given where the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunChoice {
    /// Run the document as it is (it has one operation, or none for the server to refuse):
    /// no `operationName`.
    Whole,
    /// Run the operation of this name (sent as `operationName`).
    Named(String),
    /// The cursor is outside every operation: ask which of these to run.
    Choose(Vec<String>),
    /// The cursor is in an operation without a name, among others: it cannot be asked for.
    Unnamed,
}

/// What Run runs in `text` with the cursor at byte `cursor` (`None`: no cursor known).
pub fn run_choice(text: &str, cursor: Option<usize>) -> RunChoice {
    let operations = operations(text);
    if operations.len() <= 1 {
        return RunChoice::Whole;
    }
    let under = cursor.and_then(|at| operations.iter().find(|o| o.range.start <= at && at <= o.range.end));
    match under {
        Some(OperationInfo { name: Some(name), .. }) => RunChoice::Named(name.clone()),
        Some(_) => RunChoice::Unnamed,
        None => RunChoice::Choose(operations.into_iter().filter_map(|o| o.name).collect()),
    }
}

/// The sentence for [`RunChoice::Unnamed`].
pub const UNNAMED_AMONG_SEVERAL: &str = "This operation has no name, and a document of several operations runs one by its name: name it (query Name { … }) and run again.";

/// A name for a new operation selecting `first_field` that no operation of `text` has:
/// `createUser` → `CreateUser`, then `CreateUser2`…
pub(crate) fn fresh_name(taken: &[String], base: &str) -> String {
    let mut base: String = base.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert_str(0, "Operation");
    }
    if let Some(first) = base.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}

/// The edits naming the operations of `document` that have none (`{ … }` becomes
/// `query Query { … }`, `mutation { … }` becomes `mutation Mutation { … }`), with the names
/// given; `taken` gains them.
pub(crate) fn name_anonymous(
    text: &str,
    document: &cst::Document,
    taken: &mut Vec<String>,
) -> Vec<(TextEdit, OperationKind, String)> {
    let mut edits = Vec::new();
    for definition in document.definitions() {
        let cst::Definition::OperationDefinition(operation) = definition else { continue };
        if operation.name().is_some() {
            continue;
        }
        let kind = operation_kind(&operation);
        let name = fresh_name(taken, keyword(kind));
        taken.push(name.clone());
        let edit = match operation.operation_type() {
            Some(keyword_node) => {
                let end = usize::from(keyword_node.syntax().text_range().end());
                TextEdit { range: end..end, replacement: format!(" {name}") }
            }
            None => {
                let (start, _) = span(&operation);
                if !text.is_char_boundary(start) {
                    continue;
                }
                TextEdit { range: start..start, replacement: format!("query {name} ") }
            }
        };
        edits.push((edit, kind, name));
    }
    edits
}

fn keyword(kind: OperationKind) -> &'static str {
    match kind {
        OperationKind::Query => "query",
        OperationKind::Mutation => "mutation",
        OperationKind::Subscription => "subscription",
    }
}

/// One line saying what an explorer edit did to the operations of the document, when it added
/// an operation beside others or named some: `None` when the operations stayed as they were.
pub fn describe_operation_changes(before: &str, after: &str) -> Option<String> {
    let (old, new) = (operations(before), operations(after));
    if old.is_empty() || new.len() <= old.len() {
        return None;
    }
    let known: Vec<&str> = old.iter().filter_map(|o| o.name.as_deref()).collect();
    let fresh = |operation: &OperationInfo| -> Option<String> {
        operation.name.clone().filter(|name| !known.contains(&name.as_str()))
    };
    // The explorer adds an operation after the document's last definition; any other operation
    // with a new name was there before without one.
    let (last, earlier) = new.split_last()?;
    let added: Vec<String> = fresh(last).map(|name| format!("the {} {name}", keyword(last.kind))).into_iter().collect();
    let named: Vec<String> =
        earlier.iter().filter_map(|o| fresh(o).map(|name| format!("the {} {name}", keyword(o.kind)))).collect();
    if added.is_empty() {
        return None;
    }
    let mut line = format!("Added {} as an operation of its own", added.join(" and "));
    if !named.is_empty() {
        line.push_str(&format!(" and named {}", named.join(" and ")));
    }
    line.push_str(": Run runs the operation under the cursor, or asks which.");
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "query Users { a }\n\nfragment F on User { ref }\n\nmutation Create { b }\n";

    #[test]
    fn lists_operations_with_names_kinds_and_places() {
        let list = operations(TWO);
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].name.as_deref(), Some("Users"));
        assert_eq!(list[1].kind, OperationKind::Mutation);
        assert_eq!(&TWO[list[1].range.clone()], "mutation Create { b }");
    }

    #[test]
    fn runs_the_operation_under_the_cursor_or_asks() {
        assert_eq!(run_choice("{ a }", Some(0)), RunChoice::Whole);
        assert_eq!(run_choice("query A { a }", None), RunChoice::Whole);
        let inside_second = TWO.find("{ b }").unwrap() + 2;
        assert_eq!(run_choice(TWO, Some(inside_second)), RunChoice::Named("Create".into()));
        assert_eq!(run_choice(TWO, Some(3)), RunChoice::Named("Users".into()));
        let in_fragment = TWO.find("ref").unwrap();
        assert_eq!(run_choice(TWO, Some(in_fragment)), RunChoice::Choose(vec!["Users".into(), "Create".into()]));
        assert_eq!(run_choice("{ a }\nmutation M { b }", Some(2)), RunChoice::Unnamed);
    }

    #[test]
    fn fresh_names_are_capitalised_and_unique() {
        let taken = vec!["CreateUser".to_string()];
        assert_eq!(fresh_name(&taken, "createUser"), "CreateUser2");
        assert_eq!(fresh_name(&[], "query"), "Query");
        assert_eq!(fresh_name(&[], ""), "Operation");
    }

    #[test]
    fn describes_an_added_and_a_named_operation() {
        let before = "{ a }\n";
        let after = "query Query { a }\n\nmutation CreateUser { createUser { ref } }\n";
        let line = describe_operation_changes(before, after).expect("a note");
        assert!(line.starts_with("Added the mutation CreateUser as an operation of its own"), "{line}");
        assert!(line.contains("named the query Query"), "{line}");
        assert_eq!(describe_operation_changes("{ a }", "{ a b }"), None);
        assert_eq!(describe_operation_changes("", "{ a }"), None);
    }
}
