//! The grid of rows, for the eye, the keyboard and the screen reader (issue 40).
//!
//! Drawn as a table in AccessKit: a `Table` whose row and column counts are the whole result's
//! (a header row and every row the grid holds, not only those drawn), a header `Row` of
//! `ColumnHeader`s named by their columns with the sort as a property, and for each drawn row a
//! `Row` with its index and its position among the rows (zero-based in AccessKit, the set's size on
//! the table: AT-SPI's `posinset:1`/`setsize:50` for the first user, the header apart — what Orca
//! reads as "row 1 of 50": AccessKit's Linux adapter has no AT-SPI Table interface), holding `Cell`s
//! named by their text. Only the rows on screen are drawn (`show_rows`).
//!
//! One cell is the cursor, the grid's only stop in the Tab order: the arrow keys, PageUp and
//! PageDown, Home and End (the row's first and last cell), Ctrl+Home and Ctrl+End (the first and
//! last row) move it and scroll it into view; the menu key and Shift+F10 open its menu (Copy
//! cell, Copy row, sort by the cursor's column either way); Ctrl+C copies it. A click puts the
//! cursor on a cell; a right-click opens its menu; a click on a column's header sorts by it (the
//! headers are not Tab stops). Columns are resized by dragging the edge of their header.

use egui::accesskit::{Role, SortDirection};
use egui::{Event, EventFilter, FocusDirection, Id, Key, Modifiers, Rect, Sense, Ui, UiBuilder, Vec2};

use super::intent::ResultsIntent;
use crate::ui::queries::tab::Grid;

/// A row's height, in points.
const ROW_HEIGHT: f32 = 20.0;
/// A column's width at first, and at least.
const COLUMN_WIDTH: f32 = 140.0;
const MIN_WIDTH: f32 = 40.0;

/// What the grid keeps between frames: the cursor, the columns' widths and the scroll.
#[derive(Default)]
pub struct GridView {
    /// The tab the state belongs to (another tab starts afresh).
    tab: u64,
    /// The cursor: a place in the rows shown (their order) and a column.
    row: usize,
    column: usize,
    /// Scroll the cursor into view at the next frame.
    reveal: bool,
    /// Open the cursor's menu at the next frame (Shift+F10, the menu key, a right-click).
    open_menu: bool,
    /// A sort chosen in the cursor's menu: the column, ascending.
    menu_sort: Option<(usize, bool)>,
    /// The columns' widths.
    widths: Vec<f32>,
    /// The vertical scroll and the body's height at the last frame.
    offset_y: f32,
    body_height: f32,
    /// Where the rows began on screen at the last frame.
    body_top: f32,
    /// The horizontal scroll and the view's width at the last frame.
    offset_x: f32,
    view_width: f32,
}

/// The moves of the cursor a key asks for.
#[derive(Clone, Copy)]
enum Move {
    By(isize, isize),
    RowStart,
    RowEnd,
    First,
    Last,
}

impl GridView {
    /// The id of the cursor's cell: one focus stop, the same wherever the cursor is.
    pub fn cursor_id(tab: u64) -> Id {
        Id::unique(("orgql-grid-cursor", tab))
    }

    /// Where the rows began on screen at the last frame.
    pub fn body_top(&self) -> f32 {
        self.body_top
    }

    /// The height `rows` rows take.
    pub fn rows_height(ui: &Ui, rows: usize) -> f32 {
        rows as f32 * (ROW_HEIGHT + ui.spacing().item_spacing.y)
    }

    /// The cursor: its place among the rows shown and its column (for tests).
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.column)
    }

    /// Draws `grid` (the rows of `shown` in that order, or all of them in the grid's order).
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        tab: u64,
        grid: &mut Grid,
        shown: Option<&[usize]>,
        intent: &mut Option<ResultsIntent>,
    ) {
        if self.tab != tab {
            *self = GridView { tab, ..GridView::default() };
        }
        let columns = grid.columns.len();
        self.widths.resize(columns, COLUMN_WIDTH);
        let rows = grid.rows.clone();
        let order: &[usize] = shown.unwrap_or(&grid.order);
        let count = order.len();
        self.row = self.row.min(count.saturating_sub(1));
        self.column = self.column.min(columns.saturating_sub(1));
        let cursor_id = Self::cursor_id(tab);
        // F6 into the result lands on the grid (its main control), the cursor in view.
        if count > 0 && crate::ui::widgets::panes::land_on(ui, crate::ui::widgets::panes::Pane::Result, cursor_id) {
            self.reveal = true;
        }
        let focused = ui.memory(|m| m.has_focus(cursor_id));
        if focused {
            self.keys(ui, count, columns, cursor_id);
        }
        if focused
            && copy_asked(ui)
            && let Some(text) = order.get(self.row).and_then(|i| rows.get(*i)).and_then(|r| r.cell(self.column))
        {
            *intent = Some(ResultsIntent::CopyText(text.to_owned()));
        }
        // The cursor's column, named in its menu's sorts.
        let header = grid.columns.get(self.column).cloned().unwrap_or_default();
        let header = header.as_str();
        let total_width: f32 = self.widths.iter().sum::<f32>() + ui.spacing().item_spacing.x * columns as f32;
        let row_step = ROW_HEIGHT + ui.spacing().item_spacing.y;
        if self.reveal {
            let left: f32 =
                self.widths[..self.column].iter().sum::<f32>() + ui.spacing().item_spacing.x * self.column as f32;
            let right = left + self.widths.get(self.column).copied().unwrap_or(COLUMN_WIDTH);
            self.offset_x = reveal(self.offset_x, self.view_width, left, right);
            let top = self.row as f32 * row_step;
            self.offset_y = reveal(self.offset_y, self.body_height, top, top + ROW_HEIGHT);
        }
        let mut sort_request = None;
        let table = UiBuilder::new().id_salt(("grid-table", tab)).accessibility_role(Role::Table);
        ui.scope_builder(table, |ui| {
            ui.ctx().accesskit_node_builder(ui.unique_id(), |node| {
                node.set_label("Rows");
                node.set_row_count(count + 1);
                node.set_column_count(columns);
                // AccessKit's set size is the container's; each row's position is zero-based
                // (the Linux adapter adds one): the first user is "1 of 50", the header apart.
                node.set_size_of_set(count);
            });
            let mut outer = egui::ScrollArea::horizontal().id_salt(("grid-h", tab)).auto_shrink([false, true]);
            if self.reveal {
                outer = outer.horizontal_scroll_offset(self.offset_x);
            }
            let output = outer.show(ui, |ui| {
                ui.set_min_width(total_width);
                sort_request = self.header_ui(ui, grid);
                let mut body = egui::ScrollArea::vertical().id_salt(("grid-v", tab)).auto_shrink([false, false]);
                if self.reveal {
                    body = body.vertical_scroll_offset(self.offset_y);
                }
                let mut drawn_cursor = false;
                let output = body.show_rows(ui, ROW_HEIGHT, count, |ui, range| {
                    for place in range {
                        let Some(row) = order.get(place).and_then(|i| rows.get(*i)) else { continue };
                        drawn_cursor |= self.row_ui(ui, place, row, header, cursor_id, focused, intent);
                    }
                });
                self.offset_y = output.state.clamped_offset().y;
                self.body_height = output.inner_rect.height();
                self.body_top = output.inner_rect.top();
                if !drawn_cursor && count > 0 {
                    // The cursor's row is scrolled away: its focus stays, on the table.
                    let keep = Rect::from_min_size(output.inner_rect.min, Vec2::splat(1.0));
                    let response = ui.interact(keep, cursor_id, Sense::focusable_noninteractive());
                    response.widget_info(|| egui::WidgetInfo::labeled(Role::Cell, true, "Rows"));
                }
            });
            self.offset_x = output.state.clamped_offset().x;
            self.view_width = output.inner_rect.width();
        });
        self.reveal = false;
        if let Some(sort) = self.menu_sort.take() {
            sort_request = Some(sort);
        }
        if let Some((column, ascending)) = sort_request {
            grid.sort_by(column, ascending);
        }
    }

    /// The keys of the focused cursor.
    fn keys(&mut self, ui: &Ui, count: usize, columns: usize, cursor_id: Id) {
        // The arrows move the cursor, not the focus: the focus stays on the grid.
        ui.memory_mut(|m| {
            m.set_focus_lock_filter(
                cursor_id,
                EventFilter { tab: false, horizontal_arrows: true, vertical_arrows: true, escape: false },
            )
        });
        let page = ((self.body_height / (ROW_HEIGHT + ui.spacing().item_spacing.y)).floor() as isize - 1).max(1);
        let moves = ui.input_mut(|i| {
            let mut moves = Vec::new();
            let keys = [
                (Modifiers::NONE, Key::ArrowUp, Move::By(-1, 0)),
                (Modifiers::NONE, Key::ArrowDown, Move::By(1, 0)),
                (Modifiers::NONE, Key::ArrowLeft, Move::By(0, -1)),
                (Modifiers::NONE, Key::ArrowRight, Move::By(0, 1)),
                (Modifiers::NONE, Key::PageUp, Move::By(-page, 0)),
                (Modifiers::NONE, Key::PageDown, Move::By(page, 0)),
                (Modifiers::COMMAND, Key::Home, Move::First),
                (Modifiers::COMMAND, Key::End, Move::Last),
                (Modifiers::NONE, Key::Home, Move::RowStart),
                (Modifiers::NONE, Key::End, Move::RowEnd),
            ];
            for (modifiers, key, step) in keys {
                while i.consume_key(modifiers, key) {
                    moves.push(step);
                }
            }
            if i.consume_key(Modifiers::SHIFT, Key::F10) || i.consume_key(Modifiers::NONE, Key::Menu) {
                self.open_menu = true;
            }
            moves
        });
        if moves.is_empty() {
            return;
        }
        // What egui made of an arrow before the filter applied is undone.
        ui.memory_mut(|m| m.move_focus(FocusDirection::None));
        let last_row = count.saturating_sub(1) as isize;
        let last_column = columns.saturating_sub(1) as isize;
        for step in moves {
            let (row, column) = (self.row as isize, self.column as isize);
            let (row, column) = match step {
                Move::By(r, c) => (row + r, column + c),
                Move::RowStart => (row, 0),
                Move::RowEnd => (row, last_column),
                Move::First => (0, 0),
                Move::Last => (last_row, last_column),
            };
            self.row = row.clamp(0, last_row) as usize;
            self.column = column.clamp(0, last_column) as usize;
        }
        self.reveal = true;
    }

    /// The header row: a button a column (sorting by it), its edge dragged to resize it.
    fn header_ui(&mut self, ui: &mut Ui, grid: &Grid) -> Option<(usize, bool)> {
        let mut request = None;
        let height = ROW_HEIGHT + 4.0;
        let (rect, _) = ui.allocate_exact_size(egui::vec2(ui.available_width(), height), Sense::hover());
        let builder = UiBuilder::new()
            .max_rect(rect)
            .id_salt("grid-header")
            .layout(egui::Layout::left_to_right(egui::Align::Center))
            .accessibility_role(Role::Row);
        let mut row = ui.new_child(builder);
        row.ctx().accesskit_node_builder(row.unique_id(), |node| node.set_row_index(0));
        for (i, name) in grid.columns.iter().enumerate() {
            let width = self.widths[i];
            let direction = match grid.sort {
                Some((c, true)) if c == i => Some(SortDirection::Ascending),
                Some((c, false)) if c == i => Some(SortDirection::Descending),
                _ => None,
            };
            let arrow = match direction {
                Some(SortDirection::Ascending) => " ▴",
                Some(_) => " ▾",
                None => "",
            };
            // Clicked, not a Tab stop: the grid is one stop (its cursor), its menu sorts by keys.
            let button = egui::Button::new(format!("{name}{arrow}"))
                .truncate()
                .min_size(egui::vec2(width, height))
                .sense(Sense::CLICK);
            let response = row.add_sized([width, height], button).on_hover_text("Sort by this column");
            row.ctx().accesskit_node_builder(response.id, |node| {
                node.set_role(Role::ColumnHeader);
                node.set_label(name.as_str());
                node.set_column_index(i);
                node.set_row_index(0);
                match direction {
                    Some(direction) => node.set_sort_direction(direction),
                    None => node.clear_sort_direction(),
                }
            });
            if response.clicked() {
                let ascending = !matches!(grid.sort, Some((c, true)) if c == i);
                request = Some((i, ascending));
            }
            let edge = Rect::from_x_y_ranges(
                response.rect.right()..=response.rect.right() + row.spacing().item_spacing.x,
                rect.y_range(),
            );
            let handle = row.interact(edge, row.scope_id().with(("resize", i)), Sense::DRAG);
            if handle.hovered() || handle.dragged() {
                row.ctx().set_cursor_icon(egui::CursorIcon::ResizeColumn);
            }
            if handle.dragged() {
                self.widths[i] = (self.widths[i] + handle.drag_delta().x).max(MIN_WIDTH);
            }
        }
        request
    }

    /// One row (`place` among those shown); whether it holds the cursor.
    #[allow(clippy::too_many_arguments)]
    fn row_ui(
        &mut self,
        ui: &mut Ui,
        place: usize,
        row: &crate::table::Row,
        header: &str,
        cursor_id: Id,
        focused: bool,
        intent: &mut Option<ResultsIntent>,
    ) -> bool {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(ui.available_width(), ROW_HEIGHT), Sense::hover());
        if place % 2 == 1 {
            ui.painter().rect_filled(rect, 0.0, ui.visuals().faint_bg_color);
        }
        let builder = UiBuilder::new()
            .max_rect(rect)
            .id_salt(("grid-row", place))
            .layout(egui::Layout::left_to_right(egui::Align::Center))
            .accessibility_role(Role::Row);
        let line = ui.new_child(builder);
        line.ctx().accesskit_node_builder(line.unique_id(), |node| {
            node.set_row_index(place + 1);
            node.set_position_in_set(place);
        });
        let mut has_cursor = false;
        let spacing = line.spacing().item_spacing.x;
        let mut x = rect.left();
        for (column, cell) in row.cells().enumerate() {
            let width = self.widths.get(column).copied().unwrap_or(COLUMN_WIDTH);
            let cell_rect = Rect::from_x_y_ranges(x..=x + width, rect.y_range());
            x += width + spacing;
            let at_cursor = place == self.row && column == self.column;
            let (id, sense) = if at_cursor {
                (cursor_id, Sense::click())
            } else {
                (line.scope_id().with(("cell", column)), Sense::CLICK)
            };
            let response = line.interact(cell_rect, id, sense);
            let shown = cell.replace(['\n', '\r', '\t'], " ");
            response.widget_info(|| egui::WidgetInfo::labeled(Role::Cell, true, &shown));
            line.ctx().accesskit_node_builder(response.id, |node| {
                node.set_row_index(place + 1);
                node.set_column_index(column);
                if at_cursor {
                    node.set_selected(true);
                }
            });
            if line.is_rect_visible(cell_rect) {
                if at_cursor {
                    let fill = if focused { line.visuals().selection.bg_fill } else { line.visuals().faint_bg_color };
                    line.painter().rect_filled(cell_rect, 2.0, fill);
                }
                let color = if at_cursor && focused {
                    line.visuals().selection.stroke.color
                } else {
                    line.visuals().text_color()
                };
                let galley = egui::WidgetText::from(shown.as_str()).into_galley(
                    &line,
                    Some(egui::TextWrapMode::Truncate),
                    (width - 4.0).max(0.0),
                    egui::TextStyle::Body,
                );
                let pos = egui::pos2(cell_rect.left() + 2.0, cell_rect.center().y - galley.size().y / 2.0);
                line.painter().with_clip_rect(cell_rect.intersect(line.clip_rect())).galley(pos, galley, color);
            }
            if response.clicked() || response.secondary_clicked() {
                self.row = place;
                self.column = column;
                line.memory_mut(|m| m.request_focus(cursor_id));
                self.open_menu |= response.secondary_clicked();
            }
            if at_cursor {
                has_cursor = true;
                self.menu_ui(&response, row, cell, header, intent);
            }
        }
        has_cursor
    }

    /// The cursor's menu, opened by a right-click, the menu key or Shift+F10.
    fn menu_ui(
        &mut self,
        response: &egui::Response,
        row: &crate::table::Row,
        cell: &str,
        header: &str,
        intent: &mut Option<ResultsIntent>,
    ) {
        let opened = std::mem::take(&mut self.open_menu);
        let popup = egui::Popup::menu(response)
            .id(Id::unique(("orgql-grid-menu", self.tab)))
            .open_memory(opened.then_some(egui::SetOpenCommand::Bool(true)))
            .accessible_name("Cell menu");
        let mut chosen = false;
        popup.show(|ui| {
            let copy = ui.button("Copy cell");
            if opened {
                copy.request_focus();
            }
            if copy.clicked() {
                *intent = Some(ResultsIntent::CopyText(cell.to_owned()));
                chosen = true;
            }
            if ui.button("Copy row").clicked() {
                *intent = Some(ResultsIntent::CopyText(row.cells().collect::<Vec<_>>().join("\t")));
                chosen = true;
            }
            for (ascending, order) in [(true, "ascending"), (false, "descending")] {
                if ui.button(format!("Sort by {header}, {order}")).clicked() {
                    self.menu_sort = Some((self.column, ascending));
                    chosen = true;
                }
            }
            if chosen {
                ui.close();
            }
        });
        if chosen {
            response.request_focus();
        }
    }
}

/// Whether Ctrl+C was pressed (egui turns it into a copy event on a desktop).
fn copy_asked(ui: &Ui) -> bool {
    ui.input_mut(|i| {
        let copy = i.events.iter().any(|e| matches!(e, Event::Copy));
        i.events.retain(|e| !matches!(e, Event::Copy));
        copy | i.consume_key(Modifiers::COMMAND, Key::C)
    })
}

/// The scroll offset that shows `from..to` in a view of `size` scrolled to `offset`.
fn reveal(offset: f32, size: f32, from: f32, to: f32) -> f32 {
    if from < offset {
        from
    } else if size > 0.0 && to > offset + size {
        to - size
    } else {
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::reveal;

    #[test]
    fn reveals_what_is_out_of_view_and_leaves_what_is_in_it() {
        assert_eq!(reveal(100.0, 200.0, 150.0, 170.0), 100.0);
        assert_eq!(reveal(100.0, 200.0, 40.0, 60.0), 40.0);
        assert_eq!(reveal(100.0, 200.0, 400.0, 420.0), 220.0);
    }
}
