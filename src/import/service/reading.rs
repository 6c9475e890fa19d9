//! Reading the import's current users: by ref look-up, or one paged scan when that is fewer
//! requests (and always when every user is asked for), and the keys of the service's lists of
//! entries (the extra categories) that columns may set.

use std::collections::HashMap;
use std::sync::Arc;

use apollo_compiler::Schema;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::api::{ApiError, Client, GraphQlRequest, Pager};
use crate::import::keys::Keys;
use crate::import::plan::{self, Current, ServiceUser};
use crate::import::target::{KeyInfo, Target};
use crate::query::{PagingOptions, detect_paging};
use crate::shape;

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
            let key = node.get(&keys.key).map(plan::text).filter(|k| !k.is_empty())?;
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
