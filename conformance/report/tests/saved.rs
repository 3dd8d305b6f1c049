//! Run once, render many: every format rendered from a saved JSON report is byte-for-byte what
//! the run itself renders, and every saved report validates against the documented JSON Schema
//! (`conformance/schema/report.schema.json`).

use std::time::Duration;

use harness_conformance_driver::client::InProcess;
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_report::saved::{self, SavedErrorKind};
use harness_conformance_report::{json, junit, markdown, site, terminal, Report};
use harness_conformance_suite::baseline::Baseline;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader;
use harness_conformance_suite::run::RunResult;
use harness_ref_adapter::Fault;

/// Runs a selection on the reference, or on one of its broken variants.
fn run(fault: Option<Fault>, areas: &[&str]) -> RunResult {
    let suite = loader::load_embedded().unwrap();
    let cases: Vec<_> = suite
        .cases
        .iter()
        .filter(|c| areas.iter().any(|a| c.id.starts_with(a)))
        .collect();
    assert!(!cases.is_empty());
    let cfg = RunConfig {
        jobs: 2,
        timeout: Duration::from_secs(20),
        baseline: Baseline::new(),
        requirements: suite.requirements.clone(),
        ..RunConfig::default()
    };
    let factory = move || -> Box<dyn Harness + Send> { Box::new(InProcess::new(fault)) };
    runner::run(&cases, &factory, &cfg, &|_, _, _| {})
}

type Render = fn(&Report) -> String;

const FORMATS: [(&str, Render); 5] = [
    ("terminal", terminal::render),
    ("json", json::render),
    ("junit", junit::render),
    ("markdown", markdown::render),
    ("html", |r| site::standalone(r, r.target, "test")),
];

fn runs() -> Vec<(&'static str, RunResult)> {
    vec![
        ("reference", run(None, &["outcomes/", "teaching/"])),
        (
            "error-as-success",
            run(
                Some("error-as-success".parse().unwrap()),
                &["outcomes/", "teaching/", "cap/"],
            ),
        ),
    ]
}

#[test]
fn every_format_renders_from_the_saved_report_as_the_run_did() {
    let suite = loader::load_embedded().unwrap();
    for (name, result) in runs() {
        let direct = Report {
            run: &result,
            requirements: &suite.requirements,
            target: "the target `with` <markup> & 'quotes'",
            reproduce: "harness-conformance run --harness 'x y' --run",
        };
        let text = json::render(&direct);
        let saved = saved::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(saved.report_format, saved::REPORT_FORMAT);
        assert_eq!(saved.suite, harness_conformance_suite::SUITE_VERSION);
        let again = saved.report(&suite.requirements);
        for (format, render) in FORMATS {
            let (a, b) = (render(&direct), render(&again));
            assert!(
                a == b,
                "{name}, {format}: the saved report renders differently; first difference near byte {}",
                a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
            );
        }
        if name != "reference" {
            assert!(
                saved.run.failed(),
                "{name} fails, and the saved report says so"
            );
        }
    }
}

#[test]
fn saved_reports_validate_against_the_documented_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let suite = loader::load_embedded().unwrap();
    for (name, result) in runs() {
        let r = Report {
            run: &result,
            requirements: &suite.requirements,
            target: "t",
            reproduce: "harness-conformance run --run",
        };
        for (n, line) in json::render(&r).lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&v)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .take(5)
                .collect();
            assert!(errors.is_empty(), "{name}, line {}: {errors:#?}", n + 1);
        }
    }
    // And the schema is not vacuous: a line with a wrong field fails it.
    for bad in [
        r#"{"type":"start","suite":"1.0.0","protocol":1,"report_format":"1.0","target":"t","reproduce":"r","implementation":null,"capabilities":null,"extra":1}"#,
        r#"{"type":"case","id":"a/b","requirements":[],"verdict":"MAYBE","messages":[],"duration_ms":1,"level":null}"#,
        r#"{"type":"banner"}"#,
    ] {
        let v: serde_json::Value = serde_json::from_str(bad).unwrap();
        assert!(!validator.is_valid(&v), "the schema accepts {bad}");
    }
}

#[test]
fn reports_of_another_format_or_cut_short_are_refused_with_a_code() {
    let suite = loader::load_embedded().unwrap();
    let result = run(None, &["outcomes/"]);
    let r = Report {
        run: &result,
        requirements: &suite.requirements,
        target: "t",
        reproduce: "r",
    };
    let text = json::render(&r);
    let first_line_end = text.find('\n').unwrap();
    let code = |t: &str| saved::parse(t).unwrap_err().kind.code();

    let current = format!("\"report_format\":\"{}\"", saved::REPORT_FORMAT);
    let v2 = text.replacen(&current, "\"report_format\":\"2.0\"", 1);
    assert_ne!(v2, text);
    let e = saved::parse(&v2).unwrap_err();
    assert!(matches!(e.kind, SavedErrorKind::Format { .. }));
    assert!(
        e.to_string().contains("2.0") && e.to_string().contains(saved::REPORT_FORMAT),
        "{e}"
    );

    let unversioned = text.replacen(&format!("{current},"), "", 1);
    assert_eq!(code(&unversioned), "report.unversioned");

    let cut = &text[..text.trim_end().rfind('\n').unwrap()];
    assert_eq!(code(cut), "report.no-summary");

    assert_eq!(code(&text[first_line_end + 1..]), "report.no-start");
    assert_eq!(code(""), "report.empty");
    assert_eq!(code("not json\n"), "report.not-json");

    let unknown = text.replacen("\"type\":\"case\"", "\"type\":\"case\",\"surprise\":1", 1);
    assert_eq!(code(&unknown), "report.bad-line");

    let lie = text.replacen("\"ok\":true", "\"ok\":false", 1);
    assert_ne!(lie, text);
    assert_eq!(code(&lie), "report.inconsistent");
}
