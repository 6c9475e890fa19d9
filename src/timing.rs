//! A trace of the desktop app's start and of a run, one line a step, at
//! `ORGQL_LOG=orgql::timing=debug` (nothing is measured or logged otherwise):
//!
//! ```text
//! DEBUG orgql::timing: step=tree_painted at_ms=183.2 unix_ns=1795…
//! ```
//!
//! `at_ms` counts from the start of `main` ([`start`]), `unix_ns` is the wall clock (for
//! `benches/app-startup.sh`, which compares it with the moment it launched the process). The
//! steps: `process_start`, `store_open`, `window_created`, `app_created`, `first_frame_painted`,
//! `sandbox_up`, `token`, `introspection_answer`, `schema_model` (or `schema_model_cached`),
//! `tree_drawn` / `tree_painted`; then for a run `run_clicked`, `request_sent`, `answer_parsed`,
//! `rows_applied`, `rows_drawn` / `rows_painted`. A `*_drawn` step is the end of the frame that
//! laid the thing out; its `*_painted` step is the start of the next frame, after eframe painted
//! and swapped that one (the trace asks for that next frame itself, only while it is on). Every
//! frame's start is logged at `orgql::timing=trace` (`step=frame`), to count frames.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The log target of the trace.
pub const TARGET: &str = "orgql::timing";

static ORIGIN: OnceLock<(Instant, SystemTime)> = OnceLock::new();
/// Frames begun.
static FRAMES: AtomicU64 = AtomicU64::new(0);
/// Milestones of [`Frame`] reached at the end of the last frame, to log as painted at the next.
static PENDING: AtomicU8 = AtomicU8::new(0);
/// Milestones logged already (the tree once; the rows once per run, none before a run).
static DONE: AtomicU8 = AtomicU8::new(ROWS);

const FIRST: u8 = 1;
const TREE: u8 = 2;
const ROWS: u8 = 4;

/// Takes the start of the process (call it first thing in `main`).
pub fn start() {
    ORIGIN.get_or_init(|| (Instant::now(), SystemTime::now()));
}

/// Whether the trace is on.
pub fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::DEBUG)
}

fn unix_ns(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos()
}

/// Logs step `step` now.
pub fn mark(step: &str) {
    if !enabled() {
        return;
    }
    let (origin, _) = *ORIGIN.get_or_init(|| (Instant::now(), SystemTime::now()));
    let at_ms = origin.elapsed().as_secs_f64() * 1e3;
    tracing::debug!(target: TARGET, "step={step} at_ms={at_ms:.1} unix_ns={}", unix_ns(SystemTime::now()));
}

/// Logs `process_start` with the time [`start`] took (call it once logging is set up).
pub fn mark_start() {
    if !enabled() {
        return;
    }
    let (_, wall) = *ORIGIN.get_or_init(|| (Instant::now(), SystemTime::now()));
    tracing::debug!(target: TARGET, "step=process_start at_ms=0.0 unix_ns={}", unix_ns(wall));
}

/// What a frame showed, for [`frame_end`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Frame {
    /// The explorer's tree of a loaded schema.
    pub tree: bool,
    /// The rows of the run last clicked (the tab no longer busy).
    pub rows: bool,
}

/// Call at the start of each frame: logs what the previous frame drew as painted.
pub fn frame_start() {
    let frame = FRAMES.fetch_add(1, Ordering::Relaxed);
    if !enabled() {
        return;
    }
    tracing::trace!(target: TARGET, "step=frame n={frame}");
    let pending = PENDING.swap(0, Ordering::Relaxed);
    for (bit, step) in [(FIRST, "first_frame_painted"), (TREE, "tree_painted"), (ROWS, "rows_painted")] {
        if pending & bit != 0 {
            mark(step);
        }
    }
}

/// Call at the end of each frame's UI with what it showed: logs the first frame, the first
/// tree and the first rows after [`run_clicked`] as drawn, and asks for the next frame to log
/// them as painted.
pub fn frame_end(ctx: &egui::Context, shown: Frame) {
    if !enabled() {
        return;
    }
    // Why this frame was drawn (what asked for it during the one before): to find the frames
    // drawn while nothing changes (issue 51). Input and the window's own events name no cause.
    if tracing::enabled!(target: TARGET, tracing::Level::TRACE) {
        let causes: Vec<String> = ctx.repaint_causes().iter().map(ToString::to_string).collect();
        tracing::trace!(target: TARGET, "step=frame_causes causes={causes:?}");
    }
    let done = DONE.load(Ordering::Relaxed);
    let mut reached = 0;
    if done & FIRST == 0 {
        reached |= FIRST;
    }
    if shown.tree && done & TREE == 0 {
        mark("tree_drawn");
        reached |= TREE;
    }
    if shown.rows && done & ROWS == 0 {
        mark("rows_drawn");
        reached |= ROWS;
    }
    if reached != 0 {
        DONE.fetch_or(reached, Ordering::Relaxed);
        PENDING.fetch_or(reached, Ordering::Relaxed);
        ctx.request_repaint();
    }
}

/// Logs `run_clicked` and waits for the rows of that run ([`Frame::rows`]).
pub fn run_clicked() {
    if !enabled() {
        return;
    }
    DONE.fetch_and(!ROWS, Ordering::Relaxed);
    mark("run_clicked");
}
