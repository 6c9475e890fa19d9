//! The card's learning sections: every list or connection related to the user, as the schema
//! shapes it ([`crate::shape::related`]) — enrollments, progress, certificates, registrations —
//! each read on its own, 50 rows a page (or every page, up to [`ALL_ROWS`]), and its rows put the
//! way a person reads them: what it is about, its state in words, a percentage, dates, expired.

use serde_json::{Map, Value, json};

use crate::api::GraphQlRequest;
use crate::shape::{Display, Key, Place, Related, at, enum_words, label};

/// Rows a section shows before "Show all".
pub const SECTION_PAGE: i64 = 50;
/// Rows "Show all" reads at most (20 pages of 50).
pub const ALL_ROWS: usize = 1_000;

/// A section of the card, before its rows are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// Its place among the connection's sections (what a request names).
    pub index: usize,
    /// Its heading ("Enrollments").
    pub label: String,
    /// The states a row can be given, when the schema has a mutation that changes them (by
    /// shape: the row's key and the state's enum): `CONFIRMED`, `NO_SHOW`, ….
    pub states: Vec<String>,
    /// What the user can be enrolled in from this section ("offer"), when the schema has it.
    pub enroll_in: Option<String>,
    /// The scope the state change needs, when the schema says (its description).
    pub change_scope: Option<crate::scopes::Scope>,
    /// The scope enrolling needs, when the schema says.
    pub enroll_scope: Option<crate::scopes::Scope>,
}

/// Something to enroll the user in, as a list offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Its key, as the enrolling mutation takes it.
    pub key: String,
    /// What a person reads: its title(s) and first dates.
    pub title: String,
    /// Its dates, shown beside.
    pub when: String,
}

/// One row of a section.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionRow {
    /// Its key (`id` or `ref` as the schema's state change takes it), to act on it.
    pub key: Option<String>,
    /// Its state as the service names it (`NO_SHOW`).
    pub state_value: Option<String>,
    /// What it is about: its title, or of what it points to ("Fire safety · May session").
    pub title: String,
    /// Its state in words ("No show").
    pub state: Option<String>,
    /// A percentage, 0–100.
    pub percent: Option<f64>,
    /// Dates: label and value as shown.
    pub dates: Vec<(String, String)>,
    /// A validity date passed.
    pub expired: bool,
}

/// Rows of a section as read.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionPage {
    /// The section.
    pub index: usize,
    /// Its rows, in the service's order.
    pub rows: Vec<SectionRow>,
    /// How many there are in all, when the service counts them.
    pub total: Option<u64>,
    /// Whether more rows follow those read.
    pub more: bool,
    /// The document that read them, to open as a query.
    pub query: String,
    /// Its variables (the first page's).
    pub variables: Value,
}

/// The user's keys, for the sections that take one or the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserKeys {
    /// The user's ref.
    pub ref_: String,
    /// The user's id, when the schema has it.
    pub id: Option<String>,
}

/// The document that reads a page of `section` of the user, and where its value is in the
/// answer's data; `None` (with why) when the schema gives no way to read it for this user.
pub fn request(
    section: &Related,
    by_ref: &super::ByRef,
    user: &UserKeys,
    first: Option<i64>,
    after: Option<&str>,
) -> Result<(GraphQlRequest, Vec<String>), String> {
    let mut declarations = Vec::new();
    let mut passed = Vec::new();
    let mut variables = Map::new();
    let page = |declarations: &mut Vec<String>, passed: &mut Vec<String>, variables: &mut Map<String, Value>| {
        if let (Some(name), Some(first)) = (&section.first, first) {
            declarations.push("$first: Int".to_owned());
            passed.push(format!("{name}: $first"));
            variables.insert("first".into(), json!(first));
        }
        if let (Some((name, ty)), Some(after)) = (&section.after, after) {
            declarations.push(format!("$after: {ty}"));
            passed.push(format!("{name}: $after"));
            variables.insert("after".into(), json!(after));
        }
    };
    let body = selection(section);
    let arguments =
        |passed: &[String]| if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
    let (query, path) = match &section.place {
        Place::Root { argument, argument_type, inside, key } => {
            let value = match key {
                Key::Ref => user.ref_.clone(),
                Key::Id => user.id.clone().ok_or("the service names the user by id here, and the card has none")?,
            };
            let ty = if inside.is_some() { "String" } else { argument_type.as_str() };
            let ty = if *key == Key::Id && inside.is_some() { "ID" } else { ty };
            declarations.push(format!("$user: {ty}!"));
            passed.push(match inside {
                Some(inner) => format!("{argument}: {{ {inner}: $user }}"),
                None => format!("{argument}: $user"),
            });
            variables.insert("user".into(), json!(value));
            page(&mut declarations, &mut passed, &mut variables);
            let query = format!(
                "query SupportSection({}) {{\n  section: {}{} {body}\n}}\n",
                declarations.join(", "),
                section.field,
                arguments(&passed)
            );
            (query, vec!["section".to_owned()])
        }
        Place::Nested => {
            let super::ByRef::Field { field, arg } = by_ref else {
                return Err(
                    "this service reads a user only through its list of users, so the section cannot be read".into()
                );
            };
            declarations.push(arg.declaration());
            variables.insert(arg.name.clone(), json!(user.ref_));
            page(&mut declarations, &mut passed, &mut variables);
            let query = format!(
                "query SupportSection({}) {{\n  user: {field}({}) {{ section: {}{} {body} }}\n}}\n",
                declarations.join(", "),
                arg.pass(),
                section.field,
                arguments(&passed)
            );
            (query, vec!["user".to_owned(), "section".to_owned()])
        }
    };
    Ok((GraphQlRequest { query, variables: Some(Value::Object(variables)), operation_name: None }, path))
}

/// What is selected of the section: its rows, and for a connection its count and paging.
fn selection(section: &Related) -> String {
    let node = section.display.selection();
    if !section.connection {
        return node;
    }
    let mut parts = Vec::new();
    if let Some(count) = &section.count {
        parts.push(count.clone());
    }
    if section.after.is_some() {
        parts.push("pageInfo { hasNextPage endCursor }".to_owned());
    }
    parts.push(format!("edges {{ node {node} }}"));
    format!("{{ {} }}", parts.join(" "))
}

/// A page read: the rows of `value` (the section's value in the answer), its count, and the
/// cursor of the next page when one follows.
pub fn read(section: &Related, value: &Value, key: Option<&str>) -> (Vec<SectionRow>, Option<u64>, Option<String>) {
    let nodes: Vec<&Value> = if section.connection {
        value["edges"].as_array().map(|edges| edges.iter().map(|edge| &edge["node"]).collect()).unwrap_or_default()
    } else {
        value.as_array().map(|items| items.iter().collect()).unwrap_or_default()
    };
    let rows = nodes.into_iter().map(|node| row_keyed(&section.display, node, key)).collect();
    let total = section.count.as_ref().and_then(|count| value[count].as_u64());
    let next = (value["pageInfo"]["hasNextPage"] == json!(true))
        .then(|| value["pageInfo"]["endCursor"].as_str().map(str::to_owned))
        .flatten();
    (rows, total, next)
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(crate::support::one_line(text)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `2026-05-03T09:00:00Z` → `2026-05-03 09:00`; a date stays as it is.
fn moment(value: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(value) {
        Ok(at) => at.with_timezone(&chrono::Utc).format("%Y-%m-%d %H:%M").to_string(),
        Err(_) => value.to_owned(),
    }
}

fn passed(value: &str) -> bool {
    let now = chrono::Utc::now();
    match chrono::DateTime::parse_from_rfc3339(value) {
        Ok(at) => at < now,
        Err(_) => chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok_and(|day| day < now.date_naive()),
    }
}

/// One row of `node` as `display` says, keyed by its field `key` (when a change takes one).
pub fn row_keyed(display: &Display, node: &Value, key: Option<&str>) -> SectionRow {
    let mut titles: Vec<String> = Vec::new();
    for path in &display.titles {
        if let Some(title) = at(node, path).and_then(text).filter(|t| !t.is_empty() && !titles.contains(t)) {
            titles.push(title);
        }
        if titles.len() == 2 {
            break;
        }
    }
    let state_value = display.state.as_ref().and_then(|(path, _, _)| at(node, path)?.as_str().map(str::to_owned));
    let state = state_value.as_deref().map(enum_words);
    let key = key.and_then(|field| node.get(field).and_then(text));
    let percent = display.percent.as_ref().and_then(|path| at(node, path)?.as_f64());
    let dates = display
        .dates
        .iter()
        .filter_map(|path| {
            let value = at(node, path)?.as_str()?;
            Some((label(path.last()?), moment(value)))
        })
        .collect::<Vec<_>>();
    let expiry = display.expires.as_ref().and_then(|path| Some((label(path.last()?), at(node, path)?.as_str()?)));
    let expired = expiry.as_ref().is_some_and(|(_, value)| passed(value));
    let mut dates = dates;
    if let Some((name, value)) = expiry {
        dates.push((name, moment(value)));
    }
    SectionRow { key, state_value, title: titles.join(" · "), state, percent, dates, expired }
}

/// The document that lists the objects of `search` (a page of 50), its text filter given
/// `text` when it has one.
pub fn choices_request(search: &crate::shape::Search, text: &str, after: Option<&str>) -> GraphQlRequest {
    let mut declarations = Vec::new();
    let mut passed = Vec::new();
    let mut variables = Map::new();
    if let Some(first) = &search.first {
        declarations.push("$first: Int".to_owned());
        passed.push(format!("{first}: $first"));
        variables.insert("first".into(), json!(SECTION_PAGE));
    }
    if let Some((name, ty)) = search.text.as_ref().filter(|_| !text.trim().is_empty()) {
        declarations.push(format!("$text: {ty}"));
        passed.push(format!("{name}: $text"));
        variables.insert("text".into(), json!(text.trim()));
    }
    if let Some(after) = after.filter(|_| search.connection) {
        declarations.push("$after: String".to_owned());
        passed.push("after: $after".to_owned());
        variables.insert("after".into(), json!(after));
    }
    let node = search.display.selection();
    let node = if search.display.keys.contains(&search.key) {
        node
    } else {
        format!("{{ {} {} }}", search.key, &node[2..node.len() - 2])
    };
    let body = if search.connection {
        format!("{{ pageInfo {{ hasNextPage endCursor }} edges {{ node {node} }} }}")
    } else {
        node
    };
    let declared = if declarations.is_empty() { String::new() } else { format!("({})", declarations.join(", ")) };
    let arguments = if passed.is_empty() { String::new() } else { format!("({})", passed.join(", ")) };
    let query = format!("query SupportChoices{declared} {{\n  choices: {}{arguments} {body}\n}}\n", search.field);
    GraphQlRequest { query, variables: Some(Value::Object(variables)), operation_name: None }
}

/// The choices in `value` (the list's value in the answer), those whose title holds `text` when
/// the list could not filter itself.
pub fn read_choices(search: &crate::shape::Search, value: &Value, text: &str) -> (Vec<Choice>, Option<String>) {
    let nodes: Vec<&Value> = if search.connection {
        value["edges"].as_array().map(|edges| edges.iter().map(|edge| &edge["node"]).collect()).unwrap_or_default()
    } else {
        value.as_array().map(|items| items.iter().collect()).unwrap_or_default()
    };
    let wanted = text.trim().to_lowercase();
    let choices = nodes
        .into_iter()
        .filter_map(|node| {
            let row = row_keyed(&search.display, node, Some(&search.key));
            let key = row.key.clone()?;
            let when = row.dates.iter().take(2).map(|(label, value)| format!("{label} {value}")).collect::<Vec<_>>();
            Some(Choice { key, title: row.title, when: when.join(" · ") })
        })
        .filter(|c| search.text.is_some() || wanted.is_empty() || c.title.to_lowercase().contains(&wanted))
        .collect();
    let next = (value["pageInfo"]["hasNextPage"] == json!(true))
        .then(|| value["pageInfo"]["endCursor"].as_str().map(str::to_owned))
        .flatten();
    (choices, next)
}

/// The enrolling mutation for `user` and the chosen object's `key`; its answer under `result`.
pub fn enroll_request(enroll: &crate::shape::Mutation, user: &UserKeys, key: &str) -> Result<GraphQlRequest, String> {
    use crate::shape::Supply;
    let mut declarations = Vec::new();
    let mut passed = Vec::new();
    let mut variables = Map::new();
    for (name, ty, supply) in &enroll.args {
        let value = match supply {
            Supply::UserKey(Key::Ref) => json!(user.ref_),
            Supply::UserKey(Key::Id) => {
                json!(user.id.clone().ok_or("the service names the user by id, and the card has none")?)
            }
            Supply::UserKeys(Key::Ref) => json!([user.ref_]),
            Supply::OtherKey(_) => json!(key),
            _ => continue,
        };
        declarations.push(format!("${name}: {ty}"));
        passed.push(format!("{name}: ${name}"));
        variables.insert(name.clone(), value);
    }
    let selection = enroll.returns.selection("{ __typename }");
    let query = format!(
        "mutation SupportEnroll({}) {{\n  result: {}({}) {selection}\n}}\n",
        declarations.join(", "),
        enroll.field,
        passed.join(", ")
    );
    Ok(GraphQlRequest { query, variables: Some(Value::Object(variables)), operation_name: None })
}

/// The mutation that gives a row of `section` another state, with the row's key and the state as
/// variables; its answer under the alias `result`.
pub fn change_state(change: &crate::shape::Mutation, key: &str, state: &str) -> GraphQlRequest {
    use crate::shape::Supply;
    let mut declarations = Vec::new();
    let mut passed = Vec::new();
    let mut variables = Map::new();
    for (name, ty, supply) in &change.args {
        let value = match supply {
            Supply::ObjectKey(_) => json!(key),
            Supply::State => json!(state),
            _ => continue,
        };
        declarations.push(format!("${name}: {ty}"));
        passed.push(format!("{name}: ${name}"));
        variables.insert(name.clone(), value);
    }
    let selection = change.returns.selection("{ __typename }");
    let query = format!(
        "mutation SupportChangeState({}) {{\n  result: {}({}) {selection}\n}}\n",
        declarations.join(", "),
        change.field,
        passed.join(", ")
    );
    GraphQlRequest { query, variables: Some(Value::Object(variables)), operation_name: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{related, user_type};

    fn sandbox_sections() -> Vec<Related> {
        let schema = apollo_compiler::Schema::parse_and_validate(crate::sandbox::schema::sdl(), "sandbox.graphql")
            .expect("a valid schema");
        related(&schema, &user_type(&schema).expect("a user type"))
    }

    #[test]
    fn a_root_section_is_asked_with_the_users_ref_and_read_as_a_person_reads_it() {
        let sections = sandbox_sections();
        let enrollments = sections.iter().find(|s| s.field == "paginatedEnrollments").expect("enrollments");
        let by_ref = super::super::ByRef::Scan;
        let user = UserKeys { ref_: "u00020".into(), id: None };
        let (request, path) = request(enrollments, &by_ref, &user, Some(50), None).expect("a request");
        assert_eq!(path, ["section"]);
        assert!(request.query.starts_with("query SupportSection($user: String!, $first: Int)"), "{}", request.query);
        assert!(request.query.contains("paginatedEnrollments(userRef: $user, first: $first)"), "{}", request.query);
        assert_eq!(request.variables, Some(json!({ "user": "u00020", "first": 50 })));
        let schema =
            apollo_compiler::Schema::parse_and_validate(crate::sandbox::schema::sdl(), "s.graphql").expect("valid");
        let valid = apollo_compiler::ExecutableDocument::parse_and_validate(&schema, &request.query, "q.graphql");
        assert!(valid.is_ok(), "{:?}", valid.err());
        let value = json!({
            "count": 2,
            "pageInfo": { "hasNextPage": true, "endCursor": "c2" },
            "edges": [{ "node": {
                "id": "e1", "ref": "e00001", "status": "NO_SHOW", "updatedAt": "2026-01-02T03:04:05Z",
                "offer": { "title": "May session", "startsAt": "2026-05-03T09:00:00Z", "endsAt": "2026-05-03T17:00:00Z",
                           "moduleGroup": { "title": "Fire safety", "training": { "title": "Fire safety" } } }
            } }]
        });
        let (rows, total, next) = read(enrollments, &value, Some("ref"));
        assert_eq!((total, next.as_deref()), (Some(2), Some("c2")));
        assert_eq!(rows[0].title, "May session · Fire safety");
        assert_eq!((rows[0].key.as_deref(), rows[0].state_value.as_deref()), (Some("e00001"), Some("NO_SHOW")));
        assert_eq!(rows[0].state.as_deref(), Some("No show"));
        assert!(
            rows[0].dates.contains(&("Starts at".to_owned(), "2026-05-03 09:00".to_owned())),
            "{:?}",
            rows[0].dates
        );
    }

    #[test]
    fn an_expired_certificate_says_so_and_a_percentage_is_a_number() {
        let sections = sandbox_sections();
        let certificates = sections.iter().find(|s| s.field == "paginatedCertificates").expect("certificates");
        let old = json!({ "ref": "c1", "issuedAt": "2020-01-01T00:00:00Z", "expiresAt": "2021-01-01T00:00:00Z", "training": { "title": "First aid" } });
        let row = row_keyed(&certificates.display, &old, None);
        assert!(row.expired && row.title == "First aid", "{row:?}");
        let progress = sections.iter().find(|s| s.field == "paginatedProgress").expect("progress");
        let row = super::row_keyed(
            &progress.display,
            &json!({ "percent": 40, "status": "IN_PROGRESS", "training": { "title": "Safety" } }),
            None,
        );
        assert_eq!((row.percent, row.state.as_deref()), (Some(40.0), Some("In progress")));
    }

    #[test]
    fn a_nested_section_is_asked_through_the_user() {
        let schema = apollo_compiler::Schema::parse_and_validate(crate::shape::tests::NESTED_SDL, "nested.graphql")
            .expect("valid");
        let sections = related(&schema, "User");
        let by_ref = super::super::ByRef::Field {
            field: "user".into(),
            arg: super::super::Arg { name: "ref".into(), ty: "String!".into() },
        };
        let user = UserKeys { ref_: "u1".into(), id: Some("42".into()) };
        let (request, path) = request(&sections[0], &by_ref, &user, Some(50), Some("c9")).expect("a request");
        assert_eq!(path, ["user", "section"]);
        assert!(
            request.query.contains("user: user(ref: $ref) { section: registrations(first: $first, after: $after)"),
            "{}",
            request.query
        );
        let audit = sections.iter().find(|s| s.field == "auditLog").expect("audit");
        let (request, _) = super::request(audit, &by_ref, &user, Some(50), None).expect("a request");
        assert!(request.query.contains("auditLog(filter: { userId: $user }, first: $first)"), "{}", request.query);
        assert_eq!(request.variables, Some(json!({ "user": "42", "first": 50 })));
        let errors = apollo_compiler::ExecutableDocument::parse_and_validate(&schema, &request.query, "q.graphql");
        assert!(errors.is_ok(), "{:?}", errors.err());
    }
}
