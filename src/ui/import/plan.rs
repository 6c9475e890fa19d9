//! The Import window's plan: the counts per action as a bar and as filters, and the plan's rows
//! as a grid, old → new in each.

use super::{Ask, EMPTY_CLEARS, ImportWindow, rows};
use crate::import::plan::counted;
use crate::import::{Action, PlannedRow};
use crate::table::thousands;
use crate::ui::import::chart::plan_bar;
use crate::ui::import::row_outcomes::capitalised;
use egui_extras::{Column, TableBuilder};

const ROW_HEIGHT: f32 = 20.0;

impl ImportWindow {
    pub(super) fn plan_ui(&mut self, ui: &mut egui::Ui, connection: &str, asks: &mut Vec<Ask>) {
        let Some(plan) = self.plan.value() else { return };
        let choose = format!("choose \"{EMPTY_CLEARS}\"");
        let empty_note = plan.counts.empty_note((!plan.empty_clears).then_some(choose.as_str()));
        ui.label(format!(
            "{}: {}, read as {}; planned against {connection} with {}.",
            plan.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            rows(plan.file_rows),
            plan.kind,
            counted(plan.requests, "request", "requests")
        ));
        let mut replan = false;
        egui::CollapsingHeader::new("Columns").default_open(true).show(ui, |ui| {
            replan = self.mapping_ui(ui);
        });
        if replan {
            asks.push(Ask::Plan);
        }
        self.filter_ui(ui);
        if let Some(note) = empty_note {
            ui.label(capitalised(&note));
        }
        self.actions_ui(ui, connection, asks);
        self.outcome_ui(ui, asks);
        if self.outcomes.filter_ui(ui) {
            self.refilter();
        }
        ui.separator();
        self.grid_ui(ui, asks);
    }
}

impl ImportWindow {
    /// The counts per action as one bar and as buttons, each part a filter of the grid.
    fn filter_ui(&mut self, ui: &mut egui::Ui) {
        let Some(plan) = self.plan.value() else { return };
        let counts = plan.counts;
        let parts = [
            (Action::Create, counts.create, "to create"),
            (Action::Update, counts.update, "to update"),
            (Action::Archive, counts.archive, "to archive"),
            (Action::Activate, counts.activate, "to activate"),
            (Action::Unchanged, counts.unchanged, "unchanged"),
            (Action::Invalid, counts.invalid, "invalid"),
        ];
        let mut filter = self.filter;
        plan_bar(ui, &parts, &mut filter);
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut filter, None, format!("All ({})", thousands(plan.rows.len() as u64)));
            for (action, n, words) in parts {
                if n > 0 || matches!(action, Action::Create | Action::Update | Action::Archive) {
                    ui.selectable_value(&mut filter, Some(action), format!("{} {words}", thousands(n)));
                }
            }
        });
        if filter != self.filter {
            self.filter = filter;
            self.refilter();
        }
    }
}

impl ImportWindow {
    pub(super) fn refilter(&mut self) {
        let Some(plan) = self.plan.value() else {
            self.shown.clear();
            return;
        };
        self.shown = plan
            .rows
            .iter()
            .enumerate()
            .filter(|(i, r)| self.filter.is_none_or(|a| r.action == a) && self.outcomes.passes(*i))
            .map(|(i, _)| i)
            .collect();
    }
}

impl ImportWindow {
    /// The plan's rows that pass the filter (only the visible ones are drawn).
    fn grid_ui(&mut self, ui: &mut egui::Ui, asks: &mut Vec<Ask>) {
        let Some(plan) = self.plan.value() else { return };
        let idle = !self.busy();
        let rows = &plan.rows;
        let shown = &self.shown;
        let land = self.outcomes.land.take();
        let mut landed = self.outcomes.landed;
        let outcomes = &self.outcomes;
        let with_outcomes = outcomes.any();
        let land_at =
            land.as_ref().and_then(|key| shown.iter().position(|i| rows.get(*i).is_some_and(|r| r.key == *key)));
        let mut table = TableBuilder::new(ui)
            .id_salt("import-plan")
            .striped(true)
            .resizable(true)
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(Column::initial(52.0).at_least(36.0))
            .column(Column::initial(110.0).at_least(60.0).clip(true))
            .column(Column::initial(80.0).at_least(60.0));
        if let Some(at) = land_at {
            table = table.scroll_to_row(at, Some(egui::Align::Center));
        }
        let mut names = vec!["Row", "Key", "Action"];
        if with_outcomes {
            table = table.column(Column::initial(260.0).at_least(120.0).clip(true));
            names.push("Outcome");
        }
        names.push("What changes");
        let mut retry = None;
        table
            .column(Column::remainder().at_least(120.0).clip(true))
            .header(ROW_HEIGHT + 2.0, |mut header| {
                for name in names {
                    header.col(|ui| {
                        ui.strong(name);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, shown.len(), |mut row| {
                    let Some((index, planned)) = shown.get(row.index()).and_then(|i| Some((*i, rows.get(*i)?))) else {
                        return;
                    };
                    row.col(|ui| {
                        ui.label(if planned.row == 0 { "—".to_owned() } else { planned.row.to_string() });
                    });
                    row.col(|ui| {
                        ui.label(&planned.key);
                    });
                    row.col(|ui| {
                        action_label(ui, planned.action);
                    });
                    if with_outcomes {
                        row.col(|ui| {
                            let here = land.as_deref() == Some(planned.key.as_str());
                            if let Some(key) = outcomes.cell_ui(ui, index, planned, idle, here, &mut landed) {
                                retry = Some(key);
                            }
                        });
                    }
                    row.col(|ui| {
                        ui.label(what_changes(planned));
                    });
                });
            });
        self.outcomes.landed = landed;
        if let Some(key) = retry {
            asks.push(Ask::Retry(key));
        }
    }
}

/// What a row changes, or why it is invalid.
fn what_changes(row: &PlannedRow) -> String {
    match row.action {
        Action::Invalid => row.reason.clone(),
        // Nothing changes, though the file's empty cells might have been meant to clear.
        Action::Unchanged => match row.empty_kept {
            0 => String::new(),
            1 => "1 empty cell leaves its value as it is".to_owned(),
            n => format!("{n} empty cells leave their values as they are"),
        },
        Action::Archive if row.row == 0 => "missing from the file".to_owned(),
        _ => row.describe_changes(),
    }
}

fn action_label(ui: &mut egui::Ui, action: Action) {
    let color = match action {
        Action::Create | Action::Activate => Some(egui::Color32::from_rgb(0x2e, 0x9e, 0x4f)),
        Action::Update => Some(ui.visuals().hyperlink_color),
        Action::Archive => Some(ui.visuals().warn_fg_color),
        Action::Invalid => Some(ui.visuals().error_fg_color),
        Action::Unchanged => None,
    };
    let word = action.word();
    match color {
        Some(color) => ui.colored_label(color, word),
        None => ui.weak(word),
    };
}
