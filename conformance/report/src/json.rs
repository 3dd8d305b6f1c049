//! JSON lines: one `start` line, one `case` line per case, one `summary` line.
//!
//! Stable field names, one object per line, so `jq` and CI scripts can consume a run without
//! parsing prose.

use serde_json::{json, Value};

use super::Report;

/// The whole report as JSON lines.
pub fn render(r: &Report) -> String {
    let mut lines: Vec<Value> = Vec::new();
    lines.push(json!({
        "type": "start",
        "target": r.target,
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
    let requirements: Vec<Value> = r
        .requirement_rows()
        .iter()
        .map(|row| {
            json!({
                "id": row.id,
                "level": row.level.map(|l| l.as_str()),
                "counts": row.counts.iter().map(|(v, n)| (v.as_str().to_owned(), json!(n))).collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    lines.push(json!({
        "type": "summary",
        "ok": !r.run.failed(),
        "elapsed_ms": r.run.elapsed.as_secs_f64() * 1000.0,
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
