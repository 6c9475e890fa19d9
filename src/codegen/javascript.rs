//! The operation as a JavaScript program for Node.js 18 or later (`fetch`, no packages).

use super::{Operation, Target, header, line_literals, string_literal};
use crate::query::PagingStyle;

/// The program.
pub(super) fn generate(target: &Target, operation: &Operation) -> String {
    let mut out = String::new();
    for line in header(operation, target, "node script.mjs") {
        out.push_str(&format!("// {}\n", line.replace(['\n', '\r', '\u{2028}', '\u{2029}'], " ")));
    }
    out.push_str("// Needs Node.js 18 or later (fetch).\n\n");
    out.push_str(&format!("const BASE_URL = {};\n", string_literal(&target.base_url)));
    out.push_str(&format!("const CLIENT_ID = {};\n", string_literal(&target.client_id)));
    out.push_str(&format!("const SCOPES = {};\n", string_literal(&target.scopes)));
    out.push_str("const QUERY =\n");
    let lines = line_literals(&operation.query);
    for (i, line) in lines.iter().enumerate() {
        let end = if i + 1 == lines.len() { ";" } else { " +" };
        out.push_str(&format!("  {line}{end}\n"));
    }
    // JSON is a JavaScript expression (string literals with U+2028/U+2029 escaped).
    let variables = serde_json::to_string_pretty(&operation.variables)
        .unwrap_or_else(|_| "{}".into())
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    out.push_str(&format!("const VARIABLES = {variables};\n"));
    let operation_name = operation.operation_name.as_deref().map_or_else(|| "null".to_owned(), string_literal);
    out.push_str(&format!("const OPERATION_NAME = {operation_name};\n"));
    out.push_str(&format!(
        r#"
/** An access token for the client credentials (the secret from {env}). */
async function token() {{
  const secret = process.env.{env};
  if (!secret) {{
    throw new Error("set {env} to the API client's secret");
  }}
  const response = await fetch(BASE_URL + "/oauth/token/", {{
    method: "POST",
    body: new URLSearchParams({{
      grant_type: "client_credentials",
      client_id: CLIENT_ID,
      client_secret: secret,
      scope: SCOPES,
    }}),
  }});
  if (!response.ok) {{
    throw new Error("the token request failed: HTTP " + response.status + " " + (await response.text()));
  }}
  return (await response.json()).access_token;
}}

/** Sends the operation with `variables`; returns the response's data. */
async function graphql(accessToken, variables) {{
  const body = {{ query: QUERY, variables }};
  if (OPERATION_NAME !== null) {{
    body.operationName = OPERATION_NAME;
  }}
  const response = await fetch(BASE_URL + "/graphql/", {{
    method: "POST",
    headers: {{ Authorization: "Bearer " + accessToken, "Content-Type": "application/json" }},
    body: JSON.stringify(body),
  }});
  if (!response.ok) {{
    throw new Error("the request failed: HTTP " + response.status + " " + (await response.text()));
  }}
  const answer = await response.json();
  if (answer.errors && answer.errors.length > 0) {{
    throw new Error("the service answered with errors: " + JSON.stringify(answer.errors));
  }}
  return answer.data;
}}
"#,
        env = super::SECRET_ENV
    ));
    match &operation.pages {
        None => out.push_str(
            r#"
async function main() {
  const accessToken = await token();
  console.log(JSON.stringify(await graphql(accessToken, VARIABLES), null, 2));
}
"#,
        ),
        Some(pages) => {
            let path: Vec<String> = pages.path.iter().map(|key| string_literal(key)).collect();
            let start = pages.start_cursor.as_deref().map_or_else(|| "null".to_owned(), string_literal);
            out.push_str(&format!(
                r#"
const CONNECTION_PATH = [{path}];

/** Walks every page; prints each node as a line of JSON. */
async function main() {{
  const accessToken = await token();
  let after = {start};
  for (;;) {{
    const data = await graphql(accessToken, {{ ...VARIABLES, [{after}]: after }});
    let connection = data;
    for (const key of CONNECTION_PATH) {{
      connection = connection == null ? null : connection[key];
    }}
    connection = connection || {{}};
    const edges = (connection[{edges}] || []).filter((edge) => edge !== null && typeof edge === "object");
    for (const edge of edges) {{
      if (edge[{node}] != null) {{
        console.log(JSON.stringify(edge[{node}]));
      }}
    }}
"#,
                path = path.join(", "),
                after = string_literal(&pages.after_variable),
                edges = string_literal(&pages.edges_key),
                node = string_literal(&pages.node_key),
            ));
            match (pages.style, &pages.page_info, &pages.cursor_key) {
                (PagingStyle::Relay, Some((info, has_next, end)), _) => out.push_str(&format!(
                    "    const pageInfo = connection[{info}] || {{}};\n\
                     \x20   if (!pageInfo[{has_next}]) {{\n\
                     \x20     break;\n\
                     \x20   }}\n\
                     \x20   const cursor = pageInfo[{end}];\n",
                    info = string_literal(info),
                    has_next = string_literal(has_next),
                    end = string_literal(end),
                )),
                (_, _, Some(cursor)) => {
                    match pages.page_size {
                        Some(size) => out.push_str(&format!(
                            "    // No page information: a page shorter than {size} is the last.\n\
                             \x20   if (edges.length === 0 || edges.length < {size}) {{\n\
                             \x20     break;\n\
                             \x20   }}\n"
                        )),
                        None => out.push_str(
                            "    // No page information: an empty page is the last.\n    if (edges.length === 0) {\n      break;\n    }\n",
                        ),
                    }
                    out.push_str(&format!("    const cursor = edges[edges.length - 1][{}];\n", string_literal(cursor)));
                }
                _ => out.push_str("    break;\n"),
            }
            out.push_str(
                "    if (cursor == null || cursor === after) {\n\
                 \x20     throw new Error(\"the service gave no new cursor for the next page\");\n\
                 \x20   }\n\
                 \x20   after = cursor;\n\
                 \x20 }\n\
                 }\n",
            );
        }
    }
    out.push_str("\nmain().catch((error) => {\n  console.error(error.message);\n  process.exit(1);\n});\n");
    out
}
