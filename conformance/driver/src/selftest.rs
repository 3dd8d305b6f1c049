//! `selftest`: the suite against the reference harness and each of its deliberately broken
//! variants, to prove the suite has teeth — every variant must fail at least one case that the
//! reference passes.
//!
//! It lives in the driver because it is a scheduling job: the variants run in-process on worker
//! threads, several at a time. Its account is plain text (`SelftestReport::render`).

use std::fmt::Write as _;

use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};
use harness_ref_adapter::Fault;

use crate::client::InProcess;
use crate::runner::{self, RunConfig};

/// The selftest's findings.
#[derive(Debug)]
pub struct SelftestReport {
    /// The reference itself (must have no unexpected results).
    pub reference: RunResult,
    /// Each broken variant's run.
    pub variants: Vec<(Fault, RunResult)>,
}

impl SelftestReport {
    /// The cases that caught a variant: FAIL or ERROR on it, PASS on the reference (a case
    /// the reference fails too proves nothing about the variant).
    pub fn caught_by<'r>(&self, result: &'r RunResult) -> Vec<&'r CaseOutcome> {
        caught(&self.reference, result)
    }

    /// The variants no case caught: gaps in the suite.
    pub fn gaps(&self) -> Vec<Fault> {
        self.variants
            .iter()
            .filter(|(_, r)| self.caught_by(r).is_empty())
            .map(|(f, _)| *f)
            .collect()
    }

    /// True when the reference passes and every variant is caught.
    pub fn ok(&self) -> bool {
        !self.reference.failed() && self.gaps().is_empty()
    }

    /// A plain-text account.
    pub fn render(&self) -> String {
        let mut out = String::new();
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
                o.messages.first().map_or("", String::as_str)
            );
        }
        for (fault, result) in &self.variants {
            let caught = self.caught_by(result);
            if caught.is_empty() {
                let _ = writeln!(
                    out,
                    "GAP    {:<32} no case catches it: {}",
                    fault.name(),
                    fault.describe()
                );
            } else {
                let ids: Vec<&str> = caught.iter().map(|o| o.id.as_str()).collect();
                let shown = ids.iter().take(6).copied().collect::<Vec<_>>().join(", ");
                let more = if ids.len() > 6 {
                    format!(" and {} more", ids.len() - 6)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "caught {:<32} by {} case(s): {shown}{more}",
                    fault.name(),
                    ids.len()
                );
                let _ = writeln!(
                    out,
                    "       reproduce: harness-conformance run --harness 'harness-ref-adapter --fault {}' --run {}",
                    fault.name(),
                    ids[0]
                );
            }
        }
        let gaps = self.gaps();
        let _ = writeln!(
            out,
            "{} of {} variant(s) caught{}",
            self.variants.len() - gaps.len(),
            self.variants.len(),
            if self.ok() {
                "; selftest ok"
            } else {
                "; selftest FAILED"
            }
        );
        out
    }
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

/// How many broken variants `selftest` runs at the same time.
pub const VARIANTS_AT_ONCE: usize = 4;

/// Runs `cases` against the reference and each of its broken variants.
pub fn selftest(cases: &[&Case], cfg: &RunConfig, log: &(dyn Fn(&str) + Sync)) -> SelftestReport {
    let reference = runner::run(
        cases,
        &|| -> Box<dyn Harness + Send> { Box::new(InProcess::new(None)) },
        cfg,
        &|_, _, _| {},
    );
    log(&format!(
        "selftest: reference done in {:.2}s",
        reference.elapsed.as_secs_f64()
    ));
    // The variants run side by side (`VARIANTS_AT_ONCE` at a time): the suite's wall time is
    // mostly handlers sleeping past deadlines, so overlapping variants costs little CPU.
    let queue = std::sync::Mutex::new(Fault::ALL.iter().copied().enumerate().collect::<Vec<_>>());
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..VARIANTS_AT_ONCE {
            s.spawn(|| loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop());
                let Some((i, fault)) = next else { break };
                let result = runner::run(
                    cases,
                    &move || -> Box<dyn Harness + Send> { Box::new(InProcess::new(Some(fault))) },
                    cfg,
                    &|_, _, _| {},
                );
                log(&format!(
                    "selftest: {} — {} case(s) catch it ({:.2}s)",
                    fault.name(),
                    caught(&reference, &result).len(),
                    result.elapsed.as_secs_f64()
                ));
                if let Ok(mut d) = done.lock() {
                    d.push((i, fault, result));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _, _)| *i);
    let variants: Vec<(Fault, RunResult)> = done.into_iter().map(|(_, f, r)| (f, r)).collect();
    SelftestReport {
        reference,
        variants,
    }
}
