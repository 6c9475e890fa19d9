//! The schema of a connection for the explorer, validation and completion: from the local
//! cache when there is one (with its fetch time), otherwise (or when asked) by introspection,
//! then cached.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::{Connection, Event, JobId, Shared};
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

/// The cache key of a connection: its name and, for a profile, its address (a profile pointed
/// elsewhere is another schema).
fn cache_key(connection: &Connection) -> String {
    match connection {
        Connection::Sandbox => "Sandbox".to_owned(),
        Connection::Remote { name, credentials } => format!("{name} {}", credentials.base_url.as_str()),
    }
}

/// Loads the schema of `connection`: cached unless `refresh`, else fetched and cached.
pub(super) async fn load_schema(
    shared: Arc<Shared>,
    job: JobId,
    connection: Connection,
    refresh: bool,
    cancel: CancellationToken,
) {
    let key = cache_key(&connection);
    let mut result = None;
    if !refresh {
        let lookup = key.clone();
        if let Some(Ok(Some((sdl, fetched_at)))) = shared.with_store(move |s| s.cached_schema(&lookup)).await {
            let built = tokio::task::spawn_blocking(move || SchemaModel::from_sdl(&sdl)).await;
            match built {
                Ok(Ok(model)) => {
                    result = Some(Ok(LoadedSchema { model: Arc::new(model), fetched_at, cached: true, skipped: None }))
                }
                // A cache that no longer builds is fetched again.
                Ok(Err(e)) => tracing::warn!("the cached schema of {key} is unusable ({e}); fetching it again"),
                Err(e) => tracing::warn!("building the cached schema failed ({e})"),
            }
        }
    }
    let result = match result {
        Some(result) => result,
        None => fetch(&shared, &connection, &key, &cancel).await,
    };
    shared.end_job(job);
    if let Ok(loaded) = &result {
        // What the worker builds from the schema (paging, say) follows what the explorer shows.
        shared.remember_schema(&connection, loaded.model.clone());
    }
    shared.emit(Event::SchemaLoaded { job, connection: connection.name().to_owned(), result }).await;
}

async fn fetch(
    shared: &Arc<Shared>,
    connection: &Connection,
    key: &str,
    cancel: &CancellationToken,
) -> Result<LoadedSchema, String> {
    let client = shared.client(connection).await.map_err(|e| e.to_string())?;
    let (model, sdl) = crate::explorer::load::fetch(&client, cancel)
        .await
        .map_err(|e| format!("the schema could not be loaded: {e}"))?;
    let fetched_at = Utc::now();
    let store_key = key.to_owned();
    if let Some(Err(e)) = shared.with_store(move |s| s.save_schema(&store_key, &sdl, fetched_at)).await {
        shared.emit(Event::Problem(format!("{e}; the schema is not cached"))).await;
    }
    let skipped = model.skipped_summary();
    if let Some(skipped) = &skipped {
        tracing::warn!("the schema of {key}: {skipped}");
    }
    Ok(LoadedSchema { model: Arc::new(model), fetched_at, cached: false, skipped })
}
