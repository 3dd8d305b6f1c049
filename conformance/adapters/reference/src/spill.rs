//! The spill lifecycle (feature `spill-lifecycle`; SPEC.md SPILL-1..5).
//!
//! The reference is harness-ref's [`SpillStore`]: the case's turns go to the harness one at a
//! time, each spilled result's artifact is kept for its session under its call, a `forget`
//! step drops those references, an `end` step removes the session's store, and after every
//! step the reply lists what the store holds (PROTOCOL.md 4j). The broken variants of this path
//! change how the store is used, at the same boundary as the other faults: a session's end that
//! removes nothing, an eviction blind to references, one store for every session, per-session
//! artifact numbers.

use std::collections::HashMap;

use harness_conformance_protocol::{ObservedResult, SpillLifecycle, SpillPolicy, SpillStep};
use harness_ref::{Artifact, Harness, SpillBound, SpillStore, ToolResult};

use crate::{Fault, Variant};

/// What the lifecycle produced: every result in call order, what the store held after each
/// step, and the artifact ids a variant rewrote (result index → the harness's id, the id shown).
pub(crate) struct Lifecycle {
    pub results: Vec<ToolResult>,
    pub held: Vec<Vec<String>>,
    pub renamed: HashMap<usize, (String, String)>,
}

/// The bound a session's store keeps, as the hello declares it (`cap.spill`).
pub(crate) fn bound(variant: Option<Variant>) -> SpillBound {
    match variant {
        Some(Variant::KeepsSpillsUntilSessionEnd) => SpillBound {
            max_artifacts: Some(64),
            max_bytes: None,
        },
        Some(Variant::SpillBoundOfOne) => SpillBound {
            max_artifacts: Some(1),
            max_bytes: None,
        },
        _ => SpillBound::DEFAULT,
    }
}

/// [`bound`] in the hello's terms.
pub(crate) fn declared(variant: Option<Variant>) -> SpillPolicy {
    let b = bound(variant);
    SpillPolicy {
        max_artifacts: b.max_artifacts.map(|n| n as u64),
        max_bytes: b.max_bytes.map(|n| n as u64),
    }
}

/// Runs the case's turns and steps on `harness`. `calls` are the case's calls in order, with
/// `ids` their ids (the lifecycle's turns take them in that order).
pub(crate) fn run(
    harness: &Harness,
    calls: Vec<harness_ref::Call>,
    ids: &[Option<&str>],
    lifecycle: &SpillLifecycle,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> Lifecycle {
    // `spills-never-cleaned`: nothing is ever removed, by eviction or at a session's end (its
    // hello still declares the reference's bound, which it then breaks).
    let mut store = match fault {
        Some(Fault::SpillsNeverCleaned) => SpillStore::new(SpillBound::default()),
        _ => SpillStore::new(bound(variant)),
    };
    let mut calls = calls.into_iter();
    let mut out = Lifecycle {
        results: Vec::new(),
        held: Vec::new(),
        renamed: HashMap::new(),
    };
    // `reuses-artifact-ids`: each session numbers its artifacts from 1.
    let mut numbered: HashMap<String, usize> = HashMap::new();
    // The calls each session's turns answered, for `sweeps-referenced-spills`.
    let mut answered: HashMap<String, Vec<String>> = HashMap::new();
    for step in &lifecycle.steps {
        // `spills-shared-across-sessions`: every session is the one store's.
        let session = match fault {
            Some(Fault::SpillsSharedAcrossSessions) => "shared",
            _ => step.session(),
        };
        match step {
            SpillStep::Turn { calls: turn, .. } => {
                let batch: Vec<harness_ref::Call> = calls.by_ref().take(turn.len()).collect();
                for result in harness.handle_batch(batch) {
                    let index = out.results.len();
                    let call = ids
                        .get(index)
                        .copied()
                        .flatten()
                        .unwrap_or_default()
                        .to_owned();
                    if let Some(artifact) = result.artifact() {
                        let mut artifact: Artifact = artifact.clone();
                        if fault == Some(Fault::ReusesArtifactIds) {
                            let n = numbered.entry(session.to_owned()).or_default();
                            *n += 1;
                            let shown = format!("spill-{n}");
                            out.renamed
                                .insert(index, (artifact.id.clone(), shown.clone()));
                            artifact.id = shown;
                        }
                        // `sweeps-referenced-spills`: the sweep sees no reference at all.
                        if fault == Some(Fault::SweepsReferencedSpills) {
                            let mine = answered.get(session).cloned().unwrap_or_default();
                            store.forget(session, mine.iter().map(String::as_str));
                        }
                        store.keep(session, &call, &artifact);
                    }
                    answered.entry(session.to_owned()).or_default().push(call);
                    out.results.push(result);
                }
            }
            SpillStep::Forget {
                calls: forgotten, ..
            } => {
                store.forget(session, forgotten.iter().map(String::as_str));
            }
            SpillStep::End { .. } => {
                // `spills-never-cleaned`: the session ends and its artifacts stay.
                if fault != Some(Fault::SpillsNeverCleaned) {
                    store.end(session);
                }
            }
        }
        out.held.push(store.held());
    }
    out
}

/// Shows the id a variant gave the artifact wherever the result names it.
pub(crate) fn rename(o: &mut ObservedResult, from: &str, to: &str) {
    o.content = o.content.replace(from, to);
    if let Some(a) = &mut o.artifact {
        a.id = to.to_owned();
    }
    if let Some(t) = &mut o.truncation {
        if t.artifact.as_deref() == Some(from) {
            t.artifact = Some(to.to_owned());
        }
    }
}
