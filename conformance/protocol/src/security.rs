//! The security part of a case: who calls, what each tool's policy is, and per-call options
//! (idempotency keys, prepare/commit, a different caller, events before a call).
//!
//! Every field is optional and additive: a case without them is exactly the case format of
//! protocol 1 before they existed, and an adapter that does not declare the matching feature
//! never receives them (the runner skips the case). A harness that declares any of the security
//! features accepts all of these fields (a `context` with principal and tenant is their common
//! vocabulary); the features say which requirements it is tested on:
//!
//! | feature | implied by |
//! |---|---|
//! | `authorization` | a policy's `capability`, `requires_approval` or `sensitive`, or `context.targets` |
//! | `budget` | `security.budget`, or a policy `cost` |
//! | `idempotency` | a call's `idempotency_key` |
//! | `prepare-commit` | a call's `prepare`/`commit`, or a policy's `prepare_commit` |
//! | `path-confinement` | a policy's `paths`, or `security.workspace` |
//! | `bounds` | a policy's `bounds` |

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::case::{Call, ToolDef, WireCase};

/// The authenticated caller (`context` at case level; at call level, a partial override).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextDef {
    /// The principal; `""` is unauthenticated. Absent at case level: `"user"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The tenant. Absent at case level: `"default"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Granted capabilities. Absent at case level: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Whether the user approved. Absent at case level: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// Target prefixes the caller may touch (a target matches a prefix equal to it or followed
    /// by `/`). Absent: any target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<Vec<String>>,
}

impl ContextDef {
    /// `self` with `over`'s present fields replacing its own.
    pub fn merged(&self, over: &ContextDef) -> ContextDef {
        ContextDef {
            principal: over.principal.clone().or_else(|| self.principal.clone()),
            tenant: over.tenant.clone().or_else(|| self.tenant.clone()),
            capabilities: over
                .capabilities
                .clone()
                .or_else(|| self.capabilities.clone()),
            approved: over.approved.or(self.approved),
            targets: over.targets.clone().or_else(|| self.targets.clone()),
        }
    }
}

/// Harness-side security state a case sets up (`security` at case level).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecuritySetup {
    /// The policy version at the start of the turn (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_version: Option<u64>,
    /// Each tenant's budget in cost units for the case (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Commit tokens' lifetime (default: the harness's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_ttl_ms: Option<u64>,
    /// The workspace path arguments are confined to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Workspace>,
}

/// A scripted workspace: which paths are symbolic links, and to what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workspace {
    /// Workspace-relative link path → target as written in the link (absolute targets point
    /// outside the workspace; relative ones are resolved from the link's directory).
    #[serde(default)]
    pub links: BTreeMap<String, String>,
}

/// What a tool's effect does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectClass {
    /// Reads only.
    #[default]
    Read,
    /// Changes state the operator owns.
    Write,
    /// Acts outside (payments, messages).
    External,
}

/// A tool's policy (`policy` on a tool). Absent: no capability needed, effect `read`, cost 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyDef {
    /// The capability a caller needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<String>,
    /// The effect class.
    #[serde(default)]
    pub effect: EffectClass,
    /// RFC 6901 pointer to the argument naming the target resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Pointers to sensitive arguments: never echoed in content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensitive: Vec<String>,
    /// What one effect costs against the tenant's budget.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cost: u64,
    /// Runs only with the user's approval.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_approval: bool,
    /// Runs only as the commit of a prepare.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prepare_commit: bool,
    /// Pointers to path arguments confined to the workspace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Bounds on argument shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<BoundsDef>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Bounds beyond the schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundsDef {
    /// Longest string (or property name), in Unicode scalar values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_string_chars: Option<u64>,
    /// Most items in any array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_array_items: Option<u64>,
    /// Deepest nesting (the arguments object is depth 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
}

/// Which token a commit presents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CommitRef {
    /// The token the prepare call with this id returned (the adapter takes it from that result).
    TokenOf(String),
    /// This literal token (a forged or stale one).
    Token(String),
}

/// Events that happen before a call, outside the model's control.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Before {
    /// The harness's clock moves forward this much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance_ms: Option<u64>,
    /// The policy version changes to this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_version: Option<u64>,
}

/// A call's security options, as the caller (not the model) supplies them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSecurity {
    /// The caller's idempotency key, scoped to tenant and tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// A prepare: validate, authorize, preview; run nothing. Always `true` when present.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prepare: bool,
    /// A commit of an earlier prepare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitRef>,
    /// This call's caller, over the case's `context`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextDef>,
    /// What happens before this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Before>,
}

/// The call-level keys that carry [`CallSecurity`]; never part of the `tool_use` block.
pub const CALL_SECURITY_KEYS: [&str; 5] =
    ["idempotency_key", "prepare", "commit", "context", "before"];

impl CallSecurity {
    /// Decodes the security keys of a call block (`Err` on a malformed one).
    pub fn from_block(block: &Map<String, Value>) -> Result<CallSecurity, String> {
        let sub: Map<String, Value> = block
            .iter()
            .filter(|(k, _)| CALL_SECURITY_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let sec: CallSecurity =
            serde_json::from_value(Value::Object(sub)).map_err(|e| e.to_string())?;
        if block.get("prepare") == Some(&Value::Bool(false)) {
            return Err("`prepare` is `true` when present".into());
        }
        if sec.prepare && sec.commit.is_some() {
            return Err("a call has `prepare` or `commit`, not both".into());
        }
        Ok(sec)
    }

    /// True when no option is set.
    pub fn is_empty(&self) -> bool {
        *self == CallSecurity::default()
    }
}

/// The security features a case's fields imply (see the module docs), sorted.
pub fn implied_features(case: &WireCase) -> BTreeSet<&'static str> {
    implied_features_of(
        case.security.as_deref(),
        &case.tools,
        &case.calls,
        case.context.as_deref(),
    )
}

/// [`implied_features`] from the fields that imply them, for a caller that holds them outside a
/// [`WireCase`] (the suite's case files) and should not build one to ask.
pub fn implied_features_of(
    security: Option<&SecuritySetup>,
    tools: &[ToolDef],
    calls: &[Call],
    context: Option<&ContextDef>,
) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    if let Some(s) = security {
        if s.budget.is_some() {
            out.insert("budget");
        }
        if s.workspace.is_some() {
            out.insert("path-confinement");
        }
    }
    for tool in tools {
        let Some(p) = &tool.policy else { continue };
        if p.capability.is_some() || p.requires_approval || !p.sensitive.is_empty() {
            out.insert("authorization");
        }
        if p.cost > 0 {
            out.insert("budget");
        }
        if p.prepare_commit {
            out.insert("prepare-commit");
        }
        if !p.paths.is_empty() {
            out.insert("path-confinement");
        }
        if p.bounds.is_some() {
            out.insert("bounds");
        }
    }
    for call in calls {
        let sec = call.security();
        if sec.idempotency_key.is_some() {
            out.insert("idempotency");
        }
        if sec.prepare || sec.commit.is_some() {
            out.insert("prepare-commit");
        }
        if sec.context.as_ref().is_some_and(|c| c.targets.is_some()) {
            out.insert("authorization");
        }
    }
    if context.is_some_and(|c| c.targets.is_some()) {
        out.insert("authorization");
    }
    out
}

/// Whether a case uses any security field (an adapter then runs it through its gates).
pub fn is_secured(case: &WireCase) -> bool {
    case.context.is_some()
        || case.security.is_some()
        || case.tools.iter().any(|t| t.policy.is_some())
        || case.calls.iter().any(|c| !c.security().is_empty())
}

impl Call {
    /// The call's security options (empty for raw calls and calls without them).
    pub fn security(&self) -> CallSecurity {
        match self {
            Call::Block(map) => CallSecurity::from_block(map).unwrap_or_default(),
            Call::Raw(_) => CallSecurity::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_security_decodes_strictly() {
        let call: Call = serde_json::from_value(json!({
            "id": "c", "name": "pay", "input": {},
            "idempotency_key": "k", "commit": {"token_of": "p"},
            "context": {"principal": "mallory"}, "before": {"advance_ms": 5}
        }))
        .unwrap();
        let sec = call.security();
        assert_eq!(sec.idempotency_key.as_deref(), Some("k"));
        assert_eq!(sec.commit, Some(CommitRef::TokenOf("p".into())));
        assert_eq!(sec.before.unwrap().advance_ms, Some(5));
        assert_eq!(
            call.tool_use_block().unwrap(),
            json!({"type": "tool_use", "id": "c", "name": "pay", "input": {}})
        );
        for bad in [
            json!({"id": "c", "prepare": false}),
            json!({"id": "c", "prepare": true, "commit": {"token": "t"}}),
            json!({"id": "c", "commit": {"tokn": "t"}}),
            json!({"id": "c", "idempotency_key": 3}),
            json!({"id": "c", "before": {"advance": 1}}),
        ] {
            assert!(
                serde_json::from_value::<Call>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn features_are_implied_by_fields() {
        let case: WireCase = serde_json::from_value(json!({
            "id": "a/b",
            "context": {"principal": "alice", "targets": ["x"]},
            "security": {"budget": 3},
            "tools": [{"name": "t", "input_schema": {}, "behavior": {"return": {"text": "ok"}},
                       "policy": {"paths": ["/p"], "prepare_commit": true}}],
            "calls": [{"id": "1", "name": "t", "input": {}, "idempotency_key": "k"}]
        }))
        .unwrap();
        let got: Vec<&str> = implied_features(&case).into_iter().collect();
        assert_eq!(
            got,
            vec![
                "authorization",
                "budget",
                "idempotency",
                "path-confinement",
                "prepare-commit"
            ]
        );
        assert!(is_secured(&case));
        let plain: WireCase = serde_json::from_value(json!({
            "id": "a/b", "tools": [], "calls": [{"id": "1", "name": "t", "input": {}}]
        }))
        .unwrap();
        assert!(implied_features(&plain).is_empty() && !is_secured(&plain));
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            json!({"id": "a/b", "tools": [], "calls": [{"id": "1", "name": "t", "input": {}}]}),
            "no security field is serialised for a plain case"
        );
    }
}
