//! Capability needs: which capabilities a case requires, and whether a harness declares them.
//!
//! A case lists the needs the runner cannot see for itself (`codes`, `history`, …); the runner
//! derives the rest from the case's own text — the call forms it uses, the cap and deadline it
//! configures, and every JSON Schema keyword in its tools' input schemas — so a case author
//! cannot forget one. A harness without a needed capability SKIPs the case with the reason,
//! except that a harness with no cap at all FAILs the cap cases: having no cap is the fault
//! the cap requirements exist to catch, not a missing optional feature. The optional cap designs
//! (reject, spill, lines) are the exception to the exception: they judge a design the harness
//! chose, so a harness without a cap skips them.

use std::collections::BTreeSet;

use harness_conformance_protocol::{
    vocabulary, Behavior, Capabilities, Output, SleepMs, Strategy, StreamPart, Unit,
};
use serde_json::Value;

use crate::case::Case;

/// Every need name a case may list (besides `feature.<name>`).
pub const NEED_NAMES: [&str; 23] = [
    "cap.configurable",
    "cap.unit.bytes",
    "cap.unit.chars",
    "cap.strategy.head_only",
    "cap.strategy.head_tail",
    "cap.unit.lines",
    "cap.unit.tokens",
    "cap.strategy.reject",
    "cap.strategy.spill",
    "cap.cuts",
    "codes",
    "retryability",
    "deadline",
    "deadline.configurable",
    "call_form.arguments_text",
    "call_form.raw",
    "parallel",
    "history",
    "call_ids",
    "wrapper",
    "cap.note",
    "cap.spill.bound",
    "dialect",
];

/// Whether `name` may appear on an `Applies:` line: a need, or `cap` (the harness has a cap).
pub fn is_known_applies(name: &str) -> bool {
    name == "cap" || is_known(name)
}

/// Whether a requirement whose `Applies:` line names `name` applies to a harness with `caps`.
///
/// The same as [`declared`], with one difference that keeps one fault in one place: a harness
/// without a cap has no cap capability at all here (`cap`, and every `cap.*` name). Its cap
/// cases still run — [`declared`] treats their needs as met, so that the missing cap fails CAP-1
/// where their output outgrows the nominal cap — but the requirements that presuppose a cap
/// (how a cut is made, announced and counted, head and tail) are NOT APPLICABLE to it, and
/// their checks are not run, instead of failing a second time for the same missing cap.
pub fn applies(name: &str, caps: &Capabilities) -> bool {
    match name {
        "cap" => caps.cap.is_some(),
        _ if name.starts_with("cap.") => caps.cap.is_some() && declared(name, caps),
        _ => declared(name, caps),
    }
}

/// Whether `name` is a need a case may list (or an `Applies:` line may name).
pub fn is_known(name: &str) -> bool {
    NEED_NAMES.contains(&name)
        || name
            .strip_prefix("feature.")
            .is_some_and(|f| vocabulary::FEATURES.contains(&f))
        || name
            .strip_prefix("behavior.")
            .is_some_and(|b| vocabulary::BEHAVIORS.contains(&b))
}

/// The JSON Schema keywords the runner derives needs from ([`vocabulary::KEYWORDS`]).
pub use harness_conformance_protocol::vocabulary::KEYWORDS;

/// The keywords used anywhere in a schema.
pub fn schema_keywords(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(schema, &mut out);
    out
}

fn walk(schema: &Value, out: &mut BTreeSet<String>) {
    let Value::Object(map) = schema else {
        return;
    };
    for (key, value) in map {
        if KEYWORDS.contains(&key.as_str()) {
            out.insert(key.clone());
        }
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(children) = value {
                    children.values().for_each(|c| walk(c, out));
                }
            }
            "dependencies" => {
                if let Value::Object(children) = value {
                    children
                        .values()
                        .filter(|c| c.is_object())
                        .for_each(|c| walk(c, out));
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(children) = value {
                    children.iter().for_each(|c| walk(c, out));
                }
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema" => match value {
                Value::Array(children) => children.iter().for_each(|c| walk(c, out)),
                other => walk(other, out),
            },
            _ => {}
        }
    }
}

/// Every need of a case: declared plus derived, in a stable order.
pub fn case_needs(case: &Case) -> Vec<String> {
    let mut needs: BTreeSet<String> = case.needs.iter().cloned().collect();
    for form in case.call_forms() {
        if let Some(n) = form.need() {
            needs.insert(n.to_owned());
        }
    }
    if let Some(cap) = &case.config.cap {
        if cap.limit.is_some() {
            needs.insert("cap.configurable".into());
        }
        if let Some(unit) = cap.unit {
            needs.insert(format!("cap.unit.{}", unit.as_str()));
        }
        if let Some(strategy) = cap.strategy {
            needs.insert(format!("cap.strategy.{}", strategy.as_str()));
        }
    }
    // A cap case that names no strategy judges a cut: a harness whose cap rejects or spills
    // over-limit output by default is judged by the cases that name its strategy instead.
    if case.is_cap_case()
        && case
            .config
            .cap
            .as_ref()
            .is_none_or(|c| c.strategy.is_none())
    {
        needs.insert("cap.cuts".into());
    }
    // Sleeps relative to the deadline run on any harness with a deadline, configurable or not
    // (the case's `deadline_ms` is then only the preferred one); absolute sleeps under a
    // configured deadline need it configurable.
    let relative = case.tools.iter().any(|t| has_relative_sleep(&t.behavior));
    if relative {
        needs.insert("deadline".into());
    } else if case.config.deadline_ms.is_some() {
        needs.insert("deadline.configurable".into());
    }
    if faults_an_id(case) {
        needs.insert("call_ids".into());
    }
    // A forged copy of the harness's note is made from the note's declared form.
    if case.tools.iter().any(|t| {
        matches!(crate::case::final_output(&t.behavior),
            Some(harness_conformance_protocol::Output::Generate(g)) if has_note_copy(g))
    }) {
        needs.insert("cap.note".into());
    }
    // A forged wrapper marker is made from the wrapper's declared markers.
    if case.tools.iter().any(|t| {
        matches!(crate::case::final_output(&t.behavior),
            Some(harness_conformance_protocol::Output::Generate(g)) if has_wrapper_copy(g))
    }) {
        needs.insert("wrapper".into());
    }
    for tool in &case.tools {
        if tool.output_schema.is_some() {
            needs.insert("behavior.output_schema".to_owned());
        }
        if let Some(b) = crate::case::final_output(&tool.behavior).and_then(|o| o.behavior_need()) {
            needs.insert(format!("behavior.{b}"));
        }
        if let Some(f) = crate::case::final_output(&tool.behavior).and_then(|o| o.feature_need()) {
            needs.insert(format!("feature.{f}"));
        }
        if let Some(o) = crate::case::final_output(&tool.behavior) {
            needs.extend(o.block_needs().map(|b| format!("behavior.{b}")));
        }
    }
    for tool in &case.tools {
        for kw in schema_keywords(&tool.input_schema) {
            needs.insert(format!("keyword.{kw}"));
        }
    }
    // A turn that offers only some of its tools.
    if case.offered.is_some() {
        needs.insert("feature.offered-tools".into());
    }
    // A turn whose stop reason matters.
    if case.stop_reason.is_some() {
        needs.insert("feature.stop-reason".into());
    }
    // A turn the user cancels while its handlers run.
    if case.cancel_after_ms.is_some() {
        needs.insert("feature.cancel".into());
    }
    // A harness told how much room is left in the model's context window.
    if case
        .config
        .cap
        .as_ref()
        .is_some_and(|c| c.remaining.is_some())
    {
        needs.insert("feature.context-cap".into());
    }
    // A harness configured with a provider's image limits.
    if case.config.image_limit.is_some() {
        needs.insert("feature.image-limits".into());
    }
    // A turn sent to a harness with parallel tool calls disabled.
    if case.parallel_calls == Some(false) {
        needs.insert("feature.serial-calls".into());
    }
    // A turn resumed from a saved transcript.
    if case.resume.is_some() {
        needs.insert("feature.resume".into());
    }
    // Turns of named sessions whose spilled artifacts are followed.
    if case.spill_lifecycle.is_some() {
        needs.insert("feature.spill-lifecycle".into());
    }
    // Calls that pause for the user's decision.
    if case.pause.is_some() {
        needs.insert("feature.pause".into());
    }
    // The security features a case's fields imply (`context`, `policy`, `idempotency_key`, …).
    for feature in harness_conformance_protocol::implied_features_of(
        case.security.as_deref(),
        &case.tools,
        &case.calls,
        case.context.as_deref(),
    ) {
        needs.insert(format!("feature.{feature}"));
    }
    needs.into_iter().collect()
}

/// Whether the case's fault is about ids: some structured call has an id that is missing, not a
/// string or empty, or two calls share one. Such a case judges whoever pairs results with the
/// model's ids, so it needs a harness that sees them (`call_ids`); raw blocks are left out (their
/// id is inside text the harness must parse, and MCP servers, which lack ids, cannot take them).
fn faults_an_id(case: &Case) -> bool {
    let mut seen = BTreeSet::new();
    case.calls.iter().any(|call| match call {
        harness_conformance_protocol::Call::Block(map) => match map.get("id") {
            Some(Value::String(id)) => id.is_empty() || !seen.insert(id.as_str()),
            _ => true,
        },
        harness_conformance_protocol::Call::Raw(_) => false,
    })
}

fn has_note_copy(g: &harness_conformance_protocol::Gen) -> bool {
    use harness_conformance_protocol::Gen;
    match g {
        Gen::NoteCopy { .. } => true,
        Gen::Concat { concat } => concat.iter().any(has_note_copy),
        Gen::Text { .. } | Gen::Repeat { .. } | Gen::Lines { .. } | Gen::WrapperCopy { .. } => {
            false
        }
    }
}

fn has_wrapper_copy(g: &harness_conformance_protocol::Gen) -> bool {
    use harness_conformance_protocol::Gen;
    match g {
        Gen::WrapperCopy { .. } => true,
        Gen::Concat { concat } => concat.iter().any(has_wrapper_copy),
        Gen::Text { .. } | Gen::Repeat { .. } | Gen::Lines { .. } | Gen::NoteCopy { .. } => false,
    }
}

fn has_relative_sleep(b: &Behavior) -> bool {
    match b {
        Behavior::Sleep { sleep_ms, then } => {
            matches!(sleep_ms, SleepMs::Relative { .. }) || has_relative_sleep(then)
        }
        Behavior::MutateArgs { then, .. } => has_relative_sleep(then),
        // A stream's waits relative to the deadline.
        Behavior::Return {
            output: Output::Stream(parts),
        } => parts
            .iter()
            .any(|p| matches!(p, StreamPart::SleepMs(SleepMs::Relative { .. }))),
        Behavior::Return { .. } | Behavior::Raise { .. } => false,
    }
}

/// The cap designs a harness opts into, beside cutting by head and tail or head only: rejecting
/// or spilling an over-limit output, counting lines. Their cases judge that design, so a harness
/// without a cap skips them (and their requirements are NOT APPLICABLE for it) instead of failing
/// a strategy it never declared.
const OPTIONAL_CAP_DESIGNS: [&str; 6] = [
    "cap.strategy.reject",
    "cap.strategy.spill",
    "cap.unit.lines",
    "cap.unit.tokens",
    "cap.note",
    "cap.spill.bound",
];

/// Whether the harness declares `need`. Cap needs always hold for a harness without a cap
/// (the case runs and fails instead; see the module doc) — except the optional strategies and
/// unit ([`OPTIONAL_CAP_DESIGNS`]): a harness without a cap has not chosen them, and its missing
/// cap already fails CAP-1 on the cases every cap must pass.
pub fn declared(need: &str, caps: &Capabilities) -> bool {
    let cap = caps.cap.as_ref();
    match need {
        _ if cap.is_none() && OPTIONAL_CAP_DESIGNS.contains(&need) => false,
        _ if need.starts_with("cap.") && cap.is_none() => true,
        "cap.configurable" => cap.is_some_and(|c| c.configurable),
        "cap.unit.bytes" => cap.is_some_and(|c| c.unit == Unit::Bytes || c.configurable),
        "cap.unit.chars" => cap.is_some_and(|c| c.unit == Unit::Chars || c.configurable),
        "cap.strategy.head_only" => strategy(caps, Strategy::HeadOnly),
        "cap.strategy.head_tail" => strategy(caps, Strategy::HeadTail),
        "cap.strategy.reject" => strategy(caps, Strategy::Reject),
        "cap.strategy.spill" => strategy(caps, Strategy::Spill),
        // Lines are never implied by a configurable cap: a harness lists them in `units`.
        "cap.unit.lines" => cap.is_some_and(|c| {
            c.unit == Unit::Lines || (c.configurable && c.units.contains(&Unit::Lines))
        }),
        // Tokens likewise, and only with an estimator the suite can apply.
        "cap.unit.tokens" => cap.is_some_and(|c| {
            (c.unit == Unit::Tokens || (c.configurable && c.units.contains(&Unit::Tokens)))
                && c.estimator.is_some_and(|e| e.validate().is_ok())
        }),
        "cap.cuts" => cap.is_some_and(|c| c.strategies.first().is_none_or(|s| s.cuts())),
        "cap.note" => cap.is_some_and(|c| c.note.is_some()),
        "cap.spill.bound" => cap.is_some_and(|c| c.spill.as_ref().is_some_and(|s| s.is_bounded())),
        "codes" => caps.codes.is_some(),
        "retryability" => caps.retryability,
        "deadline" => caps
            .deadline
            .as_ref()
            .is_some_and(|d| d.configurable || d.default_ms.is_some()),
        "deadline.configurable" => caps.deadline.as_ref().is_some_and(|d| d.configurable),
        "call_form.arguments_text" => caps
            .call_forms
            .contains(&harness_conformance_protocol::CallForm::ArgumentsText),
        "call_form.raw" => caps
            .call_forms
            .contains(&harness_conformance_protocol::CallForm::Raw),
        "parallel" => caps.parallel,
        "history" => caps.history,
        "call_ids" => caps.call_ids,
        // A model provider whose acceptance rules judge the results (SPEC.md REPLAY-1).
        "dialect" => caps.dialect.is_some(),
        "wrapper" => caps.wrapper.is_some(),
        _ => {
            if let Some(f) = need.strip_prefix("feature.") {
                caps.features.iter().any(|x| x == f)
            } else if let Some(b) = need.strip_prefix("behavior.") {
                caps.behaviors.iter().any(|x| x == b)
            } else if let Some(k) = need.strip_prefix("keyword.") {
                caps.keywords.iter().any(|x| x == k)
            } else {
                false
            }
        }
    }
}

fn strategy(caps: &Capabilities, s: Strategy) -> bool {
    caps.cap.as_ref().is_some_and(|c| {
        c.strategies.first() == Some(&s) || (c.configurable && c.strategies.contains(&s))
    })
}

/// The reason to skip `case` on a harness with `caps`, if any need is missing.
pub fn skip_reason(case: &Case, caps: &Capabilities) -> Option<String> {
    if let Some(n) = case.unless.iter().find(|n| declared(n, caps)) {
        return Some(format!(
            "does not apply to a harness that declares `{n}` (the case refuses what it allows)"
        ));
    }
    let missing: Vec<String> = case_needs(case)
        .into_iter()
        .filter(|n| !declared(n, caps))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let (keywords, others): (Vec<_>, Vec<_>) =
        missing.iter().partition(|n| n.starts_with("keyword."));
    let mut parts = Vec::new();
    if !others.is_empty() {
        parts.push(format!(
            "needs {} (not declared by the adapter)",
            others
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !keywords.is_empty() {
        parts.push(format!(
            "uses JSON Schema keyword(s) the adapter cannot express: {}",
            keywords
                .iter()
                .map(|n| format!("`{}`", &n["keyword.".len()..]))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Some(parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_protocol::CapCapability;
    use serde_json::json;

    #[test]
    fn keywords_are_found_in_nested_subschemas_but_not_in_property_names() {
        let kws = schema_keywords(&json!({
            "type": "object",
            "title": "ignored annotation",
            "properties": {"minimum": {"type": "array", "items": {"pattern": "^a"}},
                           "b": {"anyOf": [{"const": 1}, {"enum": [2]}]}},
            "additionalProperties": false,
            "required": ["minimum"]
        }));
        let got: Vec<&str> = kws.iter().map(String::as_str).collect();
        assert_eq!(
            got,
            vec![
                "additionalProperties",
                "anyOf",
                "const",
                "enum",
                "items",
                "pattern",
                "properties",
                "required",
                "type"
            ]
        );
    }

    #[test]
    fn declared_follows_the_capabilities() {
        let mut caps = Capabilities::default();
        assert!(
            declared("cap.configurable", &caps),
            "no cap: cap cases run and fail"
        );
        caps.cap = Some(CapCapability {
            unit: Unit::Bytes,
            limit: 100,
            configurable: false,
            strategies: vec![Strategy::HeadTail],
            units: Vec::new(),
            note: None,
            spill: None,
            estimator: None,
        });
        assert!(!declared("cap.configurable", &caps));
        assert!(declared("cap.unit.bytes", &caps));
        assert!(!declared("cap.unit.chars", &caps));
        assert!(declared("cap.strategy.head_tail", &caps));
        assert!(!declared("cap.strategy.head_only", &caps));
        assert!(!declared("codes", &caps));
        caps.keywords = vec!["type".into()];
        assert!(declared("keyword.type", &caps));
        assert!(!declared("keyword.pattern", &caps));
        assert!(is_known("feature.authorization"));
        assert!(!is_known("feature."));
        assert!(!is_known("feature.authorisation"));
        assert!(is_known("behavior.non_finite_in") && !is_known("behavior.cycles"));
        assert!(is_known("cap.unit.lines") && is_known("cap.unit.tokens"));
        assert!(!is_known("cap.unit.words"));
    }

    #[test]
    fn strategy_and_lines_needs_are_declared_explicitly() {
        let cap = |unit, configurable, strategies: Vec<Strategy>, units: Vec<Unit>| Capabilities {
            cap: Some(CapCapability {
                unit,
                limit: 100,
                configurable,
                strategies,
                units,
                note: None,
                spill: None,
                estimator: None,
            }),
            ..Capabilities::default()
        };
        use Strategy::{HeadOnly, HeadTail, Reject, Spill};
        // (capabilities, need, declared)
        let table = [
            (
                cap(Unit::Bytes, true, vec![HeadTail], vec![]),
                "cap.unit.lines",
                false,
            ),
            (
                cap(Unit::Bytes, true, vec![HeadTail], vec![Unit::Lines]),
                "cap.unit.lines",
                true,
            ),
            (
                cap(Unit::Lines, false, vec![HeadTail], vec![]),
                "cap.unit.lines",
                true,
            ),
            (
                cap(Unit::Bytes, false, vec![HeadTail, Reject], vec![]),
                "cap.strategy.reject",
                false,
            ),
            (
                cap(Unit::Bytes, true, vec![HeadTail, Reject], vec![]),
                "cap.strategy.reject",
                true,
            ),
            (
                cap(Unit::Bytes, false, vec![Spill], vec![]),
                "cap.strategy.spill",
                true,
            ),
            (
                cap(Unit::Bytes, false, vec![HeadOnly], vec![]),
                "cap.cuts",
                true,
            ),
            (
                cap(Unit::Bytes, true, vec![Reject, HeadTail], vec![]),
                "cap.cuts",
                false,
            ),
            (
                cap(Unit::Bytes, false, vec![Spill], vec![]),
                "cap.cuts",
                false,
            ),
            (Capabilities::default(), "cap.cuts", true),
            // No cap: the cases every cap must pass run (and fail); the optional designs skip.
            (Capabilities::default(), "cap.strategy.head_tail", true),
            (Capabilities::default(), "cap.strategy.reject", false),
            (Capabilities::default(), "cap.strategy.spill", false),
            (Capabilities::default(), "cap.unit.lines", false),
        ];
        for (caps, need, want) in table {
            assert_eq!(declared(need, &caps), want, "{need} on {:?}", caps.cap);
        }
    }
}
