//! The worker's events, each to the feature that owns it: one line a feature. What a feature's
//! event means for another (a saved tab's new title, a history run opened in a tab, a profiles
//! file that could not be read) is settled here, in a few words.

use super::OrgqlApp;
use crate::store::{HistoryEntry, SavedOperation};
use crate::ui::app::workspace::Workspace;
use crate::ui::profiles::ProfileChoice;
use crate::worker::{Event, ProfilesEvent, WorkspaceCommand, WorkspaceEvent};

impl OrgqlApp {
    /// Applies one event of the worker.
    pub(super) fn apply(&mut self, event: Event) {
        match event {
            Event::Query(event) => self.queries.on_event(event, &mut self.state, &mut self.status),
            Event::Export(event) => {
                let (queries, mut cx) = self.context();
                queries.on_export_event(event, &mut cx);
            }
            Event::Import(event) => self.import.on_event(event),
            Event::Chart(event) => self.queries.results.chart.on_event(event),
            Event::History(event) => self.history.on_event(event),
            Event::Workspace(WorkspaceEvent::Loaded(loaded)) => self.restore(loaded),
            Event::Schema(crate::worker::SchemaEvent::Loaded { connection, result }) => {
                self.state.schemas_mut().loaded(&connection, result)
            }
            Event::Schema(crate::worker::SchemaEvent::Notice(notice)) => self.schema_notice.on_notice(notice),
            Event::Schema(event) => {
                if let Some(done) = self.schema_changes.on_event(event, &mut self.commands) {
                    self.fix_written(&done);
                    self.schema_notice.recount(&mut self.commands);
                }
            }
            Event::Webhooks(event) => {
                self.webhooks.on_event(event);
                self.webhooks.resume_pending(&mut self.commands);
            }
            Event::Support(event) => self.find_user.on_event(event),
            Event::Operations(event) => match self.saved.on_event(event) {
                Ok(Some((tab, operation))) => self.tab_saved(tab, operation),
                Ok(None) => {}
                Err(why) => self.state.problem(why),
            },
            Event::Profiles(event) => self.profiles_event(event),
            Event::Schedules(event) => self.schedules.on_event(event),
            Event::Status(event) => self.status.on_event(event),
            Event::Problem(problem) => self.state.problem(problem),
        }
    }

    fn profiles_event(&mut self, event: ProfilesEvent) {
        let loaded = matches!(event, ProfilesEvent::Loaded(_));
        if let ProfilesEvent::Saved { name, .. } = &event {
            // A profile pointed elsewhere has another schema: asked for again when chosen.
            self.state.schemas_mut().forget(name);
        }
        if let Some(problem) = self.profiles.on_event(event) {
            self.state.problem(problem);
        }
        if loaded {
            let profiles = &self.profiles;
            self.state.profiles_known(|name| profiles.has_profile(name));
        }
    }

    /// A tab saved as `operation` now belongs to it.
    fn tab_saved(&mut self, tab_id: u64, operation: SavedOperation) {
        if let Some(tab) = self.state.tabs_mut().list_mut().iter_mut().find(|tab| tab.id == tab_id) {
            tab.saved = Some(operation.id);
            tab.title = operation.name;
            tab.touch();
        }
    }

    /// A saved operation rewritten by a fix (or put back): its open tab follows when it still
    /// shows what was there before.
    fn fix_written(&mut self, done: &crate::worker::FixDone) {
        let rewrite = &done.rewrite;
        let (was, now) =
            if done.undone { (&rewrite.after, &rewrite.before) } else { (&rewrite.before, &rewrite.after) };
        let tabs = self.state.tabs_mut().list_mut().iter_mut();
        for tab in tabs.filter(|tab| tab.saved == Some(rewrite.operation) && tab.query == *was) {
            tab.query.clone_from(now);
            tab.touch();
        }
    }

    /// Opens a saved operation: in its tab when one is open, else in a new one.
    pub(super) fn open_saved(&mut self, operation: SavedOperation) {
        let tabs = self.state.tabs_mut();
        if let Some(index) = tabs.list().iter().position(|tab| tab.saved == Some(operation.id)) {
            tabs.select(index);
            return;
        }
        let tab = tabs.open(Some(operation.name.clone()), operation.query);
        tab.variables = operation.variables;
        tab.saved = Some(operation.id);
    }

    /// Opens a run of the history in a new tab, and chooses its connection (a profile deleted
    /// since leaves the connection as it is, with a notice).
    pub(super) fn open_history(&mut self, entry: HistoryEntry) {
        let title = if entry.operation.is_empty() { format!("History {}", entry.id) } else { entry.operation.clone() };
        self.state.tabs_mut().open(Some(title), entry.query).variables = entry.variables;
        if entry.profile == "Sandbox" {
            self.state.choose(ProfileChoice::Sandbox);
        } else if self.profiles.has_profile(&entry.profile) {
            self.state.choose(ProfileChoice::Named(entry.profile));
        } else {
            let name = self.state.connection_name();
            self.state.problem(format!(
                "The run's connection '{}' no longer exists; the tab opened on {name}",
                entry.profile
            ));
        }
    }

    /// Brings back the workspace kept last; a text that cannot be read is set aside with a
    /// notice, and the session starts fresh.
    fn restore(&mut self, loaded: Result<Option<String>, String>) {
        let workspace = match loaded {
            Ok(Some(json)) => match Workspace::parse(&json) {
                Ok(workspace) => Some(workspace),
                Err(why) => {
                    self.state.problem(format!(
                        "The saved workspace could not be restored: {why}; a fresh session started and the old one \
                         is kept aside in the database"
                    ));
                    self.commands.send(WorkspaceCommand::SetAside(why.to_string()));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                self.state.problem(format!("{e}; the saved workspace could not be read, a fresh session started"));
                None
            }
        };
        if let Some(workspace) = workspace {
            self.state.restore(workspace);
            let profiles = &self.profiles;
            self.state.choose_pending_connection(|name| profiles.has_profile(name));
            if let Some(url) = self.state.remote_listener().map(str::to_owned) {
                self.webhooks.reattach(url, &mut self.commands);
            }
        }
        // From now on, changes are kept.
        self.saved_generation = Some(self.state.generation());
    }
}
