//! `harness-conformance fuzz`: determinism, keyword scoping, the reference finding nothing,
//! broken variants found, and the shrinking guarantee (a shrunk case never calls valid input
//! invalid, and its case file replays the failure through `run --case-file`).

use std::collections::BTreeSet;
use std::time::Duration;

use harness_conformance_driver::client::InProcess;
use harness_conformance_driver::runner::RunConfig;
use harness_conformance_generate::oracle::{self, Fate};
use harness_conformance_generate::{self as generate, FuzzConfig, Outcome};
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::run::run_case;
use harness_conformance_suite::verdict::Verdict;
use harness_conformance_suite::{loader, needs};
use harness_ref_adapter::Fault;

fn config(seed: u64, cases: u64) -> FuzzConfig {
    FuzzConfig {
        seed,
        cases: Some(cases),
        time: None,
        timeout: Duration::from_secs(20),
        shrink_runs: 300,
        shrink_time: Duration::from_secs(120),
        max_findings: 1,
        known: Default::default(),
    }
}

fn hello() -> harness_conformance_protocol::Hello {
    (*InProcess::new(None).hello().unwrap()).clone()
}

#[test]
fn a_seed_generates_the_same_cases() {
    let h = hello();
    for index in 0..30 {
        assert_eq!(
            generate::generate_case(5, index, &h),
            generate::generate_case(5, index, &h)
        );
    }
    let differ = (0..30)
        .filter(|i| generate::generate_case(5, *i, &h) != generate::generate_case(6, *i, &h))
        .count();
    assert!(
        differ > 25,
        "seeds 5 and 6 agree on {} of 30 cases",
        30 - differ
    );
}

#[test]
fn schemas_use_only_the_declared_keywords() {
    let mut h = hello();
    h.capabilities.keywords = ["type", "properties", "required"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let declared: BTreeSet<String> = h
        .capabilities
        .keywords
        .iter()
        .map(|k| format!("keyword.{k}"))
        .collect();
    for index in 0..200 {
        let model = generate::generate_case(11, index, &h);
        let case = oracle::bare_case(&model, "fuzz/x");
        for need in needs::case_needs(&case)
            .into_iter()
            .filter(|n| n.starts_with("keyword."))
        {
            assert!(
                declared.contains(&need),
                "case {index} uses {need}: {:?}",
                case.tools
            );
        }
    }
}

#[test]
fn the_reference_breaks_no_requirement() {
    let mut harness = InProcess::new(None);
    let report = generate::fuzz(&mut harness, &config(3, 150), &mut |_| {}).unwrap();
    assert!(
        report.findings.is_empty(),
        "{:#?}",
        report.findings.first().map(|f| (&f.messages, &f.case))
    );
    assert_eq!(report.stats.cases, 150);
    // Everything the issue asks for was generated.
    let s = &report.stats;
    assert!(
        s.fates.get("valid").copied().unwrap_or(0) > 20
            && s.fates.get("invalid").copied().unwrap_or(0) > 20
    );
    assert!(s.batches > 20 && s.duplicate_ids > 0);
    for shape in [
        "empty",
        "at-cap",
        "multibyte-boundary",
        "long-last-line",
        "internal-error",
        "transport-error",
        "domain-error",
        "timeout",
    ] {
        assert!(
            s.shapes.get(shape).copied().unwrap_or(0) > 0,
            "no {shape} in {s:?}"
        );
    }
}

/// Finds `fault`, and checks what a finding promises.
fn find(fault: Fault, seed: u64, cases: u64) -> generate::Finding {
    find_all(fault, seed, cases, 1).remove(0)
}

/// Up to `max` findings (of different requirements) on `fault`, each checked.
fn find_all(fault: Fault, seed: u64, cases: u64, max: usize) -> Vec<generate::Finding> {
    let mut harness = InProcess::new(Some(fault));
    let mut cfg = config(seed, cases);
    cfg.max_findings = max;
    let report = generate::fuzz(&mut harness, &cfg, &mut |_| {}).unwrap();
    assert!(
        !report.findings.is_empty(),
        "{fault} not found in {cases} cases"
    );
    for finding in &report.findings {
        check_finding(fault, seed, finding);
    }
    report.findings
}

fn check_finding(fault: Fault, seed: u64, finding: &generate::Finding) {
    // The shrunk case re-judged from scratch still shows the target, and every call it calls
    // invalid is invalid to the reference validator under both unknown-field policies.
    let h = hello();
    let mut again = InProcess::new(Some(fault));
    let judged = generate::judge(&mut again, &h, &finding.model, Duration::from_secs(20));
    assert!(
        judged.shows(&finding.target),
        "{fault}: the shrunk case no longer fails: {:?}",
        judged.outcome
    );
    for (call, fate) in finding.model.calls.iter().zip(&judged.fates) {
        if let Fate::Invalid { tool, .. } = fate {
            let schema = finding.model.tool(tool).unwrap().schema_json();
            let harness_conformance_generate::model::CallModel::Block { input, .. } = call else {
                panic!()
            };
            let args = match input {
                harness_conformance_generate::model::Input::Value(v) => v.clone(),
                harness_conformance_generate::model::Input::Text(t) => {
                    serde_json::from_str(t).unwrap()
                }
            };
            assert_eq!(
                oracle::reference_valid(&schema, &args),
                Some(false),
                "{fault}: {args} called invalid"
            );
        }
    }

    // The case file is an ordinary case: schema-valid, strict-decodable, consistent, and the
    // runner fails it on the variant and passes it on the reference.
    let text = serde_json::to_string_pretty(&finding.case).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../schema/case.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let instance: serde_json::Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{fault}: the case file breaks case.schema.json: {errors:?}\n{text}"
    );
    let case = loader::decode_case(&text).unwrap();
    let suite = loader::load_embedded().unwrap();
    let known = suite.requirements.iter().map(|r| r.id.as_str()).collect();
    assert!(
        loader::consistency(&case, &known).is_empty(),
        "{:?}",
        loader::consistency(&case, &known)
    );
    assert!(case.description.contains(&format!("--seed {seed}")));
    assert!(case.requirements.contains(&finding.target) || finding.target == "ERROR");
    let cfg = RunConfig::default();
    let (broken, _) = run_case(&mut InProcess::new(Some(fault)), &case, cfg.timeout);
    assert_eq!(
        broken.verdict,
        Verdict::Fail,
        "{fault}: replay did not fail: {:?}\n{text}",
        broken.messages
    );
    let (reference, _) = run_case(&mut InProcess::new(None), &case, cfg.timeout);
    assert_eq!(
        reference.verdict,
        Verdict::Pass,
        "{fault}: the reference fails its finding: {:?}\n{text}",
        reference.messages
    );
}

#[test]
fn coercion_is_found_and_shrunk_to_one_call() {
    let found = find_all(Fault::CoercesTypes, 1, 400, 4);
    let ran = found
        .iter()
        .find(|f| f.requirements.iter().any(|r| r == "VAL-1"))
        .unwrap_or_else(|| {
            let reqs: Vec<_> = found.iter().map(|f| &f.requirements).collect();
            panic!("no VAL-1 finding: {reqs:?}")
        });
    assert_eq!(ran.size_after.0, 1, "{:?}", ran.case);
}

#[test]
fn cap_faults_are_found() {
    for fault in [
        Fault::CapsHeadOnly,
        Fault::CountsCharsForBytes,
        Fault::SplitsCodePoint,
        Fault::OmitsNote,
    ] {
        find(fault, 2, 600);
    }
}

#[test]
fn correlation_and_redaction_faults_are_found() {
    for fault in [
        Fault::SwapsIds,
        Fault::LeaksInternalError,
        Fault::AcceptsDuplicateIds,
        Fault::RetriesAnyFailure,
    ] {
        find(fault, 4, 600);
    }
}

#[test]
fn an_unbuildable_or_skipped_case_is_not_a_finding() {
    let h = hello();
    let mut harness = InProcess::new(None);
    for index in 0..40 {
        let model = generate::generate_case(9, index, &h);
        let j = generate::judge(&mut harness, &h, &model, Duration::from_secs(20));
        assert!(
            matches!(
                j.outcome,
                Outcome::Pass | Outcome::Unbuildable(_) | Outcome::Skip(_)
            ),
            "case {index}: {:?}",
            j.outcome
        );
        assert!(j.target().is_none());
    }
}

#[test]
fn the_reference_and_the_independent_checker_agree() {
    let h = hello();
    let mut found = Vec::new();
    for index in 0..400 {
        let model = generate::generate_case(1, index, &h);
        found.extend(oracle::disagreements(&model));
    }
    for d in &found {
        eprintln!(
            "DISAGREE reference={:?} independent={} schema={} args={}",
            d.reference, d.independent, d.schema, d.args
        );
    }
}
