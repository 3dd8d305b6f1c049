//! `matrix`: several harnesses side by side, rendered as a Markdown grid (the HTML site is
//! [`crate::site`]).
//!
//! Like JSONTestSuite's grid, it shows how real harnesses differ: a cases × harnesses table
//! grouped by level and requirement. The runs are made elsewhere (the command line, through the
//! driver, or read back from saved reports); rendering is pure: text out.
//!
//! Every string in the grid that is not the grid's own (column names, implementation names,
//! suite versions, case ids, requirement ids from saved reports) goes through
//! [`escape::markdown`], so none can open HTML, a link or an image in a rendered `matrix.md`.
//! Building it is linear in the outcomes (each column's outcomes indexed once by id), so a
//! matrix of many large reports costs their size, not its square.

use std::collections::HashMap;
use std::fmt::Write as _;

use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::{Level, Requirement};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use crate::{escape, Report};

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
    /// When the run started (`2025-06-01T12:00:00Z`), when its report says.
    pub date: Option<String>,
    /// Its run.
    pub result: RunResult,
    /// Earlier runs of the same harness (other versions, or the same one run again), oldest
    /// first: the site shows them as the column's history. Empty for most columns.
    pub history: Vec<Column>,
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
    /// The row groups, each case once under its first requirement, in one pass over the
    /// outcomes (hash lookups, no search of what came before).
    fn groups(&self) -> Vec<Group<'a>> {
        let spec: HashMap<&str, (usize, Level)> = self
            .requirements
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.as_str(), (i, r.level)))
            .collect();
        let mut groups: Vec<Group<'a>> = Vec::new();
        let mut group_of: HashMap<&'a str, usize> = HashMap::new();
        let mut placed: std::collections::HashSet<(&'a str, &'a str)> = Default::default();
        for o in self.columns.iter().flat_map(|c| &c.result.outcomes) {
            let req: &'a str = o.requirements.first().map_or("", String::as_str);
            let g = *group_of.entry(req).or_insert_with(|| {
                groups.push(Group {
                    level: spec.get(req).map(|s| s.1),
                    id: req.to_owned(),
                    cases: Vec::new(),
                });
                groups.len() - 1
            });
            if placed.insert((req, o.id.as_str())) {
                groups[g].cases.push(&o.id);
            }
        }
        let order = |id: &str| spec.get(id).map_or(usize::MAX, |s| s.0);
        groups.sort_by(|a, b| {
            (a.level.unwrap_or(Level::May), order(&a.id), &a.id).cmp(&(
                b.level.unwrap_or(Level::May),
                order(&b.id),
                &b.id,
            ))
        });
        groups
    }
}

/// Each column's outcomes by case id (the first of an id, as a search from the start finds).
pub fn index(columns: &[Column]) -> Vec<HashMap<&str, &CaseOutcome>> {
    columns
        .iter()
        .map(|c| {
            let mut by_id = HashMap::with_capacity(c.result.outcomes.len());
            for o in &c.result.outcomes {
                by_id.entry(o.id.as_str()).or_insert(o);
            }
            by_id
        })
        .collect()
}

/// A case's symbol in the grid. The grid compares harnesses, so it shows what happened, not
/// what each harness's own baseline expects: a known failure (XFAIL) is a failure, marked
/// `(b)` for baselined.
fn symbol(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "✅",
        Verdict::Fail => "❌",
        Verdict::Skip => "⏭️",
        Verdict::Error => "💥",
        Verdict::BugInCase => "🐞",
        Verdict::Xfail => "❌ (b)",
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
            version_cell(&col.suite),
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
    let names: Vec<String> = grid
        .columns
        .iter()
        .map(|c| md(&crate::site::bounded(&c.name, 60)))
        .collect();
    let by_id = index(grid.columns);
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
            md(&req.id),
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
            let cells: Vec<String> = by_id
                .iter()
                .map(|col| match col.get(case) {
                    Some(o) => symbol(o.verdict).to_owned(),
                    None => "·".to_owned(),
                })
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                md(&g.id),
                case_cell(case),
                cells.join(" | ")
            );
        }
    }
    out
}

/// What the by-requirement tables' symbols mean.
const REQUIREMENT_LEGEND: &str = "✅ pass · ❌ fail (n of m cases; a failure the harness's own baseline lists is still a failure here, marked (b) for baselined) · ❔ not testable on this harness ((b): baselined) · ⁇ not evaluated (the harness gave its checks no answer to read; the requirement that promised it fails) · ➖ not applicable";

/// One requirement's cell for one harness: its coverage status.
fn requirement_cell(col: &Column, id: &str) -> String {
    use harness_conformance_suite::coverage::Status;
    let Some(r) = col.result.coverage.requirements.iter().find(|r| r.id == id) else {
        return "·".to_owned();
    };
    match r.status {
        Status::Pass => "✅".to_owned(),
        Status::Fail => format!("❌ {}/{}", r.failing_cases.len(), r.tested_cases),
        Status::Xfail => format!("❌ {}/{} (b)", r.failing_cases.len(), r.tested_cases),
        Status::NotTestable if r.baselined.is_some() => "❔ (b)".to_owned(),
        Status::NotTestable => "❔".to_owned(),
        Status::NotEvaluated => "⁇".to_owned(),
        Status::NotApplicable => "➖".to_owned(),
    }
}

/// A suite version in its cell: as it is when it is a version (digits, letters, `.`, `-`, `+`:
/// nothing Markdown reads inside a table cell), escaped otherwise.
fn version_cell(v: &str) -> String {
    if crate::saved::is_version(v) {
        v.to_owned()
    } else {
        md(&crate::site::bounded(v, 40))
    }
}

/// A case id in its cell: a code span when it is in the suite's id grammar (which holds no
/// backtick), escaped text otherwise.
fn case_cell(id: &str) -> String {
    if crate::saved::is_case_id(id) {
        format!("`{id}`")
    } else {
        md(&crate::site::bounded(id, escape::MAX_NAME_CHARS))
    }
}

/// Text from a column, a run or a saved report in a grid cell: escaped so that it cannot open
/// HTML, a link, an image or a new table column ([`escape::markdown`]).
fn md(s: &str) -> String {
    escape::markdown(s)
}
