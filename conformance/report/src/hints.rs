//! The likely cause of an adapter ERROR, in one table.
//!
//! A first mistake in an adapter — a stray `print()` to stdout, a wrong `--harness` command, a
//! kit older than the runner or not installed at all — makes the same ERROR for every case, in the words of a JSON
//! parser. The terminal report collapses identical ERRORs into one (see `terminal`) and adds
//! the hint from [`HINTS`] whose pattern the message contains, so a reader learns what to fix
//! rather than what the decoder saw. The table is data: add a row (and its test case in
//! `tests::each_hint_matches_its_example`) to teach a new cause; codes are API and are never
//! renamed or reused.

/// One known cause of an ERROR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// A stable code for the cause (`stdout-pollution`, …).
    pub code: &'static str,
    /// What to do about it, in plain words.
    pub advice: &'static str,
    /// Substrings of the runner's own message wording that identify the cause (any one).
    pub patterns: &'static [&'static str],
}

/// Every known cause, most specific first: the first row with a matching pattern wins.
pub const HINTS: &[Hint] = &[
    Hint {
        code: "protocol-mismatch",
        advice: "the adapter and the runner speak different protocol versions or message types: \
                 update the adapter kit (or this runner) so both speak the same protocol \
                 (PROTOCOL.md says which messages and fields each version has)",
        patterns: &[
            "speaks protocol",
            "unknown variant",
            "missing field `protocol`",
        ],
    },
    Hint {
        code: "stdout-pollution",
        advice: "a line on the adapter's stdout is not a protocol message: stdout carries only \
                 the protocol, so write logs and debug prints to stderr (Python: \
                 print(..., file=sys.stderr); Node: console.error)",
        patterns: &[
            "not a valid message: expected",
            "not a valid message: trailing characters",
            "not a valid message: invalid type",
            "not a valid message: key must be a string",
            "not a valid message: EOF while parsing",
            "not a valid hello: not UTF-8",
            "not a valid message: not UTF-8",
        ],
    },
    Hint {
        code: "kit-missing",
        advice: "the adapter kit is not installed where the adapter runs: `pip install \
                 harness-conformance-adapter==<version>` (Python) or `npm install -D \
                 @harness-conformance/adapter@<version>` (TypeScript), at this runner's version \
                 (`harness-conformance --version`); the GitHub Action installs it itself (its \
                 `kit` input)",
        patterns: &[
            "No module named 'harness_conformance_adapter'",
            "Cannot find package '@harness-conformance/adapter'",
            "Cannot find module '@harness-conformance/adapter'",
        ],
    },
    Hint {
        code: "wrong-command",
        advice: "the adapter exited before it said hello: run the --harness command by hand to \
                 see why (a typo, a missing interpreter, file or virtual environment, a wrong \
                 working directory); its stderr is quoted above",
        patterns: &[
            "closed its stdout before answering the handshake",
            "cannot start `sh -c",
            "cannot send `start`",
        ],
    },
];

/// The hint for an ERROR message, if its cause is known.
pub fn for_message(message: &str) -> Option<&'static Hint> {
    HINTS
        .iter()
        .find(|h| h.patterns.iter().any(|p| message.contains(p)))
}

/// The hint for the first of `messages` whose cause is known.
pub fn for_messages(messages: &[String]) -> Option<&'static Hint> {
    messages.iter().find_map(|m| for_message(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One real message per hint, in the runner's wording (conformance/driver/src/client.rs),
    /// and messages that must not get a hint.
    const EXAMPLES: &[(&str, Option<&str>)] = &[
        (
            "the handshake answer is not a valid hello: not a valid message: expected value at line 1 column 1; the adapter sent \"loading model...\"",
            Some("stdout-pollution"),
        ),
        (
            "the reply is not a valid message: trailing characters at line 1 column 5; the adapter sent \"{} {}\"",
            Some("stdout-pollution"),
        ),
        (
            "the adapter closed its stdout before answering the handshake (exit status: 127); its stderr: sh: 1: pyhton3: not found",
            Some("wrong-command"),
        ),
        (
            "the adapter closed its stdout before answering the handshake (exit status: 1); its stderr: ModuleNotFoundError: No module named 'harness_conformance_adapter'",
            Some("kit-missing"),
        ),
        (
            "the adapter closed its stdout before answering the handshake (exit status: 1); its stderr: Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@harness-conformance/adapter' imported from /p/dist/adapter.js",
            Some("kit-missing"),
        ),
        (
            "the adapter speaks protocol 3 and the runner speaks 2",
            Some("protocol-mismatch"),
        ),
        (
            "the reply is not a valid message: unknown variant `result_v9`, expected one of `reply`",
            Some("protocol-mismatch"),
        ),
        ("no answer to case x within 10.0s; the adapter's process group was killed", None),
        ("expected is_error true, got false", None),
    ];

    #[test]
    fn each_hint_matches_its_example() {
        for (message, code) in EXAMPLES {
            assert_eq!(for_message(message).map(|h| h.code), *code, "{message}");
        }
        for hint in HINTS {
            assert!(
                EXAMPLES.iter().any(|(_, c)| *c == Some(hint.code)),
                "hint {} has no example",
                hint.code
            );
        }
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<&str> = HINTS.iter().map(|h| h.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), HINTS.len());
    }
}
