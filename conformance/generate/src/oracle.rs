//! The oracle: what a generated case requires of any harness, decided from the case alone.
//!
//! Two rules keep a finding honest (the trap Schemathesis users know: a shrunk "invalid" input
//! that was valid all along):
//! - **validity is the reference's verdict**, never the generator's intent: every argument set
//!   is judged by harness-ref's own schema validation ([`harness_ref::InputSchema`]) under both
//!   unknown-field policies, and cross-checked by the fuzz helper's independent checker
//!   ([`harness_ref_props::schema::satisfies`]); when they disagree, or the verdict depends on a
//!   policy the suite leaves to the harness, the call is *ambiguous* and nothing is expected of
//!   it beyond the universal checks;
//! - **expectations are recomputed from scratch** for every model, generated or shrunk: nothing
//!   computed for the original case is carried over to a smaller one.
//!
//! The expectations are [`Item`]s, each tagged with the SPEC.md requirements it tests, and
//! written in the case file's own vocabulary, so the runner's checks ([`harness_conformance_suite::checks`]) judge
//! them and the case file a finding is written as fails in `run --case-file` for the same
//! reason it failed here.

use std::collections::BTreeSet;

use harness_conformance_protocol::{
    materialize, measure, resolve_case, Behavior, Capabilities, Output, RaiseKind, Strategy,
};
use harness_ref::{InputSchema, UnknownFields};
use harness_ref_props::schema::{satisfies, Policy};
use serde_json::Value;

use super::model::{CallModel, Input, Model};
use harness_conformance_suite::case::{
    CapExpect, Case, Classes, ContentExpect, Expect, IdExpect, ReceivedArgs, ResultExpect,
};
use harness_conformance_suite::checks::{self, EffectiveCap};

/// The reference's verdict on `args` for `schema`: `Some(valid)` when both unknown-field
/// policies agree, `None` when they differ or the schema does not compile.
pub fn reference_valid(schema: &Value, args: &Value) -> Option<bool> {
    let reject = InputSchema::compile(schema, UnknownFields::Reject).ok()?;
    let allow = InputSchema::compile(schema, UnknownFields::Allow).ok()?;
    let (a, b) = (reject.is_valid(args), allow.is_valid(args));
    (a == b).then_some(a)
}

/// What must happen to one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Refused before anything runs: each defect is the requirement that refuses it.
    Refused {
        /// The requirement ids of the call's defects (`CORR-4`, `CALL-1`, …).
        defects: Vec<&'static str>,
        /// The outcome class, when exactly one defect makes it unambiguous.
        class: Option<&'static str>,
        /// A tool a folding harness would wrongly find for an unknown name.
        folds_to: Option<String>,
    },
    /// The reference refuses the arguments.
    Invalid {
        /// The tool.
        tool: String,
        /// The reference's violations (pointer, keyword).
        violations: Vec<(String, String)>,
    },
    /// The reference accepts the arguments: the handler runs exactly once with them.
    Valid {
        /// The tool.
        tool: String,
        /// The arguments as sent.
        args: Value,
    },
    /// Nothing beyond the universal checks is expected: the verdict depends on a policy the
    /// suite leaves open, the validators disagree, or the call is the first of a reused id.
    Ambiguous {
        /// The tool, if the call names one.
        tool: Option<String>,
        /// Why.
        why: &'static str,
    },
}

/// Whether `v` holds a number a harness need not represent exactly (SPEC.md leaves exact
/// integers beyond 2^53 out, and a double cannot hold them).
fn has_huge_number(v: &Value) -> bool {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    match v {
        Value::Number(n) => {
            n.as_u64().is_some_and(|u| u > 1 << 53)
                || n.as_i64().is_some_and(|i| i < -(1 << 53))
                || n.as_f64().is_some_and(|f| f.abs() > LIMIT)
        }
        Value::Array(xs) => xs.iter().any(has_huge_number),
        Value::Object(m) => m.values().any(has_huge_number),
        _ => false,
    }
}

/// Whether `v` holds a number that is not an integer literal.
fn has_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.is_f64(),
        Value::Array(xs) => xs.iter().any(has_float),
        Value::Object(m) => m.values().any(has_float),
        _ => false,
    }
}

fn fold(name: &str) -> String {
    name.trim().to_lowercase().replace('-', "_")
}

/// The fate of every call, and how many argument sets the two validators disagreed on.
pub fn fates(model: &Model) -> (Vec<Fate>, usize) {
    let mut disagreements = 0;
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let ids: Vec<Option<&str>> = model.calls.iter().map(CallModel::id_str).collect();
    let mut out = Vec::new();
    for (i, call) in model.calls.iter().enumerate() {
        let CallModel::Block { id, name, input } = call else {
            out.push(Fate::Refused {
                defects: vec!["CALL-6"],
                class: Some("malformed_call"),
                folds_to: None,
            });
            continue;
        };
        let mut defects: Vec<(&'static str, &'static str)> = Vec::new();
        let mut first_of_duplicate = false;
        match id.as_ref().and_then(Value::as_str) {
            None | Some("") => defects.push(("CORR-4", "malformed_call")),
            Some(s) => {
                if !seen.insert(s) {
                    defects.push(("CORR-5", "duplicate_call_id"));
                } else if ids[i + 1..].contains(&Some(s)) {
                    first_of_duplicate = true;
                }
            }
        }
        let mut folds_to = None;
        let tool = match name.as_deref() {
            None => {
                defects.push(("CALL-7", "malformed_call"));
                None
            }
            Some("") => {
                defects.push(("CALL-7", "malformed_call"));
                None
            }
            Some(n) if n.trim().is_empty() => {
                // A blank name: malformed to some harnesses, an unknown tool to others (the
                // class table names only missing and empty names), so no class is expected.
                defects.push(("CALL-7", "malformed_call"));
                defects.push(("CALL-1", "unknown_tool"));
                None
            }
            Some(n) => match model.tool(n) {
                // A registered tool the turn did not offer is refused like an unknown one.
                Some(_) if !model.offers(n) => {
                    defects.push(("TURN-1", "unknown_tool"));
                    None
                }
                Some(t) => Some(t),
                None => {
                    folds_to = model
                        .tools
                        .iter()
                        .find(|t| fold(&t.name) == fold(n))
                        .map(|t| t.name.clone());
                    defects.push(("CALL-1", "unknown_tool"));
                    if folds_to.is_some() {
                        defects.push(("CALL-3", "unknown_tool"));
                    }
                    None
                }
            },
        };
        let args = match input {
            Input::Value(v @ Value::Object(_)) => Some(v.clone()),
            Input::Value(_) => {
                defects.push(("CALL-4", "malformed_call"));
                None
            }
            Input::Text(t) => match serde_json::from_str::<Value>(t) {
                Ok(v @ Value::Object(_)) => Some(v),
                _ => {
                    defects.push(("CALL-5", "malformed_call"));
                    None
                }
            },
        };
        // The call the output limit cut off never runs, whatever error it gets (no class).
        let cut_off = model.cut_off(i);
        if cut_off {
            defects.push(("CUT-1", ""));
        }
        if !defects.is_empty() {
            let classes: BTreeSet<&str> = defects.iter().map(|d| d.1).collect();
            let unambiguous =
                !cut_off && (defects.len() == 1 || (classes.len() == 1 && folds_to.is_some()));
            out.push(Fate::Refused {
                defects: defects.iter().map(|d| d.0).collect(),
                class: unambiguous.then(|| defects[0].1),
                folds_to,
            });
            continue;
        }
        let (tool, args) = (tool.expect("no defect"), args.expect("no defect"));
        if first_of_duplicate {
            out.push(Fate::Ambiguous {
                tool: Some(tool.name.clone()),
                why: "first call of a reused id",
            });
            continue;
        }
        if has_huge_number(&args) {
            out.push(Fate::Ambiguous {
                tool: Some(tool.name.clone()),
                why: "a number beyond 2^53 (exactness not required)",
            });
            continue;
        }
        let schema = tool.schema_json();
        let reference = reference_valid(&schema, &args);
        let independent = (
            satisfies(&tool.schema, &args, Policy::Reject),
            satisfies(&tool.schema, &args, Policy::Allow),
        );
        let fate = match reference {
            Some(v) if independent == (v, v) => {
                if v {
                    Fate::Valid {
                        tool: tool.name.clone(),
                        args,
                    }
                } else {
                    let violations = InputSchema::compile(&schema, UnknownFields::Allow)
                        .map(|s| {
                            s.violations(&args)
                                .into_iter()
                                .map(|v| (v.pointer, v.keyword))
                                .collect()
                        })
                        .unwrap_or_default();
                    Fate::Invalid {
                        tool: tool.name.clone(),
                        violations,
                    }
                }
            }
            Some(_) => {
                disagreements += 1;
                Fate::Ambiguous {
                    tool: Some(tool.name.clone()),
                    why: "the reference and the independent checker disagree",
                }
            }
            None if independent.0 != independent.1 => Fate::Ambiguous {
                tool: Some(tool.name.clone()),
                why: "valid or not depends on the unknown-fields policy",
            },
            None => {
                disagreements += 1;
                Fate::Ambiguous {
                    tool: Some(tool.name.clone()),
                    why: "the reference's two policies disagree",
                }
            }
        };
        out.push(fate);
    }
    (out, disagreements)
}

/// One expectation, tagged with the requirements it tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The SPEC.md requirement ids.
    pub reqs: Vec<&'static str>,
    /// The expectation.
    pub kind: ItemKind,
}

/// An expectation in the case file's vocabulary.
// A result expectation is most of what a case holds and items live only while one case is
// judged, so its size is not worth a box at every construction and match.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// Fields of one call's result (its `tool_use_id` left unchecked: ids are universal).
    Result(usize, ResultExpect),
    /// A tool's exact handler run count. `over` are the requirements broken by running it
    /// more often, `under` by running it less.
    Invocations {
        /// The tool.
        tool: String,
        /// The count.
        count: u64,
        /// Broken when it ran more often.
        over: Vec<&'static str>,
        /// Broken when it ran less often.
        under: Vec<&'static str>,
    },
    /// What the only handler run received.
    ReceivedArgs(Vec<ReceivedArgs>),
    /// The transcript keeps the calls as sent.
    History,
}

/// The final output of a behaviour.
fn final_behavior(b: &Behavior) -> &Behavior {
    match b {
        Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => final_behavior(then),
        other => other,
    }
}

fn sleeps_past(b: &Behavior, deadline: Option<u64>) -> bool {
    fn total(b: &Behavior) -> u64 {
        match b {
            Behavior::Sleep { sleep_ms, then } => {
                sleep_ms.exact().unwrap_or(0).saturating_add(total(then))
            }
            Behavior::MutateArgs { then, .. } => total(then),
            _ => 0,
        }
    }
    deadline.is_some_and(|d| total(b) > d.saturating_mul(4))
}

/// The wire case a model becomes (expectations empty), for the runner's cap and size logic.
pub fn bare_case(model: &Model, id: &str) -> Case {
    let tools: Vec<Value> = model
        .tools
        .iter()
        .map(|t| serde_json::to_value(t.to_tool()).expect("tools serialize"))
        .collect();
    let calls: Vec<Value> = model
        .calls
        .iter()
        .map(|c| serde_json::to_value(c.to_call()).expect("calls serialize"))
        .collect();
    // Decoded rather than built, so fields added to the case format later take their defaults.
    let mut case: Case = serde_json::from_value(serde_json::json!({
        "id": id,
        "requirements": ["CORR-1"],
        "description": "generated",
        "config": serde_json::to_value(model.config()).expect("configs serialize"),
        "tools": tools,
        "calls": calls,
        "expect": {"results": []},
    }))
    .expect("a generated case decodes");
    case.offered = model.offered.clone();
    case.stop_reason = model.stop_reason;
    case.expect = expect_of(model.calls.len(), &[], true);
    case
}

fn result(index: usize, f: impl FnOnce(&mut ResultExpect)) -> ItemKind {
    let mut r = ResultExpect {
        tool_use_id: IdExpect::Unchecked,
        ..ResultExpect::default()
    };
    f(&mut r);
    ItemKind::Result(index, r)
}

fn item(reqs: &[&'static str], kind: ItemKind) -> Item {
    Item {
        reqs: reqs.to_vec(),
        kind,
    }
}

/// Every expectation of a model on a harness with `caps`. `Err` when the model cannot be
/// expanded (a size that does not resolve), which the generator avoids.
pub fn items(model: &Model, fates: &[Fate], caps: &Capabilities) -> Result<Vec<Item>, String> {
    for t in &model.tools {
        InputSchema::compile(&t.schema_json(), UnknownFields::Allow)
            .map_err(|e| format!("tool {:?}: the reference refuses its schema: {e}", t.name))?;
    }
    let case = bare_case(model, "fuzz/x");
    let cap = checks::effective_cap(&case, caps);
    let mut wire = case.wire();
    resolve_case(&mut wire, cap.limit).map_err(|e| e.to_string())?;
    let codes = caps.codes.is_some();
    let retry = caps.retryability;
    let mut out: Vec<Item> = Vec::new();
    let class_item = |out: &mut Vec<Item>, i: usize, class: &str| {
        if codes {
            let class = class.to_owned();
            out.push(item(
                &["OUT-7"],
                result(i, |r| r.class = Some(Classes(vec![class]))),
            ));
        }
    };
    let retry_item = |out: &mut Vec<Item>, i: usize, want: bool| {
        if retry {
            out.push(item(&["OUT-6"], result(i, |r| r.retryable = Some(want))));
        }
    };
    for (i, fate) in fates.iter().enumerate() {
        match fate {
            Fate::Refused { defects, class, .. } => {
                out.push(item(&[defects[0]], result(i, |r| r.is_error = Some(true))));
                if let Some(c) = class {
                    class_item(&mut out, i, c);
                }
                retry_item(&mut out, i, false);
            }
            Fate::Invalid { tool, violations } => {
                out.push(item(&["VAL-2"], result(i, |r| r.is_error = Some(true))));
                class_item(&mut out, i, "invalid_arguments");
                retry_item(&mut out, i, false);
                let t = model.tool(tool).expect("an invalid call names a tool");
                if let Some(marker) = &t.marker {
                    let marker = marker.clone();
                    out.push(item(
                        &["TEACH-7"],
                        result(i, |r| {
                            r.content = Some(ContentExpect {
                                not_contains: vec![marker],
                                ..ContentExpect::default()
                            })
                        }),
                    ));
                }
                if !super::strategy::has_composition(&t.schema) {
                    // Only for short messages: few violations and room under the cap,
                    // so no correct harness has to cut a name out of its message.
                    let names = named_properties(violations);
                    let short = violations.len() <= 3 && cap.limit >= 1000;
                    if short && !names.is_empty() {
                        let reqs: &[&'static str] = if names.len() > 1 {
                            &["TEACH-2"]
                        } else {
                            &["TEACH-1"]
                        };
                        out.push(item(
                            reqs,
                            result(i, |r| {
                                r.content = Some(ContentExpect {
                                    contains: names,
                                    ..ContentExpect::default()
                                })
                            }),
                        ));
                    }
                }
            }
            Fate::Valid { tool, .. } => {
                let t = wire
                    .tools
                    .iter()
                    .find(|t| &t.name == tool)
                    .expect("a valid call names a tool");
                valid_items(
                    &mut out,
                    i,
                    &t.behavior,
                    model.deadline_ms,
                    &cap,
                    retry,
                    codes,
                )?;
            }
            Fate::Ambiguous { .. } => {}
        }
    }
    invocation_items(model, fates, &mut out);
    if caps.history
        && fates.iter().any(|f| {
            matches!(f, Fate::Valid { tool, .. }
            if matches!(model.tool(tool).map(|t| &t.behavior), Some(Behavior::MutateArgs { .. })))
        })
    {
        let deep = model.tools.iter().any(|t| t.shape == "mutates-nested-args");
        out.push(item(
            if deep { &["ISO-2"] } else { &["ISO-1"] },
            ItemKind::History,
        ));
    }
    Ok(out)
}

/// Top-level property names the reference's violations point at, when they are distinctive
/// words a message naming them must contain.
fn named_properties(violations: &[(String, String)]) -> Vec<String> {
    let simple = [
        "type",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
    ];
    let mut names: Vec<String> = Vec::new();
    for (pointer, keyword) in violations {
        if !simple.contains(&keyword.as_str()) {
            return Vec::new();
        }
        let Some(name) = pointer.strip_prefix('/') else {
            continue;
        };
        let word = name.len() >= 4 && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        if word && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

#[allow(clippy::too_many_arguments)]
fn valid_items(
    out: &mut Vec<Item>,
    i: usize,
    behavior: &Behavior,
    deadline: Option<u64>,
    cap: &EffectiveCap,
    retry: bool,
    codes: bool,
) -> Result<(), String> {
    let push_class = |out: &mut Vec<Item>, class: &str| {
        if codes {
            let class = class.to_owned();
            out.push(item(
                &["OUT-7"],
                result(i, |r| r.class = Some(Classes(vec![class]))),
            ));
        }
    };
    let push_retry = |out: &mut Vec<Item>, want: bool| {
        if retry {
            out.push(item(&["OUT-6"], result(i, |r| r.retryable = Some(want))));
        }
    };
    if sleeps_past(behavior, deadline) {
        out.push(item(&["OUT-4"], result(i, |r| r.is_error = Some(true))));
        push_class(out, "timeout");
        push_retry(out, true);
        return Ok(());
    }
    match final_behavior(behavior) {
        Behavior::Raise { raise } => {
            out.push(item(
                &[match raise.kind {
                    RaiseKind::Domain => "OUT-2",
                    RaiseKind::Transport => "OUT-3",
                    RaiseKind::Internal => "OUT-5",
                }],
                result(i, |r| r.is_error = Some(true)),
            ));
            let (class, retryable) = match raise.kind {
                RaiseKind::Domain => ("tool_refused", false),
                RaiseKind::Transport => ("tool_unavailable", true),
                RaiseKind::Internal => ("internal_error", false),
            };
            push_class(out, class);
            push_retry(out, retryable);
            if raise.kind == RaiseKind::Domain {
                let message = raise.message.clone();
                out.push(item(
                    &["OUT-2"],
                    result(i, |r| {
                        r.content = Some(ContentExpect {
                            contains: vec![message],
                            ..ContentExpect::default()
                        })
                    }),
                ));
            }
        }
        Behavior::Return { output } => match output {
            Output::NonFinite(_) | Output::NonFiniteIn(_) => {
                out.push(item(&["VOCAB-1"], result(i, |r| r.is_error = Some(true))));
                push_class(out, "invalid_tool_output");
            }
            // Refused or converted faithfully: both are correct (SPEC.md VOCAB-5).
            Output::NonJson(_) => {
                out.push(item(
                    &["VOCAB-5"],
                    result(i, |r| r.represents_output = true),
                ));
            }
            Output::Json(_) | Output::EchoArgs(_) => {
                out.push(item(&["OUT-1"], result(i, |r| r.is_error = Some(false))));
            }
            // Delivered or refused visibly: both are correct (SPEC.md BLOCK-1); the generator
            // writes no block outputs yet.
            Output::ContentBlocks(_) | Output::McpResult(_) => {}
            // The generator writes no streamed outputs yet (their timing needs a deadline).
            Output::Stream(_) => {}
            Output::Text(_) | Output::Generate(_) => {
                out.push(item(&["OUT-1"], result(i, |r| r.is_error = Some(false))));
                let text = match output {
                    Output::Text(t) => t.clone(),
                    Output::Generate(g) => materialize(g, cap.unit).map_err(|e| e.to_string())?,
                    _ => unreachable!("matched above"),
                };
                cap_items(out, i, &text, cap);
            }
        },
        _ => {}
    }
    Ok(())
}

fn cap_items(out: &mut Vec<Item>, i: usize, o: &str, cap: &EffectiveCap) {
    if !cap.declared || o.is_empty() {
        return;
    }
    let size = measure(o, cap.unit);
    // An output of white space alone is kept whole, but a harness whose provider refuses a
    // text block of white space alone adds words beside it (SPEC.md REPLAY-1): it holds the
    // output, rather than equals it.
    if size <= cap.limit && o.trim().is_empty() {
        let whole = o.to_owned();
        out.push(item(
            &["ENC-3"],
            result(i, |r| {
                r.content = Some(ContentExpect {
                    contains: vec![whole],
                    ..ContentExpect::default()
                })
            }),
        ));
        return;
    }
    if size <= cap.limit {
        let edgy = o.contains('\r') || o.contains('\u{feff}') || o.trim() != o;
        let reqs: &[&'static str] = if edgy {
            &["ENC-3"]
        } else {
            &["CAP-2", "ENC-2"]
        };
        out.push(item(
            reqs,
            result(i, |r| {
                r.cap = Some(CapExpect {
                    truncated: Some(false),
                    ..CapExpect::default()
                })
            }),
        ));
        return;
    }
    let flag = |f: fn(&mut CapExpect)| {
        let mut c = CapExpect::default();
        f(&mut c);
        c
    };
    out.push(item(
        &["CAP-5"],
        result(i, |r| r.cap = Some(flag(|c| c.truncated = Some(true)))),
    ));
    out.push(item(
        &["CAP-10"],
        result(i, |r| r.cap = Some(flag(|c| c.keeps_head = true))),
    ));
    // The note's numbers presuppose a note: the check comes with `truncated: true` (the loader
    // refuses one without the other).
    out.push(item(
        &["CAP-6", "CAP-5"],
        result(i, |r| {
            r.cap = Some(flag(|c| {
                c.truncated = Some(true);
                c.note_counts = true;
            }))
        }),
    ));
    out.push(item(
        &["CAP-7"],
        result(i, |r| r.cap = Some(flag(|c| c.idempotent = true))),
    ));
    let last = o.rsplit('\n').next().unwrap_or("");
    if cap.strategy == Strategy::HeadTail
        && o.contains('\n')
        && measure(last, cap.unit) <= cap.limit / 10
    {
        out.push(item(
            &["HT-2"],
            result(i, |r| r.cap = Some(flag(|c| c.keeps_last_line = true))),
        ));
    }
}

/// Handler run counts, for every tool whose count the case determines.
fn invocation_items(model: &Model, fates: &[Fate], out: &mut Vec<Item>) {
    let mut total_runs = 0u64;
    let mut all_determined = true;
    let mut single: Option<ReceivedArgs> = None;
    for tool in &model.tools {
        let mut count = 0u64;
        let mut over: BTreeSet<&'static str> = BTreeSet::new();
        let mut determined = true;
        // A timed-out run may be retried by the harness; a transport failure may not (ONCE-1:
        // its effect may have happened), so its run count is determined.
        let retryable = sleeps_past(&tool.behavior, model.deadline_ms);
        let transport = !retryable
            && matches!(final_behavior(&tool.behavior), Behavior::Raise { raise } if raise.kind == RaiseKind::Transport);
        let raises = matches!(final_behavior(&tool.behavior), Behavior::Raise { .. });
        for (call, fate) in model.calls.iter().zip(fates) {
            let named = call.name() == Some(tool.name.as_str());
            match fate {
                Fate::Refused {
                    defects, folds_to, ..
                } => {
                    if named {
                        over.insert(defects[0]);
                    }
                    if folds_to.as_deref() == Some(tool.name.as_str()) {
                        over.insert("CALL-3");
                    }
                }
                Fate::Invalid { tool: t, .. } if *t == tool.name => {
                    over.insert("VAL-1");
                }
                Fate::Valid { tool: t, args } if *t == tool.name => {
                    count += 1;
                    if retryable {
                        determined = false;
                    }
                    if raises {
                        over.insert(if transport { "ONCE-1" } else { "OUT-8" });
                    }
                    single = Some(ReceivedArgs {
                        tool: t.clone(),
                        args: args.clone(),
                    });
                }
                Fate::Ambiguous { tool: Some(t), .. } if *t == tool.name => determined = false,
                _ => {}
            }
        }
        if !determined {
            all_determined = false;
            continue;
        }
        total_runs += count;
        let under: Vec<&'static str> = if count > 0 { vec!["VAL-7"] } else { Vec::new() };
        if over.is_empty() && under.is_empty() {
            continue;
        }
        let over: Vec<&'static str> = over.into_iter().collect();
        let mut reqs = over.clone();
        reqs.extend(&under);
        out.push(Item {
            reqs,
            kind: ItemKind::Invocations {
                tool: tool.name.clone(),
                count,
                over,
                under,
            },
        });
    }
    if all_determined && total_runs == 1 {
        // Only when the arguments hold no float: `-0.0` and `1.0` reach a JavaScript or
        // Python handler as `0` and `1`, the same numbers in another spelling.
        if let Some(r) = single.filter(|r| !has_float(&r.args)) {
            out.push(item(&["VAL-7"], ItemKind::ReceivedArgs(vec![r])));
        }
    }
}

/// Merges the items into one `expect`, over results whose ids are checked as usual.
pub fn expect_of(n_calls: usize, items: &[&Item], ids_checked: bool) -> Expect {
    let id = if ids_checked {
        IdExpect::CallId
    } else {
        IdExpect::Unchecked
    };
    let mut e: Expect = serde_json::from_value(serde_json::json!({"results": []}))
        .expect("an empty expect decodes");
    e.results = vec![
        ResultExpect {
            tool_use_id: id,
            ..ResultExpect::default()
        };
        n_calls
    ];
    for it in items {
        match &it.kind {
            ItemKind::Result(i, r) => {
                let t = &mut e.results[*i];
                t.is_error = r.is_error.or(t.is_error);
                t.class = r.class.clone().or(t.class.take());
                t.retryable = r.retryable.or(t.retryable);
                if let Some(c) = &r.content {
                    let tc = t.content.get_or_insert_with(ContentExpect::default);
                    tc.contains.extend(c.contains.iter().cloned());
                    tc.not_contains.extend(c.not_contains.iter().cloned());
                }
                if let Some(c) = &r.cap {
                    let tc = t.cap.get_or_insert_with(CapExpect::default);
                    tc.truncated = c.truncated.or(tc.truncated);
                    tc.keeps_head |= c.keeps_head;
                    tc.keeps_last_line |= c.keeps_last_line;
                    tc.note_counts |= c.note_counts;
                    tc.idempotent |= c.idempotent;
                }
            }
            ItemKind::Invocations { tool, count, .. } => {
                e.invocations.insert(tool.clone(), *count);
            }
            ItemKind::ReceivedArgs(r) => e.received_args = Some(r.clone()),
            ItemKind::History => e.history_unchanged = true,
        }
    }
    e
}

/// An argument set the reference and the independent checker judge differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// The tool's schema.
    pub schema: Value,
    /// The arguments.
    pub args: Value,
    /// The reference's verdict (`None`: its two policies differ).
    pub reference: Option<bool>,
    /// The independent checker's verdict (both policies agree).
    pub independent: bool,
}

/// Every [`Disagreement`] in a model: for investigating the validators themselves.
pub fn disagreements(model: &Model) -> Vec<Disagreement> {
    let mut out = Vec::new();
    for call in &model.calls {
        let (
            Some(tool),
            CallModel::Block {
                input: Input::Value(args @ Value::Object(_)),
                ..
            },
        ) = (call.name().and_then(|n| model.tool(n)), call)
        else {
            continue;
        };
        let reference = reference_valid(&tool.schema_json(), args);
        let i = (
            satisfies(&tool.schema, args, Policy::Reject),
            satisfies(&tool.schema, args, Policy::Allow),
        );
        if i.0 == i.1 && reference != Some(i.0) {
            out.push(Disagreement {
                schema: tool.schema_json(),
                args: args.clone(),
                reference,
                independent: i.0,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolModel;
    use harness_conformance_protocol::Output;
    use harness_ref_props::schema::{Additional, Bounds, ObjectSchema, Schema};
    use serde_json::json;

    fn model(additional: Additional, calls: Vec<CallModel>) -> Model {
        Model {
            cap: None,
            deadline_ms: None,
            offered: None,
            stop_reason: None,
            tools: vec![ToolModel {
                name: "t".into(),
                schema: Schema::Object(ObjectSchema::new(
                    true,
                    vec![("n".into(), Schema::Int(Bounds::default()))],
                    vec!["n".into()],
                    additional,
                )),
                marker: None,
                behavior: Behavior::Return {
                    output: Output::Text("ok".into()),
                },
                shape: "text",
            }],
            calls,
        }
    }

    fn call(id: &str, name: &str, input: Value) -> CallModel {
        CallModel::Block {
            id: Some(Value::from(id)),
            name: Some(name.into()),
            input: Input::Value(input),
        }
    }

    #[test]
    fn validity_is_the_reference_verdict_and_policy_dependence_is_ambiguous() {
        let m = model(
            Additional::Forbid,
            vec![
                call("a", "t", json!({"n": 3})),
                call("b", "t", json!({"n": "3"})),
                call("c", "t", json!({"n": 3, "zulu_extra": 1})),
                call("d", "t", json!({"n": 9_007_199_254_740_993_u64})),
            ],
        );
        let (f, disagreements) = fates(&m);
        assert_eq!(disagreements, 0);
        assert!(matches!(&f[0], Fate::Valid { .. }), "{:?}", f[0]);
        assert!(matches!(&f[1], Fate::Invalid { violations, .. } if violations[0].0 == "/n"));
        assert!(matches!(&f[2], Fate::Invalid { .. }));
        assert!(matches!(&f[3], Fate::Ambiguous { .. }), "beyond 2^53");
        // The same unknown field on an object that states no policy: closed for harness-ref,
        // open for JSON Schema, so nothing is expected.
        let open = model(
            Additional::Absent,
            vec![call("c", "t", json!({"n": 3, "zulu_extra": 1}))],
        );
        assert!(matches!(&fates(&open).0[0], Fate::Ambiguous { .. }));
    }

    #[test]
    fn broken_calls_are_refused_with_the_right_requirement() {
        let m = model(
            Additional::Forbid,
            vec![
                call("a", "t", json!({"n": 1})),
                call("a", "t", json!({"n": 1})),
                call("", "t", json!({"n": 1})),
                call("e", "T", json!({"n": 1})),
                call("f", "t", json!([1])),
                CallModel::Raw("not json".into()),
            ],
        );
        let (f, _) = fates(&m);
        assert!(
            matches!(&f[0], Fate::Ambiguous { .. }),
            "first of a reused id"
        );
        let defects = |x: &Fate| match x {
            Fate::Refused { defects, .. } => defects.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(defects(&f[1]), ["CORR-5"]);
        assert_eq!(defects(&f[2]), ["CORR-4"]);
        assert_eq!(defects(&f[3]), ["CALL-1", "CALL-3"]);
        assert_eq!(defects(&f[4]), ["CALL-4"]);
        assert_eq!(defects(&f[5]), ["CALL-6"]);
        assert!(
            matches!(&f[3], Fate::Refused { folds_to: Some(t), class: Some("unknown_tool"), .. } if t == "t")
        );
    }

    #[test]
    fn expectations_follow_the_fates() {
        let m = model(
            Additional::Forbid,
            vec![
                call("a", "t", json!({"n": 1})),
                call("b", "t", json!({"n": "1"})),
            ],
        );
        let caps = harness_ref_adapter::ReferenceAdapter::new(None)
            .hello()
            .capabilities;
        let (f, _) = fates(&m);
        let items = items(&m, &f, &caps).unwrap();
        // One valid run of `t` (VAL-7) and one invalid call that must not run (VAL-1).
        assert!(items.iter().any(|i| matches!(&i.kind,
            ItemKind::Invocations { tool, count: 1, over, under } if tool == "t" && over == &["VAL-1"] && under == &["VAL-7"])));
        assert!(items.iter().any(|i| i.reqs == ["VAL-2"]
            && matches!(&i.kind, ItemKind::Result(1, r) if r.is_error == Some(true))));
        assert!(items.iter().any(|i| i.reqs == ["OUT-1"]
            && matches!(&i.kind, ItemKind::Result(0, r) if r.is_error == Some(false))));
        assert!(items
            .iter()
            .any(|i| i.reqs.contains(&"CAP-2") && matches!(&i.kind, ItemKind::Result(0, _))));
    }
}
