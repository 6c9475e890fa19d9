//! Saved operations: a document with its variables under a name, in a collection (a folder;
//! `""` is the top level). Names are unique within their collection.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

/// An operation the user saved.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedOperation {
    /// Its row id.
    pub id: i64,
    /// Its collection (`""`: the top level; `a/b` for nested folders).
    pub collection: String,
    /// Its name, unique in the collection.
    pub name: String,
    /// The document.
    pub query: String,
    /// The variables as JSON text (may be empty).
    pub variables: String,
    /// When it was saved last.
    pub saved_at: DateTime<Utc>,
}

impl SavedOperation {
    /// `collection/name`, or the name alone at the top level: how the command line names it.
    pub fn path(&self) -> String {
        if self.collection.is_empty() { self.name.clone() } else { format!("{}/{}", self.collection, self.name) }
    }
}

const COLUMNS: &str = "id, collection, name, query, variables, saved_at";

fn operation(row: &rusqlite::Row<'_>) -> rusqlite::Result<SavedOperation> {
    let saved_at: String = row.get(5)?;
    Ok(SavedOperation {
        id: row.get(0)?,
        collection: row.get(1)?,
        name: row.get(2)?,
        query: row.get(3)?,
        variables: row.get(4)?,
        saved_at: DateTime::parse_from_rfc3339(&saved_at).map(|t| t.with_timezone(&Utc)).unwrap_or_default(),
    })
}

/// Why an operation's name cannot be used.
fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("an operation needs a name".into());
    }
    if name.contains('/') || name.chars().any(char::is_control) {
        return Err(format!("'{name}' cannot be a name: no '/' or control characters"));
    }
    Ok(())
}

/// A collection as kept: folders joined with `/`, without empty parts.
fn clean_collection(collection: &str) -> String {
    collection.split('/').map(str::trim).filter(|part| !part.is_empty()).collect::<Vec<_>>().join("/")
}

impl Store {
    /// Saves `query` and `variables` as `name` in `collection`, replacing the one of that name
    /// there; returns it as kept.
    pub fn save_operation(
        &self,
        collection: &str,
        name: &str,
        query: &str,
        variables: &str,
    ) -> Result<SavedOperation, StoreError> {
        let name = name.trim();
        check_name(name).map_err(|reason| StoreError { path: self.path.clone(), reason })?;
        let collection = clean_collection(collection);
        self.conn()
            .execute(
                "INSERT INTO operations (collection, name, query, variables, saved_at) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (collection, name) DO UPDATE SET query = excluded.query, \
                 variables = excluded.variables, saved_at = excluded.saved_at",
                params![collection, name, query, variables, Utc::now().to_rfc3339()],
            )
            .map_err(|e| self.error(e))?;
        self.operation_in(&collection, name)?.ok_or_else(|| self.error(rusqlite::Error::QueryReturnedNoRows))
    }

    /// Every saved operation, by collection then name.
    pub fn operations(&self) -> Result<Vec<SavedOperation>, StoreError> {
        let mut statement = self
            .conn()
            .prepare_cached(&format!("SELECT {COLUMNS} FROM operations ORDER BY collection, name COLLATE NOCASE"))
            .map_err(|e| self.error(e))?;
        let rows = statement.query_map([], operation).map_err(|e| self.error(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.error(e))
    }

    /// The operation `name` of `collection`.
    pub fn operation_in(&self, collection: &str, name: &str) -> Result<Option<SavedOperation>, StoreError> {
        self.conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM operations WHERE collection = ?1 AND name = ?2"),
                params![clean_collection(collection), name],
                operation,
            )
            .optional()
            .map_err(|e| self.error(e))
    }

    /// The operation a command line names: `collection/name`, or a name found in one collection
    /// only. `Err` with a sentence when there is none or the name is ambiguous.
    pub fn find_operation(&self, wanted: &str) -> Result<Result<SavedOperation, String>, StoreError> {
        if let Some((collection, name)) = wanted.rsplit_once('/')
            && let Some(found) = self.operation_in(collection, name)?
        {
            return Ok(Ok(found));
        }
        let all: Vec<SavedOperation> = self.operations()?.into_iter().filter(|op| op.name == wanted).collect();
        Ok(match all.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(format!(
                "no saved operation is named '{wanted}'; `orgql operations list` shows them (as collection/name)"
            )),
            several => Err(format!(
                "'{wanted}' names {} saved operations ({}); give it as collection/name",
                several.len(),
                several.iter().map(SavedOperation::path).collect::<Vec<_>>().join(", ")
            )),
        })
    }

    /// Renames operation `id` (and moves it to `collection`); refused when that name is taken.
    pub fn rename_operation(&self, id: i64, collection: &str, name: &str) -> Result<(), StoreError> {
        let name = name.trim();
        let collection = clean_collection(collection);
        let refuse = |reason: String| StoreError { path: self.path.clone(), reason };
        check_name(name).map_err(refuse)?;
        if self.operation_in(&collection, name)?.is_some_and(|other| other.id != id) {
            return Err(refuse(format!("an operation named '{name}' is already there; choose another name")));
        }
        self.conn()
            .execute("UPDATE operations SET collection = ?1, name = ?2 WHERE id = ?3", params![collection, name, id])
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    /// A copy of operation `id` beside it, named "`name` copy" (or "copy 2", …); returns it.
    pub fn duplicate_operation(&self, id: i64) -> Result<SavedOperation, StoreError> {
        let original = self
            .conn()
            .query_row(&format!("SELECT {COLUMNS} FROM operations WHERE id = ?1"), params![id], operation)
            .map_err(|e| self.error(e))?;
        let mut name = format!("{} copy", original.name);
        let mut n = 1;
        while self.operation_in(&original.collection, &name)?.is_some() {
            n += 1;
            name = format!("{} copy {n}", original.name);
        }
        self.save_operation(&original.collection, &name, &original.query, &original.variables)
    }

    /// Replaces the document of operation `id` with `after` when it is still `before` (its
    /// variables and name kept); the operation as it is now, or `None` when it was changed or
    /// deleted since (nothing is written then).
    pub fn rewrite_operation(&self, id: i64, before: &str, after: &str) -> Result<Option<SavedOperation>, StoreError> {
        let changed = self
            .conn()
            .execute(
                "UPDATE operations SET query = ?1, saved_at = ?2 WHERE id = ?3 AND query = ?4",
                params![after, Utc::now().to_rfc3339(), id, before],
            )
            .map_err(|e| self.error(e))?;
        if changed == 0 {
            return Ok(None);
        }
        self.conn()
            .query_row(&format!("SELECT {COLUMNS} FROM operations WHERE id = ?1"), params![id], operation)
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Deletes operation `id`.
    pub fn delete_operation(&self, id: i64) -> Result<(), StoreError> {
        self.conn().execute("DELETE FROM operations WHERE id = ?1", params![id]).map_err(|e| self.error(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&dir.path().join("s.sqlite3")).expect("a store");
        (dir, store)
    }

    #[test]
    fn saves_replaces_renames_duplicates_and_deletes() {
        let (_dir, store) = store();
        let first = store.save_operation(" Reports / HR ", "Leavers", "{ a }", "").expect("saved");
        assert_eq!(first.path(), "Reports/HR/Leavers");
        let again = store.save_operation("Reports/HR", "Leavers", "{ b }", "{\"x\":1}").expect("replaced");
        assert_eq!((again.id, again.query.as_str()), (first.id, "{ b }"), "the same operation, replaced");
        let copy = store.duplicate_operation(first.id).expect("a copy");
        assert_eq!(copy.name, "Leavers copy");
        assert_eq!(store.duplicate_operation(first.id).expect("another").name, "Leavers copy 2");
        let taken = store.rename_operation(copy.id, "Reports/HR", "Leavers").expect_err("taken");
        assert!(taken.reason.contains("already there"), "{taken}");
        store.rename_operation(copy.id, "", "Joiners").expect("renamed");
        assert!(store.save_operation("", "a/b", "{ a }", "").is_err(), "no '/' in names");
        assert!(store.save_operation("", "  ", "{ a }", "").is_err(), "a name is needed");
        let names: Vec<String> = store.operations().expect("listed").iter().map(SavedOperation::path).collect();
        assert_eq!(names, ["Joiners", "Reports/HR/Leavers", "Reports/HR/Leavers copy 2"]);
        store.delete_operation(first.id).expect("deleted");
        assert_eq!(store.operations().expect("listed").len(), 2);
        let kept = store.operations().expect("listed")[1].clone();
        let rewritten = store.rewrite_operation(kept.id, "{ b }", "{ c }").expect("written").expect("it was { b }");
        assert_eq!((rewritten.query.as_str(), rewritten.variables.as_str()), ("{ c }", "{\"x\":1}"));
        assert_eq!(store.rewrite_operation(kept.id, "{ b }", "{ d }").expect("read"), None, "changed since");
        assert_eq!(store.rewrite_operation(first.id, "{ b }", "{ d }").expect("read"), None, "deleted");
    }

    #[test]
    fn the_command_line_finds_an_operation_by_path_or_unique_name() {
        let (_dir, store) = store();
        store.save_operation("A", "Users", "{ a }", "").expect("saved");
        store.save_operation("B", "Users", "{ b }", "").expect("saved");
        store.save_operation("B", "Groups", "{ g }", "").expect("saved");
        assert_eq!(store.find_operation("B/Users").expect("read").expect("found").query, "{ b }");
        assert_eq!(store.find_operation("Groups").expect("read").expect("found").query, "{ g }");
        let ambiguous = store.find_operation("Users").expect("read").expect_err("two");
        assert!(ambiguous.contains("A/Users, B/Users"), "{ambiguous}");
        assert!(store.find_operation("Nope").expect("read").expect_err("none").contains("no saved operation"));
    }
}
