//! What a tool declares about itself to the gates: the capability it needs, its effect class,
//! how its target resource is derived from the validated arguments, which arguments are
//! sensitive, what it costs, and the semantic rules its arguments must keep.
//!
//! A policy is data, evaluated by trusted code after the schema passed; no prose is
//! interpreted. A tool without a policy is not gated beyond its schema (the plain harness).

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::schema::Violation;

/// What running a tool does to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Effect {
    /// Reads state; nothing changes.
    #[default]
    Read,
    /// Changes state the harness's operator owns (files, records).
    Write,
    /// Acts outside (payments, e-mail, network calls).
    External,
}

impl Effect {
    /// `read`, `write` or `external`.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::External => "external",
        }
    }
}

/// How the resource a call touches is derived from its validated arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Target {
    /// The tool touches no particular resource.
    #[default]
    None,
    /// A fixed resource (e.g. `"ledger"`).
    Fixed(String),
    /// The value at this RFC 6901 pointer in the arguments (a string as is, a number or boolean
    /// in its JSON form). A path argument under confinement is normalised first.
    Pointer(String),
}

/// Limits on the shape of arguments, beyond what the schema says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bounds {
    /// Longest string value (and object key), in Unicode scalar values.
    pub max_string_chars: Option<usize>,
    /// Most items in any array.
    pub max_array_items: Option<usize>,
    /// Deepest nesting of arrays and objects (the arguments object itself is depth 1).
    pub max_depth: Option<usize>,
}

/// An embedder's own semantic rule: violations for arguments that are well-formed but not
/// acceptable (a transfer above the caller's authority, a date in the past).
pub type SemanticRule = Arc<dyn Fn(&Value) -> Vec<Violation> + Send + Sync>;

/// What a tool declares to the gates.
#[derive(Clone, Default)]
pub struct ToolPolicy {
    pub(crate) capability: Option<String>,
    pub(crate) effect: Effect,
    pub(crate) target: Target,
    pub(crate) sensitive: Vec<String>,
    pub(crate) cost: u64,
    pub(crate) requires_approval: bool,
    pub(crate) prepare_commit: bool,
    pub(crate) paths: Vec<String>,
    pub(crate) bounds: Bounds,
    pub(crate) rules: Vec<SemanticRule>,
    pub(crate) contract_version: String,
}

impl fmt::Debug for ToolPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolPolicy")
            .field("capability", &self.capability)
            .field("effect", &self.effect)
            .field("target", &self.target)
            .field("sensitive", &self.sensitive)
            .field("cost", &self.cost)
            .field("requires_approval", &self.requires_approval)
            .field("prepare_commit", &self.prepare_commit)
            .field("paths", &self.paths)
            .field("bounds", &self.bounds)
            .field("rules", &self.rules.len())
            .field("contract_version", &self.contract_version)
            .finish()
    }
}

impl ToolPolicy {
    /// A policy requiring `capability`, effect `read`, no target, cost 0, contract version `"1"`.
    pub fn new(capability: impl Into<String>) -> ToolPolicy {
        ToolPolicy {
            capability: Some(capability.into()),
            contract_version: "1".to_string(),
            ..ToolPolicy::default()
        }
    }

    /// A policy that requires no capability (any authenticated caller may call).
    pub fn open() -> ToolPolicy {
        ToolPolicy {
            contract_version: "1".to_string(),
            ..ToolPolicy::default()
        }
    }

    /// Sets the effect class.
    pub fn effect(mut self, effect: Effect) -> ToolPolicy {
        self.effect = effect;
        self
    }

    /// Sets how the target is derived.
    pub fn target(mut self, target: Target) -> ToolPolicy {
        self.target = target;
        self
    }

    /// Marks the argument at this pointer sensitive: masked in audit events and previews, its
    /// value never echoed in content.
    pub fn sensitive(mut self, pointer: impl Into<String>) -> ToolPolicy {
        self.sensitive.push(pointer.into());
        self
    }

    /// What one effect costs against the tenant's budget.
    pub fn cost(mut self, cost: u64) -> ToolPolicy {
        self.cost = cost;
        self
    }

    /// The call runs only with the user's approval.
    pub fn requires_approval(mut self) -> ToolPolicy {
        self.requires_approval = true;
        self
    }

    /// The call runs only as the commit of an earlier prepare (high-consequence tools).
    pub fn prepare_commit(mut self) -> ToolPolicy {
        self.prepare_commit = true;
        self
    }

    /// The string at this pointer must be a workspace-relative path that stays inside the
    /// workspace (see [`crate::security::confine`]).
    pub fn path(mut self, pointer: impl Into<String>) -> ToolPolicy {
        self.paths.push(pointer.into());
        self
    }

    /// Bounds on string length, array size and nesting depth.
    pub fn bounds(mut self, bounds: Bounds) -> ToolPolicy {
        self.bounds = bounds;
        self
    }

    /// Adds an embedder rule, run in the semantics gate.
    pub fn rule<F>(mut self, rule: F) -> ToolPolicy
    where
        F: Fn(&Value) -> Vec<Violation> + Send + Sync + 'static,
    {
        self.rules.push(Arc::new(rule));
        self
    }

    /// The contract version recorded on every invocation (default `"1"`).
    pub fn contract_version(mut self, version: impl Into<String>) -> ToolPolicy {
        self.contract_version = version.into();
        self
    }

    /// The capability the tool needs, if any.
    pub fn capability_name(&self) -> Option<&str> {
        self.capability.as_deref()
    }

    /// The effect class.
    pub fn effect_class(&self) -> Effect {
        self.effect
    }

    /// The contract version.
    pub fn version(&self) -> &str {
        &self.contract_version
    }

    /// Whether a pointer is at or under a sensitive argument.
    pub(crate) fn is_sensitive(&self, pointer: &str) -> bool {
        self.sensitive
            .iter()
            .any(|s| pointer == s || pointer.starts_with(&format!("{s}/")) || s.is_empty())
    }
}

/// Bound violations of `args`, all of them, in document order.
pub fn bound_violations(args: &Value, bounds: &Bounds) -> Vec<Violation> {
    let mut out = Vec::new();
    walk_bounds(args, "", 1, bounds, &mut out);
    out
}

fn walk_bounds(v: &Value, pointer: &str, depth: usize, b: &Bounds, out: &mut Vec<Violation>) {
    let nested = matches!(v, Value::Array(_) | Value::Object(_));
    if nested {
        if let Some(max) = b.max_depth {
            if depth > max {
                out.push(
                    Violation::new(pointer, format!("nesting at most {max} levels deep"), v)
                        .with_keyword("max_depth"),
                );
                return;
            }
        }
    }
    match v {
        Value::String(s) => {
            if let Some(max) = b.max_string_chars {
                if s.chars().count() > max {
                    out.push(
                        Violation::new(pointer, format!("a string of at most {max} characters"), v)
                            .with_keyword("max_string_chars"),
                    );
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = b.max_array_items {
                if items.len() > max {
                    out.push(
                        Violation::new(pointer, format!("an array of at most {max} items"), v)
                            .with_keyword("max_array_items"),
                    );
                }
            }
            for (i, item) in items.iter().enumerate() {
                walk_bounds(item, &format!("{pointer}/{i}"), depth + 1, b, out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let child = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
                if let Some(max) = b.max_string_chars {
                    if k.chars().count() > max {
                        out.push(
                            Violation::new(
                                child.clone(),
                                format!("a property name of at most {max} characters"),
                                &Value::String(k.clone()),
                            )
                            .with_keyword("max_string_chars"),
                        );
                    }
                }
                walk_bounds(item, &child, depth + 1, b, out);
            }
        }
        _ => {}
    }
}

/// The target `policy` derives from `args` (`None` for [`Target::None`] or a missing value).
pub(crate) fn derive_target(policy: &ToolPolicy, args: &Value) -> Option<String> {
    match &policy.target {
        Target::None => None,
        Target::Fixed(t) => Some(t.clone()),
        Target::Pointer(p) => {
            let v = args.pointer(p)?;
            let raw = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if policy.paths.iter().any(|x| x == p) {
                if let Ok(path) = super::confine::normalize(&raw) {
                    return Some(path.as_str().to_string());
                }
            }
            Some(raw)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_report_every_breach_with_its_pointer() {
        let b = Bounds {
            max_string_chars: Some(3),
            max_array_items: Some(2),
            max_depth: Some(3),
        };
        let v = bound_violations(
            &json!({"a": "abcd", "b": [1, 2, 3], "c": {"d": {"e": {}}}, "long": 1}),
            &b,
        );
        let got: Vec<(&str, &str)> = v
            .iter()
            .map(|v| (v.pointer.as_str(), v.keyword.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/a", "max_string_chars"),
                ("/b", "max_array_items"),
                ("/c/d/e", "max_depth"),
                ("/long", "max_string_chars"),
            ]
        );
        assert!(bound_violations(&json!({"a": "abc", "b": [1, 2]}), &b).is_empty());
    }

    #[test]
    fn targets_come_from_validated_arguments() {
        let p = ToolPolicy::new("fs.write")
            .target(Target::Pointer("/path".into()))
            .path("/path");
        assert_eq!(
            derive_target(&p, &json!({"path": "a//b/./c"})).as_deref(),
            Some("a/b/c")
        );
        let q = ToolPolicy::new("x").target(Target::Pointer("/id".into()));
        assert_eq!(derive_target(&q, &json!({"id": 42})).as_deref(), Some("42"));
        assert_eq!(derive_target(&q, &json!({})), None);
    }
}
