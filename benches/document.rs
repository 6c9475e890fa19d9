//! Editing, validating and completing a document against a schema at the size of the biggest
//! public GraphQL APIs (issue 5, "Performance"): a synthetic schema of 1,500 types and 10,000
//! fields, and queries generated from it.
//!
//! `cargo bench --bench document` reports:
//! - `document/tick_3_deep_50_lines`: a checkbox edit round-trip: a field three levels deep
//!   ticked in a 50-line query, the edit applied and the ticks read again (aim below 5 ms);
//! - `document/untick_3_deep_50_lines`: the same, unticking it;
//! - `document/selected_paths_200_lines`: the ticks of a 200-line query;
//! - `document/validate_200_lines`: apollo-compiler's validation of a 200-line query and the
//!   deprecation warnings (aim below 10 ms);
//! - `document/complete_200_lines`: a completion request in the middle of a 200-line query;
//! - `document/prettify_2000_lines`: Prettify (Shift+Ctrl+P) of a 2,000-line query with a
//!   comment every 20 lines, written on few lines (`prettify_2000_lines_laid_out` the same
//!   query already laid out).

use std::hint::black_box;

use apollo_compiler::Schema;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::validation::Valid;
use criterion::{Criterion, criterion_group, criterion_main};
use orgql::explorer::synthetic::schema_sdl;
use orgql::query::OperationKind;
use orgql::query::lang::{Severity, complete, prettify, selected_paths, toggle_field, validate};

/// How deep generated queries nest.
const MAX_DEPTH: usize = 6;
/// How many leaf fields a generated selection set takes at most.
const LEAVES_PER_SET: usize = 3;

/// Writes a query of about `target` lines selecting fields of `schema` from its root.
struct QueryWriter<'s> {
    schema: &'s Schema,
    lines: Vec<String>,
    /// Selection sets open (their closing brace still to write).
    open: usize,
    target: usize,
}

impl QueryWriter<'_> {
    fn write(schema: &Schema, target: usize) -> String {
        let mut writer = QueryWriter { schema, lines: vec!["query Generated {".to_string()], open: 1, target };
        let root = schema.root_operation(apollo_compiler::ast::OperationType::Query).expect("a query type");
        writer.selection(root, 1);
        writer.lines.push("}".to_string());
        writer.lines.join("\n") + "\n"
    }

    fn selection(&mut self, type_name: &str, depth: usize) {
        let indent = "  ".repeat(depth);
        let fields: Vec<&FieldDefinition> = match self.schema.types.get(type_name) {
            Some(ExtendedType::Object(object)) => object.fields.values().map(|field| &***field).collect(),
            Some(ExtendedType::Interface(interface)) => interface.fields.values().map(|field| &***field).collect(),
            _ => Vec::new(),
        };
        let (mut leaves, mut written) = (0, 0);
        for field in fields {
            if self.lines.len() + self.open >= self.target && written > 0 {
                break;
            }
            let Some(arguments) = self.arguments(field) else { continue };
            match self.schema.types.get(field.ty.inner_named_type()) {
                Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
                    if leaves < LEAVES_PER_SET && self.lines.len() + self.open < self.target =>
                {
                    self.lines.push(format!("{indent}{}{arguments}", field.name));
                    leaves += 1;
                    written += 1;
                }
                Some(ExtendedType::Object(_) | ExtendedType::Interface(_))
                    if depth < MAX_DEPTH && self.lines.len() + self.open + 3 <= self.target =>
                {
                    self.lines.push(format!("{indent}{}{arguments} {{", field.name));
                    self.open += 1;
                    self.selection(field.ty.inner_named_type(), depth + 1);
                    self.open -= 1;
                    self.lines.push(format!("{indent}}}"));
                    written += 1;
                }
                _ => {}
            }
        }
        if written == 0 {
            self.lines.push(format!("{indent}__typename"));
        }
    }

    /// The arguments to write: a literal for each required one and `first: 5` where it is
    /// taken; `None` when a required argument has no simple literal (an input object).
    fn arguments(&self, field: &FieldDefinition) -> Option<String> {
        let mut given = Vec::new();
        for argument in &field.arguments {
            if argument.name == "first" {
                given.push("first: 5".to_string());
            } else if argument.is_required() {
                given.push(format!("{}: {}", argument.name, self.literal(argument.ty.inner_named_type())?));
            }
        }
        Some(if given.is_empty() { String::new() } else { format!("({})", given.join(", ")) })
    }

    fn literal(&self, type_name: &str) -> Option<String> {
        match type_name {
            "Int" => Some("1".to_string()),
            "Float" => Some("1.5".to_string()),
            "Boolean" => Some("true".to_string()),
            "String" | "ID" | "DateTime" => Some("\"2026-01-01T00:00:00Z\"".to_string()),
            _ => Some(self.schema.get_enum(type_name)?.values.keys().next()?.to_string()),
        }
    }
}

/// A path three fields deep that `query` does not select: two selected object fields and a leaf
/// of the second one's type.
fn unselected_path(schema: &Schema, query: &str) -> Vec<String> {
    let state = selected_paths(query, None);
    let root = schema.root_operation(apollo_compiler::ast::OperationType::Query).expect("a query type");
    for path in state.paths(OperationKind::Query).into_iter().filter(|path| path.len() == 2) {
        let first = schema.type_field(root, &path[0]).expect("a field");
        let second = schema.type_field(first.ty.inner_named_type(), &path[1]).expect("a field");
        let Some(ExtendedType::Object(object)) = schema.types.get(second.ty.inner_named_type()) else { continue };
        let leaf = object.fields.values().find(|field| {
            let plain = field.arguments.iter().all(|argument| !argument.is_required());
            let scalar = schema.types.get(field.ty.inner_named_type()).is_some_and(ExtendedType::is_leaf);
            let chosen = [path[0].as_str(), path[1].as_str(), field.name.as_str()];
            plain && scalar && !state.is_selected(OperationKind::Query, &chosen)
        });
        if let Some(leaf) = leaf {
            return vec![path[0].clone(), path[1].clone(), leaf.name.to_string()];
        }
    }
    panic!("no unselected leaf three levels deep in:\n{query}");
}

/// A cursor two characters into a leaf field's name near the middle of `query`.
fn middle_cursor(query: &str) -> usize {
    let mut offset = 0;
    for (index, line) in query.split_inclusive('\n').enumerate() {
        let name = line.trim();
        let indent = line.len() - line.trim_start().len();
        if index >= query.lines().count() / 2 && indent >= 6 && name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return offset + indent + 2;
        }
        offset += line.len();
    }
    panic!("no leaf field in the second half of the query");
}

fn benches(c: &mut Criterion) {
    let sdl = schema_sdl(1_500, 10_000);
    let schema: Valid<Schema> = Schema::parse_and_validate(sdl, "synthetic.graphql").expect("a valid schema");
    let small = QueryWriter::write(&schema, 50);
    let large = QueryWriter::write(&schema, 200);
    for query in [&small, &large] {
        let errors: Vec<_> = validate(&schema, query).into_iter().filter(|p| p.severity == Severity::Error).collect();
        assert!(errors.is_empty(), "{errors:#?}\n{query}");
    }
    assert_eq!((small.lines().count(), large.lines().count()), (50, 200));

    let path = unselected_path(&schema, &small);
    let ticked = toggle_field(&small, OperationKind::Query, &path, true).expect("an edit").expect("a change");
    let with_field = ticked.apply(&small);
    let mut group = c.benchmark_group("document");
    group.bench_function("tick_3_deep_50_lines", |b| {
        b.iter(|| {
            let edit = toggle_field(black_box(&small), OperationKind::Query, &path, true).expect("an edit");
            let text = edit.expect("a change").apply(&small);
            selected_paths(&text, None)
        })
    });
    group.bench_function("untick_3_deep_50_lines", |b| {
        b.iter(|| {
            let edit = toggle_field(black_box(&with_field), OperationKind::Query, &path, false).expect("an edit");
            let text = edit.expect("a change").apply(&with_field);
            selected_paths(&text, None)
        })
    });
    group.bench_function("selected_paths_200_lines", |b| b.iter(|| selected_paths(black_box(&large), None)));
    group.bench_function("validate_200_lines", |b| b.iter(|| validate(&schema, black_box(&large))));
    let cursor = middle_cursor(&large);
    assert!(!complete(&schema, &large, cursor).items.is_empty());
    group.bench_function("complete_200_lines", |b| b.iter(|| complete(&schema, black_box(&large), cursor)));
    // 2,000 lines with comments, squeezed onto few lines (a comment ends its line).
    let huge = QueryWriter::write(&schema, 2_000);
    let commented: String = huge
        .lines()
        .enumerate()
        .map(|(i, line)| if i % 20 == 10 { format!("{line} # note {i}\n") } else { format!("{} ", line.trim()) })
        .collect();
    let laid_out = prettify(&commented).expect("a valid document");
    assert_eq!(laid_out.matches("# note").count(), huge.lines().count().div_ceil(20), "every comment kept");
    assert!(laid_out.lines().count() >= 2_000, "one selection a line");
    assert_eq!(prettify(&laid_out).as_ref(), Ok(&laid_out), "prettify is stable");
    group.bench_function("prettify_2000_lines", |b| b.iter(|| prettify(black_box(&commented))));
    group.bench_function("prettify_2000_lines_laid_out", |b| b.iter(|| prettify(black_box(&laid_out))));
    group.finish();
}

criterion_group!(document, benches);
criterion_main!(document);
