//! The schema of a connection, by the standard introspection query (cynic-introspection), for
//! the explorer and for validation.

use cynic::QueryBuilder;
use cynic_introspection::{IntrospectionQuery, Schema};
use tokio_util::sync::CancellationToken;

use super::client::{Client, GraphQlRequest};
use super::error::ApiError;

impl Client {
    /// Fetches and models the service's schema. Introspection needs no particular scope.
    pub async fn introspect(&self, cancel: &CancellationToken) -> Result<Schema, ApiError> {
        let operation = IntrospectionQuery::build(());
        let request = GraphQlRequest {
            query: operation.query,
            variables: None,
            operation_name: operation.operation_name.map(|name| name.into_owned()),
        };
        let data = self.execute(&request, cancel).await?.response.into_data()?;
        let result: IntrospectionQuery = serde_json::from_value(data).map_err(|e| {
            ApiError::BadResponse(format!("the introspection result does not match the standard ({e})"))
        })?;
        result
            .into_schema()
            .map_err(|e| ApiError::BadResponse(format!("the introspected schema is inconsistent ({e})")))
    }
}
