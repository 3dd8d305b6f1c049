//! Markdown for a CI step summary: the verdict line, a table by requirement and level, and
//! each unexpected result with its messages and reproducer.
//!
//! A step summary is rendered as HTML by the CI system, so adapter text in it could inject
//! markup, images that call out, headings or an unclosed code fence. Every string that is not
//! the report's own goes through one of [`escape`]'s Markdown functions where it is placed:
//! [`cell`] for text (paragraphs, list items, table cells), [`escape::html`] inside the
//! `<details>` summaries, [`escape::fence`] for code blocks; each is bounded first.

use std::fmt::Write as _;

use super::escape::{self, MAX_NAME_CHARS, MAX_PRINTED_CHARS};
use super::Report;
use harness_conformance_suite::spec::Level;

/// Text for a Markdown paragraph, list item or table cell: bounded to
/// [`MAX_PRINTED_CHARS`] and escaped so that it cannot open a block, a link, an image or HTML.
pub fn cell(s: &str) -> String {
    escape::markdown(&escape::bound(s, MAX_PRINTED_CHARS))
}

/// The report's own text in a table cell (SPEC.md titles): only what breaks a table.
fn own_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn name(s: &str) -> String {
    escape::markdown(&escape::bound(s, MAX_NAME_CHARS))
}

/// The whole report as Markdown.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let totals: Vec<String> = r.totals().iter().map(|(v, n)| format!("{n} {v}")).collect();
    let _ = writeln!(out, "## harness-conformance: {}\n", cell(r.target));
    if let Some(h) = &r.run.hello {
        let _ = writeln!(
            out,
            "Implementation: **{}** {} ({})\n",
            name(&h.implementation.name),
            name(&h.implementation.version),
            name(&h.implementation.language)
        );
    }
    let reasons = r.failure_reasons();
    let _ = writeln!(
        out,
        "**{}** — {} case(s) in {:.2}s: {}\n",
        if reasons.is_empty() { "ok" } else { "FAILED" },
        r.run.outcomes.len(),
        r.run.elapsed.as_secs_f64(),
        totals.join(", ")
    );
    for reason in &reasons {
        let _ = writeln!(out, "- {}", cell(reason));
    }
    if !reasons.is_empty() {
        out.push('\n');
    }
    if let Some(e) = &r.run.handshake_error {
        let _ = writeln!(
            out,
            "The handshake failed:\n\n{}",
            escape::fence(
                &escape::bound(e, crate::terminal::MAX_HANDSHAKE_CHARS),
                "text"
            )
        );
    }
    for level in [Level::Must, Level::Should, Level::May] {
        if r.requirement_rows().iter().any(|row| row.level == level) {
            let _ = writeln!(out, "- {}", r.run.coverage.summary(level));
        }
    }
    let _ = writeln!(
        out,
        "\n| | requirement | level | title | result |\n|---|---|---|---|---|"
    );
    for level in [Level::Must, Level::Should, Level::May] {
        for row in r
            .requirement_rows()
            .into_iter()
            .filter(|row| row.level == level)
        {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                row.status(),
                cell(row.id),
                row.level.as_str(),
                own_cell(row.title),
                cell(&row.detail())
            );
        }
    }
    out.push_str(&crate::teaching::render_markdown(r));
    let unexpected: Vec<_> = r.unexpected().collect();
    if !unexpected.is_empty() {
        let _ = writeln!(out, "\n### Unexpected results\n");
        for o in unexpected {
            let blamed = {
                let failing = o.failing_requirements();
                if failing.is_empty() {
                    o.requirements.join(", ")
                } else {
                    failing.into_iter().collect::<Vec<_>>().join(", ")
                }
            };
            let _ = writeln!(
                out,
                "<details><summary><b>{}</b> <code>{}</code> ({})</summary>\n",
                o.verdict,
                escape::html(&escape::bound(&o.id, MAX_NAME_CHARS)),
                escape::html(&blamed)
            );
            let shown = crate::terminal::MAX_MESSAGES;
            for m in o.messages.iter().take(shown) {
                let _ = writeln!(out, "- {}", cell(m));
            }
            if o.messages.len() > shown {
                let _ = writeln!(out, "- … and {} more message(s)", o.messages.len() - shown);
            }
            let _ = writeln!(
                out,
                "\n{}</details>\n",
                escape::fence(&r.reproducer(&o.id), "sh")
            );
        }
    }
    out
}
