//! Comparing harnesses: `selftest` (the reference's broken variants) and `matrix` (several
//! adapters side by side).
//!
//! Both run the same suite against several targets and lay the verdicts out per case. The
//! selftest proves the suite has teeth — every deliberately broken variant of the reference
//! must fail at least one case — and the matrix shows, like JSONTestSuite's grid, how real
//! harnesses differ: a cases × harnesses table grouped by level and requirement, colour-coded,
//! each failing cell carrying what the harness returned. Rendering is pure: text out.

use std::fmt::Write as _;

use harness_ref_adapter::Fault;

use crate::case::Case;
use crate::client::{Harness, InProcess};
use crate::runner::{self, RunConfig, RunResult};
use crate::spec::{Level, Requirement};
use crate::verdict::{CaseOutcome, Verdict};

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
        &|| -> Box<dyn Harness> { Box::new(InProcess::new(None)) },
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
                    &move || -> Box<dyn Harness> { Box::new(InProcess::new(Some(fault))) },
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
    }
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}\
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse}\
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}th{background:#f6f8fa;position:sticky;top:0}\
td.case code{font-size:12px}td.req{font-weight:600;white-space:nowrap}\
td.v{min-width:90px;max-width:360px;font-size:12px}\
.pass{background:#dafbe1}.fail{background:#ffd8d3}.skip{background:#eaeef2;color:#57606a}\
.error{background:#fbe4a6}.bug{background:#e8d7ff}.xfail{background:#fff1c2}.stale{background:#ffc6e0}\
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
            c => format!(" --harness {}", crate::report::shell_quote(c)),
        };
        let _ = write!(
            out,
            "<pre>reproduce: harness-conformance run{} --run {}</pre>",
            esc(&target),
            esc(&crate::report::shell_quote(&o.id))
        );
    }
    out.push_str("</details></td>");
}
