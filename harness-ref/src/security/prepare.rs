//! Prepare/commit: high-consequence calls are previewed first and run only on a matching commit.
//!
//! A prepare passes every gate a direct call would (syntax, semantics, authorization except the
//! user's approval, and an affordability check), runs nothing, and returns a human-readable
//! preview plus a short-lived token. The token is bound to the principal and tenant, the tool,
//! the argument digest, the policy version and the target. A commit presents it with its call;
//! the gate re-derives all of them from the commit's own validated arguments and current state
//! and refuses (`commit_rejected`, nothing runs) on any difference or after expiry. Tokens are
//! single-use: a verified commit consumes its token whatever the effect then does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::digest::keyed_digest;

/// Why a commit was refused. The model is told the phrase; the kind is the result's `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommitProblem {
    /// The tool must be prepared first and was called directly.
    NotPrepared,
    /// No live token matches (never issued, already used, or issued to another caller — the
    /// three are not told apart, so a token's existence is not revealed to other callers).
    UnknownToken,
    /// The token was issued for another tool.
    OtherTool,
    /// The arguments differ from the prepared ones.
    ArgumentsChanged,
    /// The target derived from the arguments differs from the prepared one.
    TargetChanged,
    /// The policy version changed since the prepare.
    PolicyChanged,
    /// The token's lifetime passed.
    Expired,
}

impl CommitProblem {
    /// The stable reason string (`ErrorInfo::reason`).
    pub fn reason(self) -> &'static str {
        match self {
            CommitProblem::NotPrepared => "not_prepared",
            CommitProblem::UnknownToken => "unknown_token",
            CommitProblem::OtherTool => "other_tool",
            CommitProblem::ArgumentsChanged => "arguments_changed",
            CommitProblem::TargetChanged => "target_changed",
            CommitProblem::PolicyChanged => "policy_changed",
            CommitProblem::Expired => "expired",
        }
    }

    /// What the model reads.
    pub fn phrase(self) -> &'static str {
        match self {
            CommitProblem::NotPrepared => "this tool runs only as the commit of a prepared call",
            CommitProblem::UnknownToken => "no prepared call matches this token",
            CommitProblem::OtherTool => "the token was issued for another tool",
            CommitProblem::ArgumentsChanged => "the arguments differ from the prepared ones",
            CommitProblem::TargetChanged => "the target differs from the prepared one",
            CommitProblem::PolicyChanged => "the policy changed since the call was prepared",
            CommitProblem::Expired => "the token expired",
        }
    }
}

/// What a token is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub(crate) principal: String,
    pub(crate) tenant: String,
    pub(crate) tool: String,
    pub(crate) digest: String,
    pub(crate) policy_version: u64,
    pub(crate) target: Option<String>,
}

#[derive(Debug)]
struct Entry {
    binding: Binding,
    expires_at_ms: u64,
}

/// The live tokens of one harness (in memory; not persisted).
#[derive(Debug)]
pub(crate) struct TokenStore {
    key: Vec<u8>,
    counter: AtomicU64,
    live: Mutex<HashMap<String, Entry>>,
}

impl TokenStore {
    pub(crate) fn new(key: Vec<u8>) -> TokenStore {
        TokenStore {
            key,
            counter: AtomicU64::new(0),
            live: Mutex::new(HashMap::new()),
        }
    }

    /// Issues a token for `binding`, valid until `expires_at_ms`.
    pub(crate) fn issue(&self, binding: Binding, now_ms: u64, expires_at_ms: u64) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let digest = keyed_digest(&self.key, format!("commit-token:{n}").as_bytes());
        let token = format!("ptk_{}", &digest["sha256:".len().."sha256:".len() + 32]);
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|_, e| e.expires_at_ms > now_ms);
        live.insert(
            token.clone(),
            Entry {
                binding,
                expires_at_ms,
            },
        );
        token
    }

    /// Verifies `token` against the commit's own `binding` at `now_ms`; consumes it when it
    /// matches. An expired token is removed too.
    pub(crate) fn redeem(
        &self,
        token: &str,
        binding: &Binding,
        now_ms: u64,
    ) -> Result<(), CommitProblem> {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(entry) = live.get(token) else {
            return Err(CommitProblem::UnknownToken);
        };
        let b = &entry.binding;
        if b.principal != binding.principal || b.tenant != binding.tenant {
            return Err(CommitProblem::UnknownToken);
        }
        if now_ms >= entry.expires_at_ms {
            live.remove(token);
            return Err(CommitProblem::Expired);
        }
        let problem = if b.tool != binding.tool {
            Some(CommitProblem::OtherTool)
        } else if b.policy_version != binding.policy_version {
            Some(CommitProblem::PolicyChanged)
        } else if b.digest != binding.digest {
            Some(CommitProblem::ArgumentsChanged)
        } else if b.target != binding.target {
            Some(CommitProblem::TargetChanged)
        } else {
            None
        };
        match problem {
            Some(p) => Err(p),
            None => {
                live.remove(token);
                Ok(())
            }
        }
    }
}

/// 32 bytes from the standard library's per-process random hasher seeds, for harnesses whose
/// embedder supplies no key. Not a general-purpose CSPRNG; it only has to make this process's
/// tokens and digests unpredictable from outside.
pub(crate) fn fresh_key() -> Vec<u8> {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut out = Vec::with_capacity(32);
    for i in 0..4u64 {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(i);
        out.extend_from_slice(&h.finish().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding() -> Binding {
        Binding {
            principal: "alice".into(),
            tenant: "acme".into(),
            tool: "transfer".into(),
            digest: "sha256:aa".into(),
            policy_version: 1,
            target: Some("acct/1".into()),
        }
    }

    #[test]
    fn a_matching_commit_consumes_its_token() {
        let store = TokenStore::new(b"k".to_vec());
        let t = store.issue(binding(), 0, 1000);
        assert!(t.starts_with("ptk_") && t.len() == 36);
        assert_eq!(store.redeem(&t, &binding(), 10), Ok(()));
        assert_eq!(
            store.redeem(&t, &binding(), 10),
            Err(CommitProblem::UnknownToken)
        );
    }

    #[test]
    fn every_difference_is_refused() {
        let store = TokenStore::new(b"k".to_vec());
        let cases: Vec<(Binding, u64, CommitProblem)> = vec![
            (
                Binding {
                    principal: "mallory".into(),
                    ..binding()
                },
                1,
                CommitProblem::UnknownToken,
            ),
            (
                Binding {
                    digest: "sha256:bb".into(),
                    ..binding()
                },
                1,
                CommitProblem::ArgumentsChanged,
            ),
            (
                Binding {
                    policy_version: 2,
                    ..binding()
                },
                1,
                CommitProblem::PolicyChanged,
            ),
            (
                Binding {
                    target: Some("acct/2".into()),
                    ..binding()
                },
                1,
                CommitProblem::TargetChanged,
            ),
            (
                Binding {
                    tool: "delete".into(),
                    ..binding()
                },
                1,
                CommitProblem::OtherTool,
            ),
            (binding(), 1000, CommitProblem::Expired),
        ];
        for (b, at, want) in cases {
            let t = store.issue(binding(), 0, 1000);
            assert_eq!(store.redeem(&t, &b, at), Err(want));
        }
        assert_eq!(
            store.redeem("ptk_forged", &binding(), 1),
            Err(CommitProblem::UnknownToken)
        );
    }
}
