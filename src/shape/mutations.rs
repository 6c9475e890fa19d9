//! Mutations by what they take and return. Each argument is read for the part it plays (the
//! user's key, a list of users' keys, another object's key, an enum state, an input object whose
//! fields are the user's); the answer for the type it is about; together they say what the
//! mutation does. Only where the shape leaves two readings (archive and activate both take a ref
//! and answer with the user) does the verb in the name decide, wherever it stands.

use apollo_compiler::Schema;
use apollo_compiler::ast::OperationType;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};

use super::payload::{Returns, returns};
use super::related::Related;
use super::{Key, input_fields, is_text, is_text_list, key_of, object_fields, plain};

/// What a mutation does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Creates a user from an input object of the user's fields.
    CreateUser,
    /// Changes a user's fields.
    UpdateUser,
    /// Archives (deactivates) a user.
    ArchiveUser,
    /// Makes an archived user active again.
    ActivateUser,
    /// Deletes a user.
    DeleteUser,
    /// Sets the state of an object related to users (an enrollment's status).
    ChangeState {
        /// The object's type (`Enrollment`).
        node_type: String,
        /// The state's enum (`EnrollmentStatus`) and its values.
        values: Vec<String>,
    },
    /// Makes an object related to a user from the user and another object (an enrollment from
    /// a user and an offer).
    Enroll {
        /// The type made (`Enrollment`).
        node_type: String,
    },
    /// Adds users to a group.
    AddToGroup,
    /// Removes users from a group.
    RemoveFromGroup,
}

/// What an argument is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Supply {
    /// The user's key.
    UserKey(Key),
    /// A list of users' keys.
    UserKeys(Key),
    /// The key of the object acted on (an enrollment's `id`).
    ObjectKey(Key),
    /// The key of another object (the offer of an enrollment: `offerRef`, `sessionId`).
    OtherKey(Key),
    /// A group's key.
    GroupKey(Key),
    /// An enum value: the new state.
    State,
    /// One user field as its own argument (`editUser(ref:, name:, isActive:)`).
    Field(String),
    /// An input object of user fields; `key` names its field that takes the user's key, when the
    /// key travels inside it.
    Input {
        /// The user fields it can set, in the input's order.
        fields: Vec<String>,
        /// Its field holding the user's key.
        key: Option<(String, Key)>,
        /// The input's field holding the user fields and that field's type, when they are one
        /// level down (PostGraphile's `{ id, patch: UserPatch }`, `{ user: UserInput }`); the
        /// key is then beside it, at the top.
        nest: Option<(String, String)>,
    },
    /// An input object that holds only the user's key (Hasura's `pk_columns: { id }`): its
    /// field, and the key.
    UserKeyObject(String, Key),
}

/// A mutation, what it does, and how each of its arguments is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    /// The root field.
    pub field: String,
    /// What it does.
    pub action: Action,
    /// Its arguments given: name, type as declared (`String!`), what it takes.
    pub args: Vec<(String, String, Supply)>,
    /// How it answers about the type it acts on.
    pub returns: Returns,
    /// The type it acts on (the user's, a related object's, a group's).
    pub target: String,
}

impl Mutation {
    /// The argument given `supply`, if any.
    pub fn arg(&self, wanted: impl Fn(&Supply) -> bool) -> Option<&(String, String, Supply)> {
        self.args.iter().find(|(_, _, supply)| wanted(supply))
    }

    /// The user fields it can set.
    pub fn sets(&self) -> Vec<&str> {
        self.args
            .iter()
            .flat_map(|(_, _, supply)| match supply {
                Supply::Input { fields, .. } => fields.iter().map(String::as_str).collect(),
                Supply::Field(field) => vec![field.as_str()],
                _ => Vec::new(),
            })
            .collect()
    }
}

/// The verbs that tell archive, activate and delete apart, and add from remove.
fn verb(name: &str) -> Option<&'static str> {
    let name = plain(name);
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    // "unarchive"/"reactivate" before "archive"/"activate" (they contain them).
    if has(&["unarchive", "reactivate", "restore", "enable", "unsuspend", "activate"])
        && !has(&["deactivate", "inactivate"])
    {
        return Some("activate");
    }
    if has(&["archive", "deactivate", "inactivate", "disable", "suspend"]) {
        return Some("archive");
    }
    if has(&["delete", "destroy", "purge"]) {
        return Some("delete");
    }
    if has(&["remove", "unassign", "leave", "kick"]) {
        return Some("remove");
    }
    if has(&["add", "assign", "join", "invite"]) {
        return Some("add");
    }
    None
}

/// The user fields an input object of type `input` holds (its fields named as the user type's),
/// and its field that takes the user's key.
/// The user fields an input object sets, its field holding the user's key, and the field (and
/// type) the user fields are nested in.
type UserInput = (Vec<String>, Option<(String, Key)>, Option<(String, String)>);

fn user_input(schema: &Schema, input: &str, user_type: &str) -> Option<UserInput> {
    let (sets, key) = flat_user_input(schema, input, user_type);
    // An input of one field is not the user's; nor one with user fields it cannot give.
    if sets.len() >= 2 || (sets.len() == 1 && key.is_some()) {
        return Some((sets, key, None));
    }
    // The user fields one level down (`patch`, `user`), the record's key (if any) at the top.
    input_fields(schema, input)?.into_iter().filter(|f| !f.ty.is_list()).find_map(|f| {
        let nested = f.ty.inner_named_type().as_str();
        schema.get_input_object(nested)?;
        let (inner, inner_key) = flat_user_input(schema, nested, user_type);
        let qualifies = inner.len() >= 2 || (inner.len() == 1 && inner_key.is_some());
        // A `ref` inside is data (the new user's, or a new ref), and already among `inner`.
        let top = key.clone().filter(|_| sets.is_empty());
        qualifies.then(|| (inner, top, Some((f.name.to_string(), nested.to_owned()))))
    })
}

/// An input object that holds only the user's key (`{ id: ID! }`, `{ ref: String! }`).
fn key_object(schema: &Schema, input: &str) -> Option<(String, Key)> {
    let fields = input_fields(schema, input)?;
    let [only] = fields.as_slice() else { return None };
    if !is_text(&only.ty) || !only.ty.is_non_null() {
        return None;
    }
    let key = key_of(&only.name, &only.ty, "user").or_else(|| key_of(&only.name, &only.ty, ""))?;
    Some((only.name.to_string(), key))
}

/// The user fields an input object sets directly, and its field holding the user's key.
fn flat_user_input(schema: &Schema, input: &str, user_type: &str) -> (Vec<String>, Option<(String, Key)>) {
    let Some(fields) = input_fields(schema, input) else { return (Vec::new(), None) };
    let Some(user_fields) = object_fields(schema, user_type) else { return (Vec::new(), None) };
    let user_fields: Vec<String> = user_fields.iter().map(|f| plain(&f.name)).collect();
    let mut sets = Vec::new();
    // An input that requires the record's `id: ID!` (a relay global id: Strawberry-Django's
    // `UserPartialInput`) is named by it, and by nothing else: a `ref` beside it is data.
    let mut key = fields
        .iter()
        .find(|f| {
            plain(&f.name) == "id"
                && f.ty.is_non_null()
                && !f.ty.is_list()
                && f.ty.inner_named_type() == "ID"
                && f.default_value.is_none()
        })
        .map(|f| (f.name.to_string(), Key::Id));
    let by_id = key.is_some();
    for f in &fields {
        let is_key = is_text(&f.ty) && (key_of(&f.name, &f.ty, "user").is_some() || plain(&f.name) == "ref");
        if by_id && plain(&f.name) == "id" {
            continue;
        }
        if is_key && key.is_none() {
            let k = key_of(&f.name, &f.ty, "user").or_else(|| key_of(&f.name, &f.ty, "")).unwrap_or(Key::Ref);
            key = Some((f.name.to_string(), k));
            // A create input carries the new user's ref as one of the user's fields.
            if plain(&f.name) == "ref" {
                sets.push(f.name.to_string());
            }
        } else if user_fields.contains(&plain(&f.name)) && plain(&f.name) != "id" {
            // An `id` in the input names the record (a form mutation's relay id); it sets nothing.
            sets.push(f.name.to_string());
        }
    }
    (sets, key)
}

/// Every mutation that acts on users, their related objects (`related`) or their groups.
pub fn mutations(schema: &Schema, user_type: &str, related: &[Related]) -> Vec<Mutation> {
    let Some(root) = schema.root_operation(OperationType::Mutation) else { return Vec::new() };
    let related_types: Vec<&str> = related.iter().map(|r| r.node_type.as_str()).collect();
    object_fields(schema, root)
        .unwrap_or_default()
        .into_iter()
        .filter(|f| !super::is_deprecated(f))
        .filter_map(|f| classify(schema, f, user_type, &related_types))
        .collect()
}

fn classify(schema: &Schema, f: &FieldDefinition, user_type: &str, related: &[&str]) -> Option<Mutation> {
    let mut args = Vec::new();
    let mut user_keys = 0;
    let mut bare = None;
    let mut other = None;
    let mut group = None;
    let mut state = None;
    let mut input = None;
    let mut own_fields = 0;
    let user_fields: Vec<String> =
        object_fields(schema, user_type).unwrap_or_default().iter().map(|f| plain(&f.name)).collect();
    let mut unknown_required = false;
    for a in &f.arguments {
        let (name, ty) = (a.name.as_str(), &a.ty);
        let named = ty.inner_named_type().as_str();
        let supply = if is_text(ty)
            && let Some(key) = key_of(name, ty, "user")
        {
            user_keys += 1;
            Some(Supply::UserKey(key))
        } else if is_text_list(ty)
            && let Some(key) = key_of(name, ty, "user")
        {
            user_keys += 1;
            Some(Supply::UserKeys(key))
        } else if is_text(ty)
            && let Some(key) = key_of(name, ty, "group")
        {
            group = Some(key);
            Some(Supply::GroupKey(key))
        } else if is_text(ty)
            && let Some(key) = key_of(name, ty, "")
        {
            bare = Some((a.name.to_string(), a.ty.to_string(), key));
            None
        } else if is_text_list(ty)
            && let Some(key) = key_of(name, ty, "")
        {
            // A bare list of keys (`refs`) is of users: what lists name is members.
            user_keys += 1;
            Some(Supply::UserKeys(key))
        } else if is_text(ty) && (plain(name).ends_with("ref") || plain(name).ends_with("id")) {
            let key = if plain(name).ends_with("ref") { Key::Ref } else { Key::Id };
            other = Some(key);
            Some(Supply::OtherKey(key))
        } else if let Some(ExtendedType::Enum(_)) = schema.types.get(named).filter(|_| !ty.is_list()) {
            state = Some(named.to_owned());
            Some(Supply::State)
        } else if let Some((field, key)) = key_object(schema, named).filter(|_| !ty.is_list()) {
            user_keys += 1;
            Some(Supply::UserKeyObject(field, key))
        } else if let Some((fields, key, nest)) = user_input(schema, named, user_type).filter(|_| !ty.is_list()) {
            input = Some((fields.clone(), key.clone()));
            Some(Supply::Input { fields, key, nest })
        } else if super::is_leaf(schema, named) && !ty.is_list() && user_fields.contains(&plain(name)) {
            own_fields += 1;
            Some(Supply::Field(a.name.to_string()))
        } else {
            None
        };
        match supply {
            Some(supply) => args.push((a.name.to_string(), a.ty.to_string(), supply)),
            None if a.is_required() && bare.as_ref().is_none_or(|(n, _, _)| n != name) => unknown_required = true,
            None => {}
        }
    }
    if unknown_required {
        return None;
    }
    // With the user's key in an argument of its own (`pk_columns: { id }`), a `ref` in the input
    // is data (Hasura's `_set: { ref … }`), not a second key.
    if user_keys == 1 {
        for (_, _, supply) in &mut args {
            if let Supply::Input { key, .. } = supply
                && key.as_ref().is_some_and(|(name, _)| plain(name) == "ref")
            {
                *key = None;
            }
        }
    }
    let name = f.name.as_str();
    let by_verb = verb(name);
    let about_user = returns(schema, f, user_type);
    // A bare `ref`/`id` is the key of the type the mutation answers with.
    let with_bare = |args: &mut Vec<(String, String, Supply)>, supply: fn(Key) -> Supply| {
        if let Some((n, t, key)) = &bare {
            args.push((n.clone(), t.clone(), supply(*key)));
        }
    };
    // Users: an update, a create, archive/activate/delete.
    if let Some(answer) = about_user.clone().filter(|_| group.is_none() && state.is_none() && other.is_none()) {
        // The user's key given beside any input: the mutation acts on an existing user.
        let keyed = user_keys == 1 || bare.is_some();
        let mut args = args;
        with_bare(&mut args, Supply::UserKey);
        let says_update = {
            let n = plain(name);
            ["update", "edit", "change", "patch", "modify"].iter().any(|v| n.contains(v))
        };
        let action = match (&input, keyed) {
            (_, true) if own_fields > 0 => Action::UpdateUser,
            (Some(_), true) => Action::UpdateUser,
            // The key travels in the input: a create (its new ref) unless the verb says update.
            (Some((_, Some(_))), false) if says_update => Action::UpdateUser,
            (Some(_), false) => Action::CreateUser,
            (None, true) => match by_verb? {
                "archive" => Action::ArchiveUser,
                "activate" => Action::ActivateUser,
                "delete" => Action::DeleteUser,
                _ => return None,
            },
            (None, false) => return None,
        };
        return Some(Mutation { field: name.to_owned(), action, args, returns: answer, target: user_type.to_owned() });
    }
    // Groups: users' keys and a group's key (a bare key is the group's).
    if user_keys >= 1 && (group.is_some() || bare.is_some()) && state.is_none() {
        let mut args = args;
        with_bare(&mut args, Supply::GroupKey);
        let action = match by_verb? {
            "add" => Action::AddToGroup,
            "remove" | "delete" => Action::RemoveFromGroup,
            _ => return None,
        };
        let named = f.ty.inner_named_type().to_string();
        let answer = returns(schema, f, &named).unwrap_or(Returns::Scalar);
        return Some(Mutation { field: name.to_owned(), action, args, returns: answer, target: named });
    }
    // Related objects: a state change, or a new one from a user and another object.
    for node in related {
        let Some(answer) = returns(schema, f, node).filter(|r| *r != Returns::Scalar) else { continue };
        if let Some(enum_type) = &state
            && bare.is_some()
            && user_keys == 0
            && has_enum_field(schema, node, enum_type)
        {
            let mut args = args;
            with_bare(&mut args, Supply::ObjectKey);
            let values = enum_values(schema, enum_type);
            let action = Action::ChangeState { node_type: (*node).to_owned(), values };
            return Some(Mutation {
                field: name.to_owned(),
                action,
                args,
                returns: answer,
                target: (*node).to_owned(),
            });
        }
        if user_keys == 1 && (other.is_some() || bare.is_some()) && state.is_none() && input.is_none() {
            let mut args = args;
            with_bare(&mut args, Supply::OtherKey);
            let action = Action::Enroll { node_type: (*node).to_owned() };
            return Some(Mutation {
                field: name.to_owned(),
                action,
                args,
                returns: answer,
                target: (*node).to_owned(),
            });
        }
    }
    None
}

fn has_enum_field(schema: &Schema, node: &str, enum_type: &str) -> bool {
    object_fields(schema, node).unwrap_or_default().iter().any(|f| f.ty.inner_named_type() == enum_type)
}

fn enum_values(schema: &Schema, enum_type: &str) -> Vec<String> {
    match schema.types.get(enum_type) {
        Some(ExtendedType::Enum(e)) => e.values.keys().map(|v| v.to_string()).collect(),
        _ => Vec::new(),
    }
}
