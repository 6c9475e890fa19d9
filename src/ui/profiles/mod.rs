//! Connection profiles: the built-in sandbox and the saved ones; a window to add, edit, delete
//! and test them. Secrets go to the OS keyring; where none runs, the app says so once and keeps
//! them in memory for this session only. The window does no I/O: the worker reads the profiles
//! file, writes it and the keyring (`ProfilesCommand::Save`, `Delete`), and reads a
//! profile's secret when a request needs it; the window shows a change at once and says so when
//! the worker could not make it.

mod network;

use std::collections::HashMap;

use crate::api::{ApiError, BaseUrl, Credentials, TokenState};
use crate::profiles::{Profile, SecretStore};
use crate::scopes::{Scope, ScopeSet};
use crate::secret::Secret;
use crate::ui::commands::Commands;
use crate::ui::widgets::numbers::lifetime;
use crate::ui::widgets::requested::Requested;
use crate::worker::NetworkPasswords;
use crate::worker::{Connection, JobId, ProfilesCommand, ProfilesEvent};
use network::{NetworkDraft, network_ui};

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
    network: NetworkDraft,
    error: Option<String>,
    /// The Name field takes the focus on the next frame (the button that opened the form is gone).
    focus_name: bool,
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
    profiles: Vec<Profile>,
    /// Secrets typed in this session (the others are the worker's to read).
    session: HashMap<String, Secret>,
    draft: Option<Draft>,
    /// The last connection test: its job, its state, and the route lines it brought.
    test: Option<(JobId, Requested<TokenState, ApiError>, Vec<String>)>,
    /// The keyring notice of the start, for the app to show once.
    problem: Option<String>,
    /// What the last save or delete could not do, shown in the window until the next one.
    notice: Option<String>,
    /// Add profile takes the focus on the next frame (the form's button that had it is gone).
    focus_add: bool,
}

impl ProfilesWindow {
    /// No profiles yet (they come with [`ProfilesWindow::loaded`]); `secrets` only says
    /// whether a keyring runs.
    pub fn new(secrets: &SecretStore) -> Self {
        let problem = secrets.unavailable_reason().map(|why| {
            format!("No OS keyring is available ({why}): secrets of profiles are kept for this session only")
        });
        ProfilesWindow {
            open: false,
            profiles: Vec::new(),
            session: HashMap::new(),
            draft: None,
            test: None,
            problem,
            notice: None,
            focus_add: false,
        }
    }

    /// The keyring notice, once.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The saved profiles' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.profiles.iter().map(|profile| profile.name.clone()).collect()
    }

    /// Whether a profile of this name exists.
    pub fn has_profile(&self, name: &str) -> bool {
        self.profiles.iter().any(|profile| profile.name == name)
    }

    /// The profiles of the profiles file, as the worker read them at start-up. Those saved in
    /// this window meanwhile are newer and stay.
    fn loaded(&mut self, profiles: Vec<Profile>) {
        for profile in profiles {
            if !self.profiles.iter().any(|p| p.name == profile.name) {
                self.profiles.push(profile);
            }
        }
        self.profiles.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// A save ended: what it could not do is shown in the window (the profile, already listed,
    /// stays for this session).
    fn saved(&mut self, name: &str, result: Result<Option<String>, String>) {
        match result {
            Ok(notice) => self.notice = notice.or(self.notice.take()),
            Err(e) => self.notice = Some(format!("{e}; the profile '{name}' is kept for this session only")),
        }
    }

    /// A delete ended: when the profile could not be removed from the file, it is listed again.
    fn deleted(&mut self, profile: Profile, result: Result<Option<String>, String>) {
        match result {
            Ok(notice) => self.notice = notice.or(self.notice.take()),
            Err(e) => {
                self.notice = Some(format!("{e}; the profile '{}' was not deleted", profile.name));
                if !self.profiles.iter().any(|p| p.name == profile.name) {
                    self.profiles.push(profile);
                    self.profiles.sort_by(|a, b| a.name.cmp(&b.name));
                }
            }
        }
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

    /// The connection of a choice, without I/O: with the secret typed in this session, else with
    /// none, which the worker reads for this profile's name (keyring, then `ORGQL_CLIENT_SECRET`)
    /// when the request is made, so that a request never goes out with another profile's secret.
    pub fn connection(&self, choice: &ProfileChoice) -> Result<Connection, String> {
        let ProfileChoice::Named(name) = choice else { return Ok(Connection::Sandbox) };
        let profile = self
            .profiles
            .iter()
            .find(|p| &p.name == name)
            .ok_or_else(|| format!("the profile '{name}' no longer exists; choose another connection"))?;
        let secret = self.session.get(name).cloned().unwrap_or_else(|| Secret::new(String::new()));
        let credentials = profile.credentials(secret).map_err(|e| e.to_string())?;
        Ok(Connection::Remote { name: name.clone(), credentials, network: Box::new(profile.network.clone()) })
    }

    /// The connection chooser of the toolbar.
    pub fn choice_ui(&mut self, ui: &mut egui::Ui, choice: &mut ProfileChoice) {
        let label = ui.label("Connection");
        let combo = egui::ComboBox::from_id_salt("connection").selected_text(self.name_of(choice)).show_ui(ui, |ui| {
            let mut chosen = crate::ui::widgets::a11y::choose(ui, choice, ProfileChoice::Sandbox, "Sandbox").clicked();
            for profile in &self.profiles {
                let named = ProfileChoice::Named(profile.name.clone());
                chosen |= crate::ui::widgets::a11y::choose(ui, choice, named, &profile.name).clicked();
            }
            chosen
        });
        let response = combo.response.labelled_by(label.id);
        crate::ui::widgets::a11y::finish_combo(ui, &response, combo.inner == Some(true));
    }

    /// Records the result of a connection test and the route it took.
    fn tested(&mut self, job: JobId, result: Result<TokenState, ApiError>, route: Vec<String>) {
        if let Some((test_job, state, lines)) = self.test.as_mut()
            && *test_job == job
        {
            state.finish(result);
            *lines = route;
        }
    }

    /// Takes what the worker says of profiles; a profiles file that could not be read is
    /// returned, to be shown above the work.
    pub fn on_event(&mut self, event: ProfilesEvent) -> Option<String> {
        match event {
            ProfilesEvent::Loaded(Ok(profiles)) => self.loaded(profiles),
            ProfilesEvent::Loaded(Err(problem)) => return Some(problem),
            ProfilesEvent::Saved { name, result } => self.saved(&name, result),
            ProfilesEvent::Deleted { profile, result } => self.deleted(profile, result),
            ProfilesEvent::Tested { job, result, route } => self.tested(job, result, route),
        }
        None
    }

    /// Draws the window when open, and sends what it asks (a connection test, a save, a delete).
    pub fn window_ui(&mut self, ctx: &egui::Context, sender: &mut Commands) {
        if !self.open {
            return;
        }
        let mut commands = Vec::new();
        let mut open = self.open;
        let screen = ctx.content_rect();
        // Centred, a little below the top: its title row stays where it is while the form opens,
        // closes and grows (a window centred on the screen moves by half of each change).
        let top = screen.top() + (screen.height() * 0.06).clamp(8.0, 64.0);
        let dialog = crate::ui::widgets::a11y::Dialog::new("profiles");
        let mut escaped = false;
        egui::Window::new("Profiles")
            .title_bar(false)
            .default_width(560.0)
            // As tall as its contents, up to the screen's bottom: the room asked is all there is
            // below its top, the height shown its contents'.
            .resizable([true, false])
            .default_height(screen.bottom() - top - 8.0)
            // Never more: egui keeps the largest height a window's contents asked for, and a window
            // taller than the room is pushed up (and stays there).
            .max_height(screen.bottom() - top - 8.0)
            .pivot(egui::Align2::CENTER_TOP)
            .default_pos(egui::pos2(screen.center().x, top))
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Profiles");
                // The buttons that act stay in a strip at the bottom, never scrolled away; the list
                // and the form scroll above it, in the room the strip leaves (at 150 % on a laptop,
                // 445 points, the form is taller than that). The strip's height is the last
                // frame's; when it grows (an outcome, an error), the frame is drawn again.
                let room = ui.available_height();
                let strip_id = egui::Id::unique("orgql-profiles-strip");
                let strip = ui.data(|d| d.get_temp::<f32>(strip_id)).unwrap_or_else(|| strip_estimate(ui));
                egui::ScrollArea::vertical()
                    .id_salt("profiles-body")
                    .max_height((room - strip).max(ui.spacing().interact_size.y * 3.0))
                    .auto_shrink([false, true])
                    .show(ui, |ui| {
                        if let Some(notice) = &self.notice {
                            crate::ui::widgets::a11y::polite_colored(ui, ui.visuals().warn_fg_color, notice);
                            ui.separator();
                        }
                        commands.extend(self.list_ui(ui, sender));
                        self.draft_ui(ui);
                        crate::ui::widgets::a11y::reveal_focus(ui);
                    });
                // Drawn in a child that takes no room of its own: the window is given at most the
                // room left, so a strip taller than the last frame's (an error, an outcome) does
                // not make the window taller than the room for that frame, which would push it up
                // for good.
                let left =
                    egui::Rect::from_min_size(ui.cursor().min, egui::vec2(ui.available_width(), ui.available_height()));
                let mut strip_ui = ui.new_child(egui::UiBuilder::new().max_rect(left).layout(*ui.layout()));
                commands.extend(self.actions_ui(&mut strip_ui, sender, room / 3.0));
                let drawn = strip_ui.min_rect().height();
                ui.allocate_exact_size(egui::vec2(left.width(), drawn.min(left.height())), egui::Sense::hover());
                let needed = drawn + ui.spacing().item_spacing.y;
                if (needed - strip).abs() > 0.5 {
                    ui.data_mut(|d| d.insert_temp(strip_id, needed));
                }
                // Shorter, the next frame gives the room back; taller, this one is not shown.
                if needed > strip + 0.5 {
                    ui.ctx().request_discard("the Profiles window's button strip grew");
                }
            });
        open &= !escaped;
        self.open = open;
        dialog.after(ctx, open);
        if !open {
            self.notice = None;
        }
        for command in commands {
            sender.send(command);
        }
    }

    fn list_ui(&mut self, ui: &mut egui::Ui, jobs: &mut Commands) -> Vec<ProfilesCommand> {
        let mut command = None;
        ui.horizontal(|ui| {
            ui.strong("Sandbox");
            ui.weak("built in: this machine, generated data, no secret needed");
            // Named apart from the form's "Test connection", for screen readers and tests.
            if ui.button("Test connection").accessible_name("Test the sandbox connection").clicked() {
                command = Some(self.start_test(jobs, Connection::Sandbox, NetworkPasswords::default()));
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
                        network: NetworkDraft::of(&profile.network),
                        error: None,
                        focus_name: true,
                    });
                }
                let button = ui.button("Delete").accessible_name(format!("Delete {}", profile.name));
                if button.clicked() {
                    delete = Some(profile.name.clone());
                    // The button goes with its row: the focus goes to Add profile.
                    self.focus_add |= button.has_focus();
                }
            });
        }
        let delete = delete.and_then(|name| self.delete(&name));
        command.into_iter().chain(delete).collect()
    }

    /// Takes the profile off the list at once; the worker removes it from the file and its
    /// secret from the keyring.
    fn delete(&mut self, name: &str) -> Option<ProfilesCommand> {
        let at = self.profiles.iter().position(|p| p.name == name)?;
        let profile = self.profiles.remove(at);
        self.session.remove(name);
        self.notice = None;
        Some(ProfilesCommand::Delete(profile))
    }

    /// The form's fields (its buttons are in the strip, [`ProfilesWindow::actions_ui`]).
    fn draft_ui(&mut self, ui: &mut egui::Ui) {
        let Some(draft) = self.draft.as_mut() else { return };
        ui.separator();
        egui::Grid::new("profile-form").num_columns(2).show(ui, |ui| {
            for (label, value, hint) in [
                ("Name", &mut draft.name, "acme-test"),
                ("Base URL", &mut draft.base_url, "https://acme.example.com"),
                ("Client ID", &mut draft.client_id, ""),
            ] {
                let label = ui.label(label);
                let field = ui
                    .add(egui::TextEdit::singleline(value).hint_text(hint).desired_width(320.0))
                    .labelled_by(label.id);
                // Not in a frame that only measures the window: its controls take no focus then.
                if draft.focus_name && !ui.is_sizing_pass() && ui.is_visible() {
                    draft.focus_name = false;
                    field.request_focus();
                }
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
        network_ui(ui, &mut draft.network);
    }

    /// The strip below the list and the form, never scrolled away: what the form could not take,
    /// the last connection test's outcome (scrolled within `outcome_height` when long), and the
    /// buttons — Add profile, or the form's Save profile, Test connection and Cancel.
    fn actions_ui(&mut self, ui: &mut egui::Ui, jobs: &mut Commands, outcome_height: f32) -> Vec<ProfilesCommand> {
        ui.separator();
        if let Some(error) = self.draft.as_ref().and_then(|draft| draft.error.as_ref()) {
            crate::ui::widgets::a11y::alert(ui, error);
        }
        let mut commands: Vec<ProfilesCommand> = Vec::new();
        if self.test.is_some() {
            egui::ScrollArea::vertical()
                .id_salt("profile-test")
                .max_height(outcome_height)
                .auto_shrink([false, true])
                .show(ui, |ui| commands.extend(self.test_ui(ui, jobs)));
        }
        if self.draft.is_some() {
            commands.extend(self.draft_actions_ui(ui, jobs));
        } else {
            let add = ui.button("Add profile");
            if std::mem::take(&mut self.focus_add) {
                add.request_focus();
            }
            if add.clicked() {
                self.draft = Some(Draft { scopes: Scope::UsersRead.into(), focus_name: true, ..Draft::default() });
            }
        }
        commands
    }

    /// The form's buttons; when the form closes by one of them, the focus goes to Add profile.
    fn draft_actions_ui(&mut self, ui: &mut egui::Ui, jobs: &mut Commands) -> Vec<ProfilesCommand> {
        let mut command = None;
        let Some(draft) = self.draft.as_mut() else { return Vec::new() };
        let (mut save, mut cancel, mut focused) = (false, false, false);
        ui.horizontal(|ui| {
            let button = ui.button("Save profile");
            (save, focused) = (button.clicked(), button.has_focus());
            if ui.button("Test connection").clicked() {
                match draft.credentials().and_then(|c| Ok((c, draft.network.settings()?))) {
                    Ok((credentials, network)) => {
                        let name = format!("test:{}", draft.name.trim());
                        let network = Box::new(network);
                        command = Some((Connection::Remote { name, credentials, network }, draft.network.passwords()));
                    }
                    Err(e) => draft.error = Some(e),
                }
            }
            let button = ui.button("Cancel");
            (cancel, focused) = (button.clicked(), focused || button.has_focus());
        });
        let command = command.map(|(connection, passwords)| self.start_test(jobs, connection, passwords));
        let save = if save { self.save_draft() } else { None };
        if cancel {
            self.draft = None;
        }
        self.focus_add |= focused && self.draft.is_none();
        command.into_iter().chain(save).collect()
    }

    /// Lists the draft's profile at once (its typed secret for this session) and returns the
    /// command that writes it; none when the draft is not valid (it says why).
    fn save_draft(&mut self) -> Option<ProfilesCommand> {
        let draft = self.draft.as_mut()?;
        let name = draft.name.trim().to_owned();
        if let Err(e) = crate::profiles::check_name(&name) {
            draft.error = Some(e.to_string());
            return None;
        }
        if let Err(e) = draft.credentials() {
            draft.error = Some(e);
            return None;
        }
        let network = match draft.network.settings() {
            Ok(network) => network,
            Err(e) => {
                draft.error = Some(e);
                return None;
            }
        };
        let passwords = draft.network.passwords();
        let profile = Profile {
            name: name.clone(),
            base_url: draft.base_url.trim().to_owned(),
            client_id: draft.client_id.trim().to_owned(),
            scopes: draft.scopes,
            network,
        };
        let secret = Some(Secret::new(draft.secret.clone())).filter(|s| !s.is_empty());
        if let Some(secret) = &secret {
            self.session.insert(name.clone(), secret.clone());
        }
        let original = draft.original.clone();
        if let Some(renamed) = original.as_ref().filter(|o| **o != name) {
            self.session.remove(renamed);
        }
        self.profiles.retain(|p| Some(&p.name) != original.as_ref() && p.name != name);
        self.profiles.push(profile.clone());
        self.profiles.sort_by(|a, b| a.name.cmp(&b.name));
        self.draft = None;
        self.notice = None;
        Some(ProfilesCommand::Save { profile, original, secret, passwords })
    }

    fn start_test(
        &mut self,
        jobs: &mut Commands,
        connection: Connection,
        passwords: NetworkPasswords,
    ) -> ProfilesCommand {
        let job = jobs.job();
        let mut state = Requested::Idle;
        state.start();
        self.test = Some((job, state, Vec::new()));
        ProfilesCommand::Test { job, connection, passwords }
    }

    /// The test's outcome and the route its token request took; for a certificate nobody trusts
    /// that may be pinned (a development server's), the question whether to trust it.
    fn test_ui(&mut self, ui: &mut egui::Ui, jobs: &mut Commands) -> Option<ProfilesCommand> {
        let mut trust = None;
        let (_, state, route) = self.test.as_ref()?;
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
                if let ApiError::Blocked(obstacle) = error
                    && let Some(sha) = obstacle.pinnable()
                    && let Some(draft) = &self.draft
                {
                    let name = draft.name.trim();
                    ui.label(format!("Trust this certificate for {name}?"));
                    ui.weak(format!("SHA-256 {sha}: only this certificate, for this profile"));
                    if ui.button("Trust this certificate").clicked() {
                        trust = Some(sha.to_owned());
                    }
                }
            }
            Requested::Idle => {}
        }
        if !route.is_empty() {
            ui.label("Route");
            for line in route {
                ui.label(line);
            }
        }
        // Trusting pins the fingerprint in the form and tries again.
        let sha = trust?;
        let draft = self.draft.as_mut()?;
        draft.network.pinned = sha;
        let credentials = draft.credentials().ok()?;
        let network = draft.network.settings().ok()?;
        let passwords = draft.network.passwords();
        let name = format!("test:{}", draft.name.trim());
        Some(self.start_test(jobs, Connection::Remote { name, credentials, network: Box::new(network) }, passwords))
    }
}

impl From<Scope> for ScopeSet {
    fn from(scope: Scope) -> Self {
        std::iter::once(scope).collect()
    }
}

/// The strip's height before it is first drawn: a separator and a row of buttons.
fn strip_estimate(ui: &egui::Ui) -> f32 {
    let spacing = ui.spacing();
    let row =
        spacing.interact_size.y.max(ui.text_style_height(&egui::TextStyle::Button) + 2.0 * spacing.button_padding.y);
    row + 6.0 + 2.0 * spacing.item_spacing.y
}
