//! The compiled-schema cache (`SchemaCache`, `Registry::with_schema_cache`): a schema compiled
//! through the cache validates exactly as one compiled on its own, and a registry sharing a
//! cache answers exactly as one that does not.

use harness_ref::{
    CallContext, Execution, Harness, HarnessConfig, InputSchema, Registry, SchemaCache, Tool,
    ToolOutput, UnknownFields,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Schemas with every kind of keyword the harness reports on, closed and open objects.
fn schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1},
               "s": {"type": "string", "maxLength": 3}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"tags": {"type": "array",
               "items": {"type": "string"}, "maxItems": 2}}}),
        json!({"anyOf": [{"type": "object", "properties": {"a": {}}, "required": ["b"]}, {}]}),
        json!({"type": "object", "properties": {"o": {"type": "object",
               "properties": {"k": {"enum": [1, "x"]}}}}}),
    ]
}

/// JSON values near those schemas: right, wrong type, extra fields, nesting.
fn args_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(|n| json!(n)),
        "[a-z]{0,5}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("(n|s|tags|a|b|o|k|x)", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        prop::collection::btree_map("(n|s|tags|a|b|o|k|x)", value.clone(), 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        value,
    ]
}

fn policy(reject: bool) -> UnknownFields {
    if reject {
        UnknownFields::Reject
    } else {
        UnknownFields::Allow
    }
}

proptest! {
    /// A cached and an uncached validation agree: the same verdict, the same violations,
    /// whether the cache compiled the schema just now or hands out an earlier compilation.
    #[test]
    fn prop_cached_and_uncached_validation_agree(
        which in 0usize..4,
        reject in any::<bool>(),
        args in args_strategy(),
    ) {
        let cache = SchemaCache::new();
        let schema = &schemas()[which];
        let uncached = InputSchema::compile(schema, policy(reject)).unwrap();
        let first = cache.compile(schema, policy(reject)).unwrap();
        let again = cache.compile(schema, policy(reject)).unwrap();
        prop_assert_eq!(cache.len(), 1);
        for cached in [&first, &again] {
            prop_assert_eq!(cached.is_valid(&args), uncached.is_valid(&args));
            prop_assert_eq!(cached.violations(&args), uncached.violations(&args));
            prop_assert_eq!(cached.effective_schema(), uncached.effective_schema());
            prop_assert_eq!(cached.policy(), uncached.policy());
        }
    }
}

#[test]
fn entries_are_per_schema_text_and_policy() {
    let cache = SchemaCache::new();
    let schema = &schemas()[0];
    cache.compile(schema, UnknownFields::Reject).unwrap();
    cache.compile(schema, UnknownFields::Allow).unwrap();
    cache.compile(&schemas()[1], UnknownFields::Reject).unwrap();
    assert_eq!(cache.len(), 3);
    // Closed and open differ: the same arguments, two verdicts.
    let extra = json!({"n": 1, "x": true});
    assert!(!cache
        .compile(schema, UnknownFields::Reject)
        .unwrap()
        .is_valid(&extra));
    assert!(cache
        .compile(schema, UnknownFields::Allow)
        .unwrap()
        .is_valid(&extra));
    assert_eq!(cache.len(), 3);
}

#[test]
fn a_schema_that_does_not_compile_is_refused_every_time_and_not_kept() {
    let cache = SchemaCache::new();
    let bad = json!({"type": 5});
    let direct = InputSchema::compile(&bad, UnknownFields::Reject).unwrap_err();
    for _ in 0..2 {
        let cached = cache.compile(&bad, UnknownFields::Reject).unwrap_err();
        assert_eq!(cached.to_string(), direct.to_string());
    }
    assert!(cache.is_empty());
}

#[test]
fn the_cache_stays_bounded() {
    let cache = SchemaCache::new();
    for i in 0..=SchemaCache::MAX_ENTRIES {
        cache
            .compile(&json!({"maxLength": i}), UnknownFields::Allow)
            .unwrap();
        assert!(cache.len() <= SchemaCache::MAX_ENTRIES);
    }
}

fn echo(name: &str, schema: Value) -> Tool {
    Tool::new(name, "", schema, |args: Value, _ctx: &CallContext<'_>| {
        Ok(ToolOutput::json(args))
    })
    .execution(Execution::Inline)
}

#[test]
fn registries_sharing_a_cache_answer_as_registries_that_do_not() {
    let cache = SchemaCache::new();
    let build = |shared: Option<&SchemaCache>| {
        let mut registry = match shared {
            Some(c) => Registry::with_schema_cache(c.clone()),
            None => Registry::new(),
        };
        for (i, schema) in schemas().into_iter().enumerate() {
            registry.register(echo(&format!("t{i}"), schema)).unwrap();
        }
        Harness::new(registry, HarnessConfig::default())
    };
    let plain = build(None);
    // Two registries through one cache: the second compiles nothing.
    let first = build(Some(&cache));
    let compiled = cache.len();
    let second = build(Some(&cache));
    assert_eq!(cache.len(), compiled);
    let calls = [
        json!({"id": "a", "name": "t0", "input": {"n": 0, "s": "long"}}),
        json!({"id": "b", "name": "t1", "input": {"tags": ["a", 1, "c"]}}),
        json!({"id": "c", "name": "t2", "input": {"a": false}}),
        json!({"id": "d", "name": "t3", "input": {"o": {"k": 2}}}),
        json!({"id": "e", "name": "t0", "input": {"n": 2}}),
    ];
    for call in calls {
        let want = plain.handle(call.clone());
        assert_eq!(first.handle(call.clone()), want, "{call}");
        assert_eq!(second.handle(call.clone()), want, "{call}");
    }
    // A schema the registry refuses is refused the same way through the cache.
    let mut registry = Registry::with_schema_cache(cache.clone());
    let err = registry
        .register(echo("bad", json!({"type": 5})))
        .unwrap_err();
    let mut plain_registry = Registry::new();
    let want = plain_registry
        .register(echo("bad", json!({"type": 5})))
        .unwrap_err();
    assert_eq!(err.to_string(), want.to_string());
}
