//! A harness's page: who it is (links from its hello), how it stands (the verdict word, the
//! gate, MUST and SHOULD), what it declares (capabilities as a table), its badges with snippets
//! to copy, its history across versions, every unexpected result with the command that
//! reproduces it, and its standing on every requirement.

use maud::{html, Markup};
use serde_json::Value;

use harness_conformance_suite::spec::Level;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

use super::verdict::{self, Truth};
use super::{
    anchor, badge_name, bounded, legend, link, percent, published_reproducer, Badge, View,
    PAGE_CHARS,
};
use crate::teaching;

/// Which page is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The harness's current page in the site (with badges and its history).
    Latest,
    /// An earlier run's page in the site (`harness/<slug>.<n>.html`).
    Earlier,
    /// One file on its own (`report --format html`): no site around it.
    Standalone,
}

pub(super) fn page(v: &View, kind: Kind, site_url: Option<&str>) -> Markup {
    let report = &v.report;
    let in_site = kind != Kind::Standalone;
    let unexpected: Vec<&CaseOutcome> = report.unexpected().collect();
    let xfails: Vec<&CaseOutcome> = report
        .run
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Xfail)
        .collect();
    let reasons = report.failure_reasons();
    let card = teaching::rows(report);
    let reproducer = |id: &str| {
        if in_site {
            // Published: no local path (the run's adapter command is not shown).
            format!(
                "{} {}",
                published_reproducer(report.reproduce),
                crate::shell_quote(id)
            )
        } else {
            report.reproducer(id)
        }
    };
    let s = &v.standing;
    let body = html! {
        @if in_site {
            nav.back {
                a href="../index.html" { "← the matrix" }
                " · "
                a href={ "../index.html#col-" (v.slug) } { "its column" }
                @if kind == Kind::Earlier {
                    " · " a href={ (v.slug) ".html" } { "its latest run" }
                }
            }
        }
        h1 { (bounded(&v.col.name, 80)) }
        @if kind == Kind::Earlier { p.note { "An earlier run of this harness, kept for its history." } }
        table.meta #meta {
            tbody {
                @if let Some(h) = &report.run.hello {
                    tr { th { "implementation" } td #impl-name { (bounded(&h.implementation.name, 200)) } }
                    tr { th { "version" } td #impl-version { (bounded(&h.implementation.version, 200)) } }
                    tr { th { "language" } td #impl-language { (bounded(&h.implementation.language, 200)) } }
                    @for (what, url) in [("homepage", &h.implementation.homepage), ("source", &h.implementation.source), ("issues", &h.implementation.issues)] {
                        @if let Some(url) = url.as_deref().filter(|u| !u.is_empty()) {
                            tr.link data-link=(what) {
                                th { (what) }
                                td { (link_or_text(url)) }
                            }
                        }
                    }
                }
                tr { th { "run" } td #run-date { (v.col.date.as_deref().unwrap_or("date not recorded")) } }
                tr { th { "suite" } td #suite { (bounded(&v.col.suite, 40)) } }
                tr { th { "cases" } td { (report.run.outcomes.len()) " in " (format!("{:.2}", report.run.elapsed.as_secs_f64())) "s: " (report.run.totals()) } }
            }
        }
        div #verdict class={ "verdict " (s.word.class()) } {
            b.word { (s.word.as_str()) }
            " — " span.detail { (s.detail) }
            br;
            span.gate data-gate=(gate_key(&s.gate)) { (s.gate.line()) }
            @if !reasons.is_empty() { ": " (reasons.join("; ")) }
        }
        table.meta #scores {
            tbody {
                @for level in [Level::Must, Level::Should] {
                    tr data-level=(level.as_str()) {
                        th { (level.as_str()) }
                        td { @if let Some(p) = percent(report, level) { b { (p) "%" } " " } (report.run.coverage.summary(level)) }
                    }
                }
            }
        }
        @if let Some(e) = &report.run.handshake_error {
            h2 { "The handshake failed" }
            pre { (bounded(e, PAGE_CHARS)) }
        }
        @if let Some(h) = &report.run.hello {
            h2 #capabilities { "Capabilities" }
            p.note { "What the adapter's hello declares; cases that need more are skipped, and requirements that apply only to more are not applicable." }
            (capabilities(&serde_json::to_value(&h.capabilities).unwrap_or(Value::Null)))
        }
        @if kind == Kind::Latest { (badges(v, site_url)) }
        @if kind == Kind::Latest && !v.col.history.is_empty() { (history(v)) }
        @if !card.is_empty() {
            h2 #teaching { "Teaching scorecard" }
            table {
                tbody {
                    @for row in &card {
                        tr {
                            td { (row.check.title) }
                            td class=(teaching_class(row.status)) {
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
            @let failing = o.failing_requirements();
            @let named: Vec<&str> = if failing.is_empty() { o.requirements.iter().map(String::as_str).collect() } else { failing.into_iter().collect() };
            div.failure id=(anchor(&o.id)) data-verdict=(o.verdict.as_str()) {
                h3 { (o.verdict.as_str()) " " a.case href={ "#" (anchor(&o.id)) } { code { (o.id) } } }
                p.means { (meaning(o.verdict)) }
                ul.requirements {
                    @for id in &named {
                        li {
                            a.req href={ "#req-" (id) } { (id) }
                            @if let Some(r) = report.requirements.iter().find(|r| r.id == *id) {
                                " (" (r.level.as_str()) "): " (r.title)
                            }
                        }
                    }
                }
                p { "What the suite saw:" }
                ul.messages { @for m in &o.messages { li { (bounded(m, PAGE_CHARS)) } } }
                p {
                    "The case: " code.show { "harness-conformance show " (crate::shell_quote(&o.id)) }
                    " prints what it sends and what it expects. Rerun it alone:"
                }
                pre.reproduce { (bounded(&reproducer(&o.id), PAGE_CHARS)) }
            }
        }
        @if !xfails.is_empty() {
            h2 #known { "Known failures (baseline)" }
            p.note { "The harness's CI expects these to fail; the matrix still counts them as failures." }
            ul { @for o in &xfails { li id=(anchor(&o.id)) { code { (o.id) } " — " (bounded(o.baseline.as_deref().unwrap_or(""), PAGE_CHARS)) } } }
        }
        h2 #requirements { "By requirement" }
        (legend())
        table #by-requirement {
            thead { tr { th { "requirement" } th { "level" } th { "title" } th { "result" } } }
            tbody {
                @for row in report.requirement_rows() {
                    @let (truth, baselined) = verdict::requirement_truth(row.result);
                    tr id={ "req-" (row.id) } {
                        td { a href={ "#req-" (row.id) } { (row.id) } } td { (row.level.as_str()) } td { (row.title) }
                        td class=(truth.class()) {
                            (bounded(&row.detail(), PAGE_CHARS))
                            @if baselined { " " i.bl title="baselined" { "b" } }
                        }
                    }
                }
            }
        }
    };
    let title = format!("{} — harness-conformance", bounded(&v.col.name, 80));
    super::page(&title, in_site.then_some("../"), body)
}

/// What an unexpected result means, in plain words, for a reader choosing a harness.
fn meaning(v: Verdict) -> &'static str {
    match v {
        Verdict::Fail => "The harness's answer broke the requirements below: one of their checks failed on what it returned.",
        Verdict::Error => "The adapter broke the protocol or could not run this case (it crashed, hung or answered out of turn): nothing about the harness was judged.",
        Verdict::BugInCase => "The case itself is inconsistent: a bug in the suite, not in the harness.",
        Verdict::Stale => "The harness's baseline lists this case as failing, but it passed: the harness got better and its baseline is out of date.",
        Verdict::NewSkip => "The case was skipped, where the baseline's run did not skip it: the harness no longer declares a capability it needs.",
        Verdict::Pass | Verdict::Skip | Verdict::Xfail => "",
    }
}

/// A link from the hello: live when it is an http(s) URL, text otherwise.
fn link_or_text(url: &str) -> Markup {
    let shown = bounded(url, 200);
    html! {
        @match link(url) {
            Some(u) => { a href=(u) rel="nofollow noopener noreferrer" { (shown) } }
            None => { code.unlinked title="not an http(s) URL, so not a link" { (shown) } }
        }
    }
}

/// The gate as a stable key for the DOM check.
fn gate_key(g: &verdict::Gate) -> &'static str {
    match g {
        verdict::Gate::Green => "green",
        verdict::Gate::GreenWithBaseline { .. } => "green-with-baseline",
        verdict::Gate::Red => "red",
    }
}

fn teaching_class(s: teaching::Status) -> &'static str {
    match s {
        teaching::Status::Pass => "p",
        teaching::Status::Fail => "f",
        teaching::Status::NotJudged => "na",
    }
}

/// Readable names of the hello's capability fields (PROTOCOL.md §2); a field not listed here
/// is shown under its own name.
fn capability_label(key: &str) -> &str {
    match key {
        "cap" => "output cap",
        "codes" => "machine codes (suite class → its code)",
        "folds" => "classes answered as another",
        "retryability" => "says whether a retry can help",
        "deadline" => "handler deadline",
        "keywords" => "JSON Schema keywords",
        "call_forms" => "call forms",
        "parallel" => "parallel calls in a turn",
        "history" => "reports the transcript",
        "features" => "optional features",
        "behaviors" => "handler behaviours",
        "call_ids" => "sees call ids",
        other => other,
    }
}

/// The most entries of one list or map a capabilities table shows.
const MAX_LISTED: usize = 100;

/// The capabilities as a table: one row per field, lists as code spans, maps as small tables,
/// flags as yes/no.
fn capabilities(caps: &Value) -> Markup {
    let Value::Object(fields) = caps else {
        return html! { p { "none declared" } };
    };
    html! {
        table.caps #caps {
            tbody {
                @for (key, value) in fields {
                    tr data-cap=(key) {
                        th { (capability_label(key)) br; small { code { (key) } } }
                        td { (capability_value(key, value, 0)) }
                    }
                }
            }
        }
    }
}

fn capability_value(key: &str, value: &Value, depth: usize) -> Markup {
    html! {
        @match value {
            Value::Null if key == "cap" => { "none: outputs are not capped" }
            Value::Null => { "none" }
            Value::Bool(true) => { "yes" }
            Value::Bool(false) => { "no" }
            Value::Number(n) => { (n.to_string()) }
            Value::String(s) => { code { (bounded(s, 200)) } }
            Value::Array(items) if items.is_empty() => { "none" }
            Value::Array(items) => {
                @for (i, item) in items.iter().take(MAX_LISTED).enumerate() {
                    @if i > 0 { " " }
                    @match item {
                        Value::String(s) => { code { (bounded(s, 200)) } }
                        other => { code { (bounded(&other.to_string(), 200)) } }
                    }
                }
                @if items.len() > MAX_LISTED { " … and " (items.len() - MAX_LISTED) " more" }
            }
            Value::Object(map) if depth == 0 => {
                table.sub {
                    tbody {
                        @for (k, v) in map.iter().take(MAX_LISTED) {
                            tr { th { (bounded(k, 200)) } td { (capability_value(k, v, 1)) } }
                        }
                        @if map.len() > MAX_LISTED { tr { td colspan="2" { "… and " (map.len() - MAX_LISTED) " more" } } }
                    }
                }
            }
            Value::Object(_) => { code { (bounded(&value.to_string(), 400)) } }
        }
    }
}

/// The MUST and SHOULD badges: a preview, and Markdown and HTML to copy.
fn badges(v: &View, site_url: Option<&str>) -> Markup {
    let base = site_url.unwrap_or("");
    let page_url = format!("{base}harness/{}.html", v.slug);
    html! {
        h2 #badges { "Badges" }
        p.note {
            "Put the harness's standing in its README. "
            @if site_url.is_none() {
                "These snippets are relative to the site: prefix them with its address (or build it with "
                code { "matrix --site-url URL" } "). "
            }
            "Each badge is also a shields.io endpoint: " code { "badges/" (badge_name(v.slug, Level::Must)) ".json" } "."
        }
        @for level in [Level::Must, Level::Should] {
            @let b = Badge::of(&v.report, level);
            @let name = badge_name(v.slug, level);
            @let img = format!("{base}badges/{name}.svg");
            @let markdown = format!("[![{}]({img})]({page_url})", b.alt());
            @let html_snippet = format!("<a href=\"{page_url}\"><img src=\"{img}\" alt=\"{}\"></a>", b.alt());
            div.badge data-level=(level.as_str()) {
                p { img src={ "../badges/" (name) ".svg" } alt=(b.alt()); }
                @for (kind, text) in [("markdown", &markdown), ("html", &html_snippet)] {
                    @let id = format!("snippet-{}-{kind}", level.as_str().to_ascii_lowercase());
                    div.snippet {
                        span.kind { (if kind == "markdown" { "Markdown" } else { "HTML" }) }
                        pre id=(id) data-kind=(kind) { (text) }
                        button.copy type="button" data-for=(id) { "copy" }
                    }
                }
            }
        }
    }
}

/// Every run of the harness, newest first: its version, date, suite, word and scores, and what
/// changed since the run before it.
fn history(v: &View) -> Markup {
    let requirements = v.report.requirements;
    let older: Vec<View> = v
        .col
        .history
        .iter()
        .map(|c| View::new(c, v.slug, requirements))
        .collect();
    // Oldest first, the current run last; each with the page that shows it.
    let mut runs: Vec<(&View, String)> = older
        .iter()
        .enumerate()
        .map(|(n, o)| (o, format!("{}.{}.html", v.slug, n + 1)))
        .collect();
    runs.push((v, format!("{}.html", v.slug)));
    let changes: Vec<Markup> = runs
        .iter()
        .enumerate()
        .map(|(i, (run, _))| match i.checked_sub(1).map(|p| runs[p].0) {
            None => html! { "first run" },
            Some(prev) => changes(prev, run),
        })
        .collect();
    html! {
        h2 #history { "History" }
        p.note { "Every run of this harness the site was given, newest first." }
        table #history-table {
            thead { tr { th { "version" } th { "run" } th { "suite" } th { "verdict" } th { "MUST" } th { "SHOULD" } th { "since the run before" } } }
            tbody {
                @for (i, (run, href)) in runs.iter().enumerate().rev() {
                    tr.run {
                        td { a href=(href) { (run.version()) } }
                        td { (run.day()) }
                        td { (bounded(&run.col.suite, 40)) }
                        td class=(run.standing.word.class()) { (run.standing.word.as_str()) }
                        td { (percent(&run.report, Level::Must).map_or("—".to_owned(), |p| format!("{p}%"))) }
                        td { (percent(&run.report, Level::Should).map_or("—".to_owned(), |p| format!("{p}%"))) }
                        td.changes { (changes[i]) }
                    }
                }
            }
        }
    }
}

/// The requirements that started or stopped failing between two runs.
fn changes(before: &View, after: &View) -> Markup {
    let fails = |v: &View, id: &str| {
        v.statuses
            .get(id)
            .is_some_and(|r| verdict::requirement_truth(r).0 == Truth::Fail)
    };
    let passes = |v: &View, id: &str| {
        v.statuses
            .get(id)
            .is_some_and(|r| verdict::requirement_truth(r).0 == Truth::Pass)
    };
    let ids: Vec<&str> = after
        .col
        .result
        .coverage
        .requirements
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    let fixed: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| fails(before, id) && passes(after, id))
        .collect();
    let broke: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| fails(after, id) && !fails(before, id))
        .collect();
    html! {
        @if fixed.is_empty() && broke.is_empty() { "no requirement changed between pass and fail" }
        @if !fixed.is_empty() { span.p.fixed { "now pass: " (fixed.join(", ")) } }
        @if !fixed.is_empty() && !broke.is_empty() { " · " }
        @if !broke.is_empty() { span.f.broke { "now fail: " (broke.join(", ")) } }
    }
}
