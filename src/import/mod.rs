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
pub mod keys;
pub mod mapping;
pub mod plan;
pub mod read;
pub mod rehearse;
pub mod service;
pub mod session;
pub mod target;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use apollo_compiler::Schema;
use tokio_util::sync::CancellationToken;

pub use apply::{Applied, ApplyOptions, Stopped, apply};
pub use keys::{Keys, KeysBuilder};
pub use mapping::{Mapping, Use};
pub use plan::{Action, Change, Counts, PlanOptions, PlannedRow, Wanted};
pub use read::{FileKind, ReadError, TextEncoding};
pub use service::Reading;
pub use target::{Field, Kind, Target};

use crate::api::{ApiError, Client};

/// A file read once, before the service is asked anything: how it is read, which column sets
/// what, and its keys. Its rows are converted on the second read, while the plan is made, so
/// that no more than a row of the file is held at a time (a file may have a million rows).
#[derive(Debug)]
pub struct Prepared {
    /// How it was read.
    pub kind: FileKind,
    /// Which column sets what.
    pub mapping: Mapping,
    /// A value of each column (the first non-empty one among the first rows), to recognise it by.
    pub examples: Vec<String>,
    /// Its keys, which of them are on more than one row, and the fingerprint of the rows.
    pub keys: Keys,
    path: PathBuf,
    sheet: Option<String>,
}

/// Rows looked at for a column's example value.
const EXAMPLE_ROWS: usize = 20;

/// Reads `path` (its `sheet`) once, maps its header (`key`, `remembered`, `overrides`: see
/// [`Mapping::build`]) and gathers its keys. The error is one sentence saying what to do.
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
    let mut keys = KeysBuilder::default();
    let mut examples = vec![String::new(); mapping.header.len()];
    let mut read = 0;
    while let Some(record) = table.next_record() {
        let record = record.map_err(|e| e.to_string())?;
        if read < EXAMPLE_ROWS {
            for (example, cell) in examples.iter_mut().zip(&record.cells) {
                if example.is_empty() && !cell.trim().is_empty() {
                    example.clone_from(cell);
                }
            }
        }
        read += 1;
        keys.add(record.row, plan::key_of(&record, &mapping))?;
    }
    Ok(Prepared {
        kind: table.kind,
        mapping,
        examples,
        keys: keys.finish(),
        path: path.to_path_buf(),
        sheet: sheet.map(str::to_owned),
    })
}

/// What planning asked of the service.
#[derive(Debug, Clone)]
pub struct Planned {
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
    /// Refused (a share of users to archive too large, the file changed while it was read).
    Refused(String),
}

/// Plans `prepared` against the service's current users: reads those of the file's keys, then
/// reads the file again, converting and classifying each row, and hands every planned row to
/// `sink` in file order, then the users missing from the file to archive (with
/// `options.archive_missing`). Nothing of the plan is kept here: the sink decides what is.
#[allow(clippy::too_many_arguments)]
pub async fn make_plan(
    client: &Arc<Client>,
    schema: &Schema,
    target: &Target,
    prepared: Prepared,
    options: PlanOptions,
    cancel: &CancellationToken,
    on_request: impl FnMut(u64, Option<u64>),
    mut sink: impl FnMut(PlannedRow),
) -> Result<Planned, PlanError> {
    let mut fields: Vec<&str> = prepared.mapping.fields().map(|(_, f)| f).collect();
    // A list of entries' columns compare every entry the service lists.
    for list in prepared.mapping.entry_lists() {
        let of_list = target.fields.iter().filter(|f| f.entry.as_ref().is_some_and(|e| e.list == list));
        fields.extend(of_list.map(|f| f.name.as_str()));
    }
    let reading = Reading::new(schema, target, &fields, prepared.mapping.groups_column().is_some());
    let found =
        service::read_users(client, schema, &reading, &prepared.keys, options.archive_missing, cancel, on_request)
            .await
            .map_err(PlanError::Service)?;
    // Refused before the file is read again: a truncated file must not get that far.
    let missing = if options.archive_missing {
        let Some(active) = target.active_field.as_deref() else {
            return Err(PlanError::Refused(
                "--archive-missing needs a field that says whether a user is active, and the service's user type has none".into(),
            ));
        };
        let all = found.all.unwrap_or_default();
        plan::missing_to_archive(&prepared.keys, &all, &options, active).map_err(PlanError::Refused)?
    } else {
        Vec::new()
    };
    let (rows_tx, mut rows_rx) = tokio::sync::mpsc::channel::<Vec<PlannedRow>>(4);
    let users = found.users;
    let target_for_read = target.clone();
    let read_cancel = cancel.clone();
    let reading_file = tokio::task::spawn_blocking(move || {
        plan::classify_file(&prepared, &users, &target_for_read, &options, &read_cancel, |chunk| {
            rows_tx.blocking_send(chunk).is_ok()
        })
    });
    while let Some(chunk) = rows_rx.recv().await {
        chunk.into_iter().for_each(&mut sink);
    }
    match reading_file.await {
        Ok(Ok(())) if cancel.is_cancelled() => return Err(PlanError::Service(ApiError::Cancelled)),
        Ok(Ok(())) => {}
        Ok(Err(message)) => return Err(PlanError::Refused(message)),
        Err(e) => return Err(PlanError::Refused(format!("the file could not be read again ({e}); plan it again"))),
    }
    missing.into_iter().for_each(sink);
    Ok(Planned { requests: found.requests, reading })
}
