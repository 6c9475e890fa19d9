//! The documents of the find, built from the connection's [`Capabilities`]: only fields and
//! arguments its schema has, variables typed as its arguments are, and what was typed only ever
//! as a variable.

use serde_json::{Map, Value, json};

use super::action::SupportAction;
use super::capabilities::{ByRef, Call, Capabilities, PAGE_SIZE, Supply};
use super::user::GroupRef;
use crate::api::GraphQlRequest;
use crate::query::PagingStyle;

/// Users with one email listed at most (an email should be unique; more are listed).
pub const EMAIL_MATCHES: i64 = 10;
/// Groups the picker lists for one search.
pub const GROUP_CHOICES: i64 = 50;

impl Capabilities {
    /// The fields the card shows, as the fragment every user document spreads (`...SupportUser`).
    pub fn fragment(&self) -> String {
        let mut lines: Vec<String> = self.core.iter().map(|name| (*name).to_owned()).collect();
        if let Some(roles) = &self.roles {
            lines.push(format!("roles {roles}").trim_end().to_owned());
        }
        for date in &self.dates {
            lines.push(date.clone());
        }
        for field in &self.more {
            lines.push(field.clone());
        }
        if let Some(groups) = &self.groups {
            let inner = if groups.connection {
                format!("{{ edges {{ node {{ {} }} }} }}", groups.selection)
            } else {
                format!("{{ {} }}", groups.selection)
            };
            lines.push(format!("groups: {}{} {inner}", groups.field, groups.arguments));
        }
        if let Some((field, selection)) = &self.extra_fields {
            // Aliased, so that the answer is read under one name whatever the schema calls it.
            lines.push(format!("extraFields: {field} {selection}").trim_end().to_owned());
        }
        format!("fragment SupportUser on {} {{\n  {}\n}}", self.user_type, lines.join("\n  "))
    }

    /// The user with a ref: `user(ref:)`, or `paginatedUsers(ref:)`; `None` when the schema has
    /// neither and the users are scanned instead.
    pub fn user_by_ref(&self, user_ref: &str) -> Option<GraphQlRequest> {
        let fragment = self.fragment();
        match &self.by_ref {
            ByRef::Field { field, arg } => Some(request(
                format!(
                    "query SupportUserByRef({}) {{\n  user: {field}({}) {{ ...SupportUser }}\n}}\n{fragment}",
                    arg.declaration(),
                    arg.pass()
                ),
                json!({ arg.name.clone(): user_ref }),
            )),
            ByRef::Filter(arg) => Some(self.filtered("SupportUserByRef", arg, Value::from(user_ref), 2)),
            ByRef::Scan => None,
        }
    }

    /// Users with an email through `paginatedUsers(email:)`; `None` without that filter (then
    /// the users are scanned and their emails compared).
    pub fn users_by_email(&self, email: &str) -> Option<GraphQlRequest> {
        if let Some(arg) = self.users.filter("email") {
            return Some(self.filtered("SupportUsersByEmail", arg, Value::from(email), EMAIL_MATCHES));
        }
        // A filter input object: `filters: {email: {iExact: …}}`.
        let lookup = self.users.email_lookup.as_ref()?;
        let arg = super::capabilities::Arg { name: lookup.argument.clone(), ty: lookup.argument_type.clone() };
        Some(self.filtered("SupportUsersByEmail", &arg, lookup.value(email), EMAIL_MATCHES))
    }

    fn filtered(&self, operation: &str, arg: &super::capabilities::Arg, value: Value, first: i64) -> GraphQlRequest {
        let mut declarations = vec![arg.declaration()];
        let mut passed = Vec::new();
        let mut variables = Map::new();
        if let Some(page) = &self.users.first {
            declarations.push(page.declaration());
            passed.push(page.pass());
            variables.insert(page.name.clone(), Value::from(first));
        }
        passed.push(arg.pass());
        variables.insert(arg.name.clone(), value);
        let count = if self.users.count { "count " } else { "" };
        request(
            format!(
                "query {operation}({}) {{\n  paginatedUsers({}) {{ {count}edges {{ node {{ ...SupportUser }} }} }}\n}}\n{}",
                declarations.join(", "),
                passed.join(", "),
                self.fragment()
            ),
            Value::Object(variables),
        )
    }

    /// The page document of a scan, walked with the cursor variable (when the schema has one):
    /// `cards` selects what the card shows (to find by ref or email), otherwise only what a
    /// list of matches shows (`ref name email isActive`).
    pub fn scan_page(&self, cards: bool) -> String {
        let mut declarations = Vec::new();
        let mut passed = Vec::new();
        for arg in [&self.users.first, &self.users.after].into_iter().flatten() {
            declarations.push(arg.declaration());
            passed.push(arg.pass());
        }
        let node = if cards { "...SupportUser".to_owned() } else { "ref name email isActive".to_owned() };
        let style = self.users.paging.as_ref().map(|paging| paging.style);
        let cursor = if style == Some(PagingStyle::EdgeCursors) { "cursor " } else { "" };
        let mut parts = Vec::new();
        if self.users.count {
            parts.push("count".to_owned());
        }
        if style == Some(PagingStyle::Relay) {
            parts.push("pageInfo { hasNextPage endCursor }".to_owned());
        }
        parts.push(format!("edges {{ {cursor}node {{ {node} }} }}"));
        let declared = if declarations.is_empty() { String::new() } else { format!("({})", declarations.join(", ")) };
        let passed = if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
        let mut text =
            format!("query SupportScanUsers{declared} {{\n  paginatedUsers{passed} {{ {} }}\n}}", parts.join(" "));
        if cards {
            text = format!("{text}\n{}", self.fragment());
        }
        text
    }

    /// The variables of a scan's page after `cursor` (the first page for `None`).
    pub fn scan_variables(&self, cursor: Option<&str>) -> Value {
        let mut variables = Map::new();
        if let Some(first) = &self.users.first {
            variables.insert(first.name.clone(), Value::from(PAGE_SIZE));
        }
        if let Some(after) = &self.users.after {
            variables.insert(after.name.clone(), cursor.map_or(Value::Null, Value::from));
        }
        Value::Object(variables)
    }

    /// Groups whose name contains `filter` (all for an empty one) for the picker; `None` when
    /// the schema has no list of groups. Without a name filter in the schema, the first page is
    /// listed and the names are compared by the caller.
    pub fn groups_named(&self, filter: &str) -> Option<GraphQlRequest> {
        let search = self.group_search.as_ref()?;
        let filter = filter.trim();
        let mut declarations = Vec::new();
        let mut passed = Vec::new();
        let mut variables = Map::new();
        if let Some(first) = &search.first {
            declarations.push(first.declaration());
            passed.push(first.pass());
            variables.insert(first.name.clone(), Value::from(GROUP_CHOICES));
        }
        if let Some(name) = &search.name {
            declarations.push(name.declaration());
            passed.push(name.pass());
            variables.insert(name.name.clone(), (!filter.is_empty()).then_some(filter).into());
        }
        let nodes = if search.connection {
            format!("{{ edges {{ node {{ {} }} }} }}", search.selection)
        } else {
            format!("{{ {} }}", search.selection)
        };
        let declared = if declarations.is_empty() { String::new() } else { format!("({})", declarations.join(", ")) };
        let passed = if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
        Some(request(
            format!("query SupportGroups{declared} {{\n  groups: {}{passed} {nodes}\n}}", search.field),
            Value::Object(variables),
        ))
    }

    /// The mutation that makes `action`, when the schema offers one.
    pub fn call(&self, action: &SupportAction) -> Option<&Call> {
        let m = &self.mutations;
        match action {
            SupportAction::Activate => m.activate.as_ref(),
            SupportAction::Archive => m.archive.as_ref(),
            SupportAction::Edit(edit) => m.edit.as_ref().filter(|call| {
                (edit.name.is_none() || call.sets("name")) && (edit.email.is_none() || call.sets("email"))
            }),
            SupportAction::AddToGroup(_) => m.add_to_group.as_ref(),
            SupportAction::RemoveFromGroup(_) => m.remove_from_group.as_ref(),
        }
    }

    /// The mutation for `action` on the user with `user_ref`, the values as variables; `None`
    /// when the schema offers no mutation for it. Its answer is under the alias `result`.
    pub fn action_request(&self, action: &SupportAction, user_ref: &str) -> Option<GraphQlRequest> {
        self.action_request_by_id(action, user_ref, None)
    }

    /// [`Capabilities::action_request`] for a user whose `id` was read, for the mutations that
    /// name users by id ([`super::Call::needs_id`]); `None` without it.
    pub fn action_request_by_id(
        &self,
        action: &SupportAction,
        user_ref: &str,
        id: Option<&str>,
    ) -> Option<GraphQlRequest> {
        let call = self.call(action)?;
        let settings = settings(action);
        let group = match action {
            SupportAction::AddToGroup(group) | SupportAction::RemoveFromGroup(group) => Some(group),
            _ => None,
        };
        let mut declarations = Vec::new();
        let mut passed = Vec::new();
        let mut variables = Map::new();
        for (arg, supply) in &call.args {
            let value = match supply {
                Supply::UserRef => Value::from(user_ref),
                Supply::UserRefs => json!([user_ref]),
                Supply::GroupRef => Value::from(group.map(|g: &GroupRef| g.ref_.as_str())?),
                Supply::GroupId => Value::from(group.map(|g: &GroupRef| g.id.as_str())?),
                Supply::Input => Value::Object(settings.clone()),
                Supply::UserId => Value::from(id?),
                Supply::UserRefIn(field) => json!({ field.as_str(): user_ref }),
                Supply::UserIdIn(field) => json!({ field.as_str(): id? }),
                Supply::InputKeyed { id: id_field, nest } => {
                    let mut input = match nest {
                        Some(nest) => Map::from_iter([(nest.clone(), Value::Object(settings.clone()))]),
                        None => settings.clone(),
                    };
                    if let Some(field) = id_field {
                        input.insert(field.clone(), Value::from(id?));
                    }
                    Value::Object(input)
                }
                Supply::Field => match settings.get(&arg.name) {
                    Some(value) => value.clone(),
                    None => continue,
                },
            };
            declarations.push(arg.declaration());
            passed.push(arg.pass());
            variables.insert(arg.name.clone(), value);
        }
        let operation = match action {
            SupportAction::Activate => "SupportActivateUser",
            SupportAction::Archive => "SupportArchiveUser",
            SupportAction::Edit(_) => "SupportEditUser",
            SupportAction::AddToGroup(_) => "SupportAddToGroup",
            SupportAction::RemoveFromGroup(_) => "SupportRemoveFromGroup",
        };
        let declared = if declarations.is_empty() { String::new() } else { format!("({})", declarations.join(", ")) };
        let passed = if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
        let mut text =
            format!("mutation {operation}{declared} {{\n  result: {}{passed} {}\n}}", call.field, call.selection);
        text = text.replace(" \n}", "\n}");
        if call.returns_user() {
            text = format!("{text}\n{}", self.fragment());
        }
        Some(request(text, Value::Object(variables)))
    }
}

/// The user fields an action sets: `isActive` for activate and archive (through an update), the
/// changed name and email for an edit.
pub(crate) fn settings(action: &SupportAction) -> Map<String, Value> {
    let mut settings = Map::new();
    match action {
        SupportAction::Activate => {
            settings.insert("isActive".into(), Value::Bool(true));
        }
        SupportAction::Archive => {
            settings.insert("isActive".into(), Value::Bool(false));
        }
        SupportAction::Edit(edit) => {
            if let Some(name) = &edit.name {
                settings.insert("name".into(), Value::from(name.as_str()));
            }
            if let Some(email) = &edit.email {
                settings.insert("email".into(), Value::from(email.as_str()));
            }
        }
        SupportAction::AddToGroup(_) | SupportAction::RemoveFromGroup(_) => {}
    }
    settings
}

fn request(query: String, variables: Value) -> GraphQlRequest {
    GraphQlRequest { query, variables: Some(variables), operation_name: None }
}
