//! What an import can do on a service, read from its schema by shape ([`crate::shape`]): the
//! mutations that create, update, archive and activate a user and change a group's members, and
//! the user fields a file's columns can set, each with the type its values are converted to.

use apollo_compiler::Schema;
use apollo_compiler::ast::Type;
use apollo_compiler::schema::ExtendedType;

use crate::shape::{self, Action, Mutation, Supply};

/// How a field's values are written in a cell and sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `Boolean`: true/false, yes/no, 1/0, x/empty.
    Bool,
    /// `Int`.
    Int,
    /// `Float`.
    Float,
    /// An enum: by value (`MANAGER`) or label (`Manager`).
    Enum(Vec<String>),
    /// A list of an enum's values, separated by `;` or `,`.
    EnumList(Vec<String>),
    /// A date or date-time scalar (its name says `Date`): `2024-03-01`, `01/03/2024`, RFC 3339.
    Date,
    /// Text (`String`, `ID` and other scalars), sent as written.
    Text,
}

/// A user field a column can set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The input field's name (`isActive`).
    pub name: String,
    /// How its values are read.
    pub kind: Kind,
    /// The create input requires it (non-null without a default).
    pub required: bool,
    /// The create mutation takes it.
    pub on_create: bool,
    /// The update mutation takes it.
    pub on_update: bool,
    /// The service checks it as an e-mail address (`email`, or a scalar named so).
    pub email: bool,
    /// An input taking it takes null (what `(null)` and `(empty)` cells set: [`crate::import::mapping::convert`]).
    pub nullable: bool,
    /// The entry it is, when it is one key of a list of entries (an extra field: `Department` is
    /// the entry `department` of `extraFields`) rather than a field of the user's own.
    pub entry: Option<EntryKey>,
}

/// One key of a list of entries, set by a column as a field of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryKey {
    /// The input field taking the list (`extraFields`).
    pub list: String,
    /// The key (`department`).
    pub key: String,
    /// What the service calls it for people (`Department`), when it says.
    pub label: Option<String>,
}

/// A key of a list of entries as the service lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key (`department`).
    pub key: String,
    /// Its name for people (`Department`).
    pub label: Option<String>,
    /// The values it allows (empty: any text).
    pub allowed: Vec<String>,
}

/// A list of entries the import's mutations take, and which of them take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryList {
    /// How it is set and read back.
    pub shape: shape::Entries,
    /// The create mutation takes it.
    pub on_create: bool,
    /// The update mutation takes it.
    pub on_update: bool,
}

/// The mutations of an import and the fields they set.
#[derive(Debug, Clone)]
pub struct Target {
    /// The user's type.
    pub user_type: String,
    /// Creates a user from an input object.
    pub create: Option<Mutation>,
    /// Creates many users in one request, when the service has such a mutation (a list of the
    /// create mutation's input).
    pub create_batch: Option<shape::Batch>,
    /// Changes a user: the key and an input object (or fields as arguments).
    pub update: Option<Mutation>,
    /// How the update takes the record when it replaces it whole (a Django form mutation:
    /// required fields, named by its relay id, a field left out cleared); `None` when it patches.
    pub replace: Option<shape::Replace>,
    /// Archives a user by key.
    pub archive: Option<Mutation>,
    /// Activates an archived user by key.
    pub activate: Option<Mutation>,
    /// Adds users to a group.
    pub add_to_group: Option<Mutation>,
    /// Removes users from a group.
    pub remove_from_group: Option<Mutation>,
    /// Every field a column can set, create's first then update's.
    pub fields: Vec<Field>,
    /// The user type's field telling whether the user is active (`isActive`).
    pub active_field: Option<String>,
    /// The lists of entries (extra fields) the create and update mutations take; their keys
    /// become fields once the service has said which exist ([`Target::add_entry_keys`]).
    pub entries: Vec<EntryList>,
    /// What could not be read of the service while the target was made (a list's keys), to say.
    pub notes: Vec<String>,
}

/// Why a schema cannot be imported into.
pub fn no_mutations() -> String {
    "the service's schema has no mutation that creates or updates a user; imports need one".to_owned()
}

impl Target {
    /// Reads `schema`; `None` when it has no user type or no create/update mutation.
    pub fn of(schema: &Schema) -> Option<Target> {
        let user_type = shape::user_type(schema)?;
        let related = shape::related(schema, &user_type);
        let found = shape::mutations(schema, &user_type, &related);
        let pick = |action: Action| found.iter().find(|m| m.action == action).cloned();
        let (create, update) = (pick(Action::CreateUser), pick(Action::UpdateUser));
        if create.is_none() && update.is_none() {
            return None;
        }
        let mut fields: Vec<Field> = Vec::new();
        let mut entries: Vec<EntryList> = Vec::new();
        for (mutation, creating) in [(&create, true), (&update, false)] {
            let Some(mutation) = mutation else { continue };
            for input in input_types(schema, mutation) {
                for found in shape::entries(schema, &user_type, &input) {
                    match entries.iter_mut().find(|e| e.shape.input == found.input) {
                        Some(list) => list.on_update |= !creating,
                        None => entries.push(EntryList { shape: found, on_create: creating, on_update: !creating }),
                    }
                }
            }
            for (name, ty) in settable(schema, mutation) {
                let kind = kind_of(schema, &ty);
                let email = shape::plain(&name) == "email" || shape::plain(ty.inner_named_type()).contains("email");
                match fields.iter_mut().find(|f| f.name == name) {
                    Some(field) => {
                        field.on_update |= !creating;
                        field.nullable |= !ty.is_non_null();
                    }
                    None => fields.push(Field {
                        required: creating && ty.is_non_null() && !has_default(schema, mutation, &name),
                        on_create: creating,
                        on_update: !creating,
                        nullable: !ty.is_non_null(),
                        name,
                        kind,
                        email,
                        entry: None,
                    }),
                }
            }
        }
        let active_field = shape::object_fields(schema, &user_type)
            .unwrap_or_default()
            .iter()
            .find(|f| {
                f.ty.inner_named_type() == "Boolean" && matches!(shape::plain(&f.name).as_str(), "isactive" | "active")
            })
            .map(|f| f.name.to_string());
        let create_batch = create.as_ref().and_then(|c| {
            input_types(schema, c).first().and_then(|input| shape::batch_create(schema, &user_type, input))
        });
        let replace = update.as_ref().and_then(|u| match shape::style(schema, u, &user_type) {
            shape::Style::Replace(replace) => Some(replace),
            shape::Style::Patch => None,
        });
        Some(Target {
            user_type,
            create,
            create_batch,
            update,
            replace,
            archive: pick(Action::ArchiveUser),
            activate: pick(Action::ActivateUser),
            add_to_group: pick(Action::AddToGroup),
            remove_from_group: pick(Action::RemoveFromGroup),
            fields,
            active_field,
            entries,
            notes: Vec::new(),
        })
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Adds a field for each key of the list of entries `list` (`extraFields`) that the service
    /// lists: `extraFields.department`, converted as text or as one of the values it allows.
    pub fn add_entry_keys(&mut self, list: &str, keys: Vec<KeyInfo>) {
        let Some(entries) = self.entries.iter().find(|e| e.shape.input == list) else { return };
        let (on_create, on_update) = (entries.on_create, entries.on_update);
        for info in keys {
            let name = format!("{list}.{}", info.key);
            if self.field(&name).is_some() {
                continue;
            }
            self.fields.push(Field {
                name,
                kind: if info.allowed.is_empty() { Kind::Text } else { Kind::Enum(info.allowed) },
                required: false,
                on_create,
                on_update,
                email: false,
                nullable: true,
                entry: Some(EntryKey { list: list.to_owned(), key: info.key, label: info.label }),
            });
        }
    }

    /// The list of entries `name` (`extraFields.department`) belongs to, and its key, when it is
    /// an entry: known from the lists' shapes alone, so that a journal's rows are read back
    /// before the service is asked which keys exist.
    pub fn entry_of<'n>(&self, name: &'n str) -> Option<(&EntryList, &'n str)> {
        let (list, key) = name.split_once('.')?;
        self.entries.iter().find(|e| e.shape.input == list).map(|e| (e, key))
    }
}

/// The input object types `mutation` takes user fields in (the nested one, for a `patch`).
fn input_types(schema: &Schema, mutation: &Mutation) -> Vec<String> {
    let Some(root) = schema.root_operation(apollo_compiler::ast::OperationType::Mutation) else { return Vec::new() };
    let Some(definition) = shape::field(schema, root, &mutation.field) else { return Vec::new() };
    mutation
        .args
        .iter()
        .filter_map(|(arg, _, supply)| match supply {
            Supply::Input { nest: Some((_, nested)), .. } => Some(nested.clone()),
            Supply::Input { .. } => definition
                .arguments
                .iter()
                .find(|a| a.name == arg.as_str())
                .map(|a| a.ty.inner_named_type().to_string()),
            _ => None,
        })
        .collect()
}

/// The user fields `mutation` sets, with their declared types (leaf types only: lists of input
/// objects such as extra fields are not columns).
fn settable(schema: &Schema, mutation: &Mutation) -> Vec<(String, Type)> {
    let Some(root) = schema.root_operation(apollo_compiler::ast::OperationType::Mutation) else { return Vec::new() };
    let Some(definition) = shape::field(schema, root, &mutation.field) else { return Vec::new() };
    let mut out = Vec::new();
    for (arg, _, supply) in &mutation.args {
        let Some(argument) = definition.arguments.iter().find(|a| a.name == arg.as_str()) else { continue };
        match supply {
            Supply::Input { fields, key, nest } => {
                let input = nest.as_ref().map_or(argument.ty.inner_named_type().as_str(), |(_, t)| t.as_str());
                for f in shape::input_fields(schema, input).unwrap_or_default() {
                    let is_key = key.as_ref().is_some_and(|(k, _)| k == f.name.as_str())
                        && !fields.contains(&f.name.to_string());
                    if fields.iter().any(|n| n == f.name.as_str())
                        && !is_key
                        && shape::is_leaf(schema, f.ty.inner_named_type())
                    {
                        out.push((f.name.to_string(), (*f.ty).clone()));
                    }
                }
            }
            Supply::Field(name) => out.push((name.clone(), (*argument.ty).clone())),
            _ => {}
        }
    }
    out
}

fn has_default(schema: &Schema, mutation: &Mutation, name: &str) -> bool {
    let Some(root) = schema.root_operation(apollo_compiler::ast::OperationType::Mutation) else { return false };
    let Some(definition) = shape::field(schema, root, &mutation.field) else { return false };
    definition.arguments.iter().any(|a| {
        shape::input_fields(schema, a.ty.inner_named_type())
            .unwrap_or_default()
            .iter()
            .any(|f| f.name == name && f.default_value.is_some())
    })
}

fn kind_of(schema: &Schema, ty: &Type) -> Kind {
    let named = ty.inner_named_type().as_str();
    let values = match schema.types.get(named) {
        Some(ExtendedType::Enum(e)) => Some(e.values.keys().map(|v| v.to_string()).collect::<Vec<_>>()),
        _ => None,
    };
    match (values, ty.is_list()) {
        (Some(values), true) => Kind::EnumList(values),
        (Some(values), false) => Kind::Enum(values),
        (None, _) => match named {
            "Boolean" => Kind::Bool,
            "Int" => Kind::Int,
            "Float" => Kind::Float,
            n if n.contains("Date") => Kind::Date,
            _ => Kind::Text,
        },
    }
}
