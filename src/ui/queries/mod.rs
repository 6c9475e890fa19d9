//! The query tabs as a feature: the tab bar, the editor, the results and the export window, the
//! explorer's place beside them (its panel is `ui/explorer/`), what their clicks ask of the worker
//! (a run, another page, every page, an export, a schema) and how its answers reach the tab that
//! asked.
//! The tabs themselves are kept by [`AppState`] (the workspace keeps them); this module owns the
//! panels and the logic between them and the worker.

pub mod copy_code;
pub mod editor;
pub mod export_window;
pub mod results;
pub mod tab;
pub mod tab_bar;
pub mod tabs;

use crate::table::CsvOptions;
use crate::ui::app::state::AppState;
use crate::ui::commands::Commands;
use crate::ui::explorer::{ExplorerIntent, ExplorerPanel};
use crate::ui::profiles::ProfilesWindow;
use crate::ui::queries::editor::{EditorIntent, QueryEditor};
use crate::ui::queries::export_window::{ExportIntent, ExportWindow};
use crate::ui::queries::results::{ResultsIntent, ResultsPanel};
use crate::ui::queries::tab::{Export, ExportRequest, FetchAll};
use crate::ui::queries::tab_bar::{TabBar, TabIntent};
use crate::ui::status_bar::StatusBar;
use crate::ui::widgets::panes::{self, Pane};
use crate::ui::widgets::requested::Requested;
use crate::worker::{
    Connection, ExportAsked, ExportCommand, ExportEvent, QueryCommand, QueryEvent, QuerySpec, SchemaCommand, Step,
};

/// The editor's height above the results on a first start, in points (about 16 lines); after
/// that, egui's memory of the divider keeps the height the user dragged it to.
const DEFAULT_EDITOR_HEIGHT: f32 = 330.0;
/// The editor's height at least: Run and a few lines of the query.
const MIN_EDITOR_HEIGHT: f32 = 90.0;
/// The grid's rows kept on screen, the editor giving way, however short the window.
const GRID_ROWS_KEPT: usize = 5;

/// The panels of the query view and the export window.
pub struct Queries {
    /// The query editor.
    pub editor: QueryEditor,
    /// The result of the active tab.
    pub results: ResultsPanel,
    /// The schema explorer.
    pub explorer: ExplorerPanel,
    export_window: ExportWindow,
    /// The tab's document, to deliver on a schedule (Export… → Deliver on a schedule…), until
    /// the app hands it to the Schedules window.
    to_schedule: Option<crate::ui::schedules::Document>,
    tab_bar: TabBar,
}

/// What the query view works with besides its panels: the state it changes, the way to the
/// worker, and the profiles that turn the chosen connection into one the worker can reach.
pub struct Context<'a> {
    /// The tabs, the chosen connection and its schema.
    pub state: &'a mut AppState,
    /// The worker's queue.
    pub commands: &'a mut Commands,
    /// The profiles.
    pub profiles: &'a ProfilesWindow,
}

impl Context<'_> {
    fn connection(&self) -> Result<Connection, String> {
        self.profiles.connection(self.state.connection())
    }

    /// The active tab's query on `connection`.
    fn spec_on(&self, connection: Connection) -> Result<QuerySpec, String> {
        let tab = self.state.tabs().active();
        let variables = crate::ui::queries::editor::parse_variables(&tab.variables)?;
        Ok(QuerySpec { connection, query: tab.query.clone(), variables, operation: tab.operation.clone() })
    }

    /// The active tab's query on the connection its rows came from (the chosen one when it
    /// has none): where its cursors belong.
    fn spec_of_rows(&self) -> Result<QuerySpec, String> {
        match self.state.tabs().active().source.clone() {
            Some(source) => self.spec_on(source),
            None => self.spec_on(self.connection()?),
        }
    }
}

impl Queries {
    /// The query view, proposing exports in `export_dir`.
    pub fn new(export_dir: std::path::PathBuf) -> Self {
        Queries {
            editor: QueryEditor::default(),
            results: ResultsPanel::default(),
            explorer: ExplorerPanel::default(),
            export_window: ExportWindow::new(export_dir),
            to_schedule: None,
            tab_bar: TabBar::default(),
        }
    }

    /// Takes a run's, a page's or a fetch's answer into the tab that asked (a closed tab's is
    /// dropped); the status bar hears how a run ended.
    pub fn on_event(&mut self, event: QueryEvent, state: &mut AppState, status: &mut StatusBar) {
        match event {
            QueryEvent::Ran { job, result } => {
                let tabs = state.tabs_mut();
                let Some(connection) = tabs.of_job(job).and_then(|tab| tab.running().map(|r| r.on.name().to_owned()))
                else {
                    return;
                };
                let still_running = tabs
                    .list()
                    .iter()
                    .filter_map(|tab| tab.running())
                    .any(|running| running.job != job && running.on.name() == connection);
                status.finished(&connection, result.as_ref(), still_running);
                if let Some(tab) = tabs.of_job(job) {
                    tab.on_ran(result);
                    crate::timing::mark("rows_applied");
                }
            }
            QueryEvent::RowsArrived { job, rows, so_far } => {
                if let Some(tab) = state.tabs_mut().of_job(job) {
                    tab.on_rows(rows, so_far);
                }
            }
            QueryEvent::FetchedAll { job, result, warnings } => {
                if let Some(tab) = state.tabs_mut().of_job(job) {
                    tab.on_fetched_all(result, warnings);
                }
            }
        }
    }

    /// Takes what the worker says of an export.
    pub fn on_export_event(&mut self, event: ExportEvent, cx: &mut Context<'_>) {
        match event {
            ExportEvent::FileChecked { path, answer } => {
                if let Some(request) = self.export_window.checked(&path, answer) {
                    self.export(request, cx);
                }
            }
            ExportEvent::Progress { job, rows, total } => {
                if let Some(tab) = cx.state.tabs_mut().of_job(job) {
                    tab.on_export_progress(rows, total);
                }
            }
            ExportEvent::Exported { job, result, resumable, note } => {
                if let Some(tab) = cx.state.tabs_mut().of_job(job) {
                    tab.on_exported(result, resumable, note);
                }
            }
        }
    }

    /// Asks for the chosen connection's schema (`refresh`: from the service even when known);
    /// the one shown stays until the new one is in.
    pub fn load_schema(cx: &mut Context<'_>, refresh: bool) {
        let name = cx.state.connection_name();
        cx.state.schemas_mut().loading(&name);
        match cx.connection() {
            Ok(connection) => {
                let job = cx.commands.job();
                cx.commands.send(SchemaCommand::Load { job, connection, refresh });
            }
            Err(message) => cx.state.schemas_mut().loaded(&name, Err(message)),
        }
    }

    /// Runs the active tab's query on the chosen connection (its first page when it has a
    /// connection), ending the walk of its pages shown before.
    pub fn run(cx: &mut Context<'_>) {
        let spec = match cx.connection().and_then(|connection| cx.spec_on(connection)) {
            Ok(spec) => spec,
            Err(message) => {
                cx.state.tabs_mut().active_mut().result.finish(Err(crate::api::ApiError::Document(message)));
                return;
            }
        };
        let job = cx.commands.job();
        crate::timing::run_clicked();
        let tab = cx.state.tabs_mut().active_mut();
        let ended_walk = tab.walk.take();
        let replaced = tab.started(job, spec.connection.clone());
        if let Some(replaced) = replaced {
            cx.commands.cancel(replaced);
        }
        if let Some(walk) = ended_walk {
            cx.commands.send(QueryCommand::EndWalk(walk));
        }
        cx.commands.send(QueryCommand::Run { job, spec });
    }

    /// Shows another page of the active tab's walk (on the server its rows came from: the
    /// walk's pager belongs to it).
    fn page(cx: &mut Context<'_>, step: Step) {
        let job = cx.commands.job();
        let tab = cx.state.tabs_mut().active_mut();
        let (Some(walk), Some(source)) = (tab.walk, tab.source.clone()) else { return };
        if let Some(replaced) = tab.started(job, source) {
            cx.commands.cancel(replaced);
        }
        cx.commands.send(QueryCommand::Page { job, walk, step });
    }

    /// Fetches every page of the active tab's query into its grid.
    pub fn fetch_all_pages(&mut self, cx: &mut Context<'_>) {
        Self::fetch_all(cx);
    }

    fn fetch_all(cx: &mut Context<'_>) {
        let spec = match cx.spec_of_rows() {
            Ok(spec) => spec,
            Err(message) => return cx.state.problem(message),
        };
        let job = cx.commands.job();
        let tab = cx.state.tabs_mut().active_mut();
        tab.fetch_all = Some(FetchAll {
            job,
            so_far: 0,
            total: None,
            outcome: Requested::Pending { previous: None },
            warnings: Vec::new(),
        });
        tab.grid = None;
        tab.source = Some(spec.connection.clone());
        tab.touch();
        cx.commands.send(QueryCommand::FetchAll { job, spec });
    }

    /// Cancels what the active tab has under way.
    fn cancel(cx: &mut Context<'_>) {
        let tab = cx.state.tabs_mut().active_mut();
        let jobs = tab.jobs();
        tab.forget_jobs();
        for job in jobs {
            cx.commands.cancel(job);
        }
    }

    fn handle_results(&mut self, intent: ResultsIntent, cx: &mut Context<'_>) {
        match intent {
            ResultsIntent::NextPage => Self::page(cx, Step::Next),
            ResultsIntent::PreviousPage => Self::page(cx, Step::Previous),
            ResultsIntent::RunAgain => Self::run(cx),
            ResultsIntent::FetchAll => Self::fetch_all(cx),
            ResultsIntent::Cancel => Self::cancel(cx),
            ResultsIntent::Export => self.export_window.open(),
            ResultsIntent::ResumeExport => {
                let request = cx.state.tabs().active().export.as_ref().map(|export| export.request.clone());
                if let Some(request) = request {
                    self.export(ExportRequest { resume: true, ..request }, cx);
                }
            }
            ResultsIntent::JumpTo(line, column) => cx.state.tabs_mut().active_mut().jump_to = Some((line, column)),
            ResultsIntent::CopyText(text) => self.results.copy(text),
            ResultsIntent::Chart(ask) => {
                let job = cx.commands.job();
                let command = self.results.chart.asked(job, ask);
                cx.commands.send(command);
            }
        }
    }

    fn export(&mut self, request: ExportRequest, cx: &mut Context<'_>) {
        let options = CsvOptions { bom: request.bom, raw: request.raw };
        let job = cx.commands.job();
        let command = if request.all_pages {
            match cx.spec_of_rows() {
                Ok(spec) => {
                    let asked = ExportAsked {
                        path: request.path.clone(),
                        options,
                        resume: request.resume,
                        changes_since_last: request.changes_since_last,
                    };
                    ExportCommand::All { job, spec, asked }
                }
                Err(message) => return cx.state.problem(message),
            }
        } else {
            let Some(grid) = cx.state.tabs().active().grid.as_ref() else {
                return cx.state.problem("there are no rows to export yet; run the query first");
            };
            // The rows as shown: in the grid's sort order when it is sorted (a copy only then).
            let rows = match grid.sort {
                Some(_) => std::sync::Arc::new(grid.order.iter().map(|i| grid.rows[*i].clone()).collect()),
                None => grid.rows.clone(),
            };
            // Recorded with the query the rows are of, as an export of every page is.
            let about = cx.spec_of_rows().ok();
            ExportCommand::Rows { job, columns: grid.columns.clone(), rows, path: request.path.clone(), options, about }
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
        cx.state.tabs_mut().active_mut().export = Some(started);
        cx.commands.send(command);
    }

    /// The tab bar.
    pub fn tabs_ui(&mut self, ui: &mut egui::Ui, cx: &mut Context<'_>) {
        let state = &mut *cx.state;
        match self.tab_bar.ui(ui, state.tabs()) {
            Some(TabIntent::Select(index)) => state.tabs_mut().select(index),
            Some(TabIntent::Close(index)) => {
                let (jobs, walk) = state.tabs_mut().close(index);
                for job in jobs {
                    cx.commands.cancel(job);
                }
                if let Some(walk) = walk {
                    cx.commands.send(QueryCommand::EndWalk(walk));
                }
            }
            Some(TabIntent::New) => state.new_tab(),
            Some(TabIntent::Reopen) => {
                state.tabs_mut().reopen();
            }
            Some(TabIntent::Move { from, to }) => state.tabs_mut().move_tab(from, to),
            Some(TabIntent::Rename { index, title }) => state.tabs_mut().rename(index, &title),
            None => {}
        }
    }

    /// The explorer of the chosen connection's schema, which edits the active tab's query.
    pub fn explorer_ui(&mut self, ui: &mut egui::Ui, cx: &mut Context<'_>) {
        let name = cx.state.connection_name();
        let schema = cx.state.schemas().of(&name);
        match self.explorer.ui(ui, &cx.state.tabs().active().query, schema, &name) {
            Some(ExplorerIntent::Edit(edit)) => {
                let tab = cx.state.tabs_mut().active_mut();
                edit.apply_in_place(&mut tab.query);
                tab.touch();
            }
            Some(ExplorerIntent::Load { refresh }) => Self::load_schema(cx, refresh),
            None => {}
        }
    }

    /// The editor above the results.
    pub fn central_ui(&mut self, ui: &mut egui::Ui, cx: &mut Context<'_>) {
        let chosen = cx.state.connection_name();
        let schema = cx.state.schemas().model(&chosen).cloned();
        let full = ui.available_height();
        // The divider between editor and results can be dragged; egui's memory keeps its place.
        // On a short screen (150 % on a laptop, notices above) the editor gives way, so that the
        // grid keeps its rows in view.
        let most = (full - self.results.height_for_rows(ui, GRID_ROWS_KEPT)).max(MIN_EDITOR_HEIGHT);
        let pane = egui::Panel::top("editor-pane")
            .resizable(true)
            .min_size(MIN_EDITOR_HEIGHT)
            .max_size(most)
            .default_size(DEFAULT_EDITOR_HEIGHT.min(full * 0.4).min(most));
        let mut folded = cx.state.variables_folded();
        let tab = cx.state.tabs_mut().active_mut();
        let editor = &mut self.editor;
        let intent = pane
            .show(ui, |ui| {
                // The pane keeps the height it is given (the editor fills it), not its content's.
                ui.set_min_height(ui.available_height());
                panes::show(ui, Pane::Editor, |ui| editor.ui(ui, tab, schema.as_ref(), &mut folded))
            })
            .inner;
        cx.state.fold_variables(folded);
        let tab = cx.state.tabs_mut().active_mut();
        let results = panes::show(ui, Pane::Result, |ui| self.results.ui(ui, tab, &chosen));
        match intent {
            Some(EditorIntent::Run) => Self::run(cx),
            Some(EditorIntent::Cancel) => Self::cancel(cx),
            None => {}
        }
        if let Some(intent) = results {
            self.handle_results(intent, cx);
        }
    }

    /// The document Export… → Deliver on a schedule… asked for, taken.
    pub fn take_to_schedule(&mut self) -> Option<crate::ui::schedules::Document> {
        self.to_schedule.take()
    }

    /// The export window, while open.
    pub fn export_window_ui(&mut self, ctx: &egui::Context, cx: &mut Context<'_>) {
        let active = cx.state.tabs().active();
        match self.export_window.ui(ctx, active.grid.is_some(), active.export.as_ref()) {
            Some(ExportIntent::Check(path)) => cx.commands.send(ExportCommand::CheckFile { path }),
            Some(ExportIntent::Start(request)) => self.export(request, cx),
            Some(ExportIntent::Schedule(format, bom, changes)) => {
                let tab = cx.state.tabs().active();
                let kind = if format == crate::table::Format::Xlsx {
                    crate::schedule::definition::Kind::Xlsx
                } else {
                    crate::schedule::definition::Kind::Csv
                };
                let profile = match cx.state.connection() {
                    crate::ui::profiles::ProfileChoice::Named(name) => Some(name.clone()),
                    crate::ui::profiles::ProfileChoice::Sandbox => None,
                };
                self.to_schedule = Some(crate::ui::schedules::Document {
                    text: tab.query.clone(),
                    variables: tab.variables.clone(),
                    operation: tab.operation.clone(),
                    source: format!("the query tab {}", tab.title),
                    profile,
                    export: Some((kind, bom, changes)),
                });
            }
            None => {}
        }
    }
}
