//! Calls that pause for the user's decision before they run (human approval, elicitation).
//!
//! Some tools must not run until a person says so: a shell command, a payment, a deletion. The
//! harness pauses each such call, shows it to the user, and resumes it when the user decides —
//! possibly long after, in any order, with the arguments edited or with data the tool asked for.
//! Harnesses get this wrong in three ways that the model cannot see coming:
//! - the decision reaches another call than the one the user looked at, or the data of one
//!   paused call is handed to another (mastra-ai/mastra #19083: resuming ran the wrong tool with
//!   another call's data) — here a decision is addressed to a call by its `tool_use_id`, and
//!   only that call's wait takes it;
//! - the approved call is answered with something other than its tool's output
//!   (openai/codex #9053: approving sent `content: None` to the model) — here an approved call
//!   runs through the ordinary stages, so its result is its handler's, capped as every output;
//! - nothing answers the call when no decision comes, and the turn hangs
//!   (anthropics/claude-code #88901: waiting forever on an elicitation) — here every paused
//!   call waits at most the configured time and is then refused, so the turn always goes on.
//!
//! A denial refuses that call alone (`permission_denied`, saying the user denied it and that
//! nothing ran); the batch's other calls run and are answered as usual.
//!
//! [`Approvals`] is the desk between the harness and the user: the harness opens a request per
//! paused call, the user's side reads [`Approvals::pending`] and answers with
//! [`Approvals::decide`]; [`crate::Harness::handle_paused_batch`] answers the turn.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The user's decision on one paused call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Run the call: with `input` in place of the model's arguments when the user edited them
    /// (validated again, as a call's are), and with `data` for its handler when the user gave
    /// some ([`crate::CallContext::user_data`]).
    Approve {
        /// The arguments as the user edited them.
        input: Option<Value>,
        /// Data the user gave for this call (an elicitation's answer, resume data).
        data: Option<Value>,
    },
    /// Do not run the call; `reason` is what the user said, if anything (told to the model).
    Deny {
        /// The user's words.
        reason: Option<String>,
    },
}

impl Decision {
    /// Approve as the call stands.
    pub fn approve() -> Decision {
        Decision::Approve {
            input: None,
            data: None,
        }
    }

    /// Deny without a reason.
    pub fn deny() -> Decision {
        Decision::Deny { reason: None }
    }
}

/// A paused call waiting for the user, as the user is shown it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The call's id.
    pub tool_use_id: String,
    /// The tool it calls.
    pub tool: String,
    /// Its validated arguments.
    pub input: Value,
}

/// A decision that reached no paused call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotPending {
    /// The id the decision named.
    pub tool_use_id: String,
}

impl fmt::Display for NotPending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no paused call has id {:?} (never paused, already decided, or no longer waiting)",
            self.tool_use_id
        )
    }
}

impl std::error::Error for NotPending {}

#[derive(Debug, Default)]
struct Desk {
    /// Paused calls in the order they paused, each with its decision once given.
    waiting: Vec<(Pending, Option<Decision>)>,
}

/// Where paused calls wait for the user's decisions. Cloning shares the desk: the harness's
/// turn holds one clone, the user's side (another thread) another.
#[derive(Debug, Clone, Default)]
pub struct Approvals {
    shared: Arc<(Mutex<Desk>, Condvar)>,
}

impl Approvals {
    /// An empty desk.
    pub fn new() -> Approvals {
        Approvals::default()
    }

    fn desk(&self) -> std::sync::MutexGuard<'_, Desk> {
        self.shared.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The calls waiting for a decision, in the order they paused.
    pub fn pending(&self) -> Vec<Pending> {
        self.desk()
            .waiting
            .iter()
            .filter(|(_, d)| d.is_none())
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Waits until the call `tool_use_id` has paused (or `timeout` passes): true when it is
    /// waiting for a decision. For the user's side, which decides only about calls it was shown.
    pub fn wait_until_pending(&self, tool_use_id: &str, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let mut desk = self.desk();
        loop {
            if desk
                .waiting
                .iter()
                .any(|(p, d)| p.tool_use_id == tool_use_id && d.is_none())
            {
                return true;
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            desk = self
                .shared
                .1
                .wait_timeout(desk, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Gives the user's decision on the paused call `tool_use_id`. An error when no call with
    /// that id is waiting: the decision is never applied to another call.
    pub fn decide(&self, tool_use_id: &str, decision: Decision) -> Result<(), NotPending> {
        let mut desk = self.desk();
        let slot = desk
            .waiting
            .iter_mut()
            .find(|(p, d)| p.tool_use_id == tool_use_id && d.is_none());
        match slot {
            Some((_, d)) => {
                *d = Some(decision);
                drop(desk);
                self.shared.1.notify_all();
                Ok(())
            }
            None => Err(NotPending {
                tool_use_id: tool_use_id.to_owned(),
            }),
        }
    }

    /// The harness's side: opens a request for each paused call of a turn.
    pub(crate) fn open(&self, calls: Vec<Pending>) {
        self.desk()
            .waiting
            .extend(calls.into_iter().map(|p| (p, None)));
        self.shared.1.notify_all();
    }

    /// The harness's side: waits until `end` for the decisions on `ids` (paused together),
    /// then closes their requests; each id's decision, `None` where none came in time. A
    /// decision given later finds no request ([`NotPending`]).
    pub(crate) fn collect(&self, ids: &[&str], end: Instant) -> HashMap<String, Decision> {
        let mut desk = self.desk();
        let decided = |desk: &Desk| {
            ids.iter().all(|id| {
                desk.waiting
                    .iter()
                    .any(|(p, d)| p.tool_use_id == *id && d.is_some())
            })
        };
        while !decided(&desk) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            desk = self
                .shared
                .1
                .wait_timeout(desk, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let mut decisions = HashMap::new();
        desk.waiting.retain_mut(|(p, d)| {
            if !ids.contains(&p.tool_use_id.as_str()) {
                return true;
            }
            if let Some(d) = d.take() {
                decisions.insert(p.tool_use_id.clone(), d);
            }
            false
        });
        decisions
    }
}

/// How a turn's calls pause: which tools wait for the user, for how long, and where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pausing<'p> {
    pub(crate) tools: &'p [String],
    pub(crate) wait: Duration,
    pub(crate) approvals: &'p Approvals,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput};
    use serde_json::json;
    use std::thread;

    fn harness() -> Harness {
        let mut registry = Registry::new();
        registry
            .register(
                Tool::new(
                    "pay",
                    "",
                    json!({"type": "object", "properties": {"to": {"type": "string"}},
                           "required": ["to"]}),
                    |args: Value, ctx: &crate::CallContext<'_>| {
                        let data = ctx.user_data().cloned().unwrap_or(Value::Null);
                        Ok(ToolOutput::text(format!("paid {} {data}", args["to"])))
                    },
                )
                .execution(Execution::Inline),
            )
            .unwrap();
        Harness::new(registry, HarnessConfig::default())
    }

    fn turn(decide: impl FnOnce(&Approvals) + Send + 'static, wait_ms: u64) -> Vec<String> {
        let h = harness();
        let approvals = Approvals::new();
        let user = approvals.clone();
        let user = thread::spawn(move || {
            assert!(user.wait_until_pending("b", Duration::from_secs(5)));
            decide(&user);
        });
        let calls = vec![
            json!({"id": "a", "name": "pay", "input": {"to": "ann"}}),
            json!({"id": "b", "name": "pay", "input": {"to": "bob"}}),
        ];
        let out =
            h.handle_paused_batch(calls, &["pay"], Duration::from_millis(wait_ms), &approvals);
        user.join().unwrap();
        out.iter()
            .map(|r| format!("{}:{}", r.is_error(), r.content()))
            .collect()
    }

    #[test]
    fn decisions_in_reverse_order_reach_their_own_calls() {
        let out = turn(
            |u| {
                let data = |v| Decision::Approve {
                    input: None,
                    data: Some(json!(v)),
                };
                u.decide("b", data("B")).unwrap();
                u.decide("a", data("A")).unwrap();
            },
            5000,
        );
        assert_eq!(
            out,
            ["false:paid \"ann\" \"A\"", "false:paid \"bob\" \"B\""]
        );
    }

    #[test]
    fn a_denial_refuses_its_call_alone() {
        let out = turn(
            |u| {
                u.decide("b", Decision::deny()).unwrap();
                u.decide("a", Decision::approve()).unwrap();
            },
            5000,
        );
        assert_eq!(out[0], "false:paid \"ann\" null");
        assert!(
            out[1].starts_with("true:") && out[1].contains("denied"),
            "{out:?}"
        );
    }

    #[test]
    fn edited_arguments_are_validated_again() {
        let out = turn(
            |u| {
                let edit = |v| Decision::Approve {
                    input: Some(v),
                    data: None,
                };
                u.decide("b", edit(json!({"to": "carol"}))).unwrap();
                u.decide("a", edit(json!({"to": 5}))).unwrap();
            },
            5000,
        );
        assert!(out[0].starts_with("true:"), "{out:?}");
        assert_eq!(out[1], "false:paid \"carol\" null");
    }

    #[test]
    fn no_decision_ends_in_a_refusal_when_the_wait_ends() {
        let started = Instant::now();
        let out = turn(|u| u.decide("b", Decision::approve()).unwrap(), 100);
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            out[0].starts_with("true:") && out[0].contains("no decision"),
            "{out:?}"
        );
        assert_eq!(out[1], "false:paid \"bob\" null");
    }

    #[test]
    fn a_decision_for_no_paused_call_is_refused() {
        let approvals = Approvals::new();
        let err = approvals.decide("zz", Decision::approve()).unwrap_err();
        assert_eq!(err.tool_use_id, "zz");
    }
}
