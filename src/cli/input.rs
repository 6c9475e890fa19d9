//! The query and variables a command is given.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

use super::Failure;

/// Where the query comes from, and its variables.
#[derive(Args, Debug, Clone)]
pub struct QueryInput {
    /// A file holding the GraphQL document.
    #[arg(long, short = 'f', conflicts_with = "execute", required_unless_present = "execute")]
    pub file: Option<PathBuf>,
    /// The GraphQL document itself.
    #[arg(long = "execute", short = 'e', value_name = "QUERY")]
    pub execute: Option<String>,
    /// Variables as a JSON object, e.g. '{"ref": "u00001"}'.
    #[arg(long)]
    pub variables: Option<String>,
    /// The operation to run when the document has several.
    #[arg(long)]
    pub operation: Option<String>,
}

impl QueryInput {
    /// The document's text.
    pub fn query(&self) -> Result<String, Failure> {
        match (&self.file, &self.execute) {
            (_, Some(text)) => Ok(text.clone()),
            (Some(path), None) => std::fs::read_to_string(path)
                .map_err(|e| Failure::usage(format!("cannot read the query file {} ({e})", path.display()))),
            (None, None) => Err(Failure::usage("give the query with --file F or -e QUERY")),
        }
    }

    /// The variables, checked to be a JSON object.
    pub fn variables(&self) -> Result<Option<Value>, Failure> {
        let Some(text) = &self.variables else { return Ok(None) };
        match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(Some(value)),
            Ok(_) => Err(Failure::usage("--variables must be a JSON object, e.g. '{\"ref\": \"u00001\"}'")),
            Err(e) => Err(Failure::usage(format!("--variables is not valid JSON ({e})"))),
        }
    }
}
