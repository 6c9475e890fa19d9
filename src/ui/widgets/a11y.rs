//! Keyboard and screen-reader helpers the panels share (issue 40): live regions for messages,
//! windows and dialogs that take the focus when they open and give it back when they close,
//! Escape to close them, code editors whose Tab indents but which one documented key leaves,
//! combos that close after a choice made by any means, and a focus ring a person sees at once.
//!
//! AccessKit is the contract: what is set here is what a screen reader (AT-SPI on Linux, UIA on
//! Windows) and the kittests read.

use egui::accesskit::Live;
use egui::{Event, EventFilter, FocusDirection, Id, Key, KeyboardShortcut, Modifiers, Response, Ui};

/// Ctrl+M toggles whether Tab in a code editor moves the focus (as in VS Code) or indents.
pub const TAB_MOVES_FOCUS: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::M);

/// Where the "Tab moves focus" mode is kept (egui's persisted memory: it survives a restart).
fn tab_moves_focus_id() -> Id {
    Id::unique("orgql-tab-moves-focus")
}

/// Whether Tab moves the focus out of the code editors (Ctrl+M) rather than indenting.
pub fn tab_moves_focus(ctx: &egui::Context) -> bool {
    ctx.data_mut(|d| *d.get_persisted_mut_or_default::<bool>(tab_moves_focus_id()))
}

/// Marks the widget `id` as a live region: a screen reader reads its new text when it changes
/// (`Live::Polite` waits for a pause, `Live::Assertive` interrupts: errors).
pub fn set_live(ctx: &egui::Context, id: Id, live: Live) {
    ctx.accesskit_node_builder(id, |node| node.set_live(live));
}

/// A message read out when it appears or changes, without interrupting.
pub fn polite(ui: &mut Ui, text: impl Into<egui::WidgetText>) -> Response {
    let response = ui.label(text);
    set_live(ui.ctx(), response.id, Live::Polite);
    response
}

/// A message in a colour, read out when it appears or changes, without interrupting.
pub fn polite_colored(ui: &mut Ui, color: egui::Color32, text: impl Into<egui::RichText>) -> Response {
    let response = ui.colored_label(color, text);
    set_live(ui.ctx(), response.id, Live::Polite);
    response
}

/// An error, in the theme's error colour, read out at once.
pub fn alert(ui: &mut Ui, text: impl Into<egui::RichText>) -> Response {
    let response = ui.colored_label(ui.visuals().error_fg_color, text);
    set_live(ui.ctx(), response.id, Live::Assertive);
    response
}

/// Gives the focus to the next control drawn after this call (the first of a window, a dialog
/// or a card): egui's own "Tab from here", so no control needs to know it is first.
pub fn focus_next_drawn(ui: &Ui) {
    let anchor = ui.scope_id().with("orgql-focus-anchor");
    let layer = ui.layer_id();
    ui.memory_mut(|m| {
        m.request_focus(anchor);
        m.move_focus(FocusDirection::Next);
        m.interested_in_focus(anchor, layer);
    });
}

/// A window or a dialog's keyboard manners, keyed by a stable id: it takes the focus on its
/// first control when it opens, remembering what had it; Escape closes it when it is on top;
/// when it closes, the focus goes back to what opened it.
#[derive(Debug, Clone, Copy)]
pub struct Dialog(Id);

impl Dialog {
    /// The manners of the window or dialog called `name`.
    pub fn new(name: impl egui::AsIdSalt) -> Self {
        Dialog(Id::unique(("orgql-dialog", name)))
    }

    /// Call first thing inside the window's contents: at the first frame it shows, the focus
    /// moves to its first control (what had it is remembered). Returns whether Escape closes it
    /// (pressed while the window is on top of the others, no popup or modal dialog over it).
    #[must_use]
    pub fn contents(self, ui: &mut Ui) -> bool {
        self.modal_contents(ui);
        let ctx = ui.ctx().clone();
        let on_top = ctx.top_layer_id() == Some(ui.layer_id())
            && ui.memory(|m| m.is_above_modal_layer(ui.layer_id()))
            && !egui::Popup::is_any_open(&ctx);
        on_top && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape))
    }

    /// [`Dialog::contents`] for a window shown with `title_bar(false)`: its own [`title_row`]
    /// first (the close button named after the window), then the focus on its first control.
    /// Returns whether the window closes (Escape, or its close button).
    #[must_use]
    pub fn titled_contents(self, ui: &mut Ui, title: &str) -> bool {
        let close = title_row(ui, title);
        self.contents(ui) | close
    }

    /// [`Dialog::contents`] for a modal dialog (egui's `Modal` closes itself on Escape): the
    /// focus moves to its first control at the first frame it shows.
    pub fn modal_contents(self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        let pass = ctx.cumulative_pass_nr();
        let (shown, pending) = (self.0.with("shown"), self.0.with("pending"));
        let last = ctx.data(|d| d.get_temp::<u64>(shown));
        ctx.data_mut(|d| d.insert_temp(shown, pass));
        if last.is_none_or(|last| last + 1 < pass) {
            let opener = ctx.memory(|m| m.focused());
            ctx.data_mut(|d| {
                d.insert_temp(self.0.with("opener"), opener);
                d.insert_temp(pending, true);
                // A window that opens ends the wait to give the focus back after another.
                d.remove::<ReturnWaiting>(return_focus_id());
            });
        }
        // Not in the frame that only measures the window (its controls take no focus then),
        // nor in one whose Enter or Space opened it (Confirm would take that press as its own).
        let pressed = ui.input(|i| i.key_pressed(Key::Enter) || i.key_pressed(Key::Space));
        if ui.is_sizing_pass()
            || !ui.is_visible()
            || pressed
            || !ctx.data(|d| d.get_temp::<bool>(pending).unwrap_or(false))
        {
            return;
        }
        ctx.data_mut(|d| d.remove::<bool>(pending));
        // A window that put the focus somewhere itself (Find user's search box) keeps it there.
        let opener = ctx.data(|d| d.get_temp::<Option<Id>>(self.0.with("opener"))).flatten();
        let focused = ctx.memory(|m| m.focused());
        if focused.is_none() || focused == opener {
            focus_next_drawn(ui);
        }
    }

    /// Call after the window each frame with whether it is still open: when it has just
    /// closed, the focus goes back to the control that had it before it opened.
    pub fn after(self, ctx: &egui::Context, open: bool) {
        if open {
            return;
        }
        let key = self.0.with("opener");
        if let Some(Some(opener)) = ctx.data_mut(|d| d.remove_temp::<Option<Id>>(key)) {
            // Given back once the opener can take it (Export… is disabled while its export runs).
            let (pass, focused) = (ctx.cumulative_pass_nr(), ctx.memory(|m| m.focused()));
            ctx.data_mut(|d| d.insert_temp(return_focus_id(), (opener, pass, focused)));
        }
        ctx.data_mut(|d| d.remove::<u64>(self.0.with("shown")));
    }
}

/// A window's title row, drawn by orgql: its title, and a close button named "Close <title>".
/// egui's own title bar names its close button "Close window" for every window and gives the app
/// no handle on it, so orgql's windows are shown with `title_bar(false)` and call this first
/// (the window itself stays named by its title; it moves by a drag anywhere on it). Returns
/// whether the close button was pressed.
pub fn title_row(ui: &mut Ui, title: &str) -> bool {
    let mut close = false;
    ui.horizontal(|ui| {
        // Painted, not a label: the window is named by its title already (one name, not two).
        let galley = egui::WidgetText::from(egui::RichText::new(title).heading()).into_galley(
            ui,
            Some(egui::TextWrapMode::Truncate),
            (ui.available_width() - 32.0).max(0.0),
            egui::TextStyle::Heading,
        );
        let (rect, _) = ui.allocate_exact_size(galley.size(), egui::Sense::hover());
        ui.painter().galley(rect.min, galley, ui.visuals().strong_text_color());
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            close = close_button(ui, title).clicked();
        });
    });
    ui.separator();
    close
}

/// A window's close button named after the window ("Close Find user"), drawn as egui draws its own.
fn close_button(ui: &mut Ui, title: &str) -> Response {
    let size = ui.text_style_height(&egui::TextStyle::Heading);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::click());
    let name = format!("Close {title}");
    response.widget_info(|| egui::WidgetInfo::labeled(egui::accesskit::Role::Button, ui.is_enabled(), &name));
    let visuals = ui.style().interact(&response);
    let cross = rect.shrink(size * 0.25).expand(visuals.expansion);
    let stroke = visuals.fg_stroke;
    ui.painter().line_segment([cross.left_top(), cross.right_bottom()], stroke);
    ui.painter().line_segment([cross.right_top(), cross.left_bottom()], stroke);
    response
}

/// What a code editor (the query, the variables) does with Tab, Shift+Tab, Ctrl+M and Escape,
/// before the text edit sees the keys: Tab indents (a code editor's habit) unless "Tab moves
/// focus" is on (Ctrl+M) or Escape was pressed just before, when it moves to the next control;
/// Shift+Tab always moves to the previous one. Returns the event filter for the text edit.
pub fn code_editor_keys(ui: &Ui, edit: Id) -> EventFilter {
    let ctx = ui.ctx();
    let escaped = edit.with("orgql-escaped");
    let mut moves = tab_moves_focus(ctx);
    if ui.memory(|m| m.has_focus(edit)) {
        if ui.input_mut(|i| i.consume_shortcut(&TAB_MOVES_FOCUS)) {
            moves = !moves;
            ctx.data_mut(|d| d.insert_persisted(tab_moves_focus_id(), moves));
        }
        let was_escaped = ctx.data(|d| d.get_temp::<bool>(escaped)).unwrap_or(false);
        if ui.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::Tab)) {
            ui.memory_mut(|m| m.move_focus(FocusDirection::Previous));
            ctx.data_mut(|d| d.remove::<bool>(escaped));
        } else if (moves || was_escaped) && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab)) {
            ui.memory_mut(|m| m.move_focus(FocusDirection::Next));
            ctx.data_mut(|d| d.remove::<bool>(escaped));
        } else if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape)) {
            ctx.data_mut(|d| d.insert_temp(escaped, true));
        } else if was_escaped && ui.input(|i| i.events.iter().any(typing_event)) {
            ctx.data_mut(|d| d.remove::<bool>(escaped));
        }
    } else {
        ctx.data_mut(|d| d.remove::<bool>(escaped));
    }
    EventFilter { tab: !moves, horizontal_arrows: true, vertical_arrows: true, escape: true }
}

/// A confirmation's question, drawn as a label that names the modal dialog it is in (an alert
/// dialog: what a screen reader reads when it opens).
pub fn question(ui: &mut Ui, question: &str) -> Response {
    let label = ui.label(question);
    ui.ctx().accesskit_node_builder(ui.unique_id(), |node| {
        node.set_role(egui::accesskit::Role::AlertDialog);
        node.push_labelled_by(label.id.accesskit_id());
    });
    label
}

/// Whether an event edits or moves in a text (a key other than a bare modifier, or text).
fn typing_event(event: &Event) -> bool {
    matches!(event, Event::Text(_) | Event::Paste(_) | Event::Key { pressed: true, .. })
}

/// Closes the popup (a combo's list) that `ui` is in when `response` was chosen — by a click,
/// Enter or Space, or an accessibility action — and gives the focus back to the combo.
/// egui closes a combo on a pointer click only.
pub fn close_on_choice(ui: &Ui, response: &Response) -> bool {
    let chosen = response.clicked();
    if chosen {
        ui.close();
    }
    chosen
}

/// An item of a combo's list (`ui.selectable_value`) that closes the list when chosen by any
/// means.
pub fn choose<T: PartialEq>(ui: &mut Ui, current: &mut T, value: T, text: impl Into<egui::WidgetText>) -> Response {
    let response = ui.selectable_value(current, value, text);
    close_on_choice(ui, &response);
    response
}

/// A combo named by the label `label`, showing `shown`, choosing `current` among `choices`
/// (value, words): the list closes after a choice made by any means and the focus comes back
/// to the combo; its value is what it shows.
pub fn combo<T: PartialEq>(
    ui: &mut Ui,
    id_salt: impl egui::AsIdSalt,
    label: Id,
    shown: String,
    current: &mut T,
    choices: impl IntoIterator<Item = (T, String)>,
) -> Response {
    let inner = egui::ComboBox::from_id_salt(id_salt).selected_text(shown).show_ui(ui, |ui| {
        let mut chosen = false;
        for (value, words) in choices {
            chosen |= choose(ui, current, value, words).clicked();
        }
        chosen
    });
    let response = inner.response.labelled_by(label);
    finish_combo(ui, &response, inner.inner == Some(true));
    response
}

/// Gives the focus back to a combo whose list closed after a choice made in it, and says its
/// value where a screen reader on Linux finds it ([`say_combo_value`]).
pub fn finish_combo(ui: &mut Ui, response: &Response, chosen: bool) {
    if chosen {
        response.request_focus();
    }
    say_combo_value(ui, response);
}

/// Says a combo's value (what it shows) in a form AccessKit's Linux adapter passes to AT-SPI.
///
/// AccessKit keeps a combo's value in the node's `value`, which UI Automation reads on Windows;
/// but the Linux adapter (accesskit_atspi_common 0.21) gives a string value no AT-SPI interface
/// unless the node is a text input (Text) or a label (its name), so a combo box reaches Orca
/// named "Connection" with nothing else. Orca (`getComboBoxValue`) reads a combo's value from
/// its Selection interface — the selected child — as GTK's combos give it; AccessKit offers that
/// interface on every combo box, so a selected option named by the value, child of the combo,
/// is what it reads: "Connection, combo box, second". Drawn while the list is closed (an open
/// list's own items say which is chosen).
pub fn say_combo_value(ui: &mut Ui, combo: &Response) {
    if egui::ComboBox::is_open(ui.ctx(), combo.id) {
        return;
    }
    let Some(value) = ui.ctx().accesskit_node_builder(combo.id, |node| node.value().map(str::to_owned)).flatten()
    else {
        return;
    };
    let child = ui.new_child(
        egui::UiBuilder::new()
            .id_salt(("orgql-combo-value", combo.id))
            .max_rect(combo.rect)
            .accessibility_parent(combo.id),
    );
    let rect = combo.rect;
    child.ctx().accesskit_node_builder(child.unique_id(), |node| {
        node.set_role(egui::accesskit::Role::ListBoxOption);
        node.set_label(value);
        node.set_selected(true);
        let (x0, y0, x1, y1) = (rect.min.x.into(), rect.min.y.into(), rect.max.x.into(), rect.max.y.into());
        node.set_bounds(egui::accesskit::Rect { x0, y0, x1, y1 });
    });
}

/// A value the focus lands on after a change made it (`land`): the card's new state, an import's
/// retried row. Focusable then, and while it keeps the focus (`landed`: its id at the last
/// frame), so that it adds no stop to the Tab order; meanwhile read by its `name`, which says
/// what it is the value of ("State: Archived", "Row 3 (u00002): applied"), else by its text. The
/// change's outcome is a live region of its own.
pub fn landing(ui: &mut Ui, text: impl Into<egui::WidgetText>, name: &str, land: bool, landed: Option<Id>) -> Response {
    let kept = landed.is_some_and(|id| ui.memory(|m| m.has_focus(id)));
    let sense = if land || kept { egui::Sense::focusable_noninteractive() } else { egui::Sense::hover() };
    let response = ui.add(egui::Label::new(text).truncate().sense(sense));
    if land || kept {
        // A label is named by its value (AccessKit, and AT-SPI after it).
        ui.ctx().accesskit_node_builder(response.id, |node| node.set_value(name));
    }
    if land {
        response.request_focus();
        response.scroll_to_me(None);
    }
    response
}

/// Scrolls the control that gained the focus into view when it is in `ui` (Tab onto a control
/// low in a window or a card). Call at the end of a scroll area's contents (egui takes a scroll
/// target only from inside the scroll area it belongs to).
pub fn reveal_focus(ui: &Ui) {
    let Some(focused) = ui.memory(|m| m.focused()) else { return };
    let shown = Id::unique("orgql-focus-revealed");
    if ui.ctx().data(|d| d.get_temp::<Id>(shown)) == Some(focused) {
        return;
    }
    let Some(response) = ui.ctx().read_response(focused) else { return };
    if response.layer_id == ui.layer_id() && ui.min_rect().contains_rect(response.rect) {
        ui.ctx().data_mut(|d| d.insert_temp(shown, focused));
        ui.scroll_to_rect(response.rect, None);
    }
}

/// Where the control to give the focus back to waits, with the pass it began waiting.
fn return_focus_id() -> Id {
    Id::unique("orgql-return-focus")
}

/// The control to give the focus back to, the pass it began waiting, and what had the focus
/// when the window closed.
type ReturnWaiting = (Id, u64, Option<Id>);

/// How many passes the focus waits for the control that opened a window to take it back.
const RETURN_PATIENCE: u64 = 600;

/// Gives the focus back to the control that opened a window that closed, whenever it is
/// enabled (again) within [`RETURN_PATIENCE`] passes; forgotten as soon as the person has
/// focused something else.
fn return_focus(ctx: &egui::Context) {
    type Waiting = ReturnWaiting;
    let Some((opener, since, at_close)) = ctx.data(|d| d.get_temp::<Waiting>(return_focus_id())) else { return };
    let focused = ctx.memory(|m| m.focused());
    let ready = ctx.read_response(opener).is_some_and(|r| r.enabled());
    let stale = ctx.cumulative_pass_nr() > since + RETURN_PATIENCE;
    // The focus still on a control of the closed window is not a choice made since.
    if focused.is_some_and(|f| f != opener && Some(f) != at_close) || stale {
        ctx.data_mut(|d| d.remove::<Waiting>(return_focus_id()));
    } else if ready && focused != Some(opener) {
        // Asked again should the control be disabled meanwhile (the change it asked for runs).
        ctx.memory_mut(|m| m.request_focus(opener));
    } else if !ready {
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
}

/// Draws a ring around the focused control: 2 points in the theme's focus colour, which meets
/// 3:1 against the panels ([`crate::ui::widgets::theme`]). Call once a frame, after everything is drawn.
pub fn focus_ring(ctx: &egui::Context) {
    return_focus(ctx);
    let Some(focused) = ctx.memory(|m| m.focused()) else { return };
    let Some(response) = ctx.read_response(focused) else { return };
    if !response.rect.is_finite() || response.rect.area() <= 0.0 {
        return;
    }
    let stroke = egui::Stroke::new(2.0, crate::ui::widgets::theme::focus_color(&ctx.global_style().visuals));
    let painter = ctx.layer_painter(response.layer_id).with_clip_rect(ctx.content_rect());
    painter.rect_stroke(response.rect.expand(1.0), 3.0, stroke, egui::StrokeKind::Outside);
}
