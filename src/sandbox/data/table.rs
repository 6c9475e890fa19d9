//! A table of records in creation order, with a lookup by `ref` and Relay cursor pages.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;

use super::model::{Record, Seq};

/// The largest page the service serves (spec, "Limits").
pub const MAX_PAGE_SIZE: i32 = 50;

/// Records of one kind, ascending by sequence number. Each is shared (`Arc`), so that a
/// response holds its records without copying them (a group's member list, a user's strings);
/// a change copies a record only while a response still holds it.
#[derive(Debug)]
pub struct Table<T> {
    rows: Vec<Arc<T>>,
    by_key: HashMap<String, usize>,
    next_seq: Seq,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { rows: Vec::new(), by_key: HashMap::new(), next_seq: 1 }
    }
}

impl<T: Record + Clone> Table<T> {
    /// The sequence number the next inserted record gets.
    pub fn next_seq(&self) -> Seq {
        self.next_seq
    }

    /// Adds a record made from its sequence number and returns it.
    pub fn insert(&mut self, make: impl FnOnce(Seq) -> T) -> &T {
        let seq = self.next_seq;
        self.next_seq += 1;
        let record = Arc::new(make(seq));
        self.by_key.insert(record.key().to_owned(), self.rows.len());
        self.rows.push(record);
        &self.rows[self.rows.len() - 1]
    }

    /// The record with this `ref`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.get_shared(key).map(|r| &**r)
    }

    /// The record with this `ref`, shared (for a response to hold).
    pub fn get_shared(&self, key: &str) -> Option<&Arc<T>> {
        self.by_key.get(key).map(|&i| &self.rows[i])
    }

    /// The record with this `ref`, to change (its key must stay the same).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        self.by_key.get(key).map(|&i| Arc::make_mut(&mut self.rows[i]))
    }

    fn position(&self, seq: Seq) -> Result<usize, usize> {
        self.rows.binary_search_by_key(&seq, |r| r.seq())
    }

    /// The record with this sequence number.
    pub fn by_seq(&self, seq: Seq) -> Option<&T> {
        self.by_seq_shared(seq).map(|r| &**r)
    }

    /// The record with this sequence number, shared (for a response to hold).
    pub fn by_seq_shared(&self, seq: Seq) -> Option<&Arc<T>> {
        self.position(seq).ok().map(|i| &self.rows[i])
    }

    /// The record with this sequence number, to change (its key must stay the same).
    pub fn by_seq_mut(&mut self, seq: Seq) -> Option<&mut T> {
        self.position(seq).ok().map(|i| Arc::make_mut(&mut self.rows[i]))
    }

    /// Removes the record with this `ref`.
    pub fn remove(&mut self, key: &str) -> Option<T> {
        let index = self.by_key.remove(key)?;
        let record = self.rows.remove(index);
        for i in self.by_key.values_mut() {
            if *i > index {
                *i -= 1;
            }
        }
        Some(Arc::unwrap_or_clone(record))
    }

    /// Every record, in creation order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.rows.iter().map(|r| &**r)
    }

    /// Every record, shared, in creation order.
    pub fn iter_shared(&self) -> impl Iterator<Item = &Arc<T>> {
        self.rows.iter()
    }

    /// How many records there are.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// One page of the records that `filter` keeps (all of them when it is `None`).
    pub fn page<'a>(&'a self, request: &PageRequest, filter: Option<&dyn Fn(&T) -> bool>) -> Page<&'a Arc<T>> {
        match filter {
            Some(keep) => paginate::<T, _, _>(request, self.rows.iter().filter(|r| keep(r))),
            None => {
                // Unfiltered: find the start by binary search and count without a scan.
                let start = match request.after {
                    Some(after) => self.position(after).map_or_else(|i| i, |i| i + 1),
                    None => 0,
                };
                let items: Vec<&Arc<T>> = self.rows[start..].iter().take(request.first).collect();
                Page {
                    has_next_page: start + items.len() < self.rows.len(),
                    has_previous_page: start > 0,
                    count: self.rows.len(),
                    items: items.into_iter().map(|r| (cursor(T::KIND, r.seq()), r)).collect(),
                }
            }
        }
    }
}

/// One page of a list, with the Relay `pageInfo` facts and the total `count`.
#[derive(Debug)]
pub struct Page<T> {
    /// The items with their cursors.
    pub items: Vec<(String, T)>,
    /// How many items the whole filtered list holds.
    pub count: usize,
    /// Whether items follow this page.
    pub has_next_page: bool,
    /// Whether items precede this page.
    pub has_previous_page: bool,
}

/// The validated `first` and `after` of a paginated field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Page size, 0..=50.
    pub first: usize,
    /// Items after this sequence number.
    pub after: Option<Seq>,
}

/// A `first` or `after` argument the service refuses: `"{field}: {message}"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{argument}: {message}")]
pub struct PageArgError {
    /// `first` or `after`.
    pub argument: &'static str,
    /// What is wrong and what to do.
    pub message: String,
}

impl PageRequest {
    /// Checks the arguments of a paginated field listing records of `kind`.
    pub fn parse(kind: &str, first: Option<i32>, after: Option<&str>) -> Result<Self, PageArgError> {
        let first = first.unwrap_or(MAX_PAGE_SIZE);
        if first > MAX_PAGE_SIZE {
            return Err(PageArgError {
                argument: "first",
                message: format!(
                    "the page size is at most {MAX_PAGE_SIZE} (got {first}); ask for at most {MAX_PAGE_SIZE} and follow pageInfo.endCursor"
                ),
            });
        }
        if first < 0 {
            return Err(PageArgError {
                argument: "first",
                message: format!("the page size cannot be negative (got {first})"),
            });
        }
        let after = match after {
            None => None,
            Some(text) => Some(decode_cursor(kind, text).ok_or_else(|| PageArgError {
                argument: "after",
                message: format!(
                    "unknown cursor '{}'; pass an endCursor from an earlier page of the same list",
                    text.chars().take(64).collect::<String>()
                ),
            })?),
        };
        Ok(PageRequest { first: first as usize, after })
    }
}

/// The opaque cursor of a record: base64url of `{kind}:{seq}`.
pub fn cursor(kind: &str, seq: Seq) -> String {
    B64.encode(format!("{kind}:{seq}"))
}

fn decode_cursor(kind: &str, text: &str) -> Option<Seq> {
    let bytes = B64.decode(text).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let (k, seq) = text.split_once(':')?;
    (k == kind).then_some(())?;
    seq.parse().ok()
}

/// A page of any list of records that is ascending by sequence number (a filtered table, a
/// group's members), each shared (`&Arc<T>`). Walks the whole list once to count it.
pub fn paginate<T: Record, P: AsRef<T>, I>(request: &PageRequest, list: I) -> Page<P>
where
    I: Iterator<Item = P>,
{
    let mut page = Page { items: Vec::new(), count: 0, has_next_page: false, has_previous_page: false };
    for record in list {
        let seq = record.as_ref().seq();
        page.count += 1;
        if request.after.is_some_and(|after| seq <= after) {
            page.has_previous_page = true;
        } else if page.items.len() < request.first {
            page.items.push((cursor(T::KIND, seq), record));
        } else {
            page.has_next_page = true;
        }
    }
    page
}

/// The global id of a record: base64 of `{kind}:{seq}`, as Relay servers do.
pub fn global_id(kind: &str, seq: Seq) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{kind}:{seq}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::data::model::ExtraCategoryRec;

    fn table(n: usize) -> Table<ExtraCategoryRec> {
        let mut t = Table::default();
        for i in 0..n {
            t.insert(|seq| ExtraCategoryRec {
                seq,
                id: global_id("ExtraCategory", seq),
                ref_: format!("c{i}"),
                name: format!("C{i}"),
                allowed_values: vec![],
            });
        }
        t
    }

    fn walk(
        t: &Table<ExtraCategoryRec>,
        first: i32,
        filter: Option<&dyn Fn(&ExtraCategoryRec) -> bool>,
    ) -> Vec<String> {
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let req = PageRequest::parse("ExtraCategory", Some(first), after.as_deref()).unwrap();
            let page = t.page(&req, filter);
            assert_eq!(page.has_previous_page, after.is_some() && !seen.is_empty());
            seen.extend(page.items.iter().map(|(_, r)| r.ref_.clone()));
            if !page.has_next_page {
                return seen;
            }
            after = page.items.last().map(|(c, _)| c.clone());
        }
    }

    #[test]
    fn walks_every_record_once_filtered_or_not() {
        let t = table(123);
        assert_eq!(walk(&t, 50, None).len(), 123);
        let even = |r: &ExtraCategoryRec| r.seq.is_multiple_of(2);
        let got = walk(&t, 7, Some(&even));
        assert_eq!(got.len(), 61);
        assert!(got.windows(2).all(|w| w[0] != w[1]));
    }

    #[test]
    fn a_deleted_record_keeps_its_cursor_valid() {
        let mut t = table(10);
        let req = PageRequest::parse("ExtraCategory", Some(3), None).unwrap();
        let cursor = t.page(&req, None).items[2].0.clone();
        t.remove("c2");
        let req = PageRequest::parse("ExtraCategory", Some(50), Some(&cursor)).unwrap();
        let page = t.page(&req, None);
        assert_eq!(page.items[0].1.ref_, "c3");
        assert_eq!(page.count, 9);
    }

    #[test]
    fn refuses_bad_arguments_naming_them() {
        assert_eq!(PageRequest::parse("User", Some(51), None).unwrap_err().argument, "first");
        assert_eq!(PageRequest::parse("User", Some(-1), None).unwrap_err().argument, "first");
        let other_kind = cursor("Group", 3);
        assert_eq!(PageRequest::parse("User", None, Some(&other_kind)).unwrap_err().argument, "after");
        assert_eq!(PageRequest::parse("User", None, Some("%%")).unwrap_err().argument, "after");
    }
}
