//! What the connection's schema lets the find read and change (no egui, no I/O).
//!
//! The spec guarantees only `User { id ref name email isActive }`, `user(ref: String!)` and
//! `paginatedUsers(first)` with `edges { node }` and `count`. Everything else (roles, groups,
//! extra fields, dates, filters, paging, the mutations support staff use) is read from the
//! schema here, so that every document the find sends names only fields and arguments the
//! service has, with variables typed as the schema types its arguments.

use apollo_compiler::Schema;
use apollo_compiler::ast::{OperationType, Type};
use apollo_compiler::schema::{ExtendedType, FieldDefinition};

use super::user::Offers;
use crate::query::{Paging, detect_paging};

/// Users a page of a scan asks for (the spec's largest page).
pub const PAGE_SIZE: i64 = 50;

/// An argument as the schema declares it: its name and its type as written there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The argument's name, also the name of its variable.
    pub name: String,
    /// Its type, e.g. `String!`, `ID`, `[String!]!`, `UpdateUserInput!`.
    pub ty: String,
}

impl Arg {
    fn of(arg: &apollo_compiler::ast::InputValueDefinition) -> Arg {
        Arg { name: arg.name.to_string(), ty: arg.ty.to_string() }
    }

    /// `$name: Type`, for the operation's variable list.
    pub fn declaration(&self) -> String {
        format!("${}: {}", self.name, self.ty)
    }

    /// `name: $name`, for the field's argument list.
    pub fn pass(&self) -> String {
        format!("{0}: ${0}", self.name)
    }
}

/// The `paginatedUsers` field as the schema has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsersField {
    /// The page size argument, when there is one.
    pub first: Option<Arg>,
    /// The cursor argument, when the pages can be walked.
    pub after: Option<Arg>,
    /// Filter arguments taking a single string or ID (`ref`, `email`, `name`, …).
    pub filters: Vec<Arg>,
    /// Whether the connection has `count`.
    pub count: bool,
    /// A filter input object that looks users up by e-mail (`filters: {email: {iExact: …}}`),
    /// case-insensitively where the service can, when there is no plain `email` argument.
    pub email_lookup: Option<crate::shape::Lookup>,
    /// How its pages are walked, as the schema says; `None` when only the first page can be
    /// read (the reason is not shown: the scan says how far it went).
    pub paging: Option<Paging>,
}

impl UsersField {
    /// The filter argument named `name`.
    pub fn filter(&self, name: &str) -> Option<&Arg> {
        self.filters.iter().find(|arg| arg.name == name)
    }
}

/// How a user is found by ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByRef {
    /// A root field such as `user(ref: String!)`.
    Field {
        /// The root field.
        field: String,
        /// Its ref argument.
        arg: Arg,
    },
    /// `paginatedUsers(ref: …)`.
    Filter(Arg),
    /// Neither: the users are read page by page and their refs compared.
    Scan,
}

/// The `groups` field of the user type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupsField {
    /// The field's name (`groups`).
    pub field: String,
    /// Arguments written into the document (`(first: 50)` for a connection), or empty.
    pub arguments: String,
    /// Whether it is a connection (`edges { node }`) rather than a list.
    pub connection: bool,
    /// What is selected of a group: `id ref name`, those the group type has.
    pub selection: String,
}

/// The groups search of the group picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSearch {
    /// The root field (`paginatedGroups`, `groups`).
    pub field: String,
    /// Its page size argument.
    pub first: Option<Arg>,
    /// Its filter by name, when there is one (otherwise the names are compared here).
    pub name: Option<Arg>,
    /// Whether it is a connection (`edges { node }`) rather than a list.
    pub connection: bool,
    /// What is selected of a group.
    pub selection: String,
}

/// A value a mutation's argument is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Supply {
    /// The user's ref.
    UserRef,
    /// A list holding the user's ref.
    UserRefs,
    /// The group's ref.
    GroupRef,
    /// The group's id.
    GroupId,
    /// An input object holding the changed user fields (`isActive`, `name`, `email`).
    Input,
    /// The user's id (read with the user before the change).
    UserId,
    /// An input object holding only the user's ref (`pk_columns: { ref }`), in this field.
    UserRefIn(String),
    /// An input object holding only the user's id (`pk_columns: { id }`), in this field.
    UserIdIn(String),
    /// An input object holding the changed user fields — nested in the field `nest` when given
    /// (PostGraphile's `patch`) — and, in the field `id` when given, the user's id
    /// (Strawberry-Django's `UserPartialInput { id: ID! … }`).
    InputKeyed {
        /// The field taking the user's id.
        id: Option<String>,
        /// The field the changed fields are nested in.
        nest: Option<String>,
    },
    /// One changed user field as its own argument (the argument's name).
    Field,
}

/// A mutation the card can use, with the arguments it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The mutation's root field.
    pub field: String,
    /// Each argument given, with what it is given.
    pub args: Vec<(Arg, Supply)>,
    /// The user fields it can set (through `Input` or `Field` arguments).
    pub sets: Vec<String>,
    /// What is selected of its answer: `{ ...SupportUser }` when it answers with the user (also
    /// inside a payload, beside its errors), `{ __typename }` for another object, nothing for a
    /// scalar.
    pub selection: String,
    /// How its answer holds the user and the errors it returns as data.
    pub returns: crate::shape::Returns,
    /// Its input replaces the whole record (a Django form mutation): the card reads the record
    /// through the input's fields, sends it whole with the change over it, and reads it back.
    pub replace: Option<crate::shape::Replace>,
}

impl Call {
    /// Whether it answers with the user.
    pub fn returns_user(&self) -> bool {
        self.selection.contains("...SupportUser")
    }

    /// Whether it can set the user field `name`.
    pub fn sets(&self, name: &str) -> bool {
        self.sets.iter().any(|s| s == name)
    }

    /// Whether it names the user by id, which is then read before the change.
    pub fn needs_id(&self) -> bool {
        self.args.iter().any(|(_, supply)| {
            matches!(supply, Supply::UserId | Supply::UserIdIn(_) | Supply::InputKeyed { id: Some(_), .. })
        })
    }
}

/// The mutations support staff may use, as the schema offers them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mutations {
    /// Archives a user (a dedicated mutation, or an update setting `isActive: false`).
    pub archive: Option<Call>,
    /// Makes an archived user active again.
    pub activate: Option<Call>,
    /// Updates the name and/or the email (see [`Call::sets`]).
    pub edit: Option<Call>,
    /// Adds a user to a group.
    pub add_to_group: Option<Call>,
    /// Removes a user from a group.
    pub remove_from_group: Option<Call>,
}

/// What a connection's schema lets the find read and change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// The user type's name.
    pub user_type: String,
    /// The guaranteed fields the user type has: `ref name email isActive`, and `id` when it has it.
    pub core: Vec<&'static str>,
    /// The roles field (`roles`), with what is selected of an object role (`{ name }`) or empty.
    pub roles: Option<String>,
    /// The groups field.
    pub groups: Option<GroupsField>,
    /// The extra fields: the field and its selection (empty for a scalar such as JSON).
    pub extra_fields: Option<(String, String)>,
    /// Date fields of the user (`createdAt`, `updatedAt`, …), in the schema's order.
    pub dates: Vec<String>,
    /// Every other scalar field of the user (`department`, `locale`, …), in the schema's order,
    /// deprecated ones left out: the card's "More".
    pub more: Vec<String>,
    /// How a user is found by ref.
    pub by_ref: ByRef,
    /// `paginatedUsers`.
    pub users: UsersField,
    /// The group picker's search.
    pub group_search: Option<GroupSearch>,
    /// The mutations.
    pub mutations: Mutations,
    /// The lists and connections related to a user (the card's sections), as the schema shapes
    /// them.
    pub sections: Vec<crate::shape::Related>,
    /// For each section, the mutation that changes its rows' state, when the schema has one.
    pub state_changes: Vec<Option<crate::shape::Mutation>>,
    /// Enrolling the user: the mutation, the section its result belongs to, and where the
    /// other object (an offer) is chosen from.
    pub enroll: Option<(crate::shape::Mutation, usize, crate::shape::Search)>,
    /// How a group's card is read (its members and managers), when the schema can.
    pub group_card: Option<super::GroupQuery>,
    /// The scope each mutation needs, where its description says so first (`events.write: …`).
    pub mutation_scopes: std::collections::BTreeMap<String, crate::scopes::Scope>,
    /// A sentence for the card when the schema could not be read.
    pub notice: Option<String>,
    /// The user's fields a change is read back by (the guaranteed ones and those the update
    /// sets, `department`): each must be as asked, or as it was. Fields the service moves by
    /// itself (a revision, `updatedAt`) are not among them.
    pub data_fields: Vec<String>,
}

/// The guaranteed user fields, in the order selected.
const CORE: [&str; 5] = ["id", "ref", "name", "email", "isActive"];

impl Capabilities {
    /// What the spec guarantees, and nothing more: for a connection whose schema could not be
    /// read (`reason` is the sentence the card shows).
    pub fn guaranteed(reason: String) -> Capabilities {
        Capabilities {
            user_type: "User".to_owned(),
            core: CORE.to_vec(),
            roles: None,
            groups: None,
            extra_fields: None,
            dates: Vec::new(),
            more: Vec::new(),
            by_ref: ByRef::Field {
                field: "user".to_owned(),
                arg: Arg { name: "ref".to_owned(), ty: "String!".to_owned() },
            },
            // `Int!` fits both `first: Int` and `first: Int!`.
            users: UsersField {
                first: Some(Arg { name: "first".to_owned(), ty: "Int!".to_owned() }),
                after: None,
                filters: Vec::new(),
                count: true,
                email_lookup: None,
                paging: None,
            },
            group_search: None,
            mutations: Mutations::default(),
            sections: Vec::new(),
            state_changes: Vec::new(),
            enroll: None,
            group_card: None,
            mutation_scopes: Default::default(),
            notice: Some(reason),
            data_fields: CORE[1..].iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    /// Reads the capabilities from a valid schema; `Err` says in one sentence why the find
    /// cannot work with it (no `paginatedUsers`, or a user type without `ref`, `name`, `email`
    /// or `isActive`).
    pub fn from_schema(schema: &Schema) -> Result<Capabilities, String> {
        let query = root_fields(schema, OperationType::Query).ok_or("the schema has no query type")?;
        let paginated = query
            .iter()
            .find(|f| f.name == "paginatedUsers")
            .ok_or("the schema has no paginatedUsers field, which the spec guarantees")?;
        let connection = paginated.ty.inner_named_type().as_str();
        let edge = field_type(schema, connection, "edges").ok_or("paginatedUsers has no edges")?;
        let user_type = field_type(schema, edge, "node").ok_or("paginatedUsers has no edges { node }")?.to_owned();
        let core: Vec<&'static str> =
            CORE.into_iter().filter(|name| leaf_field(schema, &user_type, name).is_some()).collect();
        if let Some(missing) = CORE[1..].iter().find(|name| !core.contains(name)) {
            return Err(format!("the schema's {user_type} type has no {missing} field, which the spec guarantees"));
        }
        let users = users_field(schema, paginated, connection);
        let by_ref = query
            .iter()
            .find_map(|f| {
                let arg = ref_argument(f, &["ref"])?;
                (f.name == "user" || f.name == "userByRef")
                    .then(|| ByRef::Field { field: f.name.to_string(), arg })
                    .filter(|_| f.ty.is_named() && f.ty.inner_named_type() == user_type.as_str())
            })
            .or_else(|| users.filter("ref").map(|arg| ByRef::Filter(arg.clone())))
            .unwrap_or(ByRef::Scan);
        let group_search = group_search(schema, &query);
        let mutations = mutations(schema, &user_type);
        let sections = crate::shape::related(schema, &user_type);
        let found = crate::shape::mutations(schema, &user_type, &sections);
        let state_changes = sections
            .iter()
            .map(|section| {
                found
                    .iter()
                    .find(|m| {
                        matches!(&m.action, crate::shape::Action::ChangeState { node_type, .. } if *node_type == section.node_type)
                            && m.arg(|s| matches!(s, crate::shape::Supply::ObjectKey(_))).is_some()
                    })
                    .cloned()
            })
            .collect();
        let enroll = found.iter().find_map(|m| {
            let crate::shape::Action::Enroll { node_type } = &m.action else { return None };
            let section = sections.iter().position(|s| s.node_type == *node_type)?;
            let search = crate::shape::search_for(schema, m, &user_type)?;
            Some((m.clone(), section, search))
        });
        let group_card = field(schema, &user_type, "groups")
            .and_then(|f| items(schema, f))
            .and_then(|(group_type, _)| super::group_card::group_query(schema, &group_type, &user_type));
        let mutation_scopes = root_fields(schema, OperationType::Mutation)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|f| {
                let scope = crate::explorer::scope_in_description(f.description.as_deref()?)?;
                Some((f.name.to_string(), scope))
            })
            .collect();
        let sets: Vec<String> = found
            .iter()
            .filter(|m| m.action == crate::shape::Action::UpdateUser)
            .flat_map(|m| m.sets().into_iter().map(str::to_owned))
            .collect();
        let data_fields = core
            .iter()
            .filter(|f| **f != "id")
            .map(|f| (*f).to_owned())
            .chain(more(schema, &user_type).into_iter().filter(|f| sets.contains(f)))
            .collect();
        Ok(Capabilities {
            data_fields,
            mutation_scopes,
            sections,
            state_changes,
            enroll,
            group_card,
            roles: roles(schema, &user_type),
            groups: groups(schema, &user_type),
            extra_fields: extra_fields(schema, &user_type),
            dates: dates(schema, &user_type),
            more: more(schema, &user_type),
            core,
            user_type,
            by_ref,
            users,
            group_search,
            mutations,
            notice: None,
        })
    }

    /// Whether any change to users is offered at all.
    pub fn offers_changes(&self) -> bool {
        let m = &self.mutations;
        m.archive.is_some()
            || m.activate.is_some()
            || m.edit.is_some()
            || m.add_to_group.is_some()
            || m.remove_from_group.is_some()
    }
}

fn root_fields(schema: &Schema, operation: OperationType) -> Option<Vec<&FieldDefinition>> {
    let name = schema.root_operation(operation)?;
    Some(fields(schema, name)?.collect())
}

/// The fields of an object or interface type.
fn fields<'s>(schema: &'s Schema, type_name: &str) -> Option<impl Iterator<Item = &'s FieldDefinition>> {
    let fields = match schema.types.get(type_name)? {
        ExtendedType::Object(object) => &object.fields,
        ExtendedType::Interface(interface) => &interface.fields,
        _ => return None,
    };
    Some(fields.values().map(|component| &*component.node))
}

fn field<'s>(schema: &'s Schema, type_name: &str, name: &str) -> Option<&'s FieldDefinition> {
    fields(schema, type_name)?.find(|f| f.name == name)
}

/// The named type of `type_name.name`, when it can be selected without arguments.
fn field_type<'s>(schema: &'s Schema, type_name: &str, name: &str) -> Option<&'s str> {
    let f = field(schema, type_name, name)?;
    no_required_args(f).then(|| f.ty.inner_named_type().as_str())
}

fn no_required_args(f: &FieldDefinition) -> bool {
    f.arguments.iter().all(|a| !a.is_required())
}

fn is_leaf(schema: &Schema, type_name: &str) -> bool {
    matches!(schema.types.get(type_name), Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_)))
}

fn is_composite(schema: &Schema, type_name: &str) -> bool {
    matches!(schema.types.get(type_name), Some(ExtendedType::Object(_) | ExtendedType::Interface(_)))
}

/// `type_name.name` when it is a scalar or enum (or a list of them) selectable without arguments.
fn leaf_field<'s>(schema: &'s Schema, type_name: &str, name: &str) -> Option<&'s FieldDefinition> {
    let f = field(schema, type_name, name)?;
    (no_required_args(f) && is_leaf(schema, f.ty.inner_named_type())).then_some(f)
}

/// Of `names`, those that are leaf fields of `type_name`, joined for a selection.
fn leaves(schema: &Schema, type_name: &str, names: &[&str]) -> String {
    names.iter().filter(|name| leaf_field(schema, type_name, name).is_some()).copied().collect::<Vec<_>>().join(" ")
}

/// Whether a type is a single string or ID (what a ref or an email filter takes).
fn is_text(ty: &Type) -> bool {
    ty.is_named() && matches!(ty.inner_named_type().as_str(), "String" | "ID")
}

/// The argument of `f` named one of `names` taking one string or ID, when every other required
/// argument is absent.
fn ref_argument(f: &FieldDefinition, names: &[&str]) -> Option<Arg> {
    let arg = f.arguments.iter().find(|a| names.contains(&a.name.as_str()) && is_text(&a.ty))?;
    f.arguments.iter().all(|a| a.name == arg.name || !a.is_required()).then(|| Arg::of(arg))
}

fn users_field(schema: &Schema, paginated: &FieldDefinition, connection: &str) -> UsersField {
    let argument = |name: &str| paginated.arguments.iter().find(|a| a.name == name).map(|a| Arg::of(a));
    let first = argument("first").filter(|a| a.ty.trim_end_matches('!') == "Int");

    let filters = paginated
        .arguments
        .iter()
        .filter(|a| !["first", "after", "last", "before"].contains(&a.name.as_str()) && is_text(&a.ty))
        .map(|a| Arg::of(a))
        .collect();
    let count = leaf_field(schema, connection, "count").is_some();
    let paging = detect_paging(schema, "query { paginatedUsers { edges { node { ref } } } }", None).ok();
    // The cursor argument as the schema types it (`String`, `ID`), when the pages can be walked.
    let after = argument("after").filter(|_| paging.is_some());
    let email_lookup = crate::shape::lookup(schema, paginated, "email", true);
    UsersField { first, after, filters, count, email_lookup, paging }
}

/// `roles`: a list (or one) of enum or string values, or of objects with a name.
fn roles(schema: &Schema, user_type: &str) -> Option<String> {
    let f = field(schema, user_type, "roles").filter(|f| no_required_args(f))?;
    let item = f.ty.inner_named_type().as_str();
    if is_leaf(schema, item) {
        return Some(String::new());
    }
    let name = ["name", "label", "title", "ref"].into_iter().find(|n| leaf_field(schema, item, n).is_some())?;
    Some(format!("{{ {name} }}"))
}

/// What is selected of a group (`id ref name`, those the type has); none without a name or ref.
fn group_selection(schema: &Schema, group_type: &str) -> Option<String> {
    let selection = leaves(schema, group_type, &["id", "ref", "name"]);
    (selection.contains("name") || selection.contains("ref")).then_some(selection)
}

/// The type of a list's items, or of a connection's nodes (`edges { node }`), with which it is.
fn items(schema: &Schema, f: &FieldDefinition) -> Option<(String, bool)> {
    let named = f.ty.inner_named_type().as_str();
    if f.ty.is_list() {
        return is_composite(schema, named).then(|| (named.to_owned(), false));
    }
    let edge = field_type(schema, named, "edges")?;
    let node = field_type(schema, edge, "node")?;
    is_composite(schema, node).then(|| (node.to_owned(), true))
}

/// Arguments that let a field be selected: none needed, or a page size the find fills in.
fn selectable(f: &FieldDefinition) -> Option<String> {
    let first = f.arguments.iter().find(|a| a.name == "first" && a.ty.inner_named_type() == "Int");
    if f.arguments.iter().all(|a| !a.is_required() || first.is_some_and(|first| first.name == a.name)) {
        Some(first.map(|_| format!("(first: {PAGE_SIZE})")).unwrap_or_default())
    } else {
        None
    }
}

fn groups(schema: &Schema, user_type: &str) -> Option<GroupsField> {
    let f = field(schema, user_type, "groups")?;
    let (group_type, connection) = items(schema, f)?;
    let arguments = if connection { selectable(f)? } else { no_required_args(f).then(String::new)? };
    Some(GroupsField {
        field: f.name.to_string(),
        arguments,
        connection,
        selection: group_selection(schema, &group_type)?,
    })
}

/// `extraFields` (or `customFields`): objects with a category or a name and a value, or a
/// scalar such as JSON.
fn extra_fields(schema: &Schema, user_type: &str) -> Option<(String, String)> {
    let f = ["extraFields", "customFields"]
        .into_iter()
        .find_map(|name| field(schema, user_type, name))
        .filter(|f| no_required_args(f))?;
    let item = f.ty.inner_named_type().as_str();
    if is_leaf(schema, item) {
        return Some((f.name.to_string(), String::new()));
    }
    let mut parts = Vec::new();
    if let Some(category) = field_type(schema, item, "category").filter(|c| is_composite(schema, c)) {
        let named = leaves(schema, category, &["ref", "name"]);
        if !named.is_empty() {
            parts.push(format!("category {{ {named} }}"));
        }
    }
    let own = leaves(schema, item, &["name", "key", "label", "value", "values"]);
    let has_value = own.split(' ').any(|n| n == "value" || n == "values");
    let has_label = !parts.is_empty() || own.split(' ').any(|n| ["name", "key", "label"].contains(&n));
    if !(has_value && has_label) {
        return None;
    }
    parts.push(own);
    Some((f.name.to_string(), format!("{{ {} }}", parts.join(" "))))
}

/// Scalar fields of the user that hold a moment: a type named like a date or time, or a name
/// ending in `At` (`createdAt`, `lastLoginAt`).
fn dates(schema: &Schema, user_type: &str) -> Vec<String> {
    let Some(all) = fields(schema, user_type) else { return Vec::new() };
    all.filter(|f| f.ty.is_named() && no_required_args(f) && is_leaf(schema, f.ty.inner_named_type()))
        .filter(|f| {
            let ty = f.ty.inner_named_type().as_str().to_ascii_lowercase();
            let deprecated = f.directives.get("deprecated").is_some();
            !deprecated && (ty.contains("date") || ty.contains("time") || f.name.ends_with("At"))
        })
        .map(|f| f.name.to_string())
        .collect()
}

/// The user's other scalar fields: leaves selectable without arguments that are neither the
/// guaranteed ones, the roles, the dates, the extra fields nor deprecated.
fn more(schema: &Schema, user_type: &str) -> Vec<String> {
    let Some(all) = fields(schema, user_type) else { return Vec::new() };
    let shown = dates(schema, user_type);
    all.filter(|f| no_required_args(f) && is_leaf(schema, f.ty.inner_named_type()))
        .filter(|f| f.directives.get("deprecated").is_none())
        .map(|f| f.name.to_string())
        .filter(|name| {
            !CORE.contains(&name.as_str())
                && !shown.contains(name)
                && !["roles", "extraFields", "customFields", "groups"].contains(&name.as_str())
        })
        .collect()
}

fn group_search(schema: &Schema, query: &[&FieldDefinition]) -> Option<GroupSearch> {
    query.iter().filter(|f| ["paginatedGroups", "groups"].contains(&f.name.as_str())).find_map(|f| {
        let (group_type, connection) = items(schema, f)?;
        let first = f.arguments.iter().find(|a| a.name == "first" && a.ty.inner_named_type() == "Int");
        let name =
            f.arguments.iter().find(|a| ["name", "search", "query"].contains(&a.name.as_str()) && is_text(&a.ty));
        let fills = |a: &&apollo_compiler::Node<apollo_compiler::ast::InputValueDefinition>| {
            first.is_some_and(|f| f.name == a.name) || name.is_some_and(|n| n.name == a.name)
        };
        f.arguments.iter().all(|a| !a.is_required() || fills(&a)).then_some(())?;
        Some(GroupSearch {
            field: f.name.to_string(),
            first: first.map(|a| Arg::of(a)),
            name: name.map(|a| Arg::of(a)),
            connection,
            selection: group_selection(schema, &group_type)?,
        })
    })
}

/// The user fields an update may set.
const SETTABLE: [&str; 3] = ["isActive", "name", "email"];

/// The mutations support staff use, found by shape ([`crate::shape::mutations`]): `updateUser`
/// and `userUpdate`, `archiveUser` and `userArchive`, answering with the user or a payload.
fn mutations(schema: &Schema, user_type: &str) -> Mutations {
    use crate::shape::{Action, Key, Supply as Takes};
    let related = crate::shape::related(schema, user_type);
    let found = crate::shape::mutations(schema, user_type, &related);
    let to_call = |m: &crate::shape::Mutation| -> Option<Call> {
        let replace = match crate::shape::style(schema, m, user_type) {
            crate::shape::Style::Replace(replace) if m.action == Action::UpdateUser => Some(replace),
            _ => None,
        };
        let mut args = Vec::new();
        let mut sets = Vec::new();
        for (name, ty, takes) in &m.args {
            let arg = Arg { name: name.clone(), ty: ty.clone() };
            let supply = match takes {
                // A user's key typed ID but named as a ref is still the ref.
                Takes::UserKey(Key::Ref) => Supply::UserRef,
                Takes::UserKey(Key::Id) => Supply::UserId,
                Takes::UserKeyObject(field, Key::Ref) => Supply::UserRefIn(field.clone()),
                Takes::UserKeyObject(field, Key::Id) => Supply::UserIdIn(field.clone()),
                Takes::UserKeys(Key::Ref) => Supply::UserRefs,
                Takes::GroupKey(Key::Ref) => Supply::GroupRef,
                Takes::GroupKey(Key::Id) => Supply::GroupId,
                Takes::Field(field) if SETTABLE.contains(&field.as_str()) => {
                    sets.push(field.clone());
                    Supply::Field
                }
                Takes::Field(_) => continue,
                // A replace-style input carries the key (and the id) itself: the whole record.
                Takes::Input { fields, key, nest: None } if key.is_none() || replace.is_some() => {
                    let settable: Vec<String> =
                        fields.iter().filter(|f| SETTABLE.contains(&f.as_str())).cloned().collect();
                    if settable.is_empty() {
                        return None;
                    }
                    sets.extend(settable);
                    Supply::Input
                }
                // An input named by the user's id (a partial input keyed by a relay global id): the
                // id read with the user, the changed fields beside it.
                Takes::Input { fields, key, nest } if key.as_ref().is_none_or(|(_, k)| *k == Key::Id) => {
                    let settable: Vec<String> =
                        fields.iter().filter(|f| SETTABLE.contains(&f.as_str())).cloned().collect();
                    if settable.is_empty() {
                        return None;
                    }
                    sets.extend(settable);
                    Supply::InputKeyed {
                        id: key.as_ref().map(|(id, _)| id.clone()),
                        nest: nest.as_ref().map(|(field, _)| field.clone()),
                    }
                }
                // A key inside an input that is the user's ref (a create), or lists of ids, are
                // left to the query editor.
                _ => return None,
            };
            args.push((arg, supply));
        }
        let user_shaped = matches!(m.returns, crate::shape::Returns::Object | crate::shape::Returns::Union(_))
            || matches!(&m.returns, crate::shape::Returns::Payload { object: Some(_), .. });
        let selection = if m.target == user_type && user_shaped {
            m.returns.selection("{ ...SupportUser }")
        } else {
            m.returns.selection("{ __typename }")
        };
        Some(Call { field: m.field.clone(), args, sets, selection, returns: m.returns.clone(), replace })
    };
    let first = |wanted: &dyn Fn(&Action) -> bool| found.iter().filter(|m| wanted(&m.action)).find_map(to_call);
    let update = first(&|a| *a == Action::UpdateUser);
    let update_setting = |field: &str| update.clone().filter(|call| call.sets(field));
    let archive = first(&|a| *a == Action::ArchiveUser).or_else(|| update_setting("isActive"));
    let activate = first(&|a| *a == Action::ActivateUser).or_else(|| update_setting("isActive"));
    let edit = update.clone().filter(|call| call.sets("name") || call.sets("email"));
    let add_to_group = first(&|a| *a == Action::AddToGroup);
    let remove_from_group = first(&|a| *a == Action::RemoveFromGroup);
    Mutations { archive, activate, edit, add_to_group, remove_from_group }
}

impl Capabilities {
    /// The changes offered to the card (the group picker needs a list of groups too).
    pub fn offers(&self) -> Offers {
        let m = &self.mutations;
        let sets = |field: &str| m.edit.as_ref().is_some_and(|call| call.sets(field));
        Offers {
            activate: m.activate.is_some(),
            archive: m.archive.is_some(),
            edit_name: sets("name"),
            edit_email: sets("email"),
            add_to_group: m.add_to_group.is_some() && self.group_search.is_some() && self.groups.is_some(),
            remove_from_group: m.remove_from_group.is_some() && self.groups.is_some(),
            notice: self.notice.clone(),
        }
    }
}
