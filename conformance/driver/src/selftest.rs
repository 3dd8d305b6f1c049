//! `selftest`: the suite against the reference harness and two kinds of variants of it, to prove
//! both that the suite has teeth and that it is fair.
//!
//! - Every deliberately broken variant ([`Fault`]) must fail at least one case that the
//!   reference passes: a variant no case catches is a *gap* in the suite. And its
//!   per-requirement table must be true ([`Blame`]): every requirement it declares it violates
//!   ([`Fault::violates`]) fails (*recall*), and no other MUST does (*precision*). Both are
//!   printed as figures over all variants and must be 100%: the table is what the matrix
//!   publishes, so a wrong owner is as much a bug as a missed fault.
//! - Every legitimate variant ([`Variant`]) — another correct design — must pass: no MUST
//!   requirement fails, no case is ERROR or BUG IN CASE, and a SHOULD fails only where the
//!   variant deliberately departs from it ([`Variant::departs_from`]). Anything else is a *false
//!   alarm*: a case that forbids a valid design (test262's rule), as visible as a gap. NOT
//!   TESTABLE and NOT APPLICABLE are fine: they follow from what the variant declares.
//!
//! It lives in the driver because it is a scheduling job: the variants run in-process on worker
//! threads, several at a time. Its account is plain text ([`SelftestReport::render`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use harness_conformance_protocol::{Behavior, Output, StreamPart};
use harness_conformance_suite::blame::CheckKind;
use harness_conformance_suite::case::Case;
use harness_conformance_suite::coverage::Status;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};
use harness_ref_adapter::{Fault, HandlerThreads, SchemaCache, Variant};

use crate::client::InProcess;
use crate::runner::{self, RunConfig};

/// Which variants a selftest runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sides {
    /// The broken and the legitimate ones.
    #[default]
    Both,
    /// The broken ones only: does the suite have teeth?
    Broken,
    /// The legitimate ones only: is the suite fair?
    Legitimate,
}

impl Sides {
    fn broken(self) -> bool {
        self != Sides::Legitimate
    }

    fn legitimate(self) -> bool {
        self != Sides::Broken
    }
}

/// The selftest's findings.
#[derive(Debug)]
pub struct SelftestReport {
    /// Which variants were run.
    pub sides: Sides,
    /// The reference itself (must have no unexpected results).
    pub reference: RunResult,
    /// Each broken variant's run.
    pub broken: Vec<(Fault, RunResult)>,
    /// Each legitimate variant's run.
    pub legitimate: Vec<(Variant, RunResult)>,
    /// The correct configurations other than the reference that some broken variants are
    /// broken versions of ([`Fault::base`]), run once each: such a variant is judged against
    /// its base, which declares what it declares.
    pub bases: Vec<(Variant, RunResult)>,
}

/// Something a legitimate variant's run shows that a correct design must not: a false alarm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FalseAlarm {
    /// A requirement failed: a MUST, or a SHOULD the variant does not depart from.
    Requirement {
        /// The requirement id.
        id: String,
        /// Its level.
        level: Level,
        /// The cases where one of its checks failed, in order.
        cases: Vec<String>,
    },
    /// A case was ERROR or BUG IN CASE.
    Case {
        /// The case id.
        id: String,
        /// The verdict.
        verdict: Verdict,
    },
    /// The handshake failed: nothing ran.
    Handshake(String),
}

/// How a broken variant's per-requirement table matches what it declares it violates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Blame {
    /// Declared requirements that failed.
    pub caught: Vec<&'static str>,
    /// Declared requirements the run could show (the judge run tested them) that did not fail:
    /// recall misses.
    pub missed: Vec<&'static str>,
    /// MUST requirements that failed without being declared: precision misses.
    pub extra: Vec<String>,
    /// How many failing MUSTs were declared (the precision's numerator).
    pub musts_declared: usize,
    /// Requirements that promise an answer (they own `answered` checks) and read PASS on fewer
    /// cases than the judge run tested them on: evidence silently lost (id, cases here, cases
    /// there).
    pub thin: Vec<(String, usize, usize)>,
}

impl Blame {
    /// Whether the table is exactly what the variant declares, on all the evidence.
    pub fn exact(&self) -> bool {
        self.missed.is_empty() && self.extra.is_empty() && self.thin.is_empty()
    }
}

/// Recall and precision over every broken variant: (declared that fail, declared that could),
/// (failing MUSTs declared, failing MUSTs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlameTotals {
    /// Declared requirements that failed.
    pub caught: usize,
    /// Declared requirements the runs could show.
    pub declared: usize,
    /// Failing MUST requirements that were declared.
    pub musts_declared: usize,
    /// Failing MUST requirements.
    pub musts_failing: usize,
}

impl BlameTotals {
    /// `n / d` as a percentage; 100% when there is nothing to count.
    fn percent(n: usize, d: usize) -> f64 {
        if d == 0 {
            100.0
        } else {
            100.0 * n as f64 / d as f64
        }
    }

    /// Each declared requirement fails.
    pub fn recall(&self) -> f64 {
        Self::percent(self.caught, self.declared)
    }

    /// No undeclared MUST fails.
    pub fn precision(&self) -> f64 {
        Self::percent(self.musts_declared, self.musts_failing)
    }
}

/// What `result`'s per-requirement table says about `fault`, against the run it is judged
/// against (`judge`: a declared requirement it did not test cannot fail here, e.g. under
/// `--run`; one that fails there too proves nothing).
fn blame_of(fault: Fault, judge: &RunResult, result: &RunResult) -> Blame {
    let status = |run: &RunResult, id: &str| {
        run.coverage
            .requirements
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.status)
    };
    let mut blame = Blame::default();
    for id in fault.violates() {
        match status(result, id) {
            Some(Status::Fail) => blame.caught.push(id),
            _ if status(judge, id) == Some(Status::Pass) => blame.missed.push(id),
            _ => {}
        }
    }
    for r in &result.coverage.requirements {
        if r.level != Level::Must || r.status != Status::Fail {
            continue;
        }
        if fault.violates().contains(&r.id.as_str()) {
            blame.musts_declared += 1;
        } else if status(judge, &r.id) != Some(Status::Fail) {
            blame.extra.push(r.id.clone());
        }
    }
    // A requirement never reads PASS on fewer of the cases where it promises an answer (it owns
    // their `answered` checks) than the correct harness is tested on: a lost answer is its
    // failure, not a smaller sample.
    fn answered_in(run: &RunResult) -> BTreeMap<&str, BTreeSet<&str>> {
        let mut cases: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for o in &run.outcomes {
            for c in o.checks.iter().filter(|c| c.kind == CheckKind::Answered) {
                cases
                    .entry(c.requirement.as_str())
                    .or_default()
                    .insert(o.id.as_str());
            }
        }
        cases
    }
    let same_hello = judge.hello.as_ref().map(|h| &h.capabilities)
        == result.hello.as_ref().map(|h| &h.capabilities);
    let (here, there) = (answered_in(result), answered_in(judge));
    for r in result
        .coverage
        .requirements
        .iter()
        .filter(|r| same_hello && r.status == Status::Pass)
    {
        let count =
            |m: &BTreeMap<&str, BTreeSet<&str>>| m.get(r.id.as_str()).map_or(0, BTreeSet::len);
        if count(&here) < count(&there) {
            blame.thin.push((r.id.clone(), count(&here), count(&there)));
        }
    }
    blame
}

impl SelftestReport {
    /// How `fault`'s per-requirement table matches its declaration.
    pub fn blame(&self, fault: Fault, result: &RunResult) -> Blame {
        blame_of(fault, judge(&self.reference, &self.bases, fault), result)
    }

    /// Recall and precision of the blame over every broken variant.
    pub fn blame_totals(&self) -> BlameTotals {
        let mut t = BlameTotals::default();
        for (fault, result) in &self.broken {
            let b = self.blame(*fault, result);
            t.caught += b.caught.len();
            t.declared += b.caught.len() + b.missed.len();
            t.musts_declared += b.musts_declared;
            t.musts_failing += b.musts_declared + b.extra.len();
        }
        t
    }

    /// The cases that caught a broken variant: FAIL or ERROR on it, PASS on the reference (a
    /// case the reference fails too proves nothing about the variant), or on the variant's
    /// base when it has one.
    pub fn caught_by<'r>(&self, fault: Fault, result: &'r RunResult) -> Vec<&'r CaseOutcome> {
        caught(judge(&self.reference, &self.bases, fault), result)
    }

    /// The broken variants no case caught: gaps in the suite.
    pub fn gaps(&self) -> Vec<Fault> {
        self.broken
            .iter()
            .filter(|(f, r)| self.caught_by(*f, r).is_empty())
            .map(|(f, _)| *f)
            .collect()
    }

    /// The legitimate variants that do not pass, with their false alarms.
    pub fn false_alarms(&self) -> Vec<(Variant, Vec<FalseAlarm>)> {
        self.legitimate
            .iter()
            .map(|(v, r)| (*v, false_alarms(*v, r)))
            .filter(|(_, alarms)| !alarms.is_empty())
            .collect()
    }

    /// True when the reference passes, every broken variant is caught with exactly the
    /// requirements it violates failing, and every legitimate one passes.
    pub fn ok(&self) -> bool {
        !self.reference.failed()
            && self.gaps().is_empty()
            && self.false_alarms().is_empty()
            && self.broken.iter().all(|(f, r)| self.blame(*f, r).exact())
    }

    /// A plain-text account.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_reference(&mut out);
        if self.sides.broken() {
            for (fault, result) in &self.broken {
                render_broken(&mut out, *fault, &self.caught_by(*fault, result));
                render_blame(&mut out, *fault, &self.blame(*fault, result));
            }
            let gaps = self.gaps().len();
            let _ = writeln!(
                out,
                "broken variants caught {}/{}",
                self.broken.len() - gaps,
                self.broken.len()
            );
            let t = self.blame_totals();
            let _ = writeln!(
                out,
                "blame recall {:.1}% ({} of {} declared violations fail) · precision {:.1}% ({} of {} failing MUSTs declared)",
                t.recall(),
                t.caught,
                t.declared,
                t.precision(),
                t.musts_declared,
                t.musts_failing
            );
        }
        if self.sides.legitimate() {
            let mut failing = 0;
            for (variant, result) in &self.legitimate {
                let alarms = false_alarms(*variant, result);
                failing += usize::from(!alarms.is_empty());
                render_legitimate(&mut out, *variant, result, &alarms);
            }
            let _ = writeln!(
                out,
                "legitimate variants passing {}/{}",
                self.legitimate.len() - failing,
                self.legitimate.len()
            );
        }
        let _ = writeln!(
            out,
            "{}",
            if self.ok() {
                "selftest ok"
            } else {
                "selftest FAILED"
            }
        );
        out
    }

    fn render_reference(&self, out: &mut String) {
        let bad: Vec<&CaseOutcome> = self
            .reference
            .outcomes
            .iter()
            .filter(|o| o.verdict.is_unexpected())
            .collect();
        let _ = writeln!(
            out,
            "reference: {} case(s), {} unexpected{}",
            self.reference.outcomes.len(),
            bad.len(),
            if bad.is_empty() {
                ""
            } else {
                " — the selftest needs a passing reference:"
            }
        );
        for o in bad {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                o.verdict,
                o.id,
                shown(o.messages.first().map_or("", String::as_str))
            );
        }
    }
}

fn render_broken(out: &mut String, fault: Fault, caught: &[&CaseOutcome]) {
    let Some(first) = caught.first() else {
        let _ = writeln!(
            out,
            "GAP    {:<32} no case catches it: {}",
            fault.name(),
            fault.describe()
        );
        return;
    };
    let ids: Vec<&str> = caught.iter().map(|o| o.id.as_str()).collect();
    let _ = writeln!(
        out,
        "caught {:<32} by {} case(s): {}",
        fault.name(),
        ids.len(),
        listed(&ids, 6)
    );
    let _ = writeln!(
        out,
        "       reproduce: {}",
        reproducer(&format!("--fault {}", fault.name()), &first.id)
    );
}

/// A broken variant's table where it is not what the variant declares.
fn render_blame(out: &mut String, fault: Fault, blame: &Blame) {
    if !blame.missed.is_empty() {
        let _ = writeln!(
            out,
            "BLAME  {:<32} declares {} but it does not fail (a check that should see the fault is not owned by it, or the fault went unanswered)",
            fault.name(),
            blame.missed.join(", ")
        );
    }
    if !blame.extra.is_empty() {
        let _ = writeln!(
            out,
            "BLAME  {:<32} fails MUST {} it does not violate (a check blames the wrong requirement)",
            fault.name(),
            blame.extra.join(", ")
        );
    }
    for (id, here, there) in &blame.thin {
        let _ = writeln!(
            out,
            "BLAME  {:<32} {id} reads PASS with its answers checked in {here} case(s), the reference's in {there}: an answer it promised went missing without failing it",
            fault.name()
        );
    }
}

fn render_legitimate(
    out: &mut String,
    variant: Variant,
    result: &RunResult,
    alarms: &[FalseAlarm],
) {
    let must = result.coverage.summary(Level::Must);
    let not_testable: Vec<String> = result
        .coverage
        .not_testable(Level::Must)
        .into_keys()
        .collect();
    let untested = if not_testable.is_empty() {
        String::new()
    } else {
        format!(" (not testable: {})", not_testable.join(", "))
    };
    let departures: Vec<String> = variant
        .departs_from()
        .iter()
        .filter_map(|id| {
            let r = result.coverage.requirements.iter().find(|r| r.id == *id)?;
            (r.status == Status::Fail).then(|| format!("{id} in {} case(s)", r.failing_cases.len()))
        })
        .collect();
    let departs = if departures.is_empty() {
        String::new()
    } else {
        format!(
            "; fails, as it departs from them: {}",
            departures.join(", ")
        )
    };
    if alarms.is_empty() {
        let _ = writeln!(
            out,
            "pass   {:<32} {must}{untested}{departs}",
            variant.name()
        );
        return;
    }
    let _ = writeln!(
        out,
        "FALSE ALARM {:<27} {}: {}",
        variant.name(),
        variant.describe(),
        must
    );
    let flag = format!("--variant {}", variant.name());
    for alarm in alarms {
        match alarm {
            FalseAlarm::Requirement { id, level, cases } => {
                let _ = writeln!(
                    out,
                    "       {} {id} fails in {} case(s): {}",
                    level.as_str(),
                    cases.len(),
                    listed(&cases.iter().map(String::as_str).collect::<Vec<_>>(), 4)
                );
                if let Some(first) = cases.first() {
                    if let Some(why) = failed_check(result, first, id) {
                        let _ = writeln!(out, "         {first}: {}", shown(why));
                    }
                    let _ = writeln!(out, "         reproduce: {}", reproducer(&flag, first));
                }
            }
            FalseAlarm::Case { id, verdict } => {
                let message = result
                    .outcomes
                    .iter()
                    .find(|o| o.id == *id)
                    .and_then(|o| o.messages.first())
                    .map_or("", String::as_str);
                let _ = writeln!(out, "       {verdict} {id}: {}", shown(message));
                let _ = writeln!(out, "         reproduce: {}", reproducer(&flag, id));
            }
            FalseAlarm::Handshake(message) => {
                let _ = writeln!(out, "       the handshake failed: {}", shown(message));
            }
        }
    }
}

/// The first failure message of a check owned by `requirement` in case `id`.
fn failed_check<'r>(result: &'r RunResult, id: &str, requirement: &str) -> Option<&'r str> {
    result
        .outcomes
        .iter()
        .find(|o| o.id == id)?
        .checks
        .iter()
        .filter(|c| c.requirement == requirement)
        .find_map(|c| c.failure.as_deref())
}

fn reproducer(flag: &str, case: &str) -> String {
    format!("harness-conformance run --harness 'harness-ref-adapter {flag}' --run {case}")
}

/// The first `n` ids, then how many more.
fn listed(ids: &[&str], n: usize) -> String {
    let shown = ids.iter().take(n).copied().collect::<Vec<_>>().join(", ");
    if ids.len() > n {
        format!("{shown} and {} more", ids.len() - n)
    } else {
        shown
    }
}

/// A message on one line, bounded: control characters escaped, at most 400 chars.
fn shown(message: &str) -> String {
    const MAX: usize = 400;
    let mut out: String = message
        .chars()
        .take(MAX)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if message.chars().count() > MAX {
        out.push('…');
    }
    out
}

/// The run a broken variant is judged against: its base's, or the reference's.
fn judge<'a>(
    reference: &'a RunResult,
    bases: &'a [(Variant, RunResult)],
    fault: Fault,
) -> &'a RunResult {
    fault
        .base()
        .and_then(|v| bases.iter().find(|(b, _)| *b == v))
        .map_or(reference, |(_, r)| r)
}

fn caught<'r>(reference: &RunResult, result: &'r RunResult) -> Vec<&'r CaseOutcome> {
    result
        .outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Fail | Verdict::Error))
        .filter(|o| {
            reference
                .outcomes
                .iter()
                .any(|r| r.id == o.id && r.verdict == Verdict::Pass)
        })
        .collect()
}

/// What a legitimate variant's run shows that a correct design must not: a failing MUST, a
/// failing SHOULD it does not depart from, an ERROR or BUG IN CASE, a failed handshake. Empty
/// when the variant passes. (A run without SPEC.md's requirements has no coverage, so only the
/// case verdicts count: every FAIL is then an alarm.)
pub fn false_alarms(variant: Variant, result: &RunResult) -> Vec<FalseAlarm> {
    let mut alarms = Vec::new();
    if let Some(message) = &result.handshake_error {
        alarms.push(FalseAlarm::Handshake(message.clone()));
        return alarms;
    }
    let departs =
        |id: &str, level: Level| level != Level::Must && variant.departs_from().contains(&id);
    for r in &result.coverage.requirements {
        if r.status == Status::Fail && !departs(&r.id, r.level) {
            alarms.push(FalseAlarm::Requirement {
                id: r.id.clone(),
                level: r.level,
                cases: r.failing_cases.clone(),
            });
        }
    }
    for o in &result.outcomes {
        let alarm = match o.verdict {
            Verdict::Error | Verdict::BugInCase => true,
            Verdict::Fail if result.coverage.requirements.is_empty() => o
                .failing_requirements()
                .iter()
                .any(|id| !variant.departs_from().contains(id)),
            _ => false,
        };
        if alarm {
            alarms.push(FalseAlarm::Case {
                id: o.id.clone(),
                verdict: o.verdict,
            });
        }
    }
    alarms
}

/// How many variants' worth of workers `selftest` runs cases on: `--jobs` per variant, four
/// variants' worth, whichever runs the cases belong to. More would starve the deadline cases
/// of CPU on a busy machine: at 8 variants at a time, quick calls beside a sleeping one timed
/// out at load 26 and the selftest's result changed (docs/benchmarks.md); fewer take a smaller
/// share of a machine shared with other work (on an idle one, two workers keep two cores
/// busy as well).
pub const VARIANTS_AT_ONCE: usize = 4;

/// How many of the selftest's cases that wait (handlers that sleep, a turn cancelled after a
/// while) run at the same time, across all its runs: they cost no CPU while they wait, and a
/// run's waits add up to about 5 s (24 cases of 75–300 ms, more in a variant that ignores its
/// deadline), so the waits of a hundred runs need this many at once to end with the work that
/// computes. The cases that compute run on `--jobs` workers, whichever run they belong to.
pub const WAITING_AT_ONCE: usize = 128;

/// The cases that wait, by their script: a handler sleeps (before it answers, or between the
/// parts of a streamed output), the turn is cancelled after a while, or its calls pause for
/// the user's decisions (one that never comes is waited for until the case's `wait_ms`). `selftest` gives them
/// workers of their own ([`runner::run_pooled`], [`runner::run_with_sleepers`]).
fn waiting(cases: &[&Case]) -> Vec<bool> {
    fn sleeps(b: &Behavior) -> bool {
        match b {
            Behavior::Sleep { .. } => true,
            Behavior::MutateArgs { then, .. } => sleeps(then),
            Behavior::Return {
                output: Output::Stream(parts),
            } => parts.iter().any(|p| matches!(p, StreamPart::SleepMs(_))),
            _ => false,
        }
    }
    cases
        .iter()
        .map(|c| {
            c.cancel_after_ms.is_some()
                || c.pause.is_some()
                || c.tools.iter().any(|t| sleeps(&t.behavior))
        })
        .collect()
}

/// One run of the selftest: the reference, or a variant of it.
#[derive(Debug, Clone, Copy)]
enum Job {
    Reference,
    Broken(Fault),
    Legitimate(Variant),
}

impl Job {
    fn name(self) -> &'static str {
        match self {
            Job::Reference => "reference",
            Job::Broken(fault) => fault.name(),
            Job::Legitimate(variant) => variant.name(),
        }
    }

    /// The run's harness, compiling schemas through `shared`'s cache and running isolated
    /// handlers on its threads, each case on the caller's thread.
    fn harness(self, shared: &Shared) -> InProcess {
        let harness = match self {
            Job::Reference => InProcess::new(None),
            Job::Broken(fault) => InProcess::new(Some(fault)),
            Job::Legitimate(variant) => InProcess::legitimate(variant),
        };
        harness
            .with_schema_cache(shared.schemas.clone())
            .with_handler_threads(shared.threads.clone())
            .inline()
    }
}

/// What every run of one selftest shares: the same tools are registered case after case and
/// variant after variant, so their schemas are compiled once, and a handler thread one run
/// finished with serves the next.
#[derive(Default)]
struct Shared {
    schemas: SchemaCache,
    threads: HandlerThreads,
}

/// Runs `cases` against one legitimate variant.
pub fn run_legitimate(cases: &[&Case], variant: Variant, cfg: &RunConfig) -> RunResult {
    run_job(cases, Job::Legitimate(variant), cfg, &Shared::default())
}

/// One run alone.
fn run_job(cases: &[&Case], job: Job, cfg: &RunConfig, shared: &Shared) -> RunResult {
    // A variant that ignores its deadline sleeps 2.5 s in each of eight cases: 10 s on two
    // workers, 2.5 s with a worker per sleeping case.
    let waits = waiting(cases);
    let sleepers: Vec<usize> = (0..cases.len()).filter(|&i| waits[i]).collect();
    runner::run_with_sleepers(
        cases,
        &sleepers,
        &move || -> Box<dyn Harness + Send> { Box::new(job.harness(shared)) },
        cfg,
        &|_, _, _| {},
    )
}

/// Runs `cases` against the reference and each of its broken variants, its legitimate ones, or
/// both (`sides`). `log` gets one line per finished variant.
pub fn selftest(
    cases: &[&Case],
    cfg: &RunConfig,
    sides: Sides,
    log: &(dyn Fn(&str) + Sync),
) -> SelftestReport {
    let shared = Shared::default();
    // The correct configurations broken variants are judged against: the reference, and the
    // bases of broken variants that are not the reference (each counted as its legitimate
    // variant's run too).
    let mut base_variants: Vec<Variant> = Vec::new();
    for fault in Fault::ALL.iter().filter(|_| sides.broken()) {
        if let Some(base) = fault.base().filter(|b| !base_variants.contains(b)) {
            base_variants.push(base);
        }
    }
    let judges: Vec<Job> = std::iter::once(Job::Reference)
        .chain(base_variants.iter().map(|v| Job::Legitimate(*v)))
        .collect();
    let broken = Fault::ALL.iter().filter(|_| sides.broken());
    let legitimate = Variant::ALL
        .iter()
        .filter(|v| sides.legitimate() && !base_variants.contains(v));
    // Judging is unchanged by the order of work: each run runs every case it is given, and
    // its outcomes are in the cases' order. All runs share one set of workers
    // ([`runner::run_pooled`]): the cases that compute on `--jobs` × [`VARIANTS_AT_ONCE`]
    // workers, whichever run they belong to, and the cases that wait on workers of their own, so the cores are never idle
    // while some run's slowest handler sleeps. The judges come first.
    let jobs: Vec<Job> = judges
        .iter()
        .copied()
        .chain(broken.map(|f| Job::Broken(*f)))
        .chain(legitimate.map(|v| Job::Legitimate(*v)))
        .collect();
    // The judges' runs, once finished (for the variants' progress lines).
    let judged: Vec<std::sync::OnceLock<RunResult>> =
        judges.iter().map(|_| std::sync::OnceLock::new()).collect();
    let judge_at = |fault: Fault| {
        fault
            .base()
            .and_then(|v| base_variants.iter().position(|b| *b == v))
            .map_or(0, |i| i + 1)
    };
    // A variant's progress line, once the run it is judged against has finished.
    let line = |job: Job, result: &RunResult| -> Option<String> {
        let secs = result.elapsed.as_secs_f64();
        Some(match job {
            Job::Broken(fault) => format!(
                "selftest: {} — {} case(s) catch it ({secs:.2}s)",
                fault.name(),
                caught(judged[judge_at(fault)].get()?, result).len(),
            ),
            Job::Legitimate(variant) => format!(
                "selftest: {} — {} false alarm(s) ({secs:.2}s)",
                variant.name(),
                false_alarms(variant, result).len(),
            ),
            Job::Reference => String::new(),
        })
    };
    // Broken variants that finished before their judge: their lines are told when it has.
    let untold: std::sync::Mutex<Vec<(Job, RunResult)>> = std::sync::Mutex::new(Vec::new());
    let finished = |run: usize, result: &RunResult| {
        let job = jobs[run];
        let Ok(mut untold) = untold.lock() else {
            return;
        };
        if let Some(slot) = judged.get(run) {
            let secs = result.elapsed.as_secs_f64();
            log(&match job {
                Job::Reference => format!("selftest: reference done in {secs:.2}s"),
                _ => format!("selftest: base {} done in {secs:.2}s", job.name()),
            });
            let _ = slot.set(result.clone());
            untold.retain(|(job, result)| match line(*job, result) {
                Some(l) => {
                    log(&l);
                    false
                }
                None => true,
            });
            return;
        }
        match line(job, result) {
            Some(l) => log(&l),
            None => untold.push((job, result.clone())),
        }
    };
    let pooled = RunConfig {
        jobs: cfg.jobs.saturating_mul(VARIANTS_AT_ONCE),
        ..cfg.clone()
    };
    let mut results = runner::run_pooled(
        cases,
        &waiting(cases),
        jobs.len(),
        &|run| -> Box<dyn Harness + Send> { Box::new(jobs[run].harness(&shared)) },
        &pooled,
        WAITING_AT_ONCE,
        &finished,
    );
    // The variants' runs, in the jobs' order, after the judges'.
    let mut done: Vec<(Job, RunResult)> = jobs[judges.len()..]
        .iter()
        .copied()
        .zip(results.split_off(judges.len()))
        .collect();
    let mut judged = results;
    // The reference is the first judge; the bases follow in `base_variants`' order.
    let mut reference = judged.remove(0);
    let mut bases: Vec<(Variant, RunResult)> = base_variants.into_iter().zip(judged).collect();
    // A run whose account is off (a reference with unexpected results, a base or legitimate
    // variant with a false alarm, a broken variant with a wrong owner) runs once more, alone.
    // The deadline, cancellation and ordering cases judge time, and with runs side by side on
    // a loaded machine a quick call can starve past its deadline: at load 34, a different
    // variant failed OUT-4 or CANCEL-1 in each of three runs. A fault of the suite shows again
    // alone; starvation does not. The second run's result is the one judged. The judges go
    // first, since the variants are judged against them.
    let again = |job: Job, why: &str| {
        let result = run_job(cases, job, cfg, &shared);
        log(&format!(
            "selftest: {} run again alone, {why} beside the others ({:.2}s)",
            job.name(),
            result.elapsed.as_secs_f64()
        ));
        result
    };
    if reference.failed() {
        reference = again(Job::Reference, "it had unexpected results");
    }
    for (variant, result) in &mut bases {
        if !false_alarms(*variant, result).is_empty() {
            *result = again(Job::Legitimate(*variant), "its account was off");
        }
    }
    for (job, result) in &mut done {
        let off = match *job {
            Job::Broken(fault) => {
                !blame_of(fault, judge(&reference, &bases, fault), result).exact()
            }
            Job::Legitimate(variant) => !false_alarms(variant, result).is_empty(),
            Job::Reference => false,
        };
        if off {
            *result = again(*job, "its account was off");
        }
    }
    let mut report = SelftestReport {
        sides,
        reference,
        broken: Vec::new(),
        legitimate: Vec::new(),
        bases: Vec::new(),
    };
    for (job, result) in done {
        match job {
            Job::Broken(fault) => report.broken.push((fault, result)),
            Job::Legitimate(variant) => report.legitimate.push((variant, result)),
            Job::Reference => {}
        }
    }
    if sides.legitimate() {
        for (variant, result) in &bases {
            report.legitimate.push((*variant, result.clone()));
        }
        report
            .legitimate
            .sort_by_key(|(v, _)| Variant::ALL.iter().position(|x| x == v));
    }
    report.bases = bases;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_suite::loader;
    use std::time::Duration;

    fn config(suite: &loader::Suite) -> RunConfig {
        RunConfig {
            jobs: 2,
            timeout: Duration::from_secs(20),
            requirements: suite.requirements.clone(),
            // The tests compare the variants' answers with the reference's.
            keep_results: true,
            ..RunConfig::default()
        }
    }

    /// Cases where the variant's design shows: it must pass them, and its answers must differ
    /// from the reference's in at least one (or the test proves nothing).
    fn passes_where_it_differs(variant: Variant, ids: &[&str]) {
        let suite = loader::load_embedded().expect("the embedded suite loads");
        let cases: Vec<&Case> = ids
            .iter()
            .map(|id| suite.case(id).unwrap_or_else(|| panic!("no case {id}")))
            .collect();
        let cfg = config(&suite);
        let result = run_legitimate(&cases, variant, &cfg);
        let alarms = false_alarms(variant, &result);
        assert!(
            alarms.is_empty(),
            "{}: {alarms:?}\n{result:#?}",
            variant.name()
        );
        assert!(result.outcomes.iter().all(|o| o.verdict == Verdict::Pass));
        let reference = runner::run(
            &cases,
            &|| -> Box<dyn Harness + Send> { Box::new(InProcess::new(None)) },
            &cfg,
            &|_, _, _| {},
        );
        assert!(
            result
                .outcomes
                .iter()
                .zip(&reference.outcomes)
                .any(|(v, r)| v.results != r.results),
            "{} answered these cases exactly like the reference",
            variant.name()
        );
    }

    #[test]
    fn variants_depart_only_from_should_requirements_that_exist() {
        // A variant excused from a MUST, or from a requirement SPEC.md no longer has, would
        // let a false alarm through unseen.
        let suite = loader::load_embedded().expect("the embedded suite loads");
        for variant in Variant::ALL {
            for id in variant.departs_from() {
                let requirement = suite
                    .requirement(id)
                    .unwrap_or_else(|| panic!("{}: SPEC.md has no {id}", variant.name()));
                assert_eq!(
                    requirement.level,
                    Level::Should,
                    "{} departs from {id}",
                    variant.name()
                );
            }
        }
    }

    #[test]
    fn folded_and_reclassified_calls_pass_the_fair_class_cases() {
        passes_where_it_differs(
            Variant::FoldsMalformedCall,
            &[
                "calls/arguments-array-is-refused",
                "calls/missing-name-is-refused",
            ],
        );
        passes_where_it_differs(
            Variant::NonObjectAsInvalidArguments,
            &[
                "calls/arguments-null-is-refused",
                "calls/arguments-absent-is-refused",
                "calls/arguments-text-truncated-json-is-refused",
            ],
        );
        passes_where_it_differs(
            Variant::EmptyNameAsUnknownTool,
            &["calls/empty-name-is-refused"],
        );
    }

    #[test]
    fn another_wording_and_another_note_pass() {
        passes_where_it_differs(
            Variant::RewordedMessages,
            &[
                "validation/string-for-integer-is-not-coerced",
                "calls/unknown-tool-message-lists-the-available-tools",
            ],
        );
        passes_where_it_differs(
            Variant::GroupedNote,
            &["cap/note-states-the-omitted-amount"],
        );
    }

    #[test]
    fn a_false_alarm_is_named_with_its_requirement_and_case() {
        // A broken variant judged as if it were legitimate: its failures are false alarms.
        let suite = loader::load_embedded().expect("the embedded suite loads");
        let cases = vec![suite
            .case("validation/string-for-integer-is-not-coerced")
            .unwrap()];
        let result = run_job(
            &cases,
            Job::Broken(Fault::CoercesTypes),
            &config(&suite),
            &Shared::default(),
        );
        let alarms = false_alarms(Variant::PrettyJson, &result);
        assert!(
            alarms.iter().any(|a| matches!(a,
                FalseAlarm::Requirement { level: Level::Must, cases, .. }
                    if cases == &["validation/string-for-integer-is-not-coerced".to_owned()])),
            "{alarms:?}"
        );
        let report = SelftestReport {
            sides: Sides::Legitimate,
            reference: runner::run(
                &cases,
                &|| -> Box<dyn Harness + Send> { Box::new(InProcess::new(None)) },
                &config(&suite),
                &|_, _, _| {},
            ),
            broken: Vec::new(),
            legitimate: vec![(Variant::PrettyJson, result)],
            bases: Vec::new(),
        };
        let text = report.render();
        assert!(text.contains("FALSE ALARM pretty-json"), "{text}");
        assert!(text.contains("reproduce: harness-conformance run --harness 'harness-ref-adapter --variant pretty-json' --run validation/string-for-integer-is-not-coerced"), "{text}");
        assert!(text.contains("legitimate variants passing 0/1"), "{text}");
        assert!(!text.contains("broken variants caught"), "{text}");
        assert!(text.ends_with("selftest FAILED\n"), "{text}");
        assert!(!report.ok());
    }

    #[test]
    fn runs_on_one_pool_are_judged_as_runs_alone() {
        // Two runs through `run_pooled`, cases that wait among them, judge each case as a
        // run of its own does: the same verdicts and messages, in the cases' order.
        let suite = loader::load_embedded().expect("the embedded suite loads");
        let cases: Vec<&Case> = [
            "validation/string-for-integer-is-not-coerced",
            "outcomes/handler-past-deadline-times-out",
            "cancellation/turn-that-finishes-before-the-cancel-is-unchanged",
            "cap/note-states-the-omitted-amount",
            "calls/unknown-tool-message-lists-the-available-tools",
        ]
        .iter()
        .map(|id| suite.case(id).unwrap_or_else(|| panic!("no case {id}")))
        .collect();
        assert_eq!(waiting(&cases), [false, true, true, false, false]);
        let jobs = [Job::Reference, Job::Broken(Fault::NoDeadline)];
        let shared = Shared::default();
        let cfg = config(&suite);
        let told = std::sync::Mutex::new(Vec::new());
        let pooled = runner::run_pooled(
            &cases,
            &waiting(&cases),
            jobs.len(),
            &|run| -> Box<dyn Harness + Send> { Box::new(jobs[run].harness(&shared)) },
            &cfg,
            2,
            &|run, _| told.lock().unwrap().push(run),
        );
        let mut told = told.into_inner().unwrap();
        told.sort_unstable();
        assert_eq!(told, [0, 1], "each run is told once");
        for (job, pooled) in jobs.iter().zip(&pooled) {
            let alone = run_job(&cases, *job, &cfg, &Shared::default());
            let seen = |r: &RunResult| -> Vec<(String, Verdict, Vec<String>)> {
                r.outcomes
                    .iter()
                    .map(|o| (o.id.clone(), o.verdict, o.messages.clone()))
                    .collect()
            };
            assert_eq!(seen(pooled), seen(&alone), "{}", job.name());
        }
        // The broken run is caught by the deadline case (it shows the pool ran it).
        assert_eq!(pooled[1].outcomes[1].verdict, Verdict::Fail);
    }

    #[test]
    fn shown_messages_are_one_bounded_line() {
        assert_eq!(shown("a\nb\u{1b}"), "a\\nb\\u{1b}");
        let long = "x".repeat(1000);
        assert_eq!(shown(&long).chars().count(), 401);
    }
}
