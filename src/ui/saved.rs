//! The saved operations: a side list by collection (folders) to open, rename, duplicate and
//! delete them, each marked when it no longer validates against the chosen connection's schema
//! or uses deprecated fields; the "Save operation" window (Ctrl+S); import and export as
//! `.graphql` files.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::explorer::SchemaModel;
use crate::query::lang::validate::{Severity, validate};
use crate::store::SavedOperation;
use crate::ui::commands::Commands;
use crate::ui::queries::tab::Tab;
use crate::worker::{OperationChange, OperationsCommand, OperationsEvent};

/// What the list asks of the tabs (its changes to the saved operations it sends itself).
#[derive(Debug, Clone, PartialEq)]
pub enum SavedIntent {
    /// Open this operation in a tab.
    Open(SavedOperation),
    /// Save the active tab (opens the window when it has no name yet).
    SaveActive,
    /// Deliver this operation on a schedule (the Schedules window's form).
    Schedule(SavedOperation),
}

/// What the list asks: of the tabs, or a change it sends itself.
enum Asked {
    Tabs(SavedIntent),
    Change(OperationChange),
}

/// How an operation fares against the chosen connection's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Fine,
    Deprecated,
    Invalid,
}

/// The "Save operation" window's form.
#[derive(Debug, Clone, Default)]
struct SaveForm {
    name: String,
    collection: String,
}

/// The saved operations panel and the "Save operation" window.
#[derive(Default)]
pub struct SavedPanel {
    /// The tab whose save went to the worker: the answer makes it the operation's tab.
    saving_tab: Option<u64>,
    /// The operations, by collection then name.
    pub list: Vec<SavedOperation>,
    filter: String,
    /// Marks by operation, with the text and schema they were computed for.
    marks: HashMap<i64, (u64, usize, Mark)>,
    renaming: Option<(i64, String, String)>,
    /// The rename field takes the focus once, when renaming starts.
    focus_rename: bool,
    form: Option<SaveForm>,
    folder: String,
    /// The last change's sentence, or why it failed.
    said: Option<Result<String, String>>,
}

fn hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl SavedPanel {
    /// The operations arrived.
    fn loaded(&mut self, list: Vec<SavedOperation>) {
        self.marks.retain(|id, _| list.iter().any(|op| op.id == *id));
        self.list = list;
    }

    /// Opens the "Save operation" window for a tab named `title` whose document names its
    /// operation `operation` (the name proposed).
    pub fn ask_name(&mut self, operation: Option<String>, title: &str, collection: &str) {
        let name = operation.unwrap_or_else(|| title.to_owned());
        self.form = Some(SaveForm { name, collection: collection.to_owned() });
    }

    /// Whether the "Save operation" window is open.
    pub fn asking(&self) -> bool {
        self.form.is_some()
    }

    fn mark(&mut self, operation: &SavedOperation, schema: Option<&Arc<SchemaModel>>) -> Mark {
        let Some(model) = schema else { return Mark::Fine };
        let key = (hash(&operation.query), Arc::as_ptr(model) as usize);
        if let Some((text, schema, mark)) = self.marks.get(&operation.id)
            && (*text, *schema) == key
        {
            return *mark;
        }
        let problems = validate(model.schema(), &operation.query);
        let mark = if problems.iter().any(|p| p.severity == Severity::Error) {
            Mark::Invalid
        } else if problems.is_empty() {
            Mark::Fine
        } else {
            Mark::Deprecated
        };
        self.marks.insert(operation.id, (key.0, key.1, mark));
        mark
    }

    /// Takes what the worker says of saved operations; a save of a tab that ended makes that
    /// tab the operation's (its id and title), returned for the tabs to take.
    pub fn on_event(&mut self, event: OperationsEvent) -> Result<Option<(u64, SavedOperation)>, String> {
        match event {
            OperationsEvent::Listed(list) => {
                self.loaded(list);
                Ok(None)
            }
            OperationsEvent::Changed(outcome) => {
                let mut saved_tab = None;
                if let (Ok((said, Some(operation))), Some(tab)) = (&outcome, self.saving_tab)
                    && said.starts_with("Saved")
                {
                    self.saving_tab = None;
                    saved_tab = Some((tab, operation.clone()));
                }
                let failed = outcome.as_ref().err().cloned();
                self.said = Some(outcome.map(|(said, _)| said));
                failed.map_or(Ok(saved_tab), Err)
            }
        }
    }

    /// Saves `tab` (Ctrl+S): as the operation it belongs to, or, for a tab that belongs to none
    /// yet, under a name asked for in the window.
    pub fn save(&mut self, tab: &Tab, commands: &mut Commands) {
        let own = tab.saved.and_then(|id| self.list.iter().find(|op| op.id == id)).cloned();
        match own {
            Some(operation) => self.send_save(tab, operation.collection, operation.name, commands),
            None => self.ask_name(first_operation_name(&tab.query), &tab.title, ""),
        }
    }

    fn send_save(&mut self, tab: &Tab, collection: String, name: String, commands: &mut Commands) {
        self.saving_tab = Some(tab.id);
        let change =
            OperationChange::Save { collection, name, query: tab.query.clone(), variables: tab.variables.clone() };
        commands.send(OperationsCommand::Change(change));
    }

    /// Draws the list and sends the changes it asks; returns what it asks of the tabs.
    /// `schema` is the chosen connection's (named `connection`).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        schema: Option<&Arc<SchemaModel>>,
        connection: &str,
        commands: &mut Commands,
    ) -> Option<SavedIntent> {
        match self.draw(ui, schema, connection)? {
            Asked::Tabs(intent) => Some(intent),
            Asked::Change(change) => {
                commands.send(OperationsCommand::Change(change));
                None
            }
        }
    }

    fn draw(&mut self, ui: &mut egui::Ui, schema: Option<&Arc<SchemaModel>>, connection: &str) -> Option<Asked> {
        let mut intent = None;
        ui.horizontal(|ui| {
            ui.heading("Saved operations");
            if ui.button("Save tab…").on_hover_text("Save the tab's operation and variables (Ctrl+S)").clicked() {
                intent = Some(Asked::Tabs(SavedIntent::SaveActive));
            }
        });
        let label = ui.label("Filter saved");
        ui.add(egui::TextEdit::singleline(&mut self.filter).hint_text("name or text")).labelled_by(label.id);
        if let Some(said) = &self.said {
            match said {
                Ok(text) => ui.weak(text),
                Err(why) => ui.colored_label(ui.visuals().error_fg_color, why),
            };
        }
        if self.list.is_empty() {
            ui.weak("Operations you save (Ctrl+S) appear here, in collections.");
        }
        let needle = self.filter.to_lowercase();
        // The list is borrowed apart from the panel while it is drawn (no copy of it per frame).
        let list = std::mem::take(&mut self.list);
        let shown: Vec<&SavedOperation> = list
            .iter()
            .filter(|op| {
                needle.is_empty()
                    || op.name.to_lowercase().contains(&needle)
                    || op.collection.to_lowercase().contains(&needle)
                    || op.query.to_lowercase().contains(&needle)
            })
            .collect();
        let mut collections: Vec<&str> = shown.iter().map(|op| op.collection.as_str()).collect();
        collections.dedup();
        egui::ScrollArea::vertical().id_salt("saved-list").max_height(ui.available_height() - 70.0).show(ui, |ui| {
            for collection in collections {
                let members = shown.iter().copied().filter(|op| op.collection == collection);
                if collection.is_empty() {
                    for operation in members {
                        self.row_ui(ui, operation, schema, connection, &mut intent);
                    }
                } else {
                    egui::CollapsingHeader::new(collection)
                        .id_salt(("collection", collection))
                        .default_open(true)
                        .show(ui, |ui| {
                            for operation in members {
                                self.row_ui(ui, operation, schema, connection, &mut intent);
                            }
                        });
                }
            }
        });
        self.list = list;
        ui.separator();
        ui.horizontal(|ui| {
            let label = ui.label("Folder");
            ui.add(egui::TextEdit::singleline(&mut self.folder).hint_text("~/operations").desired_width(120.0))
                .labelled_by(label.id);
            let folder = expand_home(self.folder.trim());
            let ready = !self.folder.trim().is_empty();
            if ui
                .add_enabled(ready, egui::Button::new("Import"))
                .on_hover_text("Read every .graphql file under the folder")
                .clicked()
            {
                intent = Some(Asked::Change(OperationChange::Import(folder.clone())));
            }
            if ui
                .add_enabled(ready && !self.list.is_empty(), egui::Button::new("Export"))
                .on_hover_text("Write each operation as a .graphql file under the folder, by collection")
                .clicked()
            {
                intent = Some(Asked::Change(OperationChange::Export(folder)));
            }
        });
        intent
    }

    fn row_ui(
        &mut self,
        ui: &mut egui::Ui,
        operation: &SavedOperation,
        schema: Option<&Arc<SchemaModel>>,
        connection: &str,
        intent: &mut Option<Asked>,
    ) {
        if let Some((id, collection, name)) = self.renaming.as_mut().filter(|(id, ..)| *id == operation.id) {
            let id = *id;
            let mut done = None;
            ui.horizontal(|ui| {
                let label = ui.label("New name");
                let field = ui.add(egui::TextEdit::singleline(name).desired_width(110.0)).labelled_by(label.id);
                if std::mem::take(&mut self.focus_rename) {
                    field.request_focus();
                }
                let label = ui.label("In collection");
                ui.add(egui::TextEdit::singleline(collection).desired_width(80.0)).labelled_by(label.id);
                if ui.button("Rename").clicked()
                    || (field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)))
                {
                    done = Some(true);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    done = Some(false);
                }
            });
            match done {
                Some(true) => {
                    let (_, collection, name) = self.renaming.take().unwrap_or_default();
                    *intent = Some(Asked::Change(OperationChange::Rename { id, collection, name }));
                }
                Some(false) => self.renaming = None,
                None => {}
            }
            return;
        }
        let mark = self.mark(operation, schema);
        let mut text = egui::RichText::new(&operation.name);
        let note = match mark {
            Mark::Fine => None,
            Mark::Deprecated => Some(format!("uses deprecated fields of {connection}")),
            Mark::Invalid => Some(format!("does not validate against {connection}'s schema")),
        };
        if mark == Mark::Invalid {
            text = text.color(ui.visuals().error_fg_color);
        } else if mark == Mark::Deprecated {
            text = text.color(ui.visuals().warn_fg_color);
        }
        let response = ui.horizontal(|ui| {
            let response = ui.add(egui::Button::new(text).frame(false).truncate());
            if let Some(note) = &note {
                ui.weak(if mark == Mark::Invalid { "invalid" } else { "deprecated" }).on_hover_text(note);
            }
            response
        });
        let hover = match &note {
            Some(note) => format!("{} · {note}\n\n{}", operation.path(), operation.query),
            None => format!("{}\n\n{}", operation.path(), operation.query),
        };
        let response = response.inner.on_hover_text(hover);
        if response.clicked() {
            *intent = Some(Asked::Tabs(SavedIntent::Open(operation.clone())));
        }
        response.context_menu(|ui| {
            if ui.button("Open").clicked() {
                *intent = Some(Asked::Tabs(SavedIntent::Open(operation.clone())));
            }
            if ui.button("Rename…").clicked() {
                self.renaming = Some((operation.id, operation.collection.clone(), operation.name.clone()));
                self.focus_rename = true;
            }
            if ui.button("Schedule…").clicked() {
                *intent = Some(Asked::Tabs(SavedIntent::Schedule(operation.clone())));
            }
            if ui.button("Duplicate").clicked() {
                *intent = Some(Asked::Change(OperationChange::Duplicate(operation.id)));
            }
            if ui.button("Delete").clicked() {
                *intent = Some(Asked::Change(OperationChange::Delete(operation.id)));
            }
        });
    }

    /// The "Save operation" window, while open: saves `tab` under the name chosen.
    pub fn window_ui(&mut self, ctx: &egui::Context, tab: &Tab, commands: &mut Commands) {
        if let Some((collection, name)) = self.form_ui(ctx) {
            self.send_save(tab, collection, name, commands);
        }
    }

    fn form_ui(&mut self, ctx: &egui::Context) -> Option<(String, String)> {
        let dialog = crate::ui::widgets::a11y::Dialog::new("save-operation");
        let Some(form) = self.form.as_mut() else {
            // Closed: the focus goes back to what opened it (the Saved list's button, the editor).
            dialog.after(ctx, false);
            return None;
        };
        let mut chosen = None;
        let mut close = false;
        let collections: Vec<String> = {
            let mut all: Vec<String> = self.list.iter().map(|op| op.collection.clone()).collect();
            all.dedup();
            all.retain(|c| !c.is_empty());
            all
        };
        let taken = self.list.iter().any(|op| op.name == form.name.trim() && op.collection == form.collection.trim());
        egui::Window::new("Save operation").title_bar(false).resizable(false).show(ctx, |ui| {
            close |= dialog.titled_contents(ui, "Save operation");
            egui::Grid::new("save-form").num_columns(2).show(ui, |ui| {
                let label = ui.label("Name");
                ui.add(egui::TextEdit::singleline(&mut form.name)).labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Collection");
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut form.collection).hint_text("none (top level)"))
                        .labelled_by(label.id);
                    if !collections.is_empty() {
                        egui::ComboBox::from_id_salt("save-collections").selected_text("Choose").show_ui(ui, |ui| {
                            for collection in &collections {
                                crate::ui::widgets::a11y::choose(
                                    ui,
                                    &mut form.collection,
                                    collection.clone(),
                                    collection,
                                );
                            }
                        });
                    }
                });
                ui.end_row();
            });
            if taken {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "An operation of this name is in this collection: Save replaces it.",
                );
            }
            ui.horizontal(|ui| {
                let label = if taken { "Replace" } else { "Save" };
                if ui.add_enabled(!form.name.trim().is_empty(), egui::Button::new(label)).clicked() {
                    chosen = Some((form.collection.trim().to_owned(), form.name.trim().to_owned()));
                }
                if ui.button("Cancel").clicked() {
                    close = true;
                }
            });
        });
        if chosen.is_some() || close {
            self.form = None;
        }
        chosen
    }
}

/// `~/x` as the home folder's `x`.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The name of the document's first named operation, to propose as the saved name.
pub fn first_operation_name(text: &str) -> Option<String> {
    crate::query::operations(text).into_iter().find_map(|operation| operation.name)
}
