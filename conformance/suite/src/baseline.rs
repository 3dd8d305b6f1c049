//! The expected-outcomes baseline: what a harness is known to fail, skip and leave untested.
//!
//! A harness adopting the suite usually fails some cases on day one. Its baseline records them
//! with reasons, so CI turns red only when behaviour changes — and every kind of change counts:
//! - a case entry names the requirements the case fails (`fails`); the case is XFAIL while it
//!   fails exactly those, FAIL when it fails another one too (a new fault in a known-bad case is
//!   not hidden), STALE when it fails fewer or passes (the entry must shrink);
//! - `skips` lists the cases that were skipped, so a case that passed and now skips (a
//!   capability went missing) is NEW SKIP and fails the run, and a listed case that runs again
//!   is STALE;
//! - `not_testable` lists the MUST requirements the harness cannot be tested on, with why
//!   ([`crate::coverage`]); any other MUST that is not testable fails the run.
//!
//! The file is JSON, format 2 (`docs/DESIGN.md`). A format-1 file — the flat
//! `{"<case id>": {"reason": "...", "link": "..."}}` map — is still read: its entries expect the
//! whole case to fail or error, and it tracks no skips. A baseline written for another major
//! version of the suite is refused: a major version changes how cases are read.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::verdict::{CaseOutcome, Verdict};

/// The baseline format this crate writes.
pub const FORMAT: u32 = 2;

/// What is known about one case.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The requirements the case fails. `None` (format 1) expects the case to fail or error in
    /// any way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fails: Option<BTreeSet<String>>,
    /// The adapter cannot run the case: an ERROR is expected.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// In plain words, what the harness does.
    pub reason: String,
    /// An issue or document about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// Why a requirement cannot be tested on this harness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Untestable {
    /// In plain words.
    pub reason: String,
}

/// A whole baseline.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The format version ([`FORMAT`]).
    pub format: u32,
    /// The suite version the baseline was written with (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// Case id → what is known about it.
    #[serde(default)]
    pub cases: BTreeMap<String, Entry>,
    /// Case id → the skip reason when the baseline was written. `None`: skips are not tracked
    /// (format 1, or a file written by hand without the section).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skips: Option<BTreeMap<String, String>>,
    /// MUST requirement id → why it cannot be tested on this harness.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_testable: BTreeMap<String, Untestable>,
}

/// Why a baseline file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BaselineError {
    /// Not JSON of either format.
    Invalid(String),
    /// A format this crate does not know.
    Format(u32),
    /// Written for another major version of the suite.
    Version {
        /// The baseline's suite version.
        baseline: String,
        /// This suite's version.
        suite: String,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Invalid(e) => write!(f, "not a baseline: {e}"),
            BaselineError::Format(n) => write!(
                f,
                "baseline format {n} is not known to this runner (it reads formats 1 and {FORMAT})"
            ),
            BaselineError::Version { baseline, suite } => write!(
                f,
                "the baseline was written for suite {baseline}, and this is suite {suite}: a new major version changes how cases are read, so regenerate the baseline with `run --write-baseline` and review it"
            ),
        }
    }
}

impl std::error::Error for BaselineError {}

/// A format-1 entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct V1Entry {
    reason: String,
    #[serde(default)]
    link: Option<String>,
}

impl Baseline {
    /// An empty baseline: nothing expected, skips not tracked.
    pub fn new() -> Baseline {
        Baseline {
            format: FORMAT,
            ..Baseline::default()
        }
    }

    /// Parses a baseline file of either format, refusing one from another major version of
    /// `suite_version`.
    pub fn parse(text: &str, suite_version: &str) -> Result<Baseline, BaselineError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| BaselineError::Invalid(e.to_string()))?;
        let is_v2 = value.get("format").is_some();
        if !is_v2 {
            let v1: BTreeMap<String, V1Entry> =
                serde_json::from_value(value).map_err(|e| BaselineError::Invalid(e.to_string()))?;
            return Ok(Baseline {
                format: 1,
                cases: v1
                    .into_iter()
                    .map(|(id, e)| {
                        (
                            id,
                            Entry {
                                fails: None,
                                error: false,
                                reason: e.reason,
                                link: e.link,
                            },
                        )
                    })
                    .collect(),
                ..Baseline::default()
            });
        }
        let b: Baseline =
            serde_json::from_value(value).map_err(|e| BaselineError::Invalid(e.to_string()))?;
        if b.format != FORMAT {
            return Err(BaselineError::Format(b.format));
        }
        if let Some(v) = &b.suite {
            if major(v) != major(suite_version) {
                return Err(BaselineError::Version {
                    baseline: v.clone(),
                    suite: suite_version.to_owned(),
                });
            }
        }
        Ok(b)
    }

    /// The baseline as the JSON text `--write-baseline` writes.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a baseline serializes") + "\n"
    }

    /// Ids in `cases` or `skips` that are not cases of the suite (renamed or removed cases).
    pub fn unknown_cases<'a>(&'a self, known: &BTreeSet<&str>) -> Vec<&'a str> {
        let mut out: Vec<&str> = self
            .cases
            .keys()
            .chain(self.skips.iter().flat_map(|s| s.keys()))
            .map(String::as_str)
            .filter(|id| !known.contains(id))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

fn entry_reason(entry: &Entry) -> String {
    match &entry.link {
        Some(link) => format!("{} ({link})", entry.reason),
        None => entry.reason.clone(),
    }
}

fn list(reqs: &BTreeSet<&str>) -> String {
    reqs.iter().copied().collect::<Vec<_>>().join(", ")
}

/// Applies the baseline to one outcome (see the module doc for every transition).
pub fn apply(baseline: &Baseline, outcome: &mut CaseOutcome) {
    let listed_skip = baseline.skips.as_ref().map(|s| s.contains_key(&outcome.id));
    let Some(entry) = baseline.cases.get(&outcome.id) else {
        match (outcome.verdict, listed_skip) {
            (Verdict::Skip, Some(false)) => {
                outcome.verdict = Verdict::NewSkip;
                outcome.messages.push(
                    "the baseline's run did not skip this case: a capability the case needs is no longer declared (or list it under `skips` with `--write-baseline`)"
                        .into(),
                );
            }
            (Verdict::Pass, Some(true)) => {
                outcome.verdict = Verdict::Stale;
                outcome.messages.push(
                    "listed in the baseline as skipped, but it ran and passed: remove it from `skips`"
                        .into(),
                );
            }
            (Verdict::Fail | Verdict::Error, Some(true)) => outcome
                .messages
                .push("listed in the baseline as skipped; it runs now, and fails".into()),
            _ => {}
        }
        return;
    };
    let reason = entry_reason(entry);
    let failing = outcome.failing_requirements();
    let (verdict, message) = match outcome.verdict {
        Verdict::Fail => match &entry.fails {
            None => (Verdict::Xfail, None),
            Some(known) => {
                let new: BTreeSet<&str> = failing
                    .iter()
                    .copied()
                    .filter(|r| !known.contains(*r))
                    .collect();
                let gone: BTreeSet<&str> = known
                    .iter()
                    .map(String::as_str)
                    .filter(|r| !failing.contains(r))
                    .collect();
                if !new.is_empty() {
                    (
                        Verdict::Fail,
                        Some(format!(
                            "the baseline lists this case as failing {} only; it now fails {} too",
                            list(&known.iter().map(String::as_str).collect()),
                            list(&new)
                        )),
                    )
                } else if !gone.is_empty() {
                    (
                        Verdict::Stale,
                        Some(format!(
                            "the baseline lists this case as failing {}, but {} no longer fail(s) here: remove {} from the entry",
                            list(&known.iter().map(String::as_str).collect()),
                            list(&gone),
                            if gone.len() == 1 { "it" } else { "them" }
                        )),
                    )
                } else {
                    (Verdict::Xfail, None)
                }
            }
        },
        Verdict::Error if entry.error || entry.fails.is_none() => (Verdict::Xfail, None),
        Verdict::Pass => (
            Verdict::Stale,
            Some(format!(
                "listed in the baseline as failing ({reason:?}) but it passed: remove the entry"
            )),
        ),
        Verdict::Skip => (
            Verdict::Stale,
            Some(format!(
                "listed in the baseline as failing ({reason:?}) but it was skipped: the entry can no longer be checked"
            )),
        ),
        other => (other, None),
    };
    outcome.verdict = verdict;
    if let Some(m) = message {
        outcome.messages.push(m);
    }
    if matches!(verdict, Verdict::Xfail | Verdict::Stale | Verdict::Fail) {
        outcome.baseline = Some(reason);
    }
}

/// A baseline describing a run: every failing case with the requirements it fails, every
/// error, every skip, and every MUST requirement that was not testable (`untestable`: id →
/// reason). Reasons already written in `old` are kept.
pub fn from_run(
    outcomes: &[CaseOutcome],
    untestable: &BTreeMap<String, String>,
    old: &Baseline,
    suite_version: &str,
) -> Baseline {
    let mut cases = BTreeMap::new();
    let mut skips = BTreeMap::new();
    for o in outcomes {
        let kept = old.cases.get(&o.id);
        match o.verdict {
            Verdict::Fail | Verdict::Xfail | Verdict::Stale
                if !o.failing_requirements().is_empty() =>
            {
                let fails: BTreeSet<String> = o
                    .failing_requirements()
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                cases.insert(
                    o.id.clone(),
                    Entry {
                        fails: Some(fails),
                        error: false,
                        reason: kept
                            .map(|e| e.reason.clone())
                            .unwrap_or_else(|| first_line(o.messages.first())),
                        link: kept.and_then(|e| e.link.clone()),
                    },
                );
            }
            Verdict::Error => {
                cases.insert(
                    o.id.clone(),
                    Entry {
                        fails: None,
                        error: true,
                        reason: kept
                            .map(|e| e.reason.clone())
                            .unwrap_or_else(|| first_line(o.messages.first())),
                        link: kept.and_then(|e| e.link.clone()),
                    },
                );
            }
            // A listed failure that is skipped now is STALE and did not run (no checks): the
            // fresh baseline records the skip, so one rewrite settles it.
            Verdict::Skip | Verdict::NewSkip => {
                skips.insert(o.id.clone(), first_line(o.messages.first()));
            }
            Verdict::Stale if o.checks.is_empty() => {
                skips.insert(o.id.clone(), first_line(o.messages.first()));
            }
            _ => {}
        }
    }
    let not_testable = untestable
        .iter()
        .map(|(id, reason)| {
            let reason = old
                .not_testable
                .get(id)
                .map(|u| u.reason.clone())
                .unwrap_or_else(|| reason.clone());
            (id.clone(), Untestable { reason })
        })
        .collect();
    Baseline {
        format: FORMAT,
        suite: Some(suite_version.to_owned()),
        cases,
        skips: Some(skips),
        not_testable,
    }
}

/// What [`prune`] did: the smaller baseline, and one line per entry it removed or narrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// `old` without its stale entries.
    pub baseline: Baseline,
    /// What changed, one plain line each (`cap/x: passes now`).
    pub changes: Vec<String>,
}

/// `old` without what a run (its `outcomes`, baseline applied) shows to be stale: a case entry
/// whose case passes now is removed, one that fails fewer requirements is narrowed to those it
/// still fails, one whose case is skipped now moves to `skips`; a skip whose case ran is
/// removed; a `not_testable` entry the run tested (`stale_not_testable`) is removed; and an
/// entry for a case not in `known` (the suite's ids) is removed. Cases the run did not select
/// keep their entries. Nothing is added: a new failure stays a failure, to be looked at (and
/// written with `--update` or `--write-baseline` if it is accepted).
pub fn prune(
    old: &Baseline,
    outcomes: &[CaseOutcome],
    stale_not_testable: &[String],
    known: &BTreeSet<&str>,
) -> Pruned {
    let ran: BTreeMap<&str, &CaseOutcome> = outcomes.iter().map(|o| (o.id.as_str(), o)).collect();
    let mut out = old.clone();
    let mut changes = Vec::new();
    for (id, entry) in &old.cases {
        if !known.contains(id.as_str()) {
            out.cases.remove(id);
            changes.push(format!("{id}: not a case of this suite"));
            continue;
        }
        let Some(o) = ran.get(id.as_str()) else {
            continue;
        };
        if o.verdict != Verdict::Stale && o.verdict != Verdict::Fail {
            continue;
        }
        if o.checks.is_empty() && o.verdict == Verdict::Stale {
            out.cases.remove(id);
            if let Some(skips) = &mut out.skips {
                skips.insert(id.clone(), first_line(o.messages.first()));
            }
            changes.push(format!("{id}: skipped now (moved to `skips`)"));
            continue;
        }
        let Some(known_fails) = &entry.fails else {
            continue;
        };
        let failing = o.failing_requirements();
        let still: BTreeSet<String> = known_fails
            .iter()
            .filter(|r| failing.contains(r.as_str()))
            .cloned()
            .collect();
        if still.is_empty() {
            out.cases.remove(id);
            changes.push(if failing.is_empty() {
                format!("{id}: passes now")
            } else {
                format!(
                    "{id}: no longer fails {} (it fails {} instead, which is not added)",
                    list(&known_fails.iter().map(String::as_str).collect()),
                    list(&failing)
                )
            });
        } else if &still != known_fails {
            let gone: BTreeSet<&str> = known_fails
                .iter()
                .map(String::as_str)
                .filter(|r| !still.contains(*r))
                .collect();
            changes.push(format!("{id}: no longer fails {}", list(&gone)));
            if let Some(e) = out.cases.get_mut(id) {
                e.fails = Some(still);
            }
        }
    }
    if let (Some(skips), Some(old_skips)) = (&mut out.skips, &old.skips) {
        for id in old_skips.keys() {
            let gone = if !known.contains(id.as_str()) {
                Some("not a case of this suite")
            } else {
                ran.get(id.as_str())
                    .filter(|o| !matches!(o.verdict, Verdict::Skip | Verdict::NewSkip))
                    .map(|_| "runs now (removed from `skips`)")
            };
            if let Some(why) = gone {
                skips.remove(id);
                changes.push(format!("{id}: {why}"));
            }
        }
    }
    for id in stale_not_testable {
        if out.not_testable.remove(id).is_some() {
            changes.push(format!("{id}: tested now (removed from `not_testable`)"));
        }
    }
    Pruned {
        baseline: out,
        changes,
    }
}

fn first_line(s: Option<&String>) -> String {
    let line = s.map_or("", |s| s.lines().next().unwrap_or(""));
    line.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blame::CheckKind;
    use crate::checks::Check;

    fn outcome(id: &str, v: Verdict, failing: &[&str]) -> CaseOutcome {
        let mut o = CaseOutcome::new(id, &["VAL-1".into()], v).with("expected x, got y");
        o.checks = failing
            .iter()
            .map(|r| Check {
                kind: CheckKind::IsError,
                result: Some(0),
                requirement: (*r).to_owned(),
                failure: Some("expected x, got y".into()),
            })
            .collect();
        o
    }

    /// The outcome, with the baseline applied.
    fn applied(b: &Baseline, id: &str, v: Verdict, failing: &[&str]) -> CaseOutcome {
        let mut o = outcome(id, v, failing);
        apply(b, &mut o);
        o
    }

    fn v2(text: &str) -> Baseline {
        Baseline::parse(text, "1.2.0").unwrap()
    }

    #[test]
    fn format_one_entries_expect_any_failure_and_stale_when_passing() {
        let b = Baseline::parse(
            r#"{"a/b": {"reason": "coerces"}, "a/c": {"reason": "r", "link": "https://x"}}"#,
            "1.0.0",
        )
        .unwrap();
        assert_eq!(b.format, 1);
        assert_eq!(b.skips, None);
        let fail = applied(&b, "a/b", Verdict::Fail, &["VAL-1", "TEACH-1"]);
        assert_eq!(fail.verdict, Verdict::Xfail);
        let pass = applied(&b, "a/c", Verdict::Pass, &[]);
        assert_eq!(pass.verdict, Verdict::Stale);
        assert!(pass.verdict.is_unexpected());
        let other = applied(&b, "a/d", Verdict::Fail, &["VAL-1"]);
        assert_eq!(other.verdict, Verdict::Fail);
        let skip = applied(&b, "a/e", Verdict::Skip, &[]);
        assert_eq!(skip.verdict, Verdict::Skip, "format 1 tracks no skips");
        assert!(Baseline::parse(r#"{"a/b": {"reason": "x", "why": "y"}}"#, "1.0.0").is_err());
    }

    #[test]
    fn a_new_failing_requirement_in_a_known_bad_case_fails_and_a_fixed_one_is_stale() {
        let b = v2(
            r#"{"format": 2, "suite": "1.0.0", "cases": {"a/b": {"fails": ["TEACH-1"], "reason": "words differ"}}}"#,
        );
        let same = applied(&b, "a/b", Verdict::Fail, &["TEACH-1"]);
        assert_eq!(same.verdict, Verdict::Xfail);
        let more = applied(&b, "a/b", Verdict::Fail, &["TEACH-1", "VAL-1"]);
        assert_eq!(more.verdict, Verdict::Fail);
        assert!(more
            .messages
            .last()
            .unwrap()
            .contains("now fails VAL-1 too"));
        let b2 = v2(
            r#"{"format": 2, "cases": {"a/b": {"fails": ["TEACH-1", "VAL-2"], "reason": "r"}}}"#,
        );
        let fewer = applied(&b2, "a/b", Verdict::Fail, &["TEACH-1"]);
        assert_eq!(fewer.verdict, Verdict::Stale);
        assert!(fewer.messages.last().unwrap().contains("VAL-2 no longer"));
    }

    #[test]
    fn skips_are_tracked_both_ways() {
        let b = v2(r#"{"format": 2, "skips": {"a/s": "needs `codes`"}}"#);
        let still = applied(&b, "a/s", Verdict::Skip, &[]);
        assert_eq!(still.verdict, Verdict::Skip);
        let new = applied(&b, "a/t", Verdict::Skip, &[]);
        assert_eq!(new.verdict, Verdict::NewSkip);
        assert!(new.verdict.is_unexpected());
        let runs = applied(&b, "a/s", Verdict::Pass, &[]);
        assert_eq!(runs.verdict, Verdict::Stale);
    }

    #[test]
    fn errors_are_expected_only_where_listed() {
        let b = v2(
            r#"{"format": 2, "cases": {"a/e": {"error": true, "reason": "cannot express"}, "a/f": {"fails": ["X-1"], "reason": "r"}}}"#,
        );
        let e = applied(&b, "a/e", Verdict::Error, &[]);
        assert_eq!(e.verdict, Verdict::Xfail);
        let f = applied(&b, "a/f", Verdict::Error, &[]);
        assert_eq!(f.verdict, Verdict::Error);
    }

    #[test]
    fn another_major_version_is_refused_and_unknown_formats_too() {
        let err = Baseline::parse(r#"{"format": 2, "suite": "2.0.0"}"#, "1.4.0").unwrap_err();
        assert!(err.to_string().contains("regenerate"), "{err}");
        assert!(Baseline::parse(r#"{"format": 2, "suite": "1.0.0"}"#, "1.4.0").is_ok());
        assert_eq!(
            Baseline::parse(r#"{"format": 3}"#, "1.0.0").unwrap_err(),
            BaselineError::Format(3)
        );
    }

    #[test]
    fn written_baselines_record_failures_errors_skips_and_untestables_keeping_old_reasons() {
        let old = v2(
            r#"{"format": 2, "cases": {"a/b": {"fails": ["VAL-1"], "reason": "known"}}, "not_testable": {"OUT-4": {"reason": "no deadline"}}}"#,
        );
        let mut err = CaseOutcome::new("a/e", &[], Verdict::Error).with("adapter died");
        err.checks.clear();
        let mut skip = CaseOutcome::new("a/s", &[], Verdict::Skip).with("needs `codes`");
        skip.checks.clear();
        let outs = vec![
            outcome("a/b", Verdict::Xfail, &["VAL-1"]),
            outcome("a/c", Verdict::Fail, &["TEACH-1", "VAL-2"]),
            outcome("a/d", Verdict::Pass, &[]),
            err,
            skip,
        ];
        let untestable: BTreeMap<String, String> = [
            ("OUT-4".to_owned(), "fresh".to_owned()),
            ("ISO-1".to_owned(), "every case skipped".to_owned()),
        ]
        .into();
        let b = from_run(&outs, &untestable, &old, "1.0.0");
        assert_eq!(b.cases.len(), 3);
        // A case the old baseline listed as failing that is skipped now: STALE, then a skip.
        let mut skipped_now =
            CaseOutcome::new("a/b", &[], Verdict::Skip).with("needs `cap.unit.lines`");
        skipped_now.checks.clear();
        apply(&old, &mut skipped_now);
        assert_eq!(skipped_now.verdict, Verdict::Stale);
        let rewritten = from_run(&[skipped_now], &BTreeMap::new(), &old, "1.0.0");
        assert!(rewritten.cases.is_empty());
        assert_eq!(
            rewritten.skips.as_ref().unwrap()["a/b"],
            "needs `cap.unit.lines`"
        );
        assert_eq!(b.cases["a/b"].reason, "known");
        assert_eq!(
            b.cases["a/c"]
                .fails
                .as_ref()
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            vec!["TEACH-1", "VAL-2"]
        );
        assert!(b.cases["a/e"].error);
        assert_eq!(b.skips.as_ref().unwrap()["a/s"], "needs `codes`");
        assert_eq!(b.not_testable["OUT-4"].reason, "no deadline");
        assert_eq!(b.not_testable["ISO-1"].reason, "every case skipped");
        let again = Baseline::parse(&b.to_json(), "1.0.0").unwrap();
        assert_eq!(again, b);
    }

    /// `run --prune`: stale entries go (a pass, a narrowed failure, a skip that runs, a
    /// not-testable entry tested, a case the suite no longer has), nothing is added (a new
    /// failure stays a failure), cases the run did not select keep their entries.
    #[test]
    fn prune_removes_only_what_the_run_shows_stale() {
        let mut old = Baseline::new();
        let entry = |fails: &[&str]| Entry {
            fails: Some(fails.iter().map(|r| (*r).to_owned()).collect()),
            reason: "known".into(),
            ..Entry::default()
        };
        old.cases.insert("a/pass".into(), entry(&["VAL-1"]));
        old.cases
            .insert("a/narrow".into(), entry(&["VAL-1", "VAL-2"]));
        old.cases.insert("a/same".into(), entry(&["VAL-1"]));
        old.cases.insert("a/unselected".into(), entry(&["VAL-1"]));
        old.cases.insert("a/gone".into(), entry(&["VAL-1"]));
        old.skips = Some(BTreeMap::from([
            ("a/runs".to_owned(), "needs codes".to_owned()),
            ("a/still-skipped".to_owned(), "needs codes".to_owned()),
        ]));
        old.not_testable
            .insert("OUT-4".into(), Untestable { reason: "r".into() });
        old.not_testable
            .insert("OUT-6".into(), Untestable { reason: "r".into() });
        let mut outcomes = vec![
            outcome("a/pass", Verdict::Pass, &[]),
            outcome("a/narrow", Verdict::Fail, &["VAL-1"]),
            outcome("a/same", Verdict::Fail, &["VAL-1"]),
            outcome("a/runs", Verdict::Pass, &[]),
            outcome("a/still-skipped", Verdict::Skip, &[]),
            outcome("a/new", Verdict::Fail, &["VAL-3"]),
        ];
        outcomes[0].checks.push(Check {
            kind: CheckKind::IsError,
            result: Some(0),
            requirement: "VAL-1".into(),
            failure: None,
        });
        for o in &mut outcomes {
            apply(&old, o);
        }
        let known: BTreeSet<&str> = [
            "a/pass",
            "a/narrow",
            "a/same",
            "a/unselected",
            "a/runs",
            "a/still-skipped",
            "a/new",
        ]
        .into();
        let pruned = prune(&old, &outcomes, &["OUT-6".to_owned()], &known);
        let b = &pruned.baseline;
        assert_eq!(
            b.cases.keys().map(String::as_str).collect::<Vec<_>>(),
            vec!["a/narrow", "a/same", "a/unselected"]
        );
        assert_eq!(b.cases["a/narrow"].fails, entry(&["VAL-1"]).fails);
        assert_eq!(b.cases["a/narrow"].reason, "known");
        assert_eq!(
            b.skips.as_ref().unwrap().keys().collect::<Vec<_>>(),
            vec!["a/still-skipped"]
        );
        assert_eq!(b.not_testable.keys().collect::<Vec<_>>(), vec!["OUT-4"]);
        assert_eq!(pruned.changes.len(), 5, "{:?}", pruned.changes);
        // Pruning twice changes nothing more.
        let mut again = outcomes.clone();
        for o in &mut again {
            o.verdict = if matches!(o.verdict, Verdict::Skip | Verdict::NewSkip) {
                Verdict::Skip
            } else if o.failing_requirements().is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            o.messages.truncate(1);
            apply(b, o);
        }
        assert!(prune(b, &again, &[], &known).changes.is_empty());
    }
}
