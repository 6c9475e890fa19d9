//! The grid's quick filter: the rows whose cells contain what is typed, without regard to case.
//!
//! Each row's cells are lowercased once, into one string (cells apart by a separator no text
//! holds, so that a match never spans two cells); a keystroke then scans those strings once, and
//! a filter that only grows (`an` → `ann`) scans only the rows the last one kept. Nothing of this
//! runs on a frame without a keystroke: the grid draws the kept rows' indexes.

use super::Row;

/// Between two cells of a row's text: a match never spans two cells.
const CELL_GAP: char = '\u{1f}';

/// The lowercased text of each row, made once for a set of rows.
#[derive(Debug, Default, Clone)]
pub struct RowIndex {
    texts: Vec<String>,
}

impl RowIndex {
    /// The index of `rows`.
    pub fn new(rows: &[Row]) -> Self {
        let mut index = RowIndex { texts: Vec::with_capacity(rows.len()) };
        index.extend(rows);
        index
    }

    /// Adds rows appended after those indexed.
    pub fn extend(&mut self, rows: &[Row]) {
        for row in rows {
            let mut text = String::new();
            for (i, cell) in row.cells().enumerate() {
                if i > 0 {
                    text.push(CELL_GAP);
                }
                text.extend(cell.chars().flat_map(char::to_lowercase));
            }
            self.texts.push(text);
        }
    }

    /// How many rows are indexed.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether no row is indexed.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Of the rows `among` (indexes, in the order shown), those whose text contains `needle`
    /// (lowercased already, see [`normalize`]).
    pub fn filter(&self, needle: &str, among: &[usize]) -> Vec<usize> {
        if needle.is_empty() {
            return among.to_vec();
        }
        among.iter().copied().filter(|i| self.texts.get(*i).is_some_and(|text| text.contains(needle))).collect()
    }
}

/// What is typed into the filter, as the index compares it.
pub fn normalize(typed: &str) -> String {
    typed.trim().chars().flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_rows_containing_the_text_in_any_cell_without_regard_to_case() {
        let rows = vec![Row::new(["u1", "Ann Lee"]), Row::new(["u2", "Bob"]), Row::new(["u3", "ÉLODIE ann"])];
        let index = RowIndex::new(&rows);
        assert_eq!(index.filter(&normalize(" ANN "), &[0, 1, 2]), [0, 2]);
        assert_eq!(index.filter(&normalize("élodie"), &[2, 1, 0]), [2]);
        assert_eq!(index.filter("", &[1, 0]), [1, 0], "no filter keeps the order");
        assert!(index.filter(&normalize("1a"), &[0, 1, 2]).is_empty(), "a match does not span two cells");
        assert_eq!(index.filter("u", &[5]), Vec::<usize>::new(), "an index beyond the rows keeps nothing");
    }
}
