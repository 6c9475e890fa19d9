//! The app, the shell of the window: its start and exit here, the routing of the worker's events
//! to the feature that owns them in [`routing`], and the window's layout in [`layout`]; what it
//! knows and keeps ([`state`], [`workspace`]), the View menu ([`view_menu`]), the fonts
//! ([`fonts`]), clicks read across slow frames ([`clicks`]) and the benchmarks' hooks ([`bench`]).
//! Each feature (the query tabs, the history, saved operations, profiles, Find user, import, schema
//! changes, the webhook inspector, the status bar) is a module of `ui` that owns its panel, its
//! state and its handling of its own events; a new feature adds its module, a line in `routing`
//! and its place in `layout`. Features reach the worker through `crate::ui::commands` and draw
//! with `crate::ui::widgets`; only the query tabs reach into the shell, for the [`state::AppState`]
//! whose tabs and schemas they change.

pub mod bench;
pub mod clicks;
pub mod fonts;
mod layout;
mod routing;
pub mod state;
pub mod view_menu;
pub mod workspace;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::profiles::{ProfileFile, SecretStore};
use crate::store::HistoryEntry;
use crate::ui::app::clicks::ClickTiming;
use crate::ui::app::state::{AppState, MainView};
use crate::ui::app::workspace::Workspace;
use crate::ui::commands::Commands;
use crate::ui::explorer::ExplorerPanel;
use crate::ui::find_user::FindUserWindow;
use crate::ui::history::HistoryPanel;
use crate::ui::import::ImportWindow;
use crate::ui::profiles::ProfilesWindow;
use crate::ui::queries::copy_code::CopyCode;
use crate::ui::queries::editor::QueryEditor;
use crate::ui::queries::tab::Tab;
use crate::ui::queries::{Context, Queries};
use crate::ui::renderer::{RendererPanel, StartReport};
use crate::ui::saved::SavedPanel;
use crate::ui::schedules::SchedulesWindow;
use crate::ui::schema_changes::SchemaChangesWindow;
use crate::ui::schema_changes::notice::SchemaNoticeBar;
use crate::ui::status_bar::StatusBar;
use crate::ui::webhooks::{ListenerForm, WebhooksPanel};
use crate::worker::{Event, HistoryCommand, OperationsCommand, SchedulesCommand, Worker, WorkspaceCommand};

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

/// The orgql desktop app: the way to the worker and its events, the [`AppState`] (what the app
/// knows and keeps), and the features that draw it.
pub struct OrgqlApp {
    commands: Commands,
    events: mpsc::Receiver<Event>,
    state: AppState,
    profiles: ProfilesWindow,
    queries: Queries,
    history: HistoryPanel,
    saved: SavedPanel,
    status: StatusBar,
    find_user: FindUserWindow,
    import: ImportWindow,
    schema_changes: SchemaChangesWindow,
    schema_notice: SchemaNoticeBar,
    schedules: SchedulesWindow,
    webhooks: WebhooksPanel,
    copy_code: CopyCode,
    /// Help → About (what draws the window) and View → Renderer.
    renderer: RendererPanel,
    /// The generation of the workspace handed to the worker last; none until the kept one is
    /// read (nothing is saved before, so that a slow start never overwrites it).
    saved_generation: Option<u64>,
    /// The window title set last.
    title: String,
    /// Whether the worker was told last that the history list is on screen.
    history_shown: Option<bool>,
    /// egui's click allowances widened by slow frames.
    clicks: ClickTiming,
}

impl OrgqlApp {
    /// The app, with its worker started on `config.runtime`; `repaint` wakes the UI. The
    /// calling thread is marked as the UI thread ([`crate::platform::ui_thread`]): it runs the frames, and
    /// the worker opens the store and reads the profiles file.
    pub fn new(config: AppConfig, repaint: crate::worker::Repaint) -> Self {
        crate::platform::ui_thread::mark();
        let has_store = config.store_path.is_some();
        let profiles_known = config.profiles.is_none();
        // The renderer setting is kept beside the profiles file.
        let settings_dir = config.profiles.as_ref().and_then(|file| file.path().parent()).map(PathBuf::from);
        let renderer = RendererPanel::new(settings_dir, config.runtime.clone());
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
            state.problem(problem);
        }
        let mut app = OrgqlApp {
            commands: Commands::new(worker),
            events,
            state,
            profiles,
            queries: Queries::new(config.export_dir.clone()),
            history: HistoryPanel::default(),
            saved: SavedPanel::default(),
            status: StatusBar::default(),
            find_user: FindUserWindow::default(),
            import: ImportWindow::default(),
            schema_changes: SchemaChangesWindow::default(),
            schema_notice: SchemaNoticeBar::default(),
            schedules: SchedulesWindow::default(),
            webhooks: WebhooksPanel::new(ListenerForm::new(0, None), &config.export_dir),
            copy_code: CopyCode::default(),
            renderer,
            saved_generation: None,
            title: String::new(),
            history_shown: None,
            clicks: ClickTiming::default(),
        };
        if has_store {
            app.commands.send(HistoryCommand::Load);
            app.commands.send(OperationsCommand::Load);
            app.commands.send(WorkspaceCommand::Load);
            app.commands.send(SchedulesCommand::Failures);
        } else {
            // No store, no workspace: nothing to wait for, nothing is kept.
            app.saved_generation = Some(app.state.generation());
        }
        app.webhooks.start(config.webhook_port, has_store, &mut app.commands);
        app
    }

    /// What the query view works with.
    fn context(&mut self) -> (&mut Queries, Context<'_>) {
        let cx = Context { state: &mut self.state, commands: &mut self.commands, profiles: &self.profiles };
        (&mut self.queries, cx)
    }

    /// The workspace as it is now.
    pub fn workspace(&self) -> Workspace {
        self.state.workspace()
    }

    /// Hands the workspace to the worker when it changed since it was handed last; the worker
    /// writes it within a second, at most once a second (no frame is asked for: what changes
    /// comes with a frame already).
    fn keep_workspace(&mut self) {
        let Some(saved) = self.saved_generation else { return };
        let now = self.state.generation();
        if now != saved {
            self.commands.send(WorkspaceCommand::Save(self.workspace().to_json()));
            self.saved_generation = Some(now);
        }
    }

    /// The schema of the chosen connection (for tests).
    pub fn schema(&self) -> &crate::ui::explorer::SchemaState {
        self.state.schema()
    }

    /// The model of the chosen connection's schema, when one is in (for tests).
    pub fn schema_model(&self) -> Option<&crate::explorer::SchemaModel> {
        self.state.schema().value().map(|loaded| &*loaded.model)
    }

    /// The saved operations listed (for tests).
    pub fn saved_operations(&self) -> &[crate::store::SavedOperation] {
        &self.saved.list
    }

    /// The app's state (for tests).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The query editor (for tests).
    pub fn editor(&self) -> &QueryEditor {
        &self.queries.editor
    }

    /// The schema explorer (for tests).
    pub fn explorer(&self) -> &ExplorerPanel {
        &self.queries.explorer
    }

    /// The results panel (for tests).
    pub fn results(&self) -> &crate::ui::queries::results::ResultsPanel {
        &self.queries.results
    }

    /// The webhook inspector (for tests).
    pub fn webhooks(&self) -> &WebhooksPanel {
        &self.webhooks
    }

    /// Shows the queries or the webhook inspector.
    pub fn show(&mut self, view: MainView) {
        self.state.show(view);
    }

    /// The tabs (for tests and for the window title).
    pub fn tabs(&self) -> &[Tab] {
        self.state.tabs().list()
    }

    /// The active tab.
    pub fn active_tab(&self) -> &Tab {
        self.state.tabs().active()
    }

    /// Runs the active tab's query, as its Run button does (for benchmarks and tests).
    pub fn run_active_query(&mut self) {
        let (_, mut cx) = self.context();
        Queries::run(&mut cx);
    }

    /// Fetches every page of the active tab's query into its grid, as "Fetch all pages" does
    /// (for benchmarks).
    pub fn fetch_all_pages(&mut self) {
        let (queries, mut cx) = self.context();
        queries.fetch_all_pages(&mut cx);
    }

    /// The active tab, to change (for benchmarks and tests).
    pub fn active_tab_mut(&mut self) -> &mut Tab {
        self.state.tabs_mut().active_mut()
    }

    /// The history entries listed, the newest first (for tests).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history.entries
    }

    /// Whether Find user still waits for something it asked (for tests).
    pub fn find_user_busy(&self) -> bool {
        self.find_user.busy()
    }

    /// The Schedules window (for tests).
    pub fn schedules(&self) -> &SchedulesWindow {
        &self.schedules
    }

    /// Whether the Import window still waits for a job it started (for tests).
    pub fn import_busy(&self) -> bool {
        self.import.busy()
    }

    /// How many runs and pages are under way (for tests).
    pub fn running_jobs(&self) -> usize {
        self.state.tabs().list().iter().filter(|tab| tab.running().is_some()).count()
    }

    /// The window's title as set last (for tests).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The active tab's operation as a program in `language`, for the chosen connection.
    pub fn code_of_active_tab(&mut self, language: crate::codegen::Language) -> Result<String, String> {
        let connection = self.profiles.connection(self.state.connection())?;
        let tab = self.state.tabs().active();
        let schema = self.state.schemas().model(&self.state.connection_name()).map(|model| &**model.schema());
        crate::ui::queries::copy_code::program(
            language,
            &connection,
            self.status.sandbox(),
            &tab.query,
            tab.operation.as_deref(),
            &tab.variables,
            schema,
        )
    }

    /// What drew the window at this start (Help → About, View → Renderer).
    pub fn set_renderer(&mut self, report: StartReport) {
        self.renderer.set_report(report);
    }

    /// Help → About and View → Renderer (for tests).
    pub fn renderer(&self) -> &RendererPanel {
        &self.renderer
    }

    /// The program shown by "Copy as code" (for tests).
    pub fn copied_code(&self) -> Option<&Result<String, String>> {
        self.copy_code.shown()
    }
}

impl eframe::App for OrgqlApp {
    /// eframe keeps the window's size and place and egui's layout memory (pane sizes, column
    /// widths) this often, and on exit; the work itself is kept by the workspace.
    fn auto_save_interval(&self) -> Duration {
        Duration::from_secs(5)
    }

    /// The workspace as it is at the very end (changes of the last second included).
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // With the line after the renderer lets go (renderer/start.rs), the log tells a window
        // that never heard its close from one whose renderer hangs letting go.
        tracing::info!("the window is closing");
        // Always: a change sent last may still wait for the worker's pacing, which the runtime's
        // stop would cut short; this write takes the newest text at once.
        if self.saved_generation.is_some() {
            self.commands.send(WorkspaceCommand::SaveNow(self.workspace().to_json()));
        }
    }

    /// A click read across a slow frame is still a click ([`crate::ui::app::clicks`]).
    fn raw_input_hook(&mut self, ctx: &egui::Context, raw_input: &mut egui::RawInput) {
        self.clicks.before_frame(ctx, raw_input);
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
        self.keep_workspace();
        // The chosen connection's schema is asked for as soon as it is chosen (not when a
        // panel that shows it is drawn).
        if self.state.connection_settled() && self.state.schemas().needs_load(&self.state.connection_name()) {
            let (_, mut cx) = self.context();
            Queries::load_schema(&mut cx, false);
        }
        for refused in self.commands.take_refused() {
            self.state.problem(refused);
        }
        // Keep the token countdown and progress moving while something is under way.
        if self.state.tabs().list().iter().any(Tab::busy) {
            ctx.request_repaint_after(Duration::from_millis(250));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.window_ui(ui);
    }
}
