//! Resuming an interrupted CSV export. Beside `F.partial`, `F.partial.resume` (JSON, owner-only,
//! never a secret) records what the export was — query, operation, variables, connection, format
//! and options — and where its rows stop: the walk's cursor after the last whole page, the rows
//! and the partial's length. `orgql export … --resume` (and the app's Resume) checks that the
//! export asked for is that one and that the partial is as it was left, copies its rows and
//! walks on from the cursor: the file is byte for byte the one an uninterrupted run writes.
//!
//! Only CSV files resume: a workbook is a zip archive written whole at the end (its partial is a
//! complete workbook of the rows so far), and a pipe cannot be read back.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::{Continue, Reached};
use crate::table::{Format, Partial};

/// The version of the resume file this orgql writes and reads.
const VERSION: u32 = 1;

/// What an export is: everything a resume must match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportJob {
    /// The query as the user gave it.
    pub query: String,
    /// The operation, when the document has several.
    pub operation: Option<String>,
    /// The variables (a JSON object), if any.
    pub variables: Option<Value>,
    /// The connection: a profile's name or a base URL.
    pub connection: String,
    /// CSV or workbook.
    pub format: Format,
    /// A UTF-8 byte order mark first.
    pub bom: bool,
    /// No formula guard.
    pub raw: bool,
}

impl ExportJob {
    /// What differs between the export that stopped (`self`) and `asked`, in words.
    fn differences(&self, asked: &ExportJob) -> Vec<String> {
        let mut differences = Vec::new();
        if self.query.trim() != asked.query.trim() {
            differences.push("of another query".to_owned());
        }
        if self.operation != asked.operation {
            differences.push(match &self.operation {
                Some(name) => format!("of the operation {name}"),
                None => "without an operation name".to_owned(),
            });
        }
        if self.variables.as_ref().filter(|v| !v.is_null()) != asked.variables.as_ref().filter(|v| !v.is_null()) {
            differences.push("with other variables".to_owned());
        }
        if self.connection != asked.connection {
            differences.push(format!("from {}", self.connection));
        }
        if self.format != asked.format {
            differences.push(format!("to {}", self.format.label()));
        }
        if self.bom != asked.bom {
            differences.push(if self.bom { "with --bom" } else { "without --bom" }.to_owned());
        }
        if self.raw != asked.raw {
            differences.push(if self.raw { "with --raw" } else { "without --raw" }.to_owned());
        }
        differences
    }
}

/// The contents of `F.partial.resume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ResumePoint {
    version: u32,
    job: ExportJob,
    /// The cursor the next page starts after (`None`: the first page).
    cursor: Option<String>,
    /// Rows in the partial, the header not counted.
    rows: u64,
    /// The partial's length when the export stopped.
    bytes: u64,
    /// When it stopped (RFC 3339), for people reading the file.
    stopped_at: String,
}

/// `F.partial`.
pub fn partial_path(out: &Path) -> PathBuf {
    with_suffix(out, ".partial")
}

/// `F.partial.resume`.
pub fn point_path(out: &Path) -> PathBuf {
    with_suffix(out, ".partial.resume")
}

fn with_suffix(out: &Path, suffix: &str) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Records, beside the `.partial` an interrupted export of `job` kept, where its rows stop. Says
/// nothing and writes nothing when there is no such partial (a workbook, a pipe, nothing kept);
/// an error is one sentence (the partial itself is kept either way).
pub fn record(out: &Path, job: &ExportJob, reached: &Reached, partial: &Partial) -> Result<bool, String> {
    crate::platform::ui_thread::check("export resume point");
    let expected = partial_path(out);
    if partial.path.as_deref() != Some(expected.as_path()) {
        return Ok(false);
    }
    let point_file = point_path(out);
    let failed = |e: &dyn std::fmt::Display| format!("{} could not be written ({e})", point_file.display());
    let bytes = std::fs::metadata(&expected).map_err(|e| failed(&e))?.len();
    let point = ResumePoint {
        version: VERSION,
        job: job.clone(),
        cursor: reached.cursor.clone(),
        rows: partial.rows,
        bytes,
        stopped_at: chrono::Local::now().to_rfc3339(),
    };
    let json = serde_json::to_vec_pretty(&point).map_err(|e| failed(&e))?;
    let folder = match point_file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Owner-only (tempfile creates 0600), complete or not there at all (renamed into place).
    let mut temp = tempfile::Builder::new().prefix(".orgql-resume.").tempfile_in(folder).map_err(|e| failed(&e))?;
    temp.write_all(&json).and_then(|()| temp.as_file().sync_all()).map_err(|e| failed(&e))?;
    temp.persist(&point_file).map_err(|e| failed(&e.error))?;
    Ok(true)
}

/// Where the interrupted export of `out` stopped, checked against `asked` (the same query,
/// variables, connection, format and options) and against its partial (there, and as long as
/// it was left). Every refusal is one sentence saying what to do.
pub fn load(out: &Path, asked: &ExportJob) -> Result<Continue, String> {
    crate::platform::ui_thread::check("export resume point");
    let point_file = point_path(out);
    let again = "export again without resuming";
    let text = match std::fs::read(&point_file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "there is no interrupted export of {} to resume ({} is missing); {again}",
                out.display(),
                point_file.display()
            ));
        }
        Err(e) => return Err(format!("{} cannot be read ({e}); {again}", point_file.display())),
    };
    let point: ResumePoint = serde_json::from_slice(&text)
        .map_err(|e| format!("{} is not a resume point orgql can read ({e}); {again}", point_file.display()))?;
    if point.version != VERSION {
        return Err(format!(
            "{} was written by another version of orgql (format {}); {again}",
            point_file.display(),
            point.version
        ));
    }
    let differences = point.job.differences(asked);
    if !differences.is_empty() {
        return Err(format!(
            "the interrupted export of {} was {}; resume it with the same query, connection and options, or {again}",
            out.display(),
            differences.join(", ")
        ));
    }
    let partial = partial_path(out);
    match std::fs::metadata(&partial) {
        Ok(meta) if meta.len() == point.bytes => {}
        Ok(meta) => {
            return Err(format!(
                "{} changed after the export stopped ({} bytes, {} expected); {again}",
                partial.display(),
                meta.len(),
                point.bytes
            ));
        }
        Err(e) => return Err(format!("{} cannot be read ({e}); {again}", partial.display())),
    }
    Ok(Continue { partial, rows: point.rows, cursor: point.cursor })
}

/// Forgets the interrupted export of `out` once `out` is complete: its resume point, and with
/// `partial` (a resumed export) its partial too, whose rows are now in `out`.
pub fn forget(out: &Path, partial: bool) {
    crate::platform::ui_thread::check("export resume point");
    let mut files = vec![point_path(out)];
    if partial {
        files.push(partial_path(out));
    }
    for file in files {
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("{} could not be removed: {e}", file.display()),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use serde_json::json;

    use super::*;

    fn job() -> ExportJob {
        ExportJob {
            query: "{ paginatedUsers { edges { node { ref } } } }".into(),
            operation: None,
            variables: Some(json!({ "first": 50 })),
            connection: "acme".into(),
            format: Format::Csv,
            bom: true,
            raw: false,
        }
    }

    #[test]
    fn a_recorded_point_resumes_the_same_export_only() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("users.csv");
        std::fs::write(partial_path(&out), "\u{feff}ref\r\nu1\r\nu2\r\n").expect("a partial");
        let partial = Partial { path: Some(partial_path(&out)), rows: 2 };
        let reached = Reached { cursor: Some("Y3Vyc29yOjI=".into()) };
        assert!(record(&out, &job(), &reached, &partial).expect("recorded"));
        let mode = std::fs::metadata(point_path(&out)).expect("the point").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "owner only");

        let resumed = load(&out, &job()).expect("the same export resumes");
        assert_eq!(resumed, Continue { partial: partial_path(&out), rows: 2, cursor: reached.cursor.clone() });

        let other = ExportJob { connection: "sandbox".into(), raw: true, ..job() };
        let refused = load(&out, &other).expect_err("another connection");
        assert!(refused.contains("was from acme, without --raw"), "{refused}");
        let other = ExportJob { query: "{ paginatedUsers { edges { node { id } } } }".into(), ..job() };
        assert!(load(&out, &other).expect_err("another query").contains("of another query"));

        // A partial that grew or shrank since is not continued.
        std::fs::write(partial_path(&out), "ref\r\n").expect("a changed partial");
        let refused = load(&out, &job()).expect_err("a changed partial");
        assert!(refused.contains("changed after the export stopped"), "{refused}");

        forget(&out, true);
        assert!(!point_path(&out).exists() && !partial_path(&out).exists());
        let refused = load(&out, &job()).expect_err("nothing to resume");
        assert!(refused.starts_with("there is no interrupted export of"), "{refused}");
    }

    #[test]
    fn nothing_is_recorded_without_a_partial_beside_the_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("users.csv");
        let in_place = Partial { path: Some(out.clone()), rows: 3 };
        assert!(!record(&out, &job(), &Reached { cursor: None }, &in_place).expect("nothing to do"));
        assert!(!point_path(&out).exists());
    }
}
