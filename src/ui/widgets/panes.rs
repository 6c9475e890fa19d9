//! F6 and Shift+F6: the focus moves between the window's panes, as in every Windows program
//! (Explorer, Office, browsers) — the toolbar, the side panel, the query editor, the variables,
//! the result, the status bar (the webhook inspector in its view) — each pane a node of its own
//! role named by its name, which a screen reader reads as the focus enters it.
//!
//! A pane is drawn inside [`show`]; F6 lands on the control a pane names with [`land_on`] (the
//! query, the grid's cursor) or else on its first control; a pane with none (the status bar)
//! takes the focus itself. The pane the focus is in is the innermost one drawn around the
//! focused control at the last frame. Nothing is focused yet (the window's start): F6 goes to
//! the first pane, Shift+F6 to the last.

use egui::accesskit::Role;
use egui::{Id, Key, LayerId, Modifiers, Rect, Ui, UiBuilder};

/// A pane of the window, in F6's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The connection, the windows' buttons, the views, the tabs.
    Toolbar,
    /// The explorer, the history or the saved operations.
    Side,
    /// Run, the query.
    Editor,
    /// The variables beside the query.
    Variables,
    /// The result's views, its pages, export and the grid.
    Result,
    /// The webhook inspector (its view instead of the query's).
    Webhooks,
    /// The token, the last request, where the sandbox and the listener are.
    Status,
}

impl Pane {
    /// F6's order.
    const ORDER: [Pane; 7] =
        [Pane::Toolbar, Pane::Side, Pane::Editor, Pane::Variables, Pane::Result, Pane::Webhooks, Pane::Status];

    /// What a screen reader calls it.
    pub fn name(self) -> &'static str {
        match self {
            Pane::Toolbar => "Toolbar",
            Pane::Side => "Side panel",
            Pane::Editor => "Query editor",
            Pane::Variables => "Variables",
            Pane::Result => "Result",
            Pane::Webhooks => "Webhook inspector",
            Pane::Status => "Status bar",
        }
    }

    fn role(self) -> Role {
        match self {
            Pane::Toolbar => Role::Toolbar,
            Pane::Status => Role::Status,
            _ => Role::Pane,
        }
    }

    /// Whether the pane takes the focus itself (it has no control of its own).
    fn takes_focus(self) -> bool {
        self == Pane::Status
    }
}

/// What F6 keeps between frames (in egui's temporary memory).
#[derive(Clone, Default)]
struct Panes {
    /// The panes drawn at the last frame, in drawing order, with where they were.
    drawn: Vec<(Pane, Rect, LayerId)>,
    /// Those drawn so far at this frame.
    drawing: Vec<(Pane, Rect, LayerId)>,
    /// The pane F6 moves the focus to at this frame, and whether a control of it took it yet.
    target: Option<(Pane, bool)>,
}

fn memory_id() -> Id {
    Id::unique("orgql-panes")
}

fn with<R>(ctx: &egui::Context, f: impl FnOnce(&mut Panes) -> R) -> R {
    ctx.data_mut(|d| f(d.get_temp_mut_or_default::<Panes>(memory_id())))
}

/// Call once a frame before the panes are drawn: F6 and Shift+F6 choose the pane the focus
/// moves to (the next or the previous of those drawn at the last frame, around).
pub fn keys(ctx: &egui::Context) {
    // Shift+F6 first: F6 with no modifier matches a Shift held too.
    let backward = ctx.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::F6));
    let forward = !backward && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::F6));
    with(ctx, |panes| {
        panes.drawn = std::mem::take(&mut panes.drawing);
        panes.target = None;
    });
    if !(forward || backward) {
        return;
    }
    let current = current(ctx);
    with(ctx, |panes| {
        let order: Vec<Pane> = Pane::ORDER.into_iter().filter(|p| panes.drawn.iter().any(|(d, ..)| d == p)).collect();
        if order.is_empty() {
            return;
        }
        let at = current.and_then(|c| order.iter().position(|p| *p == c));
        let next = match (at, forward) {
            (Some(at), true) => (at + 1) % order.len(),
            (Some(at), false) => (at + order.len() - 1) % order.len(),
            (None, true) => 0,
            (None, false) => order.len() - 1,
        };
        panes.target = Some((order[next], false));
    });
    ctx.request_repaint();
}

/// The pane the focus is in: the innermost drawn around the focused control at the last frame.
fn current(ctx: &egui::Context) -> Option<Pane> {
    let focused = ctx.memory(|m| m.focused())?;
    let response = ctx.read_response(focused)?;
    let at = response.rect.center();
    with(ctx, |panes| {
        panes
            .drawn
            .iter()
            .filter(|(_, rect, layer)| *layer == response.layer_id && rect.contains(at))
            .min_by(|a, b| a.1.area().total_cmp(&b.1.area()))
            .map(|(pane, ..)| *pane)
    })
}

/// Draws `pane` with `add`: a node of the pane's role named by it; when F6 chose it, the focus
/// lands on what [`land_on`] names in it, else on its first control, else on the pane itself.
pub fn show<R>(ui: &mut Ui, pane: Pane, add: impl FnOnce(&mut Ui) -> R) -> R {
    let ctx = ui.ctx().clone();
    let targeted = with(&ctx, |panes| panes.target.is_some_and(|(p, _)| p == pane));
    let self_id = ui.scope_id().with(("orgql-pane", pane.name()));
    let own_focus = pane.takes_focus() && (targeted || ctx.memory(|m| m.has_focus(self_id)));
    let mut builder = UiBuilder::new().accessibility_role(pane.role()).accessibility_label(pane.name());
    builder = if pane.takes_focus() {
        // A stable id, to be focused by: the pane is focusable only while it is F6's (no Tab
        // stop of its own).
        let builder = builder.scope_id(self_id);
        if own_focus { builder.sense(egui::Sense::focusable_noninteractive()) } else { builder }
    } else {
        builder.id_salt(("orgql-pane", pane.name()))
    };
    let inner = ui.scope_builder(builder, |ui| {
        if targeted && !pane.takes_focus() {
            crate::ui::widgets::a11y::focus_next_drawn(ui);
        }
        add(ui)
    });
    if targeted && pane.takes_focus() {
        ctx.memory_mut(|m| m.request_focus(self_id));
    }
    if targeted {
        with(&ctx, |panes| panes.target = None);
    }
    with(&ctx, |panes| panes.drawing.push((pane, inner.response.rect, ui.layer_id())));
    inner.inner
}

/// Names the control F6 lands on in the pane being drawn (the query editor, the grid's cursor),
/// rather than its first control. Call while drawing the pane, once the control exists or
/// before. Returns whether the focus lands there at this frame.
pub fn land_on(ui: &Ui, pane: Pane, id: Id) -> bool {
    let ctx = ui.ctx();
    let targeted = with(ctx, |panes| panes.target.is_some_and(|(p, landed)| p == pane && !landed));
    if targeted {
        ctx.memory_mut(|m| {
            m.request_focus(id);
            // What the pane's first control was promised is taken back.
            m.move_focus(egui::FocusDirection::None);
        });
        with(ctx, |panes| panes.target = Some((pane, true)));
    }
    targeted
}
