//! When a schedule runs, in the computer's local time: every hour, every day, on weekdays, on
//! some days of the week or on one day of every month, at a time of day. Written and read as a
//! short text (`daily 07:00`, `mon,thu 06:30`, `monthly 5 07:00`), said in a person's words
//! ([`When::describe`]) and turned into the next run ([`When::next_after`]).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Weekday};
use serde::{Deserialize, Serialize};

/// A time of day, `00:00` to `23:59`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct At {
    /// The hour, 0 to 23.
    pub hour: u8,
    /// The minute, 0 to 59.
    pub minute: u8,
}

impl At {
    /// The time `hour:minute`, or `None` past 23:59.
    pub fn new(hour: u8, minute: u8) -> Option<At> {
        (hour < 24 && minute < 60).then_some(At { hour, minute })
    }

    fn time(self) -> NaiveTime {
        NaiveTime::from_hms_opt(u32::from(self.hour.min(23)), u32::from(self.minute.min(59)), 0)
            .unwrap_or(NaiveTime::MIN)
    }

    /// `H:MM` or `HH:MM`.
    fn parse(text: &str) -> Option<At> {
        let (hour, minute) = text.split_once(':')?;
        let digits = |s: &str, len: std::ops::RangeInclusive<usize>| {
            (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u8>().ok()).flatten()
        };
        At::new(digits(hour, 1..=2)?, digits(minute, 2..=2)?)
    }
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// When a schedule runs, in local time. Its text ([`fmt::Display`], [`FromStr`], and serde as
/// that text) is one of `hourly`, `daily HH:MM`, `weekdays HH:MM`, a day or days (`mon HH:MM`,
/// `mon,thu HH:MM`) and `monthly D HH:MM`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum When {
    /// At minute 0 of every hour (`hourly`).
    Hourly,
    /// Every day at a time (`daily 07:00`).
    Daily(At),
    /// Monday to Friday at a time (`weekdays 07:00`).
    Weekdays(At),
    /// These days of the week at a time (`mon 07:00`, `mon,thu 06:30`): sorted from Monday,
    /// without repeats, never empty when parsed.
    Days(Vec<Weekday>, At),
    /// One day of every month at a time (`monthly 5 07:00`), the day 1 to 31; a month without
    /// that day is skipped, as every system scheduler does.
    Monthly {
        /// The day of the month, 1 to 31.
        day: u8,
        /// The time of day.
        at: At,
    },
}

/// A text that is not a [`When`]; its message is one sentence listing the forms accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhenError {
    text: String,
    reason: Option<&'static str>,
}

impl fmt::Display for WhenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" is not a schedule", self.text)?;
        if let Some(reason) = self.reason {
            write!(f, " ({reason})")?;
        }
        f.write_str(
            "; use hourly, daily HH:MM, weekdays HH:MM, a day or days (mon HH:MM, mon,thu HH:MM) or monthly D HH:MM",
        )
    }
}

impl std::error::Error for WhenError {}

const DAY_NAMES: [(Weekday, &str, &str); 7] = [
    (Weekday::Mon, "mon", "monday"),
    (Weekday::Tue, "tue", "tuesday"),
    (Weekday::Wed, "wed", "wednesday"),
    (Weekday::Thu, "thu", "thursday"),
    (Weekday::Fri, "fri", "friday"),
    (Weekday::Sat, "sat", "saturday"),
    (Weekday::Sun, "sun", "sunday"),
];

fn day_named(word: &str) -> Option<Weekday> {
    DAY_NAMES.iter().find(|(_, short, long)| word == *short || word == *long).map(|(day, _, _)| *day)
}

fn short_name(day: Weekday) -> &'static str {
    DAY_NAMES[day.num_days_from_monday() as usize].1
}

/// The day's English name (`Monday`).
fn long_name(day: Weekday) -> String {
    let long = DAY_NAMES[day.num_days_from_monday() as usize].2;
    let mut chars = long.chars();
    chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// `days` sorted from Monday, without repeats.
fn sorted(days: &[Weekday]) -> Vec<Weekday> {
    let mut days = days.to_vec();
    days.sort_by_key(|d| d.num_days_from_monday());
    days.dedup();
    days
}

impl FromStr for When {
    type Err = WhenError;

    fn from_str(text: &str) -> Result<When, WhenError> {
        let refused = |reason| WhenError { text: text.trim().to_owned(), reason };
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let at = |word: &str| At::parse(word).ok_or_else(|| refused(Some("the time is HH:MM, from 00:00 to 23:59")));
        match words.as_slice() {
            ["hourly"] => Ok(When::Hourly),
            ["daily", time] => Ok(When::Daily(at(time)?)),
            ["weekdays", time] => Ok(When::Weekdays(at(time)?)),
            ["monthly", day, time] => {
                let day = day
                    .parse::<u8>()
                    .ok()
                    .filter(|d| (1..=31).contains(d) && day.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| refused(Some("the day of the month is 1 to 31")))?;
                Ok(When::Monthly { day, at: at(time)? })
            }
            [days @ .., time] if !days.is_empty() => {
                // "mon,thu", also written "mon, thu".
                let list = days.join(",");
                let mut named = Vec::new();
                for word in list.split(',').filter(|w| !w.is_empty()) {
                    named.push(day_named(word).ok_or_else(|| refused(None))?);
                }
                if named.is_empty() {
                    return Err(refused(None));
                }
                Ok(When::Days(sorted(&named), at(time)?))
            }
            _ => Err(refused(None)),
        }
    }
}

impl fmt::Display for When {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            When::Hourly => f.write_str("hourly"),
            When::Daily(at) => write!(f, "daily {at}"),
            When::Weekdays(at) => write!(f, "weekdays {at}"),
            When::Days(days, at) => {
                let names: Vec<&str> = sorted(days).into_iter().map(short_name).collect();
                write!(f, "{} {at}", names.join(","))
            }
            When::Monthly { day, at } => write!(f, "monthly {day} {at}"),
        }
    }
}

impl TryFrom<String> for When {
    type Error = WhenError;

    fn try_from(text: String) -> Result<When, WhenError> {
        text.parse()
    }
}

impl From<When> for String {
    fn from(when: When) -> String {
        when.to_string()
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
fn ordinal(n: u8) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `a`, `a and b`, `a, b and c`.
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    }
}

/// How many days [`When::next_after`] looks ahead: past the longest gap between two runs (a
/// 31st: two months; a Monday whose 07:00 a clock change skips: two weeks).
const LOOK_AHEAD_DAYS: i64 = 800;

impl When {
    /// Whether the schedule runs on `date` (some time of that day).
    fn runs_on(&self, date: NaiveDate) -> bool {
        match self {
            When::Hourly | When::Daily(_) => true,
            When::Weekdays(_) => date.weekday().num_days_from_monday() < 5,
            When::Days(days, _) => days.is_empty() || days.contains(&date.weekday()),
            When::Monthly { day, .. } => date.day() == u32::from(*day),
        }
    }

    /// The times of day it runs, in order.
    fn times(&self) -> Vec<NaiveTime> {
        match self {
            When::Hourly => (0..24).filter_map(|hour| NaiveTime::from_hms_opt(hour, 0, 0)).collect(),
            When::Daily(at) | When::Weekdays(at) | When::Days(_, at) | When::Monthly { at, .. } => vec![at.time()],
        }
    }

    /// The first run strictly after `after`, in the time zone of `after`. A local time that the
    /// zone skips (clocks moved forward) is no run: the next one is taken; a local time that
    /// happens twice (clocks moved back) runs at its first. An empty day list runs every day.
    pub fn next_after<Tz: TimeZone>(&self, after: &DateTime<Tz>) -> DateTime<Tz> {
        let zone = after.timezone();
        let times = self.times();
        let start = after.naive_local().date() - Duration::days(1);
        for offset in 0..LOOK_AHEAD_DAYS {
            let date = start + Duration::days(offset);
            if !self.runs_on(date) {
                continue;
            }
            for time in &times {
                let run = match zone.from_local_datetime(&date.and_time(*time)) {
                    LocalResult::Single(run) => run,
                    LocalResult::Ambiguous(earliest, _) => earliest,
                    LocalResult::None => continue,
                };
                if run > *after {
                    return run;
                }
            }
        }
        // Not reached: every form runs at least once in any two months.
        after.clone() + Duration::days(1)
    }

    /// The schedule in a person's words: "every hour", "every day at 07:00", "weekdays at
    /// 07:00", "every Monday and Thursday at 06:30", "on the 5th of every month at 07:00".
    pub fn describe(&self) -> String {
        match self {
            When::Hourly => "every hour".to_owned(),
            When::Daily(at) => format!("every day at {at}"),
            When::Weekdays(at) => format!("weekdays at {at}"),
            When::Days(days, at) => {
                let names: Vec<String> = sorted(days).into_iter().map(long_name).collect();
                format!("every {} at {at}", listed(&names))
            }
            When::Monthly { day, at } if *day >= 29 => {
                format!("on the {} of every month at {at} (not in months without one)", ordinal(*day))
            }
            When::Monthly { day, at } => format!("on the {} of every month at {at}", ordinal(*day)),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{FixedOffset, NaiveDateTime, Offset, Utc};

    use super::*;

    fn when(text: &str) -> When {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn at(hour: u8, minute: u8) -> At {
        At::new(hour, minute).unwrap()
    }

    /// A UTC time from `2026-03-02 07:00` (2026-03-02 is a Monday).
    fn utc(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").unwrap().and_utc()
    }

    fn next(w: &str, after: &str) -> String {
        when(w).next_after(&utc(after)).format("%Y-%m-%d %H:%M %a").to_string()
    }

    #[test]
    fn every_form_is_read() {
        assert_eq!(when("hourly"), When::Hourly);
        assert_eq!(when("daily 07:00"), When::Daily(at(7, 0)));
        assert_eq!(when("daily 7:05"), When::Daily(at(7, 5)));
        assert_eq!(when("weekdays 23:59"), When::Weekdays(at(23, 59)));
        assert_eq!(when("mon 07:00"), When::Days(vec![Weekday::Mon], at(7, 0)));
        assert_eq!(when("thu,mon 06:30"), When::Days(vec![Weekday::Mon, Weekday::Thu], at(6, 30)));
        assert_eq!(when("monthly 5 07:00"), When::Monthly { day: 5, at: at(7, 0) });
        assert_eq!(when("monthly 31 00:00"), When::Monthly { day: 31, at: at(0, 0) });
        assert_eq!(when("monthly 1 0:00"), When::Monthly { day: 1, at: at(0, 0) });
    }

    #[test]
    fn spaces_case_and_full_day_names_are_tolerated() {
        assert_eq!(when("  Daily   07:00  "), When::Daily(at(7, 0)));
        assert_eq!(when("HOURLY"), When::Hourly);
        assert_eq!(when("\tweekdays\t7:00\n"), When::Weekdays(at(7, 0)));
        assert_eq!(
            when("Friday,monday,MON, sun 18:45"),
            When::Days(vec![Weekday::Mon, Weekday::Fri, Weekday::Sun], at(18, 45))
        );
        assert_eq!(when("tuesday , wednesday 08:00"), When::Days(vec![Weekday::Tue, Weekday::Wed], at(8, 0)));
        assert_eq!(when("SATURDAY 12:00"), When::Days(vec![Weekday::Sat], at(12, 0)));
    }

    #[test]
    fn wrong_texts_are_refused() {
        for text in [
            "",
            "   ",
            "daily",
            "daily 24:00",
            "daily 07:60",
            "daily 7",
            "daily 07:0",
            "daily 007:00",
            "daily +7:00",
            "daily 07:00 08:00",
            "hourly 07:00",
            "weekdays",
            "monthly 0 07:00",
            "monthly 32 07:00",
            "monthly 07:00",
            "monthly +5 07:00",
            "monthly 5",
            "mon",
            "mo 07:00",
            "mon,, 07:00x",
            ", 07:00",
            "every 5 minutes",
            "07:00",
            "daily -1:00",
        ] {
            assert!(text.parse::<When>().is_err(), "{text:?} was read");
        }
    }

    #[test]
    fn the_error_is_one_sentence_naming_the_forms() {
        let error = "every 5 minutes".parse::<When>().unwrap_err().to_string();
        assert_eq!(
            error,
            "\"every 5 minutes\" is not a schedule; use hourly, daily HH:MM, weekdays HH:MM, a day or days \
             (mon HH:MM, mon,thu HH:MM) or monthly D HH:MM"
        );
        let error = "monthly 32 07:00".parse::<When>().unwrap_err().to_string();
        assert!(error.starts_with("\"monthly 32 07:00\" is not a schedule (the day of the month is 1 to 31); use"));
        let error = "daily 24:00".parse::<When>().unwrap_err().to_string();
        assert!(error.contains("(the time is HH:MM, from 00:00 to 23:59)"), "{error}");
        assert_eq!(error.matches(". ").count(), 0);
    }

    #[test]
    fn the_text_is_canonical_and_reads_back() {
        for (text, canonical) in [
            ("hourly", "hourly"),
            ("daily 7:00", "daily 07:00"),
            ("weekdays 07:05", "weekdays 07:05"),
            ("Thursday,mon 6:30", "mon,thu 06:30"),
            ("sun,sat,fri,thu,wed,tue,mon 00:00", "mon,tue,wed,thu,fri,sat,sun 00:00"),
            ("monthly 05 7:00", "monthly 5 07:00"),
        ] {
            let value = when(text);
            assert_eq!(value.to_string(), canonical);
            assert_eq!(when(canonical), value);
        }
    }

    #[test]
    fn serde_uses_the_text() {
        let value = when("mon,thu 06:30");
        assert_eq!(serde_json::to_string(&value).unwrap(), "\"mon,thu 06:30\"");
        assert_eq!(serde_json::from_str::<When>("\"Monday, Thursday 6:30\"").unwrap(), value);
        let error = serde_json::from_str::<When>("\"daily\"").unwrap_err().to_string();
        assert!(error.contains("is not a schedule"), "{error}");
    }

    #[test]
    fn described_in_words() {
        assert_eq!(when("hourly").describe(), "every hour");
        assert_eq!(when("daily 07:00").describe(), "every day at 07:00");
        assert_eq!(when("weekdays 07:00").describe(), "weekdays at 07:00");
        assert_eq!(when("mon 07:00").describe(), "every Monday at 07:00");
        assert_eq!(when("mon,thu 06:30").describe(), "every Monday and Thursday at 06:30");
        assert_eq!(when("sun,mon,wed 06:30").describe(), "every Monday, Wednesday and Sunday at 06:30");
        assert_eq!(when("monthly 5 07:00").describe(), "on the 5th of every month at 07:00");
        assert_eq!(when("monthly 1 07:00").describe(), "on the 1st of every month at 07:00");
        assert_eq!(when("monthly 2 07:00").describe(), "on the 2nd of every month at 07:00");
        assert_eq!(when("monthly 3 07:00").describe(), "on the 3rd of every month at 07:00");
        assert_eq!(when("monthly 11 07:00").describe(), "on the 11th of every month at 07:00");
        assert_eq!(when("monthly 12 07:00").describe(), "on the 12th of every month at 07:00");
        assert_eq!(when("monthly 13 07:00").describe(), "on the 13th of every month at 07:00");
        assert_eq!(when("monthly 21 07:00").describe(), "on the 21st of every month at 07:00");
        assert_eq!(when("monthly 22 07:00").describe(), "on the 22nd of every month at 07:00");
        assert_eq!(when("monthly 23 07:00").describe(), "on the 23rd of every month at 07:00");
        assert_eq!(
            when("monthly 31 07:00").describe(),
            "on the 31st of every month at 07:00 (not in months without one)"
        );
    }

    #[test]
    fn daily_just_before_at_and_after_the_time() {
        assert_eq!(next("daily 07:00", "2026-03-02 06:59"), "2026-03-02 07:00 Mon");
        assert_eq!(next("daily 07:00", "2026-03-02 07:00"), "2026-03-03 07:00 Tue");
        assert_eq!(next("daily 07:00", "2026-03-02 07:01"), "2026-03-03 07:00 Tue");
        assert_eq!(next("daily 00:00", "2026-12-31 23:59"), "2027-01-01 00:00 Fri");
        assert_eq!(next("daily 23:59", "2026-12-31 23:59"), "2027-01-01 23:59 Fri");
        // Strictly after, to the second.
        let after = utc("2026-03-02 07:00") + Duration::seconds(1);
        assert_eq!(when("daily 07:00").next_after(&after), utc("2026-03-03 07:00"));
        let before = utc("2026-03-02 07:00") - Duration::milliseconds(1);
        assert_eq!(when("daily 07:00").next_after(&before), utc("2026-03-02 07:00"));
    }

    #[test]
    fn hourly_is_at_minute_zero() {
        assert_eq!(next("hourly", "2026-03-02 06:59"), "2026-03-02 07:00 Mon");
        assert_eq!(next("hourly", "2026-03-02 07:00"), "2026-03-02 08:00 Mon");
        assert_eq!(next("hourly", "2026-03-02 23:00"), "2026-03-03 00:00 Tue");
        assert_eq!(next("hourly", "2026-02-28 23:30"), "2026-03-01 00:00 Sun");
    }

    #[test]
    fn weekdays_skip_the_weekend() {
        // 2026-03-06 is a Friday.
        assert_eq!(next("weekdays 07:00", "2026-03-06 06:00"), "2026-03-06 07:00 Fri");
        assert_eq!(next("weekdays 07:00", "2026-03-06 07:00"), "2026-03-09 07:00 Mon");
        assert_eq!(next("weekdays 07:00", "2026-03-07 12:00"), "2026-03-09 07:00 Mon");
        assert_eq!(next("weekdays 07:00", "2026-03-08 23:59"), "2026-03-09 07:00 Mon");
    }

    #[test]
    fn days_of_the_week() {
        assert_eq!(next("mon 07:00", "2026-03-02 06:59"), "2026-03-02 07:00 Mon");
        assert_eq!(next("mon 07:00", "2026-03-02 07:00"), "2026-03-09 07:00 Mon");
        // Sunday to Monday.
        assert_eq!(next("mon 07:00", "2026-03-08 23:59"), "2026-03-09 07:00 Mon");
        assert_eq!(next("sun 07:00", "2026-03-08 07:00"), "2026-03-15 07:00 Sun");
        assert_eq!(next("sun 07:00", "2026-03-07 07:00"), "2026-03-08 07:00 Sun");
        assert_eq!(next("mon,thu 06:30", "2026-03-02 06:30"), "2026-03-05 06:30 Thu");
        assert_eq!(next("mon,thu 06:30", "2026-03-05 06:31"), "2026-03-09 06:30 Mon");
        // Across the end of a year.
        assert_eq!(next("fri 09:00", "2026-12-25 09:00"), "2027-01-01 09:00 Fri");
    }

    #[test]
    fn monthly_skips_months_without_the_day() {
        assert_eq!(next("monthly 5 07:00", "2026-03-05 06:59"), "2026-03-05 07:00 Thu");
        assert_eq!(next("monthly 5 07:00", "2026-03-05 07:00"), "2026-04-05 07:00 Sun");
        assert_eq!(next("monthly 5 07:00", "2026-12-05 08:00"), "2027-01-05 07:00 Tue");
        assert_eq!(next("monthly 31 07:00", "2026-01-31 07:00"), "2026-03-31 07:00 Tue");
        assert_eq!(next("monthly 31 07:00", "2026-03-31 07:00"), "2026-05-31 07:00 Sun");
        assert_eq!(next("monthly 31 07:00", "2026-07-31 07:00"), "2026-08-31 07:00 Mon");
        assert_eq!(next("monthly 30 07:00", "2026-01-30 07:00"), "2026-03-30 07:00 Mon");
        // February 29th: only in leap years.
        assert_eq!(next("monthly 29 07:00", "2026-01-29 07:00"), "2026-03-29 07:00 Sun");
        assert_eq!(next("monthly 29 07:00", "2028-01-29 07:00"), "2028-02-29 07:00 Tue");
        assert_eq!(next("monthly 1 00:00", "2026-02-28 23:59"), "2026-03-01 00:00 Sun");
        assert_eq!(next("monthly 28 07:00", "2026-02-28 06:00"), "2026-02-28 07:00 Sat");
    }

    #[test]
    fn the_zone_of_the_time_given_is_kept() {
        let paris = FixedOffset::east_opt(3600).unwrap();
        // 06:30 UTC is 07:30 in UTC+1: today's 07:00 has passed there.
        let after = utc("2026-03-02 06:30").with_timezone(&paris);
        let run = when("daily 07:00").next_after(&after);
        assert_eq!(run.to_rfc3339(), "2026-03-03T07:00:00+01:00");
        let west = FixedOffset::west_opt(5 * 3600).unwrap();
        // 11:30 UTC is 06:30 in UTC-5: today's 07:00 is still to come there.
        let after = utc("2026-03-02 11:30").with_timezone(&west);
        assert_eq!(when("daily 07:00").next_after(&after).to_rfc3339(), "2026-03-02T07:00:00-05:00");
        let after = utc("2026-03-02 11:59").with_timezone(&west);
        assert_eq!(when("hourly").next_after(&after).to_rfc3339(), "2026-03-02T07:00:00-05:00");
    }

    /// A zone whose clocks go forward at 02:00 on 2026-03-29 (02:00..03:00 does not exist) and
    /// back at 03:00 on 2026-10-25 (02:00..03:00 happens twice), as Central Europe's do.
    #[derive(Debug, Clone, Copy)]
    struct Shifting;

    fn offset_at_utc(utc: &NaiveDateTime) -> FixedOffset {
        let spring = NaiveDate::from_ymd_opt(2026, 3, 29).unwrap().and_hms_opt(1, 0, 0).unwrap();
        let autumn = NaiveDate::from_ymd_opt(2026, 10, 25).unwrap().and_hms_opt(1, 0, 0).unwrap();
        let hours = if *utc >= spring && *utc < autumn { 2 } else { 1 };
        FixedOffset::east_opt(hours * 3600).unwrap()
    }

    impl TimeZone for Shifting {
        type Offset = FixedOffset;

        fn from_offset(_: &FixedOffset) -> Shifting {
            Shifting
        }

        fn offset_from_local_date(&self, _: &NaiveDate) -> LocalResult<FixedOffset> {
            unimplemented!("not used by next_after")
        }

        fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> LocalResult<FixedOffset> {
            let winter = FixedOffset::east_opt(3600).unwrap();
            let summer = FixedOffset::east_opt(7200).unwrap();
            let as_winter = offset_at_utc(&(*local - Duration::hours(1)));
            let as_summer = offset_at_utc(&(*local - Duration::hours(2)));
            match (as_winter == winter, as_summer == summer) {
                (true, true) => LocalResult::Ambiguous(summer, winter),
                (true, false) => LocalResult::Single(winter),
                (false, true) => LocalResult::Single(summer),
                (false, false) => LocalResult::None,
            }
        }

        fn offset_from_utc_date(&self, _: &NaiveDate) -> FixedOffset {
            unimplemented!("not used by next_after")
        }

        fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
            offset_at_utc(utc)
        }
    }

    fn shifting(utc_text: &str) -> DateTime<Shifting> {
        utc(utc_text).with_timezone(&Shifting)
    }

    #[test]
    fn a_skipped_local_time_is_passed_over() {
        // 2026-03-29 02:30 does not exist: the next run is the next day's.
        let before = shifting("2026-03-28 23:00"); // 00:00 local
        let run = when("daily 02:30").next_after(&before);
        assert_eq!(run.naive_local().to_string(), "2026-03-30 02:30:00");
        assert_eq!(run.offset().fix().local_minus_utc(), 7200);
        // Hourly goes from 01:00 to 03:00 that night.
        let run = when("hourly").next_after(&shifting("2026-03-29 00:30")); // 01:30 local
        assert_eq!(run.naive_local().to_string(), "2026-03-29 03:00:00");
        assert_eq!(run.naive_utc().to_string(), "2026-03-29 01:00:00");
    }

    #[test]
    fn a_repeated_local_time_runs_at_its_first() {
        // 2026-10-25 02:30 happens at 00:30 UTC and at 01:30 UTC.
        let run = when("daily 02:30").next_after(&shifting("2026-10-24 12:00"));
        assert_eq!(run.naive_utc().to_string(), "2026-10-25 00:30:00");
        // Once it ran, the second 02:30 is not another run.
        let again = when("daily 02:30").next_after(&run);
        assert_eq!(again.naive_local().to_string(), "2026-10-26 02:30:00");
        // Hourly during the repeated hour: 02:00 (first) then 03:00.
        let run = when("hourly").next_after(&shifting("2026-10-24 23:30")); // 01:30 summer time
        assert_eq!(run.naive_utc().to_string(), "2026-10-25 00:00:00");
        let run = when("hourly").next_after(&run);
        assert_eq!(run.naive_local().to_string(), "2026-10-25 03:00:00");
        assert_eq!(run.naive_utc().to_string(), "2026-10-25 02:00:00");
    }

    #[test]
    fn an_empty_day_list_runs_every_day() {
        let empty = When::Days(Vec::new(), at(7, 0));
        assert_eq!(empty.next_after(&utc("2026-03-07 08:00")), utc("2026-03-08 07:00"));
    }
}
