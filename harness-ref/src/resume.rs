//! Resuming a turn from a saved transcript.
//!
//! A session can end while a turn's calls are still open: the process was killed, the user
//! closed the terminal, a compaction rewrote the history. Resumed from its saved transcript,
//! the turn is sent to the provider again, and the provider accepts it only when every
//! `tool_use` has exactly one `tool_result` and every `tool_result` answers a `tool_use` of
//! that transcript (openai/codex #8479, #17630: a result answering a call the transcript does
//! not hold, or a call left without one, and the next request is refused).
//! [`crate::Harness::resume_turn`] answers the calls the saved transcript left open, once each,
//! and never runs a call that already has its result; [`kept_saved_results`] says which of
//! the saved results the resumed transcript keeps: the first for each call of the turn, none
//! for an id the turn does not hold.

use serde_json::Value;

use crate::{Call, Harness, ToolResult};

impl Harness {
    /// Resumes a turn from a saved transcript: `calls` are the turn's `tool_use` blocks, in
    /// order, and `answered` the ids the transcript's saved `tool_result`s answer. Returns one
    /// entry per call, in call order: `None` for a call a saved result answers (its result
    /// stands and its handler does not run again), and for every other call — still open when
    /// the session ended — its result, the open calls handled together as one batch
    /// ([`Harness::handle_batch`]).
    pub fn resume_turn<I, C>(&self, calls: I, answered: &[&str]) -> Vec<Option<ToolResult>>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        let calls: Vec<Call> = calls.into_iter().map(Into::into).collect();
        let is_answered: Vec<bool> = calls
            .iter()
            .map(|c| id_of(c).is_some_and(|id| answered.contains(&id.as_str())))
            .collect();
        let open = calls
            .into_iter()
            .zip(&is_answered)
            .filter(|(_, answered)| !**answered)
            .map(|(call, _)| call);
        let mut results = self.handle_batch(open).into_iter();
        is_answered
            .iter()
            .map(|answered| if *answered { None } else { results.next() })
            .collect()
    }
}

/// Which of a saved transcript's `tool_result`s (their ids, in transcript order) a resumed
/// transcript keeps, given the ids of the turn's calls (`None`: unreadable): the first result
/// for each call of the turn. A result for an id the turn does not hold (its call was
/// compacted away, or it belongs to another transcript) and a second result for the same call
/// are dropped: the provider refuses a transcript holding either.
pub fn kept_saved_results(call_ids: &[Option<&str>], saved: &[&str]) -> Vec<bool> {
    let mut answered = std::collections::HashSet::new();
    saved
        .iter()
        .map(|id| call_ids.contains(&Some(*id)) && answered.insert(*id))
        .collect()
}

/// The id a call carries, when it can be read: a string `id` of the block's object.
fn id_of(call: &Call) -> Option<String> {
    let parsed;
    let value = match call {
        Call::Value(v) => v,
        Call::Text(t) => {
            parsed = serde_json::from_str::<Value>(t).ok()?;
            &parsed
        }
        Call::Bytes(b) => {
            parsed = serde_json::from_slice::<Value>(b).ok()?;
            &parsed
        }
    };
    value.get("id")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Execution, HarnessConfig, Registry, Tool, ToolOutput};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn harness(runs: Arc<AtomicUsize>) -> Harness {
        let mut registry = Registry::new();
        registry
            .register(
                Tool::new(
                    "t",
                    "",
                    json!({"type": "object"}),
                    move |_args: Value, _: &crate::CallContext<'_>| {
                        runs.fetch_add(1, Ordering::SeqCst);
                        Ok(ToolOutput::text("ran"))
                    },
                )
                .execution(Execution::Inline),
            )
            .unwrap();
        Harness::new(registry, HarnessConfig::default())
    }

    #[test]
    fn only_open_calls_run_and_each_is_answered_once() {
        let runs = Arc::new(AtomicUsize::new(0));
        let h = harness(runs.clone());
        let calls = vec![
            json!({"id": "a", "name": "t", "input": {}}),
            json!({"id": "b", "name": "t", "input": {}}),
            json!({"id": "c", "name": "t", "input": {}}),
        ];
        let out = h.resume_turn(calls, &["b"]);
        assert_eq!(out.len(), 3);
        assert!(out[1].is_none());
        let ids: Vec<_> = [&out[0], &out[2]]
            .iter()
            .map(|r| r.as_ref().unwrap().tool_use_id().unwrap().to_owned())
            .collect();
        assert_eq!(ids, ["a", "c"]);
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn saved_results_for_other_ids_or_answered_twice_are_dropped() {
        let kept = kept_saved_results(&[Some("a"), None, Some("b")], &["gone", "a", "a", "b"]);
        assert_eq!(kept, [false, true, false, true]);
    }
}
