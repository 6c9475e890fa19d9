//! A row of cells in one allocation: the cells' text back to back and where each ends. A grid of
//! 100,000 rows × 12 columns holds 1.2 million cells; as `Vec<Vec<String>>` they cost about 73
//! bytes each beyond their text, as `Row`s about 4.

/// One row of cells.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Row {
    text: Box<str>,
    ends: Box<[u32]>,
}

impl Row {
    /// A row of these cells.
    pub fn new<S: AsRef<str>>(cells: impl IntoIterator<Item = S>) -> Self {
        let mut text = String::new();
        let mut ends = Vec::new();
        for cell in cells {
            text.push_str(cell.as_ref());
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        Row { text: text.into_boxed_str(), ends: ends.into_boxed_slice() }
    }

    /// How many cells it has.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it has no cell.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The cell at `index`.
    pub fn cell(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = if index == 0 { 0 } else { self.ends[index - 1] as usize };
        self.text.get(start..end)
    }

    /// The cells in order.
    pub fn cells(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|i| self.cell(i))
    }
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.cells()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Row;

    #[test]
    fn gives_back_each_cell_including_empty_ones() {
        let row = Row::new(["u1", "", "张伟, \"x\"", "🚀"]);
        assert_eq!(row.len(), 4);
        assert_eq!(row.cells().collect::<Vec<_>>(), ["u1", "", "张伟, \"x\"", "🚀"]);
        assert_eq!(row.cell(3), Some("🚀"));
        assert_eq!(row.cell(4), None);
        assert!(Row::new(Vec::<String>::new()).is_empty());
        assert_eq!(format!("{row:?}"), r#"["u1", "", "张伟, \"x\"", "🚀"]"#);
    }
}
