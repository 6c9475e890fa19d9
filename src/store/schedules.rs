//! Scheduled deliveries (issue 53): each schedule's definition, kept as the JSON of
//! [`crate::schedule::Schedule`] (it holds no secret), and every run of it — started, ended, how,
//! what was delivered where, the one-sentence failure — so that `orgql schedule list`,
//! `schedule history` and the app's Schedules window read one record, and a failure nobody has
//! seen yet is shown when the app next starts.

use chrono::{DateTime, Local, Utc};
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

/// How a run ended (its word in the database).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Still running (or stopped without a word: see [`Store::interrupted_runs`]).
    Running,
    /// The file (and its changes file) are in place.
    Delivered,
    /// Nothing was delivered; the message says why.
    Failed,
    /// Not started: the previous run of the same schedule was still going.
    Skipped,
}

impl RunState {
    /// Its word in the database and on the command line.
    pub fn word(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Delivered => "delivered",
            RunState::Failed => "failed",
            RunState::Skipped => "skipped",
        }
    }

    fn parse(word: &str) -> RunState {
        match word {
            "delivered" => RunState::Delivered,
            "failed" => RunState::Failed,
            "skipped" => RunState::Skipped,
            _ => RunState::Running,
        }
    }
}

/// How a run ended, to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    /// Delivered, failed or skipped.
    pub state: RunState,
    /// Rows delivered (of the whole file).
    pub rows: Option<u64>,
    /// Bytes of the file delivered.
    pub bytes: Option<u64>,
    /// Where the file went (a path or an `sftp://` address).
    pub delivered_to: Option<String>,
    /// Where the changes file went, with `--changes-since-last`.
    pub changes_to: Option<String>,
    /// The one-sentence failure.
    pub message: Option<String>,
    /// The exit status of `orgql schedule run`.
    pub exit_code: u8,
}

/// A run recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleRun {
    /// Its row id.
    pub id: i64,
    /// The schedule's name.
    pub schedule: String,
    /// When it started.
    pub started: DateTime<Local>,
    /// When it ended (`None`: running, or stopped without a word).
    pub ended: Option<DateTime<Local>>,
    /// How it ended.
    pub state: RunState,
    /// Rows delivered.
    pub rows: Option<u64>,
    /// Bytes delivered.
    pub bytes: Option<u64>,
    /// Where the file went.
    pub delivered_to: Option<String>,
    /// Where the changes file went.
    pub changes_to: Option<String>,
    /// The one-sentence failure.
    pub message: Option<String>,
    /// The exit status.
    pub exit_code: Option<u8>,
    /// Whether the app has shown this failure.
    pub shown: bool,
}

const RUN_COLUMNS: &str =
    "id, schedule, started, ended, outcome, rows, bytes, delivered_to, changes_to, message, exit_code, shown";

fn run_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ScheduleRun> {
    let time = |text: String| DateTime::parse_from_rfc3339(&text).map(|t| t.with_timezone(&Local));
    let started: String = row.get(2)?;
    let ended: Option<String> = row.get(3)?;
    let count = |i: usize| row.get::<_, Option<i64>>(i).map(|n| n.and_then(|n| u64::try_from(n).ok()));
    Ok(ScheduleRun {
        id: row.get(0)?,
        schedule: row.get(1)?,
        started: time(started).unwrap_or_else(|_| Local::now()),
        ended: ended.and_then(|t| time(t).ok()),
        state: RunState::parse(&row.get::<_, String>(4)?),
        rows: count(5)?,
        bytes: count(6)?,
        delivered_to: row.get(7)?,
        changes_to: row.get(8)?,
        message: row.get(9)?,
        exit_code: row.get::<_, Option<i64>>(10)?.and_then(|c| u8::try_from(c).ok()),
        shown: row.get::<_, i64>(11)? != 0,
    })
}

fn signed(n: Option<u64>) -> Option<i64> {
    n.map(|n| i64::try_from(n).unwrap_or(i64::MAX))
}

impl Store {
    /// Keeps the schedule `name`'s definition (JSON), replacing an earlier one of that name.
    pub fn put_schedule(&self, name: &str, definition: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO schedules (name, definition, created) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO UPDATE SET definition = excluded.definition",
                params![name, definition, Utc::now().to_rfc3339()],
            )
            .map(|_| ())
            .map_err(|e| self.error(e))
    }

    /// The definition (JSON) of the schedule `name`.
    pub fn schedule_definition(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row("SELECT definition FROM schedules WHERE name = ?1", [name], |row| row.get(0))
            .optional()
            .map_err(|e| self.error(e))
    }

    /// Every schedule's name and definition (JSON), by name.
    pub fn schedule_definitions(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement =
            self.conn().prepare("SELECT name, definition FROM schedules ORDER BY name").map_err(|e| self.error(e))?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).map_err(|e| self.error(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| self.error(e))
    }

    /// Removes the schedule `name` and its runs; whether there was one.
    pub fn remove_schedule(&self, name: &str) -> Result<bool, StoreError> {
        let removed =
            self.conn().execute("DELETE FROM schedules WHERE name = ?1", [name]).map_err(|e| self.error(e))?;
        self.conn().execute("DELETE FROM schedule_runs WHERE schedule = ?1", [name]).map_err(|e| self.error(e))?;
        Ok(removed > 0)
    }

    /// Records that a run of `schedule` starts now; its id.
    pub fn start_schedule_run(&self, schedule: &str) -> Result<i64, StoreError> {
        self.conn()
            .execute(
                "INSERT INTO schedule_runs (schedule, started, outcome) VALUES (?1, ?2, 'running')",
                params![schedule, Local::now().to_rfc3339()],
            )
            .map_err(|e| self.error(e))?;
        Ok(self.conn().last_insert_rowid())
    }

    /// Records how the run `id` ended.
    pub fn end_schedule_run(&self, id: i64, end: &RunEnd) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE schedule_runs SET ended = ?2, outcome = ?3, rows = ?4, bytes = ?5, delivered_to = ?6,
                 changes_to = ?7, message = ?8, exit_code = ?9 WHERE id = ?1",
                params![
                    id,
                    Local::now().to_rfc3339(),
                    end.state.word(),
                    signed(end.rows),
                    signed(end.bytes),
                    end.delivered_to,
                    end.changes_to,
                    end.message,
                    i64::from(end.exit_code)
                ],
            )
            .map(|_| ())
            .map_err(|e| self.error(e))
    }

    /// Records a run of `schedule` that did not start, with how it ended (skipped).
    pub fn add_schedule_run(&self, schedule: &str, end: &RunEnd) -> Result<i64, StoreError> {
        let id = self.start_schedule_run(schedule)?;
        self.end_schedule_run(id, end)?;
        Ok(id)
    }

    /// Marks the runs of `schedule` still "running" as failed with `message`: runs stopped
    /// without a word (killed, the computer shut down), found by the next run, which holds the
    /// schedule's lock and so knows that none of them still runs.
    pub fn interrupted_runs(&self, schedule: &str, message: &str) -> Result<usize, StoreError> {
        self.conn()
            .execute(
                "UPDATE schedule_runs SET outcome = 'failed', message = ?2 WHERE schedule = ?1 AND outcome = 'running'",
                params![schedule, message],
            )
            .map_err(|e| self.error(e))
    }

    /// The latest `limit` runs of `schedule`, newest first.
    pub fn schedule_runs(&self, schedule: &str, limit: usize) -> Result<Vec<ScheduleRun>, StoreError> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM schedule_runs WHERE schedule = ?1 ORDER BY id DESC LIMIT ?2");
        let mut statement = self.conn().prepare(&sql).map_err(|e| self.error(e))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![schedule, limit], run_row).map_err(|e| self.error(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| self.error(e))
    }

    /// The files delivered to a folder by `schedule` (the whole file and the changes file), newest
    /// run first: what `--keep N` may remove, and nothing else.
    pub fn delivered_files(&self, schedule: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .conn()
            .prepare(
                "SELECT delivered_to, changes_to FROM schedule_runs
                 WHERE schedule = ?1 AND outcome = 'delivered' ORDER BY id DESC",
            )
            .map_err(|e| self.error(e))?;
        let rows = statement
            .query_map([schedule], |row| Ok((row.get::<_, Option<String>>(0)?, row.get::<_, Option<String>>(1)?)))
            .map_err(|e| self.error(e))?;
        let mut files = Vec::new();
        for row in rows {
            let (whole, changes) = row.map_err(|e| self.error(e))?;
            files.extend(whole);
            files.extend(changes);
        }
        Ok(files)
    }

    /// How many of `schedule`'s latest runs failed one after the other (0 when the latest did not).
    pub fn failures_in_a_row(&self, schedule: &str) -> Result<u32, StoreError> {
        let mut statement = self
            .conn()
            .prepare("SELECT outcome FROM schedule_runs WHERE schedule = ?1 AND outcome != 'running' ORDER BY id DESC")
            .map_err(|e| self.error(e))?;
        let outcomes = statement.query_map([schedule], |row| row.get::<_, String>(0)).map_err(|e| self.error(e))?;
        let mut failed = 0;
        for outcome in outcomes {
            match outcome.map_err(|e| self.error(e))?.as_str() {
                "failed" => failed += 1,
                "skipped" => {}
                _ => break,
            }
        }
        Ok(failed)
    }

    /// The failed runs the app has not shown yet, newest first (one per schedule: its latest).
    pub fn unshown_failures(&self) -> Result<Vec<ScheduleRun>, StoreError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM schedule_runs WHERE id IN (
                SELECT MAX(id) FROM schedule_runs WHERE outcome = 'failed' AND shown = 0 GROUP BY schedule
             ) ORDER BY id DESC"
        );
        let mut statement = self.conn().prepare(&sql).map_err(|e| self.error(e))?;
        let rows = statement.query_map([], run_row).map_err(|e| self.error(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(|e| self.error(e))
    }

    /// Marks every failed run of `schedule` up to `id` as shown.
    pub fn mark_failures_shown(&self, schedule: &str, id: i64) -> Result<(), StoreError> {
        self.conn()
            .execute("UPDATE schedule_runs SET shown = 1 WHERE schedule = ?1 AND id <= ?2", params![schedule, id])
            .map(|_| ())
            .map_err(|e| self.error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivered(to: &str, changes: Option<&str>) -> RunEnd {
        RunEnd {
            state: RunState::Delivered,
            rows: Some(3),
            bytes: Some(120),
            delivered_to: Some(to.to_owned()),
            changes_to: changes.map(str::to_owned),
            message: None,
            exit_code: 0,
        }
    }

    fn failed(message: &str) -> RunEnd {
        RunEnd {
            state: RunState::Failed,
            rows: None,
            bytes: None,
            delivered_to: None,
            changes_to: None,
            message: Some(message.to_owned()),
            exit_code: 6,
        }
    }

    #[test]
    fn schedules_and_their_runs_are_kept_across_reopening() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("orgql.sqlite3");
        {
            let store = Store::open(&path).expect("the store opens");
            store.put_schedule("weekly", r#"{"v":1}"#).expect("kept");
            store.put_schedule("weekly", r#"{"v":2}"#).expect("replaced");
            store.put_schedule("daily", r#"{"v":3}"#).expect("kept");
            let id = store.start_schedule_run("weekly").expect("started");
            store.end_schedule_run(id, &delivered("/out/weekly-2026-11-30.csv", None)).expect("ended");
        }
        let store = Store::open(&path).expect("the store opens again");
        assert_eq!(store.schedule_definition("weekly").expect("read").as_deref(), Some(r#"{"v":2}"#));
        let names: Vec<String> = store.schedule_definitions().expect("read").into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["daily", "weekly"]);
        let runs = store.schedule_runs("weekly", 10).expect("read");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].state, RunState::Delivered);
        assert_eq!((runs[0].rows, runs[0].bytes, runs[0].exit_code), (Some(3), Some(120), Some(0)));
        assert!(runs[0].ended.is_some());
        assert!(store.remove_schedule("weekly").expect("removed"));
        assert!(!store.remove_schedule("weekly").expect("nothing to remove"));
        assert!(store.schedule_runs("weekly", 10).expect("read").is_empty());
    }

    #[test]
    fn failures_are_counted_in_a_row_and_shown_once() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&dir.path().join("orgql.sqlite3")).expect("the store opens");
        store.add_schedule_run("weekly", &delivered("/out/a.csv", Some("/out/a-changes.csv"))).expect("kept");
        store.add_schedule_run("weekly", &failed("the service did not answer")).expect("kept");
        let skipped = RunEnd { state: RunState::Skipped, exit_code: 10, ..failed("still running") };
        store.add_schedule_run("weekly", &skipped).expect("kept");
        let last = store.add_schedule_run("weekly", &failed("the service did not answer again")).expect("kept");
        assert_eq!(store.failures_in_a_row("weekly").expect("counted"), 2);
        let unshown = store.unshown_failures().expect("read");
        assert_eq!(unshown.len(), 1, "one line a schedule: {unshown:?}");
        assert_eq!(unshown[0].id, last);
        store.mark_failures_shown("weekly", last).expect("marked");
        assert!(store.unshown_failures().expect("read").is_empty());
        assert_eq!(store.delivered_files("weekly").expect("read"), ["/out/a.csv", "/out/a-changes.csv"]);
    }

    #[test]
    fn a_run_stopped_without_a_word_is_marked_failed_by_the_next() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = Store::open(&dir.path().join("orgql.sqlite3")).expect("the store opens");
        let id = store.start_schedule_run("weekly").expect("started");
        assert_eq!(store.interrupted_runs("weekly", "stopped before it ended").expect("marked"), 1);
        let run = &store.schedule_runs("weekly", 1).expect("read")[0];
        assert_eq!(
            (run.id, run.state, run.message.as_deref()),
            (id, RunState::Failed, Some("stopped before it ended"))
        );
    }
}
