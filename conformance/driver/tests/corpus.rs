//! The whole corpus runs in-process against the reference harness, through the threaded
//! runner, and every case testing a MUST or SHOULD requirement passes.

use std::time::Duration;

use harness_conformance_driver::client::InProcess;
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader;
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::Verdict;

#[test]
fn the_reference_passes_every_must_and_should_case() {
    let suite = loader::load_embedded().expect("the embedded suite loads");
    let cases: Vec<_> = suite.cases.iter().collect();
    let cfg = RunConfig {
        jobs: 2,
        timeout: Duration::from_secs(20),
        ..RunConfig::default()
    };
    let result = runner::run(
        &cases,
        &|| -> Box<dyn Harness> { Box::new(InProcess::new(None)) },
        &cfg,
        &|_, _, _| {},
    );
    let level = |id: &str| {
        suite
            .case(id)
            .into_iter()
            .flat_map(|c| c.requirements.iter())
            .filter_map(|r| suite.requirement(r))
            .map(|r| r.level)
            .min()
    };
    let bad: Vec<String> = result
        .outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Pass && level(&o.id) != Some(Level::May))
        .map(|o| format!("{} {}: {}", o.verdict, o.id, o.messages.join(" | ")))
        .collect();
    assert!(
        bad.is_empty(),
        "{} MUST/SHOULD case(s) do not pass on the reference:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
