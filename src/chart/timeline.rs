//! Webhook deliveries over time: how many arrived each minute or hour, by event type, and how
//! many of them failed their signature check. Built once and then extended by what arrives
//! (a burst costs what it adds, not the whole list again).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};

use crate::store::DeliverySummary;

/// What deliveries without a `type` are counted as.
pub const NO_TYPE: &str = "(no type)";

/// The width of a bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Step {
    #[default]
    Minute,
    Hour,
}

impl Step {
    pub const ALL: [Step; 2] = [Step::Minute, Step::Hour];

    /// Seconds in a bin.
    pub fn seconds(self) -> i64 {
        match self {
            Step::Minute => 60,
            Step::Hour => 3600,
        }
    }

    /// The choice in words.
    pub fn label(self) -> &'static str {
        match self {
            Step::Minute => "Per minute",
            Step::Hour => "Per hour",
        }
    }
}

/// One bin's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bin {
    /// Deliveries of each type, by the type's index in [`Timeline::types`].
    pub by_type: Vec<u32>,
    /// Of those, the ones whose signature failed.
    pub failed: u32,
}

impl Bin {
    /// Every delivery of the bin.
    pub fn total(&self) -> u32 {
        self.by_type.iter().sum()
    }
}

/// Deliveries binned over time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    pub step: Step,
    /// The event types in the order first seen.
    pub types: Vec<String>,
    /// How many deliveries of each type.
    pub type_counts: Vec<u64>,
    type_index: HashMap<String, usize>,
    /// Bins by their start (seconds since the Unix epoch, a multiple of the step).
    pub bins: BTreeMap<i64, Bin>,
    /// How many deliveries were added.
    pub deliveries: usize,
}

impl Timeline {
    /// An empty timeline of `step`.
    pub fn new(step: Step) -> Self {
        Timeline { step, ..Timeline::default() }
    }

    /// Adds deliveries.
    pub fn extend<'d>(&mut self, deliveries: impl IntoIterator<Item = &'d DeliverySummary>) {
        let seconds = self.step.seconds();
        for delivery in deliveries {
            let kind = delivery.event_type.as_deref().unwrap_or(NO_TYPE);
            let index = match self.type_index.get(kind) {
                Some(index) => *index,
                None => {
                    self.types.push(kind.to_owned());
                    self.type_counts.push(0);
                    self.type_index.insert(kind.to_owned(), self.types.len() - 1);
                    self.types.len() - 1
                }
            };
            let start = delivery.received_at.timestamp().div_euclid(seconds) * seconds;
            let bin = self.bins.entry(start).or_default();
            if bin.by_type.len() <= index {
                bin.by_type.resize(index + 1, 0);
            }
            bin.by_type[index] += 1;
            self.type_counts[index] += 1;
            bin.failed += u32::from(delivery.verified == Some(false));
            self.deliveries += 1;
        }
    }

    /// The most minutes a timeline is binned by before hours fit better.
    pub const MOST_MINUTES: usize = 360;

    /// The step that shows `deliveries` in at most about 360 bins: minutes for up to six hours.
    pub fn fitting_step(deliveries: &[DeliverySummary]) -> Step {
        let (Some(first), Some(last)) =
            (deliveries.iter().map(|d| d.received_at).min(), deliveries.iter().map(|d| d.received_at).max())
        else {
            return Step::Minute;
        };
        if (last - first).num_minutes() <= Self::MOST_MINUTES as i64 { Step::Minute } else { Step::Hour }
    }

    /// The deliveries of type index `kind` in each bin from `from` on, as (bin start, count),
    /// skipping empty ones.
    pub fn series(&self, kind: usize, from: i64) -> impl Iterator<Item = (i64, u32)> + '_ {
        self.bins
            .range(from..)
            .map(move |(start, bin)| (*start, bin.by_type.get(kind).copied().unwrap_or(0)))
            .filter(|(_, n)| *n > 0)
    }

    /// The start of the last `most` bins (all of them when there are fewer).
    pub fn last_bins_from(&self, most: usize) -> i64 {
        self.bins.keys().rev().nth(most.saturating_sub(1)).copied().unwrap_or(i64::MIN)
    }

    /// The first and last instants covered (the end of the last bin), when any.
    pub fn span(&self) -> Option<(i64, i64)> {
        let first = *self.bins.keys().next()?;
        let last = *self.bins.keys().next_back()?;
        Some((first, last + self.step.seconds()))
    }

    /// The time range from `a` to `b` seconds (either order), widened to whole bins: what a drag
    /// across the timeline selects.
    pub fn range(&self, a: f64, b: f64) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let seconds = self.step.seconds() as f64;
        let (from, to) = (a.min(b), a.max(b));
        let from = (from / seconds).floor() * seconds;
        let to = (to / seconds).ceil().max(from / seconds + 1.0) * seconds;
        let from = DateTime::from_timestamp(from as i64, 0)?;
        let to = DateTime::from_timestamp(to as i64, 0)?;
        Some((from, to))
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn delivery(id: i64, at: i64, kind: Option<&str>, verified: Option<bool>) -> DeliverySummary {
        DeliverySummary {
            id,
            received_at: Utc.timestamp_opt(at, 0).unwrap(),
            method: "POST".into(),
            path: "/".into(),
            event_type: kind.map(str::to_owned),
            verified,
            reason: String::new(),
            size: 1,
        }
    }

    #[test]
    fn bins_by_minute_and_type_and_marks_failures() {
        let list = [
            delivery(1, 600, Some("user.created"), Some(true)),
            delivery(2, 659, Some("user.updated"), Some(false)),
            delivery(3, 660, Some("user.created"), None),
            delivery(4, 60 * 90, None, Some(false)),
        ];
        let mut timeline = Timeline::new(Step::Minute);
        timeline.extend(&list[..2]);
        timeline.extend(&list[2..]);
        assert_eq!(timeline.types, ["user.created", "user.updated", NO_TYPE]);
        assert_eq!(timeline.type_counts, [2, 1, 1]);
        assert_eq!(timeline.bins[&600], Bin { by_type: vec![1, 1], failed: 1 });
        assert_eq!(timeline.bins[&660].total(), 1);
        assert_eq!(timeline.bins[&5400], Bin { by_type: vec![0, 0, 1], failed: 1 });
        assert_eq!(timeline.series(0, i64::MIN).collect::<Vec<_>>(), [(600, 1), (660, 1)]);
        assert_eq!(timeline.last_bins_from(2), 660);
        assert_eq!(timeline.series(0, timeline.last_bins_from(2)).collect::<Vec<_>>(), [(660, 1)]);
        assert_eq!(timeline.last_bins_from(9), i64::MIN);
        assert_eq!(timeline.span(), Some((600, 5460)));
        assert_eq!(timeline.deliveries, 4);
        let (from, to) = timeline.range(700.0, 630.0).unwrap();
        assert_eq!((from.timestamp(), to.timestamp()), (600, 720));
        let mut hourly = Timeline::new(Step::Hour);
        hourly.extend(&list);
        assert_eq!(hourly.bins.keys().copied().collect::<Vec<_>>(), [0, 3600]);
        assert_eq!(Timeline::fitting_step(&list), Step::Minute);
        assert_eq!(Timeline::fitting_step(&[list[0].clone(), delivery(5, 600 + 7 * 3600, None, None)]), Step::Hour);
    }
}
