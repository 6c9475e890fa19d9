//! "Copy as code": a menu of languages; the chosen program is copied to the clipboard and shown
//! in a window (to read, or to select a part of).

use crate::codegen::{Language, Operation, SECRET_ENV, Target, generate};
use crate::worker::Connection;

/// The menu and the window of the program copied last.
#[derive(Default)]
pub struct CopyCode {
    /// The language and the program (or why none could be written), while the window is open.
    shown: Option<(Language, Result<String, String>)>,
}

impl CopyCode {
    /// The "Copy as code" menu; returns the language chosen.
    pub fn menu_ui(&mut self, ui: &mut egui::Ui) -> Option<Language> {
        let mut chosen = None;
        ui.menu_button("Copy as code", |ui| {
            for language in Language::ALL {
                let button = ui.button(language.label()).on_hover_text(format!(
                    "The active tab's operation as a {} program, with the token request (the secret from \
                     {SECRET_ENV}) and, for a connection, the loop over every page",
                    language.label()
                ));
                if button.clicked() {
                    chosen = Some(language);
                    ui.close();
                }
            }
        });
        chosen
    }

    /// Copies `program` to the clipboard (when it was written) and shows it.
    pub fn show(&mut self, ctx: &egui::Context, language: Language, program: Result<String, String>) {
        if let Ok(text) = &program {
            ctx.copy_text(text.clone());
        }
        self.shown = Some((language, program));
    }

    /// The program shown (for tests).
    pub fn shown(&self) -> Option<&Result<String, String>> {
        self.shown.as_ref().map(|(_, program)| program)
    }

    /// The window with the program.
    pub fn window_ui(&mut self, ctx: &egui::Context) {
        let Some((language, program)) = &self.shown else { return };
        let mut open = true;
        let dialog = crate::ui::widgets::a11y::Dialog::new("copy-as-code");
        let mut escaped = false;
        let title = format!("{} code", language.label());
        egui::Window::new(title.as_str())
            .id(egui::Id::unique("copy-as-code"))
            .title_bar(false)
            .default_size([640.0, 480.0])
            .vscroll(true)
            .show(ctx, |ui| {
                escaped |= dialog.titled_contents(ui, &title);
                match program {
                Ok(text) => {
                    ui.label(format!(
                        "Copied to the clipboard. It reads the client secret from {SECRET_ENV}; nothing secret is in it."
                    ));
                    ui.separator();
                    let mut shown = text.as_str();
                    let label = ui.label("Program");
                    ui.add(egui::TextEdit::multiline(&mut shown).code_editor().desired_width(f32::INFINITY))
                        .labelled_by(label.id);
                }
                Err(why) => {
                    crate::ui::widgets::a11y::alert(ui, why);
                }
                }
            });
        open &= !escaped;
        dialog.after(ctx, open);
        if !open {
            self.shown = None;
        }
    }
}

/// The program for `query` (with its `variables` as typed) on `connection`, paged as `schema`
/// says; `sandbox_url` is where the in-process sandbox listens.
///
/// # Errors
///
/// One sentence: the variables do not read, or the sandbox's address is not known yet.
pub fn program(
    language: Language,
    connection: &Connection,
    sandbox_url: Option<&str>,
    query: &str,
    operation_name: Option<&str>,
    variables: &str,
    schema: Option<&apollo_compiler::Schema>,
) -> Result<String, String> {
    let target = match connection {
        Connection::Sandbox => Target {
            base_url: sandbox_url
                .ok_or("the sandbox has not started yet; wait a moment and copy again")?
                .trim_end_matches('/')
                .to_owned(),
            client_id: crate::sandbox::ADMIN_CLIENT.to_owned(),
            scopes: crate::scopes::ScopeSet::all().to_string(),
        },
        Connection::Remote { credentials, .. } => Target {
            base_url: credentials.base_url.as_str().trim_end_matches('/').to_owned(),
            client_id: credentials.client_id.clone(),
            scopes: credentials.scopes.to_string(),
        },
    };
    let variables = crate::ui::queries::editor::parse_variables(variables)?;
    let operation = Operation::new(query, variables.as_ref(), operation_name, schema)?;
    Ok(generate(language, &target, &operation))
}
