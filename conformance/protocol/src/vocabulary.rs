//! The capability vocabulary: every name a hello may use, in one place.
//!
//! A hello that names a capability the runner does not know is not a harness that lacks the
//! capability — it is an adapter with a typo, and a typo in `keywords` used to skip 495 of 496
//! cases silently. So the runner checks every name against these lists and refuses the
//! handshake, naming the entry and the valid vocabulary.
//!
//! This is the one place the vocabulary is written. Every other list of it is generated from
//! here and checked in CI (`ci/vocabulary.sh`; `--write` regenerates them): PROTOCOL.md's
//! vocabulary table and the schemas' enumerations (the suite's `tests/vocabulary.rs`), both
//! adapter kits' vocabulary modules (from the schemas), and the reference adapter's hello
//! (every name but those harness-ref lacks).

use std::fmt;

use crate::message::Hello;

/// The JSON Schema (2020-12, plus draft-07's `definitions`/`dependencies`) keywords an adapter
/// may declare it gives its harness faithfully. Annotations (`title`, `description`,
/// `default`, …) are not listed: a harness that ignores them validates the same.
pub const KEYWORDS: [&str; 49] = [
    "$ref",
    "$defs",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Keywords an adapter may also declare, though no case derives a need from them: the core
/// keywords that identify or comment a schema and the annotations, which a validator that
/// ignores them applies exactly the same.
pub const ANNOTATION_KEYWORDS: [&str; 11] = [
    "$schema",
    "$id",
    "$comment",
    "$vocabulary",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Every keyword name a hello may declare: [`KEYWORDS`] and [`ANNOTATION_KEYWORDS`].
pub fn declarable_keywords() -> Vec<&'static str> {
    KEYWORDS
        .iter()
        .chain(&ANNOTATION_KEYWORDS)
        .copied()
        .collect()
}

/// The suite's outcome classes (docs/DESIGN.md): the keys of `codes` and of `folds`.
pub const CLASSES: [&str; 16] = [
    "invalid_arguments",
    "unknown_tool",
    "malformed_call",
    "duplicate_call_id",
    "tool_refused",
    "tool_unavailable",
    "timeout",
    "internal_error",
    "invalid_tool_output",
    "semantic_violation",
    "permission_denied",
    "budget_exhausted",
    "idempotency_conflict",
    "commit_rejected",
    "output_too_large",
    "cancelled",
];

/// The optional feature sets a harness may declare (`features`).
///
/// `offered-tools`: a turn can offer the model only some of the registered tools (a case's
/// `offered` list); `stop-reason`: the harness reads why the turn ended (a case's
/// `stop_reason`); `repair`: the harness repairs double-encoded nested arrays and objects
/// under the rules of SPEC's repair profile (cases that need it list `feature.repair`);
/// `cancel`: the user can cancel a turn while its handlers run (a case's `cancel_after_ms`);
/// `serial-calls`: the harness can run with parallel tool calls disabled (a case's
/// `parallel_calls: false`); `mcp-client`: the harness consumes MCP servers and maps their
/// results (a tool's `mcp_result`); `resume`: the harness resumes a session from a saved
/// transcript whose turn has calls still open (a case's `resume`). None is a security gate,
/// but all are optional in the same way.
///
/// `image-limits`: the harness enforces a model provider's image limits, configured per case
/// (a case's `config.image_limit`; SPEC.md BLOCK-6).
///
/// `spill-lifecycle`: the harness keeps spilled outputs in a store scoped to a session, and the
/// adapter can run a case's calls as turns of named sessions, forget results from a session's
/// transcript, end sessions, and list which artifacts the store still holds after each step
/// (a case's `spill_lifecycle`; SPEC.md SPILL-1..5).
///
/// `pause`: calls of some tools wait for the user's decision (approve, possibly with edited
/// arguments or data the user gave, or deny) before they run, and the harness gives up waiting
/// after a configured time (a case's `pause`; SPEC.md PAUSE-1..4).
///
/// `context-cap`: the harness caps a result at the smaller of its configured cap and the room
/// left in the model's context window (a case's `config.cap.remaining`; SPEC.md TOKCAP-3).
pub const FEATURES: [&str; 17] = [
    "authorization",
    "bounds",
    "budget",
    "idempotency",
    "path-confinement",
    "prepare-commit",
    "offered-tools",
    "stop-reason",
    "repair",
    "cancel",
    "serial-calls",
    "mcp-client",
    "resume",
    "image-limits",
    "spill-lifecycle",
    "pause",
    "context-cap",
];

/// Scripted behaviours beyond protocol 1's base set, which an adapter declares it can run
/// (`behaviors`). A case using one that is not declared is skipped, so adapters written before
/// it existed keep working.
///
/// `audio_blocks` and `resource_link_blocks`: the adapter passes a handler's (or an MCP
/// server's) `audio` and `resource_link` content blocks to its harness and reports them in a
/// reply's `blocks`, as it does the kinds of `content_blocks` (MCP 2025-03-26 and 2025-06-18).
///
/// `stream`: the adapter writes a handler's output in parts over time through its harness's
/// streaming or progress mechanism (`{"return": {"stream": [...]}}`; SPEC.md STREAM-1).
pub const BEHAVIORS: [&str; 7] = [
    "non_finite_in",
    "non_json",
    "output_schema",
    "content_blocks",
    "audio_blocks",
    "resource_link_blocks",
    "stream",
];

/// The model providers' request formats a harness may declare its results go into
/// (`dialect`). Each has its provider's acceptance rules for a tool result, as data, in
/// `conformance/providers/<dialect>.json` (SPEC.md REPLAY-1); a dialect is listed here only
/// when that file holds rules with a public source.
///
/// `anthropic-messages`: the Anthropic Messages API (`tool_result` blocks); `bedrock-converse`:
/// the Amazon Bedrock Converse API (`toolResult` blocks).
pub const DIALECTS: [&str; 2] = ["anthropic-messages", "bedrock-converse"];

/// Every field a hello's `capabilities` object may carry, in `hello.schema.json`'s order.
pub const CAPABILITY_FIELDS: [&str; 14] = [
    "cap",
    "codes",
    "retryability",
    "deadline",
    "keywords",
    "call_forms",
    "parallel",
    "history",
    "features",
    "folds",
    "behaviors",
    "call_ids",
    "dialect",
    "wrapper",
];

/// One name in a hello that is not in the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// Where it is: `capabilities.keywords[3]`, `capabilities.codes."invalid"`.
    pub at: String,
    /// The name as the adapter wrote it.
    pub name: String,
    /// The names valid there.
    pub valid: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: unknown name {:?}; valid names are: {}",
            self.at,
            self.name,
            self.valid.join(", ")
        )
    }
}

/// Every name in `hello` that is not in the vocabulary, plus folds that point nowhere.
///
/// Units, strategies and call forms are closed enums already refused by strict decoding; what
/// remains are the open string lists and the class maps.
pub fn unknown_names(hello: &Hello) -> Vec<UnknownName> {
    let caps = &hello.capabilities;
    let mut out = Vec::new();
    let mut list = |field: &str, names: &[String], valid: &'static [&'static str]| {
        for (i, name) in names.iter().enumerate() {
            if !valid.contains(&name.as_str()) {
                out.push(UnknownName {
                    at: format!("capabilities.{field}[{i}]"),
                    name: name.clone(),
                    valid,
                });
            }
        }
    };
    static DECLARABLE: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let declarable: &'static [&'static str] = DECLARABLE.get_or_init(declarable_keywords);
    list("keywords", &caps.keywords, declarable);
    list("features", &caps.features, &FEATURES);
    list("behaviors", &caps.behaviors, &BEHAVIORS);
    if let Some(dialect) = &caps.dialect {
        if !DIALECTS.contains(&dialect.as_str()) {
            out.push(UnknownName {
                at: "capabilities.dialect".to_owned(),
                name: dialect.clone(),
                valid: &DIALECTS,
            });
        }
    }
    if let Some(codes) = &caps.codes {
        for class in codes.keys() {
            if !CLASSES.contains(&class.as_str()) {
                out.push(UnknownName {
                    at: format!("capabilities.codes.{class:?}"),
                    name: class.clone(),
                    valid: &CLASSES,
                });
            }
        }
    }
    for (from, to) in &caps.folds {
        for (what, name) in [("key", from), ("value", to)] {
            if !CLASSES.contains(&name.as_str()) {
                out.push(UnknownName {
                    at: format!("capabilities.folds.{from:?} ({what})"),
                    name: name.clone(),
                    valid: &CLASSES,
                });
            }
        }
    }
    out
}

/// Problems with `folds` beyond unknown names: a fold must point at a class the harness has a
/// code for, and a class cannot be both mapped and folded.
pub fn fold_problems(hello: &Hello) -> Vec<String> {
    let caps = &hello.capabilities;
    let codes = caps.codes.as_ref();
    let mut out = Vec::new();
    for (from, to) in &caps.folds {
        if from == to {
            out.push(format!(
                "capabilities.folds.{from:?}: a class cannot be folded into itself"
            ));
        } else if !codes.is_some_and(|c| c.contains_key(to)) {
            out.push(format!(
                "capabilities.folds.{from:?}: folded into {to:?}, which has no entry in `codes` (a fold names the class whose code the harness answers with)"
            ));
        }
        if codes.is_some_and(|c| c.contains_key(from)) {
            out.push(format!(
                "capabilities.folds.{from:?}: the class is also in `codes`; a class is either mapped to its own code or folded, not both"
            ));
        }
    }
    out
}

/// Problems with a declared cap's token estimator: the unit `tokens` (as the cap's unit or one
/// of its `units`) needs an `estimator` the suite can apply, and an estimator needs that unit.
pub fn cap_problems(hello: &Hello) -> Vec<String> {
    let Some(cap) = &hello.capabilities.cap else {
        return Vec::new();
    };
    let tokens = cap.unit == crate::Unit::Tokens || cap.units.contains(&crate::Unit::Tokens);
    let mut out = Vec::new();
    match (tokens, cap.estimator) {
        (true, None) => out.push(
            "capabilities.cap: the unit `tokens` needs an `estimator` ({\"of\": \"bytes\", \"divisor\": 4}: tokens = ceil(bytes / 4))".to_owned(),
        ),
        (false, Some(_)) => out.push(
            "capabilities.cap.estimator: declared without the unit `tokens` (as `unit` or in `units`)".to_owned(),
        ),
        (_, Some(e)) => {
            if let Err(why) = e.validate() {
                out.push(format!("capabilities.cap.estimator: {why}"));
            }
        }
        (false, None) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::decode_hello;

    #[test]
    fn a_token_cap_needs_an_estimator_the_suite_can_apply() {
        // Decoded leniently here: `decode_hello` itself refuses what `cap_problems` finds.
        let problems = |cap: &str| {
            let line = format!(
                r#"{{"protocol":1,"implementation":{{"name":"x","language":"rust","version":"1"}},"capabilities":{{"cap":{cap}}}}}"#
            );
            let hello: Hello = serde_json::from_str(&line).unwrap();
            let found = cap_problems(&hello);
            assert_eq!(
                decode_hello(line.as_bytes()).is_ok(),
                found.is_empty(),
                "{line}"
            );
            found
        };
        assert!(problems(r#"{"unit":"tokens","limit":100,"strategies":["head_tail"],"estimator":{"of":"bytes","divisor":4}}"#).is_empty());
        assert!(problems(r#"{"unit":"bytes","limit":100,"strategies":["head_tail"],"units":["tokens"],"estimator":{"of":"chars","divisor":3}}"#).is_empty());
        assert!(
            problems(r#"{"unit":"tokens","limit":100,"strategies":["head_tail"]}"#)[0]
                .contains("needs an `estimator`")
        );
        assert!(problems(r#"{"unit":"bytes","limit":100,"strategies":["head_tail"],"estimator":{"of":"bytes","divisor":4}}"#)[0].contains("without the unit"));
        assert!(problems(r#"{"unit":"tokens","limit":100,"strategies":["head_tail"],"estimator":{"of":"lines","divisor":4}}"#)[0].contains("bytes or chars"));
        assert!(problems(r#"{"unit":"tokens","limit":100,"strategies":["head_tail"],"estimator":{"of":"bytes","divisor":0}}"#)[0].contains("at least 1"));
    }

    fn hello(caps: &str) -> Hello {
        decode_hello(
            format!(
                r#"{{"protocol":1,"implementation":{{"name":"x","language":"rust","version":"1"}},"capabilities":{caps}}}"#
            )
            .as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn a_typo_in_keywords_is_named_with_the_valid_vocabulary() {
        let h = hello(r#"{"keywords":["type","propertie"]}"#);
        let bad = unknown_names(&h);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].at, "capabilities.keywords[1]");
        let msg = bad[0].to_string();
        assert!(
            msg.contains("\"propertie\"") && msg.contains("properties"),
            "{msg}"
        );
    }

    #[test]
    fn classes_features_and_behaviours_are_checked() {
        let h = hello(
            r#"{"codes":{"invalid_args":"E"},"features":["auth"],"behaviors":["cycles"],"folds":{"malformed":"invalid_arguments"}}"#,
        );
        let at: Vec<String> = unknown_names(&h).into_iter().map(|u| u.at).collect();
        assert_eq!(
            at,
            vec![
                "capabilities.features[0]",
                "capabilities.behaviors[0]",
                "capabilities.codes.\"invalid_args\"",
                "capabilities.folds.\"malformed\" (key)",
            ]
        );
        assert!(unknown_names(&hello(r#"{"keywords":["type","$ref","title"]}"#)).is_empty());
    }

    #[test]
    fn a_dialect_is_one_of_the_providers_with_rules() {
        assert!(unknown_names(&hello(r#"{"dialect":"anthropic-messages"}"#)).is_empty());
        let bad = unknown_names(&hello(r#"{"dialect":"anthropic"}"#));
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].at, "capabilities.dialect");
    }

    #[test]
    fn folds_must_point_at_a_mapped_class() {
        let ok = hello(
            r#"{"codes":{"invalid_arguments":"E1"},"folds":{"malformed_call":"invalid_arguments"}}"#,
        );
        assert!(fold_problems(&ok).is_empty());
        let unmapped = hello(r#"{"folds":{"malformed_call":"invalid_arguments"}}"#);
        assert_eq!(fold_problems(&unmapped).len(), 1);
        let both = hello(
            r#"{"codes":{"invalid_arguments":"E1","malformed_call":"E2"},"folds":{"malformed_call":"invalid_arguments"}}"#,
        );
        assert_eq!(fold_problems(&both).len(), 1);
    }
}
