//! Saved reports: a JSON-lines report ([`crate::json`]) read back into the run it describes.
//!
//! Run once, render many: a harness's CI saves the JSON report, and `harness-conformance report`
//! renders the terminal, JUnit, Markdown or HTML view from it later — identical to what the run
//! itself would have printed — and `matrix --from DIR` combines reports made on other machines.
//! Reading is strict: every line must be one this format writes, every field one it knows
//! (unknown ones are refused rather than dropped), and a report of another major
//! [`REPORT_FORMAT`] (or a newer minor one, whose fields this reader cannot know) is refused
//! with a message saying which version made it. The one derived field checked is `ok`: a
//! report whose outcomes disagree with its own verdict was edited or damaged.
//!
//! A saved report is hostile input like an adapter's reply (it may come from another
//! repository's CI, or a pull request): it is read up to [`MAX_REPORT_BYTES`] (the caller reads
//! with `files::read_bounded`), holds at most [`MAX_REPORT_CASES`] cases, its strings that
//! reports print in headings are bounded ([`MAX_TARGET_CHARS`]), its suite version must be a
//! version, and every case id must be in the suite's id grammar ([`is_case_id`]). Its
//! reproducer is never copied: it is read back as shell words ([`escape::shell_words`]), checked
//! to be a `harness-conformance run` command with the options a run writes, and quoted again
//! ([`rebuild_reproducer`]), so a forged `\nresult: ok\ntouch pwned` can neither run nor print
//! a line of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use harness_conformance_protocol::{Capabilities, Hello, Implementation};
use harness_conformance_suite::coverage::{Coverage, RequirementResult};
use harness_conformance_suite::quote::quote_n;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::spec::Requirement;
use harness_conformance_suite::verdict::{from_ms, CaseOutcome};
use serde::Deserialize;
use serde_json::Value;

use crate::{escape, shell_quote, Report};

/// The most bytes of a saved report read (`report FILE`, each `matrix --from` report). A report
/// of the whole suite is about 1 MB; one of [`MAX_REPORT_CASES`] failing cases with long
/// messages stays under this.
pub const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// The most `case` lines a saved report may hold: the embedded suite has about 600 cases, and a
/// `--cases` directory at most 10,000 (the CLI's walk bound); a report beyond this was not
/// written by a run.
pub const MAX_REPORT_CASES: usize = 20_000;

/// The most chars of a saved report's reproducer prefix and target: a run writes the command
/// line it was given (`--harness`, `--baseline`, `--cases`), a few hundred chars.
pub const MAX_TARGET_CHARS: usize = 4096;

/// The most chars of a saved report's suite version (`1.1.0`, `2.0.0-rc.1`).
pub const MAX_VERSION_CHARS: usize = 40;

/// Whether `id` is in the suite's case id grammar, `<area>/<fault-name>` of lowercase letters,
/// digits and `-` (`conformance/schema/case.schema.json`, `id`), at most
/// [`escape::MAX_NAME_CHARS`] long.
pub fn is_case_id(id: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    id.len() <= escape::MAX_NAME_CHARS
        && id
            .split_once('/')
            .is_some_and(|(area, name)| part(area) && part(name))
}

/// Whether `v` is a suite version (`MAJOR.MINOR.PATCH`, an optional `-pre` or `+build` of
/// letters, digits, `.` and `-`), at most [`MAX_VERSION_CHARS`] long.
pub fn is_version(v: &str) -> bool {
    let (core, extra) = match v.find(['-', '+']) {
        Some(i) => (&v[..i], &v[i + 1..]),
        None => (v, ""),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    v.len() <= MAX_VERSION_CHARS
        && numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && extra
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-+.".contains(&b))
}

/// Whether `d` is a run's date as reports write it: UTC, RFC 3339, to the second
/// (`2025-06-01T12:00:00Z`), a real date and time.
pub fn is_date(d: &str) -> bool {
    d.len() == 20 && d.ends_with('Z') && humantime::parse_rfc3339(d).is_ok()
}

/// A run's date as reports write it ([`is_date`]): `unix_seconds` after the epoch, UTC (at
/// most the last second of 9999, which RFC 3339 can write).
pub fn format_date(unix_seconds: u64) -> String {
    const LAST: u64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix_seconds.min(LAST));
    humantime::format_rfc3339_seconds(t).to_string()
}

/// The options a run's reproducer may carry, each followed by its value.
const REPRODUCER_OPTIONS: [&str; 4] = ["--harness", "--baseline", "--cases", "--case-file"];

/// The ways a run may have been started, as the words a reproducer begins with: the binary on
/// PATH, through npm's `npx`, or through the wheel's `python -m`. A closed list, so a saved
/// report can only ever name one of these programs (the runner picks one with
/// [`launcher_prefix`]).
pub const LAUNCHERS: [&[&str]; 4] = [
    &["harness-conformance"],
    &["npx", "harness-conformance"],
    &["python", "-m", "harness_conformance"],
    &["python3", "-m", "harness_conformance"],
];

/// The launcher `said` names (`npx harness-conformance`), when it is one of [`LAUNCHERS`];
/// `None` for anything else, which the runner then ignores.
pub fn launcher_prefix(said: &str) -> Option<String> {
    let words = escape::shell_words(said.trim())?;
    LAUNCHERS
        .iter()
        .find(|l| l.iter().copied().eq(words.iter().map(String::as_str)))
        .map(|l| l.join(" "))
}

/// A saved reproducer prefix rebuilt from its parts: one of the [`LAUNCHERS`] and `run`, then
/// any of `--harness`, `--baseline`, `--cases`, `--case-file` (each once, with a value), then
/// `--run` — the shape every run writes — each word quoted again with [`shell_quote`]. `None`
/// for anything else: text [`shell_quote`] never writes (a raw newline, `;`, `$(…)`), another
/// program, another option, or a prefix over [`MAX_TARGET_CHARS`].
pub fn rebuild_reproducer(saved: &str) -> Option<String> {
    if saved.chars().count() > MAX_TARGET_CHARS {
        return None;
    }
    let words = escape::shell_words(saved)?;
    let launcher = LAUNCHERS.iter().find(|l| {
        words.len() > l.len()
            && l.iter()
                .copied()
                .eq(words[..l.len()].iter().map(String::as_str))
    })?;
    let (head, rest) = words[launcher.len()..].split_at_checked(1)?;
    if head != ["run"] || rest.last()? != "--run" {
        return None;
    }
    let options = &rest[..rest.len() - 1];
    if options.len() % 2 != 0 {
        return None;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut out = format!("{} run", launcher.join(" "));
    for pair in options.chunks(2) {
        let (flag, value) = (pair[0].as_str(), pair[1].as_str());
        if !REPRODUCER_OPTIONS.contains(&flag) || seen.contains(&flag) {
            return None;
        }
        seen.push(flag);
        out.push_str(&format!(" {flag} {}", shell_quote(value)));
    }
    out.push_str(" --run");
    Some(out)
}

/// The JSON report's format version, `major.minor`: the major changes when a field changes
/// meaning or goes away (readers refuse another major), the minor when fields are added.
pub const REPORT_FORMAT: &str = "2.1";

/// A report read back: the run, and what the run's report said around it.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The run (outcomes, coverage, handshake, wall time) as the report recorded it. The
    /// harness's raw results are not in a report, so `outcomes[..].results` is `None`.
    pub run: RunResult,
    /// The suite version that made it (`1.0.0`).
    pub suite: String,
    /// The adapter protocol version it spoke.
    pub protocol: u32,
    /// Its report format (`2.0`).
    pub report_format: String,
    /// What was run (`the built-in reference harness`, `adapter `…``).
    pub target: String,
    /// The reproducer prefix the run used.
    pub reproduce: String,
    /// When the run started (`2025-06-01T12:00:00Z`; format 2.1), checked by [`is_date`].
    pub date: Option<String>,
}

impl Saved {
    /// The report to render, over SPEC.md's requirements (for titles and levels).
    pub fn report<'a>(&'a self, requirements: &'a [Requirement]) -> Report<'a> {
        Report {
            run: &self.run,
            requirements,
            target: &self.target,
            reproduce: &self.reproduce,
        }
    }

    /// The suite's major version (`1` of `1.0.0`).
    pub fn suite_major(&self) -> &str {
        major(&self.suite)
    }
}

/// Why a report could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedError {
    /// The 1-based line it is about (0: the report as a whole).
    pub line: usize,
    /// What is wrong.
    pub kind: SavedErrorKind,
}

/// What is wrong with a report. Each kind has a stable [`SavedErrorKind::code`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SavedErrorKind {
    /// The text is empty.
    Empty,
    /// A line is not a JSON object.
    NotJson(String),
    /// The first line is not a `start` line.
    NoStart,
    /// The start line has no `report_format` (a report made before formats were versioned).
    Unversioned,
    /// Another major format, or a newer minor one.
    Format {
        /// The report's format.
        found: String,
    },
    /// A line does not have the fields its type has.
    BadLine {
        /// `start`, `case` or `summary`.
        kind: String,
        /// serde's account of the mismatch.
        detail: String,
    },
    /// A line of an unknown `type`, or a line after the summary.
    Unexpected(String),
    /// The report ends without a `summary` line (cut short).
    NoSummary,
    /// The summary's `ok` disagrees with the outcomes and coverage.
    Inconsistent,
    /// More `case` lines than [`MAX_REPORT_CASES`].
    TooManyCases,
    /// The reproducer is not a `harness-conformance run` command line as a run writes it.
    BadReproducer,
    /// The suite version is not a version ([`is_version`]).
    BadSuiteVersion,
    /// A case id outside the suite's id grammar ([`is_case_id`]).
    BadCaseId(String),
    /// The start line's `date` is not a UTC RFC 3339 date to the second ([`is_date`]).
    BadDate,
    /// A string longer than its bound.
    TooLong {
        /// The field.
        field: &'static str,
        /// Its bound, in chars.
        max: usize,
    },
}

impl SavedErrorKind {
    /// A stable machine code. Codes are API: never renamed or reused.
    pub fn code(&self) -> &'static str {
        match self {
            SavedErrorKind::Empty => "report.empty",
            SavedErrorKind::NotJson(_) => "report.not-json",
            SavedErrorKind::NoStart => "report.no-start",
            SavedErrorKind::Unversioned => "report.unversioned",
            SavedErrorKind::Format { .. } => "report.format-version",
            SavedErrorKind::BadLine { .. } => "report.bad-line",
            SavedErrorKind::Unexpected(_) => "report.unexpected-line",
            SavedErrorKind::NoSummary => "report.no-summary",
            SavedErrorKind::Inconsistent => "report.inconsistent",
            SavedErrorKind::TooManyCases => "report.too-many-cases",
            SavedErrorKind::BadReproducer => "report.bad-reproducer",
            SavedErrorKind::BadSuiteVersion => "report.bad-suite-version",
            SavedErrorKind::BadCaseId(_) => "report.bad-case-id",
            SavedErrorKind::TooLong { .. } => "report.field-too-long",
            SavedErrorKind::BadDate => "report.bad-date",
        }
    }
}

impl fmt::Display for SavedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            SavedErrorKind::Empty => f.write_str("the report is empty"),
            SavedErrorKind::NotJson(e) => write!(f, "not a JSON object ({})", quote_n(e, 200)),
            SavedErrorKind::NoStart => f.write_str(
                "the first line is not a `start` line: this is not a JSON report of `run --format json`",
            ),
            SavedErrorKind::Unversioned => write!(
                f,
                "the report has no `report_format`: it was made by a harness-conformance older than this \
                 format ({REPORT_FORMAT}); run the suite again to make a report this version can read"
            ),
            SavedErrorKind::Format { found } => write!(
                f,
                "the report's format is {}, this harness-conformance reads {REPORT_FORMAT} (same major, \
                 same or older minor); render it with the harness-conformance that made it, or run again",
                quote_n(found, 40)
            ),
            SavedErrorKind::BadLine { kind, detail } => write!(
                f,
                "a {} line does not match the report format {REPORT_FORMAT}: {}",
                quote_n(kind, 40),
                quote_n(detail, 300)
            ),
            SavedErrorKind::Unexpected(t) => write!(
                f,
                "unexpected line (type {}): a report is one start line, case lines, one summary line",
                quote_n(t, 40)
            ),
            SavedErrorKind::NoSummary => f.write_str(
                "the report ends without its `summary` line: it was cut short (the run was killed, or the file truncated)",
            ),
            SavedErrorKind::Inconsistent => f.write_str(
                "the summary's `ok` disagrees with the report's own outcomes: the report was edited or damaged",
            ),
            SavedErrorKind::TooManyCases => write!(
                f,
                "the report holds more than {MAX_REPORT_CASES} cases; no run writes that many"
            ),
            SavedErrorKind::BadReproducer => f.write_str(
                "the start line's `reproduce` is not a `harness-conformance run … --run` command line as a run writes it (or its `npx`/`python -m` form); \
                 a reproducer is rebuilt from its words, never copied from a file",
            ),
            SavedErrorKind::BadSuiteVersion => write!(
                f,
                "the start line's `suite` is not a suite version (MAJOR.MINOR.PATCH, at most {MAX_VERSION_CHARS} chars)"
            ),
            SavedErrorKind::BadCaseId(id) => write!(
                f,
                "the case id {} is not in the suite's id grammar (`<area>/<fault-name>`: lowercase letters, digits, `-`)",
                escape::one_line(&format!("{id:?}"), 80)
            ),
            SavedErrorKind::BadDate => f.write_str(
                "the start line's `date` is not a UTC date and time to the second (`2025-06-01T12:00:00Z`)",
            ),
            SavedErrorKind::TooLong { field, max } => {
                write!(f, "the field `{field}` is longer than its bound of {max} chars")
            }
        }
    }
}

impl std::error::Error for SavedError {}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

/// Whether a report of format `found` can be read here: the same major, a minor no newer.
fn readable(found: &str) -> bool {
    let parts = |v: &str| -> Option<(u64, u64)> {
        let (a, b) = v.split_once('.')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    match (parts(found), parts(REPORT_FORMAT)) {
        (Some((fa, fb)), Some((oa, ob))) => fa == oa && fb <= ob,
        _ => false,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Start {
    #[serde(rename = "type")]
    _type: String,
    suite: String,
    protocol: u32,
    report_format: String,
    #[serde(default)]
    date: Option<String>,
    target: String,
    reproduce: String,
    implementation: Option<Implementation>,
    capabilities: Option<Capabilities>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Summary {
    #[serde(rename = "type")]
    _type: String,
    ok: bool,
    #[serde(rename = "suite")]
    _suite: String,
    handshake_error: Option<String>,
    #[serde(rename = "failure_reasons")]
    _failure_reasons: Vec<String>,
    coverage: SummaryCoverage,
    elapsed_ms: f64,
    #[serde(rename = "totals")]
    _totals: BTreeMap<String, usize>,
    requirements: Vec<RequirementResult>,
    #[serde(rename = "teaching")]
    _teaching: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SummaryCoverage {
    #[serde(rename = "must")]
    _must: String,
    #[serde(rename = "should")]
    _should: String,
    stale_not_testable: Vec<String>,
    unmapped_classes: BTreeSet<String>,
}

/// Reads a JSON-lines report.
pub fn parse(text: &str) -> Result<Saved, SavedError> {
    let err = |line: usize, kind| SavedError { line, kind };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let (n, first) = lines.next().ok_or(err(0, SavedErrorKind::Empty))?;
    let first = object(n, first)?;
    if first.get("type").and_then(Value::as_str) != Some("start") {
        return Err(err(n, SavedErrorKind::NoStart));
    }
    match first.get("report_format") {
        None => return Err(err(n, SavedErrorKind::Unversioned)),
        Some(v) => {
            let found = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            if !readable(&found) {
                return Err(err(n, SavedErrorKind::Format { found }));
            }
        }
    }
    let start: Start = typed(n, "start", first)?;
    if !is_version(&start.suite) {
        return Err(err(n, SavedErrorKind::BadSuiteVersion));
    }
    if start.target.chars().count() > MAX_TARGET_CHARS {
        return Err(err(
            n,
            SavedErrorKind::TooLong {
                field: "target",
                max: MAX_TARGET_CHARS,
            },
        ));
    }
    let reproduce =
        rebuild_reproducer(&start.reproduce).ok_or(err(n, SavedErrorKind::BadReproducer))?;
    if start.date.as_deref().is_some_and(|d| !is_date(d)) {
        return Err(err(n, SavedErrorKind::BadDate));
    }
    let mut outcomes: Vec<CaseOutcome> = Vec::new();
    let mut summary = None;
    for (n, line) in lines {
        let mut v = object(n, line)?;
        if summary.is_some() {
            return Err(err(
                n,
                SavedErrorKind::Unexpected("after the summary".into()),
            ));
        }
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match kind.as_str() {
            "case" => {
                if let Value::Object(m) = &mut v {
                    // What the JSON report adds around an outcome; the renderers derive them again.
                    for added in ["type", "level", "reproduce"] {
                        m.remove(added);
                    }
                }
                if outcomes.len() == MAX_REPORT_CASES {
                    return Err(err(n, SavedErrorKind::TooManyCases));
                }
                let outcome = typed::<CaseOutcome>(n, "case", v)?;
                if !is_case_id(&outcome.id) {
                    return Err(err(n, SavedErrorKind::BadCaseId(outcome.id)));
                }
                outcomes.push(outcome);
            }
            "summary" => summary = Some((n, typed::<Summary>(n, "summary", v)?)),
            _ => return Err(err(n, SavedErrorKind::Unexpected(kind))),
        }
    }
    let (n, summary) = summary.ok_or(err(0, SavedErrorKind::NoSummary))?;
    let elapsed = from_ms(summary.elapsed_ms).ok_or_else(|| {
        err(
            n,
            SavedErrorKind::BadLine {
                kind: "summary".into(),
                detail: format!("elapsed_ms {} is not a duration", summary.elapsed_ms),
            },
        )
    })?;
    let hello = match (start.implementation, start.capabilities) {
        (Some(implementation), Some(capabilities)) => Some(Hello {
            protocol: start.protocol,
            implementation,
            capabilities,
        }),
        _ => None,
    };
    let run = RunResult {
        hello,
        handshake_error: summary.handshake_error,
        outcomes,
        coverage: Coverage {
            requirements: summary.requirements,
            stale_not_testable: summary.coverage.stale_not_testable,
            unmapped_classes: summary.coverage.unmapped_classes,
        },
        elapsed,
    };
    if run.failed() == summary.ok {
        return Err(err(n, SavedErrorKind::Inconsistent));
    }
    Ok(Saved {
        run,
        suite: start.suite,
        protocol: start.protocol,
        report_format: start.report_format,
        target: start.target,
        reproduce,
        date: start.date,
    })
}

fn object(n: usize, line: &str) -> Result<Value, SavedError> {
    match serde_json::from_str::<Value>(line) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(SavedError {
            line: n,
            kind: SavedErrorKind::NotJson(format!("a JSON {}", json_type(&other))),
        }),
        Err(e) => Err(SavedError {
            line: n,
            kind: SavedErrorKind::NotJson(e.to_string()),
        }),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn typed<T: for<'de> Deserialize<'de>>(n: usize, kind: &str, v: Value) -> Result<T, SavedError> {
    serde_json::from_value(v).map_err(|e| SavedError {
        line: n,
        kind: SavedErrorKind::BadLine {
            kind: kind.to_owned(),
            detail: e.to_string(),
        },
    })
}
