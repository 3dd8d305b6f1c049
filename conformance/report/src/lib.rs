//! Reports: the same run rendered for a terminal, for machines (JSON lines), for CI test
//! views (JUnit XML), for a CI step summary (Markdown) and as a static site ([`site`]); a saved
//! JSON report is read back by [`saved`], so every other view can be rendered from it later.
//!
//! Each reporter is a pure function from a [`Report`] to text; the binary decides where the
//! text goes. All of them group by requirement and level, because "which MUSTs does this
//! harness break" is the question a reader comes with — counted from check-level blame, so a
//! requirement fails only where one of its own checks failed, and a MUST that could not be
//! tested says so — and all of them carry, for each unexpected result, the one-command
//! reproducer for that single case.
//!
//! Everything an adapter or a case file wrote is untrusted text: each renderer escapes and
//! bounds it through [`escape`], one function per kind of output.

pub mod escape;
pub mod files;
pub mod hints;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod saved;
pub mod site;
pub mod snapshot;
pub mod summary;
pub mod teaching;
pub mod terminal;
pub mod terminal_style;

use harness_conformance_suite::coverage::{RequirementResult, Status};
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::{Level, Requirement};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

/// Everything a reporter needs.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The run.
    pub run: &'a RunResult,
    /// SPEC.md's requirements.
    pub requirements: &'a [Requirement],
    /// What was run, for headings (`the built-in reference harness`, the command).
    pub target: &'a str,
    /// The command prefix that reruns one case: the case id is appended (quoted with
    /// [`shell_quote`], so the reproducer is one command whatever the id holds).
    pub reproduce: &'a str,
}

/// One requirement's line in a report: its standing from the run's coverage.
#[derive(Debug, Clone, PartialEq)]
pub struct RequirementRow<'a> {
    /// The requirement id.
    pub id: &'a str,
    /// Its level.
    pub level: Level,
    /// Its title.
    pub title: &'a str,
    /// What the run says about it (check-level: it fails only where its own checks failed).
    pub result: &'a RequirementResult,
}

impl RequirementRow<'_> {
    /// A one-character status for tables: ✓ pass, ✗ fail, ~ known failure, ! not testable
    /// (fails the run for a MUST unless baselined), ? not evaluated (the harness's answers gave
    /// its checks nothing to read; another requirement holds that failure), – not applicable.
    pub fn status(&self) -> &'static str {
        match self.result.status {
            Status::Pass => "✓",
            Status::Fail => "✗",
            Status::Xfail => "~",
            Status::NotTestable if self.result.baselined.is_some() => "~",
            Status::NotTestable => "!",
            Status::NotEvaluated => "?",
            Status::NotApplicable => "–",
        }
    }

    /// What the row says after the title: how many cases tested it and failed it, or why it was
    /// not tested.
    pub fn detail(&self) -> String {
        let r = self.result;
        let unevaluated = match r.not_evaluated_cases.len() {
            0 => String::new(),
            n => format!(", not evaluated in {n} more (no answer to read)"),
        };
        match r.status {
            Status::Pass => format!("PASS in {} case(s){unevaluated}", r.tested_cases),
            Status::Fail | Status::Xfail => format!(
                "{} in {} of {} case(s){unevaluated}",
                r.status.as_str(),
                r.failing_cases.len(),
                r.tested_cases
            ),
            Status::NotEvaluated => format!(
                "NOT EVALUATED in {} case(s) — {}",
                r.not_evaluated_cases.len(),
                r.reason.as_deref().unwrap_or("no answer to read")
            ),
            Status::NotTestable => match &r.baselined {
                Some(b) => format!("NOT TESTABLE (baselined: {b})"),
                None => format!(
                    "NOT TESTABLE — {}",
                    r.reason.as_deref().unwrap_or("no check of it ran")
                ),
            },
            Status::NotApplicable => {
                format!("not applicable — {}", r.reason.as_deref().unwrap_or(""))
            }
        }
    }
}

impl<'a> Report<'a> {
    /// The reproducer for one case.
    pub fn reproducer(&self, id: &str) -> String {
        format!("{} {}", self.reproduce, shell_quote(id))
    }

    /// One row per requirement the run had cases for, in SPEC.md order.
    pub fn requirement_rows(&self) -> Vec<RequirementRow<'a>> {
        self.run
            .coverage
            .requirements
            .iter()
            .map(|result| RequirementRow {
                id: &result.id,
                level: result.level,
                title: self
                    .requirements
                    .iter()
                    .find(|q| q.id == result.id)
                    .map_or("", |q| q.title.as_str()),
                result,
            })
            .collect()
    }

    /// Why the run failed, in plain words (empty when it did not).
    pub fn failure_reasons(&self) -> Vec<String> {
        let run = self.run;
        let mut out = Vec::new();
        if let Some(e) = &run.handshake_error {
            let hint = crate::hints::for_message(e)
                .map_or(String::new(), |h| format!(" (hint: {})", h.advice));
            out.push(format!(
                "the handshake failed, so no case ran: {}{hint}",
                harness_conformance_suite::run::handshake_cause(e)
            ));
        }
        let unexpected = run
            .outcomes
            .iter()
            .filter(|o| o.verdict.is_unexpected())
            .count();
        if unexpected > 0 && run.handshake_error.is_none() {
            out.push(format!("{unexpected} unexpected case result(s)"));
        }
        let untestable: Vec<&str> = run
            .coverage
            .requirements
            .iter()
            .filter(|r| r.fails_run() && r.status == Status::NotTestable)
            .map(|r| r.id.as_str())
            .collect();
        if !untestable.is_empty() {
            out.push(format!(
                "MUST requirement(s) not testable on this harness: {} (declare the capability its cases need, or list it under `not_testable` in the baseline with a reason)",
                untestable.join(", ")
            ));
        }
        if !run.coverage.stale_not_testable.is_empty() {
            out.push(format!(
                "the baseline lists {} as not testable, but the run tested it: remove the entry",
                run.coverage.stale_not_testable.join(", ")
            ));
        }
        out
    }

    /// Verdict totals over the run.
    pub fn totals(&self) -> Vec<(Verdict, usize)> {
        Verdict::ALL
            .iter()
            .map(|v| (*v, self.run.count(*v)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The outcomes a reader must look at.
    pub fn unexpected(&self) -> impl Iterator<Item = &'a CaseOutcome> {
        self.run
            .outcomes
            .iter()
            .filter(|o| o.verdict.is_unexpected())
    }

    /// The level a case's outcome is reported at: the strongest of the requirements whose
    /// checks failed in it (a failure only a SHOULD owns is a SHOULD's), or of those it lists
    /// when none failed (an ERROR, a skip, a pass).
    pub fn level_of(&self, o: &CaseOutcome) -> Option<Level> {
        let level = |ids: &mut dyn Iterator<Item = &str>| {
            ids.filter_map(|id| self.requirements.iter().find(|r| r.id == id))
                .map(|r| r.level)
                .min()
        };
        let failing = o.failing_requirements();
        if failing.is_empty() {
            level(&mut o.requirements.iter().map(String::as_str))
        } else {
            level(&mut failing.into_iter())
        }
    }
}

pub use escape::shell_quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reproducer_is_one_command_whatever_the_id() {
        let run = RunResult::handshake_failed(&[], std::time::Instant::now(), String::new());
        let r = Report {
            run: &run,
            requirements: &[],
            target: "t",
            reproduce: "harness-conformance run --run",
        };
        assert_eq!(
            r.reproducer("a/b\n; rm -rf ~"),
            r"harness-conformance run --run $'a/b\x0a; rm -rf ~'"
        );
    }
}
