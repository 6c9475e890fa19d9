//! Every page of a query's one connection, fetched one after another as the caller asks for
//! them, so that nothing holds more than a page and the walk can stop at any time.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::client::{Client, Exchange, GraphQlRequest};
use super::error::ApiError;
use crate::query::{ConnectionSite, PagedQuery, PagingOptions, prepare_paging};

/// One page of the walk.
#[derive(Debug, Clone)]
pub struct Page {
    /// The response's `data`.
    pub data: Value,
    /// The page's number, from 1.
    pub number: u64,
    /// Nodes on this page.
    pub nodes: usize,
    /// Nodes so far, this page included.
    pub nodes_so_far: u64,
    /// The connection's `count`, when the query selects it.
    pub total: Option<u64>,
    /// The HTTP exchange (status, time, size), without its body.
    pub status: u16,
    /// Time the page took.
    pub elapsed: std::time::Duration,
    /// Size of the response body.
    pub bytes: usize,
}

/// Walks the pages of one query.
pub struct Pager {
    client: Arc<Client>,
    paged: PagedQuery,
    variables: Map<String, Value>,
    operation_name: Option<String>,
    cursor: Option<String>,
    finished: bool,
    pages: u64,
    nodes: u64,
    warnings: Vec<String>,
}

impl Pager {
    /// Prepares `query` (with `first`, `after` and `pageInfo` added where it lacks them) for
    /// walking; `variables` must be a JSON object or null.
    pub fn new(
        client: Arc<Client>,
        query: &str,
        variables: Option<Value>,
        operation_name: Option<&str>,
        options: PagingOptions,
    ) -> Result<Self, ApiError> {
        let paged = prepare_paging(query, operation_name, options).map_err(|e| ApiError::Document(e.to_string()))?;
        let mut variables = match variables {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(ApiError::Document("the variables must be a JSON object of name -> value".into())),
        };
        let mut warnings = paged.warnings.clone();
        warnings.extend(paged.cap_first_variable(&mut variables));
        // The caller shows `warnings()` (the command line on stderr, the app in its status bar);
        // a `warn!` here would print each one twice under the default log level.
        for warning in &warnings {
            tracing::info!("{warning}");
        }
        Ok(Pager {
            client,
            cursor: paged.start_cursor.clone(),
            paged,
            variables,
            operation_name: operation_name.map(str::to_owned),
            finished: false,
            pages: 0,
            nodes: 0,
            warnings,
        })
    }

    /// Where the connection is in each page's data, and its columns.
    pub fn site(&self) -> &ConnectionSite {
        &self.paged.site
    }

    /// What was changed in the query that the user should know (a capped `first`, say).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Positions the walk so that the next page is the one after `cursor` (the first page
    /// for `None`): how a grid moves forward and back through remembered cursors.
    pub fn seek(&mut self, cursor: Option<String>) {
        self.cursor = cursor;
        self.finished = false;
    }

    /// The cursor the next page starts after (`None` for the first page).
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }

    /// The query as sent.
    pub fn query_text(&self) -> &str {
        &self.paged.text
    }

    /// The service reports errors at places in the query as sent; they are shown against the
    /// query as the user wrote it.
    fn locate_in_the_users_text(&self, error: ApiError) -> ApiError {
        let ApiError::GraphQl { mut errors, data } = error else { return error };
        for location in errors.iter_mut().flat_map(|e| e.locations.iter_mut()) {
            (location.line, location.column) = self.paged.original_location(location.line, location.column);
        }
        ApiError::GraphQl { errors, data }
    }

    /// The next page, or `None` after the last one. A page whose response carries GraphQL
    /// errors ends the walk with [`ApiError::GraphQl`].
    pub async fn next_page(&mut self, cancel: &CancellationToken) -> Result<Option<Page>, ApiError> {
        if self.finished {
            return Ok(None);
        }
        self.paged.set_cursor(&mut self.variables, self.cursor.as_deref());
        let request = GraphQlRequest {
            query: self.paged.text.clone(),
            variables: Some(Value::Object(self.variables.clone())),
            operation_name: self.operation_name.clone(),
        };
        let Exchange { response, status, elapsed, bytes, .. } = self.client.execute(&request, cancel).await?;
        let data = response.into_data().map_err(|error| self.locate_in_the_users_text(error))?;
        let site = &self.paged.site;
        if site.connection(&data).is_none() {
            self.finished = true;
            return Err(ApiError::BadResponse(format!("the response has no '{}'", site.path.join("."))));
        }
        let nodes = site.nodes(&data).count();
        let total = site.count(&data);
        let has_next = site.has_next_page(&data).unwrap_or(false);
        let next_cursor = site.end_cursor(&data).map(str::to_owned);
        self.pages += 1;
        self.nodes += nodes as u64;
        match (has_next, next_cursor) {
            (false, _) => self.finished = true,
            (true, None) => {
                self.finished = true;
                return Err(ApiError::BadResponse("hasNextPage is true but endCursor is missing".into()));
            }
            (true, Some(cursor)) if self.cursor.as_deref() == Some(cursor.as_str()) => {
                self.finished = true;
                return Err(ApiError::BadResponse("the service gave the same cursor twice".into()));
            }
            (true, Some(cursor)) => self.cursor = Some(cursor),
        }
        Ok(Some(Page { data, number: self.pages, nodes, nodes_so_far: self.nodes, total, status, elapsed, bytes }))
    }
}
