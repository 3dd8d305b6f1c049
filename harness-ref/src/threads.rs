//! The threads isolated handlers run on, reused from call to call.
//!
//! An [`Execution::Isolated`](crate::Execution::Isolated) handler runs on a thread of its own so
//! that the harness can stop waiting at its deadline. Starting a thread per call costs more than
//! the rest of a call's path put together (a stack to map, a kernel task, its teardown), so a
//! finished handler's thread waits a little for the next call instead of exiting. A handler
//! that overruns its deadline keeps its thread until it returns, and the next call gets another
//! one: nothing waits behind a slow handler, exactly as with a thread per call.
//!
//! [`HandlerThreads`] is a value, not global state: each [`Harness`](crate::Harness) has its
//! own unless it is given one to share ([`Harness::with_handler_threads`](crate::Harness::with_handler_threads)),
//! which an embedder that builds a harness per turn does to keep its threads warm. When the
//! last handle is dropped, idle threads exit at once and busy ones as soon as their handler
//! returns.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How long a finished handler's thread waits for another call before it exits.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

type Job = Box<dyn FnOnce() + Send>;

/// A set of reusable threads for isolated handlers (cheap to clone; clones share the threads).
#[derive(Clone)]
pub struct HandlerThreads {
    owner: Arc<Owner>,
}

/// Dropped with the last handle: tells the threads that no more work will come.
struct Owner {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Work handed to waiting threads, not yet picked up.
    jobs: VecDeque<Job>,
    /// Threads waiting for work that no queued job has claimed: always the number of waiting
    /// threads minus `jobs.len()`.
    idle: usize,
    /// Threads alive (running a job or waiting).
    live: usize,
    /// No handle is left: waiting threads exit.
    closed: bool,
}

impl HandlerThreads {
    /// A new, empty set: threads are started on demand.
    pub fn new() -> Self {
        HandlerThreads {
            owner: Arc::new(Owner {
                shared: Arc::new(Shared {
                    state: Mutex::new(State::default()),
                    wake: Condvar::new(),
                }),
            }),
        }
    }

    /// Runs `job` on a waiting thread, or on a new one when none waits. An error only when a
    /// new thread was needed and the system refused it (the job is then dropped, not run).
    pub fn run(&self, job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
        let shared = &self.owner.shared;
        let job: Job = Box::new(job);
        {
            let mut state = lock(&shared.state);
            if state.idle > 0 {
                state.idle -= 1;
                state.jobs.push_back(job);
                drop(state);
                shared.wake.notify_one();
                return Ok(());
            }
            state.live += 1;
        }
        let worker = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name("harness-ref-handler".into())
            .spawn(move || worker.serve(job));
        if spawned.is_err() {
            lock(&shared.state).live -= 1;
        }
        spawned.map(drop)
    }

    /// Threads alive now, running a handler or waiting for one.
    pub fn live(&self) -> usize {
        lock(&self.owner.shared.state).live
    }
}

impl Default for HandlerThreads {
    fn default() -> Self {
        HandlerThreads::new()
    }
}

impl fmt::Debug for HandlerThreads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.owner.shared.state);
        f.debug_struct("HandlerThreads")
            .field("live", &state.live)
            .field("idle", &state.idle)
            .finish()
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        lock(&self.shared.state).closed = true;
        self.shared.wake.notify_all();
    }
}

impl Shared {
    /// A thread's life: its first job, then whatever it is handed until it has waited
    /// [`IDLE_TIMEOUT`] for nothing, or the last handle is gone.
    fn serve(&self, first: Job) {
        let mut job = first;
        loop {
            // A handler's panic is caught where it runs (`execute`); this keeps the thread and
            // the counts right even if a job panics outside that.
            let _ = catch_unwind(AssertUnwindSafe(job));
            let mut state = lock(&self.state);
            state.idle += 1;
            loop {
                if let Some(next) = state.jobs.pop_front() {
                    job = next;
                    break;
                }
                if state.closed {
                    state.idle -= 1;
                    state.live -= 1;
                    return;
                }
                let (next, waited) = self
                    .wake
                    .wait_timeout(state, IDLE_TIMEOUT)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                state = next;
                if waited.timed_out() && state.jobs.is_empty() {
                    // Unclaimed (no queued job counts on it): leave.
                    state.idle -= 1;
                    state.live -= 1;
                    return;
                }
            }
        }
    }
}

/// The state, whether or not a thread panicked while holding it (the counts are only changed
/// between operations that cannot panic).
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(started.elapsed() < Duration::from_secs(10), "{what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_finished_thread_runs_the_next_job() {
        let threads = HandlerThreads::new();
        let (tx, rx) = mpsc::channel();
        let mut ids = Vec::new();
        for _ in 0..20 {
            let tx = tx.clone();
            threads
                .run(move || tx.send(std::thread::current().id()).unwrap())
                .unwrap();
            ids.push(rx.recv().unwrap());
            // One job at a time: each finds the previous one's thread waiting.
            wait_until("the thread goes back to waiting", || {
                lock(&threads.owner.shared.state).idle == 1
            });
        }
        assert!(
            ids.iter().all(|id| *id == ids[0]),
            "one thread ran every job"
        );
        assert_eq!(threads.live(), 1);
    }

    #[test]
    fn a_busy_thread_does_not_hold_up_the_next_job() {
        let threads = HandlerThreads::new();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        threads
            .run(move || {
                let _ = release_rx.recv();
            })
            .unwrap();
        let (tx, rx) = mpsc::channel();
        threads.run(move || tx.send(()).unwrap()).unwrap();
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the second job ran while the first was blocked");
        assert_eq!(threads.live(), 2);
        release_tx.send(()).unwrap();
    }

    #[test]
    fn dropping_the_last_handle_ends_the_waiting_threads() {
        let threads = HandlerThreads::new();
        let shared = Arc::clone(&threads.owner.shared);
        let (tx, rx) = mpsc::channel();
        for _ in 0..3 {
            let tx = tx.clone();
            threads
                .run(move || {
                    tx.send(()).unwrap();
                    std::thread::sleep(Duration::from_millis(20));
                })
                .unwrap();
        }
        for _ in 0..3 {
            rx.recv().unwrap();
        }
        let copy = threads.clone();
        drop(threads);
        assert!(!lock(&shared.state).closed, "a clone still holds them");
        drop(copy);
        wait_until("every thread exits", || lock(&shared.state).live == 0);
        assert_eq!(lock(&shared.state).idle, 0);
    }

    #[test]
    fn a_panicking_job_leaves_the_thread_usable() {
        let threads = HandlerThreads::new();
        threads.run(|| panic!("a job that panics")).unwrap();
        wait_until("back to waiting after the panic", || {
            lock(&threads.owner.shared.state).idle == 1
        });
        let (tx, rx) = mpsc::channel();
        threads.run(move || tx.send(()).unwrap()).unwrap();
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        wait_until("back to waiting", || {
            lock(&threads.owner.shared.state).idle == 1
        });
        assert_eq!(threads.live(), 1);
    }
}
