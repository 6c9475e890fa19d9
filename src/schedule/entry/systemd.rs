//! systemd's user units: a timer (`orgql-NAME.timer`) that starts a oneshot service
//! (`orgql-NAME.service`) that runs orgql. The timer is persistent: a run missed while the
//! computer was off or asleep happens when it is back.
//!
//! The client secret never appears in a unit: with [`Job::secret_file`] the service loads that
//! file as the credential [`CREDENTIAL`], which the run reads from
//! `$CREDENTIALS_DIRECTORY/orgql-client-secret`.

use super::Job;
use crate::schedule::when::When;

/// The name of the credential the service is handed the client secret's file as.
pub const CREDENTIAL: &str = "orgql-client-secret";

/// The units' name without their suffix: `orgql-NAME`.
pub fn unit_name(name: &str) -> String {
    format!("orgql-{name}")
}

/// The `OnCalendar=` value of `when`: `*-*-* *:00:00` (hourly), `*-*-* 07:00:00` (daily),
/// `Mon..Fri *-*-* 07:00:00`, `Mon,Thu *-*-* 06:30:00`, `*-*-05 07:00:00` (monthly: months without
/// that day have no run).
pub fn on_calendar(when: &When) -> String {
    const NAMES: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    match when {
        When::Hourly => "*-*-* *:00:00".to_owned(),
        When::Daily(at) => format!("*-*-* {at}:00"),
        When::Weekdays(at) => format!("Mon..Fri *-*-* {at}:00"),
        When::Days(days, at) if days.is_empty() => format!("*-*-* {at}:00"),
        When::Days(days, at) => {
            let mut indexes: Vec<usize> = days.iter().map(|d| d.num_days_from_monday() as usize).collect();
            indexes.sort_unstable();
            indexes.dedup();
            let names: Vec<&str> = indexes.into_iter().map(|i| NAMES[i]).collect();
            format!("{} *-*-* {at}:00", names.join(","))
        }
        When::Monthly { day, at } => format!("*-*-{day:02} {at}:00"),
    }
}

/// The timer unit (`orgql-NAME.timer`).
pub fn timer(job: &Job) -> String {
    let unit = unit_name(&job.name);
    format!(
        "# The schedule {name} of orgql, for {user}: written by orgql, which replaces or removes this file.\n\
         [Unit]\n\
         Description=orgql schedule {name} ({describe})\n\
         \n\
         [Timer]\n\
         OnCalendar={calendar}\n\
         Persistent=true\n\
         Unit={unit}.service\n\
         \n\
         [Install]\n\
         WantedBy=timers.target\n",
        name = job.name,
        user = one_line(&job.user),
        describe = specifiers_escaped(&job.when.describe()),
        calendar = on_calendar(&job.when),
    )
}

/// The service unit (`orgql-NAME.service`) the timer starts.
pub fn service(job: &Job) -> String {
    let mut command = vec![exec_word(&job.program.to_string_lossy())];
    command.extend(job.arguments.iter().map(|a| exec_word(a)));
    let mut out = format!(
        "# The schedule {name} of orgql, for {user}: written by orgql, which replaces or removes this file.\n\
         [Unit]\n\
         Description=orgql schedule {name}: the delivery\n\
         \n\
         [Service]\n\
         Type=oneshot\n\
         ExecStart={command}\n",
        name = job.name,
        user = one_line(&job.user),
        command = command.join(" "),
    );
    if let Some(file) = &job.secret_file {
        out.push_str(&format!("LoadCredential={CREDENTIAL}:{}\n", specifiers_escaped(&file.to_string_lossy())));
    }
    out
}

/// `text` with systemd's specifier sign doubled (`%` → `%%`), as every setting that expands
/// specifiers needs.
fn specifiers_escaped(text: &str) -> String {
    text.replace('%', "%%")
}

/// `text` on one line, for a comment.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// One word of `ExecStart=` as systemd reads it back: `%` → `%%` (specifiers) and `$` → `$$`
/// (variables) everywhere; a word of only safe characters as it is; any other word in double
/// quotes with `\` and `"` escaped by a backslash; a lone `;` (which would separate commands) as
/// `\;`.
pub fn exec_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:,+=@".contains(c);
    let escaped = specifiers_escaped(word).replace('$', "$$");
    if word == ";" {
        return r"\;".to_owned();
    }
    if !word.is_empty() && word.chars().all(safe) {
        return escaped;
    }
    let mut out = String::from("\"");
    for c in escaped.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calendar(text: &str) -> String {
        on_calendar(&text.parse().unwrap())
    }

    #[test]
    fn calendars() {
        assert_eq!(calendar("hourly"), "*-*-* *:00:00");
        assert_eq!(calendar("daily 07:00"), "*-*-* 07:00:00");
        assert_eq!(calendar("weekdays 07:00"), "Mon..Fri *-*-* 07:00:00");
        assert_eq!(calendar("mon 07:00"), "Mon *-*-* 07:00:00");
        assert_eq!(calendar("thu,mon 06:30"), "Mon,Thu *-*-* 06:30:00");
        assert_eq!(calendar("monthly 5 07:00"), "*-*-05 07:00:00");
        assert_eq!(calendar("monthly 31 23:59"), "*-*-31 23:59:00");
    }

    #[test]
    fn exec_words_are_quoted() {
        assert_eq!(exec_word("/usr/bin/orgql"), "/usr/bin/orgql");
        assert_eq!(exec_word("/opt/my apps/orgql"), "\"/opt/my apps/orgql\"");
        assert_eq!(exec_word("50%"), "\"50%%\"");
        assert_eq!(exec_word("$HOME"), "\"$$HOME\"");
        assert_eq!(exec_word(r#"say "hi" \o/"#), r#""say \"hi\" \\o/""#);
        assert_eq!(exec_word(""), "\"\"");
        assert_eq!(exec_word(";"), r"\;");
        assert_eq!(exec_word("a;b"), "\"a;b\"");
    }
}
