//! Checks: comparing what a harness returned with what the case expects.
//!
//! Pure functions from (case, capabilities, observation) to findings. Every expectation is
//! evaluated as a *check* of one [`CheckKind`], tied to the one requirement that owns it
//! ([`crate::blame`]), and recorded whether it passed or failed, so reports can say which
//! requirement failed and which were tested at all. A check that cannot be run on this harness
//! (a class it has no code for, a cut on a harness without a cap, retryability it does not
//! report) is recorded as *not run*, with the reason. Apart from checks, a *bug* blames the case
//! itself (it asks for something impossible, e.g. `equals_output` on a handler that raises).
//! Every failure message names the result, what was expected, and what the harness returned,
//! quoted and bounded, so a reader never has to rerun the case to see what went wrong.
//!
//! Besides the case's own expectations, every case gets the universal checks (DESIGN.md):
//! one result per call in order with its id; content is valid text; content within the cap in
//! the harness's declared unit; no internal error's secret in any content; on a harness that
//! declares a `dialect`, every result one its provider takes on replay ([`crate::replay`]).
//!
//! The `idempotent` cap check and the `repeatable` check need a second run of the harness;
//! [`check`] returns it as a [`FollowUp`] for the runner to execute and hand to
//! [`check_follow_up`].

use std::collections::{BTreeMap, HashMap};

use harness_conformance_protocol::{
    materialize, measure, resolve_size_value, stream_before_deadline, Behavior, Call, Capabilities,
    Invocation, ObservedResult, Output, RaiseKind, SpillStep, Strategy, StreamPart, TokenEstimator,
    ToolDef, TruncationMeta, Unit, WireCase,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::blame::{self, CheckKind};
use crate::blocks;
use crate::case::{
    final_output, CapExpect, Case, ContentExpect, IdExpect, ReceivedArgs, ResultExpect,
};
use crate::needs;
use crate::note;
use crate::quote::{quote, quote_json};
use crate::replay;
use crate::represent;
use crate::spill;

/// The cap the harness should apply on this case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveCap {
    /// The limit, in `unit`.
    pub limit: u64,
    /// What the limit counts.
    pub unit: Unit,
    /// How the cut is made.
    pub strategy: Strategy,
    /// False when the harness declared no cap and the nominal one stands in.
    pub declared: bool,
    /// For a token cap: the harness's estimator, and the cap as declared (`limit` tokens).
    /// `limit` and `unit` above are then its exact equivalent in the estimator's unit
    /// (`ceil(n / d) <= t` exactly when `n <= t × d`), so every size check reads a token cap as
    /// it reads a byte or char cap; only the note's stated amounts are read in tokens.
    pub tokens: Option<TokenCap>,
    /// Feature `context-cap`: the room left in the model's context window, in the cap's own
    /// unit (tokens for a token cap), resolved against the cap. `limit` is then already the
    /// smaller of the two.
    pub remaining: Option<u64>,
}

/// A token cap as declared: its limit in tokens and how tokens are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenCap {
    /// The limit in tokens.
    pub limit: u64,
    /// `ceil(size / divisor)` of the size in bytes or chars.
    pub estimator: TokenEstimator,
}

/// The nominal cap a harness with `cap: null` is held to on cap cases.
pub const NOMINAL_CAP: u64 = 2000;

pub use crate::note::NOTE_SLACK;

/// The case's cap request over the harness's declared cap, or the nominal cap. A token cap is
/// given in its estimator's unit ([`EffectiveCap::tokens`]); a case's remaining context lowers
/// the limit to it ([`EffectiveCap::remaining`]).
pub fn effective_cap(case: &Case, caps: &Capabilities) -> EffectiveCap {
    let req = case.config.cap.clone().unwrap_or_default();
    let cap = match &caps.cap {
        Some(c) => EffectiveCap {
            limit: req.limit.unwrap_or(c.limit),
            unit: req.unit.unwrap_or(c.unit),
            strategy: req
                .strategy
                .or_else(|| c.strategies.first().copied())
                .unwrap_or(Strategy::HeadTail),
            declared: true,
            tokens: None,
            remaining: None,
        },
        None => EffectiveCap {
            limit: req.limit.unwrap_or(NOMINAL_CAP),
            unit: req.unit.unwrap_or(Unit::Chars),
            strategy: req.strategy.unwrap_or(Strategy::HeadTail),
            declared: false,
            tokens: None,
            remaining: None,
        },
    };
    // A context-aware cap: the smaller of the limit and the room left (an unresolvable size
    // leaves the limit alone; the runner reports it as the case's bug).
    let remaining = req
        .remaining
        .and_then(|size| resolve_size_value(*size, cap.limit).ok());
    let cap = EffectiveCap {
        limit: remaining.map_or(cap.limit, |r| r.min(cap.limit)),
        remaining,
        ..cap
    };
    let estimator = caps
        .cap
        .as_ref()
        .and_then(|c| c.estimator)
        .filter(|e| e.validate().is_ok());
    match (cap.unit, estimator) {
        (Unit::Tokens, Some(estimator)) => EffectiveCap {
            limit: estimator.counted_limit(cap.limit),
            unit: estimator.counted(),
            tokens: Some(TokenCap {
                limit: cap.limit,
                estimator,
            }),
            ..cap
        },
        _ => cap,
    }
}

/// The deadline the harness will apply on this case, in milliseconds: the case's
/// `config.deadline_ms` when the harness's deadline is configurable, else its declared default.
/// `None` when it has no deadline.
pub fn effective_deadline(case: &Case, caps: &Capabilities) -> Option<u64> {
    let d = caps.deadline.as_ref()?;
    if d.configurable {
        case.config.deadline_ms.or(d.default_ms)
    } else {
        d.default_ms
    }
}

/// What the adapter reported for a case.
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// The results, in the order the harness produced them.
    pub results: &'a [ObservedResult],
    /// The handler runs.
    pub invocations: &'a [Invocation],
    /// The transcript's calls, when reported.
    pub history: Option<&'a [Value]>,
    /// How many lone surrogate escapes decoding replaced by U+FFFD.
    pub lone_surrogates: usize,
    /// Feature `spill-lifecycle`: the artifacts the harness held after each step, when reported.
    pub spill_artifacts: Option<&'a [Vec<String>]>,
}

/// One evaluated check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// What it looked at.
    #[serde(serialize_with = "ser_kind", deserialize_with = "de_kind")]
    pub kind: CheckKind,
    /// The result it looked at (0-based), for per-result checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<usize>,
    /// The requirement it is evidence about.
    pub requirement: String,
    /// Why it failed; `None` when it passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Check {
    /// Whether it held.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// A check the case asks for that was not evaluated on this harness's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotRun {
    /// What it would have looked at.
    #[serde(serialize_with = "ser_kind", deserialize_with = "de_kind")]
    pub kind: CheckKind,
    /// The result, for per-result checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<usize>,
    /// The requirement it would have been evidence about.
    pub requirement: String,
    /// Why it was not run.
    pub reason: String,
    /// Which kind of reason: a capability the harness does not declare, or an answer that did
    /// not give the check anything to read (SPEC.md "Evidence").
    #[serde(default, skip_serializing_if = "Unevaluated::is_capability")]
    pub why: Unevaluated,
}

/// Why a check was not evaluated (SPEC.md "Evidence"). The difference decides a requirement's
/// standing: a check the harness's declared capabilities rule out is the stuff of NOT TESTABLE;
/// a check the harness's own answer gave nothing to read is *not evaluated*, because another
/// check — the one that judges the missing answer — already holds the failure.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[non_exhaustive]
pub enum Unevaluated {
    /// The harness does not declare what the check needs: codes or a code for the class,
    /// retryability, the transcript, a cap, tool-use ids, an exposed artifact.
    #[default]
    #[serde(rename = "capability")]
    Capability,
    /// The result the check reads did not come back: the call got no result, or the results
    /// could not be paired with the calls. The call's `answered` check holds the failure.
    #[serde(rename = "unanswered")]
    Unanswered,
    /// The result is not the kind the check reads: a success where the case expects an error
    /// (or the other way round), an output that was not cut, a block that never arrived. The
    /// check that judges that (`is_error`, `cap.within`, `blocks.delivered`) holds the failure.
    #[serde(rename = "presupposition")]
    Presupposition,
}

impl Unevaluated {
    /// The name reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            Unevaluated::Capability => "capability",
            Unevaluated::Unanswered => "unanswered",
            Unevaluated::Presupposition => "presupposition",
        }
    }

    /// Whether the harness's declared capabilities, not its answer, kept the check from running.
    pub fn is_capability(&self) -> bool {
        *self == Unevaluated::Capability
    }
}

fn ser_kind<S: serde::Serializer>(k: &CheckKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(k.as_str())
}

/// Reads a check kind back from a saved report: only the stable names [`CheckKind::as_str`] prints.
fn de_kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<CheckKind, D::Error> {
    let name = String::deserialize(d)?;
    CheckKind::parse(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown check kind {name:?}")))
}

/// A second run the `idempotent` or the `repeatable` check needs.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowUp {
    /// The index of the result whose content is fed back (`idempotent`).
    pub result: usize,
    /// The requirements the check belongs to (those of its owners that apply to the harness).
    pub requirements: Vec<String>,
    /// That content (`idempotent`).
    pub content: String,
    /// The case to run: for `idempotent`, the call's tool returning `content` as text, and the
    /// call alone; for `repeatable`, the case itself.
    pub case: WireCase,
    /// `repeatable`: the first run's results, which the second must repeat byte for byte;
    /// `None` for an idempotence re-run.
    pub first: Option<Vec<ObservedResult>>,
}

/// Everything the checks found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Findings {
    /// Every check evaluated, passed or failed, in evaluation order.
    pub checks: Vec<Check>,
    /// The checks the case asks for that this harness could not be judged on.
    pub not_run: Vec<NotRun>,
    /// The case is inconsistent.
    pub bugs: Vec<String>,
    /// Second runs still to do.
    pub follow_ups: Vec<FollowUp>,
    /// `linear_time`: the timed runs still to do.
    pub timed: Option<crate::timing::Timed>,
}

impl Findings {
    /// The failure messages, in order (each once, though a check of an unblamed case may
    /// count for several requirements).
    pub fn failures(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for m in self.checks.iter().filter_map(|c| c.failure.as_ref()) {
            if out.last() != Some(m) {
                out.push(m.clone());
            }
        }
        out
    }

    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| !c.passed())
    }
}

/// Records checks against their owners for one case.
struct Recorder<'a> {
    case: &'a Case,
    caps: &'a Capabilities,
    f: Findings,
}

/// Why a requirement does not apply to a harness with `caps`, from its `Applies:` line in the
/// embedded SPEC.md; `None` when it applies (or is not in SPEC.md: a hand-built case's).
pub fn not_applicable(requirement: &str, caps: &Capabilities) -> Option<String> {
    let req = crate::loader::embedded_requirements()
        .iter()
        .find(|r| r.id == requirement)?;
    let missing: Vec<String> = req
        .applies
        .iter()
        .filter(|n| !needs::applies(n, caps))
        .map(|n| format!("`{n}`"))
        .collect();
    (!missing.is_empty())
        .then(|| format!("applies to harnesses that declare {}", missing.join(", ")))
}

impl Recorder<'_> {
    /// The requirements a check counts for: its owner. A case without any `blame` (written
    /// before blame existed, or built by hand: the generator, tests) has its unowned checks
    /// counted for every requirement it lists, as verdicts were before check-level blame.
    fn owners(&self, kind: CheckKind, result: Option<usize>) -> Vec<String> {
        let owners = blame::owners(self.case, kind, result);
        match () {
            _ if !owners.is_empty() => owners,
            _ if self.case.requirements.is_empty() => vec!["?".to_owned()],
            _ => self.case.requirements.clone(),
        }
    }

    /// The owners a second run's check will count for: those that apply to the harness (the
    /// others are recorded as not run now, as [`Recorder::record_for`] would).
    fn follow_up_owners(&mut self, kind: CheckKind, result: Option<usize>) -> Vec<String> {
        let mut applying = Vec::new();
        for requirement in self.owners(kind, result) {
            match not_applicable(&requirement, self.caps) {
                Some(reason) => self.f.not_run.push(NotRun {
                    kind,
                    result,
                    reason: format!("{requirement} {reason}"),
                    requirement,
                    why: Unevaluated::Capability,
                }),
                None => applying.push(requirement),
            }
        }
        applying
    }

    /// Records a check for each of its owners. A requirement that does not apply to the harness
    /// (SPEC.md `Applies:`) is made no promise to, so its check is not run: a check it owns
    /// cannot fail, or pass, a harness it does not apply to.
    fn record(&mut self, kind: CheckKind, result: Option<usize>, failure: Option<String>) {
        for requirement in self.owners(kind, result) {
            self.record_for(&requirement, kind, result, failure.clone());
        }
    }

    /// Records a check for `requirement` itself, whatever the case blames.
    fn record_for(
        &mut self,
        requirement: &str,
        kind: CheckKind,
        result: Option<usize>,
        failure: Option<String>,
    ) {
        if let Some(reason) = not_applicable(requirement, self.caps) {
            self.f.not_run.push(NotRun {
                kind,
                result,
                requirement: requirement.to_owned(),
                reason: format!("{requirement} {reason}"),
                why: Unevaluated::Capability,
            });
            return;
        }
        self.f.checks.push(Check {
            kind,
            result,
            requirement: requirement.to_owned(),
            failure,
        });
    }

    fn pass(&mut self, kind: CheckKind, result: Option<usize>) {
        self.record(kind, result, None);
    }

    fn fail(&mut self, kind: CheckKind, result: Option<usize>, message: String) {
        self.record(kind, result, Some(message));
    }

    /// Passes when `failure` is `None`.
    fn outcome(&mut self, kind: CheckKind, result: Option<usize>, failure: Option<String>) {
        self.record(kind, result, failure);
    }

    /// A check the harness's capabilities rule out.
    fn not_run(&mut self, kind: CheckKind, result: Option<usize>, reason: impl Into<String>) {
        self.unevaluated(kind, result, Unevaluated::Capability, reason);
    }

    fn unevaluated(
        &mut self,
        kind: CheckKind,
        result: Option<usize>,
        why: Unevaluated,
        reason: impl Into<String>,
    ) {
        let reason = reason.into();
        for requirement in self.owners(kind, result) {
            self.f.not_run.push(NotRun {
                kind,
                result,
                requirement,
                reason: reason.clone(),
                why,
            });
        }
    }

    fn bug(&mut self, message: String) {
        self.f.bugs.push(message);
    }
}

/// Why `tool_use_id` checks are not run on a harness that declares `call_ids: false`.
pub const NO_CALL_IDS: &str = "the harness never sees the model's tool-use ids (`call_ids: false`, e.g. an MCP server): its host pairs results with calls, so ids are not the harness's to judge";

/// How a class check that could not run for want of a code begins its reason (coverage reads
/// the class names after it, to report unmapped classes once).
pub const UNMAPPED_CLASS: &str = "the adapter's code map has no code (and no fold) for ";

/// The handler output a call's tool returns, as the runner materialises it.
#[derive(Debug, Clone, PartialEq)]
enum Expected {
    /// A text (`text` or `generate`).
    Text(String),
    /// A JSON value (`json`, `echo_args`).
    Json(Value),
    /// The handler raises, or returns a non-finite float, or the call names no tool.
    None,
}

/// Which result answers which call.
///
/// Results answer their calls in order (CORR-1). When there are as many results as calls they
/// are paired by position, as the protocol reports them; the id checks judge the order. When
/// the counts differ, a call is paired with the result carrying its id (a readable, unique id,
/// on a harness that sees ids), and the calls left over with the results left over, in order,
/// when there are as many of each. A call left without a result is *unanswered*: its `answered`
/// check fails for the requirement that promised the answer, and its other checks have nothing
/// to read (SPEC.md "Evidence").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    /// For each call, the index of the result that answers it.
    of_call: Vec<Option<usize>>,
    /// For each result, the index of the call it answers.
    of_result: Vec<Option<usize>>,
    /// Why an unanswered call has no result, for its messages.
    why_absent: String,
}

impl Pairing {
    /// Pairs `results` with the calls of `case`; `by_id`: the harness sees tool-use ids.
    pub fn new(case: &Case, results: &[ObservedResult], by_id: bool) -> Pairing {
        let (n, k) = (case.calls.len(), results.len());
        if n == k {
            return Pairing {
                of_call: (0..n).map(Some).collect(),
                of_result: (0..n).map(Some).collect(),
                why_absent: String::new(),
            };
        }
        let mut of_call = vec![None; n];
        let mut of_result = vec![None; k];
        let ids: Vec<Option<&str>> = case.calls.iter().map(Call::id).collect();
        let unique =
            |id: &str| !id.is_empty() && ids.iter().filter(|x| **x == Some(id)).count() == 1;
        if by_id {
            for (i, id) in ids.iter().enumerate() {
                let Some(id) = id.filter(|id| unique(id)) else {
                    continue;
                };
                if let Some(j) =
                    (0..k).find(|&j| of_result[j].is_none() && results[j].tool_use_id == id)
                {
                    of_call[i] = Some(j);
                    of_result[j] = Some(i);
                }
            }
        }
        let calls_left: Vec<usize> = (0..n).filter(|&i| of_call[i].is_none()).collect();
        let results_left: Vec<usize> = (0..k).filter(|&j| of_result[j].is_none()).collect();
        if calls_left.len() == results_left.len() {
            for (&i, &j) in calls_left.iter().zip(&results_left) {
                of_call[i] = Some(j);
                of_result[j] = Some(i);
            }
        }
        let why_absent = format!(
            "the harness returned {k} result(s) for {n} call(s) ({}), and none of them {}",
            ids_of(results),
            if by_id {
                "carries this call's id or is left over to answer it"
            } else {
                "can be paired with this call (the harness sees no tool-use ids, so results pair by position only)"
            }
        );
        Pairing {
            of_call,
            of_result,
            why_absent,
        }
    }

    /// The result that answers call `i`, if one does.
    pub fn result_of(&self, i: usize) -> Option<usize> {
        self.of_call.get(i).copied().flatten()
    }

    /// The call result `j` answers, if it answers one.
    pub fn call_of(&self, j: usize) -> Option<usize> {
        self.of_result.get(j).copied().flatten()
    }
}

/// Runs every check of `case` (resolved as `wire`) on `obs`.
pub fn check(case: &Case, wire: &WireCase, caps: &Capabilities, obs: &Observed) -> Findings {
    let mut r = Recorder {
        case,
        caps,
        f: Findings::default(),
    };
    let cap = effective_cap(case, caps);
    if case.expect.results.len() != case.calls.len() {
        r.bug(format!(
            "`expect.results` has {} entries for {} calls",
            case.expect.results.len(),
            case.calls.len()
        ));
        return r.f;
    }
    let pairing = Pairing::new(case, obs.results, caps.call_ids);
    // WRAP-1 reads the content as it came; every other check reads it inside the harness's
    // declared wrapper (`crate::wrap`).
    if let Some(w) = caps.wrapper.as_ref() {
        for (i, exp) in case.expect.results.iter().enumerate() {
            if let (true, Some(j)) = (exp.wrapped, pairing.result_of(i)) {
                let failure = crate::wrap::wrapped_failure(w, &obs.results[j])
                    .map(|why| format!("{}: {why}", result_label(i, &case.calls[i])));
                r.outcome(CheckKind::Wrapped, Some(i), failure);
            }
        }
    }
    let unwrapped = crate::wrap::unwrap_results(caps.wrapper.as_ref(), obs.results);
    let obs = &Observed {
        results: &unwrapped,
        ..*obs
    };
    universal(case, wire, caps, &cap, obs, &pairing, &mut r);
    // Calls whose result is not the kind the case expects (a success for an error, or the
    // other way round): their other checks presuppose that kind.
    let mut wrong_kind = vec![false; case.calls.len()];
    for (i, (call, exp)) in case.calls.iter().zip(&case.expect.results).enumerate() {
        let label = result_label(i, call);
        match pairing.result_of(i) {
            Some(j) => {
                let result = &obs.results[j];
                let expected = expected_output(wire, call, i, obs.invocations);
                wrong_kind[i] = check_result(
                    caps, &cap, &label, i, call, exp, result, &expected, wire, &mut r,
                );
            }
            None => {
                // Everything that reads this call's result, the universal checks on it too.
                let universal = [
                    CheckKind::TextValid,
                    CheckKind::CapWithin,
                    CheckKind::Secret,
                ]
                .into_iter()
                .chain(caps.dialect.is_some().then_some(CheckKind::Replay))
                .filter(|k| *k != CheckKind::Secret || !case.secrets().is_empty())
                .filter(|k| *k != CheckKind::CapWithin || cap.declared || case.is_cap_case());
                for kind in blame::result_kinds(case, i, exp)
                    .into_iter()
                    .filter(|k| !k.universal())
                    .chain(universal)
                {
                    match ruled_out(kind, exp, caps) {
                        Some(reason) => r.not_run(kind, Some(i), reason),
                        None => r.unevaluated(
                            kind,
                            Some(i),
                            Unevaluated::Unanswered,
                            format!("{label} got no result: {}", pairing.why_absent),
                        ),
                    }
                }
            }
        }
    }
    check_invocations(case, obs, &mut r);
    check_invalid_not_run(case, obs, &mut r);
    check_history(case, caps, obs, &mut r);
    check_same_as(case, obs, &pairing, &wrong_kind, &mut r);
    check_stopped(case, obs, &mut r);
    check_spills(case, wire, caps, obs, &pairing, &mut r);
    if case.expect.repeatable {
        let requirements = r.follow_up_owners(CheckKind::Repeatable, None);
        r.f.follow_ups.push(FollowUp {
            result: 0,
            requirements,
            content: String::new(),
            case: wire.clone(),
            first: Some(obs.results.to_vec()),
        });
    }
    if let Some(ask) = case.expect.linear_time {
        match crate::timing::smaller_copy(wire, ask) {
            Ok(small) => {
                let requirements = r.follow_up_owners(CheckKind::LinearTime, None);
                if !requirements.is_empty() {
                    r.f.timed = Some(crate::timing::Timed {
                        requirements,
                        large: wire.clone(),
                        small,
                        smaller: ask.smaller,
                    });
                }
            }
            Err(e) => r.bug(e),
        }
    }
    r.f
}

/// `spills`: the spill lifecycle's checks (feature `spill-lifecycle`; [`crate::spill`]).
fn check_spills(
    case: &Case,
    wire: &WireCase,
    caps: &Capabilities,
    obs: &Observed,
    pairing: &Pairing,
    r: &mut Recorder,
) {
    let Some(ask) = case.expect.spills else {
        return;
    };
    let Some(lifecycle) = &case.spill_lifecycle else {
        r.bug("`expect.spills` needs the case's `spill_lifecycle`".into());
        return;
    };
    let session_of: BTreeMap<&str, &str> = lifecycle
        .steps
        .iter()
        .filter_map(|s| match s {
            SpillStep::Turn { session, calls } => Some((session, calls)),
            _ => None,
        })
        .flat_map(|(session, calls)| calls.iter().map(move |c| (c.as_str(), session.as_str())))
        .collect();
    let cap = effective_cap(case, caps);
    let deadline = wire
        .config
        .deadline_ms
        .or(caps.deadline.as_ref().and_then(|d| d.default_ms));
    let spills: Vec<spill::Spill> = case
        .calls
        .iter()
        .enumerate()
        .filter_map(|(i, call)| {
            let id = call.id()?;
            let generated = call
                .name()
                .and_then(|n| wire.tools.iter().find(|t| t.name == n))
                .and_then(|t| output_text(t, cap.unit, deadline).ok().flatten());
            let output =
                generated.or_else(|| match expected_output(wire, call, i, obs.invocations) {
                    Expected::Text(t) => Some(t),
                    Expected::Json(v) => Some(v.to_string()),
                    Expected::None => None,
                });
            let result = pairing.result_of(i).and_then(|j| obs.results.get(j));
            Some(spill::Spill::of(
                id,
                session_of.get(id).copied().unwrap_or_default(),
                result,
                output,
            ))
        })
        .collect();
    let listing_kinds = [
        (ask.kept, CheckKind::SpillKept),
        (ask.cleaned, CheckKind::SpillCleaned),
        (ask.bounded, CheckKind::SpillBounded),
    ];
    match spill::presupposition(&lifecycle.steps, &spills, obs.spill_artifacts) {
        Some(reason) => {
            for (_, kind) in listing_kinds.iter().filter(|(on, _)| *on) {
                r.unevaluated(*kind, None, Unevaluated::Presupposition, reason.clone());
            }
        }
        None => {
            let policy = caps.cap.as_ref().and_then(|c| c.spill.as_ref());
            let j = spill::judge(
                &lifecycle.steps,
                &spills,
                obs.spill_artifacts.unwrap_or_default(),
                policy,
            );
            for (on, kind) in listing_kinds {
                let failure = match kind {
                    CheckKind::SpillKept => j.kept.clone(),
                    CheckKind::SpillCleaned => j.cleaned.clone(),
                    _ => j.bounded.clone(),
                };
                if !on {
                    continue;
                }
                if kind == CheckKind::SpillBounded && !policy.is_some_and(|p| p.is_bounded()) {
                    r.not_run(
                        kind,
                        None,
                        "the harness declares no spill bound (`cap.spill`)",
                    );
                    continue;
                }
                r.outcome(kind, None, failure);
            }
        }
    }
    if ask.distinct {
        match spill::shared_id(&spills) {
            Ok(failure) => r.outcome(CheckKind::SpillDistinct, None, failure),
            Err(reason) => r.unevaluated(
                CheckKind::SpillDistinct,
                None,
                Unevaluated::Presupposition,
                reason,
            ),
        }
    }
}

/// `stopped`: how many runs of each tool saw the turn's cancellation and stopped early.
fn check_stopped(case: &Case, obs: &Observed, r: &mut Recorder) {
    if case.expect.stopped.is_empty() {
        return;
    }
    let mut wrong = Vec::new();
    for (tool, want) in &case.expect.stopped {
        let runs = obs.invocations.iter().filter(|i| &i.tool == tool);
        let ran = runs.clone().count();
        let got = runs.filter(|i| i.stopped).count() as u64;
        if got != *want {
            wrong.push(format!(
                "expected {want} run(s) of `{tool}` to be told of the cancellation and stop early, {got} of its {ran} run(s) did (the others ran their scripted behaviour to the end after the turn was cancelled)"
            ));
        }
    }
    let failure = (!wrong.is_empty()).then(|| wrong.join("; "));
    r.outcome(CheckKind::Stopped, None, failure);
}

/// `same_as`: result i repeats result j (an idempotent replay): same `is_error`, code, content.
/// Not evaluated where either call went unanswered, or where result i is not the kind the
/// case expects (its `is_error` check holds that failure).
fn check_same_as(
    case: &Case,
    obs: &Observed,
    pairing: &Pairing,
    wrong_kind: &[bool],
    r: &mut Recorder,
) {
    for (i, exp) in case.expect.results.iter().enumerate() {
        let Some(j) = exp.same_as else { continue };
        if j >= i {
            r.bug(format!(
                "result {}: `same_as` {j} must name an earlier result (0-based)",
                i + 1
            ));
            continue;
        }
        let (Some(a), Some(b)) = (pairing.result_of(i), pairing.result_of(j)) else {
            r.unevaluated(
                CheckKind::SameAs,
                Some(i),
                Unevaluated::Unanswered,
                format!(
                    "{} and the result it repeats cannot both be read: {}",
                    result_label(i, &case.calls[i]),
                    pairing.why_absent
                ),
            );
            continue;
        };
        if wrong_kind[i] {
            r.unevaluated(
                CheckKind::SameAs,
                Some(i),
                Unevaluated::Presupposition,
                "the result is not the kind the case expects (is_error judges it)",
            );
            continue;
        }
        let (a, b) = (&obs.results[a], &obs.results[b]);
        if a.is_error != b.is_error || a.code != b.code || a.content != b.content {
            r.fail(CheckKind::SameAs, Some(i), format!(
                "{}: expected a replay of result {} (same is_error, code and content), the harness returned is_error {} code {} content {} where result {} has is_error {} code {} content {}",
                result_label(i, &case.calls[i]),
                j + 1,
                a.is_error,
                code_of(a),
                quote(&a.content),
                j + 1,
                b.is_error,
                code_of(b),
                quote(&b.content)
            ));
        } else {
            r.pass(CheckKind::SameAs, Some(i));
        }
    }
}

fn result_label(i: usize, call: &Call) -> String {
    match call.id() {
        Some(id) => format!("result {} (call {:?})", i + 1, id),
        None => format!("result {}", i + 1),
    }
}

/// The universal checks (DESIGN.md), applied to every case.
fn universal(
    case: &Case,
    wire: &WireCase,
    caps: &Capabilities,
    cap: &EffectiveCap,
    obs: &Observed,
    pairing: &Pairing,
    r: &mut Recorder,
) {
    // One result per call, in order, each with its call's id.
    if obs.results.len() != case.calls.len() {
        r.fail(
            CheckKind::ResultsCount,
            None,
            format!(
                "expected {} result(s), one per call; the harness returned {}: {}",
                case.calls.len(),
                obs.results.len(),
                ids_of(obs.results)
            ),
        );
    } else {
        r.pass(CheckKind::ResultsCount, None);
    }
    // Every call is answered: its absence fails the requirement that promised the answer.
    for (i, call) in case.calls.iter().enumerate() {
        match pairing.result_of(i) {
            Some(_) => r.pass(CheckKind::Answered, Some(i)),
            None => r.fail(
                CheckKind::Answered,
                Some(i),
                format!(
                    "{}: nothing came back for this call — {}",
                    result_label(i, call),
                    pairing.why_absent
                ),
            ),
        }
    }
    let ids: Vec<Option<&str>> = case.calls.iter().map(Call::id).collect();
    for (i, (call, exp)) in case.calls.iter().zip(&case.expect.results).enumerate() {
        let want = match &exp.tool_use_id {
            IdExpect::Unchecked => None,
            IdExpect::Exactly(id) => Some(id.as_str()),
            IdExpect::CallId => call
                .id()
                .filter(|id| !id.is_empty())
                .filter(|id| ids.iter().filter(|x| **x == Some(*id)).count() == 1),
        };
        let Some(want) = want else { continue };
        if !caps.call_ids {
            r.not_run(CheckKind::ToolUseId, Some(i), NO_CALL_IDS);
            continue;
        }
        match pairing.result_of(i).map(|j| &obs.results[j]) {
            Some(res) if res.tool_use_id == want => r.pass(CheckKind::ToolUseId, Some(i)),
            Some(res) => r.fail(CheckKind::ToolUseId, Some(i), format!(
                "{}: expected tool_use_id {:?}, the harness returned {} (results must answer their calls in order)",
                result_label(i, call),
                want,
                quote_json(&res.tool_use_id)
            )),
            None => r.unevaluated(
                CheckKind::ToolUseId,
                Some(i),
                Unevaluated::Unanswered,
                "the call got no result (its `answered` check holds the failure)",
            ),
        }
    }
    // Valid text. Serialising the case is only worth it when some content holds U+FFFD.
    let any_fffd = obs.results.iter().any(|r| r.content.contains('\u{FFFD}'));
    let case_has_fffd =
        any_fffd && serde_json::to_string(wire).is_ok_and(|t| t.contains('\u{FFFD}'));
    if obs.lone_surrogates > 0 {
        r.fail(CheckKind::TextValid, None, format!(
            "the reply held {} lone UTF-16 surrogate(s) (\\ud800-\\udfff escapes): the content is not valid text (a code point was split)",
            obs.lone_surrogates
        ));
    }
    // Per-result checks read every result; each is owned as the call it answers is (a result
    // that answers no call is judged under the case's own blame).
    for (j, res) in obs.results.iter().enumerate() {
        let at = pairing.call_of(j);
        let bad = (!case_has_fffd)
            .then(|| res.content.chars().position(|c| c == '\u{FFFD}'))
            .flatten();
        match bad {
            Some(pos) => r.fail(CheckKind::TextValid, at, format!(
                "{}: content holds U+FFFD at char {pos}, which the handler's output did not have (a code point was split or mangled): {}",
                label_at(case, j),
                quote(&around(&res.content, pos))
            )),
            None if obs.lone_surrogates == 0 => r.pass(CheckKind::TextValid, at),
            None => {}
        }
    }
    // Within the cap, counted in the cap's unit. A harness without a cap is held to the
    // nominal cap on cap cases: there, going over it is the "has no cap" failure, which is
    // CAP-1's whatever the case blames (the other cap requirements presuppose a cap and do
    // not apply to such a harness).
    if cap.declared || case.is_cap_case() {
        for (j, res) in obs.results.iter().enumerate() {
            let at = pairing.call_of(j);
            // A structured copy the model is also shown counts with the text (STRAT-7).
            let copy = res.structured.as_ref().map(|v| v.to_string());
            // A result with blocks is measured per text block (SPEC.md "content blocks").
            let size = blocks::capped_size(res, cap.unit)
                + copy.as_deref().map_or(0, |c| measure(c, cap.unit));
            let failure = (size > cap.limit).then(|| {
                let why = if let Some(t) = cap.tokens {
                    format!(
                        " (the token cap of {} tokens, counted by the declared estimator {}; the content is {} tokens)",
                        t.limit,
                        t.estimator.describe(),
                        t.estimator.tokens(size)
                    )
                } else if cap.declared {
                    String::new()
                } else {
                    format!(
                        " (the harness declares no cap, `cap: null`; the nominal cap of {} {} stands in, and the output must be cut)",
                        cap.limit,
                        cap.unit.as_str()
                    )
                };
                format!(
                    "{}: content is {size} {} (note included{}); the cap is {} {}{why}: {}",
                    label_at(case, j),
                    cap.unit.as_str(),
                    if copy.is_some() {
                        ", with the structured copy the model is also shown"
                    } else {
                        ""
                    },
                    cap.limit,
                    cap.unit.as_str(),
                    quote(&res.content)
                )
            });
            if cap.declared {
                r.outcome(CheckKind::CapWithin, at, failure);
            } else {
                r.record_for(MISSING_CAP_OWNER, CheckKind::CapWithin, at, failure);
            }
        }
    }
    // No secret of an internal error.
    let secrets = case.secrets();
    if !secrets.is_empty() {
        for (j, res) in obs.results.iter().enumerate() {
            let at = pairing.call_of(j);
            match secrets.iter().find(|(s, _)| res.content.contains(s.as_str())) {
                Some((secret, _)) => r.fail(CheckKind::Secret, at, format!(
                    "{}: content leaks an internal error's text (contains the marker {secret:?}); internal errors must reach the model as a generic message: {}",
                    label_at(case, j),
                    quote(&res.content)
                )),
                None => r.pass(CheckKind::Secret, at),
            }
        }
    }
    // The provider the harness declares takes every result when the transcript is replayed.
    if let Some(provider) = caps.dialect.as_deref().and_then(replay::provider) {
        for (j, res) in obs.results.iter().enumerate() {
            let at = pairing.call_of(j);
            // Where the case holds an error's message to OUT-9, an empty one is OUT-9's
            // finding: the provider's rule about error results is not booked a second time.
            let out9 = at.is_some_and(|i| message_held_to(case, i, ERROR_MESSAGE_OWNER));
            let breaches = replay::breaches(provider, res, out9);
            let failure = (!breaches.is_empty()).then(|| {
                let why: Vec<String> = breaches
                    .iter()
                    .map(|b| {
                        format!(
                            "{} (rule `{}`: {} The provider answers {:?}.)",
                            b.why, b.rule.id, b.rule.statement, b.rule.refusal
                        )
                    })
                    .collect();
                format!(
                    "{}: the provider of the declared dialect `{}` refuses this result when the transcript is replayed, and every later request with it: {}; the result: is_error {}, content {}",
                    label_at(case, j),
                    provider.dialect,
                    why.join("; "),
                    res.is_error,
                    quote(&res.content)
                )
            });
            r.outcome(CheckKind::Replay, at, failure);
        }
    }
}

/// The requirement that judges an error's message where a case checks it (SPEC.md OUT-9).
pub const ERROR_MESSAGE_OWNER: &str = "OUT-9";

/// Whether the case checks result `i`'s content for `requirement`.
fn message_held_to(case: &Case, i: usize, requirement: &str) -> bool {
    let Some(exp) = case.expect.results.get(i) else {
        return false;
    };
    blame::result_kinds(case, i, exp)
        .into_iter()
        .filter(|k| k.matches("content"))
        .any(|k| {
            blame::owners(case, k, Some(i))
                .iter()
                .any(|o| o == requirement)
        })
}

/// The requirement a harness without a cap fails where its output outgrows the nominal cap:
/// the missing cap is one fault, booked once (SPEC.md "Capabilities, classes and the cap").
pub const MISSING_CAP_OWNER: &str = "CAP-1";

/// The label of result `i`, with its call's id when there is such a call.
fn label_at(case: &Case, i: usize) -> String {
    match case.calls.get(i) {
        Some(call) => result_label(i, call),
        None => format!("result {}", i + 1),
    }
}

fn ids_of(results: &[ObservedResult]) -> String {
    let ids: Vec<String> = results.iter().map(|r| quote_json(&r.tool_use_id)).collect();
    format!("ids [{}]", ids.join(", "))
}

/// A short window of `text` around char `at`.
fn around(text: &str, at: usize) -> String {
    text.chars().skip(at.saturating_sub(20)).take(40).collect()
}

fn expected_output(wire: &WireCase, call: &Call, index: usize, invs: &[Invocation]) -> Expected {
    let Some(tool) = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n))
    else {
        return Expected::None;
    };
    match final_output(&tool.behavior) {
        Some(Output::Text(t)) => Expected::Text(t.clone()),
        // Materialised by the caller with the unit (and a stream's with the deadline).
        Some(Output::Generate(_) | Output::Stream(_)) => Expected::None,
        Some(Output::Json(v)) => Expected::Json(v.clone()),
        Some(Output::EchoArgs(_)) => {
            // The arguments as the handler held them: the invocation for this call, if the
            // adapter tied it to the call, else the n-th run of this tool, else the input.
            let id = call.id().map(Value::from);
            let by_id = invs
                .iter()
                .find(|inv| inv.tool == tool.name && id.is_some() && inv.tool_use_id == id);
            let nth = case_position(wire, index, &tool.name)
                .and_then(|k| invs.iter().filter(|inv| inv.tool == tool.name).nth(k));
            match by_id.or(nth) {
                Some(inv) => Expected::Json(echoed_args(&tool.behavior, &inv.args)),
                None => Expected::Json(call.input().cloned().unwrap_or(Value::Null)),
            }
        }
        Some(
            Output::NonFinite(_)
            | Output::NonFiniteIn(_)
            | Output::NonJson(_)
            | Output::ContentBlocks(_)
            | Output::McpResult(_),
        )
        | None => Expected::None,
    }
}

/// Which run of `tool` the call at `index` is (0-based), counting earlier calls to it.
fn case_position(wire: &WireCase, index: usize, tool: &str) -> Option<usize> {
    Some(
        wire.calls[..index]
            .iter()
            .filter(|c| c.name() == Some(tool))
            .count(),
    )
}

/// `echo_args` returns the arguments after the chain's own mutations.
fn echoed_args(b: &Behavior, received: &Value) -> Value {
    let mut args = received.clone();
    let mut cur = b;
    loop {
        match cur {
            Behavior::MutateArgs { mutate_args, then } => {
                for (ptr, v) in &mutate_args.set {
                    if let Some(slot) = args.pointer_mut(ptr) {
                        *slot = v.clone();
                    } else if let Some((parent, key)) = ptr.rsplit_once('/') {
                        if let Some(Value::Object(m)) = args.pointer_mut(parent) {
                            m.insert(key.replace("~1", "/").replace("~0", "~"), v.clone());
                        }
                    }
                }
                cur = then;
            }
            Behavior::Sleep { then, .. } => cur = then,
            _ => return args,
        }
    }
}

/// The output text a `generate` or `text` tool returns, materialised in the cap's unit. A
/// `stream` tool's is the text it writes before the harness's deadline (`deadline_ms`): what a
/// harness that streams has seen when the deadline comes, all of it when the stream ends in time.
fn output_text(
    tool: &ToolDef,
    unit: Unit,
    deadline_ms: Option<u64>,
) -> Result<Option<String>, String> {
    match final_output(&tool.behavior) {
        Some(Output::Text(t)) => Ok(Some(t.clone())),
        Some(Output::Generate(g)) => materialize(g, unit).map(Some).map_err(|e| e.to_string()),
        Some(Output::Stream(parts)) => {
            let mut text = String::new();
            for part in stream_before_deadline(parts, deadline_ms) {
                match part {
                    StreamPart::Text(t) => text.push_str(t),
                    StreamPart::Generate(g) => {
                        text.push_str(&materialize(g, unit).map_err(|e| e.to_string())?);
                    }
                    StreamPart::SleepMs(_) => {}
                }
            }
            Ok(Some(text))
        }
        _ => Ok(None),
    }
}

/// Why a result check cannot run on this harness whatever it answers, or `None` when it can. A
/// check the declared capabilities rule out stays a capability skip (NOT TESTABLE) where the
/// answer was missing or of the other kind, so NOT EVALUATED names only checks the answer kept
/// from running.
fn ruled_out(kind: CheckKind, exp: &ResultExpect, caps: &Capabilities) -> Option<String> {
    match (kind, &exp.class) {
        (CheckKind::Class, Some(classes)) => class_unmapped(classes.all(), caps),
        _ => None,
    }
}

/// Why the class check cannot run on this harness whatever it answers (no code map, or no code
/// for any of the classes), or `None` when it can.
fn class_unmapped(classes: &[String], caps: &Capabilities) -> Option<String> {
    let (codes, unmapped) = acceptable_codes(classes, caps);
    if !codes.is_empty() {
        return None;
    }
    Some(if caps.codes.is_none() {
        "the adapter declares no codes".to_owned()
    } else {
        format!(
            "{UNMAPPED_CLASS}{}",
            unmapped
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    })
}

/// The codes a result may carry for `classes` under the harness's code map and folds, and the
/// classes that have neither (their class check cannot be run).
fn acceptable_codes<'a>(
    classes: &'a [String],
    caps: &'a Capabilities,
) -> (Vec<&'a str>, Vec<&'a str>) {
    let Some(map) = &caps.codes else {
        return (Vec::new(), classes.iter().map(String::as_str).collect());
    };
    let mut codes = Vec::new();
    let mut unmapped = Vec::new();
    for class in classes {
        let target = caps.folds.get(class).unwrap_or(class);
        match map.get(target) {
            Some(code) => codes.push(code.as_str()),
            None => unmapped.push(class.as_str()),
        }
    }
    (codes, unmapped)
}

/// Runs the checks of one call's result. Returns true when the result is not the kind the case
/// expects (a success for an error, or the other way round): its `is_error` check failed, and
/// the result's other checks, which read that kind, are not evaluated (SPEC.md "Evidence").
#[allow(clippy::too_many_arguments)]
fn check_result(
    caps: &Capabilities,
    cap: &EffectiveCap,
    label: &str,
    index: usize,
    call: &Call,
    exp: &ResultExpect,
    res: &ObservedResult,
    expected: &Expected,
    wire: &WireCase,
    r: &mut Recorder,
) -> bool {
    let i = Some(index);
    let tool = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n));
    // The handler's output text is materialised (it can be megabytes) only for the checks
    // that compare against it.
    let compares_output = exp.content.is_some() || exp.cap.is_some() || exp.represents_output;
    let text = match tool.filter(|_| compares_output).map(|t| {
        let deadline = wire
            .config
            .deadline_ms
            .or(caps.deadline.as_ref().and_then(|d| d.default_ms));
        output_text(t, cap.unit, deadline)
    }) {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            r.bug(format!(
                "{label}: the tool's output cannot be generated: {e}"
            ));
            return false;
        }
        None => None,
    };
    let expected = match text {
        Some(t) => Expected::Text(t),
        None => expected.clone(),
    };
    // A harness that escapes copies of its note in an output (`cap.note.escapes`) shows the
    // output escaped: the checks read the output and the content with the escapes applied to
    // both, so an escaped copy is the output's text and the harness's own note, escaped the
    // same way, still states its numbers. Only `cap.own_note` reads the content as it came.
    let raw = res;
    let note = caps.cap.as_ref().and_then(|c| c.note.as_ref());
    let escaped_res;
    let (expected, res) = match (&expected, note.filter(|n| !n.escapes.is_empty())) {
        (Expected::Text(o), Some(n)) => {
            escaped_res = ObservedResult {
                content: n.escape(&res.content),
                ..res.clone()
            };
            (Expected::Text(n.escape(o)), &escaped_res)
        }
        _ => (expected, res),
    };
    // Likewise a harness that escapes copies of its wrapper's markers (`wrapper.escapes`).
    let wrapper = caps.wrapper.as_ref().filter(|w| !w.escapes.is_empty());
    let unmarked_res;
    let (expected, res) = match (&expected, wrapper) {
        (Expected::Text(o), Some(w)) => {
            unmarked_res = ObservedResult {
                content: w.escape(&res.content),
                ..res.clone()
            };
            (Expected::Text(w.escape(o)), &unmarked_res)
        }
        _ => (expected, res),
    };
    let shown = || {
        format!(
            "is_error {} code {} content {}",
            res.is_error,
            code_of(res),
            quote(&res.content)
        )
    };

    if let Some(want) = exp.is_error {
        let failure = (res.is_error != want).then(|| {
            format!(
                "{label}: expected is_error {want}, the harness returned {}",
                shown()
            )
        });
        let wrong_kind = failure.is_some();
        r.outcome(CheckKind::IsError, i, failure);
        if wrong_kind {
            let (wanted, got) = if want {
                ("an error", "a success")
            } else {
                ("a success", "an error")
            };
            for kind in blame::result_kinds(r.case, index, exp)
                .into_iter()
                .filter(|k| !k.universal() && !matches!(k, CheckKind::IsError | CheckKind::SameAs))
            {
                match ruled_out(kind, exp, caps) {
                    Some(reason) => r.not_run(kind, i, reason),
                    None => r.unevaluated(
                        kind,
                        i,
                        Unevaluated::Presupposition,
                        format!("{label} is {got} where the case expects {wanted}, which this check reads (is_error holds the failure)"),
                    ),
                }
            }
            return true;
        }
    }
    if let Some(classes) = &exp.class {
        let classes = classes.all();
        let (codes, _) = acceptable_codes(classes, caps);
        if let Some(reason) = class_unmapped(classes, caps) {
            r.not_run(CheckKind::Class, i, reason);
        } else if codes.contains(&res.code.as_deref().unwrap_or("\u{0}")) {
            r.pass(CheckKind::Class, i);
        } else {
            let wanted = if classes.len() == 1 {
                format!("code {:?} (class `{}`)", codes[0], classes[0])
            } else {
                format!(
                    "one of the codes {} (classes {})",
                    codes
                        .iter()
                        .map(|c| format!("{c:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    classes
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            r.fail(
                CheckKind::Class,
                i,
                format!(
                    "{label}: expected {wanted}, the harness returned {}",
                    shown()
                ),
            );
        }
    }
    if let Some(want) = exp.retryable {
        if caps.retryability {
            let failure = (res.retryable != Some(want)).then(|| {
                format!(
                    "{label}: expected retryable {want}, the harness returned retryable {}; {}",
                    res.retryable.map_or("absent".to_owned(), |b| b.to_string()),
                    shown()
                )
            });
            r.outcome(CheckKind::Retryable, i, failure);
        } else {
            r.not_run(
                CheckKind::Retryable,
                i,
                "the adapter does not declare retryability",
            );
        }
    }
    if let Some(content) = &exp.content {
        check_content(label, index, content, &res.content, &expected, cap, r);
    }
    if let Some(cap_exp) = &exp.cap {
        match tool.and_then(|t| error_text(&t.behavior)) {
            Some(message) if expected == Expected::None => {
                check_error_cap(label, index, call, cap_exp, cap, res, message, wire, r);
            }
            _ => check_cap(label, index, call, cap_exp, cap, res, &expected, wire, r),
        }
        if cap_exp.own_note && cap.declared {
            check_own_note(label, index, note, cap, &expected, res, raw, r);
        }
    }
    if exp.represents_output {
        check_represents(label, index, tool, res, &expected, r);
    }
    if !exp.repaired.is_empty() {
        check_repaired(label, index, &exp.repaired, res, r);
    }
    if let Some(b) = &exp.blocks {
        let want = tool
            .and_then(|t| final_output(&t.behavior))
            .and_then(blocks::expected_blocks);
        let Some(want) = want else {
            r.bug(format!(
                "{label}: `blocks` needs a tool returning `content_blocks` or an `mcp_result`"
            ));
            return false;
        };
        for (kind, finding) in
            blocks::check(label, b, want, res, wire.config.image_limit.as_deref())
        {
            match finding {
                blocks::Finding::Pass => r.pass(kind, i),
                blocks::Finding::Fail(message) => r.fail(kind, i, message),
                blocks::Finding::NotRun(reason) => {
                    r.unevaluated(kind, i, Unevaluated::Presupposition, reason);
                }
            }
        }
    }
    false
}

/// `repaired`: a success reports each repaired location, as metadata or in its content (the
/// pointer, or its last key: a note may name a field either way). An error passes.
fn check_repaired(
    label: &str,
    index: usize,
    pointers: &[String],
    res: &ObservedResult,
    r: &mut Recorder,
) {
    let named = |p: &String| {
        res.repaired.contains(p)
            || res.content.contains(p.as_str())
            || p.rsplit('/')
                .next()
                .filter(|key| !key.is_empty())
                .is_some_and(|key| {
                    res.content
                        .contains(&key.replace("~1", "/").replace("~0", "~"))
                })
    };
    let missing: Vec<&String> = pointers.iter().filter(|p| !named(p)).collect();
    let failure = (!res.is_error && !missing.is_empty()).then(|| {
        format!(
            "{label}: expected the result to report the repair of {} (in `repaired` or its content); the harness returned `repaired` {} and content {}",
            missing.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
            quote_json(&serde_json::json!(res.repaired)),
            quote(&res.content)
        )
    });
    r.outcome(CheckKind::Repaired, Some(index), failure);
}

/// `represents_output`: a success's content holds the structured output faithfully.
fn check_represents(
    label: &str,
    index: usize,
    tool: Option<&ToolDef>,
    res: &ObservedResult,
    expected: &Expected,
    r: &mut Recorder,
) {
    let want = match expected {
        // `echo_args`: the arguments as the handler held them.
        Expected::Json(v) => Some(represent::Represented::Json(v.clone())),
        _ => tool
            .and_then(|t| final_output(&t.behavior))
            .and_then(represent::Represented::of),
    };
    let Some(want) = want else {
        r.bug(format!(
            "{label}: `represents_output` needs a tool returning a structured output (`json`, `echo_args`, `non_finite`, `non_finite_in`, `non_json`)"
        ));
        return;
    };
    let failure = if res.is_error {
        None
    } else {
        represent::check(&want, &res.content).err().map(|wanted| {
            format!(
                "{label}: expected an error result, or a success whose content is {wanted}; the harness returned a success with content {}",
                quote(&res.content)
            )
        })
    };
    r.outcome(CheckKind::RepresentsOutput, Some(index), failure);
}

fn code_of(r: &ObservedResult) -> String {
    match &r.code {
        Some(c) => format!("{c:?}"),
        None => "(none)".into(),
    }
}

fn check_content(
    label: &str,
    index: usize,
    exp: &ContentExpect,
    content: &str,
    expected: &Expected,
    cap: &EffectiveCap,
    r: &mut Recorder,
) {
    let i = Some(index);
    let got = || quote(content);
    if let Some(want) = &exp.equals {
        let failure = (content != want).then(|| {
            format!(
                "{label}: expected content {}, the harness returned {}",
                quote(want),
                got()
            )
        });
        r.outcome(CheckKind::ContentEquals, i, failure);
    }
    if !exp.contains.is_empty() {
        let missing: Vec<&String> = exp
            .contains
            .iter()
            .filter(|s| !content.contains(s.as_str()))
            .collect();
        let failure = (!missing.is_empty()).then(|| {
            format!(
                "{label}: expected content containing {}, the harness returned {}",
                list(&missing),
                got()
            )
        });
        r.outcome(CheckKind::ContentContains, i, failure);
    }
    if !exp.contains_any.is_empty() {
        let found = exp
            .contains_any
            .iter()
            .any(|s| content.contains(s.as_str()));
        let failure = (!found).then(|| {
            format!(
                "{label}: expected content containing any of {}, the harness returned {}",
                list(&exp.contains_any.iter().collect::<Vec<_>>()),
                got()
            )
        });
        r.outcome(CheckKind::ContentContainsAny, i, failure);
    }
    if !exp.not_contains.is_empty() {
        let present: Vec<&String> = exp
            .not_contains
            .iter()
            .filter(|s| content.contains(s.as_str()))
            .collect();
        let failure = (!present.is_empty()).then(|| {
            format!(
                "{label}: expected content without {}, the harness returned {}",
                list(&present),
                got()
            )
        });
        r.outcome(CheckKind::ContentNotContains, i, failure);
    }
    if let Some(pattern) = &exp.matches {
        match compiled_regex(pattern) {
            Err(e) => r.bug(format!("{label}: `matches` is not a valid regex: {e}")),
            Ok(re) => {
                let failure = (!re.is_match(content)).then(|| {
                    format!(
                        "{label}: expected content matching /{pattern}/, the harness returned {}",
                        got()
                    )
                });
                r.outcome(CheckKind::ContentMatches, i, failure);
            }
        }
    }
    if let Some(max) = exp.max_chars {
        let n = content.chars().count() as u64;
        let failure = (n > max).then(|| {
            format!(
                "{label}: expected content of at most {max} chars, the harness returned {n} chars: {}",
                got()
            )
        });
        r.outcome(CheckKind::ContentMaxChars, i, failure);
    }
    if let Some(size) = exp.max_size {
        match resolve_size_value(size, cap.limit) {
            Err(e) => r.bug(format!("{label}: `max_size` cannot be resolved: {e}")),
            Ok(max) => {
                let n = measure(content, cap.unit);
                let failure = (n > max).then(|| {
                    format!(
                        "{label}: expected content of at most {max} {} (relative to the cap of {} {}), the harness returned {n}: {}",
                        cap.unit.as_str(),
                        cap.limit,
                        cap.unit.as_str(),
                        got()
                    )
                });
                r.outcome(CheckKind::ContentMaxSize, i, failure);
            }
        }
    }
    if exp.equals_output {
        match expected {
            Expected::Text(o) => {
                let failure = (o != content).then(|| {
                    format!(
                        "{label}: expected exactly the handler's output {}, the harness returned {}",
                        quote(o),
                        got()
                    )
                });
                r.outcome(CheckKind::ContentEqualsOutput, i, failure);
            }
            _ => r.bug(format!(
                "{label}: `equals_output` needs a tool returning `text` or `generate`"
            )),
        }
    }
}

fn list(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cap checks that judge how a cut was made (not whether output fits): not run on a
/// harness without a cap, which makes no cut by design.
fn cut_checks(exp: &CapExpect) -> Vec<CheckKind> {
    let mut kinds = Vec::new();
    if exp.truncated == Some(true) {
        kinds.push(CheckKind::CapTruncated);
    }
    for (on, kind) in [
        (exp.keeps_head, CheckKind::CapKeepsHead),
        (exp.keeps_last_line, CheckKind::CapKeepsLastLine),
        (exp.note_counts, CheckKind::CapNoteCounts),
        (exp.note_lines, CheckKind::CapNoteLines),
        (exp.idempotent, CheckKind::CapIdempotent),
        (exp.rejected, CheckKind::CapRejected),
        (exp.spilled, CheckKind::CapSpilled),
        (exp.artifact, CheckKind::CapArtifact),
        (exp.counted, CheckKind::CapCounted),
        (exp.configured, CheckKind::CapConfigured),
        (exp.own_note, CheckKind::CapOwnNote),
    ] {
        if on {
            kinds.push(kind);
        }
    }
    kinds
}

/// The message of a domain refusal or a transport failure the behaviour ends in: text the model
/// sees, capped like an output (SPEC.md CAP-8). An internal error's message is never shown
/// (OUT-5), so there is no cut of it to judge.
fn error_text(b: &Behavior) -> Option<&str> {
    match b {
        Behavior::Raise { raise } if raise.kind != RaiseKind::Internal => Some(&raise.message),
        Behavior::Raise { .. } | Behavior::Return { .. } => None,
        Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => error_text(then),
    }
}

/// The cap checks of an error whose message is over the cap, read like an output's: the
/// message is O, and the content from where the message starts is C. What a harness writes
/// around the message (`tool "t" is unavailable: ` before it, a remedy after it) is its own
/// framing, not a cut: text after the kept tail is read as a note is (C = H + N + T + M). The
/// checks that compare a whole output (`truncated: false`, `idempotent`, the strategies') have
/// no meaning here: a case asking for them is a bug.
#[allow(clippy::too_many_arguments)]
fn check_error_cap(
    label: &str,
    index: usize,
    call: &Call,
    exp: &CapExpect,
    cap: &EffectiveCap,
    res: &ObservedResult,
    message: &str,
    wire: &WireCase,
    r: &mut Recorder,
) {
    let whole_output_only = exp.truncated == Some(false)
        || exp.idempotent
        || exp.rejected
        || exp.spilled
        || exp.artifact
        || exp.counted
        || exp.configured;
    if whole_output_only {
        r.bug(format!(
            "{label}: an error's message takes only the cut checks (`truncated: true`, `keeps_head`, `keeps_last_line`, `note_counts`, `note_lines`)"
        ));
        return;
    }
    let framed = ObservedResult {
        content: unframe(message, &res.content),
        ..res.clone()
    };
    // The message whole, whatever the harness wrote around it, is an uncut message; the
    // harness's words after the message's last line with no number in them (a remedy) are not
    // a note, so a cut they follow is a silent one.
    let framed = if framed.content.contains(message) {
        ObservedResult {
            content: message.to_owned(),
            ..framed
        }
    } else {
        let content = without_remedy(message, &framed.content).to_owned();
        ObservedResult { content, ..framed }
    };
    let o = Expected::Text(message.to_owned());
    let rest = CapExpect {
        note_counts: false,
        ..exp.clone()
    };
    check_cap(label, index, call, &rest, cap, &framed, &o, wire, r);
    if !exp.note_counts || !cap.declared {
        return;
    }
    let i = Some(index);
    if silent_cut(message, &framed) {
        r.unevaluated(
            CheckKind::CapNoteCounts,
            i,
            Unevaluated::Presupposition,
            "the cut carries no note to read numbers from (cap.truncated holds that failure)",
        );
        return;
    }
    // An uncut message has no note to read; whether it had to be cut is `cap.within`'s question.
    let failure = (framed.content != message)
        .then(|| error_note_counts(message, res, &framed.content, cap).err())
        .flatten()
        .map(|want| {
            format!(
                "{label}: expected a note stating truly how much of the error's message was omitted ({want}), the harness returned {}",
                quote(&res.content)
            )
        });
    r.outcome(CheckKind::CapNoteCounts, i, failure);
}

/// `c` without the text after the message's last line when that text has no digit in it: a
/// note states a number, so such text is the harness's own words (a remedy), not a note.
fn without_remedy<'c>(o: &str, c: &'c str) -> &'c str {
    let last = last_line(o);
    match c.rfind(last).filter(|_| !last.is_empty()) {
        Some(at) if !c[at + last.len()..].contains(|ch: char| ch.is_ascii_digit()) => {
            &c[..at + last.len()]
        }
        _ => c,
    }
}

/// The note's numbers of an error's cut, read two ways, either of which is honest: against the
/// message (`unframed`: the content from the message's start), or against the error text as
/// the harness composed it before capping it whole — its framing on the message's line, the
/// message, and what follows the message's last line up to a line break or the end (a remedy;
/// a note after it is not part of it). A harness that caps the message then frames it, and one
/// that frames it then caps the whole, omit the same amount; their totals differ by the framing.
fn error_note_counts(
    o: &str,
    res: &ObservedResult,
    unframed: &str,
    cap: &EffectiveCap,
) -> Result<(), String> {
    let counts = |o: &str, c: &str| match res.truncation.as_ref().filter(|t| t.omitted.is_some()) {
        Some(meta) => meta_counts(o, c, meta, cap),
        None => note::check_counts(o, c, cap),
    };
    let first = counts(o, unframed);
    if first.is_ok() {
        return first;
    }
    let c = res.content.as_str();
    let probe = note::head_probe(o);
    let Some(start) = c.find(probe).filter(|_| !probe.is_empty()) else {
        return first;
    };
    let framing = &c[c[..start].rfind('\n').map_or(0, |k| k + 1)..start];
    let last = last_line(o);
    let Some(end) = c.rfind(last).filter(|_| !last.is_empty()) else {
        // No tail kept (a head-only cut): the harness's words after the message were cut with
        // it, and their length is unknown. A stated number above the message's omitted amount
        // is read as that amount plus such words, up to a note's worth of them.
        let gone = measure(o, cap.unit) - measure(&o[..note::common_prefix(unframed, o)], cap.unit);
        let numbers = unframed
            .split(|ch: char| !(ch.is_ascii_digit() || ch == ',' || ch == '_'))
            .filter_map(|n| n.replace([',', '_'], "").parse::<u64>().ok());
        for v in numbers.filter(|v| (gone..=gone + note::LEADING_NOTE_MAX as u64).contains(v)) {
            let words = " ".repeat((v - gone) as usize);
            if counts(&format!("{framing}{o}{words}"), c).is_ok() {
                return Ok(());
            }
        }
        return first;
    };
    let after = &c[end + last.len()..];
    let ends = after
        .match_indices('\n')
        .map(|(k, _)| k)
        .chain([0, after.len()]);
    for k in ends {
        let composed = format!("{framing}{o}{}", &after[..k]);
        if counts(&composed, c).is_ok() {
            return Ok(());
        }
    }
    first
}

/// `c` with the harness's framing before the message `o` set aside: the text on the line where
/// the message starts, before its start ([`note::head_probe`]). Lines before that line stay, as
/// a note placed before the kept head may be one of them. Content where the message's start is
/// not found is read whole (and its head checks fail).
fn unframe(o: &str, c: &str) -> String {
    let probe = note::head_probe(o);
    let Some(start) = c.find(probe).filter(|_| !probe.is_empty()) else {
        return c.to_owned();
    };
    let line_start = c[..start].rfind('\n').map_or(0, |k| k + 1);
    format!("{}{}", &c[..line_start], &c[start..])
}

#[allow(clippy::too_many_arguments)]
fn check_cap(
    label: &str,
    index: usize,
    call: &Call,
    exp: &CapExpect,
    cap: &EffectiveCap,
    res: &ObservedResult,
    expected: &Expected,
    wire: &WireCase,
    r: &mut Recorder,
) {
    let i = Some(index);
    let c = res.content.as_str();
    let o = match expected {
        Expected::Text(o) => o.as_str(),
        Expected::Json(v) => {
            let only_verbatim = exp.truncated == Some(false)
                && !exp.keeps_head
                && !exp.keeps_last_line
                && !exp.note_counts
                && !exp.note_lines;
            if !only_verbatim {
                r.bug(format!(
                    "{label}: cap checks other than `truncated: false` need a tool returning `text` or `generate`"
                ));
                return;
            }
            let failure = match serde_json::from_str::<Value>(c) {
                Ok(parsed) if parsed == *v => None,
                _ => Some(format!(
                    "{label}: expected the output verbatim (JSON equal to {}), the harness returned {}",
                    quote_json(v),
                    quote(c)
                )),
            };
            r.outcome(CheckKind::CapTruncated, i, failure);
            if exp.idempotent {
                follow_up(index, call, c, wire, r);
            }
            return;
        }
        Expected::None => {
            r.bug(format!(
                "{label}: cap checks need a tool returning an output (`text`, `generate`, `json`, `echo_args`)"
            ));
            return;
        }
    };
    if exp.truncated == Some(false) {
        let failure = (c != o).then(|| {
            format!(
                "{label}: expected the output verbatim ({} {}, within the cap of {}), the harness returned {} {}: {}",
                measure(o, cap.unit),
                cap.unit.as_str(),
                cap.limit,
                measure(c, cap.unit),
                cap.unit.as_str(),
                quote(c)
            )
        });
        r.outcome(CheckKind::CapTruncated, i, failure);
    }
    if !cap.declared {
        for kind in cut_checks(exp) {
            r.not_run(
                kind,
                i,
                "the harness declares no cap (`cap: null`), so it makes no cut to judge",
            );
        }
        return;
    }
    let silent_cut = silent_cut(o, res);
    if exp.truncated == Some(true) {
        if c == o {
            // Nothing was cut, so there is no cut whose note could be judged: whether the output
            // had to be cut is the size check's question (`cap.within`, CAP-1).
            r.unevaluated(
                CheckKind::CapTruncated,
                i,
                Unevaluated::Presupposition,
                "the harness returned the output uncut; the size check judges whether it had to be cut",
            );
        } else {
            // A cut says so: something in the content is not output text. Content that is the
            // output's head, or its head then its tail, and nothing else, was cut silently.
            // Truncation metadata that says something was omitted announces the cut as a note
            // does (PROTOCOL.md 3c).
            let failure = silent_cut.then(|| {
                format!(
                    "{label}: expected the output ({} {}) cut to the cap of {} {} with a note saying so; the harness returned {} {} {}",
                    measure(o, cap.unit),
                    cap.unit.as_str(),
                    cap.limit,
                    cap.unit.as_str(),
                    measure(c, cap.unit),
                    cap.unit.as_str(),
                    if c.is_empty() {
                        "(empty)".to_owned()
                    } else {
                        format!("of output text alone, with no note: {}", quote(c))
                    }
                )
            });
            r.outcome(CheckKind::CapTruncated, i, failure);
        }
    }
    if exp.keeps_head {
        let failure = (!keeps_head(o, c, cap)).then(|| {
            format!(
                "{label}: expected the content to start with the output's head {} (a note may come first, on its own line), the harness returned {}",
                quote(head_wanted(o, cap)),
                quote(c)
            )
        });
        r.outcome(CheckKind::CapKeepsHead, i, failure);
    }
    if exp.keeps_last_line {
        let last = last_line(o);
        let failure = (!c.contains(last)).then(|| {
            format!(
                "{label}: expected the content to keep the output's last line {} whole, the harness returned {}",
                quote(last),
                quote(c)
            )
        });
        r.outcome(CheckKind::CapKeepsLastLine, i, failure);
    }
    // The note's numbers presuppose a note: a silent cut is `cap.truncated`'s failure (the
    // loader makes every case that checks a note's numbers check `truncated: true` too).
    let no_note = |kind: CheckKind, r: &mut Recorder| {
        r.unevaluated(
            kind,
            i,
            Unevaluated::Presupposition,
            "the cut carries no note to read numbers from (cap.truncated holds that failure)",
        );
    };
    if exp.note_counts && silent_cut {
        no_note(CheckKind::CapNoteCounts, r);
    } else if exp.note_counts {
        let failure = if c == o {
            None
        } else if let Some(meta) = res.truncation.as_ref().filter(|t| t.omitted.is_some()) {
            meta_counts(o, c, meta, cap).err().map(|want| {
                format!(
                    "{label}: expected truncation metadata stating truly how much was omitted ({want}), the harness returned {} with {}",
                    quote(c),
                    quote_json(&serde_json::to_value(meta).unwrap_or_default())
                )
            })
        } else {
            note::check_counts(o, c, cap).err().map(|want| {
                format!(
                    "{label}: expected a note stating truly how much was omitted ({want}), the harness returned {}",
                    quote(c)
                )
            })
        };
        r.outcome(CheckKind::CapNoteCounts, i, failure);
    }
    if exp.note_lines && silent_cut {
        no_note(CheckKind::CapNoteLines, r);
    } else if exp.note_lines {
        let failure = if c == o {
            None
        } else {
            note::check_lines(o, c).err().map(|want| {
                format!(
                    "{label}: expected a note stating how many lines were omitted ({want}), the harness returned {}",
                    quote(c)
                )
            })
        };
        r.outcome(CheckKind::CapNoteLines, i, failure);
    }
    if exp.idempotent {
        follow_up(index, call, c, wire, r);
    }
    if exp.counted {
        // The output text the content keeps (a note beside it not counted): a harness that
        // counts in a coarser unit keeps more than the cap allows, yet no more than it allows
        // in the coarser unit. A note pushed past the cap is CAP-1's failure, not this one.
        let kept = note::kept_size(o, c, cap.unit);
        let coarse = coarse_measure(&kept_text(o, c), cap.unit);
        let failure = (kept > cap.limit && coarse.is_some_and(|n| n <= cap.limit)).then(|| {
            format!(
                "{label}: the content keeps {kept} {unit} of the output against a cap of {} {unit}, yet {} {} — a size counted in the wrong unit: {}",
                cap.limit,
                coarse.unwrap_or(0),
                coarse_unit_name(cap.unit),
                quote(c),
                unit = cap.unit.as_str()
            )
        });
        r.outcome(CheckKind::CapCounted, i, failure);
    }
    if exp.configured {
        let over = measure(o, cap.unit) > cap.limit
            && coarse_measure(o, cap.unit).is_none_or(|n| n > cap.limit);
        let failure = (over && c == o).then(|| {
            format!(
                "{label}: the output is {} {unit}, over the configured limit of {} {unit}, and came back whole: the configured limit was not applied",
                measure(o, cap.unit),
                cap.limit,
                unit = cap.unit.as_str()
            )
        });
        r.outcome(CheckKind::CapConfigured, i, failure);
    }
    if exp.rejected {
        r.outcome(
            CheckKind::CapRejected,
            i,
            rejected_failure(label, o, res, cap),
        );
    }
    if exp.spilled {
        r.outcome(
            CheckKind::CapSpilled,
            i,
            spilled_failure(label, o, res, cap),
        );
    }
    if exp.artifact {
        match &res.artifact {
            None => r.not_run(
                CheckKind::CapArtifact,
                i,
                "the adapter does not expose the spilled artifact (`artifact` in the result)",
            ),
            Some(a) => {
                let failure = (a.text != o).then(|| {
                    format!(
                        "{label}: expected the artifact {} to hold the full output ({} bytes) byte for byte; it holds {} bytes: {}",
                        quote(&a.id),
                        o.len(),
                        a.text.len(),
                        quote(&a.text)
                    )
                });
                r.outcome(CheckKind::CapArtifact, i, failure);
            }
        }
    }
}

/// `cap.own_note` (FORGE-1): the content read as the model reads it, by the harness's declared
/// note form ([`crate::forge`]). `expected` and `escaped` are the output and the result with the
/// harness's escapes applied (they tell whether and how much was cut); `raw` is the result as it
/// came, whose notes are read.
#[allow(clippy::too_many_arguments)]
fn check_own_note(
    label: &str,
    index: usize,
    note: Option<&harness_conformance_protocol::NoteDeclaration>,
    cap: &EffectiveCap,
    expected: &Expected,
    escaped: &ObservedResult,
    raw: &ObservedResult,
    r: &mut Recorder,
) {
    let i = Some(index);
    let Some(note) = note else {
        r.not_run(
            CheckKind::CapOwnNote,
            i,
            "the harness declares no note form (`cap.note`)",
        );
        return;
    };
    let Expected::Text(o) = expected else {
        r.bug(format!(
            "{label}: `own_note` needs a tool returning `text` or `generate`"
        ));
        return;
    };
    let c = escaped.content.as_str();
    let cut = c != o;
    if cut && silent_cut(o, escaped) {
        r.unevaluated(
            CheckKind::CapOwnNote,
            i,
            Unevaluated::Presupposition,
            "the cut carries no note at all (cap.truncated holds that failure)",
        );
        return;
    }
    let omitted = if cut {
        measure(o, cap.unit).saturating_sub(note::kept_size(o, c, cap.unit))
    } else {
        0
    };
    match crate::forge::own_note_failure(note, raw, cut, omitted, NOTE_SLACK) {
        Ok(failure) => r.outcome(
            CheckKind::CapOwnNote,
            i,
            failure.map(|f| format!("{label}: {f}")),
        ),
        Err(why) => r.not_run(CheckKind::CapOwnNote, i, why),
    }
}

/// A cut with nothing to say so: content that is the output's head, or its head then its tail,
/// and nothing else (no note, no truncation metadata announcing it), or nothing at all.
fn silent_cut(o: &str, res: &ObservedResult) -> bool {
    let c = res.content.as_str();
    c != o && {
        let p = note::common_prefix(c, o);
        let announced = res
            .truncation
            .as_ref()
            .is_some_and(|t| t.omitted.is_some_and(|n| n > 0));
        c.is_empty() || (o.ends_with(&c[p..]) && !announced)
    }
}

/// The output text `c` keeps of `o`: its head and its tail, joined (see [`note::kept_size`]).
fn kept_text(o: &str, c: &str) -> String {
    let head = note::common_prefix(&c[note::leading_note(o, c)..], o);
    let whole = note::kept_size(o, c, Unit::Bytes) as usize;
    let tail = whole.saturating_sub(head).min(o.len() - head);
    format!("{}{}", &o[..head], &o[o.len() - tail..])
}

/// `text`'s size in the next coarser unit a harness might count by mistake: chars for a byte
/// cap; for a char cap, characters as a reader sees them (combining marks, joiners and variation
/// selectors not counted on their own). `None` for a lines cap, which has none.
fn coarse_measure(text: &str, unit: Unit) -> Option<u64> {
    match unit {
        Unit::Bytes => Some(text.chars().count() as u64),
        // A token cap is read in its estimator's unit (`effective_cap`); never here.
        Unit::Chars | Unit::Tokens => {
            Some(text.chars().filter(|c| !is_combining(*c)).count() as u64)
        }
        Unit::Lines => None,
    }
}

fn coarse_unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Bytes => "chars: it would fit counted in chars",
        Unit::Chars | Unit::Tokens => {
            "characters as a reader sees them: it would fit counted without combining marks"
        }
        Unit::Lines => "",
    }
}

/// Combining marks, zero-width joiners and variation selectors: scalar values a reader does not
/// see as characters of their own (the common blocks; enough to tell a grapheme count from a
/// scalar count).
fn is_combining(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200C..=0x200D
        | 0x20D0..=0x20FF | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F | 0x1F3FB..=0x1F3FF | 0xE0100..=0xE01EF)
}

/// The numbers of `text`, digits grouped by `,` or `_` read as one number.
fn stated_numbers(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cur: Option<u64> = None;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if let Some(d) = ch.to_digit(10) {
            cur = Some(
                cur.unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(d)),
            );
        } else if matches!(ch, ',' | '_')
            && cur.is_some()
            && chars.peek().is_some_and(char::is_ascii_digit)
        {
            continue;
        } else if let Some(n) = cur.take() {
            out.push(n);
        }
    }
    out.extend(cur);
    out
}

/// `cap.rejected`: the over-limit output became an error result that states the output's size
/// and the limit in the cap's unit (numbers may be grouped: `12,000`).
fn rejected_failure(
    label: &str,
    o: &str,
    res: &ObservedResult,
    cap: &EffectiveCap,
) -> Option<String> {
    let size = measure(o, cap.unit);
    if !res.is_error {
        return Some(format!(
            "{label}: expected the output ({size} {} over the limit of {}) rejected with an error result, the harness returned a success: {}",
            cap.unit.as_str(),
            cap.limit,
            quote(&res.content)
        ));
    }
    let numbers = stated_numbers(&res.content);
    let missing: Vec<String> = [("size", size), ("limit", cap.limit)]
        .into_iter()
        .filter(|(_, n)| !numbers.contains(n))
        .map(|(what, n)| format!("the {what} {n}"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{label}: expected the rejection to state the output's size ({size} {unit}) and the limit ({} {unit}); it does not state {}: {}",
            cap.limit,
            missing.join(" or "),
            quote(&res.content),
            unit = cap.unit.as_str()
        )
    })
}

/// `cap.spilled`: a success whose content is not the output alone (the model is told the rest
/// is elsewhere), states the output's total size in the cap's unit, and names the artifact when
/// the adapter exposes one. Metadata beside the content counts as part of it.
fn spilled_failure(
    label: &str,
    o: &str,
    res: &ObservedResult,
    cap: &EffectiveCap,
) -> Option<String> {
    let c = res.content.as_str();
    let total = measure(o, cap.unit);
    let meta = res.truncation.as_ref();
    let mut problems = Vec::new();
    let p = note::common_prefix(c, o);
    if o.ends_with(&c[p..]) && meta.is_none() {
        problems.push(
            "the preview is output text alone, with nothing saying the rest was kept aside"
                .to_owned(),
        );
    }
    let states_total =
        stated_numbers(c).contains(&total) || meta.is_some_and(|m| m.total == Some(total));
    if !states_total {
        problems.push(format!(
            "it does not state the total size ({total} {})",
            cap.unit.as_str()
        ));
    }
    if let Some(a) = &res.artifact {
        let named = c.contains(a.id.as_str())
            || meta.is_some_and(|m| m.artifact.as_deref() == Some(a.id.as_str()));
        if !named {
            problems.push(format!("it does not name the artifact {}", quote(&a.id)));
        }
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{label}: expected a preview within the cap that points to the kept output; {}: {}",
            problems.join("; "),
            quote(c)
        )
    })
}

/// `cap.note_counts` read off truncation metadata: `omitted` (in `unit`, the cap's when
/// absent) is what the content leaves out of the output, and `total` (if given) is its size.
/// The content's own text is then taken to be kept output only.
fn meta_counts(o: &str, c: &str, meta: &TruncationMeta, cap: &EffectiveCap) -> Result<(), String> {
    // A token cap's metadata counts tokens, by the declared estimator.
    if let Some(t) = cap
        .tokens
        .filter(|_| meta.unit.is_none_or(|u| u == Unit::Tokens))
    {
        let e = t.estimator;
        let total = measure(o, e.counted());
        let gone = total - measure(c, e.counted()).min(total);
        let omitted = meta.omitted.unwrap_or(0);
        if !note::token_window(gone.saturating_sub(NOTE_SLACK), gone, e).contains(&omitted) {
            return Err(format!(
                "{} of {} tokens omitted by the declared estimator {}, metadata says {omitted}",
                e.tokens(gone),
                e.tokens(total),
                e.describe()
            ));
        }
        return match meta.total {
            Some(n) if n != e.tokens(total) => Err(format!(
                "the output is {} tokens by the declared estimator {}, metadata says {n}",
                e.tokens(total),
                e.describe()
            )),
            _ => Ok(()),
        };
    }
    let unit = meta.unit.unwrap_or(cap.unit);
    let total = measure(o, unit);
    let kept = measure(c, unit).min(total);
    let gone = total - kept;
    let omitted = meta.omitted.unwrap_or(0);
    if !(gone.saturating_sub(NOTE_SLACK)..=gone).contains(&omitted) {
        return Err(format!(
            "{gone} {} of {total} omitted, metadata says {omitted}",
            unit.as_str()
        ));
    }
    match meta.total {
        Some(t) if t != total => Err(format!(
            "the output is {total} {}, metadata says {t}",
            unit.as_str()
        )),
        _ => Ok(()),
    }
}

fn follow_up(index: usize, call: &Call, content: &str, wire: &WireCase, r: &mut Recorder) {
    let Some(tool) = call
        .name()
        .and_then(|n| wire.tools.iter().find(|t| t.name == n))
    else {
        return;
    };
    let mut tool = tool.clone();
    tool.behavior = Behavior::Return {
        output: Output::Text(content.to_owned()),
    };
    let requirements = r.follow_up_owners(CheckKind::CapIdempotent, Some(index));
    r.f.follow_ups.push(FollowUp {
        result: index,
        requirements,
        content: content.to_owned(),
        case: WireCase {
            tools: vec![tool],
            calls: vec![call.clone()],
            // The re-run's one call arrives whole: a turn cut off by its output limit would
            // refuse it whatever the cap did.
            stop_reason: wire
                .stop_reason
                .filter(|s| *s != harness_conformance_protocol::StopReason::MaxTokens),
            ..wire.clone()
        },
        first: None,
    });
}

/// Checks a second run: for `idempotent`, the content must come back unchanged; for
/// `repeatable`, every result must be the first run's, byte for byte.
pub fn check_follow_up(fu: &FollowUp, obs: &Observed) -> Vec<Check> {
    let (kind, result, failure) = follow_up_finding(fu, obs);
    fu.requirements
        .iter()
        .map(|requirement| Check {
            kind,
            result,
            requirement: requirement.clone(),
            failure: failure.clone(),
        })
        .collect()
}

/// What a second run found: the check's kind, its result, and the failure if any.
fn follow_up_finding(fu: &FollowUp, obs: &Observed) -> (CheckKind, Option<usize>, Option<String>) {
    if let Some(first) = &fu.first {
        return (
            CheckKind::Repeatable,
            None,
            repeat_difference(first, obs.results),
        );
    }
    let label = format!("result {}", fu.result + 1);
    let failure = match obs.results {
        [r] if r.content == fu.content => None,
        [r] => Some(format!(
            "{label}: capping is not idempotent: a handler returning the capped content {} got back {}",
            quote(&fu.content),
            quote(&r.content)
        )),
        rs => Some(format!(
            "{label}: the idempotence re-run expected 1 result, the harness returned {}",
            rs.len()
        )),
    };
    (CheckKind::CapIdempotent, Some(fu.result), failure)
}

/// Where a second run of the same case differs from the first, or `None` when every result is
/// the same byte for byte (id, `is_error`, code, `retryable`, content; `native` is the
/// adapter's report and is not compared).
fn repeat_difference(first: &[ObservedResult], second: &[ObservedResult]) -> Option<String> {
    if first.len() != second.len() {
        return Some(format!(
            "the same case sent again returned {} result(s), the first run {}",
            second.len(),
            first.len()
        ));
    }
    for (i, (a, b)) in first.iter().zip(second).enumerate() {
        let label = format!("result {}", i + 1);
        let differs = |field: &str, x: String, y: String| {
            format!("{label}: the same case sent again gave another {field}: first {x}, then {y}")
        };
        if a.tool_use_id != b.tool_use_id {
            return Some(differs(
                "tool_use_id",
                quote_json(&a.tool_use_id),
                quote_json(&b.tool_use_id),
            ));
        }
        if a.is_error != b.is_error {
            return Some(differs(
                "is_error",
                a.is_error.to_string(),
                b.is_error.to_string(),
            ));
        }
        if a.code != b.code {
            return Some(differs(
                "code",
                a.code.as_deref().map_or_else(|| "none".to_owned(), quote),
                b.code.as_deref().map_or_else(|| "none".to_owned(), quote),
            ));
        }
        if a.retryable != b.retryable {
            return Some(differs(
                "retryable",
                format!("{:?}", a.retryable),
                format!("{:?}", b.retryable),
            ));
        }
        if a.content != b.content {
            let at = a
                .content
                .chars()
                .zip(b.content.chars())
                .take_while(|(x, y)| x == y)
                .count();
            return Some(format!(
                "{label}: the same case sent again gave other content (they part at char {at}): first {}, then {} (content must carry nothing that depends on the run: no elapsed times, timestamps, random ids or addresses)",
                quote(&around(&a.content, at)),
                quote(&around(&b.content, at))
            ));
        }
    }
    None
}

/// The units of `o` a kept head must cover: its first line, or `limit / 10` units of it.
fn head_wanted<'a>(o: &'a str, cap: &EffectiveCap) -> &'a str {
    let budget = cap.limit / 10;
    // The first line when it fits the budget, else the longest prefix that does. Only the first
    // `budget` units are searched for the line break, so a huge single-line output is not
    // scanned to its end.
    let head = prefix_units(o, budget, cap.unit);
    head.find('\n').map_or(head, |end| &o[..end])
}

/// Whether `c` starts with the head `o`'s cap must keep, after a note placed before it if any.
fn keeps_head(o: &str, c: &str, cap: &EffectiveCap) -> bool {
    c[note::leading_note(o, c)..].starts_with(head_wanted(o, cap))
}

fn last_line(o: &str) -> &str {
    o.rsplit('\n').next().unwrap_or("")
}

/// The longest prefix of `s` that is at most `n` units.
fn prefix_units(s: &str, n: u64, unit: Unit) -> &str {
    match unit {
        Unit::Chars | Unit::Tokens => match s.char_indices().nth(n as usize) {
            Some((i, _)) => &s[..i],
            None => s,
        },
        Unit::Bytes => {
            let mut i = (n as usize).min(s.len());
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            &s[..i]
        }
        Unit::Lines => match n {
            0 => "",
            n => s
                .match_indices('\n')
                .nth(n as usize - 1)
                .map_or(s, |(i, _)| &s[..=i]),
        },
    }
}

fn check_invocations(case: &Case, obs: &Observed, r: &mut Recorder) {
    if !case.expect.invocations.is_empty() {
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for inv in obs.invocations {
            *counts.entry(inv.tool.as_str()).or_default() += 1;
        }
        let mut wrong = Vec::new();
        for (tool, want) in &case.expect.invocations {
            let got = counts.get(tool.as_str()).copied().unwrap_or(0);
            if got != *want {
                let args: Vec<String> = obs
                    .invocations
                    .iter()
                    .filter(|i| &i.tool == tool)
                    .map(|i| quote_json(&i.args))
                    .collect();
                wrong.push(format!(
                    "expected the handler of `{tool}` to run {want} time(s), it ran {got} time(s){}",
                    if args.is_empty() {
                        String::new()
                    } else {
                        format!(" with arguments {}", args.join(", "))
                    }
                ));
            }
        }
        let failure = (!wrong.is_empty()).then(|| wrong.join("; "));
        r.outcome(CheckKind::Invocations, None, failure);
    }
    if let Some(want) = &case.expect.received_args {
        let got: Vec<(String, Value)> = obs
            .invocations
            .iter()
            .map(|i| (i.tool.clone(), i.args.clone()))
            .collect();
        let want: Vec<(String, Value)> = want
            .iter()
            .map(|r| (r.tool.clone(), r.args.clone()))
            .collect();
        // The order handlers of a batch run in is the harness's choice, and so is how a
        // number is spelt (3 or 3.0): compare as a multiset, numbers by value.
        let failure = (!same_invocations(&want, &got)).then(|| {
            let show = |v: &[(String, Value)]| {
                v.iter()
                    .map(|(t, a)| format!("{t}({})", quote_json(a)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "expected the handlers to receive [{}], they received [{}]",
                show(&want),
                show(&got)
            )
        });
        r.outcome(CheckKind::ReceivedArgs, None, failure);
    }
    if let Some(allowed) = &case.expect.runs_only_with {
        check_runs_only_with(allowed, obs, r);
    }
}

/// `runs_only_with`: a run of a listed tool carried one of the listed arguments (numbers by
/// value). Whether the tool ran at all is not this check's business.
fn check_runs_only_with(allowed: &[ReceivedArgs], obs: &Observed, r: &mut Recorder) {
    let listed = |tool: &str| allowed.iter().any(|a| a.tool == tool);
    let wrong: Vec<String> = obs
        .invocations
        .iter()
        .filter(|i| listed(&i.tool))
        .filter(|i| {
            !allowed
                .iter()
                .any(|a| a.tool == i.tool && json_equal(&a.args, &i.args))
        })
        .map(|i| format!("{}({})", i.tool, quote_json(&i.args)))
        .collect();
    let failure = (!wrong.is_empty()).then(|| {
        let want: Vec<String> = allowed
            .iter()
            .map(|a| format!("{}({})", a.tool, quote_json(&a.args)))
            .collect();
        format!(
            "a handler ran with arguments that were not the validated ones: it received [{}], where a run may only receive [{}]",
            wrong.join(", "),
            want.join(", ")
        )
    });
    r.outcome(CheckKind::RunsOnlyWith, None, failure);
}

/// VAL-1's canary: no handler ran for a call the case says is invalid. Counted per tool, so a
/// tool the invalid call does not name cannot fail it: the handler of a tool an invalid call
/// names ran more often than the case expects.
fn check_invalid_not_run(case: &Case, obs: &Observed, r: &mut Recorder) {
    let tools = blame::invalid_call_tools(case);
    if tools.is_empty() {
        return;
    }
    let over: Vec<String> = tools
        .iter()
        .filter_map(|tool| {
            let want = case.expect.invocations.get(*tool).copied().unwrap_or(0);
            let got = obs.invocations.iter().filter(|i| i.tool == *tool).count() as u64;
            (got > want).then(|| {
                format!(
                    "the handler of `{tool}` ran {got} time(s) where {want} run(s) were expected: it ran for a call whose arguments fail its schema"
                )
            })
        })
        .collect();
    let failure = (!over.is_empty()).then(|| over.join("; "));
    r.outcome(CheckKind::InvalidNotRun, None, failure);
}

fn check_history(case: &Case, caps: &Capabilities, obs: &Observed, r: &mut Recorder) {
    if !case.expect.history_unchanged {
        return;
    }
    if !caps.history {
        r.not_run(
            CheckKind::HistoryUnchanged,
            None,
            "the adapter does not declare `history`",
        );
        return;
    }
    let Some(history) = obs.history else {
        r.fail(CheckKind::HistoryUnchanged, None, "expected the transcript's calls (`history`), the adapter reported none although it declares `history`".into());
        return;
    };
    let sent: Vec<Value> = case.calls.iter().map(call_as_sent).collect();
    let kept: Vec<Value> = history.iter().map(strip_type).collect();
    let failure = (kept != sent).then(|| {
        let show = |v: &[Value]| v.iter().map(quote_json).collect::<Vec<_>>().join(", ");
        format!(
            "expected the transcript to keep the calls as the model sent them [{}], it holds [{}]",
            show(&sent),
            show(&kept)
        )
    });
    r.outcome(CheckKind::HistoryUnchanged, None, failure);
}

/// Whether `got` holds exactly the invocations of `want`, in any order, with JSON values equal
/// numbers compared by value.
fn same_invocations(want: &[(String, Value)], got: &[(String, Value)]) -> bool {
    if want.len() != got.len() {
        return false;
    }
    let mut used = vec![false; got.len()];
    want.iter().all(|(tool, args)| {
        let found = got
            .iter()
            .enumerate()
            .position(|(k, (t, a))| !used[k] && t == tool && json_equal(a, args));
        match found {
            Some(k) => {
                used[k] = true;
                true
            }
            None => false,
        }
    })
}

/// JSON equality as JSON Schema defines it: numbers equal when their values are (1 == 1.0).
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => p == q,
                    _ => x == y,
                },
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// A call as the model sent it: the `tool_use` block without the caller's security options
/// (which are not part of what the model sends), or the other forms as written.
fn call_as_sent(call: &Call) -> Value {
    match call.tool_use_block() {
        Some(block) => strip_type(&block),
        None => serde_json::to_value(call).unwrap_or(Value::Null),
    }
}

fn strip_type(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.get("type") == Some(&Value::from("tool_use")) => {
            let mut m = m.clone();
            m.remove("type");
            Value::Object(m)
        }
        other => other.clone(),
    }
}

/// A one-line account of what the harness returned, for matrix cells and summaries.
pub fn returned_summary(results: &[ObservedResult]) -> String {
    results
        .iter()
        .map(|r| {
            format!(
                "is_error={} code={} content={}",
                r.is_error,
                r.code.as_deref().unwrap_or("-"),
                crate::quote::quote_n(&r.content, 120)
            )
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The most patterns [`compiled_regex`] keeps.
const REGEX_CACHE_MAX: usize = 4096;

/// `pattern` compiled, once per process for the first [`REGEX_CACHE_MAX`] patterns: a case's
/// `matches` is checked on every run of it (the selftest runs each case against a hundred
/// harnesses), and compiling the pattern cost more than the rest of the check.
fn compiled_regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<String, regex::Regex>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(re) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(re);
    }
    let re = regex::Regex::new(pattern)?;
    if let Ok(mut c) = cache.lock() {
        if c.len() < REGEX_CACHE_MAX {
            c.insert(pattern.to_owned(), re.clone());
        }
    }
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(limit: u64, unit: Unit) -> EffectiveCap {
        EffectiveCap {
            limit,
            unit,
            strategy: Strategy::HeadTail,
            declared: true,
            tokens: None,
            remaining: None,
        }
    }

    fn lines(n: usize, last: &str) -> String {
        let mut s = String::new();
        for i in 1..=n {
            s.push_str(&format!("{i:06} xxxxxxxxx\n"));
        }
        s.push_str(last);
        s
    }

    #[test]
    fn received_arguments_compare_numbers_by_value_in_any_order() {
        use serde_json::json;
        let want = vec![
            ("t".to_owned(), json!({"n": 3})),
            ("u".to_owned(), json!({"x": [1.5]})),
        ];
        let got = vec![
            ("u".to_owned(), json!({"x": [1.5]})),
            ("t".to_owned(), json!({"n": 3.0})),
        ];
        assert!(same_invocations(&want, &got));
        let coerced = vec![
            ("t".to_owned(), json!({"n": "3"})),
            ("u".to_owned(), json!({"x": [1.5]})),
        ];
        assert!(!same_invocations(&want, &coerced));
        assert!(!same_invocations(&want, &got[..1]));
        assert!(!json_equal(&json!(true), &json!(1)));
        assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_equal(
            &json!(9007199254740993u64),
            &json!(9007199254740992u64)
        ));
    }

    #[test]
    fn heads_and_last_lines() {
        let o = lines(50, "Traceback end");
        let c = cap(200, Unit::Bytes);
        assert!(keeps_head(&o, &o[..30], &c));
        assert!(!keeps_head(&o, "[cut]", &c));
        // A note on its own line before the head keeps the head (Inspect AI prints it so).
        assert!(keeps_head(
            &o,
            &format!("[output truncated]\n{}", &o[..30]),
            &c
        ));
        assert!(!keeps_head(
            &o,
            &format!("[output truncated]\n{}", &o[5..30]),
            &c
        ));
        assert_eq!(last_line(&o), "Traceback end");
        let long_first = "a".repeat(1000);
        assert_eq!(head_wanted(&long_first, &c), &long_first[..20]);
        assert_eq!(prefix_units("ééé", 3, Unit::Bytes), "é");
        assert_eq!(prefix_units("ééé", 2, Unit::Chars), "éé");
        assert_eq!(prefix_units("a\nb\nc", 2, Unit::Lines), "a\nb\n");
        assert_eq!(prefix_units("a\nb", 5, Unit::Lines), "a\nb");
    }

    fn result(is_error: bool, content: &str) -> ObservedResult {
        ObservedResult {
            tool_use_id: Value::from("t"),
            is_error,
            content: content.to_owned(),
            ..ObservedResult::default()
        }
    }

    /// An error's message cut like an output, framed three ways a harness may: framed then
    /// capped whole (the note counts the framed text's total), capped then framed (the
    /// message's), and framed then cut head-only (the remedy cut with the message). Each note is
    /// honest and passes; a wrong omitted amount fails, and a cut followed only by a remedy is a
    /// silent one.
    #[test]
    fn an_errors_note_is_read_against_its_message_or_its_framed_text() {
        let o = lines(100, "retry after 30s"); // 1,715 chars
        let framing = "tool \"pay\" is unavailable: ";
        let remedy = " — retrying may help";
        let (head, tail) = (&o[..300], &o[o.len() - 200..]);
        let gone = o.len() - 500;
        let whole = framing.len() + o.len() + remedy.chars().count();
        let cap = cap(1000, Unit::Chars);
        let read = |c: &str| {
            let unframed = without_remedy(&o, &unframe(&o, c)).to_owned();
            error_note_counts(&o, &result(true, c), &unframed, &cap)
        };
        let framed_whole =
            format!("{framing}{head}\n[{gone} of {whole} chars omitted]\n{tail}{remedy}");
        let capped_then_framed = format!(
            "{framing}{head}\n[{gone} of {} chars omitted]\n{tail}{remedy}",
            o.len()
        );
        let head_only = format!(
            "{framing}{head}\n[{} of {whole} chars omitted]",
            whole - framing.len() - head.len()
        );
        for c in [&framed_whole, &capped_then_framed, &head_only] {
            assert_eq!(read(c), Ok(()), "{c}");
        }
        let wrong = format!(
            "{framing}{head}\n[{} chars omitted]\n{tail}{remedy}",
            gone + 100
        );
        assert!(read(&wrong).is_err());
        let silent = format!("{framing}{head}{tail}{remedy}");
        let unframed = without_remedy(&o, &unframe(&o, &silent)).to_owned();
        assert!(silent_cut(&o, &result(true, &unframed)));
        assert!(!silent_cut(
            &o,
            &result(true, without_remedy(&o, &unframe(&o, &framed_whole)))
        ));
    }

    #[test]
    fn rejections_state_size_and_limit_in_any_grouping() {
        let o = "x".repeat(12_000);
        let c = cap(10_000, Unit::Chars);
        // (is_error, content, passes)
        let table = [
            (
                true,
                "output of 12000 chars is over the limit of 10000 chars",
                true,
            ),
            (true, "too large: 12,000 chars (limit 10,000)", true),
            (true, "output too large (limit 10000)", false),
            (true, "output too large: 12000", false),
            (
                false,
                "output of 12000 chars is over the limit of 10000 chars",
                false,
            ),
        ];
        for (is_error, content, passes) in table {
            let failure = rejected_failure("result 1", &o, &result(is_error, content), &c);
            assert_eq!(failure.is_none(), passes, "{content}: {failure:?}");
        }
    }

    #[test]
    fn a_spill_preview_points_to_the_kept_output_in_text_or_metadata() {
        let o = "0123456789".repeat(100);
        let c = cap(300, Unit::Bytes);
        let artifact = harness_conformance_protocol::Artifact {
            id: "out-1".into(),
            text: o.clone(),
        };
        let with = |content: &str, meta: Option<TruncationMeta>| ObservedResult {
            truncation: meta,
            artifact: Some(artifact.clone()),
            ..result(false, content)
        };
        let head = &o[..200];
        let meta = TruncationMeta {
            total: Some(1000),
            artifact: Some("out-1".into()),
            ..TruncationMeta::default()
        };
        // (result, passes)
        let table = [
            (
                with(
                    &format!("{head}\n[1000 bytes in all; the rest is in out-1]"),
                    None,
                ),
                true,
            ),
            (with(head, Some(meta.clone())), true),
            (with(head, None), false),
            (with(&format!("{head}\n[1000 bytes in all]"), None), false),
            (
                with(&format!("{head}\n[the rest is in out-1]"), None),
                false,
            ),
        ];
        for (res, passes) in table {
            let failure = spilled_failure("result 1", &o, &res, &c);
            assert_eq!(failure.is_none(), passes, "{}: {failure:?}", res.content);
        }
    }

    #[test]
    fn truncation_metadata_counts_are_read_like_a_note() {
        let o = "0123456789".repeat(100);
        let c = cap(300, Unit::Bytes);
        let content = format!("{}{}", &o[..100], &o[900..]);
        let meta = |omitted, total| TruncationMeta {
            omitted: Some(omitted),
            total,
            ..TruncationMeta::default()
        };
        assert!(meta_counts(&o, &content, &meta(800, Some(1000)), &c).is_ok());
        assert!(meta_counts(&o, &content, &meta(800, None), &c).is_ok());
        assert!(meta_counts(&o, &content, &meta(700, None), &c).is_err());
        assert!(meta_counts(&o, &content, &meta(800, Some(200)), &c).is_err());
        assert_eq!(stated_numbers("a 12,000 b 3_4 c 5, 6"), [12000, 34, 5, 6]);
    }
}
