//! Which deliveries the inspector shows (and exports): by event type, by verification and by
//! the time they arrived (a range dragged across the timeline).

use chrono::{DateTime, Utc};

use crate::store::DeliverySummary;

/// Which verification outcomes are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerificationFilter {
    /// Every delivery.
    #[default]
    All,
    /// Signature checked and valid.
    Verified,
    /// Signature missing, malformed, wrong or too old; or the body was refused.
    Failed,
    /// No secret was set when it arrived.
    NotChecked,
}

impl VerificationFilter {
    /// Every choice, in the order offered.
    pub const ALL: [VerificationFilter; 4] = [
        VerificationFilter::All,
        VerificationFilter::Verified,
        VerificationFilter::Failed,
        VerificationFilter::NotChecked,
    ];

    /// The choice in words.
    pub fn label(self) -> &'static str {
        match self {
            VerificationFilter::All => "Any signature",
            VerificationFilter::Verified => "Verified ✓",
            VerificationFilter::Failed => "Failed ✗",
            VerificationFilter::NotChecked => "Not checked",
        }
    }

    fn matches(self, verified: Option<bool>) -> bool {
        match self {
            VerificationFilter::All => true,
            VerificationFilter::Verified => verified == Some(true),
            VerificationFilter::Failed => verified == Some(false),
            VerificationFilter::NotChecked => verified.is_none(),
        }
    }
}

/// A filter over deliveries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeliveryFilter {
    /// Only this event type (the body's `type`); none: any, including deliveries without one.
    pub event_type: Option<String>,
    /// Only these verification outcomes.
    pub verification: VerificationFilter,
    /// Only those received from the first instant (included) to the second (excluded).
    pub received: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

impl DeliveryFilter {
    /// Whether a delivery passes.
    pub fn matches(&self, delivery: &DeliverySummary) -> bool {
        self.verification.matches(delivery.verified)
            && self.event_type.as_ref().is_none_or(|kind| delivery.event_type.as_ref() == Some(kind))
            && self.received.is_none_or(|(from, to)| from <= delivery.received_at && delivery.received_at < to)
    }

    /// Whether everything passes.
    pub fn is_empty(&self) -> bool {
        self.event_type.is_none() && self.verification == VerificationFilter::All && self.received.is_none()
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn summary(event_type: Option<&str>, verified: Option<bool>) -> DeliverySummary {
        DeliverySummary {
            id: 1,
            received_at: Utc::now(),
            method: "POST".into(),
            path: "/".into(),
            event_type: event_type.map(str::to_owned),
            verified,
            reason: String::new(),
            size: 0,
        }
    }

    #[test]
    fn filters_combine_type_and_verification() {
        let created_ok = summary(Some("user.created"), Some(true));
        let created_bad = summary(Some("user.created"), Some(false));
        let untyped = summary(None, None);
        let all = DeliveryFilter::default();
        assert!(all.is_empty() && all.matches(&created_ok) && all.matches(&untyped));
        let created = DeliveryFilter { event_type: Some("user.created".into()), ..Default::default() };
        assert!(created.matches(&created_ok) && created.matches(&created_bad) && !created.matches(&untyped));
        let failed = DeliveryFilter { verification: VerificationFilter::Failed, ..created };
        assert!(!failed.matches(&created_ok) && failed.matches(&created_bad));
        let unchecked = DeliveryFilter { verification: VerificationFilter::NotChecked, ..Default::default() };
        assert!(unchecked.matches(&untyped) && !unchecked.matches(&created_ok));
    }

    #[test]
    fn a_time_range_keeps_its_start_and_leaves_out_its_end() {
        let at = summary(None, None);
        let second = chrono::Duration::seconds(1);
        let from = DeliveryFilter { received: Some((at.received_at, at.received_at + second)), ..Default::default() };
        assert!(!from.is_empty() && from.matches(&at));
        let before = DeliveryFilter { received: Some((at.received_at - second, at.received_at)), ..Default::default() };
        assert!(!before.matches(&at));
    }
}
