//! Integration tests: one binary (linking is the slow part), a module a concern. Every test runs
//! the sandbox in-process on 127.0.0.1 and talks to it over real HTTP.

mod harness;

mod a11y_ui;
mod appearance;
mod bad_input;
mod chart_ui;
mod cli;
mod client;
mod codegen;
mod conformance;
mod conventions;
mod django;
mod editor_ui;
mod explorer;
mod explorer_ui;
mod export;
mod fair;
mod find_user;
mod flood;
mod history;
mod hostile;
mod import;
mod import_ui;
mod introspection;
mod listener;
mod minimal;
mod mutations;
mod nested_card;
mod packaging;
mod remote_ui;
mod saved;
mod scale_ui;
mod schema_changes;
mod servers;
mod share;
mod smoke;
mod spreadsheet;
mod strawberry;
mod tokens;
mod tunnel;
mod tunnel_ui;
mod ui;
mod ui_thread;
mod webhooks;
mod workspace;
