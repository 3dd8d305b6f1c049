//! JSON lines: one `start` line, one `case` line per case (with every check it evaluated, each
//! tied to its requirement, and the checks it could not run), one `summary` line (with each
//! requirement's standing).
//!
//! Stable field names, one object per line, so `jq` and CI scripts can consume a run without
//! parsing prose. The `start` line carries the versions (`suite`, `protocol`, `report_format`)
//! and the reproducer prefix, so [`crate::saved`] can read the report back and render any other
//! format from it exactly as the run would have; `conformance/schema/report.schema.json`
//! describes every line.

use serde_json::{json, Value};

use super::Report;

/// The whole report as JSON lines.
pub fn render(r: &Report) -> String {
    let mut lines: Vec<Value> = Vec::new();
    lines.push(json!({
        "type": "start",
        "suite": harness_conformance_suite::SUITE_VERSION,
        "protocol": harness_conformance_protocol::PROTOCOL_VERSION,
        "report_format": crate::saved::REPORT_FORMAT,
        "target": r.target,
        "reproduce": r.reproduce,
        "implementation": r.run.hello.as_ref().map(|h| &h.implementation),
        "capabilities": r.run.hello.as_ref().map(|h| &h.capabilities),
    }));
    for o in &r.run.outcomes {
        let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
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
        "handshake_error": r.run.handshake_error,
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
        out.push_str(&l.to_string());
        out.push('\n');
    }
    out
}
