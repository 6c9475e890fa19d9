//! Sending one row's mutations, built from the mutations' shapes ([`Target`]): what is still to
//! send now that the service's user is known, a create, an update, an archive or activation and
//! the group changes, or one bulk creation; each read back where the service may have moved more
//! than it was asked. Failures come from GraphQL errors and from payload errors alike.

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::reading::{Reading, look_up};
use crate::api::{ApiError, Client, GraphQlRequest};
use crate::import::plan::{self, Action, Current, PlannedRow, same};
use crate::import::target::Target;
use crate::shape::{self, Key, Mutation, Supply};

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
        changes: Vec<plan::Change>,
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
                plan::text(&c.old),
                plan::text(&c.new),
                plan::text(v)
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
            let answer =
                match call(client, create, &row.key, None, values, None, None, answer_of(reading), cancel).await? {
                    Ok(answer) => answer,
                    Err(outcome) => return Ok(outcome),
                };
            created_id = answer.get("id").map(plan::text);
            id.clone_from(&created_id);
            // Read back too: what the service stored is what was sent, from the answer where it
            // carries the fields, else read again.
            if let Some(reading) = reading {
                let after = if reading.fields.iter().all(|f| answer.get(f).is_some()) {
                    answer
                } else {
                    let again = look_up(client, reading, &row.key, cancel).await?;
                    again.map(|c| c.as_value(&row.key)).unwrap_or(Value::Null)
                };
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
                    if let Some(moved) = moved_outcome(&moved) {
                        return Ok(moved);
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
    Ok(moved_outcome(&moved).map_or_else(|| Ok(held(sent, &after)), Err))
}

/// What moved in a read-back as the row's failure: each field old → new, and the fields that
/// moved unasked (old → found) for the undo; `None` when nothing moved.
fn moved_outcome(moved: &[shape::Moved]) -> Option<Outcome> {
    let first = moved.first()?;
    let message = moved.iter().map(|m| m.sentence("the file")).collect::<Vec<_>>().join("; ");
    let changes = moved
        .iter()
        .filter(|m| !m.asked)
        .map(|m| plan::Change { field: m.field.clone(), old: m.before.clone(), new: m.found.clone() })
        .collect();
    Some(Outcome::Moved { message, field: first.field.clone(), changes })
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
                Some(user) => Outcome::Done { created_id: user.get("id").map(plan::text), note: String::new() },
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_named_by_id_gets_the_id_read_and_never_the_ref_in_its_place() {
        let fields = vec!["ref".to_owned(), "name".to_owned()];
        let values: Map<String, Value> = json!({ "name": "Ada" }).as_object().unwrap().clone();
        let by_id = ("id".to_owned(), Key::Id);
        // Only what changes, the id beside it; the `ref` field left alone.
        let input = input_object(&fields, Some(&by_id), None, &values, "u1", Some("VXNlcjox"));
        assert_eq!(input, Some(json!({ "id": "VXNlcjox", "name": "Ada" })));
        // No id read: nothing to send (the row refuses with a sentence before anything is sent).
        assert_eq!(input_object(&fields, Some(&by_id), None, &values, "u1", None), None);
        assert_eq!(input_object(&fields, Some(&by_id), None, &values, "u1", Some("")), None);
        let Outcome::Failed { message, .. } = no_id("updateUser", "u1") else { panic!("a failure") };
        assert!(message.contains("could not be read; nothing was sent"), "{message}");
        // Nested: the changes in `patch`, the id at the top (PostGraphile); a creation's ref inside.
        let patch = ("patch".to_owned(), "UserPatch".to_owned());
        let nested = input_object(&fields, Some(&by_id), Some(&patch), &values, "u1", Some("1"));
        assert_eq!(nested, Some(json!({ "id": "1", "patch": { "name": "Ada" } })));
        let user = ("user".to_owned(), "UserInput".to_owned());
        let create = input_object(&fields, None, Some(&user), &values, "n1", None);
        assert_eq!(create, Some(json!({ "user": { "ref": "n1", "name": "Ada" } })));
    }
}
