//! What the matrix says about a harness, in one word and one gate line, and what it shows in the
//! cross-harness grid: the truth of each run, not what the harness's own baseline expects.
//!
//! A run's `ok` answers the CI question ("did anything change against my baseline?"), which is
//! the wrong question for a reader choosing a harness: a harness whose baseline lists every
//! failure is `ok`. So the site's verdict word follows the MUST standing alone ([`standing`]) —
//! it cannot read green beside a failing MUST — and the gate is said on its own line, which says
//! when the gate is green only because of the baseline. In the grid a baselined failure is a
//! failure, with a secondary mark ([`requirement_truth`], [`case_truth`]).
//!
//! `site.js` has the same rules for a report dropped onto the page (`standing`, `caseCode`);
//! `ci/check_site.py` checks that both give one answer for the same report.

use harness_conformance_suite::coverage::{RequirementResult, Status};
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use crate::Report;

/// The word for a harness's MUST standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// The handshake failed: nothing was tested.
    NoHandshake,
    /// At least one MUST fails (its baseline listing it or not).
    FailsMust,
    /// No MUST fails, but cases errored (the adapter broke the protocol, or a case is broken).
    Errors,
    /// No MUST fails, but some could not be tested or evaluated: nothing shows that they hold.
    Incomplete,
    /// No MUST applies to the cases that ran.
    NotTested,
    /// Every MUST that applies passes.
    MeetsMust,
}

impl Word {
    /// The word as shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Word::NoHandshake => "NO HANDSHAKE",
            Word::FailsMust => "FAILS MUST",
            Word::Errors => "ERRORS",
            Word::Incomplete => "INCOMPLETE",
            Word::NotTested => "NOT TESTED",
            Word::MeetsMust => "MEETS MUST",
        }
    }

    /// Its style class (`site.css`); only [`Word::MeetsMust`] is green.
    pub fn class(self) -> &'static str {
        match self {
            Word::NoHandshake | Word::Errors => "er",
            Word::FailsMust => "f",
            Word::Incomplete => "nt",
            Word::NotTested => "na",
            Word::MeetsMust => "p",
        }
    }
}

/// The gate as the harness's CI sees it (against its baseline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Green, and no baseline entry was needed.
    Green,
    /// Green only because the baseline lists `known` failing cases and `untestable` MUSTs.
    GreenWithBaseline {
        /// Cases that failed as the baseline expects (XFAIL).
        known: usize,
        /// MUST requirements not testable, listed in the baseline.
        untestable: usize,
    },
    /// Red: something the baseline does not expect.
    Red,
}

impl Gate {
    /// The gate line.
    pub fn line(&self) -> String {
        match self {
            Gate::Green => "gate green".to_owned(),
            Gate::GreenWithBaseline { known, untestable } => {
                let mut parts = Vec::new();
                if *known > 0 {
                    parts.push(format!("{known} known failing case(s)"));
                }
                if *untestable > 0 {
                    parts.push(format!("{untestable} untestable MUST(s)"));
                }
                format!("gate green only with its baseline ({})", parts.join(", "))
            }
            Gate::Red => "gate red".to_owned(),
        }
    }
}

/// A harness's standing: the word, what it counts, and the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// The word.
    pub word: Word,
    /// What the word counts, in plain words (`3 of 40 MUST requirements fail`).
    pub detail: String,
    /// The gate.
    pub gate: Gate,
}

/// The standing of a run. The word follows the MUST requirements' truth (a baselined failure
/// fails); NOT EVALUATED is neutral for blame but shows nothing holds, so it keeps the word
/// from green.
pub fn standing(report: &Report) -> Standing {
    let run = report.run;
    let musts: Vec<&RequirementResult> = run
        .coverage
        .requirements
        .iter()
        .filter(|r| r.level == Level::Must)
        .collect();
    let count = |f: &dyn Fn(&RequirementResult) -> bool| musts.iter().filter(|r| f(r)).count();
    let failing = count(&|r| matches!(r.status, Status::Fail | Status::Xfail));
    let untestable = count(&|r| r.status == Status::NotTestable);
    let unevaluated = count(&|r| r.status == Status::NotEvaluated);
    let applicable = count(&|r| r.status != Status::NotApplicable);
    let errors = run
        .outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Error | Verdict::BugInCase))
        .count();
    let (word, detail) = if run.handshake_error.is_some() {
        (
            Word::NoHandshake,
            "the handshake failed, so no case ran".to_owned(),
        )
    } else if failing > 0 {
        (
            Word::FailsMust,
            format!("{failing} of {applicable} MUST requirements fail"),
        )
    } else if errors > 0 {
        (Word::Errors, format!("{errors} case(s) errored"))
    } else if untestable + unevaluated > 0 {
        (
            Word::Incomplete,
            format!(
                "no MUST fails; {untestable} not testable, {unevaluated} not evaluated of {applicable}"
            ),
        )
    } else if applicable == 0 {
        (Word::NotTested, "no MUST requirement applies".to_owned())
    } else {
        (
            Word::MeetsMust,
            format!("all {applicable} MUST requirements pass"),
        )
    };
    let gate = if run.failed() {
        Gate::Red
    } else {
        let known = run
            .outcomes
            .iter()
            .filter(|o| o.verdict == Verdict::Xfail)
            .count();
        let untestable = musts
            .iter()
            .filter(|r| r.status == Status::NotTestable && r.baselined.is_some())
            .count();
        if known + untestable > 0 {
            Gate::GreenWithBaseline { known, untestable }
        } else {
            Gate::Green
        }
    };
    Standing { word, detail, gate }
}

/// What a requirement's standing is, whatever the harness's baseline says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truth {
    /// Its checks ran and held.
    Pass,
    /// One of its checks failed.
    Fail,
    /// None of its checks could run on this harness.
    NotTestable,
    /// Its cases ran but gave its checks nothing to read; another requirement holds the failure.
    NotEvaluated,
    /// It does not apply to this harness.
    NotApplicable,
}

impl Truth {
    /// The label.
    pub fn as_str(self) -> &'static str {
        match self {
            Truth::Pass => "PASS",
            Truth::Fail => "FAIL",
            Truth::NotTestable => "NOT TESTABLE",
            Truth::NotEvaluated => "NOT EVALUATED",
            Truth::NotApplicable => "NOT APPLICABLE",
        }
    }

    /// Its style class (`site.css`).
    pub fn class(self) -> &'static str {
        match self {
            Truth::Pass => "p",
            Truth::Fail => "f",
            Truth::NotTestable => "nt",
            Truth::NotEvaluated => "ne",
            Truth::NotApplicable => "na",
        }
    }

    /// Its symbol in the grid.
    pub fn symbol(self) -> &'static str {
        match self {
            Truth::Pass => "✓",
            Truth::Fail => "✗",
            Truth::NotTestable => "!",
            Truth::NotEvaluated => "⁇",
            Truth::NotApplicable => "–",
        }
    }
}

/// A requirement's truth, and whether the harness's baseline lists it (an XFAIL, or a NOT
/// TESTABLE with a reason in the baseline).
pub fn requirement_truth(r: &RequirementResult) -> (Truth, bool) {
    match r.status {
        Status::Pass => (Truth::Pass, false),
        Status::Fail => (Truth::Fail, false),
        Status::Xfail => (Truth::Fail, true),
        Status::NotTestable => (Truth::NotTestable, r.baselined.is_some()),
        Status::NotEvaluated => (Truth::NotEvaluated, false),
        Status::NotApplicable => (Truth::NotApplicable, false),
    }
}

/// A case's truth as one letter, the code the per-harness data files carry (`site.js` reads the
/// same table): `P` pass, `F` fail, `B` fail the baseline lists (XFAIL), `Q`/`R` pass/fail where
/// the baseline is stale, `S` skip, `N` a skip the baseline did not have, `E` error, `G` bug in
/// the case. `-` (written by the caller) is a case the run did not have.
pub fn case_truth(o: &CaseOutcome) -> char {
    match o.verdict {
        Verdict::Pass => 'P',
        Verdict::Fail => 'F',
        Verdict::Xfail => 'B',
        Verdict::Stale if o.failing_requirements().is_empty() => 'Q',
        Verdict::Stale => 'R',
        Verdict::Skip => 'S',
        Verdict::NewSkip => 'N',
        Verdict::Error => 'E',
        Verdict::BugInCase => 'G',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_suite::coverage::Coverage;
    use harness_conformance_suite::run::RunResult;

    fn req(id: &str, level: Level, status: Status, baselined: bool) -> RequirementResult {
        RequirementResult {
            id: id.to_owned(),
            level,
            status,
            checks_passed: 0,
            checks_failed: 0,
            failing_cases: Vec::new(),
            tested_cases: 1,
            not_evaluated_cases: Vec::new(),
            reason: None,
            baselined: baselined.then(|| "known".to_owned()),
        }
    }

    fn run(requirements: Vec<RequirementResult>) -> RunResult {
        RunResult {
            hello: None,
            handshake_error: None,
            outcomes: Vec::new(),
            coverage: Coverage {
                requirements,
                ..Coverage::default()
            },
            elapsed: std::time::Duration::ZERO,
        }
    }

    fn of(run: &RunResult) -> Standing {
        standing(&Report {
            run,
            requirements: &[],
            target: "",
            reproduce: "",
        })
    }

    /// Issue 29: `result: ok` read green beside "MUST 45%". A MUST the baseline lists as
    /// failing still fails, and the gate says it is green only with the baseline.
    #[test]
    fn a_baselined_must_failure_is_not_green() {
        let r = run(vec![
            req("VAL-1", Level::Must, Status::Pass, false),
            req("VAL-2", Level::Must, Status::Xfail, false),
        ]);
        assert!(!r.failed(), "the gate is green");
        let s = of(&r);
        assert_eq!(s.word, Word::FailsMust);
        assert_eq!(s.detail, "1 of 2 MUST requirements fail");
    }

    #[test]
    fn the_word_is_green_only_when_every_applicable_must_passes() {
        let all: [(Status, bool); 7] = [
            (Status::Pass, false),
            (Status::Fail, false),
            (Status::Xfail, false),
            (Status::NotTestable, false),
            (Status::NotTestable, true),
            (Status::NotEvaluated, false),
            (Status::NotApplicable, false),
        ];
        for (a, ab) in all {
            for (b, bb) in all {
                let r = run(vec![
                    req("A-1", Level::Must, a, ab),
                    req("A-2", Level::Must, b, bb),
                    req("B-1", Level::Should, Status::Fail, false),
                ]);
                let green = of(&r).word == Word::MeetsMust;
                let every_pass = [a, b]
                    .iter()
                    .all(|s| matches!(s, Status::Pass | Status::NotApplicable))
                    && [a, b].contains(&Status::Pass);
                assert_eq!(green, every_pass, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_gate_says_when_it_is_green_only_with_its_baseline() {
        let r = run(vec![
            req("VAL-1", Level::Must, Status::Pass, false),
            req("OUT-4", Level::Must, Status::NotTestable, true),
        ]);
        let s = of(&r);
        assert_eq!(s.word, Word::Incomplete);
        assert_eq!(
            s.gate,
            Gate::GreenWithBaseline {
                known: 0,
                untestable: 1
            }
        );
        assert_eq!(
            s.gate.line(),
            "gate green only with its baseline (1 untestable MUST(s))"
        );
        let clean = run(vec![req("VAL-1", Level::Must, Status::Pass, false)]);
        assert_eq!(of(&clean).gate, Gate::Green);
        assert_eq!(of(&clean).word, Word::MeetsMust);
        let red = run(vec![req("VAL-1", Level::Must, Status::Fail, false)]);
        assert_eq!(of(&red).gate, Gate::Red);
    }

    #[test]
    fn a_baselined_failure_is_a_failure_in_the_grid_with_a_mark() {
        let x = req("VAL-2", Level::Must, Status::Xfail, false);
        assert_eq!(requirement_truth(&x), (Truth::Fail, true));
        let nt = req("OUT-4", Level::Must, Status::NotTestable, true);
        assert_eq!(requirement_truth(&nt), (Truth::NotTestable, true));
        let ne = req("TEACH-1", Level::Should, Status::NotEvaluated, false);
        assert_eq!(requirement_truth(&ne).0.class(), "ne");
    }
}
