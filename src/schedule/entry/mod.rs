//! A schedule's entry as each system scheduler reads it, as text: Task Scheduler's XML
//! ([`task_scheduler`]), systemd's timer and service ([`systemd`]), a crontab line ([`cron`]) and
//! a launchd agent ([`launchd`]). Nothing here touches the system: `super::register` writes the
//! entries where their scheduler finds them.
//!
//! An entry runs orgql's executable with its arguments (`schedule run NAME`), each quoted by the
//! rules of the scheduler that reads it. It never holds a secret: on Linux the client secret
//! stays in a file of its own that systemd hands to the run ([`Job::secret_file`]).

pub mod cron;
pub mod launchd;
pub mod systemd;
pub mod task_scheduler;

use std::path::PathBuf;

use super::when::When;

/// What a scheduler is asked to run, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The schedule's name: letters, digits, `_` and `-`, 1 to 64 of them ([`valid_name`]).
    pub name: String,
    /// When it runs, in local time.
    pub when: When,
    /// The absolute path of the orgql executable (`C:\Program Files\orgql\orgql.exe`,
    /// `/opt/my apps/orgql`).
    pub program: PathBuf,
    /// Its arguments (`schedule run NAME`); each may hold spaces, quotes, `%` or `$`.
    pub arguments: Vec<String>,
    /// Linux only: a file (mode 0600) holding the client secret, which systemd hands to the run
    /// as the credential `orgql-client-secret` ([`systemd::CREDENTIAL`]); the other formats
    /// leave it out. Never the secret itself.
    pub secret_file: Option<PathBuf>,
    /// Run whether or not the person is signed in: on Windows the task logs on with the
    /// account's password, which Task Scheduler keeps (asked by `schtasks` itself); elsewhere
    /// the entry's text is the same (systemd also needs lingering: `super::register` says so).
    pub signed_out: bool,
    /// The account it runs as: Task Scheduler's user (`DESKTOP\hr`); on Unix the user name,
    /// named in comments only.
    pub user: String,
}

/// Whether `name` can name a schedule: 1 to 64 ASCII letters, digits, `_` or `-`; the error is
/// one sentence.
pub fn valid_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
        let shown: String = name.chars().flat_map(char::escape_debug).take(80).collect();
        return Err(format!(
            "\"{shown}\" cannot name a schedule: use 1 to 64 letters, digits, _ or - (such as weekly-users)"
        ));
    }
    Ok(())
}

impl Job {
    /// Whether every entry can say this job: a valid name, an absolute program, and no control
    /// character (a line break would end a crontab line or a unit's setting) in the program, its
    /// arguments, the secret's file or the user. The error is one sentence.
    pub fn check(&self) -> Result<(), String> {
        valid_name(&self.name)?;
        if !self.program.is_absolute() {
            return Err(format!(
                "the program {} is not an absolute path; give the full path of orgql's executable",
                self.program.display()
            ));
        }
        let texts =
            [("the program's path", self.program.to_string_lossy().into_owned()), ("the user", self.user.clone())]
                .into_iter()
                .chain(self.arguments.iter().map(|a| ("an argument", a.clone())))
                .chain(self.secret_file.iter().map(|f| ("the secret's file", f.to_string_lossy().into_owned())));
        for (what, text) in texts {
            if text.chars().any(char::is_control) {
                return Err(format!("{what} holds a line break or another control character; remove it"));
            }
        }
        Ok(())
    }
}

/// `text` made safe as XML character data or an attribute's value: `&`, `<`, `>`, `"` and `'`
/// as entities.
pub(crate) fn xml_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    const SECRET: &str = "s3cr3t-Value-0f-the-client-never-written";

    fn job(when: &str, program: &str, user: &str) -> Job {
        Job {
            name: "weekly-users".into(),
            when: when.parse().unwrap(),
            program: program.into(),
            arguments: ["schedule", "run", "weekly-users"].map(String::from).to_vec(),
            secret_file: None,
            signed_out: false,
            user: user.into(),
        }
    }

    const WINDOWS_PROGRAM: &str = r"C:\Users\hr\AppData\Local\Programs\orgql\orgql.exe";
    const UNIX_PROGRAM: &str = "/usr/bin/orgql";
    const FORMS: [(&str, &str); 6] = [
        ("hourly", "hourly"),
        ("daily", "daily 07:00"),
        ("weekdays", "weekdays 07:00"),
        ("mon", "mon 07:00"),
        ("mon-thu", "mon,thu 06:30"),
        ("monthly", "monthly 5 07:00"),
    ];

    /// Arguments that every format must quote: spaces, both quotes, `%`, `$`, backslashes, `;`.
    fn awkward_arguments() -> Vec<String> {
        ["schedule", "run", "weekly users", "it's \"50%\" of $HOME", r"C:\dir with\ends\", ";", "", "%h$$"]
            .map(String::from)
            .to_vec()
    }

    /// Every golden file's relative path and the text it must hold.
    fn rendered() -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (file, when) in FORMS {
            let windows = job(when, WINDOWS_PROGRAM, r"DESKTOP\hr");
            let unix = job(when, UNIX_PROGRAM, "hr");
            out.push((format!("task-scheduler/{file}.xml"), task_scheduler::xml(&windows)));
            out.push((format!("systemd/{file}.timer"), systemd::timer(&unix)));
            out.push((format!("systemd/{file}.service"), systemd::service(&unix)));
            out.push((format!("cron/{file}.cron"), cron::line(&unix) + "\n"));
            out.push((format!("launchd/{file}.plist"), launchd::plist(&unix)));
        }
        let spaced = job("weekdays 07:00", r"C:\Program Files\orgql\orgql.exe", r"DESKTOP\hr");
        out.push(("task-scheduler/program-with-spaces.xml".into(), task_scheduler::xml(&spaced)));
        let signed_out = Job { signed_out: true, ..spaced.clone() };
        out.push(("task-scheduler/signed-out.xml".into(), task_scheduler::xml(&signed_out)));
        let quoting = Job { arguments: awkward_arguments(), ..spaced };
        out.push(("task-scheduler/quoting.xml".into(), task_scheduler::xml(&quoting)));
        let spaced = job("weekdays 07:00", "/opt/my apps/orgql", "hr");
        let quoting = Job { arguments: awkward_arguments(), ..spaced.clone() };
        out.push(("systemd/program-with-spaces.service".into(), systemd::service(&spaced)));
        out.push(("systemd/quoting.service".into(), systemd::service(&quoting)));
        let secret = Job { secret_file: Some("/home/hr/.config/orgql/secrets/weekly-users".into()), ..spaced.clone() };
        out.push(("systemd/secret-file.service".into(), systemd::service(&secret)));
        out.push(("cron/program-with-spaces.cron".into(), cron::line(&spaced) + "\n"));
        out.push(("cron/quoting.cron".into(), cron::line(&quoting) + "\n"));
        out.push(("launchd/program-with-spaces.plist".into(), launchd::plist(&spaced)));
        out.push(("launchd/quoting.plist".into(), launchd::plist(&quoting)));
        out
    }

    fn golden_dir() -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/schedule")).to_path_buf()
    }

    /// Every entry against its file under `tests/golden/schedule/`: the test fails when an
    /// output changes. Run with `ORGQL_BLESS=1` to rewrite the files from the outputs instead
    /// (then review the diff).
    #[test]
    fn entries_match_their_golden_files() {
        let bless = std::env::var_os("ORGQL_BLESS").is_some_and(|v| v == "1");
        let mut differ = Vec::new();
        for (file, text) in rendered() {
            let path = golden_dir().join(&file);
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(golden) if golden == text => {}
                Ok(golden) => differ.push(format!("{file}: expected\n{golden}\ngot\n{text}")),
                Err(e) => differ.push(format!("{file}: {e}")),
            }
        }
        assert!(differ.is_empty(), "rerun with ORGQL_BLESS=1 if the change is meant:\n{}", differ.join("\n"));
    }

    #[test]
    fn the_task_scheduler_file_is_utf16_with_a_bom() {
        let job = job("daily 07:00", WINDOWS_PROGRAM, r"DESKTOP\hr");
        let bytes = task_scheduler::xml_utf16le(&job);
        assert_eq!(&bytes[..2], &[0xFF, 0xFE]);
        let units: Vec<u16> = bytes[2..].chunks(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
        assert_eq!(String::from_utf16(&units).unwrap(), task_scheduler::xml(&job));
    }

    #[test]
    fn no_entry_holds_a_secret() {
        let dir = tempfile::tempdir().unwrap();
        let secret_file = dir.path().join("secret");
        std::fs::write(&secret_file, SECRET).unwrap();
        for (_, when) in FORMS {
            let job = Job { secret_file: Some(secret_file.clone()), signed_out: true, ..job(when, UNIX_PROGRAM, "hr") };
            let texts = [
                task_scheduler::xml(&job),
                systemd::timer(&job),
                systemd::service(&job),
                cron::line(&job),
                launchd::plist(&job),
            ];
            for text in texts {
                assert!(!text.contains(SECRET), "{text}");
            }
            // Only systemd's service names the file; the other formats leave it out.
            assert!(
                systemd::service(&job)
                    .contains(&format!("LoadCredential=orgql-client-secret:{}", secret_file.display()))
            );
            assert!(!cron::line(&job).contains("secret"));
            assert!(!launchd::plist(&job).contains("secret"));
            assert!(!task_scheduler::xml(&job).contains("secret"));
        }
        for (file, _) in rendered() {
            let golden = std::fs::read_to_string(golden_dir().join(&file)).unwrap_or_default();
            assert!(!golden.contains(SECRET), "{file}");
            let lower = golden.to_lowercase();
            assert!(!lower.contains("client_secret") && !lower.contains("password="), "{file}");
        }
    }

    #[test]
    fn names_are_checked() {
        assert!(valid_name("weekly-users").is_ok());
        assert!(valid_name("A_1").is_ok());
        assert!(valid_name(&"x".repeat(64)).is_ok());
        for bad in ["", "weekly users", "a/b", "é", "a.b", "x%", "a\nb"] {
            let error = valid_name(bad).unwrap_err();
            assert!(error.ends_with("(such as weekly-users)"), "{error}");
            assert!(!error.contains('\n'), "{error}");
        }
        assert!(valid_name(&"x".repeat(65)).is_err());
    }

    #[test]
    fn jobs_are_checked() {
        let good = job("daily 07:00", UNIX_PROGRAM, "hr");
        assert_eq!(good.check(), Ok(()));
        let relative = Job { program: "orgql".into(), ..good.clone() };
        assert!(relative.check().unwrap_err().contains("not an absolute path"));
        let broken = Job { arguments: vec!["a\nb".into()], ..good.clone() };
        assert!(broken.check().unwrap_err().starts_with("an argument holds a line break"));
        let named = Job { name: "no spaces".into(), ..good };
        assert!(named.check().unwrap_err().contains("cannot name a schedule"));
    }

    #[test]
    fn xml_text_is_escaped() {
        assert_eq!(xml_escaped(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&apos;");
    }
}
