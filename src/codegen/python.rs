//! The operation as a Python 3 program with `requests`.

use serde_json::Value;

use super::{Operation, Target, header, line_literals, string_literal};
use crate::query::PagingStyle;

/// The program.
pub(super) fn generate(target: &Target, operation: &Operation) -> String {
    let mut out = String::from("#!/usr/bin/env python3\n");
    for line in header(operation, target, "python3 script.py") {
        out.push_str(&format!("# {}\n", line.replace(['\n', '\r'], " ")));
    }
    out.push_str(
        "# Needs requests (pip install requests).\n\nimport json\nimport os\nimport sys\n\nimport requests\n\n",
    );
    out.push_str(&format!("BASE_URL = {}\n", string_literal(&target.base_url)));
    out.push_str(&format!("CLIENT_ID = {}\n", string_literal(&target.client_id)));
    out.push_str(&format!("SCOPES = {}\n", string_literal(&target.scopes)));
    out.push_str("QUERY = (\n");
    for line in line_literals(&operation.query) {
        out.push_str(&format!("    {line}\n"));
    }
    out.push_str(")\n");
    out.push_str(&format!("VARIABLES = {}\n", literal(&Value::Object(operation.variables.clone()), 0)));
    let operation_name = operation.operation_name.as_deref().map_or_else(|| "None".to_owned(), string_literal);
    out.push_str(&format!("OPERATION_NAME = {operation_name}\n"));
    out.push_str(&format!(
        r#"

def token():
    """An access token for the client credentials (the secret from {env})."""
    secret = os.environ.get("{env}")
    if not secret:
        sys.exit("set {env} to the API client's secret")
    response = requests.post(
        BASE_URL + "/oauth/token/",
        data={{
            "grant_type": "client_credentials",
            "client_id": CLIENT_ID,
            "client_secret": secret,
            "scope": SCOPES,
        }},
        timeout=30,
    )
    if response.status_code != 200:
        sys.exit(f"the token request failed: HTTP {{response.status_code}} {{response.text}}")
    return response.json()["access_token"]


def graphql(session, variables):
    """Sends the operation with `variables`; returns the response's data."""
    body = {{"query": QUERY, "variables": variables}}
    if OPERATION_NAME is not None:
        body["operationName"] = OPERATION_NAME
    response = session.post(BASE_URL + "/graphql/", json=body, timeout=60)
    if response.status_code != 200:
        sys.exit(f"the request failed: HTTP {{response.status_code}} {{response.text}}")
    answer = response.json()
    if answer.get("errors"):
        sys.exit("the service answered with errors: " + json.dumps(answer["errors"]))
    return answer["data"]

"#,
        env = super::SECRET_ENV
    ));
    match &operation.pages {
        None => out.push_str(
            r#"
def main():
    session = requests.Session()
    session.headers["Authorization"] = "Bearer " + token()
    print(json.dumps(graphql(session, VARIABLES), indent=2))
"#,
        ),
        Some(pages) => {
            let path: Vec<String> = pages.path.iter().map(|key| string_literal(key)).collect();
            let start = pages.start_cursor.as_deref().map_or_else(|| "None".to_owned(), string_literal);
            out.push_str(&format!("\nCONNECTION_PATH = [{}]\n", path.join(", ")));
            out.push_str(&format!(
                r#"

def main():
    """Walks every page; prints each node as a line of JSON."""
    session = requests.Session()
    session.headers["Authorization"] = "Bearer " + token()
    variables = dict(VARIABLES)
    after = {start}
    while True:
        variables[{after}] = after
        connection = graphql(session, variables)
        for key in CONNECTION_PATH:
            connection = (connection or {{}}).get(key)
        connection = connection or {{}}
        edges = [edge for edge in connection.get({edges}) or [] if isinstance(edge, dict)]
        for edge in edges:
            if edge.get({node}) is not None:
                print(json.dumps(edge[{node}]))
"#,
                after = string_literal(&pages.after_variable),
                edges = string_literal(&pages.edges_key),
                node = string_literal(&pages.node_key),
            ));
            match (pages.style, &pages.page_info, &pages.cursor_key) {
                (PagingStyle::Relay, Some((info, has_next, end)), _) => out.push_str(&format!(
                    "        page_info = connection.get({info}) or {{}}\n\
                     \x20       if not page_info.get({has_next}):\n\
                     \x20           break\n\
                     \x20       cursor = page_info.get({end})\n",
                    info = string_literal(info),
                    has_next = string_literal(has_next),
                    end = string_literal(end),
                )),
                (_, _, Some(cursor)) => {
                    match pages.page_size {
                        Some(size) => out.push_str(&format!(
                            "        # No page information: a page shorter than {size} is the last.\n\
                             \x20       if len(edges) < {size} or not edges:\n\
                             \x20           break\n"
                        )),
                        None => out.push_str(
                            "        # No page information: an empty page is the last.\n        if not edges:\n            break\n",
                        ),
                    }
                    out.push_str(&format!("        cursor = edges[-1].get({})\n", string_literal(cursor)));
                }
                _ => out.push_str("        break\n"),
            }
            out.push_str(
                "        if cursor is None or cursor == after:\n\
                 \x20           sys.exit(\"the service gave no new cursor for the next page\")\n\
                 \x20       after = cursor\n",
            );
        }
    }
    out.push_str("\n\nif __name__ == \"__main__\":\n    main()\n");
    out
}

/// A JSON value as a Python literal (`True`, `False`, `None`; strings as JSON writes them),
/// indented by four spaces a level.
fn literal(value: &Value, depth: usize) -> String {
    let indent = "    ".repeat(depth + 1);
    let close = "    ".repeat(depth);
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string_literal(s),
        Value::Array(items) if items.is_empty() => "[]".into(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| format!("{indent}{},\n", literal(v, depth + 1))).collect();
            format!("[\n{}{close}]", items.concat())
        }
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{indent}{}: {},\n", string_literal(k), literal(v, depth + 1)))
                .collect();
            format!("{{\n{}{close}}}", items.concat())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn json_values_become_python_literals() {
        let value = json!({ "a": [true, false, null, 1.5, -2], "b": "x\"y", "c": {}, "d": [] });
        assert_eq!(
            super::literal(&value, 0),
            "{\n    \"a\": [\n        True,\n        False,\n        None,\n        1.5,\n        -2,\n    ],\n    \"b\": \"x\\\"y\",\n    \"c\": {},\n    \"d\": [],\n}"
        );
    }
}
