//! The threaded runner: cases through harnesses into verdicts, with `--jobs` workers.
//!
//! Each worker owns one [`Harness`] (one persistent adapter process) and takes the next case
//! from a shared queue, so a slow case never holds up the others and a crashed adapter only
//! costs the case it was running. What happens to one case (SKIP from the handshake, sizes
//! resolved, the reply judged) is the suite's [`run_case`]; this module only schedules it.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use harness_conformance_protocol::{Hello, Reply, WireCase};
use harness_conformance_suite::baseline::{self, Baseline};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::{AdapterError, AdapterErrorKind, Harness};
use harness_conformance_suite::run::{run_case, validate_hello, RunResult};
use harness_conformance_suite::spec::Requirement;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

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
    /// The whole run's time limit: a case still running when it passes is cut short, and the
    /// cases not started by then are ERROR with that reason. `None`: no limit.
    pub max_time: Option<Duration>,
    /// Keep each outcome's `results` (the harness's replies, for wording snapshots). Off by
    /// default: a reply is dropped as soon as its case is judged and `progress` has seen it, so
    /// a run's memory does not grow with what the harness returned.
    pub keep_results: bool,
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
            max_time: None,
            keep_results: false,
            baseline: Baseline::new(),
            requirements: Vec::new(),
        }
    }
}

/// Runs `cases` on harnesses from `factory`; `progress` sees each outcome as it completes
/// (with its `results`, which are then dropped unless [`RunConfig::keep_results`]).
pub fn run(
    cases: &[&Case],
    factory: &Factory<'_>,
    cfg: &RunConfig,
    progress: &(dyn Fn(usize, usize, &CaseOutcome) + Sync),
) -> RunResult {
    run_with_sleepers(cases, &[], factory, cfg, progress)
}

/// Like [`run`], with the cases at `sleepers` (indices into `cases`: cases whose handlers
/// sleep) started first, each on a worker of its own besides the `jobs` workers, so that their
/// sleeps overlap each other and the other cases' work instead of adding up. The extra workers
/// take only those cases, and sleeping costs no CPU, so the run's CPU-bound work still runs on
/// `jobs` workers (more would starve the deadline cases of CPU on a busy machine and change
/// their verdicts). The outcomes are in `cases`' order whatever the order of work. `selftest`
/// uses it for the in-process variants; an adapter process per extra worker would cost more
/// than it saves.
pub fn run_with_sleepers(
    cases: &[&Case],
    sleepers: &[usize],
    factory: &Factory<'_>,
    cfg: &RunConfig,
    progress: &(dyn Fn(usize, usize, &CaseOutcome) + Sync),
) -> RunResult {
    let started = Instant::now();
    let until = cfg.max_time.and_then(|t| started.checked_add(t));
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
    let queue: Mutex<VecDeque<usize>> = Mutex::new(work_order(sleepers, cases.len()));
    let (tx, rx) = mpsc::channel::<(usize, CaseOutcome)>();
    let jobs = cfg.jobs.clamp(1, cases.len().max(1));
    let is_sleeper = {
        let mut marks = vec![false; cases.len()];
        for &i in sleepers.iter().filter(|&&i| i < cases.len()) {
            marks[i] = true;
        }
        marks
    };
    let extra = is_sleeper.iter().filter(|&&m| m).count();
    let done = Arc::new(Mutex::new(0usize));
    let mut outcomes: Vec<Option<CaseOutcome>> = vec![None; cases.len()];
    thread::scope(|s| {
        for worker in 0..jobs + extra {
            let tx = tx.clone();
            let queue = &queue;
            let first = &first;
            let is_sleeper = &is_sleeper;
            // Workers past `jobs` run only sleeping cases (which are queued first).
            let sleepers_only = worker >= jobs;
            s.spawn(move || {
                // The first worker keeps the harness that made the handshake.
                let reused = first.lock().ok().and_then(|mut f| f.take());
                let mut harness = reused.unwrap_or_else(factory);
                loop {
                    let next = queue.lock().ok().and_then(|mut q| {
                        let front = *q.front()?;
                        (!sleepers_only || is_sleeper[front]).then(|| q.pop_front())?
                    });
                    let Some(i) = next else { break };
                    let outcome = run_one(&mut harness, factory, cases[i], cfg, until);
                    if tx.send((i, outcome)).is_err() {
                        break;
                    }
                }
                harness.close();
            });
        }
        drop(tx);
        for (i, mut outcome) in rx {
            baseline::apply(&cfg.baseline, &mut outcome);
            let n = {
                let mut d = done.lock().expect("not poisoned");
                *d += 1;
                *d
            };
            progress(n, cases.len(), &outcome);
            if !cfg.keep_results {
                outcome.results = None;
            }
            outcomes[i] = Some(outcome);
        }
    });
    RunResult::finish(
        cases,
        outcomes.into_iter().flatten().collect(),
        Some(Arc::unwrap_or_clone(hello)),
        &cfg.requirements,
        &cfg.baseline,
        started,
    )
}

/// One case on `harness`, never past `until`; a panic of the runner is the case's BUG IN CASE,
/// and the harness (in an unknown state) is replaced by a fresh one from `factory`.
fn run_one(
    harness: &mut Box<dyn Harness + Send>,
    factory: &(dyn Fn() -> Box<dyn Harness + Send> + '_),
    case: &Case,
    cfg: &RunConfig,
    until: Option<Instant>,
) -> CaseOutcome {
    if until.is_some_and(|u| Instant::now() >= u) {
        return CaseOutcome::new(&case.id, &case.requirements, Verdict::Error)
            .with(max_time_reason(cfg, "not run"));
    }
    let mut bounded = Bounded {
        inner: harness.as_mut(),
        until,
        cfg,
    };
    match catch_unwind(AssertUnwindSafe(|| {
        run_case(&mut bounded, case, cfg.timeout).0
    })) {
        Ok(outcome) => outcome,
        Err(panic) => {
            // A bug in the runner, not the harness's fault: this case is reported, the harness
            // replaced, and the run goes on.
            drop(std::mem::replace(harness, factory()));
            CaseOutcome::new(&case.id, &case.requirements, Verdict::BugInCase).with(format!(
                "the runner panicked on this case ({}); this is a bug in harness-conformance, please report it with the case",
                panic_message(&*panic)
            ))
        }
    }
}

/// Makes a harness for one of [`run_pooled`]'s runs (its index).
pub type RunFactory<'a> = dyn Fn(usize) -> Box<dyn Harness + Send> + Send + Sync + 'a;

/// Runs `cases` on each of `runs` harnesses (`factory(run)`), all of them on one set of
/// workers, and returns each run's result in the runs' order; `finished` sees each run's result
/// as soon as its last case is judged, on the worker that judged it.
///
/// `jobs` workers ([`RunConfig::jobs`]) take the cases that compute, whichever run they belong
/// to, so the cores stay busy from the first run's first case to the last run's last (runs
/// one after another would leave them idle while a run's slowest case finishes); `waiting`
/// more take the cases marked in `waits` (handlers that sleep, a turn cancelled after a
/// while), which cost no CPU while they wait, so that the waits of every run overlap instead
/// of adding up. Both take runs in order, the cases of a run in the cases' order. A run's
/// outcomes are in `cases`' order whatever the order of work, and each run's handshake is
/// made before any of its cases is sent. Every run is judged alone ([`RunResult::finish`]); no
/// `--max-time`.
///
/// `selftest` runs the reference and its variants with it: a run of the in-process reference
/// is tens of milliseconds of work and hundreds of milliseconds of waiting.
pub fn run_pooled(
    cases: &[&Case],
    waits: &[bool],
    runs: usize,
    factory: &RunFactory<'_>,
    cfg: &RunConfig,
    waiting: usize,
    finished: &(dyn Fn(usize, &RunResult) + Sync),
) -> Vec<RunResult> {
    /// A run's outcomes so far.
    struct Progress {
        outcomes: Vec<Option<CaseOutcome>>,
        left: usize,
        started: Option<Instant>,
    }
    let results: Vec<std::sync::OnceLock<RunResult>> =
        (0..runs).map(|_| std::sync::OnceLock::new()).collect();
    let finish = |run: usize, result: RunResult| {
        finished(run, &result);
        let _ = results[run].set(result);
    };
    let mut hellos: Vec<Option<Arc<Hello>>> = Vec::with_capacity(runs);
    for run in 0..runs {
        let started = Instant::now();
        let mut harness = factory(run);
        let hello = harness.hello().map_err(|e| e.to_string()).and_then(|h| {
            validate_hello(&h)?;
            Ok(h)
        });
        harness.close();
        match hello {
            Ok(h) => hellos.push(Some(h)),
            Err(message) => {
                hellos.push(None);
                finish(run, RunResult::handshake_failed(cases, started, message));
            }
        }
    }
    let progress: Vec<Mutex<Progress>> = hellos
        .iter()
        .map(|_| {
            Mutex::new(Progress {
                outcomes: vec![None; cases.len()],
                left: cases.len(),
                started: None,
            })
        })
        .collect();
    let queue = |waiting_side: bool| -> Mutex<VecDeque<(usize, usize)>> {
        let order = (0..runs).filter(|&r| hellos[r].is_some()).flat_map(|r| {
            (0..cases.len())
                .filter(move |&i| waits.get(i).copied().unwrap_or(false) == waiting_side)
                .map(move |i| (r, i))
        });
        Mutex::new(order.collect())
    };
    let (computing, waiting_queue) = (queue(false), queue(true));
    let workers = [
        (&computing, cfg.jobs.max(1)),
        (&waiting_queue, waiting.max(1)),
    ];
    thread::scope(|s| {
        for (queue, n) in workers {
            for _ in 0..n {
                s.spawn(|| {
                    // The harness of the run this worker is on; another run's case brings
                    // another harness.
                    let mut current: Option<(usize, Box<dyn Harness + Send>)> = None;
                    loop {
                        let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                        let Some((run, i)) = next else { break };
                        if current.as_ref().is_none_or(|(r, _)| *r != run) {
                            if let Some((_, mut old)) = current.take() {
                                old.close();
                            }
                            current = Some((run, factory(run)));
                        }
                        let Some((_, harness)) = current.as_mut() else {
                            break;
                        };
                        if let Ok(mut p) = progress[run].lock() {
                            p.started.get_or_insert_with(Instant::now);
                        }
                        let mut outcome = run_one(harness, &|| factory(run), cases[i], cfg, None);
                        baseline::apply(&cfg.baseline, &mut outcome);
                        if !cfg.keep_results {
                            outcome.results = None;
                        }
                        let done = progress[run].lock().ok().and_then(|mut p| {
                            p.outcomes[i] = Some(outcome);
                            p.left -= 1;
                            (p.left == 0).then(|| {
                                (
                                    std::mem::take(&mut p.outcomes),
                                    p.started.unwrap_or_else(Instant::now),
                                )
                            })
                        });
                        if let Some((outcomes, started)) = done {
                            let hello = hellos[run].as_deref().cloned();
                            finish(
                                run,
                                RunResult::finish(
                                    cases,
                                    outcomes.into_iter().flatten().collect(),
                                    hello,
                                    &cfg.requirements,
                                    &cfg.baseline,
                                    started,
                                ),
                            );
                        }
                    }
                    if let Some((_, mut harness)) = current {
                        harness.close();
                    }
                });
            }
        }
    });
    results
        .into_iter()
        .enumerate()
        .map(|(run, slot)| {
            slot.into_inner().unwrap_or_else(|| {
                // No case to run (an empty selection): judged on no outcomes.
                RunResult::finish(
                    cases,
                    Vec::new(),
                    hellos[run].as_deref().cloned(),
                    &cfg.requirements,
                    &cfg.baseline,
                    Instant::now(),
                )
            })
        })
        .collect()
}

/// `order`'s valid indices, each once, then the rest of `0..n`.
fn work_order(order: &[usize], n: usize) -> VecDeque<usize> {
    let mut queued = vec![false; n];
    let mut queue: VecDeque<usize> = order
        .iter()
        .copied()
        .filter(|&i| i < n && !std::mem::replace(&mut queued[i], true))
        .collect();
    queue.extend((0..n).filter(|&i| !queued[i]));
    queue
}

fn max_time_reason(cfg: &RunConfig, what: &str) -> String {
    format!(
        "{what}: the run's time limit (--max-time {:.1}s) was reached",
        cfg.max_time.unwrap_or_default().as_secs_f64()
    )
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    harness_conformance_suite::quote::quote(&text)
}

/// A harness whose every run ends by the run's time limit: the per-case timeout is cut to what
/// is left of the run, and a case cut short says so.
struct Bounded<'h> {
    inner: &'h mut dyn Harness,
    until: Option<Instant>,
    cfg: &'h RunConfig,
}

impl Harness for Bounded<'_> {
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError> {
        self.inner.hello()
    }

    fn run(&mut self, case: &WireCase, timeout: Duration) -> Result<Reply, AdapterError> {
        let Some(until) = self.until else {
            return self.inner.run(case, timeout);
        };
        let left = until.saturating_duration_since(Instant::now());
        let cut_short = AdapterError {
            kind: AdapterErrorKind::Timeout,
            message: max_time_reason(self.cfg, "cut short"),
        };
        if left.is_zero() {
            return Err(cut_short);
        }
        if left >= timeout {
            return self.inner.run(case, timeout);
        }
        match self.inner.run(case, left) {
            Err(e) if e.kind == AdapterErrorKind::Timeout => Err(AdapterError {
                message: format!("{} ({})", cut_short.message, e.message),
                ..cut_short
            }),
            other => other,
        }
    }

    fn close(&mut self) {
        self.inner.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_order_holds_every_case_once() {
        for (order, n, want) in [
            (vec![], 3, vec![0, 1, 2]),
            (vec![2, 0], 3, vec![2, 0, 1]),
            (vec![1, 1, 7, 0], 2, vec![1, 0]),
            (vec![0, 1, 2], 3, vec![0, 1, 2]),
        ] {
            assert_eq!(Vec::from(work_order(&order, n)), want, "{order:?} of {n}");
        }
    }
}
