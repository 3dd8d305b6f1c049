//! A turn resumed from a saved transcript (feature `resume`; SPEC.md RESUME-1..3).
//!
//! The reference is harness-ref's: [`harness_ref::resume::kept_saved_results`] says which saved
//! `tool_result`s the resumed transcript keeps, [`harness_ref::Harness::resume_turn`] answers
//! the calls they leave open. The reply's `results` are every `tool_result` the resumed
//! transcript holds for the turn (PROTOCOL.md 4f): in call order, a saved one where it stands,
//! and at the end any that answer no call of the turn. The faults and the variant of this path
//! are made here, at the same boundary as the others.

use harness_conformance_protocol::{ObservedResult, Resume, SavedResult};
use harness_ref::resume::kept_saved_results;
use harness_ref::{CancelToken, Harness, ToolResult};
use serde_json::Value;

use crate::{observe_result, Fault, Variant};

/// The `tool_result`s of the resumed turn, as the reply reports them.
pub(crate) fn resumed_turn(
    harness: &Harness,
    calls: Vec<harness_ref::Call>,
    call_ids: &[Option<&str>],
    resume: &Resume,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> Vec<ObservedResult> {
    let saved_ids: Vec<&str> = resume
        .saved
        .iter()
        .map(|s| s.tool_use_id.as_str())
        .collect();
    let kept = kept_saved_results(call_ids, &saved_ids);
    let answered: Vec<&str> = saved_ids
        .iter()
        .zip(&kept)
        .filter_map(|(id, kept)| kept.then_some(*id))
        .collect();
    let saved_for = |id: Option<&str>| {
        resume
            .saved
            .iter()
            .zip(&kept)
            .find(|(s, kept)| **kept && Some(s.tool_use_id.as_str()) == id)
            .map(|(s, _)| observe_saved(s))
    };

    let per_call: Vec<Option<ToolResult>> = match (fault, variant) {
        // `reruns-answered-calls`: the whole turn is handled again; the saved results are lost.
        (Some(Fault::RerunsAnsweredCalls), _) => {
            harness.handle_batch(calls).into_iter().map(Some).collect()
        }
        // `leaves-open-calls-unanswered`: only what was saved comes back; nothing runs.
        (Some(Fault::LeavesOpenCallsUnanswered), _) => vec![None; calls.len()],
        // `interrupts-open-calls`: every open call is answered as interrupted (`cancelled`,
        // before it started) and runs nothing; the model calls it again if it still needs it.
        (_, Some(Variant::InterruptsOpenCalls)) => {
            let interrupted = CancelToken::new();
            interrupted.cancel();
            let open: Vec<harness_ref::Call> = calls
                .into_iter()
                .zip(call_ids)
                .filter(|(_, id)| !id.is_some_and(|id| answered.contains(&id)))
                .map(|(call, _)| call)
                .collect();
            let mut results = harness
                .handle_cancellable_batch(open, &interrupted)
                .into_iter();
            call_ids
                .iter()
                .map(|id| {
                    if id.is_some_and(|id| answered.contains(&id)) {
                        None
                    } else {
                        results.next()
                    }
                })
                .collect()
        }
        _ => harness.resume_turn(calls, &answered),
    };

    let mut out = Vec::with_capacity(call_ids.len());
    for (id, result) in call_ids.iter().zip(per_call) {
        match result {
            Some(result) => {
                // `answers-open-calls-twice`: an open call is first answered as interrupted
                // by the session's end, then again by its run.
                if fault == Some(Fault::AnswersOpenCallsTwice) {
                    out.push(interrupted(result.tool_use_id()));
                }
                out.push(observe_result(&result));
            }
            None => out.extend(saved_for(*id)),
        }
    }
    // `keeps-results-of-compacted-calls`: every saved result stays, also one whose call is not
    // in the transcript and one answering a call a second time.
    if fault == Some(Fault::KeepsResultsOfCompactedCalls) {
        out.extend(
            resume
                .saved
                .iter()
                .zip(&kept)
                .filter(|(_, kept)| !**kept)
                .map(|(s, _)| observe_saved(s)),
        );
    }
    out
}

/// A saved `tool_result`, as the resumed transcript holds it.
fn observe_saved(saved: &SavedResult) -> ObservedResult {
    ObservedResult {
        tool_use_id: Value::from(saved.tool_use_id.as_str()),
        is_error: saved.is_error,
        content: saved.content.clone(),
        ..ObservedResult::default()
    }
}

/// The error a harness that answers every open call on resume gives it.
fn interrupted(id: Option<&str>) -> ObservedResult {
    ObservedResult {
        tool_use_id: id.map_or(Value::Null, Value::from),
        is_error: true,
        content: "the session ended before this call was answered".to_owned(),
        ..ObservedResult::default()
    }
}
