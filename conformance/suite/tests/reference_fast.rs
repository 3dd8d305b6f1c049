//! The whole suite against the reference, as fast as it can run: the test that mutation testing
//! runs once per mutant of harness-ref (`ci/mutants.sh`, docs/mutants.md).
//!
//! `tests/reference.rs` gates the reference through the public in-process gate, one case after
//! another on the test's thread, as a Rust harness would. Its wall time is almost all sleep:
//! the deadline and cancellation cases wait for handlers on purpose. This test runs the same
//! cases with the same expected verdicts, on many threads at once (the sleeps overlap, so the
//! wall time is about that of the slowest case), the sleeping cases first, and stops at the
//! first case whose verdict is not the expected one: a mutant the suite catches fails in about
//! the time of the first case that catches it.
//!
//! Two harnesses are run, as in `tests/reference.rs`: the reference (every case passes but the
//! repair profile's and the result wrapper's, which skip) and the reference with its repair mode on (every case passes
//! but those the repair profile allows, which skip), so the repair code is under test too.
//!
//! What the command-line runner does to a harness that hangs or runs away, this test does too,
//! so a mutant that loops is caught as the runner would catch it rather than left to the
//! mutation tool's timeout: no case may take longer than [`CASE_TIMEOUT`], and the test's
//! address space is bounded ([`MEMORY_LIMIT`]), so a runaway allocation fails the test instead
//! of the machine.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use harness_conformance_protocol::{Hello, Reply, WireCase};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::{AdapterError, Harness};
use harness_conformance_suite::loader;
use harness_conformance_suite::run::{run_case, validate_hello};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};
use harness_ref_adapter::{ReferenceAdapter, Variant};

/// Worker threads: most of a case's time is a handler's scripted sleep, so many more threads
/// than cores keep the cores busy while the sleeps overlap.
const WORKERS: usize = 16;

/// The longest any case may keep the test waiting for its next answer. The slowest correct
/// case sleeps a few seconds (a handler overrunning its deadline); this is several times that.
const CASE_TIMEOUT: Duration = Duration::from_secs(30);

/// The test's address space: the suite's largest generated output is a few MiB, so 4 GiB is
/// far more than a correct run needs.
const MEMORY_LIMIT: u64 = 4 << 30;

/// Which harness a job runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Reference,
    Repair,
}

impl Mode {
    fn adapter(self) -> ReferenceAdapter {
        match self {
            Mode::Reference => ReferenceAdapter::new(None),
            Mode::Repair => ReferenceAdapter::legitimate(Variant::RepairsDoubleEncoded),
        }
    }

    /// The verdict the mode must reach on `case` (the rule of `tests/reference.rs`).
    fn expected(self, case: &Case) -> Verdict {
        // Neither wraps its results: the cases that forge a wrapper's marker skip.
        let wrapper = harness_conformance_suite::needs::case_needs(case)
            .iter()
            .any(|n| n == "wrapper");
        let skips = wrapper
            || match self {
                Mode::Reference => case.id.starts_with("repair/"),
                Mode::Repair => !case.unless.is_empty(),
            };
        if skips {
            Verdict::Skip
        } else {
            Verdict::Pass
        }
    }
}

/// The reference adapter's library as the suite's [`Harness`].
struct InProcess {
    adapter: ReferenceAdapter,
    hello: Arc<Hello>,
}

impl InProcess {
    fn new(mode: Mode) -> InProcess {
        let adapter = mode.adapter();
        let hello = adapter.hello();
        validate_hello(&hello).expect("the reference's hello is valid");
        InProcess {
            adapter,
            hello: Arc::new(hello),
        }
    }
}

impl Harness for InProcess {
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError> {
        Ok(Arc::clone(&self.hello))
    }

    fn run(&mut self, case: &WireCase, _timeout: Duration) -> Result<Reply, AdapterError> {
        Ok(self.adapter.run(case))
    }
}

/// Whether a case waits on purpose (a handler sleeps, or the turn is cancelled after a while):
/// those go first, so that their waits overlap the rest.
fn waits(case: &Case) -> bool {
    case.cancel_after_ms.is_some()
        || case
            .tools
            .iter()
            .any(|t| serde_json::to_string(&t.behavior).is_ok_and(|b| b.contains("\"sleep_ms\"")))
}

/// The requirements whose checks failed, in order, or the case's own when no check failed
/// (an ERROR, a skip that should have run): the last line of the failure, which
/// `ci/mutants_report.py` reads to say which requirement caught each mutant.
fn caught_by(outcome: &CaseOutcome) -> Vec<&str> {
    let mut reqs: Vec<&str> = Vec::new();
    for check in outcome.checks.iter().filter(|c| !c.passed()) {
        if !reqs.contains(&check.requirement.as_str()) {
            reqs.push(&check.requirement);
        }
    }
    if reqs.is_empty() {
        reqs = outcome.requirements.iter().map(String::as_str).collect();
    }
    reqs
}

/// One job's end: its verdict, unless it was the expected one.
type Done = Result<(), (Mode, Verdict, Box<CaseOutcome>)>;

#[test]
fn the_reference_passes_every_case_on_many_threads_stopping_at_the_first_failure() {
    rustix::process::setrlimit(
        rustix::process::Resource::As,
        rustix::process::Rlimit {
            current: Some(MEMORY_LIMIT),
            maximum: None,
        },
    )
    .expect("the address space can be bounded");
    let suite = Arc::new(loader::load_embedded().expect("the embedded suite loads"));
    let mut jobs: Vec<(Mode, usize)> = [Mode::Reference, Mode::Repair]
        .iter()
        .flat_map(|&m| (0..suite.cases.len()).map(move |i| (m, i)))
        .collect();
    jobs.sort_by_key(|&(_, i)| !waits(&suite.cases[i]));
    assert!(jobs.len() > 800, "the whole suite, twice");
    let jobs = Arc::new(jobs);

    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    // Detached threads: a worker stuck in a looping mutant is abandoned when the test fails,
    // and ends with the process.
    for _ in 0..WORKERS {
        let (suite, jobs, next, stop, done_tx) = (
            Arc::clone(&suite),
            Arc::clone(&jobs),
            Arc::clone(&next),
            Arc::clone(&stop),
            done_tx.clone(),
        );
        std::thread::spawn(move || {
            let mut harnesses: Vec<(Mode, InProcess)> = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let Some(&(mode, i)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                let at = harnesses
                    .iter()
                    .position(|(m, _)| *m == mode)
                    .unwrap_or_else(|| {
                        harnesses.push((mode, InProcess::new(mode)));
                        harnesses.len() - 1
                    });
                let case = &suite.cases[i];
                let (outcome, _) = run_case(&mut harnesses[at].1, case, Duration::ZERO);
                let expected = mode.expected(case);
                let done = if outcome.verdict == expected {
                    Ok(())
                } else {
                    Err((mode, expected, Box::new(outcome)))
                };
                if done_tx.send(done).is_err() {
                    return;
                }
            }
        });
    }
    drop(done_tx);

    for finished in 0..jobs.len() {
        match done_rx.recv_timeout(CASE_TIMEOUT) {
            Ok(Ok(())) => {}
            Ok(Err((mode, expected, outcome))) => {
                stop.store(true, Ordering::Relaxed);
                panic!(
                    "{mode:?}: {} is {} (expected {}):\n{}\ncaught by: {}",
                    outcome.id,
                    outcome.verdict.as_str(),
                    expected.as_str(),
                    outcome.messages.join("\n"),
                    caught_by(&outcome).join(" ")
                );
            }
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                panic!(
                    "after {finished} of {} cases, no case finished within {CASE_TIMEOUT:?} ({e})",
                    jobs.len()
                );
            }
        }
    }
}
