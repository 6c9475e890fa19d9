//! `orgql schedule` (issue 53) end to end: the binary against an in-process sandbox over real
//! HTTP, its real SQLite file, real folders: the entry in each scheduler's format, a delivery
//! byte for byte `orgql export`'s, to a folder, a folder with a space, a file; whole or nothing
//! when killed; a stopped service recorded with exit 6; a bad WHEN refused with the forms.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use orgql::sandbox::{Config, RunningServer};
use tempfile::TempDir;

use crate::harness::{SECRET, sandbox, sandbox_with};

pub(crate) const DOCUMENT: &str = "{ paginatedUsers(first: 50) { edges { node { ref name email isActive } } } }";

/// A person's orgql: config, data and home under a temporary folder, no keyring, the secret in
/// the environment, the profile `hr` on a sandbox.
pub(crate) struct Home {
    pub(crate) dir: TempDir,
}

impl Home {
    pub(crate) fn new() -> Home {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for sub in ["home", "config", "data", "out"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("a directory");
        }
        Home { dir }
    }

    pub(crate) fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    pub(crate) fn orgql(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_orgql"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("ORGQL_NO_KEYRING", "1")
            .env("ORGQL_CLIENT_SECRET", SECRET)
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .current_dir(self.path("out"))
            .stdin(Stdio::null());
        command
    }

    /// The profile `hr` on `server`, as the sandbox's admin client.
    pub(crate) async fn profile(&self, server: &RunningServer) {
        let add = self.orgql(&[
            "profile",
            "add",
            "hr",
            "--base-url",
            server.base_url(),
            "--client-id",
            "sandbox-admin",
            "--scope",
            "users.read groups.read",
        ]);
        let out = output(add).await;
        assert!(out.status.success(), "profile add: {}", text(&out.stderr));
    }
}

/// Runs a command off the async runtime (the sandbox keeps serving meanwhile), bounded.
pub(crate) async fn output(mut command: Command) -> Output {
    let run = tokio::task::spawn_blocking(move || command.output().expect("orgql runs"));
    tokio::time::timeout(Duration::from_secs(120), run).await.expect("orgql ends within 2 minutes").expect("joined")
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files in `dir`, sorted.
pub(crate) fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder is read")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn add_args<'a>(name: &'a str, when: &'a str, to: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["schedule", "add", name, "--profile", "hr", "-e", DOCUMENT, "--every", when, "--to", to];
    args.extend(extra);
    args
}

/// A person's orgql with the profile `hr` on `server` and the schedule `weekly-users` ("mon
/// 07:00", not registered, `extra` options) delivering into the folder `deliveries`.
async fn weekly_users(server: &RunningServer, extra: &[&str]) -> (Home, PathBuf) {
    let home = Home::new();
    home.profile(server).await;
    let folder = home.path("deliveries");
    std::fs::create_dir_all(&folder).expect("a folder");
    let to = format!("{}/", folder.display());
    let args = [&["--no-register"], extra].concat();
    let added = output(home.orgql(&add_args("weekly-users", "mon 07:00", &to, &args))).await;
    assert!(added.status.success(), "add: {}", text(&added.stderr));
    (home, folder)
}

#[tokio::test]
async fn the_entry_in_each_scheduler_s_format_runs_the_delivery_and_holds_no_secret() {
    let server = sandbox(30).await;
    let home = Home::new();
    home.profile(&server).await;
    let dir = home.path("deliveries");
    std::fs::create_dir_all(&dir).expect("a folder");
    let to = format!("{}/", dir.display());
    let added = output(home.orgql(&add_args("weekly-users", "mon 07:00", &to, &["--no-register"]))).await;
    assert!(added.status.success(), "add: {}", text(&added.stderr));
    assert!(text(&added.stdout).contains("not registered"), "{}", text(&added.stdout));
    let show = |format: &'static str| {
        let command = home.orgql(&["schedule", "show", "weekly-users", "--as", format]);
        async move {
            let out = output(command).await;
            assert!(out.status.success(), "show --as {format}: {}", text(&out.stderr));
            let shown = text(&out.stdout);
            assert!(!shown.contains(SECRET), "the secret is in the {format} entry");
            shown
        }
    };
    let systemd = show("systemd").await;
    assert!(systemd.contains("OnCalendar=Mon *-*-* 07:00:00"), "{systemd}");
    assert!(systemd.contains("schedule run weekly-users"), "{systemd}");
    let cron = show("cron").await;
    assert!(cron.lines().any(|l| l.starts_with("0 7 * * 1 ") && l.contains("schedule run weekly-users")), "{cron}");
    let task = show("task-scheduler").await;
    assert!(task.contains("<ScheduleByWeek>") && task.contains("<Monday"), "{task}");
    assert!(task.contains("07:00:00"), "{task}");
    let launchd = show("launchd").await;
    for needle in ["<key>Weekday</key>", "<integer>1</integer>", "<key>Hour</key>", "<integer>7</integer>"] {
        assert!(launchd.contains(needle), "{needle} in {launchd}");
    }
    let listed = output(home.orgql(&["schedule", "list"])).await;
    let listed = text(&listed.stdout);
    assert!(listed.contains("weekly-users") && listed.contains("mon 07:00") && listed.contains("never"), "{listed}");
}

#[tokio::test]
async fn a_bad_when_is_refused_with_the_accepted_forms() {
    let server = sandbox(3).await;
    let home = Home::new();
    home.profile(&server).await;
    let to = format!("{}/", home.path("out").display());
    for when in ["every 5 minutes", "daily 25:00", "monthly 32 07:00", "mon"] {
        let out = output(home.orgql(&add_args("bad", when, &to, &["--no-register"]))).await;
        assert_eq!(out.status.code(), Some(2), "{when}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "one sentence: {err}");
        for form in ["hourly", "daily HH:MM", "weekdays HH:MM", "monthly D HH:MM"] {
            assert!(err.contains(form), "{form} in {err}");
        }
    }
    let listed = output(home.orgql(&["schedule", "list"])).await;
    assert!(text(&listed.stdout).contains("no schedules yet"), "nothing was saved");
}

/// Delivers to `to` and checks the one file there equals `orgql export`'s of the same document.
async fn delivers_what_export_writes(home: &Home, name: &str, folder: &Path, extra: &[&str]) {
    std::fs::create_dir_all(folder).expect("a folder");
    let to = format!("{}/", folder.display());
    let added = output(home.orgql(&add_args(name, "daily 07:00", &to, &[&["--no-register"], extra].concat()))).await;
    assert!(added.status.success(), "add: {}", text(&added.stderr));
    let run = output(home.orgql(&["schedule", "run", name])).await;
    assert_eq!(run.status.code(), Some(0), "run: {}", text(&run.stderr));
    let delivered = files(folder);
    assert_eq!(delivered.len(), 1, "one file and no temporary one: {delivered:?}");
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    assert_eq!(delivered[0], format!("{name}-{today}.csv"));
    let exported = home.path("out").join(format!("{name}-export.csv"));
    let mut export_args = vec!["export", "--profile", "hr", "-e", DOCUMENT, "--out"];
    let out_text = exported.display().to_string();
    export_args.push(&out_text);
    export_args.extend(extra);
    let export = output(home.orgql(&export_args)).await;
    assert!(export.status.success(), "export: {}", text(&export.stderr));
    let want = std::fs::read(&exported).expect("the export");
    let got = std::fs::read(folder.join(&delivered[0])).expect("the delivery");
    assert_eq!(got, want, "the delivery is byte for byte the export");
    let history = output(home.orgql(&["schedule", "history", name])).await;
    let history = text(&history.stdout);
    assert!(history.contains("delivered") && history.contains(" 30 "), "the run with its 30 rows: {history}");
}

#[tokio::test]
async fn a_delivery_is_byte_for_byte_the_export_to_a_folder_and_one_with_a_space() {
    let server = sandbox(30).await;
    let home = Home::new();
    home.profile(&server).await;
    delivers_what_export_writes(&home, "weekly-users", &home.path("deliveries"), &[]).await;
    delivers_what_export_writes(&home, "with-bom", &home.path("HR share/in box"), &["--bom"]).await;
}

#[tokio::test]
async fn a_file_destination_is_replaced_and_keep_removes_only_orgql_s_older_deliveries() {
    let server = sandbox(12).await;
    let home = Home::new();
    home.profile(&server).await;
    let file = home.path("out").join("users now.csv");
    std::fs::write(&file, "old").expect("an earlier file");
    let added =
        output(home.orgql(&add_args("one-file", "hourly", &file.display().to_string(), &["--no-register"]))).await;
    assert!(added.status.success(), "add: {}", text(&added.stderr));
    let run = output(home.orgql(&["schedule", "run", "one-file"])).await;
    assert_eq!(run.status.code(), Some(0), "run: {}", text(&run.stderr));
    let body = std::fs::read_to_string(&file).expect("the delivery");
    assert!(body.starts_with("ref,name,email,isActive"), "replaced: {body}");
    assert!(body.contains("u00012,") && !body.contains("u00013,") && !body.contains("old"), "{body}");

    // Hourly into a folder: a file a run (named with the time, then the seconds), the last two
    // kept, someone's own file never touched.
    let folder = home.path("kept");
    std::fs::create_dir_all(&folder).expect("a folder");
    std::fs::write(folder.join("kept-notes.csv"), "someone's own file").expect("a file");
    let to = format!("{}/", folder.display());
    let added = output(home.orgql(&add_args("kept", "hourly", &to, &["--no-register", "--keep", "2"]))).await;
    assert!(added.status.success(), "add: {}", text(&added.stderr));
    let mut delivered = Vec::new();
    for _ in 0..3 {
        let before = files(&folder);
        let run = output(home.orgql(&["schedule", "run", "kept"])).await;
        assert_eq!(run.status.code(), Some(0), "run: {}", text(&run.stderr));
        let new: Vec<String> = files(&folder).into_iter().filter(|f| !before.contains(f)).collect();
        assert_eq!(new.len(), 1, "one new file a run: {new:?}");
        delivered.push(new[0].clone());
        // The next name differs by its seconds at least.
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    let mut want = vec!["kept-notes.csv".to_owned(), delivered[1].clone(), delivered[2].clone()];
    want.sort();
    assert_eq!(files(&folder), want, "the oldest delivery removed, the rest kept");
}

#[tokio::test]
async fn a_stopped_service_is_recorded_with_exit_6_and_nothing_delivered() {
    let server = sandbox(5).await;
    let (home, folder) = weekly_users(&server, &[]).await;
    server.stop().await;
    let run = output(home.orgql(&["schedule", "run", "weekly-users"])).await;
    assert_eq!(run.status.code(), Some(6), "run: {}", text(&run.stderr));
    let err = text(&run.stderr);
    assert!(err.starts_with("orgql: ") && err.trim_end().lines().count() == 1, "one sentence: {err}");
    assert!(files(&folder).is_empty(), "nothing delivered: {:?}", files(&folder));
    let listed = text(&output(home.orgql(&["schedule", "list"])).await.stdout);
    assert!(listed.contains("failed"), "{listed}");
    let history = text(&output(home.orgql(&["schedule", "history", "weekly-users"])).await.stdout);
    assert!(history.contains("failed (exit 6)"), "{history}");
}

#[tokio::test]
async fn a_run_killed_mid_way_leaves_nothing_under_the_final_name_and_the_next_delivers() {
    let server = sandbox_with(Config { users: 400, latency: Duration::from_millis(250), ..Config::default() }).await;
    let (home, folder) = weekly_users(&server, &[]).await;
    let mut child = home.orgql(&["schedule", "run", "weekly-users"]).stderr(Stdio::null()).spawn().expect("runs");
    // Killed while it fetches its pages (8 pages, a quarter second each).
    let staging = home.path("data").join("orgql/schedules/weekly-users/staging");
    let started = std::time::Instant::now();
    while !staging.exists() && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    child.kill().expect("killed (SIGKILL)");
    child.wait().expect("reaped");
    assert!(files(&folder).is_empty(), "nothing under the final name: {:?}", files(&folder));
    let run = output(home.orgql(&["schedule", "run", "weekly-users"])).await;
    assert_eq!(run.status.code(), Some(0), "the next run delivers: {}", text(&run.stderr));
    assert_eq!(files(&folder).len(), 1, "{:?}", files(&folder));
    let history = text(&output(home.orgql(&["schedule", "history", "weekly-users"])).await.stdout);
    assert!(history.contains("stopped before it ended"), "the killed run is recorded: {history}");
}

#[tokio::test]
async fn a_run_while_the_previous_one_still_runs_is_skipped_and_recorded() {
    let server = sandbox_with(Config { users: 200, latency: Duration::from_millis(300), ..Config::default() }).await;
    let (home, folder) = weekly_users(&server, &[]).await;
    let first = home.orgql(&["schedule", "run", "weekly-users"]).stderr(Stdio::null()).spawn().expect("runs");
    let staging = home.path("data").join("orgql/schedules/weekly-users/staging");
    let started = std::time::Instant::now();
    while !staging.exists() && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let second = output(home.orgql(&["schedule", "run", "weekly-users"])).await;
    assert_eq!(second.status.code(), Some(10), "skipped: {}", text(&second.stderr));
    assert!(text(&second.stderr).contains("still going"), "{}", text(&second.stderr));
    let first = tokio::task::spawn_blocking(move || first.wait_with_output().expect("ends")).await.expect("joined");
    assert!(first.status.success());
    assert_eq!(files(&folder).len(), 1, "one delivery, by the run that was not skipped: {:?}", files(&folder));
    let history = text(&output(home.orgql(&["schedule", "history", "weekly-users"])).await.stdout);
    assert!(history.contains("skipped (exit 10)") && history.contains("delivered"), "{history}");
}

#[tokio::test]
async fn a_delivery_to_sftp_arrives_whole_and_another_host_key_is_refused_naming_both() {
    use crate::sftp::{Sshd, keygen, sshd_missing};
    if sshd_missing() {
        return;
    }
    let run = async {
        let server = sandbox(30).await;
        let home = Home::new();
        home.profile(&server).await;
        // The person's key, kept across both servers.
        let client_key = home.path("home").join("id_ed25519");
        keygen(&client_key, "");
        let Some(sshd) = Sshd::start(Some(&client_key)).await else { return };
        let (folder, target) = sshd.folder("incoming");
        let url = target.url();
        let key = client_key.display().to_string();
        let fingerprint = sshd.fingerprint();
        // Without the key accepted (no terminal): refused, the fingerprint shown to accept.
        let refused =
            output(home.orgql(&add_args("to-sftp", "mon 07:00", &url, &["--no-register", "--ssh-key", &key]))).await;
        assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
        assert!(
            text(&refused.stderr).contains(&format!("--accept-host-key {fingerprint}")),
            "{}",
            text(&refused.stderr)
        );
        let extra = ["--no-register", "--ssh-key", &key, "--accept-host-key", &fingerprint];
        let added = output(home.orgql(&add_args("to-sftp", "mon 07:00", &url, &extra))).await;
        assert!(added.status.success(), "add: {}", text(&added.stderr));
        let delivered = output(home.orgql(&["schedule", "run", "to-sftp"])).await;
        assert_eq!(delivered.status.code(), Some(0), "run: {}", text(&delivered.stderr));
        let arrived = files(&folder);
        let today = chrono::Local::now().format("%Y-%m-%d").to_string();
        assert_eq!(arrived, [format!("to-sftp-{today}.csv")], "one whole file, no temporary one");
        let exported = home.path("out").join("export.csv");
        let out_text = exported.display().to_string();
        let export = output(home.orgql(&["export", "--profile", "hr", "-e", DOCUMENT, "--out", &out_text])).await;
        assert!(export.status.success(), "export: {}", text(&export.stderr));
        assert_eq!(
            std::fs::read(folder.join(&arrived[0])).expect("arrived"),
            std::fs::read(&exported).expect("exported")
        );

        // The server now shows another host key on the same address: refused, both named, exit 6.
        let port = sshd.port;
        drop(sshd);
        let Some(other) = Sshd::start_on(Some(&client_key), Some(port)).await else { return };
        let changed = output(home.orgql(&["schedule", "run", "to-sftp"])).await;
        let err = text(&changed.stderr);
        assert_eq!(changed.status.code(), Some(6), "{err}");
        assert!(err.contains(&fingerprint) && err.contains(&other.fingerprint()), "both fingerprints: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one sentence: {err}");
        let history = text(&output(home.orgql(&["schedule", "history", "to-sftp"])).await.stdout);
        assert!(history.contains("failed (exit 6)") && history.contains("delivered"), "{history}");
    };
    tokio::time::timeout(Duration::from_secs(120), run).await.expect("the test ends within 2 minutes");
}

#[tokio::test]
async fn a_run_that_cannot_read_its_secret_says_so_and_is_recorded() {
    let server = sandbox(3).await;
    let (home, folder) = weekly_users(&server, &[]).await;
    // As a scheduler starts it with nobody signed in: no keyring, no secret in the environment.
    let mut command = home.orgql(&["schedule", "run", "weekly-users"]);
    command.env_remove("ORGQL_CLIENT_SECRET");
    let run = output(command).await;
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("secret") && err.contains("weekly-users"), "says which secret and which delivery: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one sentence: {err}");
    assert!(files(&folder).is_empty());
    let history = text(&output(home.orgql(&["schedule", "history", "weekly-users"])).await.stdout);
    assert!(history.contains("failed (exit 3)") && history.contains("secret"), "{history}");
}

#[tokio::test]
async fn changes_since_the_last_delivery_come_with_each_delivery() {
    use crate::harness::{data, token};
    let server = sandbox(10).await;
    let (home, folder) = weekly_users(&server, &["--changes-since-last"]).await;
    let run = output(home.orgql(&["schedule", "run", "weekly-users"])).await;
    assert_eq!(run.status.code(), Some(0), "run: {}", text(&run.stderr));
    let first = files(&folder);
    assert_eq!(first.len(), 2, "the whole file and its changes: {first:?}");
    let changes = first.iter().find(|f| f.ends_with("-changes.csv")).expect("a changes file");
    let body = std::fs::read_to_string(folder.join(changes)).expect("the changes file");
    assert!(body.starts_with("change,changed fields,ref,name,email,isActive"), "{body}");
    assert_eq!(body.matches("\nadded,").count(), 10, "every row is new at the first delivery: {body}");

    // One user renamed through the service; the next delivery's changes are that row alone.
    let admin = token(&server, "users.write").await;
    let update = "mutation($ref: String!, $input: UpdateUserInput!) { updateUser(ref: $ref, input: $input) { ref } }";
    data(&server, &admin, update, serde_json::json!({ "ref": "u00002", "input": { "name": "Ana Renamed" } })).await;
    let run = output(home.orgql(&["schedule", "run", "weekly-users"])).await;
    assert_eq!(run.status.code(), Some(0), "run: {}", text(&run.stderr));
    assert!(text(&run.stderr).contains("0 added, 1 changed, 0 removed"), "{}", text(&run.stderr));
    let second: Vec<String> = files(&folder).into_iter().filter(|f| !first.contains(f)).collect();
    assert_eq!(second.len(), 2, "a new whole file and changes file: {second:?}");
    let changes = second.iter().find(|f| f.ends_with("-changes.csv")).expect("a changes file");
    let body = std::fs::read_to_string(folder.join(changes)).expect("the changes file");
    let rows: Vec<&str> = body.lines().skip(1).collect();
    assert_eq!(rows, ["changed,name,u00002,Ana Renamed,user.2@example.org,true"], "{body}");
}
