//! The app: drains the worker's events into state in `logic`, draws the panels in `ui`, and
//! turns what panels return into commands for the worker.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::app_state::{AppState, MainView, Side};
use super::copy_code::CopyCode;
use super::editor::{EditorIntent, QueryEditor};
use super::explorer::{ExplorerIntent, ExplorerPanel};
use super::export_window::{ExportIntent, ExportRequest, ExportWindow};
use super::find_user::{Access, FindUserWindow};
use super::history::{HistoryIntent, HistoryPanel};
use super::profiles::{ProfileChoice, ProfilesWindow};
use super::results::{ResultsIntent, ResultsPanel};
use super::saved::{SavedIntent, SavedPanel};
use super::state::Requested;
use super::status_bar::StatusBar;
use super::tab::{Export, FetchAll, Tab};
use super::tab_bar::{TabBar, TabIntent};
use super::webhooks::{ListenerForm, WebhooksIntent, WebhooksPanel};
use super::workspace::Workspace;
use crate::profiles::{ProfileFile, SecretStore};
use crate::store::HistoryEntry;
use crate::support::SupportRequest;
use crate::table::CsvOptions;
use crate::worker::{Command, Connection, Event, ListenerSettings, QuerySpec, Step, Worker};

/// How long `logic` may spend draining events in one frame.
const EVENT_BUDGET: Duration = Duration::from_millis(4);

/// What the app is started with (tests inject temporary places).
pub struct AppConfig {
    /// The runtime `main` owns.
    pub runtime: tokio::runtime::Handle,
    /// The profiles file (none: only the built-in sandbox).
    pub profiles: Option<ProfileFile>,
    /// Where secrets are kept.
    pub secrets: SecretStore,
    /// The history database (none: no history).
    pub store_path: Option<PathBuf>,
    /// Users of the in-process sandbox.
    pub sandbox_users: usize,
    /// The folder exports are proposed in.
    pub export_dir: PathBuf,
    /// Start the webhook listener at once on this port of 127.0.0.1 (a free one when it is
    /// taken; 0: any free port); none: only when the user starts it.
    pub webhook_port: Option<u16>,
    /// Dropped by the worker once it has done every command sent before the app was dropped
    /// (the workspace saved on exit among them): `main` waits for that before it stops the
    /// runtime.
    pub worker_finished: Option<std::sync::mpsc::Sender<()>>,
}

/// The orgql desktop app: the worker and its channel, the [`AppState`] (what the app knows),
/// and the panels that draw it.
pub struct OrgqlApp {
    worker: Worker,
    events: mpsc::Receiver<Event>,
    state: AppState,
    profiles: ProfilesWindow,
    editor: QueryEditor,
    results: ResultsPanel,
    export_window: ExportWindow,
    history: HistoryPanel,
    explorer: ExplorerPanel,
    saved_panel: SavedPanel,
    /// The tab whose "Save operation" went to the worker (it belongs to what comes back).
    saving_tab: Option<u64>,
    status: StatusBar,
    find_user: FindUserWindow,
    webhooks: WebhooksPanel,
    tab_bar: TabBar,
    /// The workspace: not read yet (nothing is saved until it is, so a slow start never
    /// overwrites it), then the text saved last and when it was last compared.
    saved: Option<(String, f64)>,
    /// The window title set last.
    title: String,
    /// "Copy as code" and the window of the program copied last.
    copy_code: CopyCode,
    /// Whether the worker was told last that the history list is on screen.
    history_shown: Option<bool>,
}

/// Saves the active tab as an operation.
const SAVE_SHORTCUT: egui::KeyboardShortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S);

/// The editor's height above the results on a first start, in points (about 16 lines).
const DEFAULT_EDITOR_HEIGHT: f32 = 330.0;

impl OrgqlApp {
    /// The app, with its worker started on `config.runtime`; `repaint` wakes the UI. The
    /// calling thread is marked as the UI thread ([`crate::ui_thread`]): it runs the frames, and
    /// the worker opens the store and reads the profiles file.
    pub fn new(config: AppConfig, repaint: crate::worker::Repaint) -> Self {
        crate::ui_thread::mark();
        let has_store = config.store_path.is_some();
        let profiles_known = config.profiles.is_none();
        let (worker, events) = Worker::spawn(
            &config.runtime,
            repaint,
            config.store_path,
            config.profiles,
            config.secrets.clone(),
            config.sandbox_users,
            config.worker_finished,
        );
        let profiles = ProfilesWindow::new(&config.secrets);
        let mut state = AppState::new(profiles_known);
        if let Some(problem) = profiles.problem() {
            state.problems.push(problem.to_owned());
        }
        let mut app = OrgqlApp {
            worker,
            events,
            state,
            profiles,
            editor: QueryEditor::default(),
            results: ResultsPanel::default(),
            export_window: ExportWindow::new(config.export_dir.clone()),
            history: HistoryPanel::default(),
            explorer: ExplorerPanel::default(),
            saved_panel: SavedPanel::default(),
            saving_tab: None,
            status: StatusBar::default(),
            find_user: FindUserWindow::default(),
            webhooks: WebhooksPanel::new(ListenerForm::new(0, None), &config.export_dir),
            tab_bar: TabBar::default(),
            saved: None,
            title: String::new(),
            copy_code: CopyCode::default(),
            history_shown: None,
        };
        if has_store {
            app.send(Command::LoadHistory);
            app.send(Command::LoadOperations);
            app.send(Command::LoadWorkspace);
        } else {
            // No store, no workspace: nothing to wait for, nothing is kept.
            app.saved = Some((String::new(), 0.0));
        }
        app.start_webhooks(config.webhook_port, has_store);
        app
    }

    /// Asks the worker for the inspector's secret (from the keyring, or a new one kept there: no
    /// keyring call on the UI thread) and to start the listener on `port` when there is one.
    fn start_webhooks(&mut self, port: Option<u16>, has_store: bool) {
        self.webhooks.form = ListenerForm::new(port.unwrap_or(crate::webhooks::listener::DEFAULT_LISTEN.port()), None);
        if port.is_some() {
            self.webhooks.starting();
        } else if has_store {
            self.send(Command::LoadDeliveries);
        }
        self.send(Command::PrepareWebhooks { start_on: port });
    }

    fn start_listener(&mut self, settings: ListenerSettings) {
        self.webhooks.starting();
        self.send(Command::StartListener(settings));
    }

    fn handle_webhooks(&mut self, intent: WebhooksIntent) {
        match intent {
            WebhooksIntent::Start(settings) => self.start_listener(settings),
            WebhooksIntent::Stop => self.send(Command::StopListener),
            WebhooksIntent::Select(id) => self.send(Command::LoadDelivery(id)),
            WebhooksIntent::Clear => self.send(Command::ClearDeliveries),
            WebhooksIntent::Replay { id, url } => {
                let job = self.state.job();
                self.send(Command::ReplayDelivery { job, id, url });
            }
            WebhooksIntent::Export { filter, path } => {
                let job = self.state.job();
                self.send(Command::ExportDeliveries { job, filter, path });
            }
        }
    }

    /// Applies what the explorer asks for.
    fn handle_explorer(&mut self, intent: ExplorerIntent) {
        match intent {
            ExplorerIntent::Edit(edit) => edit.apply_in_place(&mut self.state.tabs.active_mut().query),
            ExplorerIntent::Load { refresh } => self.load_schema(refresh),
        }
    }

    /// Asks for the chosen connection's schema (`refresh`: from the service even when known);
    /// the one shown stays until the new one is in.
    fn load_schema(&mut self, refresh: bool) {
        let name = self.state.connection_name();
        self.state.schemas.loading(&name);
        match self.connection() {
            Ok(connection) => {
                let job = self.state.job();
                self.send(Command::LoadSchema { job, connection, refresh });
            }
            Err(message) => self.state.schemas.loaded(&name, Err(message)),
        }
    }

    /// The schema of the chosen connection (for tests).
    pub fn schema(&self) -> &super::SchemaState {
        self.state.schema()
    }

    /// The model of the chosen connection's schema, when one is in (for tests).
    pub fn schema_model(&self) -> Option<&crate::explorer::SchemaModel> {
        self.state.schema().value().map(|loaded| &*loaded.model)
    }

    /// The saved operations listed (for tests).
    pub fn saved_operations(&self) -> &[crate::store::SavedOperation] {
        &self.saved_panel.list
    }

    /// The app's state (for tests).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The query editor (for tests).
    pub fn editor(&self) -> &QueryEditor {
        &self.editor
    }

    /// The schema explorer (for tests).
    pub fn explorer(&self) -> &ExplorerPanel {
        &self.explorer
    }

    /// The webhook inspector (for tests).
    pub fn webhooks(&self) -> &WebhooksPanel {
        &self.webhooks
    }

    /// Shows the queries or the webhook inspector.
    pub fn show(&mut self, view: MainView) {
        self.state.view = view;
    }

    /// Sends a request of the "Find user" window to the chosen connection.
    fn support(&mut self, request: SupportRequest) {
        match self.connection() {
            Ok(connection) => {
                let job = self.state.job();
                if let Some(replaced) = self.find_user.sent(job, &request) {
                    self.send(Command::Cancel(replaced));
                }
                self.send(Command::Support { job, connection, request });
            }
            Err(message) => self.find_user.not_sent(message),
        }
    }

    fn send(&mut self, command: Command) {
        if let Err(e) = self.worker.send(command) {
            self.state.problems.push(e.to_string());
        }
    }

    /// The tabs (for tests and for the window title).
    pub fn tabs(&self) -> &[Tab] {
        self.state.tabs.list()
    }

    /// The active tab.
    pub fn active_tab(&self) -> &Tab {
        self.state.tabs.active()
    }

    /// Runs the active tab's query, as its Run button does (for benchmarks and tests).
    pub fn run_active_query(&mut self) {
        self.run();
    }

    /// The active tab, to change (for benchmarks and tests).
    pub fn active_tab_mut(&mut self) -> &mut Tab {
        self.state.tabs.active_mut()
    }

    /// The history entries listed, the newest first (for tests).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history.entries
    }

    fn connection(&mut self) -> Result<Connection, String> {
        self.profiles.connection(&self.state.connection)
    }

    fn spec(&mut self) -> Result<QuerySpec, String> {
        let connection = self.connection()?;
        self.spec_on(connection)
    }

    /// The active tab's query on the connection its rows came from (the chosen one when it
    /// has none): where its cursors belong.
    fn spec_of_rows(&mut self) -> Result<QuerySpec, String> {
        match self.state.tabs.active().source.clone() {
            Some(source) => self.spec_on(source),
            None => self.spec(),
        }
    }

    fn spec_on(&mut self, connection: Connection) -> Result<QuerySpec, String> {
        let tab = self.state.tabs.active();
        let variables = super::editor::parse_variables(&tab.variables)?;
        Ok(QuerySpec { connection, query: tab.query.clone(), variables, operation: tab.operation.clone() })
    }

    /// Runs the active tab's query on the chosen connection (its first page when it has a
    /// connection), ending the walk of its pages shown before.
    fn run(&mut self) {
        let spec = match self.spec() {
            Ok(spec) => spec,
            Err(message) => {
                self.state.tabs.active_mut().result.finish(Err(crate::api::ApiError::Document(message)));
                return;
            }
        };
        let tab = self.state.tabs.active_mut();
        let ended: Vec<_> = tab.job.take().into_iter().chain(tab.walk.take()).collect();
        for job in ended {
            self.send(Command::Cancel(job));
        }
        let job = self.state.job();
        crate::timing::run_clicked();
        self.status.running.insert(job, spec.connection.name().to_owned());
        self.state.tabs.active_mut().started(job, spec.connection.clone());
        self.send(Command::Run { job, spec });
    }

    /// Shows another page of the active tab's walk (on the server its rows came from: the
    /// walk's pager belongs to it).
    fn page(&mut self, step: Step) {
        let tab = self.state.tabs.active_mut();
        let (Some(walk), Some(source)) = (tab.walk, tab.source.clone()) else { return };
        if let Some(job) = tab.job.take() {
            self.send(Command::Cancel(job));
        }
        let job = self.state.job();
        self.status.running.insert(job, source.name().to_owned());
        self.state.tabs.active_mut().started(job, source);
        self.send(Command::Page { job, walk, step });
    }

    fn handle_results(&mut self, intent: ResultsIntent) {
        match intent {
            ResultsIntent::NextPage => self.page(Step::Next),
            ResultsIntent::PreviousPage => self.page(Step::Previous),
            ResultsIntent::RunAgain => self.run(),
            ResultsIntent::FetchAll => match self.spec_of_rows() {
                Ok(spec) => {
                    let job = self.state.job();
                    let tab = self.state.tabs.active_mut();
                    tab.fetch_all = Some(FetchAll {
                        job,
                        so_far: 0,
                        total: None,
                        outcome: Requested::Pending { previous: None },
                        warnings: Vec::new(),
                    });
                    tab.grid = None;
                    tab.source = Some(spec.connection.clone());
                    self.send(Command::FetchAll { job, spec });
                }
                Err(message) => self.state.problems.push(message),
            },
            ResultsIntent::Cancel => {
                let tab = self.state.tabs.active_mut();
                let jobs = tab.jobs();
                tab.forget_jobs();
                for job in jobs {
                    self.send(Command::Cancel(job));
                }
            }
            ResultsIntent::Export => self.export_window.open(),
            ResultsIntent::ResumeExport => {
                let request = self.state.tabs.active().export.as_ref().map(|export| export.request.clone());
                if let Some(request) = request {
                    self.handle_export(ExportRequest { resume: true, ..request });
                }
            }
            ResultsIntent::JumpTo(line, column) => self.state.tabs.active_mut().jump_to = Some((line, column)),
            ResultsIntent::CopyText(text) => self.results.copy(text),
        }
    }

    fn handle_export(&mut self, request: ExportRequest) {
        let options = CsvOptions { bom: request.bom, raw: request.raw };
        let job = self.state.job();
        let command = if request.all_pages {
            match self.spec_of_rows() {
                Ok(spec) => Command::ExportAll {
                    job,
                    spec,
                    path: request.path.clone(),
                    options,
                    resume: request.resume,
                    changes_since_last: request.changes_since_last,
                },
                Err(message) => {
                    self.state.problems.push(message);
                    return;
                }
            }
        } else {
            let Some(grid) = self.state.tabs.active().grid.as_ref() else {
                self.state.problems.push("there are no rows to export yet; run the query first".into());
                return;
            };
            // The rows as shown: in the grid's sort order when it is sorted (a copy only then).
            let rows = match grid.sort {
                Some(_) => std::sync::Arc::new(grid.order.iter().map(|i| grid.rows[*i].clone()).collect()),
                None => grid.rows.clone(),
            };
            Command::ExportRows { job, columns: grid.columns.clone(), rows, path: request.path.clone(), options }
        };
        let started = Export {
            job,
            request,
            resumable: false,
            note: None,
            rows: 0,
            total: None,
            outcome: Requested::Pending { previous: None },
        };
        self.state.tabs.active_mut().export = Some(started);
        self.send(command);
    }

    fn apply(&mut self, event: Event) {
        match event {
            Event::SandboxStarted { base_url } => self.status.sandbox = Some(base_url),
            Event::Ran { job, result } => {
                self.status.finished(job, result.as_ref().err());
                self.status.last = result
                    .as_ref()
                    .ok()
                    .map(|r| (r.status, r.elapsed, r.bytes, r.rows.as_ref().and_then(|rows| rows.total)));
                if let Some(tab) = self.state.tabs.of_job(job) {
                    tab.on_ran(result);
                    crate::timing::mark("rows_applied");
                }
            }
            Event::RowsArrived { job, rows, so_far } => {
                if let Some(tab) = self.state.tabs.of_job(job) {
                    tab.on_rows(rows, so_far);
                }
            }
            Event::FetchedAll { job, result, warnings } => {
                if let Some(tab) = self.state.tabs.of_job(job) {
                    tab.on_fetched_all(result, warnings);
                }
            }
            Event::ExportFileChecked { path, answer } => {
                if let Some(request) = self.export_window.checked(&path, answer) {
                    self.handle_export(request);
                }
            }
            Event::ExportProgress { job, rows, total } => {
                if let Some(tab) = self.state.tabs.of_job(job) {
                    tab.on_export_progress(rows, total);
                }
            }
            Event::Exported { job, result, resumable, note } => {
                if let Some(tab) = self.state.tabs.of_job(job) {
                    tab.on_exported(result, resumable, note);
                }
            }
            Event::ConnectionTested { job, result } => self.profiles.tested(job, result),
            Event::Token { connection, state } => {
                self.status.tokens.insert(connection, (state, Instant::now()));
            }
            Event::Activity { connection, activity } => self.status.activity(connection, activity),
            Event::History(entries) => self.history.loaded(entries),
            Event::HistoryFound { search, entries } => self.history.found(&search, entries),
            Event::Operations(list) => self.saved_panel.loaded(list),
            Event::OperationsChanged(outcome) => self.operations_changed(outcome),
            Event::WorkspaceLoaded(loaded) => self.restore(loaded),
            Event::SchemaLoaded { connection, result, .. } => self.state.schemas.loaded(&connection, result),
            Event::WebhookSecret { secret, kept } => self.webhooks.secret_found(secret, kept),
            Event::ListenerStarted { addr, notice } => {
                self.status.webhooks = Some(addr);
                self.webhooks.started(addr, notice);
            }
            Event::ListenerStopped(why) => {
                self.status.webhooks = None;
                self.webhooks.stopped(why);
            }
            Event::Deliveries { rows, through } => self.webhooks.deliveries(rows, through),
            Event::DeliveryLoaded(id, delivery) => self.webhooks.loaded(id, delivery),
            Event::Replayed { result, .. } => self.webhooks.replayed(result),
            Event::DeliveriesExported { result, .. } => self.webhooks.exported(result),
            Event::Support { job, result } => self.find_user.apply(job, result),
            Event::Problem(problem) => self.state.problems.push(problem),
            Event::ProfilesLoaded(loaded) => {
                match loaded {
                    Ok(profiles) => self.profiles.loaded(profiles),
                    Err(problem) => self.state.problems.push(problem),
                }
                let profiles = &self.profiles;
                self.state.profiles_known(|name| profiles.has_profile(name));
            }
            Event::ProfileSaved { name, result } => {
                // A profile pointed elsewhere has another schema: asked for again when chosen.
                self.state.schemas.forget(&name);
                self.profiles.saved(&name, result);
            }
            Event::ProfileDeleted { profile, result } => self.profiles.deleted(profile, result),
        }
    }

    /// The workspace as it is now.
    pub fn workspace(&self) -> Workspace {
        self.state.workspace()
    }

    /// Brings back the workspace kept last; a text that cannot be read is set aside with a
    /// notice, and the session starts fresh.
    fn restore(&mut self, loaded: Result<Option<String>, String>) {
        let workspace = match loaded {
            Ok(Some(json)) => match Workspace::parse(&json) {
                Ok(workspace) => Some(workspace),
                Err(why) => {
                    self.state.problems.push(format!(
                        "The saved workspace could not be restored: {why}; a fresh session started and the old one \
                         is kept aside in the database"
                    ));
                    self.send(Command::SetWorkspaceAside(why.to_string()));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                self.state
                    .problems
                    .push(format!("{e}; the saved workspace could not be read, a fresh session started"));
                None
            }
        };
        if let Some(workspace) = workspace {
            self.state.restore(workspace);
            let profiles = &self.profiles;
            self.state.choose_pending_connection(|name| profiles.has_profile(name));
        }
        // From now on, changes are kept.
        self.saved = Some((self.workspace().to_json(), 0.0));
    }

    /// Hands the workspace to the worker when it changed; the worker writes it within a second,
    /// at most once a second (no frame is asked for: what changes comes with a frame already).
    fn keep_workspace(&mut self, ctx: &egui::Context) {
        let Some((saved, _)) = &self.saved else { return };
        let json = self.workspace().to_json();
        if json == *saved {
            return;
        }
        let now = ctx.input(|i| i.time);
        self.send(Command::SaveWorkspace(json.clone()));
        self.saved = Some((json, now));
    }

    /// The window's title: the active tab and the connection.
    fn title_ui(&mut self, ctx: &egui::Context) {
        let title = format!("{} — {} — orgql", self.state.tabs.active().title, self.state.connection_name());
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    /// How many requests the status bar counts as under way (for tests).
    pub fn running_jobs(&self) -> usize {
        self.status.running.len()
    }

    /// The window's title as set last (for tests).
    pub fn title(&self) -> &str {
        &self.title
    }

    fn handle_history(&mut self, intent: HistoryIntent) {
        match intent {
            HistoryIntent::Open(entry) => self.open_history(entry),
            HistoryIntent::Search(text) => self.send(Command::SearchHistory(text)),
            HistoryIntent::Delete(id) => self.send(Command::DeleteHistory(id)),
            HistoryIntent::ClearAll => self.send(Command::ClearHistory),
        }
    }

    /// Opens a run of the history in a new tab, and chooses its connection (a profile deleted
    /// since leaves the connection as it is, with a notice).
    fn open_history(&mut self, entry: HistoryEntry) {
        let title = if entry.operation.is_empty() { format!("History {}", entry.id) } else { entry.operation.clone() };
        self.state.tabs.open(Some(title), entry.query).variables = entry.variables;
        if entry.profile == "Sandbox" {
            self.state.connection = ProfileChoice::Sandbox;
        } else if self.profiles.has_profile(&entry.profile) {
            self.state.connection = ProfileChoice::Named(entry.profile);
        } else {
            self.state.problems.push(format!(
                "The run's connection '{}' no longer exists; the tab opened on {}",
                entry.profile,
                self.state.connection_name()
            ));
        }
    }

    /// The active tab's operation as a program in `language`, for the chosen connection.
    pub fn code_of_active_tab(&mut self, language: crate::codegen::Language) -> Result<String, String> {
        let connection = self.connection()?;
        let tab = self.state.tabs.active();
        let schema = self.state.schemas.model(&self.state.connection_name()).map(|model| &**model.schema());
        super::copy_code::program(
            language,
            &connection,
            self.status.sandbox.as_deref(),
            &tab.query,
            tab.operation.as_deref(),
            &tab.variables,
            schema,
        )
    }

    /// The program shown by "Copy as code" (for tests).
    pub fn copied_code(&self) -> Option<&Result<String, String>> {
        self.copy_code.shown()
    }

    fn handle_saved(&mut self, intent: SavedIntent) {
        match intent {
            SavedIntent::Open(operation) => self.open_saved(operation),
            SavedIntent::Change(change) => self.send(Command::ChangeOperations(change)),
            SavedIntent::SaveActive => self.save_active(),
        }
    }

    /// Opens a saved operation: in its tab when one is open, else in a new one.
    fn open_saved(&mut self, operation: crate::store::SavedOperation) {
        if let Some(index) = self.state.tabs.list().iter().position(|tab| tab.saved == Some(operation.id)) {
            self.state.tabs.select(index);
            return;
        }
        let tab = self.state.tabs.open(Some(operation.name.clone()), operation.query);
        tab.variables = operation.variables;
        tab.saved = Some(operation.id);
    }

    /// Saves the active tab (Ctrl+S): as the operation it belongs to, or, for a tab that
    /// belongs to none yet, under a name asked for.
    fn save_active(&mut self) {
        let tab = self.state.tabs.active();
        let own = tab.saved.and_then(|id| self.saved_panel.list.iter().find(|op| op.id == id)).cloned();
        match own {
            Some(operation) => {
                self.saving_tab = Some(tab.id);
                let change = crate::worker::OperationChange::Save {
                    collection: operation.collection,
                    name: operation.name,
                    query: tab.query.clone(),
                    variables: tab.variables.clone(),
                };
                self.send(Command::ChangeOperations(change));
            }
            None => {
                let name = super::saved::first_operation_name(&tab.query);
                self.saved_panel.ask_name(name, &tab.title.clone(), "");
            }
        }
    }

    /// A change to the saved operations ended: a saved tab now belongs to its operation.
    fn operations_changed(&mut self, outcome: Result<(String, Option<crate::store::SavedOperation>), String>) {
        if let (Ok((said, Some(operation))), Some(tab_id)) = (&outcome, self.saving_tab)
            && said.starts_with("Saved")
        {
            self.saving_tab = None;
            if let Some(tab) = self.state.tabs.list_mut().iter_mut().find(|tab| tab.id == tab_id) {
                tab.saved = Some(operation.id);
                tab.title = operation.name.clone();
            }
        }
        if let Err(why) = &outcome {
            self.state.problems.push(why.clone());
        }
        self.saved_panel.said = Some(outcome.map(|(said, _)| said));
    }

    /// Closes tab `index`, cancelling what it has under way.
    fn close_tab(&mut self, index: usize) {
        for job in self.state.tabs.close(index) {
            self.send(Command::Cancel(job));
        }
    }

    fn tabs_ui(&mut self, ui: &mut egui::Ui) {
        match self.tab_bar.ui(ui, &self.state.tabs) {
            Some(TabIntent::Select(index)) => self.state.tabs.select(index),
            Some(TabIntent::Close(index)) => self.close_tab(index),
            Some(TabIntent::New) => self.state.new_tab(),
            Some(TabIntent::Reopen) => {
                self.state.tabs.reopen();
            }
            Some(TabIntent::Move { from, to }) => self.state.tabs.move_tab(from, to),
            Some(TabIntent::Rename { index, title }) => self.state.tabs.rename(index, &title),
            None => {}
        }
    }

    fn queries_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::left("side").resizable(true).default_size(300.0).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.state.side, Side::Explorer, "Explorer");
                ui.selectable_value(&mut self.state.side, Side::History, "History");
                ui.selectable_value(&mut self.state.side, Side::Saved, "Saved");
            });
            ui.separator();
            match self.state.side {
                Side::Explorer => {
                    let name = self.state.connection_name();
                    let schema = self.state.schemas.of(&name);
                    if let Some(intent) = self.explorer.ui(ui, &self.state.tabs.active().query, schema, &name) {
                        self.handle_explorer(intent);
                    }
                }
                Side::History => {
                    if let Some(intent) = self.history.ui(ui) {
                        self.handle_history(intent);
                    }
                }
                Side::Saved => {
                    let chosen = self.state.connection_name();
                    let schema = self.state.schemas.model(&chosen).cloned();
                    if let Some(intent) = self.saved_panel.ui(ui, schema.as_ref(), &chosen) {
                        self.handle_saved(intent);
                    }
                }
            }
        });
        let chosen = self.state.connection_name();
        egui::CentralPanel::default().show(ui, |ui| {
            let schema = self.state.schemas.model(&chosen).cloned();
            let full = ui.available_height();
            // The divider between editor and results can be dragged; its place is kept.
            let mut pane = egui::Panel::top("editor-pane")
                .resizable(true)
                .min_size(120.0)
                .default_size(DEFAULT_EDITOR_HEIGHT.min(full * 0.6));
            if let Some(height) = self.state.editor_height_to_restore.take() {
                pane = pane.default_size(height).exact_size(height);
            }
            let tab = self.state.tabs.active_mut();
            self.editor.variables_folded = self.state.variables_folded;
            let shown = pane.show(ui, |ui| {
                // The pane keeps the height it is given (the editor fills it), not its content's.
                ui.set_min_height(ui.available_height());
                self.editor.ui(ui, tab, schema.as_ref())
            });
            self.state.variables_folded = self.editor.variables_folded;
            let intent = shown.inner;
            self.state.editor_height = Some(shown.response.rect.height());
            let tab = self.state.tabs.active_mut();
            let results = self.results.ui(ui, tab, &chosen);
            match intent {
                Some(EditorIntent::Run) => self.run(),
                Some(EditorIntent::Cancel) => self.handle_results(ResultsIntent::Cancel),
                None => {}
            }
            if let Some(intent) = results {
                self.handle_results(intent);
            }
        });
    }

    fn problems_ui(&mut self, ui: &mut egui::Ui) {
        if self.state.problems.is_empty() {
            return;
        }
        egui::Panel::top("problems").show(ui, |ui| {
            let mut dismiss = false;
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(ui.visuals().warn_fg_color, self.state.problems.join(" · "));
                dismiss = ui.button("Dismiss").clicked();
            });
            if dismiss {
                self.state.problems.clear();
            }
        });
    }
}

impl eframe::App for OrgqlApp {
    /// eframe keeps the window's size and place and egui's layout memory (pane sizes, column
    /// widths) this often, and on exit; the work itself is kept by [`OrgqlApp::keep_workspace`].
    fn auto_save_interval(&self) -> Duration {
        Duration::from_secs(5)
    }

    /// The workspace as it is at the very end (changes of the last second included).
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // Always: a change sent last may still wait for the worker's pacing, which the runtime's
        // stop would cut short; this write takes the newest text at once.
        if self.saved.is_some() {
            self.send(Command::SaveWorkspaceNow(self.workspace().to_json()));
        }
    }

    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        crate::timing::frame_start();
        let started = Instant::now();
        while started.elapsed() < EVENT_BUDGET {
            match self.events.try_recv() {
                Ok(event) => self.apply(event),
                Err(_) => break,
            }
        }
        if !self.events.is_empty() {
            ctx.request_repaint();
        }
        self.keep_workspace(ctx);
        // The chosen connection's schema is asked for as soon as it is chosen (not when a
        // panel that shows it is drawn).
        if self.state.connection_settled() && self.state.schemas.needs_load(&self.state.connection_name()) {
            self.load_schema(false);
        }
        // Keep the token countdown and progress moving while something is under way.
        if self.state.tabs.list().iter().any(Tab::busy) {
            ctx.request_repaint_after(Duration::from_millis(250));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.title_ui(&ctx);
        egui::Panel::top("toolbar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("orgql");
                ui.separator();
                self.profiles.choice_ui(ui, &mut self.state.connection);
                if ui.button("Profiles…").clicked() {
                    self.profiles.open = true;
                }
                if ui.button("Find user").on_hover_text("Find a user by ref, email or name").clicked() {
                    self.find_user.show();
                }
                if let Some(language) = self.copy_code.menu_ui(ui) {
                    let program = self.code_of_active_tab(language);
                    self.copy_code.show(ui.ctx(), language, program);
                }
                ui.separator();
                ui.selectable_value(&mut self.state.view, MainView::Queries, "Queries");
                let count = self.webhooks.list.rows().len();
                let label = if count == 0 { "Webhooks".to_owned() } else { format!("Webhooks ({count})") };
                ui.selectable_value(&mut self.state.view, MainView::Webhooks, label);
                ui.separator();
                super::view_menu::ui(ui);
            });
            if self.state.view == MainView::Queries {
                self.tabs_ui(ui);
            }
        });
        self.problems_ui(ui);
        let connection_name = self.state.connection_name();
        egui::Panel::bottom("status").show(ui, |ui| {
            self.status.ui(ui, &connection_name);
        });
        match self.state.view {
            MainView::Queries => self.queries_ui(ui),
            MainView::Webhooks => {
                egui::CentralPanel::default().show(ui, |ui| {
                    if let Some(intent) = self.webhooks.ui(ui) {
                        self.handle_webhooks(intent);
                    }
                });
            }
        }
        let history_shown = self.state.view == MainView::Queries && self.state.side == Side::History;
        if self.history_shown != Some(history_shown) {
            self.history_shown = Some(history_shown);
            self.send(Command::ShowingHistory(history_shown));
        }
        let has_rows = self.state.tabs.active().grid.is_some();
        match self.export_window.ui(&ctx, has_rows, self.state.tabs.active().export.as_ref()) {
            Some(ExportIntent::Check(path)) => self.send(Command::CheckExportFile { path }),
            Some(ExportIntent::Start(request)) => self.handle_export(request),
            None => {}
        }
        for command in self.profiles.window_ui(&ctx, self.state.jobs_counter()) {
            self.send(command);
        }
        let access = Access {
            connection: self.state.connection_name(),
            scopes: self.profiles.scopes_of(&self.state.connection),
        };
        if let Some(request) = self.find_user.ui(&ctx, &access) {
            self.support(request);
        }
        if ctx.input_mut(|i| i.consume_shortcut(&SAVE_SHORTCUT)) {
            self.save_active();
        }
        if let Some((collection, name)) = self.saved_panel.window_ui(&ctx) {
            let tab = self.state.tabs.active();
            self.saving_tab = Some(tab.id);
            let change = crate::worker::OperationChange::Save {
                collection,
                name,
                query: tab.query.clone(),
                variables: tab.variables.clone(),
            };
            self.send(Command::ChangeOperations(change));
        }
        self.copy_code.window_ui(&ctx);
        let active = self.state.tabs.active();
        let shown = crate::timing::Frame {
            tree: self.state.view == MainView::Queries
                && self.state.side == Side::Explorer
                && self.state.schema().value().is_some(),
            rows: active.grid.is_some() && !active.busy(),
        };
        crate::timing::frame_end(&ctx, shown);
    }
}
