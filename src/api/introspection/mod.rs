//! The schema of a connection, by introspection, for the explorer, validation and completion.
//!
//! The query is adapted to the server ([`Capabilities`]); the answer is read leniently and
//! turned into SDL that apollo-compiler validates. What cannot be read is left out and listed
//! ([`Introspection::skipped`]), so that a schema is never refused for what orgql does not know.
//! Built-in directives are never declared again, so their locations are not read at all: the
//! `DIRECTIVE_DEFINITION` location graphql-core 3.2 gives `@deprecated` is dropped silently.

mod query;
mod read;
mod sdl;

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;
use serde::Deserialize as _;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use query::{CAPABILITIES_QUERY, Capabilities};

use super::client::{Client, GraphQlRequest};
use super::error::ApiError;
use read::{RawData, RawResponse};

/// An introspected schema: its SDL, validated, and what could not be read.
#[derive(Debug, Clone)]
pub struct Introspection {
    /// The schema as SDL (what the local cache keeps).
    pub sdl: String,
    /// The same schema, parsed and validated.
    pub schema: Valid<Schema>,
    /// One short phrase for each part left out, e.g. `directive @foo (no known location)`.
    pub skipped: Vec<String>,
}

impl Introspection {
    /// [`skipped_summary`] of this schema.
    pub fn summary(&self) -> Option<String> {
        skipped_summary(&self.skipped)
    }
}

/// One line for the parts of a schema that were left out; `None` when there are none.
pub fn skipped_summary(skipped: &[String]) -> Option<String> {
    const LISTED: usize = 6;
    let (parts, verb) = match skipped.len() {
        0 => return None,
        1 => ("1 part of the schema could not be read and is".to_owned(), "left out"),
        n => (format!("{n} parts of the schema could not be read and are"), "left out"),
    };
    let mut list = skipped.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", ");
    if skipped.len() > LISTED {
        list.push_str(&format!(" and {} more", skipped.len() - LISTED));
    }
    Some(format!("{parts} {verb}: {list}"))
}

/// Reads the `data` of an introspection response (`{"__schema": …}`).
pub fn read_introspection(data: &Value) -> Result<Introspection, String> {
    let data = RawData::deserialize(data).map_err(|e| format!("the answer is not an introspection result ({e})"))?;
    from_data(data)
}

/// Reads an introspection response as JSON text: `{"data":{"__schema":…}}` or just the `data`
/// object; its `errors`, when it has some, are the error.
pub fn read_introspection_json(json: &str) -> Result<Introspection, String> {
    let not_introspection = |e: serde_json::Error| format!("the text is not an introspection result ({e})");
    let response = serde_json::from_str::<RawResponse>(json).map_err(not_introspection)?;
    if let Some(first) = response.errors.first() {
        return Err(format!("the introspection query failed: {first}"));
    }
    match response.data {
        Some(data) => from_data(data),
        None => from_data(serde_json::from_str::<RawData>(json).map_err(not_introspection)?),
    }
}

fn from_data(data: RawData) -> Result<Introspection, String> {
    let schema = data.schema.ok_or_else(|| "the introspection result has no __schema".to_owned())?;
    let built = sdl::build(schema)?;
    Ok(Introspection { sdl: built.sdl, schema: built.schema, skipped: built.skipped })
}

/// Whether an error means that the server refused the query itself (rather than could not be
/// reached or did not let this client in).
fn refused(err: &ApiError) -> Option<String> {
    match err {
        ApiError::GraphQl { errors, .. } => Some(errors.first().map(|e| e.message.clone()).unwrap_or_default()),
        ApiError::Server { status: status @ 400..=499, message } if message.is_empty() => {
            Some(format!("HTTP {status}"))
        }
        ApiError::Server { status: status @ 400..=499, message } => Some(format!("HTTP {status}: {message}")),
        _ => None,
    }
}

impl Client {
    /// Fetches the service's schema: a probe of what its introspection supports, then the
    /// full query asking for that (the 2018 standard query when the probe fails), read leniently.
    /// Introspection needs no particular scope.
    pub async fn introspect(&self, cancel: &CancellationToken) -> Result<Introspection, ApiError> {
        let probe = self.run(CAPABILITIES_QUERY.to_owned(), "IntrospectionCapabilities", cancel).await;
        let capabilities = match probe {
            Ok(data) => Capabilities::from_probe(&data).unwrap_or_else(Capabilities::standard_2018),
            Err(e) if refused(&e).is_some() => Capabilities::standard_2018(),
            Err(e) => return Err(e),
        };
        tracing::debug!("introspection capabilities: {capabilities:?}");
        let data = match self.run(capabilities.query(), "IntrospectionQuery", cancel).await {
            Ok(data) => data,
            Err(e) => return Err(refused(&e).map(ApiError::IntrospectionRefused).unwrap_or(e)),
        };
        let build = tokio::task::spawn_blocking(move || read_introspection(&data));
        tokio::select! {
            () = cancel.cancelled() => Err(ApiError::Cancelled),
            built = build => match built {
                Ok(Ok(introspection)) => Ok(introspection),
                Ok(Err(reason)) => Err(ApiError::BadResponse(reason)),
                Err(e) => Err(ApiError::BadResponse(format!("reading the schema failed ({e})"))),
            },
        }
    }

    async fn run(&self, query: String, name: &str, cancel: &CancellationToken) -> Result<Value, ApiError> {
        let request = GraphQlRequest { query, variables: None, operation_name: Some(name.to_owned()) };
        self.execute(&request, cancel).await?.response.into_data()
    }
}

#[cfg(test)]
mod tests;
