//! Teaching quality: does a harness's error wording help the model fix its next call?
//!
//! A harness can pass every MUST and still answer "invalid arguments" and nothing more. The
//! teaching checks summarise, per harness, the seven properties that make an error message
//! teach (issue 7): it names the offending field's path; says what was expected and what was
//! received; lists every violation at once; stays small (no schema dump, no echo of the
//! arguments); an unknown-tool message lists the available tools; it says what to do next when
//! that is known; an internal failure shows no exception text.
//!
//! Each check is carried by SPEC.md requirements and their cases (the cases hold the actual
//! content checks); this module only groups their verdicts into one row per check so reports
//! can show a "Teaching" scorecard. The scorecard is SHOULD-level: it adds no verdict and fails
//! nothing by itself — the cases behind it already did. The reference wording for each check
//! (the model answer) is in `snapshots/tests/snapshots/`, linked from SPEC.md.

use std::fmt::Write as _;

use crate::Report;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::Requirement;

/// One teaching-quality check and the requirements that carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeachingCheck {
    /// A stable short name.
    pub key: &'static str,
    /// What a good message does.
    pub title: &'static str,
    /// The SPEC.md requirements whose cases decide it.
    pub requirements: &'static [&'static str],
}

/// The seven checks, in the order reports print them.
pub const CHECKS: [TeachingCheck; 7] = [
    TeachingCheck {
        key: "path",
        title: "names the offending field's path",
        requirements: &["TEACH-1", "TEACH-3"],
    },
    TeachingCheck {
        key: "expected-received",
        title: "states what was expected and what was received",
        requirements: &["TEACH-4", "TEACH-5"],
    },
    TeachingCheck {
        key: "every-violation",
        title: "lists every violation at once",
        requirements: &["TEACH-2"],
    },
    TeachingCheck {
        key: "bounded",
        title: "stays small: no schema dump, no echo of the arguments",
        requirements: &["TEACH-6", "TEACH-7", "TEACH-10"],
    },
    TeachingCheck {
        key: "lists-tools",
        title: "an unknown-tool message lists the available tools",
        requirements: &["CALL-2"],
    },
    TeachingCheck {
        key: "remedy",
        title: "says what to do next when that is known",
        requirements: &["TEACH-8"],
    },
    TeachingCheck {
        key: "no-exception-text",
        title: "an internal failure shows no exception text",
        requirements: &["OUT-5", "TEACH-9"],
    },
];

/// A check's result for one harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every case behind it that ran passed.
    Pass,
    /// At least one case behind it failed (or is a known failure in the baseline).
    Fail,
    /// No case behind it was judged (skipped, adapter errors, or not selected).
    NotJudged,
}

impl Status {
    /// The label reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::NotJudged => "not judged",
        }
    }
}

/// One row of the scorecard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    /// The check.
    pub check: &'a TeachingCheck,
    /// Pass, fail or not judged.
    pub status: Status,
    /// Cases behind it that passed.
    pub passed: usize,
    /// Cases behind it that failed (FAIL or XFAIL), by id.
    pub failed: Vec<&'a str>,
    /// Cases behind it that were not judged (SKIP, ERROR, BUG IN CASE, or none of the check's
    /// own checks ran).
    pub not_judged: usize,
}

/// The scorecard of a run: one row per check, or nothing when no teaching case ran.
pub fn rows<'a>(r: &Report<'a>) -> Vec<Row<'a>> {
    let mut out = Vec::new();
    let mut any = false;
    for check in &CHECKS {
        let mut passed = 0;
        let mut failed = Vec::new();
        let mut not_judged = 0;
        for o in &r.run.outcomes {
            let carries = |req: &str| check.requirements.contains(&req);
            if !o.requirements.iter().any(|req| carries(req)) {
                continue;
            }
            any = true;
            // Judged on the checks these requirements own, not on the case's verdict: a case
            // that fails elsewhere says nothing about its wording.
            let mine: Vec<_> = o
                .checks
                .iter()
                .filter(|c| carries(&c.requirement))
                .collect();
            if !o.verdict.was_checked() || mine.is_empty() {
                not_judged += 1;
            } else if mine.iter().any(|c| !c.passed()) {
                failed.push(o.id.as_str());
            } else {
                passed += 1;
            }
        }
        let status = if !failed.is_empty() {
            Status::Fail
        } else if passed > 0 {
            Status::Pass
        } else {
            Status::NotJudged
        };
        out.push(Row {
            check,
            status,
            passed,
            failed,
            not_judged,
        });
    }
    if any {
        out
    } else {
        Vec::new()
    }
}

/// The level each requirement of a check has in SPEC.md (`TEACH-3 SHOULD`).
fn requirement_list(r: &Report, check: &TeachingCheck) -> String {
    check
        .requirements
        .iter()
        .map(|id| match r.requirements.iter().find(|q| q.id == *id) {
            Some(q) => format!("{id} {}", q.level),
            None => (*id).to_owned(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn counts(row: &Row) -> String {
    let mut parts = vec![format!("{} passed", row.passed)];
    if !row.failed.is_empty() {
        parts.push(format!("{} failed", row.failed.len()));
    }
    if row.not_judged > 0 {
        parts.push(format!("{} not judged", row.not_judged));
    }
    parts.join(", ")
}

/// The terminal section (empty when no teaching case ran).
pub fn render_terminal(r: &Report) -> String {
    let rows = rows(r);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n── teaching (SHOULD-level scorecard of the error wording) ──"
    );
    for row in &rows {
        let mark = match row.status {
            Status::Pass => "✓",
            Status::Fail => "✗",
            Status::NotJudged => "–",
        };
        let _ = writeln!(
            out,
            "  {mark} {:<10} {:<56} {} [{}]",
            row.status.as_str(),
            row.check.title,
            counts(row),
            requirement_list(r, row.check)
        );
        for id in row.failed.iter().take(3) {
            let _ = writeln!(out, "      failing: {id}");
        }
        if row.failed.len() > 3 {
            let _ = writeln!(out, "      … and {} more", row.failed.len() - 3);
        }
    }
    let count = |s: Status| rows.iter().filter(|x| x.status == s).count();
    let _ = writeln!(
        out,
        "  teaching: {} pass, {} fail, {} not judged (model answer: harness-ref's wording in snapshots/)",
        count(Status::Pass),
        count(Status::Fail),
        count(Status::NotJudged)
    );
    out
}

/// The Markdown section (empty when no teaching case ran).
pub fn render_markdown(r: &Report) -> String {
    let rows = rows(r);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### Teaching\n\nSHOULD-level scorecard of the error wording: does each message help the model fix its next call?\n"
    );
    let _ = writeln!(
        out,
        "| | check | result | cases | requirements |\n|---|---|---|---|---|"
    );
    for row in &rows {
        let mark = match row.status {
            Status::Pass => "✓",
            Status::Fail => "✗",
            Status::NotJudged => "–",
        };
        let mut cases = counts(row);
        if !row.failed.is_empty() {
            let ids: Vec<String> = row
                .failed
                .iter()
                .take(3)
                .map(|id| format!("`{id}`"))
                .collect();
            let _ = write!(cases, ": {}", ids.join(", "));
            if row.failed.len() > 3 {
                cases.push_str(", …");
            }
        }
        let _ = writeln!(
            out,
            "| {mark} | {} | {} | {} | {} |",
            row.check.title,
            row.status.as_str(),
            cases,
            requirement_list(r, row.check)
        );
    }
    out
}

/// The scorecard for the JSON report's summary line: one object per check (`key`, `title`,
/// `status` = `pass` / `fail` / `not_judged`, `requirements`, `passed`, `failed` case ids,
/// `not_judged`); an empty array when no teaching case ran.
pub fn json(r: &Report) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows(r)
        .iter()
        .map(|row| {
            serde_json::json!({
                "key": row.check.key,
                "title": row.check.title,
                "status": match row.status {
                    Status::Pass => "pass",
                    Status::Fail => "fail",
                    Status::NotJudged => "not_judged",
                },
                "requirements": row.check.requirements,
                "passed": row.passed,
                "failed": row.failed,
                "not_judged": row.not_judged,
            })
        })
        .collect();
    serde_json::Value::Array(rows)
}

/// The scorecard of several harnesses side by side (for `matrix`): one row per check, one
/// column per harness; empty when no teaching case ran.
pub fn grid_markdown(columns: &[(&str, &RunResult)], requirements: &[Requirement]) -> String {
    let cards: Vec<Vec<Row>> = columns
        .iter()
        .map(|(_, run)| {
            rows(&Report {
                run,
                requirements,
                target: "",
                reproduce: "",
            })
        })
        .collect();
    if cards.iter().all(Vec::is_empty) {
        return String::new();
    }
    let mut out = String::new();
    let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
    let _ = writeln!(
        out,
        "\n### Teaching\n\nSHOULD-level scorecard of the error wording (✓ pass, ✗ fail, – not judged).\n"
    );
    let _ = writeln!(
        out,
        "| check | {} |\n|---|{}",
        names
            .iter()
            .map(|n| n.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(names.len())
    );
    for (i, check) in CHECKS.iter().enumerate() {
        let cells: Vec<String> = cards
            .iter()
            .map(|card| match card.get(i) {
                Some(row) => match row.status {
                    Status::Pass => format!("✓ {}", row.passed),
                    Status::Fail => {
                        format!("✗ {}/{}", row.failed.len(), row.failed.len() + row.passed)
                    }
                    Status::NotJudged => "–".to_owned(),
                },
                None => "–".to_owned(),
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", check.title, cells.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_suite::blame::CheckKind;
    use harness_conformance_suite::checks::Check;
    use harness_conformance_suite::verdict::{CaseOutcome, Verdict};
    use std::time::Duration;

    fn run(outcomes: Vec<CaseOutcome>) -> RunResult {
        RunResult {
            hello: None,
            handshake_error: None,
            outcomes,
            coverage: Default::default(),
            elapsed: Duration::ZERO,
        }
    }

    /// An outcome whose one check, owned by its requirement, held or failed as the verdict says.
    fn judged(id: &str, req: &str, v: Verdict) -> CaseOutcome {
        let mut o = CaseOutcome::new(id, &[req.into()], v);
        if v.was_checked() {
            o.checks.push(Check {
                kind: CheckKind::ContentContains,
                result: Some(0),
                requirement: req.into(),
                failure: (v == Verdict::Fail).then(|| "no".to_owned()),
            });
        }
        o
    }

    fn report(run: &RunResult) -> Report<'_> {
        Report {
            run,
            requirements: &[],
            target: "t",
            reproduce: "r",
        }
    }

    #[test]
    fn every_check_names_requirements_and_keys_are_unique() {
        let mut keys: Vec<&str> = CHECKS.iter().map(|c| c.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), CHECKS.len());
        assert!(CHECKS.iter().all(|c| !c.requirements.is_empty()));
    }

    #[test]
    fn a_failing_case_fails_its_check_and_only_its_check() {
        let r = run(vec![
            judged("teaching/a", "TEACH-8", Verdict::Fail),
            judged("teaching/b", "TEACH-2", Verdict::Pass),
            judged("calls/c", "CALL-2", Verdict::Skip),
        ]);
        let rows = rows(&report(&r));
        let by = |k: &str| rows.iter().find(|x| x.check.key == k).unwrap().clone();
        assert_eq!(by("remedy").status, Status::Fail);
        assert_eq!(by("remedy").failed, vec!["teaching/a"]);
        assert_eq!(by("every-violation").status, Status::Pass);
        assert_eq!(by("lists-tools").status, Status::NotJudged);
        assert_eq!(by("path").status, Status::NotJudged);
        let text = render_terminal(&report(&r));
        assert!(text.contains("FAIL") && text.contains("failing: teaching/a"));
        assert!(render_markdown(&report(&r)).contains("| ✗ | says what to do next"));
        let j = json(&report(&r));
        let remedy = j
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["key"] == "remedy")
            .unwrap();
        assert_eq!(remedy["status"], "fail");
        assert_eq!(remedy["failed"][0], "teaching/a");
    }

    #[test]
    fn the_grid_has_a_column_per_harness() {
        let good = run(vec![judged("teaching/a", "TEACH-8", Verdict::Pass)]);
        let bad = run(vec![judged("teaching/a", "TEACH-8", Verdict::Fail)]);
        let md = grid_markdown(&[("ref", &good), ("other", &bad)], &[]);
        assert!(md.contains("| check | ref | other |"), "{md}");
        assert!(
            md.contains("| says what to do next when that is known | ✓ 1 | ✗ 1/1 |"),
            "{md}"
        );
        let none = run(vec![]);
        assert_eq!(grid_markdown(&[("x", &none)], &[]), "");
    }

    #[test]
    fn no_teaching_case_means_no_section() {
        let r = run(vec![judged("cap/x", "CAP-1", Verdict::Pass)]);
        assert!(rows(&report(&r)).is_empty());
        assert_eq!(render_terminal(&report(&r)), "");
        assert_eq!(render_markdown(&report(&r)), "");
    }
}
