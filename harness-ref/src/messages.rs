//! Every sentence the model reads, composed in one place.
//!
//! Messages are written for the model: they name the field or tool, say what was wrong and
//! what arrived, and end with the next step (the remedy) when it is known — seed 002's
//! pattern: the condition stays as it is, the remedy is appended after ` — ` at this boundary,
//! and the code and cause are kept as data in [`crate::ErrorInfo`]. Lowercase, no trailing
//! period, quoted values bounded. The wording is snapshotted in `snapshots/`.

use std::time::Duration;

use crate::code::ErrorCode;
use crate::output::OutputProblem;
use crate::schema::Violation;

/// How many tool names an `unknown_tool` message lists before summarising.
const MAX_LISTED_TOOLS: usize = 30;

/// The condition plus its remedy: `"{message} — {remedy}"`.
pub(crate) fn render(message: &str, remedy: Option<&str>) -> String {
    match remedy {
        Some(remedy) => {
            const DASH: &str = " — ";
            let mut out = String::with_capacity(message.len() + DASH.len() + remedy.len());
            out.push_str(message);
            out.push_str(DASH);
            out.push_str(remedy);
            out
        }
        None => message.to_string(),
    }
}

/// The remedy for a code when no more specific one is known.
pub(crate) fn default_remedy(code: ErrorCode) -> Option<String> {
    let remedy = match code {
        ErrorCode::InvalidArguments => "fix every listed argument and call the tool again",
        ErrorCode::UnknownTool => "call one of the available tools by its exact name",
        ErrorCode::MalformedCall => {
            "send a tool_use block with a non-empty string \"id\", a string \"name\" and an object \"input\""
        }
        ErrorCode::DuplicateCallId => "give every tool call in a turn its own id",
        ErrorCode::ToolRefused => return None,
        ErrorCode::ToolUnavailable => "the same call may succeed if retried later",
        ErrorCode::Timeout => "the same call may succeed if retried; a narrower request may finish sooner",
        ErrorCode::InternalError => "retrying the same call will not help; try another approach",
        ErrorCode::InvalidToolOutput => "retrying the same call will not help; try a different request",
        ErrorCode::SemanticViolation => "fix every listed argument and call the tool again",
        ErrorCode::PermissionDenied => {
            "retrying will not help and the call must not be worked around; tell the user if this action is needed"
        }
        ErrorCode::BudgetExhausted => {
            "retrying will not help until the budget is raised; tell the user, or do without this call"
        }
        ErrorCode::IdempotencyConflict => {
            "resend the original arguments with this key, or use a new key for a different request"
        }
        ErrorCode::CommitRejected => "prepare the call again, then commit it with the new token",
        ErrorCode::OutputTooLarge => "call again asking for less (a narrower range, a filter, a page)",
        // A code added later gets no remedy until one is written here.
        #[allow(unreachable_patterns)]
        _ => return None,
    };
    Some(remedy.to_string())
}

fn quoted(s: &str) -> String {
    // At most 64 bytes is at most 64 chars: nothing to cut, only to quote.
    if s.len() <= 64 {
        return crate::schema::json_string(s);
    }
    let bounded: String = s.chars().take(64).collect();
    let mut q = serde_json::Value::String(bounded).to_string();
    if s.chars().count() > 64 {
        q.push_str("...");
    }
    q
}

/// A domain refusal is shown as the tool wrote it; a refusal with no words still gets a
/// sentence, because an empty error teaches the model nothing (SPEC OUT-9).
pub(crate) fn refused(tool: &str, message: &str) -> String {
    if message.trim().is_empty() {
        format!(
            "tool {} refused the request without giving a reason",
            quoted(tool)
        )
    } else {
        message.to_string()
    }
}

pub(crate) fn invalid_arguments(tool: &str, violations: &[Violation]) -> String {
    use std::fmt::Write;
    // `invalid arguments for tool "t": <violation>; <violation>`, written in one buffer: this
    // is the path a model's retries take.
    let mut out = String::with_capacity(64 + 64 * violations.len());
    out.push_str("invalid arguments for tool ");
    out.push_str(&quoted(tool));
    out.push_str(": ");
    for (i, v) in violations.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{v}");
    }
    out
}

pub(crate) fn invalid_arguments_remedy(tool: &str) -> String {
    format!("fix every listed argument and call {} again", quoted(tool))
}

pub(crate) fn unknown_tool<'a>(name: &str, available: impl Iterator<Item = &'a str>) -> String {
    format!("unknown tool {}; {}", quoted(name), tool_list(available))
}

/// `available tools: "a", "b"` (at most [`MAX_LISTED_TOOLS`], then the count), or a sentence
/// saying there are none.
fn tool_list<'a>(available: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = available.collect();
    if names.is_empty() {
        return "no tools are available".to_owned();
    }
    let mut list = names
        .iter()
        .take(MAX_LISTED_TOOLS)
        .map(|n| quoted(n))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_LISTED_TOOLS {
        list.push_str(&format!(", ... ({} in all)", names.len()));
    }
    format!("available tools: {list}")
}

/// A registered tool that was not offered this turn: the model is told it cannot use it now
/// and which tools it can, never the tools that were held back.
pub(crate) fn not_offered<'a>(name: &str, offered: impl Iterator<Item = &'a str>) -> String {
    format!(
        "tool {} is not available in this turn; {}",
        quoted(name),
        tool_list(offered)
    )
}

/// A call still running (or not started) when the user cancelled its turn.
pub(crate) fn cancelled(tool: &str) -> String {
    format!("{tool}: cancelled: the user cancelled the turn before this call finished, so it has no result")
}

pub(crate) fn cancelled_remedy() -> String {
    "do not run it again unless the user asks for it".to_owned()
}

/// A later call of a batch, when parallel tool calls are disabled and one call runs per turn.
pub(crate) fn one_call_per_turn(tool: &str) -> String {
    format!(
        "{tool}: not run: parallel tool calls are disabled, and only the first call of a turn runs"
    )
}

pub(crate) fn one_call_per_turn_remedy() -> String {
    "send this call again in a turn of its own".to_owned()
}

/// The last call of a turn the output limit cut off.
pub(crate) fn cut_off() -> String {
    "malformed tool call: the turn was cut off by the output limit before this call was complete, \
     so it was not run"
        .to_owned()
}

pub(crate) fn cut_off_remedy() -> String {
    "send the whole call again, in a turn of its own if the turn was long".to_owned()
}

pub(crate) fn malformed(problem: &str) -> String {
    format!("malformed tool call: {problem}")
}

/// `not valid JSON (syntax error at line 1, column 7)`, composed from serde_json's category and
/// position (its `Display` wording is not ours to promise).
pub(crate) fn not_json(what: &str, e: &serde_json::Error) -> String {
    let why = match e.classify() {
        serde_json::error::Category::Eof => "it ends early",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unusable data",
        serde_json::error::Category::Io => "read error",
    };
    format!(
        "{what} is not valid JSON ({why} at line {}, column {})",
        e.line(),
        e.column()
    )
}

/// Arguments text that repeats a key in one object: which value was meant cannot be known.
pub(crate) fn duplicate_key(pointer: &str, key: &str) -> String {
    format!(
        "\"arguments\" repeats the key {} in the object at {}, so which value was meant is unknown; send each key once",
        quoted(key),
        crate::schema::display_pointer(pointer)
    )
}

pub(crate) fn duplicate_id(id: &str) -> String {
    format!("duplicate tool call id {}: an earlier call in this turn already used it, so this call was not run", quoted(id))
}

/// A transport failure, with the service's message when it gave one that is not blank (a blank
/// one would end the sentence in white space and say nothing, SPEC OUT-9).
pub(crate) fn unavailable(tool: &str, message: &str) -> String {
    if message.trim().is_empty() {
        format!("tool {} is unavailable and gave no reason", quoted(tool))
    } else {
        format!("tool {} is unavailable: {message}", quoted(tool))
    }
}

pub(crate) fn output_too_large(tool: &str, size: u64, limit: usize, unit: crate::Unit) -> String {
    format!(
        "tool {} returned output too large to show: {size} {unit}, over the limit of {limit} {unit}; none of it is shown",
        quoted(tool)
    )
}

pub(crate) fn timeout(tool: &str, budget: Duration) -> String {
    format!(
        "tool {} did not finish within its deadline of {} ms",
        quoted(tool),
        budget.as_millis()
    )
}

/// A timeout whose content keeps, above this message, the output the handler streamed before
/// its deadline.
pub(crate) fn timeout_with_partial_output(tool: &str, budget: Duration) -> String {
    format!(
        "{}; above is the output it wrote before then, cut off there",
        timeout(tool, budget)
    )
}

pub(crate) fn internal(tool: Option<&str>) -> String {
    match tool {
        Some(tool) => format!(
            "tool {} failed with an internal error ({}); the details were recorded for the operators",
            quoted(tool),
            ErrorCode::InternalError.code()
        ),
        None => format!("the harness failed with an internal error ({})", ErrorCode::InternalError.code()),
    }
}

/// A multi-part output with a part the harness cannot deliver (`why` names its kind).
/// Said after an output of white space alone, which the Messages API refuses as a text block
/// ("text content blocks must contain non-whitespace text"): the output is kept whole, and
/// this makes the block one the provider takes on every later request (SPEC.md REPLAY-1).
pub(crate) const WHITE_SPACE_ONLY: &str = "(the output is white space only)";

/// Stands for an output of white space alone too long to keep beside
/// [`WHITE_SPACE_ONLY`] within the cap.
pub(crate) fn white_space_only(size: usize, unit: crate::Unit) -> String {
    format!(
        "(the output was {size} {} of white space only)",
        unit.as_str()
    )
}

pub(crate) fn unsupported_part(tool: &str, why: &str) -> String {
    format!(
        "tool {} produced content that cannot be delivered: {why}",
        quoted(tool)
    )
}

pub(crate) fn invalid_output(tool: &str, problem: &OutputProblem) -> String {
    format!(
        "tool {} produced output that cannot be returned: {problem}",
        quoted(tool)
    )
}

// --- The security gates (`crate::security`): refusals and previews. ---------------------------
// None of these names a capability, a rule, a limit or a budget figure: the model learns what
// failed and what to do next, not how the policy is built.

pub(crate) fn semantic_violation(tool: &str, violations: &[Violation]) -> String {
    let list: Vec<String> = violations.iter().map(Violation::to_string).collect();
    format!(
        "arguments for tool {} break its rules: {}",
        quoted(tool),
        list.join("; ")
    )
}

pub(crate) fn semantic_violation_remedy(tool: &str) -> String {
    format!("fix every listed argument and call {} again", quoted(tool))
}

pub(crate) fn permission_denied(tool: &str) -> String {
    format!(
        "tool {} is not permitted for this caller; nothing was run",
        quoted(tool)
    )
}

pub(crate) fn approval_required(tool: &str) -> String {
    format!(
        "tool {} needs the user's approval before it runs; nothing was run",
        quoted(tool)
    )
}

pub(crate) fn approval_required_remedy() -> String {
    "ask the user to approve this call, then call it again".to_string()
}

pub(crate) fn denied_by_user(tool: &str, reason: Option<&str>) -> String {
    let mut text = format!(
        "the user denied this call of tool {}; nothing was run",
        quoted(tool)
    );
    if let Some(reason) = reason.filter(|r| !r.is_empty()) {
        text.push_str(&format!(" (the user said: {})", quoted(reason)));
    }
    text
}

pub(crate) fn denied_by_user_remedy() -> String {
    "do not call it again unless the user asks for it; ask the user how to go on".to_string()
}

pub(crate) fn no_decision(tool: &str, wait: std::time::Duration) -> String {
    format!(
        "this call of tool {} needed the user's approval and no decision came within {} ms; nothing was run",
        quoted(tool),
        wait.as_millis()
    )
}

pub(crate) fn no_decision_remedy() -> String {
    "ask the user whether to run it, then call it again".to_string()
}

pub(crate) fn budget_exhausted(tool: &str) -> String {
    format!(
        "tool {} would exceed this caller's budget; nothing was run",
        quoted(tool)
    )
}

pub(crate) fn idempotency_conflict(tool: &str) -> String {
    format!(
        "the idempotency key was already used for tool {} with different arguments; nothing was run",
        quoted(tool)
    )
}

/// `why` is one of the fixed phrases of `security::CommitProblem::phrase`.
pub(crate) fn commit_rejected(tool: &str, why: &str) -> String {
    format!(
        "commit of tool {} rejected: {why}; nothing was run",
        quoted(tool)
    )
}

pub(crate) fn prepare_required_remedy(tool: &str) -> String {
    format!(
        "call {} in prepare mode first, show the preview, then commit it with its token",
        quoted(tool)
    )
}

/// The preview a prepare returns: what would run, on what, and how to commit it.
pub(crate) fn preview(
    tool: &str,
    effect: crate::security::Effect,
    target: Option<&str>,
    arguments: &str,
    token: &str,
    ttl_secs: u64,
) -> String {
    use crate::security::Effect;
    let what = match (effect, target) {
        (Effect::Read, Some(t)) => format!("read {}", quoted(t)),
        (Effect::Write, Some(t)) => format!("write to {}", quoted(t)),
        (Effect::External, Some(t)) => format!("act externally on {}", quoted(t)),
        (Effect::Read, None) => "read".to_string(),
        (Effect::Write, None) => "write".to_string(),
        (Effect::External, None) => "act externally".to_string(),
    };
    format!(
        "preview: tool {} would {what} with arguments {arguments}; nothing has run yet — to run it, commit the same call with token {} within {ttl_secs} s",
        quoted(tool),
        quoted(token)
    )
}

#[cfg(test)]
mod tests {
    use super::quoted;

    /// `quoted`'s first version, the oracle its faster form must agree with.
    fn first_quoted(s: &str) -> String {
        let bounded: String = s.chars().take(64).collect();
        let mut q = serde_json::Value::String(bounded).to_string();
        if s.chars().count() > 64 {
            q.push_str("...");
        }
        q
    }

    #[test]
    fn quoted_agrees_with_its_first_version() {
        for piece in ["a", "é", "😀", "\"", "\\", "\n", "\u{1}", "\u{7f}"] {
            for n in [0, 1, 15, 16, 21, 22, 31, 32, 63, 64, 65, 66, 100] {
                for s in [piece.repeat(n), format!("t{}", piece.repeat(n))] {
                    assert_eq!(quoted(&s), first_quoted(&s), "quoted({s:?})");
                }
            }
        }
    }
}
