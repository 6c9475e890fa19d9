//! What of the user's work comes back on the next start: the tabs (title, query, variables,
//! chosen view, the connection their rows came from), the active tab, the chosen connection, the
//! side panel, the main view and the layout. Kept as JSON in the SQLite store by the worker
//! (off the UI thread), within a second of a change. Results are not kept: they may be large
//! and hold personal data, and a Run brings them back.

use serde::{Deserialize, Serialize};

use crate::ui::queries::tab::{Tab, View};

/// What the left side of the query view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Side {
    /// The history of runs.
    History,
    /// The saved operations.
    Saved,
    /// The schema explorer (also what an unknown kept value becomes: serde wants it last).
    #[default]
    #[serde(other)]
    Explorer,
}

/// What fills the window below the toolbar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum MainView {
    /// The webhook inspector.
    Webhooks,
    /// Tabs of queries and their results (also what an unknown kept value becomes: serde
    /// wants it last).
    #[default]
    #[serde(other)]
    Queries,
}

/// The version of the format written; a text of a later version is set aside, not misread.
pub const WORKSPACE_VERSION: u32 = 1;

/// The work that comes back on the next start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Workspace {
    /// The format's version ([`WORKSPACE_VERSION`] when written by this orgql).
    pub version: u32,
    /// The tabs, in order.
    pub tabs: Vec<SavedTab>,
    /// The index of the active tab.
    pub active: usize,
    /// The chosen connection: "Sandbox" or a profile's name.
    pub connection: String,
    /// The side panel (an unknown value reads as the explorer).
    pub side: Side,
    /// The main view (an unknown value reads as the queries).
    pub view: MainView,
    /// Whether the variables pane is open.
    pub variables_open: bool,
    /// The remote listener the inspector was attached to (attached again at the next start).
    pub remote_listener: Option<String>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            version: WORKSPACE_VERSION,
            tabs: Vec::new(),
            active: 0,
            connection: "Sandbox".to_owned(),
            side: Side::Explorer,
            view: MainView::Queries,
            variables_open: true,
            remote_listener: None,
        }
    }
}

/// One tab as it comes back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedTab {
    /// Its title.
    pub title: String,
    /// The document.
    pub query: String,
    /// The variables as typed.
    pub variables: String,
    /// How its result is shown (an unknown value reads as the grid).
    pub view: View,
    /// The connection its last rows came from, when it had rows.
    pub connection: Option<String>,
    /// The saved operation it belongs to.
    pub saved: Option<i64>,
}

impl Default for SavedTab {
    fn default() -> Self {
        SavedTab {
            title: "Query".to_owned(),
            query: String::new(),
            variables: String::new(),
            view: View::Grid,
            connection: None,
            saved: None,
        }
    }
}

impl SavedTab {
    /// What of `tab` is kept.
    pub fn of(tab: &Tab) -> Self {
        SavedTab {
            title: tab.title.clone(),
            query: tab.query.clone(),
            variables: tab.variables.clone(),
            view: tab.view,
            connection: tab.source.as_ref().map(|source| source.name().to_owned()),
            saved: tab.saved,
        }
    }

    /// The tab it makes again, with id `id` (no result: a Run brings it back).
    pub fn restore(self, id: u64) -> Tab {
        let mut tab = Tab::new(id, self.title, self.query);
        tab.variables = self.variables;
        tab.view = self.view;
        tab.restored_from = self.connection;
        tab.saved = self.saved;
        tab
    }
}

/// Why a kept workspace cannot be used, in a few words (the notice says the rest).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnreadableWorkspace {
    /// Not JSON of this shape.
    #[error("it is not a workspace orgql can read ({0})")]
    Corrupt(String),
    /// Written by a later orgql.
    #[error("it was written by a newer orgql (format {0}, this one reads {WORKSPACE_VERSION})")]
    Newer(u32),
}

impl Workspace {
    /// Reads a kept workspace.
    ///
    /// # Errors
    ///
    /// [`UnreadableWorkspace`] for a text that is not a workspace or is of a later format.
    pub fn parse(json: &str) -> Result<Self, UnreadableWorkspace> {
        let corrupt = |e: serde_json::Error| UnreadableWorkspace::Corrupt(e.to_string());
        let value: serde_json::Value = serde_json::from_str(json).map_err(corrupt)?;
        if !value.is_object() {
            return Err(UnreadableWorkspace::Corrupt("the text is not a JSON object".to_owned()));
        }
        let workspace: Workspace = serde_json::from_value(value).map_err(corrupt)?;
        if workspace.version > WORKSPACE_VERSION {
            return Err(UnreadableWorkspace::Newer(workspace.version));
        }
        Ok(workspace)
    }

    /// The JSON text kept.
    pub fn to_json(&self) -> String {
        // A struct of strings, numbers and booleans always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_older_texts_with_defaults() {
        let workspace = Workspace {
            tabs: vec![SavedTab { title: "Users".into(), query: "{ a }".into(), ..SavedTab::default() }],
            active: 0,
            connection: "acme".into(),
            side: Side::Saved,
            ..Workspace::default()
        };
        assert_eq!(Workspace::parse(&workspace.to_json()).unwrap(), workspace);
        let older = Workspace::parse(r#"{"version":1,"tabs":[{"query":"{ b }"}],"future_field":[1,2]}"#).unwrap();
        assert_eq!(older.tabs[0].title, "Query");
        assert_eq!(older.tabs[0].query, "{ b }");
        assert!(older.variables_open);
        assert_eq!(older.connection, "Sandbox");
        let unknown = Workspace::parse(r#"{"side":"Elsewhere","view":"Later","tabs":[{"view":"Map"}]}"#).unwrap();
        assert_eq!((unknown.side, unknown.view, unknown.tabs[0].view), (Side::Explorer, MainView::Queries, View::Grid));
        let chart = Workspace::parse(r#"{"tabs":[{"view":"Chart"}]}"#).unwrap();
        assert_eq!(chart.tabs[0].view, View::Chart, "the Chart view is kept (issue 32)");
    }

    #[test]
    fn a_corrupt_or_newer_text_is_refused_with_why() {
        assert!(matches!(Workspace::parse("{\"tabs\": [1, 2"), Err(UnreadableWorkspace::Corrupt(_))));
        assert!(matches!(Workspace::parse("[]"), Err(UnreadableWorkspace::Corrupt(_))));
        let newer = Workspace::parse(r#"{"version": 7}"#).unwrap_err();
        assert_eq!(newer, UnreadableWorkspace::Newer(7));
        assert!(newer.to_string().contains("newer orgql"), "{newer}");
    }

    #[test]
    fn a_tab_comes_back_with_its_text_and_view() {
        let mut tab = Tab::new(3, "Groups", "{ paginatedGroups { count } }");
        tab.variables = "{\"x\": 1}".into();
        tab.view = View::Raw;
        let back = SavedTab::of(&tab).restore(9);
        assert_eq!((back.id, back.title.as_str(), back.view), (9, "Groups", View::Raw));
        assert_eq!((back.query.as_str(), back.variables.as_str()), ("{ paginatedGroups { count } }", "{\"x\": 1}"));
    }
}
