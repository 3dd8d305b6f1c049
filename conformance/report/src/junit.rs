//! JUnit XML, for CI systems that draw test views from it: one `testsuite` per area, one
//! `testcase` per case with `classname` the area and the case's requirements as properties;
//! FAIL, STALE and NEW SKIP are `failure` (its message names the requirements whose checks
//! failed, then the failed checks), ERROR and BUG IN CASE are `error`, SKIP and XFAIL are
//! `skipped` (with the reason). The suite and protocol versions are properties of the run, and
//! so is a failed handshake's whole message; each case it kept from running is an `error` whose
//! message says why in one line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::escape::{self, MAX_PRINTED_CHARS};
use super::Report;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};

/// Escapes text for XML attributes and text nodes, bounded to [`MAX_PRINTED_CHARS`]
/// ([`escape::xml`]: markup escaped, characters XML forbids written visibly, other controls as
/// character references).
pub fn escape(s: &str) -> String {
    escape::xml(&escape::bound(s, MAX_PRINTED_CHARS))
}

/// The whole report as JUnit XML.
pub fn render(r: &Report) -> String {
    let mut by_area: BTreeMap<&str, Vec<&CaseOutcome>> = BTreeMap::new();
    for o in &r.run.outcomes {
        by_area
            .entry(o.id.split('/').next().unwrap_or(""))
            .or_default()
            .push(o);
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let count =
        |v: &[&CaseOutcome], f: &dyn Fn(Verdict) -> bool| v.iter().filter(|o| f(o.verdict)).count();
    let is_failure = |v: Verdict| matches!(v, Verdict::Fail | Verdict::Stale | Verdict::NewSkip);
    let is_error = |v: Verdict| matches!(v, Verdict::Error | Verdict::BugInCase);
    let is_skip = |v: Verdict| matches!(v, Verdict::Skip | Verdict::Xfail);
    let all: Vec<&CaseOutcome> = r.run.outcomes.iter().collect();
    let _ = writeln!(
        out,
        "<testsuites name=\"harness-conformance: {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        escape(r.target),
        all.len(),
        count(&all, &is_failure),
        count(&all, &is_error),
        count(&all, &is_skip),
        r.run.elapsed.as_secs_f64()
    );
    for (area, cases) in by_area {
        let time: f64 = cases.iter().map(|o| o.duration.as_secs_f64()).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">",
            escape(area),
            cases.len(),
            count(&cases, &is_failure),
            count(&cases, &is_error),
            count(&cases, &is_skip),
        );
        let handshake = r.run.handshake_error.as_deref().map_or(String::new(), |e| {
            format!(
                "<property name=\"handshake_error\" value=\"{}\"/>",
                escape::xml(&escape::bound(e, crate::terminal::MAX_HANDSHAKE_CHARS))
            )
        });
        let _ = writeln!(
            out,
            "    <properties><property name=\"suite\" value=\"{}\"/><property name=\"protocol\" value=\"{}\"/>{handshake}</properties>",
            harness_conformance_suite::SUITE_VERSION,
            harness_conformance_protocol::PROTOCOL_VERSION
        );
        for o in cases {
            let level = r.level_of(o).map_or("?", |l| l.as_str());
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\">\n      <properties>",
                escape(area),
                escape(&o.id),
                o.duration.as_secs_f64()
            );
            for req in &o.requirements {
                let _ = write!(
                    out,
                    "<property name=\"requirement\" value=\"{}\"/>",
                    escape(req)
                );
            }
            let failing = o.failing_requirements();
            for req in &failing {
                let _ = write!(out, "<property name=\"fails\" value=\"{}\"/>", escape(req));
            }
            let _ = writeln!(
                out,
                "<property name=\"level\" value=\"{level}\"/></properties>"
            );
            let shown = crate::terminal::MAX_MESSAGES;
            let mut body = o
                .messages
                .iter()
                .take(shown)
                .map(|m| escape::bound(m, MAX_PRINTED_CHARS))
                .collect::<Vec<_>>()
                .join("\n");
            if o.messages.len() > shown {
                body.push_str(&format!(
                    "\n… and {} more message(s)",
                    o.messages.len() - shown
                ));
            }
            let detail = format!("{body}\nreproduce: {}", r.reproducer(&o.id));
            match o.verdict {
                Verdict::Pass => out.push_str("    </testcase>\n"),
                v if is_failure(v) => {
                    let blamed = if failing.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "fails {}: ",
                            failing.iter().copied().collect::<Vec<_>>().join(", ")
                        )
                    };
                    let _ = write!(
                        out,
                        "      <failure type=\"{}\" message=\"{}{}\">{}</failure>\n    </testcase>\n",
                        v.as_str(),
                        escape(&blamed),
                        escape(o.messages.first().map_or("", String::as_str)),
                        escape(&detail)
                    );
                }
                v if is_error(v) => {
                    let _ = write!(
                        out,
                        "      <error type=\"{}\" message=\"{}\">{}</error>\n    </testcase>\n",
                        v.as_str(),
                        escape(o.messages.first().map_or("", String::as_str)),
                        escape(&detail)
                    );
                }
                v => {
                    let reason = o
                        .baseline
                        .clone()
                        .or_else(|| o.messages.first().cloned())
                        .unwrap_or_default();
                    let _ = write!(
                        out,
                        "      <skipped message=\"{}: {}\"/>\n    </testcase>\n",
                        v.as_str(),
                        escape(&reason)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
