//! The closing summary of a terminal report: the run at a glance.
//!
//! After hundreds of progress lines and the detailed sections, a reader wants four answers
//! without scrolling: how each area of the suite went, where the MUST and SHOULD requirements
//! stand, the first few failures with the command that reruns each, and which requirements
//! could not be tested and why — failures first, and the untestable ones the baseline already
//! lists in one line per level, so a red run does not bury its failures under known gaps. This module composes that block (plain text; the terminal
//! renderer escapes and colours it); identical ERRORs count once, as in the detailed section,
//! with how many cases they hit.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::escape::{self, MAX_NAME_CHARS};
use super::{hints, Report};
use harness_conformance_suite::coverage::Status;
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

/// The most failures the summary lists (the rest are counted).
pub const MAX_FIRST_FAILURES: usize = 5;

/// The most not-testable requirements the summary lists per level.
pub const MAX_NOT_TESTABLE: usize = 10;

/// The widest area name printed (case files name areas; a longer one is cut).
const MAX_AREA_CHARS: usize = 24;

/// The most chars of a failure's first message printed in the summary.
const MAX_MESSAGE_CHARS: usize = 160;

/// Unexpected results with identical messages, counted once: one ERROR a first mistake in an
/// adapter makes for every case is one entry.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    /// The first outcome of the group, in case order.
    pub first: &'a CaseOutcome,
    /// Every case id in the group, the first one included.
    pub ids: Vec<&'a str>,
}

/// The unexpected outcomes grouped: ERRORs with the same messages share a group, every other
/// outcome is a group of its own (a FAIL's messages describe the case, so two identical ones
/// are still two findings).
pub fn groups<'a>(unexpected: &[&'a CaseOutcome]) -> Vec<Group<'a>> {
    let mut out: Vec<Group<'a>> = Vec::new();
    let mut by_messages: BTreeMap<&'a [String], usize> = BTreeMap::new();
    for o in unexpected {
        if o.verdict == Verdict::Error && !o.messages.is_empty() {
            if let Some(&i) = by_messages.get(o.messages.as_slice()) {
                out[i].ids.push(&o.id);
                continue;
            }
            by_messages.insert(&o.messages, out.len());
        }
        out.push(Group {
            first: o,
            ids: vec![&o.id],
        });
    }
    out
}

/// One area's verdict counts, in `Verdict::ALL` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AreaRow {
    /// The area: the case id up to its first `/`.
    pub area: String,
    /// How many cases of the area got each verdict, indexed like `Verdict::ALL`.
    pub counts: [usize; Verdict::ALL.len()],
}

/// The areas of the run in first-appearance order.
pub fn areas(r: &Report) -> Vec<AreaRow> {
    let mut rows: Vec<AreaRow> = Vec::new();
    for o in &r.run.outcomes {
        let area = o.id.split_once('/').map_or(o.id.as_str(), |(a, _)| a);
        let i = match rows.iter().position(|row| row.area == area) {
            Some(i) => i,
            None => {
                rows.push(AreaRow {
                    area: area.to_owned(),
                    counts: [0; Verdict::ALL.len()],
                });
                rows.len() - 1
            }
        };
        let v = Verdict::ALL
            .iter()
            .position(|v| *v == o.verdict)
            .expect("ALL lists every verdict");
        rows[i].counts[v] += 1;
    }
    rows
}

/// The summary block (plain text, not yet escaped).
pub fn render_terminal(r: &Report) -> String {
    let mut out = String::new();
    if r.run.outcomes.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\n── summary ──");
    let rows = areas(r);
    // Only the verdicts this run has get a column.
    let columns: Vec<usize> = (0..Verdict::ALL.len())
        .filter(|&v| rows.iter().any(|row| row.counts[v] > 0))
        .collect();
    let width = rows
        .iter()
        .map(|row| row.area.chars().count().min(MAX_AREA_CHARS))
        .chain([4])
        .max()
        .unwrap_or(4);
    let mut header = format!("  {:<width$}", "area");
    for &v in &columns {
        let _ = write!(header, " {:>5}", Verdict::ALL[v].as_str());
    }
    let _ = writeln!(out, "{}", header.trim_end());
    for row in &rows {
        let _ = write!(
            out,
            "  {:<width$}",
            escape::one_line(&row.area, MAX_AREA_CHARS)
        );
        for &v in &columns {
            let label = Verdict::ALL[v].as_str().len().max(5);
            let _ = write!(out, " {:>label$}", row.counts[v]);
        }
        out.push('\n');
    }
    if r.run.handshake_error.is_some() {
        return out;
    }
    for level in [Level::Must, Level::Should] {
        let _ = writeln!(out, "  {}", r.run.coverage.summary(level));
    }
    // The failures first: on a red run they are what the reader came for, and what the
    // baseline already accounts for follows in a line per level.
    let unexpected: Vec<&CaseOutcome> = r.unexpected().collect();
    let groups = groups(&unexpected);
    if !groups.is_empty() {
        let shown = groups.len().min(MAX_FIRST_FAILURES);
        let _ = writeln!(
            out,
            "  first unexpected results ({shown} of {}):",
            groups.len()
        );
        for g in groups.iter().take(MAX_FIRST_FAILURES) {
            let o = g.first;
            let mut line = format!(
                "    {} {}",
                o.verdict,
                escape::one_line(&o.id, MAX_NAME_CHARS)
            );
            if g.ids.len() > 1 {
                let _ = write!(line, " (and {} more case(s), same error)", g.ids.len() - 1);
            }
            if let Some(m) = o.messages.first() {
                let _ = write!(line, " — {}", escape::one_line(m, MAX_MESSAGE_CHARS));
            }
            let _ = writeln!(out, "{line}");
            if o.verdict == Verdict::Error {
                if let Some(h) = hints::for_messages(&o.messages) {
                    let _ = writeln!(out, "      hint: {} ({})", h.advice, h.code);
                }
            }
            let _ = writeln!(out, "      reproduce: {}", r.reproducer(&o.id));
        }
    }
    for level in [Level::Must, Level::Should] {
        let rows: Vec<_> = r
            .run
            .coverage
            .requirements
            .iter()
            .filter(|q| q.level == level && q.status == Status::NotTestable)
            .collect();
        let (known, open): (Vec<_>, Vec<_>) = rows.into_iter().partition(|q| q.baselined.is_some());
        if !open.is_empty() {
            let _ = writeln!(out, "  not testable ({}):", level.as_str());
            for q in open.iter().take(MAX_NOT_TESTABLE) {
                let _ = writeln!(
                    out,
                    "    {} — {}",
                    q.id,
                    escape::one_line(q.reason.as_deref().unwrap_or(""), MAX_MESSAGE_CHARS)
                );
            }
            if open.len() > MAX_NOT_TESTABLE {
                let _ = writeln!(out, "    … and {} more", open.len() - MAX_NOT_TESTABLE);
            }
        }
        if !known.is_empty() {
            let ids: Vec<&str> = known.iter().map(|q| q.id.as_str()).collect();
            let _ = writeln!(
                out,
                "  not testable ({}), as the baseline says: {}",
                level.as_str(),
                escape::one_line(&ids.join(", "), MAX_MESSAGE_CHARS * 2)
            );
        }
    }
    out
}
