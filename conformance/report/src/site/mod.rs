//! The matrix as a static site: an index comparing harnesses, a page per harness, badges, and
//! the case level loaded on demand.
//!
//! Bowtie's report (bowtie.report) is the bar. The index lists every harness with its links,
//! language, version, run date and suite version and a verdict word that follows its MUST
//! standing ([`verdict`]); then the teaching scorecard; then the grid, one column per harness and
//! one row per requirement, rolled up by area, showing each run's truth — a failure the harness's
//! own baseline lists is a failure here, marked as baselined. Filters (language, area, level,
//! text, "only rows some harness does not pass") are kept in the URL's query, and every row and
//! column has an anchor. A requirement opens to its cases, fetched on demand from one small file
//! per harness ([`data`]), so the index grows by a few kilobytes a column however many cases
//! there are. A reader can drop their own saved report onto the index and see it beside the
//! published columns, read in the browser and never uploaded. Each harness page has its
//! implementation's links, its capabilities as a table, its MUST and SHOULD badges with snippets
//! to copy, its history across versions, and every unexpected result with the command that
//! reproduces it.
//!
//! HTML is written with maud (docs/DESIGN.md, dependency notes): its templates are checked at
//! compile time and escape every interpolated value, so an adapter's implementation name or a
//! harness's returned text can never become markup; a link from a hello is made live only when
//! it is an `http`/`https` URL ([`link`]). Every such string is also bounded ([`bounded`]) so one
//! enormous message cannot swell a page. The pages carry a Content-Security-Policy that allows
//! scripts and styles from the site's own folder only and no connection at all (`connect-src
//! 'none'`): no inline script runs, and a report dropped onto a page cannot be sent anywhere.
//! `site.js` builds what it adds with `textContent`, never markup. Published pages name no local
//! path: the adapter command a run was given is not shown, and a reproducer's local paths are
//! replaced by placeholders ([`published_reproducer`]). Rendering is pure: the command line
//! writes the files [`render`] returns.

mod badge;
mod data;
mod harness;
mod index;
pub mod verdict;

use std::collections::{BTreeMap, HashMap, HashSet};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use harness_conformance_suite::coverage::{RequirementResult, Status};
use harness_conformance_suite::spec::{Level, Requirement};

use crate::matrix::Column;
use crate::Report;

pub use badge::Badge;

/// How many chars of an adapter's or harness's string a page shows (head and tail kept).
pub const PAGE_CHARS: usize = 2000;

/// How many chars a grid cell's tooltip shows.
pub const CELL_CHARS: usize = 200;

/// The site's stylesheet (`site.css`).
pub const CSS: &str = include_str!("site.css");

/// The site's script (`site.js`): filters kept in the URL, case rows loaded on demand, badge
/// snippets to copy, and the report viewer. No dependency.
pub const SCRIPT: &str = include_str!("site.js");

/// The site's pages may load scripts, styles and images from the site only, and connect
/// nowhere: no inline script, no fetch, XHR, WebSocket or beacon, no form submission.
pub const SITE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'";

/// A standalone page (`report --format html`) is one file: its own inline style, nothing else.
const STANDALONE_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// How the site is published.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The site's public address (`https://owner.github.io/harness-conformance/`): badge
    /// snippets link to it. Without one they are relative to the site.
    pub site_url: Option<String>,
}

/// The site: file paths (relative, `/`-separated) and their contents.
pub fn render(
    columns: &[Column],
    requirements: &[Requirement],
    suite: &str,
    options: &Options,
) -> Vec<(String, String)> {
    let slugs = slugs(columns);
    let views: Vec<View> = columns
        .iter()
        .zip(&slugs)
        .map(|(col, slug)| View::new(col, slug, requirements))
        .collect();
    let rows = rows(columns, requirements);
    let cases = data::Cases::of(&rows);
    let site_url = options
        .site_url
        .as_deref()
        .and_then(link)
        .map(|u| format!("{}/", u.trim_end_matches('/')));
    let mut files = vec![
        (
            "index.html".to_owned(),
            index::page(&views, &rows, suite).into_string(),
        ),
        ("site.css".to_owned(), CSS.to_owned()),
        ("site.js".to_owned(), SCRIPT.to_owned()),
        ("data/cases.js".to_owned(), cases.script()),
    ];
    for v in &views {
        let slug = v.slug;
        files.push((
            format!("harness/{slug}.html"),
            harness::page(v, harness::Kind::Latest, site_url.as_deref()).into_string(),
        ));
        for (n, old) in v.col.history.iter().enumerate() {
            let old = View::new(old, slug, requirements);
            files.push((
                format!("harness/{slug}.{}.html", n + 1),
                harness::page(&old, harness::Kind::Earlier, None).into_string(),
            ));
        }
        files.push((format!("data/{slug}.js"), cases.column_script(slug, v.col)));
        for level in [Level::Must, Level::Should] {
            let b = Badge::of(&v.report, level);
            let name = badge_name(slug, level);
            files.push((format!("badges/{name}.svg"), b.svg()));
            files.push((format!("badges/{name}.json"), b.endpoint()));
        }
        // The endpoint path the site has always published for the MUST badge.
        files.push((
            format!("badges/{slug}.json"),
            Badge::of(&v.report, Level::Must).endpoint(),
        ));
    }
    files
}

/// One harness's page on its own (what `report --format html` prints): the same content as its
/// page in the site, in one file (its style inline, no script, no badges or links to the site).
/// `date` is when the run started, when the report says.
pub fn standalone(report: &Report, name: &str, suite: &str, date: Option<&str>) -> String {
    let col = Column {
        name: name.to_owned(),
        target: report.target.to_owned(),
        reproduce: report.reproduce.to_owned(),
        suite: suite.to_owned(),
        date: date.map(str::to_owned),
        result: report.run.clone(),
        history: Vec::new(),
    };
    let view = View::new(&col, "harness", report.requirements);
    harness::page(&view, harness::Kind::Standalone, None).into_string()
}

/// The shields.io endpoint JSON of a harness's MUST badge (`badges/<slug>.json`).
pub fn badge(report: &Report) -> String {
    Badge::of(report, Level::Must).endpoint()
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

/// The share of a level's applicable requirements that pass, as a whole percent rounded down
/// (so a single failure never shows as 100%). Applicable: every status but NOT APPLICABLE — a
/// requirement that applies but could not be tested or evaluated counts against the harness,
/// because nothing shows that it holds. `None` when no requirement of the level applies.
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

/// A link from a hello, when it is one a page may make live: an absolute `http` or `https` URL
/// of printable ASCII without spaces or quotes. Anything else (`javascript:`, `data:`, a
/// relative path, a cut string) is shown as text.
pub fn link(url: &str) -> Option<&str> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let scheme = lower.starts_with("https://") || lower.starts_with("http://");
    let clean = url
        .bytes()
        .all(|b| b.is_ascii_graphic() && !b"\"'<>\\`".contains(&b));
    (scheme && clean && url.len() <= 2000 && url.len() > 8).then_some(url)
}

/// A reproducer as a published page shows it: the options whose value names a local path (an
/// absolute path, a home directory, a `..` step) get a placeholder (`"$ADAPTER"`, `"$BASELINE"`,
/// `"$CASES"`), so the page says how to rerun a case without saying where the run's files were.
pub fn published_reproducer(reproduce: &str) -> String {
    let Some(words) = crate::escape::shell_words(reproduce) else {
        return "harness-conformance run --harness \"$ADAPTER\" --run".to_owned();
    };
    let mut out: Vec<String> = Vec::new();
    let mut words = words.into_iter();
    while let Some(w) = words.next() {
        let placeholder = match w.as_str() {
            "--harness" => Some("\"$ADAPTER\""),
            "--baseline" => Some("\"$BASELINE\""),
            "--cases" | "--case-file" => Some("\"$CASES\""),
            _ => None,
        };
        match placeholder {
            Some(p) => {
                let value = words.next().unwrap_or_default();
                out.push(w);
                out.push(if is_local(&value) {
                    p.to_owned()
                } else {
                    crate::shell_quote(&value)
                });
            }
            None => out.push(crate::shell_quote(&w)),
        }
    }
    out.join(" ")
}

/// Whether a command line or path names something on the machine that ran it: a word that is
/// an absolute path (`/home/…`, `C:\…`), starts at a home directory (`~`, `$HOME`) or steps up
/// out of the folder it ran in (`..`).
fn is_local(value: &str) -> bool {
    value
        .split(|c: char| c.is_whitespace() || c == '=' || c == '"' || c == '\'')
        .any(|w| {
            let b = w.as_bytes();
            w.starts_with('/')
                || w.starts_with('\\')
                || w.starts_with('~')
                || w.starts_with("$HOME")
                || w.starts_with("${HOME}")
                || w.split(['/', '\\']).any(|part| part == "..")
                || (b.len() > 2
                    && b[0].is_ascii_alphabetic()
                    && b[1] == b':'
                    && b"/\\".contains(&b[2]))
        })
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

/// The file name (without extension) of a harness's badge at a level: `<slug>-must`.
fn badge_name(slug: &str, level: Level) -> String {
    format!("{slug}-{}", level.as_str().to_ascii_lowercase())
}

/// One column as the pages show it.
pub(crate) struct View<'a> {
    col: &'a Column,
    slug: &'a str,
    report: Report<'a>,
    standing: verdict::Standing,
    /// The implementation's language, lowercased (`unknown` without a handshake): the
    /// language filter's value.
    lang: String,
    /// Its requirements by id.
    statuses: HashMap<&'a str, &'a RequirementResult>,
}

impl<'a> View<'a> {
    fn new(col: &'a Column, slug: &'a str, requirements: &'a [Requirement]) -> View<'a> {
        let report = col.report(requirements);
        let lang = col
            .result
            .hello
            .as_ref()
            .map(|h| bounded(h.implementation.language.trim(), 40).to_lowercase())
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| "unknown".to_owned());
        let mut statuses = HashMap::new();
        for q in &col.result.coverage.requirements {
            statuses.entry(q.id.as_str()).or_insert(q);
        }
        View {
            col,
            slug,
            standing: verdict::standing(&report),
            report,
            lang,
            statuses,
        }
    }

    /// The run's date, as a day (`2025-06-01`), or a dash.
    fn day(&self) -> &str {
        self.col
            .date
            .as_deref()
            .and_then(|d| d.get(..10))
            .unwrap_or("—")
    }

    /// The implementation's version (bounded), or a dash.
    fn version(&self) -> String {
        self.col
            .result
            .hello
            .as_ref()
            .map_or("—".to_owned(), |h| bounded(&h.implementation.version, 40))
    }
}

/// The page around a body: the site's stylesheet and script (`root` is the path back to the
/// site's folder), or for a standalone page the style inline and no script.
fn page(title: &str, root: Option<&str>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(if root.is_some() { SITE_CSP } else { STANDALONE_CSP });
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                @match root {
                    Some(root) => { link rel="stylesheet" href={ (root) "site.css" }; }
                    None => { style { (PreEscaped(CSS)) } }
                }
            }
            body {
                (body)
                @if let Some(root) = root { script src={ (root) "site.js" } {} }
            }
        }
    }
}

/// The area a requirement belongs to: its id without the number (`VAL-1` → `VAL`).
fn area(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(a, _)| a)
}

/// The legend of the statuses the grid and the pages show.
fn legend() -> Markup {
    html! {
        dl.legend #legend {
            dt.p { "✓ PASS" } dd { "its checks ran and held" }
            dt.f { "✗ FAIL" } dd { "one of its own checks failed (n/m: in n of the m cases that tested it)" }
            dt.nt { "! NOT TESTABLE" } dd { "it applies, but the harness's declared capabilities rule out every check: nothing shows that it holds" }
            dt.ne { "⁇ NOT EVALUATED" } dd { "neutral: its cases ran, but the harness's answer gave its checks nothing to read (no result, or a success where an error was due); the requirement that promised that answer holds the failure" }
            dt.na { "– NOT APPLICABLE" } dd { "the harness does not declare what it applies to (an optional feature, a cap strategy it does not use)" }
            dt { i.bl { "b" } } dd { "baselined: the harness's own CI lists this failure (or this untestable MUST) as known; it is still shown as what it is" }
        }
    }
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

/// An HTML id for a case (ids are `area/name`; anchors keep them readable). `site.js` builds
/// the same (`anchor`).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str) -> Column {
        Column {
            name: name.to_owned(),
            target: String::new(),
            reproduce: String::new(),
            suite: String::new(),
            date: None,
            result: harness_conformance_suite::run::RunResult::handshake_failed(
                &[],
                std::time::Instant::now(),
                String::new(),
            ),
            history: Vec::new(),
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

    /// Only an absolute http(s) URL becomes a live link; a script URL, a data URL, a relative
    /// path or a URL that would break out of its attribute stays text.
    #[test]
    fn only_http_links_are_made_live() {
        assert_eq!(
            link("https://github.com/o/r/issues"),
            Some("https://github.com/o/r/issues")
        );
        assert!(link("HTTP://example.org/x").is_some());
        for bad in [
            "javascript:alert(1)",
            " javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "https://x.org/\"onmouseover=\"alert(1)",
            "https://x.org/a b",
            "//evil.example/",
            "docs/index.html",
            "https://",
            "vbscript:msgbox(1)",
        ] {
            assert_eq!(link(bad), None, "{bad}");
        }
    }

    /// Issue 29: the published site named the local adapter command. A reproducer keeps what
    /// reruns the case and replaces local paths with placeholders.
    #[test]
    fn published_reproducers_name_no_local_path() {
        assert_eq!(
            published_reproducer("harness-conformance run --harness '/home/alice/h/adapter.py' --baseline /home/alice/b.json --run"),
            "harness-conformance run --harness \"$ADAPTER\" --baseline \"$BASELINE\" --run"
        );
        assert_eq!(
            published_reproducer("harness-conformance run --harness 'python3 ~/work/a.py' --run"),
            "harness-conformance run --harness \"$ADAPTER\" --run"
        );
        assert_eq!(
            published_reproducer(
                "harness-conformance run --harness 'node ../x/adapter.js' --cases 'C:\\t' --run"
            ),
            "harness-conformance run --harness \"$ADAPTER\" --cases \"$CASES\" --run"
        );
        // A repository-relative command is what a contributor reruns: kept.
        assert_eq!(
            published_reproducer("harness-conformance run --harness conformance/adapters/pydantic-ai/run --baseline conformance/adapters/pydantic-ai/baseline.json --run"),
            "harness-conformance run --harness conformance/adapters/pydantic-ai/run --baseline conformance/adapters/pydantic-ai/baseline.json --run"
        );
        assert_eq!(
            published_reproducer("harness-conformance run --run"),
            "harness-conformance run --run"
        );
    }
}
