//! The paging guard of one walk: what stops a service whose pages never end (cursors that come
//! back, empty pages that keep saying another follows, far more rows than its `count` said), and
//! what is worth a warning when the walk ends (rows that repeat an earlier row, a `count` that was
//! not reached).
//!
//! It keeps a 64-bit hash of every cursor and row key, not the text, so a walk of a million rows
//! holds about 16 MB at most whatever the service sends.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// Empty pages in a row that still say another page follows before the walk stops.
pub const MAX_EMPTY_PAGES: u32 = 3;

/// Rows beyond `count` accepted before the walk stops: a tenth of `count`, at least this many
/// (rows added while the walk runs are normal; ten times as many is not).
pub const MIN_ROWS_PAST_COUNT: u64 = 100;

/// What one walk has seen.
#[derive(Debug, Default)]
pub(crate) struct WalkGuard {
    cursors: HashSet<u64>,
    keys: HashSet<u64>,
    duplicates: u64,
    empty_in_a_row: u32,
    rows: u64,
    pages: u64,
    total: Option<u64>,
    /// Whether the walk reached its last page from its first.
    complete: bool,
    from_the_start: bool,
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A row's identity: its `id`, else its `ref` (strings or numbers).
pub(crate) fn key_of(node: &Value) -> Option<u64> {
    let key = node.get("id").filter(|v| !v.is_null()).or_else(|| node.get("ref").filter(|v| !v.is_null()))?;
    Some(key_hash(key))
}

/// The hash of a row's `id` or `ref` value.
pub(crate) fn key_hash(key: &Value) -> u64 {
    match key {
        Value::String(text) => hash_of(text.as_str()),
        other => hash_of(other.to_string()),
    }
}

impl WalkGuard {
    /// A new walk, starting after `cursor` (`None`: from the first page).
    pub(crate) fn start(cursor: Option<&str>) -> Self {
        let mut guard = WalkGuard { from_the_start: cursor.is_none(), ..WalkGuard::default() };
        if let Some(cursor) = cursor {
            guard.cursors.insert(hash_of(cursor));
        }
        guard
    }

    /// Takes in one page, its nodes given by their keys ([`key_of`]); an error (one sentence)
    /// when the walk must stop. `next` is the cursor of the next page when one follows,
    /// `page_size` the `first` asked for when known.
    pub(crate) fn page(
        &mut self,
        keys: impl Iterator<Item = Option<u64>>,
        total: Option<u64>,
        next: Option<&str>,
        page_size: Option<u64>,
    ) -> Result<(), String> {
        self.pages += 1;
        let mut count = 0u64;
        for key in keys {
            count += 1;
            if let Some(key) = key
                && !self.keys.insert(key)
            {
                self.duplicates += 1;
            }
        }
        self.rows += count;
        if total.is_some() {
            self.total = total;
        }
        let Some(next) = next else {
            self.complete = true;
            return Ok(());
        };
        if !self.cursors.insert(hash_of(next)) {
            return Err(format!(
                "the service's pages go round in a loop (page {} gave a cursor that an earlier page gave), so the walk stopped after {} rows",
                self.pages, self.rows
            ));
        }
        if count == 0 {
            self.empty_in_a_row += 1;
            if self.empty_in_a_row >= MAX_EMPTY_PAGES {
                return Err(format!(
                    "the service sent {} empty pages in a row that each said another page follows, so the walk stopped after {} rows",
                    self.empty_in_a_row, self.rows
                ));
            }
        } else {
            self.empty_in_a_row = 0;
        }
        if let Some(total) = self.total {
            let margin = (total / 10).max(MIN_ROWS_PAST_COUNT).max(page_size.unwrap_or(0));
            if self.rows > total.saturating_add(margin) {
                return Err(format!(
                    "the service sent {} rows and says more follow, though its count is {total}, so the walk stopped",
                    self.rows
                ));
            }
        }
        Ok(())
    }

    /// What the walk's output should be read with: rows that repeated an earlier row, a `count`
    /// that was not reached (only for a walk from the first page to the last). One sentence each.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.duplicates > 0 {
            warnings.push(format!(
                "{} row{} repeated an earlier row's id (or ref): the service sent the same node more than once, perhaps because the data changed during the walk; they are kept as received",
                self.duplicates,
                if self.duplicates == 1 { "" } else { "s" }
            ));
        }
        if self.complete
            && self.from_the_start
            && let Some(total) = self.total
            && self.rows < total
        {
            warnings.push(format!(
                "the service's count said {total} rows but its pages held {} ({} missing); run again, or ask the service's administrator",
                self.rows,
                total - self.rows
            ));
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(keys: &[&str]) -> Vec<Option<u64>> {
        keys.iter().map(|k| key_of(&json!({ "ref": k }))).collect()
    }

    #[test]
    fn a_cursor_that_comes_back_stops_the_walk() {
        let mut guard = WalkGuard::start(None);
        guard.page(rows(&["a"]).into_iter(), None, Some("A"), None).unwrap();
        guard.page(rows(&["b"]).into_iter(), None, Some("B"), None).unwrap();
        let err = guard.page(rows(&["c"]).into_iter(), None, Some("A"), None).unwrap_err();
        assert!(err.contains("loop"), "{err}");
    }

    #[test]
    fn empty_pages_that_promise_more_stop_the_walk() {
        let mut guard = WalkGuard::start(None);
        guard.page(rows(&[]).into_iter(), None, Some("1"), None).unwrap();
        guard.page(rows(&[]).into_iter(), None, Some("2"), None).unwrap();
        let err = guard.page(rows(&[]).into_iter(), None, Some("3"), None).unwrap_err();
        assert!(err.contains("3 empty pages"), "{err}");
    }

    #[test]
    fn rows_far_past_the_count_stop_the_walk() {
        let mut guard = WalkGuard::start(None);
        let page: Vec<Option<u64>> = (0..50).map(|i| key_of(&json!({ "id": i }))).collect();
        guard.page(page.into_iter(), Some(10), Some("1"), Some(50)).unwrap();
        let page: Vec<Option<u64>> = (50..100).map(|i| key_of(&json!({ "id": i }))).collect();
        guard.page(page.into_iter(), Some(10), Some("2"), Some(50)).unwrap();
        let page: Vec<Option<u64>> = (100..150).map(|i| key_of(&json!({ "id": i }))).collect();
        let err = guard.page(page.into_iter(), Some(10), Some("3"), Some(50)).unwrap_err();
        assert!(err.contains("count is 10"), "{err}");
    }

    #[test]
    fn repeated_rows_and_a_short_count_are_counted() {
        let mut guard = WalkGuard::start(None);
        guard.page(rows(&["a", "b"]).into_iter(), Some(10), Some("1"), None).unwrap();
        guard.page(rows(&["b", "c", "a"]).into_iter(), Some(10), None, None).unwrap();
        let warnings = guard.warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("2 rows repeated"), "{warnings:?}");
        assert!(warnings[1].contains("said 10 rows but its pages held 5 (5 missing)"), "{warnings:?}");
    }
}
