//! Requirement coverage: for each requirement, did this run test it, and how did it fare?
//!
//! A case's verdict says what happened to the case; a gate needs to know what happened to each
//! requirement, and the matrix publishes it, so every standing here is evidence (SPEC.md
//! "Evidence"). A requirement *fails* only where one of its own checks failed
//! ([`crate::blame`]) — including its `answered` check, when the answer it promises never came
//! back. It *passes* when some of its checks were evaluated and none failed. When none of its
//! checks could be evaluated it is one of two things, kept apart because they mean opposite
//! things: *not testable* — the harness's declared capabilities rule every check out (every case
//! was skipped for a capability it lacks, or its checks need one); or *not evaluated* — its cases
//! ran, but the harness's own answer gave its checks nothing to read (no result came back, or a
//! success came back where they read an error), and the requirement that promised that answer
//! holds the failure. NOT TESTABLE is never neutral (the MCP conformance suite's rule: a skip
//! that reads as green hides the gap): a MUST that is not testable fails the run unless the
//! baseline lists it with a reason, and the baseline cannot list one the run evaluated. NOT
//! EVALUATED is neutral: the failure that caused it already fails the run. A requirement whose
//! `Applies:` capabilities the harness does not declare (an optional feature, head+tail on a
//! head-only harness, any cut on a harness without a cap) is NOT APPLICABLE, which is neutral.

use std::collections::{BTreeMap, BTreeSet};

use harness_conformance_protocol::Capabilities;
use serde::{Deserialize, Serialize};

use crate::baseline::Baseline;
use crate::needs;
use crate::spec::{Level, Requirement};
use crate::verdict::{CaseOutcome, Verdict};

/// What a run says about one requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Status {
    /// Some of its checks ran; none failed.
    #[serde(rename = "PASS")]
    Pass,
    /// One of its checks failed, and the baseline does not expect it.
    #[serde(rename = "FAIL")]
    Fail,
    /// Its checks failed exactly where the baseline says they do.
    #[serde(rename = "XFAIL")]
    Xfail,
    /// It applies, but the harness's declared capabilities rule out every check of it.
    #[serde(rename = "NOT TESTABLE")]
    NotTestable,
    /// Its cases ran, but the harness's answers gave none of its checks anything to read (no
    /// result, or a result of the other kind); the requirement that promised those answers
    /// holds the failure.
    #[serde(rename = "NOT EVALUATED")]
    NotEvaluated,
    /// The harness does not declare the capabilities it applies to.
    #[serde(rename = "NOT APPLICABLE")]
    NotApplicable,
}

impl Status {
    /// The label reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Xfail => "XFAIL",
            Status::NotTestable => "NOT TESTABLE",
            Status::NotEvaluated => "NOT EVALUATED",
            Status::NotApplicable => "NOT APPLICABLE",
        }
    }
}

/// One requirement's standing after a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequirementResult {
    /// `VAL-1`.
    pub id: String,
    /// MUST / SHOULD / MAY.
    #[serde(serialize_with = "ser_level", deserialize_with = "de_level")]
    pub level: Level,
    /// The standing.
    pub status: Status,
    /// Checks of it that held.
    pub checks_passed: usize,
    /// Checks of it that failed (expected or not).
    pub checks_failed: usize,
    /// Cases where one of its checks failed, in order.
    pub failing_cases: Vec<String>,
    /// Cases where its checks ran.
    pub tested_cases: usize,
    /// Cases that ran where some check of it could not be evaluated because of the harness's
    /// answer (no result came back, a result of the other kind, or the adapter errored), in
    /// order: shown, never silently dropped from the evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_evaluated_cases: Vec<String>,
    /// For NOT TESTABLE / NOT APPLICABLE: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For NOT TESTABLE: the baseline lists it, with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baselined: Option<String>,
}

fn ser_level<S: serde::Serializer>(l: &Level, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(l.as_str())
}

/// Reads a level back from a saved report: exactly `MUST`, `SHOULD` or `MAY`.
fn de_level<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
    let name = String::deserialize(d)?;
    [Level::Must, Level::Should, Level::May]
        .into_iter()
        .find(|l| l.as_str() == name)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown level {name:?}")))
}

impl RequirementResult {
    /// Whether this requirement makes the run fail: an unexpected failure, or a MUST that is not
    /// testable and not baselined.
    pub fn fails_run(&self) -> bool {
        self.status == Status::Fail
            || (self.status == Status::NotTestable
                && self.level == Level::Must
                && self.baselined.is_none())
    }
}

/// Every requirement the run had cases for, in SPEC.md order, plus what the baseline got wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// One entry per requirement with a selected case.
    pub requirements: Vec<RequirementResult>,
    /// Requirements the baseline lists as not testable that were tested: the entry is stale.
    pub stale_not_testable: Vec<String>,
    /// Classes whose class checks could not run (no code and no fold for them), for OUT-7.
    pub unmapped_classes: BTreeSet<String>,
}

impl Coverage {
    /// Whether coverage alone makes the run fail.
    pub fn fails_run(&self) -> bool {
        self.requirements.iter().any(RequirementResult::fails_run)
            || !self.stale_not_testable.is_empty()
    }

    /// The MUST (or SHOULD) requirements that were not testable, with the reason.
    pub fn not_testable(&self, level: Level) -> BTreeMap<String, String> {
        self.requirements
            .iter()
            .filter(|r| r.level == level && r.status == Status::NotTestable)
            .map(|r| (r.id.clone(), r.reason.clone().unwrap_or_default()))
            .collect()
    }

    /// The one-line summary for a level, e.g.
    /// `MUST: 86 tested (80 pass, 2 fail, 4 known), 6 not testable (4 baselined), 12 not applicable`.
    pub fn summary(&self, level: Level) -> String {
        let of = |s: Status| {
            self.requirements
                .iter()
                .filter(|r| r.level == level && r.status == s)
                .count()
        };
        let (pass, fail, known) = (of(Status::Pass), of(Status::Fail), of(Status::Xfail));
        let unevaluated = of(Status::NotEvaluated);
        let untestable = of(Status::NotTestable);
        let baselined = self
            .requirements
            .iter()
            .filter(|r| {
                r.level == level && r.status == Status::NotTestable && r.baselined.is_some()
            })
            .count();
        let mut s = format!(
            "{}: {} tested ({pass} pass, {fail} fail",
            level.as_str(),
            pass + fail + known
        );
        if known > 0 {
            s.push_str(&format!(", {known} known"));
        }
        s.push(')');
        s.push_str(&format!(", {untestable} not testable"));
        if untestable > 0 {
            s.push_str(&format!(" ({baselined} baselined)"));
        }
        if unevaluated > 0 {
            s.push_str(&format!(", {unevaluated} not evaluated"));
        }
        let na = of(Status::NotApplicable);
        if na > 0 {
            s.push_str(&format!(", {na} not applicable"));
        }
        s
    }
}

/// Computes every requirement's standing. `caps` is the harness's capabilities (`None` when the
/// handshake failed: then every requirement applies and nothing was tested); `listed` maps each
/// selected case id to its `requirements`.
pub fn compute(
    requirements: &[Requirement],
    listed: &BTreeMap<&str, &[String]>,
    outcomes: &[CaseOutcome],
    caps: Option<&Capabilities>,
    baseline: &Baseline,
) -> Coverage {
    #[derive(Default)]
    struct Tally<'a> {
        passed: usize,
        failed_known: usize,
        failed_new: usize,
        failing_cases: BTreeSet<&'a str>,
        tested_cases: BTreeSet<&'a str>,
        /// Cases whose checks the harness's answer left nothing to read.
        not_evaluated: BTreeSet<&'a str>,
        /// Why it could not be evaluated, for NOT EVALUATED: the first such reason.
        why_not_evaluated: Option<String>,
        /// Why it could not be tested, for NOT TESTABLE: the first capability reason.
        why_not: Option<String>,
    }
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut unmapped = BTreeSet::new();
    let in_scope: BTreeSet<&str> = listed
        .values()
        .flat_map(|r| r.iter().map(String::as_str))
        .collect();
    for o in outcomes {
        let entry = baseline.cases.get(&o.id);
        for c in &o.checks {
            let t = tallies.entry(c.requirement.as_str()).or_default();
            t.tested_cases.insert(o.id.as_str());
            if c.passed() {
                t.passed += 1;
            } else {
                t.failing_cases.insert(o.id.as_str());
                let known = entry
                    .is_some_and(|e| e.fails.as_ref().is_none_or(|f| f.contains(&c.requirement)));
                if known {
                    t.failed_known += 1;
                } else {
                    t.failed_new += 1;
                }
            }
        }
        for n in &o.not_run {
            let t = tallies.entry(n.requirement.as_str()).or_default();
            if n.why.is_capability() {
                if t.why_not.is_none() {
                    t.why_not = Some(format!("{}: {}", o.id, n.reason));
                }
            } else {
                t.not_evaluated.insert(o.id.as_str());
                if t.why_not_evaluated.is_none() {
                    t.why_not_evaluated = Some(format!("{}: {}", o.id, n.reason));
                }
            }
            if let Some(classes) = n.reason.strip_prefix(crate::checks::UNMAPPED_CLASS) {
                for c in classes.split(" or ") {
                    unmapped.insert(c.trim_matches('`').to_owned());
                }
            }
        }
        let skipped = matches!(o.verdict, Verdict::Skip | Verdict::NewSkip);
        let errored = matches!(o.verdict, Verdict::Error | Verdict::BugInCase);
        if skipped || errored {
            for r in listed.get(o.id.as_str()).copied().unwrap_or_default() {
                let t = tallies.entry(r.as_str()).or_default();
                let why = format!(
                    "{} {}: {}",
                    o.id,
                    if errored { "errored" } else { "skipped" },
                    o.messages.first().map_or("", String::as_str)
                );
                if errored {
                    // The adapter could not run it (or the case is broken): nothing was read,
                    // and the ERROR itself fails the run.
                    t.not_evaluated.insert(o.id.as_str());
                    t.why_not_evaluated.get_or_insert(why);
                } else if t.why_not.is_none() {
                    t.why_not = Some(why);
                }
            }
        }
    }
    let mut out = Coverage {
        unmapped_classes: unmapped,
        ..Coverage::default()
    };
    for req in requirements {
        let id = req.id.as_str();
        let tally = tallies.remove(id);
        if !in_scope.contains(id) && tally.as_ref().is_none_or(|t| t.tested_cases.is_empty()) {
            continue;
        }
        let t = tally.unwrap_or_default();
        let missing: Vec<&str> = match caps {
            Some(caps) => req
                .applies
                .iter()
                .map(String::as_str)
                .filter(|n| !needs::applies(n, caps))
                .collect(),
            None => Vec::new(),
        };
        let (status, reason) = if !missing.is_empty() {
            (
                Status::NotApplicable,
                Some(format!(
                    "applies to harnesses that declare {}",
                    missing
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            )
        } else if t.failed_new > 0 {
            (Status::Fail, None)
        } else if t.failed_known > 0 {
            (Status::Xfail, None)
        } else if t.passed > 0 {
            (Status::Pass, None)
        } else if !t.not_evaluated.is_empty() {
            (Status::NotEvaluated, t.why_not_evaluated.clone())
        } else {
            (
                Status::NotTestable,
                Some(
                    t.why_not
                        .clone()
                        .unwrap_or_else(|| "no check of it ran".to_owned()),
                ),
            )
        };
        let baselined = baseline.not_testable.get(id).map(|u| u.reason.clone());
        if baselined.is_some()
            && matches!(
                status,
                Status::Pass | Status::Fail | Status::Xfail | Status::NotEvaluated
            )
        {
            // The run evaluated it, or ran its cases and saw the harness fail to answer them:
            // it is not "not testable", whatever the baseline says.
            out.stale_not_testable.push(id.to_owned());
        }
        let not_evaluated_cases = if status == Status::NotApplicable {
            Vec::new()
        } else {
            t.not_evaluated.iter().map(|s| (*s).to_owned()).collect()
        };
        out.requirements.push(RequirementResult {
            id: id.to_owned(),
            level: req.level,
            status,
            checks_passed: t.passed,
            checks_failed: t.failed_known + t.failed_new,
            failing_cases: t.failing_cases.iter().map(|s| (*s).to_owned()).collect(),
            tested_cases: t.tested_cases.len(),
            not_evaluated_cases,
            reason,
            baselined: baselined.filter(|_| status == Status::NotTestable),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blame::CheckKind;
    use crate::checks::{Check, NotRun};
    use harness_conformance_protocol::{CapCapability, DeadlineCapability, Strategy, Unit};

    fn req(id: &str, level: Level, applies: &[&str]) -> Requirement {
        Requirement {
            id: id.into(),
            level,
            title: String::new(),
            rationale: String::new(),
            cases: Vec::new(),
            applies: applies.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn check(r: &str, ok: bool) -> Check {
        Check {
            kind: CheckKind::IsError,
            result: Some(0),
            requirement: r.into(),
            failure: (!ok).then(|| "no".to_owned()),
        }
    }

    #[test]
    fn statuses_follow_the_checks_and_the_capabilities() {
        let reqs = vec![
            req("VAL-1", Level::Must, &[]),
            req("TEACH-1", Level::Must, &[]),
            req("OUT-4", Level::Must, &[]),
            req("HT-1", Level::Must, &["cap.strategy.head_tail"]),
            req("TEACH-8", Level::Should, &[]),
        ];
        let l1 = vec!["VAL-1".to_owned(), "TEACH-1".to_owned()];
        let l2 = vec!["OUT-4".to_owned()];
        let l3 = vec!["HT-1".to_owned()];
        let l4 = vec!["TEACH-8".to_owned()];
        let listed: BTreeMap<&str, &[String]> = [
            ("validation/a", l1.as_slice()),
            ("outcomes/t", l2.as_slice()),
            ("head-tail/h", l3.as_slice()),
            ("teaching/n", l4.as_slice()),
        ]
        .into();
        let mut a = CaseOutcome::new("validation/a", &l1, Verdict::Fail);
        a.checks = vec![check("VAL-1", true), check("TEACH-1", false)];
        let t = CaseOutcome::new("outcomes/t", &l2, Verdict::Skip).with("needs `deadline`");
        let h = CaseOutcome::new("head-tail/h", &l3, Verdict::Skip).with("needs head_tail");
        let mut n = CaseOutcome::new("teaching/n", &l4, Verdict::Pass);
        n.not_run = vec![NotRun {
            kind: CheckKind::ContentContains,
            result: Some(0),
            requirement: "TEACH-8".into(),
            reason: "x".into(),
            why: crate::checks::Unevaluated::Capability,
        }];
        let caps = Capabilities {
            cap: Some(CapCapability {
                unit: Unit::Chars,
                limit: 100,
                configurable: false,
                strategies: vec![Strategy::HeadOnly],
                units: Vec::new(),
                note: None,
                spill: None,
                estimator: None,
            }),
            deadline: None::<DeadlineCapability>,
            ..Capabilities::default()
        };
        let cov = compute(&reqs, &listed, &[a, t, h, n], Some(&caps), &Baseline::new());
        let status: Vec<(&str, Status)> = cov
            .requirements
            .iter()
            .map(|r| (r.id.as_str(), r.status))
            .collect();
        assert_eq!(
            status,
            vec![
                ("VAL-1", Status::Pass),
                ("TEACH-1", Status::Fail),
                ("OUT-4", Status::NotTestable),
                ("HT-1", Status::NotApplicable),
                ("TEACH-8", Status::NotTestable),
            ]
        );
        assert!(cov.fails_run());
        assert_eq!(
            cov.summary(Level::Must),
            "MUST: 2 tested (1 pass, 1 fail), 1 not testable (0 baselined), 1 not applicable"
        );
        assert_eq!(
            cov.summary(Level::Should),
            "SHOULD: 0 tested (0 pass, 0 fail), 1 not testable (0 baselined)"
        );
        let reason = &cov.requirements[2].reason;
        assert!(
            reason.as_deref().unwrap().contains("needs `deadline`"),
            "{reason:?}"
        );
    }

    #[test]
    fn a_baselined_untestable_must_passes_the_gate_and_a_tested_one_is_stale() {
        let reqs = vec![
            req("OUT-4", Level::Must, &[]),
            req("VAL-1", Level::Must, &[]),
        ];
        let l = vec!["OUT-4".to_owned()];
        let l2 = vec!["VAL-1".to_owned()];
        let listed: BTreeMap<&str, &[String]> =
            [("o/t", l.as_slice()), ("v/a", l2.as_slice())].into();
        let t = CaseOutcome::new("o/t", &l, Verdict::Skip).with("needs `deadline`");
        let mut v = CaseOutcome::new("v/a", &l2, Verdict::Pass);
        v.checks = vec![check("VAL-1", true)];
        let b = Baseline::parse(
            r#"{"format": 2, "not_testable": {"OUT-4": {"reason": "no deadlines"}, "VAL-1": {"reason": "old"}}}"#,
            "1.0.0",
        )
        .unwrap();
        let cov = compute(&reqs, &listed, &[t, v], Some(&Capabilities::default()), &b);
        assert_eq!(
            cov.requirements[0].baselined.as_deref(),
            Some("no deadlines")
        );
        assert!(!cov.requirements[0].fails_run());
        assert_eq!(cov.stale_not_testable, vec!["VAL-1"]);
        assert!(cov.fails_run());
    }
}
