//! JSON lines: one `start` line, one `case` line per case (with every check it evaluated, each
//! tied to its requirement, and the checks it could not run), one `summary` line (with each
//! requirement's standing).
//!
//! Stable field names, one object per line, so `jq` and CI scripts can consume a run without
//! parsing prose. The `start` line carries the versions (`suite`, `protocol`, `report_format`)
//! and the reproducer prefix, so [`crate::saved`] can read the report back and render any other
//! format from it exactly as the run would have; `conformance/schema/report.schema.json`
//! describes every line.
//! Adapter strings are bounded like everywhere else (the implementation's
//! fields to [`MAX_NAME_CHARS`], messages to [`MAX_PRINTED_CHARS`], at most
//! [`crate::terminal::MAX_MESSAGES`] per case, the handshake error to
//! [`crate::terminal::MAX_HANDSHAKE_CHARS`]), and every line goes through [`escape::json`],
//! so a report piped to a terminal shows no raw control character.

use serde_json::{json, Value};

use super::escape::{self, MAX_NAME_CHARS, MAX_PRINTED_CHARS};
use super::Report;

/// The whole report as JSON lines, without a run date.
pub fn render(r: &Report) -> String {
    render_dated(r, None)
}

/// The whole report as JSON lines; `date` is when the run started ([`crate::saved::is_date`]),
/// written on the start line when given.
pub fn render_dated(r: &Report, date: Option<&str>) -> String {
    let mut lines: Vec<Value> = Vec::new();
    let mut start = json!({
        "type": "start",
        "suite": harness_conformance_suite::SUITE_VERSION,
        "protocol": harness_conformance_protocol::PROTOCOL_VERSION,
        "report_format": crate::saved::REPORT_FORMAT,
        "target": r.target,
        "reproduce": r.reproduce,
        "implementation": r.run.hello.as_ref().map(|h| {
            let i = &h.implementation;
            let mut v = json!({
                "name": escape::bound(&i.name, MAX_NAME_CHARS),
                "version": escape::bound(&i.version, MAX_NAME_CHARS),
                "language": escape::bound(&i.language, MAX_NAME_CHARS),
            });
            // The links the matrix site shows, when the hello gave them.
            for (key, link) in [("homepage", &i.homepage), ("source", &i.source), ("issues", &i.issues)] {
                if let Some(link) = link {
                    v[key] = json!(escape::bound(link, MAX_NAME_CHARS));
                }
            }
            v
        }),
        "capabilities": r.run.hello.as_ref().map(|h| &h.capabilities),
    });
    if let Some(date) = date {
        start["date"] = json!(date);
    }
    lines.push(start);
    for o in &r.run.outcomes {
        let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            let shown = crate::terminal::MAX_MESSAGES;
            let mut messages: Vec<Value> = o
                .messages
                .iter()
                .take(shown)
                .map(|m| json!(escape::bound(m, MAX_PRINTED_CHARS)))
                .collect();
            if o.messages.len() > shown {
                messages.push(json!(format!(
                    "… and {} more message(s)",
                    o.messages.len() - shown
                )));
            }
            m.insert("messages".into(), Value::Array(messages));
            m.insert("type".into(), json!("case"));
            m.insert("level".into(), json!(r.level_of(o).map(|l| l.as_str())));
            if o.verdict.is_unexpected() {
                m.insert("reproduce".into(), json!(r.reproducer(&o.id)));
            }
        }
        lines.push(v);
    }
    let requirements = serde_json::to_value(&r.run.coverage.requirements).unwrap_or(Value::Null);
    lines.push(json!({
        "type": "summary",
        "ok": !r.run.failed(),
        "suite": harness_conformance_suite::SUITE_VERSION,
        "handshake_error": r.run.handshake_error.as_deref().map(|e| escape::bound(e, crate::terminal::MAX_HANDSHAKE_CHARS)),
        "failure_reasons": r.failure_reasons(),
        "coverage": {
            "must": r.run.coverage.summary(harness_conformance_suite::spec::Level::Must),
            "should": r.run.coverage.summary(harness_conformance_suite::spec::Level::Should),
            "stale_not_testable": r.run.coverage.stale_not_testable,
            "unmapped_classes": r.run.coverage.unmapped_classes,
        },
        "elapsed_ms": harness_conformance_suite::verdict::ms(r.run.elapsed),
        "totals": r.totals().iter().map(|(v, n)| (v.as_str().to_owned(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "requirements": requirements,
        "teaching": crate::teaching::json(r),
    }));
    let mut out = String::new();
    for l in lines {
        out.push_str(&escape::json(&l.to_string()));
        out.push('\n');
    }
    out
}
