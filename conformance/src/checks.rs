//! Checks: comparing what a harness returned with what the case expects.
//!
//! Pure functions from (case, capabilities, observation) to findings. Two kinds of findings:
//! a *failure* blames the harness (it broke a requirement), a *bug* blames the case (it asks
//! for something impossible, e.g. `equals_output` on a handler that raises). Every failure
//! message names the result, what was expected, and what the harness returned, quoted and
//! bounded, so a reader never has to rerun the case to see what went wrong.
//!
//! Besides the case's own expectations, every case gets the universal checks (DESIGN.md):
//! one result per call in order with its id; content is valid text; content within the cap in
//! the harness's declared unit; no internal error's secret in any content.
//!
//! The `idempotent` cap check needs a second run of the harness; [`check`] returns it as a
//! [`FollowUp`] for the runner to execute and hand to [`check_follow_up`].

use std::collections::BTreeMap;

use harness_conformance_protocol::{
    materialize, measure, Behavior, Call, Capabilities, Invocation, ObservedResult, Output,
    Strategy, ToolDef, Unit, WireCase,
};
use serde_json::Value;

use crate::case::{final_output, CapExpect, Case, ContentExpect, IdExpect, ResultExpect};
use crate::quote::{quote, quote_json};

/// The cap the harness should apply on this case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveCap {
    /// The limit, in `unit`.
    pub limit: u64,
    /// What the limit counts.
    pub unit: Unit,
    /// How the cut is made.
    pub strategy: Strategy,
    /// False when the harness declared no cap and the nominal one stands in.
    pub declared: bool,
}

/// The nominal cap a harness with `cap: null` is held to on cap cases.
pub const NOMINAL_CAP: u64 = 2000;

/// Slack, in cap units, that `note_counts` allows for note text that equals output text at
/// the seams (a note starting with `\n` after a head that ends just before a `\n`).
pub const NOTE_SLACK: u64 = 8;

/// The case's cap request over the harness's declared cap, or the nominal cap.
pub fn effective_cap(case: &Case, caps: &Capabilities) -> EffectiveCap {
    let req = case.config.cap.clone().unwrap_or_default();
    match &caps.cap {
        Some(c) => EffectiveCap {
            limit: req.limit.unwrap_or(c.limit),
            unit: req.unit.unwrap_or(c.unit),
            strategy: req
                .strategy
                .or_else(|| c.strategies.first().copied())
                .unwrap_or(Strategy::HeadTail),
            declared: true,
        },
        None => EffectiveCap {
            limit: req.limit.unwrap_or(NOMINAL_CAP),
            unit: req.unit.unwrap_or(Unit::Chars),
            strategy: req.strategy.unwrap_or(Strategy::HeadTail),
            declared: false,
        },
    }
}

/// What the adapter reported for a case.
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// The results, in the order the harness produced them.
    pub results: &'a [ObservedResult],
    /// The handler runs.
    pub invocations: &'a [Invocation],
    /// The transcript's calls, when reported.
    pub history: Option<&'a [Value]>,
    /// How many lone surrogate escapes decoding replaced by U+FFFD.
    pub lone_surrogates: usize,
}

/// A second run the `idempotent` check needs.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowUp {
    /// The index of the result whose content is fed back.
    pub result: usize,
    /// That content.
    pub content: String,
    /// The case to run: the call's tool returning `content` as text, and the call alone.
    pub case: WireCase,
}

/// Everything the checks found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// The harness broke a requirement.
    pub failures: Vec<String>,
    /// The case is inconsistent.
    pub bugs: Vec<String>,
    /// Second runs still to do.
    pub follow_ups: Vec<FollowUp>,
}

/// The handler output a call's tool returns, as the runner materialises it.
#[derive(Debug, Clone, PartialEq)]
enum Expected {
    /// A text (`text` or `generate`).
    Text(String),
    /// A JSON value (`json`, `echo_args`).
    Json(Value),
    /// The handler raises, or returns a non-finite float, or the call names no tool.
    None,
}

/// Runs every check of `case` (resolved as `wire`) on `obs`.
pub fn check(case: &Case, wire: &WireCase, caps: &Capabilities, obs: &Observed) -> Findings {
    let mut f = Findings::default();
    let cap = effective_cap(case, caps);
    if !cap.declared && case.is_cap_case() {
        f.failures.push(format!(
            "the harness declares no output cap (`cap: null`); a cap case needs one (held to a nominal {} {})",
            cap.limit,
            cap.unit.as_str()
        ));
    }
    if case.expect.results.len() != case.calls.len() {
        f.bugs.push(format!(
            "`expect.results` has {} entries for {} calls",
            case.expect.results.len(),
            case.calls.len()
        ));
        return f;
    }
    universal(case, wire, &cap, obs, &mut f);
    if obs.results.len() == case.calls.len() {
        for (i, (call, exp)) in case.calls.iter().zip(&case.expect.results).enumerate() {
            let result = &obs.results[i];
            let label = result_label(i, call);
            let expected = expected_output(wire, call, i, obs.invocations);
            check_result(
                case, caps, &cap, &label, i, call, exp, result, &expected, wire, &mut f,
            );
        }
    }
    check_invocations(case, obs, &mut f);
    check_history(case, caps, obs, &mut f);
    check_same_as(case, obs, &mut f);
    f
}

/// `same_as`: result i repeats result j (an idempotent replay): same `is_error`, code, content.
fn check_same_as(case: &Case, obs: &Observed, f: &mut Findings) {
    if obs.results.len() != case.calls.len() {
        return;
    }
    for (i, exp) in case.expect.results.iter().enumerate() {
        let Some(j) = exp.same_as else { continue };
        if j >= i {
            f.bugs.push(format!(
                "result {}: `same_as` {j} must name an earlier result (0-based)",
                i + 1
            ));
            continue;
        }
        let (a, b) = (&obs.results[i], &obs.results[j]);
        if a.is_error != b.is_error || a.code != b.code || a.content != b.content {
            f.failures.push(format!(
                "{}: expected a replay of result {} (same is_error, code and content), the harness returned is_error {} code {} content {} where result {} has is_error {} code {} content {}",
                result_label(i, &case.calls[i]),
                j + 1,
                a.is_error,
                code_of(a),
                quote(&a.content),
                j + 1,
                b.is_error,
                code_of(b),
                quote(&b.content)
            ));
        }
    }
}

fn result_label(i: usize, call: &Call) -> String {
    match call.id() {
        Some(id) => format!("result {} (call {:?})", i + 1, id),
        None => format!("result {}", i + 1),
    }
}

/// The universal checks (DESIGN.md), applied to every case.
fn universal(case: &Case, wire: &WireCase, cap: &EffectiveCap, obs: &Observed, f: &mut Findings) {
    // One result per call, in order, each with its call's id.
    if obs.results.len() != case.calls.len() {
        f.failures.push(format!(
            "expected {} result(s), one per call; the harness returned {}: {}",
            case.calls.len(),
            obs.results.len(),
            ids_of(obs.results)
        ));
    }
    let ids: Vec<Option<&str>> = case.calls.iter().map(Call::id).collect();
    for (i, (call, exp)) in case.calls.iter().zip(&case.expect.results).enumerate() {
        let want = match &exp.tool_use_id {
            IdExpect::Unchecked => None,
            IdExpect::Exactly(id) => Some(id.as_str()),
            IdExpect::CallId => call
                .id()
                .filter(|id| !id.is_empty())
                .filter(|id| ids.iter().filter(|x| **x == Some(*id)).count() == 1),
        };
        let Some(want) = want else { continue };
        match obs.results.get(i) {
            Some(r) if r.tool_use_id == want => {}
            Some(r) => f.failures.push(format!(
                "{}: expected tool_use_id {:?}, the harness returned {} (results must answer their calls in order)",
                result_label(i, call),
                want,
                quote_json(&r.tool_use_id)
            )),
            None => {}
        }
    }
    // Valid text.
    // Serialising the case is only worth it when some content holds U+FFFD.
    let any_fffd = obs.results.iter().any(|r| r.content.contains('\u{FFFD}'));
    let case_has_fffd =
        any_fffd && serde_json::to_string(wire).is_ok_and(|t| t.contains('\u{FFFD}'));
    if obs.lone_surrogates > 0 {
        f.failures.push(format!(
            "the reply held {} lone UTF-16 surrogate(s) (\\ud800-\\udfff escapes): the content is not valid text (a code point was split)",
            obs.lone_surrogates
        ));
    }
    for (i, r) in obs.results.iter().enumerate() {
        if !case_has_fffd {
            if let Some(at) = r.content.chars().position(|c| c == '\u{FFFD}') {
                f.failures.push(format!(
                    "{}: content holds U+FFFD at char {at}, which the handler's output did not have (a code point was split or mangled): {}",
                    label_at(case, i),
                    quote(&around(&r.content, at))
                ));
            }
        }
    }
    // Within the cap, counted in the cap's unit.
    if cap.declared || case.is_cap_case() {
        for (i, r) in obs.results.iter().enumerate() {
            let size = measure(&r.content, cap.unit);
            if size > cap.limit {
                f.failures.push(format!(
                    "{}: content is {size} {} (note included); the cap is {} {}: {}",
                    label_at(case, i),
                    cap.unit.as_str(),
                    cap.limit,
                    cap.unit.as_str(),
                    quote(&r.content)
                ));
            }
        }
    }
    // No secret of an internal error.
    for (secret, _message) in case.secrets() {
        for (i, r) in obs.results.iter().enumerate() {
            if r.content.contains(&secret) {
                f.failures.push(format!(
                    "{}: content leaks an internal error's text (contains the marker {secret:?}); internal errors must reach the model as a generic message: {}",
                    label_at(case, i),
                    quote(&r.content)
                ));
            }
        }
    }
}

/// The label of result `i`, with its call's id when there is such a call.
fn label_at(case: &Case, i: usize) -> String {
    match case.calls.get(i) {
        Some(call) => result_label(i, call),
        None => format!("result {}", i + 1),
    }
}

fn ids_of(results: &[ObservedResult]) -> String {
    let ids: Vec<String> = results.iter().map(|r| quote_json(&r.tool_use_id)).collect();
    format!("ids [{}]", ids.join(", "))
}

/// A short window of `text` around char `at`.
fn around(text: &str, at: usize) -> String {
    text.chars().skip(at.saturating_sub(20)).take(40).collect()
}

fn expected_output(wire: &WireCase, call: &Call, index: usize, invs: &[Invocation]) -> Expected {
    let Some(tool) = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n))
    else {
        return Expected::None;
    };
    match final_output(&tool.behavior) {
        Some(Output::Text(t)) => Expected::Text(t.clone()),
        Some(Output::Generate(_)) => Expected::None, // materialised by the caller with the unit
        Some(Output::Json(v)) => Expected::Json(v.clone()),
        Some(Output::EchoArgs(_)) => {
            // The arguments as the handler held them: the invocation for this call, if the
            // adapter tied it to the call, else the n-th run of this tool, else the input.
            let id = call.id().map(Value::from);
            let by_id = invs
                .iter()
                .find(|inv| inv.tool == tool.name && id.is_some() && inv.tool_use_id == id);
            let nth = case_position(wire, index, &tool.name)
                .and_then(|k| invs.iter().filter(|inv| inv.tool == tool.name).nth(k));
            match by_id.or(nth) {
                Some(inv) => Expected::Json(echoed_args(&tool.behavior, &inv.args)),
                None => Expected::Json(call.input().cloned().unwrap_or(Value::Null)),
            }
        }
        Some(Output::NonFinite(_)) | None => Expected::None,
    }
}

/// Which run of `tool` the call at `index` is (0-based), counting earlier calls to it.
fn case_position(wire: &WireCase, index: usize, tool: &str) -> Option<usize> {
    Some(
        wire.calls[..index]
            .iter()
            .filter(|c| c.name() == Some(tool))
            .count(),
    )
}

/// `echo_args` returns the arguments after the chain's own mutations.
fn echoed_args(b: &Behavior, received: &Value) -> Value {
    let mut args = received.clone();
    let mut cur = b;
    loop {
        match cur {
            Behavior::MutateArgs { mutate_args, then } => {
                for (ptr, v) in &mutate_args.set {
                    if let Some(slot) = args.pointer_mut(ptr) {
                        *slot = v.clone();
                    } else if let Some((parent, key)) = ptr.rsplit_once('/') {
                        if let Some(Value::Object(m)) = args.pointer_mut(parent) {
                            m.insert(key.replace("~1", "/").replace("~0", "~"), v.clone());
                        }
                    }
                }
                cur = then;
            }
            Behavior::Sleep { then, .. } => cur = then,
            _ => return args,
        }
    }
}

/// The output text a `generate` or `text` tool returns, materialised in the cap's unit.
fn output_text(tool: &ToolDef, unit: Unit) -> Result<Option<String>, String> {
    match final_output(&tool.behavior) {
        Some(Output::Text(t)) => Ok(Some(t.clone())),
        Some(Output::Generate(g)) => materialize(g, unit).map(Some).map_err(|e| e.to_string()),
        _ => Ok(None),
    }
}

#[allow(clippy::too_many_arguments)]
fn check_result(
    case: &Case,
    caps: &Capabilities,
    cap: &EffectiveCap,
    label: &str,
    index: usize,
    call: &Call,
    exp: &ResultExpect,
    r: &ObservedResult,
    expected: &Expected,
    wire: &WireCase,
    f: &mut Findings,
) {
    let tool = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n));
    let text = match tool.map(|t| output_text(t, cap.unit)) {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            f.bugs.push(format!(
                "{label}: the tool's output cannot be generated: {e}"
            ));
            return;
        }
        None => None,
    };
    let expected = match (&text, expected) {
        (Some(t), _) => Expected::Text(t.clone()),
        (None, e) => e.clone(),
    };
    let shown = || {
        format!(
            "is_error {} code {} content {}",
            r.is_error,
            code_of(r),
            quote(&r.content)
        )
    };

    if let Some(want) = exp.is_error {
        if r.is_error != want {
            f.failures.push(format!(
                "{label}: expected is_error {want}, the harness returned {}",
                shown()
            ));
        }
    }
    if let Some(class) = &exp.class {
        if let Some(map) = &caps.codes {
            match map.get(class) {
                None => f.failures.push(format!(
                    "{label}: expected outcome class `{class}`; the adapter's code map has no code for it (the harness does not tell this class apart); the harness returned {}",
                    shown()
                )),
                Some(code) if r.code.as_deref() != Some(code.as_str()) => {
                    f.failures.push(format!(
                        "{label}: expected code {code:?} (class `{class}`), the harness returned {}",
                        shown()
                    ))
                }
                Some(_) => {}
            }
        } else if case.needs.iter().any(|n| n == "codes") {
            f.bugs.push(format!(
                "{label}: the case needs `codes` but ran on a harness without them"
            ));
        }
    }
    if let Some(want) = exp.retryable {
        if caps.retryability && r.retryable != Some(want) {
            f.failures.push(format!(
                "{label}: expected retryable {want}, the harness returned retryable {}; {}",
                r.retryable.map_or("absent".to_owned(), |b| b.to_string()),
                shown()
            ));
        }
    }
    if let Some(content) = &exp.content {
        check_content(label, content, &r.content, &expected, f);
    }
    if let Some(cap_exp) = &exp.cap {
        check_cap(label, index, call, cap_exp, cap, r, &expected, wire, f);
    }
}

fn code_of(r: &ObservedResult) -> String {
    match &r.code {
        Some(c) => format!("{c:?}"),
        None => "(none)".into(),
    }
}

fn check_content(
    label: &str,
    exp: &ContentExpect,
    content: &str,
    expected: &Expected,
    f: &mut Findings,
) {
    let got = || quote(content);
    if let Some(want) = &exp.equals {
        if content != want {
            f.failures.push(format!(
                "{label}: expected content {}, the harness returned {}",
                quote(want),
                got()
            ));
        }
    }
    let missing: Vec<&String> = exp
        .contains
        .iter()
        .filter(|s| !content.contains(s.as_str()))
        .collect();
    if !missing.is_empty() {
        f.failures.push(format!(
            "{label}: expected content containing {}, the harness returned {}",
            list(&missing),
            got()
        ));
    }
    if !exp.contains_any.is_empty()
        && !exp
            .contains_any
            .iter()
            .any(|s| content.contains(s.as_str()))
    {
        f.failures.push(format!(
            "{label}: expected content containing any of {}, the harness returned {}",
            list(&exp.contains_any.iter().collect::<Vec<_>>()),
            got()
        ));
    }
    let present: Vec<&String> = exp
        .not_contains
        .iter()
        .filter(|s| content.contains(s.as_str()))
        .collect();
    if !present.is_empty() {
        f.failures.push(format!(
            "{label}: expected content without {}, the harness returned {}",
            list(&present),
            got()
        ));
    }
    if let Some(pattern) = &exp.matches {
        match regex::Regex::new(pattern) {
            Err(e) => f
                .bugs
                .push(format!("{label}: `matches` is not a valid regex: {e}")),
            Ok(re) if !re.is_match(content) => f.failures.push(format!(
                "{label}: expected content matching /{pattern}/, the harness returned {}",
                got()
            )),
            Ok(_) => {}
        }
    }
    if let Some(max) = exp.max_chars {
        let n = content.chars().count() as u64;
        if n > max {
            f.failures.push(format!(
                "{label}: expected content of at most {max} chars, the harness returned {n} chars: {}",
                got()
            ));
        }
    }
    if exp.equals_output {
        match expected {
            Expected::Text(o) if o == content => {}
            Expected::Text(o) => f.failures.push(format!(
                "{label}: expected exactly the handler's output {}, the harness returned {}",
                quote(o),
                got()
            )),
            _ => f.bugs.push(format!(
                "{label}: `equals_output` needs a tool returning `text` or `generate`"
            )),
        }
    }
}

fn list(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[allow(clippy::too_many_arguments)]
fn check_cap(
    label: &str,
    index: usize,
    call: &Call,
    exp: &CapExpect,
    cap: &EffectiveCap,
    r: &ObservedResult,
    expected: &Expected,
    wire: &WireCase,
    f: &mut Findings,
) {
    let c = r.content.as_str();
    let o = match expected {
        Expected::Text(o) => o.as_str(),
        Expected::Json(v) => {
            let only_verbatim = exp.truncated == Some(false)
                && !exp.keeps_head
                && !exp.keeps_last_line
                && !exp.note_counts;
            if !only_verbatim {
                f.bugs.push(format!(
                    "{label}: cap checks other than `truncated: false` need a tool returning `text` or `generate`"
                ));
                return;
            }
            match serde_json::from_str::<Value>(c) {
                Ok(parsed) if parsed == *v => {}
                _ => f.failures.push(format!(
                    "{label}: expected the output verbatim (JSON equal to {}), the harness returned {}",
                    quote_json(v),
                    quote(c)
                )),
            }
            if exp.idempotent {
                follow_up(index, call, c, wire, f);
            }
            return;
        }
        Expected::None => {
            f.bugs.push(format!(
                "{label}: cap checks need a tool returning an output (`text`, `generate`, `json`, `echo_args`)"
            ));
            return;
        }
    };
    match exp.truncated {
        Some(false) if c != o => f.failures.push(format!(
            "{label}: expected the output verbatim ({} {}, within the cap of {}), the harness returned {} {}: {}",
            measure(o, cap.unit),
            cap.unit.as_str(),
            cap.limit,
            measure(c, cap.unit),
            cap.unit.as_str(),
            quote(c)
        )),
        Some(true) if c == o || c.is_empty() => f.failures.push(format!(
            "{label}: expected the output ({} {}) cut to the cap of {} {} with a note; the harness returned {} {} {}",
            measure(o, cap.unit),
            cap.unit.as_str(),
            cap.limit,
            cap.unit.as_str(),
            measure(c, cap.unit),
            cap.unit.as_str(),
            if c.is_empty() { "(empty)".to_owned() } else { "unchanged".to_owned() }
        )),
        _ => {}
    }
    if exp.keeps_head && !keeps_head(o, c, cap) {
        f.failures.push(format!(
            "{label}: expected the content to start with the output's head {}, the harness returned {}",
            quote(head_wanted(o, cap)),
            quote(c)
        ));
    }
    if exp.keeps_last_line {
        let last = last_line(o);
        if !c.contains(last) {
            f.failures.push(format!(
                "{label}: expected the content to keep the output's last line {} whole, the harness returned {}",
                quote(last),
                quote(c)
            ));
        }
    }
    if exp.note_counts && c != o {
        if let Err(want) = note_counts(o, c, cap) {
            f.failures.push(format!(
                "{label}: expected a note stating how much was omitted ({want}), the harness returned {}",
                quote(c)
            ));
        }
    }
    if exp.idempotent {
        follow_up(index, call, c, wire, f);
    }
}

fn follow_up(index: usize, call: &Call, content: &str, wire: &WireCase, f: &mut Findings) {
    let Some(tool) = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n))
    else {
        return;
    };
    let mut tool = tool.clone();
    tool.behavior = Behavior::Return {
        output: Output::Text(content.to_owned()),
    };
    f.follow_ups.push(FollowUp {
        result: index,
        content: content.to_owned(),
        case: WireCase {
            id: wire.id.clone(),
            config: wire.config.clone(),
            tools: vec![tool],
            calls: vec![call.clone()],
            context: wire.context.clone(),
            security: wire.security.clone(),
        },
    });
}

/// Checks the second run of an `idempotent` check: the content must come back unchanged.
pub fn check_follow_up(fu: &FollowUp, obs: &Observed) -> Option<String> {
    let label = format!("result {}", fu.result + 1);
    match obs.results {
        [r] if r.content == fu.content => None,
        [r] => Some(format!(
            "{label}: capping is not idempotent: a handler returning the capped content {} got back {}",
            quote(&fu.content),
            quote(&r.content)
        )),
        rs => Some(format!(
            "{label}: the idempotence re-run expected 1 result, the harness returned {}",
            rs.len()
        )),
    }
}

/// The units of `o` a kept head must cover: its first line, or `limit / 10` units of it.
fn head_wanted<'a>(o: &'a str, cap: &EffectiveCap) -> &'a str {
    let first = o.split('\n').next().unwrap_or("");
    let budget = cap.limit / 10;
    if measure(first, cap.unit) <= budget {
        return first;
    }
    prefix_units(o, budget, cap.unit)
}

fn keeps_head(o: &str, c: &str, cap: &EffectiveCap) -> bool {
    c.starts_with(head_wanted(o, cap))
}

fn last_line(o: &str) -> &str {
    o.rsplit('\n').next().unwrap_or("")
}

/// The longest prefix of `s` that is at most `n` units.
fn prefix_units(s: &str, n: u64, unit: Unit) -> &str {
    match unit {
        Unit::Chars => match s.char_indices().nth(n as usize) {
            Some((i, _)) => &s[..i],
            None => s,
        },
        Unit::Bytes => {
            let mut i = (n as usize).min(s.len());
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            &s[..i]
        }
    }
}

/// Byte length of the longest common prefix of `a` and `b`, on a char boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Decimal numbers in `c` with their byte spans; digit groups may be joined by `,` or `_`.
fn numbers(c: &str) -> Vec<(usize, usize, u64)> {
    let b = c.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut value: u64 = 0;
        let mut overflow = false;
        loop {
            while i < b.len() && b[i].is_ascii_digit() {
                let d = u64::from(b[i] - b'0');
                match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
                    Some(v) => value = v,
                    None => overflow = true,
                }
                i += 1;
            }
            let joined =
                i + 1 < b.len() && (b[i] == b',' || b[i] == b'_') && b[i + 1].is_ascii_digit();
            if joined {
                i += 1;
            } else {
                break;
            }
        }
        if !overflow {
            out.push((start, i, value));
        }
    }
    out
}

/// The byte length of the longest suffix of `o` that occurs in `hay` (on a char boundary).
fn longest_suffix_in(o: &str, hay: &str) -> usize {
    // Monotone: if a suffix occurs, every shorter suffix occurs inside that occurrence, so
    // binary-search the smallest start (over char boundaries) whose suffix occurs.
    // Only the last `hay.len()` bytes of `o` can occur in `hay`.
    let from = ceil_boundary(o, o.len() - o.len().min(hay.len()));
    let mut starts: Vec<usize> = o[from..].char_indices().map(|(i, _)| from + i).collect();
    starts.push(o.len());
    let (mut lo, mut hi) = (0usize, starts.len() - 1); // starts[hi] (empty suffix) occurs
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let suffix = &o[starts[mid]..];
        if suffix.len() <= hay.len() && hay.contains(suffix) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    o.len() - starts[hi]
}

/// `lo` adjusted so that `o.len() - lo` is a char boundary (shrinking the suffix).
fn floor_len(o: &str, lo: usize) -> usize {
    o.len() - ceil_boundary(o, o.len() - lo)
}

/// `note_counts`: some number in the note (outside the kept head and tail) equals the omitted
/// amount, in the cap's unit (or, for head+tail on multi-line output, the omitted line count).
/// The kept head is taken as long as the content shares with the output before the number;
/// the kept tail as the longest suffix of the output found in the content on either side of
/// the number. [`NOTE_SLACK`] units are allowed for note text that happens to equal output
/// text at the seams. (DESIGN.md's "for some split", bounded this way: read loosely, any
/// split would accept the output's total size as the omitted amount.)
/// `Err` carries what was expected, for the message.
fn note_counts(o: &str, c: &str, cap: &EffectiveCap) -> Result<(), String> {
    let unit = cap.unit;
    let total = measure(o, unit);
    let p = common_prefix(c, o);
    let mut best: Option<u64> = None;
    // Numbers well inside the kept head or the kept tail are output text, not the note
    // (a log's line numbers); skipping them keeps this linear on long outputs.
    let margin = NOTE_SLACK as usize * 4;
    let t_all = longest_suffix_in(o, &c[p..]);
    let tail_at = c[p..]
        .rfind(&o[o.len() - t_all..])
        .map_or(c.len(), |at| p + at);
    for (i, j, v) in numbers(c) {
        let in_head = j + margin <= p;
        let in_tail = i >= tail_at + margin && j + margin <= tail_at + t_all;
        if in_head || in_tail {
            continue;
        }
        let h0 = p.min(i);
        let before = longest_suffix_in(o, &c[h0..i]);
        let after = longest_suffix_in(o, &c[j..]);
        let mut t0 = before.max(after).min(o.len() - h0);
        t0 = floor_len(o, t0);
        let kept = measure(&o[..h0], unit) + measure(&o[o.len() - t0..], unit);
        let base = total.saturating_sub(kept);
        if best.is_none_or(|b| base < b) {
            best = Some(base);
        }
        if (base..=base + NOTE_SLACK).contains(&v) {
            return Ok(());
        }
        if cap.strategy == Strategy::HeadTail && o.contains('\n') {
            let lines_min = o[h0..o.len() - t0].matches('\n').count() as u64;
            let lo = floor_boundary(o, h0.saturating_sub(NOTE_SLACK as usize * 4));
            let hi = ceil_boundary(o, (o.len() - t0 + NOTE_SLACK as usize * 4).min(o.len()));
            let lines_max = o[lo..hi].matches('\n').count() as u64;
            if (lines_min..=lines_max + 1).contains(&v) {
                return Ok(());
            }
        }
    }
    let base = best.unwrap_or_else(|| {
        let t = longest_suffix_in(o, &c[p..]).min(o.len() - p);
        let kept = measure(&o[..p], unit) + measure(&o[o.len() - floor_len(o, t)..], unit);
        total.saturating_sub(kept)
    });
    Err(format!(
        "about {base} {} of {total}; no number in the note matches",
        unit.as_str()
    ))
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn check_invocations(case: &Case, obs: &Observed, f: &mut Findings) {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for inv in obs.invocations {
        *counts.entry(inv.tool.as_str()).or_default() += 1;
    }
    for (tool, want) in &case.expect.invocations {
        let got = counts.get(tool.as_str()).copied().unwrap_or(0);
        if got != *want {
            let args: Vec<String> = obs
                .invocations
                .iter()
                .filter(|i| &i.tool == tool)
                .map(|i| quote_json(&i.args))
                .collect();
            f.failures.push(format!(
                "expected the handler of `{tool}` to run {want} time(s), it ran {got} time(s){}",
                if args.is_empty() {
                    String::new()
                } else {
                    format!(" with arguments {}", args.join(", "))
                }
            ));
        }
    }
    if let Some(want) = &case.expect.received_args {
        let got: Vec<(String, Value)> = obs
            .invocations
            .iter()
            .map(|i| (i.tool.clone(), i.args.clone()))
            .collect();
        let want: Vec<(String, Value)> = want
            .iter()
            .map(|r| (r.tool.clone(), r.args.clone()))
            .collect();
        if got != want {
            let show = |v: &[(String, Value)]| {
                v.iter()
                    .map(|(t, a)| format!("{t}({})", quote_json(a)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            f.failures.push(format!(
                "expected the handlers to receive [{}], they received [{}]",
                show(&want),
                show(&got)
            ));
        }
    }
}

fn check_history(case: &Case, caps: &Capabilities, obs: &Observed, f: &mut Findings) {
    if !case.expect.history_unchanged || !caps.history {
        return;
    }
    let Some(history) = obs.history else {
        f.failures.push("expected the transcript's calls (`history`), the adapter reported none although it declares `history`".into());
        return;
    };
    let sent: Vec<Value> = case.calls.iter().map(call_as_sent).collect();
    let kept: Vec<Value> = history.iter().map(strip_type).collect();
    if kept != sent {
        let show = |v: &[Value]| v.iter().map(quote_json).collect::<Vec<_>>().join(", ");
        f.failures.push(format!(
            "expected the transcript to keep the calls as the model sent them [{}], it holds [{}]",
            show(&sent),
            show(&kept)
        ));
    }
}

/// A call as the model sent it: the `tool_use` block without the caller's security options
/// (which are not part of what the model sends), or the other forms as written.
fn call_as_sent(call: &Call) -> Value {
    match call.tool_use_block() {
        Some(block) => strip_type(&block),
        None => serde_json::to_value(call).unwrap_or(Value::Null),
    }
}

fn strip_type(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.get("type") == Some(&Value::from("tool_use")) => {
            let mut m = m.clone();
            m.remove("type");
            Value::Object(m)
        }
        other => other.clone(),
    }
}

/// A one-line account of what the harness returned, for matrix cells and summaries.
pub fn returned_summary(results: &[ObservedResult]) -> String {
    results
        .iter()
        .map(|r| {
            format!(
                "is_error={} code={} content={}",
                r.is_error,
                r.code.as_deref().unwrap_or("-"),
                crate::quote::quote_n(&r.content, 120)
            )
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(limit: u64, unit: Unit) -> EffectiveCap {
        EffectiveCap {
            limit,
            unit,
            strategy: Strategy::HeadTail,
            declared: true,
        }
    }

    fn lines(n: usize, last: &str) -> String {
        let mut s = String::new();
        for i in 1..=n {
            s.push_str(&format!("{i:06} xxxxxxxxx\n"));
        }
        s.push_str(last);
        s
    }

    #[test]
    fn an_honest_note_counts_and_a_dishonest_one_does_not() {
        let o = lines(100, "ValueError: boom");
        let c = cap(400, Unit::Bytes);
        let head = &o[..200];
        let tail = &o[o.len() - 150..];
        let omitted = o.len() - 350;
        let honest = format!("{head}\n[… {omitted} bytes omitted …]\n{tail}");
        assert_eq!(note_counts(&o, &honest, &c), Ok(()));
        // The total size is not the omitted amount.
        let total = format!("{head}\n[… cut, {} bytes in all …]\n{tail}", o.len());
        assert!(note_counts(&o, &total, &c).is_err());
        // Off by a lot.
        let wrong = format!("{head}\n[… {} bytes omitted …]\n{tail}", omitted / 2);
        assert!(note_counts(&o, &wrong, &c).is_err());
        // Counting chars where bytes were asked is only caught on multibyte text.
        let grouped = format!(
            "{head}\n[… {},{:03} bytes omitted …]\n{tail}",
            omitted / 1000,
            omitted % 1000
        );
        assert_eq!(note_counts(&o, &grouped, &c), Ok(()));
    }

    #[test]
    fn a_line_count_is_accepted_for_head_tail() {
        let o = lines(100, "end");
        let c = cap(400, Unit::Chars);
        let head = &o[..34]; // two whole lines
        let tail = &o[o.len() - 20..];
        let omitted_lines = o[34..o.len() - 20].matches('\n').count();
        let note = format!("{head}[{omitted_lines} lines omitted]{tail}");
        assert_eq!(note_counts(&o, &note, &c), Ok(()));
    }

    #[test]
    fn chars_are_counted_in_chars() {
        let o = "é".repeat(100);
        let c = cap(50, Unit::Chars);
        let content = format!("{}[60 chars omitted]{}", "é".repeat(20), "é".repeat(20));
        assert_eq!(note_counts(&o, &content, &c), Ok(()));
        let bytes = format!("{}[120 bytes omitted]{}", "é".repeat(20), "é".repeat(20));
        assert!(note_counts(&o, &bytes, &c).is_err());
    }

    #[test]
    fn heads_and_last_lines() {
        let o = lines(50, "Traceback end");
        let c = cap(200, Unit::Bytes);
        assert!(keeps_head(&o, &o[..30], &c));
        assert!(!keeps_head(&o, "[cut]", &c));
        assert_eq!(last_line(&o), "Traceback end");
        let long_first = "a".repeat(1000);
        assert_eq!(head_wanted(&long_first, &c), &long_first[..20]);
        assert_eq!(prefix_units("ééé", 3, Unit::Bytes), "é");
        assert_eq!(prefix_units("ééé", 2, Unit::Chars), "éé");
    }

    #[test]
    fn numbers_with_group_separators() {
        let got: Vec<u64> = numbers("cut 1,234 of 5_000, then 7,")
            .into_iter()
            .map(|n| n.2)
            .collect();
        assert_eq!(got, vec![1234, 5000, 7]);
        assert_eq!(common_prefix("aé", "aè"), 1);
        assert_eq!(longest_suffix_in("abcdé", "xxcdéyy"), 4);
        assert_eq!(longest_suffix_in("abc", "zzz"), 0);
    }
}
