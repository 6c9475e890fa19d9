//! Where to export: a path field with a sensible default (always there, so that exporting works
//! where no desktop portal answers a file dialog), "Browse…" for the native dialog (rfd,
//! on its own thread: the UI never waits for it), the format (CSV or an Excel workbook: the
//! file's extension follows), BOM and raw options for CSV, this page or every page, and only the
//! changes since the last export.
//!
//! A file is never replaced silently: Export first asks the worker whether the file exists (no
//! file system call on the UI thread); when it does, the window says so and offers **Replace**
//! or a free name beside it (`users (2).csv`), as file managers do.

use std::path::{Path, PathBuf};

use crate::table::Format;
use crate::ui::queries::tab::{Export, ExportRequest};

/// What the window asks of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportIntent {
    /// Find out whether the file exists, and a free name beside it
    /// ([`ExportWindow::checked`] takes the answer).
    Check(PathBuf),
    /// Start this export.
    Start(ExportRequest),
    /// Deliver the tab's query on a schedule instead, with these choices: the format, a BOM,
    /// the changes since the last delivery.
    Schedule(Format, bool, bool),
}

/// Where the window is between Export and the export's start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Confirm {
    /// Nothing asked.
    Idle,
    /// Waiting for the worker to say whether the file exists.
    Checking(ExportRequest),
    /// The file exists: replace it, or use `free`.
    Exists { request: ExportRequest, free: PathBuf },
}

/// The export window.
pub struct ExportWindow {
    open: bool,
    path: String,
    format: Format,
    bom: bool,
    raw: bool,
    all_pages: bool,
    changes_since_last: bool,
    picked: crate::ui::widgets::file_dialog::Picked,
    error: Option<String>,
    confirm: Confirm,
}

impl ExportWindow {
    /// A window proposing files in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        let name = format!("orgql-export-{}.csv", chrono::Local::now().format("%Y-%m-%d"));
        ExportWindow {
            open: false,
            path: dir.join(name).display().to_string(),
            format: Format::Csv,
            bom: true,
            raw: false,
            all_pages: false,
            changes_since_last: false,
            picked: crate::ui::widgets::file_dialog::Picked::default(),
            error: None,
            confirm: Confirm::Idle,
        }
    }

    /// Opens the window.
    pub fn open(&mut self) {
        self.open = true;
        self.error = None;
        self.confirm = Confirm::Idle;
    }

    /// The worker's answer to [`ExportIntent::Check`] (`None`: `path` can be written; a free
    /// name beside it: it exists; or why it cannot be written): the export to start when the
    /// file is free, otherwise the window asks or says why.
    pub fn checked(&mut self, path: &Path, answer: Result<Option<PathBuf>, String>) -> Option<ExportRequest> {
        let Confirm::Checking(request) = &self.confirm else {
            return None;
        };
        if request.path != path {
            return None;
        }
        let request = request.clone();
        match answer {
            Ok(Some(free)) => {
                self.confirm = Confirm::Exists { request, free };
                None
            }
            Ok(None) => {
                self.confirm = Confirm::Idle;
                self.open = false;
                Some(request)
            }
            Err(error) => {
                self.confirm = Confirm::Idle;
                self.error = Some(error);
                None
            }
        }
    }

    /// Draws the window when open; returns what to do.
    pub fn ui(&mut self, ctx: &egui::Context, has_rows: bool, running: Option<&Export>) -> Option<ExportIntent> {
        if let Some(path) = crate::ui::widgets::file_dialog::take(&self.picked) {
            self.path = path.display().to_string();
            self.format = Format::of(&path);
        }
        let dialog = crate::ui::widgets::a11y::Dialog::new("export");
        if !self.open {
            dialog.after(ctx, false);
            return None;
        }
        let mut intent = None;
        let mut open = self.open;
        let center = ctx.content_rect().center();
        let mut escaped = false;
        egui::Window::new("Export to a file")
            .title_bar(false)
            .collapsible(false)
            .resizable(false)
            .vscroll(true)
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(center)
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Export to a file");
                ui.horizontal(|ui| {
                    let label = ui.label("File");
                    let edit =
                        ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0)).labelled_by(label.id);
                    if edit.changed() {
                        self.confirm = Confirm::Idle;
                        self.format = Format::of(Path::new(self.path.trim()));
                    }
                    let browse = ui.button("Browse…").accessible_name("Browse for the export file");
                    if browse.clicked() {
                        self.browse(ctx);
                    }
                });
                if let Some(why) = crate::ui::widgets::file_dialog::failure(&self.picked) {
                    crate::ui::widgets::a11y::alert(ui, why);
                }
                ui.horizontal(|ui| {
                    ui.label("Format");
                    for format in [Format::Csv, Format::Xlsx] {
                        if ui.radio(self.format == format, format.label()).clicked() && self.format != format {
                            self.format = format;
                            self.path = with_extension(self.path.trim(), format);
                            self.confirm = Confirm::Idle;
                        }
                    }
                });
                ui.radio_value(&mut self.all_pages, false, "The rows shown");
                ui.radio_value(&mut self.all_pages, true, "Every page of the query");
                ui.add_enabled(
                    self.all_pages,
                    egui::Checkbox::new(&mut self.changes_since_last, "Only changes since the last export"),
                )
                .on_hover_text("Rows added, changed or removed since the last export of this query on this connection");
                let csv = self.format == Format::Csv;
                ui.add_enabled(csv, egui::Checkbox::new(&mut self.bom, "UTF-8 BOM (for spreadsheet programs)"));
                ui.add_enabled(csv, egui::Checkbox::new(&mut self.raw, "Raw cells (no ' before =, +, -, @)"));
                if let Some(error) = &self.error {
                    crate::ui::widgets::a11y::alert(ui, error);
                }
                let busy = running.is_some_and(|e| e.outcome.is_pending());
                match &self.confirm {
                    Confirm::Exists { request, free } => {
                        let name = |path: &Path| {
                            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                        };
                        crate::ui::widgets::a11y::polite_colored(
                            ui,
                            ui.visuals().warn_fg_color,
                            format!("{} already exists.", name(&request.path)),
                        );
                        ui.horizontal(|ui| {
                            if ui.add_enabled(!busy, egui::Button::new("Replace")).clicked() {
                                intent = Some(ExportIntent::Start(request.clone()));
                            }
                            let other = format!("Use {}", name(free));
                            if ui.add_enabled(!busy, egui::Button::new(other)).clicked() {
                                self.path = free.display().to_string();
                                intent =
                                    Some(ExportIntent::Start(ExportRequest { path: free.clone(), ..request.clone() }));
                            }
                        });
                    }
                    Confirm::Checking(_) => {
                        ui.spinner();
                    }
                    Confirm::Idle => {
                        let can = !busy && (self.all_pages || has_rows);
                        let schedule = ui.horizontal(|ui| {
                            let export = ui.add_enabled(can, egui::Button::new("Export"));
                            let schedule = ui
                                .button("Deliver on a schedule…")
                                .on_hover_text("Every page of this query, delivered to a folder on a schedule");
                            (export, schedule)
                        });
                        let (export, schedule) = schedule.inner;
                        if schedule.clicked() {
                            intent = Some(ExportIntent::Schedule(self.format, self.bom, self.changes_since_last));
                            open = false;
                        }
                        if export.clicked() {
                            match self.request() {
                                Ok(request) => {
                                    intent = Some(ExportIntent::Check(request.path.clone()));
                                    self.confirm = Confirm::Checking(request);
                                    self.error = None;
                                }
                                Err(error) => self.error = Some(error),
                            }
                        }
                    }
                }
                crate::ui::widgets::a11y::reveal_focus(ui);
            });
        if matches!(intent, Some(ExportIntent::Start(_))) {
            self.confirm = Confirm::Idle;
            open = false;
        }
        open &= !escaped;
        self.open = open;
        dialog.after(ctx, open);
        intent
    }

    /// The export the fields describe, or why not.
    fn request(&self) -> Result<ExportRequest, String> {
        let path = PathBuf::from(self.path.trim());
        if self.path.trim().is_empty() {
            return Err("give a file name to export to".into());
        }
        if path.file_name().is_none() {
            return Err(format!("{} is a folder; give a file name", path.display()));
        }
        let csv = self.format == Format::Csv;
        Ok(ExportRequest {
            path,
            bom: csv && self.bom,
            raw: csv && self.raw,
            all_pages: self.all_pages,
            resume: false,
            changes_since_last: self.all_pages && self.changes_since_last,
        })
    }

    /// Opens the native save dialog on its own thread; the choice lands in the path field.
    fn browse(&self, ctx: &egui::Context) {
        let current = PathBuf::from(&self.path);
        let dialog = rfd::FileDialog::new()
            .add_filter(self.format.label(), &[self.format.extension()])
            .set_file_name(current.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let dialog = match current.parent() {
            // A stat of the folder; the dialog itself runs on its own thread.
            Some(dir) if !dir.as_os_str().is_empty() => dialog.set_directory(dir),
            _ => dialog,
        };
        crate::ui::widgets::file_dialog::spawn(ctx, &self.picked, move || dialog.save_file());
    }
}

/// `path` with the extension of `format` (`users.csv` → `users.xlsx`; a name without one gets it).
fn with_extension(path: &str, format: Format) -> String {
    let path = Path::new(path);
    match Format::named_by(path) {
        Some(_) => path.with_extension(format.extension()).display().to_string(),
        None => format!("{}.{}", path.display(), format.extension()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_follows_the_format() {
        assert_eq!(with_extension("/tmp/users.csv", Format::Xlsx), "/tmp/users.xlsx");
        assert_eq!(with_extension("/tmp/users.XLSX", Format::Csv), "/tmp/users.csv");
        assert_eq!(with_extension("/tmp/users", Format::Xlsx), "/tmp/users.xlsx");
    }
}
