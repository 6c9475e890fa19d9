//! Windows' Task Scheduler: the task as the XML of its schema 1.2 (Windows Vista and later),
//! which `schtasks /Create /XML FILE` registers ([`xml_utf16le`] is that file).
//!
//! The task runs under the person's account with the least privilege: only while they are signed
//! in (`InteractiveToken`), or also while signed out (`Password`: Task Scheduler keeps the
//! password `schtasks` asks for; never `S4U`, whose runs have no network). A run missed while the
//! computer was off starts when it is back (`StartWhenAvailable`), also on battery; a run still
//! going when the next one is due makes that one wait for the next time (`IgnoreNew`); one that
//! takes more than 4 hours is stopped.

use super::{Job, xml_escaped};
use crate::schedule::when::{At, When};

/// The folder of orgql's tasks in Task Scheduler's library.
pub const FOLDER: &str = r"\orgql";

/// The task's path in Task Scheduler's library (`\orgql\NAME`), what `schtasks /TN` names.
pub fn task_path(name: &str) -> String {
    format!(r"{FOLDER}\{name}")
}

/// The task's XML, declared UTF-16 as `schtasks` expects its file (written by [`xml_utf16le`]).
pub fn xml(job: &Job) -> String {
    let logon = if job.signed_out { "Password" } else { "InteractiveToken" };
    let description = format!("orgql schedule {}: the delivery that runs {}.", job.name, job.when.describe());
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n");
    out.push_str("<Task version=\"1.2\" xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\">\n");
    out.push_str("  <RegistrationInfo>\n");
    out.push_str(&format!("    <Description>{}</Description>\n", xml_escaped(&description)));
    out.push_str(&format!("    <URI>{}</URI>\n", xml_escaped(&task_path(&job.name))));
    out.push_str("  </RegistrationInfo>\n");
    out.push_str("  <Triggers>\n");
    out.push_str(&trigger(&job.when));
    out.push_str("  </Triggers>\n");
    out.push_str("  <Principals>\n");
    out.push_str("    <Principal id=\"Author\">\n");
    out.push_str(&format!("      <UserId>{}</UserId>\n", xml_escaped(&job.user)));
    out.push_str(&format!("      <LogonType>{logon}</LogonType>\n"));
    out.push_str("      <RunLevel>LeastPrivilege</RunLevel>\n");
    out.push_str("    </Principal>\n");
    out.push_str("  </Principals>\n");
    out.push_str("  <Settings>\n");
    for (setting, value) in [
        ("MultipleInstancesPolicy", "IgnoreNew"),
        ("DisallowStartIfOnBatteries", "false"),
        ("StopIfGoingOnBatteries", "false"),
        ("StartWhenAvailable", "true"),
        ("RunOnlyIfNetworkAvailable", "false"),
        ("Enabled", "true"),
        ("ExecutionTimeLimit", "PT4H"),
    ] {
        out.push_str(&format!("    <{setting}>{value}</{setting}>\n"));
    }
    out.push_str("  </Settings>\n");
    out.push_str("  <Actions Context=\"Author\">\n");
    out.push_str("    <Exec>\n");
    out.push_str(&format!("      <Command>{}</Command>\n", xml_escaped(&job.program.to_string_lossy())));
    if !job.arguments.is_empty() {
        let line: Vec<String> = job.arguments.iter().map(|a| command_line_argument(a)).collect();
        out.push_str(&format!("      <Arguments>{}</Arguments>\n", xml_escaped(&line.join(" "))));
    }
    out.push_str("    </Exec>\n");
    out.push_str("  </Actions>\n");
    out.push_str("</Task>\n");
    out
}

/// The file `schtasks /XML` reads: [`xml`] as UTF-16 little-endian after its byte order mark.
pub fn xml_utf16le(job: &Job) -> Vec<u8> {
    let text = xml(job);
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    bytes
}

/// The trigger's first run: a fixed local date (no offset, so that the task follows the
/// computer's zone) at the time of day; only its time matters to the schedules orgql writes.
fn start_boundary(at: At) -> String {
    format!("2026-01-01T{:02}:{:02}:00", at.hour, at.minute)
}

const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The `CalendarTrigger` of `when`: by day (hourly: every day from midnight, repeated every hour
/// for a day), by week with its days, or by month on its day of all twelve months.
fn trigger(when: &When) -> String {
    let (at, repetition, schedule) = match when {
        When::Hourly => (
            At { hour: 0, minute: 0 },
            "      <Repetition>\n        <Interval>PT1H</Interval>\n        <Duration>P1D</Duration>\n        \
             <StopAtDurationEnd>false</StopAtDurationEnd>\n      </Repetition>\n",
            by_day(),
        ),
        When::Daily(at) => (*at, "", by_day()),
        When::Weekdays(at) => (*at, "", by_week(&WEEKDAYS[..5])),
        When::Days(days, at) if days.is_empty() => (*at, "", by_day()),
        When::Days(days, at) => {
            let mut indexes: Vec<usize> = days.iter().map(|d| d.num_days_from_monday() as usize).collect();
            indexes.sort_unstable();
            indexes.dedup();
            let names: Vec<&str> = indexes.into_iter().map(|i| WEEKDAYS[i]).collect();
            (*at, "", by_week(&names))
        }
        When::Monthly { day, at } => (*at, "", by_month(*day)),
    };
    format!(
        "    <CalendarTrigger>\n      <Enabled>true</Enabled>\n      <StartBoundary>{}</StartBoundary>\n\
         {repetition}{schedule}    </CalendarTrigger>\n",
        start_boundary(at)
    )
}

fn by_day() -> String {
    "      <ScheduleByDay>\n        <DaysInterval>1</DaysInterval>\n      </ScheduleByDay>\n".to_owned()
}

fn by_week(days: &[&str]) -> String {
    let mut out =
        String::from("      <ScheduleByWeek>\n        <WeeksInterval>1</WeeksInterval>\n        <DaysOfWeek>\n");
    for day in days {
        out.push_str(&format!("          <{day} />\n"));
    }
    out.push_str("        </DaysOfWeek>\n      </ScheduleByWeek>\n");
    out
}

fn by_month(day: u8) -> String {
    let mut out =
        format!("      <ScheduleByMonth>\n        <DaysOfMonth>\n          <Day>{day}</Day>\n        </DaysOfMonth>\n");
    out.push_str("        <Months>\n");
    for month in MONTHS {
        out.push_str(&format!("          <{month} />\n"));
    }
    out.push_str("        </Months>\n      </ScheduleByMonth>\n");
    out
}

/// `argument` written so that a program reading its command line by `CommandLineToArgvW`'s rules
/// (as Rust's and Microsoft's C runtimes do) gets it back: as it is when it has no space, tab,
/// line break or double quote and is not empty; otherwise in double quotes, a quote inside as
/// `\"`, and the backslashes just before a quote (or before the closing one) doubled.
pub fn command_line_argument(argument: &str) -> String {
    if !argument.is_empty() && !argument.contains([' ', '\t', '\n', '\u{b}', '"']) {
        return argument.to_owned();
    }
    let mut out = String::from("\"");
    let mut backslashes = 0;
    for c in argument.chars() {
        match c {
            '\\' => {
                backslashes += 1;
                out.push('\\');
            }
            '"' => {
                out.push_str(&"\\".repeat(backslashes + 1));
                out.push('"');
                backslashes = 0;
            }
            c => {
                out.push(c);
                backslashes = 0;
            }
        }
    }
    out.push_str(&"\\".repeat(backslashes));
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line` split back by `CommandLineToArgvW`'s rules for the arguments after the program.
    fn split(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut chars = line.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                chars.next();
            }
            if chars.peek().is_none() {
                return out;
            }
            let mut word = String::new();
            let mut quoted = false;
            let mut backslashes = 0;
            while let Some(&c) = chars.peek() {
                if c == '\\' {
                    backslashes += 1;
                    chars.next();
                    continue;
                }
                if c == '"' {
                    word.push_str(&"\\".repeat(backslashes / 2));
                    chars.next();
                    if backslashes % 2 == 1 {
                        word.push('"');
                    } else if quoted && chars.peek() == Some(&'"') {
                        word.push('"');
                        chars.next();
                    } else {
                        quoted = !quoted;
                    }
                    backslashes = 0;
                    continue;
                }
                word.push_str(&"\\".repeat(backslashes));
                backslashes = 0;
                if !quoted && (c == ' ' || c == '\t') {
                    break;
                }
                word.push(c);
                chars.next();
            }
            word.push_str(&"\\".repeat(backslashes));
            out.push(word);
        }
    }

    #[test]
    fn arguments_read_back_by_windows_rules() {
        let arguments: Vec<String> =
            ["plain", "with space", "", r#"say "hi""#, r"C:\dir\", r"C:\with space\", r#"a\"b"#, r"a\\b", "50%", "$x"]
                .map(String::from)
                .to_vec();
        let line: Vec<String> = arguments.iter().map(|a| command_line_argument(a)).collect();
        assert_eq!(split(&line.join(" ")), arguments);
        assert_eq!(command_line_argument("plain"), "plain");
        assert_eq!(command_line_argument(r"C:\with space\"), r#""C:\with space\\""#);
        assert_eq!(command_line_argument(r#"say "hi""#), r#""say \"hi\"""#);
        assert_eq!(command_line_argument(""), r#""""#);
    }

    #[test]
    fn the_task_s_path_is_in_orgql_s_folder() {
        assert_eq!(task_path("weekly-users"), r"\orgql\weekly-users");
    }
}
