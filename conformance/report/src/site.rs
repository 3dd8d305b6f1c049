//! The matrix as a static site: an index comparing harnesses, a page per harness, a badge each.
//!
//! Bowtie's report is the model: the index has one column per harness and version, rows rolled
//! up by area and by requirement (each expands to its cases), MUST and SHOULD apart, NOT
//! TESTABLE and NOT APPLICABLE shown as what they are (not as passes or failures), filters,
//! each harness's implementation metadata and teaching scorecard. Each harness page lists every
//! unexpected result with its plain-words reason and the one command that reproduces it. Each
//! harness gets a shields.io endpoint badge (`badges/<slug>.json`, "MUST 84%").
//!
//! HTML is written with maud (docs/DESIGN.md, dependency notes): its templates are checked at
//! compile time and escape every interpolated value, so an adapter's implementation name or a
//! harness's returned text can never become markup. Every such string is also bounded here
//! ([`bounded`]) so one enormous message cannot swell a page. Rendering is pure: the command
//! line writes the files [`render`] returns.

use std::collections::{BTreeMap, HashMap, HashSet};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use harness_conformance_suite::coverage::{RequirementResult, Status};
use harness_conformance_suite::spec::{Level, Requirement};
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use crate::matrix::Column;
use crate::{teaching, Report};

/// How many chars of an adapter's or harness's string a page shows (head and tail kept).
pub const PAGE_CHARS: usize = 2000;

/// How many chars a grid cell's tooltip shows.
pub const CELL_CHARS: usize = 200;

/// The site: file paths (relative, `/`-separated) and their contents.
pub fn render(
    columns: &[Column],
    requirements: &[Requirement],
    suite: &str,
) -> Vec<(String, String)> {
    let slugs = slugs(columns);
    let mut files = vec![(
        "index.html".to_owned(),
        index(columns, &slugs, requirements, suite).into_string(),
    )];
    for (col, slug) in columns.iter().zip(&slugs) {
        let report = col.report(requirements);
        files.push((
            format!("harness/{slug}.html"),
            harness_page(&report, &col.name, suite, true).into_string(),
        ));
        files.push((format!("badges/{slug}.json"), badge(&report)));
    }
    files
}

/// One harness's page on its own (what `report --format html` prints): the same content as its
/// page in the site, without the link back to the index.
pub fn standalone(report: &Report, name: &str, suite: &str) -> String {
    harness_page(report, name, suite, false).into_string()
}

/// `s` cut to `max` chars (head and tail kept, the length said), for text on a page.
pub fn bounded(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    let head: String = s.chars().take(max * 2 / 3).collect();
    let tail: String = s.chars().skip(n - (max - max * 2 / 3)).collect();
    format!("{head} … [{} chars cut] … {tail}", n - max)
}

/// File-name-safe, unique slugs for the columns' names (`my harness` → `my-harness`). A name
/// whose slug is taken gets the next free `-2`, `-3`, … of its base; the slugs taken are a set
/// and each base remembers its last number, so many names that collide (`é`, `è`, … all slug
/// to `harness`) cost linear time, not a search of every earlier slug per number tried.
fn slugs(columns: &[Column]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut next: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<String> = Vec::with_capacity(columns.len());
    for col in columns {
        let mut base: String = col
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .take(60)
            .collect();
        if base.trim_matches('-').is_empty() {
            base = "harness".to_owned();
        }
        let mut slug = base.clone();
        if taken.contains(&slug) {
            let n = next.entry(base.clone()).or_insert(2);
            loop {
                slug = format!("{base}-{n}");
                *n += 1;
                if !taken.contains(&slug) {
                    break;
                }
            }
        }
        taken.insert(slug.clone());
        out.push(slug);
    }
    out
}

/// The share of a level's applicable requirements that pass, as a whole percent rounded down
/// (so a single failure never shows as 100%). Applicable: every status but NOT APPLICABLE — a
/// requirement that applies but could not be tested counts against the harness, because nothing
/// shows that it holds. `None` when no requirement of the level applies.
pub fn percent(report: &Report, level: Level) -> Option<u32> {
    let reqs: Vec<_> = report
        .run
        .coverage
        .requirements
        .iter()
        .filter(|r| r.level == level && r.status != Status::NotApplicable)
        .collect();
    if reqs.is_empty() {
        return None;
    }
    let pass = reqs.iter().filter(|r| r.status == Status::Pass).count();
    Some((pass * 100 / reqs.len()) as u32)
}

/// The shields.io endpoint JSON (<https://shields.io/badges/endpoint-badge>) for a harness.
pub fn badge(report: &Report) -> String {
    let (message, color) = if report.run.handshake_error.is_some() {
        ("handshake failed".to_owned(), "red")
    } else {
        match percent(report, Level::Must) {
            None => ("not tested".to_owned(), "lightgrey"),
            Some(p) => (
                format!("{p}%"),
                match p {
                    100 => "brightgreen",
                    90..=99 => "green",
                    75..=89 => "yellow",
                    50..=74 => "orange",
                    _ => "red",
                },
            ),
        }
    };
    let v = serde_json::json!({
        "schemaVersion": 1,
        "label": "MUST",
        "message": message,
        "color": color,
    });
    format!("{v}\n")
}

const CSS: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24}
h1{font-size:1.5em;margin:0 0 .3em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:#f6f8fa;position:sticky;top:0}
.s-pass{background:#dafbe1}.s-fail{background:#ffd8d3}.s-xfail{background:#fff1c2}
.s-nt{background:#e7e0ff}.s-na{background:#eef1f4;color:#57606a}.s-skip{background:#eef1f4}
.s-error{background:#ffb3a7}.s-none{color:#8c959f}
tr.area th{background:#24292f;color:#fff}
tr.req td.req{font-weight:600}
tr.case td.case{padding-left:2em;font-family:ui-monospace,monospace;font-size:12px}
tr.hidden{display:none}
.toggle{cursor:pointer;user-select:none}
.legend span{display:inline-block;padding:1px 6px;margin-right:4px;border:1px solid #d0d7de}
.filters{margin:.8em 0;padding:.5em;background:#f6f8fa;border:1px solid #d0d7de}
.filters label{margin-right:1em}
code,pre{font-family:ui-monospace,monospace;font-size:12px}
pre{background:#f6f8fa;padding:.5em;white-space:pre-wrap;word-break:break-all}
.failure{border-left:4px solid #cf222e;padding-left:.8em;margin:1em 0}
.meta td:first-child{font-weight:600;white-space:nowrap}
.meta code{white-space:pre-wrap;word-break:break-all}
"#;

/// Filters and expansion: case rows start collapsed under their requirement; the controls hide
/// rows by level, by status and by text. Written without a framework so the page stays one file.
const SCRIPT: &str = r#"
(function(){
  var rows=[].slice.call(document.querySelectorAll('tr.req,tr.case'));
  function apply(){
    var text=document.getElementById('f-text').value.toLowerCase();
    var levels={MUST:document.getElementById('f-must').checked,SHOULD:document.getElementById('f-should').checked,MAY:document.getElementById('f-may').checked};
    var onlyBad=document.getElementById('f-bad').checked;
    rows.forEach(function(r){
      var show=levels[r.dataset.level]!==false;
      if(onlyBad&&r.dataset.bad!=='1')show=false;
      if(text&&r.dataset.key.toLowerCase().indexOf(text)<0)show=false;
      if(r.classList.contains('case')&&!document.getElementById('f-cases').checked&&!r.dataset.open)show=false;
      r.classList.toggle('hidden',!show);
    });
  }
  document.querySelectorAll('.toggle').forEach(function(t){
    t.addEventListener('click',function(){
      document.querySelectorAll('tr.case[data-req="'+t.dataset.req+'"]').forEach(function(c){
        if(c.dataset.open){delete c.dataset.open}else{c.dataset.open='1'}
      });
      apply();
    });
  });
  document.querySelectorAll('.filters input').forEach(function(i){i.addEventListener('input',apply)});
  apply();
})();
"#;

fn status_class(s: Status, baselined: bool) -> &'static str {
    match s {
        Status::Pass => "s-pass",
        Status::Fail => "s-fail",
        Status::Xfail => "s-xfail",
        Status::NotTestable if baselined => "s-xfail",
        Status::NotTestable | Status::NotEvaluated => "s-nt",
        Status::NotApplicable => "s-na",
    }
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "s-pass",
        Verdict::Fail | Verdict::Stale | Verdict::NewSkip => "s-fail",
        Verdict::Xfail => "s-xfail",
        Verdict::Skip => "s-skip",
        Verdict::Error | Verdict::BugInCase => "s-error",
    }
}

fn page(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body { (body) }
        }
    }
}

/// The area a requirement belongs to: its id without the number (`VAL-1` → `VAL`).
fn area(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(a, _)| a)
}

/// A requirement row: its id, level and title, and the cases that test it (a case with several
/// requirements is under each), in the order the runs list them.
struct Row<'a> {
    id: &'a str,
    level: Level,
    title: &'a str,
    cases: Vec<&'a str>,
}

fn rows<'a>(columns: &'a [Column], requirements: &'a [Requirement]) -> Vec<Row<'a>> {
    // One pass over every column's requirements and outcomes, with hash lookups: linear in
    // the runs, however many cases or requirement ids a saved report holds.
    let mut cases: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut listed: HashSet<(&str, &str)> = HashSet::new();
    let mut levels: BTreeMap<&str, Level> = BTreeMap::new();
    for col in columns {
        for r in &col.result.coverage.requirements {
            levels.entry(r.id.as_str()).or_insert(r.level);
        }
        for o in &col.result.outcomes {
            for req in &o.requirements {
                if listed.insert((req.as_str(), o.id.as_str())) {
                    cases.entry(req.as_str()).or_default().push(&o.id);
                }
            }
        }
    }
    let spec: HashMap<&str, (usize, &Requirement)> = requirements
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), (i, r)))
        .collect();
    let mut ids: Vec<&str> = levels.keys().copied().collect();
    ids.extend(cases.keys().copied().filter(|k| !levels.contains_key(k)));
    let order = |id: &str| spec.get(id).map_or(usize::MAX, |s| s.0);
    let mut out: Vec<Row> = ids
        .into_iter()
        .map(|id| {
            let spec = spec.get(id).map(|s| s.1);
            Row {
                id,
                level: levels
                    .get(id)
                    .copied()
                    .or(spec.map(|r| r.level))
                    .unwrap_or(Level::May),
                title: spec.map_or("", |r| r.title.as_str()),
                cases: cases.remove(id).unwrap_or_default(),
            }
        })
        .collect();
    out.sort_by_key(|r| (order(r.id), r.id));
    out
}

fn implementation(report: &Report) -> Markup {
    html! {
        @if let Some(h) = &report.run.hello {
            (bounded(&h.implementation.name, 80)) " " (bounded(&h.implementation.version, 40))
            br;
            small { (bounded(&h.implementation.language, 40)) }
        } @else {
            small { "no handshake" }
        }
    }
}

fn index(
    columns: &[Column],
    slugs: &[String],
    requirements: &[Requirement],
    suite: &str,
) -> Markup {
    let reports: Vec<Report> = columns.iter().map(|c| c.report(requirements)).collect();
    let rows = rows(columns, requirements);
    // The rows of each area, areas in the order their first row comes.
    let mut areas: Vec<(&str, Vec<&Row>)> = Vec::new();
    let mut area_at: HashMap<&str, usize> = HashMap::new();
    for r in &rows {
        let at = *area_at.entry(area(r.id)).or_insert_with(|| {
            areas.push((area(r.id), Vec::new()));
            areas.len() - 1
        });
        areas[at].1.push(r);
    }
    let outcomes_by_id = crate::matrix::index(columns);
    let statuses_by_id: Vec<HashMap<&str, &RequirementResult>> = columns
        .iter()
        .map(|c| {
            let mut by_id = HashMap::new();
            for q in &c.result.coverage.requirements {
                by_id.entry(q.id.as_str()).or_insert(q);
            }
            by_id
        })
        .collect();
    let width = columns.len() + 2;
    let body = html! {
        h1 { "harness-conformance matrix" }
        p {
            "Suite " (suite) ". One column per harness and version; a requirement fails only where one of its own checks failed. "
            "Click a requirement to see its cases."
        }
        p.legend {
            span.s-pass { "✓ pass" } span.s-fail { "✗ fail" } span.s-xfail { "~ known (baseline)" }
            span.s-nt { "! not testable" } span.s-na { "– not applicable" } span.s-skip { "skip" } span.s-error { "error" }
        }
        div.filters {
            label { "Filter " input #f-text type="search" placeholder="VAL-1, cap/…"; }
            label { input #f-must type="checkbox" checked; " MUST" }
            label { input #f-should type="checkbox" checked; " SHOULD" }
            label { input #f-may type="checkbox" checked; " MAY" }
            label { input #f-bad type="checkbox"; " only rows some harness does not pass" }
            label { input #f-cases type="checkbox"; " expand every case" }
        }
        table #summary {
            thead {
                tr {
                    th { "harness" }
                    @for ((col, slug), r) in columns.iter().zip(slugs).zip(&reports) {
                        th.harness data-harness=(slug) {
                            a href={ "harness/" (slug) ".html" } { (bounded(&col.name, 60)) }
                            br;
                            (implementation(r))
                        }
                    }
                }
            }
            tbody {
                tr {
                    th { "result" }
                    @for r in &reports {
                        @let failed = r.run.failed();
                        td class=(if failed { "s-fail" } else { "s-pass" }) {
                            (if failed { "FAILED" } else { "ok" })
                        }
                    }
                }
                @for level in [Level::Must, Level::Should] {
                    tr.level-summary data-level=(level.as_str()) {
                        th { (level.as_str()) }
                        @for r in &reports {
                            td {
                                @match percent(r, level) {
                                    Some(p) => { b { (p) "%" } br; }
                                    None => {}
                                }
                                small { (r.run.coverage.summary(level)) }
                            }
                        }
                    }
                }
                tr {
                    th { "cases" }
                    @for r in &reports { td { small { (r.run.totals()) } } }
                }
                tr {
                    th { "badge" }
                    @for slug in slugs { td { code { "badges/" (slug) ".json" } } }
                }
            }
        }
        h2 { "Teaching scorecard" }
        table #teaching {
            thead { tr { th { "a good error message…" } @for col in columns { th { (bounded(&col.name, 60)) } } } }
            tbody {
                @for (i, check) in teaching::CHECKS.iter().enumerate() {
                    tr {
                        td { (check.title) br; small { (check.requirements.join(", ")) } }
                        @for r in &reports {
                            @let card = teaching::rows(r);
                            @match card.get(i) {
                                Some(row) if row.passed + row.failed.len() + row.not_judged == 0 => {
                                    td.s-na { "no case of it ran" }
                                }
                                Some(row) => {
                                    td class=(match row.status { teaching::Status::Pass => "s-pass", teaching::Status::Fail => "s-fail", teaching::Status::NotJudged => "s-na" }) {
                                        (row.status.as_str()) " "
                                        small { "(" (row.passed) " pass, " (row.failed.len()) " fail, " (row.not_judged) " not judged)" }
                                    }
                                }
                                None => { td.s-na { "no teaching case ran" } }
                            }
                        }
                    }
                }
            }
        }
        h2 { "By area and requirement" }
        table #grid {
            thead {
                tr {
                    th { "requirement" } th { "level" }
                    @for col in columns { th { (bounded(&col.name, 60)) } }
                }
            }
            @for (a, area_rows) in &areas {
                tbody data-area=(a) {
                    tr.area { th colspan=(width) { (a) } }
                    @for row in area_rows {
                        @let statuses: Vec<Option<&&RequirementResult>> = statuses_by_id.iter().map(|c| c.get(row.id)).collect();
                        @let bad = statuses.iter().any(|s| s.is_some_and(|q| q.status != Status::Pass));
                        tr.req data-req=(row.id) data-level=(row.level.as_str()) data-bad=(if bad { "1" } else { "0" }) data-key={ (row.id) " " (row.title) } {
                            td.req.toggle data-req=(row.id) title="show or hide its cases" {
                                "▸ " (row.id) " " span.title { (row.title) } " " small { "(" (row.cases.len()) " cases)" }
                            }
                            td { (row.level.as_str()) }
                            @for s in &statuses {
                                @match s {
                                    Some(q) => {
                                        td class=(status_class(q.status, q.baselined.is_some())) data-status=(q.status.as_str()) title=(bounded(q.reason.as_deref().or(q.baselined.as_deref()).unwrap_or(""), CELL_CHARS)) {
                                            (q.status.as_str())
                                            @if !q.failing_cases.is_empty() { " " small { "(" (q.failing_cases.len()) "/" (q.tested_cases) ")" } }
                                        }
                                    }
                                    None => { td.s-none data-status="none" { "—" } }
                                }
                            }
                        }
                        @for case in &row.cases {
                            @let outcomes: Vec<Option<&&CaseOutcome>> = outcomes_by_id.iter().map(|c| c.get(case)).collect();
                            @let bad = outcomes.iter().any(|o| o.is_some_and(|o| o.verdict != Verdict::Pass));
                            tr.case data-req=(row.id) data-level=(row.level.as_str()) data-bad=(if bad { "1" } else { "0" }) data-key={ (row.id) " " (case) } {
                                td.case { (case) }
                                td {}
                                @for (o, slug) in outcomes.iter().zip(slugs) {
                                    @match o {
                                        Some(o) => {
                                            td class=(verdict_class(o.verdict)) data-verdict=(o.verdict.as_str()) title=(bounded(&o.messages.join(" · "), CELL_CHARS)) {
                                                @if o.verdict.is_unexpected() {
                                                    a href={ "harness/" (slug) ".html#" (anchor(&o.id)) } { (o.verdict.as_str()) }
                                                } @else {
                                                    (o.verdict.as_str())
                                                }
                                            }
                                        }
                                        None => { td.s-none { "—" } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        script { (PreEscaped(SCRIPT)) }
    };
    page("harness-conformance matrix", body)
}

/// An HTML id for a case (ids are `area/name`; anchors keep them readable).
fn anchor(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("case-{s}")
}

fn harness_page(report: &Report, name: &str, suite: &str, in_site: bool) -> Markup {
    let unexpected: Vec<&CaseOutcome> = report.unexpected().collect();
    let xfails: Vec<&CaseOutcome> = report
        .run
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Xfail)
        .collect();
    let reasons = report.failure_reasons();
    let card = teaching::rows(report);
    let body = html! {
        @if in_site { p { a href="../index.html" { "← the matrix" } } }
        h1 { (bounded(name, 80)) }
        table.meta {
            tbody {
                @if let Some(h) = &report.run.hello {
                    tr { td { "implementation" } td #impl-name { (bounded(&h.implementation.name, 200)) } }
                    tr { td { "version" } td #impl-version { (bounded(&h.implementation.version, 200)) } }
                    tr { td { "language" } td { (bounded(&h.implementation.language, 200)) } }
                    @if let Some(home) = h.implementation.homepage.as_ref().filter(|h| !h.is_empty()) {
                        tr { td { "homepage" } td { (bounded(home, 200)) } }
                    }
                    tr { td { "capabilities" } td { code { (bounded(&serde_json::to_string(&h.capabilities).unwrap_or_default(), PAGE_CHARS)) } } }
                }
                tr { td { "target" } td { (bounded(report.target, 400)) } }
                tr { td { "suite" } td { (suite) } }
                tr { td { "cases" } td { (report.run.outcomes.len()) " in " (format!("{:.2}", report.run.elapsed.as_secs_f64())) "s: " (report.run.totals()) } }
                tr {
                    td { "result" }
                    td #result class=(if reasons.is_empty() { "s-pass" } else { "s-fail" }) {
                        @if reasons.is_empty() { "ok" } @else { "FAILED: " (reasons.join("; ")) }
                    }
                }
                @for level in [Level::Must, Level::Should] {
                    tr { td { (level.as_str()) } td { @if let Some(p) = percent(report, level) { b { (p) "%" } " " } (report.run.coverage.summary(level)) } }
                }
            }
        }
        @if let Some(e) = &report.run.handshake_error {
            h2 { "The handshake failed" }
            pre { (bounded(e, PAGE_CHARS)) }
        }
        @if !card.is_empty() {
            h2 { "Teaching scorecard" }
            table {
                tbody {
                    @for row in &card {
                        tr {
                            td { (row.check.title) }
                            td class=(match row.status { teaching::Status::Pass => "s-pass", teaching::Status::Fail => "s-fail", teaching::Status::NotJudged => "s-na" }) {
                                (row.status.as_str())
                                @if !row.failed.is_empty() { " — " small { (row.failed.join(", ")) } }
                            }
                        }
                    }
                }
            }
        }
        h2 #failures { "Unexpected results (" (unexpected.len()) ")" }
        @if unexpected.is_empty() { p { "None: every case ended as the baseline expects." } }
        @for o in &unexpected {
            div.failure id=(anchor(&o.id)) {
                h3 { (o.verdict.as_str()) " " code { (o.id) } }
                p {
                    "Requirements: "
                    @let failing = o.failing_requirements();
                    @if failing.is_empty() { (o.requirements.join(", ")) } @else { (failing.into_iter().collect::<Vec<_>>().join(", ")) }
                    @if let Some(l) = report.level_of(o) { " (" (l.as_str()) ")" }
                }
                ul { @for m in &o.messages { li { (bounded(m, PAGE_CHARS)) } } }
                p { "Reproduce:" }
                pre.reproduce { (bounded(&report.reproducer(&o.id), PAGE_CHARS)) }
            }
        }
        @if !xfails.is_empty() {
            h2 { "Known failures (baseline)" }
            ul { @for o in &xfails { li { code { (o.id) } " — " (bounded(o.baseline.as_deref().unwrap_or(""), PAGE_CHARS)) } } }
        }
        h2 { "By requirement" }
        table {
            thead { tr { th { "requirement" } th { "level" } th { "title" } th { "result" } } }
            tbody {
                @for row in report.requirement_rows() {
                    tr {
                        td { (row.id) } td { (row.level.as_str()) } td { (row.title) }
                        td class=(status_class(row.result.status, row.result.baselined.is_some())) { (bounded(&row.detail(), PAGE_CHARS)) }
                    }
                }
            }
        }
    };
    page(
        &format!("{} — harness-conformance", bounded(name, 80)),
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str) -> Column {
        Column {
            name: name.to_owned(),
            target: String::new(),
            reproduce: String::new(),
            suite: String::new(),
            result: harness_conformance_suite::run::RunResult::handshake_failed(
                &[],
                std::time::Instant::now(),
                String::new(),
            ),
        }
    }

    /// Issue 28, N4: names that collide after normalisation (`é`, `è`, … all slug to
    /// `harness`) get distinct slugs, each numbered once, a literal `harness-2` included.
    #[test]
    fn colliding_names_get_distinct_slugs() {
        let mut names: Vec<String> = vec!["harness-2".into()];
        names.extend((0..5000u32).map(|i| char::from_u32(0xE0 + i % 64).unwrap().to_string()));
        names.push("My Harness".into());
        let columns: Vec<Column> = names.iter().map(|n| column(n)).collect();
        let slugs = slugs(&columns);
        let unique: HashSet<&String> = slugs.iter().collect();
        assert_eq!(unique.len(), slugs.len());
        assert_eq!(slugs[0], "harness-2");
        assert_eq!(slugs[1], "harness");
        assert_eq!(slugs[2], "harness-3", "the literal harness-2 is skipped");
        assert_eq!(slugs[5000], "harness-5001");
        assert_eq!(slugs[5001], "my-harness");
    }

    #[test]
    fn bounded_keeps_head_and_tail_and_says_how_much_was_cut() {
        assert_eq!(bounded("short", 10), "short");
        let s = format!("{}{}", "a".repeat(100), "z".repeat(100));
        let b = bounded(&s, 30);
        assert!(
            b.starts_with(&"a".repeat(20)) && b.ends_with(&"z".repeat(10)),
            "{b}"
        );
        assert!(b.contains("[170 chars cut]"), "{b}");
    }
}
