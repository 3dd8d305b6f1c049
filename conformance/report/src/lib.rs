//! Reports: the same run rendered for a terminal, for machines (JSON lines), for CI test
//! views (JUnit XML) and for a CI step summary (Markdown).
//!
//! Each reporter is a pure function from a [`Report`] to text; the binary decides where the
//! text goes. All of them group by requirement and level, because "which MUSTs does this
//! harness break" is the question a reader comes with, and all of them carry, for each
//! unexpected result, the one-command reproducer for that single case.

pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod snapshot;
pub mod teaching;
pub mod terminal;

use std::collections::BTreeMap;

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
    /// The command prefix that reruns one case: the case id is appended (quoted).
    pub reproduce: &'a str,
}

/// Per-requirement tallies.
#[derive(Debug, Clone, PartialEq)]
pub struct RequirementRow<'a> {
    /// The requirement (None for ids SPEC.md lacks).
    pub id: &'a str,
    /// Its level, if known.
    pub level: Option<Level>,
    /// Its title.
    pub title: &'a str,
    /// Verdict → count, over the cases that test it.
    pub counts: BTreeMap<Verdict, usize>,
}

impl RequirementRow<'_> {
    /// The worst verdict among its cases, for a status column.
    pub fn status(&self) -> &'static str {
        let has = |v| self.counts.get(&v).copied().unwrap_or(0) > 0;
        if has(Verdict::Fail)
            || has(Verdict::Error)
            || has(Verdict::BugInCase)
            || has(Verdict::Stale)
        {
            "✗"
        } else if has(Verdict::Pass) || has(Verdict::Xfail) {
            if has(Verdict::Xfail) {
                "~"
            } else {
                "✓"
            }
        } else {
            "–"
        }
    }
}

impl<'a> Report<'a> {
    /// The reproducer for one case.
    pub fn reproducer(&self, id: &str) -> String {
        format!("{} {}", self.reproduce, shell_quote(id))
    }

    /// One row per requirement that has cases in this run, in SPEC.md order.
    pub fn requirement_rows(&self) -> Vec<RequirementRow<'a>> {
        let mut rows: Vec<RequirementRow<'a>> = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for r in self.requirements {
            index.insert(&r.id, rows.len());
            rows.push(RequirementRow {
                id: &r.id,
                level: Some(r.level),
                title: &r.title,
                counts: BTreeMap::new(),
            });
        }
        for o in &self.run.outcomes {
            for req in &o.requirements {
                let i = match index.get(req.as_str()) {
                    Some(i) => *i,
                    None => {
                        index.insert(req.as_str(), rows.len());
                        rows.push(RequirementRow {
                            id: req,
                            level: None,
                            title: "",
                            counts: BTreeMap::new(),
                        });
                        rows.len() - 1
                    }
                };
                *rows[i].counts.entry(o.verdict).or_default() += 1;
            }
        }
        rows.retain(|r| !r.counts.is_empty());
        rows
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

    /// The level of the strongest requirement a case tests.
    pub fn level_of(&self, o: &CaseOutcome) -> Option<Level> {
        o.requirements
            .iter()
            .filter_map(|id| self.requirements.iter().find(|r| &r.id == id))
            .map(|r| r.level)
            .min()
    }
}

/// Quotes `s` for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("cap/a-b"), "cap/a-b");
        assert_eq!(shell_quote("python3 a.py"), "'python3 a.py'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
