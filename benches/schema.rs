//! Schema explorer at the size of the biggest public GraphQL APIs (issue 5, "Performance"):
//! a synthetic schema of 1,500 types and 10,000 fields.
//!
//! `cargo bench --bench schema` reports:
//! - `schema/introspection_json_to_model`: the introspection response's JSON text read leniently,
//!   turned into SDL, parsed and validated by apollo-compiler, root paths and the name index
//!   built: the explorer tree is ready (aim below 100 ms);
//! - `schema/introspection_json_to_sdl`: the first part of that alone (JSON read, SDL written and
//!   validated: `api::read_introspection_json`);
//! - `schema/sdl_to_model`: the rest alone, as when the model is built from the SDL cached in
//!   the local store;
//! - `schema/search_*`: search over every type and field name (aim below 10 ms).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use orgql::api::read_introspection_json;
use orgql::explorer::SchemaModel;
use orgql::explorer::synthetic::{introspection_json, schema_sdl};

const TYPES: usize = 1_500;
const FIELDS: usize = 10_000;

fn benches(c: &mut Criterion) {
    let json = introspection_json(TYPES, FIELDS);
    let sdl = schema_sdl(TYPES, FIELDS);
    let model = SchemaModel::from_introspection_json(&json).expect("a model");
    assert_eq!((model.type_count(), model.field_count()), (TYPES, FIELDS));
    assert!(model.skipped().is_empty(), "{:?}", model.skipped());
    println!("introspection JSON: {} bytes; SDL: {} bytes", json.len(), sdl.len());

    let mut group = c.benchmark_group("schema");
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    group.bench_function("introspection_json_to_model", |b| {
        b.iter(|| SchemaModel::from_introspection_json(black_box(&json)).expect("a model"))
    });
    group.bench_function("introspection_json_to_sdl", |b| {
        b.iter(|| read_introspection_json(black_box(&json)).expect("an introspection result"))
    });
    group.bench_function("sdl_to_model", |b| b.iter(|| SchemaModel::from_sdl(black_box(&sdl)).expect("a model")));
    group.finish();

    let mut group = c.benchmark_group("schema");
    // "e" matches most names (the most hits to rank); "account" a few hundred; "zzz" none.
    for needle in ["e", "account", "zzz"] {
        group.bench_function(format!("search_{needle}"), |b| b.iter(|| model.search(black_box(needle), 50)));
    }
    group.finish();
}

criterion_group!(schema, benches);
criterion_main!(schema);
