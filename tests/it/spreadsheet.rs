//! An XLSX export opened by a real spreadsheet program: LibreOffice (headless) converts the
//! workbook `orgql export --out users.xlsx` wrote back to CSV, and every cell must equal the
//! CSV export of the same query (`--raw`: the workbook needs no formula guard), with a ref made
//! only of digits keeping its leading zeros and formula-like names staying text.
//!
//! It runs where `soffice` is on the PATH and otherwise says why it did not; `.ci/run` installs
//! LibreOffice Calc and sets `ORGQL_SMOKE_REQUIRED`, so that CI cannot skip it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{admin_token, graphql, orgql_cli, sandbox};

const QUERY: &str =
    "{ paginatedUsers(first: 50) { edges { node { ref name email isActive roles groups { name } createdAt } } } }";

pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Every record of a CSV file, each a list of cells.
fn records(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{} reads as CSV: {e}", path.display()));
    reader.records().map(|record| record.expect("a CSV record").iter().map(str::to_owned).collect()).collect()
}

/// LibreOffice converts every sheet of `workbook` to CSV files in `out` (UTF-8, comma, `"`), in a
/// profile of its own under `profile`; at most two minutes.
fn libreoffice_to_csv(workbook: &Path, out: &Path, profile: &Path) {
    // Comma, double quote, UTF-8, from line 1, …, the last token: every sheet (`-1`).
    libreoffice_convert(
        workbook,
        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
        out,
        profile,
    )
}

/// LibreOffice (headless) opens `workbook` and saves it with `filter` (`xlsx:Calc MS Excel 2007
/// XML`, `ods`, `csv:…`) in `out`, in a profile of its own under `profile`; at most two minutes.
pub fn libreoffice_convert(workbook: &Path, filter: &str, out: &Path, profile: &Path) {
    let mut child = Command::new("soffice")
        .arg(format!("-env:UserInstallation=file://{}", profile.display()))
        .args(["--headless", "--norestore", "--convert-to"])
        .arg(filter)
        .arg(workbook)
        .arg("--outdir")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("soffice starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match child.try_wait().expect("soffice can be waited for") {
            Some(status) => {
                assert!(status.success(), "soffice converted the workbook: {status}");
                return;
            }
            None if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("soffice did not convert the workbook within two minutes");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn libreoffice_reads_an_xlsx_export_cell_for_cell_as_the_csv_export() {
    if !on_path("soffice") {
        let note = "the spreadsheet test needs LibreOffice (apt-get install libreoffice-calc)";
        assert!(std::env::var_os("ORGQL_SMOKE_REQUIRED").is_none(), "{note}; ORGQL_SMOKE_REQUIRED is set");
        eprintln!("note: skipped: {note}");
        return;
    }
    let server = sandbox(180).await;
    let base_url = server.base_url().to_owned();
    // A user whose ref is all digits and whose name a spreadsheet would otherwise compute.
    let token = admin_token(&base_url, "users.write").await;
    let create = "mutation($input: CreateUserInput!) { createUser(input: $input) { ref } }";
    let input = json!({ "ref": "00123", "name": "=1+1", "email": "zeros@example.org", "roles": ["LEARNER", "ADMIN"] });
    let created = graphql(&base_url, &token, create, json!({ "input": input })).await;
    assert_eq!(created["data"]["createUser"]["ref"], "00123", "{created}");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let work = dir.path().to_owned();
    let (csv, converted) = tokio::task::spawn_blocking(move || {
        for (out, extra) in [("users.xlsx", None), ("users.csv", Some("--raw"))] {
            let mut args = vec!["export", "-e", QUERY, "--out", out];
            args.extend(extra);
            let (code, _, stderr) = orgql_cli(&work, &base_url, &args);
            assert_eq!(code, 0, "orgql export --out {out}: {stderr}");
            assert!(stderr.contains("wrote 181 rows"), "{stderr}");
        }
        libreoffice_to_csv(&work.join("users.xlsx"), &work.join("converted"), &work.join("libreoffice"));
        (records(&work.join("users.csv")), records(&work.join("converted/users-Rows.csv")))
    })
    .await
    .expect("the exports and the conversion ran");

    assert_eq!(converted.len(), 182, "the header and 181 users");
    assert_eq!(converted.len(), csv.len());
    // LibreOffice writes a boolean cell as TRUE or FALSE: the workbook's booleans are booleans.
    let as_csv = |cell: &str| match cell {
        "TRUE" => "true".to_owned(),
        "FALSE" => "false".to_owned(),
        other => other.to_owned(),
    };
    for (line, (expected, read)) in csv.iter().zip(&converted).enumerate() {
        let read: Vec<String> = read.iter().map(|cell| as_csv(cell)).collect();
        assert_eq!(&read, expected, "line {} of the workbook as LibreOffice reads it", line + 1);
    }
    let zeros = converted.iter().find(|row| row[2] == "zeros@example.org").expect("the created user");
    assert_eq!(zeros[0], "00123", "the ref keeps its leading zeros");
    assert_eq!(zeros[1], "=1+1", "a formula-like name stays text, never computed");
    assert_eq!(zeros[4], "LEARNER; ADMIN", "lists joined as in the CSV");
    assert!(converted.iter().any(|row| row[3] == "FALSE"), "inactive users read as the boolean FALSE");
}
