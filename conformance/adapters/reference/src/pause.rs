//! Calls paused for the user's decision (feature `pause`; SPEC.md PAUSE-1..4).
//!
//! The reference is harness-ref's: [`harness_ref::Harness::handle_paused_batch`] pauses the
//! calls of the case's paused tools and waits on an [`Approvals`] desk, and the user's side —
//! a thread here, as a person at a prompt would be — gives the case's decisions in their order,
//! each to the call it names, once that call has paused (PROTOCOL.md 4k). The faults and the
//! variants of this path are made here, at the same boundary as the others: what the user's
//! side does with the decisions, and what the model is shown afterwards.

use std::time::{Duration, Instant};

use harness_conformance_protocol::{ObservedResult, Pause, PauseDecision, UserDecision};
use harness_ref::{Approvals, Call, Decision, ErrorCode, Harness, ToolResult};
use serde_json::Value;

use crate::{Fault, Variant};

/// The turn's results, one per call in call order (none at all for `waits-forever-for-approval`
/// when a paused call gets no decision).
pub(crate) fn paused_turn(
    harness: &Harness,
    calls: Vec<Call>,
    pause: &Pause,
    fault: Option<Fault>,
) -> Vec<ToolResult> {
    let wait = Duration::from_millis(pause.wait_ms);
    let approvals = Approvals::new();
    // `denial-fails-the-batch`: one denial aborts the turn; every call waits on it and is
    // refused with it, the ones that needed no approval too.
    let denies_all =
        fault == Some(Fault::DenialFailsTheBatch) && pause.decisions.iter().any(is_denial);
    let all_tools: Vec<String> = harness.registry().names().map(str::to_owned).collect();
    let paused_tools = if denies_all { &all_tools } else { &pause.tools };
    // `waits-forever-for-approval`: the harness never stops waiting. The adapter gives up on it
    // after twice the wait (PROTOCOL.md 4k) and reports what the turn answered by then: nothing.
    let harness_wait = if fault == Some(Fault::WaitsForeverForApproval) {
        wait * 2
    } else {
        wait
    };
    let results = std::thread::scope(|scope| {
        let user = scope.spawn(|| give_decisions(&approvals, pause, wait, fault, denies_all));
        let results = harness.handle_paused_batch(calls, paused_tools, harness_wait, &approvals);
        let _ = user.join();
        results
    });
    if fault == Some(Fault::WaitsForeverForApproval) && results.iter().any(is_undecided) {
        return Vec::new();
    }
    results
}

/// The user's side: each decision, in the case's order, to the call it names once that call
/// has paused; a decision for a call that never paused (refused before, or not a paused tool's)
/// finds nobody to take it.
fn give_decisions(
    approvals: &Approvals,
    pause: &Pause,
    wait: Duration,
    fault: Option<Fault>,
    denies_all: bool,
) {
    let end = Instant::now() + wait;
    let left = || end.saturating_duration_since(Instant::now());
    // `resumes-with-another-calls-data`: the k-th decision resumes the k-th call that paused,
    // whichever call it was given for (mastra-ai/mastra #19083).
    let by_position = fault == Some(Fault::ResumesWithAnotherCallsData);
    let mut paused_order: Option<Vec<String>> = None;
    for (k, d) in pause.decisions.iter().enumerate() {
        // Every paused call of the turn pauses at once: once one has, the order is known.
        if by_position && paused_order.is_some() {
            if let Some(id) = paused_order.as_ref().and_then(|order| order.get(k)) {
                let _ = approvals.decide(id, decision_of(d));
            }
            continue;
        }
        if !approvals.wait_until_pending(&d.call, left()) {
            continue;
        }
        if denies_all {
            for p in approvals.pending() {
                let _ = approvals.decide(&p.tool_use_id, Decision::deny());
            }
            return;
        }
        if by_position {
            let order: Vec<String> = approvals
                .pending()
                .into_iter()
                .map(|p| p.tool_use_id)
                .collect();
            if let Some(id) = order.get(k) {
                let _ = approvals.decide(id, decision_of(d));
            }
            paused_order = Some(order);
            continue;
        }
        let _ = approvals.decide(&d.call, decision_of(d));
    }
}

fn is_denial(d: &PauseDecision) -> bool {
    d.decision == UserDecision::Deny
}

/// A case's decision as harness-ref takes it.
fn decision_of(d: &PauseDecision) -> Decision {
    match d.decision {
        UserDecision::Approve => Decision::Approve {
            input: d.input.clone(),
            data: d.data.clone().map(Value::Object),
        },
        UserDecision::Deny => Decision::deny(),
    }
}

/// A paused call refused because no decision came (harness-ref's `permission_denied` that
/// says so; a denial says the user denied it).
fn is_undecided(result: &ToolResult) -> bool {
    result.code() == Some(ErrorCode::PermissionDenied)
        && result.content().contains("no decision came")
}

/// What the model is shown of one result of a paused turn, after the faults and variants of
/// this path: `approval-sends-empty-content` (openai/codex #9053: the approved call's result
/// reaches the model with no content), `reworded-denials`, `undecided-calls-time-out`.
pub(crate) fn reshape(
    o: &mut ObservedResult,
    result: &ToolResult,
    pause: &Pause,
    fault: Option<Fault>,
    variant: Option<Variant>,
) {
    let id = result.tool_use_id().unwrap_or_default();
    let approved = pause
        .decisions
        .iter()
        .any(|d| d.decision == UserDecision::Approve && d.call == id);
    if fault == Some(Fault::ApprovalSendsEmptyContent) && approved && !o.is_error {
        o.content = String::new();
        o.blocks = None;
        o.structured = None;
    }
    let tool = result
        .error()
        .map(|e| tool_named_in(&e.message))
        .unwrap_or_default();
    match variant {
        Some(Variant::RewordedDenials)
            if result.code() == Some(ErrorCode::PermissionDenied)
                && result.content().contains("the user denied") =>
        {
            o.content = format!(
                "Declined by the user: {tool} was not executed and had no effect. Do not retry it unless the user asks you to."
            );
        }
        Some(Variant::UndecidedCallsTimeOut) if is_undecided(result) => {
            o.code = Some(ErrorCode::Timeout.code().to_owned());
            o.retryable = Some(ErrorCode::Timeout.retryable());
            o.content = format!(
                "timed out after {} ms waiting for the user's approval of {tool}; it did not run. Ask the user, then call it again.",
                pause.wait_ms
            );
        }
        _ => {}
    }
}

/// The quoted tool name in one of harness-ref's approval messages (`… tool "pay" …`).
fn tool_named_in(message: &str) -> String {
    message
        .split_once("tool ")
        .and_then(|(_, rest)| rest.split_once([';', ' ']).map(|(name, _)| name.to_owned()))
        .unwrap_or_else(|| "the tool".to_owned())
}
