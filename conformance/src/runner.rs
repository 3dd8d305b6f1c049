//! The runner: cases through a harness into verdicts, with `--jobs` workers.
//!
//! Each worker owns one [`Harness`] (one persistent adapter process) and takes the next case
//! from a shared queue, so a slow case never holds up the others and a crashed adapter only
//! costs the case it was running. The runner decides SKIP from the handshake's capabilities
//! before sending anything, resolves cap-relative sizes against the cap the harness will
//! apply, sends the case, and turns the reply into a verdict through [`crate::checks`].

use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use harness_conformance_protocol::{resolve_case, Hello, ReplyOutcome};

use crate::baseline::{self, Baseline};
use crate::case::Case;
use crate::checks::{self, Observed};
use crate::client::Harness;
use crate::needs;
use crate::verdict::{CaseOutcome, Verdict};

/// Makes a fresh harness for a worker.
pub type Factory<'a> = dyn Fn() -> Box<dyn Harness> + Send + Sync + 'a;

/// How a run is carried out.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Parallel workers (adapter processes).
    pub jobs: usize,
    /// The per-case timeout, on top of the handler sleeps the case scripts.
    pub timeout: Duration,
    /// Known failures.
    pub baseline: Baseline,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            jobs: 1,
            timeout: Duration::from_secs(10),
            baseline: Baseline::new(),
        }
    }
}

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

/// Runs `cases` on harnesses from `factory`; `progress` sees each outcome as it completes.
pub fn run(
    cases: &[&Case],
    factory: &Factory<'_>,
    cfg: &RunConfig,
    progress: &(dyn Fn(usize, usize, &CaseOutcome) + Sync),
) -> RunResult {
    let started = Instant::now();
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..cases.len()).collect());
    let (tx, rx) = mpsc::channel::<(usize, CaseOutcome, Option<Hello>)>();
    let jobs = cfg.jobs.clamp(1, cases.len().max(1));
    let done = Arc::new(Mutex::new(0usize));
    let mut outcomes: Vec<Option<CaseOutcome>> = vec![None; cases.len()];
    let mut hello = None;
    thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            s.spawn(move || {
                let mut harness = factory();
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                    let Some(i) = next else { break };
                    let (outcome, h) = run_case(harness.as_mut(), cases[i], cfg);
                    if tx.send((i, outcome, h)).is_err() {
                        break;
                    }
                }
                harness.close();
            });
        }
        drop(tx);
        for (i, mut outcome, h) in rx {
            baseline::apply(&cfg.baseline, &mut outcome);
            if hello.is_none() {
                hello = h;
            }
            let n = {
                let mut d = done.lock().expect("not poisoned");
                *d += 1;
                *d
            };
            progress(n, cases.len(), &outcome);
            outcomes[i] = Some(outcome);
        }
    });
    RunResult {
        hello,
        outcomes: outcomes.into_iter().flatten().collect(),
        elapsed: started.elapsed(),
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
    cfg: &RunConfig,
) -> (CaseOutcome, Option<Hello>) {
    let started = Instant::now();
    let (mut outcome, hello) = run_case_inner(harness, case, cfg);
    outcome.duration = started.elapsed();
    (outcome, hello)
}

fn run_case_inner(
    harness: &mut dyn Harness,
    case: &Case,
    cfg: &RunConfig,
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
    let timeout = cfg.timeout + scripted_sleep(case);
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
