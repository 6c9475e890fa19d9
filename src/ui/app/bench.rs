//! Hooks for `benches/app-startup.sh`, off unless their environment variables are set:
//!
//! - `ORGQL_BENCH_ROWS=N` loads a synthetic result of `N` rows × 12 columns ([`synthetic_rows`])
//!   into the first tab before the first frame;
//! - `ORGQL_BENCH_EXIT_AFTER_FRAMES=N` draws `N` frames (repainting at once), closes the window,
//!   and prints `orgql-bench: first_frame_unix_ns=… rows=… rows_generated_ms=…` to stderr, where
//!   the first frame counts as drawn when the second begins (after the first was painted), then
//!   `orgql-bench: frames=N last_frame_unix_ns=…` when the last is drawn (the frames between, each
//!   asked for at once, give the time of a painted frame);
//! - `ORGQL_BENCH_RUN=1` runs the first tab's query (the sample query: 50 users) once the
//!   chosen connection's schema is in, as a click on Run would (`ORGQL_LOG=orgql::timing=debug`
//!   traces it: [`crate::timing`]);
//! - `ORGQL_BENCH_FETCH_ALL=1` fetches every page of the first tab's query into the grid once the
//!   schema is in, as "Fetch all pages" would, and prints `orgql-bench: fetched_all rows=N ms=…`
//!   to stderr when the last page is in (`benches/fetch-all-memory.sh` then reads the process's
//!   memory);
//! - `ORGQL_BENCH_SANDBOX_USERS=N` gives the in-process sandbox `N` users instead of 500.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::table::Row;
use crate::ui::app::OrgqlApp;
use crate::ui::queries::tab::Grid;
use crate::worker::Rows;

/// Column names of [`synthetic_rows`].
const COLUMNS: [&str; 12] = [
    "ref",
    "name",
    "email",
    "isActive",
    "roles",
    "groups.name",
    "createdAt",
    "lastLoginAt",
    "language",
    "manager.name",
    "extraFields.value",
    "trainings.title",
];

/// Names in the scripts the grid must draw.
const NAMES: [&str; 8] = [
    "O'Brien, Seán",
    "张伟",
    "محمد الأحمد",
    "Дмитрий Иванов",
    "Γιώργος Παπαδόπουλος",
    "Zoë 🚀 Quinn",
    "Jordan Lee",
    "Ñandú; Semi;colon",
];

/// A result of `count` generated users with 12 columns, in several scripts, for benchmarks.
pub fn synthetic_rows(count: usize) -> Rows {
    let rows = (0..count)
        .map(|i| {
            Row::new([
                format!("u{i:06}"),
                NAMES[i % NAMES.len()].to_owned(),
                format!("user.{i}@example.org"),
                (i % 7 != 0).to_string(),
                if i % 10 == 0 { "LEARNER; MANAGER".to_owned() } else { "LEARNER".to_owned() },
                format!("Field Team {}; Safety {}", i % 13, i % 5),
                format!("2026-{:02}-{:02}T09:{:02}:00Z", 1 + i % 12, 1 + i % 28, i % 60),
                format!("2026-11-{:02}T18:{:02}:00Z", 1 + i % 21, i % 60),
                ["en", "fr", "zh", "ar", "ru"][i % 5].to_owned(),
                NAMES[(i + 3) % NAMES.len()].to_owned(),
                format!("badge {}", i % 1000),
                format!("Onboarding {}; Compliance {}", i % 17, i % 3),
            ])
        })
        .collect();
    Rows { columns: COLUMNS.map(str::to_owned).to_vec(), rows, total: Some(count as u64), lists: Vec::new() }
}

/// A number from the environment variable `name`.
fn var(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok())
}

/// `ORGQL_BENCH_SANDBOX_USERS`, when set.
pub fn bench_sandbox_users() -> Option<usize> {
    var("ORGQL_BENCH_SANDBOX_USERS").map(|n| n as usize)
}

/// The app, wrapped in the hooks when their environment variables ask for them.
pub(crate) fn wrap(mut app: OrgqlApp) -> Box<dyn eframe::App> {
    let rows = var("ORGQL_BENCH_ROWS");
    let exit_after = var("ORGQL_BENCH_EXIT_AFTER_FRAMES");
    let run = var("ORGQL_BENCH_RUN").is_some_and(|v| v != 0);
    let fetch_all = var("ORGQL_BENCH_FETCH_ALL").is_some_and(|v| v != 0);
    if rows.is_none() && exit_after.is_none() && !run && !fetch_all {
        return Box::new(app);
    }
    let started = Instant::now();
    if let Some(rows) = rows {
        app.active_tab_mut().grid = Some(Grid::from_rows(synthetic_rows(rows as usize), 1));
    }
    let generated = started.elapsed();
    Box::new(Hooked {
        app,
        frames: 0,
        exit_after,
        rows: rows.unwrap_or(0),
        generated_ms: generated.as_millis(),
        run_pending: run,
        fetch_all: fetch_all.then_some(FetchAllHook::Pending),
    })
}

/// Where `ORGQL_BENCH_FETCH_ALL` is.
enum FetchAllHook {
    /// Waiting for the schema.
    Pending,
    /// Fetching since then.
    Fetching(Instant),
    /// Reported.
    Done,
}

struct Hooked {
    app: OrgqlApp,
    frames: u64,
    exit_after: Option<u64>,
    rows: u64,
    generated_ms: u128,
    /// `ORGQL_BENCH_RUN`: the query is still to be run.
    run_pending: bool,
    /// `ORGQL_BENCH_FETCH_ALL`.
    fetch_all: Option<FetchAllHook>,
}

impl eframe::App for Hooked {
    fn logic(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        if self.frames == 1 {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
            eprintln!(
                "orgql-bench: first_frame_unix_ns={now} rows={} rows_generated_ms={}",
                self.rows, self.generated_ms
            );
        }
        self.app.logic(ctx, frame);
        if self.run_pending && self.app.schema_model().is_some() {
            self.run_pending = false;
            self.app.run_active_query();
        }
        match self.fetch_all {
            Some(FetchAllHook::Pending) if self.app.schema_model().is_some() => {
                self.app.fetch_all_pages();
                self.fetch_all = Some(FetchAllHook::Fetching(Instant::now()));
            }
            Some(FetchAllHook::Fetching(started)) => {
                let tab = self.app.active_tab();
                if let Some(fetch) = tab.fetch_all.as_ref().filter(|fetch| !fetch.outcome.is_pending()) {
                    let rows = tab.grid.as_ref().map_or(0, |grid| grid.rows.len());
                    let ms = started.elapsed().as_millis();
                    eprintln!("orgql-bench: fetched_all rows={rows} ms={ms} so_far={}", fetch.so_far);
                    self.fetch_all = Some(FetchAllHook::Done);
                }
            }
            _ => {}
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.app.ui(ui, frame);
        self.frames += 1;
        if let Some(exit_after) = self.exit_after {
            if self.frames >= exit_after {
                // The frames after the first, each drawn and painted at once: their mean is a
                // painted frame of what is on screen (benches/app-startup.sh, `frame`).
                let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
                eprintln!("orgql-bench: frames={} last_frame_unix_ns={now}", self.frames);
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            } else {
                ui.ctx().request_repaint();
            }
        }
    }
}

/// The support card of a learner with `total` enrollments, of which the first page of `shown`
/// rows has just been read: what Find user applies and draws in the frame after a section's
/// answer (`benches/ui.rs`, `card`).
pub struct CardBench {
    editor: crate::ui::find_user::card::CardEditor,
    user: crate::support::UserCard,
    page: crate::support::SectionPage,
    jobs: crate::worker::JobIds,
}

impl CardBench {
    /// A card whose one section (enrollments with a state, a title, dates) has `total` rows.
    pub fn new(shown: usize, total: u64) -> CardBench {
        use crate::support::{Offers, SectionInfo, SectionPage, SectionRow, UserCard};
        let states: Vec<String> =
            ["REQUESTED", "CONFIRMED", "WAITLISTED", "ATTENDED", "NO_SHOW", "CANCELLED"].map(str::to_owned).to_vec();
        let user = UserCard {
            id: Some("VXNlcjoyMA==".into()),
            ref_: "u00020".into(),
            name: "Quentin Patel".into(),
            email: "quentin.patel.20@example.com".into(),
            is_active: true,
            roles: Some(vec!["LEARNER".into()]),
            groups: Some(Vec::new()),
            extra_fields: None,
            dates: Vec::new(),
            more: vec![("Department".into(), "Care".into())],
            offers: Offers::default(),
            sections: vec![SectionInfo {
                index: 0,
                label: "Enrollments".into(),
                states: states.clone(),
                enroll_in: Some("offer".into()),
                change_scope: None,
                enroll_scope: None,
            }],
        };
        let rows = (0..shown)
            .map(|i| SectionRow {
                key: Some(format!("e{i:05}")),
                state_value: Some(states[i % states.len()].clone()),
                title: format!("{} · session {}", NAMES[i % NAMES.len()], i + 1),
                state: Some(crate::shape::enum_words(&states[i % states.len()])),
                percent: Some((i % 101) as f64),
                dates: vec![("Starts".into(), format!("2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28))],
                expired: i % 9 == 0,
            })
            .collect();
        let page = SectionPage {
            index: 0,
            rows,
            total: Some(total),
            more: (shown as u64) < total,
            query: "query($userRef: String!) { paginatedEnrollments(userRef: $userRef) { count } }".into(),
            variables: serde_json::json!({ "userRef": "u00020" }),
        };
        let mut bench = CardBench {
            editor: crate::ui::find_user::card::CardEditor::default(),
            user,
            page,
            jobs: crate::worker::JobIds::default(),
        };
        bench.answer();
        bench
    }

    /// The section asked again and its page answered, as the worker's event is applied.
    pub fn answer(&mut self) {
        self.editor = crate::ui::find_user::card::CardEditor::default();
        self.editor.load(&self.user);
        for request in self.editor.section_requests(&self.user) {
            let job = self.jobs.allocate();
            self.editor.sent(job, &request);
            self.editor.apply(job, Ok(crate::support::SupportReply::Section(self.page.clone())));
        }
    }

    /// Draws the card.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        egui::ScrollArea::vertical().show(ui, |ui| {
            let _ = self.editor.ui(ui, &self.user, crate::scopes::ScopeSet::all());
        });
    }
}
