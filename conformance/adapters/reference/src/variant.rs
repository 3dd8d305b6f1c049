//! The legitimate variants of the reference harness: other designs that are just as correct.
//!
//! The broken variants ([`crate::Fault`]) prove the suite has teeth; these prove it is fair.
//! Each variant makes one design choice the reference does not — a coarser partition of the
//! outcome classes, other wording, another head/tail split, another note, fewer capabilities
//! declared — that SPEC.md allows. `harness-conformance selftest` runs the suite against each
//! and requires it to pass every MUST requirement with no ERROR and no BUG IN CASE; a SHOULD may
//! fail only where the variant deliberately departs from it ([`Variant::departs_from`]). A case
//! that fails one of these forbids a valid design: it is a bug in the suite (test262's rule).
//!
//! Like the faults, each is realised at the boundary between the adapter and harness-ref — its
//! handshake, the configuration harness-ref is given, a rewrite of what harness-ref answered —
//! never by looking at a case's id, and none leaves a marker in its output.

use std::fmt;
use std::str::FromStr;

/// One legitimate design choice. The reference itself is no variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Variant {
    /// `malformed_call` is not a class of its own: such calls are answered with the
    /// `invalid_arguments` code, and the handshake declares the fold
    /// (`folds: {"malformed_call": "invalid_arguments"}`, no `malformed_call` in `codes`).
    FoldsMalformedCall,
    /// Arguments that are not a JSON object (an array, `null`, a number, a string, none at all)
    /// for a tool that exists are validated against the tool's schema like any other value, and
    /// fail its root `"type": "object"`: `invalid_arguments`, with the violation. Arguments
    /// text that is not JSON at all stays `malformed_call`.
    NonObjectAsInvalidArguments,
    /// An empty tool name is looked up like any other name and not found: `unknown_tool`, with
    /// the available tools listed (the reference answers it as `malformed_call`, and a blank
    /// one, like this variant, as `unknown_tool`).
    EmptyNameAsUnknownTool,
    /// A blank tool name (whitespace only) is no name at all: `malformed_call` (the reference
    /// looks it up and answers `unknown_tool`).
    BlankNameAsMalformedCall,
    /// Every error message of the core classes is phrased differently but carries the same
    /// facts: the tool, each field's JSON pointer with what was expected and what was
    /// received, the available tools, the tool's own refusal message verbatim, the deadline,
    /// and a next step. (The security gates' refusals keep the reference's wording.)
    RewordedMessages,
    /// Every error message starts with its code, `error[invalid_arguments]: `, for every
    /// class (the security gates' refusals included).
    CodePrefixedMessages,
    /// Invalid-arguments messages in the style of Python validators (pydantic): one line per
    /// location as a dotted path (`items.3.qty`, `arguments` for the root), JSON types by
    /// their Python names (`int`, `str`, `list`, `dict`, `None`). Departs from TEACH-3 (a
    /// SHOULD: locations as JSON pointers), which it may fail.
    PythonStyleMessages,
    /// An unknown-tool message that does not list the available tools (a harness may keep its
    /// tool list private). Departs from CALL-2 (a SHOULD), which it may fail.
    UnknownToolWithoutList,
    /// Every call of a reused id is refused, the first one included (which of two calls the
    /// model meant cannot be known). Departs from CORR-6 (a SHOULD: the first is processed
    /// normally), which it may fail.
    RefusesEveryDuplicateId,
    /// Head+tail keeps 80% of the text budget at the head and 20% at the tail.
    HeadHeavySplit,
    /// Head+tail keeps 20% of the text budget at the head and 80% at the tail.
    TailHeavySplit,
    /// The truncation note comes after the kept tail, not between head and tail.
    NoteAfterTail,
    /// The truncation note comes first, on its own line, before the kept head (as Inspect AI
    /// prints its notice).
    NoteBeforeHead,
    /// Another honest note: lines first, digit groups separated by commas, "omitted", no
    /// brackets (`... 41 lines, 12,345 bytes omitted from the middle of 20,000 ...`).
    GroupedNote,
    /// A short note inside the text, with no line breaks around it and no line count
    /// (`...line 12[… 3000 chars cut …]line 88...`). Departs from HT-3 (a SHOULD: the note
    /// states the omitted lines), which it may fail.
    InlineNote,
    /// Error messages state the condition only, never a next step. Departs from TEACH-8 (a
    /// SHOULD), which it may fail.
    NoRemedies,
    /// The cap keeps the head only: `strategies: ["head_only"]`. Cases that ask for head+tail
    /// are skipped, and HT-1, HT-2 and HT-3 do not apply.
    HeadOnlyCap,
    /// The harness has no machine codes at all (`codes` absent): every class check is unmapped
    /// and OUT-7 is NOT TESTABLE.
    NoCodes,
    /// A fixed cap in the other unit: 16,384 chars head+tail, not configurable. Cases that
    /// configure a cap, ask for bytes or for head-only are skipped; CAP-9 and HT-4 do not apply.
    FixedCharCap,
    /// A fixed deadline of 1,000 ms for every handler, not configurable: the deadline cases
    /// sleep relative to it.
    FixedDeadline,
    /// The adapter does not report the transcript (`history: false`): the history checks are
    /// not testable.
    NoHistory,
    /// The harness does not report retryability (`retryability: false`): OUT-6 is not testable.
    NoRetryability,
    /// Structured output is pretty-printed (two-space indents, one member per line) instead of
    /// compact; it still parses back to the handler's value.
    PrettyJson,
    /// Structured output as Python's `json.dumps` writes it by default: `", "` and `": "`
    /// between items, every non-ASCII character escaped (`\u00e9`).
    PythonJson,
    /// Values JSON has no form for are converted so they can be recovered, as pydantic's
    /// `to_jsonable_python` and JavaScript's `toJSON` conventions do: a set as an array of its
    /// members, bytes as base64, a date as RFC 3339 text, a cycle's back reference as the
    /// marker `"[Circular]"`. An opaque object, which has no such form, is still refused.
    ConvertsNonJson,
    /// The repair profile (SPEC "repair profile"): the handshake declares `repair` and
    /// harness-ref runs with its repair mode on, so a nested array or object sent as its JSON
    /// text is decoded when that alone makes the call valid, and the result says so. The
    /// runner selects this configuration with `--harness "harness-ref-adapter --variant
    /// repairs-double-encoded"`; the reference itself does not repair.
    RepairsDoubleEncoded,
    /// Handlers are never interrupted: a cancelled turn answers its running calls
    /// `cancelled` at once and discards their late results, but the handlers never see the
    /// cancellation and run to the end (a thread cannot be stopped from outside). Departs from
    /// CANCEL-2 (a SHOULD), which it may fail.
    UninterruptibleHandlers,
    /// With parallel tool calls disabled, the first call of a batch runs and every other call
    /// is refused visibly (`tool_refused`: one call per turn), never dropped.
    RefusesExtraCallsWhenSerial,
    /// A text-only harness: a tool answer holding an image, a resource, audio or a resource
    /// link is refused with an error that names the kind it cannot show (`image content is not
    /// supported`), as a client for a model without vision must. Content blocks are never
    /// delivered, so BLOCK-3 (order) is NOT TESTABLE for it; every other block requirement
    /// must pass.
    RefusesNonTextBlocks,
    /// Arguments text that repeats a key is read by one parser that keeps the key's last value
    /// (as `JSON.parse` and Python's `json.loads` do), for validation and handler alike: the
    /// handler receives exactly what was validated. Departs from CALL-10 (a SHOULD: refuse
    /// such text as malformed), which it may fail.
    KeepsLastDuplicateKey,
    /// A harness without link blocks: a resource link reaches the model as a text block that
    /// keeps its URI and name (and its other fields), in its place among the blocks.
    RendersLinksAsText,
    /// Resumed from a saved transcript (feature `resume`), the calls it left open are answered
    /// as interrupted (`cancelled`, nothing run) rather than run: the model calls them again if
    /// it still needs them (as a coding agent that marks pending calls aborted does).
    InterruptsOpenCalls,
    /// A timeout that keeps a stream's partial output says it timed out first, on the line
    /// before the output (`command timed out after 250 ms; output so far:` and the output), as
    /// shells and coding agents print it; harness-ref puts the message after the output.
    TimeoutNoteFirst,
    // Issue 30 area 11: the harness's note told apart from a copy in the output (FORGE-1).
    /// The truncation note carries a nonce the harness told the model
    /// (`[truncated 9f2c…: 3000 of 5000 chars omitted …]`), reported as each result's
    /// `note_nonce` and declared as `{nonce}` in the note's form; copies in the output are not
    /// escaped. A copy cannot carry the nonce, so the model tells it from the real note.
    NonceInNote,
    /// The truncation note is never in the content: the cut content is the kept head and tail,
    /// and the note is the result's truncation metadata, which the model is shown beside it
    /// (`cap.note.outside`); copies in the output are not escaped. Departs from HT-3 (a
    /// SHOULD: the omitted line count), which the metadata does not state.
    NoteBesideContent,
    /// An image over the model provider's limit is scaled down to fit it (aspect ratio kept)
    /// and delivered with a note saying so, instead of refused (SPEC.md BLOCK-6: reduce or
    /// refuse, visibly).
    ReducesOversizedImages,
    // Issue 30 area 7: the spill lifecycle (SPILL-1..5).
    /// Never evicts: every artifact a session spilled is kept until the session ends, and the
    /// declared bound (`cap.spill`: 64 artifacts) is larger than any session of the suite
    /// reaches.
    KeepsSpillsUntilSessionEnd,
    /// Declares and keeps the smallest bound, one artifact per session, beyond the artifacts
    /// the transcript still names: every unreferenced artifact is evicted at the next spill.
    SpillBoundOfOne,
    // Issue 30 area 8: calls paused for the user's decision (PAUSE-1..4).
    /// A call the user denied is answered in other words (`Declined by the user: …`) with the
    /// same facts: the tool, that the user said no, that nothing ran, and what to do next.
    RewordedDenials,
    /// A paused call whose decision never comes is refused at the end of the wait with class
    /// `timeout` (`timed out waiting for the user's approval`), not `permission_denied`.
    UndecidedCallsTimeOut,
    // Issue 30 area 5: results the provider takes on replay (REPLAY-1).
    /// An empty success is sent with a placeholder, `(no output)`, instead of without content
    /// (as zed and hermes-agent do): the provider takes both.
    PlaceholderForEmptyOutput,
    /// Context-aware, with headroom: a result gets at most half of the room left in the
    /// model's context (the rest is kept for the model's answer), and never more than the
    /// cap. A smaller cap than the suite's minimum is still correct (SPEC.md TOKCAP-3).
    ContextHeadroom,
    /// Frames every result in `<tool_output>` … `</tool_output>` and escapes copies of the
    /// markers in outputs (`&lt;/tool_output`) before capping; declares `wrapper` (SPEC.md
    /// WRAP-1).
    WrapsResults,
    /// Frames every result in markers that carry a nonce the model is told
    /// (`<tool_output nonce="…">`), and shows outputs as they are; declares `wrapper` with
    /// `{nonce}` and reports each result's `wrapper_nonce`.
    WrapsResultsWithNonce,
}

impl Variant {
    /// Every variant, in documentation order.
    pub const ALL: [Variant; 44] = [
        Variant::FoldsMalformedCall,
        Variant::NonObjectAsInvalidArguments,
        Variant::EmptyNameAsUnknownTool,
        Variant::BlankNameAsMalformedCall,
        Variant::RewordedMessages,
        Variant::CodePrefixedMessages,
        Variant::PythonStyleMessages,
        Variant::UnknownToolWithoutList,
        Variant::RefusesEveryDuplicateId,
        Variant::HeadHeavySplit,
        Variant::TailHeavySplit,
        Variant::NoteAfterTail,
        Variant::NoteBeforeHead,
        Variant::GroupedNote,
        Variant::InlineNote,
        Variant::NoRemedies,
        Variant::HeadOnlyCap,
        Variant::NoCodes,
        Variant::FixedCharCap,
        Variant::FixedDeadline,
        Variant::NoHistory,
        Variant::NoRetryability,
        Variant::PrettyJson,
        Variant::PythonJson,
        Variant::ConvertsNonJson,
        Variant::RepairsDoubleEncoded,
        Variant::UninterruptibleHandlers,
        Variant::RefusesExtraCallsWhenSerial,
        Variant::RefusesNonTextBlocks,
        Variant::KeepsLastDuplicateKey,
        Variant::RendersLinksAsText,
        Variant::InterruptsOpenCalls,
        Variant::TimeoutNoteFirst,
        Variant::NonceInNote,
        Variant::NoteBesideContent,
        Variant::ReducesOversizedImages,
        Variant::KeepsSpillsUntilSessionEnd,
        Variant::SpillBoundOfOne,
        Variant::RewordedDenials,
        Variant::UndecidedCallsTimeOut,
        Variant::PlaceholderForEmptyOutput,
        Variant::ContextHeadroom,
        Variant::WrapsResults,
        Variant::WrapsResultsWithNonce,
    ];

    /// The kebab-case name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Variant::FoldsMalformedCall => "folds-malformed-call",
            Variant::NonObjectAsInvalidArguments => "non-object-as-invalid-arguments",
            Variant::EmptyNameAsUnknownTool => "empty-name-as-unknown-tool",
            Variant::BlankNameAsMalformedCall => "blank-name-as-malformed-call",
            Variant::RewordedMessages => "reworded-messages",
            Variant::CodePrefixedMessages => "code-prefixed-messages",
            Variant::PythonStyleMessages => "python-style-messages",
            Variant::UnknownToolWithoutList => "unknown-tool-without-list",
            Variant::RefusesEveryDuplicateId => "refuses-every-duplicate-id",
            Variant::HeadHeavySplit => "head-heavy-split",
            Variant::TailHeavySplit => "tail-heavy-split",
            Variant::NoteAfterTail => "note-after-tail",
            Variant::NoteBeforeHead => "note-before-head",
            Variant::GroupedNote => "grouped-note",
            Variant::InlineNote => "inline-note",
            Variant::NoRemedies => "no-remedies",
            Variant::HeadOnlyCap => "head-only-cap",
            Variant::NoCodes => "no-codes",
            Variant::FixedCharCap => "fixed-char-cap",
            Variant::FixedDeadline => "fixed-deadline",
            Variant::NoHistory => "no-history",
            Variant::NoRetryability => "no-retryability",
            Variant::PrettyJson => "pretty-json",
            Variant::PythonJson => "python-json",
            Variant::ConvertsNonJson => "converts-non-json",
            Variant::RepairsDoubleEncoded => "repairs-double-encoded",
            Variant::UninterruptibleHandlers => "uninterruptible-handlers",
            Variant::RefusesExtraCallsWhenSerial => "refuses-extra-calls-when-serial",
            Variant::RefusesNonTextBlocks => "refuses-non-text-blocks",
            Variant::KeepsLastDuplicateKey => "keeps-last-duplicate-key",
            Variant::RendersLinksAsText => "renders-links-as-text",
            Variant::InterruptsOpenCalls => "interrupts-open-calls",
            Variant::TimeoutNoteFirst => "timeout-note-first",
            Variant::NonceInNote => "nonce-in-note",
            Variant::NoteBesideContent => "note-beside-content",
            Variant::ReducesOversizedImages => "reduces-oversized-images",
            Variant::KeepsSpillsUntilSessionEnd => "keeps-spills-until-session-end",
            Variant::SpillBoundOfOne => "spill-bound-of-one",
            Variant::RewordedDenials => "reworded-denials",
            Variant::UndecidedCallsTimeOut => "undecided-calls-time-out",
            Variant::PlaceholderForEmptyOutput => "placeholder-for-empty-output",
            Variant::ContextHeadroom => "context-headroom",
            Variant::WrapsResults => "wraps-results",
            Variant::WrapsResultsWithNonce => "wraps-results-with-nonce",
        }
    }

    /// One line saying what the variant does differently.
    pub fn describe(self) -> &'static str {
        match self {
            Variant::FoldsMalformedCall => {
                "answers malformed calls as invalid_arguments and declares the fold"
            }
            Variant::NonObjectAsInvalidArguments => {
                "validates non-object arguments against the tool's schema: invalid_arguments"
            }
            Variant::EmptyNameAsUnknownTool => {
                "looks up an empty tool name: unknown_tool, with the available tools"
            }
            Variant::BlankNameAsMalformedCall => {
                "refuses a blank tool name as malformed_call instead of looking it up"
            }
            Variant::RewordedMessages => {
                "phrases every error message differently, with the same facts"
            }
            Variant::CodePrefixedMessages => "starts every error message with its code",
            Variant::PythonStyleMessages => {
                "words invalid arguments like a Python validator: dotted paths, Python type names (departs from TEACH-3)"
            }
            Variant::UnknownToolWithoutList => {
                "does not list the available tools for an unknown one (departs from CALL-2)"
            }
            Variant::RefusesEveryDuplicateId => {
                "refuses every call of a reused id, the first one too (departs from CORR-6)"
            }
            Variant::HeadHeavySplit => "keeps 80% of the cut's budget at the head, 20% at the tail",
            Variant::TailHeavySplit => "keeps 20% of the cut's budget at the head, 80% at the tail",
            Variant::NoteAfterTail => "puts the truncation note after the kept tail",
            Variant::NoteBeforeHead => "puts the truncation note first, before the kept head",
            Variant::GroupedNote => {
                "writes another honest note: lines first, digit groups, no brackets"
            }
            Variant::InlineNote => {
                "puts a short note inside the text, without line breaks or a line count (departs from HT-3)"
            }
            Variant::NoRemedies => "states the condition only, never a next step (departs from TEACH-8)",
            Variant::HeadOnlyCap => "caps keeping the head only, and has no head+tail",
            Variant::NoCodes => "has no machine codes at all",
            Variant::FixedCharCap => "has a fixed 16,384-char head+tail cap that cannot be configured",
            Variant::FixedDeadline => "has a fixed 1,000 ms deadline that cannot be configured",
            Variant::NoHistory => "does not report the transcript",
            Variant::NoRetryability => "does not report retryability",
            Variant::PrettyJson => "pretty-prints structured output",
            Variant::ConvertsNonJson => {
                "converts a set to an array, bytes to base64, a date to RFC 3339 text and a cycle to \"[Circular]\""
            }
            Variant::PythonJson => {
                "writes structured output as Python's json.dumps does: spaced, non-ASCII escaped"
            }
            Variant::RepairsDoubleEncoded => {
                "declares repair: decodes a nested array or object sent as JSON text, and says so"
            }
            Variant::UninterruptibleHandlers => {
                "answers cancelled calls at once but never stops their handlers (departs from CANCEL-2)"
            }
            Variant::RefusesExtraCallsWhenSerial => {
                "with parallel tool calls disabled, runs the first call and refuses the others visibly"
            }
            Variant::RefusesNonTextBlocks => {
                "refuses a tool answer holding an image, a resource, audio or a link, naming the kind it cannot show"
            }
            Variant::RendersLinksAsText => {
                "gives a resource link to the model as text keeping its URI and name"
            }
            Variant::TimeoutNoteFirst => {
                "says a streamed call timed out on the line before the output it kept, not after it"
            }
            Variant::KeepsLastDuplicateKey => {
                "runs arguments text that repeats a key with the key's last value, validated and handed alike (departs from CALL-10)"
            }
            Variant::InterruptsOpenCalls => {
                "answers the calls a resumed transcript left open as interrupted instead of running them"
            }
            Variant::NonceInNote => {
                "authenticates its truncation note with a nonce instead of escaping copies of it"
            }
            Variant::NoteBesideContent => {
                "shows its truncation note as metadata beside the content, never in it (departs from HT-3)"
            }
            Variant::ReducesOversizedImages => {
                "scales an image over the provider's limit down to fit it and says so, instead of refusing it"
            }
            Variant::KeepsSpillsUntilSessionEnd => {
                "never evicts a spilled output: a session keeps them all, within its declared bound of 64, until it ends"
            }
            Variant::SpillBoundOfOne => {
                "declares a spill bound of one artifact per session and evicts every unreferenced one at the next spill"
            }
            Variant::RewordedDenials => {
                "words a call the user denied its own way, with the same facts"
            }
            Variant::UndecidedCallsTimeOut => {
                "refuses a paused call whose decision never came with class timeout"
            }
            Variant::PlaceholderForEmptyOutput => {
                "sends an empty success as the placeholder text (no output) instead of without content"
            }
            Variant::ContextHeadroom => {
                "caps a result at half the room left in the model's context (or its cap, if smaller)"
            }
            Variant::WrapsResults => {
                "frames results in <tool_output> markers, escaping copies of them in outputs"
            }
            Variant::WrapsResultsWithNonce => {
                "frames results in markers that carry a nonce the model is told"
            }
        }
    }

    /// The SHOULD requirements this variant deliberately departs from, and so may fail. Every
    /// other requirement it must pass (or, where it declares less, find not testable or not
    /// applicable).
    pub fn departs_from(self) -> &'static [&'static str] {
        match self {
            Variant::NoRemedies => &["TEACH-8"],
            Variant::PythonStyleMessages => &["TEACH-3"],
            Variant::UnknownToolWithoutList => &["CALL-2"],
            Variant::InlineNote => &["HT-3"],
            Variant::RefusesEveryDuplicateId => &["CORR-6"],
            Variant::UninterruptibleHandlers => &["CANCEL-2"],
            Variant::KeepsLastDuplicateKey => &["CALL-10"],
            Variant::NoteBesideContent => &["HT-3"],
            _ => &[],
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a legitimate variant's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::names::write_unknown(f, "variant", &self.0, &Variant::ALL, Variant::name)
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::find(&Variant::ALL, Variant::name, s)
            .ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fault;

    #[test]
    fn names_round_trip_are_unique_and_never_a_fault_name() {
        let mut seen = std::collections::BTreeSet::new();
        for variant in Variant::ALL {
            assert!(seen.insert(variant.name()), "duplicate {}", variant.name());
            assert_eq!(variant.name().parse::<Variant>(), Ok(variant));
            assert!(variant.name().parse::<Fault>().is_err());
            assert!(!variant.describe().is_empty() && !variant.describe().contains('\n'));
            for id in variant.departs_from() {
                assert!(id.contains('-'), "{id} is a requirement id");
            }
        }
        let err = "nope\u{1b}".parse::<Variant>().unwrap_err().to_string();
        assert!(err.contains("no-codes") && err.contains("\\u{1b}"), "{err}");
    }
}
