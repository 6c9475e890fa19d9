//! What the app knows, apart from the worker and the panels that draw it: the tabs, the chosen
//! connection, the schema of each connection, what the window shows and the problems shown. It
//! has one owner (the app), serialises to the [`Workspace`] that comes back on the next start,
//! and its fields are private: it changes only through its methods, which count the changes
//! ([`AppState::generation`]) so that the workspace is saved when, and only when, it changed.

use std::collections::HashMap;

use crate::explorer::SchemaModel;
pub use crate::ui::app::workspace::{MainView, Side};
use crate::ui::app::workspace::{SavedTab, WORKSPACE_VERSION, Workspace};
use crate::ui::explorer::SchemaState;
use crate::ui::profiles::ProfileChoice;
use crate::ui::queries::tab::{SAMPLE_QUERY, Tab};
use crate::ui::queries::tabs::Tabs;
use crate::ui::widgets::requested::Requested;
use crate::worker::LoadedSchema;

/// The schema of each connection, by name: asked for when a connection is chosen, kept while
/// it is fetched again (a refresh keeps the tree and the editor's checks), and shared by the
/// explorer, the editor's checks and completion, and new tabs' samples.
#[derive(Default)]
pub struct Schemas {
    by_connection: HashMap<String, SchemaState>,
}

/// A schema never asked for.
static NOT_ASKED: SchemaState = Requested::Idle;

impl Schemas {
    /// The schema of `connection`, as far as it is known.
    pub fn of(&self, connection: &str) -> &SchemaState {
        self.by_connection.get(connection).unwrap_or(&NOT_ASKED)
    }

    /// The model of `connection`'s schema, when one is in (the previous one while reloading).
    pub fn model(&self, connection: &str) -> Option<&std::sync::Arc<SchemaModel>> {
        self.of(connection).value().map(|loaded| &loaded.model)
    }

    /// Whether `connection`'s schema was never asked for.
    pub fn needs_load(&self, connection: &str) -> bool {
        matches!(self.of(connection), Requested::Idle)
    }

    /// `connection`'s schema was asked for.
    pub fn loading(&mut self, connection: &str) {
        self.by_connection.entry(connection.to_owned()).or_default().start();
    }

    /// `connection`'s schema arrived, or failed.
    pub fn loaded(&mut self, connection: &str, result: Result<LoadedSchema, String>) {
        self.by_connection.entry(connection.to_owned()).or_default().finish(result);
    }

    /// Forgets `connection`'s schema (its profile changed): it is asked for again when chosen.
    pub fn forget(&mut self, connection: &str) {
        self.by_connection.remove(connection);
    }
}

/// The app's state.
pub struct AppState {
    tabs: Tabs,
    connection: ProfileChoice,
    side: Side,
    view: MainView,
    variables_folded: bool,
    /// The remote listener the inspector is attached to, kept for the next start.
    remote_listener: Option<String>,
    schemas: Schemas,
    /// Problems shown above the work, until dismissed.
    problems: Vec<String>,
    /// A connection to choose once the profiles are known (from the restored workspace).
    pending_connection: Option<String>,
    /// Whether the profiles file has been read (or there is none).
    profiles_known: bool,
    /// Changes of what is kept, apart from the tabs' own ([`Tabs::generation`]).
    generation: u64,
}

impl AppState {
    /// The state of a first start: one sample tab on the sandbox.
    pub fn new(profiles_known: bool) -> Self {
        AppState {
            tabs: Tabs::new(vec![Tab::new(1, "Users", SAMPLE_QUERY)], 0),
            connection: ProfileChoice::Sandbox,
            side: Side::Explorer,
            view: MainView::Queries,
            variables_folded: false,
            remote_listener: None,
            schemas: Schemas::default(),
            problems: Vec::new(),
            pending_connection: None,
            profiles_known,
            generation: 0,
        }
    }

    /// A number that grows with every change of what the workspace keeps.
    pub fn generation(&self) -> u64 {
        self.generation + self.tabs.generation()
    }

    /// The tabs.
    pub fn tabs(&self) -> &Tabs {
        &self.tabs
    }

    /// The tabs, to change (a change of what a tab keeps is noted by [`Tab::touch`]; the
    /// tabs' own methods note theirs).
    pub fn tabs_mut(&mut self) -> &mut Tabs {
        &mut self.tabs
    }

    /// The chosen connection.
    pub fn connection(&self) -> &ProfileChoice {
        &self.connection
    }

    /// Chooses a connection.
    pub fn choose(&mut self, connection: ProfileChoice) {
        if connection != self.connection {
            self.connection = connection;
            self.generation += 1;
        }
    }

    /// What the left side shows.
    pub fn side(&self) -> Side {
        self.side
    }

    /// Shows `side` on the left.
    pub fn set_side(&mut self, side: Side) {
        if side != self.side {
            self.side = side;
            self.generation += 1;
        }
    }

    /// What the window shows.
    pub fn view(&self) -> MainView {
        self.view
    }

    /// Shows the queries or the webhook inspector.
    pub fn show(&mut self, view: MainView) {
        if view != self.view {
            self.view = view;
            self.generation += 1;
        }
    }

    /// Whether the variables pane is folded.
    pub fn variables_folded(&self) -> bool {
        self.variables_folded
    }

    /// Folds or opens the variables pane.
    pub fn fold_variables(&mut self, folded: bool) {
        if folded != self.variables_folded {
            self.variables_folded = folded;
            self.generation += 1;
        }
    }

    /// The remote listener the inspector is attached to.
    pub fn remote_listener(&self) -> Option<&str> {
        self.remote_listener.as_deref()
    }

    /// Keeps the remote listener attached to (none: detached) for the next start.
    pub fn remember_remote(&mut self, url: Option<String>) {
        if url != self.remote_listener {
            self.remote_listener = url;
            self.generation += 1;
        }
    }

    /// The schema of each connection.
    pub fn schemas(&self) -> &Schemas {
        &self.schemas
    }

    /// The schema of each connection, to change (none of it is kept in the workspace).
    pub fn schemas_mut(&mut self) -> &mut Schemas {
        &mut self.schemas
    }

    /// The problems shown above the work.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Shows a problem above the work (until dismissed).
    pub fn problem(&mut self, problem: impl Into<String>) {
        self.problems.push(problem.into());
    }

    /// Dismisses every problem shown.
    pub fn dismiss_problems(&mut self) {
        self.problems.clear();
    }

    /// The chosen connection's name ("Sandbox" or a profile's).
    pub fn connection_name(&self) -> String {
        name_of(&self.connection)
    }

    /// Whether the chosen connection is settled (not waiting for the profiles to choose the
    /// restored one): only then is its schema asked for.
    pub fn connection_settled(&self) -> bool {
        self.pending_connection.is_none()
    }

    /// The schema of the chosen connection.
    pub fn schema(&self) -> &SchemaState {
        self.schemas.of(&self.connection_name())
    }

    /// A new tab, its sample built from the chosen connection's schema when it is known (else
    /// the spec's own).
    pub fn new_tab(&mut self) {
        let sample = match self.schemas.model(&self.connection_name()) {
            Some(model) => crate::query::sample_query(model.schema()),
            None => SAMPLE_QUERY.to_owned(),
        };
        // The editor takes the focus, so that typing right after Ctrl+T goes into the new tab.
        self.tabs.open(None, sample).jump_to = Some((1, 1));
    }

    /// The workspace as it is now.
    pub fn workspace(&self) -> Workspace {
        Workspace {
            version: WORKSPACE_VERSION,
            tabs: self.tabs.list().iter().map(SavedTab::of).collect(),
            active: self.tabs.active_index(),
            // A restored connection still waiting for the profiles is kept as it was.
            connection: self.pending_connection.clone().unwrap_or_else(|| self.connection_name()),
            side: self.side,
            view: self.view,
            variables_open: !self.variables_folded,
            remote_listener: self.remote_listener.clone(),
        }
    }

    /// Takes back a workspace kept before.
    pub fn restore(&mut self, workspace: Workspace) {
        let Workspace { tabs, active, connection, side, view, variables_open, remote_listener, .. } = workspace;
        if !tabs.is_empty() {
            let restored = tabs.into_iter().zip(1..).map(|(tab, id)| tab.restore(id)).collect();
            self.tabs = Tabs::new(restored, active);
        }
        self.side = side;
        self.view = view;
        self.variables_folded = !variables_open;
        self.remote_listener = remote_listener;
        self.pending_connection = Some(connection);
        // Past whatever the tabs count now, so that the restored state reads as a change.
        self.generation += 1 + self.tabs.generation();
    }

    /// The profiles file has been read: a restored connection waiting for it is chosen.
    pub fn profiles_known(&mut self, has_profile: impl Fn(&str) -> bool) {
        self.profiles_known = true;
        self.choose_pending_connection(has_profile);
    }

    /// Chooses the restored connection once its profile is known; a profile that is gone
    /// leaves the sandbox chosen, with a notice.
    pub fn choose_pending_connection(&mut self, has_profile: impl Fn(&str) -> bool) {
        let waiting_for_profiles = !self.profiles_known && self.pending_connection.as_deref() != Some("Sandbox");
        if waiting_for_profiles {
            return;
        }
        let Some(name) = self.pending_connection.take() else { return };
        self.generation += 1;
        if name == "Sandbox" {
            self.connection = ProfileChoice::Sandbox;
        } else if has_profile(&name) {
            self.connection = ProfileChoice::Named(name);
        } else {
            self.problems.push(format!("The profile '{name}' of the last session no longer exists; Sandbox is chosen"));
        }
    }
}

impl serde::Serialize for AppState {
    /// As the [`Workspace`]: what of the state is kept (results and requests under way are not).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.workspace().serialize(serializer)
    }
}

/// The name of a connection choice.
pub fn name_of(choice: &ProfileChoice) -> String {
    match choice {
        ProfileChoice::Sandbox => "Sandbox".to_owned(),
        ProfileChoice::Named(name) => name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restored_connection_waits_for_the_profiles_and_falls_back_to_the_sandbox_when_gone() {
        let mut state = AppState::new(false);
        state.restore(Workspace { connection: "Prod".into(), ..Workspace::default() });
        state.choose_pending_connection(|_| true);
        assert!(!state.connection_settled(), "the profiles are not read yet");
        assert_eq!(state.workspace().connection, "Prod", "kept as it was meanwhile");
        state.profiles_known(|name| name == "Staging");
        assert!(state.connection_settled());
        assert_eq!(*state.connection(), ProfileChoice::Sandbox);
        assert!(state.problems()[0].contains("'Prod'"), "{:?}", state.problems());
    }

    #[test]
    fn a_schema_being_fetched_again_keeps_the_one_shown() {
        let mut schemas = Schemas::default();
        assert!(schemas.needs_load("Sandbox"));
        schemas.loading("Sandbox");
        assert!(!schemas.needs_load("Sandbox"));
        schemas.loaded("Sandbox", Err("down".into()));
        assert_eq!(schemas.of("Sandbox").error().map(String::as_str), Some("down"));
        assert!(schemas.needs_load("Other"), "each connection has its own");
        schemas.forget("Sandbox");
        assert!(schemas.needs_load("Sandbox"));
    }

    #[test]
    fn serialises_as_the_workspace() {
        let state = AppState::new(true);
        let json = serde_json::to_value(&state).expect("JSON");
        assert_eq!(json["version"], WORKSPACE_VERSION);
        assert_eq!(json["tabs"][0]["title"], "Users");
        assert_eq!(json["connection"], "Sandbox");
    }
}
