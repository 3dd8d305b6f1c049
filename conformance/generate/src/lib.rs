//! `harness-conformance-generate`: the generator behind `harness-conformance fuzz` — generated
//! cases, checked against the universal requirements, shrunk to a minimal case file on failure.
//!
//! Hand-written cases find the faults someone thought of; this finds the rest, on any harness
//! behind the adapter protocol. The loop, for case N of seed S:
//!
//! ```text
//! strategy (Rng S/N, the adapter's capabilities) ─► Model
//!   ─► oracle (reference validator) ─► fates + tagged expectations
//!   ─► the runner's client (same Harness, same wire case, same checks) ─► violations
//!   ─► on failure: shrink (greedy, bounded, every candidate re-judged from scratch)
//!   ─► a case file whose `requirements` are the violated SPEC.md ids
//! ```
//!
//! The library does no file I/O and never prints: progress goes to a callback, findings are
//! returned as [`Finding`]s with their case; the command line writes them.

pub mod model;
pub mod oracle;
pub mod rng;
pub mod shrink;
pub mod strategy;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use harness_conformance_protocol::{measure, resolve_case, Hello, ObservedResult, ReplyOutcome};

use harness_conformance_suite::case::Case;
use harness_conformance_suite::checks::{self, Observed};
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::needs;
use model::{CallModel, Input, Model};
use oracle::{Fate, Item, ItemKind};
use rng::Rng;
use strategy::Scope;

/// How a fuzz run is bounded and carried out.
#[derive(Debug, Clone)]
pub struct FuzzConfig {
    /// The seed: the same seed generates the same cases.
    pub seed: u64,
    /// Stop after this many cases.
    pub cases: Option<u64>,
    /// Stop after this much time (checked between cases).
    pub time: Option<Duration>,
    /// The per-case timeout, on top of the handler sleeps the case scripts.
    pub timeout: Duration,
    /// The most adapter runs one shrink may use.
    pub shrink_runs: usize,
    /// The longest one shrink may take (checked between runs).
    pub shrink_time: Duration,
    /// Stop after this many findings.
    pub max_findings: usize,
    /// Requirements already known to fail (from a baseline, `fuzz --baseline`): a case that
    /// breaks only these is counted in [`Stats::known`], not shrunk or reported, so every
    /// finding is news.
    pub known: BTreeSet<String>,
}

impl Default for FuzzConfig {
    fn default() -> Self {
        FuzzConfig {
            seed: 0,
            cases: Some(1000),
            time: None,
            timeout: Duration::from_secs(10),
            shrink_runs: 400,
            shrink_time: Duration::from_secs(120),
            known: BTreeSet::new(),
            max_findings: 1,
        }
    }
}

/// One broken requirement.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The SPEC.md requirement ids it breaks.
    pub reqs: Vec<String>,
    /// What the checks said (bounded by the checks' own quoting).
    pub message: String,
    /// The expectation that failed (an index into the case's items), `None` for the universal
    /// checks, which need no expectation in the case file.
    pub item: Option<usize>,
}

/// What one generated case came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every requirement held.
    Pass,
    /// The adapter skipped it, or a need is undeclared (the generator should avoid this).
    Skip(String),
    /// The model could not be expanded into a case.
    Unbuildable(String),
    /// The harness broke requirements.
    Fail(Vec<Violation>),
    /// The adapter failed: crashed, hung, or broke the protocol.
    Error(String),
}

/// A judged model: the outcome, and what the oracle decided for it.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The outcome.
    pub outcome: Outcome,
    /// Each call's fate.
    pub fates: Vec<Fate>,
    /// The expectations.
    pub items: Vec<Item>,
    /// Argument sets on which the reference and the independent checker disagreed.
    pub disagreements: usize,
}

impl Judged {
    /// The requirement a shrink must keep failing: the first violated one, or `ERROR`.
    pub fn target(&self) -> Option<String> {
        match &self.outcome {
            Outcome::Fail(v) => v.first().and_then(|v| v.reqs.first().cloned()),
            Outcome::Error(_) => Some("ERROR".into()),
            _ => None,
        }
    }

    /// Every violated requirement, most direct first (`ERROR` for an adapter failure).
    pub fn targets(&self) -> Vec<String> {
        match &self.outcome {
            Outcome::Fail(v) => {
                let mut out: Vec<String> = Vec::new();
                for r in v.iter().flat_map(|v| v.reqs.iter()) {
                    if !out.contains(r) {
                        out.push(r.clone());
                    }
                }
                out
            }
            Outcome::Error(_) => vec!["ERROR".into()],
            _ => Vec::new(),
        }
    }

    /// Whether this outcome still shows `target`.
    pub fn shows(&self, target: &str) -> bool {
        match &self.outcome {
            Outcome::Fail(v) => v.iter().any(|v| v.reqs.iter().any(|r| r == target)),
            // A runner that gave up on the adapter shows nothing about this case.
            Outcome::Error(e) => target == "ERROR" && !gave_up(e),
            _ => false,
        }
    }
}

/// Whether an adapter error says the client stopped restarting the adapter.
fn gave_up(error: &str) -> bool {
    error.contains(harness_conformance_suite::harness::AdapterErrorKind::GaveUp.code())
}

/// A minimal failing case.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The index of the generated case that failed (0-based; `index + 1` cases were run).
    pub index: u64,
    /// The requirement the shrink kept failing (`ERROR` for an adapter failure).
    pub target: String,
    /// Every requirement the shrunk case breaks.
    pub requirements: Vec<String>,
    /// What the checks said on the shrunk case.
    pub messages: Vec<String>,
    /// The case file.
    pub case: Case,
    /// The shrunk model the case file was written from.
    pub model: Model,
    /// Calls and tools before and after shrinking.
    pub size_before: (usize, usize),
    /// See `size_before`.
    pub size_after: (usize, usize),
    /// Accepted shrink steps.
    pub steps: usize,
    /// Adapter runs the shrink used.
    pub shrink_runs: usize,
}

/// What was generated: how many of each kind.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Cases generated.
    pub cases: u64,
    /// Cases with more than one call (one batch).
    pub batches: u64,
    /// Calls generated.
    pub calls: u64,
    /// Calls by fate: `valid`, `invalid`, `ambiguous`, and each refusing requirement.
    pub fates: BTreeMap<String, u64>,
    /// Calls whose arguments came as text.
    pub arguments_text: u64,
    /// Raw calls.
    pub raw: u64,
    /// Calls reusing an earlier id.
    pub duplicate_ids: u64,
    /// Tools by output shape or fault.
    pub shapes: BTreeMap<String, u64>,
    /// Cases with a configured cap.
    pub configured_caps: u64,
    /// Verdicts.
    pub passed: u64,
    /// See `passed`.
    pub failed: u64,
    /// See `passed`.
    pub skipped: u64,
    /// See `passed`.
    pub errors: u64,
    /// See `passed`.
    pub unbuildable: u64,
    /// Argument sets the reference and the independent checker judged differently.
    pub disagreements: u64,
    /// Failures of a requirement already found (not shrunk again), by requirement.
    pub repeats: BTreeMap<String, u64>,
    /// Failures of requirements the baseline already lists ([`FuzzConfig::known`]), by
    /// requirement.
    pub known: BTreeMap<String, u64>,
}

impl Stats {
    fn count(&mut self, model: &Model, judged: &Judged) {
        self.cases += 1;
        self.calls += model.calls.len() as u64;
        self.batches += u64::from(model.calls.len() > 1);
        self.configured_caps += u64::from(model.cap.is_some());
        for f in &judged.fates {
            let key = match f {
                Fate::Valid { .. } => "valid".to_owned(),
                Fate::Invalid { .. } => "invalid".to_owned(),
                Fate::Ambiguous { .. } => "ambiguous".to_owned(),
                Fate::Refused { defects, .. } => format!("refused {}", defects[0]),
            };
            *self.fates.entry(key).or_default() += 1;
            if matches!(f, Fate::Refused { defects, .. } if defects.contains(&"CORR-5")) {
                self.duplicate_ids += 1;
            }
        }
        for c in &model.calls {
            match c {
                CallModel::Raw(_) => self.raw += 1,
                CallModel::Block {
                    input: Input::Text(_),
                    ..
                } => self.arguments_text += 1,
                _ => {}
            }
        }
        for t in &model.tools {
            *self.shapes.entry(t.shape.to_owned()).or_default() += 1;
        }
        self.disagreements += judged.disagreements as u64;
        match judged.outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
            Outcome::Error(_) => self.errors += 1,
            Outcome::Unbuildable(_) => self.unbuildable += 1,
        }
    }

    /// A few lines saying what was generated.
    pub fn render(&self) -> String {
        let join = |m: &BTreeMap<String, u64>| {
            m.iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "generated {} case(s), {} call(s) ({} in batches of 2+: {} batch(es))\n\
             calls by fate: {}\n\
             call forms: {} arguments-as-text, {} raw; {} duplicate id(s)\n\
             tools by output or fault: {}\n\
             configured caps: {}; validator disagreements: {}\n\
             verdicts: {} pass, {} fail, {} skip, {} error, {} unbuildable{}",
            self.cases,
            self.calls,
            self.calls - (self.cases - self.batches),
            self.batches,
            join(&self.fates),
            self.arguments_text,
            self.raw,
            self.duplicate_ids,
            join(&self.shapes),
            self.configured_caps,
            self.disagreements,
            self.passed,
            self.failed,
            self.skipped,
            self.errors,
            self.unbuildable,
            if self.repeats.is_empty() {
                String::new()
            } else {
                format!(
                    "\nfailures of a requirement already found (not shrunk again): {}",
                    join(&self.repeats)
                )
            },
        ) + &if self.known.is_empty() {
            String::new()
        } else {
            format!(
                "\nfailures the baseline already lists (not reported): {}",
                join(&self.known)
            )
        }
    }
}

/// The result of a fuzz run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The seed.
    pub seed: u64,
    /// What was generated.
    pub stats: Stats,
    /// Minimal failing cases, in the order found.
    pub findings: Vec<Finding>,
    /// Wall time.
    pub elapsed: Duration,
}

/// The case id of generated case `index` of seed `seed`.
pub fn case_id(seed: u64, index: u64) -> String {
    format!("fuzz/seed-{seed}-case-{index}")
}

/// The longest a case's handlers sleep in total.
fn scripted_sleep(model: &Model) -> Duration {
    let ms: u64 = model
        .calls
        .iter()
        .filter_map(|c| c.name().and_then(|n| model.tool(n)))
        .map(|t| t.behavior.scripted_sleep_ms())
        .sum();
    Duration::from_millis(ms)
}

/// The case file for `model` with the given expectations.
pub fn case_for(
    model: &Model,
    id: &str,
    items: &[&Item],
    requirements: Vec<String>,
    description: String,
) -> Case {
    let mut case = oracle::bare_case(model, id);
    case.expect = oracle::expect_of(model.calls.len(), items, true);
    case.requirements = requirements;
    case.description = description;
    if case.expect.history_unchanged {
        case.needs.push("history".into());
    }
    if model.calls.len() > 1 {
        case.needs.push("parallel".into());
    }
    case
}

/// Runs `model` on `harness` and judges it.
pub fn judge(harness: &mut dyn Harness, hello: &Hello, model: &Model, timeout: Duration) -> Judged {
    let caps = &hello.capabilities;
    let (fates, disagreements) = oracle::fates(model);
    let mut judged = Judged {
        outcome: Outcome::Pass,
        fates,
        items: Vec::new(),
        disagreements,
    };
    judged.items = match oracle::items(model, &judged.fates, caps) {
        Ok(items) => items,
        Err(e) => {
            judged.outcome = Outcome::Unbuildable(e);
            return judged;
        }
    };
    let all: Vec<&Item> = judged.items.iter().collect();
    let full = case_for(
        model,
        "fuzz/case",
        &all,
        vec!["CORR-1".into()],
        "generated".into(),
    );
    if let Some(reason) = needs::skip_reason(&full, caps) {
        judged.outcome = Outcome::Skip(reason);
        return judged;
    }
    let cap = checks::effective_cap(&full, caps);
    let mut wire = full.wire();
    if let Err(e) = resolve_case(&mut wire, cap.limit) {
        judged.outcome = Outcome::Unbuildable(e.to_string());
        return judged;
    }
    let timeout = timeout + scripted_sleep(model);
    let reply = match harness.run(&wire, timeout) {
        Ok(r) => r,
        Err(e) => {
            judged.outcome = Outcome::Error(e.to_string());
            return judged;
        }
    };
    let lone = reply.lone_surrogates;
    let (results, invocations, history) = match reply.outcome() {
        Ok(ReplyOutcome::Observed {
            results,
            invocations,
            history,
            ..
        }) => (results, invocations, history),
        Ok(ReplyOutcome::Skip(r)) => {
            judged.outcome = Outcome::Skip(format!("the adapter skipped it: {r}"));
            return judged;
        }
        Ok(ReplyOutcome::Error(r)) => {
            judged.outcome = Outcome::Error(format!("the adapter could not run the case: {r}"));
            return judged;
        }
        Err(e) => {
            judged.outcome = Outcome::Error(format!("the reply is {e}"));
            return judged;
        }
    };
    let obs = Observed {
        results: &results,
        invocations: &invocations,
        history: history.as_deref(),
        lone_surrogates: lone,
        spill_artifacts: None,
    };
    let mut violations = universal(model, &full, &cap, &obs, caps.dialect.as_deref());

    // The expectations, through the runner's own checks. Failures the universal checks also
    // produce (on a case with no expectation at all) are not an item's.
    let mut bare = full.clone();
    bare.expect = oracle::expect_of(model.calls.len(), &[], false);
    let baseline: BTreeSet<String> = checks::check(&bare, &wire, caps, &obs)
        .failures()
        .into_iter()
        .collect();
    let mut whole = full.clone();
    whole.expect = oracle::expect_of(model.calls.len(), &all, false);
    let findings = checks::check(&whole, &wire, caps, &obs);
    let item_failed = findings.failures().iter().any(|f| !baseline.contains(f));
    for (k, it) in judged.items.iter().enumerate() {
        if let ItemKind::Invocations {
            tool,
            count,
            over,
            under,
        } = &it.kind
        {
            let got = invocations.iter().filter(|i| &i.tool == tool).count() as u64;
            let reqs = if got > *count && !over.is_empty() {
                over.clone()
            } else if got != *count {
                if under.is_empty() {
                    vec!["VAL-7"]
                } else {
                    under.clone()
                }
            } else {
                continue;
            };
            violations.push(Violation {
                reqs: reqs.iter().map(|r| (*r).to_owned()).collect(),
                message: format!(
                    "expected the handler of `{tool}` to run {count} time(s), it ran {got} time(s)"
                ),
                item: Some(k),
            });
        } else if item_failed {
            let mut one = full.clone();
            one.expect = oracle::expect_of(model.calls.len(), &[it], false);
            let fails: Vec<String> = checks::check(&one, &wire, caps, &obs)
                .failures()
                .into_iter()
                .filter(|f| !baseline.contains(f))
                .collect();
            if !fails.is_empty() {
                violations.push(Violation {
                    reqs: it.reqs.iter().map(|r| (*r).to_owned()).collect(),
                    message: fails.join("; "),
                    item: Some(k),
                });
            }
        }
    }
    // Idempotence needs a second run of the harness.
    for fu in findings.follow_ups {
        let k = judged.items.iter().position(|it| {
            matches!(&it.kind, ItemKind::Result(i, r) if *i == fu.result && r.cap.as_ref().is_some_and(|c| c.idempotent))
        });
        let message = match harness.run(&fu.case, timeout) {
            Err(e) => Some(format!("during the idempotence re-run: {e}")),
            Ok(reply) => {
                let lone = reply.lone_surrogates;
                match reply.outcome() {
                    Ok(ReplyOutcome::Observed {
                        results,
                        invocations,
                        history,
                        ..
                    }) => {
                        let o = Observed {
                            results: &results,
                            invocations: &invocations,
                            history: history.as_deref(),
                            lone_surrogates: lone,
                            spill_artifacts: None,
                        };
                        checks::check_follow_up(&fu, &o)
                            .into_iter()
                            .find_map(|c| c.failure)
                    }
                    other => Some(format!(
                        "the idempotence re-run did not produce results: {other:?}"
                    )),
                }
            }
        };
        if let Some(message) = message {
            violations.push(Violation {
                reqs: vec!["CAP-7".into()],
                message,
                item: k,
            });
        }
    }
    if !violations.is_empty() {
        // The first violation is the one a shrink keeps: the most direct account of the
        // fault (a wrong count, a wrong flag) before its consequences (code, retryability).
        let rank = |v: &Violation| -> u8 {
            let consequence = v
                .reqs
                .iter()
                .all(|r| r == "OUT-6" || r == "OUT-7" || r.starts_with("TEACH-"));
            match v.item.map(|k| &judged.items[k].kind) {
                _ if consequence => 4,
                None => 0,
                Some(ItemKind::Invocations { .. }) => 1,
                Some(ItemKind::Result(_, r)) if r.is_error.is_some() => 2,
                Some(_) => 3,
            }
        };
        violations.sort_by_key(rank);
        judged.outcome = Outcome::Fail(violations);
    }
    judged
}

/// The universal checks, each tagged with its requirement: one result per call with its id,
/// valid text, within the cap, no secret.
fn universal(
    model: &Model,
    case: &Case,
    cap: &checks::EffectiveCap,
    obs: &Observed,
    dialect: Option<&str>,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut v = |req: &str, message: String| {
        out.push(Violation {
            reqs: vec![req.to_owned()],
            message,
            item: None,
        })
    };
    let results: &[ObservedResult] = obs.results;
    if results.len() != model.calls.len() {
        v(
            "CORR-1",
            format!(
                "expected {} result(s), one per call; the harness returned {}",
                model.calls.len(),
                results.len()
            ),
        );
    }
    let ids: Vec<Option<&str>> = model.calls.iter().map(CallModel::id_str).collect();
    for (i, (id, r)) in ids.iter().zip(results).enumerate() {
        let Some(id) = id.filter(|s| !s.is_empty()) else {
            continue;
        };
        if ids.iter().filter(|x| **x == Some(id)).count() == 1 && r.tool_use_id != id {
            v(
                "CORR-1",
                format!(
                    "result {}: expected tool_use_id {id:?}, the harness returned {}",
                    i + 1,
                    r.tool_use_id
                ),
            );
        }
    }
    let case_text = serde_json::to_string(&case.wire()).unwrap_or_default();
    if obs.lone_surrogates > 0 {
        v(
            "ENC-1",
            format!(
                "the reply held {} lone UTF-16 surrogate(s)",
                obs.lone_surrogates
            ),
        );
    }
    if !case_text.contains('\u{FFFD}') {
        for (i, r) in results.iter().enumerate() {
            if r.content.contains('\u{FFFD}') {
                v("ENC-1", format!("result {}: content holds U+FFFD, which no output had (a code point was split)", i + 1));
            }
        }
    }
    // A harness that declares no cap is judged as the runner judges it: by the case's cap, on
    // what it returned (an output that fits breaks nothing; one that does not is CAP-1's).
    if cap.declared || case.is_cap_case() {
        for (i, r) in results.iter().enumerate() {
            let size = measure(&r.content, cap.unit);
            if size > cap.limit {
                v(
                    "CAP-1",
                    format!(
                        "result {}: content is {size} {}, over the cap of {}",
                        i + 1,
                        cap.unit.as_str(),
                        cap.limit
                    ),
                );
            }
        }
    }
    for (secret, _) in case.secrets() {
        for (i, r) in results.iter().enumerate() {
            if r.content.contains(&secret) {
                v(
                    "OUT-5",
                    format!(
                        "result {}: content leaks the internal error's marker {secret:?}",
                        i + 1
                    ),
                );
            }
        }
    }
    // Every result is one the declared provider takes on replay (SPEC.md REPLAY-1).
    if let Some(provider) = dialect.and_then(harness_conformance_suite::replay::provider) {
        for (i, r) in results.iter().enumerate() {
            for b in harness_conformance_suite::replay::breaches(provider, r, false) {
                v(
                    "REPLAY-1",
                    format!(
                        "result {}: `{}` refuses it on replay: {} (rule `{}`)",
                        i + 1,
                        provider.dialect,
                        b.why,
                        b.rule.id
                    ),
                );
            }
        }
    }
    out
}

/// Shrinks a failing model: greedy over [`shrink::candidates`], each candidate judged from
/// scratch, kept when it still shows `target`. Bounded by `max_runs` adapter runs.
pub fn shrink_model(
    harness: &mut dyn Harness,
    hello: &Hello,
    model: Model,
    judged: Judged,
    target: &str,
    cfg: &FuzzConfig,
    progress: &mut dyn FnMut(String),
) -> (Model, Judged, usize, usize) {
    let (mut best, mut best_judged) = (model, judged);
    let (mut steps, mut runs) = (0usize, 0usize);
    let started = Instant::now();
    'outer: loop {
        for candidate in shrink::candidates(&best) {
            if runs >= cfg.shrink_runs || started.elapsed() >= cfg.shrink_time {
                break 'outer;
            }
            runs += 1;
            let j = judge(harness, hello, &candidate, cfg.timeout);
            if j.shows(target) {
                best = candidate;
                best_judged = j;
                steps += 1;
                if steps % 10 == 0 {
                    progress(format!("  shrinking: {steps} step(s), {runs} run(s)"));
                }
                continue 'outer;
            }
        }
        break;
    }
    (best, best_judged, steps, runs)
}

/// Builds the finding for a shrunk model.
#[allow(clippy::too_many_arguments)]
fn finding(
    seed: u64,
    index: u64,
    target: String,
    before: &Model,
    model: &Model,
    judged: &Judged,
    steps: usize,
    runs: usize,
) -> Finding {
    let (violations, messages): (Vec<Violation>, Vec<String>) = match &judged.outcome {
        Outcome::Fail(v) => (
            v.clone(),
            v.iter()
                .map(|v| format!("[{}] {}", v.reqs.join(", "), v.message))
                .collect(),
        ),
        Outcome::Error(e) => (Vec::new(), vec![format!("[adapter error] {e}")]),
        _ => (Vec::new(), Vec::new()),
    };
    let violated: BTreeSet<String> = violations
        .iter()
        .flat_map(|v| v.reqs.iter().cloned())
        .collect();
    let used: BTreeSet<usize> = violations.iter().filter_map(|v| v.item).collect();
    let items: Vec<&Item> = used.iter().map(|k| &judged.items[*k]).collect();
    let reqs = listed_requirements(model, &items, violated);
    let first = messages
        .first()
        .map(|m| harness_conformance_suite::quote::quote_n(m, 300))
        .unwrap_or_default();
    let description = format!(
        "Generated by `harness-conformance fuzz --seed {seed}` (case {index}), shrunk in {steps} step(s) from {} call(s) and {} tool(s); it breaks {}: {first}",
        before.calls.len(),
        before.tools.len(),
        reqs.iter().cloned().collect::<Vec<_>>().join(", "),
    );
    let id = case_id(seed, index);
    let case = case_for(
        model,
        &id,
        &items,
        reqs.iter().cloned().collect(),
        description,
    );
    Finding {
        index,
        target,
        requirements: reqs.into_iter().collect(),
        messages,
        case,
        model: model.clone(),
        size_before: (before.calls.len(), before.tools.len()),
        size_after: (model.calls.len(), model.tools.len()),
        steps,
        shrink_runs: runs,
    }
}

/// The requirements a finding's case file lists: the violated ones that own a check in it.
/// A violation of a requirement no check in the file is blamed on (a universal check's, made
/// by the fuzzer itself) is not listed, or the one-case run would call that MUST NOT TESTABLE;
/// when none is left, `CORR-1` (which owns the one-result-per-call check every case has).
fn listed_requirements(
    model: &Model,
    items: &[&Item],
    violated: BTreeSet<String>,
) -> BTreeSet<String> {
    use harness_conformance_suite::blame;
    let probe = case_for(model, "fuzz/case", items, Vec::new(), String::new());
    let owners: Vec<Option<String>> = blame::planned(&probe)
        .into_iter()
        .map(|(kind, result)| blame::owner(&probe, kind, result))
        .collect();
    // A generated case has no `blame`: a check of a kind with no default owner counts for
    // every requirement the case lists, so each of them owns it.
    let mut reqs: BTreeSet<String> = if owners.iter().any(Option::is_none) {
        violated
    } else {
        let owners: BTreeSet<String> = owners.into_iter().flatten().collect();
        violated.intersection(&owners).cloned().collect()
    };
    if reqs.is_empty() {
        reqs.insert("CORR-1".into());
    }
    reqs
}

/// Generates case `index` of `seed` for a harness with `hello`'s capabilities.
pub fn generate_case(seed: u64, index: u64, hello: &Hello) -> Model {
    let scope = Scope::of(&hello.capabilities);
    strategy::generate(&mut Rng::for_case(seed, index), &scope)
}

/// The fuzz loop: generate, run, judge; shrink and record failures.
pub fn fuzz(
    harness: &mut dyn Harness,
    cfg: &FuzzConfig,
    progress: &mut dyn FnMut(String),
) -> Result<Report, String> {
    let started = Instant::now();
    let hello = harness
        .hello()
        .map_err(|e| format!("the adapter's handshake failed: {e}"))?;
    let mut stats = Stats::default();
    let mut findings = Vec::new();
    let mut last_note = Instant::now();
    for index in 0.. {
        if cfg.cases.is_some_and(|n| index >= n) || cfg.time.is_some_and(|t| started.elapsed() >= t)
        {
            break;
        }
        let model = generate_case(cfg.seed, index, &hello);
        let judged = judge(harness, &hello, &model, cfg.timeout);
        stats.count(&model, &judged);
        if last_note.elapsed() >= Duration::from_secs(2) {
            last_note = Instant::now();
            progress(format!(
                "fuzz: {} case(s) in {:.1}s, {} finding(s)",
                stats.cases,
                started.elapsed().as_secs_f64(),
                findings.len()
            ));
        }
        if let Outcome::Error(e) = &judged.outcome {
            if gave_up(e) {
                progress(format!("fuzz: stopping at case {index}: {e}"));
                break;
            }
        }
        let Some(first) = judged.target() else {
            continue;
        };
        // The first violated requirement not found yet: a run with several findings reports
        // several different requirements; repeats are counted, not shrunk again.
        let found: BTreeSet<&str> = findings
            .iter()
            .flat_map(|f: &Finding| f.requirements.iter().chain([&f.target]))
            .map(String::as_str)
            .collect();
        let targets = judged.targets();
        if targets.iter().all(|t| cfg.known.contains(t)) {
            *stats.known.entry(first).or_default() += 1;
            continue;
        }
        let Some(target) = targets
            .into_iter()
            .find(|t| !found.contains(t.as_str()) && !cfg.known.contains(t))
        else {
            *stats.repeats.entry(first).or_default() += 1;
            continue;
        };
        progress(format!("fuzz: case {index} fails [{target}]; shrinking …"));
        let (small, small_judged, steps, runs) = shrink_model(
            harness,
            &hello,
            model.clone(),
            judged,
            &target,
            cfg,
            progress,
        );
        findings.push(finding(
            cfg.seed,
            index,
            target,
            &model,
            &small,
            &small_judged,
            steps,
            runs,
        ));
        if findings.len() >= cfg.max_findings {
            break;
        }
    }
    Ok(Report {
        seed: cfg.seed,
        stats,
        findings,
        elapsed: started.elapsed(),
    })
}
