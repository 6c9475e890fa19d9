//! Which column sets which user field, and how a cell becomes the field's value.
//!
//! Columns match fields by their names written plainly (`E-mail` → `email`, `Active` and
//! `Status` → `isActive`, `Is active` → `isActive`); the key column is `ref` unless another is
//! named; a column listing groups (`groups`, `groups.ref`) is compared as a set. The user
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
                    let found = target.fields.iter().find(|f| f.name == name || plain(&f.name) == plain(name));
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
    target
        .fields
        .iter()
        .find(|f| plain(&f.name) == plain(&wanted) || plain(&f.name) == format!("is{}", plain(&wanted)))
        .map_or(Use::Unmapped, |f| Use::Field(f.name.clone()))
}

/// A cell's value for `field`: `Ok(None)` when the cell says nothing (empty, for anything but a
/// boolean), `Err` with the reason when it does not convert.
pub fn convert(field: &Field, cell: &str) -> Result<Option<Value>, String> {
    // Text is sent as written (a name may end in a space); everything else is read trimmed.
    let raw = cell;
    let cell = cell.trim();
    let name = &field.name;
    if cell.is_empty() && field.kind != Kind::Bool {
        return Ok(None);
    }
    let value = match &field.kind {
        Kind::Bool => match plain(cell).as_str() {
            "true" | "yes" | "y" | "1" | "x" | "active" | "enabled" | "oui" | "ja" => Value::Bool(true),
            "false" | "no" | "n" | "0" | "" | "inactive" | "archived" | "disabled" | "left" | "non" | "nein" => {
                Value::Bool(false)
            }
            _ => return Err(format!("{name}: '{cell}' is not yes or no (write true/false, yes/no, 1/0, or x/empty)")),
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
        Field { name: name.into(), kind, required: false, on_create: true, on_update: true, email: name == "email" }
    }

    #[test]
    fn cells_convert_by_the_fields_type_or_say_why_not() {
        let active = field("isActive", Kind::Bool);
        for (cell, value) in [("yes", true), ("x", true), ("1", true), ("", false), ("No", false), ("inactive", false)]
        {
            assert_eq!(convert(&active, cell), Ok(Some(Value::Bool(value))), "{cell}");
        }
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
}
