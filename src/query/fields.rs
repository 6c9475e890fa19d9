//! Field collection: the fields a selection set selects, with fragments expanded in place and
//! fields of the same response key merged, as GraphQL executes them.

use std::collections::HashMap;

use apollo_parser::cst;

use super::DocumentError;
use super::document::spread_name;

/// One place in the document where a field is selected.
#[derive(Debug, Clone)]
pub(crate) struct Occurrence {
    /// The field as written.
    pub(crate) field: cst::Field,
    /// The fragments expanded on the way from the operation to this field, outermost first.
    fragments: Vec<String>,
}

/// The fields selected under one response key (they merge in the response).
#[derive(Debug, Clone)]
pub(crate) struct Merged {
    /// The response key: the alias, or else the field's name.
    pub(crate) key: String,
    /// The field's name in the schema (from its first occurrence).
    pub(crate) name: String,
    /// Every occurrence, in document order.
    pub(crate) occurrences: Vec<Occurrence>,
}

impl Merged {
    /// Whether no occurrence has a selection set (a scalar or enum field).
    pub(crate) fn is_leaf(&self) -> bool {
        self.occurrences.iter().all(|occurrence| occurrence.field.selection_set().is_none())
    }

    /// The occurrences' fields, in document order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &cst::Field> {
        self.occurrences.iter().map(|occurrence| &occurrence.field)
    }
}

/// Collects fields, expanding fragment spreads from the document's fragment definitions.
pub(crate) struct Collector<'a> {
    fragments: &'a HashMap<String, cst::FragmentDefinition>,
}

impl<'a> Collector<'a> {
    /// A collector that expands spreads from `fragments`.
    pub(crate) fn new(fragments: &'a HashMap<String, cst::FragmentDefinition>) -> Self {
        Self { fragments }
    }

    /// The fields of a top-level selection set (an operation's).
    pub(crate) fn collect(&self, selection_set: &cst::SelectionSet) -> Result<Vec<Merged>, DocumentError> {
        let mut out = Vec::new();
        self.walk(selection_set, &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    /// The fields selected under `merged`, across all its occurrences.
    pub(crate) fn children(&self, merged: &Merged) -> Result<Vec<Merged>, DocumentError> {
        let mut out = Vec::new();
        for occurrence in &merged.occurrences {
            if let Some(selection_set) = occurrence.field.selection_set() {
                let mut fragments = occurrence.fragments.clone();
                self.walk(&selection_set, &mut fragments, &mut out)?;
            }
        }
        Ok(out)
    }

    fn walk(
        &self,
        selection_set: &cst::SelectionSet,
        fragments: &mut Vec<String>,
        out: &mut Vec<Merged>,
    ) -> Result<(), DocumentError> {
        for selection in selection_set.selections() {
            match selection {
                cst::Selection::Field(field) => {
                    let Some(name) = field.name().map(|name| name.text().to_string()) else { continue };
                    let key = field
                        .alias()
                        .and_then(|alias| alias.name())
                        .map_or_else(|| name.clone(), |alias| alias.text().to_string());
                    let occurrence = Occurrence { field, fragments: fragments.clone() };
                    match out.iter_mut().find(|merged| merged.key == key) {
                        Some(merged) => merged.occurrences.push(occurrence),
                        None => out.push(Merged { key, name, occurrences: vec![occurrence] }),
                    }
                }
                cst::Selection::InlineFragment(fragment) => {
                    if let Some(inner) = fragment.selection_set() {
                        self.walk(&inner, fragments, out)?;
                    }
                }
                cst::Selection::FragmentSpread(spread) => {
                    let Some(name) = spread_name(&spread) else { continue };
                    if fragments.contains(&name) {
                        return Err(DocumentError::FragmentCycle { name });
                    }
                    let Some(definition) = self.fragments.get(&name) else {
                        return Err(DocumentError::UnknownFragment { name });
                    };
                    if let Some(inner) = definition.selection_set() {
                        fragments.push(name);
                        let walked = self.walk(&inner, fragments, out);
                        fragments.pop();
                        walked?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::document::Parsed;
    use super::*;

    fn top(text: &str) -> Result<Vec<(String, String, usize)>, DocumentError> {
        let parsed = Parsed::new(text, None)?;
        let collector = Collector::new(&parsed.fragments);
        let Some(selection_set) = parsed.operation.selection_set() else { return Ok(Vec::new()) };
        let merged = collector.collect(&selection_set)?;
        Ok(merged.into_iter().map(|m| (m.key, m.name, m.occurrences.len())).collect())
    }

    #[test]
    fn merges_by_response_key_and_expands_fragments_in_place() {
        let text = "{ a ...F b: c ... on Query { a d } }\nfragment F on Query { e a }";
        let got = top(text).map_err(|e| e.to_string());
        let want = vec![
            ("a".to_string(), "a".to_string(), 3),
            ("e".to_string(), "e".to_string(), 1),
            ("b".to_string(), "c".to_string(), 1),
            ("d".to_string(), "d".to_string(), 1),
        ];
        assert_eq!(got, Ok(want));
    }

    #[test]
    fn reports_unknown_fragments_and_cycles() {
        assert_eq!(top("{ ...Missing }"), Err(DocumentError::UnknownFragment { name: "Missing".to_string() }));
        let cycle = "{ ...A }\nfragment A on Query { ...B }\nfragment B on Query { ...A }";
        assert!(matches!(top(cycle), Err(DocumentError::FragmentCycle { .. })));
    }

    #[test]
    fn detects_cycles_through_nested_fields() {
        let text = "{ user { ...A } }\nfragment A on User { groups { members { ...A } } }";
        let parsed = match Parsed::new(text, None) {
            Ok(parsed) => parsed,
            Err(error) => panic!("{error}"),
        };
        let collector = Collector::new(&parsed.fragments);
        let Some(selection_set) = parsed.operation.selection_set() else { panic!("no selection set") };
        let mut level = collector.collect(&selection_set).map_err(|e| e.to_string());
        let mut result = Ok(());
        for _ in 0..10 {
            match level {
                Ok(merged) if !merged.is_empty() => level = collector.children(&merged[0]).map_err(|e| e.to_string()),
                Ok(_) => break,
                Err(error) => {
                    result = Err(error);
                    break;
                }
            }
        }
        assert!(result.is_err_and(|e| e.contains("'A' spreads itself")));
    }

    #[test]
    fn a_fragment_spread_twice_side_by_side_is_not_a_cycle() {
        let text = "{ ...A ...A }\nfragment A on Query { a }";
        assert_eq!(top(text).map_err(|e| e.to_string()), Ok(vec![("a".to_string(), "a".to_string(), 2)]));
    }
}
