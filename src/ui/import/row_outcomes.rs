//! Every row's outcome where the rows are (issue 41): after an apply (or an undo's, or a retry's),
//! the Import window's grid gains an outcome column — applied, failed with the service's words,
//! conflict, skipped as invalid, unchanged, not sent — with the counts per outcome as buttons that
//! filter the grid, as the plan's counts per action do, and a failed row's own Retry.

use std::collections::HashMap;
use std::sync::Arc;

use crate::import::plan::counted;
use crate::import::session::RowOutcome;
use crate::import::{Action, PlannedRow};
use crate::table::thousands;
use crate::worker::ApplyOutcome;

/// The invalid rows named in the question before Apply and the summary after it, at most.
const NAMED: usize = 5;

/// The outcome of each row of the plan shown, and the grid's filter by outcome.
#[derive(Default)]
pub struct Outcomes {
    /// Each row's outcome, in the plan's order (empty: not applied yet).
    of: Arc<Vec<RowOutcome>>,
    /// Rows per outcome, in [`RowOutcome::ALL`]'s order.
    counts: Vec<(RowOutcome, u64)>,
    /// What the service said of a failed or conflicting row, by key: message, field.
    said: HashMap<String, (String, String)>,
    /// The outcome the grid shows (none: every one).
    pub filter: Option<RowOutcome>,
    /// The key of the row the focus lands on at the next frame (the one just retried).
    pub land: Option<String>,
    /// The outcome the focus landed on last (focusable while it keeps the focus).
    pub landed: Option<egui::Id>,
}

impl Outcomes {
    /// The outcomes of an apply of a plan of `rows` rows; none when they are not of that plan.
    pub fn of(outcome: &ApplyOutcome, rows: usize) -> Outcomes {
        if outcome.outcomes.len() != rows {
            return Outcomes::default();
        }
        let counts =
            RowOutcome::ALL.iter().map(|o| (*o, outcome.outcomes.iter().filter(|x| *x == o).count() as u64)).collect();
        let said = outcome
            .failures
            .iter()
            .map(|(_, key, message, field)| (key.clone(), (message.clone(), field.clone())))
            .collect();
        Outcomes { of: outcome.outcomes.clone(), counts, said, filter: None, land: None, landed: None }
    }

    /// Whether there are outcomes to show.
    pub fn any(&self) -> bool {
        !self.of.is_empty()
    }

    /// Whether the row at `index` of the plan passes the filter.
    pub fn passes(&self, index: usize) -> bool {
        self.filter.is_none_or(|f| self.of.get(index) == Some(&f))
    }

    /// The counts per outcome as buttons, each a filter of the grid; returns whether the filter
    /// changed.
    pub fn filter_ui(&mut self, ui: &mut egui::Ui) -> bool {
        if !self.any() {
            return false;
        }
        let mut filter = self.filter;
        ui.horizontal_wrapped(|ui| {
            ui.label("Outcome:");
            ui.selectable_value(&mut filter, None, format!("All outcomes ({})", thousands(self.of.len() as u64)));
            for (outcome, n) in self.counts.iter().filter(|(o, n)| *n > 0 || *o == RowOutcome::Failed) {
                ui.selectable_value(&mut filter, Some(*outcome), button_words(*outcome, *n));
            }
        });
        let changed = filter != self.filter;
        self.filter = filter;
        changed
    }

    /// The outcome cell of the plan's row at `index`: its word, the service's words for a failed
    /// or conflicting row (whole on hover), and its own Retry; returns the key to retry when
    /// clicked and `can_retry`. With `land`, the focus lands on the outcome, read with its row
    /// ("Row 3 (u00002): applied"); `landed` is where it landed at the last frame.
    pub fn cell_ui(
        &self,
        ui: &mut egui::Ui,
        index: usize,
        row: &PlannedRow,
        can_retry: bool,
        land: bool,
        landed: &mut Option<egui::Id>,
    ) -> Option<String> {
        let outcome = *self.of.get(index)?;
        let mut retry = None;
        let visuals = ui.visuals().clone();
        let color = match outcome {
            RowOutcome::Applied => egui::Color32::from_rgb(0x2e, 0x9e, 0x4f),
            RowOutcome::Failed | RowOutcome::Invalid => visuals.error_fg_color,
            RowOutcome::Conflict | RowOutcome::NotSent => visuals.warn_fg_color,
            RowOutcome::Unchanged => visuals.weak_text_color(),
        };
        if matches!(outcome, RowOutcome::Failed | RowOutcome::Conflict) && row.action.writes() {
            let label = format!("Retry {}", row.key);
            if ui
                .add_enabled(can_retry, egui::Button::new(&label).small())
                .on_hover_text("Send this row again (what the service has now is read first)")
                .clicked()
            {
                retry = Some(row.key.clone());
            }
        }
        let text = match (outcome, self.said.get(&row.key)) {
            (RowOutcome::Failed | RowOutcome::Conflict, Some((message, field))) => {
                let at = if field.is_empty() || message.starts_with(field.as_str()) {
                    String::new()
                } else {
                    format!(" at {field}")
                };
                format!("{}{at}: {message}", outcome.word())
            }
            _ => outcome.word().to_owned(),
        };
        let name = format!("Row {} ({}): {text}", row.row, row.key);
        let shown =
            crate::ui::widgets::a11y::landing(ui, egui::RichText::new(&text).color(color), &name, land, *landed);
        if land {
            *landed = Some(shown.id);
        }
        shown.on_hover_text(text);
        retry
    }
}

/// `3 applied`, `1 conflict`, `1 skipped as invalid`, `2 left unchanged` (the plan's own counts
/// say `2 unchanged`), `4 not sent`.
fn button_words(outcome: RowOutcome, n: u64) -> String {
    match outcome {
        RowOutcome::Conflict => counted(n, "conflict", "conflicts"),
        RowOutcome::Unchanged => format!("{} left unchanged", thousands(n)),
        other => format!("{} {}", thousands(n), other.word()),
    }
}

/// The invalid rows of `rows` by number and key (`row 3 (u00002)`), the first few and how many
/// more; `None` when there are none.
pub fn invalid_rows(rows: &[PlannedRow]) -> Option<(u64, String)> {
    let mut named = Vec::new();
    let mut n = 0u64;
    for row in rows.iter().filter(|r| r.action == Action::Invalid) {
        n += 1;
        if named.len() < NAMED {
            named.push(format!("row {} ({})", row.row, row.key));
        }
    }
    if n == 0 {
        return None;
    }
    let mut text = named.join(", ");
    if n > NAMED as u64 {
        text.push_str(&format!(" and {} more", thousands(n - NAMED as u64)));
    }
    Some((n, text))
}

/// The sentence before Apply: `Row 3 (u00002) is invalid and will be skipped.`, or `2 invalid
/// rows will be skipped: row 3 (u00002), row 9 (u00008).`
pub fn will_skip((n, named): &(u64, String)) -> String {
    match n {
        1 => format!("{} is invalid and will be skipped.", capitalised(named)),
        n => format!("{} will be skipped: {named}.", counted(*n, "invalid row", "invalid rows")),
    }
}

/// The sentence after Apply: `Skipped as invalid: row 3 (u00002).`
pub fn were_skipped((_, named): &(u64, String)) -> String {
    format!("Skipped as invalid: {named}.")
}

/// A sentence as it starts a line.
pub(super) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
