//! `orgql query`: runs a query or mutation and prints the JSON response on stdout; throttling,
//! retries and token renewals are said on stderr as they happen.

use std::io::Write;

use clap::Args;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::connection::ConnectionArgs;
use super::export::ActivityWatch;
use super::input::QueryInput;
use super::{Failure, cancel_on_ctrl_c};
use crate::api::{ApiError, GraphQlRequest, GraphQlResponse, Pager};
use crate::query::{ConnectionSite, PagingOptions};

/// Options of `orgql query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    #[command(flatten)]
    input: QueryInput,
    /// Follow every page of the query's one connection and print them as one response.
    #[arg(long)]
    all_pages: bool,
    /// Print the operation as a program instead of running it: curl (a bash script with curl
    /// and jq), python (requests) or js (Node.js 18 fetch); a connection is walked page by page
    /// as its schema says. The program reads the secret from ORGQL_CLIENT_SECRET.
    #[arg(long, value_name = "LANGUAGE", conflicts_with = "all_pages")]
    print_code: Option<String>,
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// Runs `orgql query`.
pub async fn run(args: QueryArgs) -> Result<(), Failure> {
    let query = args.input.query()?;
    let variables = args.input.variables()?;
    if let Some(language) = &args.print_code {
        return print_code(&args, language, &query, variables.as_ref()).await;
    }
    let client = args.connection.client()?;
    let cancel = cancel_on_ctrl_c();
    let operation = args.input.operation.as_deref();
    let activity = ActivityWatch::start(&client, indicatif::ProgressBar::hidden());
    let response = if args.all_pages {
        all_pages(client, &query, variables, operation, &cancel).await
    } else {
        let request = GraphQlRequest { query, variables, operation_name: operation.map(str::to_owned) };
        client.execute(&request, &cancel).await.map(|exchange| exchange.response).map_err(Failure::from)
    };
    // What the client did is said before the outcome, in the order it happened.
    activity.finish().await;
    let response = response?;
    print_json(&response)?;
    match response.errors.first() {
        Some(_) => Err(ApiError::GraphQl { errors: response.errors, data: None }.into()),
        None => Ok(()),
    }
}

/// `--print-code`: the program, on stdout; the paging read from the service's schema when the
/// operation has a connection (as its text shows when the schema cannot be read, said on stderr).
async fn print_code(args: &QueryArgs, language: &str, query: &str, variables: Option<&Value>) -> Result<(), Failure> {
    use crate::codegen::{Language, Operation, generate};
    let language = Language::parse(language)
        .ok_or_else(|| Failure::usage(format!("--print-code {language}: say curl, python or js")))?;
    let target = args.connection.code_target()?;
    let operation_name = args.input.operation.as_deref();
    let has_connection = crate::query::prepare_paging(query, operation_name, PagingOptions::default()).is_ok();
    let model = if has_connection {
        let client = args.connection.client()?;
        match crate::explorer::load::fetch(&client, &cancel_on_ctrl_c()).await {
            Ok((model, _)) => Some(model),
            Err(error) => {
                eprintln!("orgql: the service's schema could not be read ({error}); paging as the query's text shows");
                None
            }
        }
    } else {
        None
    };
    let schema = model.as_ref().map(|model| &**model.schema());
    let operation = Operation::new(query, variables, operation_name, schema).map_err(Failure::usage)?;
    let mut out = std::io::stdout().lock();
    out.write_all(generate(language, &target, &operation).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::new(1, format!("the program could not be printed ({e})")))
}

/// Every page merged into the first: its edges followed by the others', the last `pageInfo`.
async fn all_pages(
    client: std::sync::Arc<crate::api::Client>,
    query: &str,
    variables: Option<Value>,
    operation: Option<&str>,
    cancel: &CancellationToken,
) -> Result<GraphQlResponse, Failure> {
    let mut pager = Pager::discover(client, query, variables, operation, PagingOptions::default(), cancel).await?;
    for warning in pager.warnings() {
        eprintln!("orgql: {warning}");
    }
    let site = pager.site().clone();
    let mut merged: Option<Value> = None;
    loop {
        match pager.next_page(cancel).await {
            Ok(Some(page)) => match merged.as_mut() {
                None => merged = Some(page.data),
                Some(base) => append_page(base, page.data, &site),
            },
            Ok(None) => break,
            Err(ApiError::GraphQl { errors, data }) => {
                warn_after_walk(&pager);
                // Print what arrived with the errors, as a single response.
                let data = merged.or(data);
                return Ok(GraphQlResponse { data, errors });
            }
            Err(err) => return Err(err.into()),
        }
    }
    warn_after_walk(&pager);
    Ok(GraphQlResponse { data: merged, errors: Vec::new() })
}

/// The paging guard's warnings (repeated rows, a `count` not reached) on stderr.
fn warn_after_walk(pager: &Pager) {
    for warning in pager.walk_warnings() {
        eprintln!("orgql: {warning}");
    }
}

fn append_page(base: &mut Value, page: Value, site: &ConnectionSite) {
    let Some(Value::Object(mut next)) = site.connection(&page).cloned() else { return };
    let Some(Value::Object(target)) = connection_mut(base, &site.path) else { return };
    if let (Some(Value::Array(edges)), Some(Value::Array(more))) =
        (target.get_mut(&site.edges_key), next.remove(&site.edges_key))
    {
        edges.extend(more);
    }
    if let Some(key) = &site.page_info_key
        && let Some(info) = next.remove(key)
    {
        target.insert(key.clone(), info);
    }
}

fn connection_mut<'a>(data: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(data, |value, key| value.get_mut(key))
}

fn print_json(response: &GraphQlResponse) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    serde_json::to_writer_pretty(&mut out, response)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .map_err(|e| Failure::new(6, format!("cannot write to standard output ({e})")))
}
