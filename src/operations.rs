//! Saved operations as files a team keeps in git: each operation is `NAME.graphql` in the
//! folder of its collection (`Reports/HR/Leavers.graphql`), its variables beside it as
//! `NAME.variables.json` when it has any. Reading a folder back gives the same collections,
//! names, documents and variables.

use std::path::{Path, PathBuf};

use crate::store::SavedOperation;

/// An operation read from files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationFile {
    /// Its collection: the folders under the one read, joined with `/`.
    pub collection: String,
    /// Its name: the file's name without `.graphql`.
    pub name: String,
    /// The document.
    pub query: String,
    /// The variables as JSON text (empty when there is no variables file).
    pub variables: String,
}

/// How deep collections go when a folder is read (a guard against link loops).
const DEEPEST: usize = 16;
/// The largest operation file read (a document is text a person wrote).
const LARGEST_FILE: u64 = 4 * 1024 * 1024;

/// A name as a file name: characters no file system takes become `_`.
pub fn file_name(name: &str) -> String {
    let cleaned: String =
        name.chars().map(|c| if c.is_control() || r#"<>:"/\|?*"#.contains(c) { '_' } else { c }).collect();
    match cleaned.trim_matches([' ', '.']) {
        "" => "operation".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

/// The folder of `collection` under `dir`.
fn folder_of(dir: &Path, collection: &str) -> PathBuf {
    collection
        .split('/')
        .filter(|part| !part.is_empty())
        .fold(dir.to_path_buf(), |path, part| path.join(file_name(part)))
}

/// Writes `operations` under `dir` (created when missing); returns how many were written.
pub fn write_all(operations: &[SavedOperation], dir: &Path) -> Result<usize, String> {
    crate::platform::ui_thread::check("operation files");
    let failed =
        |path: &Path, e: std::io::Error| format!("cannot write {} ({e}); choose another folder", path.display());
    for operation in operations {
        let folder = folder_of(dir, &operation.collection);
        std::fs::create_dir_all(&folder).map_err(|e| failed(&folder, e))?;
        let stem = file_name(&operation.name);
        let document = folder.join(format!("{stem}.graphql"));
        std::fs::write(&document, &operation.query).map_err(|e| failed(&document, e))?;
        let variables = folder.join(format!("{stem}.variables.json"));
        if operation.variables.trim().is_empty() {
            if variables.exists() {
                std::fs::remove_file(&variables).map_err(|e| failed(&variables, e))?;
            }
        } else {
            let text = match serde_json::from_str::<serde_json::Value>(&operation.variables) {
                Ok(value) => serde_json::to_string_pretty(&value).unwrap_or_else(|_| operation.variables.clone()),
                Err(_) => operation.variables.clone(),
            };
            std::fs::write(&variables, text + "\n").map_err(|e| failed(&variables, e))?;
        }
    }
    Ok(operations.len())
}

/// Reads every `.graphql` file under `dir`; returns the operations, and a sentence for each
/// file that could not be read.
pub fn read_all(dir: &Path) -> Result<(Vec<OperationFile>, Vec<String>), String> {
    crate::platform::ui_thread::check("operation files");
    if !dir.is_dir() {
        return Err(format!("{} is not a folder; choose the folder the operations were exported to", dir.display()));
    }
    let mut found = Vec::new();
    let mut problems = Vec::new();
    read_folder(dir, &[], &mut found, &mut problems);
    found.sort_by(|a: &OperationFile, b| (&a.collection, &a.name).cmp(&(&b.collection, &b.name)));
    Ok((found, problems))
}

fn read_folder(dir: &Path, collection: &[String], found: &mut Vec<OperationFile>, problems: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return problems.push(format!("{} could not be read ({e})", dir.display())),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if kind.is_dir() && !name.starts_with('.') && collection.len() < DEEPEST {
            let mut inner = collection.to_vec();
            inner.push(name);
            read_folder(&path, &inner, found, problems);
            continue;
        }
        let Some(stem) = name.strip_suffix(".graphql").filter(|_| kind.is_file()) else { continue };
        match read_operation(&path, &dir.join(format!("{stem}.variables.json"))) {
            Ok((query, variables)) => {
                found.push(OperationFile { collection: collection.join("/"), name: stem.to_owned(), query, variables })
            }
            Err(why) => problems.push(format!("{} was skipped ({why})", path.display())),
        }
    }
}

fn read_operation(document: &Path, variables: &Path) -> Result<(String, String), String> {
    let read = |path: &Path| -> Result<String, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > LARGEST_FILE {
            return Err(format!("{size} bytes, more than an operation's {LARGEST_FILE}"));
        }
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    };
    let query = read(document)?;
    let text = if variables.is_file() { read(variables)? } else { String::new() };
    if !text.trim().is_empty() {
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(_)) => {}
            _ => return Err(format!("{} is not a JSON object", variables.display())),
        }
    }
    Ok((query, text.trim_end().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(collection: &str, name: &str, query: &str, variables: &str) -> SavedOperation {
        SavedOperation {
            id: 0,
            collection: collection.into(),
            name: name.into(),
            query: query.into(),
            variables: variables.into(),
            saved_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_folder_written_reads_back_the_same_operations() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let operations = [
            saved("", "Users", "# all of them\n{ paginatedUsers(first: 50) { count } }\n", ""),
            saved("Reports/HR", "Leavers", "query Leavers($first: Int) { a }", "{\"first\": 10}"),
            saved("Reports", "Zoë's ünïcode", "{ b }", ""),
        ];
        assert_eq!(write_all(&operations, dir.path()).expect("written"), 3);
        assert!(dir.path().join("Reports/HR/Leavers.graphql").is_file());
        let (read, problems) = read_all(dir.path()).expect("read");
        assert!(problems.is_empty(), "{problems:?}");
        let got: Vec<(&str, &str, &str)> =
            read.iter().map(|op| (op.collection.as_str(), op.name.as_str(), op.query.as_str())).collect();
        assert_eq!(
            got,
            [
                ("", "Users", operations[0].query.as_str()),
                ("Reports", "Zoë's ünïcode", "{ b }"),
                ("Reports/HR", "Leavers", "query Leavers($first: Int) { a }"),
            ]
        );
        let variables: serde_json::Value = serde_json::from_str(&read[2].variables).expect("JSON");
        assert_eq!(variables, serde_json::json!({"first": 10}));
    }

    #[test]
    fn unreadable_files_are_named_and_the_rest_read() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("Good.graphql"), "{ a }").expect("written");
        std::fs::write(dir.path().join("Bad.graphql"), "{ b }").expect("written");
        std::fs::write(dir.path().join("Bad.variables.json"), "[1, 2]").expect("written");
        std::fs::write(dir.path().join("notes.txt"), "not an operation").expect("written");
        let (read, problems) = read_all(dir.path()).expect("read");
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].name, "Good");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("Bad.graphql was skipped") && problems[0].contains("not a JSON object"));
        assert!(read_all(&dir.path().join("missing")).expect_err("no folder").contains("is not a folder"));
    }

    #[test]
    fn names_become_file_names_any_system_takes() {
        assert_eq!(file_name("a/b:c?"), "a_b_c_");
        assert_eq!(file_name(" .. "), "operation");
        assert_eq!(file_name("Users 2026"), "Users 2026");
    }
}
