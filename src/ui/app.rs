//! The app: drains the worker's events into state in `logic`, draws the panels in `ui`, and
//! turns what panels return into commands for the worker.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::editor::{EditorIntent, QueryEditor};
use super::explorer::{ExplorerIntent, ExplorerPanel};
use super::export_window::{ExportRequest, ExportWindow};
use super::find_user::{Access, FindUserWindow};
use super::history::HistoryPanel;
use super::profiles::{ProfileChoice, ProfilesWindow};
use super::results::{ResultsIntent, ResultsPanel};
use super::status_bar::StatusBar;
use super::tab::{Export, FetchAll, Grid, SAMPLE_QUERY, Tab};
use super::webhooks::{ListenerForm, WebhooksIntent, WebhooksPanel};
use crate::profiles::{ProfileFile, SecretStore};
use crate::store::HistoryEntry;
use crate::support::SupportRequest;
use crate::table::CsvOptions;
use crate::worker::{Command, Connection, Event, JobId, ListenerSettings, QuerySpec, Worker};

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
}

/// What the left side of the query view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Explorer,
    History,
}

/// What fills the window below the toolbar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MainView {
    /// Tabs of queries and their results.
    Queries,
    /// The webhook inspector.
    Webhooks,
}

/// The orgql desktop app.
pub struct OrgqlApp {
    worker: Worker,
    events: mpsc::Receiver<Event>,
    tabs: Vec<Tab>,
    active: usize,
    next_tab: u64,
    next_job: JobId,
    profiles: ProfilesWindow,
    connection: ProfileChoice,
    editor: QueryEditor,
    results: ResultsPanel,
    export_window: ExportWindow,
    history: HistoryPanel,
    explorer: ExplorerPanel,
    side: Side,
    status: StatusBar,
    problems: Vec<String>,
    find_user: FindUserWindow,
    view: MainView,
    webhooks: WebhooksPanel,
}

impl OrgqlApp {
    /// The app, with its worker started on `config.runtime`; `repaint` wakes the UI. The
    /// calling thread is marked as the UI thread ([`crate::ui_thread`]): it runs the frames, and
    /// the worker opens the store and reads the profiles file.
    pub fn new(config: AppConfig, repaint: crate::worker::Repaint) -> Self {
        crate::ui_thread::mark();
        let mut problems = Vec::new();
        let has_store = config.store_path.is_some();
        let (worker, events) = Worker::spawn(
            &config.runtime,
            repaint,
            config.store_path,
            config.profiles,
            config.secrets.clone(),
            config.sandbox_users,
        );
        let profiles = ProfilesWindow::new(&config.secrets);
        if let Some(problem) = profiles.problem() {
            problems.push(problem.to_owned());
        }
        let mut app = OrgqlApp {
            worker,
            events,
            tabs: vec![Tab::new(1, "Users", SAMPLE_QUERY)],
            active: 0,
            next_tab: 2,
            next_job: 1,
            profiles,
            connection: ProfileChoice::Sandbox,
            editor: QueryEditor::default(),
            results: ResultsPanel::default(),
            export_window: ExportWindow::new(config.export_dir.clone()),
            history: HistoryPanel::default(),
            explorer: ExplorerPanel::default(),
            side: Side::Explorer,
            status: StatusBar::default(),
            problems,
            find_user: FindUserWindow::default(),
            view: MainView::Queries,
            webhooks: WebhooksPanel::new(ListenerForm::new(0, None), &config.export_dir),
        };
        if has_store {
            app.send(Command::LoadHistory);
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
                let job = self.job();
                self.send(Command::ReplayDelivery { job, id, url });
            }
            WebhooksIntent::Export { filter, path } => {
                let job = self.job();
                self.send(Command::ExportDeliveries { job, filter, path });
            }
        }
    }

    /// Asks for the schema of the chosen connection when the explorer has none for it, and
    /// applies what the explorer asks for.
    fn handle_explorer(&mut self, intent: Option<ExplorerIntent>) {
        let name = self.profiles.name_of(&self.connection);
        let refresh = match intent {
            Some(ExplorerIntent::Edit(edit)) => {
                edit.apply_in_place(&mut self.tabs[self.active].query);
                return;
            }
            Some(ExplorerIntent::Load { refresh }) => refresh,
            None if self.explorer.needs_load(&name) => false,
            None => return,
        };
        match self.connection() {
            Ok(connection) => {
                let job = self.job();
                self.explorer.loading(&name);
                self.send(Command::LoadSchema { job, connection, refresh });
            }
            Err(message) => {
                self.explorer.loading(&name);
                self.explorer.loaded(&name, Err(message));
            }
        }
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
        self.view = view;
    }

    /// Sends a request of the "Find user" window to the chosen connection.
    fn support(&mut self, request: SupportRequest) {
        match self.connection() {
            Ok(connection) => {
                let job = self.job();
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
            self.problems.push(e.to_string());
        }
    }

    fn job(&mut self) -> JobId {
        self.next_job += 1;
        self.next_job
    }

    /// The tabs (for tests and for the window title).
    pub fn tabs(&self) -> &[Tab] {
        &self.tabs
    }

    /// The active tab.
    pub fn active_tab(&self) -> &Tab {
        &self.tabs[self.active]
    }

    /// The active tab, to change (for benchmarks and tests).
    pub fn active_tab_mut(&mut self) -> &mut Tab {
        &mut self.tabs[self.active]
    }

    /// The history entries listed, the newest first (for tests).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history.entries
    }

    fn connection(&mut self) -> Result<Connection, String> {
        self.profiles.connection(&self.connection)
    }

    fn spec(&mut self) -> Result<QuerySpec, String> {
        let connection = self.connection()?;
        self.spec_on(connection)
    }

    /// The active tab's query on the connection its rows came from (the chosen one when it
    /// has none): where its cursors belong.
    fn spec_of_rows(&mut self) -> Result<QuerySpec, String> {
        match self.tabs[self.active].source.clone() {
            Some(source) => self.spec_on(source),
            None => self.spec(),
        }
    }

    fn spec_on(&mut self, connection: Connection) -> Result<QuerySpec, String> {
        let tab = &self.tabs[self.active];
        let variables = super::editor::parse_variables(&tab.variables)?;
        Ok(QuerySpec { connection, query: tab.query.clone(), variables, operation: None })
    }

    /// Runs the active tab's query from its first page on the chosen connection, or (with a
    /// cursor) a further page on the connection the rows came from.
    fn run(&mut self, cursor: Option<String>, back: Option<Vec<Option<String>>>) {
        let spec = if cursor.is_some() || back.is_some() { self.spec_of_rows() } else { self.spec() };
        let spec = match spec {
            Ok(spec) => spec,
            Err(message) => {
                self.tabs[self.active].result.finish(Err(crate::api::ApiError::Document(message)));
                return;
            }
        };
        if let Some(job) = self.tabs[self.active].job.take() {
            self.send(Command::Cancel(job));
        }
        let job = self.job();
        self.status.running.insert(job, spec.connection.name().to_owned());
        let tab = &mut self.tabs[self.active];
        tab.result.start();
        tab.job = Some(job);
        tab.running_on = Some(spec.connection.clone());
        tab.paging.back = back.unwrap_or_default();
        tab.paging.current = cursor.clone();
        self.send(Command::Run { job, spec, cursor });
    }

    fn handle_results(&mut self, intent: ResultsIntent) {
        match intent {
            ResultsIntent::NextPage => {
                let paging = &self.tabs[self.active].paging;
                if let Some(next) = paging.next.clone() {
                    let mut back = paging.back.clone();
                    back.push(paging.current.clone());
                    self.run(Some(next), Some(back));
                }
            }
            ResultsIntent::PreviousPage => {
                let mut back = self.tabs[self.active].paging.back.clone();
                if let Some(previous) = back.pop() {
                    self.run(previous, Some(back));
                }
            }
            ResultsIntent::RunAgain => self.run(None, None),
            ResultsIntent::FetchAll => match self.spec_of_rows() {
                Ok(spec) => {
                    let job = self.job();
                    let tab = &mut self.tabs[self.active];
                    tab.fetch_all = Some(FetchAll { job, so_far: 0, total: None, outcome: None });
                    tab.grid = None;
                    tab.source = Some(spec.connection.clone());
                    self.send(Command::FetchAll { job, spec });
                }
                Err(message) => self.problems.push(message),
            },
            ResultsIntent::Cancel => {
                let tab = &mut self.tabs[self.active];
                let jobs: Vec<JobId> = [
                    tab.job.take(),
                    tab.fetch_all.as_ref().filter(|f| f.outcome.is_none()).map(|f| f.job),
                    tab.export.as_ref().filter(|e| e.outcome.is_none()).map(|e| e.job),
                ]
                .into_iter()
                .flatten()
                .collect();
                if tab.result.is_pending() {
                    tab.result.finish(Err(crate::api::ApiError::Cancelled));
                }
                for job in jobs {
                    self.send(Command::Cancel(job));
                }
            }
            ResultsIntent::Export => self.export_window.open(),
            ResultsIntent::JumpTo(line, column) => self.tabs[self.active].jump_to = Some((line, column)),
            ResultsIntent::CopyText(text) => self.results.copy(text),
        }
    }

    fn handle_export(&mut self, request: ExportRequest) {
        let options = CsvOptions { bom: request.bom, raw: request.raw };
        let job = self.job();
        let command = if request.all_pages {
            match self.spec_of_rows() {
                Ok(spec) => Command::ExportAll { job, spec, path: request.path, options },
                Err(message) => {
                    self.problems.push(message);
                    return;
                }
            }
        } else {
            let Some(grid) = self.tabs[self.active].grid.as_ref() else {
                self.problems.push("there are no rows to export yet; run the query first".into());
                return;
            };
            // The rows as shown: in the grid's sort order when it is sorted (a copy only then).
            let rows = match grid.sort {
                Some(_) => std::sync::Arc::new(grid.order.iter().map(|i| grid.rows[*i].clone()).collect()),
                None => grid.rows.clone(),
            };
            Command::ExportRows { job, columns: grid.columns.clone(), rows, path: request.path, options }
        };
        self.tabs[self.active].export = Some(Export { job, rows: 0, total: None, outcome: None });
        self.send(command);
    }

    fn tab_of(&mut self, job: JobId) -> Option<&mut Tab> {
        self.tabs.iter_mut().find(|t| {
            t.job == Some(job)
                || t.fetch_all.as_ref().is_some_and(|f| f.job == job)
                || t.export.as_ref().is_some_and(|e| e.job == job)
        })
    }

    fn apply(&mut self, event: Event) {
        match event {
            Event::SandboxStarted { base_url } => self.status.sandbox = Some(base_url),
            Event::Ran { job, result } => {
                self.status.finished(job, result.as_ref().err());
                let Some(tab) = self.tab_of(job) else { return };
                tab.job = None;
                let ran_on = tab.running_on.take();
                if let Ok(result) = &result {
                    tab.source = ran_on;
                    if let Some(rows) = &result.rows {
                        tab.paging.next = rows.has_next_page.then(|| rows.end_cursor.clone()).flatten();
                        if rows.has_next_page {
                            tab.paging.page_size = rows.rows.len() as u64;
                        }
                        let first_row = 1 + tab.paging.page_size * tab.paging.back.len() as u64;
                        tab.grid = Some(Grid::from_rows(rows.clone(), first_row));
                        tab.fetch_all = None;
                    } else {
                        tab.grid = None;
                        tab.paging = Default::default();
                    }
                }
                tab.result.finish(result.clone());
                self.status.last =
                    result.ok().map(|r| (r.status, r.elapsed, r.bytes, r.rows.and_then(|rows| rows.total)));
            }
            Event::RowsArrived { job, rows, so_far } => {
                let Some(tab) = self.tab_of(job) else { return };
                if let Some(fetch) = tab.fetch_all.as_mut() {
                    fetch.so_far = so_far;
                    fetch.total = rows.total.or(fetch.total);
                }
                match tab.grid.as_mut() {
                    Some(grid) if rows.columns.is_empty() => grid.append(rows.rows),
                    _ => tab.grid = Some(Grid::from_rows(rows, 1)),
                }
            }
            Event::FetchedAll { job, result } => {
                if let Some(tab) = self.tab_of(job)
                    && let Some(fetch) = tab.fetch_all.as_mut()
                {
                    fetch.outcome = Some(result);
                    tab.paging = Default::default();
                }
            }
            Event::ExportProgress { job, rows, total } => {
                if let Some(export) = self.tab_of(job).and_then(|t| t.export.as_mut()) {
                    export.rows = rows;
                    export.total = total;
                }
            }
            Event::Exported { job, result } => {
                if let Some(export) = self.tab_of(job).and_then(|t| t.export.as_mut()) {
                    if let Ok((_, rows)) = &result {
                        export.rows = *rows;
                    }
                    export.outcome = Some(result);
                }
            }
            Event::ConnectionTested { job, result } => self.profiles.tested(job, result),
            Event::Token { connection, state } => {
                self.status.tokens.insert(connection, (state, Instant::now()));
            }
            Event::History(entries) => self.history.entries = entries,
            Event::SchemaLoaded { connection, result, .. } => self.explorer.loaded(&connection, result),
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
            Event::Problem(problem) => self.problems.push(problem),
            Event::ProfilesLoaded(Ok(profiles)) => self.profiles.loaded(profiles),
            Event::ProfilesLoaded(Err(problem)) => self.problems.push(problem),
            Event::ProfileSaved { name, result } => self.profiles.saved(&name, result),
            Event::ProfileDeleted { profile, result } => self.profiles.deleted(profile, result),
        }
    }

    fn open_history(&mut self, entry: HistoryEntry) {
        let title = format!("History {}", entry.id);
        self.tabs.push(Tab::new(self.next_tab, title, entry.query));
        self.next_tab += 1;
        self.active = self.tabs.len() - 1;
        self.tabs[self.active].variables = entry.variables;
    }

    fn tabs_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let mut close = None;
            for (i, tab) in self.tabs.iter().enumerate() {
                let label = if tab.busy() { format!("{} …", tab.title) } else { tab.title.clone() };
                if ui.selectable_label(i == self.active, label).clicked() {
                    self.active = i;
                }
                if self.tabs.len() > 1 && ui.small_button("×").on_hover_text("Close tab").clicked() {
                    close = Some(i);
                }
            }
            if ui.button("+").on_hover_text("New tab").clicked() {
                // Built from the chosen connection's schema when it is known, else the spec's own.
                let sample = match self.explorer.model() {
                    Some(model) => crate::query::sample_query(model.schema()),
                    None => SAMPLE_QUERY.to_owned(),
                };
                self.tabs.push(Tab::new(self.next_tab, format!("Query {}", self.next_tab), sample));
                self.next_tab += 1;
                self.active = self.tabs.len() - 1;
            }
            if let Some(i) = close {
                self.tabs.remove(i);
                self.active = self.active.min(self.tabs.len() - 1);
            }
        });
    }

    fn queries_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::left("side").resizable(true).default_size(300.0).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.side, Side::Explorer, "Explorer");
                ui.selectable_value(&mut self.side, Side::History, "History");
            });
            ui.separator();
            match self.side {
                Side::Explorer => {
                    let intent = self.explorer.ui(ui, &self.tabs[self.active].query);
                    self.handle_explorer(intent);
                }
                Side::History => {
                    if let Some(entry) = self.history.ui(ui) {
                        self.open_history(entry);
                    }
                }
            }
        });
        let chosen = self.profiles.name_of(&self.connection);
        egui::CentralPanel::default().show(ui, |ui| {
            let tab = &mut self.tabs[self.active];
            let schema = self.explorer.model_arc();
            let intent = self.editor.ui(ui, tab, schema.as_ref());
            ui.separator();
            let results = self.results.ui(ui, tab, &chosen);
            match intent {
                Some(EditorIntent::Run) => self.run(None, None),
                Some(EditorIntent::Cancel) => self.handle_results(ResultsIntent::Cancel),
                None => {}
            }
            if let Some(intent) = results {
                self.handle_results(intent);
            }
        });
    }

    fn problems_ui(&mut self, ui: &mut egui::Ui) {
        if self.problems.is_empty() {
            return;
        }
        egui::Panel::top("problems").show(ui, |ui| {
            let mut dismiss = false;
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(ui.visuals().warn_fg_color, self.problems.join(" · "));
                dismiss = ui.button("Dismiss").clicked();
            });
            if dismiss {
                self.problems.clear();
            }
        });
    }
}

impl eframe::App for OrgqlApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
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
        // Keep the token countdown and progress moving while something is under way.
        if self.tabs.iter().any(Tab::busy) {
            ctx.request_repaint_after(Duration::from_millis(250));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        egui::Panel::top("toolbar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.strong("orgql");
                ui.separator();
                self.profiles.choice_ui(ui, &mut self.connection);
                if ui.button("Profiles…").clicked() {
                    self.profiles.open = true;
                }
                if ui.button("Find user").on_hover_text("Find a user by ref, email or name").clicked() {
                    self.find_user.show();
                }
                ui.separator();
                ui.selectable_value(&mut self.view, MainView::Queries, "Queries");
                let count = self.webhooks.list.rows().len();
                let label = if count == 0 { "Webhooks".to_owned() } else { format!("Webhooks ({count})") };
                ui.selectable_value(&mut self.view, MainView::Webhooks, label);
            });
            if self.view == MainView::Queries {
                self.tabs_ui(ui);
            }
        });
        self.problems_ui(ui);
        let connection_name = self.profiles.name_of(&self.connection);
        egui::Panel::bottom("status").show(ui, |ui| {
            self.status.ui(ui, &connection_name);
        });
        match self.view {
            MainView::Queries => self.queries_ui(ui),
            MainView::Webhooks => {
                egui::CentralPanel::default().show(ui, |ui| {
                    if let Some(intent) = self.webhooks.ui(ui) {
                        self.handle_webhooks(intent);
                    }
                });
            }
        }
        let has_rows = self.tabs[self.active].grid.is_some();
        if let Some(request) = self.export_window.ui(&ctx, has_rows, self.tabs[self.active].export.as_ref()) {
            self.handle_export(request);
        }
        for command in self.profiles.window_ui(&ctx, &mut self.next_job) {
            self.send(command);
        }
        let access = Access {
            connection: self.profiles.name_of(&self.connection),
            scopes: self.profiles.scopes_of(&self.connection),
        };
        if let Some(request) = self.find_user.ui(&ctx, &access) {
            self.support(request);
        }
    }
}
