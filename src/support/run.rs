//! Asking the service: what a support request becomes in requests, and their answers in the
//! typed forms the window shows. Runs on the worker (no egui); every request can be cancelled.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::action::SupportAction;
use super::lookup::{Lookup, name_matches, nobody};
use super::queries::{self, USERS_FOR_NAMES};
use super::refusal::{Refusal, refusals};
use super::user::{GroupRef, MatchList, UserCard, UserSummary};
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SupportReply {
    /// The answer to `Find` or `Open`.
    Found(Found),
    /// The groups for the picker.
    Groups(Vec<GroupRef>),
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

/// Runs `request` against `client`.
pub async fn answer(
    client: Arc<Client>,
    request: SupportRequest,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    match request {
        SupportRequest::Find(typed) => find(client, &typed, cancel).await.map(SupportReply::Found),
        SupportRequest::Open(user_ref) => {
            let found = match by_ref(&client, &user_ref, cancel).await? {
                Some(user) => Found::User(Box::new(user)),
                None => Found::Nobody(nobody(&[Lookup::Ref(user_ref)])),
            };
            Ok(SupportReply::Found(found))
        }
        SupportRequest::Groups(filter) => {
            let data = ask(&client, &queries::groups_named(&filter), cancel).await?;
            Ok(SupportReply::Groups(nodes(&data["paginatedGroups"])?))
        }
        SupportRequest::Act { user_ref, action } => act(&client, &user_ref, action, cancel).await,
    }
}

async fn find(client: Arc<Client>, typed: &str, cancel: &CancellationToken) -> Result<Found, SupportError> {
    let lookups = Lookup::recognise(typed);
    let mut scan_note = None;
    for lookup in &lookups {
        match lookup {
            Lookup::Ref(user_ref) => {
                if let Some(user) = by_ref(&client, user_ref, cancel).await? {
                    return Ok(Found::User(Box::new(user)));
                }
            }
            Lookup::Email(email) => {
                let data = ask(&client, &queries::users_by_email(email), cancel).await?;
                let mut users: Vec<UserCard> = nodes(&data["paginatedUsers"])?;
                let total = data["paginatedUsers"]["count"].as_u64();
                match users.len() {
                    0 => {}
                    1 => return Ok(Found::User(Box::new(users.remove(0)))),
                    _ => {
                        let listed = users.len() as u64;
                        return Ok(Found::Several(MatchList {
                            typed: email.clone(),
                            users: users.iter().map(UserCard::summary).collect(),
                            searched: total.unwrap_or(listed),
                            total,
                            complete: total.is_none_or(|t| t <= listed),
                        }));
                    }
                }
            }
            Lookup::Name(name) => {
                let mut matches = scan_names(client.clone(), name, cancel).await?;
                match matches.users.len() {
                    0 if !matches.complete => scan_note = Some(scan_extent(&matches)),
                    0 => {}
                    1 => {
                        let user_ref = matches.users.remove(0).ref_;
                        if let Some(user) = by_ref(&client, &user_ref, cancel).await? {
                            return Ok(Found::User(Box::new(user)));
                        }
                    }
                    _ => return Ok(Found::Several(matches)),
                }
            }
        }
    }
    let sentence = nobody(&lookups);
    Ok(Found::Nobody(match scan_note {
        Some(note) => format!("{} {note}", sentence),
        None => sentence,
    }))
}

/// How far an incomplete name scan went, as a sentence.
pub fn scan_extent(matches: &MatchList) -> String {
    let of = matches.total.map(|t| format!(" of {t}")).unwrap_or_default();
    format!(
        "Only the first {}{of} users were searched by name; search by email or ref to reach the others.",
        matches.searched
    )
}

/// The user with `user_ref`; `None` when the service says there is none (null plus an error at `user`).
async fn by_ref(client: &Client, user_ref: &str, cancel: &CancellationToken) -> Result<Option<UserCard>, SupportError> {
    let GraphQlResponse { data, errors } = client.execute(&queries::user_by_ref(user_ref), cancel).await?.response;
    let user = data.as_ref().map(|d| &d["user"]).filter(|u| !u.is_null());
    match user {
        Some(user) if errors.is_empty() => parse(user).map(Some),
        None if errors.iter().all(|e| e.path.len() == 1 && e.path[0] == "user") => Ok(None),
        _ => Err(ApiError::GraphQl { errors, data }.into()),
    }
}

/// Walks the users page by page, keeping those whose name matches, until every user was seen,
/// [`NAME_MATCHES`] matched, or [`NAME_SCAN_PAGES`] pages were read.
async fn scan_names(client: Arc<Client>, typed: &str, cancel: &CancellationToken) -> Result<MatchList, SupportError> {
    let mut pager =
        Pager::new(client, USERS_FOR_NAMES, Some(queries::name_scan_variables()), None, PagingOptions::default())?;
    let mut list = MatchList { typed: typed.to_owned(), users: Vec::new(), searched: 0, total: None, complete: false };
    while let Some(page) = pager.next_page(cancel).await? {
        list.searched = page.nodes_so_far;
        list.total = page.total.or(list.total);
        for node in pager.site().nodes(&page.data) {
            let user: UserSummary = parse(node)?;
            if name_matches(&user.name, typed) {
                list.users.push(user);
            }
        }
        let more = pager.site().has_next_page(&page.data).unwrap_or(false);
        if !more {
            list.complete = list.users.len() <= NAME_MATCHES;
            break;
        }
        if list.users.len() >= NAME_MATCHES || page.number >= NAME_SCAN_PAGES {
            break;
        }
    }
    list.users.truncate(NAME_MATCHES);
    Ok(list)
}

async fn act(
    client: &Client,
    user_ref: &str,
    action: SupportAction,
    cancel: &CancellationToken,
) -> Result<SupportReply, SupportError> {
    let response = client.execute(&action.request(user_ref), cancel).await?.response;
    if !response.errors.is_empty() {
        return Err(SupportError::Refused(refusals(&response.errors)));
    }
    let user = if action.returns_user() {
        let data = response.data.unwrap_or(Value::Null);
        parse(&data[action.field()])?
    } else {
        by_ref(client, user_ref, cancel).await?.ok_or_else(|| {
            ApiError::BadResponse(format!("the change was made, but the user '{user_ref}' could not be read again"))
        })?
    };
    let outcome = action.done(&user);
    Ok(SupportReply::Acted { action, user: Box::new(user), outcome })
}

/// Sends a query and returns its data; GraphQL errors fail it.
async fn ask(client: &Client, request: &GraphQlRequest, cancel: &CancellationToken) -> Result<Value, SupportError> {
    Ok(client.execute(request, cancel).await?.response.into_data()?)
}

/// The nodes of a connection (`edges { node }`).
fn nodes<T: DeserializeOwned>(connection: &Value) -> Result<Vec<T>, SupportError> {
    let edges =
        connection["edges"].as_array().ok_or_else(|| ApiError::BadResponse("no 'edges' in the answer".into()))?;
    edges.iter().map(|edge| parse(&edge["node"])).collect()
}

fn parse<T: DeserializeOwned>(value: &Value) -> Result<T, SupportError> {
    T::deserialize(value).map_err(|e| ApiError::BadResponse(format!("a user or group could not be read: {e}")).into())
}
