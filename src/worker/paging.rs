//! How a query's connection pages on the server it is sent to: read from that connection's
//! schema (kept in memory per connection, else the store's cache, else introspected), never
//! assumed from orgql's own sandbox.

use std::sync::{Arc, PoisonError};

use tokio_util::sync::CancellationToken;

use super::{Connection, QuerySpec, Shared};
use crate::api::ApiError;
use crate::explorer::SchemaModel;
use crate::query::{Paging, PagingOptions, detect_paging, prepare_paging};

/// How a query is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Plan {
    /// Page by page, as the schema says; with a sentence when the schema could not be read.
    Pages {
        /// The connection's paging.
        paging: Paging,
        /// Why the paging is the query text's guess, when it is.
        warning: Option<String>,
    },
    /// As one request: not a query with one connection, or (with a reason) a connection the
    /// schema gives no way to page.
    Single {
        /// Why a connection is shown one page only.
        reason: Option<String>,
    },
}

impl Plan {
    /// The paging, or why every page cannot be walked (for "Fetch all" and exports).
    pub(super) fn into_paging(self) -> Result<(Paging, Option<String>), ApiError> {
        match self {
            Plan::Pages { paging, warning } => Ok((paging, warning)),
            Plan::Single { reason: Some(reason) } => Err(ApiError::Document(reason)),
            Plan::Single { reason: None } => Err(ApiError::Document(
                "this document has no connection to walk (a query with one edges { node { … } } selection)".into(),
            )),
        }
    }
}

/// The cache key of a connection's schema: its name and, for a profile, its address (a profile
/// pointed elsewhere is another schema).
pub(super) fn schema_key(connection: &Connection) -> String {
    match connection {
        Connection::Sandbox => "Sandbox".to_owned(),
        Connection::Remote { name, credentials } => format!("{name} {}", credentials.base_url.as_str()),
    }
}

impl Shared {
    /// The schema of `connection`: the one in memory, else the store's cached SDL, else
    /// introspected (and kept in memory).
    pub(crate) async fn schema(
        self: &Arc<Self>,
        connection: &Connection,
        cancel: &CancellationToken,
    ) -> Result<Arc<SchemaModel>, ApiError> {
        let key = schema_key(connection);
        if let Some(model) = self.schemas.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(model.clone());
        }
        let lookup = key.clone();
        if let Some(Ok(Some((sdl, _)))) = self.with_store(move |s| s.cached_schema(&lookup)).await
            && let Ok(Ok(model)) = tokio::task::spawn_blocking(move || SchemaModel::from_sdl(&sdl)).await
        {
            let model = Arc::new(model);
            self.remember_schema(connection, model.clone());
            return Ok(model);
        }
        let client = self.client(connection).await?;
        let (model, _) = crate::explorer::load::fetch(&client, cancel).await?;
        let model = Arc::new(model);
        self.remember_schema(connection, model.clone());
        Ok(model)
    }

    /// Keeps `model` as the schema of `connection` (a fresh introspection replaces the old one).
    pub(crate) fn remember_schema(&self, connection: &Connection, model: Arc<SchemaModel>) {
        self.schemas.lock().unwrap_or_else(PoisonError::into_inner).insert(schema_key(connection), model);
    }
}

/// How `spec` is run on its connection.
pub(super) async fn plan(shared: &Arc<Shared>, spec: &QuerySpec, cancel: &CancellationToken) -> Result<Plan, ApiError> {
    // Not a query with one connection: run as written (the text alone says so).
    if prepare_paging(&spec.query, spec.operation.as_deref(), PagingOptions::default()).is_err() {
        return Ok(Plan::Single { reason: None });
    }
    match shared.schema(&spec.connection, cancel).await {
        Ok(model) => Ok(match detect_paging(model.schema(), &spec.query, spec.operation.as_deref()) {
            Ok(paging) => Plan::Pages { paging, warning: None },
            Err(reason) => Plan::Single { reason: Some(reason) },
        }),
        // What stops introspection (no connection, a refused client) stops the request too.
        Err(error) if !crate::api::pages::introspection_refused(&error) => Err(error),
        Err(error) => Ok(Plan::Pages {
            paging: Paging::from_text(&spec.query, spec.operation.as_deref()),
            warning: Some(format!(
                "the schema of {} could not be read ({error}); paging as the query's own text shows",
                spec.connection.name()
            )),
        }),
    }
}
