//! Hands a schedule's entry ([`super::entry`]) to the system's own scheduler, takes it back, and
//! says whether it is there: Task Scheduler (`schtasks`), systemd's user manager (`systemctl
//! --user`), the person's crontab (`crontab`) or launchd (`launchctl`).
//!
//! Everything here blocks: every program is given [`TIMEOUT`] (the password prompt of `schtasks`
//! five minutes) and stopped past it, and its error output ends up in the one sentence an error
//! is. Which system this is comes from [`crate::platform::system_scheduler`].

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::entry::{Job, cron, launchd, systemd, task_scheduler};
use crate::platform::{self, SystemScheduler};

/// How long a scheduler's program may take before it is stopped.
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// How long `schtasks` may wait for the person to type their password.
const PASSWORD_TIMEOUT: Duration = Duration::from_secs(300);
/// How long the user systemd manager has to answer before cron is chosen instead.
const SYSTEMD_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// A system scheduler orgql can hand a schedule to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    /// Windows' Task Scheduler.
    TaskScheduler,
    /// systemd's user manager (a timer and a service in `~/.config/systemd/user`).
    Systemd,
    /// The person's crontab.
    Cron,
    /// macOS's launchd (an agent in `~/Library/LaunchAgents`).
    Launchd,
}

impl Scheduler {
    /// This computer's own scheduler: Task Scheduler on Windows, launchd on macOS; elsewhere
    /// systemd when a user systemd manager answers (`systemctl --user show-environment` within
    /// five seconds), cron otherwise.
    pub fn native() -> Scheduler {
        match platform::system_scheduler() {
            SystemScheduler::TaskScheduler => Scheduler::TaskScheduler,
            SystemScheduler::Launchd => Scheduler::Launchd,
            SystemScheduler::SystemdOrCron => {
                let probe = run("systemctl", &["--user", "show-environment"], Input::Nothing, SYSTEMD_PROBE_TIMEOUT);
                if probe.is_ok_and(|ran| ran.success) { Scheduler::Systemd } else { Scheduler::Cron }
            }
        }
    }

    /// The scheduler a name of the CLI's `--as` stands for: `task-scheduler`, `systemd`, `cron`
    /// or `launchd`.
    pub fn parse(s: &str) -> Option<Scheduler> {
        [Scheduler::TaskScheduler, Scheduler::Systemd, Scheduler::Cron, Scheduler::Launchd]
            .into_iter()
            .find(|scheduler| scheduler.name() == s.trim().to_ascii_lowercase())
    }

    /// Its name for `--as`, which [`Scheduler::parse`] reads.
    pub fn name(&self) -> &'static str {
        match self {
            Scheduler::TaskScheduler => "task-scheduler",
            Scheduler::Systemd => "systemd",
            Scheduler::Cron => "cron",
            Scheduler::Launchd => "launchd",
        }
    }

    /// The entry as this scheduler is given it, for `orgql schedule show NAME --as X`: the task's
    /// XML, the crontab line, the agent's property list; for systemd the timer then the service,
    /// each after a comment line naming its file.
    pub fn entry_text(&self, job: &Job) -> String {
        match self {
            Scheduler::TaskScheduler => task_scheduler::xml(job),
            Scheduler::Systemd => {
                let dir = systemd_user_dir().unwrap_or_else(|_| PathBuf::from("~/.config/systemd/user"));
                let unit = systemd::unit_name(&job.name);
                format!(
                    "# {}\n{}\n# {}\n{}",
                    dir.join(format!("{unit}.timer")).display(),
                    systemd::timer(job),
                    dir.join(format!("{unit}.service")).display(),
                    systemd::service(job)
                )
            }
            Scheduler::Cron => cron::line(job) + "\n",
            Scheduler::Launchd => launchd::plist(job),
        }
    }
}

/// A schedule handed to a scheduler, with what the person should know about it (one sentence
/// each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    /// The scheduler that now runs it.
    pub scheduler: Scheduler,
    /// What to know: when it runs or not, what to turn on.
    pub notes: Vec<String>,
}

/// Hands `job` to `scheduler`, replacing the schedule's earlier entry; the error is one sentence
/// saying what to do.
pub fn register(scheduler: Scheduler, job: &Job) -> Result<Registered, String> {
    job.check()?;
    let notes = match scheduler {
        Scheduler::TaskScheduler => register_task(job)?,
        Scheduler::Systemd => register_systemd(job)?,
        Scheduler::Cron => register_cron(job)?,
        Scheduler::Launchd => register_launchd(job)?,
    };
    Ok(Registered { scheduler, notes })
}

/// Takes the schedule `name` back from `scheduler`; `Ok(false)` when it had no entry.
pub fn unregister(scheduler: Scheduler, name: &str) -> Result<bool, String> {
    super::entry::valid_name(name)?;
    match scheduler {
        Scheduler::TaskScheduler => unregister_task(name),
        Scheduler::Systemd => unregister_systemd(name),
        Scheduler::Cron => unregister_cron(name),
        Scheduler::Launchd => unregister_launchd(name),
    }
}

/// Whether `scheduler` has an entry for the schedule `name`.
pub fn is_registered(scheduler: Scheduler, name: &str) -> Result<bool, String> {
    super::entry::valid_name(name)?;
    match scheduler {
        Scheduler::TaskScheduler => Ok(task_registered(name)),
        Scheduler::Systemd => Ok(systemd_user_dir()?.join(format!("{}.timer", systemd::unit_name(name))).exists()),
        Scheduler::Cron => {
            let marker = cron::marker(name);
            Ok(read_crontab()?.lines().any(|line| line.trim_end().ends_with(&marker)))
        }
        Scheduler::Launchd => Ok(launch_agent_path(name)?.exists()),
    }
}

// Task Scheduler.

fn register_task(job: &Job) -> Result<Vec<String>, String> {
    let mut file = tempfile::Builder::new().prefix("orgql-schedule-").suffix(".xml").tempfile().map_err(|e| {
        format!("the task's file could not be written ({e}); check that the temporary folder is writable")
    })?;
    file.write_all(&task_scheduler::xml_utf16le(job))
        .and_then(|()| file.flush())
        .map_err(|e| format!("the task's file could not be written ({e}); check that the temporary folder has room"))?;
    // Closed, so that schtasks can read it; removed when `path` is dropped.
    let path = file.into_temp_path();
    let task = task_scheduler::task_path(&job.name);
    let mut args: Vec<OsString> = ["/Create", "/TN", &task, "/XML"]
        .map(OsString::from)
        .into_iter()
        .chain([path.as_os_str().to_owned()])
        .collect();
    args.push("/F".into());
    let (input, timeout) = if job.signed_out {
        // No value after /RP: schtasks asks for the password itself; orgql never sees it.
        args.extend(["/RU", &job.user, "/RP"].map(OsString::from));
        (Input::Terminal, PASSWORD_TIMEOUT)
    } else {
        (Input::Nothing, TIMEOUT)
    };
    let ran = run("schtasks", &args, input, timeout)?;
    drop(path);
    if !ran.success {
        return Err(failed("schtasks /Create", &ran, "check the account and its password, then schedule it again"));
    }
    Ok(vec![if job.signed_out {
        "Task Scheduler asks for your Windows password: it keeps it so the delivery runs while you are signed out."
            .to_owned()
    } else {
        "Task Scheduler runs it only while you are signed in to Windows; a run missed meanwhile starts when you sign in."
            .to_owned()
    }])
}

fn task_registered(name: &str) -> bool {
    let task = task_scheduler::task_path(name);
    if run("schtasks", &["/Query", "/TN", &task], Input::Nothing, TIMEOUT).is_ok_and(|ran| ran.success) {
        return true;
    }
    // Wine's schtasks has no /Query: its tasks are files under %WINDIR%\System32\Tasks.
    std::env::var_os("WINDIR")
        .is_some_and(|windir| Path::new(&windir).join("System32").join("Tasks").join("orgql").join(name).is_file())
}

fn unregister_task(name: &str) -> Result<bool, String> {
    if !task_registered(name) {
        return Ok(false);
    }
    let task = task_scheduler::task_path(name);
    let ran = run("schtasks", &["/Delete", "/TN", &task, "/F"], Input::Nothing, TIMEOUT)?;
    if !ran.success {
        return Err(failed("schtasks /Delete", &ran, "remove the task in Task Scheduler's library (folder orgql)"));
    }
    Ok(true)
}

// systemd.

/// Where systemd reads the person's own units: `$XDG_CONFIG_HOME/systemd/user`, by default
/// `~/.config/systemd/user`.
pub fn systemd_user_dir() -> Result<PathBuf, String> {
    let config = match std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => directories::BaseDirs::new()
            .map(|dirs| dirs.home_dir().join(".config"))
            .ok_or("your home folder is not known; set HOME (or XDG_CONFIG_HOME) and try again")?,
    };
    Ok(config.join("systemd").join("user"))
}

/// Writes the timer and the service of `job` into `dir` (created when missing), readable by all
/// (0644), and returns their paths: the timer's, then the service's.
pub fn write_units(dir: &Path, job: &Job) -> Result<[PathBuf; 2], String> {
    let unit = systemd::unit_name(&job.name);
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("the folder {} could not be made ({e}); check its permissions", dir.display()))?;
    let timer = dir.join(format!("{unit}.timer"));
    let service = dir.join(format!("{unit}.service"));
    for (path, text) in [(&service, systemd::service(job)), (&timer, systemd::timer(job))] {
        std::fs::write(path, text)
            .and_then(|()| platform::make_readable_by_all(path))
            .map_err(|e| format!("{} could not be written ({e}); check the folder's permissions", path.display()))?;
    }
    Ok([timer, service])
}

/// Removes the timer and the service of the schedule `name` from `dir`; whether either was there.
pub fn remove_units(dir: &Path, name: &str) -> Result<bool, String> {
    let unit = systemd::unit_name(name);
    let mut removed = false;
    for suffix in ["timer", "service"] {
        let path = dir.join(format!("{unit}.{suffix}"));
        match std::fs::remove_file(&path) {
            Ok(()) => removed = true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{} could not be removed ({e}); remove it by hand", path.display())),
        }
    }
    Ok(removed)
}

fn systemctl(args: &[&str], advice: &str) -> Result<(), String> {
    let mut all = vec!["--user"];
    all.extend_from_slice(args);
    let ran = run("systemctl", &all, Input::Nothing, TIMEOUT)?;
    if ran.success { Ok(()) } else { Err(failed(&format!("systemctl {}", all.join(" ")), &ran, advice)) }
}

fn register_systemd(job: &Job) -> Result<Vec<String>, String> {
    let dir = systemd_user_dir()?;
    let unit = systemd::unit_name(&job.name);
    let replacing = dir.join(format!("{unit}.timer")).exists();
    write_units(&dir, job)?;
    let advice = "check that your systemd user manager runs (systemctl --user status)";
    systemctl(&["daemon-reload"], advice)?;
    systemctl(&["enable", "--now", &format!("{unit}.timer")], advice)?;
    if replacing {
        // A timer already running reads its new calendar on restart.
        systemctl(&["restart", &format!("{unit}.timer")], advice)?;
    }
    let lingering = run("loginctl", &["show-user", &job.user, "-p", "Linger"], Input::Nothing, TIMEOUT)
        .is_ok_and(|ran| ran.success && ran.stdout.trim() == "Linger=yes");
    let mut notes = Vec::new();
    if !lingering {
        notes.push(format!(
            "systemd runs it only while you are signed in unless lingering is on: loginctl enable-linger {}",
            job.user
        ));
    }
    notes.push("A run missed while the computer was off or asleep happens when it is back.".to_owned());
    Ok(notes)
}

fn unregister_systemd(name: &str) -> Result<bool, String> {
    let dir = systemd_user_dir()?;
    let unit = systemd::unit_name(name);
    if dir.join(format!("{unit}.timer")).exists() {
        systemctl(
            &["disable", "--now", &format!("{unit}.timer")],
            "check that your systemd user manager runs (systemctl --user status)",
        )?;
    }
    let removed = remove_units(&dir, name)?;
    if removed {
        systemctl(&["daemon-reload"], "run systemctl --user daemon-reload yourself")?;
    }
    Ok(removed)
}

// cron.

/// The person's crontab (empty when they have none yet).
fn read_crontab() -> Result<String, String> {
    let ran = run("crontab", &["-l"], Input::Nothing, TIMEOUT)?;
    if ran.success {
        Ok(ran.stdout)
    } else if ran.stderr.to_lowercase().contains("no crontab") {
        Ok(String::new())
    } else {
        Err(failed("crontab -l", &ran, "check that cron is installed and that you may use it (cron.allow)"))
    }
}

fn write_crontab(table: &str) -> Result<(), String> {
    let ran = run("crontab", &["-"], Input::Bytes(table.as_bytes().to_vec()), TIMEOUT)?;
    if ran.success { Ok(()) } else { Err(failed("crontab -", &ran, "check that you may use cron (cron.allow)")) }
}

/// `table` (a crontab) without the lines of the schedule `name` (ending with its marker), with
/// `line` appended when given; every other line kept as it is. Also whether a line was dropped.
pub fn crontab_with(table: &str, name: &str, line: Option<&str>) -> (String, bool) {
    let marker = cron::marker(name);
    let mut out = String::new();
    let mut dropped = false;
    for kept in table.lines() {
        if kept.trim_end().ends_with(&marker) {
            dropped = true;
        } else {
            out.push_str(kept);
            out.push('\n');
        }
    }
    if let Some(line) = line {
        out.push_str(line);
        out.push('\n');
    }
    (out, dropped)
}

fn register_cron(job: &Job) -> Result<Vec<String>, String> {
    let (table, _) = crontab_with(&read_crontab()?, &job.name, Some(&cron::line(job)));
    write_crontab(&table)?;
    Ok(vec![
        "cron runs it while the computer is on, signed in or not; a run missed while it was off is not made up."
            .to_owned(),
    ])
}

fn unregister_cron(name: &str) -> Result<bool, String> {
    let (table, dropped) = crontab_with(&read_crontab()?, name, None);
    if dropped {
        write_crontab(&table)?;
    }
    Ok(dropped)
}

// launchd.

/// The agent's file: `~/Library/LaunchAgents/org.orgql.schedule.NAME.plist`.
fn launch_agent_path(name: &str) -> Result<PathBuf, String> {
    let home = directories::BaseDirs::new()
        .map(|dirs| dirs.home_dir().to_path_buf())
        .ok_or("your home folder is not known; set HOME and try again")?;
    Ok(home.join("Library").join("LaunchAgents").join(format!("{}.plist", launchd::label(name))))
}

/// launchd's domain of the person's session: `gui/<uid>`.
fn launchd_domain() -> Result<String, String> {
    platform::user_id()
        .map(|uid| format!("gui/{uid}"))
        .ok_or_else(|| "launchd needs a Unix user id, which this system has not; choose another scheduler".to_owned())
}

fn register_launchd(job: &Job) -> Result<Vec<String>, String> {
    let domain = launchd_domain()?;
    let path = launch_agent_path(&job.name)?;
    if path.exists() {
        // Whether or not it was loaded: bootstrap refuses a label that is.
        let target = format!("{domain}/{}", launchd::label(&job.name));
        let _ = run("launchctl", &["bootout", &target], Input::Nothing, TIMEOUT)?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("the folder {} could not be made ({e}); check its permissions", dir.display()))?;
    }
    std::fs::write(&path, launchd::plist(job))
        .and_then(|()| platform::make_readable_by_all(&path))
        .map_err(|e| format!("{} could not be written ({e}); check the folder's permissions", path.display()))?;
    let ran =
        run("launchctl", &[OsStr::new("bootstrap"), OsStr::new(&domain), path.as_os_str()], Input::Nothing, TIMEOUT)?;
    if !ran.success {
        return Err(failed("launchctl bootstrap", &ran, "sign in to the Mac's desktop session and schedule it again"));
    }
    Ok(vec![
        "launchd runs it while you are signed in to the Mac; a run missed while it slept happens when it wakes."
            .to_owned(),
    ])
}

fn unregister_launchd(name: &str) -> Result<bool, String> {
    let path = launch_agent_path(name)?;
    if !path.exists() {
        return Ok(false);
    }
    let target = format!("{}/{}", launchd_domain()?, launchd::label(name));
    // Not loaded (a session since restarted): nothing to stop, the file still goes.
    let _ = run("launchctl", &["bootout", &target], Input::Nothing, TIMEOUT)?;
    std::fs::remove_file(&path)
        .map_err(|e| format!("{} could not be removed ({e}); remove it by hand", path.display()))?;
    Ok(true)
}

// Running the schedulers' programs.

/// What a program is given on its standard input.
enum Input {
    /// Nothing (an empty input).
    Nothing,
    /// These bytes.
    Bytes(Vec<u8>),
    /// orgql's own terminal, for a prompt (its standard output shown there too).
    Terminal,
}

/// A program's end.
#[derive(Debug)]
struct Ran {
    success: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `program` with `args`, stopping it after `timeout`; an error when it cannot start or
/// is stopped.
fn run<S: AsRef<OsStr>>(program: &str, args: &[S], input: Input, timeout: Duration) -> Result<Ran, String> {
    let mut command = Command::new(program);
    command.args(args).stderr(Stdio::piped());
    match input {
        Input::Nothing => command.stdin(Stdio::null()).stdout(Stdio::piped()),
        Input::Bytes(_) => command.stdin(Stdio::piped()).stdout(Stdio::piped()),
        Input::Terminal => command.stdin(Stdio::inherit()).stdout(Stdio::inherit()),
    };
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("{program} is not installed or not on PATH; install it or choose another scheduler")
        }
        _ => format!("{program} could not be started ({e}); check that you may run it"),
    })?;
    if let (Input::Bytes(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{program} did not finish within {} seconds and was stopped; try again later",
                    timeout.as_secs()
                ));
            }
            Err(e) => return Err(format!("{program} could not be waited for ({e}); try again")),
        }
    };
    Ok(Ran {
        success: status.success(),
        code: status.code(),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// One sentence: what failed, with its exit code and error output, then what to do.
fn failed(what: &str, ran: &Ran, advice: &str) -> String {
    let said = ran.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = said.trim_end_matches('.');
    let code = ran.code.map_or_else(|| "stopped by a signal".to_owned(), |code| format!("exit code {code}"));
    if said.is_empty() {
        format!("{what} failed ({code}); {advice}")
    } else {
        format!("{what} failed ({code}: {said}); {advice}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, when: &str) -> Job {
        Job {
            name: name.into(),
            when: when.parse().unwrap(),
            program: "/usr/bin/orgql".into(),
            arguments: vec!["schedule".into(), "run".into(), name.into()],
            secret_file: None,
            signed_out: false,
            user: "hr".into(),
        }
    }

    #[test]
    fn scheduler_names_read_back() {
        for scheduler in [Scheduler::TaskScheduler, Scheduler::Systemd, Scheduler::Cron, Scheduler::Launchd] {
            assert_eq!(Scheduler::parse(scheduler.name()), Some(scheduler));
        }
        assert_eq!(Scheduler::parse(" Systemd "), Some(Scheduler::Systemd));
        assert_eq!(Scheduler::parse("at"), None);
    }

    #[test]
    fn the_native_scheduler_fits_the_system() {
        let native = Scheduler::native();
        match platform::system_scheduler() {
            SystemScheduler::TaskScheduler => assert_eq!(native, Scheduler::TaskScheduler),
            SystemScheduler::Launchd => assert_eq!(native, Scheduler::Launchd),
            SystemScheduler::SystemdOrCron => assert!(matches!(native, Scheduler::Systemd | Scheduler::Cron)),
        }
    }

    #[test]
    fn systemd_s_entry_names_both_files() {
        let text = Scheduler::Systemd.entry_text(&job("weekly-users", "mon 07:00"));
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("# /") || l.starts_with("# ~")).collect();
        assert_eq!(headings.len(), 2, "{text}");
        assert!(headings[0].ends_with("systemd/user/orgql-weekly-users.timer"), "{text}");
        assert!(headings[1].ends_with("systemd/user/orgql-weekly-users.service"), "{text}");
        assert!(text.contains("OnCalendar=Mon *-*-* 07:00:00\n"));
        assert!(Scheduler::Cron.entry_text(&job("weekly-users", "mon 07:00")).starts_with("0 7 * * 1 "));
    }

    #[test]
    fn units_are_written_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let units = dir.path().join("systemd/user");
        let job = job("weekly-users", "weekdays 07:00");
        let [timer, service] = write_units(&units, &job).unwrap();
        assert_eq!(timer, units.join("orgql-weekly-users.timer"));
        assert_eq!(std::fs::read_to_string(&timer).unwrap(), systemd::timer(&job));
        assert_eq!(std::fs::read_to_string(&service).unwrap(), systemd::service(&job));
        // Written again: replaced.
        let later = Job { when: "daily 08:00".parse().unwrap(), ..job };
        write_units(&units, &later).unwrap();
        assert!(std::fs::read_to_string(&timer).unwrap().contains("OnCalendar=*-*-* 08:00:00\n"));
        assert!(remove_units(&units, "weekly-users").unwrap());
        assert!(!timer.exists() && !service.exists());
        assert!(!remove_units(&units, "weekly-users").unwrap());
    }

    #[test]
    fn crontab_lines_of_other_schedules_stay() {
        let table = "MAILTO=hr\n0 1 * * * backup\n0 7 * * 1 '/usr/bin/orgql' schedule run a # orgql schedule a\n\
                     0 7 * * 1 '/usr/bin/orgql' schedule run ab # orgql schedule ab\n";
        let (with, dropped) = crontab_with(table, "a", Some("0 8 * * * x # orgql schedule a"));
        assert!(dropped);
        assert_eq!(
            with,
            "MAILTO=hr\n0 1 * * * backup\n0 7 * * 1 '/usr/bin/orgql' schedule run ab # orgql schedule ab\n\
             0 8 * * * x # orgql schedule a\n"
        );
        let (without, dropped) = crontab_with(&with, "a", None);
        assert!(dropped);
        assert!(!without.contains("# orgql schedule a\n"));
        assert!(without.contains("# orgql schedule ab\n"));
        let (same, dropped) = crontab_with("0 1 * * * backup", "zz", None);
        assert!(!dropped);
        assert_eq!(same, "0 1 * * * backup\n");
    }

    #[test]
    fn a_program_past_its_time_is_stopped() {
        let started = Instant::now();
        match run("sleep", &["10"], Input::Nothing, Duration::from_millis(300)) {
            Err(e) if e.contains("not installed") => eprintln!("skipped: no sleep program here"),
            Err(e) => assert!(e.contains("did not finish within"), "{e}"),
            Ok(ran) => panic!("not stopped: {ran:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        let missing = run("orgql-no-such-program", &["x"], Input::Nothing, TIMEOUT).unwrap_err();
        assert!(missing.starts_with("orgql-no-such-program is not installed"), "{missing}");
    }

    #[test]
    fn failures_are_one_sentence_with_the_error_output() {
        let ran = Ran { success: false, code: Some(1), stdout: String::new(), stderr: "bad thing.\n  more\n".into() };
        assert_eq!(failed("crontab -", &ran, "do this"), "crontab - failed (exit code 1: bad thing. more); do this");
        let quiet = Ran { stderr: String::new(), ..ran };
        assert_eq!(failed("x", &quiet, "do this"), "x failed (exit code 1); do this");
    }

    /// The person's crontab as it was, put back when the test ends (also when it fails).
    struct CrontabKept(Option<String>);

    impl Drop for CrontabKept {
        fn drop(&mut self) {
            match &self.0 {
                Some(table) => write_crontab(table).unwrap(),
                None => {
                    let _ = run("crontab", &["-r"], Input::Nothing, TIMEOUT);
                }
            }
        }
    }

    /// With the system's own `crontab` (as root here: root's table, kept and put back).
    #[test]
    fn cron_for_real() {
        if Command::new("crontab").arg("-l").stdin(Stdio::null()).output().is_err() {
            eprintln!("skipped: crontab is not installed");
            return;
        }
        let before = read_crontab().unwrap();
        let _kept = CrontabKept((!before.is_empty()).then(|| before.clone()));
        let name = format!("orgql-test-{}", std::process::id());
        let other = "# another line, not orgql's: kept";
        write_crontab(&format!("{before}{other}\n")).unwrap();
        assert!(!is_registered(Scheduler::Cron, &name).unwrap());
        let first = job(&name, "mon 07:00");
        let registered = register(Scheduler::Cron, &first).unwrap();
        assert_eq!(registered.scheduler, Scheduler::Cron);
        assert!(!registered.notes.is_empty());
        let second = Job { when: "monthly 5 06:30".parse().unwrap(), arguments: vec!["50% of $HOME".into()], ..first };
        register(Scheduler::Cron, &second).unwrap();
        assert!(is_registered(Scheduler::Cron, &name).unwrap());
        let table = read_crontab().unwrap();
        let ours: Vec<&str> = table.lines().filter(|l| l.ends_with(&cron::marker(&name))).collect();
        assert_eq!(ours, [cron::line(&second).as_str()], "{table}");
        assert!(ours[0].starts_with("30 6 5 * * "));
        assert!(table.lines().any(|l| l == other), "{table}");
        assert!(unregister(Scheduler::Cron, &name).unwrap());
        assert!(!unregister(Scheduler::Cron, &name).unwrap());
        assert!(!is_registered(Scheduler::Cron, &name).unwrap());
        let table = read_crontab().unwrap();
        assert!(table.lines().any(|l| l == other), "{table}");
        assert!(!table.contains(&name));
    }
}
