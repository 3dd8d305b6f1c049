//! The command line: every subcommand and report format, exit codes, reproducers, baselines.

use std::process::Output;

mod common;
use common::{bin, run, run_toy, tmp, toy};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A case the toy adapter fails: it answers every call with a success.
const FAILING: &str = "calls/unknown-tool-with-no-tools-registered";

#[test]
fn list_show_and_copy_agree() {
    let list = run(&["list"]);
    assert!(list.status.success());
    let ids: Vec<String> = stdout(&list)
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect();
    assert!(ids.len() >= 150, "{} cases", ids.len());
    assert!(ids.contains(&FAILING.to_owned()));
    let show = run(&["show", FAILING]);
    assert!(show.status.success());
    let shown: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(shown["id"], FAILING);
    assert!(!run(&["show", "no/such-case"]).status.success());
    let dir = tmp("copy");
    assert!(run(&["copy", dir.to_str().unwrap()]).status.success());
    let copied =
        std::fs::read_to_string(dir.join("cases").join(format!("{FAILING}.json"))).unwrap();
    assert_eq!(copied.as_bytes(), show.stdout.as_slice());
    assert!(dir.join("SPEC.md").exists());
    assert!(dir.join("PROTOCOL.md").exists());
    assert!(dir.join("schema/case.schema.json").exists());
    assert!(dir.join("schema/protocol/reply.schema.json").exists());
    let filtered = run(&["list", "--run", "cap/*", "--skip", "*bytes*"]);
    assert!(stdout(&filtered)
        .lines()
        .all(|l| l.starts_with("cap/") && !l.split('\t').next().unwrap().contains("bytes")));
}

#[test]
fn spec_lists_requirements_and_checks_them_against_the_corpus() {
    let o = run(&["spec", "CAP-10"]);
    assert!(o.status.success(), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.starts_with("CAP-10 (MUST) "), "{out}");
    assert_eq!(
        out.lines().filter(|l| !l.starts_with("  ")).count(),
        1,
        "{out}"
    );
    assert!(out.contains("cap.keeps_head ×"), "{out}");
    let check = run(&["spec", "--check"]);
    assert!(check.status.success(), "{check:?}");
    assert!(check.stdout.is_empty());
    assert!(String::from_utf8_lossy(&check.stderr).contains("SPEC.md, the cases and blame agree"));
    assert_eq!(run(&["spec", "NO-1"]).status.code(), Some(2));
}

#[test]
fn a_failing_harness_exits_non_zero_with_a_reproducer() {
    let cmd = toy();
    let o = run_toy(FAILING, &[]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains(&format!("FAIL {FAILING}")), "{out}");
    let repro = format!("reproduce: harness-conformance run --harness '{cmd}' --run {FAILING}");
    assert!(out.contains(&repro), "{out}");
}

#[test]
fn the_bare_command_runs_the_suite_on_the_reference() {
    let o = run(&[]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("the built-in reference harness"));
    assert!(stdout(&o).contains("result: ok"));
}

#[test]
fn the_reference_passes_a_selection_and_exits_zero() {
    let o = run(&["run", "--run", "validation/*", "-q"]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("result: ok"));
}

#[test]
fn json_lines_junit_and_markdown() {
    let o = run_toy("calls", &["--format", "json"]);
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["type"], "start");
    assert_eq!(
        lines.first().unwrap()["implementation"]["name"],
        "misbehaving-ok"
    );
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "summary");
    assert_eq!(last["ok"], false);
    let failing = lines.iter().find(|l| l["id"] == FAILING).unwrap();
    assert_eq!(failing["verdict"], "FAIL");
    assert_eq!(failing["level"], "MUST");
    assert!(failing["reproduce"].as_str().unwrap().ends_with(FAILING));

    let o = run_toy("calls", &["--format", "junit"]);
    let xml = stdout(&o);
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains("<testsuite name=\"calls\""));
    assert!(xml.contains(&format!("name=\"{FAILING}\"")));
    assert!(xml.contains("<failure type=\"FAIL\""));
    assert!(xml.contains("<skipped message=\"SKIP: "));

    let o = run_toy("calls", &["--format", "markdown"]);
    let md = stdout(&o);
    assert!(md.contains("**FAILED**"));
    assert!(md.contains("| ✗ | CALL-1 | MUST |"), "{md}");
    assert!(md.contains(&format!("<code>{FAILING}</code>")));
}

#[test]
fn baselines_are_written_and_read_and_stale_entries_fail() {
    let dir = tmp("baseline");
    let path = dir.join("baseline.json");
    // Issue 29: writing the baseline it was asked to write is a success (it used to exit 1).
    let o = run_toy("calls", &["--write-baseline", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["format"], 2, "{written}");
    assert!(written["cases"].get(FAILING).is_some(), "{written}");
    assert!(written["cases"][FAILING]["fails"].is_array(), "{written}");
    assert!(written["skips"].is_object(), "{written}");
    // With the baseline, the same run is green: the failures are expected.
    let o = run_toy("calls", &["--baseline", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("XFAIL"));
    // The reference passes what the toy fails: the entry is stale and the run fails.
    let o = run(&[
        "run",
        "--run",
        FAILING,
        "-q",
        "--baseline",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(&format!("STALE {FAILING}")),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_case_file_from_disk_runs_alone() {
    let dir = tmp("casefile");
    let show = run(&["show", FAILING]);
    let path = dir.join("one.json");
    std::fs::write(&path, &show.stdout).unwrap();
    let o = run(&["run", "--case-file", path.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 case(s)"));
    std::fs::write(&path, b"{\"id\": \"x/y\", \"requirements\": []}").unwrap();
    let o = run(&["run", "--case-file", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a valid case"));
}

#[test]
fn the_matrix_writes_markdown_and_a_site() {
    let dir = tmp("matrix");
    let md = dir.join("m.md");
    let site = dir.join("site");
    let toy = format!("toy={}", toy());
    let o = run(&[
        "matrix",
        "--harness",
        "reference=reference",
        "--harness",
        &toy,
        "--run",
        "calls",
        "--markdown",
        md.to_str().unwrap(),
        "--site",
        site.to_str().unwrap(),
    ]);
    // The toy harness has no baseline and fails: the matrix is a gate, so it exits 1, and says
    // which harness failed.
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("failed against their baselines: toy"));
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("| reference |") && md.contains("| toy |"));
    assert!(md.contains("### By requirement"), "{md}");
    assert!(md.contains("| CALL-1 | MUST | ✅ | ❌ "), "{md}");
    assert!(md.contains(&format!("`{FAILING}` | ✅ | ❌ |")), "{md}");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.starts_with("<!DOCTYPE html>"));
    // Self-contained: every script, style and image comes from the site's own folder; a URL
    // from a hello is only ever a link a reader may follow.
    for attr in ["src=\"", "<link rel=\"stylesheet\" href=\""] {
        for (at, _) in index.match_indices(attr) {
            let value = &index[at + attr.len()..];
            let value = &value[..value.find('"').unwrap()];
            assert!(
                !value.contains("://") && !value.starts_with("//"),
                "an external resource: {value}"
            );
        }
    }
    assert!(
        index.contains("<script src=\"site.js\">"),
        "the site's script"
    );
    assert!(
        index.contains("href=\"harness/toy.html\""),
        "a page per harness"
    );
    let page = std::fs::read_to_string(site.join("harness/toy.html")).unwrap();
    assert!(page.contains("class=\"failure\""), "failures are listed");
    assert!(
        page.contains("harness-conformance run --harness &quot;$ADAPTER&quot; --run "),
        "failures carry a reproducer, without the local adapter path"
    );
    assert!(
        !page.contains(env!("CARGO_MANIFEST_DIR")),
        "a published page names no local path"
    );
    let badge: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(site.join("badges/toy.json")).unwrap())
            .unwrap();
    assert_eq!(badge["schemaVersion"], 1);
    assert_eq!(badge["label"], "MUST");
}

#[test]
fn a_typo_in_the_hello_is_one_handshake_error_naming_the_entry() {
    let cmd = format!(
        "python3 {}/../driver/tests/misbehaving/adapter.py typo-keyword",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = run(&["run", "--harness", &cmd, "--run", "validation", "-q"]);
    // Issue 29: a run that could not judge exits 2, apart from a harness that failed cases (1).
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.contains("the handshake failed: no case ran"), "{out}");
    assert!(
        out.contains("capabilities.keywords[1]: unknown name \"propertie\""),
        "{out}"
    );
    assert!(
        out.contains("properties"),
        "the valid vocabulary is listed: {out}"
    );
    assert_eq!(
        out.matches("propertie\"").count(),
        1,
        "said once, not once per case: {out}"
    );
}

#[test]
fn an_untestable_must_fails_the_run_until_the_baseline_lists_it() {
    let dir = tmp("untestable");
    let path = dir.join("baseline.json");
    let case = "outcomes/handler-past-deadline-times-out";
    // The toy declares no deadline: the case skips, and OUT-4 cannot be tested at all.
    let o = run_toy(case, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("! OUT-4"), "{out}");
    assert!(
        out.contains("MUST requirement(s) not testable on this harness: OUT-4"),
        "{out}"
    );
    let o = run_toy(case, &["--write-baseline", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        written["not_testable"]["OUT-4"]["reason"].is_string(),
        "{written}"
    );
    assert!(written["skips"][case].is_string(), "{written}");
    let o = run_toy(case, &["--baseline", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("OUT-4"));
}

/// Issue 29: `matrix --from DIR` reads a folder `DIR/NAME/*.json` as one harness's runs: the
/// newest by its start line's `date` is the column (whatever the files are called), the others
/// are its history, each with a page; every column shows its run's date.
#[test]
fn a_folder_of_reports_is_one_harness_with_its_history() {
    let dir = tmp("history");
    let runs = dir.join("reports/toy");
    std::fs::create_dir_all(&runs).unwrap();
    let toy = toy();
    // The newer run is the reference's (it passes), saved under the name that sorts first;
    // the older is the failing toy's.
    for (file, epoch, harness) in [
        ("a.json", "1767225600", vec![]),
        ("b.json", "1735689600", vec!["--harness", toy.as_str()]),
    ] {
        let o = bin()
            .env("SOURCE_DATE_EPOCH", epoch)
            .arg("run")
            .args(harness)
            .args(["--run", FAILING, "-q"])
            .args(["--format", "json", "-o"])
            .arg(runs.join(file))
            .output()
            .unwrap();
        assert!(
            runs.join(file).exists(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let site = dir.join("site");
    let o = bin()
        .args(["matrix", "--from"])
        .arg(dir.join("reports"))
        .arg("--markdown")
        .arg(dir.join("m.md"))
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("2026-01-01"), "the newest run is the column");
    assert!(
        !index.contains("2025-01-01"),
        "an older run is not a column"
    );
    assert!(index.contains("history (2 runs)"), "its history is linked");
    let page = std::fs::read_to_string(site.join("harness/toy.html")).unwrap();
    assert!(
        page.contains("id=\"history-table\""),
        "the history is on its page"
    );
    assert!(
        page.contains("now pass: CALL-1"),
        "{}",
        &page[page.find("history-table").unwrap()..][..600]
    );
    let older = std::fs::read_to_string(site.join("harness/toy.1.html")).unwrap();
    assert!(older.contains("2025-01-01T00:00:00Z") && older.contains("class=\"failure\""));
}
