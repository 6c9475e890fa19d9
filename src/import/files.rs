//! The files an import writes, owner-only (they hold personal data): the plan (CSV or XLSX),
//! the results (the input file's rows with their outcome) and the undo file (an import that
//! reverts the applied changes).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::mapping::{EMPTY_CELL, NULL_CELL};
use super::plan::{Action, PlannedRow, text};
use super::read;
use super::target::Target;
use crate::store::{JournalRow, RowState};

/// Creates (or empties) `path` readable by its owner only (0600 on Unix).
pub fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    crate::platform::private::create_truncated(path)
}

/// A cell a spreadsheet will not run as a formula (orgql's reader takes the `'` off again).
fn safe(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{cell}") } else { cell.to_owned() }
}

fn is_xlsx(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("xlsx"))
}

/// The plan's columns.
const PLAN_HEADER: [&str; 5] = ["row", "ref", "action", "changes", "reason"];

fn plan_cells(row: &PlannedRow) -> [String; 5] {
    let number = if row.row == 0 { String::new() } else { row.row.to_string() };
    [number, row.key.clone(), row.action.word().to_owned(), row.describe_changes(), row.reason.clone()]
}

/// Writes the plan to `path`: an Excel workbook when it is named `….xlsx`, else CSV.
pub fn write_plan(path: &Path, rows: &[PlannedRow]) -> Result<(), String> {
    let mut writer = PlanWriter::create(path)?;
    rows.iter().try_for_each(|row| writer.write(row))?;
    writer.finish()
}

/// A plan written row by row as it is made: an Excel workbook (rust_xlsxwriter's constant-memory
/// mode) when the file is named `….xlsx`, else CSV.
pub struct PlanWriter {
    path: std::path::PathBuf,
    to: PlanTo,
    rows: u32,
}

enum PlanTo {
    // Both boxed: a CSV writer holds its buffers inline, a workbook its sheets.
    Csv(Box<csv::Writer<std::io::BufWriter<std::fs::File>>>),
    Xlsx(Box<rust_xlsxwriter::Workbook>),
}

impl PlanWriter {
    /// Starts the plan at `path` (readable by its owner only), with its header.
    pub fn create(path: &Path) -> Result<PlanWriter, String> {
        let mut writer = if is_xlsx(path) {
            let mut book = rust_xlsxwriter::Workbook::new();
            book.add_worksheet_with_constant_memory().map_err(|e| plan_error(path, &e))?;
            PlanWriter { path: path.to_path_buf(), to: PlanTo::Xlsx(Box::new(book)), rows: 0 }
        } else {
            let file = create_private(path).map_err(|e| plan_error(path, &e))?;
            let csv = crate::table::csv::for_people(std::io::BufWriter::new(file), false)
                .map_err(|e| plan_error(path, &e))?;
            PlanWriter { path: path.to_path_buf(), to: PlanTo::Csv(Box::new(csv)), rows: 0 }
        };
        writer.write_cells(&PLAN_HEADER.map(str::to_owned))?;
        Ok(writer)
    }

    /// Adds a row.
    pub fn write(&mut self, row: &PlannedRow) -> Result<(), String> {
        self.write_cells(&plan_cells(row))
    }

    fn write_cells(&mut self, cells: &[String; 5]) -> Result<(), String> {
        let path = &self.path;
        match &mut self.to {
            PlanTo::Csv(csv) => csv.write_record(cells.iter().map(|c| safe(c))).map_err(|e| plan_error(path, &e))?,
            PlanTo::Xlsx(book) => {
                let sheet = book.worksheet_from_index(0).map_err(|e| plan_error(path, &e))?;
                for (c, cell) in cells.iter().enumerate() {
                    sheet.write_string(self.rows, c as u16, cell).map_err(|e| plan_error(path, &e))?;
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Ends the file.
    pub fn finish(self) -> Result<(), String> {
        let path = &self.path;
        match self.to {
            PlanTo::Csv(mut csv) => csv.flush().map_err(|e| plan_error(path, &e)),
            PlanTo::Xlsx(mut book) => {
                // Written to a private file first: rust_xlsxwriter creates files with the umask's mode.
                let file = create_private(path).map_err(|e| plan_error(path, &e))?;
                book.save_to_writer(file).map_err(|e| plan_error(path, &e))
            }
        }
    }
}

fn plan_error(path: &Path, e: &dyn std::fmt::Display) -> String {
    format!("cannot write the plan to {}: {e}; check the folder", path.display())
}

/// Writes the results: every row of the input file (read again from `input`), its columns as
/// they were, then `outcome`, `message`, `field` and `created_id`. `outcomes` is the journal,
/// `plan` the planned rows (for unchanged and invalid ones).
pub fn write_results(
    path: &Path,
    input: &Path,
    sheet: Option<&str>,
    plan: &[PlannedRow],
    journal: &[JournalRow],
) -> Result<(), String> {
    let fail =
        |e: &dyn std::fmt::Display| format!("cannot write the results to {}: {e}; check the folder", path.display());
    let mut table = read::open(input, sheet).map_err(|e| e.to_string())?;
    let by_row: HashMap<u64, &JournalRow> = journal.iter().filter(|j| j.row > 0).map(|j| (j.row, j)).collect();
    let planned: HashMap<u64, &PlannedRow> = plan.iter().filter(|p| p.row > 0).map(|p| (p.row, p)).collect();
    let file = create_private(path).map_err(|e| fail(&e))?;
    let mut csv = crate::table::csv::for_people(std::io::BufWriter::new(file), true).map_err(|e| fail(&e))?;
    let mut header: Vec<String> = table.header.clone();
    header.extend(["outcome", "message", "field", "created_id"].map(str::to_owned));
    csv.write_record(header.iter().map(|c| safe(c))).map_err(|e| fail(&e))?;
    let width = table.header.len();
    while let Some(record) = table.next_record() {
        let record = record.map_err(|e| e.to_string())?;
        let (outcome, message, field, created) = match (by_row.get(&record.row), planned.get(&record.row)) {
            (Some(j), _) => {
                let outcome = match (j.state, planned.get(&record.row).map(|p| p.action)) {
                    (RowState::Done, Some(a)) if !a.writes() => a.word().to_owned(),
                    (_, Some(Action::Invalid)) => "invalid".to_owned(),
                    (RowState::Done, Some(Action::Create)) => "created".to_owned(),
                    (RowState::Done, Some(Action::Update)) => "updated".to_owned(),
                    (RowState::Done, Some(Action::Archive)) => "archived".to_owned(),
                    (RowState::Done, Some(Action::Activate)) => "activated".to_owned(),
                    (RowState::Done, Some(a)) => a.word().to_owned(),
                    (state, _) => state.word().to_owned(),
                };
                (outcome, j.message.clone(), j.field.clone(), j.created_id.clone())
            }
            (None, Some(p)) => (p.action.word().to_owned(), p.reason.clone(), String::new(), String::new()),
            (None, None) => ("not planned".to_owned(), String::new(), String::new(), String::new()),
        };
        let mut cells: Vec<String> = record.cells.into_iter().take(width).collect();
        cells.resize(width, String::new());
        cells.extend([outcome, message, field, created]);
        csv.write_record(cells.iter().map(|c| safe(c))).map_err(|e| fail(&e))?;
    }
    csv.flush().map_err(|e| fail(&e))
}

/// Writes the undo file: for every applied row, the previous values in the import's own format
/// (`ref` and the fields changed), so that importing it reverts the change — a created user is
/// archived, an archived one activated. When rows changed group memberships, a `groups` column
/// gives each row's groups as they were (empty for a created user: out of the groups it was
/// put in), which the import compares as sets. Returns how many rows it holds.
pub fn write_undo(path: &Path, target: &Target, journal: &[JournalRow]) -> Result<u64, String> {
    let fail =
        |e: &dyn std::fmt::Display| format!("cannot write the undo file to {}: {e}; check the folder", path.display());
    let applied: Vec<PlannedRow> = journal
        .iter()
        .filter(|j| matches!(j.state, RowState::Done | RowState::Failed))
        .filter_map(|j| Some((j.state, serde_json::from_str::<PlannedRow>(&j.plan).ok()?)))
        // A failed row is given back only when it was applied with fields the service moved
        // unasked (`moved`): those are in its changes with their old values.
        .filter(|(state, p)| p.action.writes() && (*state == RowState::Done || p.moved))
        .map(|(_, p)| p)
        .collect();
    let active = target.active_field.clone();
    let mut columns: Vec<String> = Vec::new();
    for field in &target.fields {
        let used =
            applied.iter().any(|p| p.action != Action::Create && p.changes.iter().any(|c| c.field == field.name))
                || (Some(&field.name) == active.as_ref() && !applied.is_empty());
        if used && field.name != "ref" {
            columns.push(field.name.clone());
        }
    }
    // Groups only when every row that is not a creation says what they were: an empty cell would
    // take a user out of every group.
    let groups = applied.iter().any(|p| !p.add_groups.is_empty() || !p.remove_groups.is_empty())
        && applied.iter().all(|p| p.action == Action::Create || p.groups_before.is_some());
    let file = create_private(path).map_err(|e| fail(&e))?;
    let mut csv = crate::table::csv::for_people(std::io::BufWriter::new(file), false).map_err(|e| fail(&e))?;
    let mut header = vec!["ref".to_owned()];
    header.extend(columns.iter().cloned());
    if groups {
        header.push("groups".to_owned());
    }
    csv.write_record(&header).map_err(|e| fail(&e))?;
    for row in &applied {
        let mut cells = vec![safe(&row.key)];
        for column in &columns {
            let old = row.changes.iter().find(|c| &c.field == column).map(|c| &c.old);
            let is_active = Some(column) == active.as_ref();
            // A created user is archived; a value that was null or empty is said so explicitly
            // (an empty cell changes nothing); an unchanged value is left alone.
            let cell = match (row.action, old) {
                (Action::Create, _) if is_active => "false".to_owned(),
                (Action::Create, _) => String::new(),
                (_, Some(Value::Null)) => NULL_CELL.to_owned(),
                (_, Some(Value::String(s))) if s.is_empty() => EMPTY_CELL.to_owned(),
                (_, Some(old)) => text(old),
                (_, None) if is_active => row.active_before.unwrap_or(true).to_string(),
                (_, None) => String::new(),
            };
            cells.push(safe(&cell));
        }
        if groups {
            cells.push(safe(&row.groups_before.as_deref().unwrap_or_default().join("; ")));
        }
        csv.write_record(&cells).map_err(|e| fail(&e))?;
    }
    csv.flush().map_err(|e| fail(&e))?;
    Ok(applied.len() as u64)
}

/// The SHA-256 of a file's bytes, hex.
pub fn digest(path: &Path) -> Result<String, String> {
    use sha2::Digest;
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n =
            std::io::Read::read(&mut file, &mut buffer).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// `users.csv` → `users.results.csv` beside it (`what`: plan, results, undo).
pub fn beside(file: &Path, what: &str) -> std::path::PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "import".to_owned());
    file.with_file_name(format!("{stem}.{what}.csv"))
}
