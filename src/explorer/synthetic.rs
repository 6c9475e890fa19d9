//! Deterministic synthetic schemas of any size, for benchmarks and tests: the shape of a large
//! real API (root query and mutation, object types nested many levels deep, input objects,
//! enums, descriptions naming scopes, `@deprecated` fields and enum values, arguments of scalar,
//! enum and input types).

use std::collections::HashSet;
use std::fmt::{self, Write as _};

use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema, introspection};

use crate::api::{CAPABILITIES_QUERY, Capabilities};

/// Nouns for object type names (inputs take an object's name plus `Input`).
const NOUNS: &[&str] = &[
    "Account",
    "Invoice",
    "Order",
    "Product",
    "Customer",
    "Shipment",
    "Warehouse",
    "Supplier",
    "Payment",
    "Refund",
    "Coupon",
    "Review",
    "Ticket",
    "Agent",
    "Project",
    "Task",
    "Milestone",
    "Document",
    "Folder",
    "Comment",
    "Team",
    "Member",
    "Session",
    "Device",
    "Region",
    "Store",
    "Cart",
    "Catalog",
    "Message",
    "Report",
    "Budget",
    "Contract",
];

/// Enum type names.
const ENUMS: &[&str] =
    &["Status", "Kind", "Level", "Tier", "Phase", "Mode", "Priority", "Visibility", "Currency", "Severity"];

/// Enum value names.
const VALUES: &[&str] = &["ACTIVE", "PENDING", "ARCHIVED", "DRAFT", "CLOSED", "OPEN", "LOW", "HIGH"];

/// Scalar field names with their types.
const SCALARS: &[(&str, &str)] = &[
    ("name", "String!"),
    ("email", "String"),
    ("title", "String!"),
    ("summary", "String"),
    ("createdAt", "DateTime!"),
    ("updatedAt", "DateTime"),
    ("count", "Int!"),
    ("total", "Float"),
    ("price", "Float!"),
    ("quantity", "Int"),
    ("isActive", "Boolean!"),
    ("isArchived", "Boolean"),
    ("url", "String"),
    ("phone", "String"),
    ("code", "ID!"),
    ("note", "String"),
    ("score", "Float"),
    ("rank", "Int"),
    ("weight", "Float"),
    ("label", "String"),
];

const READ_SCOPES: &[&str] = &["users.read", "trainings.read", "groups.read", "events.read"];
const WRITE_SCOPES: &[&str] = &["users.write", "trainings.write", "groups.write", "events.write"];

/// How many types of each kind, and how many fields each gets.
struct Plan {
    objects: usize,
    enums: usize,
    inputs: usize,
    query_fields: usize,
    mutation_fields: usize,
    input_fields: Vec<usize>,
    object_fields: Vec<usize>,
}

impl Plan {
    fn new(types: usize, fields: usize) -> Self {
        let rest = types.saturating_sub(3);
        let objects = (rest * 3 / 5).max(1);
        let enums = rest / 5;
        let inputs = rest.saturating_sub(objects + enums);
        let query_fields = (fields / 40).clamp(2, 40);
        let mutation_fields = (fields / 80).clamp(1, 20);
        let remaining = fields.saturating_sub(query_fields + mutation_fields).max(objects + inputs);
        let input_share = (inputs * 4).min(remaining - objects).max(inputs);
        Plan {
            objects,
            enums,
            inputs,
            query_fields,
            mutation_fields,
            input_fields: spread(input_share, inputs),
            object_fields: spread(remaining - input_share, objects),
        }
    }
}

/// `total` split over `parts` as evenly as possible (the first ones get one more).
fn spread(total: usize, parts: usize) -> Vec<usize> {
    if parts == 0 {
        return Vec::new();
    }
    (0..parts).map(|i| total / parts + usize::from(i < total % parts)).collect()
}

/// The `index`-th name of `words`, with a number from the second round on: `Account`, …, `Account2`.
fn nth_name(words: &[&str], index: usize) -> String {
    let round = index / words.len();
    let word = words[index % words.len()];
    if round == 0 { word.to_owned() } else { format!("{word}{}", round + 1) }
}

fn object_name(index: usize) -> String {
    nth_name(NOUNS, index)
}

fn input_name(index: usize) -> String {
    format!("{}Input", object_name(index))
}

fn enum_name(index: usize) -> String {
    nth_name(ENUMS, index)
}

/// `Account2` → `account2`.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// `name`, or `name2`, `name3`, … when taken.
fn unique(name: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{name}{n}");
        n += 1;
    }
    candidate
}

/// Writes `"text"` on its own line, indented, unless this item goes without (about one in seven).
fn description(out: &mut String, indent: &str, seed: usize, text: &str) -> fmt::Result {
    if seed % 7 != 6 {
        writeln!(out, "{indent}\"{text}\"")?;
    }
    Ok(())
}

/// An SDL schema with `types` named types in all (counting `Query`, `Mutation` and the custom
/// scalar `DateTime`; the rest are three fifths object types, one fifth enums, one fifth input
/// objects) and `fields` fields in all (of object types, the roots included, and input objects).
/// Sizes below the minimum a valid schema needs (four types, one field a type) are raised to it.
/// The same arguments give the same text.
pub fn schema_sdl(types: usize, fields: usize) -> String {
    let plan = Plan::new(types, fields);
    let mut out = String::with_capacity(fields * 90 + types * 60);
    write_schema(&mut out, &plan).expect("writing to a String cannot fail");
    out
}

fn write_schema(out: &mut String, plan: &Plan) -> fmt::Result {
    out.push_str("\"An instant in time, RFC 3339.\"\nscalar DateTime\n\n");
    write_query(out, plan)?;
    write_mutation(out, plan)?;
    for (index, count) in plan.object_fields.iter().enumerate() {
        write_object(out, plan, index, *count)?;
    }
    for (index, count) in plan.input_fields.iter().enumerate() {
        write_input(out, plan, index, *count)?;
    }
    for index in 0..plan.enums {
        write_enum(out, index)?;
    }
    Ok(())
}

/// Arguments of a list field: paging plus, where the schema has them, an enum and an input filter.
fn list_arguments(plan: &Plan, seed: usize) -> String {
    let mut args = String::from("(\n    \"How many to return.\"\n    first: Int = 20\n    after: String");
    if plan.enums > 0 {
        args.push_str("\n    \"Only those in this state.\"\n    state: ");
        args.push_str(&enum_name(seed % plan.enums));
    }
    if plan.inputs > 0 {
        args.push_str("\n    where: ");
        args.push_str(&input_name(seed % plan.inputs));
    }
    args.push_str("\n  )");
    args
}

fn write_query(out: &mut String, plan: &Plan) -> fmt::Result {
    out.push_str("\"The root of every query.\"\ntype Query {\n");
    let mut taken = HashSet::new();
    for i in 0..plan.query_fields {
        let target = object_name((i / 2) % plan.objects);
        let scope = READ_SCOPES[i % READ_SCOPES.len()];
        if i % 2 == 0 {
            let name = unique(lower_first(&target), &mut taken);
            description(out, "  ", i, &format!("{scope}. One {target} by id; null when none has it."))?;
            writeln!(out, "  {name}(\"The id.\" id: ID!): {target}")?;
        } else {
            let name = unique(format!("all{target}s"), &mut taken);
            description(out, "  ", i, &format!("{scope}. Every {target}, a page at a time."))?;
            writeln!(out, "  {name}{}: [{target}!]!", list_arguments(plan, i))?;
        }
    }
    out.push_str("}\n\n");
    Ok(())
}

fn write_mutation(out: &mut String, plan: &Plan) -> fmt::Result {
    out.push_str("\"The root of every mutation.\"\ntype Mutation {\n");
    let mut taken = HashSet::new();
    for i in 0..plan.mutation_fields {
        let target = object_name((i / 3) % plan.objects);
        let scope = WRITE_SCOPES[i % WRITE_SCOPES.len()];
        let input = (plan.inputs > 0).then(|| input_name(i % plan.inputs));
        let (verb, args) = match (i % 3, input) {
            (0, Some(input)) => ("create", format!("(input: {input}!)")),
            (1, Some(input)) => ("update", format!("(id: ID!, input: {input}!)")),
            _ => ("archive", "(id: ID!, \"Why, for the audit log.\" reason: String = \"none given\")".to_owned()),
        };
        let name = unique(format!("{verb}{target}"), &mut taken);
        description(out, "  ", i, &format!("{scope}. Does {verb} a {target}."))?;
        writeln!(out, "  {name}{args}: {target}!")?;
    }
    out.push_str("}\n\n");
    Ok(())
}

/// Object `index` has the children `2i+1` and `2i+2` (a binary tree, so the depth grows with the
/// logarithm of the count), a reference back to its parent, an enum and scalars.
fn write_object(out: &mut String, plan: &Plan, index: usize, count: usize) -> fmt::Result {
    let name = object_name(index);
    description(out, "", index, &format!("A {name} of the organization."))?;
    writeln!(out, "type {name} {{")?;
    let mut taken = HashSet::new();
    for j in 0..count {
        let seed = index * 3 + j;
        let child = matches!(j, 1 | 2).then_some(2 * index + j).filter(|c| *c < plan.objects).map(object_name);
        let (field, ty, args) = match (j, child) {
            (0, _) => ("id".to_owned(), "ID!".to_owned(), String::new()),
            (1, Some(child)) => (lower_first(&child), child, String::new()),
            (2, Some(child)) => {
                (format!("{}s", lower_first(&child)), format!("[{child}!]!"), list_arguments(plan, seed))
            }
            (3, _) if index > 0 => {
                let parent = object_name((index - 1) / 2);
                (format!("parent{parent}"), parent, String::new())
            }
            (4, _) if plan.enums > 0 => {
                let kind = enum_name(seed % plan.enums);
                (lower_first(&kind), format!("{kind}!"), String::new())
            }
            _ => {
                let (word, ty) = SCALARS[(j + index) % SCALARS.len()];
                let args = if ty.starts_with("DateTime") { "(format: String = \"rfc3339\")" } else { "" };
                (word.to_owned(), ty.to_owned(), args.to_owned())
            }
        };
        let field = unique(field, &mut taken);
        description(out, "  ", seed, &format!("The {field} of the {name}."))?;
        let deprecated = if j > 0 && seed % 13 == 12 { " @deprecated(reason: \"Use `id` instead.\")" } else { "" };
        writeln!(out, "  {field}{args}: {ty}{deprecated}")?;
    }
    out.push_str("}\n\n");
    Ok(())
}

/// Input `index` has scalars (some required, some with defaults), an enum and the next input.
fn write_input(out: &mut String, plan: &Plan, index: usize, count: usize) -> fmt::Result {
    let name = input_name(index);
    description(out, "", index, &format!("What to write into a {}.", object_name(index)))?;
    writeln!(out, "input {name} {{")?;
    let mut taken = HashSet::new();
    for j in 0..count {
        let seed = index + j;
        let (field, ty) = match j {
            1 if plan.enums > 0 => {
                let kind = enum_name(seed % plan.enums);
                (lower_first(&kind), format!("{kind} = {}", VALUES[0]))
            }
            2 if index + 1 < plan.inputs => ("and".to_owned(), input_name(index + 1)),
            _ => {
                let (word, ty) = SCALARS[seed % SCALARS.len()];
                let ty = match ty {
                    "Int" => "Int = 10".to_owned(),
                    ty if j > 0 => ty.trim_end_matches('!').to_owned(),
                    ty => ty.to_owned(),
                };
                (word.to_owned(), ty)
            }
        };
        let field = unique(field, &mut taken);
        description(out, "  ", seed, &format!("The {field} to set."))?;
        writeln!(out, "  {field}: {ty}")?;
    }
    out.push_str("}\n\n");
    Ok(())
}

fn write_enum(out: &mut String, index: usize) -> fmt::Result {
    let name = enum_name(index);
    description(out, "", index, &format!("The {} of something.", lower_first(&name)))?;
    writeln!(out, "enum {name} {{")?;
    for (v, value) in VALUES.iter().take(3 + index % 4).enumerate() {
        if v % 2 == 0 {
            writeln!(out, "  \"{value} as it says.\"")?;
        }
        let deprecated = if v == 3 && index.is_multiple_of(5) { " @deprecated(reason: \"Use `CLOSED`.\")" } else { "" };
        writeln!(out, "  {value}{deprecated}")?;
    }
    out.push_str("}\n\n");
    Ok(())
}

/// The schema of [`schema_sdl`] as a standard introspection response, `{"data":{"__schema":…}}`:
/// the answer a server gives to the client's own introspection query (`api::Client::introspect`),
/// computed by apollo-compiler's introspection execution.
pub fn introspection_json(types: usize, fields: usize) -> String {
    let schema = Schema::parse_and_validate(schema_sdl(types, fields), "synthetic.graphql")
        .unwrap_or_else(|e| panic!("the synthetic schema is valid: {}", e.errors));
    introspect(&schema)
}

/// Runs the client's introspection queries against `schema` as a server would answer them: the
/// capability probe, then the full query it leads to; the response as JSON text.
fn introspect(schema: &Valid<Schema>) -> String {
    let probe = execute(schema, CAPABILITIES_QUERY);
    let capabilities = Capabilities::from_probe(&probe).expect("apollo-compiler answers the probe");
    let data = execute(schema, &capabilities.query());
    serde_json::json!({ "data": data }).to_string()
}

/// The `data` of an introspection query run by apollo-compiler.
fn execute(schema: &Valid<Schema>, query: &str) -> serde_json::Value {
    let document = ExecutableDocument::parse_and_validate(schema, query, "introspection.graphql")
        .unwrap_or_else(|e| panic!("the introspection query is valid: {}", e.errors));
    let operation = document.operations.get(None).expect("one operation");
    let no_variables = Default::default();
    let variables = Valid::assume_valid_ref(&no_variables);
    let response = introspection::partial_execute(schema, &schema.implementers_map(), &document, operation, variables)
        .unwrap_or_else(|e| panic!("introspection runs: {}", e.message()));
    serde_json::to_value(response.data).expect("introspection data is JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_deterministic_and_valid_at_every_size() {
        for (types, fields) in [(0, 0), (4, 4), (10, 30), (60, 300), (1_500, 10_000)] {
            let sdl = schema_sdl(types, fields);
            assert_eq!(sdl, schema_sdl(types, fields));
            Schema::parse_and_validate(sdl, "s.graphql").unwrap_or_else(|e| panic!("{types}/{fields}: {}", e.errors));
        }
    }

    #[test]
    fn introspection_answers_the_clients_query() {
        let json = introspection_json(30, 150);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let schema = &value["data"]["__schema"];
        assert_eq!(schema["queryType"]["name"], "Query");
        assert_eq!(schema["mutationType"]["name"], "Mutation");
        assert!(schema["types"].as_array().unwrap().iter().any(|t| t["name"] == "Account"));
    }
}
