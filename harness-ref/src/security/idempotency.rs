//! Idempotency keys: a duplicate delivery gets the first committed outcome; the effect runs once.
//!
//! A key is supplied by the caller (not the model) and scoped to tenant and tool: the same key
//! in another tenant or for another tool is another key. The first call with a key claims it
//! and runs; a concurrent duplicate waits for that run to finish and then gets its outcome; a
//! later duplicate gets the stored outcome at once. The stored outcome is bound to the argument
//! digest: the same key with different arguments is `idempotency_conflict`, never a replay of
//! something else. Only outcomes of an effect that was attempted are stored; a run that ended
//! without one (the service could not be reached, the effect gate was never passed) releases
//! the key so that a retry can run.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};

use crate::cap::Truncation;
use crate::envelope::{ErrorInfo, ToolResult};

/// A key's scope: (tenant, tool, key).
type Scope = (String, String, String);

/// The parts of a result that a replay repeats (the id is the duplicate's own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stored {
    content: String,
    error: Option<Box<ErrorInfo>>,
    truncation: Option<Box<Truncation>>,
    parts: Vec<crate::content::Part>,
}

impl Stored {
    pub(crate) fn of(result: &ToolResult) -> Stored {
        Stored {
            content: result.content.clone(),
            error: result.error.clone(),
            truncation: result.truncation.clone(),
            parts: result.parts.clone(),
        }
    }

    pub(crate) fn replay(&self, id: Option<String>) -> ToolResult {
        ToolResult {
            tool_use_id: id,
            content: self.content.clone(),
            error: self.error.clone(),
            truncation: self.truncation.clone(),
            artifact: None,
            parts: self.parts.clone(),
        }
    }
}

#[derive(Debug)]
enum Slot {
    Running { digest: String },
    Done { digest: String, stored: Stored },
}

/// What claiming a key decided.
#[derive(Debug)]
pub(crate) enum Claim<'a> {
    /// The key is ours: run, then [`Guard::complete`].
    Run(Guard<'a>),
    /// A committed outcome exists for these arguments.
    Replay(Stored),
    /// The key is bound to other arguments.
    Conflict,
}

/// The in-memory store of keys and their outcomes (per harness; not persisted).
#[derive(Debug, Default)]
pub(crate) struct IdempotencyStore {
    slots: Mutex<HashMap<Scope, Slot>>,
    changed: Condvar,
}

impl IdempotencyStore {
    /// Claims `key` for `(tenant, tool)` and `digest`, waiting while another call holds it.
    pub(crate) fn claim(&self, tenant: &str, tool: &str, key: &str, digest: &str) -> Claim<'_> {
        let scope = (tenant.to_string(), tool.to_string(), key.to_string());
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match slots.get(&scope) {
                None => {
                    slots.insert(
                        scope.clone(),
                        Slot::Running {
                            digest: digest.to_string(),
                        },
                    );
                    return Claim::Run(Guard {
                        store: self,
                        scope: Some(scope),
                    });
                }
                Some(Slot::Running { digest: d }) | Some(Slot::Done { digest: d, .. })
                    if d != digest =>
                {
                    return Claim::Conflict
                }
                Some(Slot::Done { stored, .. }) => return Claim::Replay(stored.clone()),
                Some(Slot::Running { .. }) => {
                    slots = self
                        .changed
                        .wait(slots)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
    }
}

/// A claimed key. Completing it stores the outcome; dropping it uncompleted releases the key.
#[derive(Debug)]
pub(crate) struct Guard<'a> {
    store: &'a IdempotencyStore,
    scope: Option<Scope>,
}

impl Guard<'_> {
    /// Stores `stored` as the key's committed outcome (`None`: release the key instead).
    pub(crate) fn complete(mut self, stored: Option<Stored>) {
        let Some(scope) = self.scope.take() else {
            return;
        };
        let mut slots = self
            .store
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match stored {
            Some(stored) => {
                let digest = match slots.remove(&scope) {
                    Some(Slot::Running { digest }) | Some(Slot::Done { digest, .. }) => digest,
                    None => String::new(),
                };
                slots.insert(scope, Slot::Done { digest, stored });
            }
            None => {
                slots.remove(&scope);
            }
        }
        self.store.changed.notify_all();
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if let Some(scope) = self.scope.take() {
            let mut slots = self
                .store
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            slots.remove(&scope);
            self.store.changed.notify_all();
        }
    }
}
