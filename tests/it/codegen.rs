//! "Copy as code": the programs run, over real HTTP, against the in-process sandbox (Relay
//! paging) and the minimal server (edge cursors), and print the rows the app and the command
//! line show. A missing interpreter skips its test with a message saying which one; CI installs
//! curl, jq, python3 and python3-requests (.ci/run), node is optional.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use orgql::api::{BaseUrl, Client, ClientOptions, Credentials};
use orgql::codegen::{Language, Operation, SECRET_ENV, Target, generate};
use orgql::query::locate;
use orgql::secret::Secret;
use orgql::table::cells;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::harness::{ALL_SCOPES, SECRET, Session, minimal_server, orgql_cli, sandbox};

/// Why a program cannot run here, or `None` when every tool it needs is installed.
fn missing_tools(language: Language) -> Option<String> {
    let works = |program: &str, args: &[&str]| {
        Command::new(program).args(args).output().is_ok_and(|output| output.status.success())
    };
    let missing: Vec<&str> = match language {
        Language::Curl => [("curl", &["--version"][..]), ("jq", &["--version"][..]), ("bash", &["--version"][..])]
            .into_iter()
            .filter(|(program, args)| !works(program, args))
            .map(|(program, _)| program)
            .collect(),
        Language::Python if !works("python3", &["--version"]) => vec!["python3"],
        Language::Python if !works("python3", &["-c", "import requests"]) => vec!["python3-requests"],
        Language::JavaScript if !works("node", &["-e", "if (typeof fetch !== 'function') process.exit(1)"]) => {
            vec!["node 18 or later"]
        }
        _ => Vec::new(),
    };
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// Runs `program` (bounded in time) with the client secret in the environment; its stdout.
fn run_program(language: Language, program: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (interpreter, file) = match language {
        Language::Curl => ("bash", "users.sh"),
        Language::Python => ("python3", "users.py"),
        Language::JavaScript => ("node", "users.mjs"),
    };
    let path = dir.path().join(file);
    std::fs::write(&path, program).unwrap();
    let output = Command::new("timeout")
        .args(["120", interpreter])
        .arg(&path)
        .env(SECRET_ENV, SECRET)
        .output()
        .expect("the interpreter starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the {language:?} program failed: {stderr}\n{program}");
    assert!(!program.contains(SECRET), "the secret is never written into the program");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The rows of the nodes a program printed (one JSON node a line), with `query`'s columns.
fn rows_printed(query: &str, printed: &str) -> Vec<Vec<String>> {
    let site = locate(query, None).expect("a connection");
    printed
        .lines()
        .map(|line| {
            let node: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            cells(&node, &site.columns)
        })
        .collect()
}

/// The rows of `orgql query --all-pages` of `query` against `base_url`.
fn rows_of_the_cli(base_url: &str, query: &str, variables: &Value) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let variables = variables.to_string();
    let (code, stdout, stderr) =
        orgql_cli(dir.path(), base_url, &["query", "-e", query, "--variables", &variables, "--all-pages"]);
    assert_eq!(code, 0, "orgql query failed: {stderr}");
    let response: Value = serde_json::from_str(&stdout).expect("JSON");
    let site = locate(query, None).expect("a connection");
    site.nodes(&response["data"]).map(|node| cells(node, &site.columns)).collect()
}

/// The schema of the server at `base_url`, as the app reads it (introspection).
fn schema_of(runtime: &tokio::runtime::Runtime, base_url: &str) -> Arc<orgql::explorer::SchemaModel> {
    runtime.block_on(async {
        let credentials = Credentials {
            base_url: BaseUrl::parse(base_url).unwrap(),
            client_id: "sandbox-admin".into(),
            client_secret: Secret::new(SECRET),
            scopes: ALL_SCOPES.parse().unwrap(),
        };
        let client = Client::new(credentials, ClientOptions::default(), None).unwrap();
        let (model, _) = orgql::explorer::load::fetch(&client, &CancellationToken::new()).await.expect("a schema");
        Arc::new(model)
    })
}

fn target(base_url: &str) -> Target {
    Target { base_url: base_url.to_owned(), client_id: "sandbox-admin".into(), scopes: "users.read users.write".into() }
}

/// A query with a variable page size (three pages of the 50 users below) and non-ASCII names.
const USERS: &str = "query Users($size: Int) {\n  paginatedUsers(first: $size) {\n    edges { node { ref name email isActive } }\n  }\n}";

#[test]
fn copy_as_code_in_the_app_gives_programs_that_print_the_rows_the_app_fetches() {
    let mut s = Session::start();
    let tab = s.harness.state_mut().active_tab_mut();
    tab.query = USERS.to_owned();
    tab.variables = "{\"size\": 20}".to_owned();
    s.harness.step();
    s.click("Copy as code");
    s.click("cURL");
    let curl = s.app().copied_code().expect("a program shown").clone().expect("a program");
    assert!(curl.starts_with("#!/usr/bin/env bash") && curl.contains("hasNextPage"), "{curl}");
    s.wait_for_label("cURL code");
    s.click("Close cURL code");
    let python = s.harness.state_mut().code_of_active_tab(Language::Python).expect("a program");
    let javascript = s.harness.state_mut().code_of_active_tab(Language::JavaScript).expect("a program");

    s.run_query();
    s.wait_for_label("Fetch all pages");
    s.click("Fetch all pages");
    s.wait_for_text("rows fetched");
    s.wait_until_idle();
    let grid = s.app().active_tab().grid.as_ref().expect("a grid");
    let shown: Vec<Vec<String>> =
        grid.order.iter().map(|i| grid.rows[*i].cells().map(str::to_owned).collect()).collect();
    assert_eq!(shown.len(), crate::harness::USERS);

    let mut ran = 0;
    for (language, program) in [(Language::Curl, curl), (Language::Python, python), (Language::JavaScript, javascript)]
    {
        if let Some(missing) = missing_tools(language) {
            eprintln!("SKIPPED: the {language:?} program is not run: {missing} not installed");
            continue;
        }
        assert_eq!(rows_printed(USERS, &run_program(language, &program)), shown, "{language:?}");
        ran += 1;
    }
    assert!(ran > 0 || std::env::var_os("ORGQL_CODEGEN_OPTIONAL").is_some(), "no program could be run");
}

#[test]
fn programs_walk_edge_cursors_on_the_minimal_server_as_the_command_line_does() {
    let runtime = Session::runtime();
    let server = runtime.block_on(minimal_server(73));
    let base_url = server.base_url().to_owned();
    let schema = schema_of(&runtime, &base_url);
    let variables = json!({ "size": 25 });
    let query = "query Users($size: Int) { paginatedUsers(first: $size) { edges { node { ref name } } } }";
    let operation = Operation::new(query, Some(&variables), None, Some(schema.schema())).unwrap();
    assert_eq!(operation.pages.as_ref().map(|p| p.style), Some(orgql::query::PagingStyle::EdgeCursors));
    let expected = runtime.block_on(async {
        let base_url = base_url.clone();
        tokio::task::spawn_blocking(move || rows_of_the_cli(&base_url, query, &json!({ "size": 25 }))).await.unwrap()
    });
    assert_eq!(expected.len(), 73);
    for language in Language::ALL {
        if let Some(missing) = missing_tools(language) {
            eprintln!("SKIPPED: the {language:?} program is not run: {missing} not installed");
            continue;
        }
        let program = generate(language, &target(&base_url), &operation);
        assert_eq!(rows_printed(query, &run_program(language, &program)), expected, "{language:?}");
    }
    drop(server);
    runtime.shutdown_timeout(Duration::from_secs(5));
}

#[test]
fn a_mutation_prints_its_data_with_variables_sent_intact() {
    let runtime = Session::runtime();
    let server = runtime.block_on(sandbox(5));
    let base_url = server.base_url().to_owned();
    // A name with quotes, `$`, backticks, a backslash and non-ASCII text: sent as written.
    let name = "it's \"$HOME\" `id` \\ 日本 😀";
    let query = "mutation Make($input: CreateUserInput!) { createUser(input: $input) { ref name } }";
    for language in Language::ALL {
        if let Some(missing) = missing_tools(language) {
            eprintln!("SKIPPED: the {language:?} program is not run: {missing} not installed");
            continue;
        }
        let user = format!("code-{language:?}").to_lowercase();
        let variables = json!({ "input": { "ref": user, "name": name, "email": format!("{user}@example.net") } });
        let operation = Operation::new(query, Some(&variables), None, None).unwrap();
        assert!(operation.pages.is_none());
        let printed = run_program(language, &generate(language, &target(&base_url), &operation));
        let data: Value = serde_json::from_str(&printed).unwrap_or_else(|e| panic!("{e}: {printed}"));
        assert_eq!(data, json!({ "createUser": { "ref": user, "name": name } }), "{language:?}");
    }
    drop(server);
    runtime.shutdown_timeout(Duration::from_secs(5));
}

#[test]
fn a_wrong_secret_fails_the_program_with_the_services_answer() {
    let runtime = Session::runtime();
    let server = runtime.block_on(sandbox(5));
    let operation = Operation::new("{ paginatedUsers(first: 2) { count } }", None, None, None).unwrap();
    for language in [Language::Curl, Language::Python] {
        if let Some(missing) = missing_tools(language) {
            eprintln!("SKIPPED: the {language:?} program is not run: {missing} not installed");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("program");
        std::fs::write(&path, generate(language, &target(server.base_url()), &operation)).unwrap();
        let interpreter = if language == Language::Curl { "bash" } else { "python3" };
        let output = Command::new("timeout")
            .args(["60", interpreter])
            .arg(&path)
            .env(SECRET_ENV, "not-the-secret")
            .output()
            .unwrap();
        assert!(!output.status.success(), "{language:?} must fail");
        let without =
            Command::new("timeout").args(["60", interpreter]).arg(&path).env_remove(SECRET_ENV).output().unwrap();
        assert!(!without.status.success());
        assert!(String::from_utf8_lossy(&without.stderr).contains(SECRET_ENV), "{language:?} names the variable");
    }
    drop(server);
    runtime.shutdown_timeout(Duration::from_secs(5));
}

#[test]
fn the_command_line_prints_the_program_that_prints_its_rows() {
    let runtime = Session::runtime();
    let server = runtime.block_on(sandbox(60));
    let base_url = server.base_url().to_owned();
    let query = "{ paginatedUsers(first: 25) { edges { node { ref email } } } }";
    let (expected, printed) = runtime.block_on(async {
        let base_url = base_url.clone();
        tokio::task::spawn_blocking(move || {
            let dir = tempfile::tempdir().unwrap();
            let (code, program, stderr) =
                orgql_cli(dir.path(), &base_url, &["query", "-e", query, "--print-code", "python"]);
            assert_eq!(code, 0, "{stderr}");
            let (code, _, stderr) = orgql_cli(dir.path(), &base_url, &["query", "-e", query, "--print-code", "cobol"]);
            assert_eq!(code, 2);
            assert!(stderr.contains("say curl, python or js"), "{stderr}");
            (rows_of_the_cli(&base_url, query, &json!({})), program)
        })
        .await
        .unwrap()
    });
    assert_eq!(expected.len(), 60);
    assert!(printed.starts_with("#!/usr/bin/env python3") && printed.contains("hasNextPage"), "{printed}");
    match missing_tools(Language::Python) {
        Some(missing) => eprintln!("SKIPPED: the printed Python program is not run: {missing} not installed"),
        None => assert_eq!(rows_printed(query, &run_program(Language::Python, &printed)), expected),
    }
    drop(server);
    runtime.shutdown_timeout(Duration::from_secs(5));
}
