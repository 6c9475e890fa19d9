//! The writers' quoting: the document and variables each program holds read back exactly, by
//! the program's own interpreter (bash always; python3 and node when installed, said otherwise).
//! Whole programs against the sandbox: tests/it/codegen.rs.

use std::process::Command;

use serde_json::{Value, json};

use super::*;

/// Text that breaks naive quoting: quotes of each kind, `$` and backticks, backslashes, newlines,
/// a here-document's end word, non-ASCII and the line separators JavaScript once refused.
const TRICKY: &str = "it's \"quoted\" $HOME `whoami` \\n \\ \nGRAPHQL\nJSON\n é 日本 😀 \u{2028}\u{2029} \t end";

fn target() -> Target {
    Target { base_url: "http://127.0.0.1:9".into(), client_id: "client 'id'".into(), scopes: "users.read".into() }
}

fn operation() -> Operation {
    let query = "# a comment with $dollar and 'quotes' and \"double\" and é\nquery Find($text: String) {\n  user(ref: \"a\\\"b\") { name }\n}\nGRAPHQL\n";
    let variables = json!({ "text": TRICKY, "n": 1.5, "list": [true, null, "$x"], "nested": { "k": "\\" } });
    Operation::new(query, Some(&variables), None, None).expect("an operation")
}

/// Runs `program` with `interpreter` and returns its standard output (`None`: not installed).
fn run(interpreter: &str, args: &[&str], program: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("program");
    std::fs::write(&path, program).unwrap();
    let output = match Command::new(interpreter).args(args).arg(&path).env(SECRET_ENV, "unused").output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("SKIPPED: {interpreter} is not installed, so its program's quoting is not checked");
            return None;
        }
        Err(e) => panic!("{interpreter} could not be started: {e}"),
    };
    assert!(output.status.success(), "{interpreter} failed: {}\n{program}", String::from_utf8_lossy(&output.stderr));
    Some(String::from_utf8(output.stdout).unwrap())
}

/// Checks that `printed` (`{"query": …, "variables": …}`) holds the operation's exact text.
fn assert_reads_back(printed: &str, operation: &Operation) {
    let read: Value = serde_json::from_str(printed.trim()).unwrap_or_else(|e| panic!("{e}: {printed}"));
    assert_eq!(read["query"].as_str().map(|q| q.trim_end_matches('\n')), Some(operation.query.trim_end_matches('\n')));
    assert_eq!(read["variables"], Value::Object(operation.variables.clone()));
}

#[test]
fn the_shell_script_holds_the_document_and_variables_exactly() {
    let operation = operation();
    let script = generate(Language::Curl, &target(), &operation);
    let (head, _) = script.split_once("# The access token").expect("the token request follows the values");
    assert!(head.contains("CLIENT_ID='client '\\''id'\\'''"), "{head}");
    let probe = format!(
        "{head}jq -n --arg query \"$QUERY\" --argjson variables \"$VARIABLES\" '{{query: $query, variables: $variables}}'\n"
    );
    if let Some(printed) = run("bash", &[], &probe) {
        assert_reads_back(&printed, &operation);
    }
}

#[test]
fn the_python_program_holds_the_document_and_variables_exactly() {
    let operation = operation();
    let program = generate(Language::Python, &target(), &operation);
    let (head, _) = program.split_once("\ndef token").expect("the token request follows the values");
    let probe = format!(
        "{}\nprint(json.dumps({{'query': QUERY, 'variables': VARIABLES}}))\n",
        head.replace("import requests\n", "")
    );
    if let Some(printed) = run("python3", &[], &probe) {
        assert_reads_back(&printed, &operation);
    }
}

#[test]
fn the_javascript_program_holds_the_document_and_variables_exactly() {
    let operation = operation();
    let program = generate(Language::JavaScript, &target(), &operation);
    let (head, _) = program.split_once("/** An access token").expect("the token request follows the values");
    let probe = format!("{head}\nconsole.log(JSON.stringify({{ query: QUERY, variables: VARIABLES }}));\n");
    if let Some(printed) = run("node", &[], &probe) {
        assert_reads_back(&printed, &operation);
    }
}

#[test]
fn no_program_holds_a_secret_and_each_reads_it_from_the_environment() {
    let operation = operation();
    for language in Language::ALL {
        let program = generate(language, &target(), &operation);
        assert!(program.contains(SECRET_ENV), "{language:?}");
        assert!(!program.contains("sandbox-secret"), "{language:?}");
        assert!(program.contains("/oauth/token/") && program.contains("/graphql/"), "{language:?}");
        assert!(program.contains("client_credentials"), "{language:?}");
    }
}

const RELAY: &str = "type Query { paginatedUsers(first: Int, after: String): UserConnection! }
    type UserConnection { edges: [UserEdge!]! pageInfo: PageInfo! count: Int! }
    type UserEdge { node: User! cursor: String! }
    type PageInfo { hasNextPage: Boolean! endCursor: String }
    type User { ref: String! name: String! }";

const EDGES: &str = "type Query { paginatedUsers(first: Int!, after: String): UserConnection }
    type UserConnection { edges: [UserEdge] count: Int }
    type UserEdge { cursor: String! node: User }
    type User { ref: String! }";

fn schema(sdl: &str) -> Schema {
    Schema::parse_and_validate(sdl, "test.graphql").expect("a valid test schema").into_inner()
}

#[test]
fn a_connection_is_walked_in_the_style_its_schema_gives() {
    let query = "query Users($size: Int) { people: paginatedUsers(first: $size) { edges { node { ref } } } }";
    let variables = json!({ "size": 500 });
    let relay = Operation::new(query, Some(&variables), None, Some(&schema(RELAY))).unwrap();
    let pages = relay.pages.as_ref().expect("paged");
    assert_eq!(pages.style, PagingStyle::Relay);
    assert_eq!(pages.path, ["people"]);
    assert!(pages.page_info.is_some() && relay.query.contains("hasNextPage"), "{}", relay.query);
    assert_eq!(relay.variables["size"], json!(50), "the page size is capped as orgql caps it");
    assert!(relay.notes.iter().any(|n| n.contains("page-size limit")), "{:?}", relay.notes);
    assert_eq!(relay.title, "Users");
    for language in Language::ALL {
        assert!(generate(language, &target(), &relay).contains("hasNextPage"), "{language:?}");
    }

    let edges = Operation::new(query, Some(&variables), None, Some(&schema(EDGES))).unwrap();
    let pages = edges.pages.as_ref().expect("paged");
    assert_eq!(pages.style, PagingStyle::EdgeCursors);
    assert_eq!(pages.page_size, Some(50));
    assert!(!edges.query.contains("pageInfo") && edges.query.contains("cursor"), "{}", edges.query);
    for language in Language::ALL {
        let program = generate(language, &target(), &edges);
        assert!(!program.contains("hasNextPage") && program.contains("shorter than 50"), "{language:?}\n{program}");
    }
}

#[test]
fn what_is_not_a_connection_is_sent_as_written() {
    let mutation = "mutation { createUser(ref: \"x\") { ref } }";
    let operation = Operation::new(mutation, None, None, Some(&schema(RELAY))).unwrap();
    assert!(operation.pages.is_none());
    assert_eq!(operation.query, mutation);
    assert_eq!(operation.title, "operation");
    let err = Operation::new("{ a }", Some(&json!([1])), None, None).unwrap_err();
    assert!(err.contains("JSON object"), "{err}");
}

#[test]
fn languages_read_from_the_command_line() {
    assert_eq!(Language::parse("curl"), Some(Language::Curl));
    assert_eq!(Language::parse("Python"), Some(Language::Python));
    assert_eq!(Language::parse("js"), Some(Language::JavaScript));
    assert_eq!(Language::parse("ruby"), None);
}
