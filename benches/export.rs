//! Export throughput (issue: "Benchmark exporting 10,000 users from the sandbox to CSV, and the
//! flattening + CSV writing alone for 100,000 rows").
//!
//! `cargo bench --bench export` reports:
//! - `export/10k_users_200_pages`: the API client walks every page of a 10,000-user sandbox on
//!   loopback and the table module writes each node as a CSV row (to a sink);
//! - `csv/100k_rows`: flattening and CSV writing alone of 100,000 user nodes held in memory;
//! - `xlsx/100k_rows`: the same nodes, 200 pages of 500, into a workbook
//!   (`table::XlsxFile`: typed cells, rust_xlsxwriter's constant-memory mode, written to a file in
//!   a temporary folder and committed, the zip compression included);
//! - `changes/compare_100k_rows`: what an export with `--changes-since` adds per row, for 100,000
//!   users against a baseline of 100,000 (1 % renamed, 1 % gone, 1 % new): each node's cells as
//!   text, their digest, the look-up and comparison, and the rows removed at the end;
//! - `changes/record_100k_rows`: keeping those 100,000 rows (key, digest, cells) in the store
//!   after an export, one transaction in a fresh SQLite file.
//!
//! Peak memory of the whole command, and the Python baseline, are measured by
//! `benches/export-compare.sh`.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orgql::api::{BaseUrl, Client, ClientOptions, Credentials, Pager};
use orgql::export::changes::{Baseline, Change, Snapshot, digest};
use orgql::query::{PagingOptions, locate};
use orgql::sandbox::{Config, Server};
use orgql::secret::Secret;
use orgql::store::{NewExport, Store};
use orgql::table::{About, CsvOptions, CsvWriter, Row, XlsxFile, cells};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const QUERY: &str = "{ paginatedUsers(first: 50) { edges { node { ref name email isActive groups { name } extraFields { value } } } } }";

fn nodes(count: usize) -> Vec<Value> {
    let db = orgql::sandbox::data::generate(count, 1);
    db.users
        .iter()
        .map(|u| {
            let groups: Vec<Value> = u
                .groups
                .iter()
                .filter_map(|g| db.groups.by_seq(*g))
                .map(|g| json!({ "name": g.name }))
                .collect();
            let extra: Vec<Value> = u.extra.iter().map(|e| json!({ "value": e.value })).collect();
            json!({ "ref": u.ref_, "name": u.name, "email": u.email, "isActive": u.is_active, "groups": groups, "extraFields": extra })
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let server = runtime.block_on(Server::start(Config { users: 10_000, ..Config::default() })).expect("sandbox");
    let credentials = Credentials {
        base_url: BaseUrl::parse(server.base_url()).expect("base URL"),
        client_id: "sandbox-reader".into(),
        client_secret: Secret::new("sandbox-secret"),
        scopes: "users.read".parse().expect("scopes"),
    };
    let client = Arc::new(Client::new(credentials, ClientOptions::default(), None).expect("client"));
    let cancel = CancellationToken::new();

    let mut group = c.benchmark_group("export");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Elements(10_000));
    group.bench_function("10k_users_200_pages", |b| {
        b.to_async(&runtime).iter(|| async {
            let mut pager = Pager::new(client.clone(), QUERY, None, None, PagingOptions::default()).expect("pager");
            let mut csv = CsvWriter::new(std::io::sink(), &pager.site().columns, CsvOptions::default()).expect("csv");
            while let Some(page) = pager.next_page(&cancel).await.expect("page") {
                csv.write_page(&page.data, pager.site()).expect("rows");
            }
            assert_eq!(csv.rows(), 10_000);
        })
    });
    group.finish();

    let site = locate(QUERY, None).expect("connection");
    let nodes = nodes(100_000);
    let mut group = c.benchmark_group("csv");
    group.sample_size(10).throughput(Throughput::Elements(nodes.len() as u64));
    group.bench_function("100k_rows", |b| {
        b.iter(|| {
            let mut csv = CsvWriter::new(std::io::sink(), &site.columns, CsvOptions::default()).expect("csv");
            for node in &nodes {
                csv.write_node(node).expect("row");
            }
            csv.rows()
        })
    });
    group.finish();

    let pages: Vec<Value> = nodes
        .chunks(500)
        .map(|page| {
            let edges: Vec<Value> = page.iter().map(|node| json!({ "node": node })).collect();
            json!({ "paginatedUsers": { "edges": edges } })
        })
        .collect();
    let folder = tempfile::tempdir().expect("temporary folder");
    let out = folder.path().join("users.xlsx");
    let mut group = c.benchmark_group("xlsx");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(30))
        .throughput(Throughput::Elements(nodes.len() as u64));
    group.bench_function("100k_rows", |b| {
        b.iter(|| {
            let about = About { query: QUERY.into(), connection: "bench".into() };
            let mut file = XlsxFile::create(&out, &site.columns, about).expect("workbook");
            for page in &pages {
                file.write_page(page, &site).expect("rows");
            }
            file.commit().expect("committed")
        })
    });
    group.finish();

    // The baseline: every node as the export keeps it; the new walk: 1 % renamed, 1 % gone, 1 % new.
    let keep = |node: &Value| {
        let row = Row::new(cells(node, &site.columns));
        (row.cell(0).unwrap_or_default().to_owned(), digest(row.cells()), row)
    };
    let before = Snapshot {
        key_column: "ref".into(),
        columns: site.columns.iter().map(|c| c.name.clone()).collect(),
        rows: nodes.iter().map(keep).collect(),
    };
    let mut after: Vec<Value> = nodes.iter().skip(1_000).cloned().collect();
    for node in after.iter_mut().step_by(100) {
        node["name"] = json!("Renamed Since");
    }
    after.extend((0..1_000).map(|i| json!({ "ref": format!("new{i:05}"), "name": "New Joiner", "email": "new@example.org", "isActive": true, "groups": [], "extraFields": [] })));
    let mut group = c.benchmark_group("changes");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(after.len() as u64));
    group.bench_function("compare_100k_rows", |b| {
        b.iter(|| {
            let mut baseline = Baseline::from_snapshot(before.clone(), "bench".into());
            let (mut written, mut kept) = (0u64, Vec::with_capacity(after.len()));
            for node in &after {
                let (key, hash, row) = keep(node);
                if baseline.compare(&key, &row) != Change::Same {
                    written += 1;
                }
                kept.push((key, hash, row));
            }
            written + baseline.removed().count() as u64
        })
    });
    let store_folder = tempfile::tempdir().expect("temporary folder");
    let mut round = 0;
    group.bench_function("record_100k_rows", |b| {
        b.iter(|| {
            round += 1;
            let store = Store::open(&store_folder.path().join(format!("orgql-{round}.sqlite3"))).expect("store");
            let export =
                NewExport { identity: "bench", query: QUERY, connection: "bench", file: "users.csv", rows: 100_000 };
            store.record_export(&export, &before).expect("recorded")
        })
    });
    group.finish();
}

criterion_group!(export, benches);
criterion_main!(export);
