//! Every page of a query's one connection, fetched one after another as the caller asks for
//! them, so that nothing holds more than a page and the walk can stop at any time.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::client::{Answer, AnswerExchange, Client, GraphQlRequest, GraphQlResponse};
use super::error::ApiError;
use super::guard::{WalkGuard, key_of};
use super::outline::{self, Outline};
use crate::query::{
    ArgumentValue, ConnectionSite, PagedQuery, Paging, PagingOptions, PagingStyle, detect_paging, prepare_paging,
};

/// One page of the walk.
#[derive(Debug, Clone, Default)]
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
    /// Whether another page follows (from `pageInfo.hasNextPage`, or for edge cursors from a
    /// full page).
    pub has_next: bool,
    /// The cursor the next page starts after, when one follows.
    pub next_cursor: Option<String>,
    /// The HTTP exchange (status, time, size), without its body.
    pub status: u16,
    /// Time the page took.
    pub elapsed: std::time::Duration,
    /// Size of the response body.
    pub bytes: usize,
}

/// A page's `data` as a walk hands it on: read into JSON, or the answer's bytes, read when
/// the page is written ([`Pager::next_page_unread`]).
#[derive(Debug)]
pub(crate) enum PageData {
    /// Read.
    Json(Value),
    /// The answer's bytes, whose outline was read ([`outline`]).
    Body(Vec<u8>),
}

impl PageData {
    /// The page's `data` as JSON.
    pub(crate) fn into_json(self) -> Result<Value, ApiError> {
        match self {
            PageData::Json(data) => Ok(data),
            PageData::Body(body) => read_response(&body)?.into_data(),
        }
    }
}

/// `body` read as a GraphQL response.
fn read_response(body: &[u8]) -> Result<GraphQlResponse, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::BadResponse(format!("the body is not a GraphQL response: {e}")))
}

/// The paging of `query` from a kept schema (`sdl`), when the schema still builds and the query
/// validates against it; `None` sends the caller to the service for the schema.
fn paging_from_cache(sdl: &str, query: &str, operation_name: Option<&str>) -> Option<Paging> {
    let model = crate::explorer::SchemaModel::from_sdl(sdl).ok()?;
    let problems = crate::query::lang::validate(model.schema(), query);
    if problems.iter().any(|problem| problem.severity == crate::query::lang::Severity::Error) {
        return None;
    }
    detect_paging(model.schema(), query, operation_name).ok()
}

/// Whether `error` says that the service answers, but not its schema: introspection turned
/// off or limited (GraphQL errors, a 4xx, a scope it wants, an answer that cannot be read).
pub(crate) fn introspection_refused(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::IntrospectionRefused(_)
            | ApiError::GraphQl { .. }
            | ApiError::BadResponse(_)
            | ApiError::MissingScope { .. }
            | ApiError::Server { status: 400..=499, .. }
    )
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
    guard: WalkGuard,
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
            guard: WalkGuard::start(paged.start_cursor.as_deref()),
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

    /// Like [`new`](Self::new), with the paging read from the service's schema when `options`
    /// does not give it: one introspection request first. A schema that cannot be read (a
    /// service with introspection turned off) leaves the paging that the query's text shows,
    /// with a warning; a connection that cannot be paged is an [`ApiError::Document`] saying why.
    pub async fn discover(
        client: Arc<Client>,
        query: &str,
        variables: Option<Value>,
        operation_name: Option<&str>,
        options: PagingOptions,
        cancel: &CancellationToken,
    ) -> Result<Self, ApiError> {
        let (pager, _) = Self::discover_cached(client, query, variables, operation_name, options, None, cancel).await?;
        Ok(pager)
    }

    /// Like [`discover`](Self::discover), reading the paging from `cached` (a schema's SDL kept
    /// from an earlier run) when the query validates against it: no introspection request then.
    /// Returns the SDL it introspected, when it did, for the caller to keep.
    pub async fn discover_cached(
        client: Arc<Client>,
        query: &str,
        variables: Option<Value>,
        operation_name: Option<&str>,
        mut options: PagingOptions,
        cached: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<(Self, Option<String>), ApiError> {
        let mut note = None;
        let mut fetched = None;
        if options.paging.is_none() {
            options.paging = cached.and_then(|sdl| paging_from_cache(sdl, query, operation_name));
        }
        if options.paging.is_none() {
            options.paging = Some(match crate::explorer::load::fetch(&client, cancel).await {
                Ok((model, sdl)) => {
                    fetched = Some(sdl);
                    detect_paging(model.schema(), query, operation_name).map_err(ApiError::Document)?
                }
                // What stops introspection stops every request: say that, not a guess.
                Err(error) if !introspection_refused(&error) => return Err(error),
                Err(error) => {
                    let paging = Paging::from_text(query, operation_name);
                    note = Some(format!(
                        "the service's schema could not be read ({error}); paging as the query shows ({})",
                        match paging.style {
                            PagingStyle::Relay => "pageInfo",
                            PagingStyle::EdgeCursors => "edge cursors",
                        }
                    ));
                    paging
                }
            });
        }
        let mut pager = Self::new(client, query, variables, operation_name, options)?;
        if let Some(note) = note {
            pager.add_warning(note);
        }
        Ok((pager, fetched))
    }

    /// Where the connection is in each page's data, and its columns.
    pub fn site(&self) -> &ConnectionSite {
        &self.paged.site
    }

    /// Adds a sentence to [`warnings`](Self::warnings) (shown before the others).
    pub fn add_warning(&mut self, warning: String) {
        tracing::info!("{warning}");
        self.warnings.insert(0, warning);
    }

    /// What was changed in the query that the user should know (a capped `first`, say).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What the pages walked so far should be read with, one sentence each saying how many: rows
    /// that repeated an earlier row's `id` (or `ref`), and, once the last page is in, a `count`
    /// that the rows did not reach. Shown after a walk by `orgql query --all-pages`,
    /// `orgql export` and the app's Fetch all.
    pub fn walk_warnings(&self) -> Vec<String> {
        self.guard.warnings()
    }

    /// Positions the walk so that the next page is the one after `cursor` (the first page
    /// for `None`): how a grid moves forward and back through remembered cursors. A new walk
    /// starts there (the guard forgets the cursors and rows seen).
    pub fn seek(&mut self, cursor: Option<String>) {
        self.guard = WalkGuard::start(cursor.as_deref());
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

    /// How the pages follow one another.
    pub fn style(&self) -> PagingStyle {
        self.paged.style
    }

    /// The page size asked for, when known (a literal `first` or the value of its variable).
    fn page_size(&self) -> Option<u64> {
        match &self.paged.site.first {
            ArgumentValue::Int(size) => u64::try_from(*size).ok(),
            ArgumentValue::Variable(name) => self.variables.get(name).and_then(Value::as_u64),
            _ => None,
        }
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
        let Some((data, page)) = self.fetch(false, cancel).await? else { return Ok(None) };
        Ok(Some(Page { data: data.into_json()?, ..page }))
    }

    /// Like [`next_page`](Self::next_page), with the page's data not read yet when its answer
    /// has the common shape ([`outline`]): the walk knows the next cursor, the nodes' count and
    /// keys, and the data is read where it is written. The [`Page`]'s `data` is null.
    pub(crate) async fn next_page_unread(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<Option<(PageData, Page)>, ApiError> {
        self.fetch(true, cancel).await
    }

    /// The data of a page read as JSON, and its outline, or why it ends the walk.
    fn read_json(&mut self, response: GraphQlResponse) -> Result<(PageData, Outline), ApiError> {
        let data = response.into_data().map_err(|error| self.locate_in_the_users_text(error))?;
        let site = &self.paged.site;
        if site.connection(&data).is_none() {
            self.finished = true;
            return Err(ApiError::BadResponse(format!("the response has no '{}'", site.path.join("."))));
        }
        let outline = Outline {
            nodes: site.nodes(&data).count(),
            edges: site.edges(&data).count(),
            keys: site.nodes(&data).map(key_of).collect(),
            last_edge_cursor: site.last_edge_cursor(&data).map(str::to_owned),
            has_next_page: site.has_next_page(&data),
            end_cursor: site.end_cursor(&data).map(str::to_owned),
            count: site.count(&data),
        };
        Ok((PageData::Json(data), outline))
    }

    /// The next page; with `unread`, its data left as the answer's bytes when they have the
    /// common shape.
    async fn fetch(&mut self, unread: bool, cancel: &CancellationToken) -> Result<Option<(PageData, Page)>, ApiError> {
        if self.finished {
            return Ok(None);
        }
        self.paged.set_cursor(&mut self.variables, self.cursor.as_deref());
        let request = GraphQlRequest {
            query: self.paged.text.clone(),
            variables: Some(Value::Object(self.variables.clone())),
            operation_name: self.operation_name.clone(),
        };
        let AnswerExchange { answer, status, elapsed, bytes, .. } =
            self.client.execute_answer(&request, unread, cancel).await?;
        let (data, outline) = match answer {
            Answer::Body(body) => match outline::read(&body, &self.paged.site) {
                Some(outline) => (PageData::Body(body), outline),
                None => {
                    let response = read_response(&body)?;
                    self.read_json(response)?
                }
            },
            Answer::Parsed(response) => self.read_json(response)?,
        };
        let page_size = self.page_size();
        let total = outline.count;
        let (has_next, next_cursor) = match self.paged.style {
            PagingStyle::Relay => (outline.has_next_page.unwrap_or(false), outline.end_cursor),
            // No page information: a full page may have a successor, a shorter one is the last.
            PagingStyle::EdgeCursors => {
                let edges = outline.edges as u64;
                let full = edges > 0 && page_size.is_none_or(|size| edges >= size);
                (full, outline.last_edge_cursor)
            }
        };
        let nodes = outline.nodes;
        self.pages += 1;
        self.nodes += nodes as u64;
        let cursor = match (has_next, next_cursor) {
            (false, _) => None,
            (true, None) => {
                self.finished = true;
                let missing = match self.paged.style {
                    PagingStyle::Relay => "hasNextPage is true but endCursor is missing",
                    PagingStyle::EdgeCursors => "the last edge of a full page has no cursor",
                };
                return Err(ApiError::BadResponse(missing.into()));
            }
            (true, Some(cursor)) => Some(cursor),
        };
        if let Err(why) = self.guard.page(outline.keys.into_iter(), total, cursor.as_deref(), page_size) {
            self.finished = true;
            return Err(ApiError::Paging(why));
        }
        match cursor {
            None => self.finished = true,
            Some(cursor) => self.cursor = Some(cursor),
        }
        let next_cursor = if has_next { self.cursor.clone() } else { None };
        let page = Page {
            data: Value::Null,
            number: self.pages,
            nodes,
            nodes_so_far: self.nodes,
            total,
            has_next,
            next_cursor,
            status,
            elapsed,
            bytes,
        };
        Ok(Some((data, page)))
    }
}
