//! Search over every type and field name: a lowercase copy of all names made once when the model
//! is built, scanned for a substring and ranked exact, prefix, substring.

use apollo_compiler::schema::ExtendedType;
use apollo_compiler::{Name, Schema};

/// How well a name matches the needle, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MatchRank {
    /// The name is the needle (ignoring case).
    Exact,
    /// The name begins with the needle.
    Prefix,
    /// The name contains the needle.
    Substring,
}

/// One result of [`SchemaModel::search`](super::SchemaModel::search).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The type, or the type holding the field.
    pub type_name: String,
    /// The field, when the hit is a field (of an object type, interface or input object).
    pub field: Option<String>,
    /// How well it matched.
    pub rank: MatchRank,
    /// The way to it from a root: the root type's name, then field names, ending with `field`
    /// for a field hit (`Query`, `paginatedUsers`, `edges`, `node`, `email`) or with the field
    /// that leads to the type for a type hit. `None` when no root reaches it through fields.
    pub path: Option<Vec<String>>,
}

impl SearchHit {
    /// `User.email`, or `User` for a type.
    pub fn label(&self) -> String {
        match &self.field {
            Some(field) => format!("{}.{field}", self.type_name),
            None => self.type_name.clone(),
        }
    }

    /// The path joined with dots: `Query.paginatedUsers.edges.node.email`.
    pub fn path_text(&self) -> Option<String> {
        self.path.as_ref().map(|path| path.join("."))
    }
}

/// Marks an entry that is a type rather than a field.
const NO_FIELD: u32 = u32::MAX;

/// A name in the index.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where its lowercase name lies in `NameIndex::text`.
    start: u32,
    end: u32,
    /// The type's index in `Schema::types`.
    type_index: u32,
    /// The field's index in its type's fields, or `NO_FIELD`.
    field: u32,
    /// The entry of the type (itself for a type).
    type_entry: u32,
}

/// A match: the type's index in `Schema::types` and the field's index in its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) type_index: usize,
    pub(crate) field: Option<usize>,
    pub(crate) rank: MatchRank,
}

/// Every type and field name of a schema, lowercased, back to back.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    text: String,
    entries: Vec<Entry>,
    types: usize,
}

impl NameIndex {
    /// Indexes the schema's own types (not the built-in scalars and introspection types) and the
    /// fields of its object types, interfaces and input objects.
    pub(crate) fn new(schema: &Schema) -> Self {
        let mut index = NameIndex::default();
        for (type_index, (name, ty)) in schema.types.iter().enumerate() {
            if ty.is_built_in() {
                continue;
            }
            let type_entry = index.entries.len() as u32;
            index.push(name, type_index, NO_FIELD, type_entry);
            index.types += 1;
            match ty {
                ExtendedType::Object(object) => index.push_fields(object.fields.keys(), type_index, type_entry),
                ExtendedType::Interface(interface) => {
                    index.push_fields(interface.fields.keys(), type_index, type_entry)
                }
                ExtendedType::InputObject(input) => index.push_fields(input.fields.keys(), type_index, type_entry),
                _ => {}
            }
        }
        index
    }

    fn push_fields<'n>(&mut self, names: impl Iterator<Item = &'n Name>, type_index: usize, type_entry: u32) {
        for (field, name) in names.enumerate() {
            self.push(name, type_index, field as u32, type_entry);
        }
    }

    fn push(&mut self, name: &str, type_index: usize, field: u32, type_entry: u32) {
        let start = self.text.len() as u32;
        self.text.extend(name.chars().map(|c| c.to_ascii_lowercase()));
        let end = self.text.len() as u32;
        self.entries.push(Entry { start, end, type_index: type_index as u32, field, type_entry });
    }

    /// How many types are indexed.
    pub(crate) fn type_count(&self) -> usize {
        self.types
    }

    /// How many fields are indexed.
    pub(crate) fn field_count(&self) -> usize {
        self.entries.len() - self.types
    }

    fn name(&self, entry: &Entry) -> &str {
        &self.text[entry.start as usize..entry.end as usize]
    }

    /// The best `limit` matches of `needle` (case-insensitive; `type.field` matches both parts),
    /// best first: by rank, types before fields, shorter names first, then in schema order.
    pub(crate) fn search(&self, needle: &str, limit: usize) -> Vec<Found> {
        let needle = needle.trim().to_ascii_lowercase();
        if needle.is_empty() || limit == 0 {
            return Vec::new();
        }
        // (rank, is a field, name length, entry)
        let mut matches: Vec<(MatchRank, bool, u32, u32)> = Vec::new();
        match needle.split_once('.') {
            None => {
                for (i, entry) in self.entries.iter().enumerate() {
                    if let Some(rank) = rank(self.name(entry), &needle) {
                        matches.push((rank, entry.field != NO_FIELD, entry.end - entry.start, i as u32));
                    }
                }
            }
            Some((type_needle, field_needle)) => {
                for (i, entry) in self.entries.iter().enumerate().filter(|(_, entry)| entry.field != NO_FIELD) {
                    let type_name = self.name(&self.entries[entry.type_entry as usize]);
                    let Some(type_rank) = rank(type_name, type_needle) else { continue };
                    if let Some(field_rank) = rank(self.name(entry), field_needle) {
                        matches.push((type_rank.max(field_rank), true, entry.end - entry.start, i as u32));
                    }
                }
            }
        }
        if matches.len() > limit {
            matches.select_nth_unstable(limit);
            matches.truncate(limit);
        }
        matches.sort_unstable();
        matches
            .into_iter()
            .map(|(rank, _, _, i)| {
                let entry = &self.entries[i as usize];
                Found {
                    type_index: entry.type_index as usize,
                    field: (entry.field != NO_FIELD).then_some(entry.field as usize),
                    rank,
                }
            })
            .collect()
    }
}

/// How `name` matches `needle`, both lowercase; an empty needle (one side of `type.field`)
/// matches everything exactly.
fn rank(name: &str, needle: &str) -> Option<MatchRank> {
    match name.find(needle)? {
        _ if needle.is_empty() => Some(MatchRank::Exact),
        0 if name.len() == needle.len() => Some(MatchRank::Exact),
        0 => Some(MatchRank::Prefix),
        _ => Some(MatchRank::Substring),
    }
}
