//! One query tab: its document, variables, result, pages and exports.

use std::path::PathBuf;
use std::sync::Arc;

use crate::api::ApiError;
use crate::table::Row;
use crate::ui::widgets::requested::Requested;
use crate::worker::{Connection, JobId, PagePosition, QueryResult, Rows, WalkId};

/// How the result is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum View {
    /// The response as a tree.
    Tree,
    /// The response as text.
    Raw,
    /// The rows counted by a column, as bars and as a table ([`crate::ui::queries::results::chart`]).
    Chart,
    /// The connection's rows (also what an unknown kept value becomes: serde wants it last).
    #[default]
    #[serde(other)]
    Grid,
}

/// The rows the grid shows: the current page, or every page fetched so far.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// Column names.
    pub columns: Vec<String>,
    /// Which columns hold lists ([`Rows::lists`], of every page in).
    pub lists: Vec<bool>,
    /// Rows, shared with exports (never copied).
    pub rows: Arc<Vec<Row>>,
    /// The connection's `count`.
    pub total: Option<u64>,
    /// The row order: indexes into `rows` (sorted by a column when asked).
    pub order: Vec<usize>,
    /// The column sorted by, and whether ascending.
    pub sort: Option<(usize, bool)>,
    /// The number of the first row (for "51–100 of 500").
    pub first_row: u64,
    /// Rows were appended after the sorted ones and are not sorted in yet.
    pub unsorted_tail: bool,
}

impl Grid {
    /// A grid of one page (or the start of "fetch all").
    pub fn from_rows(rows: Rows, first_row: u64) -> Self {
        let order = (0..rows.rows.len()).collect();
        Grid {
            columns: rows.columns,
            lists: rows.lists,
            rows: Arc::new(rows.rows),
            total: rows.total,
            order,
            sort: None,
            first_row,
            unsorted_tail: false,
        }
    }

    /// Appends rows of a further page, after the others: a sorted grid is sorted again once,
    /// by [`settle`](Self::settle) when the last page is in, not once a page (which would cost
    /// a sort of every row so far for each of a 100,000-row fetch's 2,000 pages).
    pub fn append(&mut self, more: Vec<Row>) {
        let rows = Arc::make_mut(&mut self.rows);
        let start = rows.len();
        rows.extend(more);
        self.order.extend(start..rows.len());
        self.unsorted_tail |= self.sort.is_some();
    }

    /// Notes the columns a further page found to hold lists.
    pub fn add_lists(&mut self, lists: &[bool]) {
        if self.lists.len() < lists.len() {
            self.lists.resize(lists.len(), false);
        }
        for (known, found) in self.lists.iter_mut().zip(lists) {
            *known |= found;
        }
    }

    /// Whether column `index` holds lists.
    pub fn holds_list(&self, index: usize) -> bool {
        self.lists.get(index).copied().unwrap_or(false)
    }

    /// Sorts the appended rows in, when the grid is sorted and rows were appended since.
    pub fn settle(&mut self) {
        if let Some((column, ascending)) = self.sort.filter(|_| self.unsorted_tail) {
            self.sort_by(column, ascending);
        }
    }

    /// Sorts the rows by a column: numbers as numbers (before text), text without regard to
    /// case. The keys are made once per sort, not once per comparison.
    pub fn sort_by(&mut self, column: usize, ascending: bool) {
        enum Key {
            Number(f64),
            Text(String),
        }
        let keys: Vec<Key> = self
            .rows
            .iter()
            .map(|row| {
                let cell = row.cell(column).unwrap_or("");
                match cell.parse::<f64>() {
                    Ok(n) if !n.is_nan() => Key::Number(n),
                    _ => Key::Text(cell.to_lowercase()),
                }
            })
            .collect();
        self.unsorted_tail = false;
        self.order.sort_by(|a, b| {
            let ordering = match (&keys[*a], &keys[*b]) {
                (Key::Number(x), Key::Number(y)) => x.total_cmp(y),
                (Key::Number(_), Key::Text(_)) => std::cmp::Ordering::Less,
                (Key::Text(_), Key::Number(_)) => std::cmp::Ordering::Greater,
                (Key::Text(x), Key::Text(y)) => x.cmp(y),
            };
            if ascending { ordering } else { ordering.reverse() }
        });
        self.sort = Some((column, ascending));
    }
}

/// A run or a page under way: its job and the connection it went to (which becomes the rows'
/// source when they arrive). The status bar reads what is running from the tabs' runs.
#[derive(Debug, Clone)]
pub struct Running {
    /// The request.
    pub job: JobId,
    /// Where it went.
    pub on: Connection,
}

/// A "fetch all pages" under way or done.
#[derive(Debug, Clone)]
pub struct FetchAll {
    pub job: JobId,
    /// Rows so far.
    pub so_far: u64,
    /// Rows expected.
    pub total: Option<u64>,
    /// Whether it has ended, and how.
    pub outcome: Requested<u64, ApiError>,
    /// The paging guard's warnings when it ended (repeated rows, a `count` not reached).
    pub warnings: Vec<String>,
}

/// An export the user asked for (in the export window, [`crate::ui::queries::export_window`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRequest {
    pub path: PathBuf,
    /// Start with a UTF-8 BOM.
    pub bom: bool,
    /// No formula guard.
    pub raw: bool,
    /// Every page of the query (else the rows shown).
    pub all_pages: bool,
    /// Continue the interrupted export of the same query into `path`.
    pub resume: bool,
    /// Only the rows added, changed or removed since the last export of the query.
    pub changes_since_last: bool,
}

/// An export under way or done.
#[derive(Debug, Clone)]
pub struct Export {
    pub job: JobId,
    /// What was asked (a Resume asks it again, resuming).
    pub request: ExportRequest,
    /// It stopped and can be resumed.
    pub resumable: bool,
    /// What else to say of it (what changed since the last export).
    pub note: Option<String>,
    /// Rows done so far: written, or for a changes export fetched and compared.
    pub rows: u64,
    /// Rows expected.
    pub total: Option<u64>,
    /// The file and its rows, or why it failed.
    pub outcome: Requested<(PathBuf, u64), String>,
}

/// A query tab.
#[derive(Debug, Clone)]
pub struct Tab {
    /// Stable id (for widget ids).
    pub id: u64,
    /// Shown on the tab.
    pub title: String,
    /// The GraphQL document.
    pub query: String,
    /// The variables as JSON text.
    pub variables: String,
    /// The last request (pending while [`Tab::running`] has one).
    pub result: Requested<QueryResult, ApiError>,
    /// The run or page under way.
    running: Option<Running>,
    /// The grid's rows.
    pub grid: Option<Grid>,
    /// The walk of the pages shown (the worker holds its cursors), while it can move.
    pub walk: Option<WalkId>,
    /// Where the page shown is in its walk.
    pub position: Option<PagePosition>,
    /// How the result is shown.
    pub view: View,
    /// A "fetch all" under way or done.
    pub fetch_all: Option<FetchAll>,
    /// An export under way or done.
    pub export: Option<Export>,
    /// Where the editor's cursor should go (line, column from 1), after a click on an error.
    pub jump_to: Option<(u32, u32)>,
    /// The connection the shown rows came from: their cursors belong to that server, so the
    /// next and previous pages, "Fetch all" and "Export all pages" go there.
    pub source: Option<Connection>,
    /// The connection of its rows before the app was restarted (the rows are not kept).
    pub restored_from: Option<String>,
    /// The saved operation it was opened from or saved as (Ctrl+S saves there).
    pub saved: Option<i64>,
    /// The operation run, by name (`operationName`), when the document has several.
    pub operation: Option<String>,
    /// Changes of what is kept of the tab (its text, view, title, saved operation, the
    /// connection of its rows): whoever changes them calls [`Tab::touch`].
    edits: u64,
}

impl Tab {
    /// A tab with a document.
    pub fn new(id: u64, title: impl Into<String>, query: impl Into<String>) -> Self {
        Tab {
            id,
            title: title.into(),
            query: query.into(),
            variables: String::new(),
            result: Requested::Idle,
            running: None,
            grid: None,
            walk: None,
            position: None,
            view: View::Grid,
            fetch_all: None,
            export: None,
            jump_to: None,
            source: None,
            restored_from: None,
            saved: None,
            operation: None,
            edits: 0,
        }
    }

    /// Notes that something kept of the tab changed (the workspace is saved for it).
    pub fn touch(&mut self) {
        self.edits += 1;
    }

    /// How many changes of what is kept the tab has had.
    pub fn edits(&self) -> u64 {
        self.edits
    }

    /// The name of the connection the shown rows came from, when it is not `chosen` (the
    /// connection now chosen): the rows stay, labelled, and paging stays with their server.
    pub fn source_differs(&self, chosen: &str) -> Option<&str> {
        self.source.as_ref().map(Connection::name).filter(|source| *source != chosen)
    }

    /// The run or page under way.
    pub fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    /// The jobs this tab has under way (a run, a fetch of every page, an export).
    pub fn jobs(&self) -> Vec<JobId> {
        [
            self.running.as_ref().map(|running| running.job),
            self.fetch_all.as_ref().filter(|f| f.outcome.is_pending()).map(|f| f.job),
            self.export.as_ref().filter(|e| e.outcome.is_pending()).map(|e| e.job),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Forgets the jobs under way (they were cancelled): nothing shows as running any more.
    pub fn forget_jobs(&mut self) {
        self.running = None;
        if self.result.is_pending() {
            self.result.finish(Err(ApiError::Cancelled));
        }
        if let Some(fetch) = self.fetch_all.as_mut().filter(|f| f.outcome.is_pending()) {
            fetch.outcome.finish(Err(ApiError::Cancelled));
        }
        if let Some(export) = self.export.as_mut().filter(|e| e.outcome.is_pending()) {
            export.outcome.finish(Err(ApiError::Cancelled.to_string()));
        }
    }

    /// A run or a page (job `job`) was asked for on `connection`; returns the run or page it
    /// replaces, to cancel.
    pub fn started(&mut self, job: JobId, connection: Connection) -> Option<JobId> {
        self.result.start();
        self.running.replace(Running { job, on: connection }).map(|replaced| replaced.job)
    }

    /// A run (one page, or the document as it is) or another page of its walk ended; its rows
    /// move into the grid (they are not kept twice).
    pub fn on_ran(&mut self, mut result: Result<QueryResult, ApiError>) {
        let ran_on = self.running.take().map(|running| running.on);
        if let Ok(result) = &mut result {
            self.touch();
            self.source = ran_on;
            self.position = result.position;
            if let Some(position) = result.position {
                self.walk = Some(position.walk);
            }
            let has_rows = result.rows.is_some();
            // Rows open on the grid (or stay on the chart); a mutation's or a single object's
            // result on the tree.
            if self.view != View::Raw && !(self.view == View::Chart && has_rows) {
                self.view = if has_rows || result.data.is_none() { View::Grid } else { View::Tree };
            }
            match result.take_rows() {
                Some(rows) => {
                    let first_row = result.position.map_or(1, |p| p.first_row);
                    self.grid = Some(Grid::from_rows(rows, first_row));
                    self.fetch_all = None;
                }
                None => self.grid = None,
            }
        }
        self.result.finish(result);
    }

    /// Whether the page before the one shown can be asked for.
    pub fn has_previous_page(&self) -> bool {
        self.walk.is_some() && self.position.is_some_and(|p| p.has_previous)
    }

    /// Whether the page after the one shown can be asked for.
    pub fn has_next_page(&self) -> bool {
        self.walk.is_some() && self.position.is_some_and(|p| p.has_next)
    }

    /// Rows of "Fetch all pages" arrived (the first page carries the columns).
    pub fn on_rows(&mut self, rows: Rows, so_far: u64) {
        if let Some(fetch) = self.fetch_all.as_mut() {
            fetch.so_far = so_far;
            fetch.total = rows.total.or(fetch.total);
        }
        match self.grid.as_mut() {
            Some(grid) if rows.columns.is_empty() => {
                grid.add_lists(&rows.lists);
                grid.append(rows.rows);
            }
            _ => self.grid = Some(Grid::from_rows(rows, 1)),
        }
    }

    /// "Fetch all pages" ended.
    pub fn on_fetched_all(&mut self, result: Result<u64, ApiError>, warnings: Vec<String>) {
        if let Some(grid) = self.grid.as_mut() {
            grid.settle();
        }
        if let Some(fetch) = self.fetch_all.as_mut() {
            fetch.outcome.finish(result);
            fetch.warnings = warnings;
            // Every row is shown: no page to move to.
            self.position = None;
        }
    }

    /// An export wrote more rows.
    pub fn on_export_progress(&mut self, rows: u64, total: Option<u64>) {
        if let Some(export) = self.export.as_mut() {
            export.rows = rows;
            export.total = total;
        }
    }

    /// An export ended.
    pub fn on_exported(&mut self, result: Result<(PathBuf, u64), String>, resumable: bool, note: Option<String>) {
        if let Some(export) = self.export.as_mut() {
            if let Ok((_, rows)) = &result {
                export.rows = *rows;
            }
            export.resumable = resumable;
            export.note = note;
            export.outcome.finish(result);
        }
    }

    /// Whether a request, fetch or export of this tab is under way.
    pub fn busy(&self) -> bool {
        self.result.is_pending()
            || self.fetch_all.as_ref().is_some_and(|f| f.outcome.is_pending())
            || self.export.as_ref().is_some_and(|e| e.outcome.is_pending())
    }
}

/// The sample a new tab opens before the connection's schema is known: only what the spec
/// guarantees every server has (`paginatedUsers(first)`, `count`, `edges { node }` and the
/// user's `id ref name email isActive`), so it runs on any conforming service.
pub const SAMPLE_QUERY: &str = "# Users of the organization, 50 a page. Press Run (Ctrl+Enter).
query Users {
  paginatedUsers(first: 50) {
    count
    edges {
      node {
        ref
        name
        email
        isActive
      }
    }
  }
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_holds_lists_when_any_page_found_one() {
        let first =
            Rows { columns: vec!["name".into(), "groups.name".into()], lists: vec![false, false], ..Rows::default() };
        let mut grid = Grid::from_rows(first, 1);
        assert!(!grid.holds_list(1), "every node of the first page had no groups");
        grid.add_lists(&[false, true]);
        assert!(!grid.holds_list(0) && grid.holds_list(1));
        grid.add_lists(&[false, false]);
        assert!(grid.holds_list(1), "a later page without lists takes nothing back");
        assert!(!grid.holds_list(7));
    }

    #[test]
    fn sorts_numbers_as_numbers_and_keeps_order_when_appending() {
        let rows = Rows {
            columns: vec!["n".into()],
            rows: vec![Row::new(["10"]), Row::new(["9"]), Row::new(["100"])],
            ..Rows::default()
        };
        let mut grid = Grid::from_rows(rows, 1);
        grid.sort_by(0, true);
        assert_eq!(grid.order, [1, 0, 2]);
        grid.append(vec![Row::new(["1"])]);
        assert_eq!(grid.order, [1, 0, 2, 3], "appended after the others until the fetch ends");
        grid.settle();
        assert_eq!(grid.order, [3, 1, 0, 2]);
        grid.sort_by(0, false);
        assert_eq!(grid.order, [2, 0, 1, 3]);
    }
}
