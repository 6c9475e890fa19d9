//! Where to export: a path field with a sensible default (always there, so that exporting works
//! where no desktop portal answers a file dialog), "Browse…" for the native dialog (rfd,
//! on its own thread: the UI never waits for it), BOM and raw options, this page or every page.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::tab::Export;

/// An export the user asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRequest {
    /// The file.
    pub path: PathBuf,
    /// Start with a UTF-8 BOM.
    pub bom: bool,
    /// No formula guard.
    pub raw: bool,
    /// Every page of the query (else the rows shown).
    pub all_pages: bool,
    /// Continue the interrupted export of the same query into `path`.
    pub resume: bool,
    /// Only the rows added, changed or removed since the last export of the query.
    pub changes_since_last: bool,
}

/// The export window.
pub struct ExportWindow {
    open: bool,
    path: String,
    bom: bool,
    raw: bool,
    all_pages: bool,
    changes_since_last: bool,
    picked: Arc<Mutex<Option<PathBuf>>>,
    error: Option<String>,
}

impl ExportWindow {
    /// A window proposing files in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        let name = format!("orgql-export-{}.csv", chrono::Local::now().format("%Y-%m-%d"));
        ExportWindow {
            open: false,
            path: dir.join(name).display().to_string(),
            bom: true,
            raw: false,
            all_pages: false,
            changes_since_last: false,
            picked: Arc::new(Mutex::new(None)),
            error: None,
        }
    }

    /// Opens the window.
    pub fn open(&mut self) {
        self.open = true;
        self.error = None;
    }

    /// Draws the window when open; returns the export to start.
    pub fn ui(&mut self, ctx: &egui::Context, has_rows: bool, running: Option<&Export>) -> Option<ExportRequest> {
        if let Some(path) = self.picked.lock().unwrap_or_else(PoisonError::into_inner).take() {
            self.path = path.display().to_string();
        }
        if !self.open {
            return None;
        }
        let mut request = None;
        let mut open = self.open;
        let center = ctx.content_rect().center();
        egui::Window::new("Export CSV")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(center)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("File");
                    ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0)).labelled_by(label.id);
                    if ui.button("Browse…").clicked() {
                        self.browse(ctx);
                    }
                });
                ui.radio_value(&mut self.all_pages, false, "The rows shown");
                ui.radio_value(&mut self.all_pages, true, "Every page of the query");
                ui.add_enabled(
                    self.all_pages,
                    egui::Checkbox::new(&mut self.changes_since_last, "Only changes since the last export"),
                )
                .on_hover_text("Rows added, changed or removed since the last export of this query on this connection");
                ui.checkbox(&mut self.bom, "UTF-8 BOM (for spreadsheet programs)");
                ui.checkbox(&mut self.raw, "Raw cells (no ' before =, +, -, @)");
                if let Some(error) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                let busy = running.is_some_and(|e| e.outcome.is_pending());
                let can = !busy && (self.all_pages || has_rows);
                if ui.add_enabled(can, egui::Button::new("Export")).clicked() {
                    let path = PathBuf::from(self.path.trim());
                    if self.path.trim().is_empty() {
                        self.error = Some("give a file name to export to".into());
                    } else if path.is_dir() {
                        self.error = Some(format!("{} is a folder; give a file name", path.display()));
                    } else {
                        request = Some(ExportRequest {
                            path,
                            bom: self.bom,
                            raw: self.raw,
                            all_pages: self.all_pages,
                            resume: false,
                            changes_since_last: self.all_pages && self.changes_since_last,
                        });
                    }
                }
            });
        self.open = open && request.is_none();
        request
    }

    /// Opens the native save dialog on its own thread; the choice lands in the path field.
    fn browse(&self, ctx: &egui::Context) {
        let picked = self.picked.clone();
        let ctx = ctx.clone();
        let current = PathBuf::from(&self.path);
        let dialog = rfd::FileDialog::new()
            .add_filter("CSV", &["csv"])
            .set_file_name(current.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let dialog = match current.parent() {
            Some(dir) if dir.is_dir() => dialog.set_directory(dir),
            _ => dialog,
        };
        std::thread::Builder::new()
            .name("orgql-file-dialog".into())
            .spawn(move || {
                if let Some(file) = dialog.save_file() {
                    *picked.lock().unwrap_or_else(PoisonError::into_inner) = Some(file);
                    ctx.request_repaint();
                }
            })
            .map(drop)
            .unwrap_or_else(|e| tracing::warn!("the file dialog could not be opened: {e}"));
    }
}
