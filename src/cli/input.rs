//! The query and variables a command is given.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

use super::Failure;

/// Where the query comes from, and its variables.
#[derive(Args, Debug, Clone)]
pub struct QueryInput {
    /// A file holding the GraphQL document.
    #[arg(long, short = 'f', conflicts_with_all = ["execute", "saved"], required_unless_present_any = ["execute", "saved"])]
    pub file: Option<PathBuf>,
    /// The GraphQL document itself.
    #[arg(long = "execute", short = 'e', value_name = "QUERY", conflicts_with = "saved")]
    pub execute: Option<String>,
    /// An operation saved in the app (Ctrl+S), as COLLECTION/NAME or a NAME found once; its
    /// variables come with it unless --variables is given.
    #[arg(long, value_name = "NAME")]
    pub saved: Option<String>,
    /// With --saved: the database the operation is kept in (default: orgql's).
    #[arg(long, value_name = "PATH", requires = "saved")]
    pub store: Option<PathBuf>,
    /// Variables as a JSON object (the help shows an example quoted for this system's shell).
    #[arg(long, help = variables_help())]
    pub variables: Option<String>,
    /// The operation to run when the document has several.
    #[arg(long)]
    pub operation: Option<String>,
}

impl QueryInput {
    /// The document's text.
    pub fn query(&self) -> Result<String, Failure> {
        if let Some(name) = &self.saved {
            return Ok(saved_operation(name, self.store.clone())?.query);
        }
        match (&self.file, &self.execute) {
            (_, Some(text)) => Ok(text.clone()),
            (Some(path), None) => std::fs::read_to_string(path)
                .map_err(|e| Failure::usage(format!("cannot read the query file {} ({e})", path.display()))),
            (None, None) => Err(Failure::usage("give the query with --file F, -e QUERY or --saved NAME")),
        }
    }

    /// The variables, checked to be a JSON object: those given, else a saved operation's.
    pub fn variables(&self) -> Result<Option<Value>, Failure> {
        let (text, source) = match (&self.variables, &self.saved) {
            (Some(text), _) => (text.clone(), "--variables"),
            (None, Some(name)) => (saved_operation(name, self.store.clone())?.variables, "the saved variables"),
            (None, None) => return Ok(None),
        };
        if source != "--variables" && text.trim().is_empty() {
            return Ok(None);
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => Ok(Some(value)),
            Ok(_) => Err(Failure::usage(format!(
                "{source} must be a JSON object, e.g. {}",
                crate::platform::shell_example(r#"{"ref": "u00001"}"#)
            ))),
            Err(e) => Err(Failure::usage(format!("{source} is not valid JSON ({e})"))),
        }
    }
}

/// The help of `--variables`, its example quoted for this system's shell.
fn variables_help() -> String {
    format!("Variables as a JSON object, e.g. {}.", crate::platform::shell_example(r#"{"ref": "u00001"}"#))
}

/// The saved operation `name` of the database at `store` (orgql's by default).
pub(super) fn saved_operation(name: &str, store: Option<PathBuf>) -> Result<crate::store::SavedOperation, Failure> {
    let path = super::operations::store_path(store)?;
    if !path.exists() {
        return Err(Failure::usage(format!(
            "there are no saved operations yet ({} does not exist); save one in the app with Ctrl+S",
            path.display()
        )));
    }
    let store = crate::store::Store::open(&path).map_err(|e| Failure::new(6, e.to_string()))?;
    store.find_operation(name).map_err(|e| Failure::new(6, e.to_string()))?.map_err(Failure::usage)
}
