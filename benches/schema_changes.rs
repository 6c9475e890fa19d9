//! Comparing two versions of a large schema (issue 30, "Done when": two schemas of 2,000 types
//! compared in under 50 ms).
//!
//! `cargo bench --bench schema_changes` reports:
//! - `schema_changes/compare_2000_types`: two shapes of 2,000 types (12,000 fields) compared and
//!   every change classified, the second one with fields removed, added, retyped and deprecated
//!   (with alternatives to look up) and enum values added;
//! - `schema_changes/shape_and_fingerprint_2000_types`: one parsed schema read into its shape
//!   and hashed (what a fetch costs before its one hash comparison with the last version);
//! - `schema_changes/from_sdl_and_compare_2000_types`: two versions read from SDL text, as the
//!   store keeps them, then compared (the same text twice: what it adds is the parsing).

use std::hint::black_box;
use std::time::Duration;

use apollo_compiler::Schema;
use criterion::{Criterion, criterion_group, criterion_main};
use orgql::explorer::synthetic::schema_sdl;
use orgql::schema_diff::{FieldShape, SchemaShape, TypeKind, TypeRef, compare};

const TYPES: usize = 2_000;
const FIELDS: usize = 12_000;

/// The next version of `old`: every 7th object loses a field, every 5th gains one, every 11th
/// has a field deprecated in favour of a new one of the same type, every 13th has a field
/// retyped; every enum gains a value.
fn next_version(old: &SchemaShape) -> SchemaShape {
    let mut new = old.clone();
    for (i, ty) in new.types.values_mut().enumerate() {
        match ty.kind {
            TypeKind::Object if ty.fields.len() > 2 => {
                let first = ty.fields.keys().next().cloned().unwrap_or_default();
                if i % 7 == 0 {
                    ty.fields.remove(&first);
                } else if i % 11 == 0 {
                    let field = ty.fields.get_mut(&first).expect("the first field");
                    field.deprecated = Some(format!("Use `{first}V2`."));
                    let replacement = FieldShape { deprecated: None, ..field.clone() };
                    ty.fields.insert(format!("{first}V2"), replacement);
                } else if i % 13 == 0 {
                    ty.fields.get_mut(&first).expect("the first field").ty = TypeRef::Named("Float".into());
                }
                if i % 5 == 0 {
                    let field = FieldShape {
                        ty: TypeRef::Named("String".into()),
                        args: Default::default(),
                        deprecated: None,
                        description: String::new(),
                    };
                    ty.fields.insert("addedLater".into(), field);
                }
            }
            TypeKind::Enum => {
                ty.values.insert("ADDED_LATER".into(), Default::default());
            }
            _ => {}
        }
    }
    new
}

fn benches(c: &mut Criterion) {
    let sdl = schema_sdl(TYPES, FIELDS);
    let schema = Schema::parse(sdl.clone(), "old.graphql").expect("the synthetic schema parses");
    let old = SchemaShape::of(&schema);
    let new = next_version(&old);
    let changes = compare(&old, &new);
    println!("{} types; {} changes between the versions", old.types.len(), changes.len());
    assert!(old.types.len() >= TYPES && changes.len() > 500, "{}", changes.len());

    let mut group = c.benchmark_group("schema_changes");
    group.sample_size(20).measurement_time(Duration::from_secs(8));
    group.bench_function("compare_2000_types", |b| b.iter(|| compare(black_box(&old), black_box(&new))));
    group.bench_function("shape_and_fingerprint_2000_types", |b| {
        b.iter(|| SchemaShape::of(black_box(&schema)).fingerprint())
    });
    group.bench_function("from_sdl_and_compare_2000_types", |b| {
        b.iter(|| {
            let a = SchemaShape::from_sdl(black_box(&sdl)).expect("a shape");
            let b = SchemaShape::from_sdl(black_box(&sdl)).expect("a shape");
            compare(&a, &b)
        })
    });
    group.finish();
}

criterion_group!(schema_changes, benches);
criterion_main!(schema_changes);
