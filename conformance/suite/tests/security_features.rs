//! The security features (issue 8) end to end: cases imply their feature needs, a harness that
//! does not declare a feature is SKIPPED with the reason, the reference passes every security
//! case, and the `same_as` expectation tells a replay from a re-run.

use harness_conformance_protocol::{resolve_case, Invocation, ObservedResult};
use harness_conformance_suite::checks::{self, Observed};
use harness_conformance_suite::loader::load_embedded;
use harness_conformance_suite::needs;
use harness_ref_adapter::ReferenceAdapter;
use serde_json::json;

const AREAS: [&str; 6] = [
    "authorization",
    "budget",
    "bounds",
    "idempotency",
    "path-confinement",
    "prepare-commit",
];

#[test]
fn every_security_case_needs_a_feature_and_is_skipped_without_it() {
    let suite = load_embedded().unwrap();
    let mut caps = ReferenceAdapter::new(None).hello().capabilities;
    caps.features.clear();
    let mut n = 0;
    for case in suite.cases.iter().filter(|c| AREAS.contains(&c.area())) {
        n += 1;
        let features: Vec<String> = needs::case_needs(case)
            .into_iter()
            .filter(|n| n.starts_with("feature."))
            .collect();
        assert!(!features.is_empty(), "{} implies no feature", case.id);
        let reason = needs::skip_reason(case, &caps)
            .unwrap_or_else(|| panic!("{} would run on a harness without features", case.id));
        assert!(
            reason.contains("feature."),
            "{}: skip reason does not name the feature: {reason}",
            case.id
        );
    }
    assert!(n >= 60, "only {n} security cases");
    // The area names its feature (bounds and budget cases may imply more, never less).
    for case in suite.cases.iter().filter(|c| AREAS.contains(&c.area())) {
        let need = format!("feature.{}", case.area());
        assert!(
            needs::case_needs(case).contains(&need),
            "{} does not need {need}",
            case.id
        );
    }
}

#[test]
fn plain_cases_imply_no_feature() {
    let suite = load_embedded().unwrap();
    // `offered-tools`, `stop-reason`, `repair`, `cancel`, `serial-calls`, `mcp-client`,
    // `resume`, `image-limits`, `spill-lifecycle`, `pause` and `context-cap` are features but
    // not security gates: they come from `offered`, `stop_reason`, the repair cases' `needs`,
    // `cancel_after_ms`, `parallel_calls`, a tool's `mcp_result`, `resume`,
    // `config.image_limit`, `spill_lifecycle`, `pause` and `config.cap.remaining` alone.
    for case in suite.cases.iter().filter(|c| !AREAS.contains(&c.area())) {
        assert!(
            !needs::case_needs(case)
                .iter()
                .any(|n| n.starts_with("feature.")
                    && n != "feature.offered-tools"
                    && n != "feature.stop-reason"
                    && n != "feature.repair"
                    && n != "feature.cancel"
                    && n != "feature.serial-calls"
                    && n != "feature.mcp-client"
                    && n != "feature.resume"
                    && n != "feature.image-limits"
                    && n != "feature.spill-lifecycle"
                    && n != "feature.pause"
                    && n != "feature.context-cap"),
            "{} needs a security feature",
            case.id
        );
        // Each of them is needed exactly when the case has what it comes from.
        let needs = needs::case_needs(case);
        for (feature, has, from) in [
            ("repair", case.area() == "repair", "is a repair case"),
            ("offered-tools", case.offered.is_some(), "has `offered`"),
            ("pause", case.pause.is_some(), "has `pause`"),
            (
                "stop-reason",
                case.stop_reason.is_some(),
                "has `stop_reason`",
            ),
            (
                "cancel",
                case.cancel_after_ms.is_some(),
                "has `cancel_after_ms`",
            ),
            (
                "serial-calls",
                case.parallel_calls == Some(false),
                "has `parallel_calls: false`",
            ),
            (
                "image-limits",
                case.config.image_limit.is_some(),
                "has `config.image_limit`",
            ),
            (
                "spill-lifecycle",
                case.spill_lifecycle.is_some(),
                "has `spill_lifecycle`",
            ),
            (
                "context-cap",
                case.config
                    .cap
                    .as_ref()
                    .is_some_and(|c| c.remaining.is_some()),
                "has `config.cap.remaining`",
            ),
        ] {
            assert_eq!(
                needs.contains(&format!("feature.{feature}")),
                has,
                "{}: feature.{feature} is needed exactly when the case {from}",
                case.id
            );
        }
    }
}

#[test]
fn the_reference_passes_every_security_case() {
    let suite = load_embedded().unwrap();
    let mut adapter = ReferenceAdapter::new(None);
    let caps = adapter.hello().capabilities;
    for feature in AREAS {
        assert!(caps.features.iter().any(|f| f == feature), "{feature}");
    }
    for case in suite.cases.iter().filter(|c| AREAS.contains(&c.area())) {
        assert_eq!(needs::skip_reason(case, &caps), None, "{}", case.id);
        let mut wire = case.wire();
        resolve_case(&mut wire, checks::effective_cap(case, &caps).limit).unwrap();
        let reply = adapter.run(&wire);
        let results = reply.results.expect("results");
        let invocations = reply.invocations.unwrap_or_default();
        let obs = Observed {
            results: &results,
            invocations: &invocations,
            history: None,
            lone_surrogates: 0,
            spill_artifacts: None,
        };
        let f = checks::check(case, &wire, &caps, &obs);
        assert!(f.bugs.is_empty(), "{}: {:?}", case.id, f.bugs);
        assert!(f.failures().is_empty(), "{}: {:?}", case.id, f.failures());
    }
}

#[test]
fn same_as_tells_a_replay_from_a_rerun() {
    let suite = load_embedded().unwrap();
    let case = suite
        .case("idempotency/replayed-refusal-stays-a-refusal")
        .unwrap();
    let caps = ReferenceAdapter::new(None).hello().capabilities;
    let wire = case.wire();
    let r = |id: &str, content: &str, code: &str| ObservedResult {
        tool_use_id: json!(id),
        is_error: true,
        content: content.to_owned(),
        code: Some(code.to_owned()),
        retryable: Some(false),
        ..ObservedResult::default()
    };
    let inv = Invocation {
        tool: "charge_card".into(),
        tool_use_id: None,
        args: json!({"customer": "cus_9", "cents": 1200}),
        stopped: false,
    };
    // A harness that ran the handler again and worded the second refusal differently.
    let rerun = [
        r(
            "toolu_01",
            "card declined: insufficient funds",
            "tool_refused",
        ),
        r(
            "toolu_02",
            "card declined: insufficient funds (retry 2)",
            "tool_refused",
        ),
    ];
    let invs = [inv.clone(), inv.clone()];
    let obs = Observed {
        results: &rerun,
        invocations: &invs,
        history: None,
        lone_surrogates: 0,
        spill_artifacts: None,
    };
    let f = checks::check(case, &wire, &caps, &obs);
    assert!(
        f.failures()
            .iter()
            .any(|m| m.contains("replay of result 1")),
        "{:?}",
        f.failures()
    );
    assert!(
        f.failures()
            .iter()
            .any(|m| m.contains("run 1 time(s), it ran 2")),
        "{:?}",
        f.failures()
    );
    // A faithful replay passes.
    let replay = [
        r(
            "toolu_01",
            "card declined: insufficient funds",
            "tool_refused",
        ),
        r(
            "toolu_02",
            "card declined: insufficient funds",
            "tool_refused",
        ),
    ];
    let one = [inv];
    let obs = Observed {
        results: &replay,
        invocations: &one,
        history: None,
        lone_surrogates: 0,
        spill_artifacts: None,
    };
    let f = checks::check(case, &wire, &caps, &obs);
    assert!(f.failures().is_empty() && f.bugs.is_empty(), "{f:?}");
}
