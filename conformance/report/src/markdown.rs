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
    let _ = writeln!(
        out,
        "**{}** — {} case(s) in {:.2}s: {}\n",
        if r.run.failed() { "FAILED" } else { "ok" },
        r.run.outcomes.len(),
        r.run.elapsed.as_secs_f64(),
        totals.join(", ")
    );
    let _ = writeln!(
        out,
        "| | requirement | level | title | cases |\n|---|---|---|---|---|"
    );
    for level in [
        Some(Level::Must),
        Some(Level::Should),
        Some(Level::May),
        None,
    ] {
        for row in r
            .requirement_rows()
            .into_iter()
            .filter(|row| row.level == level)
        {
            let counts: Vec<String> = row.counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                row.status(),
                row.id,
                row.level.map_or("?", |l| l.as_str()),
                cell(row.title),
                counts.join(", ")
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
                o.requirements.join(", ")
            );
            for m in &o.messages {
                let _ = writeln!(out, "- {}", m.replace('<', "&lt;"));
            }
            let _ = writeln!(out, "\n```sh\n{}\n```\n</details>\n", r.reproducer(&o.id));
        }
    }
    out
}
