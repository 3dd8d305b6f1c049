//! The outcome codes: one stable string per way a call can fail.
//!
//! Codes are API. Policy, telemetry, retry logic and the conformance suite route on them, while
//! the model reads the prose; so a code is never renamed and never reused, and wording can
//! improve without breaking anyone. This module is the one place that maps a code to its string,
//! its meaning and its retryability. The table in `docs/harness-ref.md` and the snapshots in
//! `snapshots/` mirror it.

use std::fmt;

/// Why a call did not produce a successful result.
///
/// Every error result carries exactly one code. Success has no code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The arguments failed the tool's input schema or one of its semantic checks.
    InvalidArguments,
    /// No tool is registered under the requested name.
    UnknownTool,
    /// The tool_use itself is unusable: not JSON, not an object, arguments not an object,
    /// missing or empty name or id.
    MalformedCall,
    /// The id was already used by an earlier call in the same batch.
    DuplicateCallId,
    /// The tool ran and refused (a domain error); its message is written for the model.
    ToolRefused,
    /// The tool or the service behind it could not be reached (a transport error).
    ToolUnavailable,
    /// The handler did not finish within its deadline.
    Timeout,
    /// The handler panicked or failed unexpectedly; the detail goes to the diagnostic sink only.
    InternalError,
    /// The handler's output is not representable as JSON (NaN, ±inf, duplicate keys) or breaks
    /// the nesting or size limits.
    InvalidToolOutput,
    /// The arguments are well-formed but break a rule of the tool's policy (a path outside
    /// the workspace, a string or array over its bound, nesting too deep).
    SemanticViolation,
    /// The caller may not make this call (capability, target, approval); nothing ran.
    PermissionDenied,
    /// The call would exceed the caller's remaining budget; nothing ran.
    BudgetExhausted,
    /// The idempotency key was already used for this tool with different arguments; nothing ran.
    IdempotencyConflict,
    /// A commit did not match its prepare (arguments, caller, policy version, target, expired
    /// or unknown token), or a prepare-first tool was called without one; nothing ran.
    CommitRejected,
    /// The handler's output is over the cap and the cap's strategy is `reject`: nothing of it
    /// is shown.
    OutputTooLarge,
    /// The user cancelled the turn before the handler finished; its result, if one came, was
    /// discarded.
    Cancelled,
}

impl ErrorCode {
    /// Every code, in the documentation's order.
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::InvalidArguments,
        ErrorCode::UnknownTool,
        ErrorCode::MalformedCall,
        ErrorCode::DuplicateCallId,
        ErrorCode::ToolRefused,
        ErrorCode::ToolUnavailable,
        ErrorCode::Timeout,
        ErrorCode::InternalError,
        ErrorCode::InvalidToolOutput,
        ErrorCode::SemanticViolation,
        ErrorCode::PermissionDenied,
        ErrorCode::BudgetExhausted,
        ErrorCode::IdempotencyConflict,
        ErrorCode::CommitRejected,
        ErrorCode::OutputTooLarge,
        ErrorCode::Cancelled,
    ];

    /// The stable machine string, e.g. `"invalid_arguments"`.
    pub fn code(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::MalformedCall => "malformed_call",
            ErrorCode::DuplicateCallId => "duplicate_call_id",
            ErrorCode::ToolRefused => "tool_refused",
            ErrorCode::ToolUnavailable => "tool_unavailable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::InvalidToolOutput => "invalid_tool_output",
            ErrorCode::SemanticViolation => "semantic_violation",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::BudgetExhausted => "budget_exhausted",
            ErrorCode::IdempotencyConflict => "idempotency_conflict",
            ErrorCode::CommitRejected => "commit_rejected",
            ErrorCode::OutputTooLarge => "output_too_large",
            ErrorCode::Cancelled => "cancelled",
        }
    }

    /// The code for a stable string, if there is one.
    pub fn from_code(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.code() == code)
    }

    /// Whether repeating the very same call can succeed (transport failures and timeouts).
    pub fn retryable(self) -> bool {
        matches!(self, ErrorCode::ToolUnavailable | ErrorCode::Timeout)
    }

    /// One line saying what the code means, for documentation and reports.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "arguments failed the tool's input schema or a semantic check",
            ErrorCode::UnknownTool => "no tool by that name",
            ErrorCode::MalformedCall => {
                "the tool_use itself is unusable: not JSON, not an object, arguments not an object, missing/empty name or id"
            }
            ErrorCode::DuplicateCallId => "the id was already used by another call in the batch",
            ErrorCode::ToolRefused => "the tool ran and said no; its message is written for the model",
            ErrorCode::ToolUnavailable => "the tool or its service could not be reached",
            ErrorCode::Timeout => "the handler did not finish within its deadline",
            ErrorCode::InternalError => "panic or unexpected error; detail to the private diagnostic sink only",
            ErrorCode::InvalidToolOutput => {
                "the handler's output is not representable as JSON or breaks nesting/size limits"
            }
            ErrorCode::SemanticViolation => {
                "arguments are well-formed but break a rule of the tool's policy (path confinement, bounds)"
            }
            ErrorCode::PermissionDenied => "the caller may not make this call; nothing ran",
            ErrorCode::BudgetExhausted => "the call would exceed the caller's budget; nothing ran",
            ErrorCode::IdempotencyConflict => {
                "the idempotency key was already used for this tool with other arguments; nothing ran"
            }
            ErrorCode::CommitRejected => {
                "the commit does not match its prepare (or none was made), or the token expired; nothing ran"
            }
            ErrorCode::OutputTooLarge => {
                "the output is over the cap and the cap rejects such output; none of it is shown"
            }
            ErrorCode::Cancelled => {
                "the user cancelled the turn before the handler finished; its result was discarded"
            }
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.code()), "duplicate code {}", c.code());
            assert_eq!(ErrorCode::from_code(c.code()), Some(c));
        }
        assert_eq!(ErrorCode::from_code("nope"), None);
    }

    #[test]
    fn only_transport_and_timeout_are_retryable() {
        let retryable: Vec<_> = ErrorCode::ALL
            .into_iter()
            .filter(|c| c.retryable())
            .collect();
        assert_eq!(retryable, [ErrorCode::ToolUnavailable, ErrorCode::Timeout]);
    }
}
