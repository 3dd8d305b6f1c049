//! The messages of the protocol: commands, the handshake, and replies.
//!
//! Decoding is strict — unknown fields, missing fields and wrong types are errors — because a
//! runner that guessed at a sloppy adapter's meaning could blame a harness for the adapter's
//! mistake. The one repair made on purpose: a lone UTF-16 surrogate escape (`"\ud800"`), which
//! a JavaScript or Python adapter can emit for content its harness produced, is replaced by
//! U+FFFD and counted, so the runner can fail the harness for invalid text instead of erroring
//! the adapter.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::case::{CallForm, Strategy, Unit, WireCase};

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// What the runner sends an adapter, one per line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// The handshake: the adapter answers with a [`Hello`].
    Start {
        /// The runner's protocol version.
        protocol: u32,
        /// The suite's version (`1.0.0`), so an adapter can log which edition judged it.
        /// Optional on the wire: runners before it was added did not send it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suite: Option<String>,
    },
    /// Run one case: the adapter answers with a [`Reply`] carrying the same `seq`.
    Run {
        /// Sequence number, echoed in the reply.
        seq: u64,
        /// The case, sizes resolved, expectations removed.
        case: WireCase,
    },
    /// The adapter exits cleanly; no answer. (A struct variant so that extra fields are refused.)
    Stop {},
}

/// The adapter's answer to `start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// The protocol version the adapter speaks.
    pub protocol: u32,
    /// Which harness is behind the adapter.
    pub implementation: Implementation,
    /// What the harness can do; cases needing more are skipped.
    pub capabilities: Capabilities,
}

/// Which harness is behind an adapter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    /// The harness's name.
    pub name: String,
    /// Its language.
    pub language: String,
    /// Its version.
    pub version: String,
    /// Where to read about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// Where its source code is (a repository URL); the matrix site links it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where to report a bug in it (an issue tracker URL); the matrix site links it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<String>,
}

/// What the harness behind an adapter can do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    /// The output cap; absent or `null` means the harness has none (cap cases then fail).
    #[serde(default)]
    pub cap: Option<CapCapability>,
    /// Suite class (`invalid_arguments`, …) → the harness's own code for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codes: Option<BTreeMap<String, String>>,
    /// Classes the harness does not tell apart → the class it answers them as (which has a
    /// code in `codes`): `{"malformed_call": "invalid_arguments"}`. A class check for a folded
    /// class accepts the target's code, so a harness with a coarser partition than the suite's
    /// is judged on what it has.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub folds: BTreeMap<String, String>,
    /// Whether results say if retrying the same call can help.
    #[serde(default)]
    pub retryability: bool,
    /// Handler deadlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<DeadlineCapability>,
    /// The JSON Schema keywords the adapter can give its harness faithfully.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The call shapes the harness accepts; absent means structured only.
    #[serde(default = "structured_only")]
    pub call_forms: Vec<CallForm>,
    /// Whether one turn's calls go to the harness as one batch.
    #[serde(default)]
    pub parallel: bool,
    /// Whether replies report the calls as the harness's transcript keeps them.
    #[serde(default)]
    pub history: bool,
    /// Optional feature sets (`authorization`, `idempotency`, …).
    #[serde(default)]
    pub features: Vec<String>,
    /// Scripted behaviours beyond protocol 1's base set that the adapter can run
    /// ([`crate::vocabulary::BEHAVIORS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub behaviors: Vec<String>,
    /// Whether the harness receives the model's tool-use ids and answers with them. Absent means
    /// `true`. `false` for a harness family that never sees ids — an MCP server gets
    /// `tools/call` requests with a JSON-RPC id of the host's choosing, and its host pairs
    /// results with the model's ids — so cases about ids judge the host, not the harness: the
    /// runner skips them and does not run `tool_use_id` checks.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub call_ids: bool,
    /// The request format of the model provider the harness's results go into
    /// ([`crate::vocabulary::DIALECTS`]: `anthropic-messages`, …). When declared, every result of
    /// every case is judged by that provider's acceptance rules (SPEC.md REPLAY-1,
    /// `conformance/providers/<dialect>.json`). Absent: no provider is named, and the results are
    /// not judged by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// The markers the harness wraps every result's content in, marking it as a tool's
    /// untrusted text, and how a copy of them in an output is kept from closing the real
    /// wrapper (SPEC.md WRAP-1; PROTOCOL.md 4l). Absent: the harness does not wrap results,
    /// and the cases that forge its markers are skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<WrapperDeclaration>,
}

/// A harness's wrapper around untrusted tool output (PROTOCOL.md 4l; SPEC.md WRAP-1): the
/// content is `open`, the output (escaped, capped), `close`. The two correct designs: the
/// harness escapes copies of its markers in the output (`escapes`), or authenticates its own
/// markers with a nonce it told the model (`{nonce}` in both, the nonce reported as each
/// result's `wrapper_nonce`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrapperDeclaration {
    /// The opening marker exactly as the content starts with it, separators included
    /// (`"<tool_output>\n"`); may hold `{nonce}`.
    pub open: String,
    /// The closing marker exactly as the content ends with it (`"\n</tool_output>"`); may
    /// hold `{nonce}`.
    pub close: String,
    /// Rewrites the harness applies, in order, to every output text before capping it, so
    /// that a copy of a marker no longer has the marker's form (`</tool_output` →
    /// `&lt;/tool_output`; `to` must not contain `from`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escapes: Vec<Escape>,
}

impl WrapperDeclaration {
    /// `text` with every escape applied, in order: the output as the escaping harness shows it.
    pub fn escape(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for e in self.escapes.iter().filter(|e| !e.from.is_empty()) {
            if out.contains(&e.from) {
                out = out.replace(&e.from, &e.to);
            }
        }
        out
    }

    /// The markers with `nonce` in place of `{nonce}`: `(open, close)`.
    pub fn markers(&self, nonce: &str) -> (String, String) {
        (
            self.open.replace("{nonce}", nonce),
            self.close.replace("{nonce}", nonce),
        )
    }

    /// Whether the markers are authenticated by a nonce.
    pub fn has_nonce(&self) -> bool {
        self.open.contains("{nonce}") || self.close.contains("{nonce}")
    }
}

impl Default for Capabilities {
    /// The conservative hello: nothing declared beyond structured calls and tool-use ids.
    fn default() -> Self {
        Capabilities {
            cap: None,
            codes: None,
            folds: BTreeMap::new(),
            retryability: false,
            deadline: None,
            keywords: Vec::new(),
            call_forms: structured_only(),
            parallel: false,
            history: false,
            features: Vec::new(),
            behaviors: Vec::new(),
            call_ids: true,
            dialect: None,
            wrapper: None,
        }
    }
}

fn structured_only() -> Vec<CallForm> {
    vec![CallForm::Structured]
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A harness's output cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapCapability {
    /// What the limit counts.
    pub unit: Unit,
    /// The default limit.
    pub limit: u64,
    /// Whether a case may set the limit (and the unit and strategy among those listed).
    #[serde(default)]
    pub configurable: bool,
    /// The strategies it can apply; the first is the default.
    pub strategies: Vec<Strategy>,
    /// Units a configurable cap can take besides `bytes` and `chars` (which every configurable
    /// cap takes): `lines`. Absent means none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<Unit>,
    /// How the model tells the harness's truncation note from text the tool returned
    /// (SPEC.md FORGE-1): the note's form, and how the harness keeps copies of it in an output
    /// from reading as its own. Absent: the harness declares no form, and the cases that forge
    /// its note are skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<NoteDeclaration>,
    /// Under the `spill` strategy with feature `spill-lifecycle`: what one session's spill store
    /// keeps at most (PROTOCOL.md 4j; SPEC.md SPILL-3). Absent: no bound is declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spill: Option<SpillPolicy>,
    /// How the harness counts tokens, for the unit `tokens` (as `unit`, or listed in `units`):
    /// `ceil(size / divisor)` of the size in bytes or chars. Required with that unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimator: Option<crate::TokenEstimator>,
}

/// The bound a harness declares on what one session's spill store keeps (`cap.spill`): how
/// many artifacts, how many UTF-8 bytes of their text in all, or both. It bounds what is kept
/// besides the artifacts the session's transcript still refers to, which are never removed
/// (SPEC.md SPILL-1, SPILL-3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpillPolicy {
    /// At most this many artifacts per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_artifacts: Option<u64>,
    /// At most this many bytes of artifact text per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

impl SpillPolicy {
    /// Whether it bounds anything.
    pub fn is_bounded(&self) -> bool {
        self.max_artifacts.is_some() || self.max_bytes.is_some()
    }
}

/// The form of a harness's truncation note and how it is told apart from a copy in an output
/// (PROTOCOL.md section 2, `cap.note`; SPEC.md FORGE-1). The three correct designs: the
/// harness escapes copies in the output (`escapes`), authenticates its own note (`{nonce}` in
/// `form`, the nonce reported as each result's `note_nonce`), or shows its note only beside the
/// content (`outside`: the result's `truncation` metadata is the note).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteDeclaration {
    /// The note as the harness writes it into the content, with placeholders: `{omitted}`
    /// (required), `{total}`, `{kept}`, `{unit}`, `{omitted_lines}`, `{total_lines}`,
    /// `{nonce}`, and `{...}` for wording that varies (any text on one line). Absent only with
    /// `outside`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// Rewrites the harness applies to every output text before it caps it, in order, so that
    /// a copy of its note in the output no longer has the note's form (`[truncated: ` →
    /// `[tool text: `).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escapes: Vec<Escape>,
    /// The note is never in the content: the result's `truncation` metadata is the note the
    /// model is shown, beside the content (PROTOCOL.md 3c).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
}

/// One rewrite of [`NoteDeclaration::escapes`]: every `from` in an output becomes `to`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Escape {
    /// The text replaced (non-empty).
    pub from: String,
    /// What replaces it (it must not contain `from`, so escaping twice changes nothing more).
    pub to: String,
}

impl NoteDeclaration {
    /// `text` with every escape applied, in order: the output as an escaping harness shows it.
    pub fn escape(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for e in self.escapes.iter().filter(|e| !e.from.is_empty()) {
            if out.contains(&e.from) {
                out = out.replace(&e.from, &e.to);
            }
        }
        out
    }
}

/// A harness's handler deadlines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineCapability {
    /// Whether a case may set the deadline.
    pub configurable: bool,
    /// The default deadline, if the harness has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_ms: Option<u64>,
}

/// The adapter's answer to `run`. Exactly one of `results`, `skip`, `error` is present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The `seq` of the `run` this answers.
    pub seq: u64,
    /// The case id.
    pub case: String,
    /// What the harness returned, one entry per result, in the order the harness produced them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<ObservedResult>>,
    /// Every handler run, in order, with the arguments as the handler received them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<Vec<Invocation>>,
    /// The calls as the harness's transcript keeps them after the turn (capability `history`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Value>>,
    /// Feature `spill-lifecycle`: after each step of the case's `spill_lifecycle`, the ids of
    /// every spilled artifact the harness's store still holds (PROTOCOL.md 4j).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spill_artifacts: Option<Vec<Vec<String>>>,
    /// The adapter cannot express this case in its harness; the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// The adapter itself failed on this case; the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Lone surrogate escapes that decoding replaced by U+FFFD (never on the wire).
    #[serde(skip)]
    pub lone_surrogates: usize,
}

/// What a [`Reply`] amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyOutcome {
    /// The harness ran the case.
    Observed {
        /// Its results.
        results: Vec<ObservedResult>,
        /// The handler runs.
        invocations: Vec<Invocation>,
        /// The transcript's calls, when reported.
        history: Option<Vec<Value>>,
        /// The artifacts held after each spill-lifecycle step, when reported.
        spill_artifacts: Option<Vec<Vec<String>>>,
    },
    /// The adapter skipped the case.
    Skip(String),
    /// The adapter failed.
    Error(String),
}

impl Reply {
    /// Which of the three answers this is; more or fewer than one is a protocol error.
    pub fn outcome(self) -> Result<ReplyOutcome, DecodeError> {
        match (self.results, self.skip, self.error) {
            (Some(results), None, None)
                if results
                    .iter()
                    .flat_map(|r| r.blocks.iter().flatten())
                    .any(|b| matches!(b, crate::ContentBlock::SyntheticImage(_))) =>
            {
                Err(DecodeError::Shape(
                    "a reply's block has type `synthetic_image`, which only case files use".into(),
                ))
            }
            (Some(results), None, None) => Ok(ReplyOutcome::Observed {
                results,
                invocations: self.invocations.unwrap_or_default(),
                history: self.history,
                spill_artifacts: self.spill_artifacts,
            }),
            (None, Some(reason), None) if self.invocations.is_none() => {
                Ok(ReplyOutcome::Skip(reason))
            }
            (None, None, Some(reason)) => Ok(ReplyOutcome::Error(reason)),
            _ => Err(DecodeError::Shape(
                "a reply has exactly one of `results`, `skip`, `error`".into(),
            )),
        }
    }
}

/// One result as the harness produced it.
///
/// `Default` is a success with a null id, empty content and none of the optional fields, so a
/// struct literal can name what it sets and end with `..ObservedResult::default()`: a new
/// optional field then breaks no adapter or test that builds results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedResult {
    /// The id the result answers, as the harness set it (`null` when it set none).
    pub tool_use_id: Value,
    /// Whether the harness flagged the result as an error.
    pub is_error: bool,
    /// The text the model is shown (text blocks concatenated in order).
    pub content: String,
    /// The harness's machine code, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Whether retrying the same call can help, if the harness says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The harness's own result object, as JSON, for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Value>,
    /// Truncation metadata the model is given beside the content (PROTOCOL.md 3c): accepted
    /// wherever a note in the content is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation: Option<TruncationMeta>,
    /// The artifact a `spill` cap kept the full output in, when the harness exposes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Artifact>,
    /// A structured copy of the result that the model is also shown (MCP `structuredContent`
    /// beside its text); it counts against the cap with the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Feature `repair`: RFC 6901 pointers of the arguments the harness repaired for this call
    /// (decoded from JSON text), when it reports repairs as metadata rather than (or besides) a
    /// note in `content`. Empty when it repaired nothing or says so only in the content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<String>,
    /// Every content block the result carries, in order, as the harness produced it (only for
    /// adapters that declare the behaviour `content_blocks` or the feature `mcp-client`).
    /// Absent: the result is text only, its `content`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<crate::ContentBlock>>,
    /// The nonce this result's truncation note carries, as the harness told the model (only
    /// for a harness whose declared note form has `{nonce}`, SPEC.md FORGE-1): a note in the
    /// content counts as the harness's own only with this nonce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_nonce: Option<String>,
    /// The nonce this result's wrapper markers carry, as the harness told the model (only for a
    /// harness whose declared wrapper holds `{nonce}`, SPEC.md WRAP-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrapper_nonce: Option<String>,
}

/// Structured truncation metadata: what the harness cut, in its cap's unit. Every field is
/// optional; a field given must be true.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruncationMeta {
    /// The unit of every size here (the cap's unit when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// The output's total size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// How much of the output the content leaves out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<u64>,
    /// Where the cut was made: `middle`, `end` or `all` (free text, bounded in reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// The `[start, end)` ranges of the output the content keeps, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Vec<[u64; 2]>>,
    /// The artifact holding the full output, if one was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
}

/// The full output a `spill` cap kept aside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    /// The id (or path, or URI) the model is pointed to.
    pub id: String,
    /// The kept text, exactly as stored.
    pub text: String,
}

/// One handler run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invocation {
    /// The tool whose handler ran.
    pub tool: String,
    /// The call it ran for, when the harness exposes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<Value>,
    /// The arguments exactly as the handler received them (copied on entry).
    pub args: Value,
    /// The handler saw the harness's cancellation (a cancelled task, an aborted signal, a
    /// cancel token) and stopped before finishing its scripted behaviour (feature `cancel`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

/// Why a line could not be decoded as the message expected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The line is not UTF-8.
    NotUtf8 {
        /// Bytes before the first invalid sequence.
        valid_up_to: usize,
    },
    /// The line is not JSON of the expected shape.
    Invalid(String),
    /// The JSON has the right fields but an impossible combination.
    Shape(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotUtf8 { valid_up_to } => {
                write!(
                    f,
                    "not UTF-8 (invalid byte after {valid_up_to} valid bytes)"
                )
            }
            DecodeError::Invalid(msg) => write!(f, "not a valid message: {msg}"),
            DecodeError::Shape(msg) => write!(f, "not a valid message: {msg}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes an adapter's reply to `run`.
pub fn decode_reply(line: &[u8]) -> Result<Reply, DecodeError> {
    let (mut reply, lone): (Reply, usize) = decode(line)?;
    reply.lone_surrogates = lone;
    Ok(reply)
}

/// Decodes an adapter's answer to `start`.
pub fn decode_hello(line: &[u8]) -> Result<Hello, DecodeError> {
    let hello: Hello = decode(line).map(|(hello, _)| hello)?;
    // A token cap the suite cannot count is no cap it can judge (PROTOCOL.md 4l).
    match crate::vocabulary::cap_problems(&hello).into_iter().next() {
        Some(problem) => Err(DecodeError::Invalid(problem)),
        None => Ok(hello),
    }
}

/// Decodes a runner command (for adapters written in Rust).
pub fn decode_command(line: &[u8]) -> Result<Command, DecodeError> {
    decode(line).map(|(command, _)| command)
}

fn decode<T: DeserializeOwned>(line: &[u8]) -> Result<(T, usize), DecodeError> {
    let text = std::str::from_utf8(line).map_err(|e| DecodeError::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })?;
    let (text, lone) = repair_lone_surrogates(text);
    let value = serde_json::from_str(&text).map_err(|e| DecodeError::Invalid(e.to_string()))?;
    Ok((value, lone))
}

/// Replaces `\uD800`–`\uDFFF` escapes that are not part of a valid pair by `\uFFFD`.
fn repair_lone_surrogates(text: &str) -> (Cow<'_, str>, usize) {
    fn surrogate_at(bytes: &[u8], i: usize) -> Option<u16> {
        let hex = bytes.get(i + 2..i + 6)?;
        if bytes[i] != b'\\' || bytes[i + 1] != b'u' {
            return None;
        }
        let unit = u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
        (0xD800..=0xDFFF).contains(&unit).then_some(unit)
    }
    let bytes = text.as_bytes();
    if !text.contains("\\u") {
        return (Cow::Borrowed(text), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() {
            if let Some(unit) = surrogate_at(bytes, i) {
                let paired = (0xD800..0xDC00).contains(&unit)
                    && surrogate_at(bytes, i + 6).is_some_and(|lo| lo >= 0xDC00);
                if paired {
                    i += 12;
                } else {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\uFFFD");
                    count += 1;
                    i += 6;
                    copied = i;
                }
                continue;
            }
            i += 2; // skip the escaped character, so `\\ud800` (a literal backslash) is left alone
            continue;
        }
        i += 1;
    }
    if count == 0 {
        return (Cow::Borrowed(text), 0);
    }
    out.push_str(&text[copied..]);
    (Cow::Owned(out), count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_round_trip() {
        let start = Command::Start {
            protocol: 1,
            suite: None,
        };
        let line = serde_json::to_string(&start).unwrap();
        assert_eq!(line, r#"{"cmd":"start","protocol":1}"#);
        assert_eq!(decode_command(line.as_bytes()).unwrap(), start);
        assert_eq!(
            decode_command(br#"{"cmd":"stop"}"#).unwrap(),
            Command::Stop {}
        );
        assert!(decode_command(br#"{"cmd":"stop","x":1}"#).is_err());
    }

    #[test]
    fn a_reply_is_exactly_one_of_results_skip_error() {
        let ok = decode_reply(br#"{"seq":1,"case":"a/b","results":[{"tool_use_id":"t1","is_error":false,"content":"hi"}],"invocations":[]}"#).unwrap();
        assert!(matches!(ok.outcome(), Ok(ReplyOutcome::Observed { .. })));
        let both = decode_reply(br#"{"seq":1,"case":"a/b","results":[],"skip":"no"}"#).unwrap();
        assert!(both.outcome().is_err());
        let none = decode_reply(br#"{"seq":1,"case":"a/b"}"#).unwrap();
        assert!(none.outcome().is_err());
        assert!(decode_reply(br#"{"seq":1,"case":"a/b","results":[],"extra":true}"#).is_err());
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_are_counted() {
        let line = br#"{"seq":1,"case":"a/b","results":[{"tool_use_id":"t","is_error":false,"content":"a\ud800b\ud83d\ude00c\\ud800\udc00"}]}"#;
        let reply = decode_reply(line).unwrap();
        assert_eq!(reply.lone_surrogates, 2);
        let content = &reply.results.as_ref().unwrap()[0].content;
        assert_eq!(content, "a\u{FFFD}b😀c\\ud800\u{FFFD}");
    }

    #[test]
    fn not_utf8_is_reported_with_its_position() {
        assert_eq!(
            decode_reply(b"{\"seq\":\xff}").unwrap_err(),
            DecodeError::NotUtf8 { valid_up_to: 7 }
        );
    }

    #[test]
    fn hello_defaults_are_conservative() {
        let hello = decode_hello(
            json!({"protocol": 1,
                   "implementation": {"name": "x", "language": "python", "version": "1"},
                   "capabilities": {}})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        assert_eq!(hello.capabilities.cap, None);
        assert_eq!(hello.capabilities.call_forms, vec![CallForm::Structured]);
        assert!(!hello.capabilities.parallel);
        assert!(
            hello.capabilities.call_ids,
            "absent call_ids: the harness sees the ids"
        );
        assert_eq!(hello.capabilities, Capabilities::default());
    }

    #[test]
    fn call_ids_false_is_read_and_written_back_true_is_left_out() {
        let hello = decode_hello(
            json!({"protocol": 1,
                   "implementation": {"name": "x", "language": "python", "version": "1"},
                   "capabilities": {"call_ids": false}})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        assert!(!hello.capabilities.call_ids);
        let written = serde_json::to_value(&hello.capabilities).unwrap();
        assert_eq!(written["call_ids"], json!(false));
        let default = serde_json::to_value(Capabilities::default()).unwrap();
        assert!(default.get("call_ids").is_none(), "{default}");
        assert!(decode_hello(
            br#"{"protocol":1,"implementation":{"name":"x","language":"python","version":"1"},"capabilities":{"call_ids":"no"}}"#
        )
        .is_err());
    }
}
