//! One case through a [`Harness`] into a verdict, and the result of a whole run.
//!
//! The runner decides SKIP from the handshake's capabilities before sending anything, resolves
//! cap-relative sizes against the cap the harness will apply, sends the case, and turns the
//! reply into a verdict through [`crate::checks`]. It is sequential and does no I/O of its own:
//! the driver crate runs it on `--jobs` worker threads against adapter processes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness_conformance_protocol::{
    resolve_case_with, resolve_note_copies, vocabulary, Capabilities, GenError, Hello, ReplyOutcome,
};

use crate::baseline::Baseline;
use crate::blame::CheckKind;
use crate::case::Case;
use crate::checks::{self, Observed};
use crate::coverage::{self, Coverage};
use crate::harness::Harness;
use crate::needs;
use crate::quote::quote_n;
use crate::spec::{Level, Requirement};
use crate::timing;
use crate::verdict::{CaseOutcome, Verdict};

/// The result of a whole run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The first successful handshake's answer, if any.
    pub hello: Option<Hello>,
    /// Why the run could not start: the handshake failed or the hello is invalid. Every case
    /// is then ERROR with a short pointer to this message, which reports print once.
    pub handshake_error: Option<String>,
    /// One outcome per case, in the order the cases were given.
    pub outcomes: Vec<CaseOutcome>,
    /// Each requirement's standing (empty when the run had no requirements to judge).
    pub coverage: Coverage,
    /// Wall time.
    pub elapsed: Duration,
}

impl RunResult {
    /// A finished run: the outcomes (baseline applied) and each requirement's standing.
    /// `requirements` empty: no coverage is computed.
    pub fn finish(
        cases: &[&Case],
        outcomes: Vec<CaseOutcome>,
        hello: Option<Hello>,
        requirements: &[Requirement],
        baseline: &Baseline,
        started: Instant,
    ) -> RunResult {
        let coverage = coverage_of(
            cases,
            &outcomes,
            hello.as_ref().map(|h| &h.capabilities),
            requirements,
            baseline,
        );
        RunResult {
            hello,
            handshake_error: None,
            outcomes,
            coverage,
            elapsed: started.elapsed(),
        }
    }

    /// A run that never started: the handshake failed (`message` says why). Every case is
    /// ERROR with the cause in one line ([`handshake_cause`]), so a report that shows cases
    /// one by one (JUnit, an annotation) still says why.
    pub fn handshake_failed(cases: &[&Case], started: Instant, message: String) -> RunResult {
        let why = format!(
            "not run: the handshake failed: {}",
            handshake_cause(&message)
        );
        let outcomes: Vec<CaseOutcome> = cases
            .iter()
            .map(|c| CaseOutcome::new(&c.id, &c.requirements, Verdict::Error).with(why.clone()))
            .collect();
        // Nothing was tested, and nothing is known of the harness: no requirement standing
        // would be true, so there is none (the handshake is the one failure to report).
        RunResult {
            hello: None,
            handshake_error: Some(message),
            outcomes,
            coverage: Coverage::default(),
            elapsed: started.elapsed(),
        }
    }

    /// Whether the run fails the gate: a failed handshake, an unexpected outcome, or a
    /// requirement standing (a MUST that is not testable, a stale `not_testable` entry).
    pub fn failed(&self) -> bool {
        self.handshake_error.is_some()
            || self.outcomes.iter().any(|o| o.verdict.is_unexpected())
            || self.coverage.fails_run()
    }

    /// How many outcomes have this verdict.
    pub fn count(&self, v: Verdict) -> usize {
        self.outcomes.iter().filter(|o| o.verdict == v).count()
    }

    /// The count of each verdict that occurs, in [`Verdict::ALL`]'s order: `490 PASS, 6 SKIP`.
    pub fn totals(&self) -> String {
        let totals: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| (v, self.count(*v)))
            .filter(|(_, n)| *n > 0)
            .map(|(v, n)| format!("{n} {v}"))
            .collect();
        totals.join(", ")
    }

    /// A plain-text account for a failing `assert!`: the totals, a failed handshake, the
    /// requirements' standing and what in it fails the run, then each unexpected outcome
    /// (FAIL, ERROR, BUG IN CASE, STALE, NEW SKIP) with its requirements and messages — at most
    /// [`SUMMARY_CASES`] of them, each message cut to [`SUMMARY_MESSAGE_CHARS`] — so a failed
    /// `cargo test` says what broke without a report file.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let target = self.hello.as_ref().map_or("the harness".to_owned(), |h| {
            let name = format!("{} {}", h.implementation.name, h.implementation.version);
            quote_n(&name, 80)
        });
        let _ = writeln!(
            out,
            "{} case(s) against {target}: {}",
            self.outcomes.len(),
            self.totals()
        );
        if let Some(e) = &self.handshake_error {
            let _ = writeln!(
                out,
                "the handshake failed, so no case ran:\n    {}",
                cut(e, SUMMARY_MESSAGE_CHARS).replace('\n', "\n    ")
            );
        }
        if !self.coverage.requirements.is_empty() {
            for level in [Level::Must, Level::Should] {
                let _ = writeln!(out, "{}", self.coverage.summary(level));
            }
        }
        for r in self.coverage.requirements.iter().filter(|r| r.fails_run()) {
            if r.status == coverage::Status::NotTestable {
                let _ = writeln!(
                    out,
                    "NOT TESTABLE {} {}: {} (list it under the baseline's `not_testable` if that is known)",
                    r.level,
                    r.id,
                    cut(r.reason.as_deref().unwrap_or("no case could test it"), SUMMARY_MESSAGE_CHARS)
                );
            }
        }
        for id in &self.coverage.stale_not_testable {
            let _ = writeln!(
                out,
                "STALE not_testable entry {id}: it was tested in this run; delete the entry"
            );
        }
        let bad: Vec<&CaseOutcome> = self
            .outcomes
            .iter()
            .filter(|o| o.verdict.is_unexpected())
            .collect();
        for o in bad.iter().take(SUMMARY_CASES) {
            let _ = writeln!(
                out,
                "{} {} [{}]",
                o.verdict,
                o.id,
                o.requirements.join(", ")
            );
            for m in &o.messages {
                let m = cut(m, SUMMARY_MESSAGE_CHARS);
                let _ = writeln!(out, "    {}", m.replace('\n', "\n    "));
            }
        }
        if bad.len() > SUMMARY_CASES {
            let _ = writeln!(
                out,
                "… and {} more unexpected outcome(s)",
                bad.len() - SUMMARY_CASES
            );
        }
        if self.count(Verdict::Stale) > 0 {
            out.push_str(
                "A STALE case is listed in the baseline but passed: delete its entry, so the list only shrinks.\n",
            );
        }
        out
    }
}

/// How many unexpected outcomes [`RunResult::summary`] lists.
pub const SUMMARY_CASES: usize = 40;

/// How many chars of each message [`RunResult::summary`] shows.
pub const SUMMARY_MESSAGE_CHARS: usize = 600;

/// The most chars of a handshake error repeated in each case's message.
pub const HANDSHAKE_CAUSE_CHARS: usize = 600;

/// A handshake error as one line of at most [`HANDSHAKE_CAUSE_CHARS`] chars: its lines joined
/// with ` | `, and, when it is longer, its start and its end with the middle left out — an
/// adapter's stderr ends with the line that says why (`ModuleNotFoundError: No module named
/// …`), after a traceback that does not.
pub fn handshake_cause(message: &str) -> String {
    let line = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    let n = line.chars().count();
    if n <= HANDSHAKE_CAUSE_CHARS {
        return line;
    }
    let half = HANDSHAKE_CAUSE_CHARS / 2;
    let head: String = line.chars().take(half).collect();
    let tail: String = line.chars().skip(n - half).collect();
    format!("{head} … ({} chars left out) … {tail}", n - 2 * half)
}

/// `s` cut to `max` chars, with a mark when something was cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}… ({} chars in all)", &s[..i], s.chars().count()),
    }
}

/// The vocabulary problems of a hello, as one message (unknown names, folds that point nowhere).
pub fn validate_hello(hello: &Hello) -> Result<(), String> {
    let mut problems: Vec<String> = vocabulary::unknown_names(hello)
        .iter()
        .map(ToString::to_string)
        .collect();
    problems.extend(vocabulary::fold_problems(hello));
    problems.extend(vocabulary::cap_problems(hello));
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the adapter's hello names capabilities the protocol does not define (conformance/PROTOCOL.md, \"Capabilities\"):\n  {}",
        problems.join("\n  ")
    ))
}

fn coverage_of(
    cases: &[&Case],
    outcomes: &[CaseOutcome],
    caps: Option<&Capabilities>,
    requirements: &[Requirement],
    baseline: &Baseline,
) -> Coverage {
    if requirements.is_empty() {
        return Coverage::default();
    }
    let listed: BTreeMap<&str, &[String]> = cases
        .iter()
        .map(|c| (c.id.as_str(), c.requirements.as_slice()))
        .collect();
    coverage::compute(requirements, &listed, outcomes, caps, baseline)
}

/// The longest a resolved case's handlers sleep in total, so the timeout never cuts a slow but
/// correct case short.
fn scripted_sleep(wire: &harness_conformance_protocol::WireCase) -> Duration {
    let per_tool: u64 = wire
        .calls
        .iter()
        .filter_map(|c| c.name())
        .filter_map(|n| wire.tools.iter().find(|t| t.name == n))
        .map(|t| t.behavior.scripted_sleep_ms())
        .fold(0u64, u64::saturating_add);
    Duration::from_millis(per_tool)
}

/// Runs one case on one harness.
pub fn run_case(
    harness: &mut dyn Harness,
    case: &Case,
    timeout: Duration,
) -> (CaseOutcome, Option<Arc<Hello>>) {
    let started = Instant::now();
    let (mut outcome, hello) = run_case_inner(harness, case, timeout);
    outcome.duration = started.elapsed();
    (outcome, hello)
}

/// The deadline a case's sleeps are judged against when deciding whether the case itself is
/// broken (not only too large for one harness's deadline): one second.
const NOMINAL_DEADLINE_MS: u64 = 1000;

fn run_case_inner(
    harness: &mut dyn Harness,
    case: &Case,
    timeout: Duration,
) -> (CaseOutcome, Option<Arc<Hello>>) {
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
    let deadline = checks::effective_deadline(case, caps);
    let mut wire = case.wire();
    if !caps.deadline.as_ref().is_some_and(|d| d.configurable) {
        // Only a preferred deadline (the case's sleeps are relative to the harness's own).
        wire.config.deadline_ms = None;
    }
    // Sizes resolved, then the expansion bounded in bytes before anything is allocated.
    // Forged copies of the harness's note are made from its declared form.
    let note = caps.cap.as_ref().and_then(|c| c.note.as_ref());
    let resolve = |wire: &mut harness_conformance_protocol::WireCase, limit, deadline| {
        resolve_case_with(wire, limit, deadline)
            .and_then(|()| resolve_note_copies(wire, note, cap.unit))
            .and_then(|()| {
                harness_conformance_protocol::resolve_wrapper_copies(wire, caps.wrapper.as_ref())
            })
            .and_then(|()| harness_conformance_protocol::generate::check_expansion(wire, cap.unit))
    };
    // A context-aware cap's remaining room goes out exact, in the cap's own unit.
    if let (Some(request), Some(remaining)) = (wire.config.cap.as_mut(), cap.remaining) {
        request.remaining = Some(Box::new(harness_conformance_protocol::Size::Exact(
            remaining,
        )));
    }
    if let Err(e) = resolve(&mut wire, cap.limit, deadline) {
        // A size or sleep relative to the harness's own cap or deadline can outgrow the
        // runner's bounds only because that cap or deadline is large: the case cannot be run
        // on this harness (a SKIP that says why), but it is not broken. Sizes that fail at the
        // suite's nominal values are the case's own fault.
        let nominal_deadline = case.config.deadline_ms.or(Some(NOMINAL_DEADLINE_MS));
        let fits_nominal = resolve(&mut case.wire(), checks::NOMINAL_CAP, nominal_deadline).is_ok();
        if matches!(e, GenError::TooLarge(_) | GenError::TooManyBytes(_)) && fits_nominal {
            return (
                new(Verdict::Skip).with(format!(
                    "at this harness's cap of {} {} (deadline: {}) the case cannot be generated within the runner's bounds: {e}",
                    cap.limit,
                    cap.unit.as_str(),
                    deadline.map_or_else(|| "none".to_owned(), |d| format!("{d} ms")),
                )),
                Some(hello),
            );
        }
        return (
            new(Verdict::BugInCase).with(format!("cannot resolve the case's sizes: {e}")),
            Some(hello),
        );
    }
    let timeout = timeout.saturating_add(scripted_sleep(&wire));
    let reply = match harness.run(&wire, timeout) {
        Ok(r) => r,
        Err(e) => return (new(Verdict::Error).with(e.to_string()), Some(hello)),
    };
    let lone = reply.lone_surrogates;
    let (results, invocations, history, spill_artifacts) = match reply.outcome() {
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
            spill_artifacts,
        }) => (results, invocations, history, spill_artifacts),
    };
    let obs = Observed {
        results: &results,
        invocations: &invocations,
        history: history.as_deref(),
        lone_surrogates: lone,
        spill_artifacts: spill_artifacts.as_deref(),
    };
    let mut findings = checks::check(case, &wire, caps, &obs);
    for fu in std::mem::take(&mut findings.follow_ups) {
        match harness.run(&fu.case, timeout) {
            Err(e) => {
                return (
                    new(Verdict::Error).with(format!("during the re-run of the case: {e}")),
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
                        ..
                    }) => {
                        // The re-run's content is read inside the wrapper, as the first run's.
                        let results = crate::wrap::unwrap_results(caps.wrapper.as_ref(), &results);
                        let obs2 = Observed {
                            results: &results,
                            invocations: &invocations,
                            history: history.as_deref(),
                            lone_surrogates: lone,
                            spill_artifacts: None,
                        };
                        findings.checks.extend(checks::check_follow_up(&fu, &obs2));
                    }
                    other => {
                        return (
                            new(Verdict::Error).with(format!(
                                "the re-run of the case did not produce results: {other:?}"
                            )),
                            Some(hello),
                        )
                    }
                }
            }
        }
    }
    if let Some(timed) = findings.timed.take() {
        match time_runs(harness, &timed, timeout) {
            Ok((small, large)) => {
                let failure = timing::judge(timed.smaller, &small, &large);
                findings
                    .checks
                    .extend(timed.requirements.iter().map(|requirement| checks::Check {
                        kind: CheckKind::LinearTime,
                        result: None,
                        requirement: requirement.clone(),
                        failure: failure.clone(),
                    }));
            }
            Err(e) => {
                return (
                    new(Verdict::Error).with(format!("during the timed runs of the case: {e}")),
                    Some(hello),
                )
            }
        }
    }
    let verdict = if !findings.bugs.is_empty() {
        Verdict::BugInCase
    } else if findings.failed() {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let mut outcome = new(verdict);
    outcome.messages = if verdict == Verdict::BugInCase {
        findings.bugs
    } else {
        findings.failures()
    };
    if verdict != Verdict::BugInCase {
        outcome.checks = findings.checks;
        outcome.not_run = findings.not_run;
    }
    outcome.returned = Some(checks::returned_summary(&results));
    outcome.results = Some(results);
    (outcome, Some(hello))
}

/// `linear_time`'s runs: the small copy and the case, interleaved, [`timing::ROUNDS`] times
/// each; each side's wall times, as the harness answered them. A run that does not come back
/// with results is an error: the check cannot be judged.
fn time_runs(
    harness: &mut dyn Harness,
    timed: &timing::Timed,
    timeout: Duration,
) -> Result<(Vec<Duration>, Vec<Duration>), String> {
    let mut small = Vec::with_capacity(timing::ROUNDS);
    let mut large = Vec::with_capacity(timing::ROUNDS);
    for _ in 0..timing::ROUNDS {
        for (case, times) in [(&timed.small, &mut small), (&timed.large, &mut large)] {
            let started = Instant::now();
            let reply = harness.run(case, timeout).map_err(|e| e.to_string())?;
            times.push(started.elapsed());
            match reply.outcome() {
                Ok(ReplyOutcome::Observed { .. }) => {}
                other => return Err(format!("a run did not produce results: {other:?}")),
            }
        }
    }
    Ok((small, large))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(outcomes: Vec<CaseOutcome>) -> RunResult {
        RunResult {
            hello: None,
            handshake_error: None,
            outcomes,
            coverage: Coverage::default(),
            elapsed: Duration::ZERO,
        }
    }

    /// Issue 29: every case of a run whose handshake failed says why, in one bounded line that
    /// keeps the end of a long stderr (where an interpreter names the missing module).
    #[test]
    fn a_failed_handshake_puts_its_cause_in_every_case() {
        let traceback = format!(
            "the adapter closed its stdout before answering the handshake (exit status: 1); its stderr:\nTraceback (most recent call last):\n{}ModuleNotFoundError: No module named 'harness_conformance_adapter'\n",
            "  File \"adapter.py\", line 19, in <module>\n".repeat(40)
        );
        let r = RunResult::handshake_failed(&[], Instant::now(), traceback.clone());
        assert!(r.outcomes.is_empty());
        let cause = handshake_cause(&traceback);
        assert!(!cause.contains('\n'), "{cause}");
        assert!(
            cause.chars().count() < HANDSHAKE_CAUSE_CHARS + 40,
            "{cause}"
        );
        assert!(
            cause.starts_with("the adapter closed its stdout"),
            "{cause}"
        );
        assert!(
            cause.ends_with("No module named 'harness_conformance_adapter'"),
            "{cause}"
        );
        assert_eq!(handshake_cause("short\n\n  cause "), "short | cause");
    }

    #[test]
    fn the_summary_lists_unexpected_outcomes_with_bounded_messages() {
        let long = "x".repeat(5 * SUMMARY_MESSAGE_CHARS);
        let r = result(vec![
            CaseOutcome::new("a/passes", &["A-1".to_owned()], Verdict::Pass),
            CaseOutcome::new("a/fails", &["A-2".to_owned()], Verdict::Fail)
                .with(format!("first line\nsecond line {long}")),
        ]);
        let s = r.summary();
        assert!(
            s.starts_with("2 case(s) against the harness: 1 PASS, 1 FAIL\n"),
            "{s}"
        );
        assert!(
            s.contains("FAIL a/fails [A-2]\n    first line\n    second line x"),
            "{s}"
        );
        assert!(!s.contains("a/passes"), "{s}");
        assert!(s.contains("chars in all)"), "{s}");
        assert!(s.len() < 2 * SUMMARY_MESSAGE_CHARS, "{}", s.len());
    }

    #[test]
    fn the_summary_stops_after_its_bound() {
        let many = (0..SUMMARY_CASES + 5)
            .map(|i| CaseOutcome::new(&format!("a/{i}"), &[], Verdict::Error))
            .collect();
        let s = result(many).summary();
        assert!(s.contains("… and 5 more unexpected outcome(s)"), "{s}");
        assert_eq!(
            s.lines().filter(|l| l.starts_with("ERROR a/")).count(),
            SUMMARY_CASES
        );
    }
}
