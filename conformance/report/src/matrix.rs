//! `matrix`: several harnesses side by side, rendered as a Markdown grid (the HTML site is
//! [`crate::site`]).
//!
//! Like JSONTestSuite's grid, it shows how real harnesses differ: a cases × harnesses table
//! grouped by level and requirement. The runs are made elsewhere (the command line, through the
//! driver, or read back from saved reports); rendering is pure: text out.

use std::fmt::Write as _;

use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::{Level, Requirement};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use crate::Report;

/// One harness's column.
#[derive(Debug, Clone)]
pub struct Column {
    /// The name given on the command line (or the saved report's file name).
    pub name: String,
    /// What was run, as its report says (`adapter `…``).
    pub target: String,
    /// The reproducer prefix of its run (the case id is appended).
    pub reproduce: String,
    /// The suite version that made the run.
    pub suite: String,
    /// Its run.
    pub result: RunResult,
}

impl Column {
    /// The column's run as a [`Report`], for the renderers.
    pub fn report<'a>(&'a self, requirements: &'a [Requirement]) -> Report<'a> {
        Report {
            run: &self.result,
            requirements,
            target: &self.target,
            reproduce: &self.reproduce,
        }
    }
}

/// The grid to render.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    /// SPEC.md's requirements (for grouping and levels).
    pub requirements: &'a [Requirement],
    /// The columns; the rows are the cases their runs have, in the order they list them.
    pub columns: &'a [Column],
}

/// A group of rows: one requirement and its cases (a case sits under its first requirement).
struct Group<'a> {
    level: Option<Level>,
    id: String,
    cases: Vec<&'a str>,
}

impl<'a> Grid<'a> {
    fn groups(&self) -> Vec<Group<'a>> {
        let mut groups: Vec<Group<'a>> = Vec::new();
        for o in self.columns.iter().flat_map(|c| &c.result.outcomes) {
            let req = o.requirements.first().cloned().unwrap_or_default();
            match groups.iter_mut().find(|g| g.id == req) {
                Some(g) => {
                    if !g.cases.contains(&o.id.as_str()) {
                        g.cases.push(&o.id);
                    }
                }
                None => {
                    let spec = self.requirements.iter().find(|r| r.id == req);
                    groups.push(Group {
                        level: spec.map(|r| r.level),
                        id: req,
                        cases: vec![&o.id],
                    });
                }
            }
        }
        let order = |id: &str| {
            self.requirements
                .iter()
                .position(|r| r.id == id)
                .unwrap_or(usize::MAX)
        };
        groups.sort_by(|a, b| {
            (a.level.unwrap_or(Level::May), order(&a.id), &a.id).cmp(&(
                b.level.unwrap_or(Level::May),
                order(&b.id),
                &b.id,
            ))
        });
        groups
    }

    fn outcome(&self, col: &'a Column, id: &str) -> Option<&'a CaseOutcome> {
        col.result.outcomes.iter().find(|o| o.id == id)
    }
}

fn symbol(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "✅",
        Verdict::Fail => "❌",
        Verdict::Skip => "⏭️",
        Verdict::Error => "💥",
        Verdict::BugInCase => "🐞",
        Verdict::Xfail => "⚠️",
        Verdict::Stale => "🔄",
        Verdict::NewSkip => "🆕",
    }
}

/// The grid as Markdown: a totals table, then one table per level.
pub fn markdown(grid: &Grid) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| harness | implementation | suite | {} |",
        Verdict::ALL.map(|v| v.as_str()).join(" | ")
    );
    let _ = writeln!(out, "|---|---|---|{}", "---|".repeat(Verdict::ALL.len()));
    for col in grid.columns {
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| col.result.count(*v).to_string())
            .collect();
        let implementation = col.result.hello.as_ref().map_or("—".to_owned(), |h| {
            format!("{} {}", h.implementation.name, h.implementation.version)
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md(&crate::site::bounded(&col.name, 60)),
            md(&crate::site::bounded(&implementation, 80)),
            md(&col.suite),
            counts.join(" | ")
        );
    }
    let legend: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| format!("{} {}", symbol(*v), v.as_str()))
        .collect();
    let _ = writeln!(out, "\n{}\n", legend.join(" · "));
    let runs: Vec<(&str, &RunResult)> = grid
        .columns
        .iter()
        .map(|c| (c.name.as_str(), &c.result))
        .collect();
    out.push_str(&crate::teaching::grid_markdown(&runs, grid.requirements));
    let names: Vec<String> = grid.columns.iter().map(|c| md(&c.name)).collect();
    // By requirement, from check-level blame: a cell fails only where one of the
    // requirement's own checks failed.
    let _ = writeln!(out, "\n### By requirement\n\n{}\n", REQUIREMENT_LEGEND);
    let _ = writeln!(out, "| requirement | level | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(names.len()));
    for req in grid.requirements {
        let cells: Vec<String> = grid
            .columns
            .iter()
            .map(|col| requirement_cell(col, &req.id))
            .collect();
        if cells.iter().all(|c| c == "·") {
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            req.id,
            req.level.as_str(),
            cells.join(" | ")
        );
    }
    let mut current: Option<Option<Level>> = None;
    for g in grid.groups() {
        if current != Some(g.level) {
            current = Some(g.level);
            let _ = writeln!(
                out,
                "\n### {}\n",
                g.level
                    .map_or("(requirement not in SPEC.md)", |l| l.as_str())
            );
            let _ = writeln!(out, "| requirement | case | {} |", names.join(" | "));
            let _ = writeln!(out, "|---|---|{}", "---|".repeat(names.len()));
        }
        for case in &g.cases {
            let cells: Vec<String> = grid
                .columns
                .iter()
                .map(|col| match grid.outcome(col, case) {
                    Some(o) => symbol(o.verdict).to_owned(),
                    None => "·".to_owned(),
                })
                .collect();
            let _ = writeln!(out, "| {} | `{}` | {} |", g.id, case, cells.join(" | "));
        }
    }
    out
}

/// What the by-requirement tables' symbols mean.
const REQUIREMENT_LEGEND: &str = "✅ pass · ❌ fail (n of m cases) · ⚠️ known failure (baseline) · ❔ not testable on this harness (⚠️❔ baselined) · ⁇ not evaluated (the harness gave its checks no answer to read; the requirement that promised it fails) · ➖ not applicable";

/// One requirement's cell for one harness: its coverage status.
fn requirement_cell(col: &Column, id: &str) -> String {
    use harness_conformance_suite::coverage::Status;
    let Some(r) = col.result.coverage.requirements.iter().find(|r| r.id == id) else {
        return "·".to_owned();
    };
    match r.status {
        Status::Pass => "✅".to_owned(),
        Status::Fail => format!("❌ {}/{}", r.failing_cases.len(), r.tested_cases),
        Status::Xfail => format!("⚠️ {}/{}", r.failing_cases.len(), r.tested_cases),
        Status::NotTestable if r.baselined.is_some() => "⚠️❔".to_owned(),
        Status::NotTestable => "❔".to_owned(),
        Status::NotEvaluated => "⁇".to_owned(),
        Status::NotApplicable => "➖".to_owned(),
    }
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
