//! The app's one-line notice that a connection's schema changed (issues 30 and 41): what changed
//! since when and how many saved operations use it, counted again after a fix so that it never
//! names an operation that no longer uses what changed. The Schema changes… window lists the
//! changes; the notice points there.

use chrono::{DateTime, Utc};

use crate::explorer::SchemaModel;
use crate::operation_check::check;
use crate::schema_diff::{SchemaShape, Summary, compare};
use crate::store::Store;

/// A connection's schema changed since its last kept version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaNotice {
    /// The schema's key in the store (its versions).
    pub key: String,
    /// The connection's name.
    pub connection: String,
    /// The day the previous version was first seen (`2026-11-12`).
    pub since: String,
    /// What changed: `2 added, 1 deprecated, 1 removed`.
    pub phrase: String,
    /// Saved operations that do not pass against the new version.
    pub affected: usize,
    /// Whether `affected` was counted again after a fix.
    pub recounted: bool,
}

impl SchemaNotice {
    /// `The service's schema changed since 2026-11-12: 2 added, 1 deprecated, 1 removed — 1
    /// saved operation affected; Schema changes… lists what changed and what uses it.`
    pub fn line(&self) -> String {
        let affected = match (self.affected, self.recounted) {
            (0, false) => String::new(),
            (0, true) => " — no saved operation affected now".to_owned(),
            (1, _) => " — 1 saved operation affected".to_owned(),
            (n, _) => format!(" — {n} saved operations affected"),
        };
        format!(
            "The service's schema changed since {}: {}{affected}; Schema changes… lists what changed and what uses it.",
            self.since, self.phrase
        )
    }
}

/// The saved operations that do not pass against `schema`.
fn affected(
    store: &Store,
    schema: &apollo_compiler::validation::Valid<apollo_compiler::Schema>,
    shape: &SchemaShape,
) -> Result<usize, String> {
    let operations = store.operations().map_err(|e| e.to_string())?;
    Ok(operations.iter().filter(|op| !check(schema, shape, &op.query).is_empty()).count())
}

/// Records `sdl` as `key`'s latest schema (of the connection `connection`); when it differs
/// from the last version, the notice.
pub(super) fn record(
    store: &Store,
    key: &str,
    connection: &str,
    sdl: &str,
    model: &SchemaModel,
    at: DateTime<Utc>,
) -> Result<Option<SchemaNotice>, String> {
    // The schema the explorer's model already parsed and validated: no second parse of `sdl`.
    let schema = model.schema();
    let shape = SchemaShape::of(schema);
    let recorded = store.record_schema_version(key, &shape.fingerprint(), sdl, at).map_err(|e| e.to_string())?;
    let crate::store::Recorded::Changed { previous, .. } = recorded else { return Ok(None) };
    let before = store.schema_version_sdl(previous.id).map_err(|e| e.to_string())?.unwrap_or_default();
    let changes = compare(&SchemaShape::from_sdl(&before)?, &shape);
    if changes.is_empty() {
        return Ok(None);
    }
    Ok(Some(SchemaNotice {
        key: key.to_owned(),
        connection: connection.to_owned(),
        since: previous.first_seen.with_timezone(&chrono::Local).format("%Y-%m-%d").to_string(),
        phrase: Summary::of(&changes).phrase(),
        affected: affected(store, schema, &shape)?,
        recounted: false,
    }))
}

/// `notice` with its saved operations affected counted again against the connection's latest
/// kept version (after a fix, or an undo of one).
pub(super) fn recount(store: &Store, notice: SchemaNotice) -> Result<SchemaNotice, String> {
    let versions = store.schema_versions(&notice.key).map_err(|e| e.to_string())?;
    let Some(latest) = versions.last() else { return Ok(notice) };
    let sdl = store.schema_version_sdl(latest.id).map_err(|e| e.to_string())?.unwrap_or_default();
    let (shape, schema) = SchemaShape::with_schema(&sdl)?;
    let Some(schema) = schema else { return Ok(notice) };
    Ok(SchemaNotice { affected: affected(store, &schema, &shape)?, recounted: true, ..notice })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_points_to_the_window_and_says_a_recount() {
        let mut notice = SchemaNotice {
            key: "Acme k".into(),
            connection: "Acme".into(),
            since: "2026-11-12".into(),
            phrase: "1 added".into(),
            affected: 1,
            recounted: false,
        };
        assert_eq!(
            notice.line(),
            "The service's schema changed since 2026-11-12: 1 added — 1 saved operation affected; Schema changes… \
             lists what changed and what uses it."
        );
        assert!(!notice.line().contains("orgql schema changes"));
        notice.affected = 0;
        assert!(!notice.line().contains("affected"));
        notice.recounted = true;
        assert!(notice.line().contains("— no saved operation affected now;"), "{}", notice.line());
    }
}
