//! The case model: the wire case an adapter sees, plus what only the runner knows.
//!
//! A case file is the protocol's [`WireCase`](harness_conformance_protocol::WireCase) (config,
//! tools, calls, the turn's fields) with the suite's own fields around it: requirement ids, a
//! description, the capabilities it needs, and the expectations. Expectations never leave the
//! runner, so an adapter cannot tailor its answers to them. The wire case's fields are not
//! repeated here: [`Case`] is declared through the protocol's `with_wire_case!`, which writes
//! them in (and [`Case::wire`], which copies them out). It is a macro because serde cannot
//! combine `flatten` with `deny_unknown_fields`, and strict decoding matters more: a misspelt
//! expectation that silently vanished would make a case test nothing.

use std::collections::BTreeMap;

use harness_conformance_protocol::{Behavior, Call, CallForm, Output, RaiseKind, Size, ToolDef};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

harness_conformance_protocol::with_wire_case! {
    /// One conformance case, as written in `conformance/cases/<area>/<fault-name>.json`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Case {
        /// The SPEC.md requirement ids this case tests.
        pub requirements: Vec<String>,
        /// The fault dimensions the case exercises beyond those its structure shows
        /// (`docs/fault-map.md`). Documentation for the map: the runner does nothing with them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub dimensions: Vec<Dimension>,
        /// One or two sentences: the fault, and what the harness must do.
        pub description: String,
        /// Capabilities beyond what the runner derives itself.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub needs: Vec<String>,
        /// Needs whose declaration makes the case inapplicable: a harness that declares one
        /// SKIPs it (a declared repair profile allows what the case refuses).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub unless: Vec<String>,
        ..WireCase,
        /// What the runner checks.
        pub expect: Expect,
    }
}

/// A way a harness can get a requirement wrong: the columns of `docs/fault-map.md`
/// (`conformance/tools/fault_map.py` holds their meanings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Dimension {
    /// A value of another JSON type or string format is coerced, converted or confused.
    Type,
    /// Off by one at an edge: a limit met exactly, one unit over or under.
    Boundary,
    /// Text re-encoded, normalised, trimmed, case-folded, unescaped or split.
    Encoding,
    /// JSON number and equality semantics (1 vs 1.0, -0, big numbers, enum equality).
    Number,
    /// Results, items, blocks or gates in the wrong order.
    Ordering,
    /// Parallel calls, slow handlers, deadlines and cancellation.
    Concurrency,
    /// Large or many values.
    Size,
    /// A missing, empty, null or false value treated as another.
    Absence,
    /// The rule holds at the top level but not deep inside.
    Nesting,
    /// The rule holds on the success path but not on the error path, or the two confused.
    ErrorPath,
}

/// What the runner checks after a case ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// One entry per call, in call order.
    pub results: Vec<ResultExpect>,
    /// Exact handler run counts; tools not listed are not checked.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub invocations: BTreeMap<String, u64>,
    /// What the handlers received on entry, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_args: Option<Vec<ReceivedArgs>>,
    /// Every handler run of a listed tool received one of the listed arguments; no run at all
    /// passes, and tools not listed are not checked. For a call that may fairly be refused or
    /// run (arguments text repeating a key: the one value a run may carry is the valid one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_only_with: Option<Vec<ReceivedArgs>>,
    /// The transcript keeps the calls exactly as the model sent them (needs `history`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub history_unchanged: bool,
    /// Feature `cancel`: how many runs of each tool saw the cancellation and stopped early;
    /// tools not listed are not checked.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stopped: BTreeMap<String, u64>,
    /// A second run of the case, on a fresh harness, returns every result byte for byte the
    /// same: id, `is_error`, code, `retryable` and content.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeatable: bool,
    /// The runner times the case against a copy whose one generated output is
    /// [`LinearTime::smaller`] times smaller, and the time must not grow faster than linearly
    /// with the output (check `linear_time`, SPEC.md CAP-11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear_time: Option<LinearTime>,
    /// Feature `spill-lifecycle`: what the artifacts listed after each step of the case's
    /// `spill_lifecycle` must show (checks `spill.*`, SPEC.md SPILL-1..5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spills: Option<SpillExpect>,
    /// Check kind or group (`is_error`, `content`, `cap.note_counts`, …) → the requirement(s)
    /// that own those checks in every result and in the case-level checks ([`crate::blame`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blame: BTreeMap<String, Owners>,
}

/// `expect.linear_time`: how the case is timed against a smaller copy of itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearTime {
    /// How many times smaller the copy's generated output is (at least 2): the copy has the
    /// same shape (the same repeated text or lines), only less of it.
    pub smaller: u64,
}

/// `expect.spills`: which of the spill lifecycle's checks the case makes (each `true` or absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpillExpect {
    /// `spill.kept`: after every step, every artifact a live result of a session's transcript
    /// names is still held.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept: bool,
    /// `spill.cleaned`: after every step, no artifact named only by results of ended sessions is
    /// held, and once every session has ended nothing is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cleaned: bool,
    /// `spill.bounded`: after every turn, a session holding artifacts its transcript no longer
    /// names holds no more than its declared bound (`cap.spill`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bounded: bool,
    /// `spill.distinct`: two spills of different outputs never share an artifact id.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distinct: bool,
}

impl SpillExpect {
    /// The checks it asks for, in report order.
    pub fn kinds(&self) -> Vec<crate::blame::CheckKind> {
        use crate::blame::CheckKind;
        [
            (self.kept, CheckKind::SpillKept),
            (self.cleaned, CheckKind::SpillCleaned),
            (self.bounded, CheckKind::SpillBounded),
            (self.distinct, CheckKind::SpillDistinct),
        ]
        .into_iter()
        .filter_map(|(on, kind)| on.then_some(kind))
        .collect()
    }
}

/// One handler invocation the case expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceivedArgs {
    /// The tool whose handler ran.
    pub tool: String,
    /// The arguments it received.
    pub args: Value,
}

/// Which id a result must carry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum IdExpect {
    /// The call's id when it is a non-empty string, unique in the batch; otherwise unchecked.
    #[default]
    CallId,
    /// Not checked (`"tool_use_id": null`).
    Unchecked,
    /// Exactly this id.
    Exactly(String),
}

/// The expectations on one call's result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultExpect {
    /// Which id the result carries.
    #[serde(
        default,
        deserialize_with = "id_expect",
        serialize_with = "ser_id_expect",
        skip_serializing_if = "is_default_id"
    )]
    pub tool_use_id: IdExpect,
    /// Whether the result is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The outcome class, or the classes any of which is correct, checked through the
    /// adapter's code map and folds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Classes>,
    /// Whether the result says retrying may help (needs `retryability`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Checks on the content text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentExpect>,
    /// Checks on how the output was capped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<CapExpect>,
    /// A success's content is strict JSON holding the handler's structured output faithfully
    /// (any correct conversion of a value JSON has no form for); an error result passes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub represents_output: bool,
    /// The content is wrapped once in the harness's declared wrapper (`wrapper` in the hello):
    /// it starts with the opening marker and ends with the closing one, and neither occurs
    /// anywhere else, read with the result's nonce where the markers hold one (WRAP-1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wrapped: bool,
    /// Feature `repair`: the RFC 6901 pointers of the arguments the harness must report it
    /// repaired, in the `repaired` metadata or by naming them in the content (the pointer, or
    /// its last key); an error result passes (it repaired nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<String>,
    /// Checks on the content blocks of a handler that returned blocks (behaviour
    /// `content_blocks`) or of a raw MCP result (feature `mcp-client`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<crate::blocks::BlocksExpect>,
    /// This result repeats result N's (0-based, an earlier call): same `is_error`, code and
    /// content — an idempotent replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<usize>,
    /// Like [`Expect::blame`], for this result only; it takes precedence.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blame: BTreeMap<String, Owners>,
}

/// The classes a result may be answered with: one, or several that are all correct for the
/// situation (`["malformed_call", "invalid_arguments"]` for arguments that are not an object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classes(pub Vec<String>);

impl Classes {
    /// The accepted classes, in the order the case wrote them.
    pub fn all(&self) -> &[String] {
        &self.0
    }
}

impl Serialize for Classes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_one_or_many(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Classes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_one_or_many(
            d,
            "`class` is a class or a non-empty list of distinct classes",
        )
        .map(Classes)
    }
}

/// The requirements that own one `blame` key's checks: one, or several when one observation
/// breaks several promises (each owner gets a check of its own, and fails with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owners(pub Vec<String>);

impl Owners {
    /// The owners, in the order the case wrote them.
    pub fn all(&self) -> &[String] {
        &self.0
    }
}

impl From<&str> for Owners {
    fn from(owner: &str) -> Owners {
        Owners(vec![owner.to_owned()])
    }
}

impl Serialize for Owners {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_one_or_many(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Owners {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_one_or_many(
            d,
            "a `blame` value is a requirement id or a non-empty list of distinct ids",
        )
        .map(Owners)
    }
}

/// One string as itself, several as a list.
fn ser_one_or_many<S: serde::Serializer>(items: &[String], s: S) -> Result<S::Ok, S::Error> {
    match items {
        [one] => s.serialize_str(one),
        many => many.serialize(s),
    }
}

/// A string, or a non-empty list of distinct strings (`what` is the message otherwise).
fn de_one_or_many<'de, D: Deserializer<'de>>(d: D, what: &str) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let items = match OneOrMany::deserialize(d)? {
        OneOrMany::One(c) => vec![c],
        OneOrMany::Many(v) => v,
    };
    let distinct = items
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        == items.len();
    if items.is_empty() || !distinct {
        return Err(serde::de::Error::custom(what));
    }
    Ok(items)
}

fn id_expect<'de, D: Deserializer<'de>>(d: D) -> Result<IdExpect, D::Error> {
    Ok(match Option::<String>::deserialize(d)? {
        None => IdExpect::Unchecked,
        Some(id) => IdExpect::Exactly(id),
    })
}

fn ser_id_expect<S: serde::Serializer>(id: &IdExpect, s: S) -> Result<S::Ok, S::Error> {
    match id {
        IdExpect::Exactly(id) => s.serialize_str(id),
        _ => s.serialize_none(),
    }
}

fn is_default_id(id: &IdExpect) -> bool {
    *id == IdExpect::CallId
}

/// Checks on a result's content text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentExpect {
    /// Exactly this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// Every one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
    /// At least one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains_any: Vec<String>,
    /// None of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_contains: Vec<String>,
    /// An unanchored regex search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// At most this many Unicode scalar values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u64>,
    /// At most this size in the cap's unit; relative sizes resolve against the cap, so a
    /// message that echoes a huge value up to the harness's own cap fails however small it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<Size>,
    /// Exactly the handler's output text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub equals_output: bool,
}

/// Checks on how an output was capped.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapExpect {
    /// Whether the content must be cut (true) or the output verbatim (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// The content starts with the output's first units.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keeps_head: bool,
    /// The output's last line is in the content.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keeps_last_line: bool,
    /// The note states how much was omitted, in the cap's unit, and every number it labels
    /// with the unit or with lines is true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note_counts: bool,
    /// The note states how many lines were omitted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note_lines: bool,
    /// Capping the capped content again changes nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub idempotent: bool,
    /// Under `reject`: the over-limit output became an error result whose content states the
    /// output's size and the limit, in the cap's unit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rejected: bool,
    /// Under `spill`: the content is a preview that is not the output alone and states the
    /// output's total size (and names the artifact, when the adapter exposes one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spilled: bool,
    /// Under `spill`: the artifact the adapter exposes is the full output, byte for byte.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub artifact: bool,
    /// Content over the cap is not content that would fit it counted in a coarser unit (chars
    /// for a byte cap; characters as a reader sees them, combining marks not counted, for a
    /// char cap): the signature of a size counted in the wrong unit (CAP-3). Content over the
    /// cap for another reason is CAP-1's alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counted: bool,
    /// An output over the configured limit (even counted in a coarser unit) does not come back
    /// whole: the signature of a configuration ignored (CAP-9).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configured: bool,
    /// The harness's own note, read by its declared form (`cap.note` in the hello), is told
    /// apart from a copy of it in the output: a cut content holds exactly one note the model
    /// would take for the harness's, stating the true omitted amount; an uncut one holds none
    /// (FORGE-1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_note: bool,
}

impl Case {
    /// Whether the case says who owns its checks (`blame` in `expect` or in a result).
    pub fn has_blame(&self) -> bool {
        !self.expect.blame.is_empty() || self.expect.results.iter().any(|r| !r.blame.is_empty())
    }

    /// The area: the part of the id before `/`.
    pub fn area(&self) -> &str {
        self.id.split('/').next().unwrap_or("")
    }

    /// The tool a call names, when it names one the case defines.
    pub fn tool_for(&self, call: &Call) -> Option<&ToolDef> {
        let name = call.name()?;
        self.tools.iter().find(|t| t.name == name)
    }

    /// Whether this case is about the cap: it tests a CAP or HT requirement, sets a cap,
    /// expects cap behaviour, or sizes an output relative to the cap. Such a case checks every
    /// content against the cap even on a harness that declares none (the nominal cap).
    pub fn is_cap_case(&self) -> bool {
        self.requirements
            .iter()
            .any(|r| r.starts_with("CAP-") || r.starts_with("HT-") || r.starts_with("STRAT-"))
            || self.config.cap.is_some()
            || self.expect.results.iter().any(|r| r.cap.is_some())
            || self
                .tools
                .iter()
                .any(|t| behavior_has_relative_size(&t.behavior))
    }

    /// Every capability need: the declared ones and those the runner derives (call forms,
    /// cap configuration, deadline, keywords are derived separately by [`crate::needs`]).
    pub fn call_forms(&self) -> Vec<CallForm> {
        let mut forms: Vec<CallForm> = self.calls.iter().map(Call::form).collect();
        forms.sort();
        forms.dedup();
        forms
    }

    /// The secrets of every `internal` raise in the case's behaviours.
    pub fn secrets(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for tool in &self.tools {
            collect_secrets(&tool.behavior, &mut out);
        }
        out
    }
}

fn collect_secrets(b: &Behavior, out: &mut Vec<(String, String)>) {
    match b {
        Behavior::Raise { raise } if raise.kind == RaiseKind::Internal => {
            if let Some(secret) = &raise.secret {
                out.push((secret.clone(), raise.message.clone()));
            }
        }
        Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => {
            collect_secrets(then, out)
        }
        _ => {}
    }
}

/// The output a behaviour finally returns, if it returns one.
pub fn final_output(b: &Behavior) -> Option<&Output> {
    match b {
        Behavior::Return { output } => Some(output),
        Behavior::Raise { .. } => None,
        Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => final_output(then),
    }
}

fn behavior_has_relative_size(b: &Behavior) -> bool {
    match final_output(b) {
        Some(Output::Generate(g)) => gen_has_relative(g),
        Some(Output::Stream(parts)) => parts.iter().any(|p| match p {
            harness_conformance_protocol::StreamPart::Generate(g) => gen_has_relative(g),
            _ => false,
        }),
        _ => false,
    }
}

fn gen_has_relative(g: &harness_conformance_protocol::Gen) -> bool {
    use harness_conformance_protocol::Gen;
    match g {
        Gen::Text { .. } | Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => false,
        Gen::Repeat { size, .. } => matches!(size, Size::Relative { .. }),
        Gen::Lines { lines } => matches!(lines.size, Size::Relative { .. }),
        Gen::Concat { concat } => concat.iter().any(gen_has_relative),
    }
}
