//! SPEC.md checked against the corpus and the code: every requirement's level, the cases that
//! test it and the checks it owns in them, and every place where those disagree.
//!
//! Three sources state who tests what: SPEC.md (each requirement's level, its `Cases:` line and
//! its optional `Applies:` line), the case files (each case's `requirements`) and blame
//! ([`crate::blame`]: which requirement owns each check). The loader refuses a case whose own
//! blame does not add up; what only shows across the whole corpus is checked here — a `Cases:`
//! line that lists a case which does not name the requirement or misses one that does, a MUST
//! that no case tests, a case whose checks belong to a requirement that applies only with capabilities the case never needs (on
//! a harness that has them the checks would never run). `harness-conformance spec` prints the
//! [`index`] and `spec --check` fails on any of the [`problems`]; the corpus tests call the
//! same functions.

use std::collections::{BTreeMap, BTreeSet};

use crate::blame::{self, CheckKind};
use crate::loader::Suite;
use crate::needs;
use crate::spec::{Level, Requirement};

/// `Applies:` capabilities the runner judges check by check, which a case need not need.
const RUNNER_JUDGED: [&str; 3] = ["call_ids", "cap", "dialect"];

/// One requirement and what tests it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The requirement, as SPEC.md defines it (level, title, `Cases:` and `Applies:` lines).
    pub requirement: &'a Requirement,
    /// The cases that list it in their `requirements`, by id, in id order.
    pub cases: Vec<&'a str>,
    /// The checks it owns in those cases, by kind: how many.
    pub owns: BTreeMap<CheckKind, usize>,
}

impl Entry<'_> {
    /// How many checks it owns in all.
    pub fn owned_checks(&self) -> usize {
        self.owns.values().sum()
    }
}

/// Every requirement of the suite, in SPEC.md's order, with its cases and the checks it owns.
pub fn index(suite: &Suite) -> Vec<Entry<'_>> {
    let mut cases: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut owns: BTreeMap<&str, BTreeMap<CheckKind, usize>> = BTreeMap::new();
    for case in &suite.cases {
        for r in &case.requirements {
            cases.entry(r.as_str()).or_default().push(case.id.as_str());
        }
        for (kind, owner) in owned_checks(case) {
            if let Some(r) = case.requirements.iter().find(|r| **r == owner) {
                *owns.entry(r.as_str()).or_default().entry(kind).or_default() += 1;
            }
        }
    }
    suite
        .requirements
        .iter()
        .map(|requirement| Entry {
            requirement,
            cases: cases.remove(requirement.id.as_str()).unwrap_or_default(),
            owns: owns.remove(requirement.id.as_str()).unwrap_or_default(),
        })
        .collect()
}

/// Each planned check of the case with each of its owners (a check may be evidence for several
/// requirements; checks without one are the loader's concern).
fn owned_checks(case: &crate::case::Case) -> Vec<(CheckKind, String)> {
    blame::planned(case)
        .into_iter()
        .flat_map(|(kind, result)| {
            blame::owners(case, kind, result)
                .into_iter()
                .map(move |o| (kind, o))
        })
        .collect()
}

/// Everything SPEC.md, the cases and blame disagree on, one sentence each, in a stable order.
pub fn problems(suite: &Suite) -> Vec<String> {
    let mut out = Vec::new();
    let defined: BTreeSet<&str> = suite.requirements.iter().map(|r| r.id.as_str()).collect();
    for entry in index(suite) {
        let r = entry.requirement;
        let listed: BTreeSet<&str> = r.cases.iter().map(String::as_str).collect();
        let tested: BTreeSet<&str> = entry.cases.iter().copied().collect();
        for id in listed.difference(&tested) {
            out.push(format!(
                "{}: SPEC.md's Cases: line lists `{id}`, which does not name {} in its requirements (or does not exist)",
                r.id, r.id
            ));
        }
        for id in tested.difference(&listed) {
            out.push(format!(
                "{}: case `{id}` tests it, but SPEC.md's Cases: line does not list it",
                r.id
            ));
        }
        if r.cases.len() != listed.len() {
            out.push(format!(
                "{}: SPEC.md's Cases: line lists a case twice",
                r.id
            ));
        }
        if r.level == Level::Must && tested.is_empty() {
            out.push(format!("{} (MUST): no case tests it", r.id));
        }
    }
    let by_id: BTreeMap<&str, &Requirement> = suite
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), r))
        .collect();
    for case in &suite.cases {
        for r in &case.requirements {
            if !defined.contains(r.as_str()) {
                out.push(format!(
                    "{r}: case `{}` tests it, but SPEC.md does not define it",
                    case.id
                ));
            }
        }
        let case_needs = needs::case_needs(case);
        let owners: BTreeSet<String> = owned_checks(case).into_iter().map(|(_, o)| o).collect();
        for owner in owners {
            let Some(r) = by_id.get(owner.as_str()) else {
                continue;
            };
            // The runner judges three capabilities check by check instead of skipping the case:
            // `call_ids` (on a harness without the model's ids it does not run `tool_use_id`
            // checks, so a case that only echoes ids runs there), `cap` (a harness without a
            // cap runs the cap cases, and the requirements that presuppose a cap are not
            // applicable to it) and `dialect` (the universal `replay` check runs on every case
            // of a harness that names its provider, and on none of one that does not).
            let missing: Vec<&str> = r
                .applies
                .iter()
                .map(String::as_str)
                .filter(|n| !RUNNER_JUDGED.contains(n) && !case_needs.iter().any(|c| c == n))
                .collect();
            if !missing.is_empty() {
                out.push(format!(
                    "{}: case `{}` owns checks of it, but it applies only with {}, which the case does not need (its checks would never run where they apply)",
                    r.id,
                    case.id,
                    missing.join(", ")
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader;

    const SPEC: &str = "### VAL-1 (MUST) Validate first\nCases: `validation/a`\n\n### VAL-2 (MUST) Refuse quietly\nApplies: feature.budget\nCases: `validation/a`, `validation/z`\n\n### VAL-3 (SHOULD) Explain\nCases:\n\n### VAL-4 (MUST) Never tested\nCases:\n";

    fn case(id: &str, requirements: &str, blame: &str) -> String {
        format!(
            r#"{{"id": "{id}", "requirements": {requirements}, "description": "d",
                "tools": [{{"name": "t", "input_schema": {{"type": "object"}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
                "calls": [{{"id": "c1", "name": "t", "input": {{}}}}],
                "expect": {{"results": [{{"is_error": false, "content": {{"contains": ["ok"]}}}}], "blame": {blame}}}}}"#
        )
    }

    fn suite(files: &[(&str, String)]) -> Suite {
        let files: Vec<(String, &str)> = files
            .iter()
            .map(|(p, t)| ((*p).to_owned(), t.as_str()))
            .collect();
        loader::load(&files, SPEC).unwrap()
    }

    /// `validation/a` tests VAL-1 and VAL-2, `validation/b` VAL-1 (which SPEC.md does not list).
    fn two_cases() -> Suite {
        suite(&[
            (
                "validation/a.json",
                case(
                    "validation/a",
                    r#"["VAL-1", "VAL-2"]"#,
                    r#"{"is_error": "VAL-1", "content": "VAL-2"}"#,
                ),
            ),
            (
                "validation/b.json",
                case(
                    "validation/b",
                    r#"["VAL-1"]"#,
                    r#"{"is_error": "VAL-1", "content": "VAL-1"}"#,
                ),
            ),
        ])
    }

    #[test]
    fn the_index_lists_cases_and_owned_checks_by_requirement() {
        let s = two_cases();
        let index = index(&s);
        let ids: Vec<&str> = index.iter().map(|e| e.requirement.id.as_str()).collect();
        assert_eq!(ids, ["VAL-1", "VAL-2", "VAL-3", "VAL-4"]);
        assert_eq!(index[0].cases, ["validation/a", "validation/b"]);
        // `answered` belongs to whoever owns `is_error`: the requirement that promised the answer.
        assert_eq!(
            index[0].owns,
            BTreeMap::from([
                (CheckKind::IsError, 2),
                (CheckKind::Answered, 2),
                (CheckKind::ContentContains, 1)
            ])
        );
        assert_eq!(index[0].owned_checks(), 5);
        assert_eq!(index[1].cases, ["validation/a"]);
        assert!(index[3].cases.is_empty() && index[3].owns.is_empty());
    }

    #[test]
    fn every_disagreement_is_a_problem() {
        let s = two_cases();
        let problems = problems(&s);
        let expected = [
            "VAL-1: case `validation/b` tests it, but SPEC.md's Cases: line does not list it",
            "VAL-2: SPEC.md's Cases: line lists `validation/z`",
            "VAL-2: case `validation/a` owns checks of it, but it applies only with feature.budget",
            "VAL-4 (MUST): no case tests it",
        ];
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
        for (p, e) in problems.iter().zip(expected) {
            assert!(p.starts_with(e), "{p:?} does not start with {e:?}");
        }
    }

    #[test]
    fn a_consistent_suite_has_no_problem() {
        let spec = "### VAL-1 (MUST) Validate first\nCases: `validation/a`\n";
        let text = case(
            "validation/a",
            r#"["VAL-1"]"#,
            r#"{"is_error": "VAL-1", "content": "VAL-1"}"#,
        );
        let s = loader::load(&[("validation/a.json".into(), text.as_str())], spec).unwrap();
        assert!(problems(&s).is_empty(), "{:?}", problems(&s));
    }
}
