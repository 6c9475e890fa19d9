//! A rehearsal: the plan applied to an in-process sandbox seeded with the current state of the
//! users it touches (and the groups it names), so that the service-like validation says what it
//! would refuse and the webhook deliveries it causes are counted — no request reaches the real
//! service. The sandbox's schema is the contract's: a service whose input fields are named
//! otherwise rehearses only the fields the two share.
//!
//! What the plan does not know is invented: an affected user's name and address, when the file
//! does not change them, are `Rehearsal <ref>` and `<ref>@rehearsal.invalid`; users the file
//! does not touch are absent, so an address already taken by one of them is not caught.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use chrono::Utc;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::apply::{ApplyOptions, apply};
use super::plan::{Action, PlannedRow};
use super::service::Reading;
use super::target::Target;
use crate::api::{BaseUrl, Client, ClientOptions, Credentials};
use crate::sandbox::data::inputs::CreateExtraCategoryInput;
use crate::sandbox::data::{ExtraValue, GroupRec, Role, UserRec, global_id};
use crate::sandbox::{Config, Server, WebhookTarget};
use crate::secret::Secret;
use crate::store::{RowState, Store};

/// What a rehearsal showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rehearsal {
    /// Rows the sandbox took.
    pub applied: u64,
    /// Rows it refused: row number, key, what it said.
    pub refused: Vec<(u64, String, String)>,
    /// Webhook deliveries caused, by event type (`user.updated`: 40).
    pub deliveries: BTreeMap<String, u64>,
    /// Fields the plan changes that the sandbox's users do not have (a service of another
    /// shape: `department`), whose changes could not be rehearsed.
    pub unrehearsed: Vec<String>,
}

impl Rehearsal {
    /// `49 rows applied, 1 refused; webhooks: 5 user.created, 42 user.updated, 2 user.archived`.
    pub fn summary(&self) -> String {
        let hooks: Vec<String> = self.deliveries.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
        let mut said = format!(
            "rehearsed on a sandbox: {} applied, {} refused; webhooks: {}",
            super::plan::counted(self.applied, "row", "rows"),
            crate::table::thousands(self.refused.len() as u64),
            if hooks.is_empty() { "none".to_owned() } else { hooks.join(", ") }
        );
        if !self.unrehearsed.is_empty() {
            said.push_str(&format!(
                "; the sandbox's users have no {}, so those changes were not rehearsed",
                self.unrehearsed.join(", ")
            ));
        }
        said
    }
}

type Seen = Arc<Mutex<BTreeMap<String, u64>>>;

async fn receive(State(seen): State<Seen>, body: axum::body::Bytes) -> axum::http::StatusCode {
    let kind = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned());
    *seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(kind).or_default() += 1;
    axum::http::StatusCode::NO_CONTENT
}

/// Rehearses `rows` (a plan) on a fresh sandbox; `journal` is a scratch database file.
pub async fn rehearse(rows: &[PlannedRow], journal: &std::path::Path) -> Result<Rehearsal, String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("the rehearsal sandbox {what} ({e})");
    // The receiver of the sandbox's webhooks, on 127.0.0.1.
    let seen: Seen = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| fail("cannot listen", &e))?;
    let hooks = listener.local_addr().map_err(|e| fail("cannot listen", &e))?;
    let app = axum::Router::new().route("/", axum::routing::post(receive)).with_state(seen.clone());
    let stop = CancellationToken::new();
    let stopping = stop.clone();
    let receiver = tokio::spawn(async move {
        let _ = axum::serve(listener, app).with_graceful_shutdown(stopping.cancelled_owned()).await;
    });
    let secret = crate::webhooks::standard::Secret::parse("whsec_cmVoZWFyc2FsLXNlY3JldC1rZXk=")
        .map_err(|e| fail("has no webhook secret", &e))?;
    let config = Config {
        users: 0,
        webhooks: vec![WebhookTarget { url: format!("http://{hooks}/"), secret }],
        ..Config::default()
    };
    let server = Server::start(config).await.map_err(|e| fail("did not start", &e))?;
    seed(&server, rows);
    let credentials = Credentials {
        base_url: BaseUrl::parse(server.base_url()).map_err(|e| fail("has no address", &e))?,
        client_id: crate::sandbox::ADMIN_CLIENT.to_owned(),
        client_secret: Secret::new(server.client_secret()),
        scopes: crate::scopes::ScopeSet::all(),
    };
    let client = Arc::new(Client::new(credentials, ClientOptions::default(), None).map_err(|e| fail("refused", &e))?);
    let cancel = CancellationToken::new();
    let result = async {
        let (model, _) = crate::explorer::load::fetch(&client, &cancel).await.map_err(|e| fail("failed", &e))?;
        let schema = model.schema();
        let mut target = Target::of(schema).ok_or_else(|| fail("has no user mutations", &"?"))?;
        super::service::read_entry_keys(&client, schema, &mut target, &cancel).await.map_err(|e| fail("failed", &e))?;
        let fields: Vec<&str> = rows.iter().flat_map(|r| r.changes.iter().map(|c| c.field.as_str())).collect();
        let groups = rows.iter().any(|r| !r.add_groups.is_empty() || !r.remove_groups.is_empty());
        let reading = Reading::new(schema, &target, &fields, groups);
        let mut unrehearsed: Vec<String> =
            fields.iter().filter(|f| target.field(f).is_none()).map(|f| (*f).to_owned()).collect();
        unrehearsed.sort();
        unrehearsed.dedup();
        let store = Store::open(journal).map_err(|e| e.to_string())?;
        let planned: Vec<(u64, String, String)> = rows
            .iter()
            .filter(|r| r.action.writes())
            .map(|r| (r.row, r.key.clone(), serde_json::to_string(r).unwrap_or_default()))
            .collect();
        let id = store.begin_import("rehearsal", "", server.base_url(), planned).map_err(|e| e.to_string())?;
        let journal_rows = store.import_rows(id).map_err(|e| e.to_string())?;
        let store = Mutex::new(store);
        apply(&client, &target, &reading, &store, id, journal_rows, ApplyOptions::default(), &cancel, |_, _| {})
            .await
            .map_err(|e| fail("stopped", &e))?;
        let outcomes = store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .import_rows(id)
            .map_err(|e| e.to_string())?;
        let mut rehearsal = Rehearsal { unrehearsed, ..Rehearsal::default() };
        for row in outcomes {
            match row.state {
                RowState::Done => rehearsal.applied += 1,
                _ => rehearsal.refused.push((row.row, row.key, row.message)),
            }
        }
        Ok::<_, String>(rehearsal)
    }
    .await;
    // Every event queued is delivered (or given up) before the count is read; bounded (a
    // delivery that fails is retried with backoff: those are counted as they stand).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let stats = server.delivery_stats();
        let settled = stats.delivered + stats.failed + stats.dropped;
        if settled >= server.deliveries_queued() || tokio::time::Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
    stop.cancel();
    let _ = receiver.await;
    let mut rehearsal = result?;
    rehearsal.deliveries = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    Ok(rehearsal)
}

/// The users the plan changes, as the plan saw them, and the groups it names.
fn seed(server: &crate::sandbox::RunningServer, rows: &[PlannedRow]) {
    let mut db = server.data().write();
    let now = Utc::now();
    for row in rows.iter().filter(|r| r.action.writes() && r.action != Action::Create) {
        let old =
            |field: &str| row.changes.iter().find(|c| c.field == field).and_then(|c| c.old.as_str()).map(str::to_owned);
        if db.users.get(&row.key).is_some() {
            continue;
        }
        let ref_ = row.key.clone();
        let name = old("name").unwrap_or_else(|| format!("Rehearsal {ref_}"));
        let email = old("email").unwrap_or_else(|| format!("{}@rehearsal.invalid", plain_local(&ref_)));
        let is_active = row.active_before.unwrap_or(true);
        let extra = seed_extra(&mut db, row);
        db.users.insert(|seq| UserRec {
            seq,
            id: global_id("User", seq),
            ref_,
            name,
            email,
            is_active,
            roles: vec![Role::Learner],
            groups: Vec::new(),
            extra,
            created_at: now,
            updated_at: now,
        });
    }
    let groups: Vec<&String> = rows.iter().flat_map(|r| r.add_groups.iter().chain(&r.remove_groups)).collect();
    for group in groups {
        if db.groups.get(group).is_none() {
            let ref_ = group.clone();
            db.groups.insert(|seq| GroupRec {
                seq,
                id: global_id("Group", seq),
                name: ref_.clone(),
                ref_,
                members: Vec::new(),
                managers: Vec::new(),
            });
        }
    }
    // The memberships the plan removes exist first.
    for row in rows {
        for group in &row.remove_groups {
            let Some(user) = db.users.get(&row.key).map(|u| u.seq) else { continue };
            let Some(seq) = db.groups.get(group).map(|g| g.seq) else { continue };
            if let Some(g) = db.groups.get_mut(group) {
                g.members.push(user);
                g.members.sort_unstable();
            }
            if let Some(u) = db.users.get_mut(&row.key) {
                u.groups.push(seq);
            }
        }
    }
}

/// The extra fields a row changes, as the plan saw them before (`extraFields.department`): the
/// categories made when the sandbox lacks them (free text), the user's old values given.
fn seed_extra(db: &mut crate::sandbox::data::Db, row: &PlannedRow) -> Vec<ExtraValue> {
    let mut extra = Vec::new();
    for change in &row.changes {
        let Some(("extraFields", key)) = change.field.split_once('.') else { continue };
        if db.extra_categories.get(key).is_none() {
            let input = CreateExtraCategoryInput { ref_: key.to_owned(), name: key.to_owned(), allowed_values: None };
            if db.create_extra_category(input).is_err() {
                continue;
            }
        }
        let Some(category) = db.extra_categories.get(key).map(|c| c.seq) else { continue };
        if let Some(old) = change.old.as_str() {
            extra.push(ExtraValue { category, value: Some(old.to_owned()) });
        }
    }
    extra.sort_by_key(|v| v.category);
    extra
}

fn plain_local(key: &str) -> String {
    let local: String = key.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')).collect();
    if local.is_empty() { "user".to_owned() } else { local }
}
