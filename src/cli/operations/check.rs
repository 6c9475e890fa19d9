//! `orgql operations check [DIR…] [--fix] [--json]`: the saved operations, or every `.graphql`
//! file under DIR, checked against the connection's current schema ([`crate::operation_check`]).
//! Each finding is a line `path:line:column: kind: …`; the exit status is 0 when all are valid and
//! nothing is deprecated, 8 when only deprecated uses are found, 9 when some are no longer valid.
//! `--fix` rewrites, in place, the deprecated uses whose reason names a type-compatible
//! alternative (comments and layout kept; a document with errors is left alone) and prints each
//! change.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use super::super::Failure;
use super::super::connection::ConnectionArgs;
use super::super::schema::fetch;
use super::{StoreArg, open_store};
use crate::operation_check::{Finding, Fixed, Verdict, check, fix};
use crate::platform::terminal::printable;

/// Options of `orgql operations check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Folders whose .graphql files to check (every one under them); without any, the
    /// operations saved in the app.
    dirs: Vec<PathBuf>,
    /// Rewrite deprecated uses whose reason names a type-compatible alternative, in place.
    #[arg(long)]
    fix: bool,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// A document to check and where it goes back when fixed.
enum Source {
    /// A file.
    File(PathBuf),
    /// A saved operation (collection, name, variables).
    Saved { collection: String, name: String, variables: String },
}

struct Document {
    /// What the lines call it: the file's path, or `saved:COLLECTION/NAME`.
    shown: String,
    text: String,
    source: Source,
}

/// What came of one document.
struct Outcome {
    shown: String,
    fixed: Vec<Fixed>,
    findings: Vec<Finding>,
    verdict: Verdict,
}

/// Runs `orgql operations check`.
pub(super) async fn run(args: CheckArgs) -> Result<(), Failure> {
    let CheckArgs { dirs, fix: fixing, json, store, connection } = args;
    let saved_store = if dirs.is_empty() { Some(open_store(StoreArg { store: store.store.clone() })?) } else { None };
    let documents = match &saved_store {
        Some(store) => saved(store)?,
        None => files(&dirs)?,
    };
    let fetched = fetch(&connection, store).await?;
    let (schema, shape) = (&fetched.introspection.schema, &fetched.shape);
    let mut outcomes = Vec::new();
    for document in documents {
        let mut text = document.text.clone();
        let mut fixed = Vec::new();
        if fixing {
            let (rewritten, made) = fix(schema, shape, &text);
            if !made.is_empty() {
                write_back(&document, &rewritten, saved_store.as_ref())?;
                text = rewritten;
                fixed = made;
            }
        }
        let findings = check(schema, shape, &text);
        let verdict = Verdict::of(&findings);
        outcomes.push(Outcome { shown: document.shown, fixed, findings, verdict });
    }
    let verdict = outcomes.iter().map(|o| o.verdict).max().unwrap_or(Verdict::Valid);
    if json {
        let files: Vec<_> = outcomes
            .iter()
            .map(|o| json!({ "path": o.shown, "verdict": o.verdict, "findings": o.findings, "fixed": o.fixed }))
            .collect();
        let out = json!({ "verdict": verdict, "exit_code": verdict.exit_code(), "checked": outcomes.len(), "operations": files });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        for outcome in &outcomes {
            for change in &outcome.fixed {
                println!(
                    "{}:{}:{}: fixed: `{}` → `{}` ({})",
                    printable(&outcome.shown),
                    change.line,
                    change.column,
                    change.before,
                    change.after,
                    printable(&change.reason)
                );
            }
            for finding in &outcome.findings {
                println!("{}:{}", printable(&outcome.shown), printable(&finding.located()));
            }
        }
    }
    let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count();
    let fixes: usize = outcomes.iter().map(|o| o.fixed.len()).sum();
    let fixes = match (fixing, fixes) {
        (false, _) => String::new(),
        (true, 1) => "; 1 deprecated use fixed".to_owned(),
        (true, n) => format!("; {n} deprecated uses fixed"),
    };
    let summary = format!(
        "{} operations checked: {} valid, {} with deprecated uses, {} no longer valid{fixes}",
        outcomes.len(),
        count(Verdict::Valid),
        count(Verdict::DeprecatedUses),
        count(Verdict::Invalid),
    );
    match verdict {
        Verdict::Valid => {
            eprintln!("orgql: {summary}");
            Ok(())
        }
        Verdict::DeprecatedUses => Err(Failure::new(
            verdict.exit_code(),
            format!("{summary}; move them to the alternatives the reasons name (--fix does where it can)"),
        )),
        Verdict::Invalid => Err(Failure::new(
            verdict.exit_code(),
            format!("{summary}; correct them against the current schema (orgql schema changes says what changed)"),
        )),
    }
}

fn saved(store: &crate::store::Store) -> Result<Vec<Document>, Failure> {
    let operations = store.operations().map_err(|e| Failure::new(6, e.to_string()))?;
    Ok(operations
        .into_iter()
        .map(|op| Document {
            shown: format!("saved:{}", op.path()),
            text: op.query,
            source: Source::Saved { collection: op.collection, name: op.name, variables: op.variables },
        })
        .collect())
}

fn files(dirs: &[PathBuf]) -> Result<Vec<Document>, Failure> {
    let mut documents = Vec::new();
    for dir in dirs {
        let (found, problems) = crate::operations::read_all(dir).map_err(Failure::usage)?;
        for problem in problems {
            eprintln!("orgql: {problem}");
        }
        for file in found {
            let path = file
                .collection
                .split('/')
                .filter(|part| !part.is_empty())
                .fold(dir.clone(), |path: PathBuf, part| path.join(part))
                .join(format!("{}.graphql", file.name));
            documents.push(Document {
                shown: path.display().to_string(),
                text: file.query,
                source: Source::File(path),
            });
        }
    }
    Ok(documents)
}

fn write_back(document: &Document, text: &str, store: Option<&crate::store::Store>) -> Result<(), Failure> {
    match (&document.source, store) {
        (Source::File(path), _) => write_file(path, text),
        (Source::Saved { collection, name, variables }, Some(store)) => store
            .save_operation(collection, name, text, variables)
            .map(|_| ())
            .map_err(|e| Failure::new(6, e.to_string())),
        (Source::Saved { .. }, None) => Ok(()),
    }
}

/// Writes the fixed text over the file (its permissions kept).
fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| {
        Failure::new(2, format!("cannot write the fix to {} ({e}); check the file's permissions", path.display()))
    })
}
