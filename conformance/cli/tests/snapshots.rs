//! Wording snapshots: the reference harness's committed wording, insta's agreement with our file
//! format, and the record → change → fail → review → accept → pass round trip through the CLI.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use harness_conformance_driver::client::InProcess;
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_report::snapshot::{self, store, Meta};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader;
use harness_conformance_suite::run::RunResult;
use harness_ref_adapter::{Fault, Variant};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn run_suite(cases: &[&Case], fault: Option<Fault>) -> RunResult {
    run_on(cases, move || InProcess::new(fault))
}

fn run_on(cases: &[&Case], harness: impl Fn() -> InProcess + Send + Sync) -> RunResult {
    let cfg = RunConfig {
        jobs: 2,
        timeout: Duration::from_secs(20),
        keep_results: true,
        ..RunConfig::default()
    };
    let factory = move || -> Box<dyn Harness + Send> { Box::new(harness()) };
    runner::run(cases, &factory, &cfg, &|_, _, _| {})
}

fn meta(case: &Case) -> Meta {
    Meta::for_case(&case.id, &case.description)
}

/// A fresh, empty directory under cargo's per-test scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("snapshots-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files(dir: &Path, suffix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    out.sort();
    out
}

/// The whole suite against harness-ref, compared with `conformance/suite/snapshots/reference/`: a
/// wording change in harness-ref (or a changed case) fails here and leaves a `.snap.new` to
/// review (`harness-conformance review conformance/suite/snapshots/reference`, or `cargo insta review
/// -p harness-conformance`). Then insta itself loads every committed file and finds it equal to
/// the body this run produced, which pins the file format to insta's.
#[test]
fn reference_wording_matches_the_committed_snapshots() {
    let suite = loader::load_embedded().expect("the suite loads");
    let cases: Vec<&Case> = suite.cases.iter().collect();
    let mut result = run_suite(&cases, None);
    // The cases the reference skips are recorded as a configuration of it that runs them words
    // them: the repair profile's (it does not repair) by `repairs-double-encoded`, the result
    // wrapper's (it wraps nothing: they need `wrapper`) by `wraps-results`.
    let skipped: Vec<&Case> = cases
        .iter()
        .zip(&result.outcomes)
        .filter(|(_, o)| o.results.is_none())
        .map(|(c, _)| *c)
        .collect();
    let (repair, wrapper): (Vec<&Case>, Vec<&Case>) = skipped
        .into_iter()
        .partition(|c| c.id.starts_with("repair/"));
    assert!(
        wrapper.iter().all(|c| {
            harness_conformance_suite::needs::case_needs(c)
                .iter()
                .any(|n| n == "wrapper")
        }),
        "the reference skips only the repair and wrapper cases: {:?}",
        wrapper.iter().map(|c| &c.id).collect::<Vec<_>>()
    );
    let repairing = run_on(&repair, || {
        InProcess::legitimate(Variant::RepairsDoubleEncoded)
    });
    let wrapping = run_on(&wrapper, || InProcess::legitimate(Variant::WrapsResults));
    for outcome in repairing.outcomes.into_iter().chain(wrapping.outcomes) {
        if let Some(o) = result.outcomes.iter_mut().find(|o| o.id == outcome.id) {
            *o = outcome;
        }
    }
    let dir = root().join("suite/snapshots/reference");
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let run = store::record(&dir, &cases, &result.outcomes, &meta, Some(&ids)).unwrap();
    assert!(
        run.ok() && run.orphans.is_empty() && run.not_recorded.is_empty(),
        "the reference harness's wording differs from conformance/suite/snapshots/reference/ (a new case, \
         a changed case or a wording change in harness-ref). Read each .snap.new, then accept it: \
         `cargo run -p harness-conformance -- review conformance/suite/snapshots/reference` (or `accept`), \
         and commit the .snap files with the change. Orphans: delete them.\n{}",
        run.render(30)
    );
    assert_eq!(run.recorded.len(), cases.len());

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(&dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (case, outcome) in cases.iter().zip(&result.outcomes) {
            assert_eq!(case.id, outcome.id);
            let ids: Vec<Option<&str>> = case.calls.iter().map(|c| c.id()).collect();
            let body = snapshot::render_body(&ids, outcome.results.as_deref().unwrap());
            let name = snapshot::file_name(&case.id);
            let name = name.strip_suffix(".snap").unwrap();
            insta::assert_snapshot!(name, body);
        }
    });
}

/// A broken harness's wording differs from the reference's exactly where its fault shows.
#[test]
fn a_variant_shows_up_as_changed_snapshots_with_its_diff() {
    let suite = loader::load_embedded().expect("the suite loads");
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| c.id.starts_with("teaching/reports-"))
        .collect();
    assert!(cases.len() >= 3);
    let dir = scratch("variant");
    let reference = run_suite(&cases, None);
    store::record(&dir, &cases, &reference.outcomes, &meta, None).unwrap();
    for p in store::pending(&dir).unwrap() {
        p.accept().unwrap();
    }
    let broken = run_suite(&cases, Some(Fault::FirstViolationOnly));
    let run = store::record(&dir, &cases, &broken.outcomes, &meta, None).unwrap();
    assert!(!run.ok());
    assert_eq!(run.count(store::Status::Changed), cases.len());
    let two = run
        .recorded
        .iter()
        .find(|r| r.case_id == "teaching/reports-two-violations-at-once")
        .unwrap();
    let diff = two.diff.as_deref().unwrap();
    // The stored line names both fields; the new one only the first.
    assert!(
        diff.lines().any(|l| l.starts_with("-│")
            && l.contains("/unit_price")
            && l.contains("/widget_count")),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with("+│") && !l.contains("/widget_count")),
        "{diff}"
    );
    assert_eq!(files(&dir, ".snap.new").len(), cases.len());
}

fn bin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness-conformance"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// record → accept → pass → (wording changes) → fail with a `.snap.new` and a diff → reject
/// keeps the stored file → review accepts → pass.
#[test]
fn record_change_fail_review_accept_pass_round_trip() {
    let dir = scratch("round-trip");
    let d = dir.to_str().unwrap();
    let cases = "teaching/reports-two-violations-at-once,calls/unknown-tool-message-lists-the-available-tools";
    let run = |stdin: &str| bin(&["run", "-q", "--run", cases, "--snapshots", d], stdin);
    let two = dir.join("conformance__teaching__reports-two-violations-at-once.snap");
    let two_new = dir.join("conformance__teaching__reports-two-violations-at-once.snap.new");

    // First run: nothing stored, so both are new, the run fails, and nothing is accepted yet.
    let first = run("");
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    assert!(text(&first.stderr).contains("0 matched, 0 changed, 2 new"));
    assert_eq!(files(&dir, ".snap").len(), 0);
    assert_eq!(files(&dir, ".snap.new").len(), 2);
    let proposed = std::fs::read_to_string(&two_new).unwrap();
    assert!(proposed.starts_with(
        "---\nsource: conformance/cases/teaching/reports-two-violations-at-once.json\n"
    ));

    // accept: the .snap.new files become the stored snapshots, byte for byte.
    let accept = bin(&["accept", d], "");
    assert_eq!(accept.status.code(), Some(0), "{}", text(&accept.stdout));
    assert_eq!(files(&dir, ".snap.new").len(), 0);
    assert_eq!(std::fs::read_to_string(&two).unwrap(), proposed);

    // Same harness, same wording: passes and writes nothing.
    let second = run("");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert!(text(&second.stderr).contains("2 matched, 0 changed, 0 new"));
    assert_eq!(files(&dir, ".snap.new").len(), 0);

    // The stored wording differs from what the harness says now (as after a wording change).
    let stored = proposed.replace("got string \"cheap\"", "received \"cheap\"");
    assert_ne!(stored, proposed);
    std::fs::write(&two, &stored).unwrap();
    let third = run("");
    assert_eq!(third.status.code(), Some(1));
    let err = text(&third.stderr);
    assert!(err.contains("1 matched, 1 changed, 0 new"), "{err}");
    assert!(
        err.contains("-│ ") && err.contains("received \"cheap\""),
        "{err}"
    );
    assert!(
        err.contains("+│ ") && err.contains("got string \"cheap\""),
        "{err}"
    );
    assert!(err.contains("harness-conformance review"), "{err}");
    assert_eq!(std::fs::read_to_string(&two).unwrap(), stored);
    assert_eq!(std::fs::read_to_string(&two_new).unwrap(), proposed);

    // review, answering r: the proposal is deleted and the stored file kept; the run still fails.
    let reject = bin(&["review", d], "r\n");
    assert_eq!(reject.status.code(), Some(0), "{}", text(&reject.stdout));
    let shown = text(&reject.stdout);
    assert!(shown.contains("-│ ") && shown.contains("+│ "), "{shown}");
    assert!(shown.contains("1 rejected"), "{shown}");
    assert!(!two_new.exists());
    assert_eq!(std::fs::read_to_string(&two).unwrap(), stored);
    assert_eq!(run("").status.code(), Some(1));

    // review, answering s: nothing changes and the exit says something is still pending.
    let skip = bin(&["review", d], "s\n");
    assert_eq!(skip.status.code(), Some(1));
    assert!(two_new.exists());

    // review, answering a: accepted; the run passes again.
    let accept = bin(&["review", d], "a\n");
    assert_eq!(accept.status.code(), Some(0), "{}", text(&accept.stdout));
    assert!(!two_new.exists());
    assert_eq!(std::fs::read_to_string(&two).unwrap(), proposed);
    let last = run("");
    assert_eq!(last.status.code(), Some(0), "{}", text(&last.stderr));

    // Nothing pending: review and reject have nothing to do and succeed.
    assert_eq!(bin(&["review", d], "").status.code(), Some(0));
    assert_eq!(bin(&["reject", d], "").status.code(), Some(0));
}

/// `reject` and `review --accept-all` act on every pending snapshot without asking.
#[test]
fn reject_and_accept_all_need_no_answers() {
    let dir = scratch("all");
    let d = dir.to_str().unwrap();
    let cases = "teaching/names-the-missing-property,teaching/names-the-unknown-property";
    let out = bin(&["run", "-q", "--run", cases, "--snapshots", d], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(files(&dir, ".snap.new").len(), 2);
    assert_eq!(bin(&["reject", d], "").status.code(), Some(0));
    assert_eq!(files(&dir, ".snap.new").len(), 0);
    assert_eq!(files(&dir, ".snap").len(), 0);
    bin(&["run", "-q", "--run", cases, "--snapshots", d], "");
    let all = bin(&["review", "--accept-all", d], "");
    assert_eq!(all.status.code(), Some(0));
    assert_eq!(files(&dir, ".snap").len(), 2);
    assert_eq!(files(&dir, ".snap.new").len(), 0);
}

/// insta reads a file with awkward content and header exactly as we meant it: quoted YAML
/// (leading `-`, `: `, quotes, control characters), escaped `\r`, trailing spaces, blank lines,
/// a trailing newline and an empty result.
#[test]
fn insta_reads_awkward_files_as_written() {
    use harness_conformance_protocol::ObservedResult;
    let dir = scratch("awkward");
    let results = [
        ObservedResult {
            tool_use_id: serde_json::json!("toolu_01"),
            is_error: true,
            content: "line one  \r\n\n\t- indented: \"quoted\" \u{feff}\nlast\n".to_owned(),
            code: Some("invalid_arguments".to_owned()),
            retryable: Some(false),
            ..ObservedResult::default()
        },
        ObservedResult {
            tool_use_id: serde_json::Value::Null,
            is_error: false,
            content: String::new(),
            ..ObservedResult::default()
        },
    ];
    let body = snapshot::render_body(&[Some("toolu_01"), None], &results);
    let meta = Meta {
        source: "conformance/cases/a/b.json".to_owned(),
        description: "- starts with a dash: has \"quotes\", a tab\tand a # sign".to_owned(),
        expression: "results of a/b".to_owned(),
    };
    let file = snapshot::render_file(&meta, &body);
    std::fs::write(dir.join("conformance__a__b.snap"), &file).unwrap();
    assert!(file.contains(
        "description: \"- starts with a dash: has \\\"quotes\\\", a tab\\tand a # sign\"\n"
    ));
    assert!(body
        .contains("│ line one  \\u{d}\n│\n│ \t- indented: \"quoted\" \\u{feff}\n│ last\n│\n└─\n"));
    let parsed = snapshot::parse(&file).unwrap();
    assert_eq!(parsed.body, body);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(&dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("conformance__a__b", body));
}
