//! Bulk changes from a spreadsheet (issue 22), no egui: read the file ([`read`]), map its columns
//! onto the user fields the service's mutations take ([`target`], [`mapping`]), plan every row
//! against the service's current data ([`plan`]), and apply the plan row by row with a journal
//! in the store ([`apply`]), writing the plan, results and undo files ([`files`]).
//!
//! Plan first, apply later, and keep the two apart: the plan is data, written to a file and to
//! the journal; applying walks the journal, so an interrupted import resumes without applying a
//! row twice, and undo is another import built from the journal's old values.

pub mod apply;
pub mod files;
pub mod mapping;
pub mod plan;
pub mod read;
pub mod rehearse;
pub mod service;
pub mod session;
pub mod target;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use apollo_compiler::Schema;
use tokio_util::sync::CancellationToken;

pub use apply::{Applied, ApplyOptions, Stopped, apply};
pub use mapping::{Mapping, Use};
pub use plan::{Action, Change, Counts, PlanOptions, PlannedRow, Wanted};
pub use read::{FileKind, ReadError, TextEncoding};
pub use service::Reading;
pub use target::{Field, Kind, Target};

use crate::api::{ApiError, Client};

/// A file read and converted, before the service is asked anything.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// How it was read.
    pub kind: FileKind,
    /// Which column sets what.
    pub mapping: Mapping,
    /// Its rows, converted (duplicates marked invalid).
    pub rows: Vec<Wanted>,
    /// A value of each column (the first non-empty one among the first rows), to recognise it by.
    pub examples: Vec<String>,
}

/// Rows looked at for a column's example value.
const EXAMPLE_ROWS: usize = 20;

/// Reads `path` (its `sheet`), maps its header (`key`, `remembered`, `overrides`: see
/// [`Mapping::build`]) and converts every row. The error is one sentence saying what to do.
pub fn prepare(
    path: &Path,
    sheet: Option<&str>,
    target: &Target,
    key: Option<&str>,
    remembered: impl FnOnce(&[String]) -> Option<BTreeMap<String, Use>>,
    overrides: &[(String, String)],
) -> Result<Prepared, String> {
    let mut table = read::open(path, sheet).map_err(|e| e.to_string())?;
    let remembered = remembered(&table.header);
    let mapping = Mapping::build(&table.header, target, key, remembered.as_ref(), overrides)?;
    let mut rows = Vec::new();
    let mut examples = vec![String::new(); mapping.header.len()];
    while let Some(record) = table.next_record() {
        let record = record.map_err(|e| e.to_string())?;
        if rows.len() < EXAMPLE_ROWS {
            for (example, cell) in examples.iter_mut().zip(&record.cells) {
                if example.is_empty() && !cell.trim().is_empty() {
                    example.clone_from(cell);
                }
            }
        }
        rows.push(plan::wanted(&record, &mapping, target));
    }
    plan::mark_duplicates(&mut rows);
    Ok(Prepared { kind: table.kind, mapping, rows, examples })
}

/// What the service was asked while planning.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Every row planned, in file order; then the users missing from the file to archive.
    pub rows: Vec<PlannedRow>,
    /// Requests made to read the current users.
    pub requests: u64,
    /// What was read of each user (to re-read them when applying).
    pub reading: Reading,
}

/// Why a plan could not be made.
#[derive(Debug)]
pub enum PlanError {
    /// The service failed.
    Service(ApiError),
    /// Refused (a share of users to archive too large).
    Refused(String),
}

/// Plans `prepared` against the service's current users.
pub async fn make_plan(
    client: &Arc<Client>,
    schema: &Schema,
    target: &Target,
    prepared: Prepared,
    options: PlanOptions,
    cancel: &CancellationToken,
    on_request: impl FnMut(u64, Option<u64>),
) -> Result<Planned, PlanError> {
    let fields: Vec<&str> = prepared.mapping.fields().map(|(_, f)| f).collect();
    let reading = Reading::new(schema, target, &fields, prepared.mapping.groups_column().is_some());
    let keys: BTreeSet<String> =
        prepared.rows.iter().filter(|r| r.invalid.is_none() && !r.key.is_empty()).map(|r| r.key.clone()).collect();
    let found = service::read_users(client, schema, &reading, &keys, options.archive_missing, cancel, on_request)
        .await
        .map_err(PlanError::Service)?;
    let listed: BTreeSet<String> = prepared.rows.iter().map(|r| r.key.clone()).collect();
    let mut rows: Vec<PlannedRow> =
        prepared.rows.into_iter().map(|w| plan::classify(&w, found.users.get(&w.key), target)).collect();
    if options.archive_missing {
        let Some(active) = target.active_field.as_deref() else {
            return Err(PlanError::Refused(
                "--archive-missing needs a field that says whether a user is active, and the service's user type has none".into(),
            ));
        };
        let all = found.all.unwrap_or_default();
        rows.extend(plan::missing_to_archive(&listed, &all, &options, active).map_err(PlanError::Refused)?);
    }
    Ok(Planned { rows, requests: found.requests, reading })
}
