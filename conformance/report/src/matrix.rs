//! `matrix`: several harnesses side by side, rendered as Markdown and HTML grids.
//!
//! Like JSONTestSuite's grid, it shows how real harnesses differ: a cases × harnesses table
//! grouped by level and requirement, colour-coded, each failing cell carrying what the harness
//! returned. The runs are made elsewhere (the command line, through the driver); rendering is
//! pure: text out.

use std::fmt::Write as _;

use harness_conformance_suite::case::Case;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::{Level, Requirement};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

/// One harness's column.
#[derive(Debug)]
pub struct Column {
    /// The name given on the command line.
    pub name: String,
    /// The adapter command.
    pub command: String,
    /// Its run.
    pub result: RunResult,
}

/// The grid to render.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    /// The rows.
    pub cases: &'a [&'a Case],
    /// SPEC.md's requirements (for grouping and levels).
    pub requirements: &'a [Requirement],
    /// The columns.
    pub columns: &'a [Column],
}

/// A group of rows: one requirement and its cases (a case sits under its first requirement).
struct Group<'a> {
    level: Option<Level>,
    id: String,
    title: String,
    cases: Vec<&'a Case>,
}

impl<'a> Grid<'a> {
    fn groups(&self) -> Vec<Group<'a>> {
        let mut groups: Vec<Group<'a>> = Vec::new();
        for case in self.cases {
            let req = case.requirements.first().cloned().unwrap_or_default();
            match groups.iter_mut().find(|g| g.id == req) {
                Some(g) => g.cases.push(case),
                None => {
                    let spec = self.requirements.iter().find(|r| r.id == req);
                    groups.push(Group {
                        level: spec.map(|r| r.level),
                        title: spec.map(|r| r.title.clone()).unwrap_or_default(),
                        id: req,
                        cases: vec![case],
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
        "| harness | {} |",
        Verdict::ALL.map(|v| v.as_str()).join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(Verdict::ALL.len()));
    for col in grid.columns {
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| col.result.count(*v).to_string())
            .collect();
        let _ = writeln!(out, "| {} | {} |", md(&col.name), counts.join(" | "));
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
                .map(|col| match grid.outcome(col, &case.id) {
                    Some(o) => symbol(o.verdict).to_owned(),
                    None => "·".to_owned(),
                })
                .collect();
            let _ = writeln!(out, "| {} | `{}` | {} |", g.id, case.id, cells.join(" | "));
        }
    }
    out
}

/// What the by-requirement tables' symbols mean.
const REQUIREMENT_LEGEND: &str = "✅ pass · ❌ fail (n of m cases) · ⚠️ known failure (baseline) · ❔ not testable on this harness (⚠️❔ baselined) · ➖ not applicable";

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
        Status::NotApplicable => "➖".to_owned(),
    }
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn css_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::Skip => "skip",
        Verdict::Error => "error",
        Verdict::BugInCase => "bug",
        Verdict::Xfail => "xfail",
        Verdict::Stale => "stale",
        Verdict::NewSkip => "newskip",
    }
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}\
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse}\
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}th{background:#f6f8fa;position:sticky;top:0}\
td.case code{font-size:12px}td.req{font-weight:600;white-space:nowrap}\
td.v{min-width:90px;max-width:360px;font-size:12px}\
.pass{background:#dafbe1}.fail{background:#ffd8d3}.skip{background:#eaeef2;color:#57606a}\
.error{background:#fbe4a6}.bug{background:#e8d7ff}.xfail{background:#fff1c2}.stale{background:#ffc6e0}.newskip{background:#ffc6e0}\
details summary{cursor:pointer;font-weight:600}details pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font-size:11px}\
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border:1px solid #d0d7de}\
tr.group td{background:#f6f8fa;font-weight:600}";

/// The grid as one self-contained HTML page (inline CSS, no scripts, no external resources).
pub fn html(grid: &Grid) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<title>harness-conformance matrix</title>");
    let _ = write!(out, "<style>{STYLE}</style></head><body>");
    out.push_str("<h1>harness-conformance: cases × harnesses</h1>");
    out.push_str("<p class=\"legend\">");
    for v in Verdict::ALL {
        let _ = write!(
            out,
            "<span class=\"{}\">{}</span>",
            css_class(v),
            v.as_str()
        );
    }
    out.push_str("</p><table><tr><th>harness</th><th>command</th>");
    for v in Verdict::ALL {
        let _ = write!(out, "<th>{}</th>", v.as_str());
    }
    out.push_str("</tr>");
    for col in grid.columns {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td>",
            esc(&col.name),
            esc(&col.command)
        );
        for v in Verdict::ALL {
            let _ = write!(
                out,
                "<td class=\"{}\">{}</td>",
                css_class(v),
                col.result.count(v)
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    let _ = write!(
        out,
        "<h2>By requirement</h2><p>{}</p><table><tr><th>requirement</th><th>level</th><th>title</th>",
        esc(REQUIREMENT_LEGEND)
    );
    for col in grid.columns {
        let _ = write!(out, "<th>{}</th>", esc(&col.name));
    }
    out.push_str("</tr>");
    for req in grid.requirements {
        let cells: Vec<String> = grid
            .columns
            .iter()
            .map(|col| requirement_cell(col, &req.id))
            .collect();
        if cells.iter().all(|c| c == "·") {
            continue;
        }
        let _ = write!(
            out,
            "<tr><td class=\"req\">{}</td><td>{}</td><td>{}</td>",
            esc(&req.id),
            req.level.as_str(),
            esc(&req.title)
        );
        for c in cells {
            let class = match c.chars().next() {
                Some('✅') => "pass",
                Some('❌') => "fail",
                Some('⚠') => "xfail",
                Some('❔') => "error",
                _ => "skip",
            };
            let _ = write!(out, "<td class=\"v {class}\">{}</td>", esc(&c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    let mut current: Option<Option<Level>> = None;
    let mut open = false;
    for g in grid.groups() {
        if current != Some(g.level) {
            if open {
                out.push_str("</table>");
            }
            current = Some(g.level);
            open = true;
            let _ = write!(
                out,
                "<h2>{}</h2><table><tr><th>requirement</th><th>case</th>",
                g.level.map_or("(not in SPEC.md)", |l| l.as_str())
            );
            for col in grid.columns {
                let _ = write!(out, "<th>{}</th>", esc(&col.name));
            }
            out.push_str("</tr>");
        }
        let _ = write!(
            out,
            "<tr class=\"group\"><td colspan=\"{}\">{} — {}</td></tr>",
            grid.columns.len() + 2,
            esc(&g.id),
            esc(&g.title)
        );
        for case in &g.cases {
            let _ = write!(
                out,
                "<tr><td class=\"req\">{}</td><td class=\"case\" title=\"{}\"><code>{}</code></td>",
                esc(&case.requirements.join(", ")),
                esc(&case.description),
                esc(&case.id)
            );
            for col in grid.columns {
                match grid.outcome(col, &case.id) {
                    None => out.push_str("<td class=\"v\">·</td>"),
                    Some(o) => cell(&mut out, o, &col.command),
                }
            }
            out.push_str("</tr>");
        }
    }
    if open {
        out.push_str("</table>");
    }
    out.push_str("</body></html>\n");
    out
}

fn cell(out: &mut String, o: &CaseOutcome, command: &str) {
    let class = css_class(o.verdict);
    if o.verdict == Verdict::Pass {
        let _ = write!(out, "<td class=\"v {class}\">PASS</td>");
        return;
    }
    let _ = write!(
        out,
        "<td class=\"v {class}\"><details><summary>{}</summary>",
        o.verdict.as_str()
    );
    for m in &o.messages {
        let _ = write!(out, "<pre>{}</pre>", esc(m));
    }
    if let Some(reason) = &o.baseline {
        let _ = write!(out, "<pre>baseline: {}</pre>", esc(reason));
    }
    if let Some(r) = &o.returned {
        if o.verdict != Verdict::Skip {
            let _ = write!(out, "<pre>returned: {}</pre>", esc(r));
        }
    }
    if o.verdict.is_unexpected() {
        let target = match command.trim() {
            "" | "reference" => String::new(),
            c => format!(" --harness {}", crate::shell_quote(c)),
        };
        let _ = write!(
            out,
            "<pre>reproduce: harness-conformance run{} --run {}</pre>",
            esc(&target),
            esc(&crate::shell_quote(&o.id))
        );
    }
    out.push_str("</details></td>");
}
