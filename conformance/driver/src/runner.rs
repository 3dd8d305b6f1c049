//! The threaded runner: cases through harnesses into verdicts, with `--jobs` workers.
//!
//! Each worker owns one [`Harness`] (one persistent adapter process) and takes the next case
//! from a shared queue, so a slow case never holds up the others and a crashed adapter only
//! costs the case it was running. What happens to one case (SKIP from the handshake, sizes
//! resolved, the reply judged) is the suite's [`run_case`]; this module only schedules it.

use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use harness_conformance_protocol::Hello;
use harness_conformance_suite::baseline::{self, Baseline};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::run::{run_case, validate_hello, RunResult};
use harness_conformance_suite::spec::Requirement;
use harness_conformance_suite::verdict::CaseOutcome;

/// Makes a fresh harness for a worker (`Send`: the harness that made the handshake moves to
/// the first worker).
pub type Factory<'a> = dyn Fn() -> Box<dyn Harness + Send> + Send + Sync + 'a;

/// How a run is carried out.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Parallel workers (adapter processes).
    pub jobs: usize,
    /// The per-case timeout, on top of the handler sleeps the case scripts.
    pub timeout: Duration,
    /// Known failures, skips and untestable requirements.
    pub baseline: Baseline,
    /// SPEC.md's requirements, for the coverage of the run (empty: no coverage computed).
    pub requirements: Vec<Requirement>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            jobs: 1,
            timeout: Duration::from_secs(10),
            baseline: Baseline::new(),
            requirements: Vec::new(),
        }
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
    // One handshake before anything is dispatched: a broken or invalid hello is one message for
    // the whole run, not the same ERROR once per case.
    let mut first = factory();
    let hello = match first.hello().map_err(|e| e.to_string()).and_then(|h| {
        validate_hello(&h)?;
        Ok(h)
    }) {
        Ok(h) => h,
        Err(message) => {
            first.close();
            return RunResult::handshake_failed(cases, started, message);
        }
    };
    let first = Mutex::new(Some(first));
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..cases.len()).collect());
    let (tx, rx) = mpsc::channel::<(usize, CaseOutcome, Option<Hello>)>();
    let jobs = cfg.jobs.clamp(1, cases.len().max(1));
    let done = Arc::new(Mutex::new(0usize));
    let mut outcomes: Vec<Option<CaseOutcome>> = vec![None; cases.len()];
    thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            let first = &first;
            s.spawn(move || {
                // The first worker keeps the harness that made the handshake.
                let reused = first.lock().ok().and_then(|mut f| f.take());
                let mut harness = reused.unwrap_or_else(factory);
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                    let Some(i) = next else { break };
                    let (outcome, h) = run_case(harness.as_mut(), cases[i], cfg.timeout);
                    if tx.send((i, outcome, h)).is_err() {
                        break;
                    }
                }
                harness.close();
            });
        }
        drop(tx);
        for (i, mut outcome, _) in rx {
            baseline::apply(&cfg.baseline, &mut outcome);
            let n = {
                let mut d = done.lock().expect("not poisoned");
                *d += 1;
                *d
            };
            progress(n, cases.len(), &outcome);
            outcomes[i] = Some(outcome);
        }
    });
    RunResult::finish(
        cases,
        outcomes.into_iter().flatten().collect(),
        Some(hello),
        &cfg.requirements,
        &cfg.baseline,
        started,
    )
}
