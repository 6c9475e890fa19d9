//! A chart as an SVG document: the same bars, title and axis as on screen, from the [`Tally`]
//! (not from the screen's pixels), so it stays sharp at any size. The `svg` crate writes the
//! document and escapes every value taken from the rows.

use svg::Document;
use svg::node::Text as TextNode;
use svg::node::element::{Line, Rectangle, Text, Title};

use super::{Tally, number, percent};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 540.0;
/// Room for the axis's numbers and the first values' slanted names.
const LEFT: f64 = 120.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
/// Room for the values under the bars (written at a slant).
const BOTTOM: f64 = 130.0;
const BAR: &str = "#3b82c4";
/// The longest value written under a bar, in characters (the whole value is in its tooltip).
const LABEL_CHARS: usize = 24;

/// The bars of `tally` (at most `max_bars`, as on screen) as an SVG document.
pub fn document(tally: &Tally, max_bars: usize) -> String {
    let groups = &tally.groups[..tally.groups.len().min(max_bars)];
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let top = groups.iter().map(|g| g.amount).fold(0.0_f64, f64::max);
    let (step, ticks) = nice_ticks(top);
    let scale_top = (step * ticks as f64).max(f64::MIN_POSITIVE);
    let y = |amount: f64| TOP + plot_height * (1.0 - amount.max(0.0) / scale_top);
    let mut document = Document::new()
        .set("xmlns", "http://www.w3.org/2000/svg")
        .set("width", WIDTH)
        .set("height", HEIGHT)
        .set("viewBox", (0, 0, WIDTH, HEIGHT))
        .set("font-family", "sans-serif")
        .set("font-size", 12)
        .add(Rectangle::new().set("width", WIDTH).set("height", HEIGHT).set("fill", "white"))
        .add(
            Text::new("")
                .add(TextNode::new(tally.title()))
                .set("x", LEFT)
                .set("y", 28)
                .set("font-size", 18)
                .set("font-weight", "bold"),
        );
    for tick in 0..=ticks {
        let amount = step * tick as f64;
        let at = y(amount);
        document = document
            .add(
                Line::new()
                    .set("x1", LEFT)
                    .set("x2", WIDTH - RIGHT)
                    .set("y1", at)
                    .set("y2", at)
                    .set("stroke", if tick == 0 { "#444" } else { "#ddd" }),
            )
            .add(
                Text::new("")
                    .add(TextNode::new(number(amount)))
                    .set("x", LEFT - 8.0)
                    .set("y", at + 4.0)
                    .set("text-anchor", "end"),
            );
    }
    let slot = plot_width / groups.len().max(1) as f64;
    for (i, group) in groups.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let top = y(group.amount);
        let share = group.share.map(|s| format!(", {}", percent(s))).unwrap_or_default();
        let tooltip = format!("{}: {} {}{share}", group.value, number(group.amount), tally.amount_name());
        document = document.add(
            Rectangle::new()
                .set("x", x)
                .set("y", top)
                .set("width", slot * 0.7)
                .set("height", (TOP + plot_height - top).max(0.0))
                .set("fill", BAR)
                .add(Title::new("").add(TextNode::new(tooltip))),
        );
        let label: String = if group.value.chars().count() > LABEL_CHARS {
            group.value.chars().take(LABEL_CHARS - 1).chain(['…']).collect()
        } else {
            group.value.clone()
        };
        let (lx, ly) = (x + slot * 0.35, TOP + plot_height + 12.0);
        document = document.add(
            Text::new("")
                .add(TextNode::new(label))
                .set("x", lx)
                .set("y", ly)
                .set("text-anchor", "end")
                .set("transform", format!("rotate(-40 {lx} {ly})")),
        );
    }
    document.to_string()
}

/// A step of 1, 2 or 5 × 10ⁿ and how many steps reach at least `top` (about five).
fn nice_ticks(top: f64) -> (f64, u32) {
    if top <= 0.0 || !top.is_finite() {
        return (1.0, 1);
    }
    let rough = top / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= rough).unwrap_or(10.0 * magnitude);
    let ticks = (top / step).ceil().max(1.0) as u32;
    (step, ticks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{ChartSpec, tally};
    use crate::table::Row;

    #[test]
    fn writes_a_bar_per_value_with_its_count_and_escapes_the_values() {
        let rows = vec![Row::new(["<b>&"]), Row::new(["<b>&"]), Row::new(["plain"])];
        let tally = tally(&rows, &["kind".into()], ChartSpec::default()).unwrap();
        let svg = document(&tally, 60);
        assert!(svg.starts_with("<svg"), "{svg}");
        assert_eq!(svg.matches("<rect").count(), 3, "a background and two bars: {svg}");
        assert!(svg.contains("&lt;b&gt;&amp;: 2 count, 66.7%"), "{svg}");
        assert!(!svg.contains("<b>"), "{svg}");
        assert!(svg.contains("Count by kind"));
    }

    #[test]
    fn ticks_are_round_numbers_above_the_tallest_bar() {
        assert_eq!(nice_ticks(0.0), (1.0, 1));
        assert_eq!(nice_ticks(7.0), (2.0, 4));
        assert_eq!(nice_ticks(120.0), (50.0, 3));
        assert_eq!(nice_ticks(1.0), (0.2, 5));
    }
}
