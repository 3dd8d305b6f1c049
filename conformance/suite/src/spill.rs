//! The spill lifecycle (feature `spill-lifecycle`, SPEC.md SPILL-1..5): whether a harness's
//! spilled artifacts live exactly as long as something can refer to them.
//!
//! The runner cannot look into a harness's store, so the adapter lists, after each step of the
//! case's `spill_lifecycle`, the ids of every artifact the store still holds (PROTOCOL.md 4j).
//! This module follows the steps as the model would see them and judges each listing against
//! that account. What "referenced" means has to come from what the protocol shows: an artifact
//! is *referenced* while a result naming it (its `artifact.id`, or `truncation.artifact`) is in
//! the transcript of a session that has not ended and has not forgotten that result. A
//! referenced artifact must be held (SPILL-1); an artifact only ended sessions named must not be
//! (SPILL-2); a session that holds artifacts no transcript names any more holds no more than
//! its declared bound (SPILL-3); and two spills of different outputs never share an id
//! (SPILL-5). Two spills of the *same* output may share one (a content-addressed store): that is
//! a different correct design, and the reference rules above still protect it, as an id stays
//! referenced while any live result names it.

use std::collections::{BTreeMap, BTreeSet};

use harness_conformance_protocol::{ObservedResult, SpillPolicy, SpillStep};

use crate::quote::quote_n;

/// One call of the case as the lifecycle sees it.
#[derive(Debug, Clone)]
pub struct Spill {
    /// The call's id.
    pub call: String,
    /// The session whose turn made it.
    pub session: String,
    /// The artifact its result named, if it named one.
    pub artifact: Option<String>,
    /// The UTF-8 bytes of the artifact's text (the stored text when reported, else the output).
    pub bytes: u64,
    /// The handler's output as the runner materialises it (for telling outputs apart).
    pub output: Option<String>,
}

impl Spill {
    /// The call's spill as its result reports it: `result` answers the call; `output` is the
    /// handler's output when the runner knows it.
    pub fn of(
        call: &str,
        session: &str,
        result: Option<&ObservedResult>,
        output: Option<String>,
    ) -> Spill {
        let artifact = result.and_then(|r| {
            r.artifact
                .as_ref()
                .map(|a| a.id.clone())
                .or_else(|| r.truncation.as_ref().and_then(|t| t.artifact.clone()))
        });
        let bytes = result
            .and_then(|r| r.artifact.as_ref())
            .map(|a| a.text.len() as u64)
            .or_else(|| output.as_ref().map(|o| o.len() as u64))
            .unwrap_or(0);
        Spill {
            call: call.to_owned(),
            session: session.to_owned(),
            artifact,
            bytes,
            output,
        }
    }
}

/// What each of the four checks found: `None` when it held, else why not. A check with
/// nothing to judge (no result named an artifact) is `Err` with the reason.
#[derive(Debug, Clone, Default)]
pub struct Judgement {
    /// `spill.kept`.
    pub kept: Option<String>,
    /// `spill.cleaned`.
    pub cleaned: Option<String>,
    /// `spill.bounded`.
    pub bounded: Option<String>,
}

/// Why the listing checks cannot run, if they cannot: the adapter listed nothing, or not one
/// listing per step, or no result named an artifact.
pub fn presupposition(
    steps: &[SpillStep],
    spills: &[Spill],
    listings: Option<&[Vec<String>]>,
) -> Option<String> {
    match listings {
        None => Some(
            "the adapter reported no `spill_artifacts` (the artifacts held after each step)".into(),
        ),
        Some(l) if l.len() != steps.len() => Some(format!(
            "the adapter listed the held artifacts after {} step(s); the case has {}",
            l.len(),
            steps.len()
        )),
        Some(_) if spills.iter().all(|s| s.artifact.is_none()) => Some(
            "no result named a spilled artifact (`artifact.id` or `truncation.artifact`), so there is no artifact to follow".into(),
        ),
        Some(_) => None,
    }
}

/// Follows the steps and judges each listing (call only when [`presupposition`] is `None`).
/// `policy`: the declared bound, for `spill.bounded`.
pub fn judge(
    steps: &[SpillStep],
    spills: &[Spill],
    listings: &[Vec<String>],
    policy: Option<&SpillPolicy>,
) -> Judgement {
    let mut live: BTreeSet<&str> = BTreeSet::new();
    let mut ended: BTreeSet<&str> = BTreeSet::new();
    let mut started: BTreeSet<&str> = BTreeSet::new();
    let by_call: BTreeMap<&str, &Spill> = spills.iter().map(|s| (s.call.as_str(), s)).collect();
    let mut out = Judgement::default();
    for (n, (step, listing)) in steps.iter().zip(listings).enumerate() {
        match step {
            SpillStep::Turn { session, calls } => {
                started.insert(session);
                live.extend(calls.iter().map(String::as_str));
            }
            SpillStep::Forget { calls, .. } => {
                for c in calls {
                    live.remove(c.as_str());
                }
            }
            SpillStep::End { session } => {
                ended.insert(session);
                live.retain(|c| by_call.get(c).is_none_or(|s| s.session != *session));
            }
        }
        let held: BTreeSet<&str> = listing.iter().map(String::as_str).collect();
        let at = format!("after step {n} ({})", describe(step));
        let referenced: BTreeMap<&str, &Spill> = live
            .iter()
            .filter_map(|c| by_call.get(c))
            .filter_map(|s| s.artifact.as_deref().map(|a| (a, *s)))
            .collect();
        if out.kept.is_none() {
            if let Some((id, s)) = referenced.iter().find(|(id, _)| !held.contains(*id)) {
                out.kept = Some(format!(
                    "{at}: artifact {} is gone, though the result of {} in session {} still names it in the transcript (held: {})",
                    quote_n(id, 120),
                    quote_n(&s.call, 40),
                    quote_n(&s.session, 40),
                    list(&held)
                ));
            }
        }
        if out.cleaned.is_none() {
            out.cleaned = stale(&held, &referenced, spills, &ended, &started, &at);
        }
        if let (SpillStep::Turn { session, .. }, Some(policy), None) = (step, policy, &out.bounded)
        {
            out.bounded = over_bound(session, &held, &referenced, spills, policy, &at);
        }
    }
    out
}

/// `spill.cleaned` after one step: an artifact held that only ended sessions named, or anything
/// held once every session has ended.
fn stale(
    held: &BTreeSet<&str>,
    referenced: &BTreeMap<&str, &Spill>,
    spills: &[Spill],
    ended: &BTreeSet<&str>,
    started: &BTreeSet<&str>,
    at: &str,
) -> Option<String> {
    for id in held {
        if referenced.contains_key(id) {
            continue;
        }
        let namers: Vec<&Spill> = spills
            .iter()
            .filter(|s| s.artifact.as_deref() == Some(*id))
            .collect();
        if let Some(s) = namers.first() {
            if namers.iter().all(|s| ended.contains(s.session.as_str())) {
                return Some(format!(
                    "{at}: artifact {} of {} is still held, though its session {} ended",
                    quote_n(id, 120),
                    quote_n(&s.call, 40),
                    quote_n(&s.session, 40)
                ));
            }
        }
    }
    if !held.is_empty() && !started.is_empty() && started.is_subset(ended) {
        return Some(format!(
            "{at}: every session has ended, and the store still holds {}",
            list(held)
        ));
    }
    None
}

/// `spill.bounded` after a turn of `session`: when the session holds an artifact no live result
/// names, it holds no more than the declared count and bytes.
fn over_bound(
    session: &str,
    held: &BTreeSet<&str>,
    referenced: &BTreeMap<&str, &Spill>,
    spills: &[Spill],
    policy: &SpillPolicy,
    at: &str,
) -> Option<String> {
    let mut mine: BTreeMap<&str, u64> = BTreeMap::new();
    for s in spills.iter().filter(|s| s.session == session) {
        if let Some(id) = s.artifact.as_deref().filter(|id| held.contains(id)) {
            mine.insert(id, s.bytes);
        }
    }
    let unreferenced: Vec<&str> = mine
        .keys()
        .copied()
        .filter(|id| !referenced.contains_key(id))
        .collect();
    if unreferenced.is_empty() {
        return None;
    }
    let count = mine.len() as u64;
    let bytes: u64 = mine.values().sum();
    let over = match (policy.max_artifacts, policy.max_bytes) {
        (Some(max), _) if count > max => {
            Some(format!("{count} artifacts, over its bound of {max}"))
        }
        (_, Some(max)) if bytes > max => Some(format!(
            "{bytes} bytes of artifacts, over its bound of {max}"
        )),
        _ => None,
    }?;
    Some(format!(
        "{at}: session {} holds {over}, and {} of them no transcript names any more ({}), so they could have been evicted",
        quote_n(session, 40),
        unreferenced.len(),
        list(&unreferenced.iter().copied().collect())
    ))
}

/// `spill.distinct`: two spills of different outputs that share an id. `None` when there are
/// fewer than two named artifacts to tell apart (the reason then), else the check's outcome.
pub fn shared_id(spills: &[Spill]) -> Result<Option<String>, String> {
    let named: Vec<&Spill> = spills.iter().filter(|s| s.artifact.is_some()).collect();
    if named.len() < 2 {
        return Err(format!(
            "{} result(s) named a spilled artifact; telling ids apart takes two",
            named.len()
        ));
    }
    for (i, a) in named.iter().enumerate() {
        for b in &named[i + 1..] {
            if a.artifact == b.artifact && a.output != b.output {
                return Ok(Some(format!(
                    "the results of {} (session {}) and {} (session {}) name the same artifact {} for different outputs: one of them is not the artifact its preview points to",
                    quote_n(&a.call, 40),
                    quote_n(&a.session, 40),
                    quote_n(&b.call, 40),
                    quote_n(&b.session, 40),
                    quote_n(a.artifact.as_deref().unwrap_or_default(), 120)
                )));
            }
        }
    }
    Ok(None)
}

fn describe(step: &SpillStep) -> String {
    match step {
        SpillStep::Turn { session, calls } => format!(
            "a turn of session {} with {}",
            quote_n(session, 40),
            bounded_list(calls.iter().map(String::as_str), 40)
        ),
        SpillStep::Forget { session, calls } => format!(
            "session {} forgot the results of {}",
            quote_n(session, 40),
            bounded_list(calls.iter().map(String::as_str), 40)
        ),
        SpillStep::End { session } => format!("session {} ended", quote_n(session, 40)),
    }
}

fn list(ids: &BTreeSet<&str>) -> String {
    if ids.is_empty() {
        return "nothing".into();
    }
    bounded_list(ids.iter().copied(), 80)
}

/// At most eight names, each quoted and bounded to `width` chars, then how many more there are.
fn bounded_list<'a>(names: impl ExactSizeIterator<Item = &'a str>, width: usize) -> String {
    let total = names.len();
    let shown: Vec<String> = names.take(8).map(|n| quote_n(n, width)).collect();
    let more = total.saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(session: &str, calls: &[&str]) -> SpillStep {
        SpillStep::Turn {
            session: session.into(),
            calls: calls.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn spill(call: &str, session: &str, id: &str, output: &str) -> Spill {
        Spill {
            call: call.into(),
            session: session.into(),
            artifact: Some(id.into()),
            bytes: output.len() as u64,
            output: Some(output.into()),
        }
    }

    fn held(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|i| (*i).to_owned()).collect()
    }

    #[test]
    fn call_ids_from_a_case_file_reach_messages_bounded_and_escaped() {
        let long = format!("c\u{1b}[2J{}", "x".repeat(5000));
        let calls: Vec<String> = (0..20).map(|i| format!("{long}{i}")).collect();
        let step = SpillStep::Turn {
            session: "s".into(),
            calls: calls.clone(),
        };
        let text = describe(&step);
        assert!(text.len() < 1000, "{} chars", text.len());
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.ends_with("and 12 more"), "{text}");
        let a = spill(&long, "s", "same", "one");
        let b = spill(&calls[1], "s", "same", "two");
        let message = shared_id(&[a, b]).unwrap().unwrap();
        assert!(
            message.len() < 1000 && !message.contains('\u{1b}'),
            "{message}"
        );
    }

    #[test]
    fn a_referenced_artifact_must_stay_and_an_ended_sessions_must_go() {
        let steps = vec![
            turn("a", &["c1"]),
            turn("a", &["c2"]),
            SpillStep::End {
                session: "a".into(),
            },
        ];
        let spills = vec![spill("c1", "a", "x1", "one"), spill("c2", "a", "x2", "two")];
        let good = [held(&["x1"]), held(&["x1", "x2"]), held(&[])];
        let j = judge(&steps, &spills, &good, None);
        assert!(j.kept.is_none() && j.cleaned.is_none(), "{j:?}");
        let swept = [held(&["x1"]), held(&["x2"]), held(&[])];
        let j = judge(&steps, &spills, &swept, None);
        assert!(j.kept.as_deref().unwrap().contains("x1"), "{j:?}");
        let kept_forever = [held(&["x1"]), held(&["x1", "x2"]), held(&["x1", "x2"])];
        let j = judge(&steps, &spills, &kept_forever, None);
        assert!(j.cleaned.as_deref().unwrap().contains("ended"), "{j:?}");
    }

    #[test]
    fn a_leftover_no_result_named_fails_once_every_session_ended() {
        let steps = vec![
            turn("a", &["c1"]),
            SpillStep::End {
                session: "a".into(),
            },
        ];
        let spills = vec![spill("c1", "a", "x1", "one")];
        let j = judge(&steps, &spills, &[held(&["x1"]), held(&["tmp-3"])], None);
        assert!(j.cleaned.as_deref().unwrap().contains("tmp-3"), "{j:?}");
    }

    #[test]
    fn the_bound_yields_to_references_only() {
        let steps = vec![
            turn("a", &["c1"]),
            SpillStep::Forget {
                session: "a".into(),
                calls: vec!["c1".into()],
            },
            turn("a", &["c2"]),
            turn("a", &["c3"]),
        ];
        let spills = vec![
            spill("c1", "a", "x1", "one"),
            spill("c2", "a", "x2", "two"),
            spill("c3", "a", "x3", "three"),
        ];
        let policy = SpillPolicy {
            max_artifacts: Some(2),
            max_bytes: None,
        };
        // Lazily evicted at the next spill: within the bound after each turn.
        let lazy = [
            held(&["x1"]),
            held(&["x1"]),
            held(&["x1", "x2"]),
            held(&["x2", "x3"]),
        ];
        assert!(judge(&steps, &spills, &lazy, Some(&policy))
            .bounded
            .is_none());
        // Never evicted: three held, one of them unreferenced.
        let never = [
            held(&["x1"]),
            held(&["x1"]),
            held(&["x1", "x2"]),
            held(&["x1", "x2", "x3"]),
        ];
        let j = judge(&steps, &spills, &never, Some(&policy));
        assert!(j.bounded.as_deref().unwrap().contains("x1"), "{j:?}");
        // Over the bound with every artifact referenced: the references win.
        let tight = SpillPolicy {
            max_artifacts: Some(1),
            max_bytes: None,
        };
        let refs = [held(&["x1"]), held(&[]), held(&["x2"]), held(&["x2", "x3"])];
        assert!(judge(&steps, &spills, &refs, Some(&tight))
            .bounded
            .is_none());
    }

    #[test]
    fn one_id_for_two_outputs_is_refused_and_for_one_output_allowed() {
        let same = vec![spill("c1", "a", "x", "one"), spill("c2", "b", "x", "one")];
        assert_eq!(shared_id(&same), Ok(None));
        let clash = vec![spill("c1", "a", "x", "one"), spill("c2", "b", "x", "two")];
        assert!(shared_id(&clash)
            .unwrap()
            .unwrap()
            .contains("same artifact"));
        assert!(shared_id(&clash[..1]).is_err());
    }
}
