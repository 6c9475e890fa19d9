//! The import's requests: the current users (by ref look-up, or one paged scan when that is
//! fewer requests), and one row's mutations, built from the mutations' shapes ([`Target`]).
//! Failures come from GraphQL errors and from payload errors alike.

use std::collections::HashMap;
use std::sync::Arc;

use apollo_compiler::Schema;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::keys::Keys;
use super::plan::{Action, Current, PlannedRow, ServiceUser, same};
use super::target::{KeyInfo, Target};
use crate::api::{ApiError, Client, GraphQlRequest, Pager};
use crate::query::{PagingOptions, detect_paging};
use crate::shape::{self, Key, Mutation, Supply};

/// What the import reads of each user.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The selection of a user (`{ id ref name isActive groups { ref } }`).
    pub selection: String,
    /// The fields compared (the user type's names).
    pub fields: Vec<String>,
    /// Whether groups are read.
    pub groups: bool,
    /// The field that says whether a user is active, when the user type has one.
    pub active: Option<String>,
    /// The lists of entries read (extra fields), every entry of which lands in
    /// [`Current::values`] as `list.key` (`extraFields.department`).
    pub entries: Vec<shape::Entries>,
    /// The entry fields compared (`extraFields.department`): null when the user has no such entry.
    pub entry_fields: Vec<String>,
}

impl Reading {
    /// What to read for `fields` (input field names), and the groups when `groups`.
    pub fn new(schema: &Schema, target: &Target, fields: &[&str], groups: bool) -> Reading {
        let mut read: Vec<String> = Vec::new();
        let own = |name: &str| {
            shape::field(schema, &target.user_type, name).filter(|f| shape::is_leaf(schema, f.ty.inner_named_type()))
        };
        // A replace-style update sends the whole record: every field its input has is read.
        let whole: Vec<String> = target.replace.as_ref().map(|r| r.outputs()).unwrap_or_default();
        for name in fields.iter().copied().chain(target.active_field.as_deref()).chain(whole.iter().map(String::as_str))
        {
            if own(name).is_some() && !read.iter().any(|r| r == name) && name != "id" && name != "ref" {
                read.push(name.to_owned());
            }
        }
        let groups = groups
            && shape::field(schema, &target.user_type, "groups")
                .is_some_and(|g| shape::field(schema, g.ty.inner_named_type(), "ref").is_some());
        let mut entries: Vec<shape::Entries> = Vec::new();
        let mut entry_fields = Vec::new();
        for name in fields {
            if let Some((list, _)) = target.entry_of(name) {
                if !entries.contains(&list.shape) {
                    entries.push(list.shape.clone());
                }
                if !entry_fields.iter().any(|f| f == name) {
                    entry_fields.push((*name).to_owned());
                }
            }
        }
        let mut selection = format!("{{ id ref {}", read.join(" "));
        if groups {
            selection.push_str(" groups { ref }");
        }
        for list in &entries {
            selection.push_str(&format!(" {} {}", list.output, list.selection()));
        }
        selection.push_str(" }");
        Reading { selection, fields: read, groups, active: target.active_field.clone(), entries, entry_fields }
    }

    /// A user's answer as [`Current`].
    pub fn current(&self, user: &Value) -> Option<(String, Current)> {
        let key = user.get("ref")?.as_str()?.to_owned();
        let id = user.get("id").map(crate::import::plan::text).unwrap_or_default();
        let mut values = Map::new();
        for f in &self.fields {
            values.insert(f.clone(), user.get(f).cloned().unwrap_or(Value::Null));
        }
        for f in &self.entry_fields {
            values.insert(f.clone(), Value::Null);
        }
        // Every entry the user has, not only those compared: an update sends the whole list.
        for list in &self.entries {
            for entry in user.get(&list.output).and_then(Value::as_array).into_iter().flatten() {
                let Some(key) = shape::at(entry, &list.key_path).and_then(Value::as_str) else { continue };
                let value = entry.get(&list.value_output).cloned().unwrap_or(Value::Null);
                values.insert(format!("{}.{key}", list.input), value);
            }
        }
        let groups = self.groups.then(|| {
            user.get("groups")
                .and_then(Value::as_array)
                .map(|gs| gs.iter().filter_map(|g| g.get("ref")?.as_str().map(str::to_owned)).collect())
                .unwrap_or_default()
        });
        Some((key, Current { id, values, groups }))
    }
}

/// Asks the service which keys its lists of entries have (the extra categories), so that a
/// column can set each as a field of its own ([`Target::add_entry_keys`]). A list the service
/// does not let this connection read (a scope, an error) offers no keys, and [`Target::notes`]
/// says why: its columns are then listed as unmapped, as any column that sets nothing.
pub async fn read_entry_keys(
    client: &Arc<Client>,
    schema: &Schema,
    target: &mut Target,
    cancel: &CancellationToken,
) -> Result<(), ApiError> {
    let lists: Vec<shape::Entries> = target.entries.iter().map(|e| e.shape.clone()).collect();
    for list in lists {
        let (Some(query), Some(keys)) = (list.keys_query(), list.keys.clone()) else { continue };
        let info = |node: &Value| {
            let key = node.get(&keys.key).map(super::plan::text).filter(|k| !k.is_empty())?;
            let label = keys.name.as_ref().and_then(|n| node.get(n)).and_then(Value::as_str).map(str::to_owned);
            let allowed = keys
                .allowed
                .as_ref()
                .and_then(|a| node.get(a))
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            Some(KeyInfo { key, label, allowed })
        };
        let mut found = Vec::new();
        let read = async {
            if keys.connection {
                let paging = detect_paging(schema, &query, None).map_err(ApiError::Document)?;
                let options = PagingOptions { ensure_count: false, paging: Some(paging) };
                let mut pager = Pager::new(client.clone(), &query, None, None, options)?;
                // Bounded: a service that pages forever gives its first thousand pages' keys.
                for _ in 0..1000 {
                    let Some(page) = pager.next_page(cancel).await? else { break };
                    found.extend(pager.site().nodes(&page.data).filter_map(info));
                    if !page.has_next {
                        break;
                    }
                }
            } else {
                let request = GraphQlRequest { query: query.clone(), variables: None, operation_name: None };
                let data = client.execute(&request, cancel).await?.response.into_data()?;
                let nodes = data.get(&keys.field).and_then(Value::as_array).cloned().unwrap_or_default();
                found.extend(nodes.iter().filter_map(info));
            }
            Ok::<(), ApiError>(())
        };
        match read.await {
            Ok(()) => target.add_entry_keys(&list.input, found),
            Err(ApiError::Cancelled) => return Err(ApiError::Cancelled),
            Err(e) => target.notes.push(format!(
                "the service's {} could not be listed ({e:#}), so no column sets them",
                list.keys.as_ref().map_or(list.input.as_str(), |k| k.field.as_str())
            )),
        }
    }
    Ok(())
}

/// The current users of the file's keys, and (with `all`) every user's key and whether it is
/// active; `on_request` is told of each request made.
pub struct Found {
    /// The users found, by key.
    pub users: HashMap<String, Current>,
    /// Every user of the service (key, active, groups when read), when a whole scan was made.
    pub all: Option<Vec<ServiceUser>>,
    /// Requests made.
    pub requests: u64,
}

/// Reads the users under `keys`: one look-up each, or one paged scan of all users when that is
/// fewer requests (always when `all` is asked).
pub async fn read_users(
    client: &Arc<Client>,
    schema: &Schema,
    reading: &Reading,
    keys: &Keys,
    all: bool,
    cancel: &CancellationToken,
    mut on_request: impl FnMut(u64, Option<u64>),
) -> Result<Found, ApiError> {
    let mut found = Found { users: HashMap::new(), all: all.then(Vec::new), requests: 0 };
    if keys.is_empty() && !all {
        return Ok(found);
    }
    let query = format!("query {{ paginatedUsers {{ count edges {{ node {} }} }} }}", reading.selection);
    let paging = detect_paging(schema, &query, None).map_err(ApiError::Document)?;
    let options = PagingOptions { ensure_count: true, paging: Some(paging) };
    let mut pager = Pager::new(client.clone(), &query, None, None, options)?;
    let active = reading.active.clone();
    loop {
        let Some(page) = pager.next_page(cancel).await? else { break };
        found.requests += 1;
        for node in pager.site().nodes(&page.data) {
            if let Some((key, current)) = reading.current(node) {
                if let Some(list) = &mut found.all {
                    let is_active = active.as_ref().and_then(|a| current.values.get(a)).and_then(Value::as_bool);
                    let groups = current.groups.as_ref().map(|g| g.iter().cloned().collect());
                    list.push(ServiceUser { key: key.clone(), active: is_active.unwrap_or(true), groups });
                }
                if keys.contains(&key) {
                    found.users.insert(key, current);
                }
            }
        }
        let pages_left = match (page.total, page.nodes) {
            (Some(total), n) if n > 0 => total.saturating_sub(page.nodes_so_far).div_ceil(n as u64),
            _ => u64::MAX,
        };
        on_request(found.requests, page.total.map(|t| t.div_ceil(page.nodes.max(1) as u64)));
        if !page.has_next {
            return Ok(found);
        }
        // Only keys of the file are kept, so what is left to find is a difference (counting the
        // keys again each page made a 100,000-row plan take half a minute).
        let unread = keys.len().saturating_sub(found.users.len()) as u64;
        if !all && unread < pages_left {
            break;
        }
    }
    // Look-ups for the rest: fewer requests than the pages left.
    let unread: Vec<String> = keys.iter().filter(|k| !found.users.contains_key(*k)).map(str::to_owned).collect();
    for key in unread {
        found.requests += 1;
        if let Some(current) = look_up(client, reading, &key, cancel).await? {
            found.users.insert(key, current);
        }
        on_request(found.requests, None);
    }
    Ok(found)
}

/// The user under `key`, read now (`None`: no such user).
pub async fn look_up(
    client: &Client,
    reading: &Reading,
    key: &str,
    cancel: &CancellationToken,
) -> Result<Option<Current>, ApiError> {
    let request = GraphQlRequest {
        query: format!("query($key: String!) {{ user(ref: $key) {} }}", reading.selection),
        variables: Some(json!({ "key": key })),
        operation_name: None,
    };
    let exchange = client.execute(&request, cancel).await?;
    let response = exchange.response;
    // No such user: `user` is null (the sandbox adds an error saying so; that is the answer).
    match response.data.as_ref().and_then(|d| d.get("user")) {
        Some(user) if user.is_object() => Ok(reading.current(user).map(|(_, c)| c)),
        Some(Value::Null) => Ok(None),
        _ => response.into_data().map(|_| None),
    }
}

/// How one row came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Applied; the id of a created user.
    Done {
        /// The created user's id.
        created_id: Option<String>,
        /// A note (`already as the file says`).
        note: String,
    },
    /// Refused.
    Failed {
        /// What the service said.
        message: String,
        /// The field or path it named.
        field: String,
    },
    /// Changed on the service since the plan.
    Conflict {
        /// Which fields, old → now.
        message: String,
    },
    /// Applied, but read back the service has moved fields it was not asked to (a replace-style
    /// update clearing what was left out) or not set what it was asked: the row's failure, with
    /// what moved (old → found) for the undo.
    Moved {
        /// `the service changed isActive: true → false though the file did not ask for it`.
        message: String,
        /// The first field that moved.
        field: String,
        /// Each moved field: old → what the service has now.
        changes: Vec<super::plan::Change>,
    },
}

/// What is still to send of `row` now that the service has `now` for it: `Ok(None)` when the
/// service already has what the row says; `Err(message)` on a conflict (a field changed since
/// the plan, to neither the old nor the new value) unless `overwrite`.
pub fn still_to_send(row: &PlannedRow, now: Option<&Current>, overwrite: bool) -> Result<Option<PlannedRow>, String> {
    let Some(now) = now else {
        return match row.action {
            Action::Create => Ok(Some(row.clone())),
            _ => Err("the user no longer exists on the service".to_owned()),
        };
    };
    if row.action == Action::Create {
        // Created already (by an interrupted run of this import, or by someone else since).
        let all_there = row.changes.iter().all(|c| now.values.get(&c.field).is_none_or(|v| same(v, &c.new)));
        return if all_there || overwrite {
            Ok(None)
        } else {
            Err("a user with this ref was created since the plan".to_owned())
        };
    }
    let mut rest = row.clone();
    let mut conflicts = Vec::new();
    rest.changes.retain(|c| match now.values.get(&c.field) {
        Some(v) if same(v, &c.new) => false,
        Some(v) if !same(v, &c.old) => {
            conflicts.push(format!(
                "{}: planned {} → {}, now {}",
                c.field,
                super::plan::text(&c.old),
                super::plan::text(&c.new),
                super::plan::text(v)
            ));
            true
        }
        _ => true,
    });
    if let Some(groups) = &now.groups {
        rest.add_groups.retain(|g| !groups.contains(g));
        rest.remove_groups.retain(|g| groups.contains(g));
    }
    if !conflicts.is_empty() && !overwrite {
        return Err(format!("changed on the service since the plan: {}", conflicts.join("; ")));
    }
    if rest.changes.is_empty() && rest.add_groups.is_empty() && rest.remove_groups.is_empty() {
        return Ok(None);
    }
    Ok(Some(rest))
}

/// Sends `row`'s mutations (what is left of it): a create, an update of the changed fields, then
/// an archive or activation, then the group changes. Stops at the first refusal.
pub async fn send(
    client: &Client,
    target: &Target,
    reading: Option<&Reading>,
    row: &PlannedRow,
    now: Option<&Current>,
    cancel: &CancellationToken,
) -> Result<Outcome, ApiError> {
    let active = target.active_field.as_deref();
    let mut created_id = None;
    let mut note = String::new();
    let mut id = now.map(|c| c.id.clone());
    match row.action {
        Action::Create => {
            let Some(create) = &target.create else { return Ok(failed("the service cannot create users", "")) };
            let mut values: Map<String, Value> = row.changes.iter().map(|c| (c.field.clone(), c.new.clone())).collect();
            pack_entries(target, &mut values, None);
            // A joiner is active unless the file says otherwise: a form's missing checkbox would
            // create them archived.
            if let Some(active) = active
                && !values.contains_key(active)
                && create.sets().contains(&active)
            {
                values.insert(active.to_owned(), Value::Bool(true));
            }
            let sent = values.clone();
            match call(client, create, &row.key, None, values, None, None, "{ id }", cancel).await? {
                Ok(answer) => {
                    created_id = answer.get("id").map(super::plan::text);
                    id.clone_from(&created_id);
                }
                Err(outcome) => return Ok(outcome),
            }
            // A replace-style service's creation is read back too: what it stored is what was sent.
            if target.replace.is_some()
                && let Some(reading) = reading
            {
                let after = look_up(client, reading, &row.key, cancel).await?;
                let after = after.map(|c| c.as_value(&row.key)).unwrap_or(Value::Null);
                let fields = sent.keys().filter(|f| reading.fields.contains(f)).map(|f| (f.as_str(), f.as_str()));
                let moved = shape::compare(fields, &Value::Null, &sent, &after);
                if let Some(first) = moved.first() {
                    let message = moved.iter().map(|m| m.sentence("the file")).collect::<Vec<_>>().join("; ");
                    return Ok(Outcome::Failed { message, field: first.field.clone() });
                }
                note = held(&sent, &after);
            }
        }
        Action::Update | Action::Archive | Action::Activate => {
            // The state change by its own mutation when there is one; else in the update.
            let by_own = match row.action {
                Action::Archive => target.archive.as_ref(),
                Action::Activate => target.activate.as_ref(),
                _ => None,
            };
            let mut values: Map<String, Value> = row
                .changes
                .iter()
                .filter(|c| by_own.is_none() || Some(c.field.as_str()) != active)
                .map(|c| (c.field.clone(), c.new.clone()))
                .collect();
            pack_entries(target, &mut values, now);
            if !values.is_empty() {
                let Some(update) = &target.update else { return Ok(failed("the service cannot update users", "")) };
                if let (Some(replace), Some(reading)) = (&target.replace, reading) {
                    // The whole record: what the service has, the changes over it, read back.
                    let Some(now) = now else { return Ok(failed("the user no longer exists on the service", "")) };
                    let before = now.as_value(&row.key);
                    let whole = match replace.input(&before, &values) {
                        Ok(whole) => whole,
                        Err(why) => return Ok(failed(&why, "")),
                    };
                    let named = id.as_deref().or(Some(now.id.as_str())).filter(|i| !i.is_empty());
                    if let Err(outcome) =
                        call(client, update, &row.key, named, Map::new(), None, Some(whole), "{ id }", cancel).await?
                    {
                        return Ok(outcome);
                    }
                    let after = look_up(client, reading, &row.key, cancel).await?;
                    let after = after.map(|c| c.as_value(&row.key)).unwrap_or(Value::Null);
                    let moved = replace.moved(&before, &values, &after);
                    if let Some(first) = moved.first() {
                        let message = moved.iter().map(|m| m.sentence("the file")).collect::<Vec<_>>().join("; ");
                        let changes = moved
                            .iter()
                            .filter(|m| !m.asked)
                            .map(|m| super::plan::Change {
                                field: m.field.clone(),
                                old: m.before.clone(),
                                new: m.found.clone(),
                            })
                            .collect();
                        return Ok(Outcome::Moved { message, field: first.field.clone(), changes });
                    }
                    note = held(&values, &after);
                } else {
                    let answer = match call(
                        client,
                        update,
                        &row.key,
                        id.as_deref(),
                        values.clone(),
                        None,
                        None,
                        answer_of(reading),
                        cancel,
                    )
                    .await?
                    {
                        Ok(answer) => answer,
                        Err(outcome) => return Ok(outcome),
                    };
                    match read_back(client, reading, &row.key, now, &values, &answer, cancel).await? {
                        Ok(held) => note = held,
                        Err(moved) => return Ok(moved),
                    }
                }
            }
            let state_change: Map<String, Value> = row
                .changes
                .iter()
                .filter(|c| Some(c.field.as_str()) == active)
                .map(|c| (c.field.clone(), c.new.clone()))
                .collect();
            if let (Some(own), false) = (by_own, state_change.is_empty()) {
                let answer = match call(
                    client,
                    own,
                    &row.key,
                    id.as_deref(),
                    Map::new(),
                    None,
                    None,
                    answer_of(reading),
                    cancel,
                )
                .await?
                {
                    Ok(answer) => answer,
                    Err(outcome) => return Ok(outcome),
                };
                // What moved since the update is the state only; read against the row as updated.
                let updated = now.map(|n| {
                    let mut n = n.clone();
                    n.values.extend(
                        row.changes
                            .iter()
                            .filter(|c| Some(c.field.as_str()) != active)
                            .map(|c| (c.field.clone(), c.new.clone())),
                    );
                    n
                });
                if let Err(moved) =
                    read_back(client, reading, &row.key, updated.as_ref(), &state_change, &answer, cancel).await?
                {
                    return Ok(moved);
                }
            }
        }
        Action::Unchanged | Action::Invalid => {}
    }
    for (groups, mutation, what) in [
        (&row.add_groups, &target.add_to_group, "add users to groups"),
        (&row.remove_groups, &target.remove_from_group, "remove users from groups"),
    ] {
        if groups.is_empty() {
            continue;
        }
        let Some(mutation) = mutation else { return Ok(failed(&format!("the service cannot {what}"), "groups")) };
        for group in groups {
            if let Err(outcome) =
                call(client, mutation, &row.key, id.as_deref(), Map::new(), Some(group), None, "{ id }", cancel).await?
            {
                return Ok(outcome);
            }
        }
    }
    Ok(Outcome::Done { created_id, note })
}

/// What the service holds of the clearings in `sent` that it stored its own way (`department:
/// cleared; the service holds null`), for the results file; empty when it holds what was sent.
fn held(sent: &Map<String, Value>, after: &Value) -> String {
    let shown = |v: &Value| match v {
        Value::String(s) if s.is_empty() => "\"\"".to_owned(),
        other => other.to_string(),
    };
    sent.iter()
        .filter(|(_, value)| shape::is_cleared(value))
        .filter_map(|(field, value)| {
            // A field not read back says nothing.
            let found = after.get(field)?;
            (found != value).then(|| format!("{field}: cleared; the service holds {}", shown(found)))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// What a change's answer selects of the user: what the import reads of them, so that the
/// answer itself can be compared.
fn answer_of(reading: Option<&Reading>) -> &str {
    reading.map_or("{ id }", |r| r.selection.as_str())
}

/// Reads back what `sent` (field → value) made of the user `before`: from the mutation's own
/// answer when it carries every field compared, else from the user read again. A field that did
/// not come back as sent, or moved without being asked, is the row's failure (`Err`), said old →
/// new and kept for the undo; otherwise the note of what a clearing left ([`held`]; empty when
/// there is nothing to compare).
async fn read_back(
    client: &Client,
    reading: Option<&Reading>,
    key: &str,
    before: Option<&Current>,
    sent: &Map<String, Value>,
    answer: &Value,
    cancel: &CancellationToken,
) -> Result<Result<String, Outcome>, ApiError> {
    let (Some(reading), Some(before)) = (reading, before) else { return Ok(Ok(String::new())) };
    let carries = reading.fields.iter().all(|f| answer.get(f).is_some());
    let after = if carries {
        answer.clone()
    } else {
        let again = look_up(client, reading, key, cancel).await?;
        again.map(|c| c.as_value(key)).unwrap_or(Value::Null)
    };
    let fields = reading.fields.iter().map(|f| (f.as_str(), f.as_str()));
    let moved = shape::compare(fields, &before.as_value(key), sent, &after);
    let Some(first) = moved.first() else { return Ok(Ok(held(sent, &after))) };
    let message = moved.iter().map(|m| m.sentence("the file")).collect::<Vec<_>>().join("; ");
    let changes = moved
        .iter()
        .filter(|m| !m.asked)
        .map(|m| super::plan::Change { field: m.field.clone(), old: m.before.clone(), new: m.found.clone() })
        .collect();
    Ok(Err(Outcome::Moved { message, field: first.field.clone(), changes }))
}

/// Puts the entry fields of `values` (`extraFields.department`) into their lists as the input
/// takes them (`extraFields: [{ categoryRef: "department", value: "HR" }]`): the user's other
/// entries as `now` has them, then the changed ones, so that a service that replaces the whole
/// list keeps what the file does not change, and one that merges entry by entry changes only
/// those.
fn pack_entries(target: &Target, values: &mut Map<String, Value>, now: Option<&Current>) {
    for list in &target.entries {
        let prefix = format!("{}.", list.shape.input);
        let changed: Vec<(String, Value)> =
            values.iter().filter(|(f, _)| f.starts_with(&prefix)).map(|(f, v)| (f.clone(), v.clone())).collect();
        if changed.is_empty() {
            continue;
        }
        let mut merged: std::collections::BTreeMap<String, Value> = now
            .map(|n| {
                let theirs = n.values.iter().filter(|(f, v)| f.starts_with(&prefix) && !v.is_null());
                theirs.map(|(f, v)| (f.clone(), v.clone())).collect()
            })
            .unwrap_or_default();
        for (field, value) in changed {
            values.remove(&field);
            merged.insert(field, value);
        }
        let items: Vec<Value> = merged
            .into_iter()
            .filter(|(_, v)| !v.is_null() || now.is_some())
            .map(|(field, value)| {
                let mut entry = Map::new();
                entry.insert(list.shape.key_input.clone(), Value::from(&field[prefix.len()..]));
                entry.insert(list.shape.value_input.clone(), value);
                Value::Object(entry)
            })
            .collect();
        values.insert(list.shape.input.clone(), Value::Array(items));
    }
}

fn failed(message: &str, field: &str) -> Outcome {
    Outcome::Failed { message: message.to_owned(), field: field.to_owned() }
}

/// How the user `key` (or `id`) is given where `k` is asked for; `None` when the id is asked
/// and was not read (never another key in its place).
fn key_value(k: Key, key: &str, id: Option<&str>) -> Option<Value> {
    match k {
        Key::Ref => Some(Value::from(key)),
        Key::Id => id.filter(|i| !i.is_empty()).map(Value::from),
    }
}

/// Why a mutation that names the user by id cannot be sent for `key`.
fn no_id(mutation: &str, key: &str) -> Outcome {
    failed(
        &format!(
            "the service's {mutation} names the user by its id, and the id of '{key}' could not be read; nothing was \
             sent — check that the user exists and try again"
        ),
        "",
    )
}

/// A GraphQL error as a row's refusal: the sandbox and many services name the input at fault
/// first (`input.email: not a valid address`), else the error's path does.
fn graphql_refusal(error: &crate::api::GraphQlError) -> Outcome {
    let field = error
        .message
        .split_once(": ")
        .map(|(f, _)| f)
        .filter(|f| !f.contains(' ') && !f.is_empty())
        .map_or_else(|| error.path_text(), str::to_owned);
    Outcome::Failed { message: error.message.clone(), field }
}

/// The errors a payload returned as data as a row's refusal, when there are any.
fn payload_refusal(errors: &[shape::PayloadError]) -> Option<Outcome> {
    let first = errors.first()?;
    let message = errors.iter().map(|e| e.sentence()).collect::<Vec<_>>().join("; ");
    Some(Outcome::Failed { message, field: first.field.clone().unwrap_or_default() })
}

/// The input object of a mutation taking `fields` (the key inside it as `inside`; the fields
/// nested in the field `nest`, the key beside it) for the user `key` (or `id`) with `values`:
/// only what changes.
fn input_object(
    fields: &[String],
    inside: Option<&(String, Key)>,
    nest: Option<&(String, String)>,
    values: &Map<String, Value>,
    key: &str,
    id: Option<&str>,
) -> Option<Value> {
    let mut input: Map<String, Value> =
        values.iter().filter(|(f, _)| fields.contains(f)).map(|(f, v)| (f.clone(), v.clone())).collect();
    if inside.is_none() && fields.iter().any(|f| f == "ref") {
        input.insert("ref".to_owned(), Value::from(key));
    }
    if let Some((field, _)) = nest {
        input = Map::from_iter([(field.clone(), Value::Object(input))]);
    }
    if let Some((field, k)) = inside {
        input.insert(field.clone(), key_value(*k, key, id)?);
    }
    Some(Value::Object(input))
}

/// The users under `keys`, read now in one request (`None`: no such user), in their order.
pub async fn look_up_many(
    client: &Client,
    reading: &Reading,
    keys: &[&str],
    cancel: &CancellationToken,
) -> Result<Vec<Option<Current>>, ApiError> {
    let declared: Vec<String> = (0..keys.len()).map(|i| format!("$k{i}: String!")).collect();
    let fields: Vec<String> =
        (0..keys.len()).map(|i| format!("k{i}: user(ref: $k{i}) {}", reading.selection)).collect();
    let variables: Map<String, Value> =
        keys.iter().enumerate().map(|(i, k)| (format!("k{i}"), Value::from(*k))).collect();
    let request = GraphQlRequest {
        query: format!("query({}) {{ {} }}", declared.join(", "), fields.join(" ")),
        variables: Some(Value::Object(variables)),
        operation_name: None,
    };
    let response = client.execute(&request, cancel).await?.response;
    // A user that does not exist is null (with an error saying so, which is the answer).
    let Some(data) = response.data.as_ref().filter(|d| d.is_object()) else {
        return response.into_data().map(|_| vec![None; keys.len()]);
    };
    Ok((0..keys.len())
        .map(|i| data.get(format!("k{i}")).filter(|u| u.is_object()).and_then(|u| reading.current(u)).map(|(_, c)| c))
        .collect())
}

/// What a bulk creation said of each of its rows, in their order.
pub async fn send_batch(
    client: &Client,
    target: &Target,
    batch: &shape::Batch,
    rows: &[PlannedRow],
    cancel: &CancellationToken,
) -> Result<Vec<Option<Outcome>>, ApiError> {
    let Some(Supply::Input { fields, key: inside, nest }) = target
        .create
        .as_ref()
        .and_then(|c| c.args.iter().map(|(_, _, s)| s).find(|s| matches!(s, Supply::Input { .. })))
    else {
        return Ok(rows.iter().map(|_| Some(failed("the service cannot create users", ""))).collect());
    };
    let inputs: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut values: Map<String, Value> = row.changes.iter().map(|c| (c.field.clone(), c.new.clone())).collect();
            pack_entries(target, &mut values, None);
            input_object(fields, inside.as_ref(), nest.as_ref(), &values, &row.key, None)
        })
        .collect::<Option<_>>()
        .unwrap_or_default();
    if inputs.len() != rows.len() {
        return Ok(rows.iter().map(|row| Some(no_id(&batch.field, &row.key))).collect());
    }
    let request = GraphQlRequest {
        query: format!(
            "mutation($inputs: {}) {{ {}({}: $inputs) {} }}",
            batch.argument_type,
            batch.field,
            batch.argument,
            batch.selection("{ id }")
        ),
        variables: Some(json!({ "inputs": inputs })),
        operation_name: None,
    };
    let response = client.execute(&request, cancel).await?.response;
    let mut outcomes: Vec<Option<Outcome>> = vec![None; rows.len()];
    // GraphQL errors: of one input when their path says which (a list index), else of all.
    for error in &response.errors {
        let index = error.path.iter().find_map(|p| p.as_u64()).map(|i| i as usize).filter(|i| *i < rows.len());
        let outcome = graphql_refusal(error);
        match index {
            Some(i) => outcomes[i] = Some(outcome),
            None => outcomes.iter_mut().filter(|o| o.is_none()).for_each(|o| *o = Some(outcome.clone())),
        }
    }
    let answer = response.data.as_ref().and_then(|d| d.get(&batch.field)).cloned().unwrap_or(Value::Null);
    for (i, result) in batch.results(&answer).into_iter().enumerate().take(rows.len()) {
        if outcomes[i].is_some() {
            continue;
        }
        outcomes[i] = Some(match payload_refusal(&batch.item.errors(result)) {
            Some(refused) => refused,
            None => match batch.item.object(result) {
                Some(user) => Outcome::Done { created_id: user.get("id").map(super::plan::text), note: String::new() },
                // No user and no error: not said; left unknown, to be read again.
                None => continue,
            },
        });
    }
    Ok(outcomes)
}

/// One mutation for the user `key` (or `id`), with the input `values` and the group `group`:
/// the object answered, or the refusal (GraphQL errors or payload errors). `whole` is a
/// replace-style input sent as it is ([`shape::Replace::input`]).
#[allow(clippy::too_many_arguments)]
async fn call(
    client: &Client,
    mutation: &Mutation,
    key: &str,
    id: Option<&str>,
    values: Map<String, Value>,
    group: Option<&str>,
    whole: Option<Map<String, Value>>,
    object: &str,
    cancel: &CancellationToken,
) -> Result<Result<Value, Outcome>, ApiError> {
    let mut declared = Vec::new();
    let mut passed = Vec::new();
    let mut variables = Map::new();
    if let Some(why) = mutation.returns.unreadable(&mutation.field) {
        return Ok(Err(failed(&why, "")));
    }
    let by_key = |k: &Key| key_value(*k, key, id);
    // A key that cannot be given refuses the change before anything is sent.
    let missing_id = mutation.args.iter().any(|(_, _, supply)| match supply {
        Supply::UserKey(k) | Supply::UserKeys(k) | Supply::UserKeyObject(_, k) => by_key(k).is_none(),
        Supply::Input { key: Some((_, k)), .. } => whole.is_none() && by_key(k).is_none(),
        _ => false,
    });
    if missing_id {
        return Ok(Err(no_id(&mutation.field, key)));
    }
    for (i, (name, ty, supply)) in mutation.args.iter().enumerate() {
        let value = match supply {
            Supply::UserKey(k) => by_key(k).unwrap_or_default(),
            Supply::UserKeys(k) => Value::Array(vec![by_key(k).unwrap_or_default()]),
            Supply::UserKeyObject(field, k) => {
                Value::Object(Map::from_iter([(field.clone(), by_key(k).unwrap_or_default())]))
            }
            Supply::GroupKey(_) => match group {
                Some(g) => Value::from(g),
                None => continue,
            },
            Supply::Input { .. } if whole.is_some() => Value::Object(whole.clone().unwrap_or_default()),
            Supply::Input { fields, key: inside, nest } => {
                input_object(fields, inside.as_ref(), nest.as_ref(), &values, key, id).unwrap_or_default()
            }
            Supply::Field(field) => match values.get(field) {
                Some(v) => v.clone(),
                None => continue,
            },
            _ => continue,
        };
        declared.push(format!("$a{i}: {ty}"));
        passed.push(format!("{name}: $a{i}"));
        variables.insert(format!("a{i}"), value);
    }
    let selection = mutation.returns.selection(object);
    let arguments = if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
    let declared = if declared.is_empty() { String::new() } else { format!("({})", declared.join(", ")) };
    let request = GraphQlRequest {
        query: format!("mutation{declared} {{ {}{arguments} {selection} }}", mutation.field),
        variables: Some(Value::Object(variables)),
        operation_name: None,
    };
    let exchange = client.execute(&request, cancel).await?;
    let response = exchange.response;
    if let Some(error) = response.errors.first() {
        return Ok(Err(graphql_refusal(error)));
    }
    let answer = response.data.as_ref().and_then(|d| d.get(&mutation.field)).cloned().unwrap_or(Value::Null);
    if let Some(refused) = payload_refusal(&mutation.returns.errors(&answer)) {
        return Ok(Err(refused));
    }
    Ok(Ok(mutation.returns.object(&answer).cloned().unwrap_or(Value::Null)))
}
