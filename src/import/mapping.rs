//! Which column sets which user field, and how a cell becomes the field's value.
//!
//! Columns match fields by their names written plainly (`E-mail` → `email`, `Active` and
//! `Status` → `isActive`, `Is active` → `isActive`); the key column is `ref` unless another is
//! named; a column listing groups (`groups`, `groups.ref`) is compared as a set; a column named
//! like one of the user's entries (an extra field's category: `Department`) sets that entry
//! (`extraFields.department`, [`super::target::EntryKey`]). The user
//! overrides any match with `COLUMN=field` (`COLUMN=` leaves a column out), and the mapping is
//! remembered for files with the same header ([`crate::store::Store::save_import_mapping`]).

use std::collections::BTreeMap;

use serde_json::{Number, Value};

use super::target::{Field, Kind, Target};

/// What a column is used for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "use", content = "field", rename_all = "snake_case")]
pub enum Use {
    /// The key that finds the user (its `ref`).
    Key,
    /// A user field.
    Field(String),
    /// The user's groups, by ref, compared as a set.
    Groups,
    /// The keys of a list of entries (input field named), as an export writes them
    /// (`extraFields.category.ref`: `department; location`); paired with its values' column.
    EntryKeys(String),
    /// The values of a list of entries, as an export writes them (`extraFields.value`:
    /// `Sales; Berlin`), in the order of its keys' column.
    EntryValues(String),
    /// Nothing: listed as unmapped.
    Unmapped,
}

/// The use of every column of a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// The header, as read.
    pub header: Vec<String>,
    /// Each column's use, in the header's order.
    pub uses: Vec<Use>,
}

/// A name in lower case without spaces, dashes, dots or underscores.
pub fn plain(name: &str) -> String {
    name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The key that remembers the mapping of files with `header`.
pub fn header_key(header: &[String]) -> String {
    header.iter().map(|h| plain(h)).collect::<Vec<_>>().join("\u{1f}")
}

impl Mapping {
    /// Maps `header` onto `target`'s fields: `key` names the key column (default: the column
    /// named `ref`), `remembered` is what was saved for this header, and `overrides` are the
    /// user's `COLUMN=field` (they win). Refused when a column or field named does not exist or
    /// there is no key column.
    pub fn build(
        header: &[String],
        target: &Target,
        key: Option<&str>,
        remembered: Option<&BTreeMap<String, Use>>,
        overrides: &[(String, String)],
    ) -> Result<Mapping, String> {
        let column_of = |name: &str| {
            header.iter().position(|h| h == name).or_else(|| header.iter().position(|h| plain(h) == plain(name)))
        };
        let mut uses: Vec<Use> = header.iter().map(|h| automatic(h, target)).collect();
        if let Some(remembered) = remembered {
            for (column, used) in remembered {
                if let Some(i) = column_of(column) {
                    uses[i] = used.clone();
                }
            }
        }
        if let Some(key) = key {
            let i = column_of(key).ok_or_else(|| {
                format!("--key {key}: the file has no such column; its columns are: {}", header.join(", "))
            })?;
            for u in uses.iter_mut().filter(|u| **u == Use::Key) {
                *u = Use::Unmapped;
            }
            uses[i] = Use::Key;
        }
        for (column, field) in overrides {
            let i = column_of(column).ok_or_else(|| {
                format!(
                    "--map {column}={field}: the file has no column '{column}'; its columns are: {}",
                    header.join(", ")
                )
            })?;
            uses[i] = match field.as_str() {
                "" => Use::Unmapped,
                "ref" | "key" => Use::Key,
                "groups" => Use::Groups,
                name => {
                    if let Some(pair) = entry_pair(name, target) {
                        uses[i] = pair;
                        continue;
                    }
                    let found = target.fields.iter().find(|f| f.name == name || plain(&f.name) == plain(name));
                    let found = found.or_else(|| target.fields.iter().find(|f| names_entry(f, &plain(name))));
                    let field = found.ok_or_else(|| {
                        let names: Vec<&str> = target.fields.iter().map(|f| f.name.as_str()).collect();
                        format!(
                            "--map {column}={field}: the service has no user field '{field}' to set; it has: {}",
                            names.join(", ")
                        )
                    })?;
                    Use::Field(field.name.clone())
                }
            };
        }
        // One column a field: the first wins, later ones are listed as unmapped.
        let mut seen: Vec<Use> = Vec::new();
        for u in &mut uses {
            if *u != Use::Unmapped {
                if seen.contains(u) {
                    *u = Use::Unmapped;
                } else {
                    seen.push(u.clone());
                }
            }
        }
        // A list's keys without its values (or the other way round) say nothing.
        let alone: Vec<Use> = seen
            .iter()
            .filter_map(|u| match u {
                Use::EntryKeys(list) if !seen.contains(&Use::EntryValues(list.clone())) => Some(u.clone()),
                Use::EntryValues(list) if !seen.contains(&Use::EntryKeys(list.clone())) => Some(u.clone()),
                _ => None,
            })
            .collect();
        for u in uses.iter_mut().filter(|u| alone.contains(u)) {
            *u = Use::Unmapped;
        }
        if !uses.contains(&Use::Key) {
            return Err(format!(
                "the file has no 'ref' column to find users by; name the key column with --key COLUMN (its columns are: {})",
                header.join(", ")
            ));
        }
        Ok(Mapping { header: header.to_vec(), uses })
    }

    /// The key column.
    pub fn key_column(&self) -> usize {
        self.uses.iter().position(|u| *u == Use::Key).unwrap_or(0)
    }

    /// The columns that map to nothing.
    pub fn unmapped(&self) -> Vec<&str> {
        self.header.iter().zip(&self.uses).filter(|(_, u)| **u == Use::Unmapped).map(|(h, _)| h.as_str()).collect()
    }

    /// The fields set, with their columns.
    pub fn fields(&self) -> impl Iterator<Item = (usize, &str)> {
        self.uses.iter().enumerate().filter_map(|(i, u)| match u {
            Use::Field(name) => Some((i, name.as_str())),
            _ => None,
        })
    }

    /// The lists of entries whose keys and values columns the file has.
    pub fn entry_lists(&self) -> impl Iterator<Item = &str> {
        self.entry_pairs().map(|(list, _, _)| list)
    }

    /// Each list of entries with its keys' column and its values' column (a mapping has both or
    /// neither).
    pub fn entry_pairs(&self) -> impl Iterator<Item = (&str, usize, usize)> {
        self.uses.iter().enumerate().filter_map(|(keys, u)| {
            let Use::EntryKeys(list) = u else { return None };
            let values = self.uses.iter().position(|v| matches!(v, Use::EntryValues(l) if l == list))?;
            Some((list.as_str(), keys, values))
        })
    }

    /// The groups column, if any.
    pub fn groups_column(&self) -> Option<usize> {
        self.uses.iter().position(|u| *u == Use::Groups)
    }

    /// `Column → field` for each column, as printed and remembered.
    pub fn remembered(&self) -> BTreeMap<String, Use> {
        self.header.iter().cloned().zip(self.uses.iter().cloned()).collect()
    }

    /// `E-mail → email, Active → isActive; not mapped: Notes`.
    pub fn describe(&self) -> String {
        let mapped: Vec<String> = self
            .header
            .iter()
            .zip(&self.uses)
            .filter_map(|(h, u)| match u {
                Use::Key => Some(format!("{h} → key")),
                Use::Field(f) => Some(format!("{h} → {f}")),
                Use::Groups => Some(format!("{h} → groups")),
                Use::EntryKeys(list) => Some(format!("{h} → {list}[keys]")),
                Use::EntryValues(list) => Some(format!("{h} → {list}[values]")),
                Use::Unmapped => None,
            })
            .collect();
        let unmapped = self.unmapped();
        if unmapped.is_empty() {
            mapped.join(", ")
        } else {
            format!("{}; not mapped: {}", mapped.join(", "), unmapped.join(", "))
        }
    }
}

/// The use a column named `name` has without being told.
fn automatic(name: &str, target: &Target) -> Use {
    let p = plain(name);
    match p.as_str() {
        "ref" | "userref" | "reference" => return Use::Key,
        "groups" | "groupsref" | "grouprefs" | "group" | "groupref" => return Use::Groups,
        _ => {}
    }
    let wanted = match p.as_str() {
        "active" | "status" | "enabled" => target.active_field.clone().unwrap_or_else(|| "isActive".to_owned()),
        "mail" | "emailaddress" => "email".to_owned(),
        "fullname" | "displayname" => "name".to_owned(),
        _ => p.clone(),
    };
    // The two columns an export writes a list of entries as.
    for list in target
        .entries
        .iter()
        .filter(|l| target.fields.iter().any(|f| f.entry.as_ref().is_some_and(|e| e.list == l.shape.input)))
    {
        let shape = &list.shape;
        let mut keys = vec![plain(&format!("{}{}", shape.output, shape.key_path.concat()))];
        if let (Some(name), [object, _]) =
            (shape.keys.as_ref().and_then(|k| k.name.as_ref()), shape.key_path.as_slice())
        {
            keys.push(plain(&format!("{}{object}{name}", shape.output)));
        }
        if keys.contains(&p) {
            return Use::EntryKeys(shape.input.clone());
        }
        if p == plain(&format!("{}{}", shape.output, shape.value_output)) {
            return Use::EntryValues(shape.input.clone());
        }
    }
    let own = target
        .fields
        .iter()
        .find(|f| plain(&f.name) == plain(&wanted) || plain(&f.name) == format!("is{}", plain(&wanted)));
    // Then an entry (an extra field) by its key or its name: `Department`, `Cost center`.
    own.or_else(|| target.fields.iter().find(|f| names_entry(f, &p)))
        .map_or(Use::Unmapped, |f| Use::Field(f.name.clone()))
}

/// `extraFields[keys]` and `extraFields[values]`: a list of entries' columns, as a mapping says them.
fn entry_pair(name: &str, target: &Target) -> Option<Use> {
    let (list, part) = name.strip_suffix(']')?.split_once('[')?;
    target.entries.iter().find(|l| l.shape.input == list)?;
    match part {
        "keys" => Some(Use::EntryKeys(list.to_owned())),
        "values" => Some(Use::EntryValues(list.to_owned())),
        _ => None,
    }
}

/// The entry field of `list` whose key (or name) `key` is, among those the service listed.
pub fn entry_field<'t>(target: &'t Target, list: &str, key: &str) -> Option<&'t Field> {
    let named = |f: &&Field| f.entry.as_ref().is_some_and(|e| e.list == list);
    target
        .fields
        .iter()
        .filter(named)
        .find(|f| f.entry.as_ref().is_some_and(|e| e.key == key))
        .or_else(|| target.fields.iter().filter(named).find(|f| names_entry(f, &plain(key))))
}

/// Whether `plain_name` names the entry `field` is (by its key or its label).
fn names_entry(field: &Field, plain_name: &str) -> bool {
    field
        .entry
        .as_ref()
        .is_some_and(|e| plain(&e.key) == plain_name || e.label.as_deref().is_some_and(|l| plain(l) == plain_name))
}

/// The cell that clears a field to empty text (null where the field is not text).
pub const EMPTY_CELL: &str = "(empty)";
/// The cell that clears a field to null (empty text where the service does not take null).
pub const NULL_CELL: &str = "(null)";

/// A cell's value for `field`: `Ok(None)` when the cell says nothing (an empty cell never
/// changes anything, booleans included), `Err` with the reason when it does not convert.
/// Clearing is said explicitly: [`EMPTY_CELL`] and [`NULL_CELL`] (what an undo file writes for a
/// value that was empty or null before).
pub fn convert(field: &Field, cell: &str) -> Result<Option<Value>, String> {
    // Text is sent as written (a name may end in a space); everything else is read trimmed.
    let raw = cell;
    let cell = cell.trim();
    let name = &field.name;
    if cell.is_empty() {
        return Ok(None);
    }
    let text = field.kind == Kind::Text;
    if cell.eq_ignore_ascii_case(EMPTY_CELL) {
        return match (text, field.nullable) {
            (true, _) => Ok(Some(Value::String(String::new()))),
            (false, true) => Ok(Some(Value::Null)),
            (false, false) => Err(format!("{name}: the service cannot leave it empty; give a value")),
        };
    }
    if cell.eq_ignore_ascii_case(NULL_CELL) {
        return match (field.nullable, text) {
            (true, _) => Ok(Some(Value::Null)),
            (false, true) => Ok(Some(Value::String(String::new()))),
            (false, false) => Err(format!("{name}: the service cannot leave it empty; give a value")),
        };
    }
    let value = match &field.kind {
        Kind::Bool => match plain(cell).as_str() {
            "true" | "yes" | "y" | "1" | "x" | "active" | "enabled" | "oui" | "ja" => Value::Bool(true),
            "false" | "no" | "n" | "0" | "inactive" | "archived" | "disabled" | "left" | "non" | "nein" => {
                Value::Bool(false)
            }
            _ => {
                return Err(format!(
                    "{name}: '{cell}' is not yes or no (write true/false, yes/no, 1/0 or x; an empty cell changes nothing)"
                ));
            }
        },
        Kind::Int => cell
            .parse::<i64>()
            .map(|n| Value::Number(n.into()))
            .map_err(|_| format!("{name}: '{cell}' is not a whole number"))?,
        Kind::Float => cell
            .replace(',', ".")
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("{name}: '{cell}' is not a number"))?,
        Kind::Enum(values) => Value::String(enum_value(name, values, cell)?),
        Kind::EnumList(values) => Value::Array(
            cell.split([';', ','])
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| enum_value(name, values, v).map(Value::String))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Date => Value::String(date(cell).ok_or_else(|| {
            format!("{name}: '{cell}' is not a date (write 2024-03-01, 01/03/2024 or 2024-03-01T09:00:00Z)")
        })?),
        Kind::Text => {
            if field.email && !looks_like_email(cell) {
                return Err(format!("{name}: '{cell}' is not a valid e-mail address"));
            }
            Value::String(if field.email { cell.to_owned() } else { raw.to_owned() })
        }
    };
    Ok(Some(value))
}

fn enum_value(field: &str, values: &[String], cell: &str) -> Result<String, String> {
    values
        .iter()
        .find(|v| v.as_str() == cell || plain(v) == plain(cell) || plain(&crate::shape::enum_words(v)) == plain(cell))
        .cloned()
        .ok_or_else(|| format!("{field}: '{cell}' is not one of {}", values.join(", ")))
}

/// An address the service would take: one `@`, something before it, a dotted domain after, no
/// spaces (what the sandbox checks, and most services at least).
pub fn looks_like_email(text: &str) -> bool {
    match text.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !text.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

/// A date as RFC 3339 (`2024-03-01T00:00:00Z` from `2024-03-01` or `01/03/2024`, day first).
fn date(cell: &str) -> Option<String> {
    if let Ok(dt) = chrono::DateTime::parse_from_rfc3339(cell) {
        return Some(dt.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    }
    if let Ok(dt) = chrono::NaiveDateTime::parse_from_str(cell, "%Y-%m-%dT%H:%M:%S") {
        return Some(dt.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    }
    ["%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y"].iter().find_map(|format| {
        chrono::NaiveDate::parse_from_str(cell, format)
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|dt| dt.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str, kind: Kind) -> Field {
        Field {
            name: name.into(),
            kind,
            required: false,
            on_create: true,
            on_update: true,
            email: name == "email",
            nullable: true,
            entry: None,
        }
    }

    #[test]
    fn cells_convert_by_the_fields_type_or_say_why_not() {
        let active = field("isActive", Kind::Bool);
        for (cell, value) in [("yes", true), ("x", true), ("1", true), ("No", false), ("inactive", false)] {
            assert_eq!(convert(&active, cell), Ok(Some(Value::Bool(value))), "{cell}");
        }
        // An empty cell never changes anything, a boolean included: no archive by omission.
        assert_eq!(convert(&active, ""), Ok(None));
        assert_eq!(convert(&active, "  "), Ok(None));
        assert!(convert(&active, "maybe").unwrap_err().contains("not yes or no"));
        let roles = field("roles", Kind::EnumList(vec!["LEARNER".into(), "MANAGER".into()]));
        assert_eq!(convert(&roles, "Learner; manager"), Ok(Some(serde_json::json!(["LEARNER", "MANAGER"]))));
        assert!(convert(&roles, "BOSS").unwrap_err().contains("'BOSS' is not one of LEARNER, MANAGER"));
        let email = field("email", Kind::Text);
        assert!(convert(&email, "not-an-address").unwrap_err().contains("not a valid e-mail address"));
        assert_eq!(convert(&email, ""), Ok(None));
        assert_eq!(convert(&field("n", Kind::Int), "00123"), Ok(Some(Value::from(123))));
        assert_eq!(convert(&field("d", Kind::Date), "01/03/2024"), Ok(Some(Value::from("2024-03-01T00:00:00Z"))));
    }

    #[test]
    fn clearing_is_said_explicitly() {
        let department = field("department", Kind::Text);
        assert_eq!(convert(&department, "(empty)"), Ok(Some(Value::from(""))));
        assert_eq!(convert(&department, "(null)"), Ok(Some(Value::Null)));
        assert_eq!(convert(&department, " (NULL) "), Ok(Some(Value::Null)));
        let required = Field { nullable: false, ..field("name", Kind::Text) };
        assert_eq!(convert(&required, "(null)"), Ok(Some(Value::from(""))), "null where the input takes it, else \"\"");
        let active = field("isActive", Kind::Bool);
        assert_eq!(convert(&active, "(empty)"), Ok(Some(Value::Null)));
        let strict = Field { nullable: false, ..field("isActive", Kind::Bool) };
        assert!(convert(&strict, "(empty)").unwrap_err().contains("cannot leave it empty"));
    }
}

#[cfg(test)]
mod entry_tests {
    use super::*;
    use crate::import::target::KeyInfo;

    /// The sandbox's extra fields, once the service has listed its categories, are columns: by
    /// the category's ref or name, by hand (`Dept=department`), and remembered like any field.
    #[test]
    fn columns_named_like_an_extra_category_set_that_entry() {
        let sdl = crate::sandbox::schema::sdl();
        let schema = apollo_compiler::Schema::parse_and_validate(sdl.as_str(), "sandbox.graphql").expect("valid");
        let mut target = Target::of(&schema).expect("user mutations");
        let header: Vec<String> = ["ref", "Department", "Cost center", "Dept", "Notes"].map(str::to_owned).to_vec();
        let before = Mapping::build(&header, &target, None, None, &[]).expect("a mapping");
        assert_eq!(before.unmapped(), ["Department", "Cost center", "Dept", "Notes"], "no category listed yet");
        let department = KeyInfo {
            key: "department".into(),
            label: Some("Department".into()),
            allowed: vec!["Sales".into(), "HR".into()],
        };
        let cost = KeyInfo { key: "cost-center".into(), label: Some("Cost center".into()), allowed: Vec::new() };
        target.add_entry_keys("extraFields", vec![department, cost]);
        let field = target.field("extraFields.department").expect("the entry as a field");
        assert_eq!(field.kind, Kind::Enum(vec!["Sales".into(), "HR".into()]));
        assert!(field.on_create && field.on_update);
        let mapping =
            Mapping::build(&header, &target, None, None, &[("Dept".into(), "department".into())]).expect("a mapping");
        assert_eq!(
            mapping.uses,
            [
                Use::Key,
                Use::Field("extraFields.department".into()),
                Use::Field("extraFields.cost-center".into()),
                // One column a field: the first wins.
                Use::Unmapped,
                Use::Unmapped,
            ]
        );
        assert_eq!(convert(field, "hr"), Ok(Some(Value::from("HR"))));
        assert!(convert(field, "Nowhere").unwrap_err().contains("'Nowhere' is not one of Sales, HR"));
    }

    /// An export writes a user's extra fields as two cells, the categories and the values; read
    /// back, they set each entry — by the category's name or ref — and say what does not fit.
    #[test]
    fn an_exports_two_list_columns_set_each_entry() {
        let sdl = crate::sandbox::schema::sdl();
        let schema = apollo_compiler::Schema::parse_and_validate(sdl.as_str(), "sandbox.graphql").expect("valid");
        let mut target = Target::of(&schema).expect("user mutations");
        let info = |key: &str, label: &str| KeyInfo { key: key.into(), label: Some(label.into()), allowed: Vec::new() };
        target
            .add_entry_keys("extraFields", vec![info("department", "Department"), info("cost-center", "Cost center")]);
        let header: Vec<String> = ["ref", "extraFields.category.name", "extraFields.value"].map(str::to_owned).to_vec();
        let mapping = Mapping::build(&header, &target, None, None, &[]).expect("a mapping");
        assert_eq!(
            mapping.uses,
            [Use::Key, Use::EntryKeys("extraFields".into()), Use::EntryValues("extraFields".into())]
        );
        assert_eq!(
            mapping.describe(),
            "ref → key, extraFields.category.name → extraFields[keys], extraFields.value → extraFields[values]"
        );
        let row = |keys: &str, values: &str| crate::import::read::Record {
            row: 2,
            cells: vec!["u1".into(), keys.into(), values.into()],
            problem: None,
        };
        let wanted = crate::import::plan::wanted(&row("Department; cost-center", "HR; "), &mapping, &target);
        assert_eq!(wanted.invalid, None);
        assert_eq!(
            wanted.values,
            [("extraFields.department".to_owned(), Value::from("HR"))],
            "an empty value says nothing"
        );
        let wanted = crate::import::plan::wanted(&row("Department; Shoe size", "HR; 42"), &mapping, &target);
        assert_eq!(wanted.invalid.as_deref(), Some("extraFields: the service has no 'Shoe size' to set"));
        let wanted = crate::import::plan::wanted(&row("Department; Cost center", "HR"), &mapping, &target);
        assert!(wanted.invalid.is_some_and(|w| w.contains("2 keys but 1 values")));
        // Only the keys, without the values' column: nothing is read from it.
        let alone = Mapping::build(&header[..2], &target, None, None, &[]).expect("a mapping");
        assert_eq!(alone.unmapped(), ["extraFields.category.name"]);
    }
}
