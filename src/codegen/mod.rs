//! "Copy as code": a tab's operation as a complete program to take away: a shell script
//! (cURL and jq), Python (requests) or JavaScript (fetch, Node.js 18 or later).
//!
//! Each program is whole: the client-credentials token request of the spec (`POST
//! {base}/oauth/token/`, form fields `grant_type`, `client_id`, `client_secret`, `scope`) with the
//! secret read from the environment variable [`SECRET_ENV`] (never written into the program),
//! then the operation with its variables; for a query with one connection, the cursor loop that
//! walks every page in the paging style the connection's schema gives ([`crate::query::Paging`]),
//! printing each node as one line of JSON, as `orgql` itself would page it.
//!
//! No template engine: three small writers with their own quoting (a shell word, a Python or
//! JavaScript string literal: JSON's string syntax is valid in both), each tested by running
//! the program it writes (tests/it/codegen.rs).

mod javascript;
mod python;
mod shell;

use apollo_compiler::Schema;
use serde_json::{Map, Value};

use crate::query::{ArgumentValue, Paging, PagingOptions, PagingStyle, detect_paging, prepare_paging};

pub use crate::profiles::SECRET_ENV;

/// A language to write the operation in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// A bash script of `curl` and `jq` calls.
    Curl,
    /// Python 3 with `requests`.
    Python,
    /// JavaScript with `fetch` (Node.js 18 or later).
    JavaScript,
}

impl Language {
    /// Every language, in menu order.
    pub const ALL: [Language; 3] = [Language::Curl, Language::Python, Language::JavaScript];

    /// The name shown in menus ("cURL", "Python", "JavaScript").
    pub fn label(self) -> &'static str {
        match self {
            Language::Curl => "cURL",
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
        }
    }

    /// Reads a name as the command line gives it (`curl`, `python`, `js`).
    pub fn parse(text: &str) -> Option<Language> {
        match text.to_ascii_lowercase().as_str() {
            "curl" | "sh" | "bash" | "shell" => Some(Language::Curl),
            "python" | "py" | "python3" => Some(Language::Python),
            "js" | "javascript" | "node" => Some(Language::JavaScript),
            _ => None,
        }
    }
}

/// Where the program sends its requests: the connection, without its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The organization's base URL, without a trailing slash (`https://org.example.com`).
    pub base_url: String,
    /// The API client's id.
    pub client_id: String,
    /// The scopes to request, space-separated.
    pub scopes: String,
}

/// How the program walks the pages of the operation's connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pages {
    /// The convention the connection's schema gives.
    pub style: PagingStyle,
    /// The cursor variable (`after`, or the one orgql added to the query).
    pub after_variable: String,
    /// The cursor the first page starts after (a literal `after` of the query), if any.
    pub start_cursor: Option<String>,
    /// Response keys from `data` to the connection object.
    pub path: Vec<String>,
    /// The response key of `edges`.
    pub edges_key: String,
    /// The response key of `node` in an edge.
    pub node_key: String,
    /// The response keys of `pageInfo`, `hasNextPage` and `endCursor` (Relay paging).
    pub page_info: Option<(String, String, String)>,
    /// The response key of `cursor` in an edge (edge-cursor paging).
    pub cursor_key: Option<String>,
    /// The page size asked for, when known (edge-cursor paging: a shorter page is the last).
    pub page_size: Option<u64>,
}

/// The operation a program sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// The document as sent (for a connection: with the cursor argument and page information
    /// orgql adds, as the app sends it).
    pub query: String,
    /// The variables (a JSON object).
    pub variables: Map<String, Value>,
    /// The operation's name when the document has several.
    pub operation_name: Option<String>,
    /// The cursor loop, for a query with one connection that can be paged.
    pub pages: Option<Pages>,
    /// A sentence for the program's header (why a connection is fetched one page only, what
    /// was changed in the query).
    pub notes: Vec<String>,
    /// A name for the program's header: the operation's name, else "operation".
    pub title: String,
}

impl Operation {
    /// The operation in `query` (the one named `operation_name`, or the only one) with
    /// `variables` (a JSON object or null), paged as `schema` says when it holds one connection
    /// (as the query's own text shows when no schema is known).
    ///
    /// # Errors
    ///
    /// One sentence when the variables are not an object.
    pub fn new(
        query: &str,
        variables: Option<&Value>,
        operation_name: Option<&str>,
        schema: Option<&Schema>,
    ) -> Result<Self, String> {
        let mut variables = match variables {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => return Err("the variables must be a JSON object of name → value; fix them first".into()),
        };
        let title = operation_title(query, operation_name);
        let mut notes = Vec::new();
        let plain = |variables, notes| Operation {
            query: query.to_owned(),
            variables,
            operation_name: operation_name.map(str::to_owned),
            pages: None,
            notes,
            title: title.clone(),
        };
        // Not a query with one connection: sent as written.
        if prepare_paging(query, operation_name, PagingOptions::default()).is_err() {
            return Ok(plain(variables, notes));
        }
        let paging = match schema {
            Some(schema) => match detect_paging(schema, query, operation_name) {
                Ok(paging) => paging,
                Err(reason) => {
                    notes.push(format!("Only the first page is fetched: {reason}."));
                    return Ok(plain(variables, notes));
                }
            },
            None => {
                notes.push("The connection's schema was not known: paged as the query's text shows.".into());
                Paging::from_text(query, operation_name)
            }
        };
        let options = PagingOptions { ensure_count: false, paging: Some(paging) };
        let paged = match prepare_paging(query, operation_name, options) {
            Ok(paged) => paged,
            Err(error) => {
                notes.push(format!("Only the first page is fetched: {error}."));
                return Ok(plain(variables, notes));
            }
        };
        notes.extend(paged.warnings.iter().cloned());
        notes.extend(paged.cap_first_variable(&mut variables));
        let site = &paged.site;
        let page_size = match &site.first {
            ArgumentValue::Int(size) => u64::try_from(*size).ok(),
            ArgumentValue::Variable(name) => variables.get(name).and_then(Value::as_u64),
            _ => None,
        };
        let page_info = match (&site.page_info_key, &site.has_next_page_key, &site.end_cursor_key) {
            (Some(info), Some(has_next), Some(end)) => Some((info.clone(), has_next.clone(), end.clone())),
            _ => None,
        };
        let pages = Pages {
            style: paged.style,
            after_variable: paged.after_variable.clone(),
            start_cursor: paged.start_cursor.clone(),
            path: site.path.clone(),
            edges_key: site.edges_key.clone(),
            node_key: site.node_key.clone(),
            page_info,
            cursor_key: site.cursor_key.clone(),
            page_size,
        };
        // The cursor variable is set by the loop; the first page starts after the query's own.
        variables.remove(&pages.after_variable);
        Ok(Operation {
            query: paged.text.clone(),
            variables,
            operation_name: operation_name.map(str::to_owned),
            pages: Some(pages),
            notes,
            title,
        })
    }
}

/// The program that sends `operation` to `target`, in `language`.
pub fn generate(language: Language, target: &Target, operation: &Operation) -> String {
    match language {
        Language::Curl => shell::generate(target, operation),
        Language::Python => python::generate(target, operation),
        Language::JavaScript => javascript::generate(target, operation),
    }
}

/// The name a program's header gives the operation: its own, else "operation".
fn operation_title(query: &str, operation_name: Option<&str>) -> String {
    if let Some(name) = operation_name {
        return name.to_owned();
    }
    crate::store::operation_name_of(query).unwrap_or_else(|| "operation".to_owned())
}

/// A JSON string literal: also a valid Python and JavaScript string literal (escapes `"`, `\`
/// and control characters; other characters, non-ASCII ones too, are written as they are).
fn string_literal(text: &str) -> String {
    // U+2028 and U+2029 end a line in older JavaScript; escaping them is valid everywhere.
    serde_json::Value::String(text.to_owned()).to_string().replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029")
}

/// `text` as string literals one line each, every line but the last ending in `\n`: how the
/// document is written into Python and JavaScript so that it stays readable.
fn line_literals(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(string_literal).collect();
    if lines.is_empty() {
        lines.push("\"\"".to_owned());
    }
    lines
}

/// The header's lines: what the program does, how to run it, the notes.
fn header(operation: &Operation, target: &Target, run: &str) -> Vec<String> {
    let what = if operation.pages.is_some() {
        "walks every page of its connection and prints each node as a line of JSON"
    } else {
        "prints the response's data as JSON"
    };
    let mut lines = vec![
        format!("{}: generated by orgql; sends the operation to {} and {what}.", operation.title, target.base_url),
        format!("The client secret is read from the environment variable {SECRET_ENV}; it is never written here."),
        format!("Run: {SECRET_ENV}=… {run}"),
    ];
    lines.extend(operation.notes.iter().cloned());
    lines
}

#[cfg(test)]
mod tests;
