//! One case through a [`Harness`] into a verdict, and the result of a whole run.
//!
//! The runner decides SKIP from the handshake's capabilities before sending anything, resolves
//! cap-relative sizes against the cap the harness will apply, sends the case, and turns the
//! reply into a verdict through [`crate::checks`]. It is sequential and does no I/O of its own:
//! the driver crate runs it on `--jobs` worker threads against adapter processes.

use std::time::{Duration, Instant};

use harness_conformance_protocol::{resolve_case, Hello, ReplyOutcome};

use crate::case::Case;
use crate::checks::{self, Observed};
use crate::harness::Harness;
use crate::needs;
use crate::verdict::{CaseOutcome, Verdict};

/// The result of a whole run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The first successful handshake's answer, if any.
    pub hello: Option<Hello>,
    /// One outcome per case, in the order the cases were given.
    pub outcomes: Vec<CaseOutcome>,
    /// Wall time.
    pub elapsed: Duration,
}

impl RunResult {
    /// Whether any outcome is unexpected.
    pub fn failed(&self) -> bool {
        self.outcomes.iter().any(|o| o.verdict.is_unexpected())
    }

    /// How many outcomes have this verdict.
    pub fn count(&self, v: Verdict) -> usize {
        self.outcomes.iter().filter(|o| o.verdict == v).count()
    }
}

/// The longest a case's handlers sleep in total, so the timeout never cuts a slow but
/// correct case short.
fn scripted_sleep(case: &Case) -> Duration {
    let per_tool: u64 = case
        .calls
        .iter()
        .filter_map(|c| case.tool_for(c))
        .map(|t| t.behavior.scripted_sleep_ms())
        .sum();
    Duration::from_millis(per_tool)
}

/// Runs one case on one harness.
pub fn run_case(
    harness: &mut dyn Harness,
    case: &Case,
    timeout: Duration,
) -> (CaseOutcome, Option<Hello>) {
    let started = Instant::now();
    let (mut outcome, hello) = run_case_inner(harness, case, timeout);
    outcome.duration = started.elapsed();
    (outcome, hello)
}

fn run_case_inner(
    harness: &mut dyn Harness,
    case: &Case,
    timeout: Duration,
) -> (CaseOutcome, Option<Hello>) {
    let new = |v| CaseOutcome::new(&case.id, &case.requirements, v);
    let hello = match harness.hello() {
        Ok(h) => h,
        Err(e) => return (new(Verdict::Error).with(e.to_string()), None),
    };
    let caps = &hello.capabilities;
    if let Some(reason) = needs::skip_reason(case, caps) {
        return (new(Verdict::Skip).with(reason), Some(hello));
    }
    let cap = checks::effective_cap(case, caps);
    let mut wire = case.wire();
    if let Err(e) = resolve_case(&mut wire, cap.limit) {
        return (
            new(Verdict::BugInCase).with(format!("cannot resolve the case's sizes: {e}")),
            Some(hello),
        );
    }
    let timeout = timeout + scripted_sleep(case);
    let reply = match harness.run(&wire, timeout) {
        Ok(r) => r,
        Err(e) => return (new(Verdict::Error).with(e.to_string()), Some(hello)),
    };
    let lone = reply.lone_surrogates;
    let (results, invocations, history) = match reply.outcome() {
        Err(e) => {
            return (
                new(Verdict::Error).with(format!("the reply is {e}")),
                Some(hello),
            )
        }
        Ok(ReplyOutcome::Skip(reason)) => {
            return (
                new(Verdict::Skip).with(format!("the adapter skipped it: {reason}")),
                Some(hello),
            )
        }
        Ok(ReplyOutcome::Error(reason)) => {
            return (
                new(Verdict::Error).with(format!("the adapter could not run the case: {reason}")),
                Some(hello),
            )
        }
        Ok(ReplyOutcome::Observed {
            results,
            invocations,
            history,
        }) => (results, invocations, history),
    };
    let obs = Observed {
        results: &results,
        invocations: &invocations,
        history: history.as_deref(),
        lone_surrogates: lone,
    };
    let mut findings = checks::check(case, &wire, caps, &obs);
    for fu in std::mem::take(&mut findings.follow_ups) {
        match harness.run(&fu.case, timeout) {
            Err(e) => {
                return (
                    new(Verdict::Error).with(format!("during the idempotence re-run: {e}")),
                    Some(hello),
                )
            }
            Ok(reply) => {
                let lone = reply.lone_surrogates;
                match reply.outcome() {
                    Ok(ReplyOutcome::Observed {
                        results,
                        invocations,
                        history,
                    }) => {
                        let obs2 = Observed {
                            results: &results,
                            invocations: &invocations,
                            history: history.as_deref(),
                            lone_surrogates: lone,
                        };
                        if let Some(msg) = checks::check_follow_up(&fu, &obs2) {
                            findings.failures.push(msg);
                        }
                    }
                    other => {
                        return (
                            new(Verdict::Error).with(format!(
                                "the idempotence re-run did not produce results: {other:?}"
                            )),
                            Some(hello),
                        )
                    }
                }
            }
        }
    }
    let verdict = if !findings.bugs.is_empty() {
        Verdict::BugInCase
    } else if !findings.failures.is_empty() {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let mut outcome = new(verdict);
    outcome.messages = if verdict == Verdict::BugInCase {
        findings.bugs
    } else {
        findings.failures
    };
    outcome.returned = Some(checks::returned_summary(&results));
    outcome.results = Some(results);
    (outcome, Some(hello))
}
