//! What a person reads first of an object in a list: its title (or the title of what it points
//! to: an enrollment's offer and the offer's training), its dates, its state, a percentage, an
//! expiry — found by the fields' types and the shape of the objects around them.

use apollo_compiler::Schema;
use apollo_compiler::schema::ExtendedType;
use serde_json::Value;

use super::{is_composite, is_deprecated, is_leaf, no_required_args, object_fields, plain};

/// A path of fields from a row's object (`["offer", "title"]`).
pub type Path = Vec<String>;

/// How objects of one type are shown as rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Display {
    /// Its own key fields (`id`, `ref`), to act on it.
    pub keys: Vec<String>,
    /// The titles to show, the closest first: its own, then of what it points to.
    pub titles: Vec<Path>,
    /// Its state: an enum field, with the enum's values (to offer a change).
    pub state: Option<(Path, String, Vec<String>)>,
    /// A percentage (0–100, or 0–1 when a Float named like a ratio).
    pub percent: Option<Path>,
    /// Dates, in the schema's order (its own, then of what it points to).
    pub dates: Vec<Path>,
    /// A date after which it no longer holds (a certificate's expiry).
    pub expires: Option<Path>,
}

/// How deep titles and dates are looked for in what an object points to.
const DEPTH: usize = 3;

/// Fields that name an object.
fn is_title(name: &str) -> bool {
    matches!(plain(name).as_str(), "title" | "name" | "label" | "displayname" | "subject")
}

/// Scalars that name a related thing beside the object's own fields (`offerName`, `courseTitle`),
/// not a person's name parts or another system's.
fn is_named_title(name: &str) -> bool {
    let name = plain(name);
    let stem = name.strip_suffix("title").or_else(|| name.strip_suffix("name")).or_else(|| name.strip_suffix("label"));
    let people = ["user", "first", "last", "middle", "nick", "given", "family", "full", "file", "host", "type"];
    stem.is_some_and(|stem| !stem.is_empty() && !people.iter().any(|p| stem.starts_with(p)))
}

/// Whether a scalar field holds a moment: its type names a date or a time, or its name ends like
/// `createdAt`, `hiredOn`, `dueDate`.
fn is_date(schema: &Schema, name: &str, type_name: &str) -> bool {
    let ty = type_name.to_ascii_lowercase();
    let is_scalar = matches!(schema.types.get(type_name), Some(ExtendedType::Scalar(_)));
    is_scalar && (ty.contains("date") || ty.contains("time") || name.ends_with("At") || name.ends_with("On"))
        || (type_name == "String" && (name.ends_with("At") || name.ends_with("Date")))
}

fn is_expiry(name: &str) -> bool {
    let name = plain(name);
    name.contains("expir") || name.contains("validuntil") || name.contains("validto")
}

fn is_percent(name: &str, type_name: &str) -> bool {
    let name = plain(name);
    matches!(type_name, "Int" | "Float")
        && (name.contains("percent") || name.contains("progress") || name.contains("completion") || name == "ratio")
}

impl Display {
    /// How objects of `type_name` are shown; `user_type` (the person the card is about) is not
    /// followed.
    pub fn of(schema: &Schema, type_name: &str, user_type: &str) -> Display {
        let mut display = Display::default();
        display.walk(schema, type_name, user_type, &mut Vec::new(), 0);
        display
    }

    fn walk(&mut self, schema: &Schema, type_name: &str, user_type: &str, at: &mut Path, depth: usize) {
        let Some(fields) = object_fields(schema, type_name) else { return };
        let usable = fields.into_iter().filter(|f| no_required_args(f) && !is_deprecated(f));
        let mut pointed = Vec::new();
        let mut named = Vec::new();
        for f in usable {
            let name = f.name.to_string();
            let ty = f.ty.inner_named_type().as_str();
            let path = || at.iter().cloned().chain([name.clone()]).collect::<Path>();
            if is_leaf(schema, ty) && !f.ty.is_list() {
                if depth == 0 && matches!(name.as_str(), "id" | "ref") {
                    self.keys.push(name.clone());
                } else if is_title(&name) && matches!(ty, "String") {
                    self.titles.push(path());
                } else if is_named_title(&name) && matches!(ty, "String") {
                    named.push(path());
                } else if let Some(ExtendedType::Enum(values)) = schema.types.get(ty) {
                    if self.state.is_none() && depth == 0 {
                        let values = values.values.keys().map(|v| v.to_string()).collect();
                        self.state = Some((path(), ty.to_owned(), values));
                    }
                } else if depth == 0 && is_percent(&name, ty) {
                    self.percent.get_or_insert_with(path);
                } else if is_date(schema, &name, ty) {
                    if depth == 0 && is_expiry(&name) {
                        self.expires.get_or_insert_with(path);
                    } else if !matches!(plain(&name).as_str(), "updatedat" | "modifiedat") || depth == 0 {
                        self.dates.push(path());
                    }
                }
            } else if is_composite(schema, ty) && !f.ty.is_list() && ty != user_type && depth + 1 < DEPTH {
                pointed.push((name, ty.to_owned()));
            }
        }
        // Its own `…Name`/`…Title` scalars after its title, before what it points to.
        self.titles.extend(named);
        // What it points to, after its own fields (so that its own title comes first).
        for (name, ty) in pointed {
            at.push(name);
            self.walk(schema, &ty, user_type, at, depth + 1);
            at.pop();
        }
    }

    /// The selection that reads every path (`{ id ref status offer { title startsAt } }`).
    pub fn selection(&self) -> String {
        let mut paths: Vec<&Path> = Vec::new();
        let keys: Vec<Path> = self.keys.iter().map(|k| vec![k.clone()]).collect();
        paths.extend(keys.iter());
        paths.extend(self.titles.iter());
        paths.extend(self.state.iter().map(|(path, _, _)| path));
        paths.extend(self.percent.iter());
        paths.extend(self.dates.iter());
        paths.extend(self.expires.iter());
        selection_of(&paths)
    }

    /// Whether there is anything to show.
    pub fn is_empty(&self) -> bool {
        self.titles.is_empty() && self.state.is_none() && self.percent.is_none() && self.dates.is_empty()
    }
}

/// `{ a b { c } }` for the paths `a`, `b.c`.
fn selection_of(paths: &[&Path]) -> String {
    let mut heads: Vec<(&str, Vec<Path>)> = Vec::new();
    for path in paths {
        let Some((head, rest)) = path.split_first() else { continue };
        match heads.iter_mut().find(|(name, _)| *name == head.as_str()) {
            Some((_, tails)) => tails.push(rest.to_vec()),
            None => heads.push((head.as_str(), vec![rest.to_vec()])),
        }
    }
    let parts: Vec<String> = heads
        .into_iter()
        .map(|(head, tails)| {
            let deeper: Vec<&Path> = tails.iter().filter(|t| !t.is_empty()).collect();
            if deeper.is_empty() { head.to_owned() } else { format!("{head} {}", selection_of(&deeper)) }
        })
        .collect();
    format!("{{ {} }}", parts.join(" "))
}

/// The value at `path` in `value`, when it is there and not null.
pub fn at<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, key| v.get(key)).filter(|v| !v.is_null())
}
