//! The "Schema changes" window (issue 30): what changed between the chosen connection's last two
//! kept schema versions, by kind (breaking, dangerous, safe, deprecated, with the reason and the
//! alternative a deprecation names), and the saved operations the current schema finds
//! something in, with their line. The worker reads the versions from the store
//! ([`crate::worker::SchemaCommand::Changes`]); the window only draws what came back.

use crate::schema_diff::Level;
use crate::ui::commands::Commands;
use crate::worker::{Connection, SchemaChanges, SchemaCommand, SchemaEvent};

/// The window and what it shows.
#[derive(Default)]
pub struct SchemaChangesWindow {
    /// Whether the window is open.
    pub open: bool,
    /// The connection asked about and what came back (`None` while it is read).
    shown: Option<(String, Option<Result<SchemaChanges, String>>)>,
}

impl SchemaChangesWindow {
    /// Opens the window on `connection`'s changes (asked of the worker).
    pub fn show(&mut self, connection: Result<Connection, String>, commands: &mut Commands) {
        self.open = true;
        match connection {
            Ok(connection) => {
                self.shown = Some((connection.name().to_owned(), None));
                commands.send(SchemaCommand::Changes { connection });
            }
            Err(why) => self.shown = Some((String::new(), Some(Err(why)))),
        }
    }

    /// Takes the worker's answer for the connection shown.
    pub fn on_event(&mut self, event: SchemaEvent) {
        if let SchemaEvent::Changes { connection, result } = event
            && let Some((shown, answer)) = &mut self.shown
            && *shown == connection
        {
            *answer = Some(result);
        }
    }

    /// Draws the window when open.
    pub fn ui(&mut self, ctx: &egui::Context) {
        let Self { open, shown } = self;
        if !*open {
            return;
        }
        egui::Window::new("Schema changes").open(open).default_width(560.0).vscroll(true).show(ctx, |ui| match shown {
            None | Some((_, None)) => {
                ui.spinner();
            }
            Some((_, Some(Err(why)))) => {
                ui.colored_label(ui.visuals().error_fg_color, why.as_str());
            }
            Some((name, Some(Ok(changes)))) => changes_ui(ui, name, changes),
        });
    }
}

fn changes_ui(ui: &mut egui::Ui, name: &str, changes: &SchemaChanges) {
    let day =
        |at: &chrono::DateTime<chrono::Utc>| at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M").to_string();
    match changes.versions.as_slice() {
        [] => {
            ui.label(format!("No schema of {name} is kept yet; it is kept when it is fetched."));
            return;
        }
        [only] => {
            ui.label(format!("{name}: one version, fetched {} (the baseline); no changes since.", day(only)));
            return;
        }
        [.., before, current] => {
            ui.label(format!(
                "{name}: {} versions kept; the current one, first fetched {}, compared with the one of {}.",
                changes.versions.len(),
                day(current),
                day(before)
            ));
        }
    }
    ui.label(crate::schema_diff::Summary::of(&changes.changes).phrase());
    for level in [Level::Breaking, Level::Dangerous, Level::Safe, Level::Deprecated] {
        let of_level: Vec<_> = changes.changes.iter().filter(|c| c.level == level).collect();
        if of_level.is_empty() {
            continue;
        }
        ui.separator();
        ui.strong(format!("{} ({})", capitalized(level.name()), of_level.len()));
        for change in of_level {
            let line = match &change.alternative {
                Some(alternative) => format!("{change} — use {alternative}"),
                None => change.to_string(),
            };
            ui.label(line);
        }
    }
    ui.separator();
    if changes.affected.is_empty() {
        ui.label("No saved operation is affected.");
    } else {
        ui.strong(format!("Saved operations affected ({})", changes.affected.len()));
        for line in &changes.affected {
            ui.label(line.as_str());
        }
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
