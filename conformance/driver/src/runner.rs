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
use harness_conformance_suite::run::{run_case, RunResult};
use harness_conformance_suite::verdict::CaseOutcome;

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
                    let (outcome, h) = run_case(harness.as_mut(), cases[i], cfg.timeout);
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
