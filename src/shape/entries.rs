//! Key–value entries a user carries — extra fields, custom attributes, metadata — read from the
//! shape of the schema: a mutation's input takes a list of small input objects, each a key and a
//! value (`extraFields: [{ categoryRef, value }]`, `metadata: [{ key, value }]`), and the user's
//! type lists them back (`extraFields { category { ref } value }`, `metadata { key value }`).
//! Where the key names an object the service lists at its root (`paginatedExtraCategories`), that
//! list says which keys exist, so that a spreadsheet's `Department` column can set the entry
//! whose key is `department` as if it were a field of its own.

use apollo_compiler::Schema;

use super::{field, input_fields, is_composite, is_leaf, is_text, items, no_required_args, object_fields, plain};

/// One list of entries: how it is set and read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entries {
    /// The input field that takes the list (`extraFields`).
    pub input: String,
    /// The entry input's field naming the key (`categoryRef`).
    pub key_input: String,
    /// The entry input's field holding the value (`value`).
    pub value_input: String,
    /// The user type's field listing the entries (`extraFields`).
    pub output: String,
    /// Where an entry's key is, read from the user (`["category", "ref"]`, `["key"]`).
    pub key_path: Vec<String>,
    /// The entry's field holding its value, read from the user (`value`).
    pub value_output: String,
    /// Where the keys that exist are listed, when the key names an object of the service's.
    pub keys: Option<KeyList>,
}

/// A root field listing the objects an entry's key names (`paginatedExtraCategories`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyList {
    /// The root query field.
    pub field: String,
    /// Whether it is a connection (`edges { node }`) rather than a list.
    pub connection: bool,
    /// The object's field holding the key (`ref`).
    pub key: String,
    /// The object's field naming it for people (`name`, `title`), when it has one.
    pub name: Option<String>,
    /// The object's list of the values it allows (`allowedValues`), when it has one.
    pub allowed: Option<String>,
}

impl Entries {
    /// `{ category { ref } value }`: the selection reading an entry back.
    pub fn selection(&self) -> String {
        let mut key = String::new();
        for (i, step) in self.key_path.iter().enumerate() {
            key.push_str(step);
            if i + 1 < self.key_path.len() {
                key.push_str(" { ");
            }
        }
        key.push_str(&" }".repeat(self.key_path.len().saturating_sub(1)));
        format!("{{ {key} {} }}", self.value_output)
    }

    /// `{ paginatedExtraCategories { edges { node { ref name allowedValues } } } }`: the query
    /// listing the keys, when there is a list of them.
    pub fn keys_query(&self) -> Option<String> {
        let list = self.keys.as_ref()?;
        let mut node = list.key.clone();
        for extra in [&list.name, &list.allowed].into_iter().flatten() {
            node.push(' ');
            node.push_str(extra);
        }
        Some(if list.connection {
            format!("query {{ {} {{ edges {{ node {{ {node} }} }} }} }}", list.field)
        } else {
            format!("query {{ {} {{ {node} }} }}", list.field)
        })
    }
}

/// The entry lists `input_type` (a mutation's input of user fields) takes and `user_type` lists
/// back, in the input's order.
pub fn entries(schema: &Schema, user_type: &str, input_type: &str) -> Vec<Entries> {
    let mut found = Vec::new();
    for list in input_fields(schema, input_type).unwrap_or_default() {
        if !list.ty.is_list() {
            continue;
        }
        let entry = list.ty.inner_named_type().as_str();
        let Some(entry_fields) = input_fields(schema, entry) else { continue };
        let value_input = entry_fields
            .iter()
            .find(|f| plain(&f.name).ends_with("value") && !f.ty.is_list() && is_leaf(schema, f.ty.inner_named_type()));
        let key_input = entry_fields.iter().find(|f| {
            f.ty.is_non_null() && is_text(&f.ty) && Some(f.name.as_str()) != value_input.map(|v| v.name.as_str()) && {
                let p = plain(&f.name);
                ["ref", "key", "id", "code", "name"].iter().any(|end| p.ends_with(end))
            }
        });
        let (Some(value_input), Some(key_input)) = (value_input, key_input) else { continue };
        // The user's field of the same name lists the entries back.
        let Some(output) = object_fields(schema, user_type)
            .unwrap_or_default()
            .into_iter()
            .find(|f| plain(&f.name) == plain(&list.name) && f.ty.is_list() && no_required_args(f))
        else {
            continue;
        };
        let item = output.ty.inner_named_type().as_str();
        if !is_composite(schema, item) {
            continue;
        }
        let Some(value_output) = object_fields(schema, item)
            .unwrap_or_default()
            .into_iter()
            .find(|f| plain(&f.name) == plain(&value_input.name) && is_leaf(schema, f.ty.inner_named_type()))
        else {
            continue;
        };
        let Some((key_path, keys)) = key_read_back(schema, item, &key_input.name) else { continue };
        found.push(Entries {
            input: list.name.to_string(),
            key_input: key_input.name.to_string(),
            value_input: value_input.name.to_string(),
            output: output.name.to_string(),
            key_path,
            value_output: value_output.name.to_string(),
            keys,
        });
    }
    found
}

/// How an entry of type `item` gives back the key its input names `key_input`: a leaf of the same
/// name (`key`), or an object's key field (`categoryRef` → `category { ref }`), with the root list
/// of those objects.
fn key_read_back(schema: &Schema, item: &str, key_input: &str) -> Option<(Vec<String>, Option<KeyList>)> {
    let fields = object_fields(schema, item)?;
    if let Some(own) =
        fields.iter().find(|f| plain(&f.name) == plain(key_input) && is_leaf(schema, f.ty.inner_named_type()))
    {
        return Some((vec![own.name.to_string()], None));
    }
    // `categoryRef`: the field `category` of an object type, and that type's `ref`.
    let wanted = plain(key_input);
    for object in fields.iter().filter(|f| !f.ty.is_list() && is_composite(schema, f.ty.inner_named_type())) {
        let Some(rest) = wanted.strip_prefix(&plain(&object.name)) else { continue };
        let named = object.ty.inner_named_type().as_str();
        let Some(key) = field_plainly(schema, named, if rest.is_empty() { "ref" } else { rest }) else { continue };
        return Some((vec![object.name.to_string(), key.clone()], key_list(schema, named, &key)));
    }
    None
}

/// The field of `type_name` whose plain name is `wanted`, when it is a leaf.
fn field_plainly(schema: &Schema, type_name: &str, wanted: &str) -> Option<String> {
    object_fields(schema, type_name)?
        .into_iter()
        .find(|f| plain(&f.name) == wanted && is_leaf(schema, f.ty.inner_named_type()))
        .map(|f| f.name.to_string())
}

/// The root query field listing every `type_name` (no argument required), with the fields that
/// name an object and list its allowed values.
fn key_list(schema: &Schema, type_name: &str, key: &str) -> Option<KeyList> {
    let query = schema.root_operation(apollo_compiler::ast::OperationType::Query)?;
    let root = object_fields(schema, query)?
        .into_iter()
        .filter(|f| no_required_args(f))
        .find(|f| items(schema, f).is_some_and(|(node, _)| node == type_name))?;
    let (_, connection) = items(schema, root)?;
    let fields = object_fields(schema, type_name)?;
    let name = ["name", "title", "label"]
        .iter()
        .find_map(|n| fields.iter().find(|f| plain(&f.name) == *n && f.ty.inner_named_type() == "String"))
        .map(|f| f.name.to_string());
    let allowed = fields
        .iter()
        .find(|f| {
            let p = plain(&f.name);
            f.ty.is_list()
                && f.ty.inner_named_type() == "String"
                && (p.contains("allowed") || p.contains("choices") || p.contains("options"))
        })
        .map(|f| f.name.to_string());
    field(schema, type_name, key)?;
    Some(KeyList { field: root.name.to_string(), connection, key: key.to_owned(), name, allowed })
}
