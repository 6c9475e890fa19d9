//! A click stays a click when the frames are slow.
//!
//! egui times a press by the frames that carry it: the press takes the time of the frame that
//! read it, the release the time of the frame that read it, and a press held longer than
//! [`egui::InputOptions::max_click_duration`] (0.8 s) is not a click. A person's click (the
//! button down for a few milliseconds) whose release arrives while a frame is being drawn is read
//! a frame later, so its measured length is at least that frame's length. Where a frame takes
//! longer than 0.8 s — a software renderer on a large screen, over Remote Desktop or in a VM
//! without 3D, at 200 % on 2560×1440 under load (the Windows smoke's dialog tour lost a click on
//! Find user so) — every click whose release is read a frame after its press is lost: the window
//! seems not to hear the mouse.
//!
//! So before each frame the allowances are egui's own plus the time since the previous frame
//! (the most by which the frame times can overstate a press or the gap of a double click): while
//! frames come 60 a second this is 0.8 s + 17 ms, and a press held longer is still no click. A
//! mouse press held still while nothing is drawn (no frame between the press's and the release's)
//! counts as a click however long it was, up to 10 s more than egui's allowance — as a button of
//! Windows or GTK counts any press released over it. A touch's long press is as before: egui asks
//! for a frame when it ends.
//!
//! eframe calls [`eframe::App::raw_input_hook`] with the frame's input before egui reads it:
//! [`ClickTiming::before_frame`] is called there.

use egui::{Context, InputOptions, RawInput};

/// Beyond this, the time since the previous frame is not a slow frame but a window left idle
/// with a button held: no more allowance than this is added.
const MOST_ADDED: f64 = 10.0;

/// The time of the previous frame, to widen egui's click allowances by the frame's length.
#[derive(Debug, Default)]
pub struct ClickTiming {
    previous: Option<f64>,
}

impl ClickTiming {
    /// Sets egui's click allowances for the frame about to read `raw` (its `time`, seconds): egui's
    /// defaults plus the time since the previous frame.
    pub fn before_frame(&mut self, ctx: &Context, raw: &RawInput) {
        let Some(now) = raw.time else {
            return;
        };
        let frame = self.previous.map_or(0.0, |previous| (now - previous).clamp(0.0, MOST_ADDED));
        self.previous = Some(now);
        let defaults = InputOptions::default();
        ctx.options_mut(|options| {
            options.input_options.max_click_duration = defaults.max_click_duration + frame;
            options.input_options.max_double_click_delay = defaults.max_double_click_delay + frame;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::ClickTiming;
    use egui::{Event, PointerButton, Pos2, RawInput, Rect, vec2};

    /// One frame of a window holding a single button at the top left: whether it was clicked.
    fn frame(ctx: &egui::Context, timing: Option<&mut ClickTiming>, time: f64, events: Vec<Event>) -> bool {
        let raw = RawInput {
            time: Some(time),
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(400.0, 300.0))),
            events,
            ..RawInput::default()
        };
        if let Some(timing) = timing {
            timing.before_frame(ctx, &raw);
        }
        let mut clicked = false;
        let mut output = ctx.run_ui(raw, |ui| {
            clicked = ui.button("Find user").clicked();
        });
        // No renderer takes the font atlas here.
        output.textures_delta.clear();
        clicked
    }

    fn button(pressed: bool) -> Event {
        Event::PointerButton {
            pos: Pos2::new(20.0, 10.0),
            button: PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        }
    }

    /// A click (down and up 12 ms apart, as `xdotool click` gives it) whose release is read by
    /// the frame after a 1.5-s one: its press read at `t`, its release at `t + 1.5`.
    fn click_across_a_slow_frame(mut timing: Option<&mut ClickTiming>) -> bool {
        let ctx = egui::Context::default();
        let mut clicked = false;
        let mut t = 0.0;
        for _ in 0..3 {
            clicked |= frame(&ctx, timing.as_deref_mut(), t, vec![Event::PointerMoved(Pos2::new(20.0, 10.0))]);
            t += 1.0 / 60.0;
        }
        clicked |= frame(&ctx, timing.as_deref_mut(), t, vec![button(true)]);
        clicked |= frame(&ctx, timing, t + 1.5, vec![button(false)]);
        clicked
    }

    #[test]
    fn a_click_read_across_a_slow_frame_is_a_click() {
        // egui alone loses it: the case this module is for.
        assert!(!click_across_a_slow_frame(None), "egui's own timing was expected to lose this click");
        let mut timing = ClickTiming::default();
        assert!(click_across_a_slow_frame(Some(&mut timing)), "the click across a 1.5-s frame was lost");
    }

    #[test]
    fn a_press_held_still_past_egui_s_allowance_is_still_no_click() {
        let ctx = egui::Context::default();
        let mut timing = ClickTiming::default();
        let mut t = 0.0;
        let mut clicked = false;
        for _ in 0..3 {
            clicked |= frame(&ctx, Some(&mut timing), t, vec![Event::PointerMoved(Pos2::new(20.0, 10.0))]);
            t += 1.0 / 60.0;
        }
        clicked |= frame(&ctx, Some(&mut timing), t, vec![button(true)]);
        // Held 2 s with frames at 60 a second (the machine is quick): a long press, not a click.
        for _ in 0..120 {
            t += 1.0 / 60.0;
            clicked |= frame(&ctx, Some(&mut timing), t, vec![]);
        }
        clicked |= frame(&ctx, Some(&mut timing), t + 1.0 / 60.0, vec![button(false)]);
        assert!(!clicked, "a 2-s press on a quick machine counted as a click");
    }

    /// A press and its release `held` seconds later with no frame between (nothing was drawn).
    fn press_held_while_nothing_is_drawn(held: f64) -> bool {
        let ctx = egui::Context::default();
        let mut timing = ClickTiming::default();
        let mut clicked = frame(&ctx, Some(&mut timing), 0.0, vec![Event::PointerMoved(Pos2::new(20.0, 10.0))]);
        clicked |= frame(&ctx, Some(&mut timing), 0.02, vec![button(true)]);
        clicked | frame(&ctx, Some(&mut timing), 0.02 + held, vec![button(false)])
    }

    #[test]
    fn a_press_held_while_nothing_is_drawn_is_a_click_up_to_ten_seconds_more_than_egui_s() {
        // As a native button: released over it, clicked.
        assert!(press_held_while_nothing_is_drawn(3.0), "a 3-s press with no frame between was no click");
        assert!(!press_held_while_nothing_is_drawn(12.0), "a 12-s press counted as a click");
    }

    #[test]
    fn a_frame_without_a_time_changes_nothing() {
        let ctx = egui::Context::default();
        let mut timing = ClickTiming::default();
        timing.before_frame(&ctx, &RawInput::default());
        assert_eq!(
            ctx.options(|o| o.input_options.max_click_duration),
            egui::InputOptions::default().max_click_duration
        );
    }
}
