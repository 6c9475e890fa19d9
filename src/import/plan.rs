//! The plan: every row of the file classified against the service's current data — create,
//! update (which fields, old → new), archive, activate, unchanged or invalid (why) — plus, when
//! asked, the users missing from the file to archive. Pure data: made without I/O from the rows
//! ([`Wanted`]) and the current users, written to a file and to the journal, applied later.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use tokio_util::sync::CancellationToken;

use super::Prepared;
use super::keys::{Fingerprint, Keys};
use super::mapping::{Mapping, Use, convert, entry_field};
use super::read::{self, Record};
use super::target::Target;
use crate::table::thousands;

/// What is done with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A new user.
    Create,
    /// Changed fields of an existing user.
    Update,
    /// An active user archived (and any other change made first).
    Archive,
    /// An archived user made active (and any other change made first).
    Activate,
    /// Nothing to change.
    Unchanged,
    /// Not applied: see the reason.
    Invalid,
}

impl Action {
    /// Its word in files and messages.
    pub fn word(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Archive => "archive",
            Action::Activate => "activate",
            Action::Unchanged => "unchanged",
            Action::Invalid => "invalid",
        }
    }

    /// Whether applying it sends anything.
    pub fn writes(self) -> bool {
        matches!(self, Action::Create | Action::Update | Action::Archive | Action::Activate)
    }
}

/// One field changed: its value on the service and in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The input field.
    pub field: String,
    /// Its current value (null for a new user).
    pub old: Value,
    /// Its value in the file.
    pub new: Value,
}

/// One row of the file, planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedRow {
    /// Its row number in the file (0 for a user missing from the file).
    pub row: u64,
    /// The user's key (ref).
    pub key: String,
    /// What is done.
    pub action: Action,
    /// The fields that change (for a create: every field given).
    pub changes: Vec<Change>,
    /// Groups (refs) to add the user to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add_groups: Vec<String>,
    /// Groups (refs) to remove the user from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_groups: Vec<String>,
    /// Why an invalid row is.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Whether the user was active before (an existing user, when the service says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_before: Option<bool>,
    /// The user's groups (refs) before, when the file lists groups and the row writes: what the
    /// undo file gives back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups_before: Option<Vec<String>>,
    /// Applied, but the service moved fields the row did not ask to change (a replace-style
    /// update clearing what was left out): they are among `changes` (old → what the service
    /// has), so that the undo file gives them back.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moved: bool,
    /// Cells of the row left empty where the service has a value: they leave it as it is
    /// (unless empty cells clear values, [`PlanOptions::empty_clears`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub empty_kept: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl PlannedRow {
    /// `name: Ann → Anna; isActive: true → false; groups: +sales −hr`.
    pub fn describe_changes(&self) -> String {
        let mut parts: Vec<String> = self
            .changes
            .iter()
            .map(|c| match self.action {
                Action::Create => format!("{}: {}", c.field, text(&c.new)),
                _ => format!("{}: {} → {}", c.field, shown(&c.old), shown(&c.new)),
            })
            .collect();
        if !self.add_groups.is_empty() || !self.remove_groups.is_empty() {
            let added = self.add_groups.iter().map(|g| format!("+{g}"));
            let removed = self.remove_groups.iter().map(|g| format!("−{g}"));
            parts.push(format!("groups: {}", added.chain(removed).collect::<Vec<_>>().join(" ")));
        }
        parts.join("; ")
    }

    /// The value the row gives `field`, if it changes it.
    pub fn new_value(&self, field: &str) -> Option<&Value> {
        self.changes.iter().find(|c| c.field == field).map(|c| &c.new)
    }
}

/// A value as a plan shows it beside another: as a cell shows it, and nothing (`null`, `""`, `[]`)
/// as `(empty)`, the cell that clears (`department: People → (empty)`).
fn shown(value: &Value) -> String {
    if crate::shape::is_cleared(value) { super::mapping::EMPTY_CELL.to_owned() } else { text(value) }
}

/// A value as a cell shows it: text without quotes, lists joined with `; `, null empty.
pub fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// A row as the file gives it, converted: its values by field, or why it is invalid.
#[derive(Debug, Clone, PartialEq)]
pub struct Wanted {
    /// Its row number.
    pub row: u64,
    /// Its key.
    pub key: String,
    /// The fields it gives, converted, in field order (a short list: a map's node would cost
    /// several hundred bytes a row, and a file may have a million rows).
    pub values: Vec<(String, Value)>,
    /// The groups it lists (by ref), when there is a groups column.
    pub groups: Option<BTreeSet<String>>,
    /// Why it cannot be applied, when it cannot.
    pub invalid: Option<String>,
    /// The fields whose cells are empty (booleans aside: an empty cell never archives), which
    /// leave the service's values as they are unless empty cells clear values.
    pub emptied: Vec<String>,
}

/// A record's key, trimmed (empty: it has none).
pub fn key_of<'a>(record: &'a Record, mapping: &Mapping) -> &'a str {
    record.cells.get(mapping.key_column()).map(|k| k.trim()).unwrap_or_default()
}

/// Converts one record by `mapping`.
pub fn wanted<'a>(record: &'a Record, mapping: &'a Mapping, target: &Target) -> Wanted {
    let key = key_of(record, mapping).to_owned();
    let mut values = Vec::new();
    let mut problems = Vec::new();
    if let Some(problem) = &record.problem {
        problems.push(problem.clone());
    }
    if key.is_empty() {
        problems.push(format!("the key column '{}' is empty", mapping.header[mapping.key_column()]));
    }
    let mut groups = None;
    let mut emptied = Vec::new();
    let mut empty = |field: &super::target::Field, cell: &str| {
        let is_empty = cell.trim().is_empty();
        if is_empty && field.kind != super::target::Kind::Bool {
            emptied.push(field.name.clone());
        }
        is_empty
    };
    for (i, used) in mapping.uses.iter().enumerate() {
        let cell = record.cells.get(i).map(String::as_str).unwrap_or("");
        match used {
            Use::Field(name) => {
                let Some(field) = target.field(name) else { continue };
                if empty(field, cell) {
                    continue;
                }
                match convert(field, cell) {
                    Ok(Some(value)) => values.push((name.clone(), value)),
                    Ok(None) => {}
                    Err(reason) => problems.push(reason),
                }
            }
            Use::Groups => {
                groups =
                    Some(cell.split([';', ',']).map(str::trim).filter(|g| !g.is_empty()).map(str::to_owned).collect());
            }
            // Read in pairs below.
            Use::EntryKeys(_) | Use::EntryValues(_) | Use::Key | Use::Unmapped => {}
        }
    }
    // A list of entries as an export writes it: its keys' cell and its values' cell.
    for (list, keys, given) in mapping.entry_pairs() {
        let cell = |i: usize| record.cells.get(i).map(String::as_str).unwrap_or("");
        let (keys, given) = (cell(keys), cell(given));
        let split = |cell: &'a str| -> Vec<&'a str> {
            if cell.trim().is_empty() { Vec::new() } else { cell.split(';').map(str::trim).collect() }
        };
        let (keys, given) = (split(keys), split(given));
        if keys.len() != given.len() && !given.is_empty() {
            problems.push(format!(
                "{list}: {} keys but {} values; give one value for each key",
                keys.len(),
                given.len()
            ));
            continue;
        }
        for (key, cell) in keys.iter().zip(given.iter().copied().chain(std::iter::repeat(""))) {
            let Some(field) = entry_field(target, list, key) else {
                problems.push(format!("{list}: the service has no '{key}' to set"));
                continue;
            };
            if empty(field, cell) {
                continue;
            }
            match convert(field, cell) {
                Ok(Some(value)) => values.push((field.name.clone(), value)),
                Ok(None) => {}
                Err(reason) => problems.push(reason),
            }
        }
    }
    values.sort_by(|(a, _), (b, _)| a.cmp(b));
    values.dedup_by(|(a, _), (b, _)| a == b);
    values.shrink_to_fit();
    // A field given a value by another column (a list's entry and its own column) is not empty.
    emptied.retain(|f| !values.iter().any(|(name, _)| name == f));
    emptied.sort();
    emptied.dedup();
    let invalid = (!problems.is_empty()).then(|| problems.join("; "));
    Wanted { row: record.row, key, values, groups, invalid, emptied }
}

/// A user as the service has it: its id and the fields the import compares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Current {
    /// Its id.
    pub id: String,
    /// Field values by the user type's field name.
    pub values: serde_json::Map<String, Value>,
    /// Its groups by ref, when read.
    pub groups: Option<BTreeSet<String>>,
}

impl Current {
    /// The user as the service answered it: `id`, `ref` (`key`) and the values read.
    pub fn as_value(&self, key: &str) -> Value {
        let mut object = self.values.clone();
        object.insert("id".to_owned(), Value::from(self.id.as_str()));
        object.entry("ref").or_insert_with(|| Value::from(key));
        Value::Object(object)
    }
}

/// A user of the service as the scan for `--archive-missing` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceUser {
    /// Its key.
    pub key: String,
    /// Whether it is active (true when the service does not say).
    pub active: bool,
    /// Its groups (refs), when the file lists groups.
    pub groups: Option<Vec<String>>,
}

/// Options of a plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanOptions {
    /// Archive the active users the file does not list.
    pub archive_missing: bool,
    /// The largest share of the service's active users that may be archived as missing (0.10).
    pub archive_share: f64,
    /// An empty cell clears the service's value (as `(empty)` does) instead of leaving it.
    pub empty_clears: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { archive_missing: false, archive_share: 0.10, empty_clears: false }
    }
}

/// Counts per action.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// To create.
    pub create: u64,
    /// To update.
    pub update: u64,
    /// To archive.
    pub archive: u64,
    /// To activate.
    pub activate: u64,
    /// Unchanged.
    pub unchanged: u64,
    /// Invalid.
    pub invalid: u64,
    /// Cells left empty where the service has a value, which leave it as it is.
    pub empty_kept: u64,
}

impl Counts {
    /// Counts `rows`.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a PlannedRow>) -> Counts {
        let mut c = Counts::default();
        rows.into_iter().for_each(|row| c.add(row));
        c
    }

    /// Counts one more row.
    pub fn add(&mut self, row: &PlannedRow) {
        *match row.action {
            Action::Create => &mut self.create,
            Action::Update => &mut self.update,
            Action::Archive => &mut self.archive,
            Action::Activate => &mut self.activate,
            Action::Unchanged => &mut self.unchanged,
            Action::Invalid => &mut self.invalid,
        } += 1;
        self.empty_kept += u64::from(row.empty_kept);
    }

    /// The line about the empty cells that leave values as they are, when there are any: `12
    /// empty cells leave their values as they are; write (empty) to clear, or choose *Empty
    /// cells clear values*` (`choose`: how to choose the other reading where this is said;
    /// `None`: it is chosen, and the cells left are of fields that cannot be emptied).
    pub fn empty_note(&self, choose: Option<&str>) -> Option<String> {
        let n = self.empty_kept;
        (n > 0).then(|| {
            let leave = if n == 1 { "leaves its value as it is" } else { "leave their values as they are" };
            let cells = counted(n, "empty cell", "empty cells");
            match choose {
                Some(choose) => format!("{cells} {leave}; write (empty) to clear, or {choose}"),
                None => format!("{cells} {leave}: the service requires a value there"),
            }
        })
    }

    /// `300 to create, 40 to update, 12 to archive, 1,200 unchanged, 3 invalid`.
    pub fn summary(&self) -> String {
        let mut parts = vec![
            format!("{} to create", thousands(self.create)),
            format!("{} to update", thousands(self.update)),
            format!("{} to archive", thousands(self.archive)),
        ];
        if self.activate > 0 {
            parts.push(format!("{} to activate", thousands(self.activate)));
        }
        parts.push(format!("{} unchanged", thousands(self.unchanged)));
        parts.push(format!("{} invalid", thousands(self.invalid)));
        parts.join(", ")
    }

    /// Rows that write.
    pub fn writes(&self) -> u64 {
        self.create + self.update + self.archive + self.activate
    }
}

/// `1 row`, `0 rows`, `1,200 rows`: a count with its noun, singular or plural.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{} {many}", thousands(n)) }
}

/// Rows handed on from the second read of the file at a time.
const CHUNK: usize = 512;

/// The second read of the file: every row converted and classified against `users` (the
/// service's, by key), in file order, handed to `send` a chunk at a time (`false`: stop). Refused
/// when the file is not what the first read saw.
pub fn classify_file(
    prepared: &Prepared,
    users: &HashMap<String, Current>,
    target: &Target,
    options: &PlanOptions,
    cancel: &CancellationToken,
    mut send: impl FnMut(Vec<PlannedRow>) -> bool,
) -> Result<(), String> {
    let changed = || format!("{} changed while it was being planned; plan it again", prepared.path.display());
    let mut table = read::open(&prepared.path, prepared.sheet.as_deref()).map_err(|e| e.to_string())?;
    if table.header != prepared.mapping.header {
        return Err(changed());
    }
    let mut fingerprint = Fingerprint::default();
    let mut chunk = Vec::with_capacity(CHUNK);
    while let Some(record) = table.next_record() {
        let record = record.map_err(|e| e.to_string())?;
        fingerprint.add(record.row, key_of(&record, &prepared.mapping));
        let mut wanted = wanted(&record, &prepared.mapping, target);
        if let Some(reason) = prepared.keys.duplicate(&wanted.key) {
            wanted.invalid = Some(match wanted.invalid.take() {
                Some(other) => format!("{reason}; {other}"),
                None => reason,
            });
        }
        let mut row = classify(&wanted, users.get(&wanted.key), target, options.empty_clears);
        if table.drops_tabs() {
            ignore_lost_tabs(&mut row);
        }
        chunk.push(row);
        if chunk.len() == CHUNK
            && (cancel.is_cancelled() || !send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK))))
        {
            return Ok(());
        }
    }
    if fingerprint.finish() != prepared.keys.fingerprint() {
        return Err(changed());
    }
    if !chunk.is_empty() {
        send(chunk);
    }
    Ok(())
}

/// Classifies one row against the user the service has under its key (`None`: no such user);
/// `empty_clears`: the row's empty cells clear the user's values ([`PlanOptions::empty_clears`]).
pub fn classify(wanted: &Wanted, current: Option<&Current>, target: &Target, empty_clears: bool) -> PlannedRow {
    let mut row = PlannedRow {
        row: wanted.row,
        key: wanted.key.clone(),
        action: Action::Unchanged,
        changes: Vec::new(),
        add_groups: Vec::new(),
        remove_groups: Vec::new(),
        reason: String::new(),
        active_before: None,
        groups_before: None,
        moved: false,
        empty_kept: 0,
    };
    if let Some(reason) = &wanted.invalid {
        row.action = Action::Invalid;
        row.reason = reason.clone();
        return row;
    }
    let active = target.active_field.as_deref();
    match current {
        None => {
            if target.create.is_none() {
                row.action = Action::Invalid;
                row.reason = "no user has this ref and the service has no mutation that creates users".to_owned();
                return row;
            }
            let missing: Vec<&str> = target
                .fields
                .iter()
                .filter(|f| f.required && f.name != "ref" && !wanted.values.iter().any(|(name, _)| *name == f.name))
                .map(|f| f.name.as_str())
                .collect();
            if !missing.is_empty() {
                row.action = Action::Invalid;
                row.reason = format!("a new user needs {}: the row leaves it empty", missing.join(", "));
                return row;
            }
            row.action = Action::Create;
            row.changes = wanted
                .values
                .iter()
                .filter(|(f, _)| target.field(f).is_some_and(|f| f.on_create))
                .map(|(field, new)| Change { field: field.clone(), old: Value::Null, new: new.clone() })
                .collect();
            row.add_groups = wanted.groups.iter().flatten().cloned().collect();
        }
        Some(current) => {
            row.active_before = active.and_then(|a| current.values.get(a)).and_then(Value::as_bool);
            for (field, new) in &wanted.values {
                let old = current.values.get(field).cloned().unwrap_or(Value::Null);
                if !same(&old, new) {
                    row.changes.push(Change { field: field.clone(), old, new: new.clone() });
                }
            }
            // Empty cells where the service has a value: cleared as `(empty)` clears, when asked;
            // else left as they are, and counted to be said.
            for field in &wanted.emptied {
                let old = current.values.get(field).cloned().unwrap_or(Value::Null);
                if crate::shape::is_cleared(&old) {
                    continue;
                }
                // A field the service requires is never emptied by an empty cell.
                let clearable = target.field(field).filter(|f| !f.required);
                let cleared = clearable.and_then(|f| convert(f, super::mapping::EMPTY_CELL).ok().flatten());
                match cleared.filter(|_| empty_clears) {
                    Some(new) => row.changes.push(Change { field: field.clone(), old, new }),
                    None => row.empty_kept += 1,
                }
            }
            row.changes.sort_by(|a, b| a.field.cmp(&b.field));
            if let (Some(want), Some(have)) = (&wanted.groups, &current.groups) {
                row.add_groups = want.difference(have).cloned().collect();
                row.remove_groups = have.difference(want).cloned().collect();
                row.groups_before = Some(have.iter().cloned().collect());
            }
            let turns =
                active.and_then(|a| row.changes.iter().find(|c| c.field == a)).map(|c| c.new == Value::Bool(true));
            row.action = match turns {
                Some(false) => Action::Archive,
                Some(true) => Action::Activate,
                None if row.changes.is_empty() && row.add_groups.is_empty() && row.remove_groups.is_empty() => {
                    Action::Unchanged
                }
                None => Action::Update,
            };
            let cannot_update: Vec<&str> = row
                .changes
                .iter()
                .filter(|c| Some(c.field.as_str()) != active || target.archive.is_none())
                .filter(|c| !target.field(&c.field).is_some_and(|f| f.on_update))
                .map(|c| c.field.as_str())
                .collect();
            if !cannot_update.is_empty() && row.action != Action::Unchanged {
                row.action = Action::Invalid;
                row.reason = format!("the service's update cannot change {}", cannot_update.join(", "));
            }
            if !row.action.writes() {
                row.groups_before = None;
            }
        }
    }
    row
}

/// Takes back the changes of a row read from a file whose reader drops tab characters (ODS:
/// calamine skips `<text:tab/>`) that differ only by those tabs: the file did not ask for them.
pub fn ignore_lost_tabs(row: &mut PlannedRow) {
    if !matches!(row.action, Action::Update | Action::Archive | Action::Activate) {
        return;
    }
    row.changes.retain(|c| match (&c.old, &c.new) {
        (Value::String(old), Value::String(new)) => old.replace('\t', "") != *new,
        _ => true,
    });
    if row.action == Action::Update
        && row.changes.is_empty()
        && row.add_groups.is_empty()
        && row.remove_groups.is_empty()
    {
        row.action = Action::Unchanged;
        row.groups_before = None;
    }
}

/// Whether two values are the same for a comparison: lists as sets, numbers by value, text as
/// it is, and nothing as nothing — `null`, `""` and `[]` alike ([`crate::shape::is_cleared`]): a
/// clearing asked of a field the service holds empty (in its own way) changes nothing.
pub fn same(old: &Value, new: &Value) -> bool {
    if crate::shape::is_cleared(old) && crate::shape::is_cleared(new) {
        return true;
    }
    match (old, new) {
        (Value::Array(a), Value::Array(b)) => {
            let a: BTreeSet<String> = a.iter().map(text).collect();
            let b: BTreeSet<String> = b.iter().map(text).collect();
            a == b
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) if a != b => {
            // Dates: the same instant written two ways.
            match (chrono::DateTime::parse_from_rfc3339(a), chrono::DateTime::parse_from_rfc3339(b)) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            }
        }
        (a, b) => a == b,
    }
}

/// The users to archive because the file does not list them, refused (with the sentence) when
/// they are more than `options.archive_share` of the active users.
pub fn missing_to_archive(
    listed: &Keys,
    users: &[ServiceUser],
    options: &PlanOptions,
    active_field: &str,
) -> Result<Vec<PlannedRow>, String> {
    let active = users.iter().filter(|u| u.active).count();
    let missing: Vec<PlannedRow> = users
        .iter()
        .filter(|u| u.active && !listed.contains(&u.key))
        .map(|u| PlannedRow {
            row: 0,
            key: u.key.clone(),
            action: Action::Archive,
            changes: vec![Change { field: active_field.to_owned(), old: Value::Bool(true), new: Value::Bool(false) }],
            add_groups: Vec::new(),
            remove_groups: Vec::new(),
            reason: "not in the file".to_owned(),
            active_before: Some(true),
            groups_before: u.groups.clone(),
            moved: false,
            empty_kept: 0,
        })
        .collect();
    let limit = (active as f64 * options.archive_share).floor() as usize;
    if missing.len() > limit {
        return Err(format!(
            "--archive-missing would archive {} of {} active users ({:.0} %), more than the {:.0} % allowed; check that the file is complete, or raise the share with --archive-share",
            thousands(missing.len() as u64),
            thousands(active as u64),
            missing.len() as f64 * 100.0 / active.max(1) as f64,
            options.archive_share * 100.0
        ));
    }
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_people_say_them() {
        let c =
            Counts { create: 300, update: 40, archive: 12, activate: 0, unchanged: 1200, invalid: 3, empty_kept: 12 };
        assert_eq!(c.summary(), "300 to create, 40 to update, 12 to archive, 1,200 unchanged, 3 invalid");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(
            c.empty_note(Some("use --empty-clears")).as_deref(),
            Some("12 empty cells leave their values as they are; write (empty) to clear, or use --empty-clears")
        );
        let one = Counts { empty_kept: 1, ..Counts::default() };
        assert_eq!(
            one.empty_note(Some("use --empty-clears")).as_deref(),
            Some("1 empty cell leaves its value as it is; write (empty) to clear, or use --empty-clears")
        );
        assert_eq!(Counts::default().empty_note(Some("use --empty-clears")), None);
        assert_eq!(
            one.empty_note(None).as_deref(),
            Some("1 empty cell leaves its value as it is: the service requires a value there")
        );
    }

    #[test]
    fn lists_compare_as_sets_and_dates_as_instants() {
        assert!(same(&serde_json::json!(["A", "B"]), &serde_json::json!(["B", "A"])));
        assert!(same(&Value::from("2024-03-01T00:00:00Z"), &Value::from("2024-03-01T00:00:00+00:00")));
        assert!(!same(&Value::from("a"), &Value::from("b")));
        // Nothing is nothing, however a service stores it; a value is not nothing.
        assert!(same(&Value::Null, &Value::from("")) && same(&serde_json::json!([]), &Value::Null));
        assert!(!same(&Value::Null, &Value::from("People")) && !same(&Value::Null, &Value::Bool(false)));
        assert_eq!((counted(1, "row", "rows"), counted(1200, "row", "rows")), ("1 row".into(), "1,200 rows".into()));
    }

    #[test]
    fn a_truncated_file_cannot_archive_the_organisation() {
        let listed = |n: u64| {
            let mut keys = crate::import::KeysBuilder::default();
            (0..n).for_each(|i| keys.add(i + 2, &format!("u{i}")).unwrap());
            keys.finish()
        };
        let users: Vec<ServiceUser> =
            (0..100).map(|i| ServiceUser { key: format!("u{i}"), active: true, groups: None }).collect();
        let listed50 = listed(50);
        let err = missing_to_archive(&listed50, &users, &PlanOptions::default(), "isActive").unwrap_err();
        assert!(err.contains("50 of 100 active users (50 %)"), "{err}");
        assert_eq!(missing_to_archive(&listed(95), &users, &PlanOptions::default(), "isActive").unwrap().len(), 5);
    }
}
