//! Parsing a GraphQL document and picking the operation to run.

use std::collections::HashMap;

use apollo_parser::Parser;
use apollo_parser::cst::{self, CstNode};

use super::DocumentError;

/// A document without syntax errors, the operation chosen from it, and its fragments by name.
pub(crate) struct Parsed {
    /// The whole document.
    pub(crate) document: cst::Document,
    /// The operation to run.
    pub(crate) operation: cst::OperationDefinition,
    /// The fragment definitions by name (the first one where a name is defined twice).
    pub(crate) fragments: HashMap<String, cst::FragmentDefinition>,
}

/// The kind of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationKind {
    /// `query` or the shorthand `{ … }`.
    Query,
    /// `mutation`.
    Mutation,
    /// `subscription`.
    Subscription,
}

impl Parsed {
    /// Parses `text` and picks the operation named `operation_name`, or the only one.
    pub(crate) fn new(text: &str, operation_name: Option<&str>) -> Result<Self, DocumentError> {
        let tree = Parser::new(text).parse();
        if let Some(error) = tree.errors().next() {
            let (line, column) = line_column(text, error.index());
            let message = match error.data() {
                "" => error.message().to_string(),
                data => format!("{} (found '{data}')", error.message()),
            };
            return Err(DocumentError::Syntax { line, column, message });
        }
        let document = tree.document();
        let mut operations = Vec::new();
        let mut fragments = HashMap::new();
        for definition in document.definitions() {
            match definition {
                cst::Definition::OperationDefinition(operation) => operations.push(operation),
                cst::Definition::FragmentDefinition(fragment) => {
                    if let Some(name) = fragment_name(&fragment) {
                        fragments.entry(name).or_insert(fragment);
                    }
                }
                _ => {}
            }
        }
        let operation = pick_operation(operations, operation_name)?;
        Ok(Self { document, operation, fragments })
    }

    /// The operations of the document, in order.
    pub(crate) fn operations(&self) -> impl Iterator<Item = cst::OperationDefinition> {
        self.document.definitions().filter_map(|definition| match definition {
            cst::Definition::OperationDefinition(operation) => Some(operation),
            _ => None,
        })
    }
}

/// The kind of the operation named `operation_name` (or the only one) in `text`.
pub fn kind_of(text: &str, operation_name: Option<&str>) -> Result<OperationKind, DocumentError> {
    Parsed::new(text, operation_name).map(|parsed| operation_kind(&parsed.operation))
}

/// The kind of the operation named `operation_name` (or the only one) in `text`, and the names of
/// its root fields (introspection's `__schema`/`__type`/`__typename` left out).
pub fn root_fields(text: &str, operation_name: Option<&str>) -> Result<(OperationKind, Vec<String>), DocumentError> {
    let parsed = Parsed::new(text, operation_name)?;
    let kind = operation_kind(&parsed.operation);
    let names = parsed
        .operation
        .selection_set()
        .into_iter()
        .flat_map(|set| set.selections())
        .filter_map(|selection| match selection {
            cst::Selection::Field(field) => Some(field.name()?.text().to_string()),
            _ => None,
        })
        .filter(|name| !name.starts_with("__"))
        .collect();
    Ok((kind, names))
}

/// The kind of `operation`.
pub(crate) fn operation_kind(operation: &cst::OperationDefinition) -> OperationKind {
    match operation.operation_type() {
        Some(kind) if kind.mutation_token().is_some() => OperationKind::Mutation,
        Some(kind) if kind.subscription_token().is_some() => OperationKind::Subscription,
        _ => OperationKind::Query,
    }
}

/// The name of a fragment definition.
pub(crate) fn fragment_name(fragment: &cst::FragmentDefinition) -> Option<String> {
    Some(fragment.fragment_name()?.name()?.text().to_string())
}

/// The name a fragment spread refers to.
pub(crate) fn spread_name(spread: &cst::FragmentSpread) -> Option<String> {
    Some(spread.fragment_name()?.name()?.text().to_string())
}

/// The byte range of a node in the document's text.
pub(crate) fn span(node: &impl CstNode) -> (usize, usize) {
    let range = node.syntax().text_range();
    (usize::from(range.start()), usize::from(range.end()))
}

fn pick_operation(
    operations: Vec<cst::OperationDefinition>,
    operation_name: Option<&str>,
) -> Result<cst::OperationDefinition, DocumentError> {
    let name_of = |operation: &cst::OperationDefinition| operation.name().map(|name| name.text().to_string());
    let available = || {
        let names: Vec<String> = operations
            .iter()
            .map(|operation| name_of(operation).unwrap_or_else(|| "an anonymous one".to_string()))
            .collect();
        names.join(", ")
    };
    match operation_name {
        Some(wanted) => match operations.iter().find(|operation| name_of(operation).as_deref() == Some(wanted)) {
            Some(operation) => Ok(operation.clone()),
            None if operations.is_empty() => Err(DocumentError::NoOperation),
            None => Err(DocumentError::UnknownOperation { name: wanted.to_string(), available: available() }),
        },
        None => match operations.len() {
            0 => Err(DocumentError::NoOperation),
            1 => Ok(operations[0].clone()),
            count => Err(DocumentError::SeveralOperations { count, available: available() }),
        },
    }
}

/// The 1-based line and column (in characters) of the byte `index` of `text`.
pub(crate) fn line_column(text: &str, index: usize) -> (usize, usize) {
    let mut end = index.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let (mut line, mut column) = (1, 1);
    let mut after_cr = false;
    for c in text[..end].chars() {
        match c {
            '\n' if after_cr => column = 1,
            '\n' | '\r' => {
                line += 1;
                column = 1;
            }
            _ => column += 1,
        }
        after_cr = c == '\r';
    }
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_lines_and_characters() {
        let text = "ab\ncé\r\nxyz\rq";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 2), (1, 3));
        assert_eq!(line_column(text, 3), (2, 1));
        // "é" is two bytes but one column.
        assert_eq!(line_column(text, 6), (2, 3));
        assert_eq!(line_column(text, 8), (3, 1));
        assert_eq!(line_column(text, 12), (4, 1));
    }

    #[test]
    fn picks_the_named_or_the_only_operation() {
        let text = "query A { a } query B { b }";
        let parsed = Parsed::new(text, Some("B")).map_err(|e| e.to_string());
        assert_eq!(parsed.map(|p| p.operation.name().map(|n| n.text().to_string())), Ok(Some("B".to_string())));
        assert!(matches!(Parsed::new(text, None), Err(DocumentError::SeveralOperations { count: 2, .. })));
        assert!(matches!(Parsed::new(text, Some("C")), Err(DocumentError::UnknownOperation { .. })));
        assert!(matches!(Parsed::new("fragment F on User { ref }", None), Err(DocumentError::NoOperation)));
        assert!(Parsed::new("{ a }", None).is_ok());
    }

    #[test]
    fn operation_kinds() {
        let kind = |text: &str| Parsed::new(text, None).map(|p| operation_kind(&p.operation)).ok();
        assert_eq!(kind("{ a }"), Some(OperationKind::Query));
        assert_eq!(kind("query { a }"), Some(OperationKind::Query));
        assert_eq!(kind("mutation { a }"), Some(OperationKind::Mutation));
        assert_eq!(kind("subscription { a }"), Some(OperationKind::Subscription));
    }
}
