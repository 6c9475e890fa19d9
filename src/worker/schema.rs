//! The schema of a connection, for everything built from it (the explorer, validation and
//! completion in the app, a query's paging in the worker): kept in memory once read, else from
//! the store's cache (with its fetch time), else introspected and cached. One load per
//! connection at a time: a run and the explorer asking together share one introspection.
//!
//! The app is given a cached schema at once, then the worker introspects again in the background
//! ([`refresh_cached`]): the explorer shows the fresh one when it is in, with a one-line notice
//! when it differs from the cached one; when the service cannot be reached the cached one stays.

use std::sync::{Arc, PoisonError};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::schema_changes::{FixDone, Rewrite, SchemaChanges, changes_of};
use super::schema_notice::SchemaNotice;
use super::{Connection, Event, JobId, Shared};
use crate::api::ApiError;
use crate::explorer::SchemaModel;

/// A schema ready for the explorer.
#[derive(Clone)]
pub struct LoadedSchema {
    /// The model.
    pub model: Arc<SchemaModel>,
    /// When it was fetched from the service.
    pub fetched_at: DateTime<Utc>,
    /// Whether it came from the local cache.
    pub cached: bool,
    /// In one line, the parts of the introspected schema that could not be read and are left
    /// out (`None` when nothing was, and for a cached schema).
    pub skipped: Option<String>,
    /// Whether this fetch found the schema changed since the connection's last kept version
    /// (a notice saying what changed was sent).
    pub version_changed: bool,
}

impl std::fmt::Debug for LoadedSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LoadedSchema({} types, fetched {}, cached {})",
            self.model.type_count(),
            self.fetched_at,
            self.cached
        )
    }
}

/// The key of a connection's schema in memory and in the store: its name and, for a profile,
/// its address (a profile pointed elsewhere is another schema).
fn schema_key(connection: &Connection) -> String {
    match connection {
        Connection::Sandbox => "Sandbox".to_owned(),
        Connection::Remote { name, credentials, .. } => format!("{name} {}", credentials.base_url.as_str()),
    }
}

impl Shared {
    /// The schema of `connection`: the one in memory, else the store's cached SDL, else
    /// introspected (and cached); with `refresh`, introspected whatever is known. Loads of one
    /// connection wait for each other, so that what one fetched the next finds in memory.
    pub(crate) async fn schema(
        self: &Arc<Self>,
        connection: &Connection,
        refresh: bool,
        cancel: &CancellationToken,
    ) -> Result<LoadedSchema, ApiError> {
        let key = schema_key(connection);
        let gate =
            self.schema_gates.lock().unwrap_or_else(PoisonError::into_inner).entry(key.clone()).or_default().clone();
        let _one_at_a_time = tokio::select! {
            guard = gate.lock() => guard,
            () = cancel.cancelled() => return Err(ApiError::Cancelled),
        };
        if !refresh {
            if let Some(known) = self.schemas.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
                return Ok(known.clone());
            }
            if let Some(cached) = self.cached_schema(&key).await {
                self.schemas.lock().unwrap_or_else(PoisonError::into_inner).insert(key, cached.clone());
                return Ok(cached);
            }
        }
        let loaded = self.introspect(connection, &key, cancel).await?;
        self.schemas.lock().unwrap_or_else(PoisonError::into_inner).insert(key, loaded.clone());
        Ok(loaded)
    }

    /// The store's copy of the schema under `key`, built; `None` when there is none or it no
    /// longer builds (it is fetched again then).
    async fn cached_schema(self: &Arc<Self>, key: &str) -> Option<LoadedSchema> {
        let lookup = key.to_owned();
        let Some(Ok(Some((sdl, fetched_at)))) = self.with_store(move |s| s.cached_schema(&lookup)).await else {
            return None;
        };
        match tokio::task::spawn_blocking(move || SchemaModel::from_sdl(&sdl)).await {
            Ok(Ok(model)) => {
                crate::timing::mark("schema_model_cached");
                Some(LoadedSchema {
                    model: Arc::new(model),
                    fetched_at,
                    cached: true,
                    skipped: None,
                    version_changed: false,
                })
            }
            Ok(Err(e)) => {
                tracing::warn!("the cached schema of {key} is unusable ({e}); fetching it again");
                None
            }
            Err(e) => {
                tracing::warn!("building the cached schema failed ({e})");
                None
            }
        }
    }

    async fn introspect(
        self: &Arc<Self>,
        connection: &Connection,
        key: &str,
        cancel: &CancellationToken,
    ) -> Result<LoadedSchema, ApiError> {
        let client = self.client(connection).await?;
        let (model, sdl) = crate::explorer::load::fetch(&client, cancel).await?;
        let model = Arc::new(model);
        let fetched_at = Utc::now();
        let store_key = key.to_owned();
        let kept = sdl.clone();
        if let Some(Err(e)) = self.with_store(move |s| s.save_schema(&store_key, &kept, fetched_at)).await {
            self.emit(Event::Problem(format!("{e}; the schema is not cached"))).await;
        }
        let notice = self.record_version(key, connection.name(), sdl, model.clone(), fetched_at).await;
        let version_changed = notice.is_some();
        if let Some(notice) = notice {
            tracing::info!("{}", notice.line());
            self.emit(SchemaEvent::Notice(notice)).await;
        }
        let skipped = model.skipped_summary();
        if let Some(skipped) = &skipped {
            tracing::warn!("the schema of {key}: {skipped}");
        }
        Ok(LoadedSchema { model, fetched_at, cached: false, skipped, version_changed })
    }

    /// Keeps a fetched schema among the connection's versions (issue 30); when it differs from
    /// the last one, the one-line notice of what changed. Failures are only logged.
    async fn record_version(
        self: &Arc<Self>,
        key: &str,
        connection: &str,
        sdl: String,
        model: Arc<SchemaModel>,
        at: DateTime<Utc>,
    ) -> Option<SchemaNotice> {
        let (key, connection) = (key.to_owned(), connection.to_owned());
        let record = move |store: &crate::store::Store| {
            Ok(super::schema_notice::record(store, &key, &connection, &sdl, &model, at))
        };
        match self.with_store(record).await {
            Some(Ok(Ok(notice))) => notice,
            Some(Ok(Err(e))) => {
                tracing::warn!("the schema's version is not kept: {e}");
                None
            }
            Some(Err(e)) => {
                tracing::warn!("the schema's version is not kept: {e}");
                None
            }
            None => None,
        }
    }
}

/// What the app asks of schemas.
#[derive(Debug, Clone)]
pub enum SchemaCommand {
    /// Load the schema of a connection (from the cache unless `refresh`).
    Load {
        /// The load (Cancel stops it).
        job: JobId,
        connection: Connection,
        /// Fetch it from the service even when cached.
        refresh: bool,
    },
    /// Compare two of the connection's kept schema versions (by default its last two) and find
    /// what uses what changed ([`SchemaEvent::Changes`]).
    Changes {
        /// The connection.
        connection: Connection,
        /// The older version's id.
        from: Option<i64>,
        /// The newer version's id.
        to: Option<i64>,
    },
    /// Count again the saved operations a schema notice says are affected (after a fix)
    /// ([`SchemaEvent::Notice`]).
    Recount {
        /// The notice shown.
        notice: SchemaNotice,
    },
    /// Rewrite a saved operation as a fix says, or put its document back (`undo`)
    /// ([`SchemaEvent::Fixed`], then the saved operations listed again).
    Fix {
        /// The connection's name (the window's).
        connection: String,
        /// The rewrite.
        rewrite: Rewrite,
        /// Put `rewrite.before` back instead.
        undo: bool,
    },
}

/// What comes back of schemas.
#[derive(Debug, Clone)]
pub enum SchemaEvent {
    /// A connection's schema loaded (asked for, or read again by the worker after a cached one
    /// was shown, or after the service refused a document built from it), or why it could not
    /// be (one sentence).
    Loaded {
        /// The connection's name.
        connection: String,
        /// The schema.
        result: Result<LoadedSchema, String>,
    },
    /// What changed between two of a connection's schema versions, or why it is not known.
    Changes {
        /// The connection's name.
        connection: String,
        /// The changes.
        result: Result<SchemaChanges, String>,
    },
    /// A connection's schema changed since its last kept version: the app's one-line notice
    /// (again, counted anew, after [`SchemaCommand::Recount`]).
    Notice(SchemaNotice),
    /// A fix applied to a saved operation or undone, or why it was not.
    Fixed {
        /// The connection's name.
        connection: String,
        /// What was done.
        result: Result<FixDone, String>,
    },
}

/// Starts the task of `command`.
pub(super) fn handle(shared: &Arc<Shared>, command: SchemaCommand) {
    match command {
        SchemaCommand::Load { job, connection, refresh } => {
            let cancel = shared.start_job(job);
            tokio::spawn(load_schema(shared.clone(), job, connection, refresh, cancel));
        }
        SchemaCommand::Changes { connection, from, to } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                let key = schema_key(&connection);
                let name = connection.name().to_owned();
                let result = match shared.with_store(move |store| Ok(changes_of(store, &key, &name, from, to))).await {
                    Some(Ok(result)) => result,
                    Some(Err(e)) => Err(e.to_string()),
                    None => Err("there is no database this session, so no schema versions are kept".to_owned()),
                };
                shared.emit(SchemaEvent::Changes { connection: connection.name().to_owned(), result }).await;
            });
        }
        SchemaCommand::Recount { notice } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                match shared.with_store(move |store| Ok(super::schema_notice::recount(store, notice))).await {
                    Some(Ok(Ok(notice))) => shared.emit(SchemaEvent::Notice(notice)).await,
                    Some(Ok(Err(e)) | Err(e)) => tracing::warn!("the schema notice was not counted again: {e}"),
                    None => {}
                }
            });
        }
        SchemaCommand::Fix { connection, rewrite, undo } => {
            let shared = shared.clone();
            tokio::spawn(async move {
                let result = super::schema_changes::apply_fix(&shared, rewrite, undo).await;
                shared.emit(SchemaEvent::Fixed { connection, result }).await;
                super::saved::load(shared).await;
            });
        }
    }
}

/// Loads the schema of `connection` for the app: known or cached unless `refresh`, else
/// fetched and cached.
async fn load_schema(
    shared: Arc<Shared>,
    job: JobId,
    connection: Connection,
    refresh: bool,
    cancel: CancellationToken,
) {
    let result =
        shared.schema(&connection, refresh, &cancel).await.map_err(|e| format!("the schema could not be loaded: {e}"));
    shared.end_job(job);
    let from_cache = matches!(&result, Ok(loaded) if loaded.cached);
    shared.emit(SchemaEvent::Loaded { connection: connection.name().to_owned(), result }).await;
    if from_cache {
        refresh_cached(shared, connection, cancel).await;
    }
}

/// Introspects `connection` again after its cached schema was shown: the fresh schema replaces
/// it (in memory, the store and the app), with a one-line notice when it changed; a failure
/// keeps the cached one and is only logged.
async fn refresh_cached(shared: Arc<Shared>, connection: Connection, cancel: CancellationToken) {
    let key = schema_key(&connection);
    let read = |shared: &Arc<Shared>| {
        let lookup = key.clone();
        let shared = shared.clone();
        async move {
            match shared.with_store(move |s| s.cached_schema(&lookup)).await {
                Some(Ok(Some((sdl, _)))) => Some(sdl),
                _ => None,
            }
        }
    };
    let before = read(&shared).await;
    let fresh = match shared.schema(&connection, true, &cancel).await {
        Ok(fresh) => fresh,
        Err(e) => {
            tracing::debug!("the cached schema of {key} stays: it could not be fetched again ({e})");
            return;
        }
    };
    let after = read(&shared).await;
    let name = connection.name().to_owned();
    // A change of version was said already, with what changed.
    if before.is_some() && after.is_some() && before != after && !fresh.version_changed {
        tracing::info!("the schema of {key} changed since it was cached");
        shared
            .emit(Event::Problem(format!(
                "The schema of {name} changed on the service since it was cached; the explorer shows the new one"
            )))
            .await;
    }
    shared.emit(SchemaEvent::Loaded { connection: name, result: Ok(fresh) }).await;
}
