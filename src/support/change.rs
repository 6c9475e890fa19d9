//! Acting on the service: the changes support staff make from the card (a [`SupportAction`]),
//! enrolling, and changing a related row's state — each sent as the connection's schema shapes
//! it ([`Capabilities`]), refused in one sentence before anything is sent when it cannot be sent
//! exactly (a union answer orgql cannot read, an id it could not read, a whole-record input it
//! cannot read back), and read back after: a field that moved unasked is the change's failure.
//! Finding (what to read, and reading it) is `run.rs`'s.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::action::SupportAction;
use super::capabilities::Capabilities;
use super::refusal::refusals;
use super::run::{SupportError, SupportReply, ask, bad, read, section, user_by_ref};
use crate::api::{ApiError, Client, GraphQlRequest};

/// Enrolls `user` in the object with `key`, then reads the section again.
pub(super) async fn enroll(
    client: &Arc<Client>,
    caps: &Capabilities,
    user: super::UserKeys,
    key: &str,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    let (enroll, index, _) = caps.enroll.clone().ok_or_else(|| {
        ApiError::Document("This service's schema offers no way to enroll users; nothing was changed.".into())
    })?;
    let request = super::sections::enroll_request(&enroll, &user, key).map_err(ApiError::Document)?;
    let response = client.execute(&request, cancel).await?.response;
    if !response.errors.is_empty() {
        return Err(SupportError::Refused(refusals(&response.errors)));
    }
    let data = response.data.unwrap_or(Value::Null);
    refused_by_payload(&enroll.returns, &data["result"])?;
    section(client, caps, &user, index, false, cancel).await.map(SupportReply::Section)
}

/// Gives the row `key` of section `index` the state `state`, then reads the section again.
pub(super) async fn change_state(
    client: &Arc<Client>,
    caps: &Capabilities,
    user: super::UserKeys,
    index: usize,
    key: &str,
    state: &str,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    let change = caps.state_changes.get(index).cloned().flatten().ok_or_else(|| {
        ApiError::Document("This service's schema offers no way to change this; nothing was changed.".into())
    })?;
    let request = super::sections::change_state(&change, key, state);
    let response = client.execute(&request, cancel).await?.response;
    if !response.errors.is_empty() {
        return Err(SupportError::Refused(refusals(&response.errors)));
    }
    let data = response.data.unwrap_or(Value::Null);
    refused_by_payload(&change.returns, &data["result"])?;
    section(client, caps, &user, index, false, cancel).await.map(SupportReply::Section)
}

/// Makes `action` on the user `user_ref`.
pub(super) async fn act(
    client: &Arc<Client>,
    caps: &Capabilities,
    user_ref: &str,
    action: SupportAction,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    let no_way = || -> SupportError {
        ApiError::Document(format!(
            "This service's schema offers no way to {}; nothing was changed.",
            action.verb().to_lowercase()
        ))
        .into()
    };
    let Some(call) = caps.call(&action) else { return Err(no_way()) };
    if let Some(why) = call.returns.unreadable(&call.field) {
        return Err(bad(why));
    }
    // The user as they are before a change that does not send the whole record (a whole-record
    // change reads it through the input's fields): to name them by id, and to read back.
    let before = match &call.replace {
        Some(_) => None,
        None => Some(user_by_ref(client, caps, user_ref, cancel).await?.0.ok_or_else(|| {
            bad(format!("the user '{user_ref}' could not be read before the change; nothing was changed"))
        })?),
    };
    let id = before.as_ref().and_then(|u| u["id"].as_str()).filter(|id| !id.is_empty());
    if call.needs_id() && id.is_none() {
        return Err(bad(format!(
            "the service's {} names the user by id, and the id of '{user_ref}' could not be read; nothing was changed",
            call.field
        )));
    }
    let request = caps.action_request_by_id(&action, user_ref, id).ok_or_else(no_way)?;
    let replaced = match &call.replace {
        Some(replace) => Some(whole_record(client, caps, user_ref, &action, &request, replace, cancel).await?),
        None => None,
    };
    let request = match &replaced {
        Some((request, _, _)) => request.clone(),
        None => request,
    };
    let response = client.execute(&request, cancel).await?.response;
    if !response.errors.is_empty() {
        return Err(SupportError::Refused(refusals(&response.errors)));
    }
    let data = response.data.unwrap_or(Value::Null);
    // Read back what a whole-record change left: a field the card did not ask to change that
    // moved is the change's failure, said old → new.
    if let (Some((_, before, changes)), Some(replace)) = (&replaced, &call.replace)
        && call.returns.errors(&data["result"]).is_empty()
    {
        let after = read_record(client, caps, user_ref, replace, cancel).await?;
        let moved = replace.moved(before, changes, &after);
        if !moved.is_empty() {
            return Err(moved_failure(&moved, user_ref));
        }
    }
    // Errors returned as data (a payload's `errors`/`userErrors`, a union's refusals) refuse the
    // change as GraphQL errors do, each at the field it names.
    let returned = call.returns.errors(&data["result"]);
    if !returned.is_empty() {
        return Err(refused(&returned));
    }
    let answered = call.returns_user().then(|| call.returns.object(&data["result"]).cloned()).flatten();
    if call.returns_user() && answered.is_none() {
        return Err(bad(format!(
            "the service gave no answer to the change (neither the user nor an error); look at {user_ref} again"
        )));
    }
    let after = match answered {
        Some(user) => user,
        None => user_by_ref(client, caps, user_ref, cancel)
            .await?
            .0
            .ok_or_else(|| bad(format!("the change was made, but the user '{user_ref}' could not be read again")))?,
    };
    // Read back: the fields asked as asked, every other field as it was.
    if let Some(before) = &before {
        let fields = caps.data_fields.iter().map(|f| (f.as_str(), f.as_str()));
        let moved = crate::shape::compare(fields, before, &super::queries::settings(&action), &after);
        if !moved.is_empty() {
            return Err(moved_failure(&moved, user_ref));
        }
    }
    let user = read(caps, &after)?;
    let outcome = action.done(&user);
    Ok(SupportReply::Acted { action, user: Box::new(user), outcome })
}

/// The record `user_ref` read through the fields of a replace-style input (`{ id ref name email
/// isActive department }`).
async fn read_record(
    client: &Client,
    caps: &Capabilities,
    user_ref: &str,
    replace: &crate::shape::Replace,
    cancel: &CancellationToken,
) -> Result<Value, SupportError> {
    let super::capabilities::ByRef::Field { field, arg } = &caps.by_ref else {
        return Err(bad(format!(
            "this service changes a user only whole, and orgql cannot read '{user_ref}' by ref to do that; nothing was changed"
        )));
    };
    let request = GraphQlRequest {
        query: format!(
            "query SupportWholeUser({}) {{\n  user: {field}({}) {}\n}}",
            arg.declaration(),
            arg.pass(),
            replace.selection()
        ),
        variables: Some(serde_json::json!({ arg.name.clone(): user_ref })),
        operation_name: None,
    };
    let data = ask(client, &request, cancel).await?;
    match data.get("user") {
        Some(user) if user.is_object() => Ok(user.clone()),
        _ => Err(bad(format!("the user '{user_ref}' could not be read; nothing was changed"))),
    }
}

/// The request for `action` on a service whose update replaces the whole record: the record
/// read now, the action's fields over it, named by its id; with the record before and the
/// changes. Refused, with nothing sent, when a field of the input cannot be read back.
async fn whole_record(
    client: &Client,
    caps: &Capabilities,
    user_ref: &str,
    action: &SupportAction,
    request: &GraphQlRequest,
    replace: &crate::shape::Replace,
    cancel: &CancellationToken,
) -> Result<(GraphQlRequest, Value, serde_json::Map<String, Value>), SupportError> {
    if let Some(why) = replace.unreadable() {
        return Err(bad(why));
    }
    let before = read_record(client, caps, user_ref, replace, cancel).await?;
    let changes = super::queries::settings(action);
    let whole = replace.input(&before, &changes).map_err(bad)?;
    let mut request = request.clone();
    if let Some(Value::Object(variables)) = request.variables.as_mut()
        && let Some(slot) = variables.get_mut(&replace.argument)
    {
        *slot = Value::Object(whole);
    }
    Ok((request, before, changes))
}

/// The errors a mutation's payload returns as data, as refusals at their field; an answer that is
/// null (neither the object nor an error) as "no answer".
fn refused_by_payload(returns: &crate::shape::Returns, result: &Value) -> Result<(), SupportError> {
    let returned = returns.errors(result);
    if !returned.is_empty() {
        return Err(refused(&returned));
    }
    if result.is_null() {
        return Err(bad("the service gave no answer to the change; read the section again".into()));
    }
    Ok(())
}

/// What moved in a read-back, as the change's failure: old → new, and what to do.
fn moved_failure(moved: &[crate::shape::Moved], user_ref: &str) -> SupportError {
    let said: Vec<String> = moved.iter().map(|m| m.sentence("the card")).collect();
    bad(format!("{}; look at {user_ref} and set it back", said.join("; ")))
}

/// Errors returned as data (a payload's `errors`/`userErrors`, a union's refusals) as the
/// refusal GraphQL errors make, each at the field it names.
fn refused(returned: &[crate::shape::PayloadError]) -> SupportError {
    let errors: Vec<crate::api::GraphQlError> = returned
        .iter()
        .map(|e| crate::api::GraphQlError { message: e.sentence(), locations: Vec::new(), path: Vec::new() })
        .collect();
    SupportError::Refused(refusals(&errors))
}
