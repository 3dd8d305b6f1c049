//! The case as an adapter receives it: configuration, tools, scripted behaviours, calls.
//!
//! Every type decodes strictly (unknown fields are an error), because a typo in a case file
//! that silently dropped an instruction would make the suite test less than it claims.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::security::{CallSecurity, PolicyDef, CALL_SECURITY_KEYS};

/// Declares a struct holding every field of a [`WireCase`] — `id`, `config`, `tools`, `calls`
/// and the turn's fields (`offered`, `stop_reason`, …) — around fields of its own, and a
/// `wire()` method that copies the wire case out of it.
///
/// The suite's case file is the wire case plus what only the runner knows (requirements,
/// expectations), in one flat JSON object. serde's `flatten` would express that, but it cannot
/// be combined with `deny_unknown_fields`, and strict decoding matters more: a misspelt field
/// that silently vanished would make a case test less than it claims. So the wire case's fields
/// are written once, in this macro, and every type that carries them is declared through it:
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// harness_conformance_protocol::with_wire_case! {
///     /// A case file.
///     #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
///     #[serde(deny_unknown_fields)]
///     pub struct CaseFile {
///         /// Fields before the wire case's (after its `id`, which always comes first).
///         pub description: String,
///         ..WireCase,
///         /// Fields after it.
///         pub expect: serde_json::Value,
///     }
/// }
///
/// let case: CaseFile = serde_json::from_str(
///     r#"{"id": "a/b", "description": "d", "tools": [], "calls": [], "stop_reason": "end_turn", "expect": {}}"#,
/// ).unwrap();
/// assert_eq!(case.wire().stop_reason, Some(harness_conformance_protocol::StopReason::EndTurn));
/// assert!(serde_json::from_str::<CaseFile>(r#"{"id": "a/b", "description": "d", "tools": [], "calls": [], "expect": {}, "stop_reasn": "x"}"#).is_err());
/// ```
///
/// The fields are serialised in declaration order: `id`, the struct's fields before
/// `..WireCase`, the wire case's, then the rest. The serde attributes name their helpers by
/// absolute paths (`::harness_conformance_protocol::…`), so the crate that expands the macro
/// depends on this one under its own name.
#[macro_export]
macro_rules! with_wire_case {
    (
        $(#[$attr:meta])*
        pub struct WireCase {
            ..WireCase,
        }
    ) => {
        $crate::__wire_case_fields! { plain [$(#[$attr])*] WireCase [] [] }
    };
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $( $(#[$before_attr:meta])* pub $before:ident : $before_ty:ty, )*
            ..WireCase,
            $( $(#[$after_attr:meta])* pub $after:ident : $after_ty:ty, )*
        }
    ) => {
        $crate::__wire_case_fields! {
            wire
            [$(#[$attr])*]
            $name
            [$( $(#[$before_attr])* pub $before: $before_ty, )*]
            [$( $(#[$after_attr])* pub $after: $after_ty, )*]
        }
    };
}

/// The wire case's fields after its `id`, the one place they are written: passed on to
/// `__declare_wire_case!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_case_fields {
    ($($args:tt)*) => {
        $crate::__declare_wire_case! { $($args)* [
            /// Harness configuration the case asks for; each field optional.
            #[serde(default, skip_serializing_if = "::harness_conformance_protocol::CaseConfig::is_empty")]
            pub config: $crate::CaseConfig,
            /// The tools to register.
            pub tools: ::std::vec::Vec<$crate::ToolDef>,
            /// The calls of one assistant turn, in order.
            pub calls: ::std::vec::Vec<$crate::Call>,
            /// The names of the tools offered to the model in this turn, when the turn offers only
            /// some of the registered tools (feature `offered-tools`); absent means every tool. A
            /// call to a registered tool that is not listed is refused like a call to an unknown
            /// tool.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub offered: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
            /// Why the model's turn ended, when the case is about it (feature `stop-reason`).
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub stop_reason: ::std::option::Option<$crate::StopReason>,
            /// The user cancels the turn this many milliseconds after it was handed to the harness,
            /// while handlers may still be running (feature `cancel`).
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub cancel_after_ms: ::std::option::Option<u64>,
            /// `false`: the harness is configured with parallel tool calls disabled, and the model
            /// sent several calls in the turn anyway (feature `serial-calls`).
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub parallel_calls: ::std::option::Option<bool>,
            /// Feature `resume`: the turn is resumed from a saved transcript that ended with some
            /// of its calls still open; the transcript's saved tool_results follow the turn.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub resume: ::std::option::Option<::std::boxed::Box<$crate::Resume>>,
            /// Feature `spill-lifecycle`: the case's calls are turns of named sessions, with the
            /// sessions' transcripts forgetting results and the sessions ending between them;
            /// the reply lists the artifacts the harness still holds after each step.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub spill_lifecycle: ::std::option::Option<::std::boxed::Box<$crate::SpillLifecycle>>,
            /// Feature `pause`: the calls of some tools wait for the user's decision before they
            /// run; the decisions the user gives, and in which order, once the calls have paused.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub pause: ::std::option::Option<::std::boxed::Box<$crate::Pause>>,
            /// The authenticated caller (security features: the protocol's `security` module).
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub context: ::std::option::Option<::std::boxed::Box<$crate::ContextDef>>,
            /// Harness-side security state: policy version, budget, token lifetime, workspace.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub security: ::std::option::Option<::std::boxed::Box<$crate::SecuritySetup>>,
        ] }
    };
}

/// Declares the struct (and, for any struct but [`WireCase`] itself, its `wire()`).
#[doc(hidden)]
#[macro_export]
macro_rules! __declare_wire_case {
    (
        plain [$($attr:tt)*] $name:ident [$($before:tt)*] [$($after:tt)*]
        [$( $(#[$field_attr:meta])* pub $field:ident : $field_ty:ty, )*]
    ) => {
        $($attr)*
        pub struct $name {
            /// `<area>/<fault-name>`, echoed back in the reply; in a case file, the file's path
            /// under `cases/` without `.json`.
            pub id: ::std::string::String,
            $($before)*
            $( $(#[$field_attr])* pub $field: $field_ty, )*
            $($after)*
        }
    };
    (
        wire [$($attr:tt)*] $name:ident [$($before:tt)*] [$($after:tt)*]
        [$( $(#[$field_attr:meta])* pub $field:ident : $field_ty:ty, )*]
    ) => {
        $crate::__declare_wire_case! {
            plain [$($attr)*] $name [$($before)*] [$($after)*]
            [$( $(#[$field_attr])* pub $field: $field_ty, )*]
        }

        impl $name {
            /// The part an adapter sees: every wire case field, copied (sizes still unresolved).
            pub fn wire(&self) -> $crate::WireCase {
                $crate::WireCase {
                    id: ::std::clone::Clone::clone(&self.id),
                    $( $field: ::std::clone::Clone::clone(&self.$field), )*
                }
            }
        }
    };
}

with_wire_case! {
    /// One case's harness-facing part: what the adapter builds and feeds to its harness.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WireCase {
        ..WireCase,
    }
}

/// Configuration a case asks of the harness. Absent fields mean "the harness's own default".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseConfig {
    /// The output cap the case needs, if any part of it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<CapRequest>,
    /// The handler deadline in milliseconds (needs `deadline.configurable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// The model provider's image limits the harness is to enforce (feature `image-limits`,
    /// derived from it; SPEC.md BLOCK-6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_limit: Option<Box<crate::ImageLimit>>,
}

impl CaseConfig {
    /// True when the case asks for nothing beyond the harness's defaults.
    pub fn is_empty(&self) -> bool {
        self.cap.is_none() && self.deadline_ms.is_none() && self.image_limit.is_none()
    }
}

/// Why the model's turn ended, as the API reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model stopped to have its tool calls run.
    ToolUse,
    /// The model finished its turn.
    EndTurn,
    /// The output limit cut the turn off: its last call may be incomplete.
    MaxTokens,
}

/// A saved transcript to resume a turn from (feature `resume`): the session that made it ended
/// after the model's turn (the case's `calls`) and these tool_results, with every call they do
/// not answer still open. A saved result may answer an id that is not one of the turn's calls
/// (a compaction dropped its call, or it came from another transcript).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resume {
    /// The tool_results the saved transcript holds after the turn, in transcript order.
    pub saved: Vec<SavedResult>,
}

/// One tool_result of a saved transcript (feature `resume`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedResult {
    /// The id of the call it answers.
    pub tool_use_id: String,
    /// Its text content.
    pub content: String,
    /// Whether it is an error result.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// The life of a harness's spilled artifacts across turns and sessions (feature
/// `spill-lifecycle`, PROTOCOL.md 4j): the case's calls split into turns of named sessions, in
/// call order, with what happens to the sessions between the turns. After each step the adapter
/// lists the artifacts its harness's spill store still holds (the reply's `spill_artifacts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpillLifecycle {
    /// What happens, in order.
    pub steps: Vec<SpillStep>,
}

/// One step of a [`SpillLifecycle`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpillStep {
    /// The model's next turn in `session` (a session starts at its first turn): the calls with
    /// these ids, which are the next calls of the case's `calls`, in order.
    Turn {
        /// The session's name (the case's own label; the adapter maps it to a session of its
        /// harness).
        session: String,
        /// The ids of the turn's calls.
        calls: Vec<String>,
    },
    /// The session's transcript no longer holds the results of these calls (compacted away, or
    /// removed by the user): nothing the model can see refers to their artifacts any more.
    Forget {
        /// The session's name.
        session: String,
        /// The ids of calls of the session's earlier turns.
        calls: Vec<String>,
    },
    /// The session ends for good (closed and disposed of, not suspended): nothing can refer to
    /// its artifacts again.
    End {
        /// The session's name.
        session: String,
    },
}

impl SpillStep {
    /// The session the step is about.
    pub fn session(&self) -> &str {
        match self {
            SpillStep::Turn { session, .. }
            | SpillStep::Forget { session, .. }
            | SpillStep::End { session } => session,
        }
    }
}

impl SpillLifecycle {
    /// Whether the steps fit the case's calls: every call has an id, the turns take every call
    /// exactly once and in call order, a forgotten call was answered in an earlier turn of the
    /// same session, and nothing happens to a session after it ended. The reason when not.
    pub fn check(&self, calls: &[Call]) -> Result<(), String> {
        let ids: Vec<&str> = calls
            .iter()
            .map(|c| {
                c.id()
                    .ok_or("every call of a spill lifecycle needs a string id")
            })
            .collect::<Result<_, _>>()?;
        let mut next = 0;
        let mut ended: Vec<&str> = Vec::new();
        let mut answered: Vec<(&str, &str)> = Vec::new();
        for (n, step) in self.steps.iter().enumerate() {
            let session = step.session();
            if ended.contains(&session) {
                return Err(format!(
                    "step {n}: session {session:?} already ended; nothing happens to it after its end"
                ));
            }
            match step {
                SpillStep::Turn { calls: turn, .. } => {
                    if turn.is_empty() {
                        return Err(format!("step {n}: a turn has at least one call"));
                    }
                    for id in turn {
                        if ids.get(next) != Some(&id.as_str()) {
                            return Err(format!(
                                "step {n}: the turns take the case's calls in order; {id:?} is not call {next}"
                            ));
                        }
                        answered.push((session, id.as_str()));
                        next += 1;
                    }
                }
                SpillStep::Forget {
                    calls: forgotten, ..
                } => {
                    for id in forgotten {
                        if !answered.contains(&(session, id.as_str())) {
                            return Err(format!(
                                "step {n}: {id:?} was not answered in an earlier turn of session {session:?}"
                            ));
                        }
                    }
                }
                SpillStep::End { .. } => ended.push(session),
            }
        }
        if next != ids.len() {
            return Err(format!(
                "the turns take {next} of the case's {} calls; every call belongs to one turn",
                ids.len()
            ));
        }
        Ok(())
    }
}

/// Paused calls and the user's decisions (feature `pause`). Every call of a tool in `tools`
/// that passes validation pauses before it runs, waiting for the user; once the turn's calls
/// have paused, the user gives `decisions`, in this order (which may not be the calls'). A
/// paused call no decision names gets none: the harness stops waiting after `wait_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pause {
    /// The tools whose calls wait for the user's approval before they run.
    pub tools: Vec<String>,
    /// How long the harness waits for a decision, in milliseconds, from the moment the call
    /// paused.
    pub wait_ms: u64,
    /// The user's decisions, in the order the user gives them.
    pub decisions: Vec<PauseDecision>,
}

/// The user's decision on one paused call (feature `pause`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseDecision {
    /// The id of the call the decision is for.
    pub call: String,
    /// Approve or deny.
    pub decision: UserDecision,
    /// `approve` only: the arguments as the user edited them, which replace the call's own
    /// (the harness validates them as it validates a call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<serde_json::Value>,
    /// `approve` only: data the user gave for this call when it asked (an elicitation's answer,
    /// a suspended tool's resume data), handed to the call's handler; the scripted handler
    /// sets each field into its own arguments object on entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Map<String, serde_json::Value>>,
}

/// What the user decided about a paused call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserDecision {
    /// Run the call.
    Approve,
    /// Do not run it.
    Deny,
}

/// The parts of a cap a case may ask for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapRequest {
    /// The limit in `unit`s (needs `cap.configurable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// What the limit counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// How the cut is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// The room left in the model's context window for this turn's results, in the cap's unit
    /// (feature `context-cap`): a context-aware harness caps each result at the smaller of its
    /// limit and this. A case may give it relative to the cap; the runner sends it exact.
    /// Boxed, like `image_limit`: most cases do not have it, and every wire case carries the
    /// field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<Box<Size>>,
}

/// What a cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// UTF-8 bytes.
    Bytes,
    /// Unicode scalar values (what Rust calls `char` and Python calls a code point).
    Chars,
    /// Lines: a line ends at `\n`; a non-empty last line without one counts too (so `"a\nb"`
    /// and `"a\nb\n"` are two lines, `""` none). Generated outputs of a lines-capped case are
    /// sized in chars ([`Unit::generation`]).
    Lines,
    /// Estimated tokens: the harness's declared [`TokenEstimator`] applied to the text
    /// (`ceil(bytes / 4)`, say), never a model's tokenizer. A limit of `n` tokens is exactly a
    /// limit of `n × divisor` in the estimator's unit, which is what generated outputs are sized
    /// in and what the suite measures content in; notes state their amounts in tokens.
    Tokens,
}

impl Unit {
    /// Every unit, in documentation order (the names a hello's `cap.unit` may take).
    pub const ALL: [Unit; 4] = [Unit::Bytes, Unit::Chars, Unit::Lines, Unit::Tokens];

    /// The unit's name as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Chars => "chars",
            Unit::Lines => "lines",
            Unit::Tokens => "tokens",
        }
    }

    /// The unit generated outputs are sized in under a cap of this unit: the unit itself, or
    /// chars for `lines` (a case sizes a lines-capped output by its line width: `{"cap": 5.0}`
    /// of `"line\n"` is as many lines as the limit). A token cap never reaches generation: the
    /// runner sizes its outputs in the estimator's unit ([`TokenEstimator::counted`]), and chars
    /// stand in where no estimator is known.
    pub fn generation(self) -> Unit {
        match self {
            Unit::Lines | Unit::Tokens => Unit::Chars,
            u => u,
        }
    }
}

/// How a harness estimates tokens (cap unit `tokens`): `ceil(size / divisor)`, the size counted
/// in `of` (UTF-8 bytes or chars). A formula the suite can apply exactly, so a token cap is
/// judged like a byte or char cap; a model's tokenizer is not declarable (tokenizers differ
/// between models and versions, so no count could be fair to every harness).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenEstimator {
    /// What is counted: `bytes` or `chars` (other units are refused by [`Self::validate`]).
    pub of: Unit,
    /// How many of them make a token, at least 1 (openai/codex: 4 bytes).
    pub divisor: u64,
}

impl TokenEstimator {
    /// The unit counted: bytes or chars.
    pub fn counted(self) -> Unit {
        self.of
    }

    /// Tokens in `n` counted units: `ceil(n / divisor)`.
    pub fn tokens(self, n: u64) -> u64 {
        n.div_ceil(self.divisor.max(1))
    }

    /// Tokens in `text`.
    pub fn count(self, text: &str) -> u64 {
        self.tokens(crate::generate::measure(text, self.of))
    }

    /// The counted units a limit of `tokens` tokens allows: `tokens × divisor` (a text is
    /// within `tokens` exactly when its counted size is within this).
    pub fn counted_limit(self, tokens: u64) -> u64 {
        tokens.saturating_mul(self.divisor.max(1))
    }

    /// `Err` with the reason when the estimator is not one the suite can apply.
    pub fn validate(self) -> Result<(), String> {
        if !matches!(self.of, Unit::Bytes | Unit::Chars) {
            return Err(format!(
                "a token estimator counts bytes or chars, not {}",
                self.of.as_str()
            ));
        }
        if self.divisor == 0 {
            return Err("a token estimator's divisor is at least 1".into());
        }
        Ok(())
    }

    /// The formula as words: `ceil(bytes / 4)`.
    pub fn describe(self) -> String {
        format!("ceil({} / {})", self.of.as_str(), self.divisor)
    }
}

/// How a cap cuts an output that is too large.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Keep the beginning and the end, cut the middle.
    HeadTail,
    /// Keep the beginning only.
    HeadOnly,
    /// Keep nothing: an output over the limit becomes an error result saying it was too large,
    /// its size and the limit (class `output_too_large`).
    Reject,
    /// Keep the full output aside (an artifact) and show a preview within the limit that says
    /// the output's total size and where the rest is kept.
    Spill,
}

impl Strategy {
    /// Every strategy, in documentation order (the names a hello's `cap.strategies` may hold).
    pub const ALL: [Strategy; 4] = [
        Strategy::HeadTail,
        Strategy::HeadOnly,
        Strategy::Reject,
        Strategy::Spill,
    ];

    /// Whether the strategy cuts the output (head+tail, head-only) rather than refusing or
    /// spilling it.
    pub fn cuts(self) -> bool {
        matches!(self, Strategy::HeadTail | Strategy::HeadOnly)
    }

    /// The strategy's name as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::HeadTail => "head_tail",
            Strategy::HeadOnly => "head_only",
            Strategy::Reject => "reject",
            Strategy::Spill => "spill",
        }
    }
}

/// A tool the adapter registers with its harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDef {
    /// The tool's name.
    pub name: String,
    /// The description shown to the model (absent in a case file means empty).
    #[serde(default)]
    pub description: String,
    /// The input JSON Schema (draft 2020-12).
    pub input_schema: Value,
    /// What the tool's handler does when it runs.
    pub behavior: Behavior,
    /// The tool's security policy (security features; see [`crate::security`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyDef>,
    /// The JSON Schema (draft 2020-12) the tool declares its structured results match (MCP's
    /// `outputSchema`), used as written. Behaviour `output_schema`, which an adapter declares
    /// in `behaviors`: a case with one is skipped for an adapter that does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// A scripted handler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Behavior {
    /// Return an output.
    Return {
        /// The output.
        #[serde(rename = "return")]
        output: Output,
    },
    /// Raise an error of a given kind.
    Raise {
        /// The error.
        raise: Raise,
    },
    /// Sleep, then continue with another behaviour.
    Sleep {
        /// How long to sleep: milliseconds, or relative to the harness's deadline (resolved by
        /// the runner before the case is sent, so adapters only see milliseconds).
        sleep_ms: SleepMs,
        /// What to do after.
        then: Box<Behavior>,
    },
    /// Mutate the received arguments in place, then continue with another behaviour.
    MutateArgs {
        /// The mutation.
        mutate_args: Mutation,
        /// What to do after.
        then: Box<Behavior>,
    },
}

impl Behavior {
    /// How long this behaviour sleeps in all, following its `then` chain: what a runner adds to
    /// its per-case timeout so that a slow but correct case is never cut short.
    ///
    /// Call it on a resolved case: a sleep still relative to the deadline counts as its `plus`.
    pub fn scripted_sleep_ms(&self) -> u64 {
        match self {
            Behavior::Sleep { sleep_ms, then } => sleep_ms
                .exact()
                .unwrap_or(0)
                .saturating_add(then.scripted_sleep_ms()),
            Behavior::MutateArgs { then, .. } => then.scripted_sleep_ms(),
            Behavior::Return {
                output: Output::Stream(parts),
            } => parts
                .iter()
                .filter_map(|p| match p {
                    StreamPart::SleepMs(ms) => ms.exact(),
                    _ => None,
                })
                .fold(0, u64::saturating_add),
            Behavior::Return { .. } | Behavior::Raise { .. } => 0,
        }
    }
}

/// How long a scripted handler sleeps.
///
/// Deadline cases are written relative to the harness's deadline so that no verdict depends on
/// a race and a harness whose deadline cannot be configured is tested with its own default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum SleepMs {
    /// So many milliseconds.
    Exact(u64),
    /// `floor(deadline_ms × deadline) + plus` milliseconds (never below zero), where the
    /// deadline is the one configured for the case, or the harness's declared default.
    Relative {
        /// The multiple of the deadline.
        deadline: f64,
        /// Milliseconds added after the multiplication (may be negative).
        #[serde(default)]
        plus: i64,
    },
}

impl SleepMs {
    /// The milliseconds, once resolved.
    pub fn exact(self) -> Option<u64> {
        match self {
            SleepMs::Exact(ms) => Some(ms),
            SleepMs::Relative { .. } => None,
        }
    }
}

impl From<u64> for SleepMs {
    fn from(ms: u64) -> Self {
        SleepMs::Exact(ms)
    }
}

/// What a scripted handler returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Output {
    /// Plain text.
    Text(String),
    /// A JSON value (the handler returns the structured value, not its text).
    Json(Value),
    /// Text generated from a compact description.
    Generate(Gen),
    /// A float that JSON cannot represent.
    NonFinite(NonFinite),
    /// The arguments exactly as the handler received them, as a JSON value. Always `true`.
    EchoArgs(bool),
    /// A structured value with non-finite floats placed inside it (behaviour
    /// `non_finite_in`, which an adapter declares in `behaviors`).
    NonFiniteIn(NonFiniteIn),
    /// A structured value with values JSON has no form for placed inside it: a reference back
    /// to the whole value (a cycle), a set, bytes, a date, an opaque object (behaviour
    /// `non_json`, which an adapter declares in `behaviors`).
    NonJson(NonJsonIn),
    /// Content blocks — text, images, embedded resources — in order, returned the way the
    /// harness's tools return multi-part content (behaviour `content_blocks`).
    ContentBlocks(Vec<crate::ContentBlock>),
    /// A raw MCP `CallToolResult` answered by the MCP server the harness consumes the tool
    /// through (feature `mcp-client`).
    McpResult(crate::McpResult),
    /// Text written over time, in parts with sleeps between them, through the harness's
    /// streaming or progress mechanism (behaviour `stream`): the output is the parts in order.
    Stream(Vec<StreamPart>),
}

/// One step of a streamed output: write a part, or wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StreamPart {
    /// Write this text.
    Text(String),
    /// Write the generated text.
    Generate(Gen),
    /// Wait so long before the next step: milliseconds, or relative to the deadline (resolved
    /// by the runner, like a behaviour's `sleep_ms`).
    SleepMs(SleepMs),
}

/// The steps of a stream up to the first wait that ends at or past `deadline_ms` (counting
/// every wait before it): the parts a harness holding that deadline sees written in time.
/// Every step when there is no deadline or the stream ends before it.
pub fn stream_before_deadline(parts: &[StreamPart], deadline_ms: Option<u64>) -> &[StreamPart] {
    let Some(deadline) = deadline_ms else {
        return parts;
    };
    let mut elapsed = 0u64;
    for (i, part) in parts.iter().enumerate() {
        if let StreamPart::SleepMs(ms) = part {
            elapsed = elapsed.saturating_add(ms.exact().unwrap_or(0));
            if elapsed >= deadline {
                return &parts[..i];
            }
        }
    }
    parts
}

/// A structured value a handler returns with values JSON cannot encode at some places inside
/// it, each built in the handler's language's own terms (a Python `set`, a JS `Set`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonJsonIn {
    /// The value around them.
    pub value: Value,
    /// RFC 6901 pointer into `value` → what is placed there (added or replacing; the parent
    /// must exist; a `cycle` needs an object or array `value` and a non-empty pointer). Never
    /// empty.
    pub at: BTreeMap<String, NonJson>,
}

/// A value a JSON encoder cannot take as it is. Each has fixed contents, so that every
/// language builds the same one and the runner knows what a faithful conversion would hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NonJson {
    /// A reference back to the whole returned value (a dict or array that contains itself).
    Cycle,
    /// A set holding the integers 1, 2 and 3.
    Set,
    /// The three bytes 0x00 0xFF 0x41 (not UTF-8 text).
    Bytes,
    /// The instant 2024-01-02T03:04:05Z as the language's date-time type.
    Date,
    /// An instance of a class whose only state is private, with no JSON form of its own.
    Opaque,
}

impl NonJson {
    /// Every kind, in documentation order.
    pub const ALL: [NonJson; 5] = [
        NonJson::Cycle,
        NonJson::Set,
        NonJson::Bytes,
        NonJson::Date,
        NonJson::Opaque,
    ];

    /// The kind's name as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            NonJson::Cycle => "cycle",
            NonJson::Set => "set",
            NonJson::Bytes => "bytes",
            NonJson::Date => "date",
            NonJson::Opaque => "opaque",
        }
    }

    /// What a `set` holds.
    pub const SET_MEMBERS: [i64; 3] = [1, 2, 3];
    /// What `bytes` holds.
    pub const BYTES: [u8; 3] = [0x00, 0xFF, 0x41];
    /// The instant a `date` is, as RFC 3339 text.
    pub const DATE_RFC3339: &'static str = "2024-01-02T03:04:05Z";
    /// The same instant in seconds since the Unix epoch.
    pub const DATE_UNIX_SECONDS: i64 = 1_704_164_645;
}

/// A structured value a handler returns with non-finite floats at some places inside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonFiniteIn {
    /// The value around the floats.
    pub value: Value,
    /// RFC 6901 pointer into `value` → the float placed there (added or replacing; the parent
    /// must exist). Never empty.
    pub at: BTreeMap<String, NonFinite>,
}

impl Output {
    /// The optional behaviour (a [`crate::vocabulary::BEHAVIORS`] name) this output needs,
    /// if it is not part of protocol 1's base set.
    pub fn behavior_need(&self) -> Option<&'static str> {
        match self {
            Output::NonFiniteIn(_) => Some("non_finite_in"),
            Output::NonJson(_) => Some("non_json"),
            Output::ContentBlocks(_) => Some("content_blocks"),
            Output::Stream(_) => Some("stream"),
            _ => None,
        }
    }

    /// The behaviours (`behaviors`) the kinds of its blocks need beyond the output's own
    /// ([`ContentBlock::behavior_need`]): a handler's blocks or a raw MCP result's content.
    pub fn block_needs(&self) -> impl Iterator<Item = &'static str> + '_ {
        let blocks: &[crate::ContentBlock] = match self {
            Output::ContentBlocks(blocks) => blocks,
            Output::McpResult(result) => &result.content,
            _ => &[],
        };
        blocks.iter().filter_map(crate::ContentBlock::behavior_need)
    }

    /// The feature (`features`) an adapter must declare to receive this output, if any.
    pub fn feature_need(&self) -> Option<&'static str> {
        match self {
            Output::McpResult(_) => Some("mcp-client"),
            _ => None,
        }
    }
}

/// A float JSON has no literal for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NonFinite {
    /// Not a number.
    #[serde(rename = "nan")]
    Nan,
    /// Positive infinity.
    #[serde(rename = "inf")]
    Inf,
    /// Negative infinity.
    #[serde(rename = "-inf")]
    NegInf,
}

impl NonFinite {
    /// The float itself.
    pub fn value(self) -> f64 {
        match self {
            NonFinite::Nan => f64::NAN,
            NonFinite::Inf => f64::INFINITY,
            NonFinite::NegInf => f64::NEG_INFINITY,
        }
    }
}

/// An error a scripted handler raises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raise {
    /// Which class of failure, in the harness's own idiom.
    pub kind: RaiseKind,
    /// The error's message (for `domain`, written for the model).
    pub message: String,
    /// For `internal`: a marker inside `message` that must never reach the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// The classes of failure a handler can raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaiseKind {
    /// The tool ran and refused; its message is meant for the model.
    Domain,
    /// The tool or its service could not be reached; retrying may help.
    Transport,
    /// Anything else: a bug, a panic, an unexpected exception.
    Internal,
}

/// A mutation a handler applies to the arguments it received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mutation {
    /// JSON pointer (into the arguments) → new value. The parent must exist.
    pub set: BTreeMap<String, Value>,
}

/// A compact description of a (possibly large) text output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Gen {
    /// A literal text.
    Text {
        /// The text.
        text: String,
    },
    /// Whole repetitions of a unit: `floor(size / measure(repeat))` of them.
    Repeat {
        /// The unit repeated.
        repeat: String,
        /// The size to fill, in the cap's unit.
        size: Size,
    },
    /// Numbered lines, then a given last line.
    Lines {
        /// The description.
        lines: Lines,
    },
    /// Several generated parts, one after the other.
    Concat {
        /// The parts.
        concat: Vec<Gen>,
    },
    /// A forged copy of the harness's own truncation note: its declared form
    /// ([`crate::NoteDeclaration::form`]) stating `omitted` (SPEC.md FORGE-1). The runner
    /// resolves it into a `text` before it sends the case
    /// ([`crate::generate::resolve_note_copies`]), so an adapter never receives it.
    NoteCopy {
        /// What the copy states.
        note_copy: NoteCopy,
    },
    /// A forged copy of one of the harness's wrapper markers
    /// ([`crate::WrapperDeclaration`], SPEC.md WRAP-1), with the nonce `forged0`. The runner
    /// resolves it into a `text` before it sends the case, so an adapter never receives it.
    WrapperCopy {
        /// Which marker.
        wrapper_copy: WrapperPart,
    },
}

/// One of a wrapper's two markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrapperPart {
    /// The opening marker.
    Open,
    /// The closing marker.
    Close,
}

/// What a forged note copy states: the omitted amount, in the cap's unit; the other
/// placeholders of the form get values that go with it (total = omitted + 1000, kept = 1000,
/// one line of two, the cap's unit, the nonce `forged0`, `from the middle` for `{...}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteCopy {
    /// The omitted amount the copy states.
    pub omitted: u64,
}

/// Numbered body lines of a fixed width, then a last line.
///
/// Body line `i` (from 1) is `format!("{:06} ", i % 1_000_000)` right-padded with `x` to
/// `width` chars (the prefix is always 7 chars, so every body line is exactly `width` wide).
/// Lines are joined by `\n`, then `\n` + `last` follows. There are as many body lines as keep
/// the total at or under `size`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lines {
    /// The size to fill, in the cap's unit.
    pub size: Size,
    /// Each body line's width in chars (at least 7, the width of the numbered prefix).
    pub width: u64,
    /// The final line (a stack trace's `ValueError: ...`).
    pub last: String,
}

/// A size in the cap's unit: exact, or relative to the harness's cap limit.
///
/// The runner resolves every relative size before it sends a case, so an adapter only ever
/// sees [`Size::Exact`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Size {
    /// So many units.
    Exact(u64),
    /// `floor(cap_limit × cap) + plus` units (never below zero).
    Relative {
        /// The multiple of the cap limit.
        cap: f64,
        /// Units added after the multiplication (may be negative).
        #[serde(default)]
        plus: i64,
    },
}

/// Which shape a call arrives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallForm {
    /// A structured `tool_use` block: `id`, `name`, `input` (any of them may be missing or odd).
    Structured,
    /// Arguments delivered as text, the way OpenAI-style APIs deliver them.
    ArgumentsText,
    /// The whole block as raw text, possibly not JSON.
    Raw,
}

impl CallForm {
    /// Every form, in documentation order (the names a hello's `call_forms` may hold).
    pub const ALL: [CallForm; 3] = [CallForm::Structured, CallForm::ArgumentsText, CallForm::Raw];

    /// The form's name as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            CallForm::Structured => "structured",
            CallForm::ArgumentsText => "arguments_text",
            CallForm::Raw => "raw",
        }
    }

    /// The need name a case with this form of call requires (`None` for structured calls).
    pub fn need(self) -> Option<&'static str> {
        match self {
            CallForm::Structured => None,
            CallForm::ArgumentsText => Some("call_form.arguments_text"),
            CallForm::Raw => Some("call_form.raw"),
        }
    }
}

/// One incoming call.
///
/// A structured call is kept as the JSON object the case wrote, because malformed calls are
/// the point of many cases: `id` may be missing, empty or a number, `input` may be an array.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// The whole block as raw text.
    Raw(String),
    /// A block with some of `id`, `name`, `input`, `arguments_text`.
    Block(Map<String, Value>),
}

const BLOCK_KEYS: [&str; 4] = ["id", "name", "input", "arguments_text"];

impl Call {
    /// The shape this call arrives in.
    pub fn form(&self) -> CallForm {
        match self {
            Call::Raw(_) => CallForm::Raw,
            Call::Block(map) if map.contains_key("arguments_text") => CallForm::ArgumentsText,
            Call::Block(_) => CallForm::Structured,
        }
    }

    /// The call's id when it is a string (possibly empty).
    pub fn id(&self) -> Option<&str> {
        match self {
            Call::Block(map) => map.get("id").and_then(Value::as_str),
            Call::Raw(_) => None,
        }
    }

    /// The call's tool name when it is a string.
    pub fn name(&self) -> Option<&str> {
        match self {
            Call::Block(map) => map.get("name").and_then(Value::as_str),
            Call::Raw(_) => None,
        }
    }

    /// The structured arguments, when present.
    pub fn input(&self) -> Option<&Value> {
        match self {
            Call::Block(map) => map.get("input"),
            Call::Raw(_) => None,
        }
    }

    /// The arguments as text, for the `arguments_text` form.
    pub fn arguments_text(&self) -> Option<&str> {
        match self {
            Call::Block(map) => map.get("arguments_text").and_then(Value::as_str),
            Call::Raw(_) => None,
        }
    }

    /// The Anthropic-style `tool_use` block for a structured call (with `"type": "tool_use"`),
    /// holding exactly the fields the case wrote (the caller's security options, which are not
    /// part of what the model sends, left out). `None` for the other forms.
    pub fn tool_use_block(&self) -> Option<Value> {
        match self {
            Call::Block(map) if !map.contains_key("arguments_text") => {
                let mut block = Map::new();
                block.insert("type".into(), Value::from("tool_use"));
                for (k, v) in map {
                    if !CALL_SECURITY_KEYS.contains(&k.as_str()) {
                        block.insert(k.clone(), v.clone());
                    }
                }
                Some(Value::Object(block))
            }
            _ => None,
        }
    }
}

impl Serialize for Call {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Call::Raw(raw) => {
                let mut map = Map::new();
                map.insert("raw".into(), Value::from(raw.as_str()));
                map.serialize(serializer)
            }
            Call::Block(map) => map.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Call {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        if let Some(raw) = map.get("raw") {
            if map.len() != 1 {
                return Err(D::Error::custom("a raw call has no field besides `raw`"));
            }
            let raw = raw
                .as_str()
                .ok_or_else(|| D::Error::custom("`raw` must be a string"))?;
            return Ok(Call::Raw(raw.to_owned()));
        }
        if let Some(key) = map.keys().find(|k| {
            !BLOCK_KEYS.contains(&k.as_str()) && !CALL_SECURITY_KEYS.contains(&k.as_str())
        }) {
            return Err(D::Error::custom(format!(
                "unknown call field {key:?}; a call has `raw`, or some of `id`, `name`, `input`, `arguments_text` (and the security options `idempotency_key`, `prepare`, `commit`, `context`, `before`)"
            )));
        }
        CallSecurity::from_block(&map).map_err(D::Error::custom)?;
        if map.contains_key("input") && map.contains_key("arguments_text") {
            return Err(D::Error::custom(
                "a call has `input` or `arguments_text`, not both",
            ));
        }
        if let Some(text) = map.get("arguments_text") {
            if !text.is_string() {
                return Err(D::Error::custom("`arguments_text` must be a string"));
            }
        }
        Ok(Call::Block(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn behaviours_decode_in_every_shape() {
        let b: Behavior = serde_json::from_value(json!({
            "sleep_ms": 5,
            "then": {"mutate_args": {"set": {"/a": 1}}, "then": {"return": {"echo_args": true}}}
        }))
        .unwrap();
        let Behavior::Sleep { then, .. } = b else {
            panic!("not a sleep: {b:?}")
        };
        assert!(matches!(*then, Behavior::MutateArgs { .. }));
        let r: Behavior = serde_json::from_value(
            json!({"raise": {"kind": "internal", "message": "x SECRET-1", "secret": "SECRET-1"}}),
        )
        .unwrap();
        assert!(matches!(r, Behavior::Raise { .. }));
        let n: Output = serde_json::from_value(
            json!({"non_finite_in": {"value": {"a": [1, 2]}, "at": {"/a/1": "nan"}}}),
        )
        .unwrap();
        assert_eq!(n.behavior_need(), Some("non_finite_in"));
        assert!(serde_json::from_value::<Output>(
            json!({"non_finite_in": {"value": {}, "at": {"/a": "zero"}}})
        )
        .is_err());
        let j: Output = serde_json::from_value(
            json!({"non_json": {"value": {"a": [1]}, "at": {"/a/0": "set", "/self": "cycle"}}}),
        )
        .unwrap();
        assert_eq!(j.behavior_need(), Some("non_json"));
        assert!(serde_json::from_value::<Output>(
            json!({"non_json": {"value": {}, "at": {"/a": "frozenset"}}})
        )
        .is_err());
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(
            serde_json::from_value::<Behavior>(json!({"return": {"text": "a"}, "extra": 1}))
                .is_err()
        );
        assert!(serde_json::from_value::<Output>(json!({"txt": "a"})).is_err());
        assert!(serde_json::from_value::<Call>(json!({"id": "a", "nme": "t"})).is_err());
        assert!(serde_json::from_value::<Call>(json!({"raw": "{", "id": "a"})).is_err());
        assert!(serde_json::from_value::<WireCase>(
            json!({"id": "a/b", "tools": [], "calls": [], "expect": {}})
        )
        .is_err());
    }

    #[test]
    fn calls_keep_odd_fields_as_written() {
        let c: Call = serde_json::from_value(json!({"id": 7, "input": [1]})).unwrap();
        assert_eq!(c.form(), CallForm::Structured);
        assert_eq!(c.id(), None);
        assert_eq!(
            c.tool_use_block().unwrap(),
            json!({"type": "tool_use", "id": 7, "input": [1]})
        );
        let t: Call =
            serde_json::from_value(json!({"id": "a", "name": "t", "arguments_text": "{"})).unwrap();
        assert_eq!(t.form(), CallForm::ArgumentsText);
        assert_eq!(t.arguments_text(), Some("{"));
        let r: Call = serde_json::from_value(json!({"raw": "not json"})).unwrap();
        assert_eq!(r, Call::Raw("not json".into()));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"raw": "not json"})
        );
    }

    #[test]
    fn every_closed_list_names_its_variants_as_the_wire_does() {
        fn wire_names<T: Serialize>(all: &[T]) -> Vec<String> {
            all.iter()
                .map(|v| {
                    serde_json::to_value(v)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect()
        }
        let names = |v: Vec<&str>| -> Vec<String> { v.into_iter().map(String::from).collect() };
        assert_eq!(
            wire_names(&Unit::ALL),
            names(Unit::ALL.map(Unit::as_str).to_vec())
        );
        assert_eq!(
            wire_names(&Strategy::ALL),
            names(Strategy::ALL.map(Strategy::as_str).to_vec())
        );
        assert_eq!(
            wire_names(&CallForm::ALL),
            names(CallForm::ALL.map(CallForm::as_str).to_vec())
        );
        assert_eq!(
            wire_names(&NonJson::ALL),
            names(NonJson::ALL.map(NonJson::as_str).to_vec())
        );
    }

    #[test]
    fn sizes_decode_exact_and_relative() {
        assert_eq!(
            serde_json::from_value::<Size>(json!(5)).unwrap(),
            Size::Exact(5)
        );
        assert_eq!(
            serde_json::from_value::<Size>(json!({"cap": 1.0, "plus": -1})).unwrap(),
            Size::Relative { cap: 1.0, plus: -1 }
        );
        assert!(serde_json::from_value::<Size>(json!({"cap": 1.0, "minus": 1})).is_err());
    }
}
