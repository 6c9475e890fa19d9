//! The schema explorer: the connection's root fields as a tree whose checkboxes and argument
//! inputs edit the query in the editor (the document stays the one source of truth: the ticks
//! are read back from it every time it changes), search over every name, and the docs of the
//! field in focus.

mod arguments;
mod docs;
mod search;
mod tree;

use std::collections::{HashMap, HashSet};

use docs::Focus;

use crate::explorer::SchemaModel;
use crate::query::OperationKind;
use crate::query::lang::{SelectionState, TextEdit, selected_paths};
use crate::ui::widgets::requested::Requested;
use crate::worker::LoadedSchema;

/// What the explorer asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ExplorerIntent {
    /// Apply this edit to the active tab's query.
    Edit(TextEdit),
    /// Load the connection's schema (`refresh`: from the service even when cached).
    Load {
        /// Fetch it again.
        refresh: bool,
    },
}

/// Where the schema is: the one request-state enum, so that a refresh keeps the tree (and the
/// editor's checks) of the schema loaded before until the new one is in, and a failure shows
/// beside it.
pub type SchemaState = Requested<LoadedSchema, String>;

/// The explorer panel: it draws the schema the app holds for the chosen connection (the app
/// asks for it; the panel only says when the user wants it fetched again).
#[derive(Default)]
pub struct ExplorerPanel {
    /// Whose schema was drawn last (another connection's clears what was opened).
    connection: String,
    /// The model drawn last (another one, a refresh, renews the search's index).
    drawn: Option<std::sync::Arc<SchemaModel>>,
    kind: Kind,
    /// Expanded nodes, as `kind/path/of/fields`.
    open: HashSet<String>,
    /// The ticks, read from `ticks_of`.
    ticks: SelectionState,
    ticks_of: Option<String>,
    /// The argument values written on selected fields, by node (read once per text).
    values: HashMap<String, Vec<(String, String)>>,
    search: search::Search,
    focus: Option<Focus>,
    /// Scroll the tree to the focused field once.
    reveal: bool,
    arguments: arguments::ArgumentInputs,
    problem: Option<String>,
    /// What the last tick did to the document's operations, when it added or named one.
    note: Option<String>,
}

/// The tree shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Kind {
    #[default]
    Query,
    Mutation,
}

impl Kind {
    fn operation(self) -> OperationKind {
        match self {
            Kind::Query => OperationKind::Query,
            Kind::Mutation => OperationKind::Mutation,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Kind::Query => "query",
            Kind::Mutation => "mutation",
        }
    }
}

impl ExplorerPanel {
    /// Follows the schema shown: another connection's starts a fresh tree, another model of
    /// the same connection (a refresh) a fresh search index.
    fn follow(&mut self, connection: &str, schema: &SchemaState) {
        if self.connection != connection {
            self.open.clear();
            self.focus = None;
            self.search = Default::default();
            self.connection = connection.to_owned();
        }
        let model = schema.value().map(|loaded| &loaded.model);
        if !matches!((model, &self.drawn), (Some(now), Some(before)) if std::sync::Arc::ptr_eq(now, before)) {
            self.search.invalidate();
            self.drawn = model.cloned();
        }
    }

    /// Draws the explorer of `schema` (the schema of the connection named `connection`) for
    /// the query `text`; returns what it asks for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        text: &str,
        schema: &SchemaState,
        connection: &str,
    ) -> Option<ExplorerIntent> {
        self.follow(connection, schema);
        let mut intent = None;
        if self.ticks_of.as_deref() != Some(text) {
            self.ticks = selected_paths(text, None);
            self.ticks_of = Some(text.to_owned());
            self.values.clear();
        }
        ui.horizontal(|ui| {
            ui.heading("Explorer");
            if let Some(loaded) = schema.value() {
                let when = loaded.fetched_at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M");
                let source = if loaded.cached { "cached" } else { "fetched" };
                ui.weak(format!("{source} {when}")).on_hover_text(format!(
                    "{} types, {} fields",
                    loaded.model.type_count(),
                    loaded.model.field_count()
                ));
            }
            let loading = schema.is_pending();
            if loading {
                ui.spinner();
            }
            if ui.add_enabled(!loading, egui::Button::new("Refresh schema").small()).clicked() {
                intent = Some(ExplorerIntent::Load { refresh: true });
            }
        });
        if let Some(LoadedSchema { skipped: Some(skipped), .. }) = schema.value() {
            // One line; the whole list shows on hover when it is cut.
            ui.add(egui::Label::new(egui::RichText::new(skipped).color(ui.visuals().warn_fg_color)).truncate());
        }
        if let Some(why) = schema.error() {
            ui.colored_label(ui.visuals().error_fg_color, why);
            if !why.contains("introspection") {
                ui.label("Check the connection (Profiles… → Test connection), then press Refresh schema.");
            }
        }
        let model = match schema.value() {
            Some(loaded) => loaded.model.clone(),
            None if schema.error().is_some() => return intent,
            None => {
                ui.weak(format!("Loading the schema of {}…", self.connection));
                return intent;
            }
        };
        if let Some(hit) = self.search.ui(ui, &model) {
            self.reveal_hit(&model, hit);
        }
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.kind, Kind::Query, egui::RichText::new("query").monospace());
            if model.mutation_type().is_some() {
                ui.selectable_value(&mut self.kind, Kind::Mutation, egui::RichText::new("mutation").monospace());
            }
        });
        if let Some(problem) = &self.problem {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
        if let Some(note) = &self.note {
            ui.label(note);
        }
        let docs_height = if self.focus.is_some() { (ui.available_height() * 0.35).max(120.0) } else { 0.0 };
        let tree_height = ui.available_height() - docs_height;
        egui::ScrollArea::both().id_salt("explorer-tree").max_height(tree_height).auto_shrink([false, false]).show(
            ui,
            |ui| {
                if let Some(edit) = self.tree_ui(ui, &model, text) {
                    intent = Some(ExplorerIntent::Edit(edit));
                }
            },
        );
        if let Some(focus) = &self.focus {
            ui.separator();
            egui::ScrollArea::vertical().id_salt("explorer-docs").show(ui, |ui| docs::ui(ui, &model, focus));
        }
        intent
    }

    fn tree_ui(&mut self, ui: &mut egui::Ui, model: &SchemaModel, text: &str) -> Option<TextEdit> {
        let root = match self.kind {
            Kind::Query => model.query_type(),
            Kind::Mutation => model.mutation_type(),
        }?
        .to_owned();
        let mut view = tree::TreeView {
            model,
            kind: self.kind.operation(),
            key: self.kind.key(),
            ticks: &self.ticks,
            open: &mut self.open,
            focus: &mut self.focus,
            reveal: &mut self.reveal,
            arguments: &mut self.arguments,
            values: &mut self.values,
            text,
            action: None,
        };
        view.type_ui(ui, &root, &mut Vec::new());
        let action = view.action.take()?;
        match action.into_edit(model, text, self.kind.operation()) {
            Ok(edit) => {
                self.problem = None;
                self.note = edit.as_ref().and_then(|e| crate::query::describe_operation_changes(text, &e.apply(text)));
                edit
            }
            Err(problem) => {
                self.problem = Some(problem);
                None
            }
        }
    }

    /// Ticks (`on`) or unticks the field at `path` of the query tree in `text`, as a click on
    /// its checkbox does, with the tree opened down to it; returns whether the text changed (for
    /// benchmarks and scripts).
    pub fn toggle(&mut self, model: &SchemaModel, text: &mut String, path: &[String], on: bool) -> bool {
        let Some(root) = model.query_type() else { return false };
        let mut type_name = root.to_owned();
        let mut object = None;
        for (depth, name) in path.iter().enumerate() {
            let Some(field) = model.field(&type_name, name) else { return false };
            self.open.insert(tree::node_key(Kind::Query.key(), &path[..=depth]));
            object = (!field.is_leaf()).then(|| field.named_type.to_owned());
            type_name = field.named_type.to_owned();
        }
        let action = tree::Action::Toggle { path: path.to_vec(), on, object };
        match action.into_edit(model, text, OperationKind::Query) {
            Ok(Some(edit)) => {
                edit.apply_in_place(text);
                true
            }
            _ => false,
        }
    }

    /// Opens the tree down to the type `type_name` (or its `field`) and focuses it, as a search
    /// hit chosen would; `false` when the schema has no such type or field.
    pub fn reveal(&mut self, model: &SchemaModel, type_name: &str, field: Option<&str>) -> bool {
        let needle = match field {
            Some(field) => format!("{type_name}.{field}"),
            None => type_name.to_owned(),
        };
        let hit = model
            .search(&needle, 64)
            .into_iter()
            .find(|hit| hit.type_name == type_name && hit.field.as_deref() == field);
        let found = hit.is_some();
        if let Some(hit) = hit {
            self.reveal_hit(model, hit);
        }
        found
    }

    /// Opens the tree down to a search hit and focuses it.
    fn reveal_hit(&mut self, model: &SchemaModel, hit: crate::explorer::SearchHit) {
        if let Some(path) = &hit.path {
            let kind = if Some(path[0].as_str()) == model.mutation_type() { Kind::Mutation } else { Kind::Query };
            self.kind = kind;
            // Open every field on the way, not the hit itself (unless it is a type's way in).
            let fields = &path[1..];
            let last = if hit.field.is_some() { fields.len().saturating_sub(1) } else { fields.len() };
            for depth in 1..=last {
                self.open.insert(tree::node_key(kind.key(), &fields[..depth]));
            }
        }
        self.focus = Some(match hit.field {
            Some(field) => Focus::Field(hit.type_name, field),
            None => Focus::Type(hit.type_name),
        });
        self.reveal = true;
    }
}
