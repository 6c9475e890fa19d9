//! The operation as a bash script of `curl` and `jq` calls.
//!
//! The document and the variables are written in quoted here-documents (nothing in them is
//! expanded by the shell, `$` included); the JSON body is built by `jq` from them, never by
//! pasting text into JSON; the secret goes to curl on its standard input, so that it shows
//! neither in the script nor in the process list.

use super::{Operation, Target, header};
use crate::query::PagingStyle;
use crate::webhooks::curl::quote;

/// The script.
pub(super) fn generate(target: &Target, operation: &Operation) -> String {
    let mut out = String::from("#!/usr/bin/env bash\n");
    for line in header(operation, target, "bash script.sh") {
        out.push_str(&format!("# {}\n", line.replace(['\n', '\r'], " ")));
    }
    out.push_str("# Needs curl (7.76 or later) and jq.\nset -euo pipefail\nshopt -s inherit_errexit\n\n");
    out.push_str(&format!(": \"${{{env}:?set {env} to the secret of the API client}}\"\n", env = super::SECRET_ENV));
    out.push_str(&format!("BASE_URL={}\n", quote(target.base_url.as_bytes())));
    out.push_str(&format!("CLIENT_ID={}\n", quote(target.client_id.as_bytes())));
    out.push_str(&format!("SCOPES={}\n\n", quote(target.scopes.as_bytes())));
    out.push_str(&format!(
        "QUERY=$(cat <<'{end}'\n{}\n{end}\n)\n",
        operation.query,
        end = delimiter(&operation.query, "GRAPHQL")
    ));
    let variables = serde_json::to_string_pretty(&operation.variables).unwrap_or_else(|_| "{}".into());
    out.push_str(&format!("VARIABLES=$(cat <<'{end}'\n{variables}\n{end}\n)\n", end = delimiter(&variables, "JSON")));
    if let Some(name) = &operation.operation_name {
        out.push_str(&format!("OPERATION={}\n", quote(name.as_bytes())));
    }
    out.push_str(
        r#"
# The access token (client credentials; the secret on curl's standard input).
TOKEN=$(printf '%s' "$ORGQL_CLIENT_SECRET" | curl -sS --fail-with-body "$BASE_URL/oauth/token/" \
  --data-urlencode 'grant_type=client_credentials' \
  --data-urlencode "client_id=$CLIENT_ID" \
  --data-urlencode 'client_secret@-' \
  --data-urlencode "scope=$SCOPES" | jq -er '.access_token')

# Sends the operation with the variables given as JSON; prints the response's data, or the
# errors on stderr (and fails).
graphql() {
  local response
"#,
    );
    let body = match operation.operation_name {
        Some(_) => {
            "jq -n --arg query \"$QUERY\" --argjson variables \"$1\" --arg operation \"$OPERATION\" \\\n    '{query: $query, variables: $variables, operationName: $operation}'"
        }
        None => "jq -n --arg query \"$QUERY\" --argjson variables \"$1\" '{query: $query, variables: $variables}'",
    };
    out.push_str(&format!(
        r#"  response=$({body} |
    curl -sS --fail-with-body "$BASE_URL/graphql/" \
      -H "Authorization: Bearer $TOKEN" \
      -H 'Content-Type: application/json' \
      --data-binary @-) || {{ printf '%s\n' "$response" >&2; return 1; }}
  if ! jq -e '(.errors // []) | length == 0' > /dev/null <<< "$response"; then
    jq -c '.errors' <<< "$response" >&2
    return 1
  fi
  jq -c '.data' <<< "$response"
}}
"#
    ));
    match &operation.pages {
        None => out.push_str("\ngraphql \"$VARIABLES\" | jq .\n"),
        Some(pages) => {
            let path = serde_json::to_string(&pages.path).unwrap_or_else(|_| "[]".into());
            let start = pages.start_cursor.as_ref().map_or_else(|| "null".to_owned(), |c| super::string_literal(c));
            out.push_str(&format!(
                "\n# Every page: the cursor goes in ${after}; each node is printed as a line of JSON.\n\
                 CONNECTION_PATH={path}\nAFTER={start}\n",
                after = pages.after_variable,
                path = quote(path.as_bytes()),
                start = quote(start.as_bytes()),
            ));
            out.push_str("while :; do\n");
            out.push_str(&format!(
                "  DATA=$(graphql \"$(jq -c --argjson after \"$AFTER\" '.[{after}] = $after' <<< \"$VARIABLES\")\")\n",
                after = super::string_literal(&pages.after_variable)
            ));
            out.push_str(&format!(
                "  EDGES=$(jq -c --argjson path \"$CONNECTION_PATH\" 'getpath($path) | .[{edges}] // []' <<< \"$DATA\")\n\
                 \x20 jq -c '.[] | .[{node}] | select(. != null)' <<< \"$EDGES\"\n",
                edges = super::string_literal(&pages.edges_key),
                node = super::string_literal(&pages.node_key),
            ));
            match (pages.style, &pages.page_info, &pages.cursor_key) {
                (PagingStyle::Relay, Some((info, has_next, end)), _) => out.push_str(&format!(
                    "  INFO=$(jq -c --argjson path \"$CONNECTION_PATH\" 'getpath($path) | .[{info}] // {{}}' <<< \"$DATA\")\n\
                     \x20 [ \"$(jq -r '.[{has_next}]' <<< \"$INFO\")\" = true ] || break\n\
                     \x20 NEXT=$(jq -c '.[{end}]' <<< \"$INFO\")\n",
                    info = super::string_literal(info),
                    has_next = super::string_literal(has_next),
                    end = super::string_literal(end),
                )),
                (_, _, Some(cursor)) => {
                    out.push_str("  COUNT=$(jq 'length' <<< \"$EDGES\")\n");
                    match pages.page_size {
                        Some(size) => out.push_str(&format!(
                            "  # No page information: a page shorter than {size} is the last.\n\
                             \x20 [ \"$COUNT\" -ge {size} ] && [ \"$COUNT\" -gt 0 ] || break\n"
                        )),
                        None => out.push_str("  # No page information: an empty page is the last.\n  [ \"$COUNT\" -gt 0 ] || break\n"),
                    }
                    out.push_str(&format!(
                        "  NEXT=$(jq -c '.[-1] | .[{cursor}] // null' <<< \"$EDGES\")\n",
                        cursor = super::string_literal(cursor)
                    ));
                }
                _ => out.push_str("  break\n"),
            }
            out.push_str(
                "  if [ \"$NEXT\" = null ] || [ \"$NEXT\" = \"$AFTER\" ]; then\n\
                 \x20   echo \"the service gave no new cursor for the next page\" >&2\n\
                 \x20   exit 1\n\
                 \x20 fi\n\
                 \x20 AFTER=$NEXT\n\
                 done\n",
            );
        }
    }
    out
}

/// A here-document's end word that no line of `text` equals.
fn delimiter(text: &str, word: &str) -> String {
    let mut candidate = word.to_owned();
    let mut n = 0;
    while text.lines().any(|line| line == candidate) {
        n += 1;
        candidate = format!("{word}_{n}");
    }
    candidate
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_end_word_is_one_no_line_equals() {
        assert_eq!(super::delimiter("{ a }", "GRAPHQL"), "GRAPHQL");
        assert_eq!(super::delimiter("{ a }\nGRAPHQL\nGRAPHQL_1\n", "GRAPHQL"), "GRAPHQL_2");
    }
}
