//! Run once, render many, and findings that gate, end to end through the binary:
//! - `report` prints what `run` printed for the same run, and `matrix --from` combines saved
//!   reports (refusing mixed suite versions unless told);
//! - fuzz findings kept as a folder run with `run --cases`, and `fuzz --baseline` reports only
//!   what the baseline does not already list.

use std::path::Path;

mod common;
use common::{run, run_toy, text, tmp, toy};

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn report_prints_what_the_run_printed_and_matrix_combines_saved_reports() {
    let dir = tmp("report");
    let reports = dir.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    let toy_json = reports.join("toy.json");
    let o = run_toy("calls", &["--format", "json", "-o", p(&toy_json)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    // With -o, the run prints its terminal report to stderr: `report` prints the same.
    let rendered = run(&["report", p(&toy_json)]);
    assert!(rendered.status.success(), "{}", text(&rendered.stderr));
    assert_eq!(text(&rendered.stdout), text(&o.stderr));
    assert!(text(&rendered.stdout).contains("result: FAILED"));
    let json = run(&["report", p(&toy_json), "--format", "json"]);
    assert_eq!(json.stdout, std::fs::read(&toy_json).unwrap());
    for format in ["junit", "markdown", "html"] {
        let r = run(&["report", p(&toy_json), "--format", format]);
        assert!(r.status.success() && !r.stdout.is_empty(), "{format}");
    }
    let gate = run(&[
        "report",
        p(&toy_json),
        "--gate",
        "-o",
        p(&dir.join("t.txt")),
    ]);
    assert_eq!(
        gate.status.code(),
        Some(1),
        "--gate exits 1 for a failed run"
    );

    let reference_json = reports.join("reference.json");
    let o = run(&[
        "run",
        "--run",
        "calls",
        "-q",
        "--format",
        "json",
        "-o",
        p(&reference_json),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let site = dir.join("site");
    let md = dir.join("m.md");
    let matrix = |extra: &[&str]| {
        let mut args = vec!["matrix", "--from", p(&reports), "--site", p(&site)];
        args.extend(["--markdown", p(&md)]);
        args.extend(extra);
        run(&args)
    };
    let m = matrix(&[]);
    assert_eq!(m.status.code(), Some(1), "toy fails: {}", text(&m.stderr));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("harness/reference.html") && index.contains("harness/toy.html"));
    assert!(
        index.contains("misbehaving-ok"),
        "the implementation's name is shown"
    );
    let badge = std::fs::read_to_string(site.join("badges/reference.json")).unwrap();
    assert!(badge.contains("\"message\":\"100%\""), "{badge}");

    // A report of another suite version is not mixed in unless asked for.
    let other = reports.join("other.json");
    let saved = std::fs::read_to_string(&reference_json).unwrap();
    let version = format!("\"suite\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(saved.contains(&version));
    std::fs::write(&other, saved.replace(&version, "\"suite\":\"1.99.0\"")).unwrap();
    let mixed = matrix(&[]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(
        text(&mixed.stderr).contains("different suite versions"),
        "{}",
        text(&mixed.stderr)
    );
    assert!(
        text(&mixed.stderr).contains("other (1.99.0)"),
        "{}",
        text(&mixed.stderr)
    );
    let allowed = matrix(&["--allow-mixed-versions"]);
    assert_eq!(allowed.status.code(), Some(1), "{}", text(&allowed.stderr));
    assert!(std::fs::read_to_string(&md).unwrap().contains("1.99.0"));
    // `report` renders only its own version's reports.
    let refused = run(&["report", p(&other)]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("made by suite 1.99.0, this is"),
        "{}",
        text(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_findings_become_a_regression_folder_and_a_baseline_silences_known_ones() {
    let dir = tmp("fuzz");
    let findings = dir.join("findings");
    let baseline = dir.join("baseline.json");
    let toy = toy();
    let fuzz = |with_baseline: bool| {
        let mut args = vec!["fuzz", "--harness", &toy, "--seed", "3", "--cases", "25"];
        args.extend(["--max-findings", "50", "-q", "--out", p(&findings)]);
        if with_baseline {
            args.extend(["--baseline", p(&baseline)]);
        }
        run(&args)
    };
    let first = fuzz(false);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let out = text(&first.stdout);
    assert!(
        out.contains("findings ("),
        "the summary lists the findings: {out}"
    );
    assert!(out.contains(&format!("--cases {}", p(&findings))), "{out}");

    // The folder runs as it is: the toy fails it, each failure reproducible on its own …
    let failing = run(&["run", "--harness", &toy, "--cases", p(&findings)]);
    assert_eq!(failing.status.code(), Some(1));
    assert!(
        text(&failing.stdout)
            .contains(&format!("--cases {} --run fuzz/seed-3-case-", p(&findings))),
        "{}",
        text(&failing.stdout)
    );
    // … and the reference passes it.
    let fixed = run(&["run", "--cases", p(&findings), "-q"]);
    assert!(fixed.status.success(), "{}", text(&fixed.stdout));

    // The harness's baseline lists what the folder fails; fuzzing again with it reports only
    // what is new. Each round's findings join the folder, until nothing is new.
    let mut rounds = 0;
    loop {
        let args = ["run", "--harness", &toy, "--cases", p(&findings), "-q"];
        let b = run(&[&args[..], &["--write-baseline", p(&baseline)]].concat());
        assert_eq!(b.status.code(), Some(0), "{}", text(&b.stderr));
        let again = fuzz(true);
        let out = text(&again.stdout);
        if again.status.success() {
            assert!(
                out.contains("result: nothing new found in 25 case(s)"),
                "{out}"
            );
            assert!(
                text(&again.stderr).contains("the baseline already lists"),
                "{}",
                text(&again.stderr)
            );
            break;
        }
        assert!(out.contains("the baseline lists none of them"), "{out}");
        rounds += 1;
        assert!(
            rounds < 5,
            "fuzz --baseline keeps finding new requirements: {out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
