//! The desktop app (egui), by feature: the shell in [`app`] (start, routing, layout, what the app
//! keeps), what every panel draws with in `widgets` (accessibility helpers, theme, JSON tree, file
//! dialog, the request-state enum, plots, number formatting, panes), the way to the worker in
//! `commands`, and a module (a folder when it has two files or more) per feature: the query tabs
//! (`queries`), Find user and its card (`find_user`), `import`, `schema_changes`, `saved`,
//! `history`, `profiles`, the `status_bar`, `webhooks` and the [`renderer`]. Panels draw state and
//! turn clicks into commands for the worker, whose half of each feature has the same name under
//! `crate::worker`. See docs/architecture.md.

mod app;
mod commands;
mod explorer;
mod find_user;
mod history;
mod import;
mod profiles;
mod queries;
pub mod renderer;
mod saved;
mod schedules;
mod schema_changes;
mod status_bar;
mod webhooks;
mod widgets;

pub use app::bench::{CardBench, bench_sandbox_users, synthetic_rows};
pub use app::state::{AppState, MainView, Schemas, Side};
pub use app::workspace::{SavedTab, UnreadableWorkspace, WORKSPACE_VERSION, Workspace};
pub use app::{AppConfig, OrgqlApp};
pub use commands::Commands;
pub use explorer::{ExplorerIntent, ExplorerPanel, SchemaState};
pub use queries::editor::{EditorIntent, QueryEditor};
pub use queries::results::chart::{ChartAsk, ChartIntent, ChartPanel, MAX_BARS};
pub use queries::results::{ResultsIntent, ResultsPanel};
pub use queries::tab::{Grid, Running, SAMPLE_QUERY, Tab, View};
pub use queries::tab_bar::{TabBar, TabIntent};
pub use queries::tabs::Tabs;
pub use saved::{SavedIntent, SavedPanel};
pub use webhooks::{
    ListenerForm, ListenerStatus, RemoteIntent, RemoteSection, RemoteState, TimelineView, TunnelIntent, TunnelSection,
    TunnelState, WebhooksIntent, WebhooksPanel,
};

use std::sync::Arc;

/// The window's title.
pub const TITLE: &str = "orgql — GraphQL explorer";

/// Gives back what only the start needed ([`crate::platform::resident`]) once the start is over, on a
/// blocking thread of the runtime; a failure is logged, never shown (nothing is lost by it).
fn release_startup_pages_later(runtime: &tokio::runtime::Handle) {
    if crate::platform::resident::turned_off() {
        return;
    }
    runtime.spawn(async {
        tokio::time::sleep(crate::platform::resident::AFTER_START).await;
        match tokio::task::spawn_blocking(crate::platform::resident::release_startup_pages).await {
            Ok(Ok(released)) => {
                crate::timing::mark("startup_pages_released");
                tracing::debug!(?released, "start-up pages released");
            }
            Ok(Err(e)) => tracing::debug!("start-up pages kept: {e}"),
            Err(e) => tracing::debug!("start-up pages kept: {e}"),
        }
    });
}

/// The first window's inner size: 1280×800 points, or less where the screen's work area is
/// smaller, leaving room for the title bar and the frame (a restart keeps the size it was left at).
pub fn first_window_size(work_area: Option<[f32; 2]>) -> [f32; 2] {
    /// The title bar and the frame around the inner size (Windows 11 at 100 %: 31 + 8).
    const CHROME: [f32; 2] = [16.0, 40.0];
    let wanted: [f32; 2] = [1280.0, 800.0];
    match work_area {
        Some(area) => [0, 1].map(|i| wanted[i].min(area[i] - CHROME[i]).max(320.0)),
        None => wanted,
    }
}

/// The options of the window, drawn by `renderer`.
fn native_options(renderer: renderer::Renderer) -> eframe::NativeOptions {
    let mut options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(TITLE)
            .with_app_id("orgql")
            // The icon of packaging/icons/orgql.svg (256 px); the platform's default if it would not decode.
            .with_icon(
                eframe::icon_data::from_png_bytes(include_bytes!(
                    "../../packaging/icons/hicolor/256x256/apps/orgql.png"
                ))
                .unwrap_or_default(),
            )
            .with_inner_size(first_window_size(crate::platform::work_area()))
            .with_min_inner_size([640.0, 400.0]),
        ..Default::default()
    };
    renderer::configure(&mut options, renderer);
    options
}

/// Opens the window with the first renderer of this start's order that can draw (issue 45:
/// `ORGQL_RENDERER`, View → Renderer, then the system's order) and runs the app until it closes.
/// What drew it is logged, shown in Help → About and kept beside the database for `orgql doctor`.
pub fn run_native(config: AppConfig) -> Result<(), String> {
    let settings_dir = config.profiles.as_ref().and_then(|file| file.path().parent()).map(std::path::Path::to_path_buf);
    let record_dir = config.store_path.as_deref().and_then(std::path::Path::parent).map(std::path::Path::to_path_buf);
    let order = renderer::Order::of_this_start(settings_dir.as_deref());
    for warning in &order.warnings {
        tracing::warn!("{warning}");
    }
    let kept_in = record_dir.clone();
    let result = renderer::open(TITLE, &order, native_options, |cc, start| {
        crate::timing::mark("window_created");
        app::fonts::install_marks(&cc.egui_ctx);
        app::fonts::install_after_first_frame(&cc.egui_ctx);
        let ctx = cc.egui_ctx.clone();
        let repaint = Arc::new(move || ctx.request_repaint());
        release_startup_pages_later(&config.runtime);
        keep_window_start(&config.runtime, kept_in, start.clone());
        let report = renderer::StartReport { start, order: order.clone() };
        let mut app = OrgqlApp::new(config, repaint);
        app.set_renderer(report);
        crate::timing::mark("app_created");
        app::bench::wrap(app)
    });
    match result {
        Ok(()) => Ok(()),
        Err(renderer::NotOpened::NoDisplay(e)) => Err(format!(
            "the window could not be opened ({e}); check that a display is available — every command (orgql export, orgql import, orgql query, …) still works from the console"
        )),
        Err(renderer::NotOpened::NoRenderer(passed_over)) => {
            let start = renderer::WindowStart {
                at: chrono::Local::now().fixed_offset(),
                renderer: None,
                adapter: None,
                asked_by: order.asked_by.clone(),
                passed_over,
            };
            if let Some(dir) = &record_dir
                && let Err(e) = renderer::choice::write_record(dir, &start)
            {
                tracing::warn!("{e}");
            }
            let sentence = nothing_can_draw(&start.passed_over);
            tracing::error!("{sentence}");
            Err(sentence)
        }
        Err(renderer::NotOpened::Failed(e)) => Err(format!("the window closed on an error ({e})")),
    }
}

/// The one sentence when no renderer could open the window: what is missing, what each said, and
/// that the command line still works.
fn nothing_can_draw(passed_over: &[renderer::PassedOver]) -> String {
    let needs: Vec<&str> = passed_over
        .iter()
        .map(|passed| match passed.renderer {
            renderer::Renderer::Glow => "OpenGL 2 or later",
            renderer::Renderer::WgpuDx12 => "Direct3D 12",
            renderer::Renderer::WgpuVulkan => "Vulkan",
            renderer::Renderer::WgpuMetal => "Metal",
        })
        .collect();
    let said: Vec<String> = passed_over.iter().map(|p| format!("{}: {}", p.renderer.name(), p.reason)).collect();
    format!(
        "the window could not be opened: this display offers none of {} ({}); every command (orgql export, orgql import, orgql query, …) still works from the console, and {} chooses a renderer",
        needs.join(", "),
        said.join("; "),
        renderer::ENV
    )
}

/// Keeps what drew the window beside the database, on a blocking thread of the runtime (for
/// `orgql doctor`); a failure is logged (nothing else depends on it).
fn keep_window_start(runtime: &tokio::runtime::Handle, dir: Option<std::path::PathBuf>, start: renderer::WindowStart) {
    let Some(dir) = dir else { return };
    runtime.spawn_blocking(move || {
        if let Err(e) = renderer::choice::write_record(&dir, &start) {
            tracing::warn!("{e}");
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_window_fits_the_work_area() {
        assert_eq!(super::first_window_size(None), [1280.0, 800.0]);
        assert_eq!(super::first_window_size(Some([1920.0, 1040.0])), [1280.0, 800.0]);
        // A 1280×800 screen with a 40-point taskbar: the title bar and the frame fit too.
        assert_eq!(super::first_window_size(Some([1280.0, 760.0])), [1264.0, 720.0]);
        assert_eq!(super::first_window_size(Some([100.0, 100.0])), [320.0, 320.0]);
    }
}
