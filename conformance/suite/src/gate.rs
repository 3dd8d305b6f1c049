//! The in-process gate: a Rust harness runs the whole suite inside its own `cargo test`.
//!
//! A harness written in Rust should not need an adapter process, a thread pool or a
//! command-line parser in its dev-dependencies to be held to SPEC.md. It implements
//! [`InProcessHarness`] — the handshake and one case's turn — and calls [`run`] from a
//! `#[test]`; the suite checks the handshake, runs every selected case against it, one after
//! another on the test's thread, through the same [`crate::run::run_case`] the command line
//! uses, and applies the baseline the way the command line's `--baseline` does (a listed case
//! that fails as listed is XFAIL, one that fails less or passes is STALE, a new failure or a new
//! skip fails), with the requirements' coverage judged as the command line judges it:
//! [`RunResult::failed`] is exactly the command line's exit status.
//!
//! ```text
//! #[test]
//! fn conformance() {
//!     let text = include_str!("conformance-baseline.json");
//!     let known = Baseline::parse(text, harness_conformance_suite::SUITE_VERSION).unwrap();
//!     let result = gate::run(&mut MyHarness::default(), &Gate::with_baseline(known));
//!     assert!(!result.failed(), "{}", result.summary());
//! }
//! ```
//!
//! What the command line does and this does not: no per-case timeout (a harness that hangs
//! hangs the test, which `cargo test` reports as running too long — a deadline case scripts a
//! sleep that the harness's own deadline must cut short), no worker threads, no reports on
//! disk. Entries of the baseline that name no case of this suite are listed by
//! [`Gate::unknown_entries`]; like the command line's warning, they do not fail the run.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_conformance_protocol::{Hello, Reply, ReplyOutcome, WireCase};

use crate::baseline::{self, Baseline};
use crate::case::Case;
use crate::harness::{AdapterError, Harness};
use crate::loader;
use crate::run::{run_case, validate_hello, RunResult};
use crate::select;

/// A Rust harness under test, called in-process: the Rust side of the adapter contract
/// (`conformance/PROTOCOL.md`, README's "The adapter contract").
pub trait InProcessHarness {
    /// The handshake's answer: the implementation, and its capabilities declared honestly (a
    /// capability the harness lacks is absent, and the cases needing it are skipped).
    fn hello(&mut self) -> Hello;

    /// Runs one case's turn: build the case's tools (`case.tools`, with their JSON Schemas and
    /// scripted behaviours, for which `harness_conformance_protocol::script` has an
    /// interpreter) in a **fresh** harness configured by `case.config`, give it all of
    /// `case.calls` as one assistant turn, and report every result in the order the harness
    /// produced it, every handler run with a deep copy of the arguments taken on entry, and
    /// (capability `history`) the calls as the transcript keeps them. Sizes are already
    /// resolved. Answer [`ReplyOutcome::Skip`] when the harness cannot express the case and
    /// [`ReplyOutcome::Error`] when the glue itself failed; never judge or repair the results.
    fn run(&mut self, case: &WireCase) -> ReplyOutcome;
}

/// Which cases a gate runs, and the known failures.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// Known failures, skips and untestable requirements (`conformance-baseline.json`), as the
    /// command line's `--baseline`.
    pub baseline: Baseline,
    /// Only cases whose id matches one of these globs (empty: all), as `--run`.
    pub run: Vec<String>,
    /// Leave out cases whose id matches one of these globs, as `--skip`.
    pub skip: Vec<String>,
}

impl Gate {
    /// Every case, with these known failures.
    pub fn with_baseline(baseline: Baseline) -> Gate {
        Gate {
            baseline,
            ..Gate::default()
        }
    }

    /// Baseline entries that name no case of this suite (a renamed or removed case): delete
    /// them so the list only shrinks.
    pub fn unknown_entries(&self) -> Vec<String> {
        let suite = embedded();
        let ids: BTreeSet<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
        self.baseline
            .unknown_cases(&ids)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}

/// Runs every case `gate` selects against `harness`, in the suite's order, and returns the
/// verdicts with the baseline applied. Assert on [`RunResult::failed`]; print
/// [`RunResult::summary`] when it is true.
///
/// # Panics
///
/// When the embedded suite itself does not load (a bug in this crate's release, never in
/// the harness).
pub fn run(harness: &mut dyn InProcessHarness, gate: &Gate) -> RunResult {
    let started = Instant::now();
    let suite = embedded();
    let run = select::patterns(&gate.run);
    let skip = select::patterns(&gate.skip);
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| select::selected(&c.id, &run, &skip))
        .collect();
    let mut wire = Wire {
        harness,
        hello: None,
    };
    // One handshake first, as the command line does: an invalid hello is one message for the
    // whole run, not the same ERROR once per case.
    let hello = match wire.hello().map_err(|e| e.to_string()).and_then(|h| {
        validate_hello(&h)?;
        Ok(h)
    }) {
        Ok(h) => h,
        Err(message) => return RunResult::handshake_failed(&cases, started, message),
    };
    let outcomes = cases
        .iter()
        .map(|case| {
            // The timeout is unused in-process: `Wire` calls the harness on this thread.
            let (mut outcome, _) = run_case(&mut wire, case, Duration::ZERO);
            baseline::apply(&gate.baseline, &mut outcome);
            outcome
        })
        .collect();
    RunResult::finish(
        &cases,
        outcomes,
        Some(Arc::unwrap_or_clone(hello)),
        &suite.requirements,
        &gate.baseline,
        started,
    )
}

fn embedded() -> loader::Suite {
    loader::load_embedded().unwrap_or_else(|errors| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!(
            "the embedded suite does not load; this is a bug in harness-conformance-suite:\n{}",
            lines.join("\n")
        )
    })
}

/// An [`InProcessHarness`] seen as the suite's [`Harness`]: its answers wrapped in the reply the
/// runner judges, exactly as an adapter's line would be decoded.
struct Wire<'h> {
    harness: &'h mut dyn InProcessHarness,
    hello: Option<Arc<Hello>>,
}

impl Harness for Wire<'_> {
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError> {
        Ok(Arc::clone(
            self.hello
                .get_or_insert_with(|| Arc::new(self.harness.hello())),
        ))
    }

    fn run(&mut self, case: &WireCase, _timeout: Duration) -> Result<Reply, AdapterError> {
        let mut reply = Reply {
            case: case.id.clone(),
            ..Reply::default()
        };
        match self.harness.run(case) {
            ReplyOutcome::Observed {
                results,
                invocations,
                history,
                spill_artifacts,
            } => {
                reply.results = Some(results);
                reply.invocations = Some(invocations);
                reply.history = history;
                reply.spill_artifacts = spill_artifacts;
            }
            ReplyOutcome::Skip(reason) => reply.skip = Some(reason),
            ReplyOutcome::Error(reason) => reply.error = Some(reason),
        }
        Ok(reply)
    }
}
