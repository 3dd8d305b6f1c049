//! Blame: which requirement each check of a case belongs to.
//!
//! A case checks several things at once — that the handler did not run, that the result is an
//! error, that the message names the field — and each of them is evidence about a different
//! requirement. Counting one failed check against every requirement the case lists is how a
//! harness that refused every invalid call correctly, but worded its messages its own way,
//! came to be reported as running handlers on bad arguments 79 times. So every check is tied
//! to exactly one requirement, its *owner*, and a requirement fails only where one of its own
//! checks failed.
//!
//! Owners come from the case file (`expect.blame`, `expect.results[i].blame`: check kind or
//! group → requirement, the most specific key winning, a result's map before the case's) or,
//! for the kinds whose meaning fixes the requirement, from [`CheckKind::default_owner`]. The
//! loader refuses a case where a check has no owner, an owner is not listed, a listed
//! requirement owns nothing, or a blame key names nothing the case checks ([`problems`]).

use std::collections::BTreeSet;
use std::fmt;

use crate::case::{Case, IdExpect, Owners, ResultExpect};

/// What a check looks at. The names are the keys of `blame` maps and appear in reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CheckKind {
    /// Result i carries the expected id.
    ToolUseId,
    /// `is_error` as expected.
    IsError,
    /// The code is the code of an expected class.
    Class,
    /// `retryable` as expected.
    Retryable,
    /// `content.equals`.
    ContentEquals,
    /// `content.contains`.
    ContentContains,
    /// `content.contains_any`.
    ContentContainsAny,
    /// `content.not_contains`.
    ContentNotContains,
    /// `content.matches`.
    ContentMatches,
    /// `content.max_chars`.
    ContentMaxChars,
    /// `content.max_size`.
    ContentMaxSize,
    /// `content.equals_output`.
    ContentEqualsOutput,
    /// `cap.truncated`.
    CapTruncated,
    /// `cap.keeps_head`.
    CapKeepsHead,
    /// `cap.keeps_last_line`.
    CapKeepsLastLine,
    /// `cap.note_counts`.
    CapNoteCounts,
    /// `cap.note_lines`.
    CapNoteLines,
    /// `cap.idempotent`.
    CapIdempotent,
    /// `cap.rejected`.
    CapRejected,
    /// `cap.spilled`.
    CapSpilled,
    /// `cap.artifact`.
    CapArtifact,
    /// `cap.counted`: content over the cap would not fit it in a coarser unit either.
    CapCounted,
    /// `cap.configured`: an output over the configured limit did not come back whole.
    CapConfigured,
    /// `cap.own_note`: the content holds exactly the harness's own note when it was cut and
    /// none when not; a copy of the note in the output does not read as the harness's
    /// (FORGE-1).
    CapOwnNote,
    /// `wrapped`: the content opens with the harness's declared wrapper marker once, at its
    /// start, and closes once, at its end; a copy of a marker in the output never closes the
    /// real wrapper early (WRAP-1).
    Wrapped,
    /// `same_as`.
    SameAs,
    /// `represents_output`.
    RepresentsOutput,
    /// `repaired` (feature `repair`): the result reports the repaired locations.
    Repaired,
    /// `blocks.delivered`.
    BlocksDelivered,
    /// `blocks.order`.
    BlocksOrder,
    /// `blocks.no_payload_text`.
    BlocksNoPayloadText,
    /// `blocks.intact`: every non-text block that reached the model is one the handler
    /// returned, byte for byte (none cut or altered on the way).
    BlocksIntact,
    /// `blocks.within_limits`: no image over the provider's limit (`config.image_limit`)
    /// reached the model; it was refused saying why, or reduced with a note.
    BlocksWithinLimits,
    /// Universal: one result per call.
    ResultsCount,
    /// Universal: content is valid text.
    TextValid,
    /// Universal (on capped harnesses and cap cases): content within the cap.
    CapWithin,
    /// Universal: no internal error's secret in any content.
    Secret,
    /// Universal (on a harness that declares a `dialect`): the provider takes the result when
    /// the transcript is replayed — it breaks none of the dialect's acceptance rules
    /// (`conformance/providers/<dialect>.json`, SPEC.md REPLAY-1).
    Replay,
    /// `invocations`.
    Invocations,
    /// `received_args`.
    ReceivedArgs,
    /// `history_unchanged`.
    HistoryUnchanged,
    /// `stopped`: cancelled handlers saw the cancellation and stopped.
    Stopped,
    /// `repeatable`: a second run of the case returned the same results byte for byte.
    Repeatable,
    /// `linear_time`: the case took at most [`crate::checks::LINEAR_TIME_SLACK`] times as long,
    /// over its time on a copy with an output `smaller` times smaller, as linear growth allows.
    LinearTime,
    /// Universal: the call got a result (one that can be paired with it). Owned by the
    /// requirement that promises the answer: the result's `is_error` owner unless the case
    /// names another.
    Answered,
    /// Universal where a call is one the case says is invalid (its class is
    /// `invalid_arguments`) and its tool's runs are counted: that tool's handler ran no more
    /// often than the case expects. VAL-1's canary, owned by VAL-1 whatever else the case checks.
    InvalidNotRun,
    /// `runs_only_with`: every run of a listed tool received one of the listed arguments.
    RunsOnlyWith,
    /// `spill.kept`: no artifact a live transcript names was removed (SPILL-1).
    SpillKept,
    /// `spill.cleaned`: an ended session's artifacts are gone (SPILL-2).
    SpillCleaned,
    /// `spill.bounded`: a session keeps within its declared bound what its transcript no
    /// longer names (SPILL-3).
    SpillBounded,
    /// `spill.distinct`: spills of different outputs have different ids (SPILL-5).
    SpillDistinct,
}

impl CheckKind {
    /// Every kind, in report order.
    pub const ALL: [CheckKind; 51] = [
        CheckKind::ResultsCount,
        CheckKind::Answered,
        CheckKind::ToolUseId,
        CheckKind::IsError,
        CheckKind::Class,
        CheckKind::Retryable,
        CheckKind::ContentEquals,
        CheckKind::ContentContains,
        CheckKind::ContentContainsAny,
        CheckKind::ContentNotContains,
        CheckKind::ContentMatches,
        CheckKind::ContentMaxChars,
        CheckKind::ContentMaxSize,
        CheckKind::ContentEqualsOutput,
        CheckKind::CapTruncated,
        CheckKind::CapKeepsHead,
        CheckKind::CapKeepsLastLine,
        CheckKind::CapNoteCounts,
        CheckKind::CapNoteLines,
        CheckKind::CapIdempotent,
        CheckKind::CapRejected,
        CheckKind::CapSpilled,
        CheckKind::CapArtifact,
        CheckKind::CapCounted,
        CheckKind::CapConfigured,
        CheckKind::CapOwnNote,
        CheckKind::Wrapped,
        CheckKind::SameAs,
        CheckKind::RepresentsOutput,
        CheckKind::Repaired,
        CheckKind::BlocksDelivered,
        CheckKind::BlocksOrder,
        CheckKind::BlocksNoPayloadText,
        CheckKind::BlocksIntact,
        CheckKind::BlocksWithinLimits,
        CheckKind::TextValid,
        CheckKind::CapWithin,
        CheckKind::Secret,
        CheckKind::Replay,
        CheckKind::Invocations,
        CheckKind::InvalidNotRun,
        CheckKind::ReceivedArgs,
        CheckKind::RunsOnlyWith,
        CheckKind::HistoryUnchanged,
        CheckKind::Stopped,
        CheckKind::Repeatable,
        CheckKind::LinearTime,
        CheckKind::SpillKept,
        CheckKind::SpillCleaned,
        CheckKind::SpillBounded,
        CheckKind::SpillDistinct,
    ];

    /// The name used in case files and reports. Stable: never renamed.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::ToolUseId => "tool_use_id",
            CheckKind::IsError => "is_error",
            CheckKind::Class => "class",
            CheckKind::Retryable => "retryable",
            CheckKind::ContentEquals => "content.equals",
            CheckKind::ContentContains => "content.contains",
            CheckKind::ContentContainsAny => "content.contains_any",
            CheckKind::ContentNotContains => "content.not_contains",
            CheckKind::ContentMatches => "content.matches",
            CheckKind::ContentMaxChars => "content.max_chars",
            CheckKind::ContentMaxSize => "content.max_size",
            CheckKind::ContentEqualsOutput => "content.equals_output",
            CheckKind::CapTruncated => "cap.truncated",
            CheckKind::CapKeepsHead => "cap.keeps_head",
            CheckKind::CapKeepsLastLine => "cap.keeps_last_line",
            CheckKind::CapNoteCounts => "cap.note_counts",
            CheckKind::CapNoteLines => "cap.note_lines",
            CheckKind::CapIdempotent => "cap.idempotent",
            CheckKind::CapRejected => "cap.rejected",
            CheckKind::CapSpilled => "cap.spilled",
            CheckKind::CapArtifact => "cap.artifact",
            CheckKind::CapCounted => "cap.counted",
            CheckKind::CapConfigured => "cap.configured",
            CheckKind::CapOwnNote => "cap.own_note",
            CheckKind::Wrapped => "wrapped",
            CheckKind::SameAs => "same_as",
            CheckKind::RepresentsOutput => "represents_output",
            CheckKind::Repaired => "repaired",
            CheckKind::BlocksDelivered => "blocks.delivered",
            CheckKind::BlocksOrder => "blocks.order",
            CheckKind::BlocksNoPayloadText => "blocks.no_payload_text",
            CheckKind::BlocksIntact => "blocks.intact",
            CheckKind::BlocksWithinLimits => "blocks.within_limits",
            CheckKind::ResultsCount => "results.count",
            CheckKind::TextValid => "text.valid",
            CheckKind::CapWithin => "cap.within",
            CheckKind::Secret => "secret",
            CheckKind::Replay => "replay",
            CheckKind::Invocations => "invocations",
            CheckKind::ReceivedArgs => "received_args",
            CheckKind::HistoryUnchanged => "history_unchanged",
            CheckKind::Stopped => "stopped",
            CheckKind::Repeatable => "repeatable",
            CheckKind::LinearTime => "linear_time",
            CheckKind::Answered => "answered",
            CheckKind::InvalidNotRun => "invalid_not_run",
            CheckKind::RunsOnlyWith => "runs_only_with",
            CheckKind::SpillKept => "spill.kept",
            CheckKind::SpillCleaned => "spill.cleaned",
            CheckKind::SpillBounded => "spill.bounded",
            CheckKind::SpillDistinct => "spill.distinct",
        }
    }

    /// Whether a check of this kind is about one result (and so may be blamed per result).
    pub fn per_result(self) -> bool {
        !matches!(
            self,
            CheckKind::ResultsCount
                | CheckKind::Invocations
                | CheckKind::ReceivedArgs
                | CheckKind::HistoryUnchanged
                | CheckKind::Stopped
                | CheckKind::Repeatable
                | CheckKind::LinearTime
                | CheckKind::InvalidNotRun
                | CheckKind::RunsOnlyWith
                | CheckKind::SpillKept
                | CheckKind::SpillCleaned
                | CheckKind::SpillBounded
                | CheckKind::SpillDistinct
        )
    }

    /// Whether every case gets this check without writing it (the runner's universal checks).
    pub fn universal(self) -> bool {
        matches!(
            self,
            CheckKind::ResultsCount
                | CheckKind::Answered
                | CheckKind::ToolUseId
                | CheckKind::TextValid
                | CheckKind::CapWithin
                | CheckKind::Secret
                | CheckKind::Replay
                | CheckKind::InvalidNotRun
        )
    }

    /// The requirement a check of this kind belongs to when the case does not say, for the
    /// kinds whose meaning fixes it. `truncated` is the value a `cap.truncated` check expects.
    pub fn default_owner(self, truncated: Option<bool>) -> Option<&'static str> {
        Some(match self {
            CheckKind::ToolUseId | CheckKind::ResultsCount | CheckKind::Answered => "CORR-1",
            CheckKind::InvalidNotRun => "VAL-1",
            CheckKind::TextValid => "ENC-1",
            CheckKind::CapWithin => "CAP-1",
            CheckKind::Secret => "OUT-5",
            CheckKind::Replay => "REPLAY-1",
            CheckKind::Class => "OUT-7",
            CheckKind::Retryable => "OUT-6",
            CheckKind::CapTruncated if truncated == Some(false) => "CAP-2",
            CheckKind::CapTruncated => "CAP-5",
            CheckKind::CapKeepsHead => "CAP-10",
            CheckKind::CapKeepsLastLine => "HT-2",
            CheckKind::CapNoteCounts => "CAP-6",
            CheckKind::CapNoteLines => "HT-3",
            CheckKind::CapIdempotent => "CAP-7",
            CheckKind::CapRejected => "STRAT-3",
            CheckKind::CapSpilled => "STRAT-4",
            CheckKind::CapArtifact => "STRAT-5",
            CheckKind::CapCounted => "CAP-3",
            CheckKind::CapConfigured => "CAP-9",
            CheckKind::CapOwnNote => "FORGE-1",
            CheckKind::Wrapped => "WRAP-1",
            CheckKind::LinearTime => "CAP-11",
            CheckKind::HistoryUnchanged => "ISO-1",
            CheckKind::RepresentsOutput => "VOCAB-5",
            CheckKind::Repaired => "REPAIR-3",
            CheckKind::BlocksDelivered => "BLOCK-1",
            CheckKind::BlocksNoPayloadText => "BLOCK-2",
            CheckKind::BlocksIntact => "BLOCK-1",
            CheckKind::BlocksOrder => "BLOCK-3",
            CheckKind::BlocksWithinLimits => "BLOCK-6",
            CheckKind::SpillKept => "SPILL-1",
            CheckKind::SpillCleaned => "SPILL-2",
            CheckKind::SpillBounded => "SPILL-3",
            CheckKind::SpillDistinct => "SPILL-5",
            _ => return None,
        })
    }

    /// Whether `key` (a kind's name or a group such as `content`) names this kind.
    pub fn matches(self, key: &str) -> bool {
        let name = self.as_str();
        name == key
            || (name.len() > key.len()
                && name.starts_with(key)
                && name.as_bytes()[key.len()] == b'.')
    }

    /// The kind with this name.
    pub fn parse(name: &str) -> Option<CheckKind> {
        CheckKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether `key` is a valid `blame` key: a kind's name or a group of kinds.
pub fn is_known_key(key: &str) -> bool {
    CheckKind::ALL.iter().any(|k| k.matches(key))
}

/// The requirements that own the check of `kind` on result `result` (`None` for case-level
/// checks): usually one; several where the case says one observation breaks several promises
/// (`"blame": {"cap.within": ["CAP-1", "CAP-3"]}`). Empty when nothing names one (the loader
/// refuses such cases).
pub fn owners(case: &Case, kind: CheckKind, result: Option<usize>) -> Vec<String> {
    let exp = result.and_then(|i| case.expect.results.get(i));
    let from = |map: &std::collections::BTreeMap<String, Owners>| {
        map.iter()
            .filter(|(key, _)| kind.matches(key))
            .max_by_key(|(key, _)| key.len())
            .map(|(_, owners)| owners.all().to_vec())
    };
    if kind.per_result() {
        if let Some(o) = exp.and_then(|e| from(&e.blame)) {
            return o;
        }
    }
    if let Some(o) = from(&case.expect.blame) {
        return o;
    }
    // The answer is promised by whoever the result's `is_error` check is evidence for: the
    // requirement that says this call gets an error result (or a success).
    if kind == CheckKind::Answered && exp.is_some_and(|e| e.is_error.is_some()) {
        let o = owners(case, CheckKind::IsError, result);
        if !o.is_empty() {
            return o;
        }
    }
    let truncated = exp.and_then(|e| e.cap.as_ref()).and_then(|c| c.truncated);
    kind.default_owner(truncated)
        .map(|o| vec![o.to_owned()])
        .unwrap_or_default()
}

/// The first of [`owners`], for messages that name one.
pub fn owner(case: &Case, kind: CheckKind, result: Option<usize>) -> Option<String> {
    owners(case, kind, result).into_iter().next()
}

/// The checks a case asks for (per result, then per case), as the runner will evaluate them on
/// a harness with every capability. Universal checks are included where the case makes them
/// possible: `tool_use_id` where an id is expected, `secret` where a handler raises an internal
/// error with a secret, `cap.within` always (it runs on every capped harness), `replay` always
/// (it runs on every harness that declares a dialect).
pub fn planned(case: &Case) -> Vec<(CheckKind, Option<usize>)> {
    let mut out = vec![(CheckKind::ResultsCount, None)];
    let has_secret = !case.secrets().is_empty();
    for (i, exp) in case.expect.results.iter().enumerate() {
        out.push((CheckKind::Answered, Some(i)));
        for kind in result_kinds(case, i, exp) {
            out.push((kind, Some(i)));
        }
        out.push((CheckKind::TextValid, Some(i)));
        out.push((CheckKind::CapWithin, Some(i)));
        if has_secret {
            out.push((CheckKind::Secret, Some(i)));
        }
        out.push((CheckKind::Replay, Some(i)));
    }
    if !case.expect.invocations.is_empty() {
        out.push((CheckKind::Invocations, None));
    }
    if !invalid_call_tools(case).is_empty() {
        out.push((CheckKind::InvalidNotRun, None));
    }
    if case.expect.received_args.is_some() {
        out.push((CheckKind::ReceivedArgs, None));
    }
    if case.expect.runs_only_with.is_some() {
        out.push((CheckKind::RunsOnlyWith, None));
    }
    if case.expect.history_unchanged {
        out.push((CheckKind::HistoryUnchanged, None));
    }
    if !case.expect.stopped.is_empty() {
        out.push((CheckKind::Stopped, None));
    }
    if case.expect.repeatable {
        out.push((CheckKind::Repeatable, None));
    }
    if case.expect.linear_time.is_some() {
        out.push((CheckKind::LinearTime, None));
    }
    for kind in case.expect.spills.unwrap_or_default().kinds() {
        out.push((kind, None));
    }
    out
}

/// The tools whose handler VAL-1's canary watches in this case: those a call the case says is
/// invalid (its expected class includes `invalid_arguments`) names, whose runs the case counts.
pub fn invalid_call_tools(case: &Case) -> std::collections::BTreeSet<&str> {
    case.calls
        .iter()
        .zip(&case.expect.results)
        .filter(|(_, exp)| {
            exp.class
                .as_ref()
                .is_some_and(|c| c.all().iter().any(|k| k == "invalid_arguments"))
        })
        .filter_map(|(call, _)| call.name())
        .filter(|name| case.expect.invocations.contains_key(*name))
        .collect()
}

/// The per-result check kinds the case asks for on result `i` (not the universal ones).
pub fn result_kinds(case: &Case, i: usize, exp: &ResultExpect) -> Vec<CheckKind> {
    let mut kinds = Vec::new();
    let id_checked = match &exp.tool_use_id {
        IdExpect::Unchecked => false,
        IdExpect::Exactly(_) => true,
        IdExpect::CallId => case.calls.get(i).and_then(|c| c.id()).is_some_and(|id| {
            !id.is_empty() && case.calls.iter().filter(|c| c.id() == Some(id)).count() == 1
        }),
    };
    if id_checked {
        kinds.push(CheckKind::ToolUseId);
    }
    if exp.is_error.is_some() {
        kinds.push(CheckKind::IsError);
    }
    if exp.class.is_some() {
        kinds.push(CheckKind::Class);
    }
    if exp.retryable.is_some() {
        kinds.push(CheckKind::Retryable);
    }
    if let Some(c) = &exp.content {
        for (on, kind) in [
            (c.equals.is_some(), CheckKind::ContentEquals),
            (!c.contains.is_empty(), CheckKind::ContentContains),
            (!c.contains_any.is_empty(), CheckKind::ContentContainsAny),
            (!c.not_contains.is_empty(), CheckKind::ContentNotContains),
            (c.matches.is_some(), CheckKind::ContentMatches),
            (c.max_chars.is_some(), CheckKind::ContentMaxChars),
            (c.max_size.is_some(), CheckKind::ContentMaxSize),
            (c.equals_output, CheckKind::ContentEqualsOutput),
        ] {
            if on {
                kinds.push(kind);
            }
        }
    }
    if let Some(c) = &exp.cap {
        for (on, kind) in [
            (c.truncated.is_some(), CheckKind::CapTruncated),
            (c.keeps_head, CheckKind::CapKeepsHead),
            (c.keeps_last_line, CheckKind::CapKeepsLastLine),
            (c.note_counts, CheckKind::CapNoteCounts),
            (c.note_lines, CheckKind::CapNoteLines),
            (c.idempotent, CheckKind::CapIdempotent),
            (c.rejected, CheckKind::CapRejected),
            (c.spilled, CheckKind::CapSpilled),
            (c.artifact, CheckKind::CapArtifact),
            (c.counted, CheckKind::CapCounted),
            (c.configured, CheckKind::CapConfigured),
            (c.own_note, CheckKind::CapOwnNote),
        ] {
            if on {
                kinds.push(kind);
            }
        }
    }
    if exp.same_as.is_some() {
        kinds.push(CheckKind::SameAs);
    }
    if exp.represents_output {
        kinds.push(CheckKind::RepresentsOutput);
    }
    if exp.wrapped {
        kinds.push(CheckKind::Wrapped);
    }
    if !exp.repaired.is_empty() {
        kinds.push(CheckKind::Repaired);
    }
    if let Some(b) = &exp.blocks {
        kinds.extend(b.kinds());
    }
    kinds
}

/// The requirements that own at least one of the case's checks, universal checks on their
/// default owner left out (every case has those).
pub fn owned_requirements(case: &Case) -> BTreeSet<String> {
    planned(case)
        .into_iter()
        .flat_map(|(kind, i)| {
            let default = kind.default_owner(None);
            owners(case, kind, i)
                .into_iter()
                .filter(move |o| !kind.universal() || default != Some(o.as_str()))
        })
        .collect()
}

/// Everything wrong with the case's blame (load errors): unknown or dead keys, checks without an
/// owner, owners the case does not list, listed requirements that own nothing.
pub fn problems(case: &Case) -> Vec<String> {
    let mut out = Vec::new();
    let plan = planned(case);
    let listed: BTreeSet<&str> = case.requirements.iter().map(String::as_str).collect();
    let mut check_map =
        |scope: &str, map: &std::collections::BTreeMap<String, Owners>, result: Option<usize>| {
            for key in map.keys() {
                if !is_known_key(key) {
                    out.push(format!(
                    "{scope}: unknown blame key {key:?} (keys are check kinds or their groups: {})",
                    CheckKind::ALL.map(CheckKind::as_str).join(", ")
                ));
                    continue;
                }
                let live = plan.iter().any(|(kind, i)| {
                    kind.matches(key)
                        && match result {
                            Some(r) => *i == Some(r),
                            None => true,
                        }
                });
                if !live {
                    out.push(format!(
                        "{scope}: blame key {key:?} names no check of {}",
                        match result {
                            Some(_) => "this result",
                            None => "the case",
                        }
                    ));
                }
            }
        };
    check_map("expect.blame", &case.expect.blame, None);
    for (i, r) in case.expect.results.iter().enumerate() {
        check_map(&format!("expect.results[{i}].blame"), &r.blame, Some(i));
    }
    let mut owned = BTreeSet::new();
    for (kind, i) in &plan {
        let where_ = match i {
            Some(i) => format!("result {}: {kind}", i + 1),
            None => kind.to_string(),
        };
        let found = owners(case, *kind, *i);
        if found.is_empty() {
            out.push(format!(
                "{where_}: the check has no requirement (give it one in `blame`)"
            ));
        }
        for o in found {
            let universal_default =
                kind.universal() && kind.default_owner(None) == Some(o.as_str());
            if !universal_default && !listed.contains(o.as_str()) {
                out.push(format!(
                    "{where_}: blamed on {o}, which the case does not list in `requirements`"
                ));
            }
            owned.insert(o);
        }
    }
    for r in &case.requirements {
        if !owned.contains(r) {
            out.push(format!(
                "requirement {r} is listed but owns no check of the case (blame a check on it, or remove it)"
            ));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(v: serde_json::Value) -> Case {
        serde_json::from_value(v).unwrap()
    }

    fn invalid_call(requirements: &[&str], blame: serde_json::Value) -> Case {
        case(json!({
            "id": "validation/x", "requirements": requirements, "description": "d",
            "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"text": "x"}}}],
            "calls": [{"id": "a", "name": "t", "input": {"n": "3"}}],
            "expect": {"results": [{"is_error": true, "class": "invalid_arguments",
                                    "content": {"contains": ["n"], "max_chars": 100}}],
                       "invocations": {"t": 0}, "blame": blame}
        }))
    }

    #[test]
    fn owners_come_from_the_most_specific_key_then_the_default() {
        let c = invalid_call(
            &["VAL-2", "VAL-3", "OUT-7", "TEACH-1", "TEACH-6"],
            json!({"invocations": "VAL-3", "is_error": "VAL-2", "content": "TEACH-1", "content.max_chars": "TEACH-6"}),
        );
        assert_eq!(
            owner(&c, CheckKind::Invocations, None).as_deref(),
            Some("VAL-3")
        );
        assert_eq!(
            owner(&c, CheckKind::ContentContains, Some(0)).as_deref(),
            Some("TEACH-1")
        );
        assert_eq!(
            owner(&c, CheckKind::ContentMaxChars, Some(0)).as_deref(),
            Some("TEACH-6")
        );
        assert_eq!(
            owner(&c, CheckKind::Class, Some(0)).as_deref(),
            Some("OUT-7")
        );
        assert_eq!(
            owner(&c, CheckKind::ToolUseId, Some(0)).as_deref(),
            Some("CORR-1")
        );
        assert_eq!(problems(&c), Vec::<String>::new());
        assert_eq!(
            owned_requirements(&c).into_iter().collect::<Vec<_>>(),
            vec!["OUT-7", "TEACH-1", "TEACH-6", "VAL-2", "VAL-3"]
        );
    }

    #[test]
    fn unowned_unlisted_idle_and_unknown_are_load_errors() {
        let c = invalid_call(
            &["VAL-2", "VAL-9"],
            json!({"is_error": "VAL-2", "cap": "CAP-3", "isError": "VAL-2"}),
        );
        let p = problems(&c).join("\n");
        assert!(
            p.contains("invocations: the check has no requirement"),
            "{p}"
        );
        assert!(
            p.contains("result 1: content.contains: the check has no requirement"),
            "{p}"
        );
        assert!(
            p.contains("blamed on OUT-7, which the case does not list"),
            "{p}"
        );
        assert!(
            p.contains("requirement VAL-9 is listed but owns no check"),
            "{p}"
        );
        assert!(p.contains("unknown blame key \"isError\""), "{p}");
        // `cap` names `cap.within`, which every case has, so it is not idle; but CAP-3 is then
        // an owner the case does not list.
        assert!(
            p.contains("blamed on CAP-3, which the case does not list"),
            "{p}"
        );
    }

    #[test]
    fn a_result_map_wins_over_the_case_map_and_names_live_keys_only() {
        let c = case(json!({
            "id": "calls/x", "requirements": ["CALL-1", "CALL-8"], "description": "d",
            "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"text": "x"}}}],
            "calls": [{"id": "a", "name": "nope", "input": {}}, {"id": "b", "name": "t", "input": {}}],
            "expect": {"results": [{"is_error": true, "blame": {"retryable": "OUT-6"}}, {"is_error": false, "blame": {"is_error": "CALL-8"}}],
                       "invocations": {"t": 1}, "blame": {"is_error": "CALL-1", "invocations": "CALL-8"}}
        }));
        assert_eq!(
            owner(&c, CheckKind::IsError, Some(0)).as_deref(),
            Some("CALL-1")
        );
        assert_eq!(
            owner(&c, CheckKind::IsError, Some(1)).as_deref(),
            Some("CALL-8")
        );
        let p = problems(&c);
        assert_eq!(
            p,
            vec!["expect.results[0].blame: blame key \"retryable\" names no check of this result"]
        );
    }

    #[test]
    fn kinds_and_groups() {
        assert!(CheckKind::ContentMaxChars.matches("content"));
        assert!(CheckKind::ContentMaxChars.matches("content.max_chars"));
        assert!(!CheckKind::ContentMaxChars.matches("content.max"));
        assert!(!CheckKind::Class.matches("cap"));
        assert!(CheckKind::CapWithin.matches("cap"));
        assert!(is_known_key("cap") && is_known_key("results.count") && !is_known_key("result"));
        for k in CheckKind::ALL {
            assert_eq!(CheckKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(
            CheckKind::CapTruncated.default_owner(Some(false)),
            Some("CAP-2")
        );
        assert_eq!(
            CheckKind::CapTruncated.default_owner(Some(true)),
            Some("CAP-5")
        );
    }
}
