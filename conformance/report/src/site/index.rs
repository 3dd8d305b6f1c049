//! The index: every harness in one table (links, language, version, run date, suite, verdict
//! word, scores), the teaching scorecard, and the grid of requirements × harnesses. Only what
//! the grid needs at first sight is here; the case rows are loaded on demand (`data`).

use std::collections::BTreeSet;

use maud::{html, Markup};

use harness_conformance_suite::spec::Level;

use super::verdict::{self, Truth};
use super::{area, bounded, legend, link, percent, Row, View};
use crate::teaching;

pub(super) fn page(views: &[View], rows: &[Row], suite: &str) -> Markup {
    // The rows of each area, areas in the order their first row comes.
    let mut areas: Vec<(&str, Vec<&Row>)> = Vec::new();
    for r in rows {
        match areas.last_mut() {
            Some((a, list)) if *a == area(r.id) => list.push(r),
            _ => match areas.iter_mut().find(|(a, _)| *a == area(r.id)) {
                Some((_, list)) => list.push(r),
                None => areas.push((area(r.id), vec![r])),
            },
        }
    }
    let languages: BTreeSet<&str> = views.iter().map(|v| v.lang.as_str()).collect();
    let cards: Vec<Vec<teaching::Row>> = views.iter().map(|v| teaching::rows(&v.report)).collect();
    let width = views.len() + 2;
    let body = html! {
        header {
            h1 { "harness-conformance matrix" }
            p {
                "How " (views.len()) " harnesses handle tool calls and tool results, judged by suite " (suite) ". "
                "A requirement fails only where one of its own checks failed; a failure a harness's own CI has baselined is still a failure here. "
                "Open a requirement to see its cases."
            }
            nav { a href="#harnesses" { "harnesses" } " · " a href="#viewer" { "your report" } " · " a href="#teaching" { "teaching" } " · " a href="#grid" { "grid" } " · " a href="#legend" { "legend" } }
        }
        h2 #harnesses-title { "Harnesses" }
        table #harnesses {
            thead {
                tr {
                    th { "harness" } th { "language" } th { "version" } th { "run" } th { "suite" }
                    th { "verdict" } th { "MUST" } th { "SHOULD" } th { "cases" } th { "links" }
                }
            }
            tbody {
                @for v in views { (summary_row(v)) }
            }
        }
        section #viewer {
            h2 { "Your report beside these" }
            div #drop .drop tabindex="0" {
                "Drop a saved report here (the JSON of " code { "harness-conformance run --format json -o report.json" } "), or "
                label for="drop-file" { "choose one" }
                input #drop-file type="file" accept=".json,.jsonl,application/json";
            }
            p.note { "It is read by this page, in your browser, and shown as one more row above and one more column below. Nothing is uploaded: this page is not allowed to connect anywhere (its Content-Security-Policy says connect-src 'none')." }
            p #drop-status role="status" {}
        }
        h2 #teaching-title { "Teaching scorecard" }
        table #teaching {
            thead {
                tr {
                    th { "a good error message…" }
                    @for v in views { th.harness data-slug=(v.slug) data-lang=(v.lang) { (bounded(&v.col.name, 40)) } }
                }
            }
            tbody {
                @for (i, check) in teaching::CHECKS.iter().enumerate() {
                    tr id={ "teach-" (check.key) } {
                        th { (check.title) br; small { (check.requirements.join(", ")) } }
                        @for card in &cards { (teaching_cell(card, i)) }
                    }
                }
            }
        }
        h2 #grid-title { "By area and requirement" }
        (legend())
        div.filters #filters {
            label { "Language " select #f-lang { option value="" { "all" } @for l in &languages { option value=(l) { (l) } } } }
            label { "Area " select #f-area { option value="" { "all" } @for (a, _) in &areas { option value=(a) { (a) } } } }
            label { input #f-must type="checkbox" checked; " MUST" }
            label { input #f-should type="checkbox" checked; " SHOULD" }
            label { input #f-may type="checkbox" checked; " MAY" }
            label { input #f-bad type="checkbox"; " only rows a shown harness does not pass" }
            label { "Find " input #f-text type="search" placeholder="VAL-1, cap/…"; }
            label { input #f-cases type="checkbox"; " open every requirement" }
            a #permalink href="index.html" { "link to this view" }
        }
        table #grid {
            thead {
                tr {
                    th { "requirement" } th { "level" }
                    @for v in views {
                        th.harness id={ "col-" (v.slug) } data-slug=(v.slug) data-lang=(v.lang) {
                            a href={ "harness/" (v.slug) ".html" } { (bounded(&v.col.name, 40)) }
                            br; small.version { (v.version()) }
                            br; small.when { (v.day()) " · " (bounded(&v.col.suite, 20)) }
                        }
                    }
                }
            }
            @for (a, area_rows) in &areas {
                tbody id={ "area-" (a) } data-area=(a) {
                    tr.area { th colspan=(width) { a href={ "#area-" (a) } { (a) } } }
                    @for row in area_rows {
                        tr.req id=(row.id) data-level=(row.level.as_str()) {
                            th.req {
                                button.toggle type="button" aria-expanded="false" title="show its cases" { "▸" }
                                " " a href={ "#" (row.id) } { (row.id) }
                                " " span.title { (row.title) }
                                " " small { "(" (row.cases.len()) ")" }
                            }
                            td { (row.level.as_str()) }
                            @for v in views { (status_cell(v, row.id)) }
                        }
                    }
                }
            }
        }
    };
    super::page("harness-conformance matrix", Some(""), body)
}

fn summary_row(v: &View) -> Markup {
    let s = &v.standing;
    let score =
        |level: Level| percent(&v.report, level).map_or("—".to_owned(), |p| format!("{p}%"));
    html! {
        tr id={ "h-" (v.slug) } data-slug=(v.slug) data-lang=(v.lang) {
            th {
                a href={ "harness/" (v.slug) ".html" } { (bounded(&v.col.name, 60)) }
                @if let Some(h) = &v.report.run.hello { br; small { (bounded(&h.implementation.name, 80)) } }
            }
            td.lang { (v.lang) }
            td { (v.version()) }
            td { (v.day()) }
            td { (bounded(&v.col.suite, 40)) }
            td class={ "verdict " (s.word.class()) } {
                b.word { (s.word.as_str()) } br;
                small.detail { (s.detail) } br;
                small.gate { (s.gate.line()) }
            }
            td.must { (score(Level::Must)) }
            td.should { (score(Level::Should)) }
            td { small { (v.report.run.totals()) } }
            td.links {
                @if let Some(h) = &v.report.run.hello {
                    @for (what, url) in [("homepage", &h.implementation.homepage), ("source", &h.implementation.source), ("issues", &h.implementation.issues)] {
                        @if let Some(u) = url.as_deref().and_then(link) {
                            a href=(u) rel="nofollow noopener noreferrer" data-link=(what) { (what) } " "
                        }
                    }
                }
                @if !v.col.history.is_empty() {
                    a href={ "harness/" (v.slug) ".html#history" } { "history (" (v.col.history.len() + 1) " runs)" }
                }
            }
        }
    }
}

fn teaching_cell(card: &[teaching::Row], i: usize) -> Markup {
    html! {
        @match card.get(i) {
            Some(row) if row.passed + row.failed.len() + row.not_judged == 0 => { td.na { "no case ran" } }
            Some(row) => {
                td class=(match row.status { teaching::Status::Pass => "p", teaching::Status::Fail => "f", teaching::Status::NotJudged => "na" }) {
                    (row.status.as_str()) " " small { (row.passed) "/" (row.passed + row.failed.len()) }
                }
            }
            None => { td.na { "—" } }
        }
    }
}

/// A requirement's cell: its truth (a baselined failure is a failure), marked when baselined.
fn status_cell(v: &View, id: &str) -> Markup {
    match v.statuses.get(id) {
        None => html! { td.no { "·" } },
        Some(q) => {
            let (truth, baselined) = verdict::requirement_truth(q);
            html! {
                td class=(truth.class()) {
                    (truth.symbol())
                    @if truth == Truth::Fail { " " (q.failing_cases.len()) "/" (q.tested_cases) }
                    @if baselined { i.bl { "b" } }
                }
            }
        }
    }
}
