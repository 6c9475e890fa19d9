//! cron: one line of the person's crontab, ending with a marker comment ([`marker`]) by which
//! `super::super::register` finds it again among the person's own lines.
//!
//! cron hands the command to `sh`: the program is always in single quotes, an argument when it
//! holds anything but letters, digits and `-_./:,+=@`; a `%` (which cron turns into a line break)
//! is written `\%`, which cron gives to the shell as `%` inside quotes too. A run missed while
//! the computer was off is not made up.

use super::Job;
use crate::schedule::when::When;

/// The comment that ends the line of schedule `name`: `# orgql schedule NAME`.
pub fn marker(name: &str) -> String {
    format!("# orgql schedule {name}")
}

/// The first five fields of `when` (minute, hour, day of month, month, day of week with Sunday
/// 0): `0 * * * *`, `0 7 * * *`, `0 7 * * 1-5`, `0 7 * * 1`, `30 6 * * 1,4`, `0 7 5 * *`.
pub fn fields(when: &When) -> String {
    match when {
        When::Hourly => "0 * * * *".to_owned(),
        When::Daily(at) => format!("{} {} * * *", at.minute, at.hour),
        When::Weekdays(at) => format!("{} {} * * 1-5", at.minute, at.hour),
        When::Days(days, at) if days.is_empty() => format!("{} {} * * *", at.minute, at.hour),
        When::Days(days, at) => {
            let mut numbers: Vec<u32> = days.iter().map(|d| d.num_days_from_sunday()).collect();
            numbers.sort_unstable();
            numbers.dedup();
            let numbers: Vec<String> = numbers.iter().map(u32::to_string).collect();
            format!("{} {} * * {}", at.minute, at.hour, numbers.join(","))
        }
        When::Monthly { day, at } => format!("{} {} {day} * *", at.minute, at.hour),
    }
}

/// The crontab line, without its line break:
/// `0 7 * * 1 '/usr/bin/orgql' schedule run weekly-users # orgql schedule weekly-users`.
pub fn line(job: &Job) -> String {
    let mut words = vec![single_quoted(&job.program.to_string_lossy())];
    words.extend(job.arguments.iter().map(|a| shell_word(a)));
    format!("{} {} {}", fields(&job.when), words.join(" "), marker(&job.name))
}

/// `word` for `sh` on a crontab line: as it is when it has only safe characters, else quoted.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:,+=@".contains(c);
    if !word.is_empty() && word.chars().all(safe) { word.to_owned() } else { single_quoted(word) }
}

/// `word` in single quotes (a quote inside as `'\''`), its `%` as `\%`.
fn single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''").replace('%', r"\%"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five(text: &str) -> String {
        fields(&text.parse().unwrap())
    }

    #[test]
    fn schedules_as_cron_fields() {
        assert_eq!(five("hourly"), "0 * * * *");
        assert_eq!(five("daily 07:00"), "0 7 * * *");
        assert_eq!(five("weekdays 07:05"), "5 7 * * 1-5");
        assert_eq!(five("mon 07:00"), "0 7 * * 1");
        assert_eq!(five("sun,mon,thu 06:30"), "30 6 * * 0,1,4");
        assert_eq!(five("monthly 5 07:00"), "0 7 5 * *");
    }

    #[test]
    fn words_are_quoted_for_the_shell_and_cron() {
        assert_eq!(shell_word("weekly-users"), "weekly-users");
        assert_eq!(shell_word("weekly users"), "'weekly users'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("50%"), r"'50\%'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(single_quoted("/usr/bin/orgql"), "'/usr/bin/orgql'");
    }
}
