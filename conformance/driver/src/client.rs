//! The protocol client: a [`Harness`] answers the handshake and runs cases.
//!
//! Two implementations share one trait so the runner cannot tell them apart:
//! - [`ProcessHarness`] drives an adapter process (any language) over JSON lines through
//!   [`crate::driver`], decodes every message strictly, checks that each reply answers the
//!   question asked (`seq`, case id), and recovers from crashes and hangs by killing the
//!   process group and starting a fresh process — a bounded number of times, after which it
//!   gives up quickly so a broken adapter cannot stall a run;
//! - [`InProcess`] calls the reference adapter's library directly: the default target, with no
//!   process to start, and the way `selftest` runs the broken and the legitimate variants.
//!
//! Every protocol problem becomes an [`AdapterError`] whose message quotes the offending
//! bytes (bounded) and the tail of the adapter's stderr.
//!
//! Limits that keep a hostile adapter from costing more than a bounded amount of memory and
//! time (docs/runner-guarantees.md): a hello of at most [`MAX_HELLO_BYTES`], a reply of at most
//! [`max_results`] results (one per call plus [`MAX_EXTRA_RESULTS`], at most
//! [`MAX_RESULTS_PER_REPLY`]) and [`MAX_REPLY_VALUES`] JSON values, a hello whose lists hold at
//! most [`MAX_HELLO_NAMES`] names each, a deadline on every
//! write and every read, and restarts counted across all the workers of a run
//! ([`RestartBudget`]).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_conformance_protocol::{
    decode_reply, message::decode_hello, Command, Hello, Reply, WireCase, PROTOCOL_VERSION,
};
use harness_conformance_suite::harness::{AdapterError, AdapterErrorKind, Harness};

use crate::driver::{quote_bytes, AdapterProcess, DriverLimits, ReadFault, WriteFault};

/// The largest hello accepted, in bytes. A complete hello (every keyword, feature and code of
/// the vocabulary) is a few KiB; the hello is kept for the whole run and consulted for every
/// case, so an absurd one is refused at the handshake rather than paid for in every case.
pub const MAX_HELLO_BYTES: usize = 256 * 1024;

/// The most names one list or map of the hello's capabilities may hold (`keywords`,
/// `features`, `behaviors`, `call_forms`, `codes`, `folds`). The vocabulary has fewer than a
/// hundred names in each, and a name is listed once; a hello within [`MAX_HELLO_BYTES`] could
/// still list 60,000 of them, and every unknown one became a line of the handshake error (a
/// 43.8 MB JSON report). Past this bound the handshake fails with one short message.
pub const MAX_HELLO_NAMES: usize = 256;

/// The list of the hello's capabilities longer than [`MAX_HELLO_NAMES`], if any: its name and
/// length.
fn overlong_list(
    caps: &harness_conformance_protocol::Capabilities,
) -> Option<(&'static str, usize)> {
    [
        ("keywords", caps.keywords.len()),
        ("features", caps.features.len()),
        ("behaviors", caps.behaviors.len()),
        ("call_forms", caps.call_forms.len()),
        ("codes", caps.codes.as_ref().map_or(0, |c| c.len())),
        ("folds", caps.folds.len()),
    ]
    .into_iter()
    .find(|&(_, n)| n > MAX_HELLO_NAMES)
}

/// The most results one reply may carry. A case sends at most a few dozen calls (20 in the
/// corpus today) and a correct reply has one result per call; a reply beyond this bound is a
/// protocol error (ERROR), so that no reply can make the checks, the failure messages or a
/// report grow with it.
pub const MAX_RESULTS_PER_REPLY: usize = 1024;

/// How many results a reply may carry beyond one per call (and never more than
/// [`MAX_RESULTS_PER_REPLY`]). A harness that answers a call twice, or adds an error result,
/// still FAILs the case on its checks (CORR-1); a reply of a thousand results for one call is a
/// protocol error, because every result is checked and its evidence kept for the run's end:
/// 1,000 results per case kept 2.4 MB per case (1.5 GiB over the suite) before this bound.
pub const MAX_EXTRA_RESULTS: usize = 16;

/// The most results a reply to a case of `calls` calls may carry.
pub fn max_results(calls: usize) -> usize {
    calls
        .saturating_add(MAX_EXTRA_RESULTS)
        .min(MAX_RESULTS_PER_REPLY)
}

/// The most JSON values one reply may hold, as [`json_values`] counts them. A reply is decoded
/// whole, and a value costs the runner far more than its text: 500,000 one-member objects
/// (4 MB on the wire) decoded to 350 MiB (docs/benchmarks.md), so a 64 MiB line could cost
/// gigabytes. Counted on the line's bytes before it is decoded, so a reply beyond it is a
/// protocol error (ERROR) that costs no memory. The corpus's largest reply is about 15,000
/// values (a 5,000-element argument echoed in `invocations` and `history`).
pub const MAX_REPLY_VALUES: usize = 65_536;

/// An upper bound on the JSON values in `line`: 1 + the `[`, `{` and `,` outside strings.
/// Never fewer than the values the line decodes to, and at most twice as many (an empty
/// container counts twice).
///
/// Most of a reply's bytes are string contents (the results' text), skipped with `memchr` to
/// the next quote or backslash rather than looked at one by one.
fn json_values(line: &[u8]) -> usize {
    let mut n = 1usize;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'"' => {
                // Inside a string: to its closing quote, stepping over escapes.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &line[i..]) {
                        None => return n,
                        Some(j) if line[i + j] == b'"' => {
                            i += j + 1;
                            break;
                        }
                        Some(j) => i = (i + j + 2).min(line.len()),
                    }
                }
                continue;
            }
            b'[' | b'{' | b',' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n
}

/// The deadline for writing `stop` at the end of a run; the group is killed after it.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// `now + d`, or a day from now when `d` is too large to add (an `Instant` cannot overflow).
pub(crate) fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400))
}

fn err(kind: AdapterErrorKind, message: impl Into<String>) -> AdapterError {
    AdapterError {
        kind,
        message: message.into(),
    }
}

/// Restarts left for a whole run, shared by every worker's [`ProcessHarness`] (clones of one
/// budget share it): a broken adapter costs at most `max_restarts` restarts in all, however many
/// workers there are.
#[derive(Debug, Clone)]
pub struct RestartBudget {
    max: u32,
    used: Arc<AtomicU32>,
}

impl RestartBudget {
    /// A budget of `max` restarts.
    pub fn new(max: u32) -> RestartBudget {
        RestartBudget {
            max,
            used: Arc::new(AtomicU32::new(0)),
        }
    }

    /// The restarts allowed in all.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// Takes one restart; false when none is left.
    fn take(&self) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .is_ok()
    }
}

/// Settings for [`ProcessHarness`]. Clones share one [`RestartBudget`].
#[derive(Debug, Clone)]
pub struct ProcessOptions {
    /// How long the handshake may take (interpreters and imports are slow to start).
    pub start_timeout: Duration,
    /// How many times crashed or hung adapters are restarted, across every harness made from
    /// clones of these options, before giving up.
    pub restarts: RestartBudget,
    /// Line and stderr limits.
    pub limits: DriverLimits,
}

impl ProcessOptions {
    /// The defaults with a budget of `max_restarts`.
    pub fn with_max_restarts(max_restarts: u32) -> ProcessOptions {
        ProcessOptions {
            restarts: RestartBudget::new(max_restarts),
            ..ProcessOptions::default()
        }
    }
}

impl Default for ProcessOptions {
    fn default() -> Self {
        ProcessOptions {
            start_timeout: Duration::from_secs(60),
            restarts: RestartBudget::new(8),
            limits: DriverLimits::default(),
        }
    }
}

/// An adapter process started from a shell command.
#[derive(Debug)]
pub struct ProcessHarness {
    command: String,
    opts: ProcessOptions,
    process: Option<AdapterProcess>,
    hello: Option<Arc<Hello>>,
    seq: u64,
    starts: u32,
    last_failure: Option<String>,
    /// The `run` line being sent, kept so each case reuses its allocation.
    line: Vec<u8>,
}

/// How much of the adapter's stderr a message quotes.
const STDERR_QUOTE: usize = 600;

impl ProcessHarness {
    /// A harness that will run `command` with `sh -c` when first needed.
    pub fn new(command: &str, opts: ProcessOptions) -> ProcessHarness {
        ProcessHarness {
            command: command.to_owned(),
            opts,
            process: None,
            hello: None,
            seq: 0,
            starts: 0,
            last_failure: None,
            line: Vec::new(),
        }
    }

    /// How many times the adapter process was started.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    fn ensure_started(&mut self) -> Result<(), AdapterError> {
        if self.process.is_some() {
            return Ok(());
        }
        // The first start of each harness is free; every later one is a restart, paid from the
        // run's shared budget.
        if self.starts > 0 && !self.opts.restarts.take() {
            return Err(err(
                AdapterErrorKind::GaveUp,
                format!(
                    "the adapter was restarted {} times in this run and keeps failing; not restarting it again (last failure here: {})",
                    self.opts.restarts.max(),
                    self.last_failure.as_deref().unwrap_or("another worker's")
                ),
            ));
        }
        self.starts += 1;
        let mut process = AdapterProcess::spawn(&self.command, self.opts.limits).map_err(|e| {
            err(
                AdapterErrorKind::Spawn,
                format!("cannot start `sh -c {:?}`: {e}", self.command),
            )
        })?;
        let start = serde_json::to_string(&Command::Start {
            suite: Some(harness_conformance_suite::SUITE_VERSION.to_owned()),
            protocol: PROTOCOL_VERSION,
        })
        .expect("commands serialize");
        let deadline = deadline_after(self.opts.start_timeout);
        let line = process
            .send(&start, deadline)
            .map_err(|e| {
                err(
                    AdapterErrorKind::Handshake,
                    format!("cannot send `start`: {e}"),
                )
            })
            .and_then(|()| {
                process.recv(deadline).map_err(|f| {
                    self.read_fault(&mut process, f, "the handshake", self.opts.start_timeout)
                })
            });
        let line = match line {
            Ok(line) => line,
            Err(mut e) => {
                if e.kind != AdapterErrorKind::Spawn {
                    e.kind = AdapterErrorKind::Handshake;
                }
                e.message.push_str(&stderr_note(&process));
                process.kill();
                self.last_failure = Some(e.message.clone());
                return Err(e);
            }
        };
        if line.len() > MAX_HELLO_BYTES {
            let msg = format!(
                "the hello is a line of {} bytes, over the runner's limit of {MAX_HELLO_BYTES} (a complete hello is a few KiB); it starts {}",
                line.len(),
                quote_bytes(&line)
            );
            process.kill();
            self.last_failure = Some(msg.clone());
            return Err(err(AdapterErrorKind::Handshake, msg));
        }
        let hello = match decode_hello(&line) {
            Ok(h) if overlong_list(&h.capabilities).is_some() => {
                let (list, n) = overlong_list(&h.capabilities).expect("just found");
                process.kill();
                let msg = format!(
                    "the hello's capabilities.{list} holds {n} names, over the runner's limit of {MAX_HELLO_NAMES} (the vocabulary has fewer than a hundred, each listed once)"
                );
                self.last_failure = Some(msg.clone());
                return Err(err(AdapterErrorKind::Handshake, msg));
            }
            Ok(h) if h.protocol == PROTOCOL_VERSION => h,
            Ok(h) => {
                process.kill();
                let e = err(
                    AdapterErrorKind::Handshake,
                    format!(
                        "the adapter speaks protocol {} and the runner speaks {PROTOCOL_VERSION}",
                        h.protocol
                    ),
                );
                self.last_failure = Some(e.message.clone());
                return Err(e);
            }
            Err(d) => {
                let msg = format!(
                    "the handshake answer is not a valid hello: {d}; the adapter sent {}{}",
                    quote_bytes(&line),
                    stderr_note(&process)
                );
                process.kill();
                self.last_failure = Some(msg.clone());
                return Err(err(AdapterErrorKind::Handshake, msg));
            }
        };
        if self.hello.is_none() {
            self.hello = Some(Arc::new(hello));
        }
        self.process = Some(process);
        Ok(())
    }

    fn read_fault(
        &self,
        process: &mut AdapterProcess,
        fault: ReadFault,
        what: &str,
        timeout: Duration,
    ) -> AdapterError {
        match fault {
            ReadFault::Timeout { partial } => err(
                AdapterErrorKind::Timeout,
                format!(
                    "no answer to {what} within {:.1}s; the adapter's process group was killed{}",
                    timeout.as_secs_f64(),
                    if partial.is_empty() {
                        String::new()
                    } else {
                        format!("; it had sent an unfinished line {}", quote_bytes(&partial))
                    }
                ),
            ),
            ReadFault::Closed { partial } => {
                let status = process
                    .exit_status(Duration::from_millis(200))
                    .map_or("still running".to_owned(), |s| s.to_string());
                process.settle_stderr(Duration::from_millis(200));
                err(
                    AdapterErrorKind::Exited,
                    format!(
                        "the adapter closed its stdout before answering {what} ({status}){}",
                        if partial.is_empty() {
                            String::new()
                        } else {
                            format!("; its last, unterminated line was {}", quote_bytes(&partial))
                        }
                    ),
                )
            }
            ReadFault::TooLong { head, len } => err(
                AdapterErrorKind::TooLong,
                format!(
                    "the adapter's answer to {what} is a line of more than {len} bytes (limit {}); it starts {}",
                    self.opts.limits.max_line,
                    quote_bytes(&head)
                ),
            ),
        }
    }

    fn fail(&mut self, mut e: AdapterError) -> AdapterError {
        if let Some(p) = self.process.take() {
            e.message.push_str(&stderr_note(&p));
            let escaped = p.kill();
            e.message.push_str(&escape_note(&escaped));
        }
        e.message
            .push_str("; the adapter was restarted for the next case");
        self.last_failure = Some(e.message.clone());
        e
    }
}

/// `Command::Run` by reference: the same JSON without cloning the case for every send.
#[derive(serde::Serialize)]
struct RunRef<'a> {
    cmd: &'static str,
    seq: u64,
    case: &'a WireCase,
}

/// What makes a decoded reply impossible: not exactly one of `results`, `skip`, `error`, or
/// `invocations` beside a `skip` (the same rule as `Reply::outcome`, checked here so that the
/// error can quote the bytes).
fn shape_problem(r: &Reply) -> Option<&'static str> {
    let answers = usize::from(r.results.is_some())
        + usize::from(r.skip.is_some())
        + usize::from(r.error.is_some());
    if answers != 1 {
        return Some("a reply has exactly one of `results`, `skip`, `error`");
    }
    if r.skip.is_some() && r.invocations.is_some() {
        return Some("a `skip` reply carries no `invocations`");
    }
    None
}

/// The ERROR of a case after which processes were found outside the adapter's group.
fn left_note(pids: &[u32]) -> String {
    format!(
        "the adapter answered, but left {} process(es) running outside its process group (pid {}): started with setsid, or orphaned by a double fork, they would outlive the adapter; the runner killed them. An adapter's processes stay in its process group (conformance/PROTOCOL.md 1.8)",
        pids.len(),
        pid_list(pids)
    )
}

/// The first 20 pids, comma-separated, with `…` when there are more.
fn pid_list(pids: &[u32]) -> String {
    let shown: Vec<String> = pids.iter().take(20).map(u32::to_string).collect();
    let more = if pids.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    format!("{}{more}", shown.join(", "))
}

/// What a message says about processes that escaped the killed group.
fn escape_note(pids: &[u32]) -> String {
    if pids.is_empty() {
        return String::new();
    }
    format!(
        "; {} process(es) it started had left its process group (setsid, a double fork, or still holding its pipes) (pid {}); they were killed",
        pids.len(),
        pid_list(pids)
    )
}

fn stderr_note(p: &AdapterProcess) -> String {
    let tail = p.stderr_tail();
    let tail = tail.trim_end();
    if tail.is_empty() {
        return String::new();
    }
    let start = tail.len().saturating_sub(STDERR_QUOTE);
    let mut start = start;
    while !tail.is_char_boundary(start) {
        start += 1;
    }
    format!("; its stderr ends with {:?}", &tail[start..])
}

impl Harness for ProcessHarness {
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError> {
        if let Some(h) = &self.hello {
            return Ok(Arc::clone(h));
        }
        self.ensure_started()?;
        Ok(self.hello.clone().expect("set by a successful start"))
    }

    fn run(&mut self, case: &WireCase, timeout: Duration) -> Result<Reply, AdapterError> {
        self.ensure_started()?;
        self.seq += 1;
        let seq = self.seq;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        serde_json::to_writer(
            &mut line,
            &RunRef {
                cmd: "run",
                seq,
                case,
            },
        )
        .expect("commands serialize");
        line.push(b'\n');
        let deadline = deadline_after(timeout);
        let mut process = self.process.take().expect("started");
        let sent = process.send_line(&line, deadline);
        self.line = line;
        let got = match sent {
            Err(e @ WriteFault::Timeout { .. }) => Err(err(
                AdapterErrorKind::Timeout,
                format!(
                    "cannot send case {:?} within {:.1}s: {e}; the adapter's process group was killed",
                    case.id,
                    timeout.as_secs_f64()
                ),
            )),
            Err(e) => Err(err(
                AdapterErrorKind::Exited,
                format!("cannot send the case to the adapter: {e}"),
            )),
            Ok(()) => process.recv(deadline).map_err(|f| {
                self.read_fault(&mut process, f, &format!("case {:?}", case.id), timeout)
            }),
        };
        self.process = Some(process);
        let bytes = match got {
            Ok(bytes) => bytes,
            Err(e) => return Err(self.fail(e)),
        };
        let values = json_values(&bytes);
        if values > MAX_REPLY_VALUES {
            return Err(self.fail(err(
                AdapterErrorKind::Garbage,
                format!(
                    "the reply holds {values} JSON values, over the runner's limit of {MAX_REPLY_VALUES} per reply (arrays, objects and their members count; the runner decodes a reply whole); it starts {}",
                    quote_bytes(&bytes)
                ),
            )));
        }
        let reply = match decode_reply(&bytes) {
            Ok(r) => r,
            Err(d) => {
                return Err(self.fail(err(
                    AdapterErrorKind::Garbage,
                    format!("the reply is {d}; the adapter sent {}", quote_bytes(&bytes)),
                )))
            }
        };
        if let Some(problem) = shape_problem(&reply) {
            return Err(self.fail(err(
                AdapterErrorKind::Garbage,
                format!(
                    "the reply is not a valid message: {problem}; the adapter sent {}",
                    quote_bytes(&bytes)
                ),
            )));
        }
        if let Some(n) = reply.results.as_ref().map(Vec::len) {
            let limit = max_results(case.calls.len());
            if n > limit {
                return Err(self.fail(err(
                    AdapterErrorKind::Garbage,
                    format!(
                        "the reply carries {n} results for {} call(s), over the runner's limit of {limit} results for this case (one per call, plus {MAX_EXTRA_RESULTS}, at most {MAX_RESULTS_PER_REPLY})",
                        case.calls.len()
                    ),
                )));
            }
        }
        if reply.seq != seq || reply.case != case.id {
            return Err(self.fail(err(
                AdapterErrorKind::WrongAnswer,
                format!(
                    "asked seq {seq} for case {:?}, the adapter answered seq {} for case {:?}: {}",
                    case.id,
                    reply.seq,
                    reply.case,
                    quote_bytes(&bytes)
                ),
            )));
        }
        // Processes outside the adapter's group are ended with the case that left them (the
        // group kill at the end of the run would miss them); the adapter itself goes on.
        let left = self
            .process
            .as_ref()
            .map(|p| p.leftovers())
            .unwrap_or_default();
        if !left.is_empty() {
            return Err(err(AdapterErrorKind::LeftProcess, left_note(&left)));
        }
        Ok(reply)
    }

    fn close(&mut self) {
        if let Some(p) = self.process.take() {
            let stop = serde_json::to_string(&Command::Stop {}).expect("commands serialize");
            p.stop(&stop, STOP_GRACE);
        }
    }
}

impl Drop for ProcessHarness {
    fn drop(&mut self) {
        self.close();
    }
}

/// The reference adapter, called in-process on a worker thread of its own, or on the caller's
/// thread ([`InProcess::inline`]).
///
/// The thread exists for the per-case timeout: a broken variant that hangs is abandoned (its
/// thread detached) and a fresh adapter takes its place, as a process would be killed and
/// restarted.
#[derive(Debug)]
pub struct InProcess {
    /// The adapter each worker thread starts from (the reference or one of its variants).
    adapter: harness_ref_adapter::ReferenceAdapter,
    worker: Option<InProcessWorker>,
    hello: Option<Arc<Hello>>,
    /// Run each case on the caller's thread.
    inline: bool,
}

#[derive(Debug)]
struct InProcessWorker {
    tx: std::sync::mpsc::Sender<WireCase>,
    rx: std::sync::mpsc::Receiver<Reply>,
}

impl InProcess {
    /// The reference harness, or one of its deliberately broken variants.
    pub fn new(fault: Option<harness_ref_adapter::Fault>) -> InProcess {
        InProcess::of(harness_ref_adapter::ReferenceAdapter::new(fault))
    }

    /// One of the reference's legitimate variants.
    pub fn legitimate(variant: harness_ref_adapter::Variant) -> InProcess {
        InProcess::of(harness_ref_adapter::ReferenceAdapter::legitimate(variant))
    }

    /// The same harness compiling its cases' schemas through `cache`, shared with other
    /// in-process harnesses (`selftest` gives the reference and every variant one cache).
    pub fn with_schema_cache(mut self, cache: harness_ref_adapter::SchemaCache) -> InProcess {
        self.adapter = self.adapter.with_schema_cache(cache);
        self
    }

    /// The same harness sharing its handler threads with other in-process harnesses
    /// (`selftest` gives the reference and every variant one set).
    pub fn with_handler_threads(
        mut self,
        threads: harness_ref_adapter::HandlerThreads,
    ) -> InProcess {
        self.adapter = self.adapter.with_handler_threads(threads);
        self
    }

    /// The same harness running each case on the caller's thread: no hand-off to a thread of
    /// its own and back, for a caller that runs many short cases (`selftest`). The reference's
    /// handlers that can block already run on threads that a deadline abandons, and a case
    /// that takes longer than its timeout is still the same timeout error, told when it
    /// returns instead of when the timeout passes: what is given up is only the early return
    /// from a variant that never answers.
    pub fn inline(mut self) -> InProcess {
        self.inline = true;
        self.worker = None;
        self
    }

    fn of(adapter: harness_ref_adapter::ReferenceAdapter) -> InProcess {
        InProcess {
            adapter,
            worker: None,
            hello: None,
            inline: false,
        }
    }

    fn timed_out(case: &WireCase, timeout: Duration) -> AdapterError {
        err(
            AdapterErrorKind::Timeout,
            format!(
                "the in-process reference adapter did not answer case {:?} within {:.1}s; it was abandoned and replaced",
                case.id,
                timeout.as_secs_f64()
            ),
        )
    }

    /// Whether `reply` answers `case`, as the one the runner sees.
    fn answers(case: &WireCase, reply: Reply) -> Result<Reply, AdapterError> {
        if reply.case != case.id {
            return Err(err(
                AdapterErrorKind::WrongAnswer,
                format!(
                    "asked case {:?}, the in-process adapter answered for {:?}",
                    case.id, reply.case
                ),
            ));
        }
        Ok(Reply { seq: 0, ..reply })
    }

    fn worker(&mut self) -> &mut InProcessWorker {
        let template = &self.adapter;
        self.worker.get_or_insert_with(|| {
            let mut adapter = template.clone();
            let (case_tx, case_rx) = std::sync::mpsc::channel::<WireCase>();
            let (reply_tx, reply_rx) = std::sync::mpsc::channel::<Reply>();
            std::thread::Builder::new()
                .name("reference-adapter".into())
                .spawn(move || {
                    for case in case_rx {
                        if reply_tx.send(adapter.run(&case)).is_err() {
                            return;
                        }
                    }
                })
                .expect("a thread can be spawned");
            InProcessWorker {
                tx: case_tx,
                rx: reply_rx,
            }
        })
    }
}

impl Harness for InProcess {
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError> {
        let adapter = &self.adapter;
        Ok(Arc::clone(
            self.hello.get_or_insert_with(|| Arc::new(adapter.hello())),
        ))
    }

    fn run(&mut self, case: &WireCase, timeout: Duration) -> Result<Reply, AdapterError> {
        if self.inline {
            let started = Instant::now();
            // `ReferenceAdapter::run` catches its own panics (an `error` reply).
            let reply = self.adapter.run(case);
            if started.elapsed() > timeout {
                return Err(Self::timed_out(case, timeout));
            }
            return Self::answers(case, reply);
        }
        let worker = self.worker();
        if worker.tx.send(case.clone()).is_err() {
            self.worker = None;
            return Err(err(
                AdapterErrorKind::Exited,
                "the in-process adapter thread died (a panic)",
            ));
        }
        match worker.rx.recv_timeout(timeout) {
            Ok(reply) => Self::answers(case, reply),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                self.worker = None;
                Err(Self::timed_out(case, timeout))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                self.worker = None;
                Err(err(
                    AdapterErrorKind::Exited,
                    format!(
                        "the in-process reference adapter panicked on case {:?}",
                        case.id
                    ),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_by_reference_encodes_like_the_command() {
        let case: WireCase = serde_json::from_value(serde_json::json!({
            "id": "a/b", "tools": [], "calls": [{"id": "x", "name": "t", "input": {}}]
        }))
        .unwrap();
        let by_ref = serde_json::to_string(&RunRef {
            cmd: "run",
            seq: 3,
            case: &case,
        })
        .unwrap();
        let owned = serde_json::to_string(&Command::Run { seq: 3, case }).unwrap();
        assert_eq!(by_ref, owned);
    }

    #[test]
    fn json_values_counts_containers_and_members_outside_strings() {
        for (text, n) in [
            ("1", 1),
            ("[]", 2),
            ("[1,2,3]", 4),
            (r#"{"a":[{},{}],"b":"x,[{"}"#, 7),
            (r#"["a\"[,", "\\", {}]"#, 5),
            ("[[],[],[]]", 7),
        ] {
            assert_eq!(json_values(text.as_bytes()), n, "{text}");
        }
        // Never smaller than the values serde_json decodes.
        let value: serde_json::Value =
            serde_json::from_str(r#"{"h":[[],{"a":[1,2]},"s\"{"],"n":null}"#).unwrap();
        fn count(v: &serde_json::Value) -> usize {
            1 + match v {
                serde_json::Value::Array(a) => a.iter().map(count).sum(),
                serde_json::Value::Object(o) => o.values().map(count).sum(),
                _ => 0,
            }
        }
        assert!(json_values(value.to_string().as_bytes()) >= count(&value));
    }
}
