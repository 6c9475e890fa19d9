//! The file's keys, gathered on the first of the plan's two reads of the file: which keys it
//! lists, which of them are on more than one row (and on which rows), and a fingerprint of the
//! whole sequence so that the second read can tell the file changed in between.
//!
//! Held compactly, because a file may have a million rows: the keys' text back to back in one
//! string and eight bytes a distinct key to find them (a `BTreeSet<String>` would take about
//! sixty bytes a key beyond the text).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The keys of a file's rows.
#[derive(Debug, Default)]
pub struct Keys {
    /// Every key's text, back to back.
    text: String,
    /// Where each distinct key is in `text` (start, length), sorted by key.
    spans: Vec<(u32, u32)>,
    /// The keys on more than one row, with those rows' numbers.
    duplicates: HashMap<String, Vec<u64>>,
    /// Rows read, and a hash of every (row number, key) in file order.
    fingerprint: (u64, u64),
}

/// Gathers [`Keys`] row by row.
#[derive(Debug, Default)]
pub struct KeysBuilder {
    text: String,
    /// (start, length, row) of each row with a key, in file order.
    entries: Vec<(u32, u32, u64)>,
    fingerprint: Fingerprint,
}

/// The fingerprint of a sequence of rows: both reads of a file compute it.
#[derive(Debug, Default)]
pub struct Fingerprint {
    hasher: DefaultHasher,
    rows: u64,
}

impl Fingerprint {
    /// Adds a row.
    pub fn add(&mut self, row: u64, key: &str) {
        row.hash(&mut self.hasher);
        key.hash(&mut self.hasher);
        self.rows += 1;
    }

    /// The rows added and their hash.
    pub fn finish(&self) -> (u64, u64) {
        (self.rows, self.hasher.finish())
    }
}

impl KeysBuilder {
    /// Adds the row numbered `row` with `key` (trimmed; empty: the row has none).
    pub fn add(&mut self, row: u64, key: &str) -> Result<(), String> {
        self.fingerprint.add(row, key);
        if key.is_empty() {
            return Ok(());
        }
        let too_long = || "the file's keys are more than 4 GB of text; split the file and import each part".to_owned();
        let start = u32::try_from(self.text.len()).map_err(|_| too_long())?;
        let len = u32::try_from(key.len()).map_err(|_| too_long())?;
        self.text.push_str(key);
        u32::try_from(self.text.len()).map_err(|_| too_long())?;
        self.entries.push((start, len, row));
        Ok(())
    }

    /// The keys, sorted, with their duplicates found.
    pub fn finish(self) -> Keys {
        let KeysBuilder { mut text, mut entries, fingerprint } = self;
        let key = |text: &str, (start, len): (u32, u32)| -> String {
            text[start as usize..(start + len) as usize].to_owned()
        };
        // Stable: a duplicate's rows stay in file order.
        entries.sort_by(|a, b| slice(&text, (a.0, a.1)).cmp(slice(&text, (b.0, b.1))));
        let mut spans: Vec<(u32, u32)> = Vec::with_capacity(entries.len());
        let mut duplicates: HashMap<String, Vec<u64>> = HashMap::new();
        let mut i = 0;
        while i < entries.len() {
            let (start, len, row) = entries[i];
            let mut j = i + 1;
            while j < entries.len() && slice(&text, (entries[j].0, entries[j].1)) == slice(&text, (start, len)) {
                j += 1;
            }
            if j > i + 1 {
                let mut rows = vec![row];
                rows.extend(entries[i + 1..j].iter().map(|e| e.2));
                duplicates.insert(key(&text, (start, len)), rows);
            }
            spans.push((start, len));
            i = j;
        }
        drop(entries);
        spans.shrink_to_fit();
        text.shrink_to_fit();
        Keys { text, spans, duplicates, fingerprint: fingerprint.finish() }
    }
}

fn slice(text: &str, (start, len): (u32, u32)) -> &str {
    &text[start as usize..(start + len) as usize]
}

impl Keys {
    /// Distinct keys.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the file lists no key.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Whether the file lists `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.spans.binary_search_by(|span| slice(&self.text, *span).cmp(key)).is_ok()
    }

    /// The distinct keys, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans.iter().map(|span| slice(&self.text, *span))
    }

    /// Why a row with `key` cannot be applied because other rows have it too, if they do.
    pub fn duplicate(&self, key: &str) -> Option<String> {
        let rows = self.duplicates.get(key)?;
        let numbers: Vec<String> = rows.iter().map(u64::to_string).collect();
        Some(format!("duplicate ref '{key}' (rows {})", numbers.join(", ")))
    }

    /// Rows read, and the hash of their (row number, key) sequence.
    pub fn fingerprint(&self) -> (u64, u64) {
        self.fingerprint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(rows: &[(u64, &str)]) -> Keys {
        let mut builder = KeysBuilder::default();
        for (row, key) in rows {
            builder.add(*row, key).unwrap();
        }
        builder.finish()
    }

    #[test]
    fn every_key_is_found_and_duplicates_name_all_their_rows() {
        let k = keys(&[(2, "u3"), (3, "u1"), (4, ""), (5, "u3"), (6, "u2"), (7, "u3")]);
        assert_eq!(k.len(), 3);
        assert_eq!(k.iter().collect::<Vec<_>>(), ["u1", "u2", "u3"]);
        assert!(k.contains("u1") && k.contains("u2") && k.contains("u3"));
        assert!(!k.contains("u4") && !k.contains("") && !k.contains("u"));
        assert_eq!(k.duplicate("u3").as_deref(), Some("duplicate ref 'u3' (rows 2, 5, 7)"));
        assert_eq!(k.duplicate("u1"), None);
        assert_eq!(k.fingerprint().0, 6);
    }

    #[test]
    fn the_fingerprint_tells_a_changed_file() {
        let a = keys(&[(2, "u1"), (3, "u2")]);
        let mut same = Fingerprint::default();
        same.add(2, "u1");
        same.add(3, "u2");
        assert_eq!(same.finish(), a.fingerprint());
        let mut other = Fingerprint::default();
        other.add(2, "u1");
        other.add(3, "u3");
        assert_ne!(other.finish(), a.fingerprint());
    }
}
