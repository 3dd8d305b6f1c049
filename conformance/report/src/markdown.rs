//! Markdown for a CI step summary: the verdict line, a table by requirement and level, and
//! each unexpected result with its messages and reproducer.

use std::fmt::Write as _;

use super::Report;
use harness_conformance_suite::spec::Level;

/// Escapes text for a Markdown table cell.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
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
            cell(&h.implementation.name),
            cell(&h.implementation.version),
            cell(&h.implementation.language)
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
            "The handshake failed:\n\n```text\n{}\n```\n",
            e.replace('`', "'")
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
                row.id,
                row.level.as_str(),
                cell(row.title),
                cell(&row.detail())
            );
        }
    }
    out.push_str(&crate::teaching::render_markdown(r));
    let unexpected: Vec<_> = r.unexpected().collect();
    if !unexpected.is_empty() {
        let _ = writeln!(out, "\n### Unexpected results\n");
        for o in unexpected {
            let _ = writeln!(
                out,
                "<details><summary><b>{}</b> <code>{}</code> ({})</summary>\n",
                o.verdict,
                o.id,
                {
                    let failing = o.failing_requirements();
                    if failing.is_empty() {
                        o.requirements.join(", ")
                    } else {
                        failing.into_iter().collect::<Vec<_>>().join(", ")
                    }
                }
            );
            for m in &o.messages {
                let _ = writeln!(out, "- {}", m.replace('<', "&lt;"));
            }
            let _ = writeln!(out, "\n```sh\n{}\n```\n</details>\n", r.reproducer(&o.id));
        }
    }
    out
}
