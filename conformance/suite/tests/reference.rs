//! harness-ref's own conformance test: the whole suite in-process through the gate
//! (`harness_conformance_suite::gate`), with the reference adapter's library behind
//! [`InProcessHarness`]. The reference passes every case, so its baseline is empty; a broken
//! variant shows the baseline semantics (XFAIL for listed failures, STALE for listed passes).

use harness_conformance_protocol::{Hello, ReplyOutcome, WireCase};
use harness_conformance_suite::baseline::{self, Baseline, Entry};
use harness_conformance_suite::gate::{self, Gate, InProcessHarness};
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::Verdict;
use harness_conformance_suite::SUITE_VERSION;
use harness_ref_adapter::{Fault, ReferenceAdapter};

/// The reference adapter's library as an in-process harness: its reply, judged as a decoded
/// line would be.
struct Reference(ReferenceAdapter);

impl InProcessHarness for Reference {
    fn hello(&mut self) -> Hello {
        self.0.hello()
    }

    fn run(&mut self, case: &WireCase) -> ReplyOutcome {
        self.0
            .run(case)
            .outcome()
            .unwrap_or_else(|e| ReplyOutcome::Error(format!("the reference's reply is {e}")))
    }
}

#[test]
fn harness_ref_passes_every_case_of_the_suite() {
    let result = gate::run(
        &mut Reference(ReferenceAdapter::new(None)),
        &Gate::default(),
    );
    assert!(!result.failed(), "{}", result.summary());
    // Every case runs and passes but the repair profile's and the result wrapper's: the
    // reference does not repair, and wraps no result.
    let suite = harness_conformance_suite::loader::load_embedded().unwrap();
    for o in &result.outcomes {
        let expected = if o.id.starts_with("repair/") || needs_wrapper(&suite, &o.id) {
            Verdict::Skip
        } else {
            Verdict::Pass
        };
        assert_eq!(o.verdict, expected, "{}\n{}", o.id, result.summary());
    }
    assert!(result.outcomes.len() > 400, "the whole suite ran");
}

/// Whether the case forges a result wrapper's marker (it needs `wrapper`).
fn needs_wrapper(suite: &harness_conformance_suite::loader::Suite, id: &str) -> bool {
    suite.case(id).is_some_and(|c| {
        harness_conformance_suite::needs::case_needs(c)
            .iter()
            .any(|n| n == "wrapper")
    })
}

#[test]
fn harness_ref_wrapping_its_results_passes_every_case_but_the_repair_profiles() {
    let suite = harness_conformance_suite::loader::load_embedded().unwrap();
    for variant in [
        harness_ref_adapter::Variant::WrapsResults,
        harness_ref_adapter::Variant::WrapsResultsWithNonce,
    ] {
        let result = gate::run(
            &mut Reference(ReferenceAdapter::legitimate(variant)),
            &Gate::default(),
        );
        assert!(!result.failed(), "{}", result.summary());
        for o in &result.outcomes {
            let expected = if o.id.starts_with("repair/") {
                Verdict::Skip
            } else {
                Verdict::Pass
            };
            assert_eq!(o.verdict, expected, "{}\n{}", o.id, result.summary());
        }
        assert!(result.outcomes.iter().any(|o| needs_wrapper(&suite, &o.id)));
    }
}

#[test]
fn harness_ref_with_its_repair_mode_passes_every_case_but_those_repair_allows() {
    let result = gate::run(
        &mut Reference(ReferenceAdapter::legitimate(
            harness_ref_adapter::Variant::RepairsDoubleEncoded,
        )),
        &Gate::default(),
    );
    assert!(!result.failed(), "{}", result.summary());
    let suite = harness_conformance_suite::loader::load_embedded().unwrap();
    for o in &result.outcomes {
        let unless =
            suite.case(&o.id).is_some_and(|c| !c.unless.is_empty()) || needs_wrapper(&suite, &o.id);
        let expected = if unless { Verdict::Skip } else { Verdict::Pass };
        assert_eq!(o.verdict, expected, "{}\n{}", o.id, result.summary());
    }
    assert!(result.outcomes.iter().any(|o| o.id.starts_with("repair/")));
}

#[test]
fn a_broken_variant_fails_until_baselined_and_a_stale_entry_fails_again() {
    let only = |baseline: Baseline| Gate {
        baseline,
        run: vec!["correlation".to_owned()],
        skip: Vec::new(),
    };
    let mut broken = Reference(ReferenceAdapter::new(Some(Fault::LosesId)));
    let first = gate::run(&mut broken, &only(Baseline::new()));
    assert!(first.failed(), "loses-id is caught:\n{}", first.summary());
    assert!(first
        .outcomes
        .iter()
        .all(|o| o.id.starts_with("correlation/")));
    let summary = first.summary();
    assert!(summary.contains("FAIL correlation/"), "{summary}");
    assert!(summary.contains("[CORR-"), "{summary}");

    // Today's failures recorded: the same run is green, each failure now XFAIL.
    let untestable = first.coverage.not_testable(Level::Must);
    let known = baseline::from_run(
        &first.outcomes,
        &untestable,
        &Baseline::new(),
        SUITE_VERSION,
    );
    let second = gate::run(&mut broken, &only(known.clone()));
    assert!(!second.failed(), "{}", second.summary());
    assert_eq!(second.count(Verdict::Xfail), known.cases.len());

    // An entry for a case that passes is STALE and fails the run.
    let passing = second
        .outcomes
        .iter()
        .find(|o| o.verdict == Verdict::Pass)
        .expect("loses-id passes some correlation case");
    let mut stale = known;
    stale.cases.insert(
        passing.id.clone(),
        Entry {
            reason: "pretend".to_owned(),
            ..Entry::default()
        },
    );
    let third = gate::run(&mut broken, &only(stale));
    assert!(third.failed());
    assert_eq!(third.count(Verdict::Stale), 1, "{}", third.summary());
    assert!(third.summary().contains("delete its entry"));
}

#[test]
fn baseline_entries_for_no_case_are_listed() {
    let mut known = Baseline::new();
    for id in [
        "correlation/no-such-case",
        "calls/unknown-tool-with-no-tools-registered",
    ] {
        known.cases.insert(
            id.to_owned(),
            Entry {
                reason: "r".to_owned(),
                ..Entry::default()
            },
        );
    }
    assert_eq!(
        Gate::with_baseline(known).unknown_entries(),
        vec!["correlation/no-such-case".to_owned()]
    );
}

/// The reference with a large fixed cap (1 MiB), as some real harnesses have.
struct LargeFixedCap(Reference);

impl InProcessHarness for LargeFixedCap {
    fn hello(&mut self) -> Hello {
        let mut hello = self.0.hello();
        let cap = hello.capabilities.cap.as_mut().expect("the reference caps");
        cap.limit = 1 << 20;
        cap.configurable = false;
        hello
    }

    fn run(&mut self, case: &WireCase) -> ReplyOutcome {
        self.0.run(case)
    }
}

#[test]
fn a_case_too_large_for_a_harness_cap_skips_and_says_why() {
    let result = gate::run(
        &mut LargeFixedCap(Reference(ReferenceAdapter::new(None))),
        &Gate {
            baseline: Baseline::new(),
            run: vec!["cap/output-a-thousand-times-the-cap-is-cut-to-fit".to_owned()],
            skip: Vec::new(),
        },
    );
    let [outcome] = result.outcomes.as_slice() else {
        panic!("one case: {}", result.summary());
    };
    assert_eq!(outcome.verdict, Verdict::Skip, "{}", result.summary());
    let reason = outcome.messages.join("\n");
    assert!(reason.contains("1048576 bytes"), "{reason}");
    assert!(reason.contains("cannot be generated"), "{reason}");
}
