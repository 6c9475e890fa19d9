//! Asking the service: what a support request becomes in requests, and their answers in the
//! typed forms the window shows. Runs on the worker (no egui); every request can be cancelled.

use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::action::SupportAction;
use super::capabilities::{ByRef, Capabilities, PAGE_SIZE};
use super::lookup::{Lookup, name_matches, nobody};
use super::queries::EMAIL_MATCHES;
use super::refusal::{Refusal, refusals};
use super::user::{GroupRef, MatchList, UserCard, UserSummary, nodes};
use crate::api::{ApiError, Client, GraphQlRequest, GraphQlResponse, Pager};
use crate::query::PagingOptions;

/// Pages of users the name scan reads at most (the service cannot filter by name).
pub const NAME_SCAN_PAGES: u64 = 20;
/// Matches of a name listed at most.
pub const NAME_MATCHES: usize = 50;

/// What the find window asks of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SupportRequest {
    /// Find the user(s) that the typed text names (see [`Lookup::recognise`]).
    Find(String),
    /// Show the user with this ref (one picked from a list of matches).
    Open(String),
    /// List the groups whose name contains this text (all, for an empty one), for the picker.
    Groups(String),
    /// Read section `index` of the user's card (a page, or every row up to [`super::ALL_ROWS`]).
    Section {
        /// The user.
        user: super::UserKeys,
        /// Which section ([`super::SectionInfo::index`]).
        index: usize,
        /// Every row, not only the first page.
        all: bool,
    },
    /// Give a row of a section another state (an enrollment's status).
    ChangeState {
        /// The user (the section is read again after).
        user: super::UserKeys,
        /// Which section.
        index: usize,
        /// The row's key.
        key: String,
        /// The new state, as the service names it.
        state: String,
    },
    /// List what the user can be enrolled in whose title holds this text (all for an empty one).
    Choices(String),
    /// A group's card: its name, members and managers (by the group's key).
    Group(String),
    /// Enroll the user in the object with this key (then the section is read again).
    Enroll {
        /// The user.
        user: super::UserKeys,
        /// The chosen object's key.
        key: String,
    },
    /// Change the user with `user_ref`.
    Act {
        /// The user.
        user_ref: String,
        /// The change.
        action: SupportAction,
    },
}

/// What a find gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// One user.
    User(Box<UserCard>),
    /// Several users, to pick from.
    Several(MatchList),
    /// Nobody; the sentence says what was looked for (and how far, for a name).
    Nobody(String),
}

/// The service's answer to a [`SupportRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum SupportReply {
    /// The answer to `Find` or `Open`.
    Found(Found),
    /// The groups for the picker.
    Groups(Vec<GroupRef>),
    /// Rows of a section.
    Section(super::SectionPage),
    /// What the user can be enrolled in.
    Choices(Vec<super::Choice>),
    /// A group's card.
    Group(super::GroupCard),
    /// A change was made.
    Acted {
        /// The change.
        action: SupportAction,
        /// The user as they are now.
        user: Box<UserCard>,
        /// What was done, in one sentence.
        outcome: String,
    },
}

/// Why a support request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SupportError {
    /// The request failed (connection, token, scope, an answer that cannot be read, …).
    #[error("{0}")]
    Api(#[from] ApiError),
    /// The service refused a change; one reason per error it gave.
    #[error("{}", .0.iter().map(|r| r.sentence.as_str()).collect::<Vec<_>>().join(" "))]
    Refused(Vec<Refusal>),
}

/// Runs `request` against `client`, with the documents its schema allows (`capabilities`).
pub async fn answer(
    client: Arc<Client>,
    capabilities: &Capabilities,
    request: SupportRequest,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    let caps = capabilities;
    match request {
        SupportRequest::Find(typed) => find(&client, caps, &typed, cancel).await.map(SupportReply::Found),
        SupportRequest::Open(user_ref) => {
            let found = match by_ref(&client, caps, &user_ref, cancel).await? {
                (Some(user), _) => Found::User(Box::new(user)),
                (None, note) => Found::Nobody(with_note(nobody(&[Lookup::Ref(user_ref)]), note)),
            };
            Ok(SupportReply::Found(found))
        }
        SupportRequest::Groups(filter) => {
            let request = caps.groups_named(&filter).ok_or_else(|| {
                ApiError::Document("This service's schema has no list of groups to choose from.".into())
            })?;
            let data = ask(&client, &request, cancel).await?;
            let mut groups: Vec<GroupRef> = nodes(data["groups"].clone())
                .into_iter()
                .map(|group| GroupRef::deserialize(group).map_err(|e| bad(format!("a group could not be read: {e}"))))
                .collect::<Result<_, _>>()?;
            // Without a filter by name in the schema, the names are compared here.
            if caps.group_search.as_ref().is_some_and(|search| search.name.is_none()) {
                groups.retain(|group| name_matches(&group.name, &filter) || filter.trim().is_empty());
            }
            Ok(SupportReply::Groups(groups))
        }
        SupportRequest::Act { user_ref, action } => act(&client, caps, &user_ref, action, cancel).await,
        SupportRequest::Section { user, index, all } => {
            section(&client, caps, &user, index, all, cancel).await.map(SupportReply::Section)
        }
        SupportRequest::Group(key) => {
            let query = caps
                .group_card
                .as_ref()
                .ok_or_else(|| ApiError::Document("This service's schema has no way to read one group.".into()))?;
            let data = ask(&client, &query.request(&key), cancel).await?;
            let card =
                query.read(&data["group"], &key).ok_or_else(|| bad(format!("the service has no group '{key}'")))?;
            Ok(SupportReply::Group(card))
        }
        SupportRequest::Choices(text) => {
            let (_, _, search) = caps
                .enroll
                .as_ref()
                .ok_or_else(|| ApiError::Document("This service's schema offers no way to enroll users.".into()))?;
            let mut choices = Vec::new();
            let mut after: Option<String> = None;
            // Four pages at most: without a filter of its own, the list is read and compared here.
            for _ in 0..4 {
                let request = super::sections::choices_request(search, &text, after.as_deref());
                let data = ask(&client, &request, cancel).await?;
                let (mut found, next) = super::sections::read_choices(search, &data["choices"], &text);
                choices.append(&mut found);
                match next {
                    Some(cursor) if search.text.is_none() && after.as_deref() != Some(&cursor) => after = Some(cursor),
                    _ => break,
                }
            }
            Ok(SupportReply::Choices(choices))
        }
        SupportRequest::Enroll { user, key } => {
            let (enroll, index, _) = caps.enroll.clone().ok_or_else(|| {
                ApiError::Document("This service's schema offers no way to enroll users; nothing was changed.".into())
            })?;
            let request = super::sections::enroll_request(&enroll, &user, &key).map_err(ApiError::Document)?;
            let response = client.execute(&request, cancel).await?.response;
            if !response.errors.is_empty() {
                return Err(SupportError::Refused(refusals(&response.errors)));
            }
            let data = response.data.unwrap_or(Value::Null);
            refused_by_payload(&enroll.returns, &data["result"])?;
            section(&client, caps, &user, index, false, cancel).await.map(SupportReply::Section)
        }
        SupportRequest::ChangeState { user, index, key, state } => {
            let change = caps.state_changes.get(index).cloned().flatten().ok_or_else(|| {
                ApiError::Document("This service's schema offers no way to change this; nothing was changed.".into())
            })?;
            let request = super::sections::change_state(&change, &key, &state);
            let response = client.execute(&request, cancel).await?.response;
            if !response.errors.is_empty() {
                return Err(SupportError::Refused(refusals(&response.errors)));
            }
            let data = response.data.unwrap_or(Value::Null);
            let returned = change.returns.errors(&data["result"]);
            if !returned.is_empty() {
                let errors: Vec<crate::api::GraphQlError> = returned
                    .iter()
                    .map(|e| crate::api::GraphQlError {
                        message: e.sentence(),
                        locations: Vec::new(),
                        path: Vec::new(),
                    })
                    .collect();
                return Err(SupportError::Refused(refusals(&errors)));
            }
            if data["result"].is_null() {
                return Err(bad("the service gave no answer to the change; read the section again".into()));
            }
            section(&client, caps, &user, index, false, cancel).await.map(SupportReply::Section)
        }
    }
}

/// Reads section `index` of `user`: its first page, or (`all`) every page up to
/// [`super::ALL_ROWS`] rows.
async fn section(
    client: &Arc<Client>,
    caps: &Capabilities,
    user: &super::UserKeys,
    index: usize,
    all: bool,
    cancel: &CancellationToken,
) -> Result<super::SectionPage, SupportError> {
    let related = caps.sections.get(index).ok_or_else(|| bad(format!("the card has no section {index}")))?;
    let mut after: Option<String> = None;
    let mut page = None::<super::SectionPage>;
    loop {
        let (request, path) =
            super::sections::request(related, &caps.by_ref, user, Some(super::SECTION_PAGE), after.as_deref())
                .map_err(|why| ApiError::Document(format!("{}: {why}", related.label)))?;
        let data = ask(client, &request, cancel).await?;
        let value = path.iter().try_fold(&data, |v, key| v.get(key)).cloned().unwrap_or(Value::Null);
        if value.is_null() {
            return Err(bad(format!("the service gave no {} for this user", related.label.to_lowercase())));
        }
        let key = caps.state_changes.get(index).cloned().flatten().and_then(|change| {
            change.arg(|s| matches!(s, crate::shape::Supply::ObjectKey(_))).and_then(|(_, _, supply)| match supply {
                crate::shape::Supply::ObjectKey(key) => Some(key.field()),
                _ => None,
            })
        });
        let (rows, total, next) = super::sections::read(related, &value, key);
        let shown = page.get_or_insert_with(|| super::SectionPage {
            index,
            rows: Vec::new(),
            total,
            more: false,
            query: request.query.clone(),
            variables: request.variables.clone().unwrap_or(Value::Null),
        });
        shown.rows.extend(rows);
        shown.more = next.is_some();
        match next {
            Some(cursor) if all && shown.rows.len() < super::ALL_ROWS && after.as_deref() != Some(&cursor) => {
                after = Some(cursor);
            }
            _ => break,
        }
    }
    page.ok_or_else(|| bad("no page came back".into()))
}

async fn find(
    client: &Arc<Client>,
    caps: &Capabilities,
    typed: &str,
    cancel: &CancellationToken,
) -> Result<Found, SupportError> {
    let lookups = Lookup::recognise(typed);
    let mut notes = Vec::new();
    for lookup in &lookups {
        match lookup {
            Lookup::Ref(user_ref) => match by_ref(client, caps, user_ref, cancel).await? {
                (Some(user), _) => return Ok(Found::User(Box::new(user))),
                (None, note) => notes.extend(note),
            },
            Lookup::Email(email) => {
                let (mut users, searched, total, complete) = match caps.users_by_email(email) {
                    Some(request) => {
                        let data = ask(client, &request, cancel).await?;
                        let users = nodes(data["paginatedUsers"].clone())
                            .iter()
                            .map(|user| read(caps, user))
                            .collect::<Result<Vec<_>, _>>()?;
                        let total = data["paginatedUsers"]["count"].as_u64();
                        let listed = users.len() as u64;
                        (users, total.unwrap_or(listed), total, total.is_none_or(|t| t <= listed))
                    }
                    None => {
                        let wanted = email.to_lowercase();
                        let scan = scan(client, caps, true, EMAIL_MATCHES as usize, cancel, |user| {
                            user["email"].as_str().is_some_and(|e| e.to_lowercase() == wanted)
                        })
                        .await?;
                        if scan.found.is_empty() {
                            notes.push(scanned("by email", &scan));
                        }
                        let users = scan.found.iter().map(|user| read(caps, user)).collect::<Result<Vec<_>, _>>()?;
                        (users, scan.searched, scan.total, scan.complete)
                    }
                };
                match users.len() {
                    0 => {}
                    1 => return Ok(Found::User(Box::new(users.remove(0)))),
                    _ => {
                        return Ok(Found::Several(MatchList {
                            typed: email.clone(),
                            users: users.iter().map(UserCard::summary).collect(),
                            searched,
                            total,
                            complete,
                        }));
                    }
                }
            }
            Lookup::Name(name) => {
                let mut matches = scan_names(client, caps, name, cancel).await?;
                match matches.users.len() {
                    0 if !matches.complete => notes.push(scan_extent(&matches)),
                    0 => {}
                    1 => {
                        let user_ref = matches.users.remove(0).ref_;
                        if let (Some(user), _) = by_ref(client, caps, &user_ref, cancel).await? {
                            return Ok(Found::User(Box::new(user)));
                        }
                    }
                    _ => return Ok(Found::Several(matches)),
                }
            }
        }
    }
    Ok(Found::Nobody(with_note(nobody(&lookups), (!notes.is_empty()).then(|| notes.join(" ")))))
}

fn with_note(sentence: String, note: Option<String>) -> String {
    match note {
        Some(note) => format!("{sentence} {note}"),
        None => sentence,
    }
}

/// How far an incomplete name scan went, as a sentence.
pub fn scan_extent(matches: &MatchList) -> String {
    let of = matches.total.map(|t| format!(" of {t}")).unwrap_or_default();
    format!(
        "Only the first {}{of} users were searched by name; search by email or ref to reach the others.",
        matches.searched
    )
}

/// The sentence for a lookup the schema cannot make directly (`how`: `by email`, `by ref`).
fn scanned(how: &str, scan: &Scan) -> String {
    if scan.complete {
        format!("This service cannot look users up {how}, so all {} users were compared.", scan.searched)
    } else {
        let of = scan.total.map(|t| format!(" of {t}")).unwrap_or_default();
        format!("This service cannot look users up {how}, so only the first {}{of} users were compared.", scan.searched)
    }
}

/// The user with `user_ref`; `None` when the service says there is none (null plus an error at
/// `user`, or no match), with a sentence when the users were scanned for it.
async fn by_ref(
    client: &Arc<Client>,
    caps: &Capabilities,
    user_ref: &str,
    cancel: &CancellationToken,
) -> Result<(Option<UserCard>, Option<String>), SupportError> {
    let (user, note) = user_by_ref(client, caps, user_ref, cancel).await?;
    Ok((user.map(|user| read(caps, &user)).transpose()?, note))
}

/// [`by_ref`]'s user as the service answered it (`SupportUser`'s fields).
async fn user_by_ref(
    client: &Arc<Client>,
    caps: &Capabilities,
    user_ref: &str,
    cancel: &CancellationToken,
) -> Result<(Option<Value>, Option<String>), SupportError> {
    let Some(request) = caps.user_by_ref(user_ref) else {
        let scan = scan(client, caps, true, 1, cancel, |user| user["ref"].as_str() == Some(user_ref)).await?;
        return match scan.found.first() {
            Some(user) => Ok((Some(user.clone()), None)),
            None => Ok((None, Some(scanned("by ref", &scan)))),
        };
    };
    let GraphQlResponse { data, errors } = client.execute(&request, cancel).await?.response;
    if let ByRef::Filter(_) = caps.by_ref {
        let data = match data {
            Some(data) if errors.is_empty() => data,
            _ => return Err(ApiError::GraphQl { errors, data }.into()),
        };
        let users = nodes(data["paginatedUsers"].clone());
        return Ok((users.into_iter().find(|user| user["ref"].as_str() == Some(user_ref)), None));
    }
    let user = data.as_ref().map(|d| &d["user"]).filter(|u| !u.is_null());
    match user {
        Some(user) if errors.is_empty() => Ok((Some(user.clone()), None)),
        None if errors.iter().all(|e| e.path.len() == 1 && e.path[0] == "user") => Ok((None, None)),
        _ => Err(ApiError::GraphQl { errors, data }.into()),
    }
}

/// What a scan found.
struct Scan {
    found: Vec<Value>,
    searched: u64,
    total: Option<u64>,
    complete: bool,
}

/// Reads the users page by page (as the schema pages them), keeping those `keep` accepts, until
/// every user was seen, more than `limit` were kept, or [`NAME_SCAN_PAGES`] pages were read; a
/// schema with no way to page gives its first page only. `cards` selects what the card shows,
/// otherwise `ref name email isActive`.
async fn scan(
    client: &Arc<Client>,
    caps: &Capabilities,
    cards: bool,
    limit: usize,
    cancel: &CancellationToken,
    keep: impl Fn(&Value) -> bool,
) -> Result<Scan, SupportError> {
    let query = caps.scan_page(cards);
    let mut scan = Scan { found: Vec::new(), searched: 0, total: None, complete: false };
    let Some(paging) = &caps.users.paging else {
        let request = GraphQlRequest { query, variables: Some(caps.scan_variables(None)), operation_name: None };
        let data = ask(client, &request, cancel).await?;
        let users = nodes(data["paginatedUsers"].clone());
        scan.total = data["paginatedUsers"]["count"].as_u64();
        scan.searched = users.len() as u64;
        scan.complete = scan.total.map_or((users.len() as i64) < PAGE_SIZE, |total| scan.searched >= total);
        scan.found = users.into_iter().filter(|user| keep(user)).collect();
        return Ok(limited(scan, limit));
    };
    let options = PagingOptions { paging: Some(paging.clone()), ..PagingOptions::default() };
    let mut pager = Pager::new(client.clone(), &query, Some(caps.scan_variables(None)), None, options)?;
    while let Some(page) = pager.next_page(cancel).await? {
        scan.searched = page.nodes_so_far;
        scan.total = page.total.or(scan.total);
        scan.found.extend(pager.site().nodes(&page.data).filter(|node| !node.is_null() && keep(node)).cloned());
        if !page.has_next {
            scan.complete = true;
            break;
        }
        if scan.found.len() > limit || page.number >= NAME_SCAN_PAGES {
            break;
        }
    }
    Ok(limited(scan, limit))
}

/// At most `limit` found; more make the scan incomplete.
fn limited(mut scan: Scan, limit: usize) -> Scan {
    if scan.found.len() > limit {
        scan.complete = false;
        scan.found.truncate(limit);
    }
    scan
}

/// Walks the users page by page, keeping those whose name matches, until every user was seen,
/// [`NAME_MATCHES`] matched, or [`NAME_SCAN_PAGES`] pages were read.
async fn scan_names(
    client: &Arc<Client>,
    caps: &Capabilities,
    typed: &str,
    cancel: &CancellationToken,
) -> Result<MatchList, SupportError> {
    let scan = scan(client, caps, false, NAME_MATCHES, cancel, |user| {
        user["name"].as_str().is_some_and(|name| name_matches(name, typed))
    })
    .await?;
    let users = scan.found.iter().map(parse).collect::<Result<Vec<UserSummary>, _>>()?;
    Ok(MatchList {
        typed: typed.to_owned(),
        users,
        searched: scan.searched,
        total: scan.total,
        complete: scan.complete,
    })
}

async fn act(
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
            let said: Vec<String> = moved.iter().map(|m| m.sentence("the card")).collect();
            return Err(bad(format!("{}; look at {user_ref} and set it back", said.join("; "))));
        }
    }
    // Errors returned as data (a payload's `errors`/`userErrors`, a union's refusals) refuse the
    // change as GraphQL errors do, each at the field it names.
    let returned = call.returns.errors(&data["result"]);
    if !returned.is_empty() {
        let errors: Vec<crate::api::GraphQlError> = returned
            .iter()
            .map(|e| crate::api::GraphQlError { message: e.sentence(), locations: Vec::new(), path: Vec::new() })
            .collect();
        return Err(SupportError::Refused(refusals(&errors)));
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
            let said: Vec<String> = moved.iter().map(|m| m.sentence("the card")).collect();
            return Err(bad(format!("{}; look at {user_ref} and set it back", said.join("; "))));
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
        let errors: Vec<crate::api::GraphQlError> = returned
            .iter()
            .map(|e| crate::api::GraphQlError { message: e.sentence(), locations: Vec::new(), path: Vec::new() })
            .collect();
        return Err(SupportError::Refused(refusals(&errors)));
    }
    if result.is_null() {
        return Err(bad("the service gave no answer to the change; read the section again".into()));
    }
    Ok(())
}

/// Sends a query and returns its data; GraphQL errors fail it.
async fn ask(client: &Client, request: &GraphQlRequest, cancel: &CancellationToken) -> Result<Value, SupportError> {
    Ok(client.execute(request, cancel).await?.response.into_data()?)
}

fn read(caps: &Capabilities, user: &Value) -> Result<UserCard, SupportError> {
    let mut card = UserCard::read(user, &caps.dates, &caps.offers()).map_err(bad)?;
    card.read_more(user, &caps.more);
    card.sections = caps
        .sections
        .iter()
        .enumerate()
        .map(|(index, related)| super::SectionInfo {
            index,
            label: related.label.clone(),
            states: match caps.state_changes.get(index) {
                Some(Some(change)) => match &change.action {
                    crate::shape::Action::ChangeState { values, .. } => values.clone(),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
            enroll_in: caps
                .enroll
                .as_ref()
                .filter(|(_, section, _)| *section == index)
                .map(|(_, _, search)| crate::shape::label(&search.type_name).to_lowercase()),
            change_scope: caps
                .state_changes
                .get(index)
                .and_then(Option::as_ref)
                .and_then(|m| caps.mutation_scopes.get(&m.field).copied()),
            enroll_scope: caps
                .enroll
                .as_ref()
                .filter(|(_, section, _)| *section == index)
                .and_then(|(m, _, _)| caps.mutation_scopes.get(&m.field).copied()),
        })
        .collect();
    Ok(card)
}

fn bad(message: String) -> SupportError {
    ApiError::BadResponse(message).into()
}

fn parse<T: DeserializeOwned>(value: &Value) -> Result<T, SupportError> {
    T::deserialize(value).map_err(|e| bad(format!("a user could not be read: {e}")))
}
