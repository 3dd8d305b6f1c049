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
    ("html", |r| site::standalone(r, r.target, "test", None)),
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
        reproduce: "harness-conformance run --run",
    };
    let text = json::render(&r);
    let first_line_end = text.find('\n').unwrap();
    let code = |t: &str| saved::parse(t).unwrap_err().kind.code();

    let current = format!("\"report_format\":\"{}\"", saved::REPORT_FORMAT);
    let v2 = text.replacen(&current, "\"report_format\":\"99.0\"", 1);
    assert_ne!(v2, text);
    let e = saved::parse(&v2).unwrap_err();
    assert!(matches!(e.kind, SavedErrorKind::Format { .. }));
    assert!(
        e.to_string().contains("99.0") && e.to_string().contains(saved::REPORT_FORMAT),
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

/// Issue 28, N7, N10 and the bounds: a saved report is hostile input. A forged reproducer (a
/// newline, a second command, another program), a `suite` that is not a version, a case id
/// outside the suite's grammar, an oversized target and more cases than any run writes are each
/// refused with a code; a reproducer a run wrote is rebuilt word for word.
#[test]
fn hostile_saved_reports_are_refused_with_a_code() {
    let suite = loader::load_embedded().unwrap();
    let result = run(None, &["outcomes/"]);
    let prefix = "harness-conformance run --harness 'python3 a.py' --baseline b.json --run";
    let r = Report {
        run: &result,
        requirements: &suite.requirements,
        target: "t",
        reproduce: prefix,
    };
    let text = json::render(&r);
    assert_eq!(saved::parse(&text).unwrap().reproduce, prefix);
    let code = |t: &str| saved::parse(t).unwrap_err().kind.code();
    let with_reproduce = |forged: &str| {
        let field = serde_json::to_string(forged).unwrap();
        text.replacen(&serde_json::to_string(prefix).unwrap(), &field, 1)
    };
    for forged in [
        "harness-conformance run --run X\nresult: ok\ntouch pwned #",
        "harness-conformance run --run; touch pwned",
        "harness-conformance run --harness $(touch pwned) --run",
        "touch pwned --run",
        "harness-conformance run --output /etc/passwd --run",
        "harness-conformance run --harness a --harness b --run",
        "harness-conformance run",
        "npm exec harness-conformance run --run",
        "npx --yes evil-package run --run",
        "python -m evil run --run",
        &format!(
            "harness-conformance run --harness {} --run",
            "x".repeat(300 * 1024)
        ),
    ] {
        assert_eq!(
            code(&with_reproduce(forged)),
            "report.bad-reproducer",
            "{forged:?}"
        );
    }
    // Issue 29: a run started through npx or `python -m` writes its reproducers that way, and
    // the report reads them back as written (the launchers are a closed list).
    for launcher in saved::LAUNCHERS {
        let said = format!("{} run --baseline b.json --run", launcher.join(" "));
        assert_eq!(
            saved::parse(&with_reproduce(&said)).unwrap().reproduce,
            said
        );
        assert_eq!(
            saved::launcher_prefix(&launcher.join(" ")),
            Some(launcher.join(" "))
        );
    }
    assert_eq!(saved::launcher_prefix("npx evil"), None);
    assert_eq!(
        saved::launcher_prefix("harness-conformance; touch pwned"),
        None
    );
    let version = text.replacen(
        &format!("\"suite\":\"{}\"", harness_conformance_suite::SUITE_VERSION),
        &format!("\"suite\":\"{}\"", "9".repeat(250 * 1024)),
        1,
    );
    assert_ne!(version, text);
    assert_eq!(code(&version), "report.bad-suite-version");
    let first_id = &result.outcomes[0].id;
    let id = text.replacen(
        &format!("\"id\":\"{first_id}\""),
        "\"id\":\"a/b\\n; touch pwned\"",
        1,
    );
    assert_ne!(id, text);
    assert_eq!(code(&id), "report.bad-case-id");
    let target = text.replacen(
        "\"target\":\"t\"",
        &format!("\"target\":\"{}\"", "t".repeat(5000)),
        1,
    );
    assert_eq!(code(&target), "report.field-too-long");
    // More case lines than any run writes: the reader stops at the bound.
    let mut lines: Vec<&str> = text.lines().collect();
    let summary = lines.pop().unwrap();
    let case = lines[1];
    let mut many = lines[0].to_owned();
    for _ in 0..=saved::MAX_REPORT_CASES {
        many.push('\n');
        many.push_str(case);
    }
    many.push('\n');
    many.push_str(summary);
    assert_eq!(code(&many), "report.too-many-cases");
}

/// Issue 29: a run's date (report format 2.1) is written on the start line, validates against
/// the schema, and is read back; a report without one (format 2.0) is still read; a date that is
/// not UTC RFC 3339 to the second is refused with its code.
#[test]
fn a_runs_date_is_saved_read_back_and_checked() {
    let suite = loader::load_embedded().unwrap();
    let result = run(None, &["outcomes/"]);
    let r = Report {
        run: &result,
        requirements: &suite.requirements,
        target: "t",
        reproduce: "harness-conformance run --run",
    };
    assert_eq!(saved::format_date(0), "1970-01-01T00:00:00Z");
    assert_eq!(saved::format_date(1_748_779_200), "2025-06-01T12:00:00Z");
    assert_eq!(saved::format_date(u64::MAX), "9999-12-31T23:59:59Z");
    let date = saved::format_date(1_748_779_200);
    let text = json::render_dated(&r, Some(&date));
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let start: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(validator.is_valid(&start), "{start}");
    assert_eq!(
        saved::parse(&text).unwrap().date.as_deref(),
        Some("2025-06-01T12:00:00Z")
    );

    let undated = json::render(&r).replacen(
        &format!("\"report_format\":\"{}\"", saved::REPORT_FORMAT),
        "\"report_format\":\"2.0\"",
        1,
    );
    assert_eq!(saved::parse(&undated).unwrap().date, None);

    for bad in [
        "2025-06-01 12:00:00",
        "2025-06-01T12:00:00+02:00",
        "2025-06-01T12:00:00.5Z",
        "2025-13-01T12:00:00Z",
        "<script>",
    ] {
        let forged = text.replacen(&date, bad, 1);
        let e = saved::parse(&forged).unwrap_err();
        assert_eq!(e.kind.code(), "report.bad-date", "{bad}");
        // The schema's pattern checks the shape; the reader also checks it is a real date.
        if !bad.starts_with("2025-13") {
            let mut line = start.clone();
            line["date"] = bad.into();
            assert!(
                !validator.is_valid(&line),
                "the schema accepts the date {bad}"
            );
        }
    }
}

/// Every check kind a report can name is one the documented schema allows, in both places a
/// report names one (a check, and a check that was not run): a new kind added to the suite
/// without the schema would make the reports that use it invalid.
#[test]
fn the_schema_allows_every_check_kind() {
    use harness_conformance_suite::blame::CheckKind;
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
    for def in ["check", "not_run"] {
        let allowed = &schema["$defs"][def]["properties"]["kind"]["enum"];
        let allowed: Vec<&str> = allowed
            .as_array()
            .unwrap_or_else(|| panic!("$defs/{def}/properties/kind has an enum"))
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect();
        for kind in CheckKind::ALL {
            assert!(
                allowed.contains(&kind.as_str()),
                "report.schema.json's $defs/{def} does not allow the check kind {:?}",
                kind.as_str()
            );
        }
    }
}
