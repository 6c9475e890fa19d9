//! What both sandbox variants check before a document reaches async-graphql: the number of field
//! selections once every fragment spread is expanded. async-graphql's own limits (depth,
//! complexity, recursive depth: `limit_depth`, `limit_complexity`, `limit_recursive_depth` in
//! each schema's builder) expand fragments each time they are spread, so a 1 KB "fragment bomb"
//! (`fragment F2 on User { ...F1 ...F1 }`, doubling 25 times) keeps them busy for seconds before
//! they refuse it. Here each fragment's size is counted once (memoized), so the answer comes in
//! microseconds, and the document is refused before validation or execution starts.

use std::collections::HashMap;

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};

/// The most field selections a document may have with its fragments expanded (5,000): the
/// largest query of the spec's examples has under 100; async-graphql's complexity limit
/// bounds what the fields cost once this check has passed.
pub const MAX_EXPANDED_FIELDS: usize = 5_000;

/// The sentence of a refused document.
pub fn too_many_fields_message() -> String {
    format!(
        "Query is too large: with its fragments expanded it selects more than {MAX_EXPANDED_FIELDS} fields; spread fragments fewer times or split the query"
    )
}

/// The field selections of `doc`'s operations with every fragment spread expanded, counted up
/// to a little past `MAX_EXPANDED_FIELDS` (saturating: never overflows, never recurses forever on a
/// fragment cycle, which validation refuses later).
pub fn expanded_fields(doc: &ExecutableDocument) -> usize {
    let mut sizes: HashMap<&str, usize> = HashMap::new();
    let mut total = 0usize;
    for (_, operation) in doc.operations.iter() {
        total = total.saturating_add(size_of(doc, &operation.node.selection_set.node, &mut sizes, 0));
    }
    total
}

/// Nesting of fragments and selection sets followed before a document counts as too large
/// (async-graphql refuses recursion past 64 levels anyway).
const MAX_NESTING: usize = 256;

fn size_of<'a>(
    doc: &'a ExecutableDocument,
    set: &'a SelectionSet,
    sizes: &mut HashMap<&'a str, usize>,
    nesting: usize,
) -> usize {
    if nesting > MAX_NESTING {
        return usize::MAX;
    }
    let mut size = 0usize;
    for selection in &set.items {
        let add = match &selection.node {
            Selection::Field(field) => {
                1usize.saturating_add(size_of(doc, &field.node.selection_set.node, sizes, nesting + 1))
            }
            Selection::InlineFragment(fragment) => size_of(doc, &fragment.node.selection_set.node, sizes, nesting + 1),
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                match sizes.get(name) {
                    Some(known) => *known,
                    None => match doc.fragments.get(&spread.node.fragment_name.node) {
                        Some(fragment) => {
                            // A cycle meets the 0 written here and ends.
                            sizes.insert(name, 0);
                            let counted = size_of(doc, &fragment.node.selection_set.node, sizes, nesting + 1);
                            sizes.insert(name, counted);
                            counted
                        }
                        None => 0,
                    },
                }
            }
        };
        size = size.saturating_add(add);
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bomb(levels: usize) -> String {
        let mut text = String::from("query { users { ...F0 } }\nfragment F0 on User { name }\n");
        for i in 1..=levels {
            text.push_str(&format!("fragment F{i} on User {{ ...F{} ...F{} }}\n", i - 1, i - 1));
        }
        text.replace("...F0 } }\n", &format!("...F{levels} }} }}\n"))
    }

    #[test]
    fn a_fragment_bomb_is_counted_without_expanding_it() {
        let text = bomb(28);
        assert!(text.len() < 1500, "{}", text.len());
        let doc = async_graphql::parser::parse_query(&text).unwrap();
        let started = std::time::Instant::now();
        assert!(expanded_fields(&doc) > MAX_EXPANDED_FIELDS);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        let doc = async_graphql::parser::parse_query("{ a b { c ...F } } fragment F on T { d e ...F }").unwrap();
        assert_eq!(expanded_fields(&doc), 5);
    }
}
