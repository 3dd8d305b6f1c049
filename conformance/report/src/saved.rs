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

use crate::Report;

/// The JSON report's format version, `major.minor`: the major changes when a field changes
/// meaning or goes away (readers refuse another major), the minor when fields are added.
pub const REPORT_FORMAT: &str = "1.1";

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
    /// Its report format (`1.1`).
    pub report_format: String,
    /// What was run (`the built-in reference harness`, `adapter `…``).
    pub target: String,
    /// The reproducer prefix the run used.
    pub reproduce: String,
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
    let mut outcomes = Vec::new();
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
                outcomes.push(typed::<CaseOutcome>(n, "case", v)?);
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
        reproduce: start.reproduce,
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
