//! The documents the full sandbox has parsed, kept by their text: a client that walks pages sends
//! the same document thousands of times with new variables, and parsing it (async-graphql's
//! parser) with the two checks made before execution (the fields it expands to, the scopes it
//! needs) is then done once. Validation and execution still run for every request, with its own
//! variables.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_graphql::parser::types::ExecutableDocument;

use crate::scopes::ScopeSet;

/// Documents longer than this are parsed every time (they are not what a walk repeats).
const MAX_KEPT_TEXT: usize = 16 * 1024;
/// At most this many documents are kept; when full, the oldest half is forgotten.
const MAX_KEPT: usize = 128;

/// A document parsed, with what the sandbox checks before executing it.
#[derive(Debug)]
pub struct Prepared {
    /// The parsed document (cloned into each request).
    pub doc: ExecutableDocument,
    /// [`super::limits::expanded_fields`] of it.
    pub expanded_fields: usize,
    /// [`super::access::required_scopes`] of the operation asked for.
    pub required: ScopeSet,
}

/// The documents kept, by (text, operation name).
#[derive(Debug, Default)]
pub struct Documents {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    map: HashMap<(String, Option<String>), (u64, Arc<Prepared>)>,
    uses: u64,
}

impl Documents {
    /// The prepared `query` (for `operation_name`), parsed now when it is not kept yet;
    /// `None` when it does not parse (the caller lets async-graphql say why).
    pub fn prepared(&self, query: &str, operation_name: Option<&str>) -> Option<Arc<Prepared>> {
        let key = (query.to_owned(), operation_name.map(str::to_owned));
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.uses += 1;
            let uses = kept.uses;
            if let Some((used, prepared)) = kept.map.get_mut(&key) {
                *used = uses;
                return Some(prepared.clone());
            }
        }
        let doc = async_graphql::parser::parse_query(query).ok()?;
        let prepared = Arc::new(Prepared {
            expanded_fields: super::limits::expanded_fields(&doc),
            required: super::access::required_scopes(&doc, operation_name),
            doc,
        });
        if query.len() <= MAX_KEPT_TEXT {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if kept.map.len() >= MAX_KEPT {
                let mut ages: Vec<u64> = kept.map.values().map(|(used, _)| *used).collect();
                ages.sort_unstable();
                let cut = ages[ages.len() / 2];
                kept.map.retain(|_, (used, _)| *used > cut);
            }
            let uses = kept.uses;
            kept.map.insert(key, (uses, prepared.clone()));
        }
        Some(prepared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_parsed_once_and_a_bad_one_is_not_kept() {
        let documents = Documents::default();
        let query = "query($a: String) { paginatedUsers(first: 50, after: $a) { edges { node { ref } } } }";
        let first = documents.prepared(query, None).expect("parses");
        let again = documents.prepared(query, None).expect("parses");
        assert!(Arc::ptr_eq(&first, &again), "kept");
        assert!(first.required.contains(crate::scopes::Scope::UsersRead));
        assert!(documents.prepared("{ paginatedUsers(", None).is_none());
        for n in 0..(MAX_KEPT * 2) {
            documents.prepared(&format!("{{ user(ref: \"u{n}\") {{ ref }} }}"), None).expect("parses");
        }
        let kept = documents.kept.lock().expect("not poisoned").map.len();
        assert!(kept <= MAX_KEPT, "{kept} kept");
    }
}
