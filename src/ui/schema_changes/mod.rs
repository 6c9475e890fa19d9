//! The "Schema changes" window (issue 30): two kept schema versions of the chosen connection
//! compared (From and To; by default its last two), the changes by kind (breaking, dangerous,
//! safe, deprecated, with the reason and the alternative a deprecation names; each linked to
//! the explorer: what it is about, or the type that held what was removed), and what uses
//! what changed, with the line: saved operations, the history's runs and recorded exports. A
//! saved operation whose deprecated uses name a type-compatible alternative gets **Fix**: the
//! rewrite shown as a diff, applied to the saved operation on confirm, undoable.
//!
//! The worker reads the versions and writes the fix ([`crate::worker::SchemaCommand::Changes`],
//! [`crate::worker::SchemaCommand::Fix`]); the window only draws what came back.

pub mod notice;

use crate::explorer::SchemaModel;
use crate::schema_diff::{Change, Element, Level};
use crate::ui::commands::Commands;
use crate::worker::{Affected, Connection, FixDone, Rewrite, SchemaChanges, SchemaCommand, SchemaEvent, Source};

/// The window and what it shows.
#[derive(Default)]
pub struct SchemaChangesWindow {
    /// Whether the window is open.
    pub open: bool,
    /// The connection asked about (`None`: it could not be chosen, `answer` says why).
    connection: Option<Connection>,
    /// What came back (the previous answer stays while it is read again).
    answer: Option<Result<SchemaChanges, String>>,
    /// Whether an answer is awaited.
    reading: bool,
    /// The versions last chosen (from, to; `None`: the default).
    chosen: (Option<i64>, Option<i64>),
    /// The fix whose diff is shown, awaiting confirmation.
    confirming: Option<Rewrite>,
    /// Whether a fix (or its undo) is being written.
    writing: bool,
    /// The last fix applied, to undo.
    undo: Option<Rewrite>,
    /// What came of the last fix, or why it failed.
    note: Option<Result<String, String>>,
}

/// Where a change is in the explorer: a type, or a field of it (for an argument, its field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorerTarget {
    /// The type.
    pub type_name: String,
    /// Its field, when the target is one.
    pub field: Option<String>,
}

impl ExplorerTarget {
    /// `User.name` or `User`: the link's text.
    pub fn label(&self) -> String {
        match &self.field {
            Some(field) => format!("{}.{field}", self.type_name),
            None => self.type_name.clone(),
        }
    }

    /// Where `change` is in `model`, the schema the explorer shows: the element itself when
    /// the model has it, else the type that held it (what was removed), else nothing.
    pub fn of(change: &Change, model: &SchemaModel) -> Option<Self> {
        let site = &change.site;
        let parent = site.parent.as_deref();
        let field = match site.element {
            Element::Field | Element::InputField => Some(site.member.as_str()),
            Element::Argument => site.field.as_deref(),
            Element::EnumValue | Element::Type | Element::Root | Element::Directive => None,
        };
        let type_name = match site.element {
            Element::Type | Element::Root => site.member.as_str(),
            Element::Directive => return None,
            _ => parent?,
        };
        model.type_info(type_name)?;
        let field = field.filter(|field| {
            model.field(type_name, field).is_some() || model.input_fields(type_name).iter().any(|f| f.name == *field)
        });
        Some(ExplorerTarget { type_name: type_name.to_owned(), field: field.map(str::to_owned) })
    }
}

/// What the window asks for, after drawing.
enum Intent {
    Reveal(ExplorerTarget),
    Compare(Option<i64>, Option<i64>),
    Confirm(Rewrite),
    Apply,
    Cancel,
    Undo,
}

impl SchemaChangesWindow {
    /// Opens the window on `connection`'s last two versions (asked of the worker).
    pub fn show(&mut self, connection: Result<Connection, String>, commands: &mut Commands) {
        self.open = true;
        self.confirming = None;
        match connection {
            Ok(connection) => {
                if self.connection.as_ref() != Some(&connection) {
                    self.answer = None;
                    self.undo = None;
                    self.note = None;
                }
                self.connection = Some(connection);
                self.ask(None, None, commands);
            }
            Err(why) => {
                self.connection = None;
                self.answer = Some(Err(why));
            }
        }
    }

    fn ask(&mut self, from: Option<i64>, to: Option<i64>, commands: &mut Commands) {
        self.chosen = (from, to);
        if let Some(connection) = &self.connection {
            self.reading = true;
            commands.send(SchemaCommand::Changes { connection: connection.clone(), from, to });
        }
    }

    fn name(&self) -> &str {
        self.connection.as_ref().map_or("", Connection::name)
    }

    /// Takes the worker's answer for the connection shown; a fix applied or undone is returned
    /// (an open tab of that operation follows it).
    pub fn on_event(&mut self, event: SchemaEvent, commands: &mut Commands) -> Option<FixDone> {
        match event {
            SchemaEvent::Changes { connection, result } if connection == self.name() => {
                self.reading = false;
                self.answer = Some(result);
                None
            }
            SchemaEvent::Fixed { connection, result } if connection == self.name() => {
                self.writing = false;
                match &result {
                    Ok(done) if done.undone => {
                        self.undo = None;
                        self.note = Some(Ok(format!("{} is as it was before the fix", done.rewrite.path)));
                    }
                    Ok(done) => {
                        self.undo = Some(done.rewrite.clone());
                        let made = done.rewrite.made.len();
                        let uses = if made == 1 { "1 use".to_owned() } else { format!("{made} uses") };
                        self.note = Some(Ok(format!("Fixed {}: {uses} rewritten", done.rewrite.path)));
                    }
                    Err(why) => self.note = Some(Err(why.clone())),
                }
                let compared = self.compared();
                self.ask(compared.0, compared.1, commands);
                result.ok()
            }
            _ => None,
        }
    }

    /// The versions compared now, else those last chosen (from, to).
    fn compared(&self) -> (Option<i64>, Option<i64>) {
        match &self.answer {
            Some(Ok(SchemaChanges { compared: Some((from, to)), .. })) => (Some(*from), Some(*to)),
            _ => self.chosen,
        }
    }

    /// The connection the window shows (its name).
    pub fn connection_name(&self) -> &str {
        self.name()
    }

    /// Draws the window when open; `model` is the schema the explorer shows when it is the
    /// window's connection's (its changes then link to it). Returns the element whose link was
    /// clicked, for the explorer to show.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        model: Option<&SchemaModel>,
        commands: &mut Commands,
    ) -> Option<ExplorerTarget> {
        if !self.open {
            return None;
        }
        let mut open = true;
        let mut intent = None;
        let dialog = crate::ui::widgets::a11y::Dialog::new("schema-changes");
        let mut escaped = false;
        egui::Window::new("Schema changes")
            .title_bar(false)
            // Beside the explorer its changes link to, below the toolbar and the notice.
            .default_pos(egui::pos2(380.0, 100.0))
            .default_width(620.0)
            .default_height(600.0)
            .vscroll(true)
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, "Schema changes");
                intent = self.content_ui(ui, model);
            });
        open &= !escaped;
        self.open = open;
        dialog.after(ctx, open);
        match intent {
            Some(Intent::Reveal(target)) => return Some(target),
            Some(Intent::Compare(from, to)) => self.ask(from, to, commands),
            Some(Intent::Confirm(rewrite)) => self.confirming = Some(rewrite),
            Some(Intent::Cancel) => self.confirming = None,
            Some(Intent::Apply) => {
                if let Some(rewrite) = self.confirming.take() {
                    self.writing = true;
                    let connection = self.name().to_owned();
                    commands.send(SchemaCommand::Fix { connection, rewrite, undo: false });
                }
            }
            Some(Intent::Undo) => {
                if let Some(rewrite) = self.undo.clone() {
                    self.writing = true;
                    let connection = self.name().to_owned();
                    commands.send(SchemaCommand::Fix { connection, rewrite, undo: true });
                }
            }
            None => {}
        }
        None
    }

    fn content_ui(&self, ui: &mut egui::Ui, model: Option<&SchemaModel>) -> Option<Intent> {
        let Self { answer, reading, confirming, writing, undo, note, .. } = self;
        let name = self.name();
        let changes = match answer {
            None => {
                ui.spinner();
                return None;
            }
            Some(Err(why)) => {
                ui.colored_label(ui.visuals().error_fg_color, why.as_str());
                return None;
            }
            Some(Ok(changes)) => changes,
        };
        let mut intent = None;
        let Some((from, to)) = changes.compared else {
            match changes.versions.as_slice() {
                [] => ui.label(format!("No schema of {name} is kept yet; it is kept when it is fetched.")),
                [only] => ui.label(format!(
                    "{name}: one version, fetched {} (the baseline); no changes since.",
                    day(&only.first_seen)
                )),
                _ => ui.label(format!("{name}: choose two different versions to compare.")),
            };
            if changes.versions.len() > 1 {
                let (from, to) = self.chosen;
                intent = versions_ui(ui, changes, from, to);
            }
            return intent;
        };
        ui.horizontal(|ui| {
            ui.label(format!("{name}: {} versions kept.", changes.versions.len()));
            if *reading {
                ui.spinner();
            }
        });
        intent = versions_ui(ui, changes, Some(from), Some(to)).or(intent);
        ui.label(crate::schema_diff::Summary::of(&changes.changes).phrase());
        for level in [Level::Breaking, Level::Dangerous, Level::Safe, Level::Deprecated] {
            let of_level: Vec<_> = changes.changes.iter().filter(|c| c.level == level).collect();
            ui.separator();
            ui.strong(format!("{} ({})", capitalized(level.name()), of_level.len()));
            if of_level.is_empty() {
                ui.label(format!("No {} change.", level.name()));
            }
            for change in of_level {
                let line = match &change.alternative {
                    Some(alternative) => format!("{change} — use {alternative}"),
                    None => change.to_string(),
                };
                ui.horizontal_wrapped(|ui| {
                    if let Some(target) = model.and_then(|model| ExplorerTarget::of(change, model))
                        && ui.link(target.label()).on_hover_text("Show it in the explorer").clicked()
                    {
                        intent = Some(Intent::Reveal(target));
                    }
                    ui.label(line);
                });
            }
        }
        ui.separator();
        if let Some(note) = note {
            ui.horizontal(|ui| {
                match note {
                    Ok(said) => ui.label(said.as_str()),
                    Err(why) => ui.colored_label(ui.visuals().error_fg_color, why.as_str()),
                };
                if undo.is_some() && !*writing && ui.button("Undo").clicked() {
                    intent = Some(Intent::Undo);
                }
            });
        }
        if *writing {
            ui.spinner();
        }
        let fixable = !*writing && confirming.is_none();
        intent = uses_ui(ui, "Saved operations", &changes.saved, fixable, confirming.as_ref()).or(intent);
        intent = uses_ui(ui, "History entries", &changes.history, false, None).or(intent);
        intent = uses_ui(ui, "Exports", &changes.exports, false, None).or(intent);
        intent
    }
}

/// The From and To choosers; a new choice asks for that comparison.
fn versions_ui(ui: &mut egui::Ui, changes: &SchemaChanges, from: Option<i64>, to: Option<i64>) -> Option<Intent> {
    let label_of = |id: Option<i64>| {
        changes
            .versions
            .iter()
            .enumerate()
            .find(|(_, v)| Some(v.id) == id)
            .map_or_else(|| "(choose)".to_owned(), |(i, v)| version_label(i, &v.first_seen))
    };
    let (mut new_from, mut new_to) = (from, to);
    ui.horizontal(|ui| {
        for (title, chosen) in [("From", &mut new_from), ("To", &mut new_to)] {
            let label = ui.label(title);
            let response = egui::ComboBox::from_id_salt(("schema-version", title))
                .selected_text(label_of(*chosen))
                .show_ui(ui, |ui| {
                    for (i, version) in changes.versions.iter().enumerate() {
                        crate::ui::widgets::a11y::choose(
                            ui,
                            chosen,
                            Some(version.id),
                            version_label(i, &version.first_seen),
                        );
                    }
                })
                .response
                .labelled_by(label.id);
            crate::ui::widgets::a11y::say_combo_value(ui, &response);
        }
    });
    ((new_from, new_to) != (from, to)).then_some(Intent::Compare(new_from, new_to))
}

/// `#2 — 2026-11-12 10:04` (`#1` is the baseline).
fn version_label(index: usize, at: &chrono::DateTime<chrono::Utc>) -> String {
    let baseline = if index == 0 { " (baseline)" } else { "" };
    format!("#{} — {}{baseline}", index + 1, day(at))
}

/// One kind of document that uses what changed: each with its findings and, for a saved
/// operation, its Fix (the diff and the confirmation when it is the one `confirming`).
fn uses_ui(
    ui: &mut egui::Ui,
    what: &str,
    affected: &[Affected],
    fixable: bool,
    confirming: Option<&Rewrite>,
) -> Option<Intent> {
    if affected.is_empty() {
        ui.label(format!("{what}: none uses what changed."));
        return None;
    }
    let mut intent = None;
    ui.separator();
    ui.strong(format!("{what} affected ({})", affected.len()));
    for entry in affected {
        ui.horizontal(|ui| {
            let runs = match entry.source {
                Source::History { runs, .. } if runs > 1 => format!(" ({runs} runs)"),
                _ => String::new(),
            };
            ui.label(format!("{}{runs}", entry.label));
            if let Some(fix) = &entry.fix
                && fixable
                && ui.button(format!("Fix {}", fix.path)).on_hover_text("Rewrite the deprecated uses").clicked()
            {
                intent = Some(Intent::Confirm(fix.clone()));
            }
        });
        ui.indent(("findings", what, &entry.label), |ui| {
            for finding in &entry.findings {
                ui.label(finding.as_str());
            }
        });
        if let (Some(shown), Some(fix)) = (confirming, &entry.fix)
            && shown.operation == fix.operation
        {
            intent = diff_ui(ui, shown).or(intent);
        }
    }
    intent
}

/// The rewrite as old → new lines, with Apply fix and Cancel.
fn diff_ui(ui: &mut egui::Ui, rewrite: &Rewrite) -> Option<Intent> {
    let mut intent = None;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(format!("The fix of {}:", rewrite.path));
        let removed = ui.visuals().error_fg_color;
        let added = egui::Color32::from_rgb(0x2e, 0xa0, 0x43);
        for (line, old, new) in rewrite.diff() {
            ui.label(egui::RichText::new(format!("{line:>4} - {old}")).monospace().color(removed));
            ui.label(egui::RichText::new(format!("{line:>4} + {new}")).monospace().color(added));
        }
        ui.horizontal(|ui| {
            if ui.button("Apply fix").clicked() {
                intent = Some(Intent::Apply);
            }
            if ui.button("Cancel").clicked() {
                intent = Some(Intent::Cancel);
            }
        });
    });
    intent
}

fn day(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M").to_string()
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
