//! The deliberately broken variants of the reference harness.
//!
//! `harness-conformance selftest` runs the suite against each variant and expects at least one
//! case to fail for every one of them: a variant no case catches is a gap in the suite. Each
//! fault is one mistake real harnesses make, realised by perturbing the reference at the
//! boundary between this adapter and harness-ref (wrapping the handler, rewriting the calls
//! before they reach the harness, configuring the harness differently, or post-processing its
//! results). None leaves a marker in its output: a variant can only be caught by what it does.

use std::fmt;
use std::str::FromStr;

/// One deliberate fault. `None` (no fault) is the reference itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Fault {
    /// The handler runs as soon as the call arrives; validation only decides the result.
    RunsHandlerBeforeValidating,
    /// Strings and numbers are converted to the type the schema asks before validating.
    CoercesTypes,
    /// Fields a closed object does not allow are silently removed, then the call runs.
    DropsUnknownFields,
    /// Head+tail is asked for, head-only is applied.
    CapsHeadOnly,
    /// Asked for a byte cap, the harness counts chars.
    CountsCharsForBytes,
    /// The cut is made at a byte offset and the broken sequence repaired with U+FFFD.
    SplitsCodePoint,
    /// An internal error's detail is appended to the content the model sees.
    LeaksInternalError,
    /// Results carry no `tool_use_id`.
    LosesId,
    /// Adjacent results exchange their ids.
    SwapsIds,
    /// A truncated output carries no note saying so.
    OmitsNote,
    /// The output is cut to the full limit, then the note is added beyond it.
    NoteOutsideCap,
    /// Error results are flagged as successes.
    ErrorAsSuccess,
    /// A call that could not be parsed gets no result at all.
    DropsMalformedCall,
    /// Handlers run without a deadline: the harness waits for them forever.
    NoDeadline,
    /// A call naming an unknown tool crashes the harness instead of getting a result.
    UnknownToolCrash,
    /// A NaN or infinite output is serialised as JSON `null` and reported as a success.
    NanAsNull,
    /// Values JSON has no form for are written as their debug text (Python's
    /// `json.dumps(default=str)`) and reported as a success.
    StringifiesNonJson,
    /// Values JSON has no form for are encoded as `JSON.stringify` does (a set or an opaque
    /// object as `{}`) and a cycle as the marker `"[Circular]"`, reported as a success.
    EncodesLikeJsonStringify,
    /// An output that contains itself sends the encoder into unbounded recursion: the turn
    /// ends with no results.
    CrashesOnCycle,
    /// Tools are registered without their output schema: structured results are never checked.
    IgnoresOutputSchema,
    /// A structured result is checked against the output schema only when it is truthy, so
    /// `0`, `""`, `false` and `null` pass whatever the schema says.
    SkipsFalsyOutputValidation,
    /// A tool's refusal is checked against its output schema as if it were a result, and
    /// answered as `invalid_tool_output`: the tool's message is lost.
    ValidatesErrorResults,
    /// Handlers receive the transcript's own arguments, so their mutations change history.
    MutationLeaks,
    /// Only the first schema violation is reported.
    FirstViolationOnly,
    /// Internal errors are flagged as retryable.
    InternalRetryable,
    /// Outputs pass through whatever their size.
    NoCap,
    /// A property sent as `null` is treated as absent.
    NullsAsAbsent,
    /// An invalid-arguments message ends with the tool's whole input schema.
    DumpsSchema,
    /// Arguments text is read up to its first JSON value, and a JSON string holding an object
    /// is decoded again.
    ParsesArgumentsLeniently,
    /// Tool names are matched ignoring case, surrounding blanks and `-` versus `_`.
    FoldsToolNames,
    /// Handlers get a shallow copy of the arguments: changes inside nested values reach the
    /// transcript.
    ShallowCopiesArguments,
    /// A failing handler is run a second time, whatever the failure.
    RetriesAnyFailure,
    /// A call that reuses an earlier call's id in the turn is run like any other.
    AcceptsDuplicateIds,
    /// `\r\n` in text outputs becomes `\n`.
    NormalizesLineEndings,
    /// A turn's tool subset is never consulted: every registered tool can be called.
    RunsToolsNotOffered,
    /// The turn's stop reason is never read: the last call of a turn cut off by the output
    /// limit runs with whatever was recovered of its arguments.
    RunsCutOffCalls,
    /// Results are emitted in the order handlers finished and given the calls' ids by
    /// position, so a slow first call's id goes to a fast call's output.
    PairsResultsByPosition,
    /// An output whose kept head already holds note-like text (`[truncated …`) is taken to be
    /// capped already: the cut gets no note of its own.
    TrustsNoteInOutput,
    /// Under a `reject` cap, the too-large answer is flagged as a success.
    RejectsAsSuccess,
    /// Under a `spill` cap, the preview is the limit's worth of head and the note is added
    /// after it, over the cap.
    SpillPreviewOverCap,
    /// Under a `spill` cap, the artifact keeps the preview, not the full output.
    SpillsCutArtifact,
    /// Under a `lines` cap, lines are counted as `\n` characters: an unterminated last line is
    /// not counted, so one line more than the limit passes. (Modelled as a lines cap one line
    /// larger, which is that count exactly for an output whose last line has no newline.)
    CountsNewlinesAsLines,
    /// Security gates: a call runs whatever capabilities its caller holds.
    IgnoresCapabilities,
    /// Security gates: idempotency keys are ignored, so a duplicate delivery runs again.
    RerunsDuplicateKeys,
    /// Security gates: a commit runs whatever token it presents, and prepare-first tools run
    /// when called directly.
    CommitsUnverifiedTokens,
    /// Security gates: path arguments are checked as text only; links are not followed.
    ConfinesPathsLexically,
    /// Security gates: sensitive argument values appear in errors and previews.
    EchoesSensitiveArguments,
    /// Repair profile: besides double-encoded arrays and objects, scalars in strings are
    /// "repaired" too (`"5"` becomes `5` for an integer), changing what the model sent.
    RepairsScalarStrings,
    /// Repair profile: every nested string whose text is a JSON array or object is decoded, even
    /// where the schema accepts a string (a string field, an `anyOf` with a string branch).
    RepairsStringsTheSchemaAccepts,
    /// Repair profile: a decoded value runs the handler without being validated again, so a
    /// repair that still breaks the schema reaches the tool.
    RunsUnvalidatedRepairs,
    /// Repair profile: the repair is never reported, so the model keeps double-encoding.
    RepairsSilently,
    /// A cancelled turn answers only the calls that finished: the cancelled calls get no
    /// result at all.
    DropsCancelledResults,
    /// A cancelled call is answered as a success with empty content, as if it had returned
    /// nothing.
    CancelledAsEmptySuccess,
    /// An inner client's short default deadline (200 ms) applies whatever deadline was
    /// configured.
    SdkDefaultDeadline,
    /// With parallel tool calls disabled, only the turn's first call is run and answered; the
    /// others vanish.
    SerialDropsExtraCalls,
    /// A slow success (its handler slept) ends with the time the turn had taken, in
    /// microseconds.
    ElapsedInContent,
    /// A timeout's content is a generic failure sentence with a retry hint, saying nothing of
    /// the time: the model cannot tell a slow call from a broken one.
    GenericTimeoutMessage,
    /// An image or a resource a tool returns is replaced by a text placeholder (`[image]`),
    /// and the result is a success (anthropics/claude-ai-mcp #969, github/copilot-cli #4536).
    ReplacesBlocksWithPlaceholders,
    /// An image or a binary resource is written into the text as a base64 data URI
    /// (CommandCodeAI/command-code #902).
    FlattensBlocksToText,
    /// A raw MCP result's `isError: true` is not mapped onto the error flag.
    IgnoresMcpIsError,
    /// Text blocks come first and every other block after them.
    MovesBlocksAfterText,
    /// The cap counts an image's base64 with the text and cuts the image's data to fit.
    CapsBlockPayloads,
    /// Declares no cap (`cap: null`), honestly, and passes every output through whole: the
    /// missing cap, which only CAP-1 owns.
    HasNoCap,
    /// In a turn cut off by a length stop, the call being written gets no result at all.
    DropsCutOffCall,
    /// A call whose arguments fail the schema raises out of the dispatcher: the turn ends and
    /// no call of it gets a result.
    CrashesOnInvalidArguments,
    /// A call whose handler raised (a refusal, a transport or an internal error) gets no result.
    DropsFailedCalls,
    /// A call that overran its deadline gets no result.
    DropsTimedOutCalls,
    /// An output over the cap raises while it is capped: the turn ends with no results.
    CrashesOnLargeOutput,
    /// A call a security gate refuses (authorization, budget, idempotency, commit, bounds or
    /// paths) gets no result.
    DropsRefusedCalls,
    /// A result that carries an image or a resource is dropped (kirodotdev/Kiro #8960 throws on
    /// such a block and loses the result).
    DropsBlockResults,
    /// The truncation note states twice the number of lines that were omitted.
    MiscountsOmittedLines,
    /// The truncation note's line counts leave out the newlines in the output's last 32 bytes:
    /// a count over fixed blocks that drops (or miscounts) the short remainder at the end, so
    /// an output ending in short lines is said to have fewer lines, and fewer omitted, than it
    /// has. (Modelled under head+tail from the kept tail, which ends where the output ends.)
    MissesTheLastLinesInItsCount,
    /// A domain refusal's or transport failure's message over the cap is cut head-only at the
    /// limit, with no note: the rules for output are not applied to error text, and the
    /// message's last line (`retry after 30s`) is lost.
    CutsErrorsHeadOnly,
    /// Arguments text is parsed twice: the validator's parser keeps a repeated key's first
    /// value, the handler's its last, so `{"amount": 5, "amount": 5000}` is validated as 5 and
    /// runs with 5000 (a parser differential).
    ParsesArgumentsTwice,
    /// Tools are validated against their schema as rewritten for a provider that rejects
    /// references (google-gemini/gemini-cli #13326): `$defs` dropped, every `$ref` and
    /// `$dynamicRef` accepting anything, so a violation reachable only through a reference runs.
    ValidatesWithoutRefs,
    /// A `resource_link` block a tool returns is dropped and the rest of the result is
    /// delivered as a success (knowsuchagency/mcp2cli #89).
    DropsResourceLinks,
    /// A converter that knows only text, images and embedded resources throws on any other
    /// block kind (a resource link, audio), and the whole result is lost to an internal error
    /// that does not say what was refused (kirodotdev/Kiro #8960).
    ThrowsOnUnknownBlockKind,
    /// A resource link is rewritten to text that keeps its name or title but not its URI: the
    /// model cannot use the link (agentclientprotocol/claude-agent-acp PR #1093).
    RendersLinksWithoutUri,
    /// The cut is found by dropping one character at a time from a fresh copy of the text and
    /// measuring the copy again until it fits: the right content, in time quadratic in the
    /// output (Conway-Research/automaton PR #358).
    CapsInQuadraticTime,
    /// Resumed from a saved transcript, every saved tool_result is kept, also one whose call a
    /// compaction dropped or that came from another transcript (openai/codex #8479): the
    /// resumed transcript answers a call the model did not make in it.
    KeepsResultsOfCompactedCalls,
    /// Resumed from a saved transcript, each open call is answered as interrupted by the
    /// session's end and then run and answered again: two results for one call.
    AnswersOpenCallsTwice,
    /// Resumed from a saved transcript, the whole turn is run again: calls that already had
    /// their result run a second time and their saved results are replaced.
    RerunsAnsweredCalls,
    /// Resumed from a saved transcript, only the saved results come back: the calls the
    /// session left open stay without a result (openai/codex #17630).
    LeavesOpenCallsUnanswered,
    /// A handler whose run ended in a transport failure is run once more, though the failure
    /// may have come after its effect (the reply was lost, not the request): an email sent
    /// twice (claude-code #94273, anthropics/anthropic-sdk-python #1749).
    RetriesTransportFailures,
    /// Declares `stream`, and a timeout of a streaming handler shows the timeout message alone:
    /// the output written before the deadline is dropped (sst/opencode #45881, openai/codex
    /// #34742).
    DropsPartialOutput,
    /// A timeout of a streaming handler is answered as a success holding the output written
    /// before the deadline, as if the call had finished.
    PartialOutputAsSuccess,
    // Issue 30 area 11: a copy of the harness's note in the output (FORGE-1).
    /// Declares its note form and the escapes that keep copies of it apart (as the reference
    /// does) but does not escape: a handler's copy of the note, with another count, reaches the
    /// model as a second note, or as the only one (claude-code #75758).
    TrustsForgedNotes,
    /// Property names are matched to the declared ones case-insensitively (a lookup that
    /// lower-cases keys): `City` is taken for the declared `city` before validating, so a
    /// required property the model misspelt in case passes and the call runs (issue 27's fault
    /// map: VAL-5 × encoding).
    FoldsPropertyNames,
    /// An image over the model provider's limit is sent on unchanged: the provider refuses the
    /// request, and every later one that replays the transcript (anthropics/claude-code
    /// #46656).
    PassesOversizedImages,
    /// An image over the model provider's limit is dropped, and the rest of the result is
    /// delivered as a success with no word of it.
    DropsOversizedImages,
    /// The oversized image is refused for its call, but the transcript keeps it: every later
    /// call of the turn fails as the provider refuses the request that replays it.
    OversizedImagePoisonsLaterCalls,
    // Issue 30 area 7: the spill lifecycle (SPILL-1..5).
    /// Spilled outputs are never removed, neither evicted over the declared bound nor at a
    /// session's end, which leaves every artifact behind (sst/opencode #29694: 63 GB of
    /// spilled outputs).
    SpillsNeverCleaned,
    /// Over its bound, the store evicts its oldest artifacts whether or not a result in the
    /// transcript still names them (QwenLM/qwen-code PR #5042: a sweep deletes files a live
    /// session refers to).
    SweepsReferencedSpills,
    /// One spill store for every session: a session's end removes every session's artifacts.
    SpillsSharedAcrossSessions,
    /// Artifact ids are a counter each session starts again (`spill-1`, `spill-2`): two
    /// sessions' spills of different outputs share an id.
    ReusesArtifactIds,
    // Issue 30 area 8: calls paused for the user's decision (PAUSE-1..4).
    /// A decision resumes the call that paused in its position, not the call it was given for:
    /// decisions given in another order than the calls hand one call's approval, edited
    /// arguments or data to another (mastra-ai/mastra #19083).
    ResumesWithAnotherCallsData,
    /// An approved call runs, but its result reaches the model with no content (openai/codex
    /// #9053: approving sent `content: None`).
    ApprovalSendsEmptyContent,
    /// One denial aborts the whole turn: every call of the batch is refused with it and none
    /// runs, the approved ones and those that needed no approval included.
    DenialFailsTheBatch,
    /// A paused call waits for its decision forever: when none comes, the turn never ends
    /// (anthropics/claude-code #88901); the adapter gives up on it and reports no result.
    WaitsForeverForApproval,
    // Issue 30 area 5: results the provider takes on replay (REPLAY-1).
    /// An error whose handler (or MCP server) gave no message, or white space alone, is sent
    /// with that message as its whole content: an empty `is_error` result the Messages API
    /// refuses, and every later request with it (jlevy/markform #153).
    EmptyErrorContent,
    /// Blank text blocks a handler returned — beside an image, or alone — are sent as they are
    /// (harness-ref before issue 30): "text content blocks must be non-empty".
    KeepsBlankTextBlocks,
    /// An empty output is sent as one empty text block rather than as no content.
    EmptyOutputAsAnEmptyTextBlock,
    /// An output of white space alone is sent as it is, a text block the provider refuses
    /// ("text content blocks must contain non-whitespace text", earendil-works/pi #8720).
    PassesWhiteSpaceOutput,
    /// Its token cap declares `ceil(bytes / 4)` and counts `ceil(chars / 4)`: a text of
    /// multi-byte characters goes through at up to four times the budget, and the note
    /// states the chars' estimate.
    CountsTokensAsChars,
    /// A token cap is applied as the byte cap it amounts to, and the note states the omitted
    /// amount in bytes: the model, which budgets in tokens, is told a number in another unit.
    NotesTokenCutsInBytes,
    /// Told how much room is left in the model's context window, the harness caps at its
    /// configured limit anyway: one large result can fill the context.
    IgnoresRemainingContext,
    /// The room left in the context replaces the configured cap instead of lowering it: with
    /// a large context left, a result goes over the harness's own cap.
    RaisesCapToRemainingContext,
    /// A broken version of `wraps-results`: every result is framed in `<tool_output>` …
    /// `</tool_output>`, and copies of the markers in the output are shown as they are, so a
    /// tool's `</tool_output>` closes the frame early and what follows reads as outside it
    /// (NousResearch/hermes-agent PR #56172).
    WrapperNotEscaped,
}

impl Fault {
    /// Every fault, in documentation order.
    pub const ALL: [Fault; 108] = [
        Fault::RunsHandlerBeforeValidating,
        Fault::CoercesTypes,
        Fault::DropsUnknownFields,
        Fault::CapsHeadOnly,
        Fault::CountsCharsForBytes,
        Fault::SplitsCodePoint,
        Fault::LeaksInternalError,
        Fault::LosesId,
        Fault::SwapsIds,
        Fault::OmitsNote,
        Fault::NoteOutsideCap,
        Fault::ErrorAsSuccess,
        Fault::DropsMalformedCall,
        Fault::NoDeadline,
        Fault::UnknownToolCrash,
        Fault::NanAsNull,
        Fault::StringifiesNonJson,
        Fault::EncodesLikeJsonStringify,
        Fault::CrashesOnCycle,
        Fault::IgnoresOutputSchema,
        Fault::SkipsFalsyOutputValidation,
        Fault::ValidatesErrorResults,
        Fault::MutationLeaks,
        Fault::FirstViolationOnly,
        Fault::InternalRetryable,
        Fault::NoCap,
        Fault::NullsAsAbsent,
        Fault::DumpsSchema,
        Fault::ParsesArgumentsLeniently,
        Fault::FoldsToolNames,
        Fault::ShallowCopiesArguments,
        Fault::RetriesAnyFailure,
        Fault::AcceptsDuplicateIds,
        Fault::NormalizesLineEndings,
        Fault::RunsToolsNotOffered,
        Fault::RunsCutOffCalls,
        Fault::PairsResultsByPosition,
        Fault::TrustsNoteInOutput,
        Fault::RejectsAsSuccess,
        Fault::SpillPreviewOverCap,
        Fault::SpillsCutArtifact,
        Fault::CountsNewlinesAsLines,
        Fault::IgnoresCapabilities,
        Fault::RerunsDuplicateKeys,
        Fault::CommitsUnverifiedTokens,
        Fault::ConfinesPathsLexically,
        Fault::EchoesSensitiveArguments,
        Fault::RepairsScalarStrings,
        Fault::RepairsStringsTheSchemaAccepts,
        Fault::RunsUnvalidatedRepairs,
        Fault::RepairsSilently,
        Fault::DropsCancelledResults,
        Fault::CancelledAsEmptySuccess,
        Fault::SdkDefaultDeadline,
        Fault::SerialDropsExtraCalls,
        Fault::ElapsedInContent,
        Fault::GenericTimeoutMessage,
        Fault::ReplacesBlocksWithPlaceholders,
        Fault::FlattensBlocksToText,
        Fault::IgnoresMcpIsError,
        Fault::MovesBlocksAfterText,
        Fault::CapsBlockPayloads,
        Fault::HasNoCap,
        Fault::DropsCutOffCall,
        Fault::CrashesOnInvalidArguments,
        Fault::DropsFailedCalls,
        Fault::DropsTimedOutCalls,
        Fault::CrashesOnLargeOutput,
        Fault::DropsRefusedCalls,
        Fault::DropsBlockResults,
        Fault::MiscountsOmittedLines,
        Fault::MissesTheLastLinesInItsCount,
        Fault::CutsErrorsHeadOnly,
        Fault::ParsesArgumentsTwice,
        Fault::ValidatesWithoutRefs,
        Fault::DropsResourceLinks,
        Fault::ThrowsOnUnknownBlockKind,
        Fault::RendersLinksWithoutUri,
        Fault::CapsInQuadraticTime,
        Fault::KeepsResultsOfCompactedCalls,
        Fault::AnswersOpenCallsTwice,
        Fault::RerunsAnsweredCalls,
        Fault::LeavesOpenCallsUnanswered,
        Fault::RetriesTransportFailures,
        Fault::DropsPartialOutput,
        Fault::PartialOutputAsSuccess,
        Fault::TrustsForgedNotes,
        Fault::FoldsPropertyNames,
        Fault::PassesOversizedImages,
        Fault::DropsOversizedImages,
        Fault::OversizedImagePoisonsLaterCalls,
        Fault::SpillsNeverCleaned,
        Fault::SweepsReferencedSpills,
        Fault::SpillsSharedAcrossSessions,
        Fault::ReusesArtifactIds,
        Fault::ResumesWithAnotherCallsData,
        Fault::ApprovalSendsEmptyContent,
        Fault::DenialFailsTheBatch,
        Fault::WaitsForeverForApproval,
        Fault::EmptyErrorContent,
        Fault::KeepsBlankTextBlocks,
        Fault::EmptyOutputAsAnEmptyTextBlock,
        Fault::PassesWhiteSpaceOutput,
        Fault::CountsTokensAsChars,
        Fault::NotesTokenCutsInBytes,
        Fault::IgnoresRemainingContext,
        Fault::RaisesCapToRemainingContext,
        Fault::WrapperNotEscaped,
    ];

    /// The variants whose fault is in the optional repair profile: each is a broken version of
    /// the legitimate `repairs-double-encoded` configuration and declares `repair` like it
    /// (the one exception to "every broken variant has the reference's handshake"), so
    /// `selftest` judges them against that configuration's run, not the reference's.
    pub const REPAIR: [Fault; 4] = [
        Fault::RepairsScalarStrings,
        Fault::RepairsStringsTheSchemaAccepts,
        Fault::RunsUnvalidatedRepairs,
        Fault::RepairsSilently,
    ];

    /// The legitimate configuration this broken variant is a broken version of, when it is not
    /// the reference itself ([`Fault::REPAIR`]).
    pub fn base(self) -> Option<crate::Variant> {
        if self == Fault::WrapperNotEscaped {
            return Some(crate::Variant::WrapsResults);
        }
        Fault::REPAIR
            .contains(&self)
            .then_some(crate::Variant::RepairsDoubleEncoded)
    }

    /// The variants whose fault is in the optional security gates: only cases with security
    /// fields (which generated cases never have) can show them.
    pub const SECURITY: [Fault; 5] = [
        Fault::IgnoresCapabilities,
        Fault::RerunsDuplicateKeys,
        Fault::CommitsUnverifiedTokens,
        Fault::ConfinesPathsLexically,
        Fault::EchoesSensitiveArguments,
    ];

    /// Whether the fault is in how structured results meet a tool's output schema, and so
    /// lives only in the handlers of tools that declare one.
    pub fn needs_output_schema(self) -> bool {
        matches!(
            self,
            Fault::SkipsFalsyOutputValidation | Fault::ValidatesErrorResults
        )
    }

    /// The kebab-case name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Fault::RunsHandlerBeforeValidating => "runs-handler-before-validating",
            Fault::CoercesTypes => "coerces-types",
            Fault::DropsUnknownFields => "drops-unknown-fields",
            Fault::CapsHeadOnly => "caps-head-only",
            Fault::CountsCharsForBytes => "counts-chars-for-bytes",
            Fault::SplitsCodePoint => "splits-code-point",
            Fault::LeaksInternalError => "leaks-internal-error",
            Fault::LosesId => "loses-id",
            Fault::SwapsIds => "swaps-ids",
            Fault::OmitsNote => "omits-note",
            Fault::NoteOutsideCap => "note-outside-cap",
            Fault::ErrorAsSuccess => "error-as-success",
            Fault::DropsMalformedCall => "drops-malformed-call",
            Fault::NoDeadline => "no-deadline",
            Fault::UnknownToolCrash => "unknown-tool-crash",
            Fault::NanAsNull => "nan-as-null",
            Fault::StringifiesNonJson => "stringifies-non-json",
            Fault::EncodesLikeJsonStringify => "encodes-like-json-stringify",
            Fault::CrashesOnCycle => "crashes-on-cycle",
            Fault::IgnoresOutputSchema => "ignores-output-schema",
            Fault::SkipsFalsyOutputValidation => "skips-falsy-output-validation",
            Fault::ValidatesErrorResults => "validates-error-results",
            Fault::MutationLeaks => "mutation-leaks",
            Fault::FirstViolationOnly => "first-violation-only",
            Fault::InternalRetryable => "internal-retryable",
            Fault::NoCap => "no-cap",
            Fault::NullsAsAbsent => "nulls-as-absent",
            Fault::DumpsSchema => "dumps-schema",
            Fault::ParsesArgumentsLeniently => "parses-arguments-leniently",
            Fault::FoldsToolNames => "folds-tool-names",
            Fault::ShallowCopiesArguments => "shallow-copies-arguments",
            Fault::RetriesAnyFailure => "retries-any-failure",
            Fault::AcceptsDuplicateIds => "accepts-duplicate-ids",
            Fault::NormalizesLineEndings => "normalizes-line-endings",
            Fault::RunsToolsNotOffered => "runs-tools-not-offered",
            Fault::RunsCutOffCalls => "runs-cut-off-calls",
            Fault::PairsResultsByPosition => "pairs-results-by-position",
            Fault::TrustsNoteInOutput => "trusts-note-in-output",
            Fault::RejectsAsSuccess => "rejects-as-success",
            Fault::SpillPreviewOverCap => "spill-preview-over-cap",
            Fault::SpillsCutArtifact => "spills-cut-artifact",
            Fault::CountsNewlinesAsLines => "counts-newlines-as-lines",
            Fault::IgnoresCapabilities => "ignores-capabilities",
            Fault::RerunsDuplicateKeys => "reruns-duplicate-keys",
            Fault::CommitsUnverifiedTokens => "commits-unverified-tokens",
            Fault::ConfinesPathsLexically => "confines-paths-lexically",
            Fault::EchoesSensitiveArguments => "echoes-sensitive-arguments",
            Fault::RepairsScalarStrings => "repairs-scalar-strings",
            Fault::RepairsStringsTheSchemaAccepts => "repairs-strings-the-schema-accepts",
            Fault::RunsUnvalidatedRepairs => "runs-unvalidated-repairs",
            Fault::RepairsSilently => "repairs-silently",
            Fault::DropsCancelledResults => "drops-cancelled-results",
            Fault::CancelledAsEmptySuccess => "cancelled-as-empty-success",
            Fault::SdkDefaultDeadline => "sdk-default-deadline",
            Fault::SerialDropsExtraCalls => "serial-drops-extra-calls",
            Fault::ElapsedInContent => "elapsed-in-content",
            Fault::GenericTimeoutMessage => "generic-timeout-message",
            Fault::ReplacesBlocksWithPlaceholders => "replaces-blocks-with-placeholders",
            Fault::FlattensBlocksToText => "flattens-blocks-to-text",
            Fault::IgnoresMcpIsError => "ignores-mcp-is-error",
            Fault::MovesBlocksAfterText => "moves-blocks-after-text",
            Fault::CapsBlockPayloads => "caps-block-payloads",
            Fault::HasNoCap => "has-no-cap",
            Fault::DropsCutOffCall => "drops-cut-off-call",
            Fault::CrashesOnInvalidArguments => "crashes-on-invalid-arguments",
            Fault::DropsFailedCalls => "drops-failed-calls",
            Fault::DropsTimedOutCalls => "drops-timed-out-calls",
            Fault::CrashesOnLargeOutput => "crashes-on-large-output",
            Fault::DropsRefusedCalls => "drops-refused-calls",
            Fault::DropsBlockResults => "drops-block-results",
            Fault::MiscountsOmittedLines => "miscounts-omitted-lines",
            Fault::MissesTheLastLinesInItsCount => "misses-the-last-lines-in-its-count",
            Fault::CutsErrorsHeadOnly => "cuts-errors-head-only",
            Fault::ParsesArgumentsTwice => "parses-arguments-twice",
            Fault::ValidatesWithoutRefs => "validates-without-refs",
            Fault::DropsResourceLinks => "drops-resource-links",
            Fault::ThrowsOnUnknownBlockKind => "throws-on-unknown-block-kind",
            Fault::RendersLinksWithoutUri => "renders-links-without-uri",
            Fault::CapsInQuadraticTime => "caps-in-quadratic-time",
            Fault::KeepsResultsOfCompactedCalls => "keeps-results-of-compacted-calls",
            Fault::AnswersOpenCallsTwice => "answers-open-calls-twice",
            Fault::RerunsAnsweredCalls => "reruns-answered-calls",
            Fault::LeavesOpenCallsUnanswered => "leaves-open-calls-unanswered",
            Fault::RetriesTransportFailures => "retries-transport-failures",
            Fault::DropsPartialOutput => "drops-partial-output",
            Fault::PartialOutputAsSuccess => "partial-output-as-success",
            Fault::TrustsForgedNotes => "trusts-forged-notes",
            Fault::FoldsPropertyNames => "folds-property-names",
            Fault::PassesOversizedImages => "passes-oversized-images",
            Fault::DropsOversizedImages => "drops-oversized-images",
            Fault::OversizedImagePoisonsLaterCalls => "oversized-image-poisons-later-calls",
            Fault::SpillsNeverCleaned => "spills-never-cleaned",
            Fault::SweepsReferencedSpills => "sweeps-referenced-spills",
            Fault::SpillsSharedAcrossSessions => "spills-shared-across-sessions",
            Fault::ReusesArtifactIds => "reuses-artifact-ids",
            Fault::ResumesWithAnotherCallsData => "resumes-with-another-calls-data",
            Fault::ApprovalSendsEmptyContent => "approval-sends-empty-content",
            Fault::DenialFailsTheBatch => "denial-fails-the-batch",
            Fault::WaitsForeverForApproval => "waits-forever-for-approval",
            Fault::EmptyErrorContent => "empty-error-content",
            Fault::KeepsBlankTextBlocks => "keeps-blank-text-blocks",
            Fault::EmptyOutputAsAnEmptyTextBlock => "empty-output-as-an-empty-text-block",
            Fault::PassesWhiteSpaceOutput => "passes-white-space-output",
            Fault::CountsTokensAsChars => "counts-tokens-as-chars",
            Fault::NotesTokenCutsInBytes => "notes-token-cuts-in-bytes",
            Fault::IgnoresRemainingContext => "ignores-remaining-context",
            Fault::RaisesCapToRemainingContext => "raises-cap-to-remaining-context",
            Fault::WrapperNotEscaped => "wrapper-not-escaped",
        }
    }

    /// The requirements this variant violates, MUST and SHOULD, in SPEC.md's words: `selftest`
    /// checks that exactly these fail in the per-requirement table — recall (every one of them
    /// fails) and precision (no other MUST fails). The lists are the honest consequences of one
    /// mistake: a variant that loses answers breaks the promise of every requirement whose cases
    /// it leaves unanswered (SPEC.md "Evidence"); one that flags errors as successes breaks every
    /// "is answered with an error result". Adding a case can change what a variant violates: the
    /// selftest then says which requirement appeared or vanished, and the list is reviewed.
    pub fn violates(self) -> &'static [&'static str] {
        match self {
            Fault::AcceptsDuplicateIds => &["CORR-5"],
            Fault::CancelledAsEmptySuccess => &["CANCEL-1"],
            Fault::CapsBlockPayloads => &["BLOCK-4"],
            Fault::HasNoCap => &["CAP-1"],
            Fault::DropsCutOffCall => &["CORR-1", "CUT-1"],
            Fault::CrashesOnInvalidArguments => &[
                "VAL-2", "CALL-1", "OUT-2", "OUT-3", "OUT-5", "CORR-1", "CORR-2", "CORR-5",
                "VOCAB-1", "BUDGET-2", "PREP-1",
            ],
            Fault::DropsFailedCalls => &[
                "OUT-2", "OUT-3", "OUT-5", "CORR-1", "MCP-1", "IDEM-4", "PAUSE-3",
            ],
            Fault::DropsTimedOutCalls => &["OUT-4", "CORR-1"],
            Fault::CrashesOnLargeOutput => &[
                "VAL-2", "CALL-1", "OUT-1", "OUT-2", "OUT-3", "OUT-4", "CORR-1", "STRAT-3",
                "BLOCK-1",
            ],
            Fault::DropsRefusedCalls => &[
                "CORR-1", "AUTH-1", "AUTH-2", "AUTH-3", "AUTH-4", "BUDGET-1", "BUDGET-3", "IDEM-2",
                "IDEM-7", "PREP-1", "PREP-2", "PREP-3", "PREP-4", "PREP-5", "PREP-6", "PREP-7",
                "PREP-8", "PREP-9", "PATH-1", "PATH-2", "PATH-3", "PATH-5", "BOUND-1", "BOUND-2",
                "BOUND-3", "PATH-7", "PAUSE-1", "PAUSE-2", "PAUSE-4",
            ],
            Fault::DropsBlockResults => &["CORR-1", "BLOCK-1", "MCP-2", "MCP-3", "BLOCK-5"],
            Fault::MiscountsOmittedLines => &["CAP-6", "HT-3"],
            Fault::MissesTheLastLinesInItsCount => &["CAP-6", "HT-3"],
            Fault::CutsErrorsHeadOnly => &["CAP-5", "HT-2"],
            Fault::DropsResourceLinks => &["BLOCK-5"],
            Fault::ThrowsOnUnknownBlockKind => &["BLOCK-1", "BLOCK-5"],
            Fault::RendersLinksWithoutUri => &["BLOCK-5"],
            Fault::CapsInQuadraticTime => &["CAP-11"],
            Fault::KeepsResultsOfCompactedCalls => &["RESUME-2"],
            Fault::AnswersOpenCallsTwice => &["RESUME-1"],
            Fault::RerunsAnsweredCalls => &["RESUME-3"],
            Fault::LeavesOpenCallsUnanswered => &["RESUME-1"],
            Fault::RetriesTransportFailures => &["ONCE-1"],
            Fault::DropsPartialOutput => &["STREAM-1"],
            Fault::PartialOutputAsSuccess => &["OUT-4"],
            Fault::PassesOversizedImages => &["BLOCK-6"],
            Fault::DropsOversizedImages => &["BLOCK-6"],
            Fault::OversizedImagePoisonsLaterCalls => &["BLOCK-6"],
            Fault::SpillsNeverCleaned => &["SPILL-2", "SPILL-3"],
            Fault::SweepsReferencedSpills => &["SPILL-1"],
            Fault::SpillsSharedAcrossSessions => &["SPILL-4"],
            Fault::ReusesArtifactIds => &["SPILL-5"],
            Fault::ResumesWithAnotherCallsData => &["PAUSE-1"],
            Fault::ApprovalSendsEmptyContent => &["PAUSE-3"],
            // The approval given for another call of the batch never reaches it (PAUSE-1).
            Fault::DenialFailsTheBatch => &["PAUSE-1", "PAUSE-2"],
            Fault::WaitsForeverForApproval => &["PAUSE-4"],
            Fault::EmptyErrorContent => &["REPLAY-1", "OUT-9"],
            Fault::KeepsBlankTextBlocks => &["REPLAY-1"],
            Fault::EmptyOutputAsAnEmptyTextBlock => &["REPLAY-1"],
            Fault::PassesWhiteSpaceOutput => &["REPLAY-1"],
            Fault::CountsTokensAsChars => &["CAP-1", "TOKCAP-1", "TOKCAP-2"],
            Fault::NotesTokenCutsInBytes => &["TOKCAP-2"],
            Fault::IgnoresRemainingContext | Fault::RaisesCapToRemainingContext => &["TOKCAP-3"],
            Fault::WrapperNotEscaped => &["WRAP-1"],
            Fault::CapsHeadOnly => &["HT-1", "HT-2"],
            Fault::CoercesTypes => &["VAL-1", "VAL-2", "VAL-3", "VAL-6", "VAL-9", "VAL-10"],
            Fault::CommitsUnverifiedTokens => &[
                "PREP-3", "PREP-4", "PREP-5", "PREP-6", "PREP-7", "PREP-8", "PREP-9",
            ],
            Fault::ConfinesPathsLexically => &["PATH-3"],
            Fault::CountsCharsForBytes => &["CAP-1", "CAP-3", "CAP-6"],
            Fault::CountsNewlinesAsLines => &["STRAT-6"],
            Fault::CrashesOnCycle => &["CORR-1", "CORR-2", "VOCAB-4"],
            Fault::DropsCancelledResults => &["CORR-1", "CANCEL-1"],
            Fault::DropsMalformedCall => &[
                "CALL-4", "CALL-5", "CALL-6", "CALL-7", "CORR-1", "CORR-4", "CUT-1",
            ],
            Fault::DropsUnknownFields => &[
                "VAL-1", "VAL-2", "VAL-4", "VAL-9", "VAL-10", "TEACH-1", "TEACH-2",
            ],
            Fault::DumpsSchema => &["TEACH-7"],
            Fault::EchoesSensitiveArguments => &["AUTH-8", "PREP-10"],
            Fault::ElapsedInContent => &["OUT-1", "REPEAT-1"],
            Fault::GenericTimeoutMessage => &["OUT-4", "STREAM-1"],
            Fault::EncodesLikeJsonStringify => &["VOCAB-5"],
            Fault::ErrorAsSuccess => &[
                "VAL-2", "CALL-1", "CALL-4", "CALL-5", "CALL-6", "CALL-7", "OUT-2", "OUT-3",
                "OUT-4", "OUT-5", "CORR-4", "CORR-5", "STRAT-3", "VOCAB-1", "VOCAB-4", "VOCAB-5",
                "STRUCT-1", "STRUCT-2", "TURN-1", "CUT-1", "CANCEL-1", "MCP-1", "AUTH-1", "AUTH-2",
                "AUTH-3", "AUTH-4", "BUDGET-1", "BUDGET-3", "IDEM-2", "IDEM-4", "IDEM-7", "PREP-1",
                "PREP-2", "PREP-3", "PREP-4", "PREP-5", "PREP-6", "PREP-7", "PREP-8", "PREP-9",
                "PATH-1", "PATH-2", "PATH-3", "PATH-5", "BOUND-1", "BOUND-2", "BOUND-3", "PATH-7",
                "BLOCK-1", "BLOCK-6", "PAUSE-1", "PAUSE-2", "PAUSE-3", "PAUSE-4",
            ],
            Fault::FirstViolationOnly => &["TEACH-2", "TEACH-3"],
            Fault::FlattensBlocksToText => &["BLOCK-1", "BLOCK-2", "MCP-3", "BLOCK-6"],
            Fault::FoldsToolNames => &["CALL-1", "CALL-3"],
            Fault::IgnoresCapabilities => &["AUTH-1", "IDEM-7", "PREP-1"],
            Fault::IgnoresMcpIsError => &["MCP-1"],
            Fault::IgnoresOutputSchema => &["STRUCT-1", "STRUCT-2"],
            Fault::InternalRetryable => &["OUT-6"],
            Fault::LeaksInternalError => &["OUT-5"],
            Fault::LosesId => &["CORR-1", "CORR-7", "CORR-8", "CALL-9"],
            Fault::MovesBlocksAfterText => &["BLOCK-3"],
            Fault::MutationLeaks => &["ISO-1", "ISO-2"],
            Fault::NanAsNull => &["VOCAB-1"],
            Fault::NoCap => &[
                "CAP-1", "CAP-3", "CAP-8", "CAP-9", "HT-4", "STRAT-3", "STRAT-4", "STRAT-6",
                "TOKCAP-1", "TOKCAP-3",
            ],
            Fault::NoDeadline => &["OUT-4"],
            Fault::NormalizesLineEndings => &["ENC-3"],
            Fault::NoteOutsideCap => &["CAP-1", "CAP-7", "CAP-8", "STRAT-6", "TOKCAP-3"],
            Fault::NullsAsAbsent => &["VAL-1", "VAL-2", "VAL-4", "VAL-8", "TEACH-5"],
            Fault::OmitsNote => &["CAP-5", "STRAT-1", "STRAT-2", "STRAT-4", "REPLAY-1"],
            Fault::PairsResultsByPosition => &["OUT-1", "CORR-2", "ORDER-1"],
            Fault::ParsesArgumentsLeniently => &["VAL-1", "CALL-5"],
            Fault::RejectsAsSuccess => &["STRAT-3"],
            Fault::RepairsScalarStrings => &[
                "VAL-1", "VAL-2", "VAL-3", "VAL-6", "VAL-9", "VAL-10", "REPAIR-2",
            ],
            Fault::RepairsSilently => &["REPAIR-3"],
            Fault::RepairsStringsTheSchemaAccepts => &["VAL-7", "REPAIR-2", "REPAIR-3"],
            Fault::ReplacesBlocksWithPlaceholders => &["BLOCK-1", "MCP-3", "BLOCK-6"],
            Fault::RerunsDuplicateKeys => &["IDEM-1", "IDEM-2", "IDEM-3", "IDEM-4", "IDEM-5"],
            Fault::RetriesAnyFailure => &["OUT-8", "IDEM-4", "ONCE-1"],
            Fault::RunsCutOffCalls => &["CUT-1"],
            Fault::RunsHandlerBeforeValidating => &[
                "VAL-1", "VAL-3", "VAL-4", "VAL-5", "VAL-6", "VAL-8", "VAL-9", "VAL-10", "TURN-1",
                "CUT-1", "AUTH-1", "AUTH-2", "AUTH-3", "AUTH-4", "BUDGET-1", "BUDGET-2",
                "BUDGET-3", "IDEM-1", "IDEM-2", "IDEM-3", "IDEM-4", "IDEM-5", "IDEM-7", "PREP-1",
                "PREP-2", "PREP-3", "PREP-4", "PREP-5", "PREP-6", "PREP-7", "PREP-8", "PREP-9",
                "PATH-1", "PATH-2", "PATH-3", "PATH-5", "BOUND-1", "BOUND-2", "BOUND-3",
                "CANCEL-2", "PATH-7", "VAL-11", "CALL-10", "PAUSE-1", "PAUSE-2", "PAUSE-4",
            ],
            Fault::RunsToolsNotOffered => &["TURN-1", "TURN-2"],
            Fault::RunsUnvalidatedRepairs => &["VAL-1", "REPAIR-1"],
            Fault::SdkDefaultDeadline => &["OUT-1", "DEADLINE-1"],
            Fault::SerialDropsExtraCalls => &["CORR-1", "SERIAL-1"],
            Fault::ShallowCopiesArguments => &["ISO-1", "ISO-2"],
            Fault::SkipsFalsyOutputValidation => &["STRUCT-2"],
            Fault::SpillPreviewOverCap => &["CAP-1", "STRAT-4"],
            Fault::SpillsCutArtifact => &["STRAT-5"],
            Fault::SplitsCodePoint => &["CAP-1", "CAP-4", "CAP-6", "CAP-7"],
            Fault::StringifiesNonJson => &["VOCAB-5"],
            Fault::SwapsIds => &["CORR-1", "CORR-8"],
            Fault::TrustsNoteInOutput => &["CAP-5", "STRAT-2", "FORGE-1"],
            Fault::UnknownToolCrash => &[
                "VAL-2", "CALL-1", "CALL-7", "CALL-8", "OUT-2", "OUT-3", "OUT-5", "CORR-1",
                "CORR-2", "CORR-5", "VOCAB-1", "TURN-1",
            ],
            Fault::ValidatesErrorResults => &["STRUCT-3"],
            Fault::ParsesArgumentsTwice => &["VAL-11", "CALL-10"],
            Fault::ValidatesWithoutRefs => &["VAL-1", "VAL-2", "VAL-6"],
            Fault::TrustsForgedNotes => &["FORGE-1"],
            Fault::FoldsPropertyNames => &["VAL-1", "VAL-2", "VAL-4", "VAL-5"],
        }
    }

    /// One line saying what the variant gets wrong.
    pub fn describe(self) -> &'static str {
        match self {
            Fault::RunsHandlerBeforeValidating => {
                "runs the handler as soon as a call arrives, then lets validation decide the result"
            }
            Fault::CoercesTypes => {
                "converts \"3\" to 3, \"true\" to true and numbers to strings where the schema asks, before validating"
            }
            Fault::DropsUnknownFields => {
                "removes fields a closed object does not allow, then runs the call"
            }
            Fault::CapsHeadOnly => "keeps only the head of an oversized output when head+tail was asked",
            Fault::CountsCharsForBytes => "counts chars when the cap was asked in UTF-8 bytes",
            Fault::SplitsCodePoint => {
                "cuts oversized output at a byte offset and repairs the broken character with U+FFFD"
            }
            Fault::LeaksInternalError => "appends an internal error's detail to the content the model sees",
            Fault::LosesId => "sets no tool_use_id on results",
            Fault::SwapsIds => "exchanges the ids of adjacent results",
            Fault::OmitsNote => "truncates output without a note saying what was cut",
            Fault::NoteOutsideCap => "cuts output to the full limit, then adds the note beyond it",
            Fault::ErrorAsSuccess => "flags error results as successes",
            Fault::DropsMalformedCall => "returns no result for a call it could not parse",
            Fault::NoDeadline => "waits for a handler forever instead of timing it out",
            Fault::UnknownToolCrash => "crashes on a call naming an unknown tool instead of answering it",
            Fault::NanAsNull => "serialises a NaN or infinite output as null and reports success",
            Fault::StringifiesNonJson => {
                "writes a set, bytes, a date or an opaque object as its debug text and reports success"
            }
            Fault::EncodesLikeJsonStringify => {
                "encodes like JSON.stringify: a set or opaque object becomes {}, a cycle \"[Circular]\", reported as success"
            }
            Fault::CrashesOnCycle => "crashes on an output that contains itself: the turn gets no results",
            Fault::IgnoresOutputSchema => "never checks structured results against the tool's output schema",
            Fault::SkipsFalsyOutputValidation => {
                "checks a structured result against the output schema only when it is truthy (0, \"\", null pass)"
            }
            Fault::ValidatesErrorResults => {
                "checks a tool's refusal against its output schema and answers invalid_tool_output"
            }
            Fault::MutationLeaks => {
                "hands handlers the transcript's own arguments, so their mutations rewrite history"
            }
            Fault::FirstViolationOnly => "reports only the first schema violation of a call",
            Fault::InternalRetryable => "flags internal errors as retryable",
            Fault::NoCap => "passes outputs through uncapped, whatever their size",
            Fault::NullsAsAbsent => "treats a property sent as null as if it were absent",
            Fault::DumpsSchema => "ends an invalid-arguments message with the tool's whole input schema",
            Fault::ParsesArgumentsLeniently => {
                "reads arguments text up to its first JSON value and decodes a JSON string holding an object"
            }
            Fault::FoldsToolNames => {
                "matches tool names ignoring case, surrounding blanks and '-' versus '_'"
            }
            Fault::ShallowCopiesArguments => {
                "gives handlers a shallow copy, so changes inside nested values rewrite history"
            }
            Fault::RetriesAnyFailure => "runs a failing handler a second time, whatever the failure",
            Fault::AcceptsDuplicateIds => "runs a call that reuses an earlier call's id like any other",
            Fault::NormalizesLineEndings => "turns \\r\\n into \\n in text outputs",
            Fault::RunsToolsNotOffered => {
                "runs any registered tool, including those the turn did not offer the model"
            }
            Fault::RunsCutOffCalls => {
                "runs the last call of a turn cut off by max_tokens with what was recovered of it"
            }
            Fault::PairsResultsByPosition => {
                "emits results in completion order and gives them the calls' ids by position"
            }
            Fault::TrustsNoteInOutput => {
                "adds no note to a cut whose kept head already holds note-like text from the tool"
            }
            Fault::RejectsAsSuccess => "flags a reject cap's too-large answer as a success",
            Fault::SpillPreviewOverCap => {
                "fills a spill preview with the limit's worth of head, then adds the note past the cap"
            }
            Fault::SpillsCutArtifact => "keeps the shown preview as the spilled artifact, not the full output",
            Fault::CountsNewlinesAsLines => {
                "counts lines as newline characters, so an unterminated last line is free"
            }
            Fault::IgnoresCapabilities => "runs a call whatever capabilities its caller holds",
            Fault::RerunsDuplicateKeys => {
                "ignores idempotency keys: a duplicate delivery runs the effect again"
            }
            Fault::CommitsUnverifiedTokens => {
                "runs a commit whatever token it presents, and prepare-first tools called directly"
            }
            Fault::ConfinesPathsLexically => {
                "checks path arguments as text only, so a link out of the workspace is followed"
            }
            Fault::EchoesSensitiveArguments => {
                "shows sensitive argument values in error messages and previews"
            }
            Fault::RepairsScalarStrings => {
                "repair profile: also turns scalars in strings into numbers and booleans (\"5\" -> 5)"
            }
            Fault::RepairsStringsTheSchemaAccepts => {
                "repair profile: decodes JSON text in strings the schema accepts as they are"
            }
            Fault::RunsUnvalidatedRepairs => {
                "repair profile: runs the handler with a decoded value that still fails the schema"
            }
            Fault::RepairsSilently => {
                "repair profile: repairs double-encoded values without telling the model"
            }
            Fault::DropsCancelledResults => {
                "answers only the calls that finished when a turn is cancelled"
            }
            Fault::CancelledAsEmptySuccess => {
                "answers a cancelled call as a success with empty content"
            }
            Fault::SdkDefaultDeadline => {
                "lets an inner client's 200 ms default deadline override the configured one"
            }
            Fault::SerialDropsExtraCalls => {
                "with parallel tool calls disabled, runs and answers only the first call"
            }
            Fault::ElapsedInContent => "appends the elapsed time to the content of a slow success",
            Fault::GenericTimeoutMessage => {
                "words a timeout as a generic failure that may succeed if retried, not as a timeout"
            }
            Fault::ReplacesBlocksWithPlaceholders => {
                "replaces an image or resource a tool returns with a placeholder text and reports success"
            }
            Fault::FlattensBlocksToText => {
                "writes an image or binary resource into the text as a base64 data URI"
            }
            Fault::IgnoresMcpIsError => "reports an MCP server's isError: true result as a success",
            Fault::MovesBlocksAfterText => "puts every text block first and images and resources after them",
            Fault::CapsBlockPayloads => {
                "counts an image's base64 against the text cap and cuts the image's data to fit"
            }
            Fault::HasNoCap => "declares no cap and passes every output through whole",
            Fault::DropsCutOffCall => {
                "gives the call a length stop cut off no result at all"
            }
            Fault::CrashesOnInvalidArguments => {
                "raises on arguments that fail the schema: the turn ends and no call gets a result"
            }
            Fault::DropsFailedCalls => {
                "gives a call whose handler raised (refusal, transport, internal) no result"
            }
            Fault::DropsTimedOutCalls => "gives a call that overran its deadline no result",
            Fault::CrashesOnLargeOutput => {
                "raises while capping an output over the cap: the turn ends with no results"
            }
            Fault::DropsRefusedCalls => "gives a call a security gate refused no result",
            Fault::DropsBlockResults => "drops a result that carries an image or a resource",
            Fault::MiscountsOmittedLines => {
                "states twice the number of omitted lines in its truncation note"
            }
            Fault::MissesTheLastLinesInItsCount => {
                "leaves the newlines of the output's last 32 bytes out of its note's line counts"
            }
            Fault::CutsErrorsHeadOnly => {
                "cuts a long refusal or transport error head-only at the cap, with no note"
            }
            Fault::ParsesArgumentsTwice => {
                "validates a repeated key's first value in arguments text and hands the handler its last"
            }
            Fault::ValidatesWithoutRefs => {
                "validates against the schema rewritten for a provider: $defs dropped, $ref and $dynamicRef accept anything"
            }
            Fault::DropsResourceLinks => {
                "drops a resource_link block and delivers the rest of the result as a success"
            }
            Fault::ThrowsOnUnknownBlockKind => {
                "throws on a block kind other than text, image or resource: the whole result becomes an internal error"
            }
            Fault::RendersLinksWithoutUri => {
                "rewrites a resource link to text that keeps its name but not its URI"
            }
            Fault::CapsInQuadraticTime => {
                "finds the cut by dropping one character at a time and measuring a fresh copy again"
            }
            Fault::KeepsResultsOfCompactedCalls => {
                "resumed from a saved transcript, keeps a saved result whose call is not in it"
            }
            Fault::AnswersOpenCallsTwice => {
                "resumed from a saved transcript, answers each open call as interrupted and then again"
            }
            Fault::RerunsAnsweredCalls => {
                "resumed from a saved transcript, runs the whole turn again, answered calls included"
            }
            Fault::LeavesOpenCallsUnanswered => {
                "resumed from a saved transcript, answers none of the calls it left open"
            }
            Fault::RetriesTransportFailures => {
                "runs a handler again after it failed in transport, though its effect may have happened"
            }
            Fault::DropsPartialOutput => {
                "drops what a streaming handler wrote before its deadline: the timeout shows its message alone"
            }
            Fault::PartialOutputAsSuccess => {
                "answers a streaming handler's timeout as a success holding what it wrote before the deadline"
            }
            Fault::TrustsForgedNotes => {
                "declares the escapes that keep copies of its note apart but shows a handler's copy as it is"
            }
            Fault::FoldsPropertyNames => {
                "matches property names to the declared ones case-insensitively before validating"
            }
            Fault::PassesOversizedImages => {
                "sends an image over the provider's limit on unchanged"
            }
            Fault::DropsOversizedImages => {
                "drops an image over the provider's limit and reports the rest as a success"
            }
            Fault::OversizedImagePoisonsLaterCalls => {
                "refuses an oversized image but keeps it in the transcript: every later call of the turn fails"
            }
            Fault::SpillsNeverCleaned => {
                "never removes a spilled output: over its bound, or after its session ended"
            }
            Fault::SweepsReferencedSpills => {
                "evicts its oldest spilled outputs over its bound, even those the transcript still names"
            }
            Fault::SpillsSharedAcrossSessions => {
                "keeps one spill store for all sessions: ending one session removes every session's artifacts"
            }
            Fault::ReusesArtifactIds => {
                "numbers artifacts per session from 1: two sessions' different outputs share an id"
            }
            Fault::ResumesWithAnotherCallsData => {
                "gives each decision to the call that paused in its position, not to the call it names"
            }
            Fault::ApprovalSendsEmptyContent => {
                "runs an approved call but shows the model an empty result instead of the tool's output"
            }
            Fault::DenialFailsTheBatch => {
                "refuses every call of the turn when the user denies one of them"
            }
            Fault::WaitsForeverForApproval => {
                "waits for a decision that never comes without end, so the turn is never answered"
            }
            Fault::EmptyErrorContent => {
                "sends an error whose handler gave no message with that empty message as its whole content"
            }
            Fault::KeepsBlankTextBlocks => {
                "sends the empty and white-space text blocks a handler returned as they are"
            }
            Fault::EmptyOutputAsAnEmptyTextBlock => {
                "sends an empty output as one empty text block"
            }
            Fault::PassesWhiteSpaceOutput => {
                "sends an output of white space alone as it is"
            }
            Fault::CountsTokensAsChars => {
                "declares tokens as ceil(bytes / 4) and counts ceil(chars / 4)"
            }
            Fault::NotesTokenCutsInBytes => {
                "applies a token cap as the byte cap it amounts to, and states the cut in bytes"
            }
            Fault::IgnoresRemainingContext => {
                "caps at its configured limit whatever room is left in the model's context"
            }
            Fault::RaisesCapToRemainingContext => {
                "caps at the room left in the model's context, even where that is over its own cap"
            }
            Fault::WrapperNotEscaped => {
                "wraps results in <tool_output> markers but shows copies of the markers in an output as they are"
            }
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a fault's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFault(pub String);

impl fmt::Display for UnknownFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::names::write_unknown(f, "fault", &self.0, &Fault::ALL, Fault::name)
    }
}

impl std::error::Error for UnknownFault {}

impl FromStr for Fault {
    type Err = UnknownFault;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::find(&Fault::ALL, Fault::name, s).ok_or_else(|| UnknownFault(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for fault in Fault::ALL {
            assert!(seen.insert(fault.name()), "duplicate name {}", fault.name());
            assert_eq!(fault.name().parse::<Fault>(), Ok(fault));
            assert!(!fault.describe().is_empty() && !fault.describe().contains('\n'));
        }
        let err = "nope".parse::<Fault>().unwrap_err();
        assert!(err.to_string().contains("coerces-types"));
        // A name from the command line is shown escaped and bounded.
        let long = format!("\u{1b}{}", "x".repeat(500));
        let err = long.parse::<Fault>().unwrap_err().to_string();
        assert!(err.contains("\\u{1b}") && !err.contains('\u{1b}'), "{err}");
        assert!(
            err.contains(&"x".repeat(79)) && !err.contains(&"x".repeat(80)),
            "{err}"
        );
    }
}
