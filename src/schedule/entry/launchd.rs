//! macOS's launchd: a per-user agent, a property list in `~/Library/LaunchAgents`, that runs
//! orgql at calendar times (`StartCalendarInterval`; launchd runs once on waking a run missed
//! while the Mac slept). The program and its arguments are an array, so nothing is quoted but
//! for XML.

use super::{Job, xml_escaped};
use crate::schedule::when::{At, When};

/// The agent's label: `org.orgql.schedule.NAME`.
pub fn label(name: &str) -> String {
    format!("org.orgql.schedule.{name}")
}

/// The agent's property list.
pub fn plist(job: &Job) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <plist version=\"1.0\">\n<dict>\n",
    );
    out.push_str(&format!("\t<key>Label</key>\n\t<string>{}</string>\n", xml_escaped(&label(&job.name))));
    out.push_str("\t<key>ProgramArguments</key>\n\t<array>\n");
    let program = job.program.to_string_lossy();
    for word in std::iter::once(program.as_ref()).chain(job.arguments.iter().map(String::as_str)) {
        out.push_str(&format!("\t\t<string>{}</string>\n", xml_escaped(word)));
    }
    out.push_str("\t</array>\n");
    out.push_str("\t<key>StartCalendarInterval</key>\n");
    out.push_str(&calendar(&job.when));
    out.push_str("\t<key>RunAtLoad</key>\n\t<false/>\n");
    out.push_str("</dict>\n</plist>\n");
    out
}

/// `StartCalendarInterval`: one dict, or an array of dicts (one a day of the week); `Weekday`
/// 0 is Sunday, 1 Monday.
fn calendar(when: &When) -> String {
    match when {
        When::Hourly => interval(None, None, None),
        When::Daily(at) => interval(None, None, Some(*at)),
        When::Weekdays(at) => intervals((1..=5).map(|d| interval_in_array(d, *at))),
        When::Days(days, at) if days.is_empty() => interval(None, None, Some(*at)),
        When::Days(days, at) => {
            let mut numbers: Vec<u32> = days.iter().map(|d| d.num_days_from_sunday()).collect();
            numbers.sort_unstable();
            numbers.dedup();
            match numbers.as_slice() {
                [one] => interval(None, Some(*one), Some(*at)),
                _ => intervals(numbers.into_iter().map(|d| interval_in_array(d, *at))),
            }
        }
        When::Monthly { day, at } => interval(Some(*day), None, Some(*at)),
    }
}

/// One calendar dict at the agent's top level: `Day`, `Weekday`, `Hour` and `Minute` as given
/// (hourly: `Minute` 0 only).
fn interval(day: Option<u8>, weekday: Option<u32>, at: Option<At>) -> String {
    dict(day, weekday, at, "\t")
}

fn interval_in_array(weekday: u32, at: At) -> String {
    dict(None, Some(weekday), Some(at), "\t\t")
}

fn intervals(dicts: impl Iterator<Item = String>) -> String {
    let mut out = String::from("\t<array>\n");
    dicts.for_each(|d| out.push_str(&d));
    out.push_str("\t</array>\n");
    out
}

fn dict(day: Option<u8>, weekday: Option<u32>, at: Option<At>, indent: &str) -> String {
    let mut entries: Vec<(&str, u32)> = Vec::new();
    if let Some(day) = day {
        entries.push(("Day", u32::from(day)));
    }
    if let Some(at) = at {
        entries.push(("Hour", u32::from(at.hour)));
    }
    entries.push(("Minute", at.map_or(0, |at| u32::from(at.minute))));
    if let Some(weekday) = weekday {
        entries.push(("Weekday", weekday));
    }
    let mut out = format!("{indent}<dict>\n");
    for (key, value) in entries {
        out.push_str(&format!("{indent}\t<key>{key}</key>\n{indent}\t<integer>{value}</integer>\n"));
    }
    out.push_str(&format!("{indent}</dict>\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_monday_is_weekday_1() {
        let text = calendar(&"mon 07:00".parse().unwrap());
        assert_eq!(
            text,
            "\t<dict>\n\t\t<key>Hour</key>\n\t\t<integer>7</integer>\n\t\t<key>Minute</key>\n\t\t<integer>0</integer>\n\
             \t\t<key>Weekday</key>\n\t\t<integer>1</integer>\n\t</dict>\n"
        );
        let sunday = calendar(&"sun 07:00".parse().unwrap());
        assert!(sunday.contains("<key>Weekday</key>\n\t\t<integer>0</integer>"), "{sunday}");
        let weekdays = calendar(&"weekdays 07:00".parse().unwrap());
        assert_eq!(weekdays.matches("<dict>").count(), 5);
        assert!(weekdays.starts_with("\t<array>\n"));
    }

    #[test]
    fn the_label_names_the_schedule() {
        assert_eq!(label("weekly-users"), "org.orgql.schedule.weekly-users");
    }
}
