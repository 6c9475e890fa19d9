//! Connection profiles: the built-in sandbox and the saved ones; a window to add, edit, delete
//! and test them. Secrets go to the OS keyring; where none runs, the app says so once and keeps
//! them in memory for this session only.

use std::collections::HashMap;

use super::state::Requested;
use super::status_bar::lifetime;
use crate::api::{ApiError, BaseUrl, Credentials, TokenState};
use crate::profiles::{Profile, ProfileFile, SECRET_ENV, SecretStore};
use crate::scopes::{Scope, ScopeSet};
use crate::secret::Secret;
use crate::worker::{Command, Connection, JobId};

/// The connection chosen in the toolbar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileChoice {
    /// The in-process sandbox.
    Sandbox,
    /// A saved profile.
    Named(String),
}

/// The profile form.
#[derive(Debug, Clone, Default)]
struct Draft {
    original: Option<String>,
    name: String,
    base_url: String,
    client_id: String,
    secret: String,
    scopes: ScopeSet,
    error: Option<String>,
}

impl Draft {
    fn credentials(&self) -> Result<Credentials, String> {
        let base_url = BaseUrl::parse(&self.base_url).map_err(|e| e.to_string())?;
        if self.client_id.trim().is_empty() {
            return Err("give the client ID".into());
        }
        if self.scopes.is_empty() {
            return Err("tick at least one scope".into());
        }
        Ok(Credentials {
            base_url,
            client_id: self.client_id.trim().to_owned(),
            client_secret: Secret::new(self.secret.clone()),
            scopes: self.scopes,
        })
    }
}

/// The profiles, and their window.
pub struct ProfilesWindow {
    /// Whether the window is open.
    pub open: bool,
    file: Option<ProfileFile>,
    secrets: SecretStore,
    profiles: Vec<Profile>,
    /// Secrets for this session: those typed where no keyring runs, and those read once.
    session: HashMap<String, Secret>,
    draft: Option<Draft>,
    test: Option<(JobId, Requested<TokenState, ApiError>)>,
    problem: Option<String>,
}

impl ProfilesWindow {
    /// Loads the profiles of `file`.
    pub fn new(file: Option<ProfileFile>, secrets: SecretStore) -> Self {
        let (profiles, problem) = match file.as_ref().map(ProfileFile::load) {
            Some(Ok(profiles)) => (profiles, None),
            Some(Err(e)) => (Vec::new(), Some(e.to_string())),
            None => (Vec::new(), None),
        };
        let problem = problem.or_else(|| {
            secrets.unavailable_reason().map(|why| {
                format!("No OS keyring is available ({why}): secrets of profiles are kept for this session only")
            })
        });
        ProfilesWindow {
            open: false,
            file,
            secrets,
            profiles,
            session: HashMap::new(),
            draft: None,
            test: None,
            problem,
        }
    }

    /// What went wrong loading the profiles, or the keyring notice, once.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Whether a profile of this name exists.
    pub fn has_profile(&self, name: &str) -> bool {
        self.profiles.iter().any(|profile| profile.name == name)
    }

    /// The name shown for a choice.
    pub fn name_of(&self, choice: &ProfileChoice) -> String {
        match choice {
            ProfileChoice::Sandbox => "Sandbox".to_owned(),
            ProfileChoice::Named(name) => name.clone(),
        }
    }

    /// The scopes a choice requests (the sandbox: all), without reading its secret.
    pub fn scopes_of(&self, choice: &ProfileChoice) -> ScopeSet {
        match choice {
            ProfileChoice::Sandbox => ScopeSet::all(),
            ProfileChoice::Named(name) => {
                self.profiles.iter().find(|p| &p.name == name).map_or(ScopeSet::empty(), |p| p.scopes)
            }
        }
    }

    /// The connection of a choice, with its secret (session, keyring, then `ORGQL_CLIENT_SECRET`).
    pub fn connection(&mut self, choice: &ProfileChoice) -> Result<Connection, String> {
        let ProfileChoice::Named(name) = choice else { return Ok(Connection::Sandbox) };
        let profile = self
            .profiles
            .iter()
            .find(|p| &p.name == name)
            .ok_or_else(|| format!("the profile '{name}' no longer exists; choose another connection"))?;
        let secret = match self.session.get(name) {
            Some(secret) => secret.clone(),
            None => {
                let stored = self.secrets.client_secret(name).ok().flatten();
                let secret = stored
                    .or_else(|| std::env::var(SECRET_ENV).ok().filter(|s| !s.is_empty()).map(Secret::new))
                    .ok_or_else(|| format!("the profile '{name}' has no secret; enter it in Profiles…"))?;
                self.session.insert(name.clone(), secret.clone());
                secret
            }
        };
        let credentials = profile.credentials(secret).map_err(|e| e.to_string())?;
        Ok(Connection::Remote { name: name.clone(), credentials })
    }

    /// The connection chooser of the toolbar.
    pub fn choice_ui(&mut self, ui: &mut egui::Ui, choice: &mut ProfileChoice) {
        let label = ui.label("Connection");
        egui::ComboBox::from_id_salt("connection")
            .selected_text(self.name_of(choice))
            .show_ui(ui, |ui| {
                ui.selectable_value(choice, ProfileChoice::Sandbox, "Sandbox");
                for profile in &self.profiles {
                    ui.selectable_value(choice, ProfileChoice::Named(profile.name.clone()), &profile.name);
                }
            })
            .response
            .labelled_by(label.id);
    }

    /// Records the result of a connection test.
    pub fn tested(&mut self, job: JobId, result: Result<TokenState, ApiError>) {
        if let Some((test_job, state)) = self.test.as_mut()
            && *test_job == job
        {
            state.finish(result);
        }
    }

    /// Draws the window when open; returns a command to send (a connection test).
    pub fn window_ui(&mut self, ctx: &egui::Context, next_job: &mut JobId) -> Option<Command> {
        if !self.open {
            return None;
        }
        let mut command = None;
        let mut open = self.open;
        let center = ctx.content_rect().center();
        egui::Window::new("Profiles")
            .open(&mut open)
            .default_width(560.0)
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(center)
            .show(ctx, |ui| {
                command = self.list_ui(ui, next_job);
                ui.separator();
                if let Some(c) = self.draft_ui(ui, next_job) {
                    command = Some(c);
                }
                self.test_ui(ui);
            });
        self.open = open;
        command
    }

    fn list_ui(&mut self, ui: &mut egui::Ui, next_job: &mut JobId) -> Option<Command> {
        let mut command = None;
        ui.horizontal(|ui| {
            ui.strong("Sandbox");
            ui.weak("built in: this machine, generated data, no secret needed");
            // Named apart from the form's "Test connection", for screen readers and tests.
            if ui.button("Test connection").accessible_name("Test the sandbox connection").clicked() {
                command = Some(self.start_test(next_job, Connection::Sandbox));
            }
        });
        let mut delete = None;
        for profile in &self.profiles {
            ui.horizontal(|ui| {
                ui.strong(&profile.name);
                ui.label(format!("{} · {}", profile.base_url, profile.client_id));
                if ui.button("Edit").accessible_name(format!("Edit {}", profile.name)).clicked() {
                    let secret = self.session.get(&profile.name).map(|s| s.expose().to_owned()).unwrap_or_default();
                    self.draft = Some(Draft {
                        original: Some(profile.name.clone()),
                        name: profile.name.clone(),
                        base_url: profile.base_url.clone(),
                        client_id: profile.client_id.clone(),
                        secret,
                        scopes: profile.scopes,
                        error: None,
                    });
                }
                if ui.button("Delete").accessible_name(format!("Delete {}", profile.name)).clicked() {
                    delete = Some(profile.name.clone());
                }
            });
        }
        if let Some(name) = delete {
            self.delete(&name);
        }
        if self.draft.is_none() && ui.button("Add profile").clicked() {
            self.draft = Some(Draft { scopes: Scope::UsersRead.into(), ..Draft::default() });
        }
        command
    }

    fn delete(&mut self, name: &str) {
        if let Some(file) = &self.file
            && let Err(e) = file.remove(name)
        {
            self.problem = Some(e.to_string());
            return;
        }
        if self.secrets.is_available()
            && let Err(e) = self.secrets.delete_client_secret(name)
        {
            self.problem = Some(format!("the profile was deleted, but not its secret: {e}"));
        }
        self.profiles.retain(|p| p.name != name);
        self.session.remove(name);
    }

    fn draft_ui(&mut self, ui: &mut egui::Ui, next_job: &mut JobId) -> Option<Command> {
        let mut command = None;
        let draft = self.draft.as_mut()?;
        let mut save = false;
        let mut cancel = false;
        egui::Grid::new("profile-form").num_columns(2).show(ui, |ui| {
            for (label, value, hint) in [
                ("Name", &mut draft.name, "acme-test"),
                ("Base URL", &mut draft.base_url, "https://acme.example.com"),
                ("Client ID", &mut draft.client_id, ""),
            ] {
                let label = ui.label(label);
                ui.add(egui::TextEdit::singleline(value).hint_text(hint).desired_width(320.0)).labelled_by(label.id);
                ui.end_row();
            }
            let label = ui.label("Client secret");
            ui.add(egui::TextEdit::singleline(&mut draft.secret).password(true).desired_width(320.0))
                .labelled_by(label.id);
            ui.end_row();
        });
        ui.label("Scopes");
        for scope in Scope::ALL {
            let mut on = draft.scopes.contains(scope);
            if ui.checkbox(&mut on, scope.as_str()).on_hover_text(scope.description()).changed() {
                let mut set = draft.scopes.difference(scope.into());
                if on {
                    set.insert(scope);
                }
                draft.scopes = set;
            }
            ui.indent(scope.as_str(), |ui| ui.weak(scope.description()));
        }
        if let Some(error) = &draft.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        ui.horizontal(|ui| {
            save = ui.button("Save profile").clicked();
            if ui.button("Test connection").clicked() {
                match draft.credentials() {
                    Ok(credentials) => {
                        let name = format!("test:{}", draft.name);
                        command = Some(Connection::Remote { name, credentials });
                    }
                    Err(e) => draft.error = Some(e),
                }
            }
            cancel = ui.button("Cancel").clicked();
        });
        let command = command.map(|connection| self.start_test(next_job, connection));
        if save {
            self.save_draft();
        }
        if cancel {
            self.draft = None;
        }
        command
    }

    fn save_draft(&mut self) {
        let Some(draft) = self.draft.as_mut() else { return };
        let name = draft.name.trim().to_owned();
        if let Err(e) = crate::profiles::check_name(&name) {
            draft.error = Some(e.to_string());
            return;
        }
        if let Err(e) = draft.credentials() {
            draft.error = Some(e);
            return;
        }
        let profile = Profile {
            name: name.clone(),
            base_url: draft.base_url.trim().to_owned(),
            client_id: draft.client_id.trim().to_owned(),
            scopes: draft.scopes,
        };
        if let Some(file) = &self.file {
            if let Some(original) = draft.original.as_ref().filter(|o| **o != name)
                && let Err(e) = file.remove(original)
            {
                draft.error = Some(e.to_string());
                return;
            }
            if let Err(e) = file.upsert(profile.clone()) {
                draft.error = Some(e.to_string());
                return;
            }
        }
        let secret = Secret::new(draft.secret.clone());
        if !secret.is_empty() {
            if self.secrets.is_available()
                && let Err(e) = self.secrets.set_client_secret(&name, &secret)
            {
                self.problem =
                    Some(format!("the profile was saved, but its secret is kept for this session only: {e}"));
            }
            self.session.insert(name.clone(), secret);
        }
        self.profiles.retain(|p| Some(&p.name) != draft.original.as_ref() && p.name != name);
        self.profiles.push(profile);
        self.profiles.sort_by(|a, b| a.name.cmp(&b.name));
        self.draft = None;
    }

    fn start_test(&mut self, next_job: &mut JobId, connection: Connection) -> Command {
        *next_job += 1;
        let job = *next_job;
        let mut state = Requested::Idle;
        state.start();
        self.test = Some((job, state));
        Command::TestConnection { job, connection }
    }

    fn test_ui(&self, ui: &mut egui::Ui) {
        let Some((_, state)) = &self.test else { return };
        ui.separator();
        match state {
            Requested::Pending { .. } => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Requesting a token…");
                });
            }
            Requested::Done(TokenState::Valid { remaining, scopes }) => {
                ui.label(format!("Connected: token valid for {}", lifetime(*remaining)));
                ui.label(format!("Granted scopes: {scopes}"));
            }
            Requested::Done(TokenState::None) => {
                ui.label("No token.");
            }
            Requested::Failed { error, .. } => {
                ui.colored_label(ui.visuals().error_fg_color, format!("Connection failed: {error}"));
            }
            Requested::Idle => {}
        }
    }
}

impl From<Scope> for ScopeSet {
    fn from(scope: Scope) -> Self {
        std::iter::once(scope).collect()
    }
}
