//! The terminal report: a progress line per finished case, then details of every unexpected
//! result with its reproducer and the requirements it fails (identical ERRORs once, with how
//! many cases they hit and a hint of the likely cause from `hints`), then a table by
//! requirement and level with the coverage summary of each level, then the summary at a glance
//! (`summary`), the totals and why the run failed. Colour is added afterwards, by
//! `terminal_style::paint`, and never changes the text.
//!
//! Everything it returns has been through [`escape::terminal`] once, at the end (so no field
//! can be forgotten), and every adapter string in it is bounded where it is placed: one-line
//! slots (ids, reasons, the implementation) by [`escape::one_line`], messages by
//! [`escape::indented`] (continuation lines indented, so adapter text cannot forge a line of
//! its own), at most [`MAX_MESSAGES`] per case.

use std::fmt::Write as _;

use super::escape::{self, MAX_NAME_CHARS, MAX_PRINTED_CHARS};
use super::Report;
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

/// The most messages printed for one case (the rest are counted).
pub const MAX_MESSAGES: usize = 20;

/// The most expected failures (XFAIL) listed one by one; the baseline accounts for them, so a
/// red run's own failures are not buried under them.
pub const MAX_XFAILS: usize = 20;

/// The most chars of a handshake error printed.
pub const MAX_HANDSHAKE_CHARS: usize = 8000;

/// One progress line, printed as each case finishes (`[ 12/160] PASS  cap/x (3 ms)`): one line
/// whatever the id or skip reason holds.
pub fn progress_line(done: usize, total: usize, o: &CaseOutcome) -> String {
    let width = total.to_string().len();
    let mut line = format!(
        "[{done:>width$}/{total}] {:<11} {} ({:.0} ms)",
        o.verdict.as_str(),
        escape::one_line(&o.id, MAX_NAME_CHARS),
        o.duration.as_secs_f64() * 1000.0
    );
    if o.verdict == Verdict::Skip {
        if let Some(reason) = o.messages.first() {
            let _ = write!(line, " — {}", escape::one_line(reason, MAX_NAME_CHARS));
        }
    }
    line
}

/// The messages of one case as `  - …` lines, bounded in number and length.
fn push_messages(out: &mut String, messages: &[String]) {
    for m in messages.iter().take(MAX_MESSAGES) {
        let _ = writeln!(
            out,
            "  - {}",
            escape::indented(m, MAX_PRINTED_CHARS, "    ")
        );
    }
    if messages.len() > MAX_MESSAGES {
        let _ = writeln!(
            out,
            "  - … and {} more message(s)",
            messages.len() - MAX_MESSAGES
        );
    }
}

/// The most other case ids named when identical ERRORs are collapsed into one entry.
pub const MAX_SAME_ERROR_IDS: usize = 5;

/// The line under a collapsed ERROR: how many other cases got exactly the same messages.
fn push_same_error(out: &mut String, others: &[&str]) {
    let named: Vec<String> = others
        .iter()
        .take(MAX_SAME_ERROR_IDS)
        .map(|id| escape::one_line(id, MAX_NAME_CHARS))
        .collect();
    let more = others.len().saturating_sub(MAX_SAME_ERROR_IDS);
    let _ = writeln!(
        out,
        "  the same ERROR in {} more case(s): {}{}",
        others.len(),
        named.join(", "),
        if more > 0 {
            format!(" … and {more} more")
        } else {
            String::new()
        }
    );
}

/// The likely cause of an ERROR (`hints`), when it is known.
fn push_hint(out: &mut String, hint: Option<&crate::hints::Hint>) {
    if let Some(h) = hint {
        let _ = writeln!(out, "  hint: {} ({})", h.advice, h.code);
    }
}

/// The closing report, escaped for a terminal.
pub fn render(r: &Report) -> String {
    escape::terminal(&render_plain(r)).into_owned()
}

fn render_plain(r: &Report) -> String {
    let mut out = String::new();
    if let Some(e) = &r.run.handshake_error {
        let _ = writeln!(
            out,
            "\n── the handshake failed: no case ran ──\n{}",
            escape::indented(e, MAX_HANDSHAKE_CHARS, "  ")
        );
        push_hint(&mut out, crate::hints::for_message(e));
    }
    let unexpected: Vec<&CaseOutcome> = if r.run.handshake_error.is_some() {
        Vec::new()
    } else {
        r.unexpected().collect()
    };
    if !unexpected.is_empty() {
        let _ = writeln!(out, "\n── unexpected results ──");
    }
    for group in crate::summary::groups(&unexpected) {
        let o = group.first;
        let level = r.level_of(o).map_or("?", Level::as_str);
        let failing = o.failing_requirements();
        let blamed = if failing.is_empty() {
            o.requirements.join(", ")
        } else {
            failing.into_iter().collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(
            out,
            "\n{} {} [{}; {}]",
            o.verdict,
            escape::one_line(&o.id, MAX_NAME_CHARS),
            blamed,
            level
        );
        if group.ids.len() > 1 {
            push_same_error(&mut out, &group.ids[1..]);
        }
        push_messages(&mut out, &o.messages);
        if o.verdict == Verdict::Error {
            push_hint(&mut out, crate::hints::for_messages(&o.messages));
        }
        let _ = writeln!(out, "  reproduce: {}", r.reproducer(&o.id));
    }
    let xfails: Vec<&CaseOutcome> = r
        .run
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Xfail)
        .collect();
    if !xfails.is_empty() {
        let _ = writeln!(out, "\n── expected failures (baseline) ──");
        for o in xfails.iter().take(MAX_XFAILS) {
            let _ = writeln!(
                out,
                "  XFAIL {} — {}",
                escape::one_line(&o.id, MAX_NAME_CHARS),
                escape::one_line(o.baseline.as_deref().unwrap_or(""), MAX_NAME_CHARS)
            );
        }
        if xfails.len() > MAX_XFAILS {
            let _ = writeln!(
                out,
                "  … and {} more XFAIL, each as its baseline entry says (every one is in the JSON and JUnit reports)",
                xfails.len() - MAX_XFAILS
            );
        }
    }
    let rows = r.requirement_rows();
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "\n── by requirement (a requirement fails only where its own checks failed) ──"
        );
    }
    for level in [Level::Must, Level::Should, Level::May] {
        let rows: Vec<_> = rows.iter().filter(|row| row.level == level).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{}", r.run.coverage.summary(level));
        for row in rows {
            let _ = writeln!(
                out,
                "  {} {:<8} {:<60} {}",
                row.status(),
                row.id,
                cut(row.title, 60),
                // The detail quotes skip reasons and baseline reasons: one line, bounded.
                escape::one_line(&row.detail(), MAX_PRINTED_CHARS)
            );
        }
    }
    if !r.run.coverage.unmapped_classes.is_empty() {
        let _ = writeln!(
            out,
            "  note (OUT-7): no code and no fold for {}; their class checks were not run",
            r.run
                .coverage
                .unmapped_classes
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out.push_str(&crate::teaching::render_terminal(r));
    out.push_str(&crate::summary::render_terminal(r));
    let totals: Vec<String> = r.totals().iter().map(|(v, n)| format!("{n} {v}")).collect();
    if let Some(h) = &r.run.hello {
        let i = &h.implementation;
        let _ = write!(
            out,
            "\nimplementation: {} {} ({})",
            escape::one_line(&i.name, MAX_NAME_CHARS),
            escape::one_line(&i.version, MAX_NAME_CHARS),
            escape::one_line(&i.language, MAX_NAME_CHARS)
        );
    }
    let _ = writeln!(
        out,
        "\n{} — {} case(s) in {:.2}s: {}",
        escape::one_line(r.target, MAX_PRINTED_CHARS),
        r.run.outcomes.len(),
        r.run.elapsed.as_secs_f64(),
        totals.join(", ")
    );
    let reasons = r.failure_reasons();
    if reasons.is_empty() {
        let _ = writeln!(out, "result: ok");
    } else if r.run.handshake_error.is_some() {
        // The whole message is printed above: the reasons (made for reports that show no
        // such section) would say it a second time.
        let _ = writeln!(
            out,
            "result: FAILED (the handshake failed, so no case ran: its message is above)"
        );
    } else {
        let _ = writeln!(out, "result: FAILED ({})", reasons.join("; "));
    }
    out
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
